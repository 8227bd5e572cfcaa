//! Path elements: the bottleneck link (rate, drop-tail queue, ECN marking),
//! random loss (Bernoulli, Gilbert-Elliott) and the token-bucket policer.
//!
//! The bottleneck is a FIFO served at a constant rate. It is modelled in
//! virtual time, as picoquic's `sim_link` does: an arriving packet's
//! departure time is `max(arrival, previous departure) + size / rate`, so a
//! packet costs one computation, not an enqueue and a dequeue event. The
//! queue is configured in milliseconds at the link rate (or bytes) and
//! enforced in bytes, like quicly's simulator; a packet is counted in the
//! queue until its last bit has been serialised.

use std::collections::VecDeque;
use std::time::Duration;

use ramp_cc::time::duration_nanos;
use ramp_cc::{Rate, Time};

use crate::rng::{Probability, Rng};

/// What the bottleneck did with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Queued; the last bit leaves the link at `departure`.
    Queued {
        /// When serialisation ends.
        departure: Time,
        /// Whether the packet was CE-marked (ECN, sojourn above threshold).
        ce: bool,
    },
    /// Dropped at the tail: the queue was full.
    Dropped,
}

/// A constant-rate link with a drop-tail byte-limited FIFO.
#[derive(Clone, Debug)]
pub struct Bottleneck {
    rate: Rate,
    limit_bytes: u64,
    ce_threshold: Option<Duration>,
    /// Departure time of the last packet accepted.
    busy_until: Time,
    /// Packets not yet fully serialised: (departure time, size).
    fifo: VecDeque<(Time, u32)>,
    backlog_bytes: u64,
    /// Serialisation time of the last packet size seen (sizes repeat: a
    /// u128 division per packet is a measurable share of the run time).
    last_tx: (u32, Duration),
}

impl Bottleneck {
    /// A link of `rate` whose queue holds at most `limit_bytes` (the packet
    /// being serialised included). Packets whose queueing delay exceeds
    /// `ce_threshold` get CE-marked if they are ECN-capable.
    pub fn new(rate: Rate, limit_bytes: u64, ce_threshold: Option<Duration>) -> Bottleneck {
        Bottleneck {
            rate,
            limit_bytes,
            ce_threshold,
            busy_until: Time::ZERO,
            fifo: VecDeque::new(),
            backlog_bytes: 0,
            last_tx: (0, Duration::ZERO),
        }
    }

    /// The link rate.
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// Serves packets offered from now on at `rate` (a rate step); packets
    /// already queued keep their departure times.
    pub fn set_rate(&mut self, rate: Rate) {
        self.rate = rate;
        self.last_tx = (0, Duration::ZERO);
    }

    fn drain(&mut self, now: Time) {
        self.drain_reporting(now, |_, _, _| {});
    }

    /// Removes the packets that have left by `now`, calling
    /// `on_departure(time, backlog_after, delay_then)` for each in departure
    /// order. Departures are not simulation events (the queue is a virtual
    /// FIFO of departure times), so the dequeue half of a queue trace is
    /// produced lazily here; draining early changes no state that the next
    /// [`Bottleneck::offer`] would not change the same way.
    pub fn drain_reporting(
        &mut self,
        now: Time,
        mut on_departure: impl FnMut(Time, u64, Duration),
    ) {
        while let Some(&(dep, size)) = self.fifo.front() {
            if dep > now {
                break;
            }
            self.backlog_bytes -= u64::from(size);
            self.fifo.pop_front();
            on_departure(dep, self.backlog_bytes, self.busy_until - dep);
        }
    }

    /// Offers a packet of `size` bytes at `now`. `ect` says whether it is
    /// ECN-capable (only those are marked; others are never dropped for ECN).
    pub fn offer(&mut self, now: Time, size: u32, ect: bool) -> Admission {
        self.drain(now);
        if self.backlog_bytes + u64::from(size) > self.limit_bytes {
            return Admission::Dropped;
        }
        let start = self.busy_until.max(now);
        let sojourn = start - now;
        if self.last_tx.0 != size {
            self.last_tx = (size, self.rate.transmit_time(u64::from(size)));
        }
        let departure = start + self.last_tx.1;
        self.busy_until = departure;
        self.fifo.push_back((departure, size));
        self.backlog_bytes += u64::from(size);
        let ce = ect && self.ce_threshold.is_some_and(|th| sojourn > th);
        Admission::Queued { departure, ce }
    }

    /// Bytes in the queue at `now` (including the packet in service), as of
    /// the last offer; call after [`Bottleneck::offer`] for trace output.
    pub fn backlog_bytes(&self) -> u64 {
        self.backlog_bytes
    }

    /// Queueing delay a packet arriving at `now` would see.
    pub fn queue_delay(&self, now: Time) -> Duration {
        self.busy_until - now
    }
}

/// Bytes a queue of `queue` holds at `rate` (the quicly convention).
pub fn queue_bytes_for(rate: Rate, queue: Duration) -> u64 {
    let b = u128::from(rate.bytes_per_sec()) * u128::from(duration_nanos(queue)) / 1_000_000_000;
    u64::try_from(b).unwrap_or(u64::MAX)
}

