//! What the A/B and paired charts share: a % change of TTLB against the
//! baseline arm on the horizontal axis, 0…100 on the vertical
//! (percentiles, or percent of paths), the faster side tinted, one small
//! multiple per facet with its key below it, each arm in one colour
//! throughout.

use super::axes::{
    cartesian, de, key_height, panel_canvas_size, panel_key, panel_layout, styled, text, Coord,
    Frame, TITLE_BAND,
};
use super::style::Theme;
use crate::ab::{AbPanel, Facet, PairedPanel};
use crate::error::Result;
use crate::units::{format_number, nice_scale, Scale};
use plotters::coord::Shift;
use plotters::prelude::*;

/// The builder methods the A/B and paired charts share, written into each
/// chart's `impl` (both have `title: Option<String>` and `columns: usize`).
macro_rules! change_chart_builders {
    () => {
        /// Puts at most `columns` (at least 1) panels side by side instead of
        /// [`MAX_COLUMNS`]: for a page that shows the chart narrower than its
        /// own size, where three panels' labels would shrink unreadably
        /// (`ramp report`).
        pub fn columns(mut self, columns: usize) -> Self {
            self.columns = columns.max(1);
            self
        }

        /// Replaces the title (say what the records are: scenario, period,
        /// filter).
        pub fn title(mut self, title: impl Into<String>) -> Self {
            self.title = Some(title.into());
            self
        }
    };
}
pub(super) use change_chart_builders;

/// The frame the A/B and paired charts share: the faster (negative) side
/// tinted, the mesh with `x_desc`/`y_desc`, and the zero line, on a y axis
/// of 0..100 (percentiles or percent of paths).
fn draw_change_frame<DB: DrawingBackend>(
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
    let (w, h) = chart.plotting_area().dim_in_pixel();
    let mut m = chart.configure_mesh();
    styled(&mut m, theme)
        .x_label_formatter(&fx)
        .y_label_formatter(&fx)
        .x_desc(super::fit::ellipsize(x_desc, w, DESC_SIZE))
        .y_desc(super::fit::ellipsize(y_desc, h, DESC_SIZE));
    de(m.draw())?;
    de(chart.draw_series(std::iter::once(PathElement::new(
        [(0.0, 0.0), (0.0, 100.0)],
        theme.foreground().stroke_width(1),
    ))))?;
    Ok(())
}

/// Font size of axis descriptions (the mesh style's).
const DESC_SIZE: f64 = 14.0;

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
const FRAME: Frame = Frame {
    left: 62,
    right: 0,
    bottom: 44,
    caption: Some(15.0),
};

/// A panel of a change chart, as the layout sees it: one key row per
/// curve.
pub(crate) trait ChangePanel {
    /// Curves (arms) the panel draws.
    fn curve_count(&self) -> usize;
}

impl ChangePanel for AbPanel {
    fn curve_count(&self) -> usize {
        self.curves.len()
    }
}

impl ChangePanel for PairedPanel {
    fn curve_count(&self) -> usize {
        self.curves.len()
    }
}

/// Rows of each panel's key: the most curves any panel has.
fn key_rows<P: ChangePanel>(panels: &[P]) -> usize {
    panels
        .iter()
        .map(ChangePanel::curve_count)
        .max()
        .unwrap_or(0)
}

/// The canvas a change chart of `panels` needs: the panel grid, at most
/// `columns` wide, each panel with room for the largest key.
pub(crate) fn change_canvas_size<P: ChangePanel>(panels: &[P], columns: usize) -> (u32, u32) {
    panel_canvas_size(panels.len(), key_rows(panels), columns)
}

/// The vertical axis of the A/B and paired charts: 0…100 in steps of 10
/// (percentiles, or percent of paths).
fn percent_axis() -> Scale {
    Scale {
        lo: 0.0,
        hi: 100.0,
        ticks: (0..=10).map(|i| f64::from(i) * 10.0).collect(),
        step: 10.0,
    }
}

