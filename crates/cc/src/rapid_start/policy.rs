//! [`RapidStart`], the policy object `LossBased` calls at each rule of -02
//! (and of quicly, where its options say so).

use core::time::Duration;

use super::{
    queue_buildup_thresh_ms, queue_buildup_thresh_with, PreRecoveryWindow, RapidRecovery,
    RapidStartOptions, RttClock, RttFloorSource,
};
use crate::controller::CongestionSignal;
use crate::rapid_floor::{whole_ms_sample, SlotFloor};
use crate::ratio::Ratio;
use crate::rtt::RttEstimator;
use ramp_vocab::time::Time;

/// Rapid Start as a startup policy of [`crate::loss_based::LossBased`]:
/// its options and its growth state, with one method per rule of -02 that
/// `LossBased` calls at the matching point (the map at the top of this
/// module says which).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RapidStart {
    opts: RapidStartOptions,
    /// §3.2: the RTT floor is above the queue-build-up threshold (2×).
    queue: bool,
    /// `latch_2x`: a queue was seen once; stay at 2×.
    latched: bool,
    /// `off_below`: `min_rtt` fell below it; Rapid Start is off for good.
    off: bool,
    /// `clock=ms`: the least whole-millisecond sample.
    min_ms: Option<u64>,
    /// `clock=ms`: the newest whole-millisecond sample.
    last_ms: Option<u64>,
    /// `rtt_floor=slots`: quicly's time-slotted floor, in the clock's unit
    /// (milliseconds with `clock=ms`, else nanoseconds).
    slots: SlotFloor,
}

impl RapidStart {
    /// Rapid Start with `opts`, growing 2× until an RTT floor says the
    /// queue is empty.
    pub fn new(opts: RapidStartOptions) -> RapidStart {
        RapidStart {
            opts,
            queue: false,
            latched: false,
            off: false,
            min_ms: None,
            last_ms: None,
            slots: SlotFloor::default(),
        }
    }

    /// The options.
    pub fn options(&self) -> &RapidStartOptions {
        &self.opts
    }

    /// -02 §3.2: re-evaluates the growth from the round's RTT `floor`
    /// (`None`: no floor yet, so nothing says the queue is empty). `now`
    /// and `sampled` (this ACK frame gave an RTT sample) feed quicly's
    /// millisecond clock and slotted floor when those options are on.
    pub fn evaluate(
        &mut self,
        now: Time,
        floor: Option<Duration>,
        rtt: &RttEstimator,
        sampled: bool,
    ) {
        if !rtt.has_sample() {
            self.queue = true;
            return;
        }
        let queue = match self.opts.clock {
            RttClock::Exact => self.queue_exact(now, floor, rtt),
            RttClock::WholeMs => self.queue_whole_ms(now, floor, rtt, sampled),
        };
        if queue && self.opts.latch_2x {
            self.latched = true;
        }
        self.queue = queue || self.latched;
    }

    /// The 3× test on the estimator's exact RTTs.
    fn queue_exact(&mut self, now: Time, floor: Option<Duration>, rtt: &RttEstimator) -> bool {
        let min = rtt.min();
        if min < self.opts.off_below {
            self.off = true;
            return true;
        }
        let thresh = queue_buildup_thresh_with(
            min,
            self.opts.thresh_add,
            self.opts.thresh_mult,
            self.opts.thresh_combine,
        );
        let floor = if self.opts.rtt_floor == RttFloorSource::Slots {
            let ns = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
            self.slots.update(now.as_nanos(), ns(min), ns(rtt.latest()));
            self.slots.floor().map(Duration::from_nanos)
        } else {
            floor
        };
        floor.is_none_or(|f| f > thresh)
    }

