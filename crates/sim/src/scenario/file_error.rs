//! Why the scenario file's `[path]` or `[endpoint]` table was refused after
//! the TOML parse: one variant per refusal, each printing the key first, as
//! [`ScenarioError`](super::ScenarioError)'s message does (it is that
//! message's typed cause).

use core::fmt;

use ramp_link::{ElementError, TraceError};
use ramp_vocab::ecn::ParseEcnError;

use crate::resumption::UnknownResumption;
use crate::wakeup::WakeupTableError;

/// A `[path]` or `[endpoint]` key the scenario file gives that cannot be
/// used: a value out of its set, or two keys that exclude each other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileError {
    /// `path.trace` with `rate` or `rate_step`: the trace sets the rate.
    TraceWithRate,
    /// `path.trace` could not be read.
    Trace(TraceError),
    /// `path.rtt` with `forward_delay` or `reverse_delay`.
    RttWithDelays,
    /// `path.queue` (time) with `queue_bytes`.
    QueueTimeAndBytes,
    /// `path.loss` with a loss element's table (`[path.gilbert_elliott]`).
    LossWithTable {
        /// The element table.
        table: &'static str,
    },
    /// An element table with no slot in `ramp_link::ELEMENTS` (the
    /// tables are written from that list, so a bug, not a user's error).
    NotAnElement {
        /// The element table.
        table: &'static str,
    },
    /// A key of an element table (`[path.cellular]`, …) refused by the
    /// element's option table.
    Element {
        /// The element table.
        table: &'static str,
        /// What the option table says.
        error: ElementError,
    },
    /// `path.aqm` with `ecn_threshold`.
    AqmWithThreshold,
    /// `path.ack_aggregation` refused by its parser.
    AckAggregation(ElementError),
    /// `path.ack_batching` names no built-in table.
    AckBatchingName(String),
    /// `path.ack_batching`'s quantile points are not a table.
    AckBatchingTable(WakeupTableError),
    /// `endpoint.flow_control` is neither `chrome` nor `off`.
    FlowControl(String),
    /// `endpoint.client_processing` is above 10 s.
    ClientProcessing,
    /// `endpoint.server_flight` is 0.
    ServerFlight,
    /// `endpoint.resumption` is not a known mode.
    Resumption(UnknownResumption),
    /// `endpoint.resume_rate` or `resume_rtt` without the other.
    ResumeHalf,
    /// `endpoint.client_rtt_hint` is 0.
    ClientRttHint,
    /// `endpoint.clock_phase` is neither `seeded` nor a duration below 1 ms.
    ClockPhase(crate::clock_phase::ClockPhaseError),
    /// `endpoint.ecn` names no codepoint a sender may send.
    Ecn {
        /// The value as written.
        name: String,
        /// Why it is refused.
        error: ParseEcnError,
    },
    /// `endpoint.pacer` names no pacer.
    Pacer(String),
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::TraceWithRate => f.write_str(
                "path.trace: a trace sets the link's rate; give no rate or rate_step with it",
            ),
            FileError::Trace(e) => write!(f, "path.trace: {e}"),
            FileError::RttWithDelays => {
                f.write_str("path.rtt: give either rtt or forward_delay/reverse_delay")
            }
            FileError::QueueTimeAndBytes => {
                f.write_str("path.queue: give either queue (time) or queue_bytes")
            }
            FileError::LossWithTable { table } => {
                write!(f, "path.loss: give either loss or [path.{table}]")
            }
            FileError::NotAnElement { table } => {
                write!(f, "path.{table}: not a link element (internal)")
            }
            FileError::Element { table, error } => write!(f, "path.{table}.{error}"),
            FileError::AqmWithThreshold => f.write_str(
                "path: give either aqm or ecn_threshold (the latter is aqm = \"step:<delay>\")",
            ),
            FileError::AckAggregation(e) => write!(f, "path.{e}"),
            FileError::AckBatchingName(n) => write!(
                f,
                "path.ack_batching: \"real-mode\", \"off\" or a table [[p, µs], ...], not {n:?}"
            ),
            FileError::AckBatchingTable(e) => write!(f, "path.ack_batching: {e}"),
            FileError::FlowControl(s) => write!(
                f,
                "endpoint.flow_control: unknown setting `{s}` (use chrome, off)"
            ),
            FileError::ClientProcessing => f.write_str("endpoint.client_processing: at most 10s"),
            FileError::ServerFlight => {
                f.write_str("endpoint.server_flight: must be at least 1 byte")
            }
            // The resumption error names its key itself.
            FileError::Resumption(e) => write!(f, "{e}"),
            FileError::ResumeHalf => {
                f.write_str("endpoint.resume_rate: give resume_rate and resume_rtt together")
            }
            FileError::ClientRttHint => {
                f.write_str("endpoint.client_rtt_hint: must be more than 0")
            }
            // The phase's error names its key itself.
            FileError::ClockPhase(e) => write!(f, "{e}"),
            FileError::Ecn { name, error } => write!(f, "endpoint.ecn: {error}, not {name:?}"),
            FileError::Pacer(p) => write!(
                f,
                "endpoint.pacer: unknown pacer `{p}` (use leaky-bucket, quinn, quicly, off)"
            ),
        }
    }
}

impl std::error::Error for FileError {}
