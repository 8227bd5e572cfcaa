//! Flows through the queue disciplines of `ramp-link`, end to end: the
//! drops and marks reach the records, ECN is per arm, and CE takes the
//! place of a drop (RFC 3168 §6.1.1 at the queue, RFC 9002 §7 at the
//! sender).

use crate::common::*;

fn aqm_scenario(aqm: &str) -> ramp_sim::Scenario {
    let mut sc = scenario("seed-100m");
    sc.path.queue = ramp_sim::scenario::QueueLimit::Time(std::time::Duration::from_millis(100));
    sc.path.aqm = aqm.parse().expect("aqm");
    sc
}

#[test]
fn rfc8289_codel_drops_reach_the_record_and_ecn_arms_see_marks_instead() {
    let sc = aqm_scenario("codel");
    let plain = run(&sc, "cubic", 1);
    let ecn = run(&sc, "cubic(ecn=on)", 1);
    assert!(plain.completed && ecn.completed);
    assert_eq!(plain.aqm, "codel");
    // CoDel ends cubic's slow start with an early drop (no tail drop: the
    // 100 ms buffer is not reached at 2× growth).
    assert!(plain.drops_aqm >= 1, "{}", plain.to_json());
    assert_eq!(plain.packets_acked_ce, 0);
    // The ECN arm: the same signal as a CE mark, no drop, no loss, and an
    // ECN-started recovery episode.
    assert_eq!(ecn.drops_aqm, 0, "{}", ecn.to_json());
    assert!(ecn.packets_acked_ce >= 1);
    assert!(ecn.num_ecn_loss_episodes >= 1);
    assert_eq!(ecn.packets_lost, 0);
}

#[test]
fn every_discipline_completes_and_counts_its_drops_by_cause() {
    for aqm in [
        "droptail",
        "step:1ms",
        "codel",
        "fq_codel",
        "pie",
        "docsis_pie",
        "dualpi2",
        "docsis_lld",
    ] {
        let sc = aqm_scenario(aqm);
        for cc in ["newreno", "rapidstart", "bbr3"] {
            let r = run(&sc, cc, 3);
            assert!(r.completed, "{aqm} {cc}");
            assert_eq!(r.aqm, aqm.replace("1ms", "1000us"));
            if matches!(aqm, "droptail" | "step:1ms") {
                assert_eq!(r.drops_aqm, 0, "{aqm} {cc}");
            }
            // Every loss the sender saw was a drop on the path (no random
            // loss here), by one cause or another.
            assert!(
                r.packets_lost - r.packets_lost_spurious <= r.drops_aqm + r.drops_queue,
                "{aqm} {cc}: {}",
                r.to_json()
            );
        }
    }
}

#[test]
fn ecn_is_per_arm_and_the_endpoint_default_applies_otherwise() {
    let mut sc = aqm_scenario("step:1ms");
    // The endpoint says ECN on; an arm can still opt out.
    sc.endpoint.ecn = ramp_cc::EcnCodepoint::Ect0;
    let on = run(&sc, "newreno", 1);
    let off = run(&sc, "newreno(ecn=off)", 1);
    assert!(on.packets_acked_ce > 0);
    assert_eq!(off.packets_acked_ce, 0);
}

#[test]
fn rfc9000_13_4_ect1_arm_counts_each_codepoint_and_passes_validation() {
    let sc = aqm_scenario("step:1ms");
    let l4s = run(&sc, "newreno(ecn=ect1)", 1);
    let classic = run(&sc, "newreno(ecn=on)", 1);
    assert!(l4s.completed && l4s.cc_algorithm.contains("ecn=ect1"));
    // RFC 9000 §19.3.2: the ECT(1) arm's packets come back as ECT(1) or
    // CE, never ECT(0); validation (§13.4.2.1) held, so the CE count grew.
    let [ect0, ect1] = l4s
        .packets_acked_ect
        .expect("ECT(1) flows carry the counts");
    assert_eq!(ect0, 0);
    assert!(ect1 > 0 && l4s.packets_acked_ce > 0, "{}", l4s.to_json());
    // Every packet that arrived was counted once (the handshake's too).
    assert!(
        ect1 + l4s.packets_acked_ce >= l4s.packets_acked,
        "{}",
        l4s.to_json()
    );
    // An ECT(0) arm keeps the older key set.
    assert_eq!(classic.packets_acked_ect, None);
    assert!(!classic.to_json().contains("acked-ecn-ect"));
    // Under a step threshold both codepoints are marked alike.
    assert_eq!(l4s.packets_acked_ce, classic.packets_acked_ce);
}

