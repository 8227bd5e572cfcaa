//! CUBIC, RFC 9438, against hand-computed values.

use crate::support;

use std::time::Duration;

use ramp_cc::cubic::{alpha_for_beta, beta_for_conns, Cubic, C};
use ramp_cc::{CcConfig, Controller, LossBasedState, Ratio, Time};
use support::{ms, Driver, MDS};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

fn cubic_of(d: &Driver) -> Cubic {
    d.cc.ca_as::<Cubic>().expect("not cubic").clone()
}

#[test]
fn rfc9438_4_2_k_and_w_cubic_for_w_max_100_segments() {
    let mut c = Cubic::new(1, false);
    let ssthresh = c.on_congestion(100 * MDS);
    assert_eq!(ssthresh, 70 * MDS);
    // The epoch starts at the first ACK in congestion avoidance.
    let t0 = Time::from_millis(1_000);
    c.on_ack(t0, 70 * MDS, MDS, ms(100), MDS);
    // K = cbrt((100 − 70)/0.4) = cbrt(75) = 4.2171633 s.
    assert!(
        close(c.k_secs(), 4.217_163_326_508_746, 1e-9),
        "{}",
        c.k_secs()
    );
    let seg = |w: f64| w / MDS as f64;
    assert!(close(seg(c.w_cubic(0.0, MDS)), 70.0, 1e-9));
    assert!(close(seg(c.w_cubic(c.k_secs(), MDS)), 100.0, 1e-9));
    // W_cubic(1 s) = 0.4·(1 − 4.21716)³ + 100 = 86.68076 segments.
    assert!(close(seg(c.w_cubic(1.0, MDS)), 86.680_763_835, 1e-6));
    assert!(close(seg(c.w_cubic(2.0, MDS)), 95.640_335_686, 1e-6));
    assert_eq!(C, 0.4);
}

#[test]
fn rfc9438_4_6_multiplicative_decrease_is_beta_0_7() {
    let mut d = Driver::new("cubic(iw=100)");
    let pns = d.send(100);
    d.advance(ms(100));
    d.lose(&pns[..1]);
    assert_eq!(d.window(), 70 * MDS);
    assert_eq!(d.cc.ssthresh(), Some(70 * MDS));
    let c = cubic_of(&d);
    assert_eq!(c.w_max(), (100 * MDS) as f64);
    assert_eq!(c.cwnd_prior(), (100 * MDS) as f64);
    assert!(close(c.alpha(), 3.0 * 0.3 / 1.7, 1e-12), "§4.3 α_cubic");
}

#[test]
fn rfc9438_4_7_fast_convergence_lowers_w_max() {
    for (fc, expected) in [(true, 80.0 * 0.85), (false, 80.0)] {
        let mut c = Cubic::new(1, fc);
        c.on_congestion(100 * MDS);
        // A second loss below the previous maximum.
        c.on_congestion(80 * MDS);
        assert!(close(c.w_max() / MDS as f64, expected, 1e-9), "fc={fc}");
    }
}

#[test]
fn rfc9438_4_3_reno_friendly_region_follows_w_est() {
    // K = 0 epoch (as after HyStart++), short RTT: the Reno estimate grows
    // ~1 segment per RTT and outruns the flat cubic curve.
    let mut c = Cubic::new(1, false);
    let mut cwnd = 100 * MDS;
    let t0 = Time::from_millis(0);
    c.on_slow_start_exit_without_loss(t0, cwnd);
    let srtt = ms(10);
    let mut now = t0;
    for _ in 0..100 {
        now += srtt;
        let acked = cwnd;
        cwnd = c.on_ack(now, cwnd, acked, srtt, MDS);
    }
    let t = (now - t0).as_secs_f64();
    assert!(c.w_cubic(t, MDS) < c.w_est(), "in the Reno-friendly region");
    assert!(close(cwnd as f64, c.w_est(), 1.0));
    // α = 1 (W_est ≥ cwnd_prior from the start): ~100 segments in 100 RTTs,
    // each step adding mds·acked/cwnd = one segment.
    assert!((195..=201).contains(&(cwnd / MDS)), "{}", cwnd / MDS);
}

