//! Built-in fleet experiments, one per published experiment they reproduce.
//!
//! | preset | source | arms (baseline first) | population |
//! |---|---|---|---|
//! | `rapid-start-2026` | Rapid Start slides, IETF 125 (Fastly, 7 POPs) | baseline, jumpstart, rapid-no-jump, rapidstart | 7 regions, 200 KB – 3.2 MB |
//! | `rapid-start-2026-bbr3` | the same, plus BBRv3 | the four, then bbr3 | as above |
//! | `cubic-hystart-matrix` | Cloudflare, "Leveling up Web Performance with HTTP/3" (quiche lab matrix) | reno, cubic, cubic+hystart | grid: loss 0–8 % |
//! | `iw10-vs-iw32` | Ian Swett, "QUIC Congestion Control and Loss Recovery" (Google QUIC) | iw32, iw10 | 7 regions, 10 KB – 10 MB |
//! | `reno-vs-cubic` | the same talk | cubic, reno | 7 regions, 10 KB – 10 MB |
//! | `pacing-on-off` | the same talk | paced, unpaced | 7 regions, 10 KB – 10 MB |
//! | `cubic-1conn-vs-2conn` | the same talk | 2conn, 1conn | 7 regions, 10 KB – 10 MB |
//! | `l4s-2026` | L4S on Low Latency DOCSIS (docs/l4s.md) | cubic+rapidstart, prague+rapidstart | 7 regions, 200 KB – 3.2 MB, [`L4S_SHARE`] of AQM'd fixed accesses on `docsis_lld` |
//! | `iw10-vs-iw32-pages`, `reno-vs-cubic-pages`, `pacing-on-off-pages`, `cubic-1conn-vs-2conn-pages` | the same talk, measured as Google did: page load time | as without `-pages` | 7 regions, 3GPP pages on pooled, mostly 0-RTT connections ([`google_page_loads`]) |
//!
//! The Google experiments' baseline is the QUIC default of the time (CUBIC
//! with 2-connection emulation, IW 32, paced); each preset changes one
//! thing, as the talk's experiments did.

use core::time::Duration;

use ramp_cc::spec::{SEED_ARMS, SEED_BBR3_ARMS};
use ramp_cc::Rate;

use super::arms::{parse_arms, Arm, ArmError};
use super::grid::Grid;
use super::population::seed_regions;
use super::workload::{SizeDist, Workload};
use super::{FleetPlan, Population, FLEET_TIME_LIMIT};
use crate::receiver::AckPolicy;
use crate::Scenario;
use crate::SimError;

/// A preset's name and one-line description.
pub const PRESETS: &[(&str, &str)] = &[
    (
        "rapid-start-2026",
        "Rapid Start production A/B (Rapid Start slides, IETF 125): 4 arms, 7 regions, 200 KB-3.2 MB",
    ),
    (
        "rapid-start-2026-bbr3",
        "rapid-start-2026 with BBRv3 as a fifth arm (draft-ietf-ccwg-bbr-06)",
    ),
    (
        "cubic-hystart-matrix",
        "Reno vs CUBIC vs CUBIC+HyStart++ over loss 0-8% (Cloudflare's quiche lab matrix)",
    ),
    ("iw10-vs-iw32", "Google QUIC: IW 10 vs IW 32 (Swett, QUIC CC and loss recovery talk)"),
    ("reno-vs-cubic", "Google QUIC: Reno vs CUBIC (Swett, QUIC CC and loss recovery talk)"),
    ("pacing-on-off", "Google QUIC: pacing on vs off (Swett, QUIC CC and loss recovery talk)"),
    (
        "cubic-1conn-vs-2conn",
        "Google QUIC: CUBIC 1- vs 2-connection emulation (Swett, QUIC CC and loss recovery talk)",
    ),
    (
        "iw10-vs-iw32-pages",
        "iw10-vs-iw32 on page loads (3GPP pages, pooled 0-RTT connections), PLT as the metric",
    ),
    (
        "reno-vs-cubic-pages",
        "reno-vs-cubic on page loads (3GPP pages, pooled 0-RTT connections), PLT as the metric",
    ),
    (
        "pacing-on-off-pages",
        "pacing-on-off on page loads (3GPP pages, pooled 0-RTT connections), PLT as the metric",
    ),
    (
        "cubic-1conn-vs-2conn-pages",
        "cubic-1conn-vs-2conn on page loads (3GPP pages, pooled 0-RTT connections), PLT as the metric",
    ),
    (
        "l4s-2026",
        "L4S arm: prague+rapidstart vs cubic+rapidstart, 30% of AQM'd fixed accesses on Low Latency DOCSIS [assumption]",
    ),
];

