#!/bin/sh
# HTTP/2 (kernel TCP CUBIC, TLS) against HTTP/3 (ramp's QUIC CUBIC) on
# three shaped paths through `ramp shell`, the paths of docs/real-mode.md
# (20 Mbit/s drop-tail and CoDel, 100 Mbit/s; 40 ms RTT, 40 ms queue):
# download time of SIZE-byte objects, each on a fresh connection with
# `ramp load -n 1` (--h2 or --h3) from one `ramp serve --h2 --tcp-cc
# cubic` on the host, and the CPU both ends spent per GB delivered:
#   server: utime + stime of the ramp serve process (/proc/PID/stat)
#           across the downloads of that cell;
#   client: cutime + cstime (/proc/PID/stat) of the shell that ran the
#           RUNS ramp load processes, read after they were reaped;
#   link:   the `ramp shell` process itself (its forwarding loop), from
#           this script's cutime + cstime less the client's. A packet the
#           loop writes into a TUN device is received by the kernel in the
#           writer's context, so this column also holds both hosts' kernel
#           receive processing: for TCP that is the server's ACK handling
#           and the segments those ACKs release; for QUIC only the UDP
#           socket enqueue (the rest is the server's own CPU).
# The HTTP/3 side runs with PMTU discovery on (as deployed: 1472-byte
# datagrams on the shell's 1500-byte MTU), the TCP side with its MSS of
# 1448. The shell's own loop is the emulator and is not counted. Needs
# root.
#
# Usage: sudo bench/shell/h2_h3.sh [RUNS] [SIZE_BYTES] > table.md
#   defaults: 5 5000000; RAMP=path/to/ramp (default: the release build)
set -eu
cd "$(dirname "$0")/../.."
RUNS=${1:-5}
SIZE=${2:-5000000}
if [ -z "${RAMP:-}" ]; then
    cargo build --quiet --release -p ramp
    RAMP=${CARGO_TARGET_DIR:-target}/release/ramp
fi
RAMP=$(realpath "$RAMP")
PORT=47650
TMP=$(mktemp -d)
SERVE=
trap 'kill $SERVE 2>/dev/null || true; rm -rf "$TMP"' EXIT
HZ=$(getconf CLK_TCK)
# utime + stime (fields 14, 15) or cutime + cstime (16, 17) of a
# /proc/PID/stat line, in ticks; the fields count after the ")" that
# ends the command name.
ticks() { sed 's/.*) //' | awk -v a="$1" -v b="$2" '{print $(a - 2) + $(b - 2)}'; }

"$RAMP" serve --cc cubic --listen 0.0.0.0:$PORT --h2 --tcp-cc cubic > "$TMP/serve" 2>&1 &
SERVE=$!
sleep 1
echo "$SIZE-byte downloads, $RUNS fresh connections per cell; $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| path | protocol | download ms, median (min–max) | server CPU-s/GB | client CPU-s/GB | link + kernel rx CPU-s/GB | total CPU-s/GB |"
echo "|---|---|---|---|---|---|---|"
for path in "20m-40ms 20mbit droptail" "20m-40ms-codel 20mbit codel" "100m-40ms 100mbit droptail"; do
    set -- $path
    name=$1 rate=$2 aqm=$3
    for proto in h2 h3; do
        s0=$(ticks 14 15 < /proc/$SERVE/stat)
        m0=$(ticks 16 17 < /proc/$$/stat)
        # shellcheck disable=SC2016
        "$RAMP" shell --rate "$rate" --rtt 40ms --queue 40ms --aqm "$aqm" -- sh -c '
            for i in $(seq '"$RUNS"'); do
                "'"$RAMP"'" load -k -q -n 1 --'"$proto"' --json "'"$TMP"'/load.$i" \
                    https://$RAMP_SHELL_HOST:'"$PORT"'/bytes/'"$SIZE"' > /dev/null 2>&1
                grep -h "\"outcome\"" "'"$TMP"'/load.$i"
            done
            cat /proc/$$/stat' > "$TMP/out" 2>/dev/null
        s1=$(ticks 14 15 < /proc/$SERVE/stat)
        m1=$(ticks 16 17 < /proc/$$/stat)
        c=$(tail -1 "$TMP/out" | ticks 16 17)
        ok=$(grep -c '"outcome":"complete"' "$TMP/out" || true)
        grep -o '"time-us":[0-9]*' "$TMP/out" | cut -d: -f2 | sort -n > "$TMP/t"
        awk -v n="$name" -v p="$proto" -v ok="$ok" -v runs="$RUNS" -v size="$SIZE" \
            -v s="$((s1 - s0))" -v c="$c" -v l="$((m1 - m0 - c))" -v hz="$HZ" '
            {a[NR] = $1 / 1000}
            END {
                gb = ok * size / 1e9
                label = (p == "h2" ? "HTTP/2 (TCP cubic)" : "HTTP/3 (QUIC cubic)")
                if (ok < runs) label = label " (" ok " of " runs " completed)"
                printf "| %s | %s | %.0f (%.0f–%.0f) | %.2f | %.2f | %.2f | %.2f |\n", n, label,
                    a[int((NR + 1) / 2)], a[1], a[NR], s / hz / gb, c / hz / gb, l / hz / gb,
                    (s + c + l) / hz / gb
            }' "$TMP/t"
    done
done
echo
echo "load average at end $(cut -d' ' -f1-3 /proc/loadavg)"
