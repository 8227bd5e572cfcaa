//! Rendering the report page.

use super::explorer::explorer_html;
use super::headline::{ArmHeadline, HeadlineStat, HEADLINE_STATS};
use super::run::RunData;
use super::table::{summarise, ArmSummary};
use crate::ab::{ab_curves_of, paired_deltas_of, AbOptions, Facet};
use crate::chart::{to_svg, AbChart, DeliveryChart, GridChart, PairedChart, Theme, TimeSeqChart};
use crate::error::Result;
use crate::grid::grid_curves;
use crate::trace::Trace;
use crate::units::{format_bytes, format_ms, format_number, format_rate};
use std::collections::BTreeSet;
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

/// Panels side by side in the report's per-region charts: as many as fit
/// [`CHART_DISPLAY_PX`] at their own size (two). Three (1620 px, the
/// image files' layout) were shown at three quarters of their size, their
/// labels at 7–8 px.
const REPORT_COLUMNS: usize = (CHART_DISPLAY_PX / crate::chart::PANEL.0) as usize;

/// Fewest records per arm for the percentile charts to say anything.
const MIN_RECORDS_FOR_AB: usize = 5;
/// At most this many time-sequence charts (one per arm of one path).
const MAX_TIMESEQ: usize = 8;

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

/// The traces of one path: the lowest seed that has traces (all traces
/// when none carries a seed).
fn one_path(traces: &[Trace]) -> Vec<&Trace> {
    match traces.iter().filter_map(|t| t.meta.seed).min() {
        Some(seed) => traces
            .iter()
            .filter(|t| t.meta.seed == Some(seed))
            .collect(),
        None => traces.iter().collect(),
    }
}