    /// The 3× test as quicly computes it: whole-millisecond samples, their
    /// minimum, and the threshold in whole milliseconds.
    fn queue_whole_ms(
        &mut self,
        now: Time,
        floor: Option<Duration>,
        rtt: &RttEstimator,
        sampled: bool,
    ) -> bool {
        let now_ms = now.as_millis();
        let latest = match self.last_ms {
            // quicly records its last sample again on an ACK without one.
            Some(l) if !sampled => l,
            _ if sampled => whole_ms_sample(now, rtt.latest()),
            // A sample taken before Rapid Start looked (the handshake's):
            // its send time is gone, so it is rounded down.
            _ => u64::try_from(rtt.latest().as_millis())
                .unwrap_or(u64::MAX)
                .max(1),
        };
        self.last_ms = Some(latest);
        let min = self.min_ms.map_or(latest, |m| m.min(latest));
        self.min_ms = Some(min);
        let off_ms = u64::try_from(self.opts.off_below.as_millis()).unwrap_or(u64::MAX);
        if min < off_ms {
            self.off = true;
            return true;
        }
        let thresh = queue_buildup_thresh_ms(
            min,
            self.opts.thresh_add,
            self.opts.thresh_mult,
            self.opts.thresh_combine,
        );
        let floor = if self.opts.rtt_floor == RttFloorSource::Slots {
            self.slots.update(now_ms, min, latest);
            self.slots.floor()
        } else {
            floor.map(|f| u64::try_from(f.as_millis()).unwrap_or(u64::MAX))
        };
        floor.is_none_or(|f| f > thresh)
    }

    /// `off_below`: `min_rtt` fell below the limit, and Rapid Start (its
    /// growth and its first recovery) is off for the rest of the
    /// connection, which continues with ordinary slow start.
    pub fn is_off(&self) -> bool {
        self.off
    }

    /// Whether the RTT floor comes from the previous round when the current
    /// one has none yet (`rtt_floor=fallback`).
    pub fn floor_falls_back(&self) -> bool {
        self.opts.rtt_floor == RttFloorSource::Fallback
    }

    /// -02 §3.2: the queue is building, so growth is 2×, not 3×.
    pub fn queue_building(&self) -> bool {
        self.queue
    }

    /// -02 §3.2: window bytes for `base` eligible acknowledged bytes: two
    /// per byte (3× per round) while the queue is empty, one (2×) once it
    /// builds.
    pub fn growth(&self, base: u64) -> u64 {
        if self.queue {
            base
        } else {
            base.saturating_mul(2)
        }
    }

    /// The pacing gain while growing 3× ([`super::RAPID_PACING_GAIN`] by default).
    pub fn pacing_gain(&self) -> Ratio {
        self.opts.pacing_gain
    }

    /// The pacing gain in the first recovery
    /// ([`super::RAPID_RECOVERY_PACING_GAIN`] by default).
    pub fn recovery_gain(&self) -> Ratio {
        self.opts.recovery_gain
    }

    /// The β of the smooth reduction for a loss: the option, else the
    /// congestion-avoidance algorithm's `ca_beta`.
    pub fn loss_beta(&self, ca_beta: Ratio) -> Ratio {
        self.opts.beta.unwrap_or(ca_beta)
    }

    /// -02 §3.3.2: a loss of a packet sent before the first recovery
    /// began, charged to the reduction. `joins_ce_only_episode`: the
    /// recovery so far saw CE alone; `ce_beta` is for CE-only episodes,
    /// so the reduction is re-derived with the loss β
    /// ([`RapidStart::loss_beta`] of `ca_beta`) before the charge.
    pub fn on_loss_in_recovery(
        &self,
        rr: &mut RapidRecovery,
        lost_bytes: u64,
        joins_ce_only_episode: bool,
        ca_beta: Ratio,
    ) {
        if joins_ce_only_episode {
            let beta = self.loss_beta(ca_beta);
            if rr.beta() != beta {
                *rr = rr.rebased(beta);
            }
        }
        rr.on_lost(lost_bytes);
    }

