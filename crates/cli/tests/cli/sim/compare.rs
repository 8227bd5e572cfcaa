//! `ramp compare` end to end: its arms, and the run directory it replaces whole.

use std::process::Command;

use super::{run_ok, tmpdir};
use crate::common::ramp;

/// Harnesses that run the seed arms on other stacks (bench/interop/run.py)
/// read them from here, so the list must be ramp_cc's constants verbatim.
#[test]
fn compare_list_arms_prints_the_seed_arms_verbatim_and_runs_nothing() {
    let out = run_ok(&["compare", "--list-arms"]);
    let want: String = ramp_cc::spec::SEED_ARMS
        .iter()
        .map(|(label, spec)| format!("{label}\t{spec}\n"))
        .collect();
    assert_eq!(out, want);
    let out = run_ok(&["compare", "--list-arms", "--arms", "rfc9002"]);
    assert!(out.starts_with("baseline\tnewreno(iw=30)\n"), "{out}");
}

#[test]
fn compare_refuses_what_sim_refuses() {
    let out = ramp()
        .args(["compare", "--no-report", "--size", "0"])
        .output()
        .expect("ramp compare runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("size"), "{stderr}");
}

#[test]
fn compare_replaces_its_own_run_whole_and_refuses_another_commands_directory() {
    let d = tmpdir("compare-owner");
    let out = d.join("run");
    let out_s = out.to_string_lossy().to_string();
    run_ok(&["compare", "-o", &out_s, "--size", "200KB"]);
    let traces = |p: &std::path::Path| std::fs::read_dir(p.join("traces")).unwrap().count();
    assert_eq!(traces(&out), 4, "the four seed arms");
    run_ok(&[
        "compare",
        "-o",
        &out_s,
        "--size",
        "200KB",
        "--cc",
        "newreno,rapidstart",
    ]);
    assert_eq!(traces(&out), 2, "no stale traces from the first run");
    // A directory another command made, or a person filled, is refused
    // and left as it was.
    let fleet = d.join("fleet");
    let fleet_s = fleet.to_string_lossy().to_string();
    run_ok(&["fleet", "-n", "5", "--seed", "1", "-q", "-o", &fleet_s]);
    let records = std::fs::read(fleet.join("records.ndjson")).unwrap();
    let o = ramp()
        .args(["compare", "-o", &fleet_s, "--size", "200KB"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("made by `ramp fleet`"));
    assert_eq!(
        std::fs::read(fleet.join("records.ndjson")).unwrap(),
        records
    );
    let mine = d.join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "keep").unwrap();
    let o = ramp()
        .args(["compare", "-o", &mine.to_string_lossy(), "--size", "200KB"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(mine.join("notes.txt")).unwrap(),
        "keep"
    );
}

/// A compare run replaces only what compare writes: a file a user keeps in
/// the run directory (and in its traces/) stays, while a previous run's
/// traces of arms no longer run go.
#[test]
fn compare_replaces_only_its_own_files_and_keeps_a_users() {
    let d = tmpdir("compare-keeps");
    let out = d.join("run");
    let out_s = out.to_string_lossy().to_string();
    run_ok(&["compare", "-o", &out_s, "--size", "200KB"]);
    std::fs::write(out.join("notes.txt"), "keep").unwrap();
    std::fs::write(out.join("traces").join("mine.txt"), "keep too").unwrap();
    run_ok(&[
        "compare",
        "-o",
        &out_s,
        "--size",
        "200KB",
        "--cc",
        "newreno,cubic",
    ]);
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "keep"
    );
    let mut traces: Vec<String> = std::fs::read_dir(out.join("traces"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    traces.sort();
    assert_eq!(traces, ["00-newreno.ndjson", "01-cubic.ndjson", "mine.txt"]);
    assert!(out.join("report.html").exists() && out.join("records.ndjson").exists());
    let staged = std::fs::read_dir(&d)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains("staging")
        })
        .count();
    assert_eq!(staged, 0, "no staging directory left");
}

/// `--no-traces`: the table, records and report, and no traces or charts.
#[test]
fn compare_no_traces_still_writes_the_table_and_records() {
    let d = tmpdir("compare-no-traces");
    let out = d.join("run");
    let stdout = run_ok(&[
        "compare",
        "-o",
        &out.to_string_lossy(),
        "--size",
        "200KB",
        "--no-traces",
    ]);
    assert!(
        stdout.contains("baseline") && stdout.contains("TTLB ms"),
        "{stdout}"
    );
    let records = std::fs::read_to_string(out.join("records.ndjson")).unwrap();
    assert_eq!(records.lines().count(), 4, "one record per arm");
    assert!(out.join("report.html").exists());
    assert!(!out.join("traces").exists() && !out.join("delivery.png").exists());
}

/// A staging directory left by a run killed outright (its process gone)
/// is removed by the next run; one whose process lives is left alone.
#[cfg(unix)]
#[test]
fn compare_removes_a_dead_runs_staging_directory() {
    let d = tmpdir("compare-stale");
    let mut dead = Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait().unwrap();
    let stale = d.join(format!(".run.staging-{dead_pid}"));
    let live = d.join(format!(".run.staging-{}", std::process::id()));
    for s in [&stale, &live] {
        std::fs::create_dir_all(s.join("traces")).unwrap();
        std::fs::write(s.join(".ramp-run"), "compare\n").unwrap();
    }
    run_ok(&[
        "compare",
        "-o",
        &d.join("run").to_string_lossy(),
        "--size",
        "200KB",
    ]);
    assert!(!stale.exists(), "the dead run's staging directory is gone");
    assert!(live.exists(), "a live process's staging directory stays");
}

/// Ctrl-C during a compare run removes its staging directory, and the
/// process ends by the signal (exit status 130 in a shell).
#[cfg(unix)]
#[test]
fn compare_interrupted_removes_its_staging_directory() {
    use std::os::unix::process::ExitStatusExt as _;
    let d = tmpdir("compare-sigint");
    let mut child = ramp()
        .args([
            "compare",
            "-o",
            &d.join("run").to_string_lossy(),
            "--size",
            "2GB",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let staging = d.join(format!(".run.staging-{}", child.id()));
    let t0 = std::time::Instant::now();
    while !staging.join("traces").exists() {
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(20),
            "no staging dir"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGINT), "{status:?}");
    assert!(!staging.exists(), "staging directory removed");
    assert!(!d.join("run").exists(), "no half run in its place");
}
