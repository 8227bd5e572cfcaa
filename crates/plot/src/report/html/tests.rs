use super::*;
use crate::record::parse_records;
use crate::report::{ArmHeadline, HeadlineStat, RunRecords, HEADLINE_STATS};

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
