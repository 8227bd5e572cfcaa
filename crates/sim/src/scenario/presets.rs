//! Built-in path presets.
//!
//! Sources (docs/simulator.md): the Rapid Start draft's simulator
//! figure and the talk's VDSL example; the `NETWORKS` table of quicly's
//! `t/simulator-plot.rb`; the Pantheon calibrated emulators; WebPageTest's
//! `connectivity.ini.sample`; and per-region poor/median/good profiles built
//! from M-Lab NDT quantiles (poor = bandwidth p25 with RTT p75 and a
//! 200 ms queue, median = p50/p50/100 ms, good = p75/p25/30 ms).

use core::time::Duration;

use ramp_cc::Rate;

/// One preset's path parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    /// Name as given to `--scenario`.
    pub name: String,
    /// Where the numbers come from.
    pub source: &'static str,
    /// Bottleneck rate.
    pub rate: Rate,
    /// Base (idle) round-trip propagation delay.
    pub rtt: Duration,
    /// Drop-tail queue, in time at the link rate.
    pub queue: Duration,
    /// Random (Bernoulli) loss probability.
    pub loss: f64,
    /// Initial window, packets (30 unless the source says otherwise).
    pub iw_packets: u64,
    /// Jump window for full-RTT pacing, packets (2 x IW).
    pub jump_packets: u64,
}

fn p(name: &str, source: &'static str, mbit: f64, rtt_ms: f64, queue_ms: f64, loss: f64) -> Preset {
    Preset {
        name: name.to_string(),
        source,
        rate: Rate::from_bits_per_sec((mbit * 1e6).round() as u64),
        rtt: Duration::from_micros((rtt_ms * 1000.0).round() as u64),
        queue: Duration::from_micros((queue_ms * 1000.0).round() as u64),
        loss,
        iw_packets: 30,
        jump_packets: 60,
    }
}

const DRAFT: &str = "Rapid Start draft simulator figure / IETF 125 slides";
const TALK: &str = "RubyKaigi Rapid Start talk (VDSL example; queue assumed 30 ms)";
const QUICLY: &str = "quicly t/simulator-plot.rb NETWORKS";
const PANTHEON: &str = "Pantheon calibrated emulator (RTT = 2 x one-way)";
const WPT: &str = "WebPageTest connectivity.ini.sample (queue assumed 100 ms)";
const REGION: &str = "M-Lab NDT Oct 2025 regional quantiles";

/// Regional quantiles: (name, bw p25/p50/p75 Mbit/s, rtt p25/p50/p75 ms).
const REGIONS: &[(&str, [f64; 3], [f64; 3])] = &[
    ("east-asia", [13.9, 57.5, 170.0], [6.2, 15.3, 53.0]),
    ("se-asia", [7.1, 29.4, 93.0], [12.6, 32.0, 71.0]),
    ("west-europe", [19.7, 67.7, 217.0], [7.6, 15.3, 28.0]),
    ("east-europe", [11.2, 42.5, 127.0], [16.6, 27.7, 47.0]),
    ("africa", [2.6, 9.2, 26.0], [20.3, 55.1, 126.0]),
    ("north-america", [17.3, 67.8, 208.0], [9.5, 22.9, 50.0]),
    ("south-america", [9.1, 39.1, 128.0], [8.9, 26.1, 89.0]),
    ("south-asia", [3.3, 10.9, 31.0], [37.0, 71.0, 159.0]),
];

