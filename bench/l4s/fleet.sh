#!/usr/bin/env bash
# The l4s-2026 fleet preset at modest n, summarised by arm and by the
# path's queue discipline (docs/l4s.md, "A fleet with L4S accesses").
#
#   RAMP=target/release/ramp N=2000 bench/l4s/fleet.sh [OUT_DIR]
set -euo pipefail
RAMP=${RAMP:-target/release/ramp}
N=${N:-2000}
OUT=${1:-/tmp/l4s-fleet}
rm -rf "$OUT"
"$RAMP" fleet --preset l4s-2026 -n "$N" --seed 1 -j 1 -q --no-charts -o "$OUT" > /dev/null
python3 - "$OUT/records.ndjson" <<'PY'
import json, sys, collections

def q(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    h = (len(xs) - 1) * p
    lo = int(h); hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (h - lo) * (xs[hi] - xs[lo])

by = collections.defaultdict(list)
pairs = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    r = json.loads(line)
    aqm = r.get("path.aqm", "?")
    cls = "docsis_lld" if aqm == "docsis_lld" else "other"
    ttlb = r.get("ttlb-us", 0) / 1000.0
    by[(r["group"], cls)].append((ttlb, r.get("num-packets.lost", 0), r.get("num-packets.acked-ecn-ce", 0)))
    by[(r["group"], "all")].append((ttlb, r.get("num-packets.lost", 0), r.get("num-packets.acked-ecn-ce", 0)))
    pairs[(cls, r["seed"])][r["group"]] = ttlb
print("| paths | arm | n | TTLB p50 ms | TTLB p90 ms | TTLB p99 ms | lost/conn | CE/conn | paired median change vs cubic+rapidstart |")
print("|---|---|---|---|---|---|---|---|---|")
for cls in ("docsis_lld", "other", "all"):
    for arm in ("cubic+rapidstart", "prague+rapidstart"):
        v = by.get((arm, cls), [])
        if not v:
            continue
        t = [x[0] for x in v]
        d = []
        if arm != "cubic+rapidstart":
            for (c, _), p in pairs.items():
                if (cls == "all" or c == cls) and len(p) == 2 and p["cubic+rapidstart"] > 0:
                    d.append(100 * (p[arm] / p["cubic+rapidstart"] - 1))
        ch = f"{q(d, 0.5):+.1f} %" if d else "-"
        print(f"| {cls} | {arm} | {len(v)} | {q(t,0.5):.0f} | {q(t,0.9):.0f} | {q(t,0.99):.0f} | "
              f"{sum(x[1] for x in v)/len(v):.2f} | {sum(x[2] for x in v)/len(v):.2f} | {ch} |")
PY
