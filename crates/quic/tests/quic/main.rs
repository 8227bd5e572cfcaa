//! ramp-quic's integration tests in one binary (one link instead of one
//! per file): one module per concern, sharing `common`.
//!
//! The harness runs the tests in parallel threads of this one process.
//! Those that measure real time, or that load both cores while a relay's
//! threads run at real-time priority, run one at a time under
//! [`common::exclusive`]: two of them side by side would each make the
//! other late (and CI runs the real-time ones once more strictly, where
//! late is a failure).

mod common;

mod e2e_direct;
mod e2e_relay;
mod e2e_robust;
mod interop_ngtcp2;
mod relay_timing;
