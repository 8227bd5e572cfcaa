//! Declared assumptions: the population parameters no public source pins
//! down, each with the value the model uses, the range it could plausibly
//! take and the reason for that range (docs/sensitivity.md).
//!
//! A [`Param`] is a parameter the sensitivity analysis knows how to read
//! from and write into a [`Population`]; an [`Assumption`] declares one.
//! The built-in declarations ([`builtin`]) cover the parameters the
//! population model labels assumptions; a population file adds to or
//! replaces them with `[[assumption]]` tables (`population_file/assumption.rs`):
//!
//! ```toml
//! [[assumption]]
//! key = "paths.fixed_aqm_share"   # a Param key (Param::ALL)
//! range = [0.0, 1.0]              # plausible values, inside the key's bounds
//! reason = "no source gives the AQM share of fixed downlinks"
//! value = 0.7                     # optional: checked against the model's
//! ```
//!
//! The value is never set here: it is whatever the population uses (its
//! `[paths]` and `[[region]]` keys or the defaults), so a declaration can
//! only describe the model, not change it.

use core::fmt;

use super::population::Region;
use super::Population;

/// A population parameter that can be declared an assumption and swept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Param {
    /// `PathModel::fixed_aqm_share`: fixed accesses whose bottleneck runs
    /// an AQM.
    FixedAqmShare,
    /// `PathModel::wifi_fq_codel_share`: Wi-Fi hops that are the
    /// bottleneck and run FQ-CoDel.
    WifiFqCodelShare,
    /// `PathModel::mobile_aqm_share`: mobile bottlenecks running FQ-CoDel
    /// over their buffer.
    MobileAqmShare,
    /// `PathModel::access_correlation`: the copula correlation between the
    /// access type and the bandwidth/RTT draws.
    AccessCorrelation,
    /// `Region::chrome_ack_share`, every region alike: receivers with
    /// Chrome's ACK decimation.
    ChromeAckShare,
    /// `PathModel::mobile_share_scale`: multiplies every region's mobile
    /// share of the access mixture.
    MobileShareScale,
    /// `PathModel::computer_wifi_share`: the other devices' (laptops',
    /// desktops') requests over Wi-Fi.
    ComputerWifiShare,
    /// `PathModel::client_processing_ms`: the client's handshake
    /// processing, ms.
    ClientProcessingMs,
    /// `PathModel::cross_traffic_share`: fixed paths whose bottleneck
    /// other users of the line browse on.
    CrossTrafficShare,
    /// `PathModel::capacity_weight`: how much of the gap between the NDT
    /// single-flow rate and the access capacity the bottleneck has.
    CapacityWeight,
    /// `Region::respect_app_limited_share`, every region alike: connections
    /// whose server respects the app-limited state (quicly's rule; the rest
    /// grow on every ACK frame, `super::app_limited`).
    RespectAppLimitedShare,
    /// `PathModel::cross_traffic_users`: web users browsing on a shared
    /// bottleneck (a whole number; [`Param::snap`]).
    CrossTrafficUsers,
    /// `Region::video_share`, every region alike: connections whose object
    /// is an adaptive-bitrate video segment sized by the path's rate
    /// (`super::video`).
    VideoShare,
}

impl Param {
    /// Every parameter, in report order.
    pub const ALL: [Param; 13] = [
        Param::FixedAqmShare,
        Param::WifiFqCodelShare,
        Param::MobileAqmShare,
        Param::AccessCorrelation,
        Param::ChromeAckShare,
        Param::MobileShareScale,
        Param::ComputerWifiShare,
        Param::ClientProcessingMs,
        Param::CrossTrafficShare,
        Param::CapacityWeight,
        Param::RespectAppLimitedShare,
        Param::CrossTrafficUsers,
        Param::VideoShare,
    ];

