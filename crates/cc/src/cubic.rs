//! CUBIC congestion avoidance, RFC 9438, in bytes.
//!
//! This module is only the CUBIC *curve*: window growth in congestion
//! avoidance (§4.2–§4.5), the multiplicative decrease with fast convergence
//! (§4.6–§4.7), the post-HyStart++ epoch (§4.10) and the hand-over from Rapid
//! Start (Rapid Start editor's copy, "Handing Over to CUBIC"). Slow start, recovery periods and persistent
//! congestion live in [`crate::loss_based`], shared with NewReno.
//!
//! Byte form (RFC 9438 §4.2): every `C·(t−K)³` and every α increment is
//! multiplied by `mds`; `K = cbrt((W_max − cwnd_epoch)/(C·mds))` seconds.
//!
//! N-connection emulation (Chromium `cubic_bytes.cc`): `β_N = (N−1+β)/N` and
//! `α_N = 3N²(1−β_N)/(1+β_N)`; N = 1 is plain RFC 9438.

use core::time::Duration;

use crate::controller::CongestionSignal;
use crate::loss_based::spec::{CaPart, CubicOptions, CUBIC_OPTIONS};
use crate::loss_based::{CaContext, CongestionAvoidance};
use crate::ratio::Ratio;
use ramp_vocab::time::Time;

/// RFC 9438 §4.1 / §5.1: `C = 0.4` segments/s³ (SHOULD).
pub const C: f64 = 0.4;
/// RFC 9438 §4.6: `β_cubic = 0.7` (SHOULD).
pub const BETA_CUBIC: Ratio = Ratio::SEVEN_TENTHS;

/// Whether CUBIC uses fast convergence (RFC 9438 §4.7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FastConvergence {
    /// On unless the caller knows the flow is alone on its bottleneck
    /// ([`crate::CcConfig::alone_on_bottleneck`]): §4.7 says SHOULD, and
    /// allows turning it off only for a flow known to be alone.
    #[default]
    Auto,
    /// Always on (`fast_convergence=on`).
    On,
    /// Always off (`fast_convergence=off`).
    Off,
}

impl FastConvergence {
    /// Whether fast convergence applies to a flow that is (or is not)
    /// known to be alone.
    pub fn resolve(self, alone_on_bottleneck: bool) -> bool {
        match self {
            FastConvergence::Auto => !alone_on_bottleneck,
            FastConvergence::On => true,
            FastConvergence::Off => false,
        }
    }
}

/// The CUBIC curve's state.
#[derive(Clone, Debug)]
pub struct Cubic {
    conns: u32,
    fast_convergence: bool,
    beta: Ratio,
    /// Current Reno-friendly additive factor (RFC 9438 §4.3 `α_cubic`).
    alpha: f64,
    /// `W_max`, bytes: the window before the last reduction (§4.6).
    w_max: f64,
    /// `cwnd_prior`, bytes: the window when ssthresh was last set.
    cwnd_prior: f64,
    /// `K`, seconds.
    k: f64,
    /// Start of the current congestion-avoidance epoch (`t_epoch`); `None`
    /// until the first ACK in congestion avoidance (RFC 9438 §4.2, t_epoch).
    t_epoch: Option<Time>,
    /// `W_est`, bytes: the Reno-friendly estimate (§4.3).
    w_est: f64,
    /// Fractions of a byte carried between ACKs so slow growth is not lost
    /// to integer windows.
    carry: f64,
    /// Next epoch starts with `W_max = cwnd`, `K = 0` (§4.8 after a
    /// timeout; also the very first CA with no reduction yet).
    fresh_epoch: bool,
}

impl Cubic {
    /// CUBIC emulating `conns` flows (1 = RFC 9438), optionally with fast
    /// convergence (§4.7).
    pub fn new(conns: u32, fast_convergence: bool) -> Cubic {
        let conns = conns.max(1);
        let beta = beta_for_conns(conns);
        Cubic {
            conns,
            fast_convergence,
            beta,
            alpha: alpha_for_beta(conns, beta),
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            t_epoch: None,
            w_est: 0.0,
            carry: 0.0,
            fresh_epoch: true,
        }
    }