#[test]
fn rfc9438_4_4_concave_region_approaches_w_max_by_k() {
    let mut c = Cubic::new(1, false);
    let mut cwnd = c.on_congestion(1000 * MDS);
    let srtt = ms(100);
    let t0 = Time::from_millis(0);
    let mut now = t0;
    while (now - t0).as_secs_f64() < 20.0 {
        now += srtt;
        cwnd = c.on_ack(now, cwnd, cwnd, srtt, MDS);
        let t = (now - t0).as_secs_f64();
        if t < c.k_secs() - 0.2 {
            assert!(cwnd < 1000 * MDS, "below W_max before K (t={t})");
        }
    }
    // K = cbrt(300/0.4) ≈ 9.09 s; by 20 s the window is past W_max (convex).
    assert!(close(c.k_secs(), 750f64.cbrt(), 1e-9));
    assert!(cwnd > 1000 * MDS);
}

#[test]
fn chromium_n_connection_emulation_beta_and_alpha() {
    assert_eq!(beta_for_conns(1), Ratio::SEVEN_TENTHS);
    assert_eq!(
        Some(beta_for_conns(2)),
        Ratio::new(17, 20),
        "0.85 for N = 2"
    );
    assert_eq!(Some(beta_for_conns(4)), Ratio::new(37, 40));
    assert!(close(
        alpha_for_beta(1, beta_for_conns(1)),
        0.529_411_764_7,
        1e-9
    ));
    // 3·4·0.15/1.85 = 36/37.
    assert!(close(
        alpha_for_beta(2, beta_for_conns(2)),
        36.0 / 37.0,
        1e-12
    ));
    let mut d = Driver::new("cubic(conns=2,iw=100)");
    let pns = d.send(100);
    d.advance(ms(100));
    d.lose(&pns[..1]);
    assert_eq!(d.window(), 85 * MDS);
}

#[test]
fn rfc9438_4_10_hystart_exit_starts_the_curve_at_cwnd() {
    let mut c = Cubic::new(1, false);
    c.on_slow_start_exit_without_loss(Time::from_millis(5), 50 * MDS);
    assert_eq!(
        (c.w_max(), c.cwnd_prior(), c.k_secs()),
        ((50 * MDS) as f64, (50 * MDS) as f64, 0.0)
    );
    assert_eq!(c.epoch_start(), Some(Time::from_millis(5)));
}

#[test]
fn rfc9438_4_8_app_limited_time_does_not_count() {
    let mut d = Driver::new("cubic(iw=100)");
    let pns = d.send(100);
    d.advance(ms(100));
    d.lose(&pns[..1]);
    d.advance(ms(1));
    let p = d.send(1);
    d.advance(ms(100));
    d.ack(&p);
    assert_eq!(d.cc.state(), LossBasedState::CongestionAvoidance);
    let epoch = cubic_of(&d).epoch_start();
    assert!(epoch.is_some());
    // An app-limited frame ends the epoch; the next CA ack starts a new one.
    let q = d.send(1);
    d.advance(Duration::from_secs(5));
    d.frame(&q, &[], false, false, true);
    assert_eq!(cubic_of(&d).epoch_start(), None);
    let r = d.send(1);
    d.advance(ms(100));
    d.ack(&r);
    assert_eq!(cubic_of(&d).epoch_start(), Some(d.now));
}

/// An independent, segment-based transcription of RFC 9438 §4.2–§4.6
/// (floats, one call per acknowledged segment), to check the byte-based
/// implementation's unit conversions and region switching.
struct SegmentCubic {
    cwnd: f64,
    w_max: f64,
    cwnd_prior: f64,
    k: f64,
    w_est: f64,
    alpha: f64,
}

impl SegmentCubic {
    fn after_loss(w: f64) -> SegmentCubic {
        let beta = 0.7;
        let cwnd = w * beta;
        SegmentCubic {
            cwnd,
            w_max: w,
            cwnd_prior: w,
            k: ((w - cwnd) / 0.4).cbrt(),
            w_est: cwnd,
            alpha: 3.0 * (1.0 - beta) / (1.0 + beta),
        }
    }
    fn w_cubic(&self, t: f64) -> f64 {
        0.4 * (t - self.k).powi(3) + self.w_max
    }
    fn on_segment_acked(&mut self, t: f64, rtt: f64) {
        let target = self.w_cubic(t + rtt).clamp(self.cwnd, 1.5 * self.cwnd);
        self.w_est += self.alpha / self.cwnd;
        if self.w_est >= self.cwnd_prior {
            self.alpha = 1.0;
        }
        if self.w_cubic(t) < self.w_est {
            self.cwnd = self.cwnd.max(self.w_est);
        } else {
            self.cwnd += (target - self.cwnd) / self.cwnd;
        }
    }
}