    /// The key in population files and reports (the file key it mirrors,
    /// prefixed by its table).
    pub fn key(self) -> &'static str {
        match self {
            Param::FixedAqmShare => "paths.fixed_aqm_share",
            Param::WifiFqCodelShare => "paths.wifi_fq_codel_share",
            Param::MobileAqmShare => "paths.mobile_aqm_share",
            Param::AccessCorrelation => "paths.access_correlation",
            Param::ChromeAckShare => "region.chrome_ack_share",
            Param::MobileShareScale => "paths.mobile_share_scale",
            Param::ComputerWifiShare => "paths.computer_wifi_share",
            Param::ClientProcessingMs => "paths.client_processing_ms",
            Param::CrossTrafficShare => "paths.cross_traffic_share",
            Param::CapacityWeight => "paths.capacity_weight",
            Param::RespectAppLimitedShare => "endpoint.respect_app_limited_share",
            Param::CrossTrafficUsers => "paths.cross_traffic_users",
            Param::VideoShare => "workload.video_share",
        }
    }

    /// The parameter named `key`.
    pub fn parse(key: &str) -> Result<Param, AssumptionError> {
        Param::ALL
            .into_iter()
            .find(|p| p.key() == key)
            .ok_or_else(|| AssumptionError::UnknownParam {
                key: key.to_string(),
            })
    }

    /// The values the model accepts at all (shares in [0, 1]; the
    /// correlation below 1 so the copula's other weight stays real; the
    /// mobile scale up to 3; the handshake processing up to 10 s, the
    /// scenario file's cap; 1 to 64 web users, the population file's).
    pub fn bounds(self) -> (f64, f64) {
        match self {
            Param::AccessCorrelation => (0.0, 0.95),
            Param::MobileShareScale => (0.0, 3.0),
            Param::ClientProcessingMs => (0.0, 10_000.0),
            Param::CrossTrafficUsers => (1.0, 64.0),
            _ => (0.0, 1.0),
        }
    }

    /// The value the model runs for `v`: a count of users is a whole
    /// number (the nearest), every other parameter takes `v` as it is. A
    /// study's design snaps its draws, so a point records what it ran.
    pub fn snap(self, v: f64) -> f64 {
        match self {
            Param::CrossTrafficUsers => v.round(),
            _ => v,
        }
    }

    /// The parameter's value in `pop`: the regions' common value, or the
    /// mean over its regions weighted by region weight if they differ (the
    /// `[paths]` parameters are the same in every region of a file or
    /// preset). `None` for a grid, which has none.
    pub fn get(self, pop: &Population) -> Option<f64> {
        let Population::Regions(rs) = pop else {
            return None;
        };
        let total: f64 = rs.iter().map(|r| r.weight.max(0.0)).sum();
        if rs.is_empty() || total <= 0.0 {
            return None;
        }
        let first = self.of_region(&rs[0]);
        if rs.iter().all(|r| self.of_region(r) == first) {
            // Exactly the value, not a mean with rounding in it.
            return Some(first);
        }
        let sum: f64 = rs
            .iter()
            .map(|r| r.weight.max(0.0) * self.of_region(r))
            .sum();
        Some(sum / total)
    }

    /// Sets the parameter to `v` in every region of `pop` (a grid has no
    /// such parameter and is left alone); a count takes
    /// [`Param::snap`]`(v)`, within its bounds.
    pub fn set(self, pop: &mut Population, v: f64) {
        if let Population::Regions(rs) = pop {
            for r in rs {
                match self.of_region_mut(r) {
                    Some(x) => *x = v,
                    None => {
                        let (lo, hi) = self.bounds();
                        r.paths.cross_traffic_users = self.snap(v).clamp(lo, hi) as u32;
                    }
                }
            }
        }
    }

    fn of_region(self, r: &Region) -> f64 {
        match self {
            Param::FixedAqmShare => r.paths.fixed_aqm_share,
            Param::WifiFqCodelShare => r.paths.wifi_fq_codel_share,
            Param::MobileAqmShare => r.paths.mobile_aqm_share,
            Param::AccessCorrelation => r.paths.access_correlation,
            Param::ChromeAckShare => r.chrome_ack_share,
            Param::MobileShareScale => r.paths.mobile_share_scale,
            Param::ComputerWifiShare => r.paths.computer_wifi_share,
            Param::ClientProcessingMs => r.paths.client_processing_ms,
            Param::CrossTrafficShare => r.paths.cross_traffic_share,
            Param::CapacityWeight => r.paths.capacity_weight,
            Param::RespectAppLimitedShare => r.respect_app_limited_share,
            Param::CrossTrafficUsers => f64::from(r.paths.cross_traffic_users),
            Param::VideoShare => r.video_share,
        }
    }

    /// The parameter's place in `r`; `None` for a count (not an `f64`:
    /// [`Param::set`] converts it).
    fn of_region_mut(self, r: &mut Region) -> Option<&mut f64> {
        Some(match self {
            Param::FixedAqmShare => &mut r.paths.fixed_aqm_share,
            Param::WifiFqCodelShare => &mut r.paths.wifi_fq_codel_share,
            Param::MobileAqmShare => &mut r.paths.mobile_aqm_share,
            Param::AccessCorrelation => &mut r.paths.access_correlation,
            Param::ChromeAckShare => &mut r.chrome_ack_share,
            Param::MobileShareScale => &mut r.paths.mobile_share_scale,
            Param::ComputerWifiShare => &mut r.paths.computer_wifi_share,
            Param::ClientProcessingMs => &mut r.paths.client_processing_ms,
            Param::CrossTrafficShare => &mut r.paths.cross_traffic_share,
            Param::CapacityWeight => &mut r.paths.capacity_weight,
            Param::RespectAppLimitedShare => &mut r.respect_app_limited_share,
            Param::VideoShare => &mut r.video_share,
            Param::CrossTrafficUsers => return None,
        })
    }
}

