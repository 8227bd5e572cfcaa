# Sourced by the calibration scripts that run one fleet per table row
# (structure.sh, ablation.sh): their arguments RAMP OUTDIR, the N and SEED
# they honour from the environment, and the run of one row.
#   . "$(dirname "$0")/common.sh"
set -eu
RAMP=${1:?ramp binary}
OUT=${2:?output directory}
N=${N:-20000}
SEED=${SEED:-1}
mkdir -p "$OUT"

# fleet_row NAME [RAMP ARGS...]: runs the fleet of population $OUT/NAME.toml
# into $OUT/NAME (terminal output in $OUT/NAME.txt) and appends its wall
# time and the machine's load to $OUT/times.txt.
fleet_row() {
  name=$1; shift
  start=$(date +%s)
  "$RAMP" fleet --population "$OUT/$name.toml" -n "$N" --seed "$SEED" --no-charts -q -o "$OUT/$name" "$@" > "$OUT/$name.txt"
  echo "$name: $(( $(date +%s) - start )) s, load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$OUT/times.txt"
}