    /// -02 §3.3: the congestion event (`signal`) that ends the startup
    /// enters the first recovery, from `cwnd` (or the `flight` before the
    /// event, with `pre=flight`) scaled by β: the CE-only β of §3.3.2 for a
    /// CE signal, else [`RapidStart::loss_beta`]. The event's lost bytes
    /// are charged after the scaling (docs/algorithms.md ambiguity #7),
    /// except under [`super::FirstRecovery::Quicly`], where the first loss
    /// only scales the window.
    pub fn enter_recovery(
        &self,
        signal: CongestionSignal,
        cwnd: u64,
        flight: u64,
        ca_beta: Ratio,
        min_window: u64,
        initial_window: u64,
    ) -> RapidRecovery {
        let (beta, lost) = match (signal, self.opts.ce_beta) {
            (CongestionSignal::Ecn { .. }, Some(b)) => (b, 0),
            (CongestionSignal::Ecn { .. }, None) => (self.loss_beta(ca_beta), 0),
            (CongestionSignal::Loss { lost_bytes }, _) => (self.loss_beta(ca_beta), lost_bytes),
        };
        let iw = self.opts.iw_floor.then_some(initial_window);
        let pre = match self.opts.pre_window {
            PreRecoveryWindow::Flight => cwnd.min(flight),
            PreRecoveryWindow::Cwnd => cwnd,
        };
        let mut rr = RapidRecovery::enter_k(pre, beta, self.opts.k, min_window, iw);
        if self.opts.first_recovery == super::FirstRecovery::Draft {
            rr.on_lost(lost);
        }
        rr
    }
}

#[cfg(test)]
mod policy_tests {
    use super::*;
    use crate::rapid_start::{
        queue_buildup_thresh, Factors, ThreshCombine, K_DRAFT, K_QUICLY, QUEUE_BUILDUP_ADD,
        QUEUE_BUILDUP_MULT, QUICLY_THRESH_MULT,
    };

    fn rtt_with_min(ms: u64) -> RttEstimator {
        let mut r = RttEstimator::default();
        r.update(
            Duration::from_millis(ms),
            Duration::ZERO,
            Duration::ZERO,
            true,
        );
        r
    }

    #[test]
    fn rapid_start_02_3_2_the_policy_grows_3x_until_the_floor_crosses_the_threshold() {
        let mut p = RapidStart::new(RapidStartOptions::default());
        let rtt = rtt_with_min(40);
        p.evaluate(Time::ZERO, None, &rtt, true);
        assert_eq!(p.growth(1000), 1000, "no floor: 2x");
        p.evaluate(Time::ZERO, Some(Duration::from_millis(41)), &rtt, true);
        assert_eq!(p.growth(1000), 2000, "below min(40 + 4, 44) ms: 3x");
        p.evaluate(Time::ZERO, Some(Duration::from_millis(45)), &rtt, true);
        assert!(p.queue_building());
        p.evaluate(Time::ZERO, Some(Duration::from_millis(41)), &rtt, true);
        assert!(!p.queue_building(), "without latch_2x, 3x resumes");
        let mut latched = RapidStart::new(RapidStartOptions {
            latch_2x: true,
            ..RapidStartOptions::default()
        });
        latched.evaluate(Time::ZERO, Some(Duration::from_millis(45)), &rtt, true);
        latched.evaluate(Time::ZERO, Some(Duration::from_millis(41)), &rtt, true);
        assert!(latched.queue_building(), "latch_2x keeps 2x");
    }

    #[test]
    fn rapid_start_02_3_3_2_a_ce_only_entry_uses_ce_beta_and_a_loss_charges_its_bytes() {
        let p = RapidStart::new(RapidStartOptions {
            ce_beta: Some(Ratio::new_const(4, 5)),
            ..RapidStartOptions::default()
        });
        let beta = Ratio::HALF;
        let ce = p.enter_recovery(
            CongestionSignal::Ecn {
                ce_packets: 1,
                ce_bytes: 1200,
            },
            120_000,
            120_000,
            beta,
            2400,
            12_000,
        );
        assert_eq!(ce.beta(), Ratio::new_const(4, 5));
        let loss = p.enter_recovery(
            CongestionSignal::Loss { lost_bytes: 1200 },
            120_000,
            120_000,
            beta,
            2400,
            12_000,
        );
        assert_eq!(loss.beta(), beta);
        assert!(
            loss.cwnd()
                < RapidStart::new(RapidStartOptions::default())
                    .enter_recovery(
                        CongestionSignal::Loss { lost_bytes: 0 },
                        120_000,
                        120_000,
                        beta,
                        2400,
                        12_000
                    )
                    .cwnd()
        );
    }

