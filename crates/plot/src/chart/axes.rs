//! Shared plumbing for the charts: cartesian areas with our ticks and
//! units, text styles, legends and step lines.

use super::style::{Theme, FONT};
use crate::error::{Error, Result};
use crate::units::{format_number, AxisUnit, Scale};
use plotters::chart::{MeshStyle, SecondaryMeshStyle};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

/// The coordinate system every chart uses: f64 on both axes with explicit
/// nice ticks.
pub(crate) type Coord = Cartesian2d<TickedAxis, TickedAxis>;

/// A linear f64 axis whose ticks are exactly the scale's ticks (plotters'
/// own choice of key points ignores our 1-2-5 steps and units).
#[derive(Clone)]
pub(crate) struct TickedAxis {
    inner: RangedCoordf64,
    ticks: Vec<f64>,
}

impl Ranged for TickedAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }
}

/// A plotters result into ours.
pub(crate) fn de<T, E: std::error::Error + Send + Sync>(
    r: std::result::Result<T, DrawingAreaErrorKind<E>>,
) -> Result<T> {
    r.map_err(Error::draw)
}

/// A text style in the bundled font.
pub(crate) fn text(size: f64, colour: RGBColor) -> TextStyle<'static> {
    let base = TextStyle::from((FONT, size).into_font());
    TextStyle {
        color: colour.to_backend_color(),
        ..base
    }
}

/// A ranged axis from a scale.
pub(crate) fn ranged(s: &Scale) -> TickedAxis {
    TickedAxis {
        inner: (s.lo..s.hi).into(),
        ticks: s.ticks.clone(),
    }
}

/// Margins (pixels) shared by panels that must line up.
#[derive(Clone, Copy)]
pub(crate) struct Frame {
    pub left: u32,
    pub right: u32,
    pub bottom: u32,
    pub caption: Option<f64>,
}

/// Builds a chart on `area` with `x` and `y` scales. With `secondary`
/// false the right label area stays empty margin, so that panels stacked
/// above a dual-axis panel keep the same plot width.
pub(crate) fn cartesian<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    caption: Option<&str>,
    x: &Scale,
    y: &Scale,
    frame: Frame,
    secondary: bool,
    theme: Theme,
) -> Result<ChartContext<'a, DB, Coord>> {
    let mut b = ChartBuilder::on(area);
    // The left margin keeps the rotated axis description inside the image.
    b.margin_top(8)
        .margin_left(14)
        .x_label_area_size(frame.bottom)
        .y_label_area_size(frame.left);
    if secondary {
        b.margin_right(16).right_y_label_area_size(frame.right);
    } else {
        b.margin_right(12 + frame.right);
    }
    if let (Some(c), Some(size)) = (caption, frame.caption) {
        let (w, _) = area.dim_in_pixel();
        b.caption(
            super::fit::ellipsize(c, w.saturating_sub(16), size),
            text(size, theme.foreground()),
        );
    }
    de(b.build_cartesian_2d(ranged(x), ranged(y)))
}

/// The charts' mesh style: axes and labels in the theme's foreground and
/// the bundled font, grid lines at the ticks only. Callers add formatters
/// and axis descriptions, then draw.
pub(crate) fn styled<'m, 'a, 'b, DB: DrawingBackend>(
    m: &'m mut MeshStyle<'a, 'b, TickedAxis, TickedAxis, DB>,
    theme: Theme,
) -> &'m mut MeshStyle<'a, 'b, TickedAxis, TickedAxis, DB> {
    m.axis_style(theme.foreground())
        .bold_line_style(theme.grid())
        .light_line_style(TRANSPARENT)
        .label_style(text(13.0, theme.foreground()))
        .axis_desc_style(text(14.0, theme.foreground()))
}

/// [`styled`] for a secondary (right) axis.
pub(crate) fn styled_secondary<'m, 'a, 'b, DB: DrawingBackend>(
    m: &'m mut SecondaryMeshStyle<'a, 'b, TickedAxis, TickedAxis, DB>,
    theme: Theme,
) -> &'m mut SecondaryMeshStyle<'a, 'b, TickedAxis, TickedAxis, DB> {
    m.axis_style(theme.foreground())
        .label_style(text(13.0, theme.foreground()))
        .axis_desc_style(text(14.0, theme.foreground()))
}

/// Draws the mesh with unit-aware labels.
pub(crate) fn mesh<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Coord>,
    x_desc: &str,
    x_unit: AxisUnit,
    y_desc: &str,
    y_unit: AxisUnit,
    theme: Theme,
    show_x_labels: bool,
) -> Result<()> {
    let fx = move |v: &f64| format_number(v / x_unit.divisor);
    let fy = move |v: &f64| format_number(v / y_unit.divisor);
    let mut m = chart.configure_mesh();
    styled(&mut m, theme)
        .x_label_formatter(&fx)
        .y_label_formatter(&fy)
        .y_desc(y_desc);
    if show_x_labels {
        m.x_desc(x_desc);
    } else {
        m.x_label_formatter(&|_| String::new());
    }
    de(m.draw())
}

