//! ramp-sim: a deterministic packet-level simulator driving the real ramp-cc
//! controllers, loss detector and pacer.
//!
//! A [`Scenario`] (a built-in preset or a TOML file) describes a path and
//! the endpoints; [`run_connection`] simulates one connection (handshake,
//! request, response of N bytes) with one controller and returns its stats
//! [`Record`]; [`run_arms`] runs several controllers on the same path and
//! seed, in parallel, with output independent of the thread count. See
//! docs/simulator.md for the model and docs/formats.md for the outputs.
//!
//! ```no_run
//! use ramp_sim::{run_connection, Scenario, TraceSink};
//! let sc = Scenario::load("seed-100m").unwrap();
//! let spec = ramp_cc::spec::parse("rapidstart(iw=30)").unwrap();
//! let rec = run_connection(&sc, &spec, 1, &mut TraceSink::off()).unwrap();
//! println!("{}", rec.to_json());
//! ```

#![forbid(unsafe_code)]

mod bench;
mod client;
pub mod clock_phase;
mod engine;
mod error;
mod fairness;
pub mod fleet;
mod flow_control;
mod page;
mod parallel;
mod path;
mod receiver;
mod record;
mod resumption;
pub mod scenario;
mod server;
pub mod trace;
mod units;
mod wakeup;
mod web;

use ramp_cc::config::{CcConfig, InitialWindow};
use ramp_cc::spec::ControllerSpec;
use ramp_vocab::rng::Rng;

// The public surface: three subsystems as modules (fleet experiments,
// scenarios, traces) and, at the root, what a caller of the simulator
// names. Everything else is private.
pub use bench::{run as run_bench, BenchResult, BenchStop, BenchWorkload};
pub use engine::{simulate, FlowSetup, SimOutput};
pub use error::{Bound, SimError};
pub use fairness::jain_index;
pub use flow_control::FlowWindows;
pub use parallel::map_ordered;
pub use receiver::{AckPolicy, AckPolicyError};
pub use record::Record;
pub use resumption::{server_initial_rtt, Resumption, UnknownResumption};
pub use scenario::{Scenario, ScenarioError};
pub use trace::TraceSink;
pub use wakeup::{WakeupLatency, WakeupTableError};
pub use web::{HttpModel, WebConfig};

/// Internals that sim's own integration tests drive directly (a client's
/// request schedule, a page's objects). Not part of the API: no other
/// crate may use them.
#[doc(hidden)]
pub mod internals {
    pub use crate::client::Client;
    pub use crate::page::{Object, Requests, ScheduleError, Trigger};
}

/// The random stream of the per-flow controller seeds ([`flows_for`]).
const FLOW_SEED_STREAM: u64 = 0xF1_0253_EED5;

/// The controller settings a scenario implies: its datagram size and its
/// initial window in packets. A spec's own options (`iw=`, `pacing=`, ...)
/// override these.
pub fn cc_config(scenario: &Scenario) -> CcConfig {
    CcConfig {
        max_datagram_size: scenario.endpoint.mds,
        initial_window: InitialWindow::Packets(
            u32::try_from(scenario.endpoint.iw_packets).unwrap_or(u32::MAX),
        ),
        // RFC 9438 §4.7: CUBIC's fast convergence (`auto`) is off only for
        // a flow known to be alone on the bottleneck.
        alone_on_bottleneck: scenario.cross_flows.is_empty() && scenario.web.is_empty(),
        ..CcConfig::default()
    }
}

