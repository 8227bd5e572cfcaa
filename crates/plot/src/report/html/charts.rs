//! The report's charts, and notes for those the data cannot support.

use super::{ReportChart, CHART_DISPLAY_PX};
use crate::ab::{ab_curves_of, paired_deltas_of, AbOptions, Facet};
use crate::chart::{to_svg, AbChart, DeliveryChart, GridChart, PairedChart, Theme, TimeSeqChart};
use crate::error::Result;
use crate::grid::grid_curves;
use crate::report::RunData;
use crate::trace::Trace;

/// Panels side by side in the report's per-region charts: as many as fit
/// [`CHART_DISPLAY_PX`] at their own size (two). Three (1620 px, the
/// image files' layout) were shown at three quarters of their size, their
/// labels at 7–8 px.
const REPORT_COLUMNS: usize = (CHART_DISPLAY_PX / crate::chart::PANEL.0) as usize;

/// Fewest records per arm for the percentile charts to say anything.
const MIN_RECORDS_FOR_AB: usize = 5;
/// At most this many time-sequence charts (one per arm of one path).
const MAX_TIMESEQ: usize = 8;

/// The traces of one path: the lowest seed that has traces (all traces
/// when none carries a seed).
fn one_path(traces: &[Trace]) -> Vec<&Trace> {
    match traces.iter().filter_map(|t| t.meta.seed).min() {
        Some(seed) => traces
            .iter()
            .filter(|t| t.meta.seed == Some(seed))
            .collect(),
        None => traces.iter().collect(),
    }
}

/// Builds the charts; charts the data cannot support become notes.
pub(super) fn charts(run: &RunData, theme: Theme) -> Result<(Vec<ReportChart>, Vec<String>)> {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    let path = one_path(&run.traces);
    if !path.is_empty() {
        let seed = path[0]
            .meta
            .seed
            .map(|s| format!(" (seed {s})"))
            .unwrap_or_default();
        out.push(ReportChart {
            id: "chart-delivery".into(),
            heading: format!("Delivery curves{seed}"),
            svg: to_svg(&DeliveryChart::new(path.clone()), theme)?,
        });
        for (i, t) in path.iter().take(MAX_TIMESEQ).enumerate() {
            out.push(ReportChart {
                id: format!("chart-timeseq-{i}"),
                heading: format!("Time sequence: {}{seed}", t.meta.label()),
                svg: to_svg(&TimeSeqChart::new(t), theme)?,
            });
        }
        if path.len() > MAX_TIMESEQ {
            notes.push(format!(
                "Time-sequence charts shown for the first {MAX_TIMESEQ} of {} traces.",
                path.len()
            ));
        }
    } else {
        notes.push(
            "No traces in this run (traces/*.ndjson): no delivery or time-sequence charts.".into(),
        );
    }

    let arms = run.arms();
    // Grid runs (records with `grid.cell`): TTLB and packets lost against
    // each axis that varies.
    let grid = run.records.grid_samples();
    if grid.from_grid {
        for axis in grid.varying_axes() {
            match grid_curves(&grid, axis, &arms) {
                Ok(r) => out.push(ReportChart {
                    id: format!("chart-grid-{}", axis.name()),
                    heading: format!("TTLB and packets lost against {}", axis.describe()),
                    svg: to_svg(&GridChart::new(&r), theme)?,
                }),
                Err(e) => notes.push(format!("Grid chart ({}) skipped: {e}", axis.name())),
            }
        }
    }
    let Some(baseline) = run.baseline_arm() else {
        return Ok((out, notes));
    };
    let key = run.arm_key();
    let counts: Vec<usize> = arms.iter().map(|a| run.records.count(a)).collect();
    if arms.len() < 2 {
        return Ok((out, notes));
    }
    if counts.iter().any(|&n| n < MIN_RECORDS_FOR_AB) {
        notes.push(format!(
            "A/B percentile charts need at least {MIN_RECORDS_FOR_AB} records per arm; this run has {}.",
            arms.iter()
                .zip(&counts)
                .map(|(a, n)| format!("{a}: {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        return Ok((out, notes));
    }
    let mut opts = AbOptions::new(&baseline);
    opts.arm_key = key.to_string();
    let samples = run.records.ab_samples(false);
    match ab_curves_of(&samples, &opts) {
        Ok(ab) => out.push(ReportChart {
            id: "chart-ab".into(),
            heading: format!("TTLB change against {baseline}, by percentile"),
            svg: to_svg(&AbChart::new(&ab).columns(REPORT_COLUMNS), theme)?,
        }),
        Err(e) => notes.push(format!("A/B chart skipped: {e}")),
    }
    if run.records.pops().len() > 1 {
        let mut by = opts.clone();
        by.facet = Facet::Key("pop".into());
        if let Ok(ab) = ab_curves_of(&run.records.ab_samples(true), &by) {
            out.push(ReportChart {
                id: "chart-ab-pop".into(),
                heading: format!("TTLB change against {baseline}, by pop"),
                svg: to_svg(&AbChart::new(&ab).columns(REPORT_COLUMNS), theme)?,
            });
        }
    }
    match paired_deltas_of(&samples, &opts) {
        Ok(p) => out.push(ReportChart {
            id: "chart-paired".into(),
            heading: format!("Per-path TTLB change against {baseline} (paired)"),
            svg: to_svg(&PairedChart::new(&p).columns(REPORT_COLUMNS), theme)?,
        }),
        Err(e) => notes.push(format!("Paired chart skipped: {e}")),
    }
    Ok((out, notes))
}
