//! `ramp bench`: measured speed of ramp's engines.

use std::time::Duration;

use ramp_sim::{BenchStop, BenchWorkload, Scenario};

use crate::cc_list::{parse_cc_list, CcList};

/// The fleet preset whose paths `--workload fleet-mix` draws.
const FLEET_MIX_PRESET: &str = "rapid-start-2026";

/// What `ramp bench sim` simulates.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimWorkload {
    /// `--scenario`'s connections with 3 MB responses, cycling through `--cc`.
    Scenario,
    /// Paths drawn as the rapid-start-2026 fleet draws them (its access
    /// types, AQMs, cellular and Wi-Fi elements, policers, ACK policies and
    /// object sizes), each run once per arm of that experiment, run seed 1.
    FleetMix,
}

/// What to benchmark.
#[derive(clap::Subcommand, Debug)]
pub enum Target {
    /// Simulator: simulated packets per second on one core
    /// (default: seed-100m, 3 MB transfers, alternating newreno and rapidstart).
    Sim {
        /// Wall-clock seconds to run (kept short: the machine is shared).
        #[arg(long, default_value_t = 5.0, value_parser = crate::ranges::number_in(0.1, 120.0))]
        seconds: f64,
        /// Run exactly this many connections instead of `--seconds`: a fixed
        /// workload, for instruction counts (`valgrind --tool=callgrind`).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
        connections: Option<u64>,
        /// Which connections to simulate.
        #[arg(long, value_enum, default_value_t = SimWorkload::Scenario)]
        workload: SimWorkload,
        /// Scenario (preset or TOML file) of `--workload scenario`.
        #[arg(long, default_value = "seed-100m")]
        scenario: String,
        /// Controllers of `--workload scenario`, comma-separated;
        /// connections cycle through them.
        #[arg(long, default_value = "newreno,rapidstart", value_parser = parse_cc_list)]
        cc: CcList,
    },
    /// Fleet: connections per second at one thread and at N, CPU time per
    /// phase, the serial fraction and the speed-up Amdahl's law allows
    /// (a fleet run with records and summary, no charts, seed 1).
    Fleet(crate::cmd::fleet::bench::Args),
    /// All of it in one table: instructions per packet (callgrind, where
    /// valgrind is installed), packets/s per core (both `sim` workloads),
    /// fleet connections/s at one thread and all cores, the speed-up.
    All(crate::cmd::bench_all::Args),
}

/// Arguments of `ramp bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The benchmark.
    #[command(subcommand)]
    pub target: Target,
}

/// Runs `ramp bench`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.target {
        Target::Sim {
            seconds,
            connections,
            workload,
            scenario,
            cc,
        } => {
            let stop = match connections {
                Some(n) => BenchStop::Connections(n),
                None => BenchStop::Budget(Duration::from_secs_f64(seconds)),
            };
            bench_sim(stop, workload, &scenario, &cc)
        }
        Target::Fleet(a) => crate::cmd::fleet::bench::run(&a),
        Target::All(a) => crate::cmd::bench_all::run(&a),
    }
}

fn bench_sim(
    stop: BenchStop,
    workload: SimWorkload,
    scenario: &str,
    cc: &CcList,
) -> anyhow::Result<()> {
    let (w, what) = match workload {
        SimWorkload::Scenario => {
            let mut sc = Scenario::load(scenario)?;
            sc.size_bytes = 3_000_000;
            let specs = cc.items.clone();
            let what = format!(
                "scenario {}, {} bytes, cc {}",
                sc.name, sc.size_bytes, cc.text
            );
            (
                BenchWorkload::Scenario {
                    scenario: Box::new(sc),
                    specs,
                },
                what,
            )
        }
        SimWorkload::FleetMix => {
            let plan = ramp_sim::fleet::experiments::plan(FLEET_MIX_PRESET, u64::MAX, 1)?;
            let arms: Vec<&str> = plan.arms.iter().map(|a| a.label.as_str()).collect();
            let what = format!(
                "fleet mix: {FLEET_MIX_PRESET} paths (run seed 1), arms {}",
                arms.join(",")
            );
            (BenchWorkload::Fleet(Box::new(plan)), what)
        }
    };
    let r = ramp_sim::run_bench(&w, stop)?;
    println!("ramp bench sim: {what}, 1 thread");
    println!(
        "{} connections, {} packets, {} events in {:.2} s wall, {} s CPU",
        r.connections,
        r.packets,
        r.events,
        r.seconds,
        r.cpu_seconds
            .map(|c| format!("{c:.2}"))
            .unwrap_or_else(|| "?".to_string())
    );
    println!(
        "{:.2} M packets/s per core (per CPU second), {:.2} M packets/s wall, {:.0} connections/s wall",
        r.packets_per_cpu_sec() / 1e6,
        r.packets_per_sec() / 1e6,
        r.connections as f64 / r.seconds
    );
    Ok(())
}
