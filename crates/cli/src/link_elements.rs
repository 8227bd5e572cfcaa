//! The path elements beyond rate, delay, buffer and loss, `--cellular`,
//! `--wifi-jitter`, `--ack-aggregation`, `--policer` and
//! `--gilbert-elliott`: defined once and flattened into `ramp sim`, `ramp
//! relay` and `ramp shell`, so all three take the same flags with the same
//! defaults and checks. Their values are read by each element's one option
//! table in ramp-link ([`ramp_link::Element`]), the table the scenario
//! file's `[path.cellular]`, `[path.jitter]`, `[path.policer]`,
//! `[path.gilbert_elliott]` and `path.ack_aggregation` are read by, so a
//! flag and a file key take the same text to the same element. The
//! forwarders put each element on the direction the simulator puts it on:
//! the cellular link, the Wi-Fi delay variation, the policer and the
//! Gilbert-Elliott loss on the downlink (the data direction, the
//! simulator's forward link), ACK aggregation on the uplink (the ACK
//! direction, its reverse path).
//!
//! A bad value is refused by clap before any work, naming the flag and the
//! key, with exit status 2.

use core::time::Duration;

use ramp_link::{
    key_help, parse_spec, spec_of, AckAggregation, Cellular, Element, GilbertElliott, Jitter,
    LossModel, TokenBucket,
};
use ramp_quic::relay::LinkParams;
use ramp_sim::scenario::PathConfig;

/// `--cellular`, `--wifi-jitter`, `--ack-aggregation`, `--policer`,
/// `--gilbert-elliott`. A command that flattens them flattens
/// `crate::path_flags::PathFlags` too (`--gilbert-elliott` conflicts with
/// its `--loss`).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct LinkElementFlags {
    /// A cellular downlink (CellReplay, NSDI 2025): less capacity for a
    /// burst after idle, a drifting base delay. Seeded by --seed.
    #[arg(
        long,
        value_name = "KEY=VALUE,…",
        num_args = 0..=1,
        default_missing_value = "",
        value_parser = parse_spec::<Cellular>,
        long_help = element_help::<Cellular>(
            "A cellular downlink (CellReplay, NSDI 2025): a burst that starts after idle_reset \
             of idle link gets light_fraction of the rate for its first light_bytes; the base \
             delay drifts by drift_mean of the RTT on average (0 to twice that), towards a new \
             draw every drift_period, without reordering. Seeded by --seed.",
            "CellReplay's defaults",
        )
    )]
    pub cellular: Option<Cellular>,
    /// Wi-Fi delay variation on the downlink, without reordering (WiFiSeer,
    /// MobiSys 2016). Seeded by --seed.
    #[arg(
        long,
        value_name = "median=D,p90=D",
        num_args = 0..=1,
        default_missing_value = "",
        value_parser = parse_spec::<Jitter>,
        long_help = element_help::<Jitter>(
            "Wi-Fi delay variation on the downlink, without reordering: packets wait for the \
             next transmission opportunity and share it; the wait a packet sees has this median \
             and 90th percentile. Seeded by --seed.",
            "the Wi-Fi hop of Sui et al. (MobiSys 2016)",
        )
    )]
    pub wifi_jitter: Option<Jitter>,
    /// ACK aggregation on the uplink: what leaves its queue is let out only
    /// at multiples of this interval (e.g. 4ms; at most 1s).
    #[arg(long, value_name = "D", value_parser = AckAggregation::parse)]
    pub ack_aggregation: Option<AckAggregation>,
    /// A token-bucket policer before the downlink's queue
    /// (rate=R,burst=SIZE, both required).
    #[arg(
        long,
        value_name = "rate=R,burst=SIZE",
        value_parser = parse_spec::<TokenBucket>,
        long_help = element_help::<TokenBucket>(
            "A token-bucket policer before the downlink's queue: a packet passes if the bucket \
             holds its size in tokens, and is dropped otherwise; the bucket refills at rate \
             and holds at most burst bytes.",
            "nothing",
        )
    )]
    pub policer: Option<TokenBucket>,
    /// Bursty random loss after the downlink's queue: a two-state
    /// Gilbert-Elliott chain, in place of --loss.
    #[arg(
        long,
        value_name = "KEY=VALUE,…",
        conflicts_with = "loss",
        value_parser = parse_spec::<GilbertElliott>,
        long_help = element_help::<GilbertElliott>(
            "Bursty random loss after the downlink's queue, in place of --loss: a two-state \
             Gilbert-Elliott chain stepped once per packet, each state with its own loss \
             probability. Seeded by --seed.",
            "nothing",
        )
    )]
    pub gilbert_elliott: Option<GilbertElliott>,
}