/// Why a declaration is refused; each names its parameter's key and
/// prints as the population file's error (`KEY: what is wrong`).
#[derive(Clone, Debug, PartialEq)]
pub enum AssumptionError {
    /// `key` names no [`Param`]; the message lists [`Param::ALL`].
    UnknownParam {
        /// The key as written.
        key: String,
    },
    /// A grid population has no regions, so no such parameter.
    Grid {
        /// The parameter.
        param: Param,
    },
    /// The range is not ascending, not finite or not inside
    /// [`Param::bounds`].
    RangeOutOfBounds {
        /// The parameter.
        param: Param,
        /// The range given, low to high as written.
        range: (f64, f64),
    },
    /// A stated `value` differs from the one the population uses (a
    /// declaration describes the model and never sets it).
    NotTheModelValue {
        /// The parameter.
        param: Param,
        /// The value the declaration states.
        stated: f64,
        /// The value the population uses.
        value: f64,
    },
    /// The population's value lies outside the declared range.
    ValueOutsideRange {
        /// The parameter.
        param: Param,
        /// The value the population uses.
        value: f64,
        /// The range given.
        range: (f64, f64),
    },
    /// The declaration gives no reason for its range.
    NoReason {
        /// The parameter.
        param: Param,
    },
    /// One file declares the parameter twice.
    DeclaredTwice {
        /// The parameter.
        param: Param,
    },
}

impl fmt::Display for AssumptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AssumptionError::UnknownParam { ref key } => {
                let keys: Vec<&str> = Param::ALL.iter().map(|p| p.key()).collect();
                write!(f, "unknown parameter `{key}` (one of: {})", keys.join(", "))
            }
            AssumptionError::Grid { param } => write!(
                f,
                "{}: a grid population has no such parameter",
                param.key()
            ),
            AssumptionError::RangeOutOfBounds {
                param,
                range: (lo, hi),
            } => {
                let (min, max) = param.bounds();
                write!(
                    f,
                    "{}: range [{lo}, {hi}] must be ascending and inside [{min}, {max}]",
                    param.key()
                )
            }
            AssumptionError::NotTheModelValue {
                param,
                stated,
                value,
            } => write!(
                f,
                "{}: value {stated} is not the population's {value} (a declaration describes \
                 the model; set the value where the population sets it)",
                param.key()
            ),
            AssumptionError::ValueOutsideRange {
                param,
                value,
                range: (lo, hi),
            } => write!(
                f,
                "{}: the population's value {value} lies outside the range [{lo}, {hi}]",
                param.key()
            ),
            AssumptionError::NoReason { param } => {
                write!(f, "{}: give the range's reason", param.key())
            }
            AssumptionError::DeclaredTwice { param } => {
                write!(f, "{}: declared twice", param.key())
            }
        }
    }
}

impl std::error::Error for AssumptionError {}

/// One declared assumption.
#[derive(Clone, Debug, PartialEq)]
pub struct Assumption {
    /// The parameter.
    pub param: Param,
    /// The value the population uses.
    pub value: f64,
    /// Plausible values, low to high (contains `value`).
    pub range: (f64, f64),
    /// Why the range is what it is (and why no source pins the value).
    pub reason: String,
}

