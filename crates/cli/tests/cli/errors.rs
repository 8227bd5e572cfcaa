//! Misleading errors, found by a trial with bad input, each now one line
//! that names what is wrong (the flag, file and line, the arms or keys
//! there are) and exit status 2, before any work.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{ramp, relay_args};

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

/// Every input read whole has a size cap, and a trace streams: `/dev/zero`
/// given as any of them ends in one line naming the file, at once, instead
/// of growing until the kernel kills the process.
#[test]
fn dev_zero_as_any_whole_file_input_fails_fast_naming_the_cap() {
    if !Path::new("/dev/zero").exists() {
        ramp_vocab::note!(
            "SKIPPED: dev_zero_as_any_whole_file_input_fails_fast_naming_the_cap: no /dev/zero on this system"
        );
        return;
    }
    let d = scratch("dev-zero");
    let out = d.join("out");
    let out_s = out.to_string_lossy().to_string();
    let png = d.join("x.png").to_string_lossy().to_string();
    let cases: [(&[&str], &str); 5] = [
        (
            &["fleet", "--population", "/dev/zero", "-o", &out_s],
            "maximum of 1 MiB for a population file",
        ),
        (
            &["plot", "xy", "/dev/zero", "--y-label", "y", "-o", &png],
            "maximum of 64 MiB for an xy chart's CSV",
        ),
        (
            &["get", "--ca", "/dev/zero", "https://127.0.0.1:9/x"],
            "maximum of 16 MiB for a PEM file",
        ),
        (
            &[
                "serve",
                "--cert",
                "/dev/zero",
                "--key",
                "/dev/zero",
                "--listen",
                "127.0.0.1:0",
                "--duration",
                "1s",
            ],
            "maximum of 16 MiB for a PEM file",
        ),
        (
            &relay_args(
                "127.0.0.1:9",
                ["10mbit", "40ms", "40ms"],
                &["--trace", "/dev/zero", "--duration", "1s"],
            ),
            "/dev/zero:1: line longer than the maximum of 256 bytes",
        ),
    ];
    for (args, want) in cases {
        let t0 = std::time::Instant::now();
        let pressure = ramp_host::timing::CpuPressure::now();
        let e = fails(run(args));
        assert!(e.contains("/dev/zero") && e.contains(want), "{args:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{args:?}: {e}");
        // Generous: the capped reads take milliseconds; an uncapped one
        // reads /dev/zero until memory runs out.
        ramp_host::timing::promptly(
            &format!("dev_zero_as_any_whole_file_input_fails_fast_naming_the_cap {args:?}"),
            t0,
            std::time::Duration::from_secs(60),
            pressure,
        );
    }
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&d);
}

