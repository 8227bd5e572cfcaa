//! `ramp bench fleet` and `ramp bench all` print their tables (tiny runs).

use super::{ok, tmp};
use crate::common::ramp;

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
