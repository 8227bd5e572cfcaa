#!/usr/bin/env bash
# HTTP/3 vs HTTP/2 on loopback, h2load-style: `ramp load` pulls N copies of
# a 32 MB body over C connections of M streams each (default 20, 4, 4), from
# one `ramp serve --h2` process serving both protocols, then 32 KB bodies
# (1000, -c 10 -m 10). Reports throughput and the CPU time each side spent
# per GB of body, and the mean size of the server's HTTP/3 datagrams (what
# path MTU discovery settled on, from the server's --stats records).
#
# Usage: bench/load/h3-vs-h2.sh [OUT_DIR]
#   RAMP=path/to/ramp   (default: target/release/ramp; build with
#                        `cargo build --release -p ramp`)
#   CC=cubic            controller of the HTTP/3 server
#   REPEAT=1            runs per cell (the table shows the median)
#   PACING=             ramp serve --pacing; empty (the default) passes no
#                       flag, so the server runs as a user gets it (the
#                       controller's pacing, docs/real-pacing.md); quinn
#                       for quinn's own pacer, for reference
#   ACK_TIMING=         ramp serve --ack-timing; empty (the default) passes
#                       no flag (the kernel's receive times); driver for
#                       quinn's one time per receive wake-up
#   DATAGRAM=           HTTP/3 UDP payload bytes (ramp serve --datagram-bytes;
#                       empty: path MTU discovery, ramp serve's default)
#   N=20 C=4 M=4        the 32 MB workload's requests, connections, streams
#   SMALL=1             0 skips the 32 KB workload
# Prints each h2load-style summary, then the comparison table; keeps the
# summaries (JSON), the server's records and log in OUT_DIR. Client and
# server share the machine: on a shared machine compare ratios of runs
# taken one after the other, not absolute figures.
set -euo pipefail

RAMP=${RAMP:-target/release/ramp}
CC=${CC:-cubic}
REPEAT=${REPEAT:-1}
DATAGRAM=${DATAGRAM:-}
PACING=${PACING:-}
ACK_TIMING=${ACK_TIMING:-}
N=${N:-20} C=${C:-4} M=${M:-4}
SMALL=${SMALL:-1}
OUT=${1:-$(mktemp -d /tmp/ramp-load.XXXXXX)}
mkdir -p "$OUT"

SERVE_ARGS=(serve --listen 127.0.0.1:0 --h2 --cc "$CC" --duration 1800s --stats "$OUT/serve-stats.ndjson")
[[ -n $PACING ]] && SERVE_ARGS+=(--pacing "$PACING")
[[ -n $ACK_TIMING ]] && SERVE_ARGS+=(--ack-timing "$ACK_TIMING")
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

TICK=$(getconf CLK_TCK)
server_cpu() { # user + system seconds the server has used so far
  awk -v t="$TICK" '{ printf "%.3f\n", ($14 + $15) / t }' "/proc/$SERVER/stat"
}

run() { # name proto port path n c m
  local name=$1 proto=$2 port=$3 path=$4 n=$5 c=$6 m=$7 r before after client
  for r in $(seq "$REPEAT"); do
    echo "== $name $proto (run $r): ramp load https://localhost:$port$path -n $n -c $c -m $m --$proto"
    before=$(server_cpu)
    client=$( { TIMEFORMAT='%U %S'; time "$RAMP" load "https://localhost:$port$path" \
      -n "$n" -c "$c" -m "$m" "--$proto" --insecure --quiet --timeout 120s --duration 300s \
      --summary-json "$OUT/$name-$proto-$r.json" >"$OUT/$name-$proto-$r.txt"; } 2>&1 )
    after=$(server_cpu)
    sed -n '/^finished/,$p' "$OUT/$name-$proto-$r.txt"
    echo "$before $after $client" >"$OUT/$name-$proto-$r.cpu"
  done
}

run 32m h2 "$H2_PORT" /bytes/33554432 "$N" "$C" "$M"
run 32m h3 "$H3_PORT" /bytes/33554432 "$N" "$C" "$M"
if [[ $SMALL == 1 ]]; then
  run 32k h2 "$H2_PORT" /bytes/32768 1000 10 10
  run 32k h3 "$H3_PORT" /bytes/32768 1000 10 10
fi

python3 - "$OUT" "$REPEAT" "$SMALL" "$N" "$C" "$M" <<'PY'
import json, statistics, sys
out, repeat, small = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
n, c, m = sys.argv[4:7]
def cell(name, proto):
    rows = []
    for r in range(1, repeat + 1):
        s = json.load(open(f"{out}/{name}-{proto}-{r}.json"))
        b0, b1, cu, cs = (float(x) for x in open(f"{out}/{name}-{proto}-{r}.cpu").read().split())
        gb = s["traffic.data"] / 1e9
        rows.append((s["req-per-s"], s["bytes-per-s"] / 1e9, (b1 - b0) / gb if gb else float("nan"),
                     (cu + cs) / gb if gb else float("nan"), s["requests.succeeded"], s["requests.total"]))
    med = lambda i: statistics.median(x[i] for x in rows)
    return med(0), med(1), med(2), med(3), min(x[4] for x in rows), rows[0][5]
sent = [0, 0]
for line in open(f"{out}/serve-stats.ndjson"):
    rec = json.loads(line)
    if rec.get("num-packets.sent"):
        sent[0] += rec["num-bytes.sent"]; sent[1] += rec["num-packets.sent"]
print()
if sent[1]:
    print(f"HTTP/3 server packets: {sent[0] / sent[1]:.0f} bytes on average over {sent[1]} packets")
print(f"{'workload':<28} {'proto':<5} {'req/s':>9} {'GB/s':>7} {'server CPU-s/GB':>16} {'client CPU-s/GB':>16} {'ok':>9}")
work = [("32m", f"-n {n} -c {c} -m {m}, 32 MB")]
if small:
    work.append(("32k", "-n 1000 -c 10 -m 10, 32 KB"))
for name, label in work:
    res = {}
    for proto in ("h2", "h3"):
        rps, gbps, scpu, ccpu, ok, total = cell(name, proto)
        res[proto] = (rps, gbps)
        print(f"{label:<28} {proto:<5} {rps:>9.1f} {gbps:>7.3f} {scpu:>16.2f} {ccpu:>16.2f} {ok:>4}/{total:<4}")
    rps_ratio = res["h3"][0] / res["h2"][0] if res["h2"][0] else float("nan")
    gb_ratio = res["h3"][1] / res["h2"][1] if res["h2"][1] else float("nan")
    print(f"{'':<28} h3/h2 req/s {rps_ratio:.2f}, GB/s {gb_ratio:.2f}")
PY
