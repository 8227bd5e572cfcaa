//! The grid chart: TTLB against one axis of a path grid (loss rate, rate,
//! RTT, queue or object size), one line per arm, with a second panel of
//! packets lost per connection on the same x axis — the form of the lab
//! matrix in the CUBIC/HyStart++ talk (download time
//! per loss rate, lower is better, and the packets HyStart++ saves).
//!
//! Top panel: the TTLB median per arm and value (line and dots), its
//! p10–p90 band shaded. Bottom panel: mean packets lost per connection.
//! The x axis is logarithmic when every value is positive and they span
//! at least a decade (rates, sizes), else linear (loss from 0 %); with a
//! log x axis, the TTLB axis is logarithmic too when TTLB spans two
//! decades (object sizes).
//!
//! Arms often coincide (CUBIC with and without HyStart++ once random loss
//! ends slow start before any delay rise), so lines are drawn thick under
//! thin: the first arm widest, each later one narrower on top, and an arm
//! hidden under another still shows as a coloured edge.

use super::axes::{de, key_height, panel_key, ranged, styled, text, Coord, TITLE_BAND};
use super::style::Theme;
use super::Chart;
use crate::error::{Error, Result};
use crate::grid::{GridAxis, GridResult};
use crate::units::{
    format_bytes, format_ms, format_number, nice_scale, time_unit, AxisUnit, Scale,
};
use plotters::coord::Shift;
use plotters::prelude::*;

/// TTLB and packets lost against a grid axis, per arm.
#[derive(Debug, Clone)]
pub struct GridChart<'a> {
    result: &'a GridResult,
    title: Option<String>,
    subtitle: Option<String>,
}

impl<'a> GridChart<'a> {
    /// A chart of `result`.
    pub fn new(result: &'a GridResult) -> Self {
        GridChart {
            result,
            title: None,
            subtitle: None,
        }
    }

    /// Replaces the title (the default names what is charted).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Replaces the line under the title (the default gives the scenario:
    /// the axes that do not vary).
    pub fn subtitle(mut self, subtitle: impl Into<String>) -> Self {
        self.subtitle = Some(subtitle.into());
        self
    }

    /// The default title: what is charted against which axis.
    pub fn default_title(r: &GridResult) -> String {
        let mut axis = r.axis.describe().to_string();
        if let Some(i) = axis.find(" (") {
            axis.truncate(i);
        }
        format!("TTLB and packets lost against {axis}")
    }

    /// The default subtitle: the fixed axes, e.g. `100 Mbit/s, 40 ms RTT`.
    pub fn default_subtitle(r: &GridResult) -> String {
        r.describe_fixed()
    }
}

/// Stroke width of arm `i` of `n`: thick under thin (module docs).
fn line_width(i: usize, n: usize) -> u32 {
    2 + 2 * (n.saturating_sub(1).saturating_sub(i)).min(3) as u32
}

/// Whether the x axis is logarithmic: every value positive, spanning a decade.
fn log_x(values: &[f64]) -> bool {
    match (values.first(), values.last()) {
        (Some(&lo), Some(&hi)) => lo > 0.0 && hi / lo >= 10.0,
        _ => false,
    }
}

