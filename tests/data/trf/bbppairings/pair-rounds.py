#!/usr/bin/env python3
"""Makes random-N.pairings from random-N.trf (see README.md): for each
round R, the tournament cut after round R-1 (points recounted, `XXR`, and
`XXC white1` for round 1) is paired by bbpPairings (`--dutch -p`), and its
printed pairs are written under `round R`, in the order it printed them.

Usage, from this folder, with bbpPairings built:
    python3 pair-rounds.py PATH/TO/bbpPairings.exe random-3 9
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


def main(exe, name, total):
    with open(f"{name}.trf", newline="") as f:
        text = f.read()
    printed = []
    for r in range(1, total + 1):
        lines = cut(text, r - 1) + [f"XXR {total}"]
        if r == 1:
            lines.append("XXC white1")
        with open("tmp.trf", "w") as f:
            f.write("\n".join(lines) + "\n")
        subprocess.run([exe, "--dutch", "tmp.trf", "-p", "tmp.out"], check=True)
        with open("tmp.out") as f:
            printed.append(f"round {r}\n" + f.read().split("\n", 1)[1])
    with open(f"{name}.pairings", "w") as f:
        f.write("".join(printed))


main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
