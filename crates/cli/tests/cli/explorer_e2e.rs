//! End to end: the report's explorer driven in headless Chromium on a
//! small fleet run (the rapid-start-2026 preset).
//!
//! - Unfiltered, the explorer's table equals summary.json's global figures
//!   (TTLB and loss) to the printed precision.
//! - The slice "access = mobile, size bin = 1.6MB-3.2MB", set through the
//!   URL fragment, shows the per-arm percentiles and changes `ndq`
//!   computes on records.ndjson.
//! - The band the page computes equals ramp_plot::ab_curves's band on the
//!   same values (the bootstrap reimplemented identically).
//! - A filter that leaves no connection says so, with no chart and no NaN.
//! - The console is free of messages throughout; the redraw time measured
//!   in the page is printed.
//!
//! Skips (saying so) when no Chromium binary exists; set RAMP_CHROMIUM to
//! point at one explicitly.

use crate::browser::{browser, console_lines, find_browser};
use std::path::{Path, PathBuf};
use std::process::Command;

const SLICE: &str = "access=mobile&size-bin=1.6MB-3.2MB";
const DECILES: [u32; 9] = [10, 20, 30, 40, 50, 60, 70, 80, 90];
const ROWS: [u32; 11] = [10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99];

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ramp-explorer-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_ok(cmd: &mut Command) -> String {
    let o = cmd.output().expect("run");
    assert!(
        o.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// The page after its scripts ran. With `settle`, a virtual time budget
/// lets the band's chunks (timers) finish; but virtual time also stops the
/// page's clock within a task, so redraw times are taken without it (the
/// explorer decodes and draws synchronously while the page loads).
fn load(bin: &Path, dir: &Path, report: &Path, fragment: &str, tag: &str, settle: bool) -> String {
    let url = format!("file://{}#{fragment}", report.display());
    let mut flags = vec!["--dump-dom".to_string()];
    if settle {
        flags.push("--virtual-time-budget=60000".into());
    }
    let out = browser(bin, &dir.join(format!("profile-{tag}")), &flags, &url);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "browser failed: {stderr}");
    let console = console_lines(&stderr);
    assert!(console.is_empty(), "console messages ({tag}): {console:?}");
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        root_attr(&dom, "data-state").as_deref() == Some("ready"),
        "explorer did not start ({tag}): {}",
        &dom[dom.find("explorer-root").unwrap_or(0)..][..400.min(dom.len())]
    );
    dom
}

/// An attribute of the explorer's root element.
fn root_attr(dom: &str, name: &str) -> Option<String> {
    let at = dom.find("id=\"explorer-root\"")?;
    let tag = &dom[at..at + dom[at..].find('>')?];
    let k = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(tag[k..k + tag[k..].find('"')?].to_string())
}

/// The text of the table cell (row, arm, `v` value or `d` change).
fn cell(dom: &str, row: &str, arm: &str, k: &str) -> String {
    let r = dom
        .find(&format!("<tr data-row=\"{row}\">"))
        .unwrap_or_else(|| panic!("no row {row}"));
    let tr = &dom[r..r + dom[r..].find("</tr>").unwrap()];
    let key = format!("<td data-arm=\"{arm}\" data-k=\"{k}\">");
    let c = tr
        .find(&key)
        .unwrap_or_else(|| panic!("no cell {row}/{arm}/{k}"))
        + key.len();
    tr[c..c + tr[c..].find("</td>").unwrap()].to_string()
}

/// The number in a cell ("1234.5 ms", "+3.2%", "-0.12 pp", "42").
fn num(text: &str) -> f64 {
    let t: String = text
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+'))
        .collect();
    t.parse()
        .unwrap_or_else(|_| panic!("not a number: {text:?}"))
}