/// A random-loss model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LossModel {
    /// No random loss.
    None,
    /// Each packet is lost independently with probability `p`.
    Bernoulli {
        /// Loss probability.
        p: f64,
    },
    /// Two-state Gilbert-Elliott chain, stepped once per packet.
    GilbertElliott {
        /// Probability of moving good -> bad, per packet.
        p_good_to_bad: f64,
        /// Probability of moving bad -> good, per packet.
        p_bad_to_good: f64,
        /// Loss probability in the good state.
        loss_good: f64,
        /// Loss probability in the bad state.
        loss_bad: f64,
    },
}

impl LossModel {
    /// The long-run loss probability (for records: `path.loss`).
    pub fn mean_loss(&self) -> f64 {
        match *self {
            LossModel::None => 0.0,
            LossModel::Bernoulli { p } => p,
            LossModel::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            } => {
                let denom = p_good_to_bad + p_bad_to_good;
                if denom <= 0.0 {
                    return loss_good;
                }
                let pi_bad = p_good_to_bad / denom;
                (1.0 - pi_bad) * loss_good + pi_bad * loss_bad
            }
        }
    }
}

/// A random-loss element with its own generator.
#[derive(Clone, Debug)]
pub struct LossElement {
    kind: LossKind,
    rng: Rng,
}

#[derive(Clone, Debug)]
enum LossKind {
    None,
    Bernoulli(Probability),
    Ge {
        bad: bool,
        to_bad: Probability,
        to_good: Probability,
        loss_good: Probability,
        loss_bad: Probability,
    },
}

impl LossElement {
    /// An element applying `model`, drawing from `rng`.
    pub fn new(model: LossModel, rng: Rng) -> LossElement {
        let kind = match model {
            LossModel::None => LossKind::None,
            LossModel::Bernoulli { p } if p <= 0.0 => LossKind::None,
            LossModel::Bernoulli { p } => LossKind::Bernoulli(Probability::new(p)),
            LossModel::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            } => LossKind::Ge {
                bad: false,
                to_bad: Probability::new(p_good_to_bad),
                to_good: Probability::new(p_bad_to_good),
                loss_good: Probability::new(loss_good),
                loss_bad: Probability::new(loss_bad),
            },
        };
        LossElement { kind, rng }
    }

    /// Whether the next packet is lost.
    pub fn drops(&mut self) -> bool {
        match &mut self.kind {
            LossKind::None => false,
            LossKind::Bernoulli(p) => self.rng.chance(*p),
            LossKind::Ge {
                bad,
                to_bad,
                to_good,
                loss_good,
                loss_bad,
            } => {
                // Step the chain first, then draw the loss in the new state.
                if *bad {
                    if self.rng.chance(*to_good) {
                        *bad = false;
                    }
                } else if self.rng.chance(*to_bad) {
                    *bad = true;
                }
                let p = if *bad { *loss_bad } else { *loss_good };
                self.rng.chance(p)
            }
        }
    }
}

/// A token-bucket policer with no queue: a packet passes if the bucket holds
/// its size in tokens, and is dropped otherwise.
#[derive(Clone, Debug)]
pub struct Policer {
    rate: Rate,
    burst_bytes: u64,
    /// Tokens, in bytes x 10^9 (byte-nanoseconds at 1 B/s) for exact refill.
    tokens_scaled: u128,
    last: Time,
}

impl Policer {
    /// A policer refilling at `rate` with a bucket of `burst_bytes`, full at start.
    pub fn new(rate: Rate, burst_bytes: u64) -> Policer {
        Policer {
            rate,
            burst_bytes,
            tokens_scaled: u128::from(burst_bytes) * 1_000_000_000,
            last: Time::ZERO,
        }
    }