impl Assumption {
    /// A declaration of `param` over `range` for `pop`, checked: the range
    /// lies inside the parameter's bounds and contains the value `pop`
    /// uses, and a stated `value` equals it.
    pub fn declare(
        pop: &Population,
        param: Param,
        range: (f64, f64),
        reason: &str,
        stated: Option<f64>,
    ) -> Result<Assumption, AssumptionError> {
        let value = param.get(pop).ok_or(AssumptionError::Grid { param })?;
        let (lo, hi) = range;
        let (min, max) = param.bounds();
        if !(lo.is_finite() && hi.is_finite() && min <= lo && lo <= hi && hi <= max) {
            return Err(AssumptionError::RangeOutOfBounds { param, range });
        }
        if let Some(stated) = stated {
            if (stated - value).abs() > 1e-12 {
                return Err(AssumptionError::NotTheModelValue {
                    param,
                    stated,
                    value,
                });
            }
        }
        if !(lo..=hi).contains(&value) {
            return Err(AssumptionError::ValueOutsideRange {
                param,
                value,
                range,
            });
        }
        if reason.trim().is_empty() {
            return Err(AssumptionError::NoReason { param });
        }
        Ok(Assumption {
            param,
            value,
            range,
            reason: reason.trim().to_string(),
        })
    }

    /// One line for `--list-presets` and reports:
    /// `key = value, range [lo, hi]: reason`.
    pub fn describe(&self) -> String {
        format!(
            "{} = {}, range [{}, {}]: {}",
            self.param.key(),
            self.value,
            self.range.0,
            self.range.1,
            self.reason
        )
    }
}

