//! What an access network does to a path (population model v2,
//! docs/experiments.md "Population model"): the queue discipline and
//! buffer of its bottleneck, its random loss and ACK batching, by access
//! type.
//!
//! Real access networks end a slow-start overshoot in one of two ways: an
//! AQM drops or marks a few packets (DOCSIS-PIE is mandatory in DOCSIS 3.1
//! cable modems, RFC 8034; fq_codel is the default qdisc of Linux, OpenWrt
//! and the Wi-Fi stack), or a deep buffer absorbs it (mobile networks,
//! Jiang et al., "Tackling Bufferbloat in 3G/4G Networks", IMC 2012), or
//! a drop-tail buffer of the depth the FCC's Measuring Broadband America
//! panel measured on fixed downlinks under load ([`BufferDepth::mba_2023`]:
//! median 47 ms) ends it in tail drops. [`PathModel`] holds the shares
//! that decide which, four of them free parameters fitted to the
//! published loss table (`bench/calibrate/fit.py`), the rest sourced or
//! labelled assumptions.

use core::time::Duration;

use super::dist::QuantileTable;
use ramp_link::{Aqm, LossModel};
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
    /// bottleneck runs an AQM; the rest are drop-tail. [assumption: 0.7.
    /// No source gives the share for the downlink, whose queue sits in the
    /// ISP's CMTS, DSLAM or OLT: a home router's fq_codel orders only what
    /// it sends, the uplink. With the measured drop-tail buffers the
    /// baseline's loss table moves with it (docs/results/rapid-start-2026.md, "Buffer
    /// sources"); it stays at 0.7, not fitted]
    pub fixed_aqm_share: f64,
    /// *Fitted.* Of the AQM'd fixed accesses, the share that are DOCSIS
    /// 3.1 cable modems running DOCSIS-PIE (RFC 8034); the rest run
    /// FQ-CoDel (RFC 8290) in the home router or the ISP's CPE. The fit
    /// puts it at 0: see docs/results/rapid-start-2026.md, "Calibration".
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
    /// Share of *fixed* (wired and Wi-Fi) paths whose bottleneck other
    /// users of the same line browse on while the connection runs (on/off
    /// web traffic after the 3GPP HTTP model, `crate::web`). Mobile paths
    /// never get them: a phone's cellular downlink is scheduled per
    /// device, so its household's other devices do not share it.
    /// [assumption: 0 in the fitted model, range 0–0.5 declared in
    /// `super::assumptions` (Maier et al., PAM 2011: 10 % of DSL lines
    /// had several hosts active at once, 52 % several hosts at all)]
    pub cross_traffic_share: f64,
    /// Web users on such a path. [assumption: 2, the web-user model's
    /// default; range 1–8 declared in `super::assumptions`]
    pub cross_traffic_users: u32,
    /// How much of the gap between a region's single-flow NDT rates and
    /// its access capacity (Ookla's multi-flow medians,
    /// `Region::capacity_scale`) the bottleneck has: its rate is the NDT
    /// quantile × `capacity_scale^capacity_weight`, so 1 is the access's
    /// full capacity (population v2) and 0 the rate one NDT flow measured.
    /// [assumption: 1; range 0–1 declared in `super::assumptions`]
    pub capacity_weight: f64,
    /// Buffer of an AQM'd bottleneck, ms at the link rate: log-uniform in
    /// this range (cable modems and CPE buffer 100–250 ms and more; the
    /// AQM, not the buffer, sets the delay). \[assumption\]
    pub aqm_buffer_ms: (f64, f64),
    /// Buffer of a drop-tail fixed access, ms at the link rate: the FCC's
    /// measured downstream queue under load ([`BufferDepth::mba_2023`],
    /// the fitted model's); [`BufferDepth::ASSUMED`] is population v1's
    /// and v2's assumed 50–250 ms (`droptail_buffer = "assumed"`).
    pub droptail_buffer: BufferDepth,
    /// Buffer of a mobile path, ms at the link rate:
    /// [`BufferDepth::MOBILE_JIANG_2012`], log-uniform 300 ms – 2 s (Jiang et
    /// al. measured cellular RTTs inflated by seconds behind 3G/4G
    /// buffers). [published range, 2011–2012; no later downlink
    /// measurement of LTE/5G queues could be used: docs/results/rapid-start-2026.md,
    /// "Buffer sources: the mobile downlink's queue", lists those checked]
    pub mobile_buffer: BufferDepth,
    /// Delay variation of a Wi-Fi hop's data path, without reordering
    /// (`ramp_link::Jitter`; WiFiSeer's median 3 ms / p90 20 ms when on,
    /// Sui et al., MobiSys 2016). [on in the fitted model; its ablation
    /// row is in docs/results/rapid-start-2026.md]
    pub wifi_jitter: Option<ramp_link::Jitter>,
    /// ACK batching at the data sender on every path: the server's
    /// receive loop with ramp's real-mode wake-up latencies
    /// (`crate::wakeup`). [off in the fitted model: measured on ramp's
    /// real server, not on a production one; its ablation row is in
    /// docs/results/rapid-start-2026.md]
    pub ack_batching: bool,
    /// Share of mobile paths whose bottleneck queue runs FQ-CoDel over its
    /// buffer instead of drop-tail. [not sourced: 0 in the fitted model; a
    /// sensitivity for the question of docs/results/rapid-start-2026.md, "Buffer
    /// sources", whether the mobile bottleneck ends slow starts with a few
    /// drops each]
    pub mobile_aqm_share: f64,
    /// Share of mobile paths whose bottleneck is a cellular link
    /// (`ramp_link::Cellular`, CellReplay's defaults: less capacity for a
    /// burst after idle, a drifting base RTT). [1 in the fitted model:
    /// every mobile path, which is what "mobile" means in the regions'
    /// mixtures]
    pub cellular_share: f64,
    /// The cellular link those paths have (`ramp_link::Cellular`;
    /// `[paths] cellular` reads it through the element's option table), or
    /// none: no mobile path is cellular. [CellReplay's defaults in the
    /// fitted model]
    pub cellular: Option<ramp_link::Cellular>,
    /// Share of mobile paths that replay one of [`PathModel::traces`]
    /// (drawn uniformly) instead of a constant rate. [0 unless traces are
    /// given: no trace set is bundled]
    pub trace_share: f64,
    /// Mahimahi delivery traces for `trace_share`.
    pub traces: Vec<std::sync::Arc<ramp_link::DeliveryTrace>>,
    /// Copula correlation between the access type's slowness score and
    /// the bandwidth/RTT draws (`Region::sample`). [assumption: 0.4; its
    /// range and reason are declared in `super::assumptions`]
    pub access_correlation: f64,
    /// Multiplies each region's mobile (cellular) share of the access
    /// mixture; Wi-Fi and wired keep their ratio and fill the rest
    /// (`Region::sample`). The regions' shares are Cloudflare Radar's
    /// mobile share of requests times Opensignal's share of phones' time
    /// off Wi-Fi (docs/experiments.md, "The access mix from public data"),
    /// and six of the seven use the global mobile share for want of their
    /// countries'. [assumption: 1; its range and reason are declared in
    /// `super::assumptions`]
    pub mobile_share_scale: f64,
    /// Share of the other devices' (laptops', desktops') requests that
    /// cross Wi-Fi: moves the rest of each region's mixture between Wi-Fi
    /// and wired (`Region::scaled_mix`). The regions' mixes are computed
    /// with 0.5 (docs/experiments.md, "The access mix from public data").
    /// [assumption: 0.5, no source found; its range and reason are
    /// declared in `super::assumptions`]
    pub computer_wifi_share: f64,
    /// The client's handshake processing (certificate verification, key
    /// derivation) on every path, ms: the server's handshake RTT samples
    /// include it, the path's minimum does not
    /// (`EndpointConfig::client_handshake_processing`). [assumption: 0;
    /// no published distribution was found; range and reason declared in
    /// `super::assumptions`]
    pub client_processing_ms: f64,
}

