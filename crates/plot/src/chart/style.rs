//! Colours, theme and the bundled font.
//!
//! Series colours come from the Okabe–Ito palette (Okabe & Ito 2008), which
//! stays distinguishable under the common colour-vision deficiencies. The
//! acked-dot gold is the darker `#c9a000` (docs/charts.md) so
//! it holds up on white.

use plotters::style::RGBColor;
use std::sync::Once;

/// Okabe–Ito colours, minus black and yellow (kept for the time-sequence
/// dots), in the order arms and algorithms are coloured.
pub const SERIES: [RGBColor; 6] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
];

/// The same Okabe–Ito colours ordered for a dark page, lightest first
/// (the blue and vermillion lose contrast on near-black).
pub const SERIES_DARK: [RGBColor; 6] = [
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0xF0, 0xE4, 0x42), // yellow
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
];

/// Acknowledged bytes: dark gold.
pub const ACKED: RGBColor = RGBColor(0xC9, 0xA0, 0x00);
/// Lost packets: vermillion (Okabe–Ito's red).
pub const LOST: RGBColor = RGBColor(0xD5, 0x5E, 0x00);
/// Retransmissions: sky blue.
pub const RETX: RGBColor = RGBColor(0x56, 0xB4, 0xE9);
/// Congestion window: bluish green.
pub const CWND: RGBColor = RGBColor(0x00, 0x9E, 0x73);
/// Bytes in flight: reddish purple.
pub const INFLIGHT: RGBColor = RGBColor(0xCC, 0x79, 0xA7);
/// Queue: vermillion.
pub const QUEUE: RGBColor = RGBColor(0xD5, 0x5E, 0x00);
/// RTT lines: min blue, smoothed green, latest orange.
pub const RTT_MIN: RGBColor = RGBColor(0x00, 0x72, 0xB2);
/// Smoothed RTT.
pub const RTT_SMOOTHED: RGBColor = RGBColor(0x00, 0x9E, 0x73);
/// Latest RTT.
pub const RTT_LATEST: RGBColor = RGBColor(0xE6, 0x9F, 0x00);

/// Page colours of a chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    /// Dark text on white.
    #[default]
    Light,
    /// Light text on near-black.
    Dark,
}

impl Theme {
    /// Background.
    pub fn background(self) -> RGBColor {
        match self {
            Theme::Light => RGBColor(0xFF, 0xFF, 0xFF),
            Theme::Dark => RGBColor(0x16, 0x19, 0x1D),
        }
    }

    /// Text and axes.
    pub fn foreground(self) -> RGBColor {
        match self {
            Theme::Light => RGBColor(0x22, 0x22, 0x22),
            Theme::Dark => RGBColor(0xE4, 0xE4, 0xE4),
        }
    }

    /// Grid lines.
    pub fn grid(self) -> RGBColor {
        match self {
            Theme::Light => RGBColor(0xE4, 0xE4, 0xE4),
            Theme::Dark => RGBColor(0x33, 0x38, 0x3E),
        }
    }

    /// Sent-packet dots: the "black" of the time-sequence chart, which must
    /// flip on a dark page.
    pub fn sent(self) -> RGBColor {
        match self {
            Theme::Light => RGBColor(0x1A, 0x1A, 0x1A),
            Theme::Dark => RGBColor(0xD8, 0xD8, 0xD8),
        }
    }

    /// The colour of the i-th series (cycling).
    pub fn series(self, i: usize) -> RGBColor {
        match self {
            Theme::Light => SERIES[i % SERIES.len()],
            Theme::Dark => SERIES_DARK[i % SERIES_DARK.len()],
        }
    }

    /// Opacity of confidence bands.
    pub fn band_alpha(self) -> f64 {
        match self {
            Theme::Light => 0.22,
            Theme::Dark => 0.32,
        }
    }

    /// Tint behind the "faster" half of A/B panels.
    pub fn better_tint(self) -> RGBColor {
        match self {
            Theme::Light => RGBColor(0xEC, 0xF6, 0xF1),
            Theme::Dark => RGBColor(0x1B, 0x2A, 0x24),
        }
    }
}

/// The font family name the charts use; bound to the bundled DejaVu Sans.
pub const FONT: &str = "sans-serif";

/// DejaVu Sans 2.37 (Bitstream Vera licence, see fonts/DejaVuSans-LICENSE.txt),
/// bundled so that no system font library is needed.
static DEJAVU_SANS: &[u8] = include_bytes!("../../fonts/DejaVuSans.ttf");

static REGISTER: Once = Once::new();

/// Registers the bundled font with plotters (once per process).
pub fn register_font() {
    REGISTER.call_once(|| {
        // The bytes are a valid TrueType file checked in with the crate, and
        // `fonts_parse` below tests that; a failure would only lose text.
        let _ =
            plotters::style::register_font(FONT, plotters::style::FontStyle::Normal, DEJAVU_SANS);
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn bundled_font_parses() {
        assert!(plotters::style::register_font(
            "test-font",
            plotters::style::FontStyle::Normal,
            super::DEJAVU_SANS
        )
        .is_ok());
    }
}
