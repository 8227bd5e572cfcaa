//! `ramp fleet` end to end: determinism across thread counts, resume after
//! a kill (a torn last line), parameter checks, population file errors,
//! sharded runs merged byte for byte (and the merges that must be
//! refused), and `ramp report` on the output. Small runs (tens of
//! connections).

use std::path::{Path, PathBuf};

use crate::common::ramp;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ramp-fleet-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn fleet(out: &Path, extra: &[&str]) -> std::process::Output {
    fleet_seed(out, "5", extra)
}

fn fleet_seed(out: &Path, seed: &str, extra: &[&str]) -> std::process::Output {
    let mut c = ramp();
    c.args([
        "fleet",
        "--preset",
        "rapid-start-2026",
        "-n",
        "24",
        "--seed",
        seed,
        "-q",
        "--no-charts",
        "-o",
    ])
    .arg(out)
    .args(extra);
    c.output().expect("run ramp")
}

/// `fleet` without -q: the start line on stderr.
fn fleet_loud(out: &Path, extra: &[&str]) -> std::process::Output {
    ramp()
        .args([
            "fleet",
            "--preset",
            "rapid-start-2026",
            "-n",
            "24",
            "--seed",
            "5",
        ])
        .args(["--no-charts", "-o"])
        .arg(out)
        .args(extra)
        .output()
        .expect("run ramp")
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
fn quiet_means_nothing_on_stderr_but_errors() {
    let d = tmp("quiet");
    let o = fleet_seed(&d, "1", &[]);
    ok(&o);
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = ramp()
        .args([
            "fleet",
            "-n",
            "4",
            "--sensitivity",
            "2",
            "-q",
            "--no-charts",
            "-o",
        ])
        .arg(tmp("quiet-study"))
        .output()
        .unwrap();
    ok(&o);
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // An error still says what is wrong.
    let o = fleet_seed(&d, "2", &[]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--resume"));
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
}

fn files(d: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

fn shards(name: &str, n: u64, extra: &[&str]) -> Vec<PathBuf> {
    (0..n)
        .map(|k| {
            let d = tmp(&format!("{name}-shard{k}of{n}"));
            let s = format!("{k}/{n}");
            let mut args = vec!["--shard", s.as_str()];
            args.extend_from_slice(extra);
            ok(&fleet(&d, &args));
            d
        })
        .collect()
}

fn merge(dirs: &[PathBuf], out: &Path) -> std::process::Output {
    let mut c = ramp();
    c.args(["fleet", "merge"])
        .args(dirs)
        .arg("-o")
        .arg(out)
        .arg("--no-charts");
    c.output().expect("run ramp")
}

#[test]
fn sharded_runs_merge_into_the_unsharded_run_byte_for_byte() {
    let full = tmp("unsharded");
    ok(&fleet(&full, &[]));
    let want = files(&full);
    for n in [1u64, 3, 8, 30] {
        let mut dirs = shards(&format!("n{n}"), n, &[]);
        // Any order on the command line.
        dirs.reverse();
        let out = tmp(&format!("merged{n}"));
        ok(&merge(&dirs, &out));
        assert!(files(&out) == want, "{n} shards: merged run differs");
    }
}

#[test]
fn a_shard_resumes_after_a_kill() {
    let d = shards("resume", 3, &[]).remove(1);
    let want = std::fs::read(d.join("records.ndjson")).unwrap();
    let cut = tmp("resume-cut");
    std::fs::create_dir_all(&cut).unwrap();
    for f in ["fleet.params", "fleet.plan.json"] {
        std::fs::copy(d.join(f), cut.join(f)).unwrap();
    }
    std::fs::write(cut.join("records.ndjson"), &want[..want.len() / 2]).unwrap();
    ok(&fleet(&cut, &["--shard", "1/3", "--resume"]));
    assert!(std::fs::read(cut.join("records.ndjson")).unwrap() == want);
    // Resuming as another shard is refused.
    let o = fleet(&cut, &["--shard", "2/3", "--resume"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("shard"));
}

#[test]
fn a_fresh_shard_names_its_range_and_a_resumed_one_where_it_picks_up() {
    // A fresh shard used to say "resuming at connection 8".
    let d = tmp("shard-note");
    let o = fleet_loud(&d, &["--shard", "1/3"]);
    ok(&o);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("shard 1/3: connections 8..16"), "{e}");
    assert!(!e.contains("resuming"), "{e}");
    let records = d.join("records.ndjson");
    let want = std::fs::read(&records).unwrap();
    let cut = want.iter().filter(|&&b| b == b'\n').take(4 * 3).count();
    let at = want
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .nth(cut - 1)
        .unwrap()
        .0;
    std::fs::write(&records, &want[..=at]).unwrap();
    let o = fleet_loud(&d, &["--shard", "1/3", "--resume"]);
    ok(&o);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("shard 1/3: connections 8..16, resuming at connection 11"),
        "{e}"
    );
    assert!(std::fs::read(&records).unwrap() == want);
    // A shard's records are read by nothing else before the merge: its
    // resume checks each line's connection before simulating.
    let text = String::from_utf8(want).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[5] = "{\"conn\": 9, broken";
    std::fs::write(&records, lines.join("\n") + "\n").unwrap();
    let o = fleet(&d, &["--shard", "1/3", "--resume"]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("line 6 is not a record"), "{e}");
    lines[5] = lines[9];
    std::fs::write(&records, lines.join("\n") + "\n").unwrap();
    let e =
        String::from_utf8_lossy(&fleet(&d, &["--shard", "1/3", "--resume"]).stderr).into_owned();
    assert!(
        e.contains("line 6 is connection 10, but connection 9"),
        "{e}"
    );
}

#[test]
fn merge_refuses_foreign_missing_duplicate_and_truncated_shards() {
    let dirs = shards("refuse", 3, &[]);
    let err = |dirs: &[PathBuf], name: &str| -> String {
        let o = merge(dirs, &tmp(name));
        assert!(!o.status.success(), "{name}: merge succeeded");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    // A shard of another seed.
    let other = tmp("refuse-other-seed");
    ok(&fleet_seed(&other, "6", &["--shard", "2/3"]));
    let e = err(&[dirs[0].clone(), dirs[1].clone(), other], "m-seed");
    assert!(e.contains("different runs") && e.contains("seed"), "{e}");
    let e = err(&dirs[..2], "m-missing");
    assert!(e.contains("missing"), "{e}");
    let e = err(
        &[
            dirs[0].clone(),
            dirs[1].clone(),
            dirs[1].clone(),
            dirs[2].clone(),
        ],
        "m-dup",
    );
    assert!(e.contains("twice"), "{e}");
    // A truncated records file.
    let r = dirs[2].join("records.ndjson");
    let bytes = std::fs::read(&r).unwrap();
    std::fs::write(&r, &bytes[..bytes.len() - 10]).unwrap();
    let e = err(&dirs, "m-trunc");
    assert!(e.contains("truncated"), "{e}");
    // A truncated manifest.
    std::fs::write(&r, &bytes).unwrap();
    let m = dirs[1].join("shard.json");
    let text = std::fs::read_to_string(&m).unwrap();
    std::fs::write(&m, &text[..text.len() / 2]).unwrap();
    let e = err(&dirs, "m-manifest");
    assert!(e.contains("shard manifest"), "{e}");
}

/// Rewrites `dir`'s manifest so that it matches the records now there
/// (what a tamperer, or a buggy driver, would do).
fn reseal(dir: &Path) {
    let r = std::fs::read(dir.join("records.ndjson")).unwrap();
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in &r {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    let m = dir.join("shard.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&m).unwrap()).unwrap();
    v["records_bytes"] = r.len().into();
    v["records_lines"] = r.iter().filter(|&&b| b == b'\n').count().into();
    v["records_fnv1a64"] = format!("{h:016x}").into();
    std::fs::write(&m, v.to_string()).unwrap();
}

#[test]
fn merge_checks_each_record_is_its_shards_connection_and_a_failure_blocks_no_retry() {
    let dirs = shards("conncheck", 2, &[]);
    let good1 = std::fs::read(dirs[1].join("records.ndjson")).unwrap();
    // Shard 0's records copied into shard 1, the manifest rewritten to match.
    std::fs::copy(
        dirs[0].join("records.ndjson"),
        dirs[1].join("records.ndjson"),
    )
    .unwrap();
    reseal(&dirs[1]);
    let out = tmp("conncheck-out");
    let o = merge(&dirs, &out);
    assert!(!o.status.success(), "merge of copied records succeeded");
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("records.ndjson:1: connection 0") && e.contains("must hold connection 12"),
        "{e}"
    );
    assert!(!out.join("records.ndjson").exists());
    // The shard run again, the same merge into the same directory works.
    std::fs::write(dirs[1].join("records.ndjson"), &good1).unwrap();
    reseal(&dirs[1]);
    ok(&merge(&dirs, &out));
    assert_eq!(
        std::fs::read(out.join("records.ndjson")).unwrap().len(),
        std::fs::read(dirs[0].join("records.ndjson")).unwrap().len() + good1.len()
    );
}

#[test]
fn the_manifest_lists_its_files_and_describe_says_what_a_driver_needs() {
    let d = shards("files", 2, &[]).remove(0);
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("shard.json")).unwrap()).unwrap();
    let files: Vec<&str> = m["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(files, ["records.ndjson", "fleet.params", "fleet.plan.json"]);
    for f in files {
        assert!(d.join(f).is_file(), "{f}");
    }
    // Short flags glued to their values, and a later flag overriding an
    // earlier one, as a driver appends its own.
    let o = ramp()
        .args([
            "fleet",
            "-n",
            "24",
            "-j2",
            "-oX",
            "--describe",
            "-o",
            "Y",
            "--no-charts",
        ])
        .output()
        .unwrap();
    ok(&o);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["out"], "Y");
    assert_eq!(v["threads"], 2);
    assert_eq!(v["no_charts"], true);
    assert_eq!(v["connections"], 24);
    assert!(!Path::new("Y").exists() && !Path::new("X").exists());
}

#[test]
fn merge_refuses_an_output_that_is_one_of_its_shards() {
    let dirs = shards("selfout", 2, &[]);
    let o = merge(&dirs, &dirs[1]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("that is an input"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
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
}

#[test]
fn a_sensitivity_study_is_the_same_bytes_at_any_shard_and_thread_count() {
    // 1 base + 2 x 10 one-at-a-time + 4 Latin-hypercube points, 24
    // connections each.
    let study = ["--sensitivity", "4", "-j", "2"];
    let full = tmp("study");
    let o = fleet(&full, &study);
    ok(&o);
    let want = files(&full);
    let points = std::fs::read_to_string(full.join("points.ndjson")).unwrap();
    assert_eq!(points.lines().count(), 25);
    assert!(points.starts_with("{\"conn\":0,"), "{points}");
    assert!(points.contains("\"point\":\"high:paths.fixed_aqm_share\""));
    let md = std::fs::read_to_string(full.join("sensitivity.md")).unwrap();
    for want in [
        "## Declared assumptions",
        "## One at a time",
        "## 90 % intervals over the Latin hypercube (4 points)",
        "| global |",
        "## Published figures",
        "## What explains the global gain's variance",
    ] {
        assert!(md.contains(want), "{want}: {md}");
    }
    // One thread: the same bytes.
    let one = tmp("study-j1");
    ok(&fleet(&one, &["--sensitivity", "4", "-j", "1"]));
    assert!(files(&one) == want, "thread count changed the study");
    // Sharded by point, any shard count, merged: the same bytes.
    for n in [2u64, 4] {
        let dirs = shards(&format!("study{n}"), n, &study);
        let out = tmp(&format!("study-merged{n}"));
        ok(&merge(&dirs, &out));
        assert!(files(&out) == want, "{n} shards: merged study differs");
    }
    // Resuming a study is refused with a reason.
    let o = fleet(&tmp("study-resume"), &["--sensitivity", "4", "--resume"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("does not resume"));
}

#[test]
fn a_summary_that_spills_sorted_runs_to_disk_is_the_same_bytes() {
    let (a, b) = (tmp("nospill"), tmp("spill"));
    ok(&fleet(&a, &[]));
    // Seven values per sorted run: 24 connections x 4 arms spill dozens.
    let o = ramp()
        .env("RAMP_SUMMARY_SPILL_ENTRIES", "7")
        .args([
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
        .arg(&b)
        .output()
        .expect("run ramp");
    ok(&o);
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
fn bench_fleet_prints_the_phases_serial_fraction_and_amdahl() {
    let d = tmp("bench");
    let o = ramp()
        .args(["bench", "fleet", "-n", "6", "-j", "2", "--dir"])
        .arg(&d)
        .output()
        .expect("run ramp");
    ok(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    for want in [
        "threads",
        "serial fraction s =",
        "Amdahl:",
        "measured at 2 threads",
    ] {
        assert!(out.contains(want), "{want} missing in:\n{out}");
    }
    // One row per run, 1 and 2 threads.
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with(['1', '2']))
        .collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(d.join("j1").join("summary.md").exists());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bench_all_prints_one_table_of_every_figure() {
    let o = ramp()
        .args([
            "bench",
            "all",
            "--seconds",
            "0.1",
            "--callgrind-connections",
            "1",
            "-n",
            "4",
        ])
        .output()
        .expect("run ramp");
    ok(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("| ")).collect();
    // Header, then instructions and packets/s per workload, then three
    // fleet rows (valgrind missing leaves "-" with the reason, not a gap).
    assert_eq!(rows.len(), 1 + 4 + 3, "{out}");
    for want in ["instructions per packet", "packets/s per core", "speed-up"] {
        assert!(out.contains(want), "{want} missing in:\n{out}");
    }
}

#[test]
fn trace_conn_reruns_one_connection_with_its_records_bytes_and_traces() {
    let d = tmp("trace-conn");
    ok(&fleet(&d, &[]));
    let records = std::fs::read_to_string(d.join("records.ndjson")).unwrap();
    let lines_of = |n: u64| -> String {
        let end = format!(",\"conn\":{n}}}");
        records
            .lines()
            .filter(|l| l.ends_with(&end))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let o = fleet(&d, &["--trace-conn", "17,3", "--trace-conn", "17"]);
    ok(&o);
    let said = String::from_utf8_lossy(&o.stdout);
    for n in [17u64, 3] {
        let got = std::fs::read_to_string(d.join(format!("conn-{n}.records.ndjson"))).unwrap();
        assert_eq!(got.lines().count(), 4, "one record per arm");
        assert!(got == lines_of(n), "connection {n}: records differ");
        for arm in ["baseline", "jumpstart", "rapid-no-jump", "rapidstart"] {
            let t = d.join(format!("traces/conn-{n}-{arm}.ndjson"));
            let trace = std::fs::read_to_string(&t).unwrap();
            assert!(trace.starts_with("{\"ev\":\"meta\""), "{}", t.display());
            assert!(trace.contains("\"ev\":\"sent\""), "{}", t.display());
            assert!(said.contains(&t.display().to_string()), "{said}");
            let q = d.join(format!("qlog/conn-{n}-{arm}.sqlog"));
            assert!(std::fs::metadata(&q).unwrap().len() > 0, "{}", q.display());
        }
    }
    // The run's other files are untouched, and `ramp report` reads the
    // traces next to the records.
    assert_eq!(
        std::fs::read_to_string(d.join("records.ndjson")).unwrap(),
        records
    );
    let report = ramp()
        .args(["report"])
        .arg(&d)
        .arg("-o")
        .arg(d.join("with-traces.html"))
        .output()
        .unwrap();
    ok(&report);
    // Another run's parameters, and a connection the run does not have,
    // are refused.
    let o = fleet_seed(&d, "6", &["--trace-conn", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("`seed` (was 5, now 6)"));
    let o = fleet(&d, &["--trace-conn", "24"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("connections 0..24"));
    // A shard's directory traces any connection of the run.
    let s = shards("trace-conn", 3, &[]).remove(2);
    ok(&fleet(&s, &["--trace-conn", "3"]));
    assert!(std::fs::read_to_string(s.join("conn-3.records.ndjson")).unwrap() == lines_of(3));
}

#[test]
fn charts_of_a_large_run_come_from_a_seeded_sample_the_same_at_any_thread_and_shard_count() {
    // RAMP_CHART_CONNECTIONS=10 makes a 24-connection run sample as a
    // run above 20 000 connections does.
    let run = |out: &Path, extra: &[&str]| {
        let mut c = ramp();
        c.env("RAMP_CHART_CONNECTIONS", "10")
            .args(["fleet", "-n", "24", "--seed", "5", "-q", "-o"])
            .arg(out)
            .args(extra);
        c.output().unwrap()
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
