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
#                          [--ack-timing kernel|driver]
#                          [--path NAME]... [--cc SPEC]... > table.md
#        bench/real/run.sh --fidelity   (100m-30ms and 20m-40ms, 5 runs, every
#                          controller, then the pass/fail checks of
#                          docs/real-mode.md; exit status 1 if one fails)
set -eu
cd "$(dirname "$0")/../.."
exec cargo run --quiet --release -p ramp-quic --example real_vs_sim -- "$@"