impl Default for PathModel {
    /// The fitted model (docs/results/rapid-start-2026.md, "Calibration").
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
            capacity_weight: 1.0,
            aqm_buffer_ms: (100.0, 250.0),
            droptail_buffer: BufferDepth::mba_2023(),
            mobile_buffer: BufferDepth::MOBILE_JIANG_2012,
            mobile_aqm_share: 0.0,
            wifi_jitter: Some(ramp_link::Jitter::WIFI_SUI_2016),
            ack_batching: false,
            cellular_share: 1.0,
            cellular: Some(ramp_link::Cellular::CELLREPLAY),
            trace_share: 0.0,
            traces: Vec::new(),
            access_correlation: super::population::ACCESS_CORRELATION,
            mobile_share_scale: 1.0,
            computer_wifi_share: super::population::COMPUTER_WIFI_SHARE,
            client_processing_ms: 0.0,
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
    pub jitter: Option<ramp_link::Jitter>,
}

fn lerp_log(u: f64, (lo, hi): (f64, f64)) -> f64 {
    (lo.ln() + u * (hi.ln() - lo.ln())).exp()
}

/// The buffer depth of a drop-tail bottleneck (ms at the link rate): how
/// deep the downstream queue of a fixed line or a mobile path gets when a
/// download saturates it.
#[derive(Clone, Debug, PartialEq)]
pub enum BufferDepth {
    /// Log-uniform between the two depths, ms. [assumption: 50–250 ms in
    /// population v1 and v2, [`BufferDepth::ASSUMED`]]
    LogUniform(f64, f64),
    /// An empirical distribution of depths, ms ([`BufferDepth::mba_2023`]).
    Measured(QuantileTable),
}

