#!/usr/bin/env python3
"""Checks that each round of a printed-pairings file is in FIDE C.04.1
F.1 order, independently of boardcast's own code.

Scores before round R come from the tournament file's results of rounds 1..R-1. The
pairs printed for round R must be sorted by (1) the score of the pair's
higher player, descending, (2) the sum of both scores, descending, (3) the
start rank of the higher player, ascending, where the higher player has
more points or, on equal points, the smaller start rank; a bye (`n 0`)
comes after every game. Also reports whether the printed pairs are the
games the TRF has in round R.

Usage: python3 check-f1.py TRF PAIRINGS [TRF PAIRINGS]...
  e.g. python3 check-f1.py py4swiss/dutch-1.trf py4swiss/dutch-1.pairings
"""
import re
import sys

VALUE = {"1": 10, "=": 5, "0": 0, "+": 10, "-": 0, "W": 10, "D": 5,
         "L": 0, "H": 5, "F": 10, "U": 10, "Z": 0, "": 0}


def rounds_of(path):
    with open(path, newline="") as f:
        text = f.read()
    players = {}
    for line in re.split(r"\r\n|\r|\n", text):
        if not line.startswith("001"):
            continue
        rank = int(line[4:8])
        blocks = []
        i = 91
        while i < len(line):
            block = line[i:i + 10]
            opp = block[0:4].strip()
            blocks.append((int(opp) if opp else 0, block[5:6].strip(),
                           block[7:8].strip()))
            i += 10
        players[rank] = blocks
    return players


def sections(path):
    out = []
    for block in open(path).read().split("round ")[1:]:
        head, rest = block.split("\n", 1)
        pairs = [tuple(map(int, l.split())) for l in rest.splitlines() if l.strip()]
        out.append((int(head), pairs))
    return out


def key(pair, score):
    w, b = pair
    if b == 0:
        return (1,)
    hi, lo = sorted((w, b), key=lambda p: (-score[p], p))
    return (0, -score[hi], -(score[hi] + score[lo]), hi)


def main(args):
    total = bad = differ = 0
    for trf, printed in zip(args[::2], args[1::2]):
        name = printed
        players = rounds_of(trf)
        for r, pairs in sections(printed):
            score = {p: sum(VALUE[res] for _, _, res in bl[:r - 1])
                     for p, bl in players.items()}
            keys = [key(p, score) for p in pairs]
            total += 1
            if keys != sorted(keys):
                bad += 1
                i = next(i for i in range(len(keys) - 1) if keys[i] > keys[i + 1])
                show = lambda p: (f"{p[0]} ({score[p[0]] / 10}) - {p[1]} ({score[p[1]] / 10})"
                                  if p[1] else f"{p[0]} bye")
                print(f"{name} round {r}: NOT F.1 at boards {i + 1}-{i + 2}: "
                      f"{show(pairs[i])} before {show(pairs[i + 1])}")
            games = {(w, b) for w, b in pairs if b}
            played = {(p, bl[r - 1][0]) for p, bl in players.items()
                      if len(bl) >= r and bl[r - 1][1] == "w" and bl[r - 1][0]}
            byes = {w for w, b in pairs if b == 0}
            trf_byes = {p for p, bl in players.items()
                        if len(bl) >= r and bl[r - 1][2] == "U"}
            if games != played or byes != trf_byes:
                differ += 1
    print(f"{total} rounds checked, {bad} not in F.1 order; "
          f"{differ} rounds whose printed pairs are not the TRF's games")


if len(sys.argv) < 3 or len(sys.argv) % 2 == 0:
    sys.exit(__doc__)
main(sys.argv[1:])
