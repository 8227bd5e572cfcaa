//! Regional path populations (docs/experiments.md, population model): per-region
//! bandwidth and base-RTT quantiles (M-Lab NDT, Oct 2025), an access-type
//! mixture (wired, Wi-Fi, mobile, plus a policed share) that sets queue,
//! random loss and ACK aggregation, and an ACK-policy mixture.
//!
//! One draw is one connection's path. Bandwidth and RTT are read off the
//! region's quantile tables at probabilities from a Gaussian copula whose
//! mean is shifted by the access type (mobile toward lower bandwidth and
//! higher RTT, wired the other way), which gives the positive
//! slow-and-far correlation the model assumes while keeping each marginal's
//! mean and variance on the normal scale.

use core::time::Duration;

use ramp_cc::Rate;

pub use super::access::{bursty, Access, PathModel};
use super::dist::{log_uniform, normal, normal_cdf, uniform, QuantileTable};
use crate::receiver::AckPolicy;
use ramp_link::{Aqm, LossModel};
use ramp_vocab::rng::Rng;

/// Shares of access types in a region (wired + Wi-Fi + mobile are
/// normalised to 1) and of policed paths (independent of access type).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AccessMix {
    /// Mobile share.
    pub mobile: f64,
    /// Wi-Fi share.
    pub wifi: f64,
    /// Wired share.
    pub wired: f64,
    /// Share of paths behind a token-bucket policer.
    pub policed: f64,
}

/// Copula correlation between the access type's slowness score and the
/// bandwidth/RTT draws, the default of `PathModel::access_correlation`
/// (\[assumption\]: range and reason in `super::assumptions`).
pub const ACCESS_CORRELATION: f64 = 0.4;

/// Share of the other devices' (laptops', desktops') requests that cross
/// Wi-Fi, `d` in the access mix's arithmetic (docs/experiments.md, "The
/// access mix from public data"): the built-in mixes are computed with
/// it, and it is the default of `PathModel::computer_wifi_share`
/// (\[assumption\]: range and reason in `super::assumptions`).
pub const COMPUTER_WIFI_SHARE: f64 = 0.5;

/// Share of receivers with Chrome's ACK decimation (60 % \[assumption\]).
pub const CHROME_ACK_SHARE: f64 = 0.6;

/// Bandwidth is clamped to this range, Mbit/s: below 0.5 Mbit/s a 3.2 MB
/// object takes close to a minute and the tail of NDT is test artefacts.
pub const RATE_RANGE_MBPS: (f64, f64) = (0.5, 1000.0);

/// Base RTT is clamped to this range, ms.
pub const RTT_RANGE_MS: (f64, f64) = (1.0, 600.0);

/// One region: a POP's client population.
#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    /// Name, the records' `pop`.
    pub name: String,
    /// Relative weight when a population mixes regions.
    pub weight: f64,
    /// Single-flow bandwidth, Mbit/s.
    pub rate_mbps: QuantileTable,
    /// Base RTT, ms.
    pub rtt_ms: QuantileTable,
    /// Access-type mixture.
    pub mix: AccessMix,
    /// Share of Chrome-like receivers (the rest ACK per RFC 9000).
    pub chrome_ack_share: f64,
    /// Share of connections whose server respects the app-limited state
    /// (quicly's `respect-app-limited` ratio): each connection draws it
    /// once, and every arm with quicly's rule runs the draw
    /// (`super::app_limited`).
    pub respect_app_limited_share: f64,
    /// Share of connections whose object is an adaptive-bitrate video
    /// segment, its size from the path's rate (`super::video`; the
    /// population file's `[workload] video_share`).
    pub video_share: f64,
    /// Access capacity over NDT's single-flow throughput, for fixed
    /// (wired, Wi-Fi) and mobile paths: the bottleneck rate is the NDT
    /// quantile times this (at least 1: one flow never gets more than the
    /// access carries).
    pub capacity_scale: CapacityScale,
    /// What each access type does to the path.
    pub paths: PathModel,
}

/// Access capacity over single-flow NDT throughput, by access kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CapacityScale {
    /// Wired and Wi-Fi paths.
    pub fixed: f64,
    /// Mobile paths.
    pub mobile: f64,
}