/// Asserts the printed `shown` is `want` to `decimals` places (half a unit
/// of the last place, and a hair for `want` itself being rounded).
fn close(shown: &str, want: f64, decimals: i32, what: &str) {
    let tol = 0.5 * 10f64.powi(-decimals) + 1e-4;
    assert!(
        (num(shown) - want).abs() <= tol,
        "{what}: page shows {shown}, expected {want}"
    );
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn explorer_in_headless_chromium_matches_summary_ndq_and_the_rust_band() {
    let dir = scratch("fleet");
    let run = dir.join("run");
    run_ok(
        Command::new(env!("CARGO_BIN_EXE_ramp"))
            .args(["fleet", "--preset", "rapid-start-2026", "-n", "400"])
            .args(["--seed", "5", "-q", "--no-charts", "-o"])
            .arg(&run),
    );
    run_ok(
        Command::new(env!("CARGO_BIN_EXE_ramp"))
            .arg("report")
            .arg(&run),
    );
    let report = run.join("report.html");
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("id=\"explorer-meta\""), "no explorer");
    assert!(!html.contains("src=") && !html.contains("href=\"http"));
    let summary = json(&std::fs::read_to_string(run.join("summary.json")).unwrap());
    let arms: Vec<String> = summary["arms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["label"].as_str().unwrap().to_string())
        .collect();
    let base = arms[0].clone();

    let Some(bin) = find_browser() else {
        ramp_vocab::note!(
            "SKIPPED: explorer_in_headless_chromium_matches_summary_ndq_and_the_rust_band: \
             no Chromium binary found (install Debian's `chromium` or set RAMP_CHROMIUM)"
        );
        return;
    };

    unfiltered_matches_summary(&bin, &dir, &report, &summary, &base);
    slice_matches_ndq(&bin, &dir, &report, &run, &summary, &arms, &base);
    band_matches_ramp_plot(&bin, &dir, &report, &run, &base);
    empty_filter_says_so(&bin, &dir, &report);
    let _ = std::fs::remove_dir_all(&dir);
}

/// 1. Unfiltered: summary.json's global figures.
fn unfiltered_matches_summary(
    bin: &Path,
    dir: &Path,
    report: &Path,
    summary: &serde_json::Value,
    base: &str,
) {
    let dom = load(bin, dir, report, "", "all", false);
    let g = &summary["global"];
    close(
        &cell(&dom, "n", base, "v"),
        g["connections"].as_f64().unwrap(),
        0,
        "paths",
    );
    for (i, a) in g["arms"].as_array().unwrap().iter().enumerate() {
        let arm = a["arm"].as_str().unwrap();
        close(
            &cell(&dom, "mean", arm, "v"),
            a["mean_ms"].as_f64().unwrap(),
            1,
            "mean",
        );
        for (k, p) in DECILES.iter().enumerate() {
            let row = format!("p{p}");
            close(
                &cell(&dom, &row, arm, "v"),
                a["deciles_ms"][k].as_f64().unwrap(),
                1,
                &format!("{arm} {row}"),
            );
            if i > 0 {
                close(
                    &cell(&dom, &row, arm, "d"),
                    a["decile_change_pct"][k].as_f64().unwrap(),
                    1,
                    &format!("{arm} Δ{row}"),
                );
            }
        }
        if i > 0 {
            close(
                &cell(&dom, "mean", arm, "d"),
                a["mean_change_pct"].as_f64().unwrap(),
                1,
                "Δ mean",
            );
            close(
                &cell(&dom, "avg-delta", arm, "d"),
                a["pctl_change_avg_pct"].as_f64().unwrap(),
                1,
                "avg Δ p5..p95",
            );
        }
    }
    let dom = load(bin, dir, report, "metric=loss", "loss", false);
    for l in summary["loss"].as_array().unwrap() {
        let arm = l["arm"].as_str().unwrap();
        close(
            &cell(&dom, "n", arm, "v"),
            l["connections"].as_f64().unwrap(),
            0,
            "loss n",
        );
        for (row, key) in [
            ("mean", "avg_pct"),
            ("p50", "p50_pct"),
            ("p90", "p90_pct"),
            ("p99", "p99_pct"),
        ] {
            close(
                &cell(&dom, row, arm, "v"),
                l[key].as_f64().unwrap(),
                2,
                &format!("{arm} loss {row}"),
            );
        }
    }
}

/// 2. The slice against ndq on records.ndjson.
fn slice_matches_ndq(
    bin: &Path,
    dir: &Path,
    report: &Path,
    run: &Path,
    summary: &serde_json::Value,
    arms: &[String],
    base: &str,
) {
    let probs: Vec<String> = ROWS
        .iter()
        .map(|p| format!("{}", *p as f64 / 100.0))
        .collect();
    let query = format!(
        "select(_.access == \"mobile\" && _[\"size-bin\"] == \"1.6MB-3.2MB\" && _.completed) \
     >> group_by(_.group) {{ [count(), percentile_cont(_[\"ttlb-us\"], [{}])] }}",
        probs.join(", ")
    );
    let ndq = json(&run_ok(
        Command::new(env!("CARGO_BIN_EXE_ndq"))
            .arg(&query)
            .arg(run.join("records.ndjson")),
    ));
    let n_base = ndq[&base][0].as_f64().unwrap();
    assert!(n_base >= 5.0, "the slice is too small to test: {ndq}");
    for a in arms {
        // ndq counts each arm's completed connections; the page pairs
        // paths across arms. They agree when every path completed in
        // every arm, which this run must have for the comparison to hold.
        assert_eq!(ndq[a][0].as_f64(), Some(n_base), "{ndq}");
    }
    let dom = load(
        bin,
        dir,
        report,
        &format!("{SLICE}&bench=20"),
        "slice",
        false,
    );
    assert_eq!(root_attr(&dom, "data-empty").as_deref(), Some("0"));
    close(&cell(&dom, "n", base, "v"), n_base, 0, "slice paths");
    for (i, a) in arms.iter().enumerate() {
        for (k, p) in ROWS.iter().enumerate() {
            let row = format!("p{p}");
            let v_us = ndq[a][1][k].as_f64().unwrap();
            close(
                &cell(&dom, &row, a, "v"),
                v_us / 1000.0,
                1,
                &format!("slice {a} {row}"),
            );
            if i > 0 {
                let b_us = ndq[&base][1][k].as_f64().unwrap();
                close(
                    &cell(&dom, &row, a, "d"),
                    100.0 * (v_us / b_us - 1.0),
                    1,
                    &format!("slice {a} Δ{row}"),
                );
            }
        }
    }
    eprintln!(
        "explorer redraw times in headless Chromium ({} paths x {} arms, slice then none, \
     20 redraws): median {} ms, max {} ms; all: {}",
        summary["connections"],
        arms.len(),
        root_attr(&dom, "data-bench-median-ms").unwrap_or_default(),
        root_attr(&dom, "data-bench-max-ms").unwrap_or_default(),
        root_attr(&dom, "data-bench-ms").unwrap_or_default()
    );
}

/// 3. The band against ramp_plot's bootstrap on the same values.
fn band_matches_ramp_plot(bin: &Path, dir: &Path, report: &Path, run: &Path, base: &str) {
    let dom = load(bin, dir, report, SLICE, "band", true);
    assert_eq!(root_attr(&dom, "data-band").as_deref(), Some("done"));
    let records = ramp_plot::read_records(&run.join("records.ndjson")).unwrap();
    let slice: Vec<ramp_plot::Record> = records
        .into_iter()
        .filter(|r| {
            r.text("access").as_deref() == Some("mobile")
                && r.text("size-bin").as_deref() == Some("1.6MB-3.2MB")
        })
        .collect();
    let ab = ramp_plot::ab_curves(&slice, &ramp_plot::AbOptions::new(base)).unwrap();
    let bands = root_attr(&dom, "data-band-p50").unwrap();
    for c in &ab.panels[0].curves {
        let p50 = c.points.iter().find(|p| p.percentile == 50.0).unwrap();
        let page = bands
            .split('|')
            .find_map(|b| b.strip_prefix(&format!("{}:", c.arm)))
            .unwrap_or_else(|| panic!("no band for {} in {bands}", c.arm));
        let (lo, hi) = page.split_once(':').unwrap();
        let (lo, hi): (f64, f64) = (lo.parse().unwrap(), hi.parse().unwrap());
        assert!(
            (lo - p50.lo_pct).abs() < 1e-9 && (hi - p50.hi_pct).abs() < 1e-9,
            "{}: page band [{lo}, {hi}], ramp_plot [{}, {}]",
            c.arm,
            p50.lo_pct,
            p50.hi_pct
        );
    }
}

/// 4. A filter that leaves nothing.
fn empty_filter_says_so(bin: &Path, dir: &Path, report: &Path) {
    let dom = load(
        bin,
        dir,
        report,
        &format!("{SLICE}&path.rtt-ms=0..0.001"),
        "empty",
        true,
    );
    assert_eq!(root_attr(&dom, "data-empty").as_deref(), Some("1"));
    let at = dom.find("id=\"explorer-root\"").unwrap();
    let explorer = &dom[at..at + dom[at..].find("explorer-meta").unwrap()];
    assert!(explorer.contains("No connections match these filters"));
    assert!(!explorer.contains("NaN"), "NaN shown");
}

/// A grid run's explorer filters by its `grid.*` keys; a comparison run's
/// (one path) shows its arms with no filter to offer.
#[test]
fn explorer_on_grid_and_compare_runs_offers_the_filters_that_fit() {
    let dir = scratch("grid");
    let pop = dir.join("grid.toml");
    std::fs::write(
        &pop,
        "name = \"tiny-grid\"\n[grid]\nrates = [\"20mbit\"]\nrtts = [\"20ms\", \"80ms\"]\n\
         queues = [\"20ms\"]\nlosses = [\"0%\", \"3%\"]\nsizes = [\"60KB\"]\nseeds = 3\n",
    )
    .unwrap();
    let grid = dir.join("grid");
    run_ok(
        Command::new(env!("CARGO_BIN_EXE_ramp"))
            .args(["fleet", "-q", "--population"])
            .arg(&pop)
            .arg("-o")
            .arg(&grid),
    );
    let cmp = dir.join("cmp");
    run_ok(
        Command::new(env!("CARGO_BIN_EXE_ramp"))
            .args(["compare", "--no-traces", "-o"])
            .arg(&cmp),
    );
    let Some(bin) = find_browser() else {
        ramp_vocab::note!(
            "SKIPPED: explorer_on_grid_and_compare_runs_offers_the_filters_that_fit: \
             no Chromium binary found (install Debian's `chromium` or set RAMP_CHROMIUM)"
        );
        return;
    };
    let report = grid.join("report.html");
    let dom = load(&bin, &dir, &report, "grid.loss=0.03", "grid", false);
    for key in ["grid.loss", "grid.rtt-ms"] {
        assert!(
            dom.contains(&format!("data-dim=\"{key}\"")),
            "no {key} filter"
        );
    }
    assert!(
        !dom.contains("data-dim=\"grid.rate-bps\""),
        "one rate: no filter"
    );
    assert!(
        dom.contains("6 of 12 paths match (grid.loss = 0.03)"),
        "{}",
        &dom[dom.find("ex-status").unwrap()..][..200]
    );
    let dom = load(&bin, &dir, &cmp.join("report.html"), "", "cmp", false);
    assert!(
        !dom.contains("multiple=\"\" data-dim="),
        "a single path has nothing to filter"
    );
    assert!(dom.contains("1 of 1 paths match"));
    assert_eq!(root_attr(&dom, "data-empty").as_deref(), Some("0"));
    let _ = std::fs::remove_dir_all(&dir);
}
