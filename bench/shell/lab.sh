#!/bin/sh
# The TCP-vs-QUIC lab: download time of one object through `ramp shell`
# over a grid of random loss x rate x RTT, RUNS downloads per cell
# (default 5, as in bench/shell/quic.sh and h2_h3.sh: at high loss the
# download times spread widely, and a median of 5 stays put with two
# slow runs where a median of 3 does with only one), for
#   - kernel TCP `cubic`, `reno`, `bbr` (TCP_CONGESTION per socket, `ramp
#     serve --h2 --tcp-cc`) over HTTP/2 and over plain HTTP/1.1 from the
#     same server (ALPN), fetched with curl;
#   - kernel TCP `cubic` over HTTP/1.1 with SACK off in the client's
#     namespace (net.ipv4.tcp_sack=0: the SYN offers no SACK, so the
#     connection has none; RFC 2018), to test what SACK is worth;
#   - ramp's QUIC `cubic`, `newreno`, `cubic+hystart`, `rapidstart`,
#     `bbr3` (`ramp serve --cc`), fetched with `ramp get`, with DATAGRAM-
#     byte UDP payloads (default 1472: a full packet is 1500 bytes on the
#     wire, as a full TCP segment with MSS 1448 and timestamps is; at a
#     given per-packet loss rate a loss-limited flow's rate is
#     proportional to its packet size, so unequal sizes would decide the
#     comparison by themselves). The servers write their stats records
#     (loss episodes, PTOs) to OUT/serve-quic-CC.ndjson;
#   - and the simulator (`ramp sim`) for the same QUIC controllers, paths
#     and seeds.
# Download time is from the request to the last byte (curl:
# time_total - time_pretransfer; ramp get: ttlb-us), so TCP's and TLS's
# handshakes are not counted, as QUIC's are not.
#
# Writes OUT/records.ndjson: one stats record per download in the
# relay's and fleet's keys (group, cc.algorithm, path.*, seed,
# content_length, ttlb-us, completed, num-packets.lost = the shell's
# downlink drops), so `ramp plot grid` and `ndq` read it; then
# OUT/medians.md (median and min-max per cell) and the charts
# OUT/lab-*.svg (see docs/shell.md). Downloads run JOBS at a time, each in
# its own shell (its own link), in a fixed shuffled order. Needs root,
# curl with HTTP/2, and kernel tcp_bbr (detected; skipped if missing).
#
# Usage: sudo bench/shell/lab.sh [OUT]        (default OUT: lab-out)
#   RUNS=5 SIZE=1000000 LOSSES="0 1 2 4 8" RATES="10mbit 50mbit"
#   RTTS="20ms 80ms" JOBS=6 DATAGRAM=1472 (the queue is one RTT at the
#   rate, 1 BDP) LOSS=both (random loss on both links; `down`: on the
#   downlink only, as the simulator, whose ACK path is lossless)
#   RAMP=path/to/ramp (default: the release build, built first)
set -eu
cd "$(dirname "$0")/../.."

