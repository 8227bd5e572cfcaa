#!/bin/sh
# The TCP-vs-QUIC lab, small form: download time of one object through
# `ramp shell` against random loss, kernel TCP (plain HTTP/1.1 from
# bench/shell/http_server.py, controller set per socket with
# TCP_CONGESTION, fetched with curl) beside ramp's QUIC (`ramp serve --cc`,
# fetched with `ramp get`), and the simulator's figure for each QUIC
# controller. Median of RUNS downloads per cell. Needs root, python3, curl.
#
# Usage: sudo bench/shell/tcp_vs_quic.sh [RUNS] [SIZE_BYTES] [LOSSES] > table.md
#   defaults: 3 1000000 "0 1 2 4 8"; path 20 Mbit/s, 40 ms RTT, 40 ms queue
set -eu
cd "$(dirname "$0")/../.."
RUNS=${1:-3}
SIZE=${2:-1000000}
LOSSES=${3:-0 1 2 4 8}
if [ -z "${RAMP:-}" ]; then
    cargo build --quiet --release -p ramp
    RAMP=${CARGO_TARGET_DIR:-target}/release/ramp
fi
PORT=47600
LINK="--rate 20mbit --rtt 40ms --queue 40ms"
TMP=$(mktemp -d)
SRV=
trap 'kill $SRV 2>/dev/null || true; rm -rf "$TMP"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else printf "%.0f", a[int((NR+1)/2)]}'; }

printf '| stack | cc |'; for l in $LOSSES; do printf ' %s%% |' "$l"; done; echo
printf '|---|---|'; for _ in $LOSSES; do printf -- '---|'; done; echo
for cc in cubic reno bbr; do
    python3 bench/shell/http_server.py $PORT $cc > "$TMP/srv" 2>&1 &
    SRV=$!
    sleep 0.5
    printf '| TCP (HTTP/1.1) | %s |' $cc
    for l in $LOSSES; do
        : > "$TMP/t"
        for _ in $(seq "$RUNS"); do
            # shellcheck disable=SC2086
            "$RAMP" shell $LINK --loss "$l%" -- sh -c \
                "curl -s -m 120 -o /dev/null -w '%{time_total}\n' http://\$RAMP_SHELL_HOST:$PORT/bytes/$SIZE" \
                2>/dev/null | awk '{print $1 * 1000}' >> "$TMP/t"
        done
        printf ' %s |' "$(median < "$TMP/t")"
    done
    echo
    kill $SRV; wait $SRV 2>/dev/null || true
done
for cc in cubic newreno cubic+hystart rapidstart bbr3; do
    "$RAMP" serve --cc "$cc" --listen 0.0.0.0:$PORT --pmtud off > "$TMP/srv" 2>&1 &
    SRV=$!
    sleep 1
    printf '| QUIC (ramp) | %s |' $cc
    for l in $LOSSES; do
        : > "$TMP/t"
        for _ in $(seq "$RUNS"); do
            # shellcheck disable=SC2086
            "$RAMP" shell $LINK --loss "$l%" -- sh -c \
                "'$RAMP' get https://\$RAMP_SHELL_HOST:$PORT/bytes/$SIZE --insecure --json --timeout 120s" \
                2>/dev/null | grep -o '"ttlb-us":[0-9]*' | cut -d: -f2 | awk '{print $1 / 1000}' >> "$TMP/t"
        done
        printf ' %s |' "$(median < "$TMP/t")"
    done
    echo
    kill $SRV; wait $SRV 2>/dev/null || true
    printf '| sim (QUIC) | %s |' $cc
    for l in $LOSSES; do
        printf 'seed = 1\n[path]\nrate = "20mbit"\nrtt = "40ms"\nqueue = "40ms"\nloss = "%s%%"\n[endpoint]\nmds = 1200\niw = 10\npacer = "leaky-bucket"\n' "$l" > "$TMP/p.toml"
        printf ' %s |' "$("$RAMP" sim --scenario "$TMP/p.toml" --cc "$cc" --size ${SIZE}B | awk 'NR>2 {printf "%.0f", $2; exit}')"
    done
    echo
done
