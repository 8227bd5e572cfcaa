#!/bin/sh
# The Google presets (iw10-vs-iw32, reno-vs-cubic, pacing-on-off,
# cubic-1conn-vs-2conn) on a population file's [paths], for the ablation
# table: the presets' regions, sizes and arms, N connections (default 3000).
# Usage: bench/calibrate/google.sh RAMP OUTDIR NAME '[paths] body'
set -eu
RAMP=${1:?ramp binary}; OUT=${2:?output directory}; NAME=${3:?row name}; PATHS=${4:-}
N=${N:-3000}
mkdir -p "$OUT"
{
  printf '[workload]\nmin_size = "10KB"\nmax_size = "10MB"\nbins = ["10KB", "100KB", "1MB", "10MB"]\n'
  for r in east-asia se-asia west-europe east-europe africa north-america south-america; do
    printf '[[region]]\nname = "%s"\n' "$r"
  done
  printf '[paths]\n%s\n' "$PATHS"
} > "$OUT/$NAME-google.toml"
for p in "iw10=cubic(conns=2,iw=10)" "reno=newreno(iw=32)" "unpaced=cubic(conns=2,iw=32,pacing=off)" "1conn=cubic(conns=1,iw=32)"; do
  label=${p%%=*}
  "$RAMP" fleet --population "$OUT/$NAME-google.toml" --arms "base=cubic(conns=2,iw=32),$p" \
    -n "$N" --seed 1 --no-charts -q -o "$OUT/$NAME-google-$label" > "$OUT/$NAME-google-$label.txt"
done
