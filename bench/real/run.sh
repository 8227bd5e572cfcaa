#!/bin/sh
# Real transfers through `ramp relay` against ramp-sim on the same paths:
# the "Measured" table of docs/real-mode.md.
#
# Four paths (20 Mbit/s and 100 Mbit/s at 40 ms RTT with a 40 ms queue,
# 20 Mbit/s with 0.5% random loss, 20 Mbit/s behind CoDel) x five
# controllers, the relay running the simulator's queue (ramp-link); one 2 MB
# download each, in-process on loopback (about a minute on a 2-core VM).
#
# Usage: bench/real/run.sh [--quick] > table.md
set -eu
cd "$(dirname "$0")/../.."
exec cargo run --quiet --release -p ramp-quic --example real_vs_sim -- "$@"
