//! The self-contained HTML report: scenario, per-arm table and charts as
//! inline SVG in one file that opens offline (no scripts or styles from
//! the network; a few lines of inline JavaScript for click-to-zoom).

mod explorer;
mod headline;
mod html;
mod records;
mod run;
mod table;

pub use explorer::{explorer_html, Dim, ExplorerBuilder, ExplorerData, RangeDim, ValueCol};
pub use headline::{headline_of_summary, read_headline, ArmHeadline, HeadlineStat, HEADLINE_STATS};
pub use html::{render_report, ReportChart};
pub use records::RunRecords;
pub use run::RunData;
pub use table::{summarise, ArmSummary};

use crate::error::Result;
use std::path::Path;

/// Writes `run`'s report to `out` (atomically: the file appears whole or
/// not at all).
pub fn write_report(run: &RunData, out: &Path) -> Result<()> {
    let html = render_report(run)?;
    crate::output::write_atomic(out, html.as_bytes())
}
