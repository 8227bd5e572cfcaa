//! `ramp sim` and `ramp bench sim` end to end (`ramp compare` in sim/compare.rs).

use std::path::PathBuf;

use crate::common::{ramp, relay_args};

mod compare;
mod long_names;

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ramp-sim-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_ok(args: &[&str]) -> String {
    let out = ramp().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "ramp {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn sim_prints_a_table_per_controller() {
    let out = run_ok(&[
        "sim",
        "--scenario",
        "seed-100m",
        "--cc",
        "newreno,rapidstart",
        "--size",
        "1MB",
    ]);
    assert!(out.contains("TTLB ms"), "{out}");
    assert!(
        out.contains("newreno(iw=30)") && out.contains("rapidstart(iw=30)"),
        "{out}"
    );
    assert!(out.contains("1000000 bytes"), "{out}");
}

#[test]
fn sim_writes_records_traces_and_qlog_deterministically() {
    let mut outputs = Vec::new();
    for run in 0..2 {
        let d = tmpdir(&format!("det{run}"));
        let rec = d.join("records.ndjson");
        run_ok(&[
            "sim",
            "--scenario",
            "vdsl",
            "--cc",
            "newreno,rapidstart",
            "--size",
            "500KB",
            "--loss",
            "1%",
            "--seed",
            "5",
            "--records",
            rec.to_str().unwrap(),
            "--trace",
            d.join("trace").to_str().unwrap(),
            "--qlog",
            d.join("qlog").to_str().unwrap(),
        ]);
        let records = std::fs::read(&rec).unwrap();
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        for sub in ["trace", "qlog"] {
            let mut names: Vec<_> = std::fs::read_dir(d.join(sub))
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            names.sort();
            for p in names {
                files.push((
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&p).unwrap(),
                ));
            }
        }
        outputs.push((records, files));
    }
    let (records, files) = &outputs[0];
    assert_eq!(outputs[0], outputs[1], "two runs differ");
    let lines: Vec<serde_json::Value> = std::str::from_utf8(records)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["seed"], 5);
    assert!(lines[1]["ttlb-us"].as_u64().unwrap() > 0);
    assert_eq!(
        files.len(),
        4,
        "{:?}",
        files.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert!(files.iter().any(|(n, _)| n.ends_with(".sqlog")));
}

#[test]
fn sim_records_do_not_depend_on_threads() {
    let d = tmpdir("threads");
    let mut got = Vec::new();
    for t in ["1", "2"] {
        let rec = d.join(format!("r{t}.ndjson"));
        run_ok(&[
            "sim",
            "--scenario",
            "dsl",
            "--cc",
            "newreno,cubic,rapidstart,jumpstart",
            "--size",
            "300KB",
            "--loss",
            "0.5%",
            "--threads",
            t,
            "--records",
            rec.to_str().unwrap(),
        ]);
        got.push(std::fs::read(rec).unwrap());
    }
    assert_eq!(got[0], got[1]);
}

#[test]
fn path_flags_stand_alone() {
    let out = run_ok(&[
        "sim", "--rate", "20mbit", "--rtt", "40ms", "--queue", "40ms", "--cc", "newreno", "--size",
        "200KB",
    ]);
    assert!(
        out.contains("scenario custom: 20 Mbit/s, RTT 40 ms, queue 40 ms droptail, loss 0%"),
        "{out}"
    );
}

/// The header names the queue discipline: a dualpi2 run read like a
/// drop-tail one before.
#[test]
fn the_scenario_header_names_the_queue_discipline() {
    let out = run_ok(&[
        "sim", "--aqm", "dualpi2", "--rate", "100mbit", "--rtt", "20ms", "--queue", "100ms",
        "--cc", "newreno", "--size", "200KB",
    ]);
    assert!(
        out.contains("scenario custom: 100 Mbit/s, RTT 20 ms, queue 100 ms dualpi2, loss 0%"),
        "{out}"
    );
    let scenario = concat!(env!("CARGO_MANIFEST_DIR"), "/../sim/scenarios/codel.toml");
    let out = run_ok(&[
        "compare",
        "--scenario",
        scenario,
        "--cc",
        "a=newreno",
        "--size",
        "200KB",
        "--no-traces",
        "-o",
        tmpdir("aqm-compare").join("run").to_str().unwrap(),
    ]);
    assert!(out.contains("ms queue (codel), IW"), "{out}");
}

