//! The paired view: for arms run over the same paths (same seed), the
//! distribution (CDF) of per-path % change of TTLB against the baseline.
//! Pairing removes the path-to-path spread, so it shows effects the
//! unpaired percentile comparison cannot (docs/charts.md).

use super::axes::MAX_COLUMNS;
use super::axes::{de, signed_pct, steps};
use super::change::{
    arm_colour, change_canvas_size, change_chart_builders, change_scale, draw_change_panels,
    panel_caption, per_panel_desc, title_by, ChangeLayout,
};
use super::style::Theme;
use super::Chart;
use crate::ab::{PairedPanel, PairedResult};
use crate::error::{Error, Result};
use crate::units::format_number;
use plotters::coord::Shift;
use plotters::prelude::*;
use ramp_vocab::quantile::quantile_sorted;

/// CDF of per-path Δ of a [`PairedResult`].
#[derive(Debug, Clone)]
pub struct PairedChart<'a> {
    result: &'a PairedResult,
    title: Option<String>,
    columns: usize,
}

impl<'a> PairedChart<'a> {
    /// A chart of `result`.
    pub fn new(result: &'a PairedResult) -> Self {
        PairedChart {
            result,
            title: None,
            columns: MAX_COLUMNS,
        }
    }

    change_chart_builders!();
}

/// The empirical CDF of sorted values as (value, % of values ≤ it) steps.
pub(crate) fn ecdf_points(sorted: &[f64]) -> Vec<(f64, f64)> {
    let n = sorted.len() as f64;
    let mut pts = Vec::with_capacity(sorted.len() + 1);
    if let Some(&first) = sorted.first() {
        pts.push((first, 0.0));
    }
    for (i, &v) in sorted.iter().enumerate() {
        pts.push((v, 100.0 * (i + 1) as f64 / n));
    }
    pts
}

impl Chart for PairedChart<'_> {
    fn size(&self) -> (u32, u32) {
        change_canvas_size(&self.result.panels, self.columns)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: Theme) -> Result<()> {
        let r = self.result;
        if r.panels.is_empty() {
            return Err(Error::Data("paired chart: no pairs".to_string()));
        }
        let title = self.title.clone().unwrap_or_else(|| {
            title_by(
                format!(
                    "Per-path TTLB change against {} (paired by {})",
                    r.baseline,
                    r.pair_keys.join(", ")
                ),
                &r.facet,
            )
        });
        let xs: Vec<_> = r
            .panels
            .iter()
            .map(|p| change_scale(p.curves.iter().flat_map(|c| c.deltas_pct.iter().copied())))
            .collect();
        let x_desc = per_panel_desc(
            format!("per-path TTLB change vs {} (%)", r.baseline),
            r.panels.len(),
        );
        let layout = ChangeLayout {
            title: &title,
            x: &xs,
            x_desc: &x_desc,
            y_desc: "paths (%)",
            columns: self.columns,
        };
        let caption = |panel: &PairedPanel| {
            let pairs = panel
                .curves
                .iter()
                .map(|c| c.deltas_pct.len())
                .max()
                .unwrap_or(0);
            panel_caption(&r.facet, &panel.facet, &r.baseline, pairs).replace(" n = ", " pairs = ")
        };
        draw_change_panels(root, theme, &layout, &r.panels, caption, |panel, chart| {
            let mut key: Vec<(RGBColor, String)> = Vec::new();
            for c in &panel.curves {
                if c.deltas_pct.is_empty() {
                    continue;
                }
                let colour = arm_colour(&r.arms, &r.baseline, &c.arm, theme);
                let faster = c.deltas_pct.iter().filter(|d| **d < 0.0).count();
                let label = format!(
                    "{} (median {}, faster on {}%)",
                    c.arm,
                    signed_pct(quantile_sorted(&c.deltas_pct, 0.5).unwrap_or(0.0)),
                    format_number(100.0 * faster as f64 / c.deltas_pct.len() as f64)
                );
                de(chart.draw_series(LineSeries::new(
                    steps(&ecdf_points(&c.deltas_pct)),
                    colour.stroke_width(2),
                )))?;
                key.push((colour, label));
            }
            Ok(key)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecdf_reaches_100_percent() {
        let p = ecdf_points(&[-10.0, 0.0, 5.0, 5.0]);
        assert_eq!(
            p,
            vec![
                (-10.0, 0.0),
                (-10.0, 25.0),
                (0.0, 50.0),
                (5.0, 75.0),
                (5.0, 100.0)
            ]
        );
        assert!(ecdf_points(&[]).is_empty());
    }
}