/// The built-in ranges and reasons (docs/sensitivity.md gives the longer
/// argument for each).
pub const BUILTIN: [(Param, (f64, f64), &str); 13] = [
    (
        Param::FixedAqmShare,
        (0.0, 1.0),
        "no source gives the share of fixed downlinks whose queue (in the ISP's CMTS, DSLAM \
         or OLT) runs an AQM; a home router's fq_codel orders only the uplink. Nothing bounds \
         it, so the whole range",
    ),
    (
        Param::WifiFqCodelShare,
        (0.0, 1.0),
        "Linux mac80211 has per-station FQ-CoDel since 4.12 (Hoiland-Jorgensen et al., \
         USENIX ATC 2017), but no source gives how many Wi-Fi hops are the bottleneck and run \
         it, so the whole range",
    ),
    (
        Param::MobileAqmShare,
        (0.0, 0.5),
        "the one measurement of mobile downlink queues (Jiang et al., IMC 2012) found deep \
         drop-tail buffers on all four US carriers it measured, so a majority of AQM'd mobile \
         bottlenecks would contradict it; no later measurement bounds it further",
    ),
    (
        Param::AccessCorrelation,
        (0.0, 0.6),
        "the sign is sourced (Ookla's mobile median is below the fixed one in 6 of the 7 \
         regions), the strength is not measured jointly: from 0 (access type independent of \
         speed and distance) to 0.6, the assumed 0.4 and half again (the upper end is itself \
         an assumption)",
    ),
    (
        Param::ChromeAckShare,
        (0.4, 0.8),
        "no source gives the split of the experiment's clients between Chromium's ACK \
         decimation and RFC 9000's every-2 policy (Safari, apps, other stacks); 0.2 either \
         side of the assumed 0.6 (the width is itself an assumption). Chromium's policy is \
         sourced (QuicReceivedPacketManager: every 2 packets for the first 100, then every 10 \
         or a quarter of min RTT); h2o's one published record (19 ACK frames for 191 packets) \
         fits neither policy and is one connection, not a mix",
    ),
    (
        Param::MobileShareScale,
        (0.7, 1.5),
        "the regions' cellular shares are Cloudflare Radar's mobile share of requests (2025) \
         times Opensignal's share of phones' time off Wi-Fi; Radar's per-country figures were \
         not available, so six regions use the global 43 %. Rula et al. (IMC 2017) measured \
         a CDN's cellular share of traffic directly: France 12.1 % and the US 16.6 % against \
         the mix's 17 % and 19 % (×0.7, ×0.9), Ghana 96 % against Africa's 67 % (×1.4)",
    ),
    (
        Param::ComputerWifiShare,
        (0.3, 0.8),
        "no source gives the share of laptops' and desktops' requests that cross Wi-Fi; the \
         model's 0.5 is an even split (laptops mostly on Wi-Fi, desktops mostly on Ethernet). \
         From 0.3 (desktops and office Ethernet carry most of it) to 0.8 (nearly all but \
         desktops on Wi-Fi); both ends are themselves assumptions",
    ),
    (
        Param::ClientProcessingMs,
        (0.0, 40.0),
        "no published distribution of a client's TLS/QUIC handshake processing was found; h2o's \
         record in the RubyKaigi 2026 talk shows the server's handshake RTT 40 ms above the \
         path's minimum (106 against 66 ms) for one connection, an upper end that also holds \
         the path's own variation; 0 (a fast client) is the model's value",
    ),
    (
        Param::CrossTrafficShare,
        (0.0, 0.5),
        "how many flows share a client's bottleneck: no source gives the share of transfers \
         that meet other users' traffic on their access. Maier et al. (NAT usage in residential \
         broadband networks, PAM 2011; 20,000 DSL lines) found several hosts active at the \
         same time on 10 % of lines and several hosts at all on up to 52 %; a share of lines \
         over a whole trace is not a share of transfers, so 0 (a connection alone, the model's \
         value) stays and the range runs to 0.5, every line with several hosts in use during \
         the transfer. Fixed paths only; 2 web users each (not swept)",
    ),
    (
        Param::CapacityWeight,
        (0.0, 1.0),
        "which rate a connection's bottleneck has between the region's single-flow NDT rate (0) \
         and its access capacity from Ookla's multi-flow medians (1, the model's value). \
         MacMillan et al. (A Comparative Analysis of Ookla Speedtest and M-Lab's NDT7, \
         arXiv 2205.12376, 2022) found the two tests agree on short \
         paths and NDT lower on long ones and more variable in the wide area, so part of the \
         gap is M-Lab's server placement, which a nearby CDN POP does not see, and part may \
         be what one flow gets; no source splits it, so the whole range",
    ),
    (
        Param::RespectAppLimitedShare,
        (0.0, 1.0),
        "h2o/quicly draws per connection whether its congestion control respects the \
         app-limited state (quicly 45bf8a37, lib/quicly.c: enable_ratio.respect_app_limited, \
         a ratio out of 255; h2o's respect-app-limited, ON by default). The one production \
         record the RubyKaigi 2026 talk shows has num-respected-app-limited 0, so the model's \
         value is 0 (every connection grows on every ACK frame). One connection cannot give a \
         ratio: it rules out h2o's default (1) and, at 95 % confidence, shares above 0.95, \
         nothing more, so the whole range",
    ),
    (
        Param::CrossTrafficUsers,
        (1.0, 8.0),
        "how many other users browse on a shared fixed bottleneck while the transfer runs \
         (3GPP web users, on/off; the model's 2 is the web-user model's default). No source \
         gives the number of flows competing on a home's downlink during a transfer: Maier et \
         al. (PAM 2011) found several hosts active at the same time on 10 % of 20,000 DSL lines \
         without counting them, and Sandvine (Global Internet Phenomena Spotlight, Inside the \
         Connected Home, 2016) an average of over seven devices active in a North American \
         home in a day (6 % of homes over 15). From 1 (the fewest that share at all) to 8 (every \
         device of an average home browsing at once, an upper end). Only paths drawn by \
         paths.cross_traffic_share have them (0 in the model, so alone it moves nothing); a \
         phone's cellular downlink is scheduled per device and gets none",
    ),
    (
        Param::VideoShare,
        (0.0, 0.65),
        "the share of connections whose object is an adaptive-bitrate video segment, sized by \
         the path (Apple's HLS example ladder x its 6 s target duration, the rung dash.js's \
         throughput rule picks at 0.9 x the path's rate; a segment outside the workload's \
         sizes leaves the drawn object). No source gives the video share of the experiment's \
         objects >= 200 KB; 0 is the model without segments. Sandvine's Global Internet \
         Phenomena Report (January 2023) puts video at 65 % of all internet traffic in 2022, \
         bytes on every network including the video services' own CDNs, taken as the upper \
         end for a general CDN's objects (an assumption, not a bound)",
    ),
];

/// The built-in declarations for `pop` (none for a grid).
pub fn builtin(pop: &Population) -> Vec<Assumption> {
    BUILTIN
        .iter()
        .filter_map(|(p, range, reason)| Assumption::declare(pop, *p, *range, reason, None).ok())
        .collect()
}

