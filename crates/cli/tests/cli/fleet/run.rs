//! One fleet run, start to finish: the same records at any thread count,
//! resume after a kill (a torn last line), the parameter check on resume,
//! refusals before any simulation, population-file errors, a summary that
//! spills to disk, and what `--list-presets` declares.

use super::{command, fleet, fleet_seed, ok, output, tmp};
use crate::common::ramp;

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
    let other_seed = fleet_seed(&d, "6", &["--resume"]);
    assert!(!other_seed.status.success());
    let e = String::from_utf8_lossy(&other_seed.stderr);
    assert!(e.contains("fleet.params"), "{e}");
    assert!(
        e.contains("`seed` (was 5, now 6)"),
        "names the parameter: {e}"
    );
    // The file is readable text: no Rust Debug dumps.
    let params = std::fs::read_to_string(d.join("fleet.params")).unwrap();
    assert!(
        params.contains("\nregion = \"africa weight 1\"\n"),
        "{params}"
    );
    assert!(params.contains("\nmodel.fnv1a64 = \""), "{params}");
    assert!(!params.contains("Region {") && !params.contains("Workload {"));
    // A run of an older ramp (Debug dumps in fleet.params) is named as such.
    std::fs::write(
        d.join("fleet.params"),
        "name = \"rapid-start-2026\"\nseed = 5\npopulation = \"Regions([Region { name: \\\"east-asia\\\" }])\"\n",
    )
    .unwrap();
    let old = fleet(&d, &["--resume"]);
    assert_eq!(old.status.code(), Some(2));
    let e = String::from_utf8_lossy(&old.stderr);
    assert!(e.contains("written by an older ramp"), "{e}");
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
fn a_summary_that_spills_sorted_runs_to_disk_is_the_same_bytes() {
    let (a, b) = (tmp("nospill"), tmp("spill"));
    ok(&fleet(&a, &[]));
    // Seven values per sorted run: 24 connections x 4 arms spill dozens.
    ok(&output(
        command(&b, "5")
            .env("RAMP_SUMMARY_SPILL_ENTRIES", "7")
            .args(["-q", "--no-charts"]),
    ));
    for f in ["records.ndjson", "summary.md", "summary.json"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f}"
        );
    }
    assert!(
        !b.join(".summary-spill").exists(),
        "the spill files are removed"
    );
}

#[test]
fn list_presets_names_public_sources_not_files_outside_the_repository() {
    let o = ramp().args(["fleet", "--list-presets"]).output().unwrap();
    ok(&o);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("IETF 125"), "{text}");
    assert!(!text.contains("seeds/"), "{text}");
}

#[test]
fn list_presets_declares_each_assumption_with_value_range_and_reason() {
    let o = ramp().args(["fleet", "--list-presets"]).output().unwrap();
    ok(&o);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("    assumes paths.fixed_aqm_share = 0.7, range [0, 1]: no source"),
        "{text}"
    );
    assert!(
        text.contains("assumes region.chrome_ack_share = 0.6"),
        "{text}"
    );
    assert!(
        text.contains(
            "    assumes endpoint.respect_app_limited_share = 0, range [0, 1]: h2o/quicly"
        ),
        "{text}"
    );
    assert!(
        text.contains("    assumes workload.video_share = 0, range [0, 0.65]: the share"),
        "{text}"
    );
}

/// A `--preset` that is not a built-in experiment is a usage error: clap
/// refuses it (exit 2) with the names, before `ramp fleet` or
/// `ramp bench fleet` creates a directory (bench fleet used to create and
/// mark its --dir first).
#[test]
fn a_bad_preset_is_refused_with_the_names_before_any_work() {
    let (out, dir) = (tmp("bad-preset-out"), tmp("bad-preset-dir"));
    let runs = [
        ramp()
            .args(["fleet", "--preset", "no-such-preset", "-n", "2", "-o"])
            .arg(&out)
            .output(),
        ramp()
            .args([
                "bench",
                "fleet",
                "--preset",
                "no-such-preset",
                "-n",
                "2",
                "--dir",
            ])
            .arg(&dir)
            .output(),
    ];
    for o in runs {
        let o = o.expect("run ramp");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("'--preset <PRESET>'"), "{err}");
        for name in ["rapid-start-2026", "cubic-hystart-matrix", "l4s-2026"] {
            assert!(err.contains(name), "{name} missing in:\n{err}");
        }
    }
    assert!(!out.exists(), "{} was created", out.display());
    assert!(!dir.exists(), "{} was created", dir.display());
}
