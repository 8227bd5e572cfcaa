//! `ramp bench all`: the figures the simulator's cost is judged by, in one
//! table: instructions per simulated packet (callgrind, where valgrind is
//! installed), packets per second per core, fleet connections per second
//! at one thread and at all cores, the speed-up and the serial fraction.

use std::process::Command;
use std::time::Duration;

use ramp_sim::{BenchStop, BenchWorkload, Scenario};

use crate::cmd::fleet::bench::{amdahl, measure};

/// Arguments of `ramp bench all`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Seconds of each packets-per-second run.
    #[arg(long, default_value_t = 3.0, value_parser = crate::ranges::number_in(0.1, 120.0))]
    seconds: f64,
    /// Connections of each callgrind run (a fixed workload).
    #[arg(long, default_value_t = 10)]
    callgrind_connections: u64,
    /// Fleet connections of the scaling runs.
    #[arg(short = 'n', long, default_value_t = 2000)]
    connections: u64,
}

/// The two simulator workloads: `ramp bench sim`'s default and its fleet mix.
fn workloads() -> anyhow::Result<Vec<(&'static str, BenchWorkload)>> {
    let mut sc = Scenario::load("seed-100m")?;
    sc.size_bytes = 3_000_000;
    let specs = ramp_cc::spec::parse_list("newreno,rapidstart")
        .map_err(|e| anyhow::anyhow!("controllers: {e}"))?;
    let plan = ramp_sim::fleet::experiments::plan("rapid-start-2026", u64::MAX, 1)?;
    Ok(vec![
        (
            "scenario",
            BenchWorkload::Scenario {
                scenario: Box::new(sc),
                specs,
            },
        ),
        ("fleet-mix", BenchWorkload::Fleet(Box::new(plan))),
    ])
}

/// Instructions per packet of `ramp bench sim --workload W --connections K`
/// under callgrind (the whole process: start-up included), or why not.
fn callgrind(workload: &str, connections: u64) -> Result<f64, String> {
    let exe = std::env::current_exe().map_err(|e| format!("own path: {e}"))?;
    let out = std::env::temp_dir().join(format!(
        "ramp-bench-callgrind-{}-{workload}",
        std::process::id()
    ));
    let run = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(&exe)
        .args(["bench", "sim", "--workload", workload, "--connections"])
        .arg(connections.to_string())
        .output()
        .map_err(|e| format!("valgrind not run ({e})"))?;
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    if !run.status.success() {
        return Err(format!("valgrind exited with {}", run.status));
    }
    let stdout = String::from_utf8_lossy(&run.stdout);
    // "N connections, P packets, ..."
    let packets: f64 = stdout
        .lines()
        .find_map(|l| {
            let (_, rest) = l.split_once(" connections, ")?;
            rest.split_whitespace().next()?.parse().ok()
        })
        .ok_or("no packet count in ramp bench sim's output")?;
    let instructions: f64 = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .ok_or("no instruction total in callgrind's output")?;
    Ok(instructions / packets)
}

/// Runs `ramp bench all` and prints its table.
pub(crate) fn run(a: &Args) -> anyhow::Result<()> {
    let mut rows: Vec<(String, String, String)> = Vec::new();
    for (name, w) in workloads()? {
        let ipp = match callgrind(name, a.callgrind_connections) {
            Ok(v) => format!("{v:.0}"),
            Err(why) => format!("- ({why})"),
        };
        rows.push((
            format!("instructions per packet, {name}"),
            ipp,
            format!(
                "callgrind, `ramp bench sim --workload {name} --connections {}`, whole process",
                a.callgrind_connections
            ),
        ));
        let r = ramp_sim::run_bench(&w, BenchStop::Budget(Duration::from_secs_f64(a.seconds)))?;
        rows.push((
            format!("packets/s per core, {name}"),
            format!("{:.2} M", r.packets_per_cpu_sec() / 1e6),
            format!(
                "{} packets in {:.2} s of the thread's CPU",
                r.packets,
                r.cpu_seconds.unwrap_or(f64::NAN)
            ),
        ));
    }
    let n = ramp_sim::fleet::run::effective_threads(0);
    let dir = std::env::temp_dir().join(format!("ramp-bench-all-{}", std::process::id()));
    let runs: anyhow::Result<Vec<_>> = [1, n]
        .iter()
        .map(|&t| {
            measure(
                "rapid-start-2026",
                a.connections,
                t,
                &dir.join(format!("j{t}")),
            )
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    let runs = runs?;
    let (one, all) = (runs[0], runs[runs.len() - 1]);
    let per = |p: &crate::cmd::fleet::bench::Phases| p.connections as f64;
    rows.push((
        "fleet connections/s, 1 thread".into(),
        format!("{:.0}", per(&one) / one.cpu_s),
        format!(
            "per CPU second; {} connections x {} arms (wall: {:.0}/s)",
            one.connections,
            one.arms,
            per(&one) / one.wall_s
        ),
    ));
    rows.push((
        format!("fleet connections/s, {n} threads"),
        format!("{:.0}", per(&all) / all.wall_s),
        "wall clock (idle machine only)".into(),
    ));
    let s = (one.plan_s + one.summary_s) / one.cpu_s;
    rows.push((
        format!("fleet speed-up, {n} threads against 1"),
        format!("{:.2}x", one.wall_s / all.wall_s),
        format!(
            "wall clock; Amdahl bound {:.2}x at serial fraction {:.2} % (`ramp bench fleet` for the phases)",
            amdahl(s, n),
            100.0 * s
        ),
    ));
    println!("| figure | value | how |\n|---|---:|---|");
    for (f, v, h) in rows {
        println!("| {f} | {v} | {h} |");
    }
    Ok(())
}
