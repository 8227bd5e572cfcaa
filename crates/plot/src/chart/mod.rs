//! Charts: each is a value that draws itself onto any plotters backend, and
//! [`to_svg`] / [`save`] render it to an SVG string or a PNG/SVG file.
//!
//! - [`TimeSeqChart`]: one connection's time-sequence graph with RTT and
//!   queue panels.
//! - [`DeliveryChart`]: in-order bytes delivered over time, one line per
//!   trace, queue on a second axis.
//! - [`AbChart`]: percentile versus % change of TTLB, with bootstrap bands.
//! - [`PairedChart`]: CDF of per-path % change.
//! - [`GridChart`]: TTLB and packets lost against a grid axis, per arm.
//! - [`XyChart`]: y against x from a CSV, one line per series.
//! - [`TornadoChart`]: a figure's one-at-a-time sensitivity, one bar per
//!   parameter.

pub mod ab;
mod axes;
mod change;
mod fit;
#[cfg(test)]
mod long_names;
#[cfg(test)]
pub(crate) use fit::tests::overflowing as overflowing_text;
pub mod delivery;
pub mod grid;
pub mod paired;
pub mod style;
pub mod thin;
pub mod timeseq;
pub mod tornado;
pub mod xy;

pub use ab::AbChart;
pub use axes::MAX_COLUMNS;
pub(crate) use axes::PANEL;
pub use delivery::DeliveryChart;
pub use grid::GridChart;
pub use paired::PairedChart;

pub use style::Theme;
pub use timeseq::TimeSeqChart;
pub use tornado::{TornadoBar, TornadoChart};
pub use xy::{XyChart, XyData};

use crate::error::{Error, Result};
use crate::output::with_temp_file;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// A chart that can draw itself.
pub trait Chart {
    /// Width and height in pixels that suit the chart.
    fn size(&self) -> (u32, u32);

    /// Draws onto `root` (already filled with the theme's background).
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: Theme) -> Result<()>;
}

/// Output format, chosen by file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Portable Network Graphics.
    Png,
    /// Scalable Vector Graphics.
    Svg,
}

impl Format {
    /// The format of `path` by its extension (`.png` or `.svg`, any case).
    pub fn of_path(path: &Path) -> Result<Format> {
        match path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .as_deref()
        {
            Some("png") => Ok(Format::Png),
            Some("svg") => Ok(Format::Svg),
            _ => Err(Error::Data(format!(
                "{}: output must end in .png or .svg",
                path.display()
            ))),
        }
    }
}

fn draw_err<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> Error {
    Error::draw(e)
}

/// Renders `chart` to an SVG document.
pub fn to_svg(chart: &impl Chart, theme: Theme) -> Result<String> {
    style::register_font();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, chart.size()).into_drawing_area();
        root.fill(&theme.background()).map_err(draw_err)?;
        chart.draw(&root, theme)?;
        root.present().map_err(draw_err)?;
    }
    Ok(svg)
}

/// Renders `chart` to `path` (PNG or SVG by extension). The file appears
/// whole or not at all.
pub fn save(chart: &impl Chart, path: &Path, theme: Theme) -> Result<()> {
    match Format::of_path(path)? {
        Format::Svg => {
            let svg = to_svg(chart, theme)?;
            crate::output::write_atomic(path, svg.as_bytes())
        }
        Format::Png => {
            style::register_font();
            with_temp_file(path, |tmp| {
                // Creating the file first turns an unwritable path into a
                // plain I/O error instead of an encoder error after drawing.
                std::fs::File::create(tmp).map_err(|e| Error::io(path, &e))?;
                let root = BitMapBackend::new(tmp, chart.size()).into_drawing_area();
                root.fill(&theme.background()).map_err(draw_err)?;
                chart.draw(&root, theme)?;
                root.present().map_err(draw_err)
            })
        }
    }
}
