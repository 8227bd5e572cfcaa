//! ramp-vocab: the words every ramp crate shares, with no dependencies.
//!
//! The controllers (ramp-cc), the link model (ramp-link), the simulator,
//! the real-mode tools and the charts all speak of the same few things;
//! each is defined once here, at the bottom of the dependency graph, so a
//! crate that needs only a word does not depend on the controllers.
//!
//! - [`time`]: [`Time`] (integer nanoseconds) and [`Rate`] (bits/s).
//! - [`units`]: the one grammar of written quantities (`20mbit`, `40ms`,
//!   `3MB`, `0.5%`) for command lines, scenario and population files.
//! - [`rng`]: the pinned generators (xoshiro256**, splitmix64).
//! - [`quantile`]: the one percentile definition (Hyndman & Fan type 7).
//! - [`record_keys`]: the keys of a per-connection stats record.
//! - [`atomic_file`]: writing an output file whole or not at all.
//! - [`ecn`]: the ECN codepoint a packet carries ([`EcnCodepoint`]).
//! - [`lines`]: input lines with a maximum length, checked as bytes arrive.
//! - [`bounded_read`]: a whole small input file, with a size cap.
//! - [`best_effort`]: stderr notices that never panic ([`note!`]).
//! - [`fnv`]: the one stable hash (FNV-1a 64) for digests and file names.

#![forbid(unsafe_code)]

pub mod atomic_file;
pub mod best_effort;
pub mod bounded_read;
pub mod ecn;
pub mod fnv;
pub mod lines;
pub mod quantile;
pub mod record_keys;
pub mod rng;
pub mod time;
pub mod units;

pub use ecn::EcnCodepoint;
pub use time::{Rate, Time};
