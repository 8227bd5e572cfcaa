//! Careful Resume's PipeSize and Safe Retreat around the jump (RFC 9959),
//! as the seed experiment's `jumpstart` arm runs them; one test per rule,
//! named by the RFC's phase.

use crate::support;

use ramp_cc::careful_resume::CrPhase;
use ramp_cc::{Controller, LossBasedState};
use support::{ms, Driver, MDS};

/// IW 10: one packet's ACK gives the RTT sample and the jump to 20
/// packets with nothing in flight (PipeSize 0); then 19 jump packets.
fn jumped(spec: &str) -> (Driver, Vec<u64>) {
    let mut d = Driver::jumped(spec);
    let flight = d.send(19);
    d.advance(ms(30));
    (d, flight)
}

#[test]
fn rfc9959_unvalidated_phase_exit_sets_cwnd_to_the_flight_size() {
    // The first jump packet acknowledged: PipeSize (1 packet) < flight
    // size (18 packets), so cwnd = flight size and the jump is validating.
    let (mut d, flight) = jumped("jumpstart(iw=10)");
    d.ack(&flight[1..2]);
    let cr = d.cc.careful_resume().copied();
    assert_eq!(cr.map(|c| c.phase()), Some(CrPhase::Validating));
    assert_eq!(cr.map(|c| c.pipe_size()), Some(MDS));
    assert_eq!(d.window(), 18 * MDS);
    assert_eq!(d.cc.state(), LossBasedState::SlowStart);
}

#[test]
fn rfc9959_unvalidated_phase_exit_with_a_flight_below_iw_sets_cwnd_to_pipe_size_and_leaves() {
    // A 4-packet jump flight (the application had no more): at the first
    // ACK 3 packets are in flight, fewer than IW (10), so cwnd =
    // PipeSize, never below IW without congestion, and Careful Resume
    // is over: there is nothing left to validate.
    let mut d = Driver::jumped("jumpstart(iw=10)");
    let flight = d.send(4);
    d.advance(ms(30));
    d.ack(&flight[..1]);
    assert!(d.cc.careful_resume().is_none(), "Careful Resume ended");
    assert_eq!(d.window(), 10 * MDS, "IW, not the 3-packet flight");
}

#[test]
fn rfc9959_unvalidated_phase_exit_with_flight_at_most_pipe_size_sets_cwnd_to_pipe_size() {
    // 12 jump packets; the ACK of the 11th acknowledges 11 at once:
    // PipeSize 11 packets ≥ the 1-packet flight, so cwnd = PipeSize (11
    // packets, above IW) and Careful Resume is over.
    let mut d = Driver::jumped("jumpstart(iw=10)");
    let flight = d.send(12);
    d.advance(ms(30));
    d.ack(&flight[..11]);
    assert!(d.cc.careful_resume().is_none());
    assert_eq!(d.window(), 11 * MDS);
}

#[test]
fn rfc9959_validating_phase_tracks_pipe_size_and_ends_with_the_last_unvalidated_packet() {
    let (mut d, flight) = jumped("jumpstart(iw=10)");
    d.ack_each(&flight[..18]);
    let cr = d.cc.careful_resume().copied();
    assert_eq!(cr.map(|c| c.pipe_size()), Some(18 * MDS));
    d.ack(&flight[18..]);
    assert!(d.cc.careful_resume().is_none(), "Careful Resume is over");
    assert_eq!(d.cc.ssthresh(), None, "no congestion, no ssthresh");
}

/// Validating after 5 acknowledged jump packets, then the loss of the
/// 7th: Safe Retreat.
/// Returns the driver, the flight and the window before the loss.
fn retreat(spec: &str) -> (Driver, Vec<u64>, u64) {
    let (mut d, flight) = jumped(spec);
    d.ack_each(&flight[1..6]);
    let before = d.window();
    d.lose(&flight[6..7]);
    (d, flight, before)
}

#[test]
fn rfc9959_safe_retreat_sets_cwnd_from_pipe_size_not_cwnd() {
    // PipeSize = 5 packets acknowledged since the jump; β 0.5:
    // cwnd = 2.5 packets, not β·cwnd = 11 packets.
    let (d, _, before) = retreat("jumpstart(iw=10)");
    assert_eq!(before, 22 * MDS, "18 at the exit, +1 per ACK after");
    let cr = d.cc.careful_resume().copied();
    assert_eq!(cr.map(|c| c.phase()), Some(CrPhase::SafeRetreat));
    assert_eq!(d.window(), 5 * MDS / 2);
    assert_eq!(d.cc.state(), LossBasedState::Recovery);
    assert_eq!(d.cc.ssthresh(), None);
}

