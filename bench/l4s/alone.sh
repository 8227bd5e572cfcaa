#!/usr/bin/env bash
# One flow alone on the bottleneck: Prague (ECT(1)), CUBIC with ECN
# (ECT(0)) and CUBIC (Not-ECT) over DualPI2 and FQ-CoDel, 20 ms, a 100 ms
# buffer, at 10, 100 and 1000 Mbit/s (docs/l4s.md, "Prague alone").
#
#   RAMP=target/release/ramp bench/l4s/alone.sh [OUT_DIR]
#
# Each transfer lasts about 4.8 s at the link rate; statistics (share of
# the link = utilisation, queue delay P50/P99 at the flow's packet
# arrivals) are over 1 s to 4.5 s of its trace (bench/l4s/trace_stats.py).
# Writes OUT_DIR/alone.ndjson and the CSVs p99.csv, p50.csv, util.csv for
# `ramp plot xy`.
set -euo pipefail
RAMP=${RAMP:-target/release/ramp}
OUT=${1:-/tmp/l4s-alone}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
: > "$OUT/alone.ndjson"
for aqm in dualpi2 fq_codel; do
  for mbit in 10 100 1000; do
    size=$((mbit * 600))KB
    tdir="$OUT/tr-$aqm-$mbit"; rm -rf "$tdir"
    "$RAMP" sim --cc "prague,cubic(ecn=on),cubic" --aqm "$aqm" --rate "${mbit}mbit" --rtt 20ms \
      --queue 100ms --size "$size" --trace "$tdir" > /dev/null
    for f in "$tdir"/*.ndjson; do
      cc=$(head -1 "$f" | python3 -c 'import json,sys; print(json.load(sys.stdin)["cc"])')
      stats=$(python3 "$HERE/trace_stats.py" "$f" 1 4.5)
      echo "{\"aqm\":\"$aqm\",\"rate_mbit\":$mbit,\"cc\":\"$cc\",\"stats\":$stats}" >> "$OUT/alone.ndjson"
    done
    rm -rf "$tdir"
  done
done
python3 - "$OUT" <<'PY'
import json, sys, collections
out = sys.argv[1]
rows = [json.loads(l) for l in open(f"{out}/alone.ndjson")]
series = []
for r in rows:
    name = f'{r["cc"].split("(iw")[0]}{"(ecn=on)" if "ecn=on" in r["cc"] else ""} over {r["aqm"]}'
    r["series"] = name
    if name not in series:
        series.append(name)
for key, fname, scale in (("qdelay_p99_ms", "p99", 1), ("qdelay_p50_ms", "p50", 1), ("share", "util", 100)):
    table = collections.defaultdict(dict)
    for r in rows:
        table[r["rate_mbit"]][r["series"]] = r["stats"][key] * scale
    with open(f"{out}/{fname}.csv", "w") as f:
        f.write("link rate (Mbit/s)," + ",".join(series) + "\n")
        for rate in sorted(table):
            f.write(f"{rate}," + ",".join(f'{table[rate].get(s, "")}' for s in series) + "\n")
print(open(f"{out}/p99.csv").read())
print(open(f"{out}/util.csv").read())
PY
