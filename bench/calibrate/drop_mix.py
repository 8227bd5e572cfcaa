#!/usr/bin/env python3
"""The loss mix of a fleet run's baseline arm (docs/results/rapid-start-2026.md, "The
loss mix" and "Buffer sources"): of the packets the paths dropped, the
share that were congestive (queue overflow + AQM) against random and
policer drops, and the share of connections with any congestive drop.
Reads the records of the first arm (the baseline) of each run directory;
--by-access splits each run by the records' `access` (wired, wifi,
mobile).

Usage: bench/calibrate/drop_mix.py [--by-access] DIR...   (DIR/records.ndjson)
"""
import collections
import json
import os
import sys

KEYS = ("path.drops-queue", "path.drops-aqm", "path.drops-random", "path.drops-policer")


def mix(path, by_access):
    """{group: [connections, queue, aqm, random, policer, congestive connections]}"""
    groups = collections.defaultdict(lambda: [0] * 6)
    base = None
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if base is None:
                base = rec.get("group")
            if rec.get("group") != base:
                continue
            d = [int(rec.get(k, 0) or 0) for k in KEYS]
            for g in (["all"] + ([rec.get("access", "?")] if by_access else [])):
                row = groups[g]
                row[0] += 1
                for i, v in enumerate(d):
                    row[1 + i] += v
                row[5] += d[0] + d[1] > 0
    return groups


def main():
    args = sys.argv[1:]
    by_access = "--by-access" in args
    dirs = [a for a in args if a != "--by-access"]
    print("| run | paths | connections | drops | congestive (queue + AQM) / random / policer | connections with a congestive drop |")
    print("|---|---|---:|---:|---|---:|")
    for d in dirs:
        groups = mix(os.path.join(d, "records.ndjson"), by_access)
        total = sum(groups["all"][1:5]) or 1
        for g in sorted(groups, key=lambda k: (k != "all", k)):
            n, q, a, r, p, c = groups[g]
            drops = q + a + r + p or 1
            print(f"| {os.path.basename(d.rstrip('/'))} | {g} | {n} | {q + a + r + p} ({100.0 * (q + a + r + p) / total:.0f} %) | "
                  f"{100.0 * (q + a) / drops:.1f} / {100.0 * r / drops:.1f} / {100.0 * p / drops:.1f} % | "
                  f"{100.0 * c / max(n, 1):.1f} % |")


if __name__ == "__main__":
    main()
