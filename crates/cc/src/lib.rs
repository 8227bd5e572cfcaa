//! ramp-cc: QUIC loss recovery (RFC 9002) and congestion controllers, sans-IO.
//!
//! No I/O, no clock, no threads: time comes in as [`Time`] arguments and
//! events as method calls, so the same code runs inside the deterministic
//! simulator (virtual time) and inside quinn (real time).
//!
//! - [`Controller`]: the trait every algorithm implements, called in RFC
//!   9002 Appendix A order.
//! - [`spec`]: controllers by name and options (`cubic+rapidstart(iw=30)`,
//!   `bbr3`), through a [`spec::Registry`] of families: adding one is a
//!   module and a registry line. The loss-based family ([`LossBased`])
//!   composes a congestion-avoidance algorithm ([`newreno`], [`cubic`],
//!   [`prague`], each a [`loss_based::CongestionAvoidance`]), a startup
//!   (jump start with [`careful_resume`], [`rapid_start`], [`hystart`])
//!   and optional [`prr`]; [`bbr3`] (BBRv3) is its own family.
//! - [`recovery`]: RFC 9002 §6 loss detection ([`LossDetector`]): sent
//!   packets, thresholds, PTO, persistent congestion, ECN-CE, spurious
//!   losses; with [`RttEstimator`], the RFC 9002 §5 RTT estimator.
//! - [`quinn_order`]: [`quinn_order::RfcOrder`], which restores the RFC
//!   order for a controller that quinn calls in its own.
//! - [`send_rule`]: whether the congestion window lets the next packet
//!   leave: RFC 9002 §7's (it must fit) or quicly's ([`SendRule`]).
//! - [`pacer`]: when the next packet may leave: ramp's leaky-bucket
//!   [`Pacer`] and a model of quinn 0.11's ([`QuinnPacer`]), behind
//!   [`Pacing`].
//!
//! Time, rates, units, the RNG and the record keys are ramp-vocab's. The
//! three vocabulary types this crate's own signatures use ([`Time`],
//! [`Rate`], [`EcnCodepoint`]) are re-exported at the root, as quinn-proto
//! re-exports the types its API needs, so a controller can be written
//! against ramp-cc alone.

#![forbid(unsafe_code)]

pub mod bbr3;
pub mod careful_resume;
pub mod config;
mod controller;
pub mod cubic;
pub mod hystart;
mod jump_start;
pub mod loss_based;
pub mod newreno;
pub mod pacer;
pub mod prague;
pub mod prr;
pub mod quinn_order;
mod rapid_floor;
pub mod rapid_start;
mod ratio;
pub mod recovery;
pub mod resume;
pub mod round;
mod rtt;
pub mod send_rule;
pub mod spec;

pub use config::{CcConfig, EventOrder, InitialWindow, PrrMode};
pub use controller::{
    AckFrameSummary, AckedPacket, CcPhase, CongestionEvent, CongestionSignal, Controller,
    EventSource, Metrics,
};
pub use loss_based::{LossBased, LossBasedState};
pub use pacer::{
    AnyPacer, Pacer, PacerConfig, PacerKind, PacerModel, Pacing, PacingInput, QuiclyPacer,
    QuinnPacer,
};
pub use ramp_vocab::{EcnCodepoint, Rate, Time};
pub use ratio::{ParseRatioError, Ratio};
pub use recovery::{
    AckError, AckFrame, AckOutcome, EcnCounts, LossDetector, RecoveryConfig, RecoveryStats,
    SentPacket, Space, TimeoutKind, TimeoutOutcome,
};
pub use rtt::RttEstimator;
pub use send_rule::SendRule;
pub use spec::{
    parse as parse_controller, parse_list as parse_controller_list, ControllerSpec, SpecError,
};
