//! The XY chart: one or more series of measured points, y against x, as
//! lines with dots (a rate ratio against RTT, queue delay per arm), with
//! an optional shaded reference band of y (the target a figure is judged
//! against). The x axis is logarithmic when the x values are positive and
//! span a decade, as in the grid chart. Data come from a small CSV
//! ([`XyData::parse_csv`]), so that a bench script's table is the chart's
//! input.

use super::axes::{cartesian, de, key_height, panel_key, styled, text, Frame, TITLE_BAND};
use super::grid::XScale;
use super::style::Theme;
use super::Chart;
use crate::error::{Error, Result};
use crate::units::{format_number, nice_scale};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Points to chart: x values and one y column per series.
#[derive(Debug, Clone, PartialEq)]
pub struct XyData {
    /// The x axis description (the CSV's first header cell).
    pub x_label: String,
    /// Series names (the other header cells).
    pub series: Vec<String>,
    /// Rows: x, then one y per series (`None` for an empty cell).
    pub rows: Vec<(f64, Vec<Option<f64>>)>,
}

impl XyData {
    /// Parses `text`: a header `x label,series 1,series 2,...`, then rows
    /// of numbers (an empty cell is a missing point); `#` lines are
    /// comments. Errors name the line.
    pub fn parse_csv(text: &str) -> Result<XyData> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
        let (_, head) = lines
            .next()
            .ok_or_else(|| Error::Data("xy chart: no header line".to_string()))?;
        let mut cells = head.split(',').map(|c| c.trim().to_string());
        let x_label = cells.next().unwrap_or_default();
        let series: Vec<String> = cells.collect();
        if series.is_empty() {
            return Err(Error::Data(
                "xy chart: the header names no series (x label,series,...)".to_string(),
            ));
        }
        let mut rows = Vec::new();
        for (i, line) in lines {
            let cells: Vec<&str> = line.split(',').map(str::trim).collect();
            if cells.len() != series.len() + 1 {
                return Err(Error::Data(format!(
                    "xy chart: line {}: {} cells, the header has {}",
                    i + 1,
                    cells.len(),
                    series.len() + 1
                )));
            }
            let num = |c: &str| -> Result<f64> {
                c.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| {
                        Error::Data(format!("xy chart: line {}: not a number: {c:?}", i + 1))
                    })
            };
            let x = num(cells[0])?;
            let ys = cells[1..]
                .iter()
                .map(|c| {
                    if c.is_empty() {
                        Ok(None)
                    } else {
                        num(c).map(Some)
                    }
                })
                .collect::<Result<Vec<_>>>()?;
            rows.push((x, ys));
        }
        if rows.is_empty() {
            return Err(Error::Data("xy chart: no rows".to_string()));
        }
        rows.sort_by(|a, b| a.0.total_cmp(&b.0));
        Ok(XyData {
            x_label,
            series,
            rows,
        })
    }
}

/// y against x, one line per series.
#[derive(Debug, Clone)]
pub struct XyChart<'a> {
    data: &'a XyData,
    title: String,
    y_label: String,
    band: Option<(f64, f64)>,
    log_y: bool,
    linear_x: bool,
}

impl<'a> XyChart<'a> {
    /// A chart of `data` titled `title`, y described by `y_label`.
    pub fn new(data: &'a XyData, title: impl Into<String>, y_label: impl Into<String>) -> Self {
        XyChart {
            data,
            title: title.into(),
            y_label: y_label.into(),
            band: None,
            log_y: false,
            linear_x: false,
        }
    }

    /// Shades `lo..hi` of y: the reference band the points are judged by.
    pub fn band(mut self, lo: f64, hi: f64) -> Self {
        self.band = Some((lo.min(hi), lo.max(hi)));
        self
    }

    /// A linear x axis whatever the x values span (time series).
    pub fn linear_x(mut self, on: bool) -> Self {
        self.linear_x = on;
        self
    }

    /// A logarithmic y axis (positive values only).
    pub fn log_y(mut self, on: bool) -> Self {
        self.log_y = on;
        self
    }
}

const PLOT: (u32, u32) = (900, 520);

