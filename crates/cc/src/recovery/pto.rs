//! The loss-detection timer: loss time or probe timeout, RFC 9002 §6.2 and
//! Appendix A.8 (`GetLossTimeAndSpace`, `GetPtoTimeAndSpace`,
//! `SetLossDetectionTimer`).

use core::time::Duration;

use super::detector::LossDetector;
use super::Space;
use ramp_vocab::time::{duration_nanos, Time};

/// `2^pto_count`, saturating (the backoff of §6.2.1).
fn backoff(pto_count: u32) -> u32 {
    1u32.checked_shl(pto_count).unwrap_or(u32::MAX)
}

impl<P> LossDetector<P> {
    /// When [`LossDetector::on_timeout`] is next due: the earliest loss time
    /// if one is set (§6.1.2), else the PTO (§6.2.1), else `None`.
    ///
    /// The PTO is `time_of_last_ack_eliciting_packet + (smoothed_rtt +
    /// max(4·rttvar, kGranularity) + max_ack_delay) · 2^pto_count`, the
    /// earliest over spaces with ack-eliciting packets in flight, with
    /// `max_ack_delay = 0` for Initial and Handshake, and no Application
    /// Data PTO before the handshake is confirmed. With nothing
    /// ack-eliciting in flight there is no PTO: the client anti-deadlock PTO
    /// (§6.2.2.1) is not modelled, since ramp's detector is a server's.
    /// While [`LossDetector::set_amplification_blocked`] is on, only the PTO
    /// is suppressed: Appendix A.8 `SetLossDetectionTimer` arms the loss
    /// time first and checks the anti-amplification limit after it.
    ///
    /// The result may lie before `now` when the caller was late; fire it at
    /// once.
    pub fn timer(&self) -> Option<Time> {
        if let Some((t, _)) = self.earliest_loss_time() {
            return Some(t);
        }
        if self.amplification_blocked {
            return None;
        }
        self.pto_time_and_space().map(|(t, _)| t)
    }

    /// The earliest loss time over spaces, and its space
    /// (`GetLossTimeAndSpace`).
    pub fn earliest_loss_time(&self) -> Option<(Time, Space)> {
        let mut best: Option<(Time, Space)> = None;
        for space in Space::ALL {
            if let Some(t) = self.spaces[space.index()].loss_time {
                if best.is_none_or(|(b, _)| t < b) {
                    best = Some((t, space));
                }
            }
        }
        best
    }

    /// The loss time of one space.
    pub fn loss_time(&self, space: Space) -> Option<Time> {
        self.spaces[space.index()].loss_time
    }

    /// The backed-off probe timeout period of `space` (§6.2.1), whether or
    /// not a PTO is armed there.
    pub fn pto_period(&self, space: Space) -> Duration {
        let max_ack_delay = match space {
            Space::Application => self.config.max_ack_delay,
            Space::Initial | Space::Handshake => Duration::ZERO,
        };
        self.rtt
            .pto_base(max_ack_delay)
            .saturating_mul(backoff(self.pto_count))
    }

    /// The PTO deadline and the space to probe (`GetPtoTimeAndSpace`), or
    /// `None` when no PTO is armed.
    pub fn pto_time_and_space(&self) -> Option<(Time, Space)> {
        let mut best: Option<(Time, Space)> = None;
        // In nanoseconds, saturating: `Duration`'s saturating arithmetic
        // and `Time::saturating_add`'s conversion give the same instant.
        let backoff = u64::from(backoff(self.pto_count));
        let base = self.rtt.pto_base_nanos(0);
        for space in Space::ALL {
            let sp = &self.spaces[space.index()];
            if sp.sent.ack_eliciting_in_flight() == 0 {
                continue;
            }
            if space == Space::Application && !self.handshake_confirmed {
                // §6.2.1: the Application Data PTO waits for confirmation.
                break;
            }
            let Some(last) = sp.time_of_last_ack_eliciting else {
                continue;
            };
            let period = match space {
                Space::Application => {
                    base.saturating_add(duration_nanos(self.config.max_ack_delay))
                }
                Space::Initial | Space::Handshake => base,
            };
            let t = Time::from_nanos(
                last.as_nanos()
                    .saturating_add(period.saturating_mul(backoff)),
            );
            if best.is_none_or(|(b, _)| t < b) {
                best = Some((t, space));
            }
        }
        best
    }
}
