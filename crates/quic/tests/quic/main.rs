//! ramp-quic's integration tests in one binary (one link instead of one per
//! file): loopback end-to-end runs, the relay's timing, and interop, sharing
//! the server, client and relay helpers in `common`.

// A test binary has no API: `pub` marks what its modules share.
#![allow(unreachable_pub)]

mod common;

mod e2e_direct;
mod e2e_relay;
mod e2e_robust;
mod interop_ngtcp2;
mod relay_timing;