/// Share of the AQM'd fixed accesses that run Low Latency DOCSIS in the
/// `l4s-2026` preset. [assumption: 0.3. No published share of L4S-enabled
/// bottlenecks was found; Comcast announced Low Latency DOCSIS with L4S
/// across its network in 2025, and DOCSIS is the largest single fixed
/// access technology in North America, so 30 % of the AQM'd fixed
/// accesses is a round guess, not a measurement]
pub const L4S_SHARE: f64 = 0.3;

/// Default connection count of a preset when none is given.
pub const DEFAULT_CONNECTIONS: u64 = 10_000;

/// The object sizes of the Google presets: log-uniform 10 KB – 10 MB in
/// decade bins (web pages to video segments) [assumption: the talk gives
/// no size mix].
fn web_workload() -> Workload {
    Workload {
        sizes: SizeDist::LogUniform {
            lo: 10_000,
            hi: 10_000_000,
        },
        bin_edges: vec![10_000, 100_000, 1_000_000, 10_000_000],
        users: Default::default(),
        pages: None,
    }
}

/// Share of Google QUIC connections that were 0-RTT: "about 75 %" (Swett,
/// "QUIC Congestion Control and Loss Recovery", the 0-RTT slide).
pub const GOOGLE_ZERO_RTT_SHARE: f64 = 0.75;

/// Share of the Google presets' page loads that find a warm (pooled)
/// connection. [assumption: 0.5. The talk reports that connection pooling
/// improves latency about 10 % but not how many page loads reuse a
/// connection; half is a midpoint, not a fit]
pub const GOOGLE_WARM_SHARE: f64 = 0.5;

/// The workload of the `-pages` presets: a 3GPP page per connection
/// (crate::web's model, one connection per page, crate::page), a
/// [`GOOGLE_WARM_SHARE`] of them on a warm connection, and
/// [`GOOGLE_ZERO_RTT_SHARE`] of the connections resumed with 0-RTT. The
/// resumed ones hold an address-validation token: gQUIC's 0-RTT client
/// hello carries the source-address token with the cached server config
/// (the QUIC crypto design document's "source-address token"), so no
/// anti-amplification limit applies. Their clients send their cached RTT
/// (gQUIC's `IRTT`; Chromium sends the previous connection's smoothed RTT
/// to the server in every hello, net/quic/quic_session_pool.cc), so a
/// 0-RTT connection's server paces its first window at the path's RTT
/// (`crate::resumption`).
pub fn google_page_loads() -> Workload {
    let mut w = web_workload().with_pages(super::workload::PageLoads {
        model: crate::web::HttpModel::default(),
        warm_share: GOOGLE_WARM_SHARE,
    });
    w.users.resumed_share = GOOGLE_ZERO_RTT_SHARE;
    w.users.token_share = 1.0;
    w.users.rtt_hint = true;
    w
}

/// The endpoint and time limit every fleet connection starts from: the
/// seed-100m preset's endpoint (MDS 1252, IW 30, jump 60, leaky-bucket
/// pacer) with a 300 s limit.
pub fn base_scenario() -> Result<Scenario, SimError> {
    let p = crate::scenario::presets::find("seed-100m")
        .ok_or(SimError::Internal("preset seed-100m missing"))?;
    let mut sc = Scenario::from_preset(&p);
    sc.time_limit = FLEET_TIME_LIMIT;
    Ok(sc)
}

fn arms(list: &[(&str, &str)]) -> Result<Vec<Arm>, ArmError> {
    let text: Vec<String> = list.iter().map(|(l, s)| format!("{l}={s}")).collect();
    parse_arms(&text.join(","))
}

/// The cubic-hystart-matrix grid: 100 Mbit/s, 40 ms RTT, a 1-BDP queue, a
/// 10 MB object, loss 0–8 % [assumption: the talk shows the loss axis and
/// "an object of some size"; the rest is ours].
pub fn hystart_grid(seeds_per_cell: u64) -> Grid {
    Grid {
        rates: vec![Rate::from_bits_per_sec(100_000_000)],
        rtts: vec![Duration::from_millis(40)],
        queues: vec![Duration::from_millis(40)],
        losses: vec![0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08],
        sizes: vec![10_000_000],
        seeds_per_cell: seeds_per_cell.max(1),
        ack_policy: AckPolicy::Rfc9000,
        aqm: ramp_link::Aqm::DropTail,
    }
}

