#!/usr/bin/env python3
"""The startup-study table (docs/l4s.md) from bench/l4s/startup.sh's
records: TTLB in ms (packets lost / CE marks reported) per queue, rate,
size and arm.

    startup_table.py STARTUP.ndjson [SIZES_BYTES ...]
"""
import json
import sys

ARMS = ["prague", "prague+hystart", "prague+rapidstart", "bbr3(ecn=ect1)", "cubic+rapidstart"]


def arm(name):
    return name.replace("(iw=30)", "").replace("iw=30,", "").replace(",iw=30", "")


rows = [json.loads(l) for l in open(sys.argv[1])]
sizes = [int(s) for s in sys.argv[2:]] or [100_000, 1_000_000, 10_000_000]
cell = {}
for r in rows:
    cell[(r["path.aqm"], r["path.rate-bps"], r["content_length"], arm(r["cc.algorithm"]))] = r
print("| aqm | rate | size | " + " | ".join(ARMS) + " |")
print("|---|---|---|" + "---|" * len(ARMS))
for aqm in ("droptail", "dualpi2", "fq_codel"):
    for rate in (10_000_000, 100_000_000, 1_000_000_000):
        for size in sizes:
            out = []
            for a in ARMS:
                r = cell.get((aqm, rate, size, a))
                if r is None:
                    out.append("-")
                    continue
                ttlb = r["ttlb-us"] / 1000 if r.get("completed", True) else float("nan")
                out.append(f'{ttlb:.0f} ({r["num-packets.lost"]}/{r["num-packets.acked-ecn-ce"]})')
            print(f"| {aqm} | {rate // 1_000_000} Mbit/s | {size // 1000} KB | " + " | ".join(out) + " |")
