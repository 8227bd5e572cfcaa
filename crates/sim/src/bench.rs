//! The simulator's speed benchmark (`ramp bench sim`): simulated packets per
//! second on one core, over one scenario or over a fleet-like mix of paths.

use std::time::{Duration, Instant};

use ramp_cc::spec::ControllerSpec;

use crate::fleet::{Connection, FleetPlan};
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

/// The connections a benchmark simulates, in order.
#[derive(Clone, Debug)]
pub enum BenchWorkload {
    /// Connections of one scenario, cycling through `specs`, with seeds
    /// `scenario.seed + i`.
    Scenario {
        /// The scenario every connection runs.
        scenario: Box<Scenario>,
        /// Controllers, one per connection in turn.
        specs: Vec<ControllerSpec>,
    },
    /// Connections drawn as a fleet plan draws them (its population's
    /// access types, AQMs, cellular and Wi-Fi elements, policers, ACK
    /// policies and object sizes), each simulated once per arm: benchmark
    /// connection `k` is fleet connection `k / arms`, arm `k % arms`.
    Fleet(Box<FleetPlan>),
}

/// When a benchmark stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BenchStop {
    /// After this much wall-clock time (checked between connections).
    Budget(Duration),
    /// After exactly this many connections: a fixed workload, for
    /// instruction counts (callgrind) that do not depend on the machine.
    Connections(u64),
}

/// CPU time of the calling thread, from `/proc/thread-self/schedstat`
/// (first field: nanoseconds on CPU).
fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// Simulates the connections of `workload` on this thread, untraced, until
/// `stop`.
pub fn run(workload: &BenchWorkload, stop: BenchStop) -> Result<BenchResult, SimError> {
    match workload {
        BenchWorkload::Scenario { specs, .. } if specs.is_empty() => {
            return Err(SimError::NoController)
        }
        BenchWorkload::Fleet(plan) if plan.arms.is_empty() => return Err(SimError::NoController),
        _ => {}
    }
    let mut r = BenchResult {
        connections: 0,
        packets: 0,
        events: 0,
        seconds: 0.0,
        cpu_seconds: None,
    };
    // The fleet connection drawn last (each is run once per arm).
    let mut drawn: Option<Connection> = None;
    let cpu0 = thread_cpu_seconds();
    let start = Instant::now();
    loop {
        let more = match stop {
            BenchStop::Budget(b) => start.elapsed() < b,
            BenchStop::Connections(n) => r.connections < n,
        };
        if !more {
            break;
        }
        let k = r.connections;
        let out = match workload {
            BenchWorkload::Scenario { scenario, specs } => {
                let spec = &specs[(k as usize) % specs.len()];
                let seed = scenario.seed.wrapping_add(k);
                let flows = flows_for(scenario, spec, "", seed)?;
                simulate(scenario, flows, seed, &mut TraceSink::off())
            }
            BenchWorkload::Fleet(plan) => {
                let arms = plan.arms.len() as u64;
                let index = k / arms;
                if drawn.as_ref().is_none_or(|c| c.index != index) {
                    drawn = Some(plan.connection(index));
                }
                let c = drawn
                    .as_ref()
                    .ok_or(SimError::Internal("no fleet connection drawn"))?;
                let arm = &plan.arms[(k % arms) as usize];
                let flows = flows_for(&c.scenario, &arm.spec, &arm.label, c.path_seed)?;
                simulate(&c.scenario, flows, c.path_seed, &mut TraceSink::off())
            }
        };
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