/// The plan of preset `name` with `connections` connections (for grids:
/// rounded up to whole cells) and run seed `seed`.
pub fn plan(name: &str, connections: u64, seed: u64) -> Result<FleetPlan, SimError> {
    // The Google presets' page-load mode: the same arms and paths.
    if let Some(objects) = name.strip_suffix("-pages") {
        if PRESETS.iter().any(|p| p.0 == name) {
            let mut p = plan(objects, connections, seed)?;
            p.name = name.to_string();
            p.base.name = name.to_string();
            p.workload = google_page_loads();
            return Ok(p);
        }
    }
    let base = base_scenario()?;
    let regions = || Population::Regions(seed_regions());
    let (population, workload, arm_list, mut base) = match name {
        "rapid-start-2026" => (regions(), Workload::seed(), arms(&SEED_ARMS)?, base),
        "rapid-start-2026-bbr3" => (regions(), Workload::seed(), arms(&SEED_BBR3_ARMS)?, base),
        "cubic-hystart-matrix" => {
            let cells = hystart_grid(1).cells();
            let k = connections.div_ceil(cells).max(1);
            let mut b = base;
            // quiche's default IW (RFC 9002 §7.2: 10 packets).
            b.endpoint.iw_packets = 10;
            b.endpoint.jump_packets = 20;
            (
                Population::Grid(Box::new(hystart_grid(k))),
                Workload::seed(),
                arms(&[
                    ("reno", "newreno"),
                    ("cubic", "cubic"),
                    ("cubic+hystart", "cubic+hystart"),
                ])?,
                b,
            )
        }
        "iw10-vs-iw32" => (
            regions(),
            web_workload(),
            arms(&[
                ("iw32", "cubic(conns=2,iw=32)"),
                ("iw10", "cubic(conns=2,iw=10)"),
            ])?,
            base,
        ),
        "reno-vs-cubic" => (
            regions(),
            web_workload(),
            arms(&[
                ("cubic", "cubic(conns=2,iw=32)"),
                ("reno", "newreno(iw=32)"),
            ])?,
            base,
        ),
        "pacing-on-off" => (
            regions(),
            web_workload(),
            arms(&[
                ("paced", "cubic(conns=2,iw=32)"),
                ("unpaced", "cubic(conns=2,iw=32,pacing=off)"),
            ])?,
            base,
        ),
        "cubic-1conn-vs-2conn" => (
            regions(),
            web_workload(),
            arms(&[
                ("2conn", "cubic(conns=2,iw=32)"),
                ("1conn", "cubic(conns=1,iw=32)"),
            ])?,
            base,
        ),
        "l4s-2026" => {
            let mut regions = seed_regions();
            for r in &mut regions {
                r.paths.l4s_share = L4S_SHARE;
            }
            (
                Population::Regions(regions),
                Workload::seed(),
                arms(&[
                    ("cubic+rapidstart", "cubic+rapidstart"),
                    ("prague+rapidstart", "prague+rapidstart"),
                ])?,
                base,
            )
        }
        other => {
            return Err(SimError::UnknownPreset {
                name: other.to_string(),
                known: PRESETS.iter().map(|p| p.0).collect(),
            });
        }
    };
    base.name = name.to_string();
    let connections = match &population {
        Population::Grid(g) => g.connections(),
        Population::Regions(_) => connections,
    };
    Ok(FleetPlan {
        name: name.to_string(),
        population,
        workload,
        arms: arm_list,
        connections,
        seed,
        base,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_builds_and_validates() {
        for (name, _) in PRESETS {
            let p = plan(name, 90, 1).unwrap();
            p.validate().unwrap();
            assert!(p.arms.len() >= 2, "{name}");
        }
        let m = plan("cubic-hystart-matrix", 20, 1).unwrap();
        assert_eq!(m.connections, 27, "rounded up to whole cells (9 cells x 3)");
        assert!(plan("nope", 1, 1).is_err());
    }

    #[test]
    fn l4s_preset_puts_its_share_of_aqmd_fixed_accesses_on_docsis_lld() {
        let p = plan("l4s-2026", 10, 1).unwrap();
        let Population::Regions(regions) = &p.population else {
            panic!("regions");
        };
        assert!(regions.iter().all(|r| r.paths.l4s_share == L4S_SHARE));
        assert_eq!(p.arms[0].label, "cubic+rapidstart");
        assert_eq!(p.arms[1].label, "prague+rapidstart");
        // The share comes out as configured among AQM'd wired accesses.
        let m = &regions[0].paths;
        let mut rng = ramp_vocab::rng::Rng::from_u64(3);
        let (mut aqm, mut lld) = (0u32, 0u32);
        for _ in 0..20_000 {
            match m.draw(crate::fleet::access::Access::Wired, &mut rng).aqm {
                ramp_link::Aqm::DropTail => {}
                ramp_link::Aqm::DualPi2(d) => {
                    assert!(d.is_docsis_lld());
                    aqm += 1;
                    lld += 1;
                }
                _ => aqm += 1,
            }
        }
        let share = f64::from(lld) / f64::from(aqm);
        assert!((share - L4S_SHARE).abs() < 0.02, "{share}");
        // The fitted model has none.
        assert_eq!(crate::fleet::access::PathModel::default().l4s_share, 0.0);
    }
}
