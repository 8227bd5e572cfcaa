//! What the server learns from a connection's controller: when every byte
//! in flight has been acknowledged, and the controller's latest counters.
//!
//! quinn has no per-stream "all data acknowledged" notification that h3
//! exposes (h3-quinn keeps the `quinn::SendStream` private), so `ramp serve`
//! detects the last byte acknowledged from the congestion controller's side:
//! after a response's FIN has been written, the transfer is complete at the
//! first ACK frame that leaves no ack-eliciting bytes in flight. Exact for
//! one response at a time on a connection (what `ramp get` and the tests
//! do); when responses on one connection overlap, each gets the time the
//! connection next became idle, an upper bound.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use ramp_cc::{Metrics, RttEstimator};
use tokio::sync::Notify;

use crate::adapter::ShimCounters;

/// The latest state a connection's controller reported.
#[derive(Clone, Debug, Default)]
pub struct ProbeSnapshot {
    /// The controller's counters at the last ACK frame.
    pub metrics: Metrics,
    /// The shim's RTT estimator at the last ACK frame.
    pub rtt: Option<RttEstimator>,
    /// The shim's counters.
    pub counters: ShimCounters,
    /// The last time an ACK frame left nothing in flight.
    pub idle_at: Option<Instant>,
}

/// Shared between one connection's [`crate::adapter::RampController`] and
/// the server task handling that connection.
#[derive(Debug, Default)]
pub struct ConnProbe {
    state: Mutex<ProbeSnapshot>,
    idle: Notify,
}

impl ConnProbe {
    /// A probe with nothing reported yet.
    pub fn new() -> ConnProbe {
        ConnProbe::default()
    }

    /// Called by the controller at the end of each ACK frame.
    pub fn on_ack_frame(
        &self,
        now: Instant,
        in_flight: u64,
        rtt: RttEstimator,
        metrics: Metrics,
        counters: ShimCounters,
    ) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.metrics = metrics;
        s.rtt = Some(rtt);
        s.counters = counters;
        if in_flight == 0 {
            s.idle_at = Some(now);
            drop(s);
            self.idle.notify_waiters();
        }
    }

    /// The latest snapshot.
    pub fn snapshot(&self) -> ProbeSnapshot {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Waits until an ACK frame received after `after` leaves nothing in
    /// flight, and returns its time; `None` after `timeout`.
    pub async fn all_acked_after(&self, after: Instant, timeout: Duration) -> Option<Instant> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.idle.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let idle_at = self.state.lock().unwrap_or_else(|p| p.into_inner()).idle_at;
            if let Some(t) = idle_at {
                if t >= after {
                    return Some(t);
                }
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return None;
            }
        }
    }
}
