//! ramp-sim's integration tests in one binary: one module per area, with
//! the in-memory trace helpers in `common` and the reference data in
//! `data/`.

// A test binary has no API: `pub` marks what its modules share.
#![allow(unreachable_pub)]

mod common;

mod aqm_paths;
mod bbr3_validation;
mod client_close;
mod determinism_and_model;
mod fleet_determinism;
mod fleet_pairing;
mod fleet_population_file;
mod fleet_summary;
mod fleet_summary_stream;
mod lost_events;
mod packet_overhead;
mod page_loads;
mod quicly_clock;
mod quicly_differential;
mod quicly_grid;
mod quicly_pacer;
mod quicly_send_rule;
mod quinn_pacer;
mod robustness;
mod rtt_hint;
mod seed_figures;
mod trace_paths;
mod user_connections;
