//! Declaring packets lost (RFC 9002 §6.1, Appendix A.10), the loss event
//! it raises (§7.3.2, §7.6), and the recovery episodes behind spurious-loss
//! undo.

use core::time::Duration;

use super::detector::LossDetector;
use super::outcome::{AckOutcome, LossTrigger};
use super::persistent::{persistent_congestion_duration, PersistentScan};
use super::sent::{SentPacket, Slot};
use super::spurious::Episode;
use super::Space;
use crate::controller::{CongestionEvent, CongestionSignal, Controller, EventSource};
use crate::rtt::GRANULARITY;
use ramp_vocab::time::Time;

/// What one loss-detection pass found.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LossPass {
    /// Bytes of in-flight packets declared lost.
    pub(super) lost_bytes: u64,
    /// Send time of the newest in-flight lost packet, if an ack-eliciting
    /// in-flight packet was lost (a congestion event is due).
    pub(super) event_time_sent: Option<Time>,
    pub(super) persistent: bool,
}

impl<P> LossDetector<P> {
    /// RFC 9002 Appendix A.10 `DetectAndRemoveLostPackets`, plus the
    /// persistent-congestion scan over the packets it declares lost.
    ///
    /// Its early return (nothing outstanding below the largest
    /// acknowledged packet: an in-order ACK) is inlined into the ACK path,
    /// which calls this for every frame; the scan is not.
    #[inline]
    pub(super) fn detect_lost(
        &mut self,
        space: Space,
        now: Time,
        lost: &mut Vec<SentPacket<P>>,
        lost_by: &mut Vec<LossTrigger>,
    ) -> LossPass {
        let sp = &mut self.spaces[space.index()];
        sp.loss_time = None;
        let Some(largest_acked) = sp.largest_acked else {
            return LossPass::default();
        };
        if sp.sent.len() == 0 || sp.sent.base() >= largest_acked {
            return LossPass::default();
        }
        self.detect_lost_scan(space, now, largest_acked, lost, lost_by)
    }

    /// [`LossDetector::detect_lost`] past its early return: packets are
    /// outstanding below `largest_acked`.
    #[inline(never)]
    fn detect_lost_scan(
        &mut self,
        space: Space,
        now: Time,
        largest_acked: u64,
        lost: &mut Vec<SentPacket<P>>,
        lost_by: &mut Vec<LossTrigger>,
    ) -> LossPass {
        let si = space.index();
        let loss_delay = self.loss_delay();
        let packet_threshold = self.config.packet_threshold();
        let pc_duration = (self.config.persistent_congestion_threshold > 0).then(|| {
            persistent_congestion_duration(
                &self.rtt,
                self.config.max_ack_delay,
                self.config.persistent_congestion_threshold,
            )
        });
        let other_acked = Space::ALL
            .iter()
            .filter(|s| **s != space)
            .filter_map(|s| self.spaces[s.index()].largest_acked_time_sent)
            .max();
        let mut pc = PersistentScan::new(pc_duration, self.first_rtt_sample, other_acked);
        let mut pass = LossPass::default();
        let sp = &mut self.spaces[si];
        let base = sp.sent.base();
        for i in 0..sp.sent.len() {
            let pn = base + i as u64;
            if pn >= largest_acked {
                break;
            }
            let time_sent = match sp.sent.slot(i) {
                Some(Slot::Outstanding(p)) => p.time_sent,
                Some(Slot::Acked) => {
                    pc.on_acked_between();
                    continue;
                }
                _ => continue,
            };
            let by_packet = largest_acked - pn >= packet_threshold;
            let by_time = loss_delay.is_some_and(|d| time_sent.saturating_add(d) <= now);
            if !by_packet && !by_time {
                // Both thresholds are monotone in packet number (send times
                // never decrease), so no later packet is lost either; this
                // one, the oldest, sets the loss timer (§6.1.2).
                sp.loss_time = loss_delay.map(|d| time_sent.saturating_add(d));
                break;
            }
            let Some(p) = sp.sent.take_lost(i) else {
                continue;
            };
            let trigger = if by_packet {
                self.stats.lost_by_packet_threshold += 1;
                LossTrigger::PacketThreshold
            } else {
                self.stats.lost_by_time_threshold += 1;
                LossTrigger::TimeThreshold
            };
            lost_by.push(trigger);
            self.stats.packets_lost += 1;
            self.stats.bytes_lost += p.size;
            if p.in_flight {
                pass.lost_bytes += p.size;
                if p.ack_eliciting {
                    pass.event_time_sent = Some(
                        pass.event_time_sent
                            .map_or(p.time_sent, |t| t.max(p.time_sent)),
                    );
                }
            }
            pc.on_lost(p.time_sent, p.ack_eliciting && p.in_flight);
            lost.push(p);
        }
        sp.sent.trim_front();
        pass.persistent = pass.event_time_sent.is_some() && pc.found();
        pass
    }

