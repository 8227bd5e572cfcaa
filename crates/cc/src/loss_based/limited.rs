//! Which acknowledgements may grow the window: the rule that tells a
//! congestion-limited sender from an application-limited one.
//!
//! - [`CcLimitedRule::Rfc9002`] (the default): RFC 9002 §7.8. The sender
//!   reports, with each ACK frame, whether it was application-limited (it
//!   had nothing to send and the window was not full); an app-limited
//!   frame grows nothing.
//! - [`CcLimitedRule::Quicly`]: the rule of h2o/quicly at 45bf8a37
//!   (lib/quicly.c: `commit_send_packet` marks each packet, and
//!   `handle_ack_frame` decides per ACK frame). A frame may grow the window
//!   when either the bytes in flight at its arrival were at least half the
//!   window, or one of the packets it newly acknowledges was sent with
//!   bytes in flight (itself included) at least half the window. quicly's
//!   comment gives RFC 7661's half-window test as the reason; its effect
//!   is that a sender whose data has run out keeps growing on the ACKs of
//!   its last flight until in flight falls below half the window, where
//!   RFC 9002 stops growing as soon as the window is no longer full.
//! - [`CcLimitedRule::Always`]: the same code for a connection that does
//!   not respect the app-limited state: `handle_ack_frame` starts each
//!   frame with `cc_limited = num_respected_app_limited == 0 || …`, so
//!   every ACK frame may grow the window. quicly draws the respect per
//!   connection from `enable_ratio.respect_app_limited` (255 of 255 in
//!   lib/defaults.c; 0 with its cli's `--disregard-app-limited`); the one
//!   production record the Rapid Start slides show has
//!   `"num-respected-app-limited":0`.

use std::collections::VecDeque;

use ramp_vocab::time::Time;

use crate::controller::EventSource;

/// The rule for which ACK frames may grow the window (`cc_limited=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CcLimitedRule {
    /// RFC 9002 §7.8: no growth on a frame the sender reports
    /// application-limited.
    #[default]
    Rfc9002,
    /// h2o/quicly 45bf8a37: growth while in flight ≥ cwnd/2, at send or at
    /// the ACK's arrival (module docs).
    Quicly,
    /// h2o/quicly 45bf8a37 for a connection that does not respect the
    /// app-limited state: every ACK frame may grow the window (module
    /// docs).
    Always,
}

impl CcLimitedRule {
    /// The spellings of `cc_limited=`.
    pub const CHOICES: [(&'static str, CcLimitedRule); 3] = [
        ("rfc", CcLimitedRule::Rfc9002),
        ("quicly", CcLimitedRule::Quicly),
        ("always", CcLimitedRule::Always),
    ];
}

/// How many changes of the per-packet mark are remembered. A packet sent
/// before the oldest remembered change reads as that change's mark. A bulk
/// transfer changes the mark a few times per object; this bounds a
/// connection that alternates for ever (an assumption: 64 changes hold
/// many round trips of any flight the simulator sends).
const MAX_MARK_CHANGES: usize = 64;

/// quicly's CC-limited bookkeeping for one connection.
#[derive(Clone, Debug, Default)]
pub(super) struct QuiclyCcLimited {
    /// `(first packet number, mark)` for each run of packets with the same
    /// mark, oldest first: the mark is whether the packet left with bytes
    /// in flight ≥ cwnd/2.
    marks: VecDeque<(u64, bool)>,
    /// The current frame has had its first acknowledgement.
    frame_open: bool,
    /// The current frame may grow the window.
    frame_limited: bool,
    /// The last ACK frame loss event's time and bytes: a frame's loss
    /// reported at the same instant as the frame's first acknowledgement
    /// belongs to the frame (ramp reports a frame's losses before its
    /// acknowledgements, quicly counts the frame's in-flight before its
    /// loss detection). The loss-detection timer's losses are never
    /// recorded here ([`QuiclyCcLimited::on_lost`]).
    last_loss: Option<(Time, u64)>,
    /// The connection does not respect the app-limited state
    /// ([`CcLimitedRule::Always`]): every frame may grow the window.
    disregard_app_limited: bool,
}

/// Half the window, as quicly's integer `cwnd / 2`.
fn half(cwnd: u64) -> u64 {
    cwnd / 2
}

impl QuiclyCcLimited {
    /// The bookkeeping of a connection that does not respect the
    /// app-limited state (quicly's `num_respected_app_limited == 0`).
    pub(super) fn disregarding_app_limited() -> QuiclyCcLimited {
        QuiclyCcLimited {
            disregard_app_limited: true,
            ..QuiclyCcLimited::default()
        }
    }

