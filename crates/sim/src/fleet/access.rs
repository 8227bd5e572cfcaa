//! What an access network does to a path (population model v2,
//! docs/experiments.md "Population model"): the queue discipline and
//! buffer of its bottleneck, its random loss and ACK batching, by access
//! type.
//!
//! Real access networks end a slow-start overshoot in one of two ways: an
//! AQM drops or marks a few packets (DOCSIS-PIE is mandatory in DOCSIS 3.1
//! cable modems, RFC 8034; fq_codel is the default qdisc of Linux, OpenWrt
//! and the Wi-Fi stack), or a deep buffer absorbs it (mobile networks,
//! Jiang et al., "Tackling Bufferbloat in 3G/4G Networks", IMC 2012). A
//! short drop-tail buffer, which ends it in a burst of tail drops, is the
//! exception. [`PathModel`] holds the shares that decide which, four of
//! them free parameters fitted to the published loss table
//! (`bench/calibrate/fit.py`), the rest labelled assumptions.

use core::time::Duration;

use crate::link::{Aqm, LossModel};
use ramp_vocab::rng::Rng;

/// The access type of a sampled path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Fixed access (cable, DSL, fibre) reached over Ethernet.
    Wired,
    /// A Wi-Fi hop on top of a fixed access.
    Wifi,
    /// LTE / 5G.
    Mobile,
}

impl Access {
    /// The record value (`access` key).
    pub fn name(self) -> &'static str {
        match self {
            Access::Wired => "wired",
            Access::Wifi => "wifi",
            Access::Mobile => "mobile",
        }
    }

    /// Slowness score before standardisation: mobile slow, wired fast.
    pub(super) fn slowness(self) -> f64 {
        match self {
            Access::Wired => -1.0,
            Access::Wifi => 0.0,
            Access::Mobile => 1.0,
        }
    }
}

/// The shares and ranges that turn an access type into a bottleneck.
/// Fields marked *fitted* are the calibration's free parameters; the rest
/// are assumptions or published ranges, as each says.
#[derive(Clone, Debug, PartialEq)]
pub struct PathModel {
    /// Share of fixed accesses (wired and behind Wi-Fi) whose
    /// bottleneck runs an AQM; the rest are legacy drop-tail. [assumption:
    /// 0.7; over 0.5–0.9 it moved the baseline's P99 by under 0.2 point]
    pub fixed_aqm_share: f64,
    /// *Fitted.* Of the AQM'd fixed accesses, the share that are DOCSIS
    /// 3.1 cable modems running DOCSIS-PIE (RFC 8034); the rest run
    /// FQ-CoDel (RFC 8290) in the home router or the ISP's CPE. The fit
    /// puts it at 0: see docs/experiments.md, "Calibration".
    pub docsis_share: f64,
    /// Of the AQM'd fixed accesses, the share whose bottleneck runs L4S:
    /// Low Latency DOCSIS, modelled as DualPI2 with the DOCSIS immediate
    /// AQM's ramp (`docsis_lld`, docs/l4s.md). Taken from the share
    /// [`PathModel::docsis_share`] leaves, before FQ-CoDel's. [assumption:
    /// 0 in the fitted model; the `l4s-2026` preset sets it]
    pub l4s_share: f64,
    /// Share of Wi-Fi hops that are the bottleneck and run FQ-CoDel
    /// (Linux mac80211's per-station queues, since Linux 4.x; OpenWrt).
    /// [assumption: 0.3]
    pub wifi_fq_codel_share: f64,
    /// *Fitted.* Largest random loss of a Wi-Fi hop: log-uniform from 0.01 %
    /// to this (retransmissions hide most radio loss; what is left reaches
    /// the transport).
    pub wifi_loss_max: f64,
    /// *Fitted.* Largest mean random loss of a mobile path: uniform from 0
    /// to this, bursty (Gilbert–Elliott, bad state 4 packets, half lost).
    pub mobile_loss_max: f64,
    /// *Fitted.* Multiplies each region's policed share (1–5 %). Flach et
    /// al. (SIGCOMM 2016) found up to 7 % of *lossy* transfers policed,
    /// fewer of all transfers.
    pub policed_scale: f64,
    /// Share of paths with other users browsing on the same bottleneck
    /// (on/off web traffic after the 3GPP HTTP model, `crate::web`).
    /// [assumption: 0, off, in the fitted model; see docs/experiments.md for
    /// its effect]
    pub cross_traffic_share: f64,
    /// Web users on such a path.
    pub cross_traffic_users: u32,
    /// Buffer of an AQM'd bottleneck, ms at the link rate: log-uniform in
    /// this range (cable modems and CPE buffer 100–250 ms and more; the
    /// AQM, not the buffer, sets the delay). [assumption]
    pub aqm_buffer_ms: (f64, f64),
    /// Buffer of a legacy drop-tail fixed access, ms. [assumption, as in
    /// population v1]
    pub droptail_buffer_ms: (f64, f64),
    /// Buffer of a mobile path, ms: 300 ms – 2 s (Jiang et al. measured
    /// RTTs inflated by seconds behind cellular buffers). [published range]
    pub mobile_buffer_ms: (f64, f64),
    /// Delay variation of a Wi-Fi hop's data path, without reordering
    /// (`ramp_link::Jitter`; WiFiSeer's median 3 ms / p90 20 ms when on,
    /// Sui et al., MobiSys 2016). [on in the fitted model; its ablation
    /// row is in docs/experiments.md]
    pub wifi_jitter: Option<crate::link::Jitter>,
    /// ACK batching at the data sender on every path: the server's
    /// receive loop with ramp's real-mode wake-up latencies
    /// (`crate::wakeup`). [off in the fitted model: measured on ramp's
    /// real server, not on a production one; its ablation row is in
    /// docs/experiments.md]
    pub ack_batching: bool,
    /// Share of mobile paths whose bottleneck is a cellular link
    /// (`ramp_link::Cellular`, CellReplay's defaults: less capacity for a
    /// burst after idle, a drifting base RTT). [1 in the fitted model:
    /// every mobile path, which is what "mobile" means in the regions'
    /// mixtures]
    pub cellular_share: f64,
    /// Share of mobile paths that replay one of [`PathModel::traces`]
    /// (drawn uniformly) instead of a constant rate. [0 unless traces are
    /// given: no trace set is bundled]
    pub trace_share: f64,
    /// Mahimahi delivery traces for `trace_share`.
    pub traces: Vec<std::sync::Arc<crate::link::DeliveryTrace>>,
}

