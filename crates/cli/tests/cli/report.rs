//! `ramp plot` and `ramp report` on good and bad input: outputs appear
//! whole, errors name file and line, and nothing partial is left behind.

use std::path::{Path, PathBuf};

use crate::common::ramp;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ramp-report-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn toy_trace(dir: &Path) -> PathBuf {
    let cfg = ramp_plot::fixtures::ToyRun {
        group: "baseline".into(),
        cc: "newreno".into(),
        growth: ramp_plot::fixtures::Growth::SlowStart,
        rate_bps: 20e6,
        rtt_ms: 40.0,
        queue_ms: 20.0,
        loss: 0.0,
        content_length: 300_000,
        seed: 3,
        pop: "ams".into(),
    };
    let (text, _) = ramp_plot::fixtures::run(&cfg);
    let p = dir.join("t.ndjson");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn plot_writes_png_and_svg() {
    let dir = scratch("good");
    let trace = toy_trace(&dir);
    for out in ["seq.png", "seq.svg"] {
        let o = ramp()
            .args(["plot", "timeseq"])
            .arg(&trace)
            .arg("-o")
            .arg(dir.join(out))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let o = ramp()
        .args(["plot", "delivery"])
        .arg(&trace)
        .arg(&trace)
        .arg("-o")
        .arg(dir.join("d.svg"))
        .args(["--theme", "dark"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (records, _) = ramp_plot::fixtures::fleet(8, 0);
    std::fs::write(dir.join("r.ndjson"), records).unwrap();
    for (kind, out) in [("ab", "ab.svg"), ("paired", "p.png")] {
        let o = ramp()
            .args(["plot", kind])
            .arg(dir.join("r.ndjson"))
            .args(["--baseline", "baseline", "--by", "pop", "-o"])
            .arg(dir.join(out))
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{kind}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert_eq!(
        files(&dir),
        ["ab.svg", "d.svg", "p.png", "r.ndjson", "seq.png", "seq.svg", "t.ndjson"]
    );
    let png = std::fs::read(dir.join("seq.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let svg = std::fs::read_to_string(dir.join("ab.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("TTLB change"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_trace_names_file_and_line_and_leaves_no_output() {
    let dir = scratch("badtrace");
    let trace = toy_trace(&dir);
    let mut text = std::fs::read_to_string(&trace).unwrap();
    text.push_str("{\"ev\":\"sent\",\"t-us\":5,\"pn\":1}\n");
    let lines = text.lines().count();
    std::fs::write(&trace, text).unwrap();
    let out = dir.join("seq.png");
    let o = ramp()
        .args(["plot", "timeseq"])
        .arg(&trace)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("t.ndjson:{lines}: missing field `bytes`")),
        "{err}"
    );
    assert_eq!(files(&dir), ["t.ndjson"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_records_fail_the_report_without_output() {
    let dir = scratch("badrecords");
    std::fs::write(
        dir.join("records.ndjson"),
        "{\"group\":\"a\",\"ttlb\":3}\nnot json\n",
    )
    .unwrap();
    let o = ramp().arg("report").arg(&dir).output().unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("records.ndjson:2: invalid JSON"), "{err}");
    assert_eq!(files(&dir), ["records.ndjson"]);
    // A directory without records.ndjson says what a run directory holds.
    let empty = scratch("empty");
    let o = ramp().arg("report").arg(&empty).output().unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing records.ndjson"));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&empty);
}

#[test]
fn missing_baseline_and_bad_extension_are_errors() {
    let dir = scratch("baseline");
    let (records, _) = ramp_plot::fixtures::fleet(3, 0);
    std::fs::write(dir.join("r.ndjson"), records).unwrap();
    let o = ramp()
        .args(["plot", "ab"])
        .arg(dir.join("r.ndjson"))
        .args(["--baseline", "nope", "-o"])
        .arg(dir.join("ab.svg"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("arms found: baseline, rapid"));
    let o = ramp()
        .args(["plot", "ab"])
        .arg(dir.join("r.ndjson"))
        .args(["-o"])
        .arg(dir.join("ab.jpg"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("must end in .png or .svg"));
    // An unwritable output path is an I/O error naming it, for PNG too.
    let o = ramp()
        .args(["plot", "paired"])
        .arg(dir.join("r.ndjson"))
        .args(["-o"])
        .arg(dir.join("no-such-dir/p.png"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no-such-dir/p.png: No such file or directory"),
        "{err}"
    );
    assert_eq!(files(&dir), ["r.ndjson"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ramp plot ab /dev/zero` and the other chart readers: a newline-less
/// stream is refused with one line naming the input and line once it
/// passes the 64 MiB line bound, under a 2 GiB address-space limit (it
/// grew until memory ran out).
#[cfg(target_os = "linux")]
#[test]
fn a_newline_less_stream_into_plot_is_one_error_under_2_gib() {
    use std::os::unix::process::CommandExt as _;
    for chart in ["ab", "paired", "grid", "timeseq"] {
        let d = scratch(&format!("zero-{chart}"));
        let mut cmd = ramp();
        cmd.args(["plot", chart, "/dev/zero", "-o"])
            .arg(d.join("x.png"));
        // SAFETY: only setrlimit (async-signal-safe) between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                let lim = libc::rlimit {
                    rlim_cur: 2 << 30,
                    rlim_max: 2 << 30,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let out = cmd.output().unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{chart}: {e}");
        assert!(
            e.contains("/dev/zero:1: line longer than the maximum of 64 MiB"),
            "{chart}: {e}"
        );
        assert_eq!(e.trim().lines().count(), 1, "{chart}: {e}");
        assert!(files(&d).is_empty(), "{chart}: nothing written");
    }
}

/// N1: no command writes over a file it reads. `report -o` onto one of the
/// run's traces (the report reads every file of traces/), and `plot -o`
/// onto its own input, are refused before any work, and the input is
/// unchanged.
#[test]
fn report_and_plot_refuse_an_output_over_anything_they_read() {
    let dir = scratch("clobber");
    let trace = toy_trace(&dir);
    let chart_named = dir.join("t.png");
    std::fs::copy(&trace, &chart_named).unwrap();
    let before = std::fs::read(&trace).unwrap();
    let run = dir.join("run");
    std::fs::create_dir_all(run.join("traces")).unwrap();
    std::fs::copy(&trace, run.join("traces/00-baseline.ndjson")).unwrap();
    std::fs::write(
        run.join("records.ndjson"),
        "{\"group\":\"baseline\",\"ttlb\":3}\n",
    )
    .unwrap();
    let refused = |args: &[&std::ffi::OsStr]| {
        let o = ramp().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("choose another output path"),
            "{args:?}: {err}"
        );
    };
    let trace_in_run = run.join("traces/00-baseline.ndjson");
    let new_in_traces = run.join("traces/r.html");
    for out in [&trace_in_run, &new_in_traces] {
        refused(&[
            "report".as_ref(),
            run.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
    }
    refused(&[
        "plot".as_ref(),
        "timeseq".as_ref(),
        chart_named.as_os_str(),
        "-o".as_ref(),
        chart_named.as_os_str(),
    ]);
    for chart in ["ab", "xy"] {
        refused(&[
            "plot".as_ref(),
            chart.as_ref(),
            chart_named.as_os_str(),
            "-o".as_ref(),
            dir.join(".").join("t.png").as_os_str(),
        ]);
    }
    assert_eq!(std::fs::read(&chart_named).unwrap(), before);
    assert_eq!(std::fs::read(&trace_in_run).unwrap(), before);
    assert!(!new_in_traces.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
