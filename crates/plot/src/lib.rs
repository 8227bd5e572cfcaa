//! Charts (PNG/SVG) and the self-contained HTML report for ramp records and traces.
//!
//! ramp-plot knows records and series, never a simulator: the same charts
//! serve simulated runs, real runs and production logs.
//!
//! - Inputs: [`Record`] (one stats record, docs/formats.md) and [`Trace`]
//!   (one connection's event stream).
//! - Analysis: [`ab_curves`] and [`paired_deltas`] (A/B percentile-versus-Δ
//!   with bootstrap bands; per-path deltas), with percentiles as defined in
//!   [`ramp_vocab::quantile`].
//! - Grids: [`grid_curves`] (TTLB and packets lost against one axis of a
//!   path grid, per arm).
//! - Charts: see [`chart`].
//! - Report: [`write_report`].

#![forbid(unsafe_code)]

mod ab;
pub mod bootstrap;
pub mod chart;
mod error;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
pub mod grid;
mod output;
pub mod packet_log;
mod record;
mod report;
pub mod trace;
pub mod units;

pub use ab::{
    ab_curves, ab_curves_of, paired_deltas, paired_deltas_of, AbCurve, AbOptions, AbPanel, AbPoint,
    AbResult, AbSample, AbSamples, Facet, PairedCurve, PairedPanel, PairedResult,
};
pub use error::{Error, Result};
pub use grid::{grid_curves, GridAxis, GridResult, GridSamples};
pub use record::{parse_records, read_records, Record};
pub use report::{
    explorer_html, headline_of_summary, read_headline, render_report, summarise, write_report,
    ArmHeadline, ArmSummary, Dim, ExplorerBuilder, ExplorerData, HeadlineStat, RangeDim,
    ReportChart, RunData, RunRecords, ValueCol, HEADLINE_STATS,
};
pub use trace::{parse_trace, read_trace, Trace, TraceMeta};