/// Load-induced downstream queueing delay of US fixed broadband, ms, at
/// p5, p10, p25, p50, p75, p90 and p95 of the tests: the FCC's Measuring
/// Broadband America panel (SamKnows whiteboxes wired to the modem),
/// tests of the 2023 window in the public analysis of the TMA 2024 paper
/// "Where Has the Time Gone? Examining Over a Decade of Broadband Latency
/// Measurements" (its data products: repository UCBoulder/bclear at e504e32,
/// `data_analysis/data/CDF of Downstream LUL.json`, the per-test maximum
/// RTT during the download test, 1 708 804 tests, and 7947a7e,
/// `data_analysis/cdfs/cdf_data/CDF of rtt_min Idle Latency.json`, the
/// idle minimum RTT). Per technology the depth at percentile q is the
/// loaded maximum RTT at q minus the idle minimum RTT at q (cable p50
/// 56.8 ms, DSL 55.7, fibre 19.7); the three are pooled by their test
/// counts (cable 806 868, DSL 455 590, fibre 446 346). Under a saturating
/// multi-flow download a drop-tail queue sits near full, so its loaded
/// RTT increase is its depth in time at the line rate; an AQM'd line
/// shows its standing queue instead. docs/results/rapid-start-2026.md, "Buffer
/// sources", gives the derivation and its limits.
pub const MBA_2023_DOWNSTREAM_QUEUE_MS: [(f64, f64); 7] = [
    (0.05, 5.5),
    (0.10, 10.1),
    (0.25, 22.3),
    (0.50, 47.4),
    (0.75, 110.5),
    (0.90, 251.8),
    (0.95, 440.0),
];

impl BufferDepth {
    /// Population v1's and v2's assumed range for drop-tail fixed lines.
    pub const ASSUMED: BufferDepth = BufferDepth::LogUniform(50.0, 250.0);

    /// Mobile paths: 300 ms – 2 s, log-uniform (Jiang et al., "Tackling
    /// Bufferbloat in 3G/4G Networks", IMC 2012).
    pub const MOBILE_JIANG_2012: BufferDepth = BufferDepth::LogUniform(300.0, 2000.0);

    /// The FCC MBA 2023 downstream queue under load
    /// ([`MBA_2023_DOWNSTREAM_QUEUE_MS`]), read as an inverse CDF.
    pub fn mba_2023() -> BufferDepth {
        // The table is ascending and positive: `new` cannot fail on it
        // (`mba_2023_table_is_valid` checks).
        let t = QuantileTable::new(&MBA_2023_DOWNSTREAM_QUEUE_MS)
            .unwrap_or_else(|e| panic!("built-in MBA table: {e}"));
        BufferDepth::Measured(t)
    }

    /// The depth at probability `u` (ms).
    pub fn at(&self, u: f64) -> f64 {
        match self {
            BufferDepth::LogUniform(lo, hi) => lerp_log(u, (*lo, *hi)),
            BufferDepth::Measured(t) => t.at(u),
        }
    }
}

