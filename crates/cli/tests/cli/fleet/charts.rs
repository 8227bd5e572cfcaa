//! A fleet run's charts and report: the files a run writes, `ramp report`
//! on its directory, and the seeded chart sample of a large run (the same
//! bytes at any thread and shard count).

use std::path::{Path, PathBuf};

use super::{command, files, fleet, ok, output, tmp};
use crate::common::ramp;

#[test]
fn charts_and_report_work_on_the_output() {
    let d = tmp("charts");
    let o = ramp()
        .args(["fleet", "-n", "40", "-q", "--seed", "2", "-o"])
        .arg(&d)
        .output()
        .unwrap();
    ok(&o);
    for f in [
        "ab-all.png",
        "ab-all.svg",
        "ab-pop.png",
        "ab-size.png",
        "paired-all.png",
        "report.html",
        "summary.json",
    ] {
        assert!(d.join(f).is_file(), "{f} missing");
    }
    // The fleet's own report pairs the arms by path seed, as `ramp report`
    // of the same directory does (it once said no seed was shared).
    let own = std::fs::read_to_string(d.join("report.html")).unwrap();
    let again = d.with_extension("again.html");
    let r = ramp()
        .arg("report")
        .arg(&d)
        .arg("-o")
        .arg(&again)
        .output()
        .unwrap();
    ok(&r);
    let again = std::fs::read_to_string(&again).unwrap();
    for html in [&own, &again] {
        assert!(!html.contains("Paired chart skipped"));
        assert!(html.contains("pairs = 40"));
    }
    // Both Arms tables show the headline statistics with their 95 %
    // intervals over connections, read from the same summary.json.
    let intervals = |html: &str| -> Vec<String> {
        html.split("<td>")
            .filter_map(|c| c.split("</td>").next())
            .filter(|c| c.contains("% ["))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(intervals(&own).len(), 3 * 4, "three arms x four statistics");
    assert_eq!(intervals(&own), intervals(&again));
    assert!(own.contains("Δ TTLB, ten-pt avg"));
}

#[test]
fn charts_of_a_large_run_come_from_a_seeded_sample_the_same_at_any_thread_and_shard_count() {
    // RAMP_CHART_CONNECTIONS=10 makes a 24-connection run sample as a
    // run above 20 000 connections does.
    let run = |out: &Path, extra: &[&str]| {
        output(
            command(out, "5")
                .env("RAMP_CHART_CONNECTIONS", "10")
                .arg("-q")
                .args(extra),
        )
    };
    let (a, b) = (tmp("sample-j1"), tmp("sample-j2"));
    ok(&run(&a, &["-j", "1"]));
    ok(&run(&b, &["-j", "2"]));
    let want = files(&a);
    assert!(files(&b) == want, "thread count changed the charts");
    let html = std::fs::read_to_string(a.join("report.html")).unwrap();
    assert!(
        html.contains("seeded sample of 10 of 24 connections"),
        "the report says it is a sample"
    );
    assert!(
        html.contains("pairs = 10"),
        "every arm of a sampled connection"
    );
    let svg = std::fs::read_to_string(a.join("ab-all.svg")).unwrap();
    assert!(
        svg.contains("all connections, sample 10/24\n"),
        "whole title"
    );
    // The summary is exact: the same as without charts.
    let exact = tmp("sample-exact");
    ok(&fleet(&exact, &[]));
    for f in ["summary.md", "summary.json", "records.ndjson"] {
        assert!(
            std::fs::read(a.join(f)).unwrap() == std::fs::read(exact.join(f)).unwrap(),
            "{f} differs"
        );
    }
    // Shards merged with charts: the same bytes.
    let dirs: Vec<PathBuf> = (0..3)
        .map(|k| {
            let d = tmp(&format!("sample-shard{k}"));
            ok(&run(&d, &["--shard", &format!("{k}/3")]));
            d
        })
        .collect();
    let merged = tmp("sample-merged");
    let o = ramp()
        .env("RAMP_CHART_CONNECTIONS", "10")
        .args(["fleet", "merge"])
        .args(&dirs)
        .arg("-o")
        .arg(&merged)
        .output()
        .unwrap();
    ok(&o);
    assert!(files(&merged) == want, "merged charts differ");
}
