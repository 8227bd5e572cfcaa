//! Persistent congestion, RFC 9002 §7.6.
//!
//! Checked over the packets declared lost in one detection pass, as RFC 9002
//! Appendix A.10 (`OnPacketsLost`) and quinn do. Two ack-eliciting lost
//! packets establish it when their send times are more than the duration
//! apart, both were sent after the first RTT sample, and no packet sent
//! between them was acknowledged. Within the space, acknowledgement is seen
//! exactly (the scan meets an `Acked` tombstone between them); across
//! spaces the check is conservative: a packet of another space acknowledged
//! and sent after the run's first packet breaks the run.

use core::time::Duration;

use crate::rtt::RttEstimator;
use ramp_vocab::time::Time;

/// `(smoothed_rtt + max(4·rttvar, kGranularity) + max_ack_delay) ×
/// kPersistentCongestionThreshold` (§7.6.1); `max_ack_delay` is included
/// whatever the space.
pub fn persistent_congestion_duration(
    rtt: &RttEstimator,
    max_ack_delay: Duration,
    threshold: u32,
) -> Duration {
    rtt.pto_base(max_ack_delay).saturating_mul(threshold)
}

/// The persistent-congestion check, fed the lost packets and acknowledged
/// tombstones of one loss scan in packet-number (= send-time) order.
#[derive(Debug)]
pub(crate) struct PersistentScan {
    /// `None` when the check is off or no RTT sample exists yet.
    duration: Option<Duration>,
    first_rtt_sample: Time,
    /// Largest send time of a packet acknowledged in another space.
    other_space_acked: Option<Time>,
    run_start: Option<Time>,
    found: bool,
}

impl PersistentScan {
    pub(crate) fn new(
        duration: Option<Duration>,
        first_rtt_sample: Option<Time>,
        other_space_acked: Option<Time>,
    ) -> Self {
        PersistentScan {
            duration: first_rtt_sample.and(duration),
            first_rtt_sample: first_rtt_sample.unwrap_or(Time::MAX),
            other_space_acked,
            run_start: None,
            found: false,
        }
    }

    /// A packet between two lost ones was acknowledged: the run restarts.
    pub(crate) fn on_acked_between(&mut self) {
        self.run_start = None;
    }

    /// A packet declared lost in this pass.
    pub(crate) fn on_lost(&mut self, time_sent: Time, ack_eliciting: bool) {
        let Some(duration) = self.duration else {
            return;
        };
        // §7.6.2: only ack-eliciting packets sent after the first RTT sample
        // count. Other lost packets are not acknowledged, so they do not
        // break a run either.
        if !ack_eliciting || time_sent <= self.first_rtt_sample {
            return;
        }
        match self.run_start {
            None => self.run_start = Some(time_sent),
            Some(start) => {
                if self.other_space_acked.is_some_and(|t| t > start) {
                    self.run_start = Some(time_sent);
                } else if time_sent.saturating_since(start) > duration {
                    self.found = true;
                }
            }
        }
    }

    pub(crate) fn found(&self) -> bool {
        self.found
    }
}