# --- one download: `lab.sh --job STACK CC RATE RTT LOSS SEED` (xargs) ---
if [ "${1:-}" = "--job" ]; then
    stack=$2 cc=$3 rate=$4 rtt=$5 loss=$6 seed=$7
    port=$(grep "^$stack $cc " "$LAB_OUT/ports" | cut -d' ' -f3)
    link="--rate $rate --rtt $rtt --queue $rtt --loss $loss% --seed $seed"
    [ "$LAB_LOSS" = down ] && link="$link --uplink-loss 0%"
    url="https://\$RAMP_SHELL_HOST:$port/bytes/$LAB_SIZE"
    curl_w="-sk -o /dev/null -m 600 -w '%{time_pretransfer} %{time_total} %{size_download} %{http_version}'"
    case $stack in
        tcp-h1) cmd="curl --http1.1 $curl_w $url" ;;
        tcp-h2) cmd="curl --http2 $curl_w $url" ;;
        tcp-h1-nosack) cmd="sysctl -qw net.ipv4.tcp_sack=0 && curl --http1.1 $curl_w $url" ;;
        quic) cmd="'$RAMP' get $url --insecure --json --timeout 600s" ;;
        *) echo "lab.sh: unknown stack $stack" >&2; exit 2 ;;
    esac
    err=$(mktemp)
    # shellcheck disable=SC2086
    out=$("$RAMP" shell $link -- sh -c "$cmd" 2>"$err") || true
    down=$(grep ' down: ' "$err" | head -1)
    rm -f "$err"
    drops=$(echo "$down" | sed -n 's/.* \([0-9]*\) queue drops, \([0-9]*\) AQM drops, \([0-9]*\) random losses.*/\1 \2 \3/p')
    set -- ${drops:-0 0 0}
    lost=$(($1 + $2 + $3))
    case $stack in
        quic)
            us=$(echo "$out" | grep -o '"ttlb-us":[0-9]*' | cut -d: -f2)
            got=$(echo "$out" | grep -o '"content_length":[0-9]*' | cut -d: -f2)
            echo "$out" | grep -q '"verified":true' || got=0
            name="QUIC $cc" ;;
        *)
            set -- $out
            us=$(awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN {printf "%.0f", (b - a) * 1e6}')
            got=${3:-0}
            [ "${4:-}" = "$(case $stack in tcp-h2) echo 2 ;; *) echo 1.1 ;; esac)" ] || got=0
            case $stack in
                tcp-h1) name="TCP $cc HTTP/1.1" ;;
                tcp-h2) name="TCP $cc HTTP/2" ;;
                *) name="TCP $cc HTTP/1.1 no SACK" ;;
            esac ;;
    esac
    ok=false
    [ "${got:-0}" = "$LAB_SIZE" ] && [ -n "${us:-}" ] && ok=true
    awk -v g="$name" -v st="$stack" -v cc="$cc" -v rate="$rate" -v rtt="$rtt" -v loss="$loss" \
        -v seed="$seed" -v size="$LAB_SIZE" -v us="${us:-0}" -v ok="$ok" -v lost="$lost" '
        function bps(r) { n = r + 0; u = tolower(r); sub(/^[0-9.]+/, "", u)
            return n * (u == "gbit" ? 1e9 : u == "mbit" ? 1e6 : u == "kbit" ? 1e3 : 1) }
        BEGIN {
            printf "{\"group\":\"%s\",\"stack\":\"%s\",\"cc.algorithm\":\"%s\",\"path.rate-bps\":%.0f,", g, st, cc, bps(rate)
            printf "\"path.rtt-ms\":%g,\"path.queue-ms\":%g,\"path.loss\":%g,\"seed\":%d,", rtt + 0, rtt + 0, loss / 100, seed
            printf "\"content_length\":%d,\"completed\":%s,", size, ok
            if (ok == "true") printf "\"ttlb-us\":%d,", us
            printf "\"num-packets.lost\":%d}\n", lost
        }' >> "$LAB_OUT/records.ndjson"
    exit 0
fi

OUT=${1:-lab-out}
RUNS=${RUNS:-5}
SIZE=${SIZE:-1000000}
LOSSES=${LOSSES:-0 1 2 4 8}
RATES=${RATES:-10mbit 50mbit}
RTTS=${RTTS:-20ms 80ms}
JOBS=${JOBS:-6}
DATAGRAM=${DATAGRAM:-1472}
LOSS=${LOSS:-both}
case $LOSS in both | down) ;; *) echo "lab.sh: LOSS must be both or down" >&2; exit 2 ;; esac
QUIC_CCS="cubic newreno cubic+hystart rapidstart bbr3"
TCP_CCS="cubic reno"
if [ -z "${RAMP:-}" ]; then
    cargo build --quiet --release -p ramp
    RAMP=${CARGO_TARGET_DIR:-target}/release/ramp
fi
RAMP=$(realpath "$RAMP")
command -v curl > /dev/null || { echo "lab.sh: needs curl" >&2; exit 2; }
curl -V | grep -qw HTTP2 || { echo "lab.sh: curl lacks HTTP/2" >&2; exit 2; }
# BBR is a module on most kernels; load it if we may, and say so if not.
if grep -qw bbr /proc/sys/net/ipv4/tcp_available_congestion_control \
    || modprobe tcp_bbr 2> /dev/null; then
    TCP_CCS="$TCP_CCS bbr"
