#!/usr/bin/env bash
# HTTP/3 vs HTTP/2 on loopback with the seed's two h2load workloads
# (the HTTP/3 vs HTTP/2 talk: `-n 100 -c 10 -m 10` on 32 MB, `-n 1000 -c 10 -m 10`
# on 32 KB), both protocols served by one `ramp serve --h2` process.
#
# Usage: bench/load/h3-vs-h2.sh [OUT_DIR]
#   RAMP=path/to/ramp   (default: target/release/ramp; build with
#                        `cargo build --release -p ramp`)
#   CC=cubic            controller of the HTTP/3 server
#   REPEAT=1            runs per cell (the table shows the median)
#   PACING=quinn        ramp serve --pacing: quinn's own pacer with GSO (the
#                       figures in docs/benchmarks.md; a throughput benchmark
#                       against kernel TCP keeps segmentation offload) or
#                       controller (ramp serve's default: GSO off, about 3x
#                       the CPU per byte, docs/real-pacing.md)
#   DATAGRAM=           HTTP/3 UDP payload bytes (ramp serve --datagram-bytes;
#                       default: path MTU discovery, ramp serve's default; 6550 is the largest that
#                       works on Linux with quinn 0.11's 10-packet GSO sends)
# Prints each h2load-style summary, then the comparison table; keeps the
# summaries (JSON) and the server log in OUT_DIR.
set -euo pipefail

RAMP=${RAMP:-target/release/ramp}
CC=${CC:-cubic}
REPEAT=${REPEAT:-1}
DATAGRAM=${DATAGRAM:-}
PACING=${PACING:-quinn}
OUT=${1:-$(mktemp -d /tmp/ramp-load.XXXXXX)}
mkdir -p "$OUT"

SERVE_ARGS=(serve --listen 127.0.0.1:0 --h2 --cc "$CC" --pacing "$PACING" --duration 900s)
[[ -n $DATAGRAM ]] && SERVE_ARGS+=(--datagram-bytes "$DATAGRAM")
echo "ramp ${SERVE_ARGS[*]}"
"$RAMP" "${SERVE_ARGS[@]}" >"$OUT/serve.log" 2>&1 &
SERVER=$!
trap 'kill -INT $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true' EXIT

H3_PORT= H2_PORT=
for _ in $(seq 100); do
  H3_PORT=$(sed -n 's/^listening on [^ ]*:\([0-9]*\) cc .*/\1/p' "$OUT/serve.log")
  H2_PORT=$(sed -n 's/^listening h2 on .*:\([0-9]*\)$/\1/p' "$OUT/serve.log")
  [[ -n $H3_PORT && -n $H2_PORT ]] && break
  sleep 0.1
done
[[ -n $H3_PORT && -n $H2_PORT ]] || { echo "server did not start:"; cat "$OUT/serve.log"; exit 1; }

run() { # name proto port path n
  local name=$1 proto=$2 port=$3 path=$4 n=$5 r
  for r in $(seq "$REPEAT"); do
    echo "== $name $proto (run $r): ramp load https://localhost:$port$path -n $n -c 10 -m 10 --$proto"
    "$RAMP" load "https://localhost:$port$path" -n "$n" -c 10 -m 10 "--$proto" \
      --insecure --quiet --timeout 120s --duration 120s \
      --summary-json "$OUT/$name-$proto-$r.json" | sed -n '/^finished/,$p'
  done
}

run 32m h2 "$H2_PORT" /bytes/33554432 100
run 32m h3 "$H3_PORT" /bytes/33554432 100
run 32k h2 "$H2_PORT" /bytes/32768 1000
run 32k h3 "$H3_PORT" /bytes/32768 1000

python3 - "$OUT" "$REPEAT" <<'PY'
import json, statistics, sys
out, repeat = sys.argv[1], int(sys.argv[2])
def cell(name, proto):
    runs = [json.load(open(f"{out}/{name}-{proto}-{r}.json")) for r in range(1, repeat + 1)]
    pick = lambda k: statistics.median(x[k] for x in runs)
    ok = min(x["requests.succeeded"] for x in runs)
    return pick("req-per-s"), pick("bytes-per-s"), pick("elapsed-s"), ok, runs[0]["requests.total"]
print()
print(f"{'workload':<28} {'proto':<5} {'finished':>9} {'req/s':>10} {'MB/s':>9} {'ok':>9}")
for name, label in [("32m", "-n 100 -c 10 -m 10, 32 MB"), ("32k", "-n 1000 -c 10 -m 10, 32 KB")]:
    res = {}
    for proto in ("h2", "h3"):
        rps, bps, secs, ok, total = cell(name, proto)
        res[proto] = (rps, bps)
        print(f"{label:<28} {proto:<5} {secs:>8.2f}s {rps:>10.1f} {bps/2**20:>9.1f} {ok:>4}/{total:<4}")
    rps_ratio = res["h3"][0] / res["h2"][0] if res["h2"][0] else float("nan")
    bps_ratio = res["h3"][1] / res["h2"][1] if res["h2"][1] else float("nan")
    print(f"{'':<28} h3/h2 req/s {rps_ratio:.2f}, MB/s {bps_ratio:.2f}")
PY
echo "(summaries in $OUT)"
