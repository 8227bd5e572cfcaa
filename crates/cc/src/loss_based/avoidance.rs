//! The congestion-avoidance part of a loss-based controller, behind a
//! trait, as smoltcp's `socket::tcp::congestion` puts its algorithms.
//!
//! [`crate::loss_based::LossBased`] owns RFC 9002 §7's skeleton (slow
//! start, recovery periods, the minimum window, persistent congestion,
//! the startups); an algorithm ([`crate::newreno::Reno`],
//! [`crate::cubic::Cubic`], [`crate::prague::Prague`]) answers the
//! questions that differ between them: β, growth per ACK frame and the
//! reduction on a congestion event. Everything else has a default that
//! does nothing, so an algorithm writes only the hooks it needs.
//!
//! Adding an algorithm: its own file implementing [`CongestionAvoidance`],
//! one parse arm and one help row in `loss_based/spec`, and a paragraph
//! in docs/algorithms.md ("Adding a congestion-avoidance algorithm"). The
//! skeleton names no algorithm.

use core::any::Any;
use core::fmt;
use core::time::Duration;

use crate::controller::CongestionSignal;
use crate::ratio::Ratio;
use ramp_vocab::time::Time;

/// What the skeleton knows when it calls the algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaContext {
    /// The time of the call.
    pub now: Time,
    /// The congestion window the call concerns, bytes.
    pub cwnd: u64,
    /// The smoothed RTT (RFC 9002 §5.3).
    pub srtt: Duration,
    /// The maximum datagram size, bytes.
    pub mds: u64,
}

/// A congestion-avoidance algorithm of the loss-based family.
///
/// The skeleton calls these in RFC 9002 Appendix A order (a frame's
/// congestion events, then its acknowledgements, then its end). Only
/// [`CongestionAvoidance::beta`], [`CongestionAvoidance::grow`] and
/// [`CongestionAvoidance::reduce`] are required.
pub trait CongestionAvoidance: fmt::Debug + Send + Sync + CaBox {
    /// β, the multiplicative decrease of a congestion event in congestion
    /// avoidance (RFC 9002 §7.3.2 `kLossReductionFactor` for NewReno).
    /// Rapid Start and Careful Resume scale by it as well.
    fn beta(&self) -> Ratio;

    /// β for the congestion event that ends the initial slow start.
    fn slow_start_exit_beta(&self) -> Ratio {
        self.beta()
    }

    /// The window after `acked` bytes eligible for growth were
    /// acknowledged in one ACK frame in congestion avoidance (never
    /// called with 0).
    fn grow(&mut self, ctx: &CaContext, acked: u64) -> u64;

    /// A congestion event starts a recovery period at window `ctx.cwnd`:
    /// returns the new ssthresh (the skeleton floors it at the minimum
    /// window and sets cwnd to it). `in_startup`: the event ends the
    /// initial slow start.
    fn reduce(&mut self, ctx: &CaContext, signal: CongestionSignal, in_startup: bool) -> u64;

    /// The bytes of a packet sent at `time_sent` were acknowledged, in a
    /// recovery period or not. Called only if
    /// [`CongestionAvoidance::observes_acked_bytes`] says so.
    fn on_bytes_acked(&mut self, _ctx: &CaContext, _time_sent: Time, _bytes: u64) {}

    /// Whether [`CongestionAvoidance::on_bytes_acked`] is to be called: an
    /// algorithm that implements it returns `true`. The skeleton asks once,
    /// when it is built, and otherwise saves a call per acknowledged packet
    /// (a test checks that every registered algorithm whose
    /// `on_bytes_acked` changes its state says so).
    fn observes_acked_bytes(&self) -> bool {
        false
    }

    /// `ce_bytes` were newly reported ECN-CE, in a recovery period or not.
    fn on_ce_bytes(&mut self, _ce_bytes: u64) {}

    /// Whether a congestion event must not start a recovery period yet
    /// (a limit on reductions beyond RFC 9002's one per period).
    fn holds_reduction(&self, _ctx: &CaContext, _signal: CongestionSignal) -> bool {
        false
    }

    /// Whether the window keeps growing through a recovery period a CE
    /// mark started, until a loss joins it (Linux's TCP_CA_CWR), and the
    /// window reached then stands when the period ends. `false`: RFC 9002
    /// §7.3.2, no growth in recovery.
    fn grows_in_ce_recovery(&self) -> bool {
        false
    }

    /// The longest burst the pacer may send, as time at the pacing rate;
    /// `None`: the pacer's own.
    fn pacing_burst(&self) -> Option<Duration> {
        None
    }

    /// The sender was application-limited in congestion avoidance.
    fn on_app_limited(&mut self) {}

    /// HyStart++ ended the initial slow start without a congestion event
    /// at window `ctx.cwnd` (RFC 9406 §4.2).
    fn on_slow_start_exit_without_loss(&mut self, _ctx: &CaContext) {}

    /// Rapid Start's first recovery began at window `ctx.cwnd`; `w` is
    /// the window quicly's pico sizes its growth from.
    fn on_rapid_start_reduction(&mut self, _ctx: &CaContext, _w: u64) {}

    /// Rapid Start's first recovery ended at window `ctx.cwnd`, reduced by
    /// `beta`: congestion avoidance takes over from here.
    fn on_rapid_start_handover(&mut self, _ctx: &CaContext, _beta: Ratio) {}

    /// Careful Resume's Safe Retreat (RFC 9959) from window `ctx.cwnd`;
    /// `w` is the window quicly's pico sizes its growth from.
    fn on_safe_retreat(&mut self, _ctx: &CaContext, _w: u64) {}

    /// RFC 9002 §7.6.2 persistent congestion collapsed the window.
    fn on_persistent_congestion(&mut self) {}
}

/// Cloning and downcasting a boxed [`CongestionAvoidance`]; implemented
/// for every `Clone` algorithm, so an algorithm never writes it.
pub trait CaBox {
    /// A boxed copy (undo keeps one; a controller is cloned whole).
    fn clone_box(&self) -> Box<dyn CongestionAvoidance>;
    /// The algorithm as [`Any`], for [`crate::loss_based::LossBased::ca_as`].
    fn as_any(&self) -> &dyn Any;
}

impl<T: CongestionAvoidance + Clone + 'static> CaBox for T {
    fn clone_box(&self) -> Box<dyn CongestionAvoidance> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Clone for Box<dyn CongestionAvoidance> {
    fn clone(&self) -> Self {
        (**self).clone_box()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::CcConfig;
    use crate::loss_based::spec::CA_PARTS;

    /// The skeleton calls `on_bytes_acked` only for an algorithm that says
    /// it observes acknowledged bytes: one that reacts to them without
    /// saying so would silently lose them.
    #[test]
    fn every_algorithm_reacting_to_acked_bytes_says_so() {
        let cfg = CcConfig::default();
        let ctx = CaContext {
            now: Time::from_millis(200),
            cwnd: 100_000,
            srtt: Duration::from_millis(30),
            mds: 1_200,
        };
        for part in CA_PARTS {
            let mut ca = part.default_spec().build(&cfg);
            let before = format!("{ca:?}");
            for i in 0..200 {
                ca.on_bytes_acked(
                    &CaContext {
                        now: ctx.now + Duration::from_millis(i),
                        ..ctx
                    },
                    Time::from_millis(i),
                    1_200,
                );
            }
            let changed = format!("{ca:?}") != before;
            assert!(
                !changed || ca.observes_acked_bytes(),
                "{}: on_bytes_acked changes its state but observes_acked_bytes() is false",
                part.name()
            );
        }
    }
}