impl CapacityScale {
    /// No scaling: the NDT quantiles are the rates (population v1).
    pub const NONE: CapacityScale = CapacityScale {
        fixed: 1.0,
        mobile: 1.0,
    };

    /// The scale that takes a region's NDT median to its Ookla Speedtest
    /// medians (multi-flow tests, so closer to capacity), never below 1.
    pub fn from_medians(ndt_p50: f64, ookla_fixed: f64, ookla_mobile: f64) -> CapacityScale {
        CapacityScale {
            fixed: (ookla_fixed / ndt_p50).max(1.0),
            mobile: (ookla_mobile / ndt_p50).max(1.0),
        }
    }

    fn of(self, access: Access) -> f64 {
        match access {
            Access::Mobile => self.mobile,
            Access::Wired | Access::Wifi => self.fixed,
        }
    }

    /// The scale for `access` raised to `weight` (`PathModel::capacity_weight`):
    /// 1 gives the full scale, 0 none (the NDT rate), geometric in between.
    fn weighted(self, access: Access, weight: f64) -> f64 {
        let s = self.of(access);
        if weight == 1.0 {
            // Exactly the scale, so the default model's rates do not
            // depend on how `powf` rounds.
            s
        } else {
            s.powf(weight)
        }
    }
}

/// One sampled path, before it becomes a [`crate::Scenario`].
#[derive(Clone, Debug, PartialEq)]
pub struct PathSample {
    /// Access type.
    pub access: Access,
    /// Bottleneck rate.
    pub rate: Rate,
    /// Base RTT (split evenly between the directions).
    pub rtt: Duration,
    /// Buffer in time at the bottleneck rate.
    pub queue: Duration,
    /// The bottleneck's queue discipline.
    pub aqm: Aqm,
    /// Random loss after the bottleneck.
    pub loss: LossModel,
    /// Token-bucket policer.
    pub policer: Option<ramp_link::TokenBucket>,
    /// ACK batching on the reverse path (Wi-Fi block ACKs).
    pub ack_aggregation: Option<Duration>,
    /// Data-path delay variation without reordering (Wi-Fi).
    pub jitter: Option<ramp_link::Jitter>,
    /// ACK batching at the data sender (`crate::wakeup`).
    pub ack_batching: bool,
    /// A cellular bottleneck (`ramp_link::Cellular`), or none.
    pub cellular: Option<ramp_link::Cellular>,
    /// A trace-driven bottleneck (replaces `rate`).
    pub trace: Option<std::sync::Arc<ramp_link::DeliveryTrace>>,
    /// The client's ACK policy.
    pub ack_policy: AckPolicy,
    /// Web users browsing on the same bottleneck (0: none).
    pub web_users: u32,
    /// The client's handshake processing (`PathModel::client_processing_ms`).
    pub client_processing: Duration,
}

fn ms(v: f64) -> Duration {
    Duration::from_micros((v * 1000.0).round().max(1.0) as u64)
}

/// Quantile points of the regional NDT tables: p10, p25, p50, p75, p90.
const PS: [f64; 5] = [0.10, 0.25, 0.50, 0.75, 0.90];

/// A region from its NDT quantiles, access mixture and Ookla medians.
fn builtin(name: &str, bw: [f64; 5], rtt: [f64; 5], mix: [f64; 4], ookla: [f64; 2]) -> Region {
    let table = |v: [f64; 5]| {
        let pts: Vec<(f64, f64)> = PS.iter().copied().zip(v).collect();
        // The built-in numbers are ascending and positive.
        QuantileTable::new(&pts).unwrap_or_else(|e| panic!("built-in region {name}: {e}"))
    };
    Region {
        name: name.to_string(),
        weight: 1.0,
        rate_mbps: table(bw),
        rtt_ms: table(rtt),
        mix: AccessMix {
            mobile: mix[0],
            wifi: mix[1],
            wired: mix[2],
            policed: mix[3],
        },
        chrome_ack_share: CHROME_ACK_SHARE,
        respect_app_limited_share: super::app_limited::RESPECT_APP_LIMITED_SHARE,
        video_share: super::video::VIDEO_SHARE,
        capacity_scale: CapacityScale::from_medians(bw[2], ookla[0], ookla[1]),
        paths: PathModel::default(),
    }
}