#[test]
fn rfc9959_safe_retreat_does_not_grow_and_sets_ssthresh_from_the_final_pipe_size() {
    let (mut d, flight, _) = retreat("jumpstart(iw=10)");
    d.ack_each(&flight[7..18]);
    assert_eq!(d.window(), 5 * MDS / 2, "no growth while retreating");
    assert_eq!(d.cc.careful_resume().map(|c| c.pipe_size()), Some(16 * MDS));
    // The last unvalidated packet: ssthresh = β·PipeSize (17 packets).
    d.ack(&flight[18..]);
    assert!(d.cc.careful_resume().is_none());
    assert_eq!(d.cc.ssthresh(), Some(17 * MDS / 2));
    assert_eq!(d.cc.state(), LossBasedState::SlowStart, "cwnd < ssthresh");
}

#[test]
fn jumpstart_retreat_off_keeps_the_ordinary_beta_decrease() {
    // Without Careful Resume the jump window keeps growing after the
    // flight's first ACK (20 + 5 packets) and the loss halves it.
    let (d, _, before) = retreat("jumpstart(iw=10,retreat=off)");
    assert!(d.cc.careful_resume().is_none());
    assert_eq!(before, 25 * MDS);
    assert_eq!(d.window(), before / 2, "β·cwnd");
    assert_eq!(d.cc.ssthresh(), Some(before / 2));
}

#[test]
fn rfc9959_safe_retreat_cwnd_at_most_half_pipe_size_whatever_the_ca_beta() {
    // "The CWND MUST be reduced to no more than (PipeSize/2)": PipeSize is
    // 5 packets (6000 B), so the window is 3000 B with β 0.7 too.
    for spec in [
        "newreno(beta=0.7)+jumpstart(iw=10)",
        "cubic+jumpstart(iw=10)",
    ] {
        let (d, _, _) = retreat(spec);
        assert_eq!(d.cc.careful_resume().map(|c| c.pipe_size()), Some(6000));
        assert_eq!(d.window(), 3000, "{spec}");
    }
}

#[test]
fn rfc9959_safe_retreat_ssthresh_keeps_the_ca_beta() {
    // β applies to ssthresh on leaving the phase (0.5 to 1 allowed).
    let (mut d, flight, _) = retreat("newreno(beta=0.7)+jumpstart(iw=10)");
    d.ack_each(&flight[7..19]);
    assert!(d.cc.careful_resume().is_none());
    assert_eq!(d.cc.ssthresh(), Some(17 * MDS * 7 / 10));
}

#[test]
fn jumpstart_retreat_beta_ca_retreats_to_the_ca_beta_like_the_seed_arm() {
    // The production experiment's arm: Reno β 0.7, cwnd = 0.7 × PipeSize.
    let (d, _, _) = retreat("newreno(beta=0.7)+jumpstart(iw=10,retreat_beta=ca)");
    assert_eq!(d.window(), 5 * MDS * 7 / 10);
}

/// The seed arm's Careful Resume as quicly 45bf8a37 ran it.
const QUICLY: &str = "newreno(beta=0.7,ss_beta=0.5)+jumpstart(iw=10,retreat_beta=quicly)";

#[test]
fn quicly_jumpstart_on_acked_first_jump_ack_sets_cwnd_to_the_flight_before_it() {
    // include/quicly/cc.h `quicly_cc_jumpstart_on_acked`: cwnd = inflight
    // (19 packets before this ACK), then slow start's +1; the jump
    // packets stay tracked whatever PipeSize is.
    let (mut d, flight) = jumped(QUICLY);
    d.ack(&flight[1..2]);
    let cr = d.cc.careful_resume().copied();
    assert_eq!(cr.map(|c| c.phase()), Some(CrPhase::Validating));
    assert_eq!(cr.map(|c| c.jump_acked()), Some(MDS));
    assert_eq!(d.window(), 20 * MDS);
}

#[test]
fn quicly_jumpstart_on_acked_exit_with_flight_at_most_pipe_size_keeps_the_flight() {
    // RFC 9959 would set cwnd = PipeSize (11 packets) and leave; quicly
    // sets the flight before the ACK (12) plus slow start's growth (11)
    // and keeps tracking the one jump packet left.
    let mut d = Driver::jumped(QUICLY);
    let flight = d.send(12);
    d.advance(ms(30));
    d.ack(&flight[..11]);
    assert_eq!(
        d.cc.careful_resume().map(|c| c.phase()),
        Some(CrPhase::Validating)
    );
    assert_eq!(d.window(), 23 * MDS);
}

#[test]
fn quicly_jumpstart_on_first_loss_halves_the_jump_bytes_acked_at_least_iw() {
    // `quicly_cc_jumpstart_on_first_loss`: cwnd = max(jump bytes acked,
    // IW) = max(5, 10) packets, then Reno's slow-start halving: 5 packets,
    // which is also ssthresh when the retreat ends.
    let (d, _, before) = retreat(QUICLY);
    assert_eq!(before, 24 * MDS, "20 at the exit, +1 per ACK after");
    assert_eq!(d.cc.careful_resume().map(|c| c.jump_acked()), Some(5 * MDS));
    assert_eq!(
        d.cc.careful_resume().map(|c| c.phase()),
        Some(CrPhase::SafeRetreat)
    );
    assert_eq!(d.window(), 5 * MDS);
}