else
    echo "lab.sh: kernel TCP BBR is not available (modprobe tcp_bbr failed): no TCP bbr lines" >&2
fi
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
: > "$OUT/records.ndjson"
: > "$OUT/ports"
PIDS=
trap 'for p in $PIDS; do kill "$p" 2> /dev/null || true; done' EXIT

# One server per controller, on the host (the far end of every shell).
port=47700
for cc in $TCP_CCS; do
    "$RAMP" serve --listen "0.0.0.0:$port" --h2 --tcp-cc "$cc" > "$OUT/serve-tcp-$cc.log" 2>&1 &
    PIDS="$PIDS $!"
    for st in tcp-h1 tcp-h2; do echo "$st $cc $port" >> "$OUT/ports"; done
    [ "$cc" = cubic ] && echo "tcp-h1-nosack cubic $port" >> "$OUT/ports"
    port=$((port + 1))
done
for cc in $QUIC_CCS; do
    "$RAMP" serve --cc "$cc" --listen "0.0.0.0:$port" --datagram-bytes "$DATAGRAM" \
        --stats "$OUT/serve-quic-$cc.ndjson" > "$OUT/serve-quic-$cc.log" 2>&1 &
    PIDS="$PIDS $!"
    echo "quic $cc $port" >> "$OUT/ports"
    port=$((port + 1))
done
sleep 1

# The job list: every stack x cell x seed, in a fixed shuffled order so
# that the machine's other load falls on every stack alike.
for rate in $RATES; do for rtt in $RTTS; do for loss in $LOSSES; do
    for seed in $(seq "$RUNS"); do
        while read -r stack cc _; do
            echo "$stack $cc $rate $rtt $loss $seed"
        done < "$OUT/ports"
    done
done; done; done \
    | awk 'BEGIN {srand(1)} {print rand() "\t" $0}' | sort -n | cut -f2- > "$OUT/jobs"
echo "lab.sh: $(wc -l < "$OUT/jobs") downloads, $JOBS at a time; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
start=$(date +%s)
LAB_OUT=$OUT LAB_SIZE=$SIZE LAB_LOSS=$LOSS RAMP=$RAMP xargs -P "$JOBS" -L 1 sh "$0" --job < "$OUT/jobs"
echo "lab.sh: done in $(($(date +%s) - start)) s; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# The simulator: the same paths, controllers and seeds (the same
# datagram size, IW 10 and the leaky-bucket pacer, as ramp serve's).
printf '[endpoint]\nmds = %s\niw = 10\npacer = "leaky-bucket"\n' "$DATAGRAM" > "$OUT/sim.toml"
: > "$OUT/sim.ndjson"
for rate in $RATES; do for rtt in $RTTS; do for loss in $LOSSES; do
    for seed in $(seq "$RUNS"); do
        "$RAMP" sim --scenario "$OUT/sim.toml" --rate "$rate" --rtt "$rtt" --queue "$rtt" \
            --loss "$loss%" --seed "$seed" --cc "$(echo $QUIC_CCS | tr ' ' ,)" \
            --size "${SIZE}B" --records "$OUT/sim.ndjson" > /dev/null
    done
done; done; done
# The client's download time (request to last byte), as ramp get's.
"$(dirname "$RAMP")/ndq" 'let cc = gsub(_["cc.algorithm"], "[(]iw=10[)]", "");
    _ + {"group": "sim QUIC " + cc, "cc.algorithm": cc, "stack": "sim", "ttlb-us": _["client-ttlb-us"]}' \
    "$OUT/sim.ndjson" >> "$OUT/records.ndjson"
rm "$OUT/sim.ndjson"
for f in "$OUT"/serve-quic-*.ndjson; do [ -s "$f" ] || rm -f "$f"; done

sh bench/shell/lab_report.sh "$OUT"
