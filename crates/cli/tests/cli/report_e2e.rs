//! End to end: `ramp report` on a synthetic run directory, then the page
//! rendered in headless Chromium: no console errors, every chart present
//! and non-empty, and a screenshot that is not blank.
//!
//! Skips (saying so) only when no Chromium binary exists; set
//! RAMP_CHROMIUM to point at one explicitly.

use crate::browser::{browser, console_lines, find_browser};
use std::path::{Path, PathBuf};

use crate::common::ramp;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ramp-report-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A run directory from the toy fixtures: 12 paths × 2 arms of records,
/// traces for path 1.
fn make_run_dir(dir: &Path) {
    let (records, traces) = ramp_plot::fixtures::fleet(12, 1);
    std::fs::write(dir.join("records.ndjson"), records).unwrap();
    std::fs::create_dir_all(dir.join("traces")).unwrap();
    for (name, text) in traces {
        std::fs::write(dir.join("traces").join(name), text).unwrap();
    }
    std::fs::write(dir.join("scenario.toml"), "name = \"toy\"\n# <not html>\n").unwrap();
}

#[test]
fn report_renders_in_headless_chromium() {
    let dir = scratch("chromium");
    make_run_dir(&dir);
    let report = dir.join("report.html");
    let out = ramp()
        .args(["report"])
        .arg(&dir)
        .arg("-o")
        .arg(&report)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ramp report failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&report).unwrap();
    let expected = [
        "chart-delivery",
        "chart-timeseq-0",
        "chart-timeseq-1",
        "chart-ab",
        "chart-ab-pop",
        "chart-paired",
    ];
    for id in expected {
        assert!(html.contains(&format!("id=\"{id}\"")), "report lacks {id}");
    }
    assert!(
        html.contains("&lt;not html&gt;"),
        "scenario.toml must be escaped"
    );
    assert!(
        !html.contains("src=") && !html.contains("href=\"http"),
        "report must be self-contained"
    );

    let Some(bin) = find_browser() else {
        ramp_vocab::note!(
            "SKIPPED: report_renders_in_headless_chromium: no Chromium binary found \
             (install Debian's `chromium` or set RAMP_CHROMIUM)"
        );
        return;
    };
    let url = format!("file://{}", report.display());

    // 1. The DOM after scripts ran.
    let dom = browser(&bin, &dir.join("profile-dom"), &["--dump-dom".into()], &url);
    let dom_text = String::from_utf8_lossy(&dom.stdout);
    let stderr = String::from_utf8_lossy(&dom.stderr);
    assert!(dom.status.success(), "browser failed: {stderr}");
    assert!(
        console_lines(&stderr).is_empty(),
        "console messages: {:?}",
        console_lines(&stderr)
    );
    assert!(
        dom_text.contains("data-ready=\"1\""),
        "the page script did not finish"
    );
    assert!(
        dom_text.contains(&format!("data-charts=\"{}\"", expected.len())),
        "chart count differs"
    );
    for id in expected {
        let at = dom_text
            .find(&format!("id=\"{id}\""))
            .unwrap_or_else(|| panic!("{id} missing from the rendered DOM"));
        let figure = &dom_text[at..];
        let end = figure.find("</figure>").expect("figure closes");
        let figure = &figure[..end];
        assert!(figure.contains("<svg"), "{id} has no svg");
        let shapes = [
            "<path",
            "<polyline",
            "<circle",
            "<rect",
            "<polygon",
            "<line",
        ]
        .iter()
        .map(|t| figure.matches(t).count())
        .sum::<usize>();
        assert!(shapes > 20, "{id} looks empty ({shapes} shapes)");
        assert!(figure.matches("<text").count() > 5, "{id} has no labels");
    }

    // 2. A screenshot that is not blank.
    let shot = dir.join("shot.png");
    let s = browser(
        &bin,
        &dir.join("profile-shot"),
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,2400".into(),
            "--hide-scrollbars".into(),
        ],
        &url,
    );
    let stderr = String::from_utf8_lossy(&s.stderr);
    assert!(s.status.success(), "screenshot failed: {stderr}");
    assert!(
        console_lines(&stderr).is_empty(),
        "console messages: {:?}",
        console_lines(&stderr)
    );
    let (distinct, busy) = png_stats(&shot);
    assert!(distinct > 64, "screenshot has only {distinct} colours");
    assert!(
        busy > 0.02,
        "screenshot is {:.1}% non-background",
        busy * 100.0
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// (distinct colours, share of pixels differing from the most common one).
fn png_stats(path: &Path) -> (usize, f64) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let px = &buf[..info.buffer_size()];
    let mut counts = std::collections::HashMap::new();
    for p in px.chunks(channels) {
        *counts
            .entry(p[..3.min(channels)].to_vec())
            .or_insert(0usize) += 1;
    }
    let total = px.len() / channels;
    let top = counts.values().copied().max().unwrap_or(0);
    (counts.len(), 1.0 - top as f64 / total as f64)
}
