//! Property tests of the loss detector over random interleavings of sends,
//! ACKs (reordered, duplicated, malformed) and timer expiries, checked
//! against a plain model of RFC 9002 Appendix A.10 written independently of
//! the detector's `VecDeque` and early-exit scan.

use crate::recovery_support;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use proptest::prelude::*;
use ramp_cc::recovery::{
    AckError, AckFrame, EcnCounts, RecoveryConfig, SentPacket, Space, TimeoutKind,
};
use ramp_cc::EcnCodepoint;
use ramp_cc::{EventOrder, Time};
use recovery_support::Harness;

#[derive(Clone, Debug)]
enum Op {
    /// Send a packet after `dt_us`.
    Send {
        dt_us: u32,
        space: u8,
        ack_eliciting: bool,
        size: u16,
        skip: bool,
    },
    /// ACK ranges picked from what was sent (valid unless `overshoot`).
    Ack {
        dt_us: u32,
        space: u8,
        picks: Vec<(u16, u8)>,
        delay_ms: u8,
        ce: Option<u8>,
        overshoot: bool,
    },
    /// An arbitrary frame, most likely malformed.
    Garbage { space: u8, ranges: Vec<(u64, u64)> },
    /// Let time pass (timers fire).
    Wait { dt_us: u32 },
}

fn space_of(i: u8) -> Space {
    match i % 8 {
        0 => Space::Initial,
        1 => Space::Handshake,
        _ => Space::Application,
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (0u32..30_000, any::<u8>(), prop::bool::weighted(0.85), 20u16..1500, prop::bool::weighted(0.05))
            .prop_map(|(dt_us, space, ack_eliciting, size, skip)| Op::Send { dt_us, space, ack_eliciting, size, skip }),
        4 => (0u32..60_000, any::<u8>(), prop::collection::vec((any::<u16>(), 0u8..6), 1..5), any::<u8>(),
              prop::option::weighted(0.3, 0u8..3), prop::bool::weighted(0.05))
            .prop_map(|(dt_us, space, picks, delay_ms, ce, overshoot)| Op::Ack { dt_us, space, picks, delay_ms, ce, overshoot }),
        1 => (any::<u8>(), prop::collection::vec((0u64..64, 0u64..64), 0..4))
            .prop_map(|(space, ranges)| Op::Garbage { space, ranges }),
        1 => (0u32..2_000_000).prop_map(|dt_us| Op::Wait { dt_us }),
    ]
}

/// Outstanding packet in the model.
#[derive(Clone, Copy, Debug)]
struct M {
    size: u64,
    in_flight: bool,
    time_sent: Time,
}

struct World {
    h: Harness,
    now: Time,
    next_pn: [u64; 3],
    ce: [u64; 3],
    model: [BTreeMap<u64, M>; 3],
    last_ack_eliciting: [Option<Time>; 3],
    skipped: [BTreeSet<u64>; 3],
    /// Declared lost and not yet acknowledged (the tests never exceed the
    /// detector's memory bound).
    lost: [BTreeSet<u64>; 3],
}

impl World {
    fn bytes_in_flight(&self) -> u64 {
        self.model
            .iter()
            .flat_map(|m| m.values())
            .filter(|p| p.in_flight)
            .map(|p| p.size)
            .sum()
    }

    /// RFC 9002 A.10 over the model: which outstanding packets of `space`
    /// are lost at `now`, and the loss time of the rest.
    fn expected_losses(&self, space: Space, now: Time) -> (Vec<u64>, Option<Time>) {
        let Some(largest) = self.h.det.largest_acked(space) else {
            return (vec![], None);
        };
        let delay = self.h.det.loss_delay();
        let thr = self.h.det.config().packet_threshold;
        let mut lost = vec![];
        let mut loss_time: Option<Time> = None;
        for (&pn, p) in self.model[space.index()].range(..largest) {
            let by_time = delay.is_some_and(|d| p.time_sent + d <= now);
            if largest - pn >= thr || by_time {
                lost.push(pn);
            } else if let Some(d) = delay {
                let t = p.time_sent + d;
                loss_time = Some(loss_time.map_or(t, |l: Time| l.min(t)));
            }
        }
        (lost, loss_time)
    }

