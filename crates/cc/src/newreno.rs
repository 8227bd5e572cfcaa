//! NewReno congestion avoidance, RFC 9002 §7.3.3.
//!
//! The rest of RFC 9002 §7 (slow start, recovery periods, the minimum
//! window, persistent congestion, app-limited) is shared by every
//! loss-based controller and lives in [`crate::loss_based`].

use crate::controller::CongestionSignal;
use crate::loss_based::spec::{CaPart, NewRenoOptions, NEWRENO_OPTIONS};
use crate::loss_based::{CaContext, CongestionAvoidance};
use crate::ratio::Ratio;

/// RFC 9002 §7.3.2 `kLossReductionFactor`.
pub(crate) const LOSS_REDUCTION_FACTOR: Ratio = Ratio::HALF;

/// RFC 9002 §7.3.3 additive increase: `cwnd += mds·acked/cwnd` per ACK,
/// i.e. one `mds` per window of acknowledged bytes. Computed with an exact
/// byte counter (RFC 3465 style) so that no fraction is lost to integer
/// windows.
///
/// With [`RenoGrowth::pico`] the bytes per `mds` of growth are instead
/// fixed at each congestion event, as quicly's `pico` does (h2o/quicly
/// 45bf8a37, lib/cc-pico.c `calc_bytes_per_mtu_increase`): the smaller of
/// Reno's `β·W` and CUBIC's amortised period `1.447/0.3 · cbrt(0.75·W/mds)
/// · 1000 / srtt_ms · mds`, where `W` is the window the event saw
/// ([`RenoGrowth::on_congestion`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenoGrowth {
    acked: u64,
    /// `pico`: grow one `mds` per this many bytes (set at a congestion
    /// event); `None`: per window, RFC 9002.
    per_mds: Option<u64>,
    pico: bool,
}

impl RenoGrowth {
    /// quicly's `pico` growth (see the type's docs).
    pub fn pico() -> RenoGrowth {
        RenoGrowth {
            pico: true,
            ..RenoGrowth::default()
        }
    }

    /// Grows `cwnd` for `acked` newly acknowledged bytes; returns the new
    /// window.
    pub fn on_ack(&mut self, cwnd: u64, acked: u64, mds: u64) -> u64 {
        let step = self.per_mds.unwrap_or(cwnd);
        if step == 0 {
            return cwnd;
        }
        self.acked = self.acked.saturating_add(acked);
        if self.acked < step {
            return cwnd;
        }
        let steps = self.acked / step;
        self.acked -= steps * step;
        cwnd.saturating_add(steps.saturating_mul(mds))
    }

    /// Forget the partial window (after a reduction).
    pub fn reset(&mut self) {
        self.acked = 0;
    }

    /// A congestion event that saw window `w`: forget the partial window
    /// and, for `pico`, fix the bytes per `mds` of growth from `w`, the
    /// smoothed RTT and `beta` (quicly's `QUICLY_RENO_BETA`).
    pub fn on_congestion(&mut self, w: u64, srtt: core::time::Duration, mds: u64, beta: Ratio) {
        self.acked = 0;
        if !self.pico {
            return;
        }
        let reno = beta.mul_floor(w);
        // quicly's RTT is whole milliseconds, at least 1.
        let rtt_ms = (srtt.as_millis() as f64).max(1.0);
        let mds_f = mds as f64;
        let cubic = 1.447 / 0.3 * 1000.0 * (0.3 / 0.4 * w as f64 / mds_f).cbrt() / rtt_ms * mds_f;
        // Saturating float-to-int conversion (`as` clamps, NaN becomes 0).
        let cubic = cubic as u64;
        self.per_mds = Some(reno.min(cubic).max(1));
    }
}

/// NewReno as the loss-based family's congestion-avoidance algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reno {
    /// Multiplicative-decrease factor (RFC 9002 §7.3.2).
    beta: Ratio,
    /// The decrease for the loss that ends the initial slow start.
    ss_beta: Ratio,
    /// Additive-increase byte counter.
    growth: RenoGrowth,
}