    /// A packet `pn` left with `in_flight` bytes in flight (itself
    /// included) and window `cwnd`.
    pub(super) fn on_sent(&mut self, pn: u64, in_flight: u64, cwnd: u64) {
        let mark = in_flight >= half(cwnd);
        if self.marks.back().map(|m| m.1) != Some(mark) {
            if self.marks.len() == MAX_MARK_CHANGES {
                self.marks.pop_front();
            }
            self.marks.push_back((pn, mark));
        }
    }

    /// Losses of `bytes` reported at `now`, found by `source`. Only an ACK
    /// frame's losses belong to a frame: quicly's loss-detection timer
    /// (`do_send` → `quicly_loss_on_alarm` → `on_loss_detected`) takes its
    /// packets out of `bytes_in_flight` before the next `handle_ack_frame`
    /// reads it, so a frame at the timer's instant does not count them.
    pub(super) fn on_lost(&mut self, now: Time, bytes: u64, source: EventSource) {
        if source == EventSource::LossTimer {
            return;
        }
        self.last_loss = match self.last_loss {
            Some((t, b)) if t == now => Some((t, b.saturating_add(bytes))),
            _ => Some((now, bytes)),
        };
    }

    /// A packet was acknowledged at `now`; `in_flight` is the controller's
    /// bytes in flight before this acknowledgement is taken out.
    pub(super) fn on_acked(
        &mut self,
        now: Time,
        pn: Option<u64>,
        in_flight: u64,
        cwnd: u64,
    ) -> bool {
        if !self.frame_open {
            self.frame_open = true;
            let lost_here = match self.last_loss {
                Some((t, b)) if t == now => b,
                _ => 0,
            };
            // lib/quicly.c handle_ack_frame: `num_respected_app_limited
            // == 0 || bytes_in_flight >= cwnd / 2`.
            self.frame_limited =
                self.disregard_app_limited || in_flight.saturating_add(lost_here) >= half(cwnd);
        }
        if !self.frame_limited {
            self.frame_limited = pn.is_some_and(|pn| self.mark_of(pn));
        }
        self.frame_limited
    }

    /// The frame ended: whether it may grow the window.
    pub(super) fn end_frame(&mut self) -> bool {
        let limited = self.frame_open && self.frame_limited;
        self.frame_open = false;
        self.frame_limited = false;
        self.last_loss = None;
        limited
    }

    /// The mark of packet `pn`.
    fn mark_of(&self, pn: u64) -> bool {
        let i = self.marks.partition_point(|m| m.0 <= pn);
        match i.checked_sub(1) {
            Some(i) => self.marks[i].1,
            None => self.marks.front().is_some_and(|m| m.1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_follow_half_the_window_at_send() {
        let mut q = QuiclyCcLimited::default();
        q.on_sent(0, 1_200, 12_000);
        q.on_sent(1, 6_000, 12_000);
        q.on_sent(2, 5_999, 12_000);
        assert_eq!(
            (q.mark_of(0), q.mark_of(1), q.mark_of(2), q.mark_of(9)),
            (false, true, false, false)
        );
    }

    #[test]
    fn a_loss_at_the_frames_instant_counts_in_its_arrival_in_flight() {
        let mut q = QuiclyCcLimited::default();
        q.on_sent(0, 1_200, 12_000);
        let t = Time::from_millis(5);
        q.on_lost(t, 4_800, EventSource::AckFrame);
        assert!(q.on_acked(t, Some(0), 1_200, 12_000));
        assert!(q.end_frame());
        // The next frame does not inherit the loss.
        assert!(!q.on_acked(Time::from_millis(6), Some(0), 1_200, 12_000));
        assert!(!q.end_frame());
    }

    #[test]
    fn a_loss_timers_losses_at_the_frames_instant_are_not_the_frames() {
        let mut q = QuiclyCcLimited::default();
        q.on_sent(0, 1_200, 12_000);
        let t = Time::from_millis(5);
        q.on_lost(t, 4_800, EventSource::LossTimer);
        assert!(!q.on_acked(t, Some(0), 1_200, 12_000));
        assert!(!q.end_frame());
    }

    #[test]
    fn remembered_mark_changes_are_bounded() {
        let mut q = QuiclyCcLimited::default();
        for pn in 0..1_000 {
            q.on_sent(pn, if pn % 2 == 0 { 0 } else { 10_000 }, 12_000);
        }
        assert_eq!(q.marks.len(), MAX_MARK_CHANGES);
        assert!(q.mark_of(999));
    }
}
