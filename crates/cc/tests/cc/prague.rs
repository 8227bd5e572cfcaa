//! Prague against its references: Linux TCP Prague (`net/ipv4/tcp_prague.c`,
//! L4STeam/linux) and L4STeam's udp_prague (`prague_cc.cpp`).

use ramp_cc::{CongestionSignal, Controller, LossBasedState};

use crate::scripted::{ms, us, Script, MDS};

/// `prague` slow start for `rounds` rounds of 30 ms with no CE mark; the
/// last round's packets are still in flight.
fn slow_start(rounds: usize) -> (Script, Vec<u64>) {
    let mut d = Script::new("prague");
    let mut out = d.fill();
    for _ in 0..rounds {
        d.adv(ms(30));
        let acked = std::mem::take(&mut out);
        out = d.ack_pairs(&acked, us(10), true);
    }
    (d, out)
}

/// Congestion avoidance with a small α: a slow start ended by one CE,
/// then `rounds` rounds of 30 ms without a mark.
fn in_ca(rounds: usize) -> (Script, Vec<u64>) {
    let (mut d, out) = slow_start(4);
    d.adv(ms(30));
    d.frame(&out[0..2], &[], 1);
    let mut out: Vec<u64> = out[2..].to_vec();
    for _ in 0..rounds {
        let acked = std::mem::take(&mut out);
        out = d.ack_pairs(&acked, us(10), true);
        d.adv(ms(30));
    }
    assert_eq!(d.cc.state(), LossBasedState::CongestionAvoidance);
    (d, out)
}

/// Linux `prague_update_alpha`: "Do not update alpha before we have proof
/// that there's an AQM on the path" (`if (unlikely(!ca->saw_ce)) goto
/// skip;`). α stays at its initial 1 through slow start, so the CE mark
/// that ends it halves the window (`prague_enter_cwr`: α/2), however long
/// the slow start was.
#[test]
fn linux_prague_update_alpha_waits_for_the_first_ce() {
    for rounds in [3usize, 6, 9] {
        let (mut d, out) = slow_start(rounds);
        assert_eq!(d.prague().alpha(), 1.0, "{rounds} rounds without a mark");
        let before = d.cc.window();
        d.adv(ms(30));
        d.frame(&out[0..2], &[], 1);
        assert_eq!(d.cc.ssthresh(), Some(before / 2), "{rounds} rounds");
    }
}

/// udp_prague `ACKReceived` halves on a loss in any state but
/// `cs_in_loss` ("if ((m_cc_state != cs_in_loss) && (m_packets_lost -
/// packets_lost < 0))"), its CE reduction state `cs_in_cwr` included;
/// Linux moves from TCP_CA_CWR to Recovery and halves
/// (`prague_enter_loss`). A loss of a packet sent before a CE cut is not
/// absorbed by the CE's reduction period.
#[test]
fn udp_prague_ack_received_halves_for_loss_in_cwr() {
    let (mut d, out) = in_ca(40);
    assert!(d.prague().alpha() < 0.1);
    d.frame(&out[0..2], &[], 1);
    let w_ce = d.cc.window();
    d.adv(ms(5));
    d.frame(&out[5..6], &out[2..3], 0);
    assert_eq!(d.cc.window(), w_ce / 2, "the loss halves the CE-cut window");
    // A second loss in the same loss reduction is held (`cs_in_loss`).
    let w_loss = d.cc.window();
    d.adv(ms(1));
    d.frame(&out[7..8], &out[3..4], 0);
    assert_eq!(d.cc.window(), w_loss);
}

