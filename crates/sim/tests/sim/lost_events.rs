//! The trace's `lost` events: one per packet the detector declares lost
//! (RFC 9002 §6.1), by an ACK or by the loss-detection timer.

use std::collections::HashSet;

use ramp_sim::Scenario;

use crate::common::*;

/// real_vs_sim's cellular 100m-30ms path with Rapid Start, whose last
/// packets are declared lost by the time threshold and then wait for the
/// ACK of their retransmission: no packet is reported lost twice (a timer
/// event that found nothing due once re-traced the last timeout's losses).
#[test]
fn rfc9002_6_1_a_trace_declares_each_lost_packet_once() {
    let toml = "seed = 1\n[path]\nrate = \"100mbit\"\nrtt = \"30ms\"\nqueue = \"30ms\"\n\
                [path.cellular]\n[endpoint]\nmds = 1200\niw = 10\npacer = \"leaky-bucket\"\n";
    let mut sc = Scenario::from_toml(toml, "cellular-100m-30ms").unwrap();
    sc.size_bytes = 2_000_000;
    let t = run_traced(&sc, "rapidstart", 1);
    let lost: Vec<u64> = t
        .events()
        .iter()
        .filter(|e| ev(e) == "lost" && e.get("offset").is_some())
        .map(|e| e["pn"].as_u64().unwrap())
        .collect();
    assert!(lost.len() > 100, "{} losses", lost.len());
    let unique: HashSet<_> = lost.iter().collect();
    assert_eq!(unique.len(), lost.len(), "a packet reported lost twice");
    assert_eq!(t.record.packets_lost, lost.len() as u64);
}