#[test]
fn endpoint_ecn_takes_a_codepoint_name_or_a_switch() {
    for (v, want) in [
        ("true", ramp_cc::EcnCodepoint::Ect0),
        ("\"ect1\"", ramp_cc::EcnCodepoint::Ect1),
        ("\"off\"", ramp_cc::EcnCodepoint::NotEct),
    ] {
        let sc = ramp_sim::Scenario::from_toml(
            &format!("preset = \"seed-100m\"\n[endpoint]\necn = {v}\n"),
            "t",
        )
        .expect("valid");
        assert_eq!(sc.endpoint.ecn, want, "{v}");
    }
    let Err(err) =
        ramp_sim::Scenario::from_toml("preset = \"seed-100m\"\n[endpoint]\necn = \"ce\"\n", "t")
    else {
        panic!("ce is not sendable");
    };
    assert!(err.to_string().contains("endpoint.ecn"), "{err}");
}

#[test]
fn rfc9332_dualpi2_end_to_end_l_flows_are_marked_early_and_classic_flows_late() {
    let sc = aqm_scenario("dualpi2");
    let l4s = run(&sc, "newreno(ecn=ect1)", 1);
    let classic = run(&sc, "newreno(ecn=on)", 1);
    assert!(l4s.completed && classic.completed);
    // The L queue's 1 ms step marks the ECT(1) flow's slow start; the
    // classic queue's PI (15 ms target) lets the ECT(0) flow build a
    // standing queue first.
    assert!(l4s.packets_acked_ce > 0, "{}", l4s.to_json());
    assert_eq!(l4s.drops_aqm + l4s.drops_queue, 0, "{}", l4s.to_json());
    assert!(
        l4s.rtt_smoothed_us < classic.rtt_smoothed_us,
        "{} / {}",
        l4s.to_json(),
        classic.to_json()
    );
}

#[test]
fn prague_sends_ect1_and_any_startup_can_lead_it() {
    let sc = aqm_scenario("dualpi2");
    for cc in ["prague", "prague+hystart", "prague+rapidstart"] {
        let r = run(&sc, cc, 1);
        assert!(r.completed, "{cc}");
        // RFC 9331 §4.1: an L4S sender marks ECT(1) by default.
        let [ect0, ect1] = r.packets_acked_ect.expect("ECT(1) flow");
        assert_eq!(ect0, 0, "{cc}");
        assert!(ect1 > 0 && r.packets_acked_ce > 0, "{cc}: {}", r.to_json());
        assert_eq!(r.packets_lost, 0, "{cc}: {}", r.to_json());
    }
}

/// At 10 Mbit/s a 1252-byte packet takes 1.0 ms to serialise, so a
/// packet that queues behind one other is over DualPI2's 1 ms step. With
/// ramp's 2-packet pacing quantum Prague sent ACK-clocked pairs, the
/// second of each was marked, and the window collapsed to 2 packets (1 MB
/// took ~9 s). Prague's own 250 µs burst (udp_prague `BURST_TIME`) sends
/// one packet at a time there; the DOCSIS ramp's floor (two MTUs'
/// serialisation) spares a lone packet ahead by design.
#[test]
fn prague_at_10_mbit_s_over_an_l4s_queue_fills_the_link() {
    for aqm in ["dualpi2", "docsis_lld"] {
        let mut sc = aqm_scenario(aqm);
        sc.path.rate = ramp_cc::Rate::from_bits_per_sec(10_000_000);
        sc.size_bytes = 1_000_000;
        let r = run(&sc, "prague", 1);
        assert!(r.completed, "{aqm}");
        // 1 MB at 10 Mbit/s is 0.8 s of serialisation; allow startup.
        assert!(r.ttlb_us < 1_500_000, "{aqm}: {}", r.to_json());
        assert!(r.packets_acked_ce > 0, "{aqm}: {}", r.to_json());
    }
}
