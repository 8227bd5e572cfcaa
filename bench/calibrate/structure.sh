#!/bin/sh
# The "Runs that change the structure" table of docs/results/rapid-start-2026.md
# ("Round five"): the seed experiment's 20 000 connections (seed 1) on the
# seven built-in regions, one structural change per row, each on the model
# (not on the row above). Usage: bench/calibrate/structure.sh RAMP OUTDIR
# then: python3 bench/calibrate/slice_table.py OUTDIR/ROW ...
. "$(dirname "$0")/common.sh"
# name, text added to every [[region]] table, [paths] body
row() {
  name=$1; region=$2; paths=$3
  : > "$OUT/$name.toml"
  for r in east-asia se-asia west-europe east-europe africa north-america south-america; do
    printf '[[region]]\nname = "%s"\n%s\n\n' "$r" "$region" >> "$OUT/$name.toml"
  done
  printf '[paths]\n%s\n' "$paths" >> "$OUT/$name.toml"
  fleet_row "$name"
}
NDT='capacity = { fixed = 1.0, mobile = 1.0 }'
ROWS=${ROWS:-"base xt xt8 xt16 cap1 xt8cap1 aqmhi"}
for r in $ROWS; do
  case $r in
    base) row base "" "" ;;
    xt) row xt "" "cross_traffic_share = 1.0" ;;
    xt8) row xt8 "" "cross_traffic_share = 1.0
cross_traffic_users = 8" ;;
    xt16) row xt16 "" "cross_traffic_share = 1.0
cross_traffic_users = 16" ;;
    cap1) row cap1 "$NDT" "" ;;
    xt8cap1) row xt8cap1 "$NDT" "cross_traffic_share = 1.0
cross_traffic_users = 8" ;;
    aqmhi) row aqmhi "" "fixed_aqm_share = 1.0
wifi_fq_codel_share = 1.0
mobile_aqm_share = 0.5" ;;
    *) echo "unknown row $r" >&2; exit 2 ;;
  esac
done
