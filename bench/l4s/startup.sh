#!/usr/bin/env bash
# The startup study (docs/l4s.md): TTLB and loss of one transfer over
# sizes 100 KB - 10 MB and rates 10 - 1000 Mbit/s, per startup arm, on a
# drop-tail, a DualPI2 and an FQ-CoDel bottleneck (20 ms, 50 ms buffer).
#
#   RAMP=target/release/ramp bench/l4s/startup.sh [OUT_DIR] [IMG_DIR]
#
# Writes OUT_DIR/startup.ndjson (the records) and one grid chart per
# queue and rate, TTLB and packets lost against size, to IMG_DIR
# (default docs/img/l4s).
set -euo pipefail
RAMP=${RAMP:-target/release/ramp}
OUT=${1:-/tmp/l4s-startup}
IMG=${2:-docs/img/l4s}
ARMS=${ARMS:-"prague,prague+hystart,prague+rapidstart,bbr3(ecn=ect1),cubic+rapidstart"}
mkdir -p "$OUT" "$IMG"
: > "$OUT/startup.ndjson"
for aqm in droptail dualpi2 fq_codel; do
  for rate in 10mbit 100mbit 1000mbit; do
    for size in 100KB 200KB 500KB 1MB 2MB 5MB 10MB; do
      rm -f "$OUT/one.ndjson"
      "$RAMP" sim --cc "$ARMS" --aqm "$aqm" --rate "$rate" --rtt 20ms --queue 50ms \
        --size "$size" --records "$OUT/one.ndjson" > /dev/null
      cat "$OUT/one.ndjson" >> "$OUT/startup.ndjson"
    done
  done
done
rm -f "$OUT/one.ndjson"
for aqm in droptail dualpi2 fq_codel; do
  for rate in 10000000 100000000 1000000000; do
    sel="$OUT/$aqm-$rate.ndjson"
    grep "\"path.aqm\":\"$aqm\"" "$OUT/startup.ndjson" | grep "\"path.rate-bps\":$rate[,}]" > "$sel"
    "$RAMP" plot grid "$sel" --axis size --arm-key cc.algorithm \
      --title "Startup on $aqm, $((rate / 1000000)) Mbit/s, 20 ms: TTLB and packets lost" \
      -o "$IMG/startup-$aqm-$((rate / 1000000))mbit.svg"
  done
done
echo "records: $OUT/startup.ndjson; charts: $IMG/startup-*.svg"
