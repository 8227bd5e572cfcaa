//! What the server learns from a connection's controller: its latest
//! counters, RTT estimator and the last time nothing was in flight, as of
//! the end of the latest ACK frame.

use std::sync::Mutex;
use std::time::Instant;

use ramp_cc::{Metrics, RttEstimator};

use crate::adapter::ShimCounters;

/// The latest state a connection's controller reported.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProbeSnapshot {
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
pub(crate) struct ConnProbe {
    state: Mutex<ProbeSnapshot>,
}

impl ConnProbe {
    /// A probe with nothing reported yet.
    pub(crate) fn new() -> ConnProbe {
        ConnProbe::default()
    }

    /// Called by the controller at the end of each ACK frame.
    pub(crate) fn on_ack_frame(
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
        }
    }

    /// The latest snapshot.
    pub(crate) fn snapshot(&self) -> ProbeSnapshot {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}