#[test]
fn rfc9438_differential_against_a_segment_based_transcription() {
    for (w_max, rtt_ms) in [(100.0, 100u64), (1000.0, 20), (40.0, 200)] {
        let mut reference = SegmentCubic::after_loss(w_max);
        let mut c = Cubic::new(1, false);
        let mut cwnd = c.on_congestion((w_max as u64) * MDS);
        let rtt = ms(rtt_ms);
        let t0 = Time::from_millis(1);
        let mut now = t0;
        // Start the epoch at t0 with a zero-byte-equivalent first ack.
        cwnd = c.on_ack(now, cwnd, 1, rtt, MDS);
        let mut worst: f64 = 0.0;
        while (now - t0).as_secs_f64() < 3.0 * reference.k.max(1.0) {
            // One round: every segment of the window acked, spread evenly.
            let n = cwnd / MDS;
            let step = rtt / (n as u32).max(1);
            for _ in 0..n {
                now += step;
                let t = (now - t0).as_secs_f64();
                reference.on_segment_acked(t, rtt.as_secs_f64());
                cwnd = c.on_ack(now, cwnd, MDS, rtt, MDS);
            }
            let ours = cwnd as f64 / MDS as f64;
            worst = worst.max((ours - reference.cwnd).abs() / reference.cwnd);
        }
        assert!(
            worst < 0.01,
            "W_max {w_max}, rtt {rtt_ms} ms: worst relative gap {worst}"
        );
    }
}

#[test]
fn rfc9438_4_7_fast_convergence_is_on_unless_the_flow_is_known_to_be_alone() {
    use ramp_cc::cubic::FastConvergence;
    // SHOULD be on; off only for a flow known to be alone on its
    // bottleneck (a single-flow simulation says so through CcConfig).
    assert!(FastConvergence::Auto.resolve(false));
    assert!(!FastConvergence::Auto.resolve(true));
    assert!(FastConvergence::On.resolve(true));
    assert!(!FastConvergence::Off.resolve(false));
    let w_max_after_two_losses = |alone: bool| {
        let cfg = CcConfig {
            alone_on_bottleneck: alone,
            ..CcConfig::default()
        };
        let mut d = Driver::with_config("cubic(iw=100)", &cfg);
        let pns = d.send(100);
        d.advance(ms(100));
        d.lose(&pns[..1]);
        d.ack(&pns[1..2]);
        let after = d.send(1);
        d.advance(ms(100));
        d.ack(&pns[2..]);
        d.ack(&after);
        let pns = d.send(1);
        d.advance(ms(100));
        d.lose(&pns);
        cubic_of(&d).w_max()
    };
    // The second loss comes below the first W_max: fast convergence
    // lowers W_max further (×(1+β)/2) only when it is on.
    assert!(w_max_after_two_losses(false) < w_max_after_two_losses(true));
}

#[test]
fn rfc9438_5_8_waiting_an_rtt_at_the_minimum_window_is_not_app_idleness() {
    // After a congestion collapse the window is at its minimum and the
    // sender waits a whole RTT between its 2-packet flights with nothing
    // in flight. That wait is the window's doing, not the application's:
    // it must not count as idle time (which would restart the CUBIC epoch
    // every round and pin the window; quiche's CUBIC had that bug in
    // 2026). ramp's app-limited signal comes from the sender having
    // nothing to send, never from a gap in sending.
    let mut d = Driver::new("cubic(iw=10)");
    let flight = d.send(10);
    d.advance(ms(50));
    d.ack(&flight[..5]);
    d.frame(&[], &flight[5..], false, true, false);
    assert_eq!(d.cc.metrics().num_persistent_congestion, 1);
    let min = 2 * MDS;
    assert_eq!(d.window(), min);
    // Another loss at the minimum: ssthresh at the minimum too, so the
    // recovery is congestion avoidance from 2 packets.
    let pns = d.send(2);
    d.advance(ms(50));
    d.lose(&pns[..1]);
    d.ack(&pns[1..]);
    let mut windows = vec![];
    for _ in 0..60 {
        let pns = d.fill_window();
        assert!(!pns.is_empty(), "cwnd-limited: the window allows a send");
        d.advance(ms(50));
        d.ack_each(&pns);
        windows.push(d.window() / MDS);
    }
    assert!(windows.windows(2).all(|w| w[1] >= w[0]), "{windows:?}");
    assert!(
        windows[59] >= 8,
        "still pinned after 3 s of 50 ms rounds: {windows:?}"
    );
}
