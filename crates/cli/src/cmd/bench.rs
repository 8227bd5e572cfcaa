//! `ramp bench`: measured speed of ramp's engines.

use std::time::Duration;

use ramp_sim::Scenario;

use crate::cc_list::{parse_cc_list, CcList};

/// What to benchmark.
#[derive(clap::Subcommand, Debug)]
pub enum Target {
    /// Simulator: simulated packets per second on one core
    /// (seed-100m, 3 MB transfers, alternating newreno and rapidstart).
    Sim {
        /// Wall-clock seconds to run (kept short: the machine is shared).
        #[arg(long, default_value_t = 5.0, value_parser = crate::ranges::number_in(0.1, 120.0))]
        seconds: f64,
        /// Scenario (preset or TOML file).
        #[arg(long, default_value = "seed-100m")]
        scenario: String,
        /// Controllers, comma-separated; connections cycle through them.
        #[arg(long, default_value = "newreno,rapidstart", value_parser = parse_cc_list)]
        cc: CcList,
    },
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
            scenario,
            cc,
        } => bench_sim(seconds, &scenario, &cc),
    }
}

fn bench_sim(seconds: f64, scenario: &str, cc: &CcList) -> anyhow::Result<()> {
    let mut sc = Scenario::load(scenario)?;
    sc.size_bytes = 3_000_000;
    let specs = &cc.specs;
    let budget = Duration::from_secs_f64(seconds);
    let r = ramp_sim::run_bench(&sc, specs, budget)?;
    println!(
        "ramp bench sim: scenario {}, {} bytes, cc {}, 1 thread",
        sc.name, sc.size_bytes, cc.text
    );
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
