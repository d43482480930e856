#!/usr/bin/env python3
"""Turns the JaVaFo golden pairings of chesspairing (golden/<scenario>/,
Apache-2.0, see README.md) into what tests/trf.rs reads: <scenario>.trf,
the tournament after its last round as a TRF-16 file (start ranks by
rating, the higher-rated player winning every game as the scenario says,
the pairing-allocated bye as `F` and a withdrawn player's rounds as `Z`,
as the generator wrote them for JaVaFo), and <scenario>.pairings, each
round's pairs in the order JaVaFo printed them (`round N`, then
`white black` lines).

Run from this folder: python3 convert.py
"""
import json
import os

SCENARIOS = [
    "8-players-5-rounds",
    "9-players-5-rounds",
    "10-players-7-rounds",
    "12-players-7-rounds",
    "20-players-9-rounds",
    "withdrawal",
]


def convert(name):
    folder = os.path.join("golden", name)
    with open(os.path.join(folder, "scenario.json")) as f:
        scenario = json.load(f)
    players = sorted(scenario["players"], key=lambda p: -p["Rating"])
    rank = {p["ID"]: i + 1 for i, p in enumerate(players)}
    rating = {p["ID"]: p["Rating"] for p in players}
    blocks = {p["ID"]: [] for p in players}
    points = {p["ID"]: 0 for p in players}
    printed = []
    for r in range(1, scenario["totalRounds"] + 1):
        with open(os.path.join(folder, f"round-{r}.json")) as f:
            rnd = json.load(f)
        printed.append(f"round {r}")
        seen = set()
        for g in rnd["Pairings"]:
            w, b = g["WhiteID"], g["BlackID"]
            printed.append(f"{rank[w]} {rank[b]}")
            ww = rating[w] > rating[b]
            blocks[w].append(f"{rank[b]:>4} w {'1' if ww else '0'}")
            blocks[b].append(f"{rank[w]:>4} b {'0' if ww else '1'}")
            points[w if ww else b] += 10
            seen.update([w, b])
        for bye in rnd["Byes"] or []:
            blocks[bye["PlayerID"]].append("0000 - F")
            points[bye["PlayerID"]] += 10
            seen.add(bye["PlayerID"])
        for p in players:
            if p["ID"] not in seen:
                blocks[p["ID"]].append("0000 - Z")
    lines = [f"012 {scenario['description']}"]
    for p in players:
        pid = p["ID"]
        head = (
            f"001 {rank[pid]:>4}      {p['DisplayName']:<33} {p['Rating']:>4}"
            f"{'':>28}{points[pid] // 10:>2}.{points[pid] % 10}{'':>7}"
        )
        assert len(head) == 91, len(head)
        lines.append((head + "".join(b + "  " for b in blocks[pid])).rstrip())
    lines.append(f"XXR {scenario['totalRounds']}")
    with open(f"{name}.trf", "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(f"{name}.pairings", "w") as f:
        f.write("\n".join(printed) + "\n")


for s in SCENARIOS:
    convert(s)
