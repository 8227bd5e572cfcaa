//! Misleading errors, found by a trial with bad input, each now one line
//! that names what is wrong (the flag, file and line, the arms or keys
//! there are) and exit status 2, before any work.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::ramp;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ramp-errors-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The stderr of a run that must fail with status 2.
fn fails(o: Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    err
}

fn run(args: &[&str]) -> Output {
    ramp().args(args).output().unwrap()
}

#[test]
fn sim_iw_out_of_range_names_iw_and_its_range_not_the_jump_window() {
    let e = fails(run(&["sim", "--iw", "10001"]));
    assert!(e.contains("--iw") && e.contains("1 ..= 10000"), "{e}");
    assert!(!e.contains("jump_window"), "{e}");
    // The largest initial window runs: the jump window it implies is capped.
    let o = run(&["sim", "--iw", "10000", "--size", "20KB", "--cc", "newreno"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn sim_rate_too_low_for_the_queue_blames_the_rate_with_its_range() {
    let e = fails(run(&["sim", "--rate", "1kbit"]));
    assert!(
        e.contains("--rate") && e.contains("bit/s ..= 1 Tbit/s"),
        "{e}"
    );
    assert!(!e.contains("path.queue"), "{e}");
}

#[test]
fn a_rate_in_capitals_is_ambiguous() {
    let e = fails(run(&["sim", "--rate", "10MBPS"]));
    assert!(
        e.contains("ambiguous") && e.contains("10Mbps") && e.contains("10MBps"),
        "{e}"
    );
}

#[test]
fn web_and_flow_errors_name_the_file_line_and_table() {
    let d = scratch("tables");
    let f = d.join("s.toml");
    std::fs::write(
        &f,
        "size = \"20KB\"\n[[flow]]\ncc = \"cubic\"\n[[web]]\nusers = 1\ncc = \"bogus\"\n",
    )
    .unwrap();
    let e = fails(run(&["sim", "--scenario", f.to_str().unwrap()]));
    assert!(
        e.contains("s.toml: line 4: web 1: cc `bogus`") && !e.contains("flow 1"),
        "{e}"
    );
    std::fs::write(&f, "[[flow]]\ncc = \"cubic\"\n\n[[flow]]\nsize = 0\n").unwrap();
    let e = fails(run(&["sim", "--scenario", f.to_str().unwrap()]));
    assert!(e.contains("s.toml: line 4: flow 2: size"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}

fn toy_run(d: &Path) -> PathBuf {
    let run = d.join("run");
    std::fs::create_dir_all(&run).unwrap();
    let mut records = String::new();
    for (i, arm) in ["baseline", "fast"].iter().cycle().take(40).enumerate() {
        records.push_str(&format!(
            "{{\"group\":\"{arm}\",\"ttlb\":{},\"seed\":{},\"num-packets.sent\":10}}\n",
            100 + i,
            i / 2
        ));
    }
    std::fs::write(run.join("records.ndjson"), records).unwrap();
    run
}

#[test]
fn report_with_an_unknown_baseline_fails_naming_the_arms() {
    let d = scratch("report");
    let run_dir = toy_run(&d);
    let out = d.join("r.html");
    let o = ramp()
        .args(["report", "--baseline", "nope", "-o"])
        .arg(&out)
        .arg(&run_dir)
        .output()
        .unwrap();
    let e = fails(o);
    assert!(
        e.contains("--baseline nope") && e.contains("baseline, fast"),
        "{e}"
    );
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn plot_ab_by_an_absent_key_names_the_key_and_the_keys_present() {
    let d = scratch("plot");
    let run_dir = toy_run(&d);
    let o = ramp()
        .args(["plot", "ab", "--by", "nonexistent_key", "-o"])
        .arg(d.join("ab.svg"))
        .arg(run_dir.join("records.ndjson"))
        .output()
        .unwrap();
    let e = fails(o);
    assert!(
        e.contains("--by nonexistent_key: no record has the key")
            && ["group", "ttlb", "seed"].iter().all(|k| e.contains(k)),
        "{e}"
    );
    assert!(!e.contains("(the baseline)"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn compare_into_the_working_directory_is_refused_with_the_fix() {
    let d = scratch("compare");
    let o = ramp()
        .current_dir(&d)
        .args([
            "compare",
            "--scenario",
            "seed-100m",
            "--size",
            "10KB",
            "-o",
            ".",
        ])
        .output()
        .unwrap();
    let e = fails(o);
    assert!(e.contains("-o/--out .") && e.contains("-o run"), "{e}");
    assert!(!e.contains("os error"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn load_json_into_a_missing_directory_fails_before_the_run() {
    // Port 9 (discard) on loopback: nothing answers; the run would take
    // the connect timeout if it started.
    let o = run(&[
        "load",
        "--insecure",
        "-n",
        "1",
        "--connect-timeout",
        "30s",
        "--json",
        "/nonexistent/x",
        "https://127.0.0.1:9/bytes/10",
    ]);
    let e = fails(o);
    assert!(
        e.contains("--json /nonexistent/x") && e.contains("does not exist"),
        "{e}"
    );
    assert!(!e.contains("starting benchmark"), "{e}");
}

#[test]
fn get_with_a_ca_file_holding_no_certificate_says_so() {
    let d = scratch("ca");
    let ca = d.join("key.pem");
    std::fs::write(
        &ca,
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    )
    .unwrap();
    let o = ramp()
        .args(["get", "--ca"])
        .arg(&ca)
        .arg("https://127.0.0.1:9/bytes/10")
        .output()
        .unwrap();
    let e = fails(o);
    assert!(
        e.contains(&format!("{}: holds no certificate", ca.display())),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
