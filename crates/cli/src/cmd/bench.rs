//! `ramp bench`: measured speed of ramp's engines.

use std::time::{Duration, Instant};

use anyhow::Context;
use ramp_sim::{flows_for, simulate, Scenario, TraceSink};

/// What to benchmark.
#[derive(clap::Subcommand, Debug)]
pub enum Target {
    /// Simulator: simulated packets per second on one core
    /// (seed-100m, 3 MB transfers, alternating newreno and rapidstart).
    Sim {
        /// Wall-clock seconds to run (kept short: the machine is shared).
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        /// Scenario (preset or TOML file).
        #[arg(long, default_value = "seed-100m")]
        scenario: String,
        /// Controllers, comma-separated; connections cycle through them.
        #[arg(long, default_value = "newreno,rapidstart")]
        cc: String,
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

fn bench_sim(seconds: f64, scenario: &str, cc: &str) -> anyhow::Result<()> {
    let mut sc = Scenario::load(scenario)?;
    sc.size_bytes = 3_000_000;
    let specs = ramp_cc::spec::parse_list(cc).map_err(|e| anyhow::anyhow!("--cc: {e}"))?;
    anyhow::ensure!(!specs.is_empty(), "--cc: give at least one controller");
    let budget = Duration::from_secs_f64(seconds.clamp(0.1, 120.0));
    let mut packets = 0u64;
    let mut events = 0u64;
    let mut conns = 0u64;
    let start = Instant::now();
    while start.elapsed() < budget {
        let spec = &specs[(conns as usize) % specs.len()];
        let flows = flows_for(&sc, spec, "").context("building flows")?;
        let out = simulate(&sc, flows, sc.seed.wrapping_add(conns), &mut TraceSink::off());
        packets += out.packets;
        events += out.events;
        conns += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "ramp bench sim: scenario {}, {} bytes, cc {cc}, 1 thread",
        sc.name, sc.size_bytes
    );
    println!(
        "{conns} connections, {packets} packets, {events} events in {secs:.2} s: {:.2} M packets/s, {:.2} M events/s, {:.0} connections/s",
        packets as f64 / secs / 1e6,
        events as f64 / secs / 1e6,
        conns as f64 / secs
    );
    Ok(())
}