    #[test]
    fn quicly_cc_h_k_11_18_factors_for_beta_0_7() {
        // ack = K(1−β) = 11/18·3/10 = 11/60; loss = silence = β + ack = 53/60.
        let f = Factors::for_beta_k(Ratio::SEVEN_TENTHS, K_QUICLY);
        assert_eq!(
            (f.ack * 60, f.loss * 60, f.silence * 60),
            (11 * f.den, 53 * f.den, 53 * f.den)
        );
        // -02's K = 2/3 gives -02's factors.
        assert_eq!(
            Factors::for_beta_k(Ratio::HALF, K_DRAFT).ack * 3,
            Factors::for_beta(Ratio::HALF).den
        );
        let rr = RapidRecovery::enter_k(60_000, Ratio::SEVEN_TENTHS, K_QUICLY, 2400, None);
        assert_eq!(rr.cwnd(), 53_000, "60 000 × 53/60");
        assert_eq!(rr.floor(), 14_000, "60 000 × 0.7/3");
    }

    #[test]
    fn quicly_use_3x_threshold_is_max_of_min_plus_4_and_min_35_32_in_whole_ms() {
        let t = |min, c| queue_buildup_thresh_ms(min, QUEUE_BUILDUP_ADD, QUICLY_THRESH_MULT, c);
        assert_eq!(t(40, ThreshCombine::Max), 44);
        // 100·35/32 = 109.375, rounded down as quicly's integers are.
        assert_eq!(t(100, ThreshCombine::Max), 109);
        // -02: min(100 + 4, 1.10·100) = 104 ms.
        let d = queue_buildup_thresh(
            Duration::from_millis(100),
            QUEUE_BUILDUP_ADD,
            QUEUE_BUILDUP_MULT,
        );
        assert_eq!(d, Duration::from_millis(104));
    }

    #[test]
    fn quicly_1ms_clock_a_floor_of_44_9_ms_is_44_ms_and_not_above_the_threshold() {
        let rtt = rtt_with_min(40);
        let floor = Some(Duration::from_micros(44_900));
        let mut exact = RapidStart::new(RapidStartOptions::default());
        exact.evaluate(Time::from_millis(100), floor, &rtt, false);
        assert!(exact.queue_building(), "44.9 ms > 44 ms");
        let mut ms = RapidStart::new(RapidStartOptions {
            clock: RttClock::WholeMs,
            ..RapidStartOptions::default()
        });
        ms.evaluate(Time::from_millis(100), floor, &rtt, false);
        assert!(!ms.queue_building(), "44 ms ≤ 44 ms: 3x");
    }

    #[test]
    fn quicly_rapid_start_is_off_below_4_ms_of_min_rtt() {
        let mut p = RapidStart::new(RapidStartOptions::quicly());
        p.evaluate(Time::from_millis(10), None, &rtt_with_min(3), false);
        assert!(p.is_off());
        let mut p = RapidStart::new(RapidStartOptions::quicly());
        p.evaluate(Time::from_millis(10), None, &rtt_with_min(4), false);
        assert!(!p.is_off());
        // -02 has no such limit.
        let mut d = RapidStart::new(RapidStartOptions::default());
        d.evaluate(Time::from_millis(10), None, &rtt_with_min(1), false);
        assert!(!d.is_off());
    }

    #[test]
    fn quicly_slotted_floor_forgets_a_low_sample_after_one_min_rtt_of_time() {
        let mut p = RapidStart::new(RapidStartOptions {
            rtt_floor: RttFloorSource::Slots,
            ..RapidStartOptions::default()
        });
        let mut rtt = rtt_with_min(40);
        p.evaluate(Time::from_millis(40), None, &rtt, true);
        assert!(!p.queue_building(), "40 ms floor: 3x");
        for t in [60, 70, 80, 90] {
            rtt.update(
                Duration::from_millis(60),
                Duration::ZERO,
                Duration::ZERO,
                true,
            );
            p.evaluate(Time::from_millis(t), None, &rtt, true);
        }
        assert!(
            p.queue_building(),
            "only 60 ms samples in the last 40 ms: 2x"
        );
    }
}