    /// Removes reported packets from the model, checking each was
    /// outstanding exactly once (so none is both acked and lost).
    fn settle(&mut self, space: Space, acked: &[u64], lost: &[u64]) -> Result<(), TestCaseError> {
        for pn in acked.iter().chain(lost) {
            prop_assert!(
                self.model[space.index()].remove(pn).is_some(),
                "pn {pn} in {space} reported twice or never sent"
            );
        }
        self.lost[space.index()].extend(lost.iter().copied());
        Ok(())
    }

    fn check_common(&self) -> Result<(), TestCaseError> {
        prop_assert_eq!(self.h.det.bytes_in_flight(), self.bytes_in_flight());
        let s = self.h.det.stats();
        let outstanding: usize = self.model.iter().map(|m| m.len()).sum();
        prop_assert_eq!(
            s.packets_sent,
            s.packets_acked + s.packets_lost + outstanding as u64
        );
        prop_assert!(s.spurious_losses <= s.packets_lost);
        prop_assert_eq!(
            s.packets_lost,
            s.lost_by_packet_threshold + s.lost_by_time_threshold
        );
        if let Some((t, space)) = self.h.det.pto_time_and_space() {
            let last = self.last_ack_eliciting[space.index()];
            prop_assert!(
                last.is_some_and(|l| t > l),
                "PTO {t:?} not after last send {last:?}"
            );
        }
        Ok(())
    }

    /// Moves the clock `dt_us` on, firing every timer that falls due on
    /// the way, as an event loop would.
    fn advance(&mut self, dt_us: u32) -> Result<(), TestCaseError> {
        let until = self.now + Duration::from_micros(u64::from(dt_us));
        self.fire_timers(until)?;
        self.now = until;
        Ok(())
    }

    fn fire_timers(&mut self, until: Time) -> Result<(), TestCaseError> {
        for _ in 0..64 {
            let Some(t) = self.h.det.timer() else { break };
            if t > until {
                break;
            }
            let now = t.max(self.now);
            self.now = now;
            let loss = self.h.det.earliest_loss_time();
            let expected = loss.map(|(_, s)| (s, self.expected_losses(s, now).0));
            let ptos = self.h.det.stats().ptos;
            self.h.timeout(now);
            let lost: Vec<u64> = self.h.to.lost.iter().map(|p| p.packet_number).collect();
            match self.h.to.kind {
                TimeoutKind::LossTimer { space } => {
                    let (es, elost) = expected.unwrap_or((space, vec![]));
                    prop_assert_eq!(es, space);
                    prop_assert_eq!(&lost, &elost);
                    self.settle(space, &[], &lost)?;
                    if let Some(lt) = self.h.det.loss_time(space) {
                        prop_assert!(lt > now);
                    }
                }
                TimeoutKind::Pto { probes, .. } => {
                    prop_assert!(lost.is_empty(), "a PTO declares nothing lost");
                    prop_assert!((1..=2).contains(&probes));
                    prop_assert_eq!(self.h.det.stats().ptos, ptos + 1);
                }
                TimeoutKind::Idle => prop_assert!(false, "timer due but idle"),
            }
            self.check_common()?;
        }
        Ok(())
    }

    fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        match op {
            Op::Send {
                dt_us,
                space,
                ack_eliciting,
                size,
                skip,
            } => {
                self.advance(*dt_us)?;
                let space = space_of(*space);
                let si = space.index();
                if *skip {
                    self.skipped[si].insert(self.next_pn[si]);
                    self.next_pn[si] += 1;
                }
                let pn = self.next_pn[si];
                self.next_pn[si] += 1;
                let in_flight = *ack_eliciting;
                let packet = SentPacket {
                    packet_number: pn,
                    time_sent: self.now,
                    size: u64::from(*size),
                    ack_eliciting: *ack_eliciting,
                    in_flight,
                    ecn: EcnCodepoint::NotEct,
                    payload: pn,
                };
                self.h.det.on_packet_sent(space, packet, &mut self.h.cc);
                if *ack_eliciting {
                    self.last_ack_eliciting[si] = Some(self.now);
                }
                self.model[si].insert(
                    pn,
                    M {
                        size: u64::from(*size),
                        in_flight,
                        time_sent: self.now,
                    },
                );
            }
            Op::Ack {
                dt_us,
                space,
                picks,
                delay_ms,
                ce,
                overshoot,
            } => {
                self.advance(*dt_us)?;
                let space = space_of(*space);
                let si = space.index();
                let Some(largest_sent) = self.h.det.largest_sent(space) else {
                    return Ok(());
                };
                // Pick ranges of sent numbers (anything: acked, lost,
                // outstanding, skipped), then make them descending and
                // disjoint.
                let mut rs: Vec<(u64, u64)> = picks
                    .iter()
                    .map(|&(a, len)| {
                        let lo = u64::from(a) % (largest_sent + 1);
                        (lo, (lo + u64::from(len)).min(largest_sent))
                    })
                    .collect();
                if *overshoot {
                    rs.push((largest_sent + 1, largest_sent + 1));
                }
                rs.sort_unstable();
                let mut merged: Vec<(u64, u64)> = vec![];
                for (lo, hi) in rs {
                    match merged.last_mut() {
                        Some(last) if lo <= last.1 + 1 => last.1 = last.1.max(hi),
                        _ => merged.push((lo, hi)),
                    }
                }
                merged.reverse();
                if let Some(c) = ce {
                    self.ce[si] += u64::from(*c);
                }
                let frame = AckFrame {
                    ranges: merged.iter().map(|&(lo, hi)| lo..=hi).collect(),
                    ack_delay: Duration::from_millis(u64::from(*delay_ms)),
                    ecn: ce.map(|_| EcnCounts {
                        ect0: 0,
                        ect1: 0,
                        ce: self.ce[si],
                    }),
                };
                let before_bif = self.h.det.bytes_in_flight();
                let before_calls = self.h.cc.calls.len();
                let res = self.h.ack_frame(self.now, space, &frame);
                let acked: Vec<u64> = self.h.ack.acked.iter().map(|p| p.packet_number).collect();
                let lost: Vec<u64> = self.h.ack.lost.iter().map(|p| p.packet_number).collect();
                if let Err(e) = res {
                    match e {
                        AckError::UnsentPacket { .. } => prop_assert!(*overshoot),
                        AckError::SkippedPacket { packet_number } => {
                            prop_assert!(self.skipped[si].contains(&packet_number))
                        }
                        other => prop_assert!(false, "unexpected {other}"),
                    }
                    prop_assert!(acked.is_empty() && lost.is_empty());
                    prop_assert_eq!(self.h.det.bytes_in_flight(), before_bif);
                    prop_assert_eq!(self.h.cc.calls.len(), before_calls);
                    return Ok(());
                }
                prop_assert!(!*overshoot);
                // Spurious = remembered losses inside the ranges.
                let spurious: Vec<u64> = self.lost[si]
                    .iter()
                    .copied()
                    .filter(|pn| merged.iter().any(|&(lo, hi)| (lo..=hi).contains(pn)))
                    .collect();
                prop_assert_eq!(self.h.ack.spurious, spurious.len() as u64);
                for pn in &spurious {
                    self.lost[si].remove(pn);
                }
                // Newly acked = outstanding ∩ ranges, ascending.
                let expected_acked: Vec<u64> = self.model[si]
                    .keys()
                    .copied()
                    .filter(|pn| merged.iter().any(|&(lo, hi)| (lo..=hi).contains(pn)))
                    .collect();
                prop_assert_eq!(&acked, &expected_acked);
                for pn in &acked {
                    self.model[si].remove(pn);
                }
                if acked.is_empty() {
                    prop_assert!(lost.is_empty(), "A.7 returns before loss detection");
                } else {
                    let (elost, eloss_time) = self.expected_losses(space, self.now);
                    prop_assert_eq!(&lost, &elost);
                    prop_assert_eq!(self.h.det.loss_time(space), eloss_time);
                    if let Some(t) = eloss_time {
                        prop_assert!(t > self.now);
                    }
                    self.settle(space, &[], &lost)?;
                    prop_assert_eq!(self.h.det.pto_count(), 0);
                }
            }
            Op::Garbage { space, ranges } => {
                let frame = AckFrame {
                    ranges: ranges.iter().map(|&(a, b)| a..=b).collect(),
                    ack_delay: Duration::from_millis(1),
                    ecn: None,
                };
                let space = space_of(*space);
                let si = space.index();
                let res = self.h.ack_frame(self.now, space, &frame);
                if res.is_ok() {
                    let acked: Vec<u64> =
                        self.h.ack.acked.iter().map(|p| p.packet_number).collect();
                    let lost: Vec<u64> = self.h.ack.lost.iter().map(|p| p.packet_number).collect();
                    for pn in &acked {
                        prop_assert!(self.model[si].remove(pn).is_some());
                    }
                    let before = self.lost[si].len();
                    self.lost[si].retain(|pn| !ranges.iter().any(|&(a, b)| (a..=b).contains(pn)));
                    prop_assert_eq!(self.h.ack.spurious, (before - self.lost[si].len()) as u64);
                    self.settle(space, &[], &lost)?;
                }
            }
            Op::Wait { dt_us } => {
                self.advance(*dt_us)?;
            }
        }
        self.check_common()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn rfc9002_a_invariants_under_random_interleavings(
        ops in prop::collection::vec(op(), 1..150),
        confirmed in any::<bool>(),
        time_threshold in prop::bool::weighted(0.8),
        quinn_order in any::<bool>(),
    ) {
        let config = RecoveryConfig {
            handshake_confirmed: confirmed,
            time_threshold: time_threshold.then_some((9, 8)),
            event_order: if quinn_order { EventOrder::AcksFirst } else { EventOrder::Rfc9002 },
            ..RecoveryConfig::default()
        };
        let mut w = World {
            h: Harness::new(config),
            now: Time::from_millis(1),
            next_pn: [0; 3],
            ce: [0; 3],
            model: Default::default(),
            last_ack_eliciting: [None; 3],
            skipped: Default::default(),
            lost: Default::default(),
        };
        for op in &ops {
            w.apply(op)?;
        }
        // Drain: the timers eventually stop once nothing is outstanding.
        w.fire_timers(w.now + Duration::from_secs(3600))?;
    }

    #[test]
    fn rfc9000_13_1_arbitrary_ack_frames_never_panic(
        sends in 0u64..40,
        ranges in prop::collection::vec((any::<u64>(), any::<u64>()), 0..6),
        delay in any::<u64>(),
        ce in prop::option::of(any::<u64>()),
    ) {
        let mut h = Harness::confirmed();
        for pn in 0..sends {
            h.send(Time::from_millis(pn), pn);
        }
        let frame = AckFrame {
            ranges: ranges.iter().map(|&(a, b)| a..=b).collect(),
            ack_delay: Duration::from_nanos(delay),
            ecn: ce.map(|ce| EcnCounts { ect0: 0, ect1: 0, ce }),
        };
        let _ = h.ack_frame(Time::from_millis(1000), Space::Application, &frame);
        let _ = h.ack_frame(Time::MAX, Space::Application, &frame);
        h.timeout(Time::MAX);
        prop_assert!(h.det.bytes_in_flight() <= sends * 1200);
    }
}