impl Reno {
    /// NewReno with decrease `beta`, `ss_beta` for the event that ends the
    /// initial slow start, and the given growth.
    pub fn new(beta: Ratio, ss_beta: Ratio, growth: RenoGrowth) -> Reno {
        Reno {
            beta,
            ss_beta,
            growth,
        }
    }
}

/// The `newreno` part of the loss-based family (alias `reno`), the
/// family's default; its options are [`NEWRENO_OPTIONS`].
pub const CA_PART: CaPart<NewRenoOptions> = CaPart {
    name: "newreno",
    aliases: &["reno"],
    help: "RFC 9002 NewReno, the default",
    options: NEWRENO_OPTIONS,
    build: |o, _| {
        let growth = if o.pico {
            RenoGrowth::pico()
        } else {
            RenoGrowth::default()
        };
        Box::new(Reno::new(o.beta, o.ss_beta.unwrap_or(o.beta), growth))
    },
    ecn: None,
    ca_pacing_gain: None,
};

impl CongestionAvoidance for Reno {
    fn beta(&self) -> Ratio {
        self.beta
    }

    fn slow_start_exit_beta(&self) -> Ratio {
        self.ss_beta
    }

    fn grow(&mut self, ctx: &CaContext, acked: u64) -> u64 {
        self.growth.on_ack(ctx.cwnd, acked, ctx.mds)
    }

    fn reduce(&mut self, ctx: &CaContext, _signal: CongestionSignal, in_startup: bool) -> u64 {
        self.growth
            .on_congestion(ctx.cwnd, ctx.srtt, ctx.mds, self.beta);
        if in_startup { self.ss_beta } else { self.beta }.mul_floor(ctx.cwnd)
    }

    fn on_rapid_start_reduction(&mut self, ctx: &CaContext, w: u64) {
        self.growth.on_congestion(w, ctx.srtt, ctx.mds, self.beta);
    }

    fn on_rapid_start_handover(&mut self, _ctx: &CaContext, _beta: Ratio) {
        self.growth.reset();
    }

    fn on_safe_retreat(&mut self, ctx: &CaContext, w: u64) {
        self.growth.on_congestion(w, ctx.srtt, ctx.mds, self.beta);
    }

    fn on_persistent_congestion(&mut self) {
        self.growth.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quicly_pico_calc_bytes_per_mtu_increase_is_the_smaller_of_reno_and_cubic() {
        // W = 1000 packets of 1200 B at 50 ms: Reno 0.7·W = 700 packets;
        // CUBIC 1.447/0.3 · cbrt(750) · 1000/50 ≈ 877 packets: Reno's.
        let beta = Ratio::new(7, 10).unwrap_or(Ratio::HALF);
        let mut g = RenoGrowth::pico();
        g.on_congestion(1_200_000, core::time::Duration::from_millis(50), 1200, beta);
        assert_eq!(g.per_mds, Some(840_000));
        // At 500 ms CUBIC's period is ten times shorter (≈ 88 packets).
        g.on_congestion(
            1_200_000,
            core::time::Duration::from_millis(500),
            1200,
            beta,
        );
        let c = g.per_mds.unwrap_or(0);
        assert!((105_000..106_000).contains(&c), "{c}");
        // Growth: one datagram per that many bytes acknowledged.
        let cwnd = g.on_ack(600_000, c, 1200);
        assert_eq!(cwnd, 601_200);
        // Reno's RFC 9002 growth ignores the event's window.
        let mut r = RenoGrowth::default();
        r.on_congestion(1_200_000, core::time::Duration::from_millis(50), 1200, beta);
        assert_eq!(r.on_ack(12_000, 12_000, 1200), 13_200);
    }

    #[test]
    fn rfc9002_7_3_3_one_datagram_per_window_acked() {
        let mut g = RenoGrowth::default();
        let mut cwnd = 12_000;
        for _ in 0..9 {
            cwnd = g.on_ack(cwnd, 1200, 1200);
        }
        assert_eq!(cwnd, 12_000);
        cwnd = g.on_ack(cwnd, 1200, 1200);
        assert_eq!(cwnd, 13_200);
    }
}
