//! [`RampFactory`]: the quinn [`ControllerFactory`] that builds a
//! [`RampController`] per connection, with the pacing gate, the arrival
//! clock and the probe the server asks for.

use std::sync::Arc;
use std::time::Instant;

use quinn_proto::congestion::{Controller, ControllerFactory};
use ramp_cc::SendRule;

use super::gate::PacingGate;
use super::{BuildController, ConnWake, Gate, RampController};
use crate::arrival::{AckClock, ArrivalLog};
use crate::probe::ConnProbe;

/// A quinn [`ControllerFactory`] that wraps ramp-cc controllers.
pub(crate) struct RampFactory {
    build: Arc<BuildController>,
    probe: Option<Arc<ConnProbe>>,
    wake: Option<Arc<ConnWake>>,
    /// The gate runs quicly's pacer instead of the leaky bucket.
    quicly_pacer: bool,
    /// Which packets the gate's window test lets out.
    send_rule: SendRule,
    arrivals: Option<Arc<ArrivalLog>>,
}

impl RampFactory {
    /// A factory calling `build` for each new connection.
    #[cfg(test)]
    pub(crate) fn new(build: Arc<BuildController>) -> RampFactory {
        RampFactory {
            build,
            probe: None,
            wake: None,
            quicly_pacer: false,
            send_rule: SendRule::default(),
            arrivals: None,
        }
    }

    /// A factory for one connection whose controller reports to `probe`
    /// (the end-of-transfer detection and counters of `ramp serve`).
    pub(crate) fn with_probe(build: Arc<BuildController>, probe: Arc<ConnProbe>) -> RampFactory {
        RampFactory {
            build,
            probe: Some(probe),
            wake: None,
            quicly_pacer: false,
            send_rule: SendRule::default(),
            arrivals: None,
        }
    }

    /// The connection's sends follow the controller's pacing rate once
    /// `wake` is attached to the established connection (until then, and
    /// if it never is, quinn paces). Segmentation offload may stay on: the
    /// gate charges each datagram of a batch ([`gate`]).
    pub(crate) fn paced_by_controller(mut self, wake: Arc<ConnWake>) -> RampFactory {
        self.wake = Some(wake);
        self
    }

    /// With [`RampFactory::paced_by_controller`]: the gate runs the
    /// simulator's model of quicly's pacer ([`quicly_gate`]) instead of the
    /// leaky bucket, as an arm with `pacer=quicly` asks.
    pub(crate) fn with_quicly_pacer(mut self) -> RampFactory {
        self.quicly_pacer = true;
        self
    }

    /// With [`RampFactory::paced_by_controller`]: the gate's window test
    /// lets packets out by `rule` (the arm's `send_rule=`). quinn's own
    /// test (`Connection::poll_transmit`: blocked at `in_flight +
    /// datagram >= window()`) cannot be changed, but the gate answers
    /// `window()` for it while it is active.
    pub(crate) fn with_send_rule(mut self, rule: SendRule) -> RampFactory {
        self.send_rule = rule;
        self
    }

    /// ACK frames are timed by their datagrams' kernel arrival, read from
    /// `log` (the server socket's, [`crate::arrival::wrap`]).
    pub(crate) fn with_arrivals(mut self, log: Arc<ArrivalLog>) -> RampFactory {
        self.arrivals = Some(log);
        self
    }
}

impl ControllerFactory for RampFactory {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        let mut c = RampController::new((self.build)(current_mtu), now, self.probe.clone());
        c.mds = u64::from(current_mtu);
        c.ack_clock = self.arrivals.clone().map(AckClock::new);
        if let Some(wake) = &self.wake {
            let pacer = if self.quicly_pacer {
                PacingGate::quicly(c.mds)
            } else {
                PacingGate::new(c.mds)
            };
            c.gate = Some(Gate {
                pacer: pacer.with_send_rule(self.send_rule),
                wake: wake.clone(),
            });
            c.refresh();
        }
        Box::new(c)
    }
}
