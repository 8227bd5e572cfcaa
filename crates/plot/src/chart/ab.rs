//! The A/B chart (Kazuho Oku's form for production A/B tests): percentile
//! 1…99 on the vertical axis, % change of TTLB against the baseline arm on
//! the horizontal axis, a line at 0 with the faster side tinted, a
//! bootstrap band per arm, one small multiple per facet.

use super::axes::{
    cartesian, de, key_height, panel_canvas_size, panel_key, panel_layout, signed_pct, styled,
    text, Coord, Frame, TITLE_BAND,
};
use super::style::Theme;
use super::Chart;
use crate::ab::{AbResult, Facet};
use crate::error::{Error, Result};
use crate::units::{format_number, nice_scale, Scale};
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

/// The frame the A/B and paired charts share: the faster (negative) side
/// tinted, the mesh with `x_desc`/`y_desc`, and the zero line, on a y axis
/// of 0..100 (percentiles or percent of paths).
pub(crate) fn draw_change_frame<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Coord>,
    x: &Scale,
    x_desc: &str,
    y_desc: &str,
    theme: Theme,
) -> Result<()> {
    if x.lo < 0.0 {
        de(chart.draw_series(std::iter::once(Rectangle::new(
            [(x.lo, 0.0), (0.0_f64.min(x.hi), 100.0)],
            theme.better_tint().filled(),
        ))))?;
    }
    let fx = |v: &f64| format_number(*v);
    let mut m = chart.configure_mesh();
    styled(&mut m, theme)
        .x_label_formatter(&fx)
        .y_label_formatter(&fx)
        .x_desc(x_desc)
        .y_desc(y_desc);
    de(m.draw())?;
    de(chart.draw_series(std::iter::once(PathElement::new(
        [(0.0, 0.0), (0.0, 100.0)],
        theme.foreground().stroke_width(1),
    ))))?;
    Ok(())
}

/// The colour index of each arm: its place among the non-baseline arms,
/// so an arm keeps its colour in every panel and chart.
pub(crate) fn arm_colour(arms: &[String], baseline: &str, arm: &str, theme: Theme) -> RGBColor {
    let i = arms
        .iter()
        .filter(|a| *a != baseline)
        .position(|a| a == arm)
        .unwrap_or(0);
    theme.series(i)
}

/// The panel caption: facet and baseline size.
pub(crate) fn panel_caption(facet: &Facet, label: &str, baseline: &str, n: usize) -> String {
    let what = match facet {
        Facet::None => "all records".to_string(),
        Facet::Key(k) => format!("{k} = {label}"),
        Facet::SizeBins(_) => format!("object size {label}"),
    };
    format!("{what} — {baseline}: n = {n}")
}

/// Margins of the A/B and paired panels.
pub(crate) const FRAME: Frame = Frame {
    left: 62,
    right: 0,
    bottom: 44,
    caption: Some(15.0),
};

/// Rows of each panel's key: the most curves any panel has.
pub(crate) fn key_rows<P>(panels: &[P], curves: impl Fn(&P) -> usize) -> usize {
    panels.iter().map(curves).max().unwrap_or(0)
}

/// The vertical axis of the A/B and paired charts: 0…100 in steps of 10
/// (percentiles, or percent of paths).
pub(crate) fn percent_axis() -> Scale {
    Scale {
        lo: 0.0,
        hi: 100.0,
        ticks: (0..=10).map(|i| f64::from(i) * 10.0).collect(),
        step: 10.0,
    }
}

/// Draws `title` centred in the title band of `root` and returns the
/// area below it.
pub(crate) fn titled<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    theme: Theme,
) -> Result<DrawingArea<DB, Shift>> {
    let (w, _) = root.dim_in_pixel();
    let (head, body) = root.split_vertically(TITLE_BAND);
    de(head.draw_text(
        title,
        &text(18.0, theme.foreground()).pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Center,
        )),
        (w as i32 / 2, TITLE_BAND as i32 / 2),
    ))?;
    Ok(body)
}

impl Chart for AbChart<'_> {
    fn size(&self) -> (u32, u32) {
        panel_canvas_size(
            self.result.panels.len(),
            key_rows(&self.result.panels, |p| p.curves.len()),
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: Theme) -> Result<()> {
        let r = self.result;
        if r.panels.is_empty() {
            return Err(Error::Data(
                "A/B chart: no facet has baseline records".to_string(),
            ));
        }
        let title = self.title.clone().unwrap_or_else(|| {
            let by = r.facet.describe();
            let mut t = format!("TTLB change against {} by percentile", r.baseline);
            if !by.is_empty() {
                t.push_str(&format!(", by {by}"));
            }
            t.push_str(" (band: bootstrap 95% CI)");
            t
        });
        let body = titled(root, &title, theme)?;
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
        let y = percent_axis();
        let (cols, rows) = panel_layout(r.panels.len());
        let cells = body.split_evenly((rows, cols));
        let key_h = key_height(key_rows(&r.panels, |p| p.curves.len()));
        for (panel, cell) in r.panels.iter().zip(cells.iter()) {
            let (_, cell_h) = cell.dim_in_pixel();
            let (area, key_area) = cell.split_vertically(cell_h.saturating_sub(key_h));
            let area = &area;
            let mut key: Vec<(RGBColor, String)> = Vec::new();
            let caption = panel_caption(&r.facet, &panel.facet, &r.baseline, panel.baseline_n);
            let mut chart = cartesian(area, Some(&caption), &x, &y, FRAME, false, theme)?;
            let x_desc = format!("TTLB change vs {} (%)", r.baseline);
            draw_change_frame(&mut chart, &x, &x_desc, "percentile", theme)?;
            if x.lo < 0.0 {
                de(chart.draw_series(std::iter::once(Text::new(
                    "← faster",
                    (x.lo + (x.hi - x.lo) * 0.01, 99.0),
                    text(12.0, theme.foreground()),
                ))))?;
            }
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
            panel_key(&key_area, &key, theme)?;
        }
        Ok(())
    }
}
