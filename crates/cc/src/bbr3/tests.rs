//! Rules of BBRv3 that need a hand-set model to reach: the controller's
//! fields are set directly to the situation the rule is about.

use core::time::Duration;

use super::{Bbr3, Bbr3Options, Bbr3State, EcnCount, RoundTally};
use crate::config::CcConfig;
use crate::ratio::Ratio;

const MDS: u64 = 1200;

fn bbr3(opts: Bbr3Options) -> Bbr3 {
    Bbr3::new("bbr3".to_string(), &CcConfig::default(), opts)
}

/// A flow that has delivered `packets` full-size packets.
fn delivered(b: &mut Bbr3, packets: u64) {
    for _ in 0..packets {
        b.sampler.on_acked(ramp_vocab::time::Time::ZERO, None, MDS);
    }
}

#[test]
fn bbr_5_3_3_9_down_cruises_once_inflight_fits_max_bw_not_bw() {
    // BBR.bw is cut to half of max_bw by the short-term model: with 60 kB
    // in flight, DOWN is done at max_bw's BDP (80 kB at 40 ms), though
    // not at bw's (40 kB). `IsTimeToCruise` uses `BBRInflight(BBR.max_bw)`.
    let mut b = bbr3(Bbr3Options::default());
    b.state = Bbr3State::ProbeBwDown;
    b.full_bw_reached = true;
    b.min_rtt = Some(Duration::from_millis(40));
    b.max_bw.update(2_000_000);
    b.bw_shortterm = Some(1_000_000);
    b.bound_bw_for_model();
    assert_eq!(b.bw, 1_000_000);
    b.inflight = 60_000;
    assert!(b.is_time_to_cruise());
}

/// Startup with the ECN exit one heavy round away: `rounds` closed with
/// `last`, `inflight_latest` 3 BDPs.
fn startup_before_ecn_exit(opts: Bbr3Options, last: RoundTally, delivered_packets: u64) -> Bbr3 {
    let mut b = bbr3(opts);
    b.min_rtt = Some(Duration::from_millis(40));
    b.max_bw.update(1_000_000);
    b.bound_bw_for_model();
    b.inflight_latest = 120_000;
    delivered(&mut b, delivered_packets);
    b.last_round = last;
    b.startup_ecn_rounds = 1;
    b.loss_round_start = true;
    b
}

#[test]
fn bbr_3_7_startup_ecn_exit_bounds_inflight_as_the_loss_exit_does() {
    // Every packet of the round CE-marked: the exit sets inflight_longterm
    // to max(BDP, inflight_latest) = 120 kB, not Inflight(1.0) = 40 kB.
    let last = RoundTally {
        ce_packets: 40,
        ack_frames: 40,
        ce_frames: 40,
        ..RoundTally::default()
    };
    let mut b = startup_before_ecn_exit(Bbr3Options::default(), last, 40);
    b.check_startup_done();
    assert!(b.full_bw_reached);
    assert_eq!(b.inflight_longterm, Some(120_000));
}

#[test]
fn bbr_3_7_one_ce_per_ack_frame_ends_startup_with_ecn_count_frames() {
    // quinn 0.11 reports one CE packet per ACK frame; with frames of four
    // packets the CE bytes are a quarter of the round's, below the byte
    // rule's half, though every frame carried a CE mark.
    let last = RoundTally {
        ce_packets: 10,
        ack_frames: 10,
        ce_frames: 10,
        ..RoundTally::default()
    };
    let mut bytes = startup_before_ecn_exit(Bbr3Options::default(), last, 40);
    bytes.check_startup_done();
    assert!(!bytes.full_bw_reached, "bytes: 10 of 40 packets");
    let frames = Bbr3Options {
        ecn_count: EcnCount::Frames,
        ..Bbr3Options::default()
    };
    let mut frames = startup_before_ecn_exit(frames, last, 40);
    frames.check_startup_done();
    assert!(frames.full_bw_reached, "frames: 10 of 10");
}

#[test]
fn bbr_5_6_4_2_quantum_off_leaves_the_send_quantum_out_of_the_cwnd_budget() {
    // 1 MB/s over 1 ms: a 1 kB BDP; the send quantum at a 64 kB cap.
    let budget = |quantum: bool| {
        let mut b = bbr3(Bbr3Options {
            quantum,
            ..Bbr3Options::default()
        });
        b.min_rtt = Some(Duration::from_millis(1));
        b.max_bw.update(1_000_000);
        b.bound_bw_for_model();
        b.send_quantum = 64 * 1024;
        b.inflight_with_gain(Ratio::ONE)
    };
    assert_eq!(budget(true), 64 * 1024);
    assert_eq!(budget(false), 4 * MDS, "MinPipeCwnd");
}

#[test]
fn bbr_5_3_3_8_flows_with_their_own_seed_draw_their_own_probe_waits() {
    let wait = |flow_seed: Option<u64>, seed: Option<u64>| {
        let cfg = CcConfig {
            flow_seed,
            ..CcConfig::default()
        };
        let mut b = Bbr3::new(
            "bbr3".to_string(),
            &cfg,
            Bbr3Options {
                seed,
                ..Bbr3Options::default()
            },
        );
        b.pick_probe_wait();
        b.bw_probe_wait
    };
    assert_ne!(wait(Some(5), None), wait(Some(6), None));
    assert_eq!(wait(None, None), wait(Some(1), None), "default seed 1");
    assert_eq!(wait(Some(5), Some(9)), wait(Some(6), Some(9)), "seed= wins");
}
