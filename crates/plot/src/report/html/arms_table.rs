//! The report's table of arms: one row an arm, a column a statistic.

use super::esc;
use crate::report::{ArmHeadline, ArmSummary, HeadlineStat, HEADLINE_STATS};
use crate::units::{format_bytes, format_ms, format_number};
use std::fmt::Write as _;

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

pub(super) fn table_html(
    rows: &[ArmSummary],
    baseline: Option<&str>,
    headline: &[ArmHeadline],
) -> String {
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