/// The seven regions of the Rapid Start production experiment: name,
/// bandwidth quantiles (Mbit/s), RTT quantiles (ms) and access mixture
/// (mobile, wifi, wired, policed): M-Lab NDT regional quantiles and an
/// access mixture per region (docs/experiments.md, "Population model").
/// The last pair is the region's Ookla Speedtest Global Index medians
/// (fixed, mobile; Mbit/s, median of the region's countries, Oct 2025).
///
/// The mixture from public data (docs/experiments.md, "The access mix
/// from public data", gives every figure's page): with `m` the mobile
/// devices' share of requests (Cloudflare Radar Year in Review 2025: 43 %
/// globally, used for six regions; Africa 0.74, the African countries it
/// names at the top [assumption: the region's upper end]) and `w` phones'
/// share of time on Wi-Fi (Opensignal, January 2020 baseline weeks: Hong
/// Kong 55.3 %, Philippines 52.3 %, mean of Germany/Spain/Italy 59.8 %,
/// also for Eastern Europe [assumption], US 56.2 %, mean of Argentina and
/// Brazil 64.4 %; Nigeria 10 %, 2016), mobile = m(1 − w), Wi-Fi =
/// m·w + (1 − m)·0.5 and wired = (1 − m)·0.5: half of the other devices'
/// requests over Wi-Fi [assumption: no source found]. The policed share is
/// population v1's assumption.
type RegionRow = (&'static str, [f64; 5], [f64; 5], [f64; 4], [f64; 2]);

const SEED_REGIONS: [RegionRow; 7] = [
    (
        "east-asia",
        [3.1, 13.9, 57.5, 170.0, 435.0],
        [2.9, 6.2, 15.3, 53.0, 128.0],
        [0.192, 0.523, 0.285, 0.02],
        [190.0, 86.0],
    ),
    (
        "se-asia",
        [1.6, 7.1, 29.4, 93.0, 256.0],
        [4.5, 12.6, 32.0, 71.0, 180.0],
        [0.205, 0.510, 0.285, 0.04],
        [86.0, 44.0],
    ),
    (
        "west-europe",
        [4.8, 19.7, 67.7, 217.0, 498.0],
        [3.2, 7.6, 15.3, 28.0, 48.0],
        [0.173, 0.542, 0.285, 0.01],
        [105.0, 82.0],
    ),
    (
        "east-europe",
        [2.4, 11.2, 42.5, 127.0, 316.0],
        [8.7, 16.6, 27.7, 47.0, 83.0],
        [0.173, 0.542, 0.285, 0.02],
        [85.0, 55.0],
    ),
    (
        "africa",
        [0.7, 2.6, 9.2, 26.0, 62.0],
        [6.9, 20.3, 55.1, 126.0, 253.0],
        [0.666, 0.204, 0.130, 0.05],
        [19.0, 26.0],
    ),
    (
        "north-america",
        [3.6, 17.3, 67.8, 208.0, 439.0],
        [3.8, 9.5, 22.9, 50.0, 86.0],
        [0.188, 0.527, 0.285, 0.02],
        [188.0, 75.0],
    ),
    (
        "south-america",
        [1.9, 9.1, 39.1, 128.0, 305.0],
        [4.0, 8.9, 26.1, 89.0, 143.0],
        [0.153, 0.562, 0.285, 0.03],
        [93.0, 25.0],
    ),
];

/// The seven regions of the Rapid Start production experiment (East and
/// South-East Asia, Western and Eastern Europe, Africa, North and South
/// America): M-Lab NDT quantiles and access mixtures (docs/experiments.md).
pub fn seed_regions() -> Vec<Region> {
    SEED_REGIONS
        .iter()
        .map(|&(name, rate, rtt, mix, ookla)| builtin(name, rate, rtt, mix, ookla))
        .collect()
}

impl Region {
    /// Makes a mobile path cellular or trace-driven, by the model's
    /// `cellular_share` and `trace_share`, from a generator of its own
    /// (seeded by the path's seed), so that turning either on changes no
    /// other draw of any connection.
    pub fn cellular_links(&self, path: &mut PathSample, path_seed: u64) {
        /// The stream of these draws (any fixed number apart from the
        /// sampling stream's).
        const CELLULAR_STREAM: u64 = 0xCE11_0A1E_2025_0001;
        let m = &self.paths;
        if path.access != Access::Mobile || (m.cellular_share <= 0.0 && m.trace_share <= 0.0) {
            return;
        }
        let mut rng = Rng::from_u64(path_seed ^ CELLULAR_STREAM);
        let (u_trace, u_pick, u_cell) = (rng.next_f64(), rng.next_f64(), rng.next_f64());
        if u_trace < m.trace_share && !m.traces.is_empty() {
            let i = ((u_pick * m.traces.len() as f64) as usize).min(m.traces.len() - 1);
            path.rate = m.traces[i].mean_rate();
            path.trace = Some(std::sync::Arc::clone(&m.traces[i]));
        } else if u_cell < m.cellular_share {
            path.cellular = m.cellular;
        }
    }

    /// Draws one path. Uses only `rng`, in a fixed order of draws.
    pub fn sample(&self, rng: &mut Rng) -> PathSample {
        let m = &self.scaled_mix();
        let total = (m.mobile + m.wifi + m.wired).max(f64::MIN_POSITIVE);
        let u = rng.next_f64() * total;
        let access = if u < m.mobile {
            Access::Mobile
        } else if u < m.mobile + m.wifi {
            Access::Wifi
        } else {
            Access::Wired
        };
        // Standardise the slowness score over the region's mixture so the
        // copula keeps each marginal's mean 0 and variance 1.
        let shares = [
            (Access::Mobile, m.mobile / total),
            (Access::Wifi, m.wifi / total),
            (Access::Wired, m.wired / total),
        ];
        let mean: f64 = shares.iter().map(|(a, s)| a.slowness() * s).sum();
        let var: f64 = shares
            .iter()
            .map(|(a, s)| (a.slowness() - mean).powi(2) * s)
            .sum();
        let score = if var > 0.0 {
            (access.slowness() - mean) / var.sqrt()
        } else {
            0.0
        };
        let rho = self.paths.access_correlation;
        let rest = (1.0 - rho * rho).sqrt();
        let z_rate = -rho * score + rest * normal(rng);
        let z_rtt = rho * score + rest * normal(rng);
        let rate_mbps = (self.rate_mbps.at(normal_cdf(z_rate))
            * self
                .capacity_scale
                .weighted(access, self.paths.capacity_weight))
        .clamp(RATE_RANGE_MBPS.0, RATE_RANGE_MBPS.1);
        let rtt_ms = self
            .rtt_ms
            .at(normal_cdf(z_rtt))
            .clamp(RTT_RANGE_MS.0, RTT_RANGE_MS.1);
        let rate = Rate::from_bits_per_sec((rate_mbps * 1e6).round() as u64);

        let ap = self.paths.draw(access, rng);
        let policed = rng.next_f64() < m.policed * self.paths.policed_scale;
        // Policers sit well below the access rate (Flach et al.: policing
        // is what limits the flow); bucket 16–64 KB [assumption].
        let policer_frac = uniform(rng, 0.2, 0.6);
        let bucket = log_uniform(rng, 16_000.0, 64_000.0);
        let policer = policed.then(|| ramp_link::TokenBucket {
            rate: Rate::from_bits_per_sec(((rate_mbps * policer_frac).max(0.25) * 1e6) as u64),
            burst: bucket.round() as u64,
        });
        let ack_policy = if rng.next_f64() < self.chrome_ack_share {
            AckPolicy::Chrome
        } else {
            AckPolicy::Rfc9000
        };
        // The draw is made on every path so that the paths after it keep
        // their random numbers whatever the share; mobile paths ignore it.
        let web_users =
            if rng.next_f64() < self.paths.cross_traffic_share && access != Access::Mobile {
                self.paths.cross_traffic_users
            } else {
                0
            };
        PathSample {
            access,
            rate,
            rtt: ms(rtt_ms),
            queue: ms(ap.buffer_ms),
            aqm: ap.aqm,
            loss: ap.loss,
            policer,
            ack_aggregation: ap.ack_aggregation,
            jitter: ap.jitter,
            ack_batching: self.paths.ack_batching,
            cellular: None,
            trace: None,
            ack_policy,
            web_users,
            // (`ms` rounds up to 1 µs: zero stays zero.)
            client_processing: if self.paths.client_processing_ms > 0.0 {
                ms(self.paths.client_processing_ms.min(10_000.0))
            } else {
                Duration::ZERO
            },
        }
    }

    /// The access mixture with `PathModel::computer_wifi_share` and then
    /// `PathModel::mobile_share_scale` applied. The Wi-Fi share first:
    /// the mixture is read as built with [`COMPUTER_WIFI_SHARE`] (as the
    /// built-in ones are), so the other devices' share is
    /// `wired / (1 − COMPUTER_WIFI_SHARE)`; with `d` the share of those
    /// over Wi-Fi, wired becomes that share times `1 − d` and Wi-Fi takes
    /// the difference (never below 0). Then the mobile share of the
    /// normalised mixture times the scale (at most 1), Wi-Fi and wired in
    /// their ratio over the rest. At the default share and scale 1 the
    /// mixture as given, so that no draw moves.
    pub fn scaled_mix(&self) -> AccessMix {
        let m = self.computer_wifi_mix();
        let k = self.paths.mobile_share_scale;
        if k == 1.0 {
            return m;
        }
        let total = (m.mobile + m.wifi + m.wired).max(f64::MIN_POSITIVE);
        let fixed = m.wifi + m.wired;
        let mobile = if fixed > 0.0 {
            (m.mobile / total * k.max(0.0)).min(1.0)
        } else {
            1.0
        };
        let rest = 1.0 - mobile;
        let (wifi, wired) = if fixed > 0.0 {
            (rest * m.wifi / fixed, rest * m.wired / fixed)
        } else {
            (0.0, 0.0)
        };
        AccessMix {
            mobile,
            wifi,
            wired,
            policed: m.policed,
        }
    }

    /// The mixture with `PathModel::computer_wifi_share` applied (see
    /// [`Region::scaled_mix`]); the mixture as given at the default.
    fn computer_wifi_mix(&self) -> AccessMix {
        let m = self.mix;
        let d = self.paths.computer_wifi_share;
        if d == COMPUTER_WIFI_SHARE {
            return m;
        }
        let computers = m.wired / (1.0 - COMPUTER_WIFI_SHARE);
        let fixed = m.wifi + m.wired;
        let wifi = (m.wifi + computers * (d - COMPUTER_WIFI_SHARE)).clamp(0.0, fixed);
        AccessMix {
            wifi,
            wired: fixed - wifi,
            ..m
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_marginals_follow_the_ndt_medians() {
        // The copula keeps the median of each marginal close to the table's
        // (with the capacity scaling off: it multiplies the rate).
        for mut r in seed_regions() {
            r.capacity_scale = CapacityScale::NONE;
            let mut rng = Rng::from_u64(42);
            let mut rates: Vec<f64> = Vec::new();
            let mut rtts: Vec<f64> = Vec::new();
            for _ in 0..4000 {
                let p = r.sample(&mut rng);
                rates.push(p.rate.bits_per_sec() as f64 / 1e6);
                rtts.push(p.rtt.as_secs_f64() * 1e3);
            }
            rates.sort_by(f64::total_cmp);
            rtts.sort_by(f64::total_cmp);
            let (mr, mt) = (rates[2000], rtts[2000]);
            let (er, et) = (r.rate_mbps.at(0.5), r.rtt_ms.at(0.5));
            assert!(
                (mr / er).ln().abs() < 0.25,
                "{}: rate median {mr} vs {er}",
                r.name
            );
            assert!(
                (mt / et).ln().abs() < 0.25,
                "{}: rtt median {mt} vs {et}",
                r.name
            );
        }
    }

    /// The built-in mixtures are the arithmetic of docs/experiments.md,
    /// "The access mix from public data", from its published figures.
    #[test]
    fn the_seed_mix_is_radar_times_opensignal() {
        // (region, m: mobile share of requests, w: phones' time on Wi-Fi)
        let eu = (0.664 + 0.619 + 0.512) / 3.0;
        let rows = [
            ("east-asia", 0.43, 0.553),
            ("se-asia", 0.43, 0.523),
            ("west-europe", 0.43, eu),
            ("east-europe", 0.43, eu),
            ("africa", 0.74, 0.10),
            ("north-america", 0.43, 0.562),
            ("south-america", 0.43, (0.639 + 0.648) / 2.0),
        ];
        let d = COMPUTER_WIFI_SHARE; // other devices' requests over Wi-Fi [assumption]
        let regions = seed_regions();
        for (name, m, w) in rows {
            let r = regions.iter().find(|r| r.name == name).unwrap();
            let want = [m * (1.0 - w), m * w + (1.0 - m) * d, (1.0 - m) * (1.0 - d)];
            let got = [r.mix.mobile, r.mix.wifi, r.mix.wired];
            for (g, x) in got.iter().zip(want) {
                assert!((g - x).abs() < 0.0006, "{name}: {got:?} vs {want:?}");
            }
        }
    }

    #[test]
    fn computer_wifi_share_moves_the_other_devices_between_wired_and_wifi() {
        let mut r = seed_regions().remove(2); // west-europe: m = 0.43
        assert_eq!(r.scaled_mix(), r.mix, "the default is the mixture as given");
        let fixed = r.mix.wifi + r.mix.wired;
        for d in [0.0, 0.3, 0.8, 1.0] {
            r.paths.computer_wifi_share = d;
            let m = r.scaled_mix();
            // wired = (1 − m)(1 − d), Wi-Fi = m·w + (1 − m)·d.
            assert!((m.wired - 0.57 * (1.0 - d)).abs() < 0.001, "{d}: {m:?}");
            assert!(
                (m.wifi - (0.43 * 0.598 + 0.57 * d)).abs() < 0.001,
                "{d}: {m:?}"
            );
            assert_eq!(m.mobile, r.mix.mobile, "phones stay where they are");
            assert!((m.wifi + m.wired - fixed).abs() < 1e-12);
        }
        // With the mobile scale on top: the Wi-Fi/wired ratio is d's.
        r.paths.computer_wifi_share = 0.8;
        let d8 = r.scaled_mix();
        r.paths.mobile_share_scale = 1.5;
        let m = r.scaled_mix();
        assert!((m.wifi / m.wired - d8.wifi / d8.wired).abs() < 1e-12);
    }

    #[test]
    fn mobile_share_scale_scales_the_mobile_share_and_keeps_the_fixed_ratio() {
        let mut r = seed_regions().remove(2);
        assert_eq!(r.scaled_mix(), r.mix, "scale 1 is the mixture as given");
        r.paths.mobile_share_scale = 1.5;
        let m = r.scaled_mix();
        let total = r.mix.mobile + r.mix.wifi + r.mix.wired;
        assert!((m.mobile - 1.5 * r.mix.mobile / total).abs() < 1e-12);
        assert!((m.mobile + m.wifi + m.wired - 1.0).abs() < 1e-12);
        assert!((m.wifi / m.wired - r.mix.wifi / r.mix.wired).abs() < 1e-12);
        // The draws follow it.
        let mut rng = Rng::from_u64(3);
        let n = 20_000;
        let mobile = (0..n)
            .filter(|_| r.sample(&mut rng).access == Access::Mobile)
            .count() as f64
            / n as f64;
        assert!(
            (mobile - m.mobile).abs() < 0.015,
            "{mobile} vs {}",
            m.mobile
        );
        r.paths.mobile_share_scale = 3.0 / m.mobile;
        assert_eq!(r.scaled_mix().mobile, 1.0, "capped at every path");
    }

    #[test]
    fn capacity_scale_multiplies_the_rate_by_access_kind() {
        let mut r = seed_regions().remove(2);
        r.capacity_scale = CapacityScale {
            fixed: 2.0,
            mobile: 3.0,
        };
        let mut none = r.clone();
        none.capacity_scale = CapacityScale::NONE;
        let (mut a, mut b) = (Rng::from_u64(9), Rng::from_u64(9));
        for _ in 0..500 {
            let (p, q) = (r.sample(&mut a), none.sample(&mut b));
            let k = match p.access {
                Access::Mobile => 3.0,
                _ => 2.0,
            };
            let want = (q.rate.bits_per_sec() as f64 * k).min(RATE_RANGE_MBPS.1 * 1e6);
            let got = p.rate.bits_per_sec() as f64;
            // Clamping at 0.5 Mbit/s aside, the scaled rate is k times.
            if q.rate.bits_per_sec() as f64 > RATE_RANGE_MBPS.0 * 1e6 {
                // (Rates are whole bytes per second: 8 bit/s of rounding.)
                assert!((got - want).abs() <= 16.0, "{got} vs {want}");
            }
        }
        // West Europe: Ookla fixed 105 / NDT 67.7, mobile 82 / 67.7.
        let w = seed_regions().remove(2).capacity_scale;
        assert!((w.fixed - 105.0 / 67.7).abs() < 1e-9);
        assert!((w.mobile - 82.0 / 67.7).abs() < 1e-9);
    }

    #[test]
    fn capacity_weight_moves_the_rate_from_the_ndt_flow_to_the_capacity() {
        let mut r = seed_regions().remove(2);
        r.capacity_scale = CapacityScale {
            fixed: 4.0,
            mobile: 9.0,
        };
        let rates = |w: f64| {
            let mut r = r.clone();
            r.paths.capacity_weight = w;
            let mut rng = Rng::from_u64(5);
            (0..300)
                .map(|_| r.sample(&mut rng))
                .map(|p| (p.access, p.rate.bits_per_sec() as f64))
                .collect::<Vec<_>>()
        };
        let mut ndt = r.clone();
        ndt.capacity_scale = CapacityScale::NONE;
        let mut rng = Rng::from_u64(5);
        let single: Vec<f64> = (0..300)
            .map(|_| ndt.sample(&mut rng).rate.bits_per_sec() as f64)
            .collect();
        // 0 is the NDT rate, the same paths as without the scale at all.
        for ((_, got), want) in rates(0.0).iter().zip(&single) {
            assert_eq!(got, want);
        }
        // 1/2 is the geometric mean: ×2 fixed, ×3 mobile (clamps aside).
        let lo = RATE_RANGE_MBPS.0 * 1e6;
        let hi = RATE_RANGE_MBPS.1 * 1e6;
        for ((access, got), q) in rates(0.5).iter().zip(&single) {
            let k = if *access == Access::Mobile { 3.0 } else { 2.0 };
            if *q > lo && q * 9.0 < hi {
                // (Rates are whole bytes per second: the NDT rate's
                // rounding, 8 bit/s, scales by k.)
                assert!((got - q * k).abs() <= 8.0 * (k + 1.0), "{got} vs {}", q * k);
            }
        }
        // 1, the default, is the whole scale.
        assert_eq!(PathModel::default().capacity_weight, 1.0);
        for ((access, got), q) in rates(1.0).iter().zip(&single) {
            let k = if *access == Access::Mobile { 9.0 } else { 4.0 };
            if *q > lo && q * 9.0 < hi {
                // (Rates are whole bytes per second: the NDT rate's
                // rounding, 8 bit/s, scales by k.)
                assert!((got - q * k).abs() <= 8.0 * (k + 1.0), "{got} vs {}", q * k);
            }
        }
    }

    #[test]
    fn cross_traffic_reaches_fixed_paths_only_and_keeps_the_draws() {
        let mut r = seed_regions().remove(4); // africa: two thirds mobile
        let base = r.clone();
        r.paths.cross_traffic_share = 1.0;
        let (mut a, mut b) = (Rng::from_u64(11), Rng::from_u64(11));
        let mut fixed = 0;
        for _ in 0..2000 {
            let (p, q) = (r.sample(&mut a), base.sample(&mut b));
            // The same path, whatever the share: only the users differ.
            assert_eq!((p.access, p.rate, p.rtt), (q.access, q.rate, q.rtt));
            assert_eq!(q.web_users, 0);
            if p.access == Access::Mobile {
                assert_eq!(p.web_users, 0, "a phone's cellular downlink is its own");
            } else {
                assert_eq!(p.web_users, r.paths.cross_traffic_users);
                fixed += 1;
            }
        }
        assert!(fixed > 300, "{fixed}");
    }
}
