//! The report's description of the paths a run crossed.

use super::esc;
use crate::report::RunData;
use crate::units::{format_number, format_rate};
use std::collections::BTreeSet;

/// A description of the paths in the run, from the traces' headers or the
/// records' `path.*` keys.
pub(super) fn paths_html(run: &RunData) -> String {
    let mut paths = BTreeSet::new();
    for t in &run.traces {
        let p = t.meta.path_summary();
        if !p.is_empty() {
            paths.insert(p);
        }
    }
    if paths.is_empty() {
        for [rate, rtt, queue, loss] in run.records.paths() {
            let mut parts = Vec::new();
            if let Some(v) = rate {
                parts.push(format_rate(v));
            }
            if let Some(v) = rtt {
                parts.push(format!("RTT {} ms", format_number(v)));
            }
            if let Some(v) = queue {
                parts.push(format!("queue {} ms", format_number(v)));
            }
            if let Some(v) = loss {
                if v > 0.0 {
                    parts.push(format!("loss {}%", format_number(v * 100.0)));
                }
            }
            if !parts.is_empty() {
                paths.insert(parts.join(", "));
            }
        }
    }
    match paths.len() {
        0 => String::new(),
        1..=5 => {
            let items: Vec<String> = paths
                .iter()
                .map(|p| format!("<li>{}</li>", esc(p)))
                .collect();
            format!(
                "<p>Path{}:</p><ul>{}</ul>\n",
                if paths.len() > 1 { "s" } else { "" },
                items.join("")
            )
        }
        n => format!("<p>{n} distinct paths.</p>\n"),
    }
}
