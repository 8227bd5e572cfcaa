//! The report's interactive explorer (docs/charts.md § Explorer): the
//! run's per-path data embedded in the page, and a hand-written script
//! that filters it (region, access, size bin, base RTT, rate, AQM, any
//! `grid.*` key), and redraws the percentile-versus-Δ chart with its
//! bootstrap band and the per-percentile table, in the browser, offline.
//!
//! The page computes exactly what the Rust side does: percentiles by
//! linear interpolation ([`ramp_vocab::quantile`]), a time metric's
//! connections paired across arms as the fleet summary pairs them (a path
//! counts only if it completed in every arm), the loss ratio over the
//! connections that sent a packet, and the band by [`crate::bootstrap`]'s
//! counted resampling with the same SplitMix64 stream, seed and per-curve
//! seeding as [`crate::ab_curves`].

mod data;
mod encode;

pub use data::{Dim, ExplorerBuilder, ExplorerData, RangeDim, ValueCol};

use crate::bootstrap::Bootstrap;
use crate::chart::style::SERIES;
use serde_json::json;
use std::fmt::Write as _;

/// The explorer's script (hand-written; no library).
const SCRIPT: &str = include_str!("explorer.js");
/// The explorer's styles.
pub(crate) const STYLE: &str = include_str!("explorer.css");

/// A JSON text safe inside a `<script>` element (no `</` can close it).
fn script_json(v: &serde_json::Value) -> String {
    v.to_string().replace("</", "<\\/")
}

/// The explorer section of the report, or `None` when the run has no
/// metric to explore (no arm, or no TTLB nor packet counts).
pub fn explorer_html(d: &ExplorerData, baseline: Option<&str>) -> Option<String> {
    if d.arms.is_empty() || d.paths == 0 || d.values.is_empty() {
        return None;
    }
    let baseline = baseline
        .filter(|b| d.arms.iter().any(|a| a == b))
        .unwrap_or(&d.arms[0]);
    let mut sorted = d.arms.clone();
    sorted.sort();
    let bs = Bootstrap::default();
    let meta = json!({
        "arms": d.arms,
        "arm_key": d.arm_key,
        "baseline": baseline,
        "path_key": d.path_key,
        "paths": d.paths,
        // Arms take the static charts' colours: the i-th arm in name order
        // gets the i-th series colour.
        "colour_order": sorted,
        "colours": SERIES.iter().map(|c| format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)).collect::<Vec<_>>(),
        "bootstrap": {
            "resamples": bs.resamples,
            "level": bs.level,
            "seed_hi": (bs.seed >> 32) as u32,
            "seed_lo": bs.seed as u32,
        },
    });
    let e = encode::encode(d, meta);
    let mut h = String::new();
    let _ = write!(
        h,
        "<section id=\"explorer\"><h2 id=\"explorer-h\">Explorer</h2>\n\
         <p class=\"note\" id=\"explorer-about\">Every connection of the run ({paths} paths × {arms} arms, \
         paired by <code>{key}</code>), embedded in this page ({kb} KB of typed columns as base64): filter, pick a metric and \
         arms, and the chart and table are recomputed here, in the browser. The view is kept in the address \
         (after <code>#</code>), so a link shares it.</p>\n\
         <div id=\"explorer-root\" data-state=\"loading\"><p class=\"note\">The explorer needs JavaScript.</p></div>\n\
         <script type=\"application/json\" id=\"explorer-meta\">{meta}</script>\n\
         <script type=\"application/octet-stream\" id=\"explorer-data\">{data}</script>\n\
         <script>{SCRIPT}</script>\n</section>\n",
        paths = d.paths,
        arms = d.arms.len(),
        key = d.path_key,
        kb = e.base64.len() / 1024,
        meta = script_json(&e.meta),
        data = e.base64,
    );
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_records;

    #[test]
    fn section_embeds_meta_and_data_and_cannot_be_closed_by_a_value() {
        let text = "\
{\"group\":\"a\",\"conn\":1,\"pop\":\"</script><b>\",\"ttlb-us\":1000}
{\"group\":\"b\",\"conn\":1,\"pop\":\"</script><b>\",\"ttlb-us\":900}
";
        let d = ExplorerData::from_records(&parse_records(text, "r").unwrap());
        let h = explorer_html(&d, Some("b")).unwrap();
        assert!(h.contains("id=\"explorer-meta\""));
        assert!(h.contains("\"baseline\":\"b\""));
        assert_eq!(h.matches("</script>").count(), 3, "{h}");
        assert!(h.contains("<\\/script><b>"));
        let none = ExplorerData::from_records(&[]);
        assert!(explorer_html(&none, None).is_none());
    }
}
