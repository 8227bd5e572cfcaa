//! The simulator's speed benchmark (`ramp bench sim`): simulated packets per
//! second on one core.

use std::time::{Duration, Instant};

use ramp_cc::spec::ControllerSpec;

use crate::{flows_for, simulate, Scenario, SimError, TraceSink};

/// What a benchmark run measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BenchResult {
    /// Connections simulated.
    pub connections: u64,
    /// Server datagrams simulated.
    pub packets: u64,
    /// Events processed.
    pub events: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// CPU seconds this thread ran (Linux `/proc/thread-self/schedstat`),
    /// if available: on a shared machine, packets per CPU second is the
    /// per-core speed.
    pub cpu_seconds: Option<f64>,
}

impl BenchResult {
    /// Simulated packets per wall-clock second.
    pub fn packets_per_sec(&self) -> f64 {
        self.packets as f64 / self.seconds
    }

    /// Simulated packets per CPU second of the benchmark thread (falls back
    /// to wall-clock seconds where the CPU time is unknown).
    pub fn packets_per_cpu_sec(&self) -> f64 {
        self.packets as f64 / self.cpu_seconds.unwrap_or(self.seconds)
    }
}

/// CPU time of the calling thread, from `/proc/thread-self/schedstat`
/// (first field: nanoseconds on CPU).
fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// Simulates connections of `scenario` on this thread for about `budget`,
/// cycling through `specs`, untraced, with seeds `scenario.seed + i`.
pub fn run(
    scenario: &Scenario,
    specs: &[ControllerSpec],
    budget: Duration,
) -> Result<BenchResult, SimError> {
    if specs.is_empty() {
        return Err(SimError::NoController);
    }
    let mut r = BenchResult {
        connections: 0,
        packets: 0,
        events: 0,
        seconds: 0.0,
        cpu_seconds: None,
    };
    let cpu0 = thread_cpu_seconds();
    let start = Instant::now();
    while start.elapsed() < budget {
        let spec = &specs[(r.connections as usize) % specs.len()];
        let seed = scenario.seed.wrapping_add(r.connections);
        let flows = flows_for(scenario, spec, "", seed)?;
        let out = simulate(scenario, flows, seed, &mut TraceSink::off());
        r.packets += out.packets;
        r.events += out.events;
        r.connections += 1;
    }
    r.seconds = start.elapsed().as_secs_f64();
    r.cpu_seconds = match (cpu0, thread_cpu_seconds()) {
        (Some(a), Some(b)) if b > a => Some(b - a),
        _ => None,
    };
    Ok(r)
}