/// A `KEY=VALUE,…` flag's long help: what it models, the defaults it
/// takes alone, and one line per key from the element's option table.
fn element_help<E: Element>(what: &str, defaults: &str) -> String {
    let keys = key_help::<E>().join("\n  ");
    if E::REQUIRED.is_empty() {
        format!(
            "{what}\n\nAlone, {defaults}: {}\nKEY=VALUE pairs (comma-separated) override some:\n  {keys}",
            spec_of(&E::DEFAULT),
        )
    } else {
        format!("{what}\n\nKEY=VALUE pairs (comma-separated):\n  {keys}")
    }
}

impl LinkElementFlags {
    /// Puts the elements on the directions the simulator has them on:
    /// cellular and Wi-Fi on `down`, aggregation on `up`. `rtt` is the
    /// path's base RTT, which the cellular drift is a share of.
    pub fn apply(&self, up: &mut LinkParams, down: &mut LinkParams, rtt: Duration) {
        down.cellular = self.cellular.map(|c| (c, rtt));
        down.jitter = self.wifi_jitter;
        down.policer = self.policer;
        if let Some(g) = self.gilbert_elliott {
            down.loss = LossModel::GilbertElliott(g);
        }
        up.aggregation = self.ack_aggregation;
    }

    /// Overrides a simulated path's elements with those given (`ramp sim`):
    /// cellular and Wi-Fi on the forward link, aggregation on the reverse
    /// path, as a scenario file's keys set them.
    pub fn apply_to_path(&self, p: &mut PathConfig) {
        if let Some(c) = self.cellular {
            p.cellular = Some(c);
        }
        if let Some(j) = self.wifi_jitter {
            p.jitter = Some(j);
        }
        if let Some(a) = self.ack_aggregation {
            p.ack_aggregation = Some(a.interval());
        }
        if let Some(b) = self.policer {
            p.policer = Some(b);
        }
        if let Some(g) = self.gilbert_elliott {
            p.loss = LossModel::GilbertElliott(g);
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        _path: crate::path_flags::PathFlags,
        #[command(flatten)]
        e: LinkElementFlags,
    }

    fn parse(args: &[&str]) -> Result<LinkElementFlags, clap::Error> {
        Cli::try_parse_from(std::iter::once("t").chain(args.iter().copied())).map(|c| c.e)
    }

    #[test]
    fn alone_each_flag_gives_its_sourced_defaults() {
        let f = parse(&["--cellular", "--wifi-jitter"]).unwrap();
        assert_eq!(f.cellular, Some(Cellular::CELLREPLAY));
        assert_eq!(f.wifi_jitter, Some(Jitter::WIFI_SUI_2016));
        assert_eq!(f.ack_aggregation, None);
        assert_eq!(parse(&[]).unwrap().cellular, None);
        // The help's figures are the model's defaults.
        let c = Cellular::CELLREPLAY;
        let help = format!(
            "light_bytes={},light_fraction={},idle_reset={}ms,drift_mean={},drift_period={}s",
            c.light_bytes,
            c.light_fraction,
            c.idle_reset.as_millis(),
            c.drift_mean,
            c.drift_period.as_secs()
        );
        let j = Jitter::WIFI_SUI_2016;
        let wifi = format!(
            "median={}ms,p90={}ms",
            j.median.as_millis(),
            j.p90.as_millis()
        );
        let mut cmd = <Cli as clap::CommandFactory>::command();
        let text = cmd.render_long_help().to_string();
        assert!(text.contains(&help), "{text}");
        assert!(text.contains(&wifi), "{text}");
    }

    #[test]
    fn pairs_override_the_defaults() {
        let f = parse(&[
            "--cellular=light_bytes=100KB, light_fraction=0.25,idle_reset=20ms,drift_mean=0,drift_period=500ms",
            "--wifi-jitter",
            "median=1ms,p90=5ms",
            "--ack-aggregation",
            "4ms",
        ])
        .unwrap();
        assert_eq!(
            f.cellular,
            Some(Cellular {
                light_bytes: 100_000,
                light_fraction: 0.25,
                idle_reset: Duration::from_millis(20),
                drift_mean: 0.0,
                drift_period: Duration::from_millis(500),
            })
        );
        assert_eq!(
            f.wifi_jitter,
            Some(Jitter {
                median: Duration::from_millis(1),
                p90: Duration::from_millis(5)
            })
        );
        assert_eq!(
            f.ack_aggregation,
            AckAggregation::new(Duration::from_millis(4))
        );
        let mut up = LinkParams::new(
            ramp_vocab::Rate::from_bits_per_sec(1_000_000),
            Duration::from_millis(20),
            Duration::from_millis(40),
            0.0,
            ramp_link::Aqm::DropTail,
        );
        let mut down = up.clone();
        f.apply(&mut up, &mut down, Duration::from_millis(40));
        assert_eq!(
            (up.cellular, up.jitter, down.aggregation),
            (None, None, None)
        );
        assert_eq!(
            down.cellular,
            f.cellular.map(|c| (c, Duration::from_millis(40)))
        );
        assert_eq!(down.jitter, f.wifi_jitter);
        assert_eq!(up.aggregation, f.ack_aggregation);
    }

    #[test]
    fn a_bad_value_names_the_flag_and_the_field() {
        for (args, flag, field) in [
            (
                &["--cellular=light_fraction=0"][..],
                "--cellular",
                "light_fraction",
            ),
            (
                &["--cellular=light_fraction=1.5"],
                "--cellular",
                "light_fraction",
            ),
            (&["--cellular=drift_mean=2"], "--cellular", "drift_mean"),
            (
                &["--cellular=drift_period=0s"],
                "--cellular",
                "drift_period",
            ),
            (&["--cellular=idle_reset=2min"], "--cellular", "idle_reset"),
            (
                &["--cellular=light_bytes=lots"],
                "--cellular",
                "light_bytes",
            ),
            (&["--cellular=burst=1"], "--cellular", "burst: unknown key"),
            (
                &["--cellular=drift_mean=0.1,drift_mean=0.2"],
                "--cellular",
                "drift_mean",
            ),
            (
                &["--wifi-jitter=median=30ms"],
                "--wifi-jitter",
                "median <= p90",
            ),
            (&["--wifi-jitter=p90=2s"], "--wifi-jitter", "p90"),
            (&["--wifi-jitter=median"], "--wifi-jitter", "median"),
            (
                &["--ack-aggregation", "0ms"],
                "--ack-aggregation",
                "positive",
            ),
            (&["--ack-aggregation", "2s"], "--ack-aggregation", "maximum"),
            (
                &["--policer", "rate=10mbit"],
                "--policer",
                "burst: required",
            ),
            (
                &["--gilbert-elliott", "p_good_to_bad=0.1,p_bad_to_good=2"],
                "--gilbert-elliott",
                "p_bad_to_good: must lie in [0, 1]",
            ),
            (
                &[
                    "--loss",
                    "1%",
                    "--gilbert-elliott",
                    "p_good_to_bad=0.1,p_bad_to_good=0.2",
                ],
                "--gilbert-elliott",
                "--loss",
            ),
        ] {
            let e = parse(args).unwrap_err();
            assert_eq!(e.exit_code(), 2);
            let e = e.to_string();
            assert!(e.contains(flag) && e.contains(field), "{args:?}: {e}");
        }
    }
}