impl Default for PathModel {
    /// The fitted model (docs/experiments.md, "Calibration").
    fn default() -> PathModel {
        PathModel {
            fixed_aqm_share: 0.7,
            docsis_share: 0.0,
            l4s_share: 0.0,
            wifi_fq_codel_share: 0.3,
            wifi_loss_max: 0.04,
            mobile_loss_max: 0.03,
            policed_scale: 0.25,
            cross_traffic_share: 0.0,
            cross_traffic_users: 2,
            aqm_buffer_ms: (100.0, 250.0),
            droptail_buffer_ms: (50.0, 250.0),
            mobile_buffer_ms: (300.0, 2000.0),
            wifi_jitter: Some(crate::link::Jitter::WIFI_SUI_2016),
            ack_batching: false,
            cellular_share: 1.0,
            trace_share: 0.0,
            traces: Vec::new(),
        }
    }
}

/// An access type's bottleneck: discipline, buffer (ms at the link rate),
/// random loss and reverse-path ACK batching.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AccessPath {
    /// Queue discipline.
    pub aqm: Aqm,
    /// Buffer, ms at the link rate.
    pub buffer_ms: f64,
    /// Random loss after the queue.
    pub loss: LossModel,
    /// ACK batching (Wi-Fi block ACKs).
    pub ack_aggregation: Option<Duration>,
    /// Data-path delay variation (Wi-Fi).
    pub jitter: Option<crate::link::Jitter>,
}

fn lerp_log(u: f64, (lo, hi): (f64, f64)) -> f64 {
    (lo.ln() + u * (hi.ln() - lo.ln())).exp()
}