/// The x scale in plot coordinates (display units, or their log10) and
/// the function from display units to plot coordinates.
pub(super) struct XScale {
    log: bool,
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl XScale {
    fn new(axis: GridAxis, values: &[f64]) -> XScale {
        let shown: Vec<f64> = values.iter().map(|&v| axis.to_display(v)).collect();
        XScale::of_shown(&shown)
    }

    /// The scale of sorted display values: log when they span a decade.
    pub(super) fn of_shown(shown: &[f64]) -> XScale {
        let (lo, hi) = (
            shown.first().copied().unwrap_or(0.0),
            shown.last().copied().unwrap_or(1.0),
        );
        if log_x(shown) {
            XScale::log(lo, hi)
        } else {
            // From 0 (lower is better reads off a common origin), padded
            // so that the end points' dots are not cut by the frame.
            let s = nice_scale(lo.min(0.0), hi, 8);
            let pad = (s.hi - s.lo) * 0.03;
            XScale {
                log: false,
                lo: s.lo - pad,
                hi: s.hi + pad,
                ticks: s.ticks,
            }
        }
    }

    /// A log axis over `[lo, hi]` (positive), padded by 8 % of a decade
    /// each side, ticks at 1, 2, 5 × 10^k (only 10^k past three decades).
    pub(super) fn log(lo: f64, hi: f64) -> XScale {
        let (l, h) = (lo.log10() - 0.08, hi.log10() + 0.08);
        let mantissas: &[f64] = if h - l > 3.0 {
            &[1.0]
        } else {
            &[1.0, 2.0, 5.0]
        };
        let mut ticks = Vec::new();
        for k in (l.floor() as i32)..=(h.ceil() as i32) {
            for m in mantissas {
                let t = (m * 10f64.powi(k)).log10();
                if t >= l && t <= h {
                    ticks.push(t);
                }
            }
        }
        XScale {
            log: true,
            lo: l,
            hi: h,
            ticks,
        }
    }

    /// A linear axis on the ticks of `s`.
    pub(super) fn linear(s: Scale) -> XScale {
        XScale {
            log: false,
            lo: s.lo,
            hi: s.hi,
            ticks: s.ticks,
        }
    }

    pub(super) fn at(&self, shown: f64) -> f64 {
        if self.log {
            shown.log10()
        } else {
            shown
        }
    }

    pub(super) fn scale(&self) -> Scale {
        Scale {
            lo: self.lo,
            hi: self.hi,
            ticks: self.ticks.clone(),
            step: 0.0,
        }
    }

    /// The display value at plot coordinate `coord`.
    pub(super) fn value(&self, coord: f64) -> f64 {
        if self.log {
            10f64.powf(coord)
        } else {
            coord
        }
    }

    fn label(&self, axis: GridAxis, coord: f64) -> String {
        let v = if self.log { 10f64.powf(coord) } else { coord };
        match axis {
            GridAxis::Size => format_bytes(v),
            _ => format_number(v),
        }
    }
}

/// Left margin for y labels and description.
const LEFT: u32 = 70;
/// Height of the TTLB panel and the packets-lost panel.
const TOP_PANEL: u32 = 430;
const BOTTOM_PANEL: u32 = 250;
/// Title and subtitle band.
const HEAD: u32 = TITLE_BAND + 18;

impl Chart for GridChart<'_> {
    fn size(&self) -> (u32, u32) {
        (
            900,
            HEAD + TOP_PANEL + BOTTOM_PANEL + key_height(self.result.series.len()),
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: Theme) -> Result<()> {
        let r = self.result;
        if r.series.is_empty() {
            return Err(Error::Data("grid chart: no series".to_string()));
        }
        let (head, body) = root.split_vertically(HEAD);
        self.draw_head(&head, theme)?;
        let (top, rest) = body.split_vertically(TOP_PANEL);
        let (bottom, key_area) = rest.split_vertically(BOTTOM_PANEL);
        let scales = Scales::new(r);
        draw_ttlb_panel(&top, r, &scales, theme)?;
        draw_lost_panel(&bottom, r, &scales, theme)?;
        panel_key(&key_area, &key_entries(r, theme), theme)
    }
}

impl GridChart<'_> {
    /// The title and the line under it, centred.
    fn draw_head<DB: DrawingBackend>(
        &self,
        head: &DrawingArea<DB, Shift>,
        theme: Theme,
    ) -> Result<()> {
        let r = self.result;
        let title = self
            .title
            .clone()
            .unwrap_or_else(|| GridChart::default_title(r));
        let subtitle = self
            .subtitle
            .clone()
            .unwrap_or_else(|| GridChart::default_subtitle(r));
        let (w, _) = head.dim_in_pixel();
        let centre = plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Center,
        );
        de(head.draw_text(
            &title,
            &text(18.0, theme.foreground()).pos(centre),
            (w as i32 / 2, 20),
        ))?;
        de(head.draw_text(
            &subtitle,
            &text(15.0, theme.foreground()).pos(centre),
            (w as i32 / 2, 44),
        ))?;
        Ok(())
    }
}