/// N1 for the real-mode tools: an output flag naming an input flag's file
/// is refused before anything starts, and the input is unchanged.
#[test]
fn real_mode_outputs_over_their_inputs_are_refused() {
    let d = scratch("real-clobber");
    let trace = d.join("link.trace");
    std::fs::write(&trace, "1\n2\n").unwrap();
    let t = trace.to_string_lossy().to_string();
    let cases: [&[&str]; 3] = [
        &relay_args(
            "127.0.0.1:9",
            ["10mbit", "40ms", "40ms"],
            &["--trace", &t, "--duration", "1s", "--log", &t],
        ),
        &[
            "serve",
            "--cert",
            &t,
            "--key",
            "/dev/null",
            "--listen",
            "127.0.0.1:0",
            "--stats",
            &t,
            "--duration",
            "1s",
        ],
        &[
            "load",
            "https://127.0.0.1:9/x",
            "--cacert",
            &t,
            "--json",
            &t,
            "-n",
            "1",
        ],
    ];
    for args in cases {
        let e = fails(run(args));
        assert!(
            e.contains("that is an input of this command"),
            "{args:?}: {e}"
        );
        assert_eq!(std::fs::read_to_string(&trace).unwrap(), "1\n2\n");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// `--rtt` sets both one-way delays to half of it; a too-long RTT is
/// reported as the value typed against the RTT's maximum, not its half.
#[test]
fn a_too_long_rtt_names_the_rtt_typed_and_the_rtt_range() {
    let e = fails(run(&["sim", "--rtt", "100s"]));
    assert!(e.contains("--rtt: 100s is above the maximum 20s"), "{e}");
    assert!(!e.contains("50s"), "{e}");
}

/// Every typed flag of the real-mode commands refuses a bad value by clap,
/// before any work (no socket bound, no file read): exit status 2 and the
/// flag's name. `serve` would otherwise listen; `relay` would bind.
#[test]
fn a_bad_typed_value_is_refused_by_clap_before_any_work() {
    for (args, flag) in [
        (
            &["serve", "--listen", "127.0.0.1:0", "--duration", "5"][..],
            "--duration",
        ),
        (
            &["serve", "--listen", "127.0.0.1:0", "--path-rate", "fast"],
            "--path-rate",
        ),
        (
            &["serve", "--listen", "127.0.0.1:0", "--path-rtt", "40"],
            "--path-rtt",
        ),
        (
            &["serve", "--listen", "127.0.0.1:0", "--path-queue", "x"],
            "--path-queue",
        ),
        (
            &["serve", "--listen", "127.0.0.1:0", "--path-loss", "0.5"],
            "--path-loss",
        ),
        (
            &["serve", "--listen", "127.0.0.1:0", "--pmtud", "maybe"],
            "--pmtud",
        ),
        (
            &["serve", "--listen", "127.0.0.1:0", "--pacing", "fast"],
            "--pacing",
        ),
        (
            &["serve", "--listen", "127.0.0.1:0", "--ack-timing", "now"],
            "--ack-timing",
        ),
        (
            &["serve", "--listen", "127.0.0.1:0", "--cc", "nosuchcc"],
            "--cc",
        ),
        (
            &["load", "https://127.0.0.1:9/x", "--timeout", "60"],
            "--timeout",
        ),
        (
            &["load", "https://127.0.0.1:9/x", "--connect-timeout", "soon"],
            "--connect-timeout",
        ),
        (&["load", "https://127.0.0.1:9/x", "-D", "1"], "--duration"),
        (&["sim", "--cc", "nosuchcc"], "--cc"),
        (&["bench", "sim", "--cc", "nosuchcc"], "--cc"),
        // A scenario file that does not exist: the list is refused first.
        (
            &[
                "compare",
                "--scenario",
                "/nonexistent/s.toml",
                "--cc",
                "nosuchcc",
            ],
            "--cc",
        ),
        (&["sim", "--cellular=light_fraction=2"], "--cellular"),
        (
            &[
                "relay",
                "--listen",
                "127.0.0.1:0",
                "--upstream",
                "127.0.0.1:9",
                "--duration",
                "1",
            ],
            "--duration",
        ),
    ] {
        let e = fails(run(args));
        assert!(e.contains(flag), "{args:?}: {e}");
    }
}

/// With a trace in each direction, the forwarders take each direction's
/// rate from its trace: `--rate` is not required (and one trace alone
/// still needs it, for the other direction).
#[test]
fn relay_with_two_traces_needs_no_rate() {
    let d = scratch("two-traces");
    let t = d.join("1ms.trace");
    std::fs::write(&t, "1\n").unwrap();
    let t = t.to_str().unwrap();
    let base = [
        "relay",
        "--listen",
        "127.0.0.1:0",
        "--upstream",
        "127.0.0.1:9",
        "--rtt",
        "40ms",
        "--queue",
        "40ms",
        "--trace",
        t,
    ];
    let o = ramp()
        .args(base)
        .args(["--uplink-trace", t, "--duration", "100ms", "--no-realtime"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&base);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && e.contains("--rate is required"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
