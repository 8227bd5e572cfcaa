//! Why a simulation could not run: [`SimError`], typed where the message
//! has a structure a caller may want (a field and its range, a controller
//! name), text where it is one sentence about the input.

use core::fmt;
use core::time::Duration;

use ramp_cc::spec::SpecError;

use crate::fleet::ArmError;

/// A simulation that could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// The scenario, population file, plan or argument is not valid; the
    /// message names the file, line, table or field and what is wrong
    /// with it (the `From<String>` conversion of the parsers' messages).
    Invalid(String),
    /// A scenario number outside its documented range (docs/simulator.md,
    /// "Ranges").
    OutOfRange {
        /// The field as the scenario names it: `path.rate`, `flow 2: start`,
        /// with its unit when the value is a bare number (`size (bytes)`).
        field: String,
        /// The value and the range it must lie in.
        bound: Bound,
    },
    /// A flow's controller name does not parse.
    Controller {
        /// Where the name was given (`flow 2`, `web 1`).
        table: String,
        /// The name as written.
        name: String,
        /// Why it does not parse.
        error: SpecError,
    },
    /// A fleet plan's arm list does not parse.
    Arms(ArmError),
    /// Nothing to do: no controller was given to run.
    NoController,
    /// An invariant of the simulator broke: a bug in ramp, never the
    /// input's fault. Says which.
    Internal(&'static str),
}

/// A value and the range it missed, as [`SimError::OutOfRange`] reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// A count (bytes, packets, users) outside `lo..=hi`.
    Count {
        /// The value given.
        value: u64,
        /// The least allowed.
        lo: u64,
        /// The most allowed.
        hi: u64,
    },
    /// A duration outside `lo ..= hi`.
    Duration {
        /// The value given.
        value: Duration,
        /// The least allowed.
        lo: Duration,
        /// The most allowed.
        hi: Duration,
    },
    /// A duration above `max` (zero and up are allowed).
    AtMost {
        /// The value given.
        value: Duration,
        /// The most allowed.
        max: Duration,
    },
    /// A rate outside 1 kbit/s ..= 1 Tbit/s, the range of every scenario
    /// rate.
    Rate {
        /// The value given, in bit/s.
        bits_per_sec: u64,
    },
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::Count { value, lo, hi } => write!(f, "{value} is outside {lo}..={hi}"),
            Bound::Duration { value, lo, hi } => {
                write!(f, "{value:?} is outside {lo:?} ..= {hi:?}")
            }
            Bound::AtMost { value, max } => write!(f, "{value:?} is above the maximum {max:?}"),
            Bound::Rate { bits_per_sec } => {
                write!(f, "{bits_per_sec} bit/s is outside 1 kbit/s ..= 1 Tbit/s")
            }
        }
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Invalid(m) => f.write_str(m),
            SimError::OutOfRange { field, bound } => write!(f, "{field}: {bound}"),
            SimError::Controller { table, name, error } => {
                write!(f, "{table}: cc `{name}`: {error}")
            }
            SimError::Arms(e) => e.fmt(f),
            SimError::NoController => f.write_str("no controller to benchmark"),
            SimError::Internal(what) => write!(f, "internal: {what}"),
        }
    }
}

impl std::error::Error for SimError {}

impl From<ArmError> for SimError {
    fn from(e: ArmError) -> SimError {
        SimError::Arms(e)
    }
}

impl From<String> for SimError {
    fn from(message: String) -> SimError {
        SimError::Invalid(message)
    }
}

impl From<&str> for SimError {
    fn from(message: &str) -> SimError {
        SimError::Invalid(message.to_string())
    }
}
