//! A/B analysis of stats records: percentile-versus-Δ curves with bootstrap
//! bands, and paired per-connection deltas.
//!
//! - [`Facet`]: how records split into small multiples (facet.rs).
//! - [`AbOptions`], [`AbSamples`]: what is read of each record (samples.rs).
//! - [`ab_curves`]: percentile-versus-Δ with bootstrap bands (curves.rs).
//! - [`paired_deltas`]: per-path Δ of arms run over the same paths (paired.rs).

mod curves;
mod facet;
mod paired;
mod samples;

pub use curves::{ab_curves, ab_curves_of, AbCurve, AbPanel, AbPoint, AbResult};
pub use facet::Facet;
pub use paired::{paired_deltas, paired_deltas_of, PairedCurve, PairedPanel, PairedResult};
pub use samples::{AbOptions, AbSample, AbSamples};

/// Records from NDJSON lines (tests).
#[cfg(test)]
pub(crate) fn test_records(lines: &[String]) -> Vec<crate::record::Record> {
    crate::record::parse_records(&lines.join("\n"), "t").unwrap()
}
