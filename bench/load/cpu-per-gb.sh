#!/usr/bin/env bash
# Server CPU time per GB sent: five 200 MB downloads with `ramp get`, one
# after another on one connection each, from one `ramp serve` on loopback
# (no bottleneck: the server is CPU-bound), its user + system time read
# from /proc. Extra arguments go to `ramp serve` (e.g. --pacing quinn,
# --pmtud off, --datagram-bytes 1452).
#
# Usage: bench/load/cpu-per-gb.sh [SERVE_ARG]...
#   RAMP=path/to/ramp (default: target/release/ramp)
#   CC=cubic          the server's controller
# Prints one line: wall seconds, server CPU seconds, CPU-s per GB.
set -euo pipefail

RAMP=${RAMP:-target/release/ramp}
CC=${CC:-cubic}
LOG=$(mktemp /tmp/ramp-cpu.XXXXXX)
"$RAMP" serve --listen 127.0.0.1:0 --cc "$CC" --duration 600s "$@" >"$LOG" 2>&1 &
SERVER=$!
trap 'kill -INT $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -f "$LOG"' EXIT
PORT=
for _ in $(seq 100); do
  PORT=$(sed -n 's/^listening on [^ ]*:\([0-9]*\) cc .*/\1/p' "$LOG")
  [[ -n $PORT ]] && break
  sleep 0.1
done
[[ -n $PORT ]] || { echo "server did not start:"; cat "$LOG"; exit 1; }
TICK=$(getconf CLK_TCK)
cpu() { awk -v t="$TICK" '{ printf "%.2f\n", ($14 + $15) / t }' "/proc/$SERVER/stat"; }
BYTES=200000000 RUNS=5
before=$(cpu)
start=$(date +%s.%N)
"$RAMP" get --insecure -n "$RUNS" --timeout 120s "https://127.0.0.1:$PORT/bytes/$BYTES" >/dev/null
end=$(date +%s.%N)
after=$(cpu)
python3 -c "
wall = $end - $start; cpu = $after - $before; gb = $BYTES * $RUNS / 1e9
print(f'wall {wall:.2f} s, server CPU {cpu:.2f} s, {cpu / gb:.2f} CPU-s/GB')"