impl Chart for XyChart<'_> {
    fn size(&self) -> (u32, u32) {
        (
            PLOT.0,
            TITLE_BAND + PLOT.1 + key_height(self.data.series.len()),
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: Theme) -> Result<()> {
        let d = self.data;
        let xs: Vec<f64> = d.rows.iter().map(|r| r.0).collect();
        let x = if self.linear_x {
            XScale::linear(nice_scale(xs[0].min(0.0), xs[xs.len() - 1], 8))
        } else {
            XScale::of_shown(&xs)
        };
        let mut ys: Vec<f64> = d
            .rows
            .iter()
            .flat_map(|r| r.1.iter().flatten().copied())
            .collect();
        if let Some((lo, hi)) = self.band {
            ys.extend([lo, hi]);
        }
        if self.log_y && ys.iter().any(|v| *v <= 0.0) {
            return Err(Error::Data(
                "xy chart: a log y axis needs positive values".to_string(),
            ));
        }
        ys.sort_by(f64::total_cmp);
        let y = if self.log_y {
            XScale::log(ys[0], ys[ys.len() - 1])
        } else {
            let s = nice_scale(ys[0].min(0.0), ys[ys.len() - 1], 8);
            XScale::linear(s)
        };
        let (w, _) = root.dim_in_pixel();
        let (head, body) = root.split_vertically(TITLE_BAND);
        de(head.draw_text(
            &self.title,
            &text(18.0, theme.foreground()).pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Center,
                plotters::style::text_anchor::VPos::Center,
            )),
            (w as i32 / 2, TITLE_BAND as i32 / 2),
        ))?;
        let (area, key_area) = body.split_vertically(PLOT.1);
        let frame = Frame {
            left: 70,
            right: 0,
            bottom: 50,
            caption: None,
        };
        let mut chart = cartesian(&area, None, &x.scale(), &y.scale(), frame, false, theme)?;
        let fx = |v: &f64| format_number(x.value(*v));
        let fy = |v: &f64| format_number(y.value(*v));
        let mut m = chart.configure_mesh();
        styled(&mut m, theme)
            .x_label_formatter(&fx)
            .y_label_formatter(&fy)
            .x_desc(d.x_label.as_str())
            .y_desc(self.y_label.as_str());
        de(m.draw())?;
        if let Some((lo, hi)) = self.band {
            let (x0, x1) = (x.scale().lo, x.scale().hi);
            de(chart.draw_series(std::iter::once(Rectangle::new(
                [(x0, y.at(lo)), (x1, y.at(hi))],
                theme.better_tint().mix(0.25).filled(),
            ))))?;
        }
        let mut key = Vec::new();
        for (i, name) in d.series.iter().enumerate() {
            let colour = theme.series(i);
            let pts: Vec<(f64, f64)> = d
                .rows
                .iter()
                .filter_map(|(xv, ys)| ys[i].map(|yv| (x.at(*xv), y.at(yv))))
                .collect();
            de(chart.draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2))))?;
            de(chart.draw_series(pts.iter().map(|p| Circle::new(*p, 4, colour.filled()))))?;
            key.push((colour, name.clone()));
        }
        panel_key(&key_area, &key, theme)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_parses_with_missing_cells_and_names_bad_lines() {
        let d = XyData::parse_csv("# c\nRTT (ms),a,b\n20,1,\n10,0.5,2\n").unwrap();
        assert_eq!(d.x_label, "RTT (ms)");
        assert_eq!(d.series, ["a", "b"]);
        assert_eq!(d.rows[0], (10.0, vec![Some(0.5), Some(2.0)]));
        assert_eq!(d.rows[1], (20.0, vec![Some(1.0), None]));
        let e = XyData::parse_csv("x,a\n1,zz\n").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("zz"), "{e}");
        let e = XyData::parse_csv("x,a\n1,2,3\n").unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
        assert!(XyData::parse_csv("x\n1\n").is_err());
    }

    #[test]
    fn draws_to_svg_with_a_band_and_a_log_axis() {
        let d = XyData::parse_csv("RTT (ms),ratio\n10,0.6\n200,0.02\n").unwrap();
        let svg = super::super::to_svg(
            &XyChart::new(&d, "t", "ratio").band(0.5, 2.0).log_y(true),
            Theme::Light,
        )
        .unwrap();
        assert!(svg.contains("ratio"));
        assert!(super::super::to_svg(&XyChart::new(&d, "t", "y"), Theme::Dark).is_ok());
    }
}
