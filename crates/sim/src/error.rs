//! Why a simulation could not run: [`SimError`], one variant per kind of
//! fault, each carrying the field and values a caller may want (a field
//! and its range, a controller name, a queue and the rate that fills it).
//! Only a population file's parser messages stay text, under their file
//! and line, as a scenario file's do in [`crate::ScenarioError`].

use core::fmt;
use core::time::Duration;

use ramp_cc::spec::SpecError;
use ramp_cc::Rate;

use crate::fleet::ArmError;
use crate::scenario::{write_queue_too_small, QueueLimit, MAX_WEB_PAGES};

/// A simulation that could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// A scenario file's `[path]` or `[endpoint]` key was refused.
    ScenarioFile(crate::scenario::FileError),
    /// A scenario field breaks a rule of its own or with another field
    /// (`path.trace`: "rate steps do not apply to a trace-driven link").
    Rule {
        /// The field as the scenario names it (`endpoint.mds`, `grid.rates`).
        field: String,
        /// What the field must be, or what may not come with it.
        rule: &'static str,
    },
    /// `path.rate_step` number `step` (1-based) is not later than the one
    /// before it.
    RateStepOrder {
        /// The step, counted from 1.
        step: usize,
        /// Its `at`.
        at: Duration,
        /// The `at` of the step before it.
        before: Duration,
    },
    /// The path's queue holds less than one datagram.
    QueueTooSmall {
        /// The bottleneck rate.
        rate: Rate,
        /// The queue as the scenario sizes it.
        queue: QueueLimit,
        /// What the queue holds at `rate`, in bytes.
        bytes: u64,
        /// The datagram size.
        mds: u64,
    },
    /// A `[[web]]` table whose users would load more pages (users ×
    /// horizon / reading) than the 100 000 a table may (docs/simulator.md,
    /// "Ranges").
    TooManyPages {
        /// The table, counted from 1.
        table: usize,
        /// Its users.
        users: u32,
        /// Its horizon.
        horizon: Duration,
        /// Its mean reading time.
        reading: Duration,
    },
    /// A fleet plan with no arms.
    NoArms,
    /// A fleet preset name that is not built in.
    UnknownPreset {
        /// The name as given.
        name: String,
        /// The built-in presets' names.
        known: Vec<&'static str>,
    },
    /// A population file that could not be read or parsed: the file when
    /// known, the line when known, and what is wrong with which key.
    PopulationFile {
        /// The file as given.
        file: Option<String>,
        /// The 1-based line of the key or table, when known.
        line: Option<usize>,
        /// What is wrong, starting with the key when known.
        message: String,
    },
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
            SimError::ScenarioFile(e) => write!(f, "{e}"),
            SimError::Rule { field, rule } => write!(f, "{field}: {rule}"),
            SimError::RateStepOrder { step, at, before } => write!(
                f,
                "path.rate_step {step}: at = {at:?} is not after the step before's {before:?} \
                 (the steps' `at` times must increase)"
            ),
            SimError::QueueTooSmall {
                rate,
                queue,
                bytes,
                mds,
            } => write_queue_too_small(f, *rate, *queue, *bytes, *mds),
            SimError::TooManyPages {
                table,
                users,
                horizon,
                reading,
            } => {
                let pages = f64::from(*users) * horizon.as_secs_f64() / reading.as_secs_f64();
                write!(
                    f,
                    "web {table}: users: {users} users over {horizon:?} at one page per \
                     {reading:?} of reading is ~{pages:.0} pages, above the maximum {} (fewer \
                     users, a shorter horizon or a longer reading time)",
                    MAX_WEB_PAGES
                )
            }
            SimError::NoArms => f.write_str("no arms"),
            SimError::UnknownPreset { name, known } => write!(
                f,
                "unknown fleet preset `{name}` (one of: {})",
                known.join(", ")
            ),
            SimError::PopulationFile {
                file,
                line,
                message,
            } => {
                if let Some(file) = file {
                    write!(f, "{file}: ")?;
                }
                if let Some(line) = line {
                    write!(f, "line {line}: ")?;
                }
                f.write_str(message)
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts are the ones the `format!`s these variants replaced
    /// printed, byte for byte (the CLI prints them, and scripts grep them).
    #[test]
    fn each_variant_prints_the_text_it_replaced() {
        let s = Duration::from_secs;
        let cases: [(SimError, &str); 7] = [
            (
                SimError::Rule {
                    field: "endpoint.mds".into(),
                    rule: "must lie in 1200..=65527 (RFC 9000 §14)",
                },
                "endpoint.mds: must lie in 1200..=65527 (RFC 9000 §14)",
            ),
            (
                SimError::RateStepOrder {
                    step: 2,
                    at: s(1),
                    before: s(2),
                },
                "path.rate_step 2: at = 1s is not after the step before's 2s (the steps' `at` \
                 times must increase)",
            ),
            (
                SimError::QueueTooSmall {
                    rate: Rate::from_bits_per_sec(1000),
                    queue: QueueLimit::Time(Duration::from_millis(30)),
                    bytes: 3,
                    mds: 1252,
                },
                "path.rate: 1000 bit/s fills the 30ms queue with 3 bytes, less than one \
                 1252-byte packet; with this queue the rate must lie in 333872 bit/s ..= 1 \
                 Tbit/s (or set a longer queue)",
            ),
            (
                SimError::QueueTooSmall {
                    rate: Rate::from_bits_per_sec(1000),
                    queue: QueueLimit::Bytes(100),
                    bytes: 100,
                    mds: 1252,
                },
                "path.queue: 100 bytes is less than one 1252-byte packet",
            ),
            (
                SimError::TooManyPages {
                    table: 1,
                    users: 256,
                    horizon: s(3600),
                    reading: s(1),
                },
                "web 1: users: 256 users over 3600s at one page per 1s of reading is ~921600 \
                 pages, above the maximum 100000 (fewer users, a shorter horizon or a longer \
                 reading time)",
            ),
            (
                SimError::PopulationFile {
                    file: Some("p.toml".into()),
                    line: Some(4),
                    message: "region `x`: defined twice".into(),
                },
                "p.toml: line 4: region `x`: defined twice",
            ),
            (
                SimError::PopulationFile {
                    file: None,
                    line: None,
                    message: "every region has weight 0".into(),
                },
                "every region has weight 0",
            ),
        ];
        for (e, want) in cases {
            assert_eq!(e.to_string(), want);
        }
        assert_eq!(SimError::NoArms.to_string(), "no arms");
    }
}
