//! `ramp fleet` end to end: determinism across thread counts, resume after
//! a kill (a torn last line), parameter checks, population file errors,
//! and `ramp report` on the output. Small runs (tens of connections).

use std::path::{Path, PathBuf};
use std::process::Command;

fn ramp() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ramp"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ramp-fleet-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn fleet(out: &Path, extra: &[&str]) -> std::process::Output {
    let mut c = ramp();
    c.args([
        "fleet",
        "--preset",
        "rapid-start-2026",
        "-n",
        "24",
        "--seed",
        "5",
        "-q",
        "--no-charts",
        "-o",
    ])
    .arg(out)
    .args(extra);
    c.output().expect("run ramp")
}

fn ok(o: &std::process::Output) {
    assert!(
        o.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn same_records_at_one_and_two_threads() {
    let (a, b) = (tmp("j1"), tmp("j2"));
    ok(&fleet(&a, &["-j", "1"]));
    ok(&fleet(&b, &["-j", "2"]));
    let ra = std::fs::read(a.join("records.ndjson")).unwrap();
    let rb = std::fs::read(b.join("records.ndjson")).unwrap();
    assert_eq!(ra, rb);
    assert_eq!(ra.iter().filter(|&&c| c == b'\n').count(), 24 * 4);
    let sa = std::fs::read_to_string(a.join("summary.md")).unwrap();
    assert_eq!(sa, std::fs::read_to_string(b.join("summary.md")).unwrap());
    assert!(sa.contains("| avg. |"));
    let first = String::from_utf8_lossy(&ra);
    let line = first.lines().next().unwrap();
    for key in [
        "\"group\":\"baseline\"",
        "\"pop\":",
        "\"size-bin\":",
        "\"conn\":0",
        "\"ttlb-us\":",
    ] {
        assert!(line.contains(key), "{key} missing in {line}");
    }
}

#[test]
fn resume_after_a_kill_loses_and_duplicates_nothing() {
    let full = tmp("full");
    ok(&fleet(&full, &[]));
    let want = std::fs::read(full.join("records.ndjson")).unwrap();
    // Cut mid-line (a kill during a write), and at a line boundary inside
    // a connection (some arms written, others not).
    let newline_at: Vec<usize> = want
        .iter()
        .enumerate()
        .filter(|(_, &c)| c == b'\n')
        .map(|(i, _)| i)
        .collect();
    for cut in [want.len() * 3 / 5, newline_at[4 * 7 + 1] + 1, 17] {
        let d = tmp(&format!("cut{cut}"));
        // The run directory as the interrupted run left it.
        std::fs::create_dir_all(&d).unwrap();
        std::fs::copy(full.join("fleet.params"), d.join("fleet.params")).unwrap();
        std::fs::write(d.join("records.ndjson"), &want[..cut]).unwrap();
        ok(&fleet(&d, &["--resume"]));
        let got = std::fs::read(d.join("records.ndjson")).unwrap();
        assert!(got == want, "cut at byte {cut}: resumed records differ");
        assert_eq!(
            std::fs::read_to_string(d.join("summary.md")).unwrap(),
            std::fs::read_to_string(full.join("summary.md")).unwrap()
        );
    }
    // Resuming a finished run changes nothing.
    ok(&fleet(&full, &["--resume"]));
    assert_eq!(std::fs::read(full.join("records.ndjson")).unwrap(), want);
}

#[test]
fn resume_checks_the_parameters_and_fresh_runs_refuse_to_overwrite() {
    let d = tmp("params");
    ok(&fleet(&d, &[]));
    let again = fleet(&d, &[]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
    let other_seed = {
        let mut c = ramp();
        c.args([
            "fleet",
            "-n",
            "24",
            "--seed",
            "6",
            "-q",
            "--no-charts",
            "--resume",
            "-o",
        ])
        .arg(&d);
        c.output().unwrap()
    };
    assert!(!other_seed.status.success());
    let e = String::from_utf8_lossy(&other_seed.stderr);
    assert!(e.contains("fleet.params"), "{e}");
    assert!(
        e.contains("`seed` (was 5, now 6)"),
        "names the parameter: {e}"
    );
}

#[test]
fn one_arm_and_a_damaged_middle_line_are_refused_before_simulating() {
    let d = tmp("onearm");
    let one = fleet(&d, &["--arms", "newreno"]);
    assert_eq!(one.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&one.stderr).contains("at least two"));
    assert!(!d.join("records.ndjson").exists(), "nothing simulated");

    let d = tmp("damaged");
    ok(&fleet(&d, &[]));
    let records = d.join("records.ndjson");
    let text = std::fs::read_to_string(&records).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[10] = "{\"conn\": 2, broken";
    std::fs::write(&records, lines.join("\n") + "\n").unwrap();
    let resumed = fleet(&d, &["--resume"]);
    assert_eq!(resumed.status.code(), Some(2));
    let e = String::from_utf8_lossy(&resumed.stderr);
    assert!(e.contains("line 11 is not a record"), "{e}");
}

#[test]
fn malformed_population_file_names_the_line() {
    let d = tmp("pop");
    std::fs::create_dir_all(&d).unwrap();
    let f = d.join("pop.toml");
    std::fs::write(
        &f,
        "[[region]]\nname = \"africa\"\n\n[[region]]\nname = \"x\"\nrate_mbps = [1, 2]\n",
    )
    .unwrap();
    let o = ramp()
        .args(["fleet", "-q", "--no-charts", "-n", "4", "--population"])
        .arg(&f)
        .arg("-o")
        .arg(d.join("out"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("pop.toml") && e.contains("line 4") && e.contains("region `x`"),
        "{e}"
    );
}

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
    let r = ramp().arg("report").arg(&d).output().unwrap();
    ok(&r);
}