/// Draws the legend of `chart` at `pos`.
pub(crate) fn legend<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    pos: SeriesLabelPosition,
    theme: Theme,
) -> Result<()> {
    de(chart
        .configure_series_labels()
        .position(pos)
        .background_style(theme.background().mix(0.88))
        .border_style(theme.grid())
        .label_font(text(13.0, theme.foreground()))
        .draw())
}

/// A legend entry's line sample: 20 px of `colour`, 2 px wide whatever
/// the series' own width, so a thin series still shows in the key.
pub(crate) fn line_swatch(colour: RGBColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(a, b)| PathElement::new([(a, b), (a + 20, b)], colour.stroke_width(2))
}

/// A step line through `points` (sorted by x): each value holds until the
/// next sample.
pub(crate) fn steps(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2);
    for (i, &(x, y)) in points.iter().enumerate() {
        if i > 0 {
            out.push((x, points[i - 1].1));
        }
        out.push((x, y));
    }
    out
}

/// A centred note in an empty panel.
pub(crate) fn note<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    message: &str,
    theme: Theme,
) -> Result<()> {
    let (w, h) = area.dim_in_pixel();
    let style = text(14.0, theme.foreground()).pos(plotters::style::text_anchor::Pos::new(
        plotters::style::text_anchor::HPos::Center,
        plotters::style::text_anchor::VPos::Center,
    ));
    de(area.draw_text(message, &style, (w as i32 / 2, h as i32 / 2)))
}

/// The most panels a small-multiples chart puts side by side unless told
/// fewer: three 540-pixel panels make a 1620-pixel image, for a file viewed at
/// its own size.
pub const MAX_COLUMNS: usize = 3;

/// Columns and rows of a small-multiples layout for `n` panels, at most
/// `max_cols` (at least 1) side by side.
pub(crate) fn panel_layout(n: usize, max_cols: usize) -> (usize, usize) {
    let cols = n.clamp(1, max_cols.max(1));
    (cols, n.max(1).div_ceil(cols))
}

/// Pixel size of one small-multiple panel.
pub(crate) const PANEL: (u32, u32) = (540, 430);
/// Pixel height of a chart's title band.
pub(crate) const TITLE_BAND: u32 = 44;

/// Height of one row of a panel key.
pub(crate) const KEY_ROW: u32 = 17;

/// Height of a panel key of `rows` entries.
pub(crate) fn key_height(rows: usize) -> u32 {
    if rows == 0 {
        0
    } else {
        KEY_ROW * rows as u32 + 8
    }
}

/// Size of a small-multiples chart of `n` panels, at most `max_cols` side
/// by side, each with a key of `key_rows` entries under it.
pub(crate) fn panel_canvas_size(n: usize, key_rows: usize, max_cols: usize) -> (u32, u32) {
    let (c, r) = panel_layout(n, max_cols);
    (
        (PANEL.0 * c as u32).max(760),
        (PANEL.1 + key_height(key_rows)) * r as u32 + TITLE_BAND,
    )
}

/// Draws a key under a panel: one row per entry, a line swatch in the
/// entry's colour and its text. Keys sit outside the plot so they never
/// hide data (a legend inside an A/B panel covers the low percentiles).
pub(crate) fn panel_key<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(RGBColor, String)],
    theme: Theme,
) -> Result<()> {
    let left = 14 + 62; // aligned with the plot's left edge
    let (w, _) = area.dim_in_pixel();
    let room = w.saturating_sub(left as u32 + 30 + 8);
    for (i, (colour, label)) in entries.iter().enumerate() {
        let label = &super::fit::ellipsize(label, room, 13.0);
        let y = 4 + KEY_ROW as i32 * i as i32 + KEY_ROW as i32 / 2;
        de(area.draw(&PathElement::new(
            vec![(left, y), (left + 22, y)],
            colour.stroke_width(3),
        )))?;
        let style = text(13.0, theme.foreground()).pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Left,
            plotters::style::text_anchor::VPos::Center,
        ));
        de(area.draw_text(label, &style, (left + 30, y)))?;
    }
    Ok(())
}

/// A signed percentage: `+3.2%`, `−14.7%` (with a true minus sign).
pub(crate) fn signed_pct(v: f64) -> String {
    let s = format!("{:+.1}%", v);
    s.replacen('-', "−", 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panel_layouts_have_at_most_three_columns() {
        assert_eq!(panel_layout(1, MAX_COLUMNS), (1, 1));
        assert_eq!(panel_layout(3, MAX_COLUMNS), (3, 1));
        assert_eq!(panel_layout(4, MAX_COLUMNS), (3, 2));
        assert_eq!(panel_layout(7, MAX_COLUMNS), (3, 3));
        assert_eq!(panel_layout(0, MAX_COLUMNS), (1, 1));
        assert_eq!(panel_layout(7, 2), (2, 4));
        assert_eq!(panel_layout(7, 0), (1, 7));
        assert_eq!(signed_pct(-14.66), "−14.7%");
        assert_eq!(signed_pct(3.0), "+3.0%");
    }

    #[test]
    fn step_line_holds_values() {
        let s = steps(&[(0.0, 1.0), (2.0, 3.0), (5.0, 0.0)]);
        assert_eq!(
            s,
            vec![(0.0, 1.0), (2.0, 1.0), (2.0, 3.0), (5.0, 3.0), (5.0, 0.0)]
        );
        assert!(steps(&[]).is_empty());
    }
}
