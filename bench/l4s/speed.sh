#!/usr/bin/env bash
# Simulator speed on drop-tail before and after L4S (docs/l4s.md,
# "Simulator speed"): a binary built from 8252086 (the last commit before
# the ECN codepoint, DualPI2 and Prague work) against the current one.
#
#   OLD=/path/to/ramp-8252086 NEW=target/release/ramp bench/l4s/speed.sh
#
# 1. farm-bench, paired A/B/A/B: one fixed-work simulation (a 2 GB NewReno
#    transfer over 100 Mbit/s, 30 ms, drop-tail: about 1.6 M data
#    packets), whole process, median of the pairs' ratios.
# 2. `ramp bench sim --seconds 4` (seed-100m connections, drop-tail),
#    alternating old and new, its packets per CPU second.
set -euo pipefail
OLD=${OLD:?build 8252086 and give its ramp}
NEW=${NEW:-target/release/ramp}
RUNS=${RUNS:-7}
ARGS="sim --cc newreno --rate 100mbit --rtt 30ms --queue 30ms --size 2GB"
farm-bench -n "$RUNS" --timeout 1200 --vs "$OLD $ARGS" -- $NEW $ARGS
for i in 1 2 3; do
  for b in "$OLD" "$NEW"; do
    echo "$b: $("$b" bench sim --seconds 4 | grep -i 'per cpu\|cpu' | head -1)"
  done
done