    /// Whether a packet of `size` bytes arriving at `now` passes.
    pub fn admit(&mut self, now: Time, size: u32) -> bool {
        let elapsed = u128::from((now - self.last).as_nanos() as u64);
        self.last = self.last.max(now);
        let cap = u128::from(self.burst_bytes) * 1_000_000_000;
        self.tokens_scaled =
            (self.tokens_scaled + elapsed * u128::from(self.rate.bytes_per_sec())).min(cap);
        let need = u128::from(size) * 1_000_000_000;
        if self.tokens_scaled >= need {
            self.tokens_scaled -= need;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn drain_reports_each_departure_at_link_rate() {
        // 1200-byte packets at 9.6 Mbit/s take exactly 1 ms each.
        let mut b = Bottleneck::new(Rate::from_bits_per_sec(9_600_000), 1_000_000, None);
        for _ in 0..3 {
            b.offer(Time::ZERO, 1200, false);
        }
        let mut seen = Vec::new();
        b.drain_reporting(Time::from_millis(10), |t, bytes, delay| {
            seen.push((t, bytes, delay))
        });
        assert_eq!(
            seen,
            vec![
                (Time::from_millis(1), 2400, Duration::from_millis(2)),
                (Time::from_millis(2), 1200, Duration::from_millis(1)),
                (Time::from_millis(3), 0, Duration::ZERO),
            ]
        );
        assert_eq!(b.backlog_bytes(), 0);
    }

    use super::*;
    use crate::rng::Stream;

    fn mbit(v: u64) -> Rate {
        Rate::from_bits_per_sec(v * 1_000_000)
    }

    #[test]
    fn serialisation_time_is_size_over_rate() {
        // 1252 bytes at 100 Mbit/s: 100.16 µs.
        let mut b = Bottleneck::new(mbit(100), 1_000_000, None);
        let now = Time::from_millis(1);
        match b.offer(now, 1252, false) {
            Admission::Queued { departure, .. } => {
                assert_eq!(departure - now, Duration::from_nanos(100_160))
            }
            Admission::Dropped => panic!("dropped"),
        }
        // A back-to-back second packet leaves one serialisation time later.
        match b.offer(now, 1252, false) {
            Admission::Queued { departure, .. } => {
                assert_eq!(departure - now, Duration::from_nanos(200_320))
            }
            Admission::Dropped => panic!("dropped"),
        }
    }

    #[test]
    fn drop_tail_at_the_byte_limit() {
        // Room for exactly 3 packets of 1000 bytes.
        let mut b = Bottleneck::new(mbit(10), 3000, None);
        let t = Time::from_millis(5);
        for _ in 0..3 {
            assert!(matches!(b.offer(t, 1000, false), Admission::Queued { .. }));
        }
        assert_eq!(b.offer(t, 1000, false), Admission::Dropped);
        assert_eq!(b.backlog_bytes(), 3000);
        // After one serialisation time (800 µs at 10 Mbit/s), one slot frees.
        let later = t + Duration::from_micros(800);
        assert!(matches!(
            b.offer(later, 1000, false),
            Admission::Queued { .. }
        ));
        assert_eq!(b.offer(later, 1000, false), Admission::Dropped);
    }

    #[test]
    fn queue_ms_converts_at_link_rate() {
        // 30 ms at 100 Mbit/s = 375,000 bytes.
        assert_eq!(
            queue_bytes_for(mbit(100), Duration::from_millis(30)),
            375_000
        );
    }

    #[test]
    fn ce_marks_only_above_sojourn_threshold() {
        let mut b = Bottleneck::new(mbit(10), 1_000_000, Some(Duration::from_micros(1000)));
        let t = Time::from_millis(1);
        // First packet: no wait. Second waits 800 µs; third 1600 µs (marked).
        let marks: Vec<bool> = (0..3)
            .map(|_| match b.offer(t, 1000, true) {
                Admission::Queued { ce, .. } => ce,
                Admission::Dropped => panic!("dropped"),
            })
            .collect();
        assert_eq!(marks, [false, false, true]);
        // Not ECN-capable: never marked.
        assert!(matches!(
            b.offer(t, 1000, false),
            Admission::Queued { ce: false, .. }
        ));
    }

    #[test]
    fn bernoulli_rate_matches_p() {
        let mut e = LossElement::new(
            LossModel::Bernoulli { p: 0.01 },
            Stream::ForwardLoss.rng(42),
        );
        let n = 400_000;
        let lost = (0..n).filter(|_| e.drops()).count();
        // Binomial sd = sqrt(n p (1-p)) ~ 63; allow 5 sd.
        assert!((lost as i64 - 4000).abs() < 315, "lost {lost}");
    }

    #[test]
    fn gilbert_elliott_mean_and_burstiness() {
        let model = LossModel::GilbertElliott {
            p_good_to_bad: 0.01,
            p_bad_to_good: 0.25,
            loss_good: 0.0,
            loss_bad: 0.5,
        };
        let mut e = LossElement::new(model, Stream::ForwardLoss.rng(9));
        let n = 1_000_000;
        let drops: Vec<bool> = (0..n).map(|_| e.drops()).collect();
        let lost = drops.iter().filter(|d| **d).count() as f64 / n as f64;
        let mean = model.mean_loss();
        assert!((lost - mean).abs() < 0.1 * mean, "lost {lost} mean {mean}");
        // Burstiness: P(loss | previous loss) far exceeds the mean.
        let pairs = drops.windows(2).filter(|w| w[0]).count() as f64;
        let both = drops.windows(2).filter(|w| w[0] && w[1]).count() as f64;
        assert!(both / pairs > 3.0 * mean, "conditional {}", both / pairs);
    }

    #[test]
    fn policer_passes_burst_then_rate() {
        // 1 Mbit/s = 125,000 B/s; bucket 3000 bytes.
        let mut p = Policer::new(mbit(1), 3000);
        let t = Time::from_millis(10);
        assert!(p.admit(t, 1000));
        assert!(p.admit(t, 1000));
        assert!(p.admit(t, 1000));
        assert!(!p.admit(t, 1000));
        // 8 ms later, 1000 bytes of tokens have accrued.
        let t2 = t + Duration::from_millis(8);
        assert!(p.admit(t2, 1000));
        assert!(!p.admit(t2, 1000));
        // Long idle: the bucket caps at the burst.
        let t3 = t2 + Duration::from_secs(10);
        assert!((0..3).all(|_| p.admit(t3, 1000)));
        assert!(!p.admit(t3, 1000));
    }
}