/// The axes both panels share (x) and each panel's own y.
struct Scales {
    x: XScale,
    /// TTLB: linear in `unit`, or log10 of milliseconds.
    y: XScale,
    unit: AxisUnit,
    lost: Scale,
}

impl Scales {
    fn new(r: &GridResult) -> Scales {
        let x = XScale::new(r.axis, &r.values);
        let pts = || r.series.iter().flat_map(|s| &s.points);
        let ttlb_max = pts()
            .flat_map(|p| [p.ttlb_p90_ms, p.ttlb_median_ms])
            .filter(|v| v.is_finite())
            .fold(0.0f64, f64::max);
        let ttlb_min = pts()
            .flat_map(|p| [p.ttlb_p10_ms, p.ttlb_median_ms])
            .filter(|v| v.is_finite())
            .fold(f64::INFINITY, f64::min);
        // On a log x axis (sizes, rates), TTLB spanning two decades reads
        // on a log axis too; against loss it stays linear, as the talk's
        // chart, where the gap between arms is the point.
        let unit = time_unit(ttlb_max);
        let y = if x.log && ttlb_min > 0.0 && ttlb_max / ttlb_min >= 100.0 {
            XScale::log(ttlb_min, ttlb_max)
        } else {
            let s = nice_scale(0.0, ttlb_max / unit.divisor, 6);
            XScale {
                log: false,
                lo: s.lo,
                hi: s.hi,
                ticks: s.ticks,
            }
        };
        let lost_max = pts()
            .map(|p| p.lost_mean)
            .filter(|v| v.is_finite())
            .fold(0.0f64, f64::max);
        Scales {
            x,
            y,
            unit,
            lost: nice_scale(0.0, lost_max, 4),
        }
    }

    /// A TTLB in milliseconds on the y axis.
    fn y_at(&self, ms: f64) -> f64 {
        if self.y.log {
            ms.log10()
        } else {
            ms / self.unit.divisor
        }
    }
}

/// The TTLB panel: each arm's p10–p90 band, then every median line.
fn draw_ttlb_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    r: &GridResult,
    sc: &Scales,
    theme: Theme,
) -> Result<()> {
    let (x, y) = (&sc.x, &sc.y);
    let n_per_point = r
        .series
        .iter()
        .flat_map(|s| &s.points)
        .map(|p| p.connections)
        .max()
        .unwrap_or(0);
    let mut caption = format!("TTLB: median per arm, band p10–p90 (n ≤ {n_per_point} per point)");
    if !r.pooled.is_empty() {
        caption.push_str(&format!("; pooled over {}", r.describe_pooled()));
    }
    let fx = |v: &f64| x.label(r.axis, *v);
    let fy_ttlb = |v: &f64| {
        if y.log {
            format_ms(10f64.powf(*v))
        } else {
            format_number(*v)
        }
    };
    let n_arms = r.series.len();
    let mut chart = de(ChartBuilder::on(area)
        .margin_top(8)
        .margin_left(14)
        .margin_right(24)
        .caption(&caption, text(14.0, theme.foreground()))
        .x_label_area_size(28)
        .y_label_area_size(LEFT)
        .build_cartesian_2d(ranged(&x.scale()), ranged(&y.scale())))?;
    let mut m = chart.configure_mesh();
    styled(&mut m, theme)
        .x_label_formatter(&fx)
        .y_label_formatter(&fy_ttlb)
        .y_desc(if y.log {
            "TTLB (log scale)".to_string()
        } else {
            format!("TTLB ({})", sc.unit.suffix)
        });
    de(m.draw())?;
    // Bands first, all of them, so no band covers another arm's line.
    let mut medians = Vec::new();
    for (i, s) in r.series.iter().enumerate() {
        let c = theme.series(i);
        let ok: Vec<_> = s
            .points
            .iter()
            .filter(|p| p.ttlb_median_ms.is_finite())
            .collect();
        let at = |p: &crate::grid::GridPoint, v: f64| (x.at(r.axis.to_display(p.x)), sc.y_at(v));
        if ok.len() > 1 {
            let band: Vec<(f64, f64)> = ok
                .iter()
                .map(|p| at(p, p.ttlb_p10_ms))
                .chain(ok.iter().rev().map(|p| at(p, p.ttlb_p90_ms)))
                .collect();
            de(chart.draw_series(std::iter::once(Polygon::new(
                band,
                c.mix(theme.band_alpha() * 0.7).filled(),
            ))))?;
        } else if let Some(p) = ok.first() {
            // One value: the band as an error bar.
            de(chart.draw_series(std::iter::once(PathElement::new(
                vec![at(p, p.ttlb_p10_ms), at(p, p.ttlb_p90_ms)],
                c.stroke_width(2),
            ))))?;
        }
        let line: Vec<(f64, f64)> = ok.iter().map(|p| at(p, p.ttlb_median_ms)).collect();
        medians.push((c, line_width(i, n_arms), line));
    }
    for (c, width, line) in medians {
        draw_line(&mut chart, line, c, width)?;
    }
    Ok(())
}