/// The flows of one run: the flow under test with `spec`, then the
/// scenario's cross flows, then its web users' objects drawn from `seed`
/// (their own spec, or `spec` if they name none).
pub fn flows_for(
    scenario: &Scenario,
    spec: &ControllerSpec,
    group: &str,
    seed: u64,
) -> Result<Vec<FlowSetup>, SimError> {
    let cfg = cc_config(scenario);
    let ecn = |s: &ControllerSpec| s.ecn_codepoint().unwrap_or(scenario.endpoint.ecn);
    // The arm's own pacer (the seed arms: quicly's), else the endpoint's.
    let pacer = |s: &ControllerSpec| match s.pacer_model() {
        Some(m) => m.kind(scenario.endpoint.pacer, scenario.endpoint.mds),
        None => scenario.endpoint.pacer,
    };
    // Each flow draws its controller's randomness (BBRv3's probe wait)
    // from its own stream of the run's seed: concurrent flows must not
    // draw alike.
    let flow_cfg = |index: u64| CcConfig {
        flow_seed: Some(Rng::new(seed, FLOW_SEED_STREAM.wrapping_add(index)).next_u64()),
        ..cfg
    };
    let mut flows = vec![FlowSetup {
        controller: spec.build(&flow_cfg(0)),
        ecn: ecn(spec),
        pacer: pacer(spec),
        send_rule: spec.send_rule(),
        group: group.to_string(),
        start: core::time::Duration::ZERO,
        size_bytes: scenario.size_bytes,
    }];
    // Each flow with the table it came from, for errors: `flow N` for the
    // N-th `[[flow]]`, `web N` for the users of the N-th `[[web]]`.
    let cross = scenario
        .cross_flows
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, f)| (format!("flow {}", i + 1), f));
    let web = scenario.web.iter().enumerate().flat_map(|(i, w)| {
        w.flows(seed)
            .into_iter()
            .map(move |f| (format!("web {}", i + 1), f))
    });
    for (i, (table, f)) in cross.chain(web).enumerate() {
        let s = match &f.cc {
            Some(name) => ramp_cc::spec::parse(name).map_err(|error| SimError::Controller {
                table: table.clone(),
                name: name.clone(),
                error,
            })?,
            None => spec.clone(),
        };
        flows.push(FlowSetup {
            controller: s.build(&flow_cfg(i as u64 + 1)),
            ecn: ecn(&s),
            pacer: pacer(&s),
            send_rule: s.send_rule(),
            group: String::new(),
            start: f.start,
            size_bytes: f.size_bytes,
        });
    }
    Ok(flows)
}

/// Simulates one connection of `scenario` with the controller `spec` on the
/// path seeded by `seed`, tracing it into `trace` (use [`TraceSink::off`]
/// for none), and returns its stats record. Cross flows of the scenario run
/// alongside; their records are dropped (use [`simulate`] to get them).
///
/// Same arguments, same record, byte for byte.
pub fn run_connection(
    scenario: &Scenario,
    spec: &ControllerSpec,
    seed: u64,
    trace: &mut TraceSink,
) -> Result<Record, SimError> {
    run_flows(scenario, spec, seed, trace)?
        .into_iter()
        .next()
        .ok_or(SimError::Internal("no record for flow 0"))
}

/// Like [`run_connection`], but returns every flow's record: the flow
/// under test first, then the cross flows and web objects in
/// [`flows_for`]'s order.
pub fn run_flows(
    scenario: &Scenario,
    spec: &ControllerSpec,
    seed: u64,
    trace: &mut TraceSink,
) -> Result<Vec<Record>, SimError> {
    let flows = flows_for(scenario, spec, "", seed)?;
    Ok(simulate(scenario, flows, seed, trace).records)
}

/// Runs each spec on the same scenario and seed (the arms of an A/B
/// comparison), on up to `threads` threads, and returns their records in
/// spec order. Untraced. The result does not depend on `threads`.
pub fn run_arms(
    scenario: &Scenario,
    specs: &[ControllerSpec],
    seed: u64,
    threads: usize,
) -> Result<Vec<Record>, SimError> {
    let records = parallel::map_ordered(specs.len() as u64, threads.max(1), |i| {
        run_connection(scenario, &specs[i as usize], seed, &mut TraceSink::off())
    });
    if records.len() < specs.len() {
        return Err(SimError::Internal("an arm was not run"));
    }
    records.into_iter().collect()
}
