//! Random scenarios never panic, always terminate, and (with no random
//! loss above 10 %) complete; invariants of every record hold.

use crate::common;

use common::*;
use ramp_link::LossModel;
use ramp_sim::scenario::QueueLimit;
use ramp_sim::AckPolicy;
use ramp_vocab::rng::Rng;
use std::time::Duration;

#[test]
fn random_scenarios_terminate_with_consistent_records() {
    let mut rng = Rng::from_u64(2026);
    let ccs = [
        "newreno",
        "cubic",
        "rapidstart",
        "jumpstart",
        "cubic+hystart",
        "rapidstart(jump=off)",
    ];
    for i in 0..400 {
        let mut sc = scenario("seed-100m");
        let pick = |r: &mut Rng, lo: f64, hi: f64| lo * (hi / lo).powf(r.next_f64());
        sc.path.rate = ramp_cc::Rate::from_bits_per_sec(pick(&mut rng, 0.3e6, 1e9) as u64);
        let rtt = Duration::from_micros(pick(&mut rng, 500.0, 600_000.0) as u64);
        sc.path.forward_delay = rtt / 2;
        sc.path.reverse_delay = rtt - rtt / 2;
        sc.path.queue = if rng.next_f64() < 0.5 {
            QueueLimit::Time(Duration::from_micros(
                pick(&mut rng, 1000.0, 500_000.0) as u64
            ))
        } else {
            QueueLimit::Bytes(pick(&mut rng, 1300.0, 2e6) as u64)
        };
        if sc.path.queue_bytes() < 1252 {
            sc.path.queue = QueueLimit::Bytes(1252);
        }
        let loss = pick(&mut rng, 1e-4, 0.1);
        sc.path.elements.loss = match i % 3 {
            0 => LossModel::None,
            1 => LossModel::Bernoulli { p: loss },
            _ => LossModel::GilbertElliott(ramp_link::GilbertElliott {
                p_good_to_bad: loss,
                p_bad_to_good: 0.3,
                loss_good: 0.0,
                loss_bad: 0.3,
            }),
        };
        if i % 7 == 0 {
            sc.path.elements.policer = Some(ramp_link::TokenBucket {
                rate: sc.path.rate,
                burst: 16_000,
            });
        }
        // Every discipline, with and without ECN.
        let aqm = [
            "droptail",
            "step:2ms",
            "codel",
            "fq_codel",
            "pie",
            "docsis_pie",
        ][i % 6];
        sc.path.aqm = aqm.parse().unwrap();
        sc.endpoint.ecn = ramp_cc::EcnCodepoint::ALL[(i % 5 == 0) as usize];
        if i % 4 == 0 {
            sc.path.elements.aggregation = ramp_link::AckAggregation::new(Duration::from_millis(3));
            sc.path.reverse_rate = Some(ramp_cc::Rate::from_bits_per_sec(1_000_000));
        }
        sc.endpoint.ack_policy = match i % 3 {
            0 => AckPolicy::Rfc9000,
            1 => AckPolicy::Chrome,
            _ => AckPolicy::AckFrequency {
                packets: 1 + i as u64 % 12,
                delay: Duration::from_millis(5),
            },
        };
        sc.endpoint.iw_packets = 1 + (i as u64 * 7) % 40;
        sc.size_bytes = pick(&mut rng, 1.0, 2e6) as u64;
        sc.time_limit = Duration::from_secs(600);
        sc.validate().unwrap();
        let cc = ccs[i % ccs.len()];
        let r = run(&sc, cc, i as u64);
        let ctx = format!("case {i} {cc} {sc:?}");
        assert!(r.completed, "did not complete: {ctx}\n{}", r.to_json());
        assert!(r.packets_acked + r.packets_lost <= r.packets_sent, "{ctx}");
        assert!(r.bytes_acked >= r.content_length, "{ctx}");
        assert!(r.cwnd >= 2 * 1252, "{ctx}");
        assert!(r.ttlb_us > 0 && r.client_ttlb_us > 0, "{ctx}");
    }
}

#[test]
fn a_time_limit_stops_an_unfinishable_run() {
    let mut sc = scenario("seed-100m");
    sc.path.elements.loss = LossModel::Bernoulli { p: 1.0 };
    sc.time_limit = Duration::from_secs(5);
    let r = run(&sc, "newreno", 1);
    assert!(!r.completed);
    assert_eq!(r.ttlb_us, 0);
}

#[test]
fn web_tables_have_ranges_checked_before_any_page_is_drawn() {
    use ramp_sim::Scenario;
    let base = "preset = \"seed-100m\"\ntime_limit = \"60s\"\n[[web]]\nusers = 4\n";
    // Fine: the model's defaults, and a one-second reading time.
    assert!(Scenario::from_toml(base, "ok").is_ok());
    assert!(Scenario::from_toml(&format!("{base}reading = \"1s\"\n"), "ok").is_ok());
    for (extra, needle) in [
        // This one grew to 24 GB before it was bounded.
        ("parsing = \"0s\"\nreading = \"1ns\"\n", "web 1: reading"),
        ("reading = \"61min\"\n", "web 1: reading"),
        ("parsing = \"11s\"\n", "web 1: parsing"),
    ] {
        let e = Scenario::from_toml(&format!("{base}{extra}"), "w")
            .expect_err(extra)
            .to_string();
        assert!(e.contains(needle), "{extra}: {e}");
    }
    let many = "preset = \"seed-100m\"\ntime_limit = \"60min\"\n[[web]]\nusers = 256\nhorizon = \"60min\"\nreading = \"1s\"\n";
    let e = Scenario::from_toml(many, "w")
        .expect_err("pages")
        .to_string();
    assert!(e.contains("pages, above the maximum"), "{e}");
}
