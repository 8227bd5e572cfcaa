//! The A/B chart (Kazuho Oku's form for production A/B tests): percentile
//! 1…99 on the vertical axis, % change of TTLB against the baseline arm on
//! the horizontal axis, a line at 0 with the faster side tinted, a
//! bootstrap band per arm, one small multiple per facet.

use super::axes::{de, signed_pct, text};
use super::change::{
    arm_colour, change_canvas_size, draw_change_panels, panel_caption, title_by, ChangeLayout,
};
use super::style::Theme;
use super::Chart;
use crate::ab::{AbPanel, AbResult};
use crate::error::{Error, Result};
use crate::units::nice_scale;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Percentile-versus-Δ chart of an [`AbResult`].
#[derive(Debug, Clone)]
pub struct AbChart<'a> {
    result: &'a AbResult,
    title: Option<String>,
}

impl<'a> AbChart<'a> {
    /// A chart of `result`.
    pub fn new(result: &'a AbResult) -> Self {
        AbChart {
            result,
            title: None,
        }
    }

    /// Replaces the title (say what the records are: scenario, period, filter).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

impl Chart for AbChart<'_> {
    fn size(&self) -> (u32, u32) {
        change_canvas_size(&self.result.panels)
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
        // One x range for every panel, so panels compare at a glance.
        let (mut lo, mut hi) = (0.0f64, 0.0f64);
        for c in r.panels.iter().flat_map(|p| &p.curves) {
            for p in &c.points {
                for v in [p.delta_pct, p.lo_pct, p.hi_pct] {
                    if v.is_finite() {
                        lo = lo.min(v);
                        hi = hi.max(v);
                    }
                }
            }
        }
        let x = nice_scale(lo, hi, 8);
        let x_desc = format!("TTLB change vs {} (%)", r.baseline);
        let layout = ChangeLayout {
            title: &title,
            x: &x,
            x_desc: &x_desc,
            y_desc: "percentile",
        };
        let caption =
            |panel: &AbPanel| panel_caption(&r.facet, &panel.facet, &r.baseline, panel.baseline_n);
        draw_change_panels(root, theme, &layout, &r.panels, caption, |panel, chart| {
            if x.lo < 0.0 {
                de(chart.draw_series(std::iter::once(Text::new(
                    "← faster",
                    (x.lo + (x.hi - x.lo) * 0.01, 99.0),
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
