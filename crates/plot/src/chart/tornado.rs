//! A tornado chart: one horizontal bar per parameter from the figure at the
//! low end of its range to the figure at the high end, around the base
//! value, largest span on top (`ramp fleet --sensitivity`,
//! docs/sensitivity.md).

use super::axes::{de, text};
use super::style::Theme;
use super::Chart;
use crate::error::{Error, Result};
use crate::units::nice_scale;
use plotters::coord::Shift;
use plotters::prelude::*;

/// One bar: a parameter and the figure at its range's two ends.
#[derive(Debug, Clone, PartialEq)]
pub struct TornadoBar {
    /// Parameter name (the bar's label).
    pub label: String,
    /// The figure with the parameter at the low end of its range.
    pub at_low: f64,
    /// The figure with the parameter at the high end.
    pub at_high: f64,
}

/// A tornado chart of a figure's one-at-a-time sensitivity.
#[derive(Debug, Clone)]
pub struct TornadoChart {
    /// Title.
    pub title: String,
    /// The x axis's description (the figure and its unit).
    pub x_desc: String,
    /// The figure with every parameter at its value.
    pub base: f64,
    /// The bars, drawn top to bottom in this order.
    pub bars: Vec<TornadoBar>,
}

const ROW: u32 = 44;
const HEAD: u32 = 60;
const FOOT: u32 = 70;
const LABEL_AREA: u32 = 260;

impl Chart for TornadoChart {
    fn size(&self) -> (u32, u32) {
        (960, HEAD + FOOT + ROW * self.bars.len().max(1) as u32)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: Theme) -> Result<()> {
        if self.bars.is_empty() {
            return Err(Error::Data("tornado chart: no bars".to_string()));
        }
        let (lo, hi) = self
            .bars
            .iter()
            .flat_map(|b| [b.at_low, b.at_high])
            .chain([self.base])
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
        let x = nice_scale(lo, hi, 8);
        let n = self.bars.len();
        let mut b = ChartBuilder::on(root);
        b.margin(12)
            .margin_right(30)
            .caption(&self.title, text(18.0, theme.foreground()))
            .x_label_area_size(50)
            .y_label_area_size(LABEL_AREA);
        let mut chart = de(b.build_cartesian_2d(x.lo..x.hi, 0.0..n as f64))?;
        de(chart
            .configure_mesh()
            .axis_style(theme.foreground())
            .bold_line_style(theme.grid())
            .light_line_style(TRANSPARENT)
            .disable_y_mesh()
            .y_labels(0)
            .x_labels(x.ticks.len())
            .x_label_formatter(&|v| crate::units::format_number(*v))
            .label_style(text(13.0, theme.foreground()))
            .axis_desc_style(text(14.0, theme.foreground()))
            .x_desc(self.x_desc.as_str())
            .draw())?;
        let low = theme.series(0);
        let high = theme.series(1);
        for (i, bar) in self.bars.iter().enumerate() {
            let y0 = n as f64 - i as f64 - 0.8;
            let y1 = n as f64 - i as f64 - 0.2;
            for (v, colour) in [(bar.at_low, low), (bar.at_high, high)] {
                if !v.is_finite() {
                    continue;
                }
                de(chart.draw_series(std::iter::once(Rectangle::new(
                    [(self.base.min(v), y0), (self.base.max(v), y1)],
                    colour.mix(0.85).filled(),
                ))))?;
            }
        }
        // Labels right-aligned left of the plot, at each bar's centre.
        let right = plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Right,
            plotters::style::text_anchor::VPos::Center,
        );
        for (i, bar) in self.bars.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(x.lo, n as f64 - i as f64 - 0.5));
            de(root.draw_text(
                &bar.label,
                &text(13.0, theme.foreground()).pos(right),
                (px - 8, py),
            ))?;
        }
        de(chart.draw_series(std::iter::once(PathElement::new(
            vec![(self.base, 0.0), (self.base, n as f64)],
            theme.foreground().stroke_width(2),
        ))))?;
        de(chart.draw_series(std::iter::once(Rectangle::new(
            [(self.base, 0.0), (self.base, 0.0)],
            low.filled(),
        ))))?
        .label("parameter at the low end of its range")
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], low.filled()));
        de(chart.draw_series(std::iter::once(Rectangle::new(
            [(self.base, 0.0), (self.base, 0.0)],
            high.filled(),
        ))))?
        .label("at the high end")
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], high.filled()));
        de(chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(theme.background().mix(0.9))
            .border_style(theme.grid())
            .label_font(text(12.0, theme.foreground()))
            .draw())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_bars_around_the_base_and_refuses_none() {
        let c = TornadoChart {
            title: "t".into(),
            x_desc: "gain (%)".into(),
            base: -20.0,
            bars: vec![
                TornadoBar {
                    label: "a".into(),
                    at_low: -25.0,
                    at_high: -15.0,
                },
                TornadoBar {
                    label: "b".into(),
                    at_low: -21.0,
                    at_high: -19.0,
                },
            ],
        };
        let svg = super::super::to_svg(&c, Theme::Light).unwrap();
        assert!(
            svg.contains(">\na\n<") && svg.contains(">\nb\n<"),
            "labels drawn"
        );
        // Background, four half-bars, two legend swatches and their frame.
        assert!(svg.matches("<rect").count() >= 5, "{svg}");
        let empty = TornadoChart { bars: vec![], ..c };
        assert!(super::super::to_svg(&empty, Theme::Light).is_err());
    }
}