#[test]
fn bad_scenario_file_names_key_and_line() {
    let d = tmpdir("bad");
    let f = d.join("bad.toml");
    std::fs::write(&f, "preset = \"vdsl\"\n[path]\nrate = \"warp9\"\n").unwrap();
    let out = ramp()
        .args(["sim", "--scenario", f.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3") && err.contains("warp9"), "{err}");
    let out = ramp().args(["sim", "--cc", "bogus"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--cc"));
}

#[test]
fn list_presets_shows_all_families() {
    let out = run_ok(&["sim", "--list-presets"]);
    for p in [
        "seed-100m",
        "vdsl",
        "dsl",
        "docomo-mall",
        "pantheon-satellite",
        "wpt-3g",
        "africa-poor",
        "west-europe-median",
        "north-america-good",
    ] {
        assert!(out.lines().any(|l| l.starts_with(p)), "{p} missing");
    }
}

#[test]
fn bench_sim_reports_packets_per_second() {
    let out = run_ok(&["bench", "sim", "--seconds", "0.2"]);
    assert!(out.contains("M packets/s per core"), "{out}");
}

/// `--connections` fixes the workload (what callgrind counts), and the
/// fleet mix runs every arm of each drawn path in turn.
#[test]
fn bench_sim_runs_a_fixed_fleet_mix() {
    let out = run_ok(&[
        "bench",
        "sim",
        "--workload",
        "fleet-mix",
        "--connections",
        "8",
    ]);
    assert!(out.contains("fleet mix: rapid-start-2026"), "{out}");
    assert!(out.contains("\n8 connections, "), "{out}");
}

/// `ramp sim --list-presets | head -1`: when the reader goes away the
/// command ends like any Unix filter (SIGPIPE), never with a panic message.
#[cfg(unix)]
#[test]
fn a_closed_stdout_pipe_ends_quietly() {
    use std::process::Stdio;
    let mut child = ramp()
        .args(["sim", "--list-presets"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the read end before the child writes its first line.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn one_unit_grammar_b_is_bytes_and_bare_rates_or_big_bare_losses_are_refused() {
    let out = run_ok(&[
        "sim", "--rate", "10MB/s", "--rtt", "40ms", "--queue", "40ms", "--size", "200KB",
    ]);
    assert!(out.contains("80 Mbit/s"), "10MB/s is 80 Mbit/s: {out}");
    for (flag, value, says) in [
        ("--rate", "100", "needs a unit"),
        ("--rate", "10MB", "ambiguous"),
        ("--rtt", "40", "needs a unit"),
        ("--loss", "0.5", "0.5%"),
    ] {
        let mut args = vec![
            "sim", "--rate", "20mbit", "--rtt", "40ms", "--queue", "40ms",
        ];
        let at = args.iter().position(|a| *a == flag).map(|i| i + 1);
        match at {
            Some(i) => args[i] = value,
            None => args.extend([flag, value]),
        }
        let o = ramp().args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{flag} {value}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(says), "{flag} {value}: {e}");
    }
}

#[test]
fn a_trace_scenario_runs_and_a_bad_trace_names_its_line_in_sim_and_relay() {
    let d = tmpdir("trace");
    let ops: String = (1..=100).map(|i| format!("{i}\n")).collect();
    std::fs::write(d.join("12mbit.trace"), ops).unwrap();
    std::fs::write(d.join("bad.trace"), "1\n2\n0.5\n").unwrap();
    let sc = d.join("t.toml");
    std::fs::write(
        &sc,
        "size = \"300KB\"\n[path]\ntrace = \"12mbit.trace\"\nrtt = \"40ms\"\nqueue = \"100ms\"\n",
    )
    .unwrap();
    let out = run_ok(&["sim", "--scenario", sc.to_str().unwrap(), "--cc", "newreno"]);
    assert!(out.contains("TTLB ms"), "{out}");
    std::fs::write(&sc, "[path]\ntrace = \"bad.trace\"\n").unwrap();
    let out = ramp()
        .args(["sim", "--scenario", sc.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.trace:3: `0.5` is not a whole number"),
        "{err}"
    );
    let bad = d.join("bad.trace");
    let out = ramp()
        .args(relay_args(
            "127.0.0.1:9",
            ["10mbit", "10ms", "10ms"],
            &["--trace", bad.to_str().unwrap()],
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--trace") && err.contains("bad.trace:3:"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn an_output_that_is_an_input_is_refused_before_any_work() {
    let d = tmpdir("clobber");
    let s = d.join("s.toml");
    let text = "preset = \"vdsl\"\n";
    std::fs::write(&s, text).unwrap();
    // sim --records onto its own scenario.
    let out = ramp()
        .args(["sim", "--scenario"])
        .arg(&s)
        .args(["--size", "20KB", "--records"])
        .arg(d.join("./s.toml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "sim --records s.toml succeeded");
    assert!(String::from_utf8_lossy(&out.stderr).contains("that is an input"));
    assert_eq!(std::fs::read_to_string(&s).unwrap(), text);
    // compare -o onto the directory that holds its scenario (the staging
    // swap would delete it), and a file the user keeps there.
    let cr = d.join("cr");
    std::fs::create_dir_all(&cr).unwrap();
    std::fs::write(cr.join("my.toml"), text).unwrap();
    std::fs::write(cr.join("notes.txt"), "mine").unwrap();
    let out = ramp()
        .args(["compare", "--size", "20KB", "--scenario"])
        .arg(cr.join("my.toml"))
        .arg("-o")
        .arg(&cr)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("lies inside it"));
    assert!(cr.join("my.toml").exists() && cr.join("notes.txt").exists());
    // report -o onto the run's own records.
    let run = d.join("run");
    run_ok(&["compare", "--size", "20KB", "-o", run.to_str().unwrap()]);
    let records = std::fs::read(run.join("records.ndjson")).unwrap();
    let out = ramp()
        .arg("report")
        .arg(&run)
        .arg("-o")
        .arg(run.join("records.ndjson"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(run.join("records.ndjson")).unwrap(), records);
}

#[test]
fn out_of_range_numbers_are_one_line_and_exit_2_before_any_work() {
    for (args, needle) in [
        (&["bench", "sim", "--seconds", "nan"][..], "--seconds"),
        (&["bench", "sim", "--seconds", "inf"][..], "--seconds"),
        (
            &["get", "--timeout", "0s", "https://127.0.0.1:9/"][..],
            "--timeout",
        ),
        (
            &["get", "--clients", "0", "https://127.0.0.1:9/"][..],
            "--clients",
        ),
        (
            &["plot", "ab", "r.ndjson", "--resamples", "0"][..],
            "--resamples",
        ),
    ] {
        let out = ramp().args(args).output().unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(needle) && e.contains("outside"), "{args:?}: {e}");
    }
}

#[test]
fn a_scenario_from_dev_zero_is_refused_after_a_bounded_read() {
    let out = ramp()
        .args(["sim", "--scenario", "/dev/zero"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("/dev/zero") && e.contains("longer than the maximum"),
        "{e}"
    );
}