#[test]
fn quicly_jumpstart_on_acked_in_recovery_raises_cwnd_to_beta_times_jump_bytes_acked() {
    // In the recovery every jump ACK raises cwnd to 0.7 × jump bytes
    // acked ("the slides' 0.5x to 0.7x of PipeSize"); when the last jump
    // packet is acked, ssthresh is the window set at the loss and the
    // raised window continues in congestion avoidance.
    let (mut d, flight, _) = retreat(QUICLY);
    d.ack_each(&flight[7..18]);
    assert_eq!(d.window(), 16 * MDS * 7 / 10);
    d.ack(&flight[18..]);
    assert!(d.cc.careful_resume().is_none());
    assert_eq!(d.window(), 17 * MDS * 7 / 10);
    assert_eq!(d.cc.ssthresh(), Some(5 * MDS));
    assert_eq!(d.cc.state(), LossBasedState::CongestionAvoidance);
}

/// A server resumed from 100 Mbit/s × 40 ms (saved_cwnd 500 000 B): its
/// handshake's RTT sample, then no application data yet.
fn resumed_after_handshake(spec: &str) -> crate::scripted::Script {
    use ramp_cc::resume::SavedPath;
    use ramp_cc::{AckFrameSummary, AckedPacket, Time};
    let mut d = crate::scripted::Script::new(spec);
    d.cc.resume_from(SavedPath {
        rate: ramp_cc::Rate::from_bits_per_sec(100_000_000),
        rtt: ms(40),
    });
    // The handshake: an Initial packet (no application number) acked 40 ms later.
    d.cc.on_packet_sent(Time::ZERO, None, MDS, MDS);
    d.adv(ms(40));
    d.rtt
        .update(ms(40), std::time::Duration::ZERO, ms(25), false);
    let p = AckedPacket {
        packet_number: None,
        time_sent: Time::ZERO,
        bytes: MDS,
    };
    d.cc.on_packet_acked(d.now, &p, &d.rtt, false);
    let s = AckFrameSummary {
        bytes_in_flight: 0,
        largest_acked: None,
        rtt_sample: Some(ms(40)),
        app_limited: false,
    };
    d.cc.on_ack_frame_end(d.now, &s, &d.rtt);
    d
}

/// RFC 9959, Reconnaissance Phase, "(Path confirmed): When the sender has
/// received an ACK that acknowledges all the initial data (usually the IW)
/// without reported congestion, it MAY then enter the Unvalidated Phase";
/// "A sender therefore needs to limit the initial data, sent in the first
/// RTT of transmitted data, to not more than the IW". The handshake's RTT
/// sample alone does not allow the resumed jump; the ACK of the initial
/// window does. quicly (`recon=quicly`, the seed arms) jumps at once.
#[test]
fn rfc9959_reconnaissance_waits_for_the_initial_window_to_be_acknowledged() {
    let mut d = resumed_after_handshake("jumpstart(iw=10)");
    let iw = d.cc.initial_window();
    // Slow start's growth on the handshake's ACK only: no jump yet.
    assert_eq!(
        d.cc.window(),
        iw + MDS,
        "no jump before the IW is acknowledged"
    );
    let initial = d.fill();
    d.adv(ms(40));
    d.ack_pairs(&initial[..8], std::time::Duration::from_micros(10), false);
    assert!(d.cc.window() < 250_000, "part of the initial data acked");
    d.frame(&initial[8..], &[], 0);
    assert_eq!(d.cc.window(), 250_000, "saved_cwnd/2 once all of it is");
    assert_eq!(d.cc.state(), LossBasedState::JumpStart);
    // quicly's way: the jump at the handshake's sample.
    let q = resumed_after_handshake("jumpstart(iw=10,recon=quicly)");
    assert_eq!(q.cc.window(), 250_000);
    assert_eq!(q.cc.state(), LossBasedState::JumpStart);
}

/// RFC 9959: "If congestion is detected during the Reconnaissance Phase"
/// the saved parameters are not used: a loss of initial data ends the
/// startup with the ordinary reduction and no jump follows.
#[test]
fn rfc9959_reconnaissance_congestion_forgoes_the_saved_window() {
    let mut d = resumed_after_handshake("jumpstart(iw=10)");
    let initial = d.fill();
    d.adv(ms(40));
    d.frame(&initial[1..], &initial[..1], 0);
    assert!(d.cc.window() < 250_000);
    assert_ne!(d.cc.state(), LossBasedState::JumpStart);
}
