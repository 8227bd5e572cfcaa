//! `ramp fleet` on a tiny grid population end to end: the records carry
//! the `grid.*` keys, the printed summary and summary.md have the table
//! against the grid axis, `grid-loss.png/.svg` and report.html have the
//! grid chart, `ramp report` and `ramp plot grid` draw it from the records.
//! 2 loss rates x 2 sizes x 3 seeds x 2 arms of 30-60 KB: about a second.

use std::path::PathBuf;

use crate::common::ramp;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ramp-grid-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn ok(o: &std::process::Output) -> String {
    assert!(
        o.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn fleet_grid_writes_axis_table_charts_and_report() {
    let dir = tmp("run");
    std::fs::create_dir_all(&dir).unwrap();
    let pop = dir.join("grid.toml");
    std::fs::write(
        &pop,
        "name = \"tiny-grid\"\n[grid]\nrates = [\"20mbit\"]\nrtts = [\"20ms\"]\nqueues = [\"20ms\"]\n\
         losses = [\"0%\", \"3%\"]\nsizes = [\"30KB\", \"60KB\"]\nseeds = 3\n",
    )
    .unwrap();
    let out = dir.join("out");
    let stdout = ok(&ramp()
        .args(["fleet", "--population"])
        .arg(&pop)
        .args([
            "--arms",
            "reno=newreno,cubic=cubic",
            "--seed",
            "3",
            "-q",
            "-o",
        ])
        .arg(&out)
        .output()
        .unwrap());
    // The printed table against each varying axis, per arm.
    assert!(
        stdout.contains("TTLB median / mean packets lost per connection, against random loss (%) (pooled over size (2 values))"),
        "{stdout}"
    );
    assert!(stdout.contains("against object size"), "{stdout}");
    for row in ["0%", "3%", "30 KB", "60 KB"] {
        assert!(
            stdout.lines().any(|l| l.trim_start().starts_with(row)),
            "no row {row}: {stdout}"
        );
    }
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("| loss | reno TTLB p50 | reno lost | cubic TTLB p50 | cubic lost |"));
    // Records carry the cell's nominal axis values.
    let records = std::fs::read_to_string(out.join("records.ndjson")).unwrap();
    assert_eq!(records.lines().count(), 2 * 2 * 3 * 2);
    let first: serde_json::Value = serde_json::from_str(records.lines().next().unwrap()).unwrap();
    assert_eq!(first["grid.cell"], 0);
    assert_eq!(first["grid.loss"], 0.0);
    assert_eq!(first["grid.rate-bps"], 20_000_000);
    assert_eq!(first["grid.rtt-ms"], 20.0);
    assert_eq!(first["grid.size-bytes"], 30_000);
    let last: serde_json::Value = serde_json::from_str(records.lines().last().unwrap()).unwrap();
    assert_eq!(
        (last["grid.cell"].as_u64(), last["grid.loss"].as_f64()),
        (Some(3), Some(0.03))
    );
    // Charts.
    for f in [
        "grid-loss.png",
        "grid-loss.svg",
        "grid-size.png",
        "grid-size.svg",
    ] {
        let len = std::fs::metadata(out.join(f)).map(|m| m.len()).unwrap_or(0);
        assert!(len > 2_000, "{f}: {len} bytes");
    }
    let svg = std::fs::read_to_string(out.join("grid-loss.svg")).unwrap();
    assert!(svg.contains("tiny-grid: TTLB and packets lost against random loss"));
    assert!(svg.contains("3 seeds per cell"));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("id=\"chart-grid-loss\"") && html.contains("id=\"chart-grid-size\""));

    // `ramp report` on the directory finds the grid from the records alone.
    let report = dir.join("again.html");
    ok(&ramp()
        .arg("report")
        .arg(&out)
        .arg("-o")
        .arg(&report)
        .output()
        .unwrap());
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("id=\"chart-grid-loss\""));

    // `ramp plot grid`.
    let svg_path = dir.join("g.svg");
    ok(&ramp()
        .args(["plot", "grid"])
        .arg(out.join("records.ndjson"))
        .args(["--axis", "size", "-o"])
        .arg(&svg_path)
        .output()
        .unwrap());
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.contains("TTLB and packets lost against object size"));
    assert!(svg.contains("pooled over loss (2 values)"));
    // A bad axis is an error naming the choices, and writes nothing.
    let bad = ramp()
        .args(["plot", "grid"])
        .arg(out.join("records.ndjson"))
        .args(["--axis", "jitter", "-o"])
        .arg(dir.join("bad.svg"))
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("loss, rate, rtt, queue, size"));
    assert!(!dir.join("bad.svg").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