/// `base` with `overrides` replacing the declarations of the same
/// parameter (and the rest appended), in [`Param::ALL`] order.
pub fn merged(base: Vec<Assumption>, overrides: Vec<Assumption>) -> Vec<Assumption> {
    let mut out: Vec<Assumption> = base
        .into_iter()
        .filter(|b| overrides.iter().all(|o| o.param != b.param))
        .collect();
    out.extend(overrides);
    out.sort_by_key(|a| a.param);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::population::seed_regions;

    fn seed() -> Population {
        Population::Regions(seed_regions())
    }

    #[test]
    fn every_param_reads_back_what_it_sets() {
        let mut pop = seed();
        for (i, p) in Param::ALL.into_iter().enumerate() {
            let (lo, hi) = p.bounds();
            let v = p.snap(lo + (hi - lo) * (0.1 + 0.05 * i as f64));
            p.set(&mut pop, v);
            assert!((p.get(&pop).unwrap() - v).abs() < 1e-12, "{p:?}");
            assert_eq!(Param::parse(p.key()), Ok(p));
        }
        let e = Param::parse("paths.nope").unwrap_err();
        assert_eq!(
            e,
            AssumptionError::UnknownParam {
                key: "paths.nope".to_string()
            }
        );
        assert!(
            e.to_string()
                .starts_with("unknown parameter `paths.nope` (one of: paths.fixed_aqm_share, "),
            "{e}"
        );
    }

    #[test]
    fn builtin_declarations_cover_every_param_and_hold_the_model_value() {
        let pop = seed();
        let a = builtin(&pop);
        assert_eq!(a.len(), Param::ALL.len());
        for d in &a {
            assert_eq!(Some(d.value), d.param.get(&pop));
            assert!(d.range.0 <= d.value && d.value <= d.range.1, "{d:?}");
            assert!(d.range.0 < d.range.1, "{d:?}: a range, not a point");
        }
        assert_eq!(a[0].param, Param::FixedAqmShare);
        assert!((a[0].value - 0.7).abs() < 1e-12);
    }

    #[test]
    fn a_declaration_describes_the_model_and_never_changes_it() {
        let pop = seed();
        let p = Param::FixedAqmShare;
        assert!(Assumption::declare(&pop, p, (0.2, 0.9), "why", Some(0.7)).is_ok());
        let e = Assumption::declare(&pop, p, (0.2, 0.9), "why", Some(0.5)).unwrap_err();
        assert!(
            matches!(e, AssumptionError::NotTheModelValue { .. }),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "paths.fixed_aqm_share: value 0.5 is not the population's 0.7 (a declaration \
             describes the model; set the value where the population sets it)"
        );
        let e = Assumption::declare(&pop, p, (0.8, 0.9), "why", None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "paths.fixed_aqm_share: the population's value 0.7 lies outside the range [0.8, 0.9]"
        );
        let e = Assumption::declare(&pop, p, (0.9, 0.2), "why", None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "paths.fixed_aqm_share: range [0.9, 0.2] must be ascending and inside [0, 1]"
        );
        let e = Assumption::declare(&pop, p, (0.2, 0.9), " ", None).unwrap_err();
        assert_eq!(e, AssumptionError::NoReason { param: p });
        assert_eq!(
            e.to_string(),
            "paths.fixed_aqm_share: give the range's reason"
        );
    }

    #[test]
    fn a_count_of_users_is_a_whole_number_within_its_bounds() {
        let mut pop = seed();
        let p = Param::CrossTrafficUsers;
        assert_eq!(p.get(&pop), Some(2.0), "the web-user model's default");
        p.set(&mut pop, 4.4);
        assert_eq!(p.get(&pop), Some(4.0));
        p.set(&mut pop, 4.5);
        assert_eq!(p.get(&pop), Some(5.0));
        p.set(&mut pop, 900.0);
        assert_eq!(p.get(&pop), Some(64.0));
        assert_eq!(Param::FixedAqmShare.snap(0.45), 0.45);
        let d = builtin(&seed());
        let users = d.iter().find(|a| a.param == p).unwrap();
        assert_eq!((users.value, users.range), (2.0, (1.0, 8.0)));
    }

    #[test]
    fn overrides_replace_the_builtin_declaration_of_their_parameter() {
        let pop = seed();
        let o = Assumption::declare(&pop, Param::FixedAqmShare, (0.5, 0.9), "mine", None).unwrap();
        let m = merged(builtin(&pop), vec![o.clone()]);
        assert_eq!(m.len(), Param::ALL.len());
        assert_eq!(m[0], o);
    }
}
