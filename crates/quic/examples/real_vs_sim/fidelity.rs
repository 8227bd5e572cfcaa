//! `--fidelity`: the checks real mode must keep (issue "real mode without
//! the 3× CPU tax", deliverable 3), each row pass or fail:
//!
//! - real median TTLB within 5 % of the simulator's on 100 Mbit/s, 30 ms,
//!   30 ms queue, and within 4 % at 20 Mbit/s (40 ms, 40 ms queue), for
//!   Rapid Start, jump start and the loss-based controllers (BBRv3 is
//!   checked against the same bound but reported apart: it is outside
//!   the requirement);
//! - the first flight of the controllers that pace it over the RTT (Rapid
//!   Start, jump start) spans at least 0.8 RTT;
//! - in the rounds where the simulator's Rapid Start grows 3× per round,
//!   the real one grows ×2.7 or more.

use super::{Row, SIZE};

/// The paths checked.
pub(crate) const PATHS: [&str; 2] = ["100m-30ms", "20m-40ms"];
/// Real downloads per controller and path (the median is compared).
pub(crate) const RUNS: usize = 5;

/// The TTLB bound of a path, as a fraction.
fn ttlb_bound(path: &str) -> Option<f64> {
    match path {
        "100m-30ms" => Some(0.05),
        "20m-40ms" => Some(0.04),
        _ => None,
    }
}

/// Controllers the TTLB bound is required of.
const REQUIRED: [&str; 5] = [
    "newreno",
    "cubic",
    "cubic+hystart",
    "rapidstart",
    "jumpstart",
];
/// Controllers whose first flight is paced over the RTT.
const PACED_FIRST_FLIGHT: [&str; 2] = ["rapidstart", "jumpstart"];
/// Least span of that first flight, in RTTs.
const MIN_FLIGHT_RTTS: f64 = 0.8;
/// Least real growth per round in Rapid Start's 3× phase.
const MIN_GROWTH: f64 = 2.7;
/// A simulated round growing by this much or more is in the 3× phase.
const SIM_3X: f64 = 2.9;
/// Rounds smaller than 10 packets of 1200 bytes are the first flight's or
/// the tail's, not growth.
const MIN_ROUND_BYTES: u64 = 12_000;

fn verdict(ok: bool) -> &'static str {
    if ok {
        "pass"
    } else {
        "FAIL"
    }
}

/// Growth of the real rounds where the simulator's grew 3×.
fn growth_in_3x_phase(real: &[u64], sim: &[u64]) -> Vec<f64> {
    real.windows(2)
        .zip(sim.windows(2))
        .filter(|(r, s)| {
            s[0] >= MIN_ROUND_BYTES
                && s[1] as f64 >= SIM_3X * s[0] as f64
                && r[0] >= MIN_ROUND_BYTES
        })
        .map(|(r, _)| r[1] as f64 / r[0] as f64)
        .collect()
}

/// Prints the checks; returns how many required ones failed.
pub(crate) fn report(rows: &[Row]) -> usize {
    println!(
        "Fidelity checks ({} MB downloads, real median of the runs against the simulator):",
        SIZE / 1_000_000
    );
    println!();
    println!("| check | path | cc | measured | bound | result |");
    println!("|---|---|---|---:|---:|---|");
    let mut failed = 0;
    for row in rows {
        let name = row.path.name;
        let cc = row.cc.as_str();
        if let Some(bound) = ttlb_bound(name) {
            let d = row.diff();
            let ok = d.abs() <= bound;
            let required = REQUIRED.contains(&cc);
            failed += usize::from(required && !ok);
            println!(
                "| TTLB real vs sim{} | {name} | {cc} | {:+.1}% | ±{:.0}% | {} |",
                if required { "" } else { " (not required)" },
                d * 100.0,
                bound * 100.0,
                verdict(ok)
            );
        }
        if PACED_FIRST_FLIGHT.contains(&cc) {
            let r = row.median();
            let span = r.flight_span_us as f64 / (row.path.rtt_ms * 1000) as f64;
            let ok = span >= MIN_FLIGHT_RTTS;
            failed += usize::from(!ok);
            println!(
                "| first flight span | {name} | {cc} | {span:.2} RTT ({:.1} KB) | ≥ {MIN_FLIGHT_RTTS} RTT | {} |",
                r.flight_bytes as f64 / 1e3,
                verdict(ok)
            );
        }
        if cc == "rapidstart" {
            let g = growth_in_3x_phase(&row.median().rounds, &row.sim.rounds);
            let ok = !g.is_empty() && g.iter().all(|&x| x >= MIN_GROWTH);
            failed += usize::from(!ok);
            let list = g
                .iter()
                .map(|x| format!("×{x:.2}"))
                .collect::<Vec<_>>()
                .join(" ");
            println!(
                "| 3× phase growth per round | {name} | {cc} | {} | ≥ ×{MIN_GROWTH} | {} |",
                if list.is_empty() { "none" } else { &list },
                verdict(ok)
            );
        }
    }
    println!();
    println!(
        "{} required check(s) failed.",
        if failed == 0 {
            "No".to_string()
        } else {
            failed.to_string()
        }
    );
    failed
}
