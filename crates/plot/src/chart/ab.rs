//! The A/B chart (Kazuho Oku's form for production A/B tests): percentile
//! 1…99 on the vertical axis, % change of TTLB against the baseline arm on
//! the horizontal axis, a line at 0 with the faster side tinted, a
//! bootstrap band per arm, one small multiple per facet.

use super::axes::MAX_COLUMNS;
use super::axes::{de, signed_pct, text};
use super::change::{
    arm_colour, change_canvas_size, change_chart_builders, change_scale, draw_change_panels,
    panel_caption, per_panel_desc, title_by, ChangeLayout,
};
use super::style::Theme;
use super::Chart;
use crate::ab::{AbPanel, AbResult};
use crate::error::{Error, Result};
use crate::units::Scale;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Percentile-versus-Δ chart of an [`AbResult`].
#[derive(Debug, Clone)]
pub struct AbChart<'a> {
    result: &'a AbResult,
    title: Option<String>,
    columns: usize,
}

impl<'a> AbChart<'a> {
    /// A chart of `result`.
    pub fn new(result: &'a AbResult) -> Self {
        AbChart {
            result,
            title: None,
            columns: MAX_COLUMNS,
        }
    }

    change_chart_builders!();
}

/// Each panel's x axis, fitted to its curves and bands.
fn panel_scales(r: &AbResult) -> Vec<Scale> {
    r.panels
        .iter()
        .map(|p| {
            change_scale(
                p.curves
                    .iter()
                    .flat_map(|c| &c.points)
                    .flat_map(|p| [p.delta_pct, p.lo_pct, p.hi_pct]),
            )
        })
        .collect()
}

impl Chart for AbChart<'_> {
    fn size(&self) -> (u32, u32) {
        change_canvas_size(&self.result.panels, self.columns)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: Theme) -> Result<()> {
        let r = self.result;
        if r.panels.is_empty() {
            return Err(Error::Data(
                "A/B chart: no facet has baseline records".to_string(),
            ));
        }
        let title = self.title.clone().unwrap_or_else(|| {
            let mut t = title_by(
                format!("TTLB change against {} by percentile", r.baseline),
                &r.facet,
            );
            t.push_str(" (band: bootstrap 95% CI)");
            t
        });
        let xs = panel_scales(r);
        let x_desc = per_panel_desc(format!("TTLB change vs {} (%)", r.baseline), r.panels.len());
        let layout = ChangeLayout {
            title: &title,
            x: &xs,
            x_desc: &x_desc,
            y_desc: "percentile",
            columns: self.columns,
        };
        let caption =
            |panel: &AbPanel| panel_caption(&r.facet, &panel.facet, &r.baseline, panel.baseline_n);
        draw_change_panels(root, theme, &layout, &r.panels, caption, |panel, chart| {
            let x = chart.x_range();
            if x.start < 0.0 {
                de(chart.draw_series(std::iter::once(Text::new(
                    "← faster",
                    (x.start + (x.end - x.start) * 0.01, 99.0),
                    text(12.0, theme.foreground()),
                ))))?;
            }
            let mut key: Vec<(RGBColor, String)> = Vec::new();
            for c in &panel.curves {
                let colour = arm_colour(&r.arms, &r.baseline, &c.arm, theme);
                let band: Vec<(f64, f64)> = c
                    .points
                    .iter()
                    .map(|p| (p.lo_pct, p.percentile))
                    .chain(c.points.iter().rev().map(|p| (p.hi_pct, p.percentile)))
                    .filter(|p| p.0.is_finite())
                    .collect();
                de(chart.draw_series(std::iter::once(Polygon::new(
                    band,
                    colour.mix(theme.band_alpha()).filled(),
                ))))?;
                let line: Vec<(f64, f64)> = c
                    .points
                    .iter()
                    .map(|p| (p.delta_pct, p.percentile))
                    .filter(|p| p.0.is_finite())
                    .collect();
                let label = match c.median_delta_pct() {
                    Some(m) => format!("{} (n = {}, p50 {})", c.arm, c.n, signed_pct(m)),
                    None => format!("{} (n = {})", c.arm, c.n),
                };
                de(chart.draw_series(LineSeries::new(line, colour.stroke_width(2))))?;
                key.push((colour, label));
            }
            Ok(key)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ab::{AbCurve, AbPoint, Facet};

    fn panel(facet: &str, deltas: &[f64]) -> AbPanel {
        AbPanel {
            facet: facet.into(),
            baseline_n: 50,
            curves: vec![AbCurve {
                arm: "b".into(),
                n: 50,
                points: deltas
                    .iter()
                    .enumerate()
                    .map(|(i, &d)| AbPoint {
                        percentile: 10.0 * (i + 1) as f64,
                        delta_pct: d,
                        lo_pct: d - 3.0,
                        hi_pct: d + 3.0,
                    })
                    .collect(),
            }],
        }
    }

    /// The review's case: one region's +900 % tail gave every region's
    /// panel a −200 … +1000 % axis.
    #[test]
    fn each_region_panel_has_an_axis_fitted_to_its_own_data_and_none_below_minus_100() {
        let r = AbResult {
            baseline: "a".into(),
            arms: vec!["a".into(), "b".into()],
            facet: Facet::Key("pop".into()),
            panels: vec![
                panel("ams", &[-12.0, -5.0, 0.0, 4.0]),
                panel("gru", &[-99.0, 10.0, 200.0, 900.0]),
            ],
            skipped: 0,
        };
        let xs = panel_scales(&r);
        assert!(xs[0].lo >= -20.0 && xs[0].hi <= 10.0, "{:?}", xs[0]);
        assert!(xs[1].hi >= 903.0 && xs[1].lo == -100.0, "{:?}", xs[1]);
        assert!(xs[1].ticks.iter().all(|&t| t >= -100.0));
        // The chart says the ranges differ.
        let svg = crate::chart::to_svg(&AbChart::new(&r), Theme::Light).unwrap();
        assert!(
            svg.contains("each panel&apos;s own range") || svg.contains("each panel's own range")
        );
    }
}
