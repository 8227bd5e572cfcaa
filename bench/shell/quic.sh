#!/bin/sh
# QUIC through `ramp shell` against `ramp relay` and `ramp sim` on the
# paths of docs/real-mode.md (20 Mbit/s drop-tail and CoDel, 100 Mbit/s;
# 40 ms RTT, 40 ms queue): 2 MB downloads with `ramp get` from one
# `ramp serve` on the host, RUNS fresh connections per cell, shell and
# relay alternating (median, with the fastest and slowest); the simulator with 1200-byte datagrams, IW 10
# and the leaky-bucket pacer the server runs. Needs root (ramp shell).
#
# Usage: sudo bench/shell/quic.sh [RUNS] [CC...] > table.md
#   RAMP=path/to/ramp (default: target/release/ramp, built first)
#   PATHS="100m-40ms" runs only the named rows (default: all three)
#   CELLULAR=1: every path's downlink cellular, CellReplay's defaults:
#   `--cellular` in the shell and the relay, `[path.cellular]` in the
#   simulator, the forwarders seeded with ramp_link::downlink_seed(1) so
#   that their downlink draws the simulator's delay drift (seed 1)
#   RAMP_BENCH_REALTIME=0: `ramp serve` and both `ramp get`s at normal
#   priority. By default they run at SCHED_FIFO 10 (chrt), as the shell's
#   loop and the relay's threads do, so that other jobs on a shared machine
#   do not delay the endpoints (docs/real-mode.md, "Fidelity at
#   100 Mbit/s"). With 5 runs, about 2 minutes per controller.
set -eu
cd "$(dirname "$0")/../.."
RUNS=${1:-5}
[ $# -gt 0 ] && shift
CCS=${*:-cubic bbr3}
if [ -z "${RAMP:-}" ]; then
    cargo build --quiet --release -p ramp
    RAMP=${CARGO_TARGET_DIR:-target}/release/ramp
fi
PATHS=${PATHS:-20m-40ms 20m-40ms-codel 100m-40ms}
RT=
if [ "${RAMP_BENCH_REALTIME:-1}" != 0 ] && command -v chrt > /dev/null; then
    RT="chrt -f 10"
fi
SIZE=2000000
CELL_FLAGS= CELL_TOML=
if [ "${CELLULAR:-0}" != 0 ]; then
    # ramp_link::downlink_seed(1) = 1 XOR 0x646f776e.
    CELL_FLAGS="--cellular --seed $((1 ^ 0x646f776e))"
    CELL_TOML='[path.cellular]\n'
fi
PORT=47433
RELAY_PORT=47434
TMP=$(mktemp -d)
trap 'kill $SERVE 2>/dev/null || true; kill $RELAY 2>/dev/null || true; rm -rf "$TMP"' EXIT
SERVE=; RELAY=

median() { sort -n | awk '{a[NR]=$1} END {printf "%.0f %.0f %.0f", a[int((NR+1)/2)], a[1], a[NR]}'; }
ttlb_ms() { grep -o '"ttlb-us":[0-9]*' | cut -d: -f2 | awk '{print $1/1000}'; }

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
echo "2 MB downloads, median of $RUNS fresh connections per cell (min–max beside it), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, endpoints at ${RT:-normal priority}, load average at start $(loadavg)${CELL_FLAGS:+, cellular downlink}"
echo
echo "| path | cc | shell median ms | shell min–max | relay median ms | relay min–max | sim ms | shell vs relay | shell vs sim | relay vs sim |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for cc in $CCS; do
    $RT "$RAMP" serve --cc "$cc" --listen 0.0.0.0:$PORT --pmtud off > "$TMP/serve" 2>&1 &
    SERVE=$!
    sleep 1
    for path in "20m-40ms 20mbit droptail" "20m-40ms-codel 20mbit codel" "100m-40ms 100mbit droptail"; do
        set -- $path
        name=$1 rate=$2 aqm=$3
        case " $PATHS " in *" $name "*) ;; *) continue ;; esac
        link="--rate $rate --rtt 40ms --queue 40ms --aqm $aqm $CELL_FLAGS"
        # shellcheck disable=SC2086
        "$RAMP" relay --listen 127.0.0.1:$RELAY_PORT --upstream 127.0.0.1:$PORT $link > /dev/null 2>&1 &
        RELAY=$!
        sleep 0.5
        : > "$TMP/shell"
        : > "$TMP/relay"
        # Paired: each run is one download through the shell, then one
        # through the relay, so a change in the machine's load falls on both.
        for _ in $(seq "$RUNS"); do
            # shellcheck disable=SC2086
            "$RAMP" shell $link -- sh -c "exec $RT '$RAMP' get https://\$RAMP_SHELL_HOST:$PORT/bytes/$SIZE --insecure --json" \
                2>>"$TMP/shell.err" | ttlb_ms >> "$TMP/shell"
            $RT "$RAMP" get https://127.0.0.1:$RELAY_PORT/bytes/$SIZE --insecure --json | ttlb_ms >> "$TMP/relay"
        done
        kill $RELAY; wait $RELAY 2>/dev/null || true
        RELAY=
        # client_closes: `ramp get` closes once it has the response, so its
        # last ACK does not wait for max_ack_delay (docs/simulator.md).
        printf 'seed = 1\n[path]\nrate = "%s"\nrtt = "40ms"\nqueue = "40ms"\naqm = "%s"\n'"$CELL_TOML"'[endpoint]\nmds = 1200\niw = 10\npacer = "leaky-bucket"\nclient_closes = true\n' \
            "$rate" "$aqm" > "$TMP/path.toml"
        sim=$("$RAMP" sim --scenario "$TMP/path.toml" --cc "$cc" --size ${SIZE}B | awk 'NR>2 {print $2; exit}')
        set -- $(median < "$TMP/shell")
        s=$1 smin=$2 smax=$3
        set -- $(median < "$TMP/relay")
        r=$1 rmin=$2 rmax=$3
        awk -v n="$name" -v c="$cc" -v s="$s" -v smin="$smin" -v smax="$smax" -v r="$r" -v rmin="$rmin" -v rmax="$rmax" -v m="$sim" \
            'BEGIN {printf "| %s | %s | %d | %d–%d | %d | %d–%d | %.0f | %+.1f%% | %+.1f%% | %+.1f%% |\n", n, c, s, smin, smax, r, rmin, rmax, m, (s/r-1)*100, (s/m-1)*100, (r/m-1)*100}'
    done
    kill $SERVE; wait $SERVE 2>/dev/null || true
    SERVE=
done
echo
echo "load average at end $(loadavg); target: shell within 5 % of relay and of sim"
