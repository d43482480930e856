#!/usr/bin/env python3
"""Plays a random tournament paired by py4swiss and records what it printed.

For each round R the tournament so far (results of rounds 1..R-1, points
recounted, `XXR`, `XXC white1`, and for a player who sits out round R a
pre-announced `0000 - H` half-point bye or `0000 - Z` zero-point bye, as
JaVaFo's TRF(x) asks; py4swiss wants the points column to count it) is written to tmp.trf and paired by
`py4swiss -e ENGINE -t tmp.trf -p tmp.out`. The printed pairs (the count
line dropped) go under `round R` in NAME.pairings, in the order py4swiss
printed them; random results are then played for them (draws, forfeits,
the pairing-allocated bye as `0000 - U`) and the round is added to the
tournament. NAME.trf is the tournament after its last round.

Usage: python3 simulate.py PATH/TO/py4swiss ENGINE NAME PLAYERS ROUNDS SEED
"""
import random
import subprocess
import sys

VALUE = {"1": 10, "=": 5, "0": 0, "+": 10, "-": 0, "H": 5, "U": 10, "Z": 0}


def trf_lines(title, ratings, history, rounds, upto, extra=None):
    """The TRF with rounds 1..upto of `history`, plus `extra` blocks."""
    lines = [f"012 {title}"]
    points = {}
    for i in history:
        blocks = history[i][:upto] + ([extra[i]] if extra and i in extra else [])
        points[i] = (sum(VALUE[b[7]] for b in blocks), blocks)
    # Rank column: by points, then start rank.
    rank = {i: n for n, i in enumerate(
        sorted(points, key=lambda i: (-points[i][0], i)), start=1)}
    for i, rating in enumerate(ratings, start=1):
        tenths, blocks = points[i]
        name = f"Player {i:02d}"
        line = (f"001 {i:>4}      {name:<33}{rating:>4}" + " " * 29
                + f"{tenths // 10:>2}.{tenths % 10}" + f" {rank[i]:>4}" + "  ")
        assert len(line) == 91, len(line)
        lines.append((line + "".join(blocks)).rstrip())
    lines.append(f"XXR {rounds}")
    lines.append("XXC white1")
    return lines


def main(exe, engine, name, players, rounds, seed):
    rng = random.Random(seed)
    ratings = sorted((rng.randrange(1400, 2600) for _ in range(players)),
                     reverse=True)
    history = {i: [] for i in range(1, players + 1)}
    withdrawn = set()
    printed = []
    for r in range(1, rounds + 1):
        # Who sits out round r: withdrawn players, and a few half-point byes.
        extra = {}
        if r > 2 and rng.random() < 0.3:
            withdrawn.add(rng.randrange(1, players + 1))
        for i in range(1, players + 1):
            if i in withdrawn:
                extra[i] = "0000 - Z  "
            elif 1 < r < rounds and rng.random() < 0.05:
                extra[i] = "0000 - H  "
        lines = trf_lines(f"py4swiss {engine} {name}", ratings, history,
                          rounds, r - 1, extra)
        with open("tmp.trf", "w") as f:
            f.write("\n".join(lines) + "\n")
        subprocess.run([exe, "-e", engine, "-t", "tmp.trf", "-p", "tmp.out"],
                       check=True)
        with open("tmp.out") as f:
            out = f.read().split("\n")
        pairs = [tuple(map(int, l.split())) for l in out[1:] if l.strip()]
        assert len(pairs) == int(out[0]), out
        printed.append(f"round {r}\n" + "".join(f"{w} {b}\n" for w, b in pairs))
        for i, block in extra.items():
            history[i].append(block)
        for w, b in pairs:
            if b == 0:
                history[w].append("0000 - U  ")
                continue
            x = rng.random()
            if x < 0.06:
                rw, rb = rng.choice([("+", "-"), ("-", "+")])
            else:
                p = 1 / (1 + 10 ** ((ratings[b - 1] - ratings[w - 1]) / 400))
                y = rng.random()
                if y < 0.3:
                    rw, rb = "=", "="
                elif y < 0.3 + 0.7 * p:
                    rw, rb = "1", "0"
                else:
                    rw, rb = "0", "1"
            history[w].append(f"{b:>4} w {rw}  ")
            history[b].append(f"{w:>4} b {rb}  ")
    with open(f"{name}.trf", "w") as f:
        lines = trf_lines(f"py4swiss {engine} {name}", ratings, history,
                          rounds, rounds)
        f.write("\n".join(l.rstrip() for l in lines) + "\n")
    with open(f"{name}.pairings", "w") as f:
        f.write("".join(printed))


main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]),
     int(sys.argv[5]), int(sys.argv[6]))
