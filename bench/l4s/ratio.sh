#!/usr/bin/env bash
# Prague against CUBIC on one DualPI2 bottleneck: each flow's share of the
# link in steady state, per base RTT (docs/l4s.md, "Prague against CUBIC").
#
#   RAMP=target/release/ramp bench/l4s/ratio.sh [OUT_DIR]
#
# One Prague flow (ECT(1)) and one classic flow start together on a
# 100 Mbit/s link with a 200 ms buffer; both are 1 GB, so neither ends
# inside the window. Each RTT is run twice, each flow traced once as flow
# 0; shares are the bytes acknowledged over 20 s windows from 20 s to
# 120 s (bench/l4s/trace_stats.py). Writes OUT_DIR/ratio.csv (the
# 60-120 s ratio per RTT, for `ramp plot xy`) and OUT_DIR/windows.ndjson.
# CLASSIC=newreno runs the Reno-friendly classic flow instead of CUBIC.
set -euo pipefail
RAMP=${RAMP:-target/release/ramp}
OUT=${1:-/tmp/l4s-ratio}
CLASSIC=${CLASSIC:-cubic}
AQM=${AQM:-dualpi2}
RTTS=${RTTS:-"10 20 40 80 160 200"}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
: > "$OUT/windows.ndjson"
echo "base RTT (ms),prague/$CLASSIC 60-120 s,prague/$CLASSIC 20-40 s" > "$OUT/ratio.csv"
for rtt in $RTTS; do
  declare -A share20 share60
  for pair in "prague:$CLASSIC" "$CLASSIC:prague"; do
    main=${pair%%:*}; other=${pair##*:}
    sc="$OUT/sc-$rtt-$main.toml"
    cat > "$sc" <<T
size = "1GB"
[path]
rate = "100mbit"
rtt = "${rtt}ms"
queue = "200ms"
aqm = "$AQM"
[[flow]]
cc = "$other"
size = "1GB"
T
    # The trace of flow 0 (hundreds of MB): summarised, then deleted.
    tdir="$OUT/trace-$rtt-$main"; rm -rf "$tdir"
    "$RAMP" sim --scenario "$sc" --cc "$main" --trace "$tdir" > "$OUT/sim-$rtt-$main.txt"
    python3 "$HERE/trace_stats.py" "$tdir"/0-*.ndjson 20 40 40 60 60 80 80 100 100 120 60 120 > "$OUT/w-$rtt-$main.ndjson"
    rm -rf "$tdir"
    while read -r line; do
      echo "{\"rtt_ms\":$rtt,\"flow\":\"$main\",\"stats\":$line}" >> "$OUT/windows.ndjson"
    done < "$OUT/w-$rtt-$main.ndjson"
    share20[$main]=$(sed -n 1p "$OUT/w-$rtt-$main.ndjson" | python3 -c 'import json,sys; print(json.load(sys.stdin)["share"])')
    share60[$main]=$(sed -n 6p "$OUT/w-$rtt-$main.ndjson" | python3 -c 'import json,sys; print(json.load(sys.stdin)["share"])')
  done
  python3 -c "print('$rtt,%.3f,%.3f' % (${share60[prague]}/${share60[$CLASSIC]}, ${share20[prague]}/${share20[$CLASSIC]}))" >> "$OUT/ratio.csv"
  unset share20 share60
done
cat "$OUT/ratio.csv"