/// The packets-lost panel, on the TTLB panel's x axis.
fn draw_lost_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    r: &GridResult,
    sc: &Scales,
    theme: Theme,
) -> Result<()> {
    let x = &sc.x;
    let fx = |v: &f64| x.label(r.axis, *v);
    let fy = |v: &f64| format_number(*v);
    let n_arms = r.series.len();
    let mut chart = de(ChartBuilder::on(area)
        .margin_top(4)
        .margin_left(14)
        .margin_right(24)
        .caption(
            "packets lost per connection (mean)",
            text(14.0, theme.foreground()),
        )
        .x_label_area_size(44)
        .y_label_area_size(LEFT)
        .build_cartesian_2d(ranged(&x.scale()), ranged(&sc.lost)))?;
    let mut m = chart.configure_mesh();
    styled(&mut m, theme)
        .x_label_formatter(&fx)
        .y_label_formatter(&fy)
        .x_desc(r.axis.describe())
        .y_desc("packets lost");
    de(m.draw())?;
    for (i, s) in r.series.iter().enumerate() {
        let line: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|p| p.lost_mean.is_finite())
            .map(|p| (x.at(r.axis.to_display(p.x)), p.lost_mean))
            .collect();
        draw_line(&mut chart, line, theme.series(i), line_width(i, n_arms))?;
    }
    Ok(())
}

/// The key: each arm's colour and connection count.
fn key_entries(r: &GridResult, theme: Theme) -> Vec<(RGBColor, String)> {
    r.series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let n: usize = s.points.iter().map(|p| p.connections).sum();
            let done: usize = s.points.iter().map(|p| p.completed).sum();
            let label = if done == n {
                format!("{} ({n} connections)", s.arm)
            } else {
                format!("{} ({n} connections, {} did not complete)", s.arm, n - done)
            };
            (theme.series(i), label)
        })
        .collect()
}

/// A line with a dot at each point, `width` pixels wide.
fn draw_line<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Coord>,
    line: Vec<(f64, f64)>,
    colour: RGBColor,
    width: u32,
) -> Result<()> {
    de(chart.draw_series(LineSeries::new(line.clone(), colour.stroke_width(width))))?;
    de(chart.draw_series(
        line.into_iter()
            .map(|p| Circle::new(p, width + 2, colour.filled())),
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_only_for_positive_values_spanning_a_decade() {
        assert!(!log_x(&[0.0, 1.0, 8.0]));
        assert!(!log_x(&[10.0, 40.0]));
        assert!(log_x(&[10.0, 100.0]));
        assert!(log_x(&[1e4, 1e7]));
        assert_eq!(
            (line_width(0, 3), line_width(1, 3), line_width(2, 3)),
            (6, 4, 2)
        );
        assert_eq!(line_width(0, 1), 2);
        let s = XScale::new(GridAxis::Size, &[1e4, 1e6]);
        assert!(s.log);
        assert_eq!(s.label(GridAxis::Size, 5.0), "100 KB");
        let s = XScale::new(GridAxis::Loss, &[0.0, 0.08]);
        assert!(!s.log);
        assert_eq!(s.ticks.first(), Some(&0.0));
        assert_eq!(s.ticks.last(), Some(&8.0));
    }
}