impl PathModel {
    /// The bottleneck of an `access` path. Always makes the same number of
    /// draws, so the draws after it do not depend on the access type.
    pub fn draw(&self, access: Access, rng: &mut Rng) -> AccessPath {
        let u: [f64; 6] = core::array::from_fn(|_| rng.next_f64());
        let fixed = |u_aqm: f64, u_kind: f64, u_buf: f64| {
            if u_aqm < self.fixed_aqm_share {
                let aqm = if u_kind < self.docsis_share {
                    Aqm::Pie(crate::link::PieParams::DOCSIS)
                } else if u_kind < self.docsis_share + self.l4s_share {
                    Aqm::DualPi2(crate::link::DualPi2Params::DOCSIS_LLD)
                } else {
                    Aqm::FqCoDel(Default::default())
                };
                (aqm, lerp_log(u_buf, self.aqm_buffer_ms), true)
            } else {
                (
                    Aqm::DropTail,
                    lerp_log(u_buf, self.droptail_buffer_ms),
                    false,
                )
            }
        };
        match access {
            Access::Wired => {
                let (aqm, buffer_ms, managed) = fixed(u[0], u[1], u[2]);
                // Residual loss of a wired access: tiny on managed lines,
                // 0.01–0.1 % on legacy ones. [assumption, as in v1]
                let p = if managed {
                    u[3] * 1e-4
                } else {
                    lerp_log(u[3], (1e-4, 1e-3))
                };
                AccessPath {
                    aqm,
                    buffer_ms,
                    loss: bernoulli(p),
                    ack_aggregation: None,
                    jitter: None,
                }
            }
            Access::Wifi => {
                let (mut aqm, buffer_ms, _) = fixed(u[0], u[1], u[2]);
                if u[5] < self.wifi_fq_codel_share {
                    aqm = Aqm::FqCoDel(Default::default());
                }
                let agg = Duration::from_micros(lerp_log(u[4], (1000.0, 4000.0)).round() as u64);
                AccessPath {
                    aqm,
                    buffer_ms,
                    loss: bernoulli(lerp_log(u[3], (1e-4, self.wifi_loss_max.max(1e-4)))),
                    ack_aggregation: Some(agg),
                    jitter: self.wifi_jitter,
                }
            }
            Access::Mobile => AccessPath {
                aqm: Aqm::DropTail,
                buffer_ms: lerp_log(u[2], self.mobile_buffer_ms),
                loss: bursty(u[3] * self.mobile_loss_max),
                ack_aggregation: None,
                jitter: None,
            },
        }
    }
}

fn bernoulli(p: f64) -> LossModel {
    if p > 0.0 {
        LossModel::Bernoulli { p }
    } else {
        LossModel::None
    }
}

/// Bursty loss with long-run mean `mean`: a Gilbert–Elliott chain whose bad
/// state lasts 4 packets on average and loses half of them.
pub fn bursty(mean: f64) -> LossModel {
    const P_BAD_TO_GOOD: f64 = 0.25;
    const LOSS_BAD: f64 = 0.5;
    if mean <= 0.0 {
        return LossModel::None;
    }
    let pi_bad = (mean / LOSS_BAD).min(0.5);
    LossModel::GilbertElliott {
        p_good_to_bad: pi_bad * P_BAD_TO_GOOD / (1.0 - pi_bad),
        p_bad_to_good: P_BAD_TO_GOOD,
        loss_good: 0.0,
        loss_bad: LOSS_BAD,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursty_loss_has_the_asked_mean() {
        for m in [1e-4, 1e-3, 5e-3] {
            assert!((bursty(m).mean_loss() - m).abs() < 1e-12);
        }
    }

    #[test]
    fn shares_come_out_as_configured() {
        let m = PathModel::default();
        let mut rng = Rng::from_u64(5);
        let n = 20_000;
        let mut aqm = 0;
        let mut pie = 0;
        for _ in 0..n {
            let p = m.draw(Access::Wired, &mut rng);
            match p.aqm {
                Aqm::DropTail => assert!((50.0..=250.0).contains(&p.buffer_ms)),
                Aqm::Pie(_) => {
                    aqm += 1;
                    pie += 1
                }
                _ => aqm += 1,
            }
        }
        let share = f64::from(aqm) / f64::from(n);
        assert!(
            (share - m.fixed_aqm_share).abs() < 0.02,
            "aqm share {share}"
        );
        let docsis = f64::from(pie) / f64::from(aqm);
        assert!((docsis - m.docsis_share).abs() < 0.03, "docsis {docsis}");
        for _ in 0..1000 {
            let p = m.draw(Access::Mobile, &mut rng);
            assert_eq!(p.aqm, Aqm::DropTail);
            assert!((300.0..=2000.0).contains(&p.buffer_ms));
            assert!(p.loss.mean_loss() <= m.mobile_loss_max + 1e-12);
        }
    }
}
