//! Trace-driven links (Mahimahi's format) end to end: a trace of one
//! opportunity per millisecond is a 12 Mbit/s link, and a bursty trace of
//! the same mean carries a transfer at that mean, more slowly than the
//! smooth one only by what its bursts add to the queue.

use std::sync::Arc;
use std::time::Duration;

use ramp_sim::link::DeliveryTrace;

use crate::common::*;

fn on_trace(text: &str) -> ramp_sim::Scenario {
    let mut sc = scenario("seed-100m");
    let t = DeliveryTrace::parse(text, "t.trace").expect("trace");
    sc.path.rate = t.mean_rate();
    sc.path.trace = Some(Arc::new(t));
    sc.path.forward_delay = Duration::from_millis(20);
    sc.path.reverse_delay = Duration::from_millis(20);
    sc.path.queue = ramp_sim::scenario::QueueLimit::Time(Duration::from_millis(200));
    sc.size_bytes = 1_000_000;
    sc
}

#[test]
fn a_trace_of_one_opportunity_per_ms_runs_as_a_12_mbit_link() {
    let trace: String = (1..=1000).map(|i| format!("{i}\n")).collect();
    let traced = run(&on_trace(&trace), "newreno", 1);
    let mut constant = on_trace(&trace);
    constant.path.trace = None;
    let flat = run(&constant, "newreno", 1);
    assert!(traced.completed && flat.completed);
    assert_eq!(traced.path_rate_bps, 12_000_000);
    // The same bytes per second, delivered at whole milliseconds: the
    // transfer times agree within a few per cent.
    let r = traced.ttlb_us as f64 / flat.ttlb_us as f64;
    assert!(
        (0.95..1.05).contains(&r),
        "trace {} vs constant {}",
        traced.ttlb_us,
        flat.ttlb_us
    );
}

#[test]
fn a_trace_run_is_deterministic_and_idle_opportunities_are_lost() {
    // 8 opportunities in a burst every 8 ms (12 Mbit/s on average).
    let trace: String = (1..=125)
        .flat_map(|i| std::iter::repeat_n(format!("{}\n", 8 * i), 8))
        .collect();
    let sc = on_trace(&trace);
    let a = run(&sc, "cubic", 3);
    let b = run(&sc, "cubic", 3);
    assert_eq!(a.to_json(), b.to_json());
    assert!(a.completed);
    // 1 MB at 12 Mbit/s takes at least 667 ms plus the handshake.
    assert!(a.ttlb_us > 667_000 + 40_000, "{}", a.ttlb_us);
}