    /// β (β_N with N-connection emulation), exactly.
    pub fn beta(&self) -> Ratio {
        self.beta
    }
    /// The current α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
    /// `W_max`, bytes.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }
    /// `cwnd_prior`, bytes.
    pub fn cwnd_prior(&self) -> f64 {
        self.cwnd_prior
    }
    /// `K`, seconds.
    pub fn k_secs(&self) -> f64 {
        self.k
    }
    /// `W_est`, bytes.
    pub fn w_est(&self) -> f64 {
        self.w_est
    }
    /// Start of the current epoch, if one is running.
    pub fn epoch_start(&self) -> Option<Time> {
        self.t_epoch
    }

    /// `W_cubic(t)` in bytes, `t` seconds into the epoch (§4.2, Figure 1).
    pub fn w_cubic(&self, t_secs: f64, mds: u64) -> f64 {
        let d = t_secs - self.k;
        C * mds as f64 * d * d * d + self.w_max
    }

    /// Multiplicative decrease on a congestion event (§4.6, §4.7). Returns
    /// the new ssthresh (= the new window before any floor), bytes.
    pub fn on_congestion(&mut self, cwnd: u64) -> u64 {
        let w = cwnd as f64;
        // §4.7: a flow losing before it regained its previous maximum
        // releases bandwidth by remembering a lower maximum.
        self.w_max = if self.fast_convergence && w < self.w_max {
            w * (1.0 + self.beta.as_f64()) / 2.0
        } else {
            w
        };
        self.cwnd_prior = w;
        self.t_epoch = None;
        self.fresh_epoch = false;
        self.carry = 0.0;
        self.alpha = alpha_for_beta(self.conns, self.beta);
        self.beta.mul_floor(cwnd)
    }

    /// §4.10: slow start ended without loss (HyStart++). The curve starts
    /// now from the current window: `W_max = cwnd_prior = cwnd`, `K = 0`.
    pub fn on_slow_start_exit_without_loss(&mut self, now: Time, cwnd: u64) {
        self.w_max = cwnd as f64;
        self.cwnd_prior = cwnd as f64;
        self.start_epoch_at(now, cwnd, 0.0);
    }

    /// Rapid Start editor's copy, "Handing Over to CUBIC":
    /// at the end of Rapid Start's recovery `full_bdp ≈ cwnd/β`; with fast
    /// convergence `W_max = 2·full_bdp`, else `W_max = full_bdp`
    /// (our rule, the copy gives none). Never the pre-recovery window,
    /// which may be 3× the BDP.
    pub fn on_rapid_start_handover(&mut self, now: Time, cwnd: u64, beta: Ratio, mds: u64) {
        let full_bdp = if beta.num() == 0 {
            cwnd as f64
        } else {
            cwnd as f64 * beta.den() as f64 / beta.num() as f64
        };
        self.w_max = if self.fast_convergence {
            2.0 * full_bdp
        } else {
            full_bdp
        };
        self.cwnd_prior = self.w_max;
        self.fresh_epoch = false;
        let k = ((self.w_max - cwnd as f64) / (C * mds as f64)).cbrt();
        self.start_epoch_at(now, cwnd, k);
    }

    /// Persistent congestion (RFC 9438 §4.8 treats it like a timeout): the
    /// next congestion-avoidance epoch starts with `K = 0` and
    /// `W_max = cwnd` at that time.
    pub fn on_persistent_congestion(&mut self) {
        self.t_epoch = None;
        self.fresh_epoch = true;
        self.carry = 0.0;
    }

    /// The sender was application-limited: time must not count toward `t`
    /// (§5.8). Like Chromium, end the epoch; the next ACK in congestion
    /// avoidance starts a new one from the current window and `W_max`.
    pub fn on_app_limited(&mut self) {
        self.t_epoch = None;
    }

    fn start_epoch_at(&mut self, now: Time, cwnd: u64, k: f64) {
        self.t_epoch = Some(now);
        self.k = if k.is_finite() { k } else { 0.0 };
        self.w_est = cwnd as f64;
        self.carry = 0.0;
    }

