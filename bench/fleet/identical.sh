#!/usr/bin/env bash
# Checks that two `ramp` binaries write byte-identical fleet runs: the
# seed experiment at seeds 1 and 2, on one thread and on all cores, and as
# two shards joined with `ramp fleet merge`. A speed change to the
# simulator must pass this against the binary it replaces.
#
#   bench/fleet/identical.sh OLD_RAMP NEW_RAMP [CONNECTIONS]   # default 20000
#
# Compares records.ndjson and summary.json (and summary.md) of each pair;
# exits 1 on the first difference. Work directory: $IDENT_DIR (default a
# fresh mktemp directory, removed at the end).
set -euo pipefail
old=${1:?usage: identical.sh OLD_RAMP NEW_RAMP [CONNECTIONS]}
new=${2:?usage: identical.sh OLD_RAMP NEW_RAMP [CONNECTIONS]}
n=${3:-20000}
dir=${IDENT_DIR:-$(mktemp -d)}
trap '[ -z "${IDENT_DIR:-}" ] && rm -rf "$dir"' EXIT
preset=rapid-start-2026

run() { # BINARY OUT ARGS...
  local bin=$1 out=$2
  shift 2
  rm -rf "$out"
  "$bin" fleet --preset "$preset" -n "$n" --no-charts -q -o "$out" "$@" >/dev/null
}

same() { # A B
  for f in records.ndjson summary.json summary.md; do
    if ! cmp -s "$1/$f" "$2/$f"; then
      echo "DIFFERENT: $1/$f vs $2/$f" >&2
      exit 1
    fi
  done
  echo "identical: $(basename "$1") = $(basename "$2") ($(md5sum <"$1/records.ndjson" | cut -c1-12))"
}

for seed in 1 2; do
  run "$old" "$dir/old-s$seed" --seed "$seed"
  run "$new" "$dir/new-s$seed" --seed "$seed"
  same "$dir/old-s$seed" "$dir/new-s$seed"
done
# One thread, and two shards merged, against the old binary's run.
run "$new" "$dir/new-s1-j1" --seed 1 -j 1
same "$dir/old-s1" "$dir/new-s1-j1"
run "$new" "$dir/new-s1-shard0" --seed 1 --shard 0/2
run "$new" "$dir/new-s1-shard1" --seed 1 --shard 1/2
rm -rf "$dir/new-s1-merged"
"$new" fleet merge -o "$dir/new-s1-merged" --no-charts "$dir/new-s1-shard1" "$dir/new-s1-shard0" >/dev/null
same "$dir/old-s1" "$dir/new-s1-merged"
echo "all identical ($n connections)"
