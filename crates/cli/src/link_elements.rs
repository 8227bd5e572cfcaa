//! The path elements beyond rate, delay, buffer and loss that the two
//! real-time forwarders share, `--cellular`, `--wifi-jitter` and
//! `--ack-aggregation`: defined once and flattened into `ramp relay` and
//! `ramp shell`, so both take the same flags with the same defaults and
//! checks. Each builds the `ramp-link` element the simulator runs for
//! `[path.cellular]`, `[path.jitter]` and `path.ack_aggregation`, and
//! puts it on the direction the simulator puts it on: the cellular link
//! and the Wi-Fi delay variation on the downlink (the data direction, the
//! simulator's forward link), ACK aggregation on the uplink (the ACK
//! direction, its reverse path).
//!
//! A bad value is refused by clap before any work, naming the flag and the
//! field, with exit status 2.

use core::time::Duration;

use ramp_link::{AckAggregation, Cellular, Jitter};
use ramp_quic::relay::LinkParams;
use ramp_vocab::units::{parse_duration, parse_size};

/// `--cellular`, `--wifi-jitter`, `--ack-aggregation`.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct LinkElementFlags {
    /// A cellular downlink (CellReplay, NSDI 2025): a burst that starts
    /// after idle_reset of idle link gets light_fraction of the rate for
    /// its first light_bytes; the base delay drifts by drift_mean of the
    /// RTT on average (0 to twice that), towards a new draw every
    /// drift_period, without reordering. Alone, CellReplay's defaults:
    /// light_bytes=280000,light_fraction=0.5,idle_reset=50ms,drift_mean=0.15,drift_period=1s;
    /// KEY=VALUE pairs (comma-separated) override some. Seeded by --seed.
    #[arg(
        long,
        value_name = "KEY=VALUE,…",
        num_args = 0..=1,
        default_missing_value = "",
        value_parser = parse_cellular,
        conflicts_with = "trace"
    )]
    pub cellular: Option<Cellular>,
    /// Wi-Fi delay variation on the downlink, without reordering: packets
    /// wait for the next transmission opportunity and share it; the wait a
    /// packet sees has this median and 90th percentile.
    /// Alone, the Wi-Fi hop of Sui et al. (MobiSys 2016): median=3ms,p90=20ms.
    /// Seeded by --seed.
    #[arg(
        long,
        value_name = "median=D,p90=D",
        num_args = 0..=1,
        default_missing_value = "",
        value_parser = parse_wifi_jitter
    )]
    pub wifi_jitter: Option<Jitter>,
    /// ACK aggregation on the uplink: what leaves its queue is let out only
    /// at multiples of this interval (e.g. 4ms; at most 1s).
    #[arg(long, value_name = "D", value_parser = parse_ack_aggregation)]
    pub ack_aggregation: Option<AckAggregation>,
}

impl LinkElementFlags {
    /// Puts the elements on the directions the simulator has them on:
    /// cellular and Wi-Fi on `down`, aggregation on `up`. `rtt` is the
    /// path's base RTT, which the cellular drift is a share of.
    pub fn apply(&self, up: &mut LinkParams, down: &mut LinkParams, rtt: Duration) {
        down.cellular = self.cellular.map(|c| (c, rtt));
        down.jitter = self.wifi_jitter;
        up.aggregation = self.ack_aggregation;
    }
}

/// `KEY=VALUE,…` pairs of `keys`, each given at most once; the error
/// names the key.
fn pairs<'a>(spec: &'a str, keys: &[&str]) -> Result<Vec<(&'a str, &'a str)>, String> {
    let mut out: Vec<(&str, &str)> = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| format!("{item}: expected KEY=VALUE"))?;
        let k = k.trim();
        if !keys.contains(&k) {
            return Err(format!("{k}: unknown key (keys: {})", keys.join(", ")));
        }
        if out.iter().any(|(seen, _)| *seen == k) {
            return Err(format!("{k}: given twice"));
        }
        out.push((k, v.trim()));
    }
    Ok(out)
}

fn fraction(key: &str, v: &str) -> Result<f64, String> {
    v.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .ok_or_else(|| format!("{key}: expected a number, not {v:?}"))
}

fn duration(key: &str, v: &str) -> Result<Duration, String> {
    parse_duration(v).map_err(|e| format!("{key}: {e}"))
}

/// `--cellular`'s value: CellReplay's defaults with the pairs given.
fn parse_cellular(spec: &str) -> Result<Cellular, String> {
    let mut c = Cellular::CELLREPLAY;
    let keys = [
        "light_bytes",
        "light_fraction",
        "idle_reset",
        "drift_mean",
        "drift_period",
    ];
    for (k, v) in pairs(spec, &keys)? {
        match k {
            "light_bytes" => c.light_bytes = parse_size(v).map_err(|e| format!("{k}: {e}"))?,
            "light_fraction" => c.light_fraction = fraction(k, v)?,
            "idle_reset" => c.idle_reset = duration(k, v)?,
            "drift_mean" => c.drift_mean = fraction(k, v)?,
            _ => c.drift_period = duration(k, v)?,
        }
    }
    c.check()?;
    Ok(c)
}

/// `--wifi-jitter`'s value: Sui et al.'s Wi-Fi hop with the pairs given.
fn parse_wifi_jitter(spec: &str) -> Result<Jitter, String> {
    let mut j = Jitter::WIFI_SUI_2016;
    for (k, v) in pairs(spec, &["median", "p90"])? {
        match k {
            "median" => j.median = duration(k, v)?,
            _ => j.p90 = duration(k, v)?,
        }
    }
    j.check()?;
    Ok(j)
}

/// `--ack-aggregation`'s value.
fn parse_ack_aggregation(s: &str) -> Result<AckAggregation, String> {
    let d = parse_duration(s).map_err(|e| e.to_string())?;
    AckAggregation::check(d)?;
    AckAggregation::new(d).ok_or_else(|| "must be positive".into())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        e: LinkElementFlags,
        #[arg(long)]
        trace: Option<String>,
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
            (&["--cellular=burst=1"], "--cellular", "burst"),
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
        ] {
            let e = parse(args).unwrap_err();
            assert_eq!(e.exit_code(), 2);
            let e = e.to_string();
            assert!(e.contains(flag) && e.contains(field), "{args:?}: {e}");
        }
        // A trace sets the downlink's delivery: it cannot be cellular too.
        let e = parse(&["--cellular", "--trace", "x"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--cellular") && e.contains("--trace"), "{e}");
    }
}