/// The horizontal scale of one change panel: 0 and every finite value of
/// `values` (changes in %, with their bands). A TTLB change cannot be
/// below −100 % (the arm's TTLB is not negative), so the axis never starts
/// below it.
///
/// Each panel gets its own: one range for all panels let the widest
/// region (a +900 % tail of a slow region) squeeze the others' ±20 % into
/// a sliver. The x axis description says so when there are several panels
/// ([`per_panel_desc`]).
pub(crate) fn change_scale(values: impl IntoIterator<Item = f64>) -> Scale {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold((0.0f64, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let mut s = nice_scale(lo.max(-100.0), hi, 8);
    if s.lo < -100.0 {
        s.lo = -100.0;
        s.ticks.retain(|&t| t >= -100.0);
    }
    s
}

/// `desc`, marked as a per-panel range when there are several panels.
pub(crate) fn per_panel_desc(desc: String, panels: usize) -> String {
    if panels > 1 {
        format!("{desc}; each panel's own range")
    } else {
        desc
    }
}

/// Draws `title` centred in the title band of `root` and returns the
/// area below it.
fn titled<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    theme: Theme,
) -> Result<DrawingArea<DB, Shift>> {
    let (w, _) = root.dim_in_pixel();
    let (head, body) = root.split_vertically(TITLE_BAND);
    de(head.draw_text(
        &super::fit::ellipsize(title, w.saturating_sub(24), super::fit::TITLE_SIZE),
        &text(18.0, theme.foreground()).pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Center,
        )),
        (w as i32 / 2, TITLE_BAND as i32 / 2),
    ))?;
    Ok(body)
}

/// `head`, then the facet (", by …") if the records are faceted: the
/// start of both charts' default titles.
pub(crate) fn title_by(mut head: String, facet: &Facet) -> String {
    let by = facet.describe();
    if !by.is_empty() {
        head.push_str(&format!(", by {by}"));
    }
    head
}

/// How a change chart lays out its panels.
pub(crate) struct ChangeLayout<'a> {
    /// The chart's title, above every panel.
    pub(crate) title: &'a str,
    /// The horizontal scale of each panel, in panel order: each fitted to
    /// its own panel's data ([`change_scale`]).
    pub(crate) x: &'a [Scale],
    /// The horizontal axis' label.
    pub(crate) x_desc: &'a str,
    /// The vertical axis' label.
    pub(crate) y_desc: &'a str,
    /// The most panels side by side.
    pub(crate) columns: usize,
}

/// Draws the title and one panel per item of `panels`: each with
/// `caption(panel)`, the change frame, then whatever `curves` draws into
/// it, and the key `curves` returns (colour and label per line).
pub(crate) fn draw_change_panels<DB: DrawingBackend, P: ChangePanel>(
    root: &DrawingArea<DB, Shift>,
    theme: Theme,
    layout: &ChangeLayout<'_>,
    panels: &[P],
    caption: impl Fn(&P) -> String,
    mut curves: impl FnMut(&P, &mut ChartContext<'_, DB, Coord>) -> Result<Vec<(RGBColor, String)>>,
) -> Result<()> {
    let body = titled(root, layout.title, theme)?;
    let y = percent_axis();
    let (cols, rows) = panel_layout(panels.len(), layout.columns);
    let cells = body.split_evenly((rows, cols));
    let key_h = key_height(key_rows(panels));
    for ((panel, cell), x) in panels.iter().zip(cells.iter()).zip(layout.x) {
        let (_, cell_h) = cell.dim_in_pixel();
        let (area, key_area) = cell.split_vertically(cell_h.saturating_sub(key_h));
        let caption = caption(panel);
        let mut chart = cartesian(&area, Some(&caption), x, &y, FRAME, false, theme)?;
        draw_change_frame(&mut chart, x, layout.x_desc, layout.y_desc, theme)?;
        let key = curves(panel, &mut chart)?;
        panel_key(&key_area, &key, theme)?;
    }
    Ok(())
}
