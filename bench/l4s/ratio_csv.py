#!/usr/bin/env python3
"""The Prague/classic rate ratio per RTT and window from the
windows.ndjson files bench/l4s/ratio.sh writes.

    ratio_csv.py WINDOWS.ndjson [...] > ratio.csv
"""
import json
import sys
from collections import defaultdict

share = defaultdict(dict)
for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line)
        w = tuple(r["stats"]["window_s"])
        flow = "prague" if r["flow"] == "prague" else "classic"
        share[(r["rtt_ms"], w[0], round(w[1]))][flow] = r["stats"]["share"]
windows = sorted({(k[1], k[2]) for k in share})
print("base RTT (ms)," + ",".join(f"{a:g}-{b:g} s" for a, b in windows))
for rtt in sorted({k[0] for k in share}):
    cells = []
    for a, b in windows:
        s = share.get((rtt, a, b), {})
        cells.append(f'{s["prague"] / s["classic"]:.3f}' if len(s) == 2 and s["classic"] > 0 else "")
    print(f"{rtt}," + ",".join(cells))
