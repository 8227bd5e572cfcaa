//! ramp-cc: QUIC loss recovery (RFC 9002) and congestion controllers, sans-IO.
//!
//! No I/O, no clock, no threads: time comes in as [`Time`] arguments and
//! events as method calls, so the same code runs inside the deterministic
//! simulator (virtual time) and inside quinn (real time).
//!
//! - [`rtt`]: the RFC 9002 §5 RTT estimator.
//! - [`controller`]: the [`Controller`] trait every algorithm implements.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod controller;
pub mod pacer;
pub mod recovery;
pub mod rtt;
pub mod time;

pub use controller::{
    AckFrameSummary, AckedPacket, CcState, CongestionEvent, CongestionSignal, Controller, Metrics,
};
pub use rtt::RttEstimator;
pub use time::{Rate, Time};