    /// RFC 9002 Appendix B.8 `OnPacketsLost` on the detector's side: one
    /// congestion event per pass with ack-eliciting in-flight losses, the
    /// §5.2 min_rtt reset on persistent congestion, and the spurious-loss
    /// memory.
    ///
    /// Called for every ACK frame; most declare nothing lost, and that
    /// test is inlined.
    #[inline]
    pub(super) fn on_loss_pass(
        &mut self,
        now: Time,
        space: Space,
        newly: &[SentPacket<P>],
        pass: LossPass,
        source: EventSource,
        cc: &mut dyn Controller,
    ) {
        if !newly.is_empty() {
            self.on_losses(now, space, newly, pass, source, cc);
        }
    }

    /// [`LossDetector::on_loss_pass`] for a pass that declared losses.
    #[inline(never)]
    fn on_losses(
        &mut self,
        now: Time,
        space: Space,
        newly: &[SentPacket<P>],
        pass: LossPass,
        source: EventSource,
        cc: &mut dyn Controller,
    ) {
        let mut episode = 0;
        if let Some(time_sent) = pass.event_time_sent {
            if pass.persistent {
                self.stats.persistent_congestions += 1;
                if self.config.reset_min_rtt_on_persistent_congestion {
                    // §5.2 SHOULD; done before the controller hears of it so
                    // it sees the re-established minimum.
                    self.rtt.reset_min_to_latest();
                }
            }
            let event = CongestionEvent {
                signal: CongestionSignal::Loss {
                    lost_bytes: pass.lost_bytes,
                },
                time_sent,
                persistent_congestion: pass.persistent,
                source,
            };
            cc.on_congestion_event(now, &event, &self.rtt);
            self.stats.loss_events += 1;
            episode = self.enter_episode(now, time_sent, true, pass.persistent, newly.len() as u64);
        }
        let capacity = self.config.spurious_memory_packets;
        let memory = &mut self.spaces[space.index()].lost;
        for p in newly {
            if let Some(evicted) = memory.push(p.packet_number, p.size, episode, capacity) {
                if let Some(e) = self.episode.as_mut() {
                    if evicted == e.id {
                        e.undoable = false;
                    }
                }
            }
        }
    }

    /// Mirrors the §7.3.2 recovery-period rule to know which loss episode a
    /// congestion event belongs to; returns the episode id.
    pub(super) fn enter_episode(
        &mut self,
        now: Time,
        time_sent: Time,
        is_loss: bool,
        persistent: bool,
        lost_packets: u64,
    ) -> u64 {
        let e = match self.episode.as_mut() {
            Some(e) if time_sent <= e.recovery_start => {
                e.outstanding += lost_packets;
                if !is_loss {
                    e.undoable = false;
                }
                e
            }
            _ => {
                let id = self.next_episode_id;
                self.next_episode_id += 1;
                self.episode.insert(Episode {
                    id,
                    recovery_start: now,
                    outstanding: lost_packets,
                    spurious: 0,
                    undoable: is_loss,
                    fired: false,
                })
            }
        };
        if persistent {
            // The controller collapses to the minimum window and leaves
            // recovery (recovery start reset, Appendix B.8): no undo, and the
            // next event starts a new episode.
            e.undoable = false;
            e.recovery_start = Time::ZERO;
        }
        e.id
    }

    /// Tells the controller once when every loss of the current episode has
    /// been acknowledged.
    pub(super) fn maybe_undo(
        &mut self,
        now: Time,
        cc: &mut dyn Controller,
        out: &mut AckOutcome<P>,
    ) {
        if let Some(e) = self.episode.as_mut() {
            if e.all_spurious() {
                e.fired = true;
                self.stats.spurious_episodes += 1;
                out.spurious_episode = true;
                cc.on_spurious_congestion(now);
            }
        }
    }

    /// `max(kTimeThreshold · max(smoothed_rtt, latest_rtt), kGranularity)`
    /// (§6.1.2), or `None` when the time threshold is off.
    pub fn loss_delay(&self) -> Option<Duration> {
        let (num, den) = self.config.time_threshold()?;
        let d = self.rtt.conservative().saturating_mul(num) / den;
        Some(d.max(GRANULARITY))
    }
}