impl PathModel {
    /// The bottleneck of an `access` path. Always makes the same number of
    /// draws, so the draws after it do not depend on the access type.
    pub fn draw(&self, access: Access, rng: &mut Rng) -> AccessPath {
        let u: [f64; 6] = core::array::from_fn(|_| rng.next_f64());
        let fixed = |u_aqm: f64, u_kind: f64, u_buf: f64| {
            if u_aqm < self.fixed_aqm_share {
                let aqm = if u_kind < self.docsis_share {
                    Aqm::Pie(ramp_link::PieParams::DOCSIS)
                } else if u_kind < self.docsis_share + self.l4s_share {
                    Aqm::DualPi2(ramp_link::DualPi2Params::DOCSIS_LLD)
                } else {
                    Aqm::FqCoDel(Default::default())
                };
                (aqm, lerp_log(u_buf, self.aqm_buffer_ms), true)
            } else {
                (Aqm::DropTail, self.droptail_buffer.at(u_buf), false)
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
                // u[0] decides the fixed accesses' AQM; a mobile path has
                // none, so it is free here.
                aqm: if u[0] < self.mobile_aqm_share {
                    Aqm::FqCoDel(Default::default())
                } else {
                    Aqm::DropTail
                },
                buffer_ms: self.mobile_buffer.at(u[2]),
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
    LossModel::GilbertElliott(ramp_link::GilbertElliott {
        p_good_to_bad: pi_bad * P_BAD_TO_GOOD / (1.0 - pi_bad),
        p_bad_to_good: P_BAD_TO_GOOD,
        loss_good: 0.0,
        loss_bad: LOSS_BAD,
    })
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
                Aqm::DropTail => assert!((1.0..=2000.0).contains(&p.buffer_ms)),
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
            assert_eq!(m.mobile_buffer, BufferDepth::MOBILE_JIANG_2012);
            assert!(p.loss.mean_loss() <= m.mobile_loss_max + 1e-12);
        }
    }

    #[test]
    fn mba_2023_table_is_valid() {
        assert!(QuantileTable::new(&MBA_2023_DOWNSTREAM_QUEUE_MS).is_ok());
    }

    /// The drop-tail buffers a measured model draws have the source's
    /// quantiles (the pooled FCC MBA 2023 table), and the old range stays
    /// one setting away.
    #[test]
    fn drawn_droptail_buffers_follow_the_mba_table() {
        let m = PathModel {
            fixed_aqm_share: 0.0,
            ..PathModel::default()
        };
        assert_eq!(m.droptail_buffer, BufferDepth::mba_2023());
        let mut rng = Rng::from_u64(9);
        let mut b: Vec<f64> = (0..40_000)
            .map(|_| m.draw(Access::Wired, &mut rng))
            .inspect(|p| assert_eq!(p.aqm, Aqm::DropTail))
            .map(|p| p.buffer_ms)
            .collect();
        b.sort_by(f64::total_cmp);
        for &(q, want) in &MBA_2023_DOWNSTREAM_QUEUE_MS {
            let got = b[(q * b.len() as f64) as usize];
            assert!(
                (got / want - 1.0).abs() < 0.06,
                "p{}: drew {got:.1} ms, the source gives {want} ms",
                q * 100.0
            );
        }
        let old = PathModel {
            fixed_aqm_share: 0.0,
            droptail_buffer: BufferDepth::ASSUMED,
            ..PathModel::default()
        };
        for _ in 0..1000 {
            let p = old.draw(Access::Wired, &mut rng);
            assert!((50.0..=250.0).contains(&p.buffer_ms));
        }
    }

    /// `mobile_aqm_share` puts FQ-CoDel on that share of mobile paths and
    /// changes nothing else a mobile path draws.
    #[test]
    fn mobile_aqm_share_comes_out_as_configured() {
        let m = PathModel {
            mobile_aqm_share: 0.5,
            ..PathModel::default()
        };
        let (mut a, mut b) = (Rng::from_u64(11), Rng::from_u64(11));
        let n = 20_000;
        let mut codel = 0;
        for _ in 0..n {
            let (p, q) = (
                m.draw(Access::Mobile, &mut a),
                PathModel::default().draw(Access::Mobile, &mut b),
            );
            assert_eq!((p.buffer_ms, p.loss), (q.buffer_ms, q.loss));
            assert_eq!(q.aqm, Aqm::DropTail);
            if matches!(p.aqm, Aqm::FqCoDel(_)) {
                codel += 1;
            }
        }
        let share = f64::from(codel) / f64::from(n);
        assert!((share - 0.5).abs() < 0.02, "mobile FQ-CoDel share {share}");
    }

    /// Same seed, same draws: the measured table adds no random draw, so
    /// every later draw of a path is the one the assumed table makes.
    #[test]
    fn the_buffer_table_changes_no_other_draw() {
        let mba = PathModel::default();
        let old = PathModel {
            droptail_buffer: BufferDepth::ASSUMED,
            ..PathModel::default()
        };
        let (mut a, mut b) = (Rng::from_u64(3), Rng::from_u64(3));
        for i in 0..3000 {
            let access = [Access::Wired, Access::Wifi, Access::Mobile][i % 3];
            let (pa, pb) = (mba.draw(access, &mut a), old.draw(access, &mut b));
            assert_eq!(pa.aqm, pb.aqm);
            assert_eq!(pa.loss, pb.loss);
            // A Wi-Fi hop's FQ-CoDel may sit on a drop-tail line's buffer.
            if access == Access::Mobile || (access == Access::Wired && pa.aqm != Aqm::DropTail) {
                assert_eq!(pa.buffer_ms, pb.buffer_ms);
            }
        }
        assert_eq!(a.next_f64(), b.next_f64());
    }
}
