//! ramp-link: the bottleneck link model that ramp's simulator and its
//! real-time forwarders (`ramp relay`, `ramp shell`) share, sans-IO: every
//! call takes `now`, so the same queue runs in virtual time and in real
//! time.
//!
//! One direction of a path ([`Link`]) is a token-bucket [`Policer`], a
//! [`Bottleneck`] (a queue discipline in front of a constant-rate server),
//! random loss ([`LossModel`]) and a propagation delay. The disciplines
//! ([`Aqm`]) are drop-tail, L4S-style step marking, CoDel (RFC 8289),
//! FQ-CoDel (RFC 8290), PIE (RFC 8033), DOCSIS-PIE (RFC 8034) and DualPI2
//! (RFC 9332, classifying by ECN codepoint: ECT(1) and CE to its L queue); each
//! CE-marks an ECN-capable packet where it would drop it (RFC 3168 §6.1.1;
//! PIE only below its marking threshold, RFC 8033 §5.1), except DOCSIS-PIE:
//! DOCSIS has no ECN, so it drops. In place of the constant-rate server,
//! a link may deliver at the opportunities of a Mahimahi trace
//! ([`DeliveryTrace`]), and a link may be cellular ([`Cellular`]: less
//! capacity for a burst after idle, a drifting base delay). After the
//! queue a link may delay without reordering as a Wi-Fi hop does
//! ([`Jitter`]) and release packets in batches ([`AckAggregation`]). Each
//! element's parameters have one option table ([`Element`]) that the
//! scenario file, the population file and the command line all read. The
//! real-time forwarders that drive a link on a wall clock (`ramp relay`,
//! `ramp shell`) count what they did in [`ForwardCounters`], and seed each
//! direction with [`uplink_seed`] or [`downlink_seed`].

#![forbid(unsafe_code)]

mod aggregation;
mod aqm;
mod bottleneck;
mod cellular;
mod codel;
mod dualpi2;
mod element;
mod elements;
pub mod flowlog;
mod forward;
mod fq_codel;
mod jitter;
mod loss;
mod packet;
mod path;
mod pie;
mod policer;
mod server;
mod trace;

pub use aggregation::AckAggregation;
pub use aqm::{Aqm, AqmParseError};
pub use bottleneck::{queue_bytes_for, Admission, Bottleneck, Departure, Dequeue};
pub use cellular::Cellular;
pub use codel::CoDelParams;
pub use dualpi2::{
    DualPi2, DualPi2Params, DualQueue, NativeAqm, StepThreshold, DOCSIS_RAMP_MAX, DOCSIS_RAMP_RANGE,
};
pub use element::{
    duration_text, from_pairs, key_help, keys, parse_spec, spec_of, Element, ElementError,
    ElementOption,
};
/// The unit grammars an element's option reads its value with, and the
/// printers that write it back so that it reads to the same value
/// ([`element_option!`] rows use them).
pub mod element_value {
    pub use crate::element::{duration, duration_text, number, rate, rate_text, size};
}
pub use elements::{slot, ElementSlot, LinkElements, SetFn, Slot, SlotNames, ELEMENTS};
pub use forward::{downlink_seed, drop_event, uplink_seed, ForwardCounters};
pub use fq_codel::FqCoDelParams;
pub use jitter::{Jitter, MAX_JITTER, MAX_MPDUS};
pub use loss::{GilbertElliott, LossElement, LossModel};
pub use packet::{Delivery, DropCause, Packet};
pub use path::{Link, LinkConfig, Offer, RateStep};
pub use pie::{PieParams, PieProfile};
pub use policer::{Policer, TokenBucket};
pub use trace::{DeliveryTrace, TraceError, OPPORTUNITY_BYTES};
