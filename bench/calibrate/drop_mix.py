#!/usr/bin/env python3
"""The loss mix of a fleet run's baseline arm (docs/experiments.md, "The
loss mix"): of the packets the paths dropped, the share that were
congestive (queue overflow + AQM) against random (and policer), and the
share of connections with any congestive drop. Reads the records of the
first arm (the baseline) of each run directory.

Usage: bench/calibrate/drop_mix.py DIR...   (DIR/records.ndjson)
"""
import json
import os
import sys

KEYS = ("path.drops-queue", "path.drops-aqm", "path.drops-random", "path.drops-policer")


def field(rec, key):
    if key in rec:
        return rec[key]
    cur = rec
    for part in key.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return 0
        cur = cur[part]
    return cur


def mix(path):
    totals = dict.fromkeys(KEYS, 0)
    conns = congestive_conns = 0
    base = None
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            arm = rec.get("group")
            if base is None:
                base = arm
            if arm != base:
                continue
            conns += 1
            d = {k: int(field(rec, k) or 0) for k in KEYS}
            for k in KEYS:
                totals[k] += d[k]
            if d["path.drops-queue"] + d["path.drops-aqm"] > 0:
                congestive_conns += 1
    drops = sum(totals.values()) or 1
    cong = totals["path.drops-queue"] + totals["path.drops-aqm"]
    return (base, conns, 100.0 * cong / drops, 100.0 * totals["path.drops-random"] / drops,
            100.0 * totals["path.drops-policer"] / drops, 100.0 * congestive_conns / max(conns, 1))


def main():
    print("| run | baseline drops: congestive (queue + AQM) / random / policer | connections with a congestive drop |")
    print("|---|---|---:|")
    for d in sys.argv[1:]:
        base, n, cong, rnd, pol, conns = mix(os.path.join(d, "records.ndjson"))
        print(f"| {os.path.basename(d.rstrip('/'))} | {cong:.1f} / {rnd:.1f} / {pol:.1f} % | {conns:.1f} % of {n} |")


if __name__ == "__main__":
    main()