/// Builds the charts; charts the data cannot support become notes.
fn charts(run: &RunData, theme: Theme) -> Result<(Vec<ReportChart>, Vec<String>)> {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    let path = one_path(&run.traces);
    if !path.is_empty() {
        let seed = path[0]
            .meta
            .seed
            .map(|s| format!(" (seed {s})"))
            .unwrap_or_default();
        out.push(ReportChart {
            id: "chart-delivery".into(),
            heading: format!("Delivery curves{seed}"),
            svg: to_svg(&DeliveryChart::new(path.clone()), theme)?,
        });
        for (i, t) in path.iter().take(MAX_TIMESEQ).enumerate() {
            out.push(ReportChart {
                id: format!("chart-timeseq-{i}"),
                heading: format!("Time sequence: {}{seed}", t.meta.label()),
                svg: to_svg(&TimeSeqChart::new(t), theme)?,
            });
        }
        if path.len() > MAX_TIMESEQ {
            notes.push(format!(
                "Time-sequence charts shown for the first {MAX_TIMESEQ} of {} traces.",
                path.len()
            ));
        }
    } else {
        notes.push(
            "No traces in this run (traces/*.ndjson): no delivery or time-sequence charts.".into(),
        );
    }

    let arms = run.arms();
    // Grid runs (records with `grid.cell`): TTLB and packets lost against
    // each axis that varies.
    let grid = run.records.grid_samples();
    if grid.from_grid {
        for axis in grid.varying_axes() {
            match grid_curves(&grid, axis, &arms) {
                Ok(r) => out.push(ReportChart {
                    id: format!("chart-grid-{}", axis.name()),
                    heading: format!("TTLB and packets lost against {}", axis.describe()),
                    svg: to_svg(&GridChart::new(&r), theme)?,
                }),
                Err(e) => notes.push(format!("Grid chart ({}) skipped: {e}", axis.name())),
            }
        }
    }
    let Some(baseline) = run.baseline_arm() else {
        return Ok((out, notes));
    };
    let key = run.arm_key();
    let counts: Vec<usize> = arms.iter().map(|a| run.records.count(a)).collect();
    if arms.len() < 2 {
        return Ok((out, notes));
    }
    if counts.iter().any(|&n| n < MIN_RECORDS_FOR_AB) {
        notes.push(format!(
            "A/B percentile charts need at least {MIN_RECORDS_FOR_AB} records per arm; this run has {}.",
            arms.iter()
                .zip(&counts)
                .map(|(a, n)| format!("{a}: {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        return Ok((out, notes));
    }
    let mut opts = AbOptions::new(&baseline);
    opts.arm_key = key.to_string();
    let samples = run.records.ab_samples(false);
    match ab_curves_of(&samples, &opts) {
        Ok(ab) => out.push(ReportChart {
            id: "chart-ab".into(),
            heading: format!("TTLB change against {baseline}, by percentile"),
            svg: to_svg(&AbChart::new(&ab).columns(REPORT_COLUMNS), theme)?,
        }),
        Err(e) => notes.push(format!("A/B chart skipped: {e}")),
    }
    if run.records.pops().len() > 1 {
        let mut by = opts.clone();
        by.facet = Facet::Key("pop".into());
        if let Ok(ab) = ab_curves_of(&run.records.ab_samples(true), &by) {
            out.push(ReportChart {
                id: "chart-ab-pop".into(),
                heading: format!("TTLB change against {baseline}, by pop"),
                svg: to_svg(&AbChart::new(&ab).columns(REPORT_COLUMNS), theme)?,
            });
        }
    }
    match paired_deltas_of(&samples, &opts) {
        Ok(p) => out.push(ReportChart {
            id: "chart-paired".into(),
            heading: format!("Per-path TTLB change against {baseline} (paired)"),
            svg: to_svg(&PairedChart::new(&p).columns(REPORT_COLUMNS), theme)?,
        }),
        Err(e) => notes.push(format!("Paired chart skipped: {e}")),
    }
    Ok((out, notes))
}

fn cell(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| "–".to_string(), f)
}

/// A headline statistic's cell: `−22.1% [−22.6, −21.6]` (the interval
/// when the summary has one).
fn headline_cell(st: HeadlineStat) -> String {
    let v = if st.value.is_finite() {
        format!("{:+.1}%", st.value)
    } else {
        return "–".into();
    };
    let s = if st.lo.is_finite() && st.hi.is_finite() {
        format!("{v} [{:+.1}, {:+.1}]", st.lo, st.hi)
    } else {
        v
    };
    s.replace('-', "−")
}

fn table_html(rows: &[ArmSummary], baseline: Option<&str>, headline: &[ArmHeadline]) -> String {
    let many = rows.iter().any(|r| r.n > 1);
    let base_p50 = rows
        .iter()
        .find(|r| Some(r.arm.as_str()) == baseline)
        .and_then(|r| r.ttlb_ms[0]);
    type Col<'a> = (&'static str, Box<dyn Fn(&ArmSummary) -> String + 'a>, bool);
    let count = |v: f64| format_number(v);
    let mut cols: Vec<Col<'_>> = vec![
        (
            "connections",
            Box::new(|r: &ArmSummary| r.n.to_string()),
            many,
        ),
        (
            if many { "TTLB p50" } else { "TTLB" },
            Box::new(|r: &ArmSummary| cell(r.ttlb_ms[0], format_ms)),
            true,
        ),
        (
            "TTLB p90",
            Box::new(|r: &ArmSummary| cell(r.ttlb_ms[1], format_ms)),
            many,
        ),
        (
            "TTLB p99",
            Box::new(|r: &ArmSummary| cell(r.ttlb_ms[2], format_ms)),
            many,
        ),
        (
            if many {
                "Δ p50 vs baseline"
            } else {
                "Δ TTLB vs baseline"
            },
            Box::new(move |r: &ArmSummary| match (r.ttlb_ms[0], base_p50) {
                _ if Some(r.arm.as_str()) == baseline => "–".into(),
                (Some(a), Some(b)) if b > 0.0 => {
                    format!("{:+.1}%", 100.0 * (a / b - 1.0)).replacen('-', "−", 1)
                }
                _ => "–".into(),
            }),
            base_p50.is_some(),
        ),
    ];
    // A fleet run's headline statistics (its summary.json) with their 95 %
    // intervals, after the per-arm Δ p50.
    for (i, (_, heading)) in HEADLINE_STATS.iter().enumerate() {
        cols.push((
            heading,
            Box::new(move |r: &ArmSummary| {
                headline
                    .iter()
                    .find(|h| h.arm == r.arm)
                    .map_or_else(|| "–".to_string(), |h| headline_cell(h.stats[i]))
            }),
            !headline.is_empty(),
        ));
    }
    cols.extend::<Vec<Col<'_>>>(vec![
        (
            "packets sent",
            Box::new(move |r: &ArmSummary| cell(r.packets_sent, count)),
            true,
        ),
        (
            "packets lost",
            Box::new(move |r: &ArmSummary| cell(r.packets_lost, count)),
            true,
        ),
        (
            "loss",
            Box::new(|r: &ArmSummary| {
                cell(r.loss_ratio, |v| format!("{}%", format_number(v * 100.0)))
            }),
            true,
        ),
        (
            "loss episodes",
            Box::new(move |r: &ArmSummary| cell(r.loss_episodes, count)),
            true,
        ),
        (
            "PTOs",
            Box::new(move |r: &ArmSummary| cell(r.ptos, count)),
            true,
        ),
        (
            "cwnd at slow-start exit",
            Box::new(|r: &ArmSummary| cell(r.cwnd_exit_ss, format_bytes)),
            true,
        ),
        (
            "final cwnd",
            Box::new(|r: &ArmSummary| cell(r.cwnd_end, format_bytes)),
            true,
        ),
        (
            "final sRTT",
            Box::new(|r: &ArmSummary| cell(r.srtt_ms, format_ms)),
            true,
        ),
    ]);
    // Columns no arm has data for are left out.
    cols.retain(|(_, f, shown)| *shown && rows.iter().any(|r| f(r) != "–"));
    let mut s = String::from("<table class=\"arms\">\n<thead><tr><th>arm</th>");
    for (h, _, _) in &cols {
        let _ = write!(s, "<th>{}</th>", esc(h));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for r in rows {
        let mark = if Some(r.arm.as_str()) == baseline {
            " class=\"baseline\""
        } else {
            ""
        };
        let _ = write!(
            s,
            "<tr{mark}><th scope=\"row\" title=\"{}\">{}</th>",
            esc(&r.arm),
            esc(&r.arm)
        );
        for (_, f, _) in &cols {
            let _ = write!(s, "<td>{}</td>", esc(&f(r)));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody></table>\n");
    if !headline.is_empty() {
        s.push_str("<p class=\"note\">Δ TTLB columns: the run's headline statistics (summary.json), over the connections completed in every arm, with their 95 % confidence interval over connections in brackets: the uncertainty of sampling this many connections (a seeded paired bootstrap), not the model's, which the sensitivity study gives (docs/experiments.md).</p>\n");
    }
    if many {
        s.push_str("<p class=\"note\">TTLB columns are percentiles (linear interpolation) over each arm's connections; other columns are medians; loss is lost ÷ sent over all connections.</p>\n");
    }
    s
}

/// A description of the paths in the run, from the traces' headers or the
/// records' `path.*` keys.
fn paths_html(run: &RunData) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_records;
    use crate::report::RunRecords;

    #[test]
    fn escapes_html() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn a_fleet_runs_headline_and_its_intervals_join_the_arms_table() {
        let records = parse_records(
            "{\"group\":\"baseline\",\"ttlb\":100}\n{\"group\":\"x\",\"ttlb\":90}\n",
            "r",
        )
        .unwrap();
        let mut run = RunData {
            title: "t".into(),
            records: RunRecords::from_records(records),
            ..RunData::default()
        };
        let plain = render_report(&run).unwrap();
        assert!(!plain.contains("ten-pt"), "no summary.json, no columns");
        let stat = |value, lo, hi| HeadlineStat { value, lo, hi };
        run.headline = vec![ArmHeadline {
            arm: "x".into(),
            stats: [
                stat(-20.5, -21.04, -19.96),
                stat(-19.0, f64::NAN, f64::NAN),
                stat(-15.0, -16.0, -14.0),
                stat(f64::NAN, f64::NAN, f64::NAN),
            ],
        }];
        let html = render_report(&run).unwrap();
        for (_, heading) in &HEADLINE_STATS[..3] {
            assert!(html.contains(&format!("<th>{heading}</th>")), "{heading}");
        }
        // A column no arm has a value for is left out, as the others are.
        assert!(!html.contains(HEADLINE_STATS[3].1));
        assert!(html.contains("<td>−20.5% [−21.0, −20.0]</td>"), "{html}");
        assert!(
            html.contains("<td>−19.0%</td>"),
            "no interval: the value alone"
        );
        assert!(html.contains("95 % confidence interval over connections"));
        assert!(html.contains("not the model's"));
    }

    #[test]
    fn report_of_records_only_has_table_and_notes() {
        let run = RunData {
            title: "t<1>".into(),
            records: RunRecords::from_records(
                parse_records(
                    "{\"group\":\"baseline\",\"ttlb\":100,\"num-packets.sent\":10}\n{\"group\":\"x\",\"ttlb\":90,\"num-packets.sent\":12}\n",
                    "r",
                )
                .unwrap(),
            ),
            ..RunData::default()
        };
        let html = render_report(&run).unwrap();
        assert!(html.contains("<h1>t&lt;1&gt;</h1>"));
        assert!(html.contains("<td>−10.0%</td>"), "{html}");
        assert!(html.contains("No traces in this run"));
        assert!(html.contains("at least 5 records per arm"));
        // Self-contained: nothing is fetched.
        assert!(!html.contains("src=") && !html.contains("href=\"http"));
    }
}

#[cfg(test)]
mod long_names {
    use super::*;
    use crate::fixtures::{run, Growth, ToyRun};
    use crate::record::parse_records;
    use crate::report::RunRecords;
    use crate::trace::parse_trace;

    const LONG: &str =
        "newreno(iw=30x1472,ca_gain=2,pacer=quicly,beta=0.7,ss_beta=0.5,growth=pico)\
+rapidstart(jump=off,jump_floor=on,thresh_mult=1.09375,rtt_floor=slots,k=11/18,thresh=max,\
clock=ms,off_below_ms=4,recovery=quicly)";

    /// Records and traces named only by their controller (no `group`), as
    /// `ramp sim` writes them: the arm is the whole spec.
    #[test]
    fn the_contents_name_long_arms_in_short_and_keep_the_whole_heading_in_a_tooltip() {
        let mut records = String::new();
        let mut traces = Vec::new();
        for (cc, growth) in [("newreno", Growth::SlowStart), (LONG, Growth::Rapid)] {
            for seed in 1..=5 {
                let (trace, record) = run(&ToyRun {
                    group: String::new(),
                    cc: cc.into(),
                    growth,
                    rate_bps: 20e6,
                    rtt_ms: 40.0,
                    queue_ms: 40.0,
                    loss: 0.0,
                    content_length: 200_000,
                    seed,
                    pop: "ams".into(),
                });
                records.push_str(&record.replace(",\"group\":\"\"", ""));
                records.push('\n');
                if seed == 1 {
                    traces.push(parse_trace(&trace, "t").unwrap());
                }
            }
        }
        let mut data = RunData {
            title: "long".into(),
            records: RunRecords::from_records(parse_records(&records, "r").unwrap()),
            traces,
            ..RunData::default()
        };
        // The long arm as the baseline puts it in the A/B headings.
        data.set_baseline(LONG).unwrap();
        let html = render_report(&data).unwrap();
        let nav = &html[html.find("<nav>").unwrap()..html.find("</nav>").unwrap()];
        let mut links = 0;
        for a in nav.split("<a ").skip(1) {
            let text = &a[a.find('>').unwrap() + 1..a.find("</a>").unwrap()];
            assert!(text.chars().count() <= TOC_CHARS, "contents entry: {text}");
            links += 1;
        }
        assert!(links >= 4, "{nav}");
        assert!(
            nav.contains("Time sequence: newreno+rapidstart (seed 1)"),
            "{nav}"
        );
        // Whatever is cut is in the link's tooltip.
        assert!(
            nav.contains(&format!(
                "title=\"TTLB change against {LONG}, by percentile\""
            )),
            "{nav}"
        );
        assert!(html.contains("nav li { break-inside:avoid"));
        // And no chart of the report draws text off its image.
        for c in charts(&data, Theme::Light).unwrap().0 {
            let w: u32 = c.svg[c.svg.find("width=\"").unwrap() + 7..]
                .split('"')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let off = crate::chart::overflowing_text(&c.svg, w);
            assert!(off.is_empty(), "{}: {off:?}", c.id);
        }
    }
}

#[cfg(test)]
mod label_size {
    use super::*;
    use crate::record::parse_records;
    use crate::report::RunRecords;

    /// Smallest text a chart of the report may display, in CSS pixels, at
    /// [`CHART_DISPLAY_PX`]. An assumption, not a standard: browsers'
    /// default minimum font settings sit around 9–12 px, and chart labels
    /// of print style guides at 8–9 pt (11–12 px).
    const MIN_LABEL_PX: f64 = 10.0;

    /// The width and the smallest `font-size` of an SVG image.
    fn width_and_smallest_font(svg: &str) -> (f64, f64) {
        let attr = |s: &str, name: &str| -> Option<f64> {
            let at = s.find(&format!("{name}=\""))? + name.len() + 2;
            s[at..].split('"').next()?.parse().ok()
        };
        let width = attr(svg, "width").expect("svg width");
        let smallest = svg
            .split("font-size=\"")
            .skip(1)
            .filter_map(|s| s.split('"').next()?.parse::<f64>().ok())
            .fold(f64::INFINITY, f64::min);
        (width, smallest)
    }

    /// The review's case: a run of seven regions. Its per-region A/B
    /// chart, three panels wide, was shown at three quarters of its size
    /// (labels at 7.3 px); every label of every chart must display at
    /// [`MIN_LABEL_PX`] or more.
    #[test]
    fn every_charts_labels_display_at_a_readable_size_with_seven_regions() {
        assert!(STYLE.contains("max-width:1280px; padding:1.5rem;"));
        assert!(STYLE.contains("border:1px solid var(--line); border-radius:8px; padding:.5rem;"));
        let mut records = String::new();
        for pop in 0..7 {
            for seed in 0..12u32 {
                for (arm, ms) in [("baseline", 100.0), ("x", 90.0)] {
                    let ttlb = ms + f64::from(seed * 7 % 13) + f64::from(pop);
                    records.push_str(&format!(
                        "{{\"group\":\"{arm}\",\"pop\":\"region-{pop}\",\"seed\":{seed},\"ttlb\":{ttlb}}}\n"
                    ));
                }
            }
        }
        let run = RunData {
            title: "regions".into(),
            records: RunRecords::from_records(parse_records(&records, "r").unwrap()),
            ..RunData::default()
        };
        let (charts, _) = charts(&run, Theme::Light).unwrap();
        let by_pop = charts
            .iter()
            .find(|c| c.id == "chart-ab-pop")
            .expect("a per-region chart");
        let (width, _) = width_and_smallest_font(&by_pop.svg);
        assert!(
            width <= f64::from(CHART_DISPLAY_PX),
            "{width} px wide: shown scaled down"
        );
        for c in &charts {
            let (width, smallest) = width_and_smallest_font(&c.svg);
            let shown = smallest * f64::from(CHART_DISPLAY_PX) / width;
            assert!(
                shown >= MIN_LABEL_PX,
                "{}: {smallest} px text in a {width} px image shows at {shown:.1} px",
                c.id
            );
        }
    }
}