/// Linux tcp_prague.c, header item 4/: "cwnd is updated for every ACK,
/// regardless of the congestion status of the connection (i.e., it is
/// expected to spent most of its time in TCP_CA_CWR when used over
/// dualpi2)"; udp_prague grows unless `cs_in_loss`. The ACKs of packets
/// sent before a CE cut grow the window as they would without it.
#[test]
fn linux_prague_grows_in_cwr() {
    let (mut d, out) = in_ca(40);
    let mut ctl = d.clone();
    d.frame(&out[0..2], &[], 1);
    let w_ce = d.cc.window();
    assert_eq!(d.cc.state(), LossBasedState::Recovery);
    d.ack_pairs(&out[2..], us(10), false);
    let w0 = ctl.cc.window();
    ctl.ack_pairs(&out, us(10), false);
    let (grew, ctl_grew) = (d.cc.window() - w_ce, ctl.cc.window() - w0);
    // About a window of ACKs: one packet of growth, as udp_prague waits
    // after a CE cut (`m_rtts_to_growth`) before growing by 1 ms of queue.
    assert!(grew >= MDS * 3 / 4, "{grew} B in CWR");
    assert!(ctl_grew > grew);
    // Leaving CWR keeps the window reached.
    let w = d.cc.window();
    let n = d.send(1);
    d.adv(ms(30));
    d.frame(&n, &[], 0);
    assert_eq!(d.cc.state(), LossBasedState::CongestionAvoidance);
    assert!(d.cc.window() >= w);
}

/// Linux `prague_update_pacing_rate`: "Pacing is set to 100% during AI";
/// udp_prague paces at `m_fractional_window / srtt`.
#[test]
fn linux_prague_update_pacing_rate_is_100_percent_in_ca() {
    let (d, _) = in_ca(5);
    let rate = d.cc.pacing_rate(&d.rtt).unwrap().bytes_per_sec() as f64;
    let plain = d.cc.window() as f64 / d.rtt.smoothed().as_secs_f64();
    assert!((rate / plain - 1.0).abs() < 0.01, "{}", rate / plain);
    // An explicit ca_gain still applies.
    let s: ramp_cc::ControllerSpec = "prague(ca_gain=1.25)".parse().unwrap();
    assert_eq!(s.to_string(), "prague(ca_gain=1.25)");
    let s: ramp_cc::ControllerSpec = "prague".parse().unwrap();
    let cc = s.build(&ramp_cc::CcConfig::default());
    assert_eq!(cc.name(), "prague");
}

/// udp_prague `ACKReceived` updates α only when a virtual RTT has passed
/// and a packet sent after the previous update has been acknowledged
/// (`(packets_received + packets_lost - m_alpha_packets_sent > 0) &&
/// (ts - m_alpha_ts - m_vrtt >= 0)`). ACKs of older packets, however
/// late, do not close the period.
#[test]
fn udp_prague_alpha_period_needs_a_packet_sent_after_the_update() {
    let (mut d, out) = in_ca(40);
    let a0 = d.prague().alpha();
    // Two packets sent now, acknowledged with a mark a vRTT later: the
    // period closes and α moves.
    let fresh = d.send(2);
    d.adv(ms(40));
    d.frame(&fresh, &[], 1);
    let a1 = d.prague().alpha();
    assert_ne!(a1, a0, "the period closed");
    // Later ACKs, all CE-marked, of packets sent before that update: no
    // packet sent since has been acknowledged, so α waits.
    for (i, c) in out[0..6].chunks(2).enumerate() {
        d.adv(ms(60));
        d.frame(c, &[], 2);
        assert_eq!(d.prague().alpha(), a1, "frame {i}");
    }
}

/// udp_prague's constructor: `m_rtts_to_growth = init_rate / RATE_STEP +
/// MIN_STEP`, 7 virtual RTTs at its initial rate. A Prague flow whose
/// startup ends without a CE mark (e.g. `prague+hystart` on a path
/// without L4S) grows by one packet per RTT until then, not by 1 ms of
/// queue.
#[test]
fn udp_prague_growth_first_waits_min_step_virtual_rtts() {
    let p = ramp_cc::prague::Prague::new();
    let mut p1 = p.clone();
    // 1 MB at 25 ms: 1 ms of queue would be 40 kB; one packet is MDS.
    let cwnd = 1_000_000;
    assert_eq!(p1.on_ack(cwnd, cwnd, ms(25), MDS) - cwnd, MDS);
    assert!(!p.holds_reduction(
        ramp_cc::Time::ZERO,
        CongestionSignal::Loss { lost_bytes: 1 },
        ms(25)
    ));
}
