//! Real transfers through the relay against ramp-sim on the same paths:
//! the table of docs/real-mode.md (run by bench/real/run.sh).
//!
//! For each scenario × controller: real 2 MB downloads (ramp serve's
//! stack in-process, the relay, ramp get's client) and two simulations of
//! the same path, one with the pacer the real server runs and one with the
//! other for reference. Besides TTLB and losses it measures the first data
//! flight: the bytes the server sends in the first RTT after its first
//! data send, and over how long it spreads them (full-RTT pacing spreads a
//! Rapid Start first flight over the whole RTT; quinn's pacer does not).
//!
//! The real server paces as `ramp serve` does by default, at the
//! controller's rate (`--pacing controller`), and is compared with the
//! simulator's leaky-bucket pacer; `--pacing quinn` runs stock quinn's pacer
//! against the simulator's model of it. `--runs N` repeats each real
//! download N times and reports the median TTLB with the fastest and
//! slowest (first flight and growth from the median run); the simulator
//! is deterministic.
//!
//! Usage: cargo run --release -p ramp-quic --example real_vs_sim --
//!   [--quick] [--runs N] [--pacing controller|quinn] [--path NAME]... [--cc SPEC]...
//!   [--cellular] (every path's downlink cellular, CellReplay's defaults:
//!               the relay's `--cellular` against the simulator's
//!               `[path.cellular]`, the two drawing the same delay drift)
//!   [--wifi-jitter] (every path's downlink with WiFiSeer's delay
//!               variation: `--wifi-jitter` against `[path.jitter]`)
//!   [--trace]   (each real controller's sends, ACK frames and congestion
//!               events on stderr, and the relay's per-datagram log and the
//!               simulator's NDJSON trace kept in the temporary directory:
//!               docs/real-pacing.md, ACK batching)
use std::time::{Duration, Instant};

use ramp_quic::server::SendPacing;

const SIZE: u64 = 2_000_000;

#[path = "real_vs_sim/fidelity.rs"]
mod fidelity;
#[path = "real_vs_sim/options.rs"]
mod options;
#[path = "real_vs_sim/paths.rs"]
mod paths;
#[path = "real_vs_sim/real_transfer.rs"]
mod real_transfer;
#[path = "real_vs_sim/simulation.rs"]
mod simulation;
#[path = "real_vs_sim/startup.rs"]
mod startup;

use options::options;
use paths::{paths, Path};
use real_transfer::{real, Real, EPOCH};
use simulation::{sim, Sim};
use startup::{fmt_growth, fmt_rounds};

/// One path × controller: the real runs (fastest first) and the two
/// simulations.
struct Row {
    path: Path,
    cc: String,
    runs: Vec<Real>,
    /// The simulator with the real server's pacer.
    sim: Sim,
    /// The simulator with the other pacer.
    other: Sim,
    /// The simulator with ACK batching at the sender: median TTLB of 5 seeds.
    batched: Duration,
}

/// ACK batching draws wake-up latencies: the median TTLB of 5 seeds.
fn batched_median(
    path: Path,
    cc: &str,
    pacer: &str,
) -> Result<Duration, Box<dyn std::error::Error + Send + Sync>> {
    let mut b = (1..=5)
        .map(|s| sim(path, cc, pacer, Some(s), false).map(|x| x.ttlb))
        .collect::<Result<Vec<_>, _>>()?;
    b.sort();
    Ok(b[b.len() / 2])
}

impl Row {
    fn median(&self) -> &Real {
        &self.runs[self.runs.len() / 2]
    }

