//! Fitting text into the pixels a chart has for it.
//!
//! A controller's canonical spec runs to 200 characters
//! (`newreno(iw=30x1472,…)+rapidstart(jump_floor=on,…)`), wider than any
//! chart. Legends and titles therefore name a trace by its short label
//! (the arm, or the controller without its options) and the charts show the
//! full spec in a key of its own, wrapped at the spec's own separators; a
//! title or label that is still too wide is cut with an ellipsis. Widths
//! are measured with the bundled font, the one the charts draw with, so
//! what fits here fits on the image.

use super::axes::{de, text};
use super::style::{register_font, Theme, FONT};
use crate::error::Result;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Width in pixels of `s` drawn at `size` in the charts' font.
pub(crate) fn text_width(s: &str, size: f64) -> u32 {
    register_font();
    let font = FontDesc::new(FontFamily::Name(FONT), size, FontStyle::Normal);
    match font.box_size(s) {
        Ok((w, _)) => w,
        // Without the font (it is bundled, so never in practice) assume
        // wide glyphs: text is cut early rather than drawn off the edge.
        Err(_) => (s.chars().count() as f64 * size * 0.7).ceil() as u32,
    }
}

/// `s`, cut at the end and marked with `…` so that it is at most `max_px`
/// wide at `size`.
pub(crate) fn ellipsize(s: &str, max_px: u32, size: f64) -> String {
    if text_width(s, size) <= max_px {
        return s.to_string();
    }
    let chars: Vec<char> = s.chars().collect();
    // The longest prefix that fits with the ellipsis (widths grow with
    // the prefix, so a binary search finds it).
    let (mut lo, mut hi) = (0usize, chars.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let cand: String = chars[..mid].iter().chain(['…'].iter()).collect();
        if text_width(&cand, size) <= max_px {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let mut out: String = chars[..lo].iter().collect();
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

/// `s` broken into lines at most `max_px` wide at `size`, at most
/// `max_lines` of them (the last ellipsized if the text goes on). Lines
/// break after a `,`, `+`, `)` or space, the separators of controller
/// specs and prose, or anywhere in a run with none.
pub(crate) fn wrap(s: &str, max_px: u32, size: f64, max_lines: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut rest = s.trim();
    while !rest.is_empty() && lines.len() < max_lines.max(1) {
        if lines.len() + 1 == max_lines.max(1) || text_width(rest, size) <= max_px {
            lines.push(ellipsize(rest, max_px, size));
            break;
        }
        // The last break point whose line fits, else the longest prefix.
        let mut cut = 0;
        let mut fit = 0;
        for (i, c) in rest.char_indices() {
            let end = i + c.len_utf8();
            if text_width(&rest[..end], size) > max_px {
                break;
            }
            fit = end;
            if matches!(c, ',' | '+' | ')' | ' ') {
                cut = end;
            }
        }
        let at = if cut > 0 {
            cut
        } else {
            fit.max(first_char_len(rest))
        };
        lines.push(rest[..at].trim_end().to_string());
        rest = rest[at..].trim_start();
    }
    lines
}

fn first_char_len(s: &str) -> usize {
    s.chars().next().map_or(0, char::len_utf8)
}

/// Font size of chart titles.
pub(crate) const TITLE_SIZE: f64 = 18.0;
/// Font size of a title's second lines and of spec keys.
pub(crate) const NOTE_SIZE: f64 = 12.0;
/// Height of one line of [`NOTE_SIZE`] text.
pub(crate) const NOTE_ROW: u32 = 16;
/// Height of the title line.
const TITLE_ROW: u32 = 30;

/// Draws `title` (ellipsized to the width) and under it the lines of
/// `sub` in the small size, and returns the area below them.
pub(crate) fn titled<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    sub: &[String],
    theme: Theme,
) -> Result<DrawingArea<DB, Shift>> {
    let (w, _) = root.dim_in_pixel();
    let centre = Pos::new(HPos::Center, VPos::Top);
    de(root.draw_text(
        &ellipsize(title, w.saturating_sub(24), TITLE_SIZE),
        &text(TITLE_SIZE, theme.foreground()).pos(centre),
        (w as i32 / 2, 6),
    ))?;
    for (i, line) in sub.iter().enumerate() {
        de(root.draw_text(
            line,
            &text(NOTE_SIZE, theme.foreground()).pos(centre),
            (w as i32 / 2, (TITLE_ROW + NOTE_ROW * i as u32) as i32),
        ))?;
    }
    Ok(root.margin(title_height(sub.len()), 0, 0, 0))
}

/// Height [`titled`] takes with `sub_lines` lines under the title.
pub(crate) fn title_height(sub_lines: usize) -> u32 {
    TITLE_ROW + NOTE_ROW * sub_lines as u32 + if sub_lines > 0 { 6 } else { 0 }
}

/// One entry of a spec key: the series' colour, its label and the full
/// spec the label stands for.
pub(crate) struct SpecEntry {
    /// The series' colour.
    pub colour: RGBColor,
    /// `label: spec`, wrapped to the key's width.
    pub lines: Vec<String>,
}

/// Left edge of a spec key's swatches (aligned with the plot's left edge).
const KEY_LEFT: i32 = 14 + 62;
/// Width of the swatch and the gap after it.
const KEY_TEXT: i32 = 30;
/// Lines of one entry at most: a spec longer than that is cut.
const KEY_MAX_LINES: usize = 3;

/// The entries of a key of `(colour, label, spec)` for a chart `width`
/// pixels wide.
pub(crate) fn spec_entries(width: u32, items: &[(RGBColor, String, String)]) -> Vec<SpecEntry> {
    let avail = width.saturating_sub((KEY_LEFT + KEY_TEXT) as u32 + 16);
    items
        .iter()
        .map(|(colour, label, spec)| SpecEntry {
            colour: *colour,
            lines: wrap(&format!("{label}: {spec}"), avail, NOTE_SIZE, KEY_MAX_LINES),
        })
        .collect()
}

/// Height of a key of `entries`.
pub(crate) fn spec_key_height(entries: &[SpecEntry]) -> u32 {
    let rows: usize = entries.iter().map(|e| e.lines.len()).sum();
    if rows == 0 {
        0
    } else {
        NOTE_ROW * rows as u32 + 10
    }
}

/// Draws a key of `entries`: a line swatch in each entry's colour and its
/// lines beside it.
pub(crate) fn spec_key<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[SpecEntry],
    theme: Theme,
) -> Result<()> {
    let style = text(NOTE_SIZE, theme.foreground()).pos(Pos::new(HPos::Left, VPos::Center));
    let mut y = 4 + NOTE_ROW as i32 / 2;
    for e in entries {
        de(area.draw(&PathElement::new(
            vec![(KEY_LEFT, y), (KEY_LEFT + 22, y)],
            e.colour.stroke_width(3),
        )))?;
        for line in &e.lines {
            de(area.draw_text(line, &style, (KEY_LEFT + KEY_TEXT, y)))?;
            y += NOTE_ROW as i32;
        }
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Every `<text>` of an SVG from plotters, with its anchor x, the
    /// anchor, its font size as drawn (plotters writes size / 1.24) and
    /// its content.
    pub(crate) fn svg_texts(svg: &str) -> Vec<(f64, String, f64, String)> {
        let mut out = Vec::new();
        let mut rest = svg;
        while let Some(i) = rest.find("<text") {
            rest = &rest[i..];
            let end_tag = rest.find('>').unwrap();
            let attrs = &rest[..end_tag];
            let close = rest.find("</text>").unwrap();
            let body = rest[end_tag + 1..close].trim().to_string();
            let attr = |name: &str| {
                let k = format!(" {name}=\"");
                let a = attrs.find(&k).unwrap() + k.len();
                attrs[a..a + attrs[a..].find('"').unwrap()].to_string()
            };
            let rotated = attrs.contains("transform=");
            if !rotated {
                out.push((
                    attr("x").parse().unwrap(),
                    attr("text-anchor"),
                    attr("font-size").parse::<f64>().unwrap() * 1.24,
                    body.replace("&amp;", "&")
                        .replace("&lt;", "<")
                        .replace("&gt;", ">"),
                ));
            }
            rest = &rest[close..];
        }
        out
    }

    /// The texts of `svg` (an image `width` wide) that run off its sides.
    pub(crate) fn overflowing(svg: &str, width: u32) -> Vec<String> {
        svg_texts(svg)
            .into_iter()
            .filter(|(x, anchor, size, s)| {
                let w = f64::from(text_width(s, *size));
                let (l, r) = match anchor.as_str() {
                    "middle" => (x - w / 2.0, x + w / 2.0),
                    "end" => (x - w, *x),
                    _ => (*x, x + w),
                };
                l < -1.0 || r > f64::from(width) + 1.0
            })
            .map(|t| t.3)
            .collect()
    }

    #[test]
    fn ellipsized_text_fits_and_short_text_is_kept() {
        let long = "newreno(iw=30x1472,ca_gain=2,pacer=quicly)+rapidstart(jump=off,k=11/18)";
        let cut = ellipsize(long, 200, 13.0);
        assert!(cut.ends_with('…') && text_width(&cut, 13.0) <= 200, "{cut}");
        assert!(long.starts_with(cut.trim_end_matches('…')));
        assert_eq!(ellipsize("cubic", 200, 13.0), "cubic");
    }

    #[test]
    fn wrapped_spec_breaks_at_separators_and_keeps_every_character() {
        let spec = "newreno(iw=30x1472,ca_gain=2,pacer=quicly,beta=0.7)+rapidstart(jump=off,k=11/18,thresh=max)";
        let lines = wrap(spec, 260, 12.0, 10);
        assert!(lines.len() > 1);
        for l in &lines {
            assert!(text_width(l, 12.0) <= 260, "{l}");
        }
        assert_eq!(lines.concat(), spec);
        for l in &lines[..lines.len() - 1] {
            assert!(l.ends_with([',', '+', ')']), "{l}");
        }
        // Too many lines: the last is cut.
        let two = wrap(spec, 260, 12.0, 2);
        assert_eq!(two.len(), 2);
        assert!(two[1].ends_with('…'));
    }
}
