#!/usr/bin/env python3
"""Pairs every round of a tournament again with a pairing program and
writes the pairs it printed (see README.md): for each round R, the
tournament NAME.trf cut after round R-1 (points recounted, `XXR`, and
`XXC white1` for round 1) is written to tmp.trf, the program is run on
it, and the pairs it printed to tmp.out (its first line, the number of
pairs, dropped) go to OUT under `round R`, in the order it printed them.

Usage, from the folder of the output, with the program installed:
    python3 ../pair-rounds.py NAME.trf ROUNDS OUT -- COMMAND...
where COMMAND reads tmp.trf and writes tmp.out, e.g.
    python3 ../pair-rounds.py random-3.trf 9 random-3.pairings \
        -- PATH/TO/bbpPairings.exe --dutch tmp.trf -p tmp.out
    python3 ../pair-rounds.py ../bbppairings/random-3.trf 9 random-3.pairings \
        -- py4swiss -e dutch -t tmp.trf -p tmp.out
"""
import re
import subprocess
import sys

POINTS = {"1": 10, "=": 5, "0": 0, "+": 10, "-": 0, "W": 10, "D": 5,
          "L": 0, "H": 5, "F": 10, "U": 10, "Z": 0, "": 0}


def cut(text, rounds):
    out = []
    for line in re.split(r"\r\n|\r|\n", text):
        if line.startswith("001"):
            line = line[:91 + 10 * rounds].rstrip()
            tenths = sum(POINTS[line[98 + 10 * i:99 + 10 * i].strip()]
                         for i in range(rounds) if len(line) > 98 + 10 * i)
            line = line[:80] + f"{tenths // 10:>2}.{tenths % 10}" + line[84:]
        if line[:3] in ("012", "001"):
            out.append(line)
    return out


def main(trf, total, out, command):
    with open(trf, newline="") as f:
        text = f.read()
    printed = []
    for r in range(1, total + 1):
        lines = cut(text, r - 1) + [f"XXR {total}"]
        if r == 1:
            lines.append("XXC white1")
        with open("tmp.trf", "w") as f:
            f.write("\n".join(lines) + "\n")
        subprocess.run(command, check=True)
        with open("tmp.out") as f:
            printed.append(f"round {r}\n" + f.read().split("\n", 1)[1])
    with open(out, "w") as f:
        f.write("".join(printed))


if len(sys.argv) < 6 or sys.argv[4] != "--":
    sys.exit(__doc__)
main(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[5:])