    /// Window growth for `acked` bytes newly acknowledged in congestion
    /// avoidance (§4.2–§4.5). Returns the new window, never below `cwnd`.
    pub fn on_ack(&mut self, now: Time, cwnd: u64, acked: u64, srtt: Duration, mds: u64) -> u64 {
        if cwnd == 0 || acked == 0 {
            return cwnd;
        }
        let w = cwnd as f64;
        let t_epoch = match self.t_epoch {
            Some(t) => t,
            None => {
                // RFC 9438 §4.2, t_epoch: the epoch starts at the first ACK in
                // congestion avoidance (after recovery exit).
                let k = if self.fresh_epoch || self.w_max <= 0.0 {
                    self.w_max = w;
                    self.cwnd_prior = self.cwnd_prior.max(w);
                    self.fresh_epoch = false;
                    0.0
                } else {
                    ((self.w_max - w) / (C * mds as f64)).cbrt()
                };
                self.start_epoch_at(now, cwnd, k);
                now
            }
        };
        let t = (now - t_epoch).as_secs_f64();
        // §4.2: target is W_cubic one RTT ahead, clamped to [cwnd, 1.5·cwnd].
        let target = self.w_cubic(t + srtt.as_secs_f64(), mds).clamp(w, 1.5 * w);
        // §4.3: Reno-friendly estimate.
        self.w_est += self.alpha * mds as f64 * acked as f64 / w;
        if self.conns == 1 && self.w_est >= self.cwnd_prior {
            // §4.3: SHOULD switch to α = 1 once W_est reaches cwnd_prior.
            // With N-connection emulation α_N stays (Chromium).
            self.alpha = 1.0;
        }
        let next = if self.w_cubic(t, mds) < self.w_est {
            // §4.3 Reno-friendly region.
            self.w_est.max(w)
        } else {
            // §4.4 / §4.5 concave and convex regions.
            w + (target - w) * acked as f64 / w
        };
        let next = next + self.carry;
        if !next.is_finite() || next >= u64::MAX as f64 {
            self.carry = 0.0;
            return cwnd;
        }
        let whole = next.floor();
        self.carry = next - whole;
        (whole as u64).max(cwnd)
    }
}

/// CUBIC as the loss-based family's congestion-avoidance algorithm: its
/// β serves the event that ends slow start too.
/// The `cubic` part of the loss-based family; its options are
/// [`CUBIC_OPTIONS`].
pub const CA_PART: CaPart<CubicOptions> = CaPart {
    name: "cubic",
    aliases: &[],
    help: "RFC 9438 CUBIC",
    options: CUBIC_OPTIONS,
    build: |o, cfg| {
        Box::new(Cubic::new(
            o.conns,
            o.fast_convergence.resolve(cfg.alone_on_bottleneck),
        ))
    },
    ecn: None,
    ca_pacing_gain: None,
};

impl CongestionAvoidance for Cubic {
    fn beta(&self) -> Ratio {
        Cubic::beta(self)
    }

    fn grow(&mut self, ctx: &CaContext, acked: u64) -> u64 {
        Cubic::on_ack(self, ctx.now, ctx.cwnd, acked, ctx.srtt, ctx.mds)
    }

    fn reduce(&mut self, ctx: &CaContext, _signal: CongestionSignal, _in_startup: bool) -> u64 {
        Cubic::on_congestion(self, ctx.cwnd)
    }

    fn on_app_limited(&mut self) {
        Cubic::on_app_limited(self);
    }

    fn on_slow_start_exit_without_loss(&mut self, ctx: &CaContext) {
        Cubic::on_slow_start_exit_without_loss(self, ctx.now, ctx.cwnd);
    }

    fn on_rapid_start_handover(&mut self, ctx: &CaContext, beta: Ratio) {
        Cubic::on_rapid_start_handover(self, ctx.now, ctx.cwnd, beta, ctx.mds);
    }

    fn on_safe_retreat(&mut self, ctx: &CaContext, _w: u64) {
        // W_max from the window the congestion was seen at.
        Cubic::on_congestion(self, ctx.cwnd);
    }

    fn on_persistent_congestion(&mut self) {
        Cubic::on_persistent_congestion(self);
    }
}

/// `β_N = (N − 1 + β_cubic)/N`, exactly: `(10N − 3)/(10N)`.
pub fn beta_for_conns(conns: u32) -> Ratio {
    let n = u64::from(conns.max(1));
    Ratio::new(10 * n - 3, 10 * n).unwrap_or(BETA_CUBIC)
}

/// `α_N = 3N²(1 − β_N)/(1 + β_N)`: RFC 9438 §4.3 `α_cubic = 3(1−β)/(1+β)`
/// for N = 1, Chromium's N-connection α otherwise.
pub fn alpha_for_beta(conns: u32, beta: Ratio) -> f64 {
    let n = f64::from(conns.max(1));
    let b = beta.as_f64();
    3.0 * n * n * (1.0 - b) / (1.0 + b)
}
