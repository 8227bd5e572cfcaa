#!/bin/sh
# The shell's forwarding speed and added delay: 1500-byte IP packets
# (1472-byte UDP payloads) from inside `ramp shell` to the host on an
# unshaped link (100 Gbit/s, no delay, 10 ms buffer), against the same
# traffic over loopback without the shell. `blast` (crates/shell/examples)
# stamps each packet with the clock and the receiver reports the rate and
# the one-way delay's percentiles; sender and receiver run at SCHED_FIFO
# priority 5 (below the shell's loop, 10) so a busy machine's other work
# does not stand in for the shell's cost. Needs root.
#
# Usage: sudo bench/shell/forward.sh [MBIT...]   (default: 1000 1200)
set -eu
cd "$(dirname "$0")/../.."
if [ -z "${RAMP:-}" ]; then
    cargo build --quiet --release -p ramp -p ramp-shell --example blast
    RAMP=${CARGO_TARGET_DIR:-target}/release/ramp
fi
BLAST=${BLAST:-$(dirname "$RAMP")/examples/blast}
PORT=47500
for mbit in ${*:-1000 1200}; do
    chrt -f 5 "$BLAST" recv $PORT 12 > /tmp/ramp-blast.$$ &
    recv=$!
    sleep 0.3
    "$RAMP" shell --rate 100gbit --rtt 0ms --queue 10ms -- \
        sh -c "chrt -f 5 '$BLAST' send \$RAMP_SHELL_HOST:$PORT $mbit 5 > /dev/null" 2> /tmp/ramp-blast-shell.$$
    wait $recv
    echo "through ramp shell, $mbit Mbit/s offered: $(tail -1 /tmp/ramp-blast.$$)"
    grep ' up: ' /tmp/ramp-blast-shell.$$
    chrt -f 5 "$BLAST" recv $PORT 12 > /tmp/ramp-blast.$$ &
    recv=$!
    sleep 0.3
    chrt -f 5 "$BLAST" send 127.0.0.1:$PORT "$mbit" 5 > /dev/null
    wait $recv
    echo "loopback without the shell, $mbit Mbit/s offered: $(tail -1 /tmp/ramp-blast.$$)"
done
rm -f /tmp/ramp-blast.$$ /tmp/ramp-blast-shell.$$