/// Every built-in preset, in listing order.
pub fn all() -> Vec<Preset> {
    let mut v = vec![
        p("seed-100m", DRAFT, 100.0, 30.0, 30.0, 0.0),
        p("vdsl", TALK, 55.0, 39.0, 30.0, 0.0),
        // quicly's presets ("rtt" is its -d, the effective RTT; "queue" -q).
        p("dsl", QUICLY, 30.0, 30.0, 50.0, 0.0),
        p("home-wifi", QUICLY, 100.0, 25.0, 15.0, 0.0),
        p("public-bufferbloat", QUICLY, 20.0, 40.0, 200.0, 0.0),
        p("corporate-wifi", QUICLY, 500.0, 10.0, 20.0, 0.0),
        p("lte", QUICLY, 30.0, 60.0, 120.0, 0.0),
        p("5g", QUICLY, 100.0, 40.0, 80.0, 0.0),
        p("leo", QUICLY, 50.0, 40.0, 80.0, 0.0),
        p("geo", QUICLY, 50.0, 600.0, 600.0, 0.0),
        p("docomo-office", QUICLY, 140.0, 28.0, 217.0, 0.0),
        p("au-office", QUICLY, 440.0, 20.0, 233.0, 0.0),
        p("wifi-office", QUICLY, 710.0, 4.0, 11.0, 0.0),
        p("docomo-mall", QUICLY, 38.0, 41.0, 300.0, 0.0),
        p("congested", QUICLY, 1.0, 200.0, 400.0, 0.0),
        p("bdp20", QUICLY, 8.0, 100.0, 100.0, 0.0),
        p("bdp40", QUICLY, 16.0, 100.0, 100.0, 0.0),
        // Pantheon's six (rates of the Poisson traces used as constant).
        p("pantheon-nepal-india", PANTHEON, 0.57, 56.0, 295.0, 0.0477),
        p(
            "pantheon-mexico-california",
            PANTHEON,
            2.64,
            176.0,
            590.0,
            0.0,
        ),
        p(
            "pantheon-brazil-colombia",
            PANTHEON,
            3.04,
            260.0,
            1680.0,
            0.0,
        ),
        p(
            "pantheon-california-mexico",
            PANTHEON,
            114.68,
            90.0,
            47.0,
            0.0,
        ),
        p("pantheon-korea-china", PANTHEON, 77.72, 102.0, 15.0, 0.0006),
        p("pantheon-satellite", PANTHEON, 42.0, 800.0, 430.0, 0.0074),
        // WebPageTest classics (downlink rate).
        p("wpt-cable", WPT, 5.0, 28.0, 100.0, 0.0),
        p("wpt-dsl", WPT, 1.5, 50.0, 100.0, 0.0),
        p("wpt-fios", WPT, 20.0, 4.0, 100.0, 0.0),
        p("wpt-3g", WPT, 1.6, 300.0, 100.0, 0.0),
        p("wpt-3gfast", WPT, 1.6, 150.0, 100.0, 0.0),
        p("wpt-3gslow", WPT, 0.78, 200.0, 100.0, 0.0),
        p("wpt-edge", WPT, 0.24, 840.0, 100.0, 0.0),
    ];
    for (region, bw, rtt) in REGIONS {
        // Only Africa's poor profile carries random loss (docs/simulator.md).
        let poor_loss = if *region == "africa" { 0.005 } else { 0.0 };
        v.push(p(
            &format!("{region}-poor"),
            REGION,
            bw[0],
            rtt[2],
            200.0,
            poor_loss,
        ));
        v.push(p(
            &format!("{region}-median"),
            REGION,
            bw[1],
            rtt[1],
            100.0,
            0.0,
        ));
        v.push(p(
            &format!("{region}-good"),
            REGION,
            bw[2],
            rtt[0],
            30.0,
            0.0,
        ));
    }
    v
}

/// The preset called `name`, if any.
pub fn find(name: &str) -> Option<Preset> {
    all().into_iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_preset_matches_the_draft_figure() {
        let s = find("seed-100m").unwrap();
        assert_eq!(s.rate.bits_per_sec(), 100_000_000);
        assert_eq!(s.rtt, Duration::from_millis(30));
        assert_eq!(s.queue, Duration::from_millis(30));
        assert_eq!((s.iw_packets, s.jump_packets), (30, 60));
    }

    #[test]
    fn names_are_unique() {
        let all = all();
        let mut names: Vec<&str> = all.iter().map(|p| p.name.as_str()).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len());
        assert!(find("west-europe-median").is_some());
    }
}
