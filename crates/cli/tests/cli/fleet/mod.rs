//! `ramp fleet` end to end, one module per concern. Every test starts from
//! the same small run (the Rapid Start preset, 24 connections, seed 5),
//! built by [`command`], so a flag the run needs is written once.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::ramp;

mod app_limited;
mod bench;
mod charts;
mod quiet;
mod run;
mod shards;
mod trace_conn;
mod video;

/// A fresh scratch directory named after the test and this process.
fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ramp-fleet-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The tests' run, `ramp fleet --preset rapid-start-2026 -n 24 --seed SEED
/// -o OUT`, for a test to add flags or an environment to.
fn command(out: &Path, seed: &str) -> Command {
    let mut c = ramp();
    c.args([
        "fleet",
        "--preset",
        "rapid-start-2026",
        "-n",
        "24",
        "--seed",
        seed,
        "-o",
    ])
    .arg(out);
    c
}

fn output(c: &mut Command) -> Output {
    c.output().expect("run ramp")
}

/// The run, quiet and without charts, plus `extra`.
fn fleet(out: &Path, extra: &[&str]) -> Output {
    fleet_seed(out, "5", extra)
}

fn fleet_seed(out: &Path, seed: &str, extra: &[&str]) -> Output {
    output(command(out, seed).args(["-q", "--no-charts"]).args(extra))
}

/// The run without -q: the start line on stderr.
fn fleet_loud(out: &Path, extra: &[&str]) -> Output {
    output(command(out, "5").arg("--no-charts").args(extra))
}

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Every file of `d` (not its subdirectories) with its bytes, by name.
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

/// The run split into `n` shards, each in its own directory.
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

/// `ramp fleet --population FILE -n N --seed 5 -q --no-charts -o OUT` + `extra`.
fn population_run(file: &Path, n: u64, out: &Path, extra: &[&str]) {
    ok(&output(
        ramp()
            .args(["fleet", "--population"])
            .arg(file)
            .args([
                "-n",
                &n.to_string(),
                "--seed",
                "5",
                "-q",
                "--no-charts",
                "-o",
            ])
            .arg(out)
            .args(extra),
    ));
}

/// Runs the population `file` with `n` connections at `-j 2` into
/// `dir/j2`, and asserts that `-j 1` and three shards merged write the
/// same files. Returns the `-j 2` run's directory for the test's own
/// checks of its records.
fn population_same_bytes_at_any_thread_and_shard_count(file: &Path, n: u64, dir: &Path) -> PathBuf {
    let full = dir.join("j2");
    population_run(file, n, &full, &["-j", "2"]);
    let want = files(&full);
    let one = dir.join("j1");
    population_run(file, n, &one, &["-j", "1"]);
    assert!(files(&one) == want, "thread count changed the run");
    let dirs: Vec<PathBuf> = (0..3)
        .map(|k| {
            let d = dir.join(format!("shard{k}"));
            population_run(file, n, &d, &["--shard", &format!("{k}/3")]);
            d
        })
        .collect();
    let merged = dir.join("merged");
    ok(&merge(&dirs, &merged));
    assert!(files(&merged) == want, "3 shards: merged run differs");
    full
}

/// `ramp fleet merge DIRS -o OUT --no-charts`.
fn merge(dirs: &[PathBuf], out: &Path) -> Output {
    output(
        ramp()
            .args(["fleet", "merge"])
            .args(dirs)
            .arg("-o")
            .arg(out)
            .arg("--no-charts"),
    )
}
