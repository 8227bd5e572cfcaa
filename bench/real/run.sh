#!/bin/sh
# Real transfers through `ramp relay` against ramp-sim on the same paths:
# the "Measured" table of docs/real-mode.md.
#
# Five paths (20 Mbit/s and 100 Mbit/s at 40 ms RTT with a 40 ms queue,
# seed-100m's 100 Mbit/s / 30 ms / 30 ms, 20 Mbit/s with 0.5% random loss,
# 20 Mbit/s behind CoDel) x six controllers (BBRv3 included), the relay
# running the simulator's queue (ramp-link) and the server pacing at the
# controller's rate; 2 MB downloads, in-process on loopback (about 5
# minutes with --runs 3 on a 2-core VM).
#
# Usage: bench/real/run.sh [--quick] [--runs N] [--pacing controller|quinn]
#                          [--ack-timing kernel|driver] [--trace]
#                          [--path NAME]... [--cc SPEC]... [--cellular] > table.md
#        bench/real/run.sh --cellular --path 20m-40ms --runs 5
#                          (the downlink cellular in the relay and in the
#                          simulator, CellReplay's defaults, the same drift
#                          draws: the real-vs-sim check of docs/real-mode.md,
#                          "Cellular links and Wi-Fi delay variation")
#        bench/real/run.sh --fidelity   (100m-30ms and 20m-40ms, 5 runs, every
#                          controller, then the pass/fail checks of
#                          docs/real-mode.md; exit status 1 if one fails;
#                          about 3 minutes; add --path 100m-30ms for the
#                          100 Mbit/s rows alone)
#
# As root (and with chrt(1)), the measurement runs at real-time priority
# (SCHED_FIFO 10): server, client and relay then get the CPU when they
# need it even while other jobs load the machine, which is what makes a
# 5 % comparison at 100 Mbit/s repeatable on a shared 2-core VM
# (docs/real-mode.md, "Fidelity at 100 Mbit/s"). Every thread of it
# blocks between packets, so it takes only the CPU it needs.
# RAMP_BENCH_REALTIME=0 runs it at normal priority.
set -eu
cd "$(dirname "$0")/../.."
cargo build --quiet --release -p ramp-quic --example real_vs_sim
BIN=${CARGO_TARGET_DIR:-target}/release/examples/real_vs_sim
if [ "${RAMP_BENCH_REALTIME:-1}" != 0 ] && [ "$(id -u)" = 0 ] && command -v chrt > /dev/null; then
    echo "bench/real/run.sh: real-time priority (chrt -f 10); load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    exec chrt -f 10 "$BIN" "$@"
fi
echo "bench/real/run.sh: normal priority; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
exec "$BIN" "$@"