    /// Real median TTLB over simulated, less one.
    fn diff(&self) -> f64 {
        self.median().ttlb.as_secs_f64() / self.sim.ttlb.as_secs_f64() - 1.0
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn print_row(row: &Row) {
    let (r, q, e) = (row.median(), &row.sim, &row.other);
    let (lo, hi) = (row.runs[0].ttlb, row.runs[row.runs.len() - 1].ttlb);
    let rtt_us = (row.path.rtt_ms * 1000) as f64;
    println!(
        "| {} | {} | {:.0} | {:.0}–{:.0} | {:.0} | {:+.1}% | {:.0} | {} | {} | {:.1} in {:.1} ({:.2}) | {:.1} in {:.1} ({:.2}) | {:.0} | {:+.1}% |",
        row.path.name,
        row.cc,
        ms(r.ttlb),
        ms(lo),
        ms(hi),
        ms(q.ttlb),
        row.diff() * 100.0,
        ms(e.ttlb),
        r.lost,
        q.lost,
        r.flight_bytes as f64 / 1e3,
        r.flight_span_us as f64 / 1e3,
        r.flight_span_us as f64 / rtt_us,
        q.flight_bytes as f64 / 1e3,
        q.flight_span_us as f64 / 1e3,
        q.flight_span_us as f64 / rtt_us,
        ms(row.batched),
        (ms(r.ttlb) / ms(row.batched) - 1.0) * 100.0,
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    EPOCH.get_or_init(Instant::now);
    let o = options()?;
    let mut paths = paths();
    if !o.paths.is_empty() {
        paths.retain(|p| o.paths.iter().any(|n| n == p.name));
    }
    if o.quick {
        paths.truncate(1);
    }
    for p in &mut paths {
        p.cellular = o.cellular;
        p.wifi_jitter = o.wifi_jitter;
    }
    let (sim_pacer, other_pacer) = match o.pacing {
        SendPacing::Controller => ("leaky-bucket", "quinn"),
        SendPacing::Quicly => ("quicly", "leaky-bucket"),
        SendPacing::Quinn => ("quinn", "leaky-bucket"),
    };
    println!(
        "real: pacing {}, ACK timing {}, median of {} run(s); sim: {sim_pacer} pacer (and {other_pacer} beside it){}",
        o.pacing,
        o.ack_timing,
        o.runs,
        paths::elements_note(o.cellular, o.wifi_jitter)
    );
    println!();
    println!("| path | cc | real TTLB ms | real min–max | sim ms | diff | sim ({other_pacer}) ms | real lost | sim lost | 1st flight real: KB in ms (RTTs) | sim | sim, ACK batching ms | diff |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut rows = Vec::new();
    for path in &paths {
        for cc in &o.ccs {
            let mut runs = Vec::with_capacity(o.runs);
            for _ in 0..o.runs {
                runs.push(real(*path, cc, &o).await?);
            }
            runs.sort_by_key(|r| r.ttlb);
            let row = Row {
                path: *path,
                cc: cc.clone(),
                runs,
                sim: sim(*path, cc, sim_pacer, None, o.trace)?,
                other: sim(*path, cc, other_pacer, None, false)?,
                batched: batched_median(*path, cc, sim_pacer)?,
            };
            print_row(&row);
            rows.push(row);
        }
    }
    println!();
    println!("Bytes sent per RTT from the first data send on (KB, rounds 1-6), and growth between rounds of 10 packets or more:");
    println!();
    println!("| path | cc | real | growth | sim | growth |");
    println!("|---|---|---|---|---|---|");
    for row in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            row.path.name,
            row.cc,
            fmt_rounds(&row.median().rounds),
            fmt_growth(&row.median().rounds),
            fmt_rounds(&row.sim.rounds),
            fmt_growth(&row.sim.rounds),
        );
    }
    println!();
    println!("ACK frames the real controller saw with the same time as another frame (all runs; ACK timing {}):", o.ack_timing);
    println!();
    println!("| path | cc | ACK frames | sharing a time |");
    println!("|---|---|---:|---:|");
    for row in &rows {
        let frames: u64 = row.runs.iter().map(|r| r.ack_frames).sum();
        let shared: u64 = row.runs.iter().map(|r| r.ack_frames_shared).sum();
        println!(
            "| {} | {} | {frames} | {:.1}% |",
            row.path.name,
            row.cc,
            shared as f64 * 100.0 / frames.max(1) as f64
        );
    }
    println!();
    println!("The relay in the real runs (all runs): the link's drops beside the losses quinn declared, and its send lateness against the model (server to client):");
    println!();
    println!("| path | cc | real lost | link drops | lateness mean µs | max µs | over 1 ms |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for row in &rows {
        let lost: u64 = row.runs.iter().map(|r| r.lost).sum();
        let d = |f: fn(&ramp_link::ForwardCounters) -> u64| -> u64 {
            row.runs.iter().map(|r| f(&r.relay.down)).sum()
        };
        let drops = d(|c| c.dropped_queue + c.dropped_aqm + c.dropped_loss);
        let sent = d(|c| c.delivered).max(1);
        let max = row
            .runs
            .iter()
            .map(|r| r.relay.down.lateness_max())
            .max()
            .unwrap_or_default();
        println!(
            "| {} | {} | {lost} | {drops} | {:.0} | {:.0} | {} |",
            row.path.name,
            row.cc,
            d(|c| c.lateness_sum_ns) as f64 / sent as f64 / 1e3,
            max.as_secs_f64() * 1e6,
            d(|c| c.late_over_1ms),
        );
    }
    if o.fidelity {
        println!();
        let failed = fidelity::report(&rows);
        if failed > 0 {
            return Err(format!("{failed} fidelity check(s) failed").into());
        }
    }
    Ok(())
}
