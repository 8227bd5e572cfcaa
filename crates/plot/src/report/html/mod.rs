//! Rendering the report page: the page itself; its charts, arms table and
//! paths are built in the files beside this one.

mod arms_table;
mod charts;
#[cfg(test)]
mod label_size;
#[cfg(test)]
mod long_names;
mod paths;
#[cfg(test)]
mod tests;

use super::explorer::explorer_html;
use super::run::RunData;
use super::table::summarise;
use crate::chart::Theme;
use crate::error::Result;
use arms_table::table_html;
use charts::charts;
use paths::paths_html;
use std::fmt::Write as _;

/// One chart of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportChart {
    /// Element id (`chart-…`), also the anchor in the contents.
    pub id: String,
    /// Heading shown above the chart.
    pub heading: String,
    /// The chart as an SVG document.
    pub svg: String,
}

/// Longest entry of the table of contents, in characters: an arm named
/// by its full controller spec would otherwise fill a column of the
/// contents with one link (the whole heading stays in its tooltip).
const TOC_CHARS: usize = 72;

/// `s` cut to `max` characters, the cut marked with `…`.
fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The width, in CSS pixels, the report shows a chart at on a wide screen:
/// [`STYLE`]'s body `max-width` (1280 px) less the body's padding (1.5rem,
/// 24 px, each side) and the figure's (.5rem, 8 px, each side, and a 1 px
/// border). Each chart's image is scaled to this width.
const CHART_DISPLAY_PX: u32 = 1280 - 2 * 24 - 2 * 8 - 2;

fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = r#"
:root { color-scheme: light dark; --fg:#1d1f21; --bg:#fafafa; --muted:#5a5f66; --line:#d9dce0; --accent:#0072b2; }
@media (prefers-color-scheme: dark) { :root { --fg:#e4e4e4; --bg:#121417; --muted:#9aa1a9; --line:#30353b; --accent:#56b4e9; } }
* { box-sizing: border-box; }
body { margin:0 auto; max-width:1280px; padding:1.5rem; font:15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); background:var(--bg); }
h1 { font-size:1.6rem; margin:0 0 .3rem; } h2 { font-size:1.2rem; margin:2rem 0 .6rem; border-bottom:1px solid var(--line); padding-bottom:.2rem; }
a { color:var(--accent); } .muted, .note { color:var(--muted); font-size:.9rem; }
nav ul { columns: 2; padding-left:1.2rem; } nav li { break-inside:avoid; overflow-wrap:anywhere; }
header p, section > p, li { overflow-wrap:anywhere; }
summary { cursor:pointer; color:var(--muted); }
pre { background:rgba(127,127,127,.1); padding:.8rem; overflow:auto; border-radius:6px; }
table.arms { border-collapse:collapse; width:100%; font-variant-numeric:tabular-nums; display:block; overflow-x:auto; }
table.arms th, table.arms td { padding:.35rem .5rem; border-bottom:1px solid var(--line); text-align:right; white-space:nowrap; }
table.arms thead th { text-align:right; font-weight:600; white-space:normal; vertical-align:bottom; min-width:4.5em; } table.arms th[scope=row], table.arms thead th:first-child { text-align:left; }
table.arms th[scope=row] { max-width:22em; overflow:hidden; text-overflow:ellipsis; }
table.arms tr.baseline th[scope=row]::after { content:" (baseline)"; color:var(--muted); font-weight:normal; }
figure.chart { margin:0 0 1.5rem; background:#fff; border:1px solid var(--line); border-radius:8px; padding:.5rem; cursor:zoom-in; overflow:auto; }
figure.chart svg { display:block; width:100%; height:auto; }
figure.chart.zoom { cursor:zoom-out; } figure.chart.zoom svg { width:auto; max-width:none; }
"#;

/// Click a chart to see it at full size; the data attributes let tests
/// (and people) know the page finished rendering.
const SCRIPT: &str = r#"
(function () {
  var figs = document.querySelectorAll('figure.chart');
  for (var i = 0; i < figs.length; i++) {
    figs[i].addEventListener('click', function () { this.classList.toggle('zoom'); });
  }
  document.body.setAttribute('data-charts', String(figs.length));
  document.body.setAttribute('data-ready', '1');
})();
"#;

/// Renders the whole report page.
pub fn render_report(run: &RunData) -> Result<String> {
    let theme = Theme::Light;
    let (charts, notes) = charts(run, theme)?;
    let arms = run.arms();
    let baseline = run.baseline_arm();
    let rows = summarise(&run.records, &arms);
    let explorer = match &run.explorer {
        Some(d) => explorer_html(d, baseline.as_deref()),
        None => explorer_html(&run.records.explorer(), baseline.as_deref()),
    };
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{} — ramp report</title>\n<style>{STYLE}{}</style>\n</head>\n<body>\n",
        esc(&run.title),
        if explorer.is_some() {
            super::explorer::STYLE
        } else {
            ""
        }
    );
    let _ = writeln!(
        h,
        "<header><h1>{}</h1><p class=\"muted\">ramp report: {} record{}, {} trace{}, arms: {}.</p></header>",
        esc(&run.title),
        run.records.len(),
        if run.records.len() == 1 { "" } else { "s" },
        run.traces.len(),
        if run.traces.len() == 1 { "" } else { "s" },
        esc(&arms.join(", "))
    );
    h.push_str(
        "<nav><ul><li><a href=\"#scenario\">Scenario</a></li><li><a href=\"#arms\">Arms</a></li>",
    );
    if explorer.is_some() {
        h.push_str("<li><a href=\"#explorer\">Explorer</a></li>");
    }
    for c in &charts {
        let _ = write!(
            h,
            "<li><a href=\"#{}\" title=\"{}\">{}</a></li>",
            c.id,
            esc(&c.heading),
            esc(&shorten(&c.heading, TOC_CHARS))
        );
    }
    h.push_str("</ul></nav>\n");
    h.push_str("<section id=\"scenario\"><h2>Scenario</h2>\n");
    h.push_str(&paths_html(run));
    if let Some(s) = &run.scenario {
        let _ = writeln!(
            h,
            "<details><summary>Scenario as run (scenario.toml)</summary><pre>{}</pre></details>",
            esc(s)
        );
    }
    h.push_str("</section>\n<section id=\"arms\"><h2>Arms</h2>\n");
    h.push_str(&table_html(&rows, baseline.as_deref(), &run.headline));
    h.push_str("</section>\n");
    if let Some(e) = &explorer {
        h.push_str(e);
    }
    for c in &charts {
        let _ = write!(
            h,
            "<section><h2 id=\"{}-h\">{}</h2>\n<figure class=\"chart\" id=\"{}\">\n{}\n</figure></section>\n",
            c.id,
            esc(&c.heading),
            c.id,
            c.svg
        );
    }
    if !notes.is_empty() {
        h.push_str("<section id=\"notes\"><h2>Notes</h2><ul>");
        for n in &notes {
            let _ = write!(h, "<li>{}</li>", esc(n));
        }
        h.push_str("</ul></section>\n");
    }
    let _ = write!(
        h,
        "<footer class=\"muted\"><p>Written by ramp-plot {}. Percentiles: linear interpolation between order statistics (numpy default, DuckDB quantile_cont). Bands: percentile bootstrap, 95%, connections resampled, seeded.</p></footer>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
    Ok(h)
}
