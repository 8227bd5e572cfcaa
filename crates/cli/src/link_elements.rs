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

use clap::{Arg, ArgMatches, Command};
use ramp_link::{AckAggregation, ElementSlot, LinkElements, ELEMENTS};
use ramp_quic::relay::LinkParams;
use ramp_sim::scenario::PathConfig;

/// One flag per element of `ramp_link::ELEMENTS` (`--cellular`,
/// `--wifi-jitter`, `--policer`, `--gilbert-elliott`), written from the
/// list, and `--ack-aggregation`. A command that flattens them flattens
/// `crate::path_flags::PathFlags` too (an element that sets the loss
/// model, `--gilbert-elliott`, conflicts with its `--loss`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkElementFlags {
    /// The elements given, each over its defaults; the others off.
    pub given: LinkElements,
}

/// `--ack-aggregation`'s name and id.
const ACK_AGGREGATION: &str = "ack-aggregation";

/// The id of `crate::path_flags::PathFlags`' `--loss`, which sets the
/// loss model an element may set too.
const LOSS: &str = "loss";

impl clap::Args for LinkElementFlags {
    fn augment_args(cmd: Command) -> Command {
        ELEMENTS
            .iter()
            .fold(cmd, |cmd, s| cmd.arg(element_arg(s)))
            .arg(
                Arg::new(ACK_AGGREGATION)
                    .long(ACK_AGGREGATION)
                    .value_name("D")
                    .value_parser(AckAggregation::parse)
                    .help(
                        "ACK aggregation on the uplink: what leaves its queue is let out only at \
                     multiples of this interval (e.g. 4ms; at most 1s)",
                    ),
            )
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl clap::FromArgMatches for LinkElementFlags {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut f = LinkElementFlags::default();
        f.update_from_arg_matches(m)?;
        Ok(f)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        for s in ELEMENTS {
            if let Some(one) = m.get_one::<LinkElements>(s.names.flag) {
                (s.overlay)(one, &mut self.given);
            }
        }
        if let Some(a) = m.get_one::<AckAggregation>(ACK_AGGREGATION) {
            self.given.aggregation = Some(*a);
        }
        Ok(())
    }
}

/// An element's flag: its value read by the element's option table into
/// a set that holds it alone. Alone, a flag whose element has a default
/// for every key gives the defaults.
fn element_arg(s: &'static ElementSlot) -> Arg {
    let n = &s.names;
    let mut a = Arg::new(n.flag)
        .long(n.flag)
        .value_name(n.value_name)
        .help(n.help)
        .long_help(element_help(s))
        .value_parser(move |text: &str| {
            let mut e = LinkElements::default();
            s.set_spec(&mut e, text).map(|()| e)
        });
    if s.required.is_empty() {
        a = a.num_args(0..=1).default_missing_value("");
    }
    if n.field == "loss" {
        a = a.conflicts_with(LOSS);
    }
    a
}

/// The element flags as a usage line shows them, written from
/// [`ELEMENTS`] so that a new element cannot be left out: `[--FLAG[=…]]`
/// where the flag works alone, `[--FLAG=…]` where some key is required,
/// then `[--ack-aggregation D]`.
pub(crate) fn usage() -> String {
    let mut parts: Vec<String> = ELEMENTS
        .iter()
        .map(|s| {
            if s.required.is_empty() {
                format!("[--{}[=…]]", s.names.flag)
            } else {
                format!("[--{}=…]", s.names.flag)
            }
        })
        .collect();
    parts.push(format!("[--{ACK_AGGREGATION} D]"));
    parts.join(" ")
}

/// A `KEY=VALUE,…` flag's long help: what it models, the defaults it
/// takes alone, and one line per key from the element's option table.
fn element_help(s: &ElementSlot) -> String {
    let what = s.names.about;
    let keys = (s.key_help)().join("\n  ");
    if s.required.is_empty() {
        format!(
            "{what}\n\nAlone, {}: {}\nKEY=VALUE pairs (comma-separated) override some:\n  {keys}",
            s.names.defaults_from,
            (s.default_spec)(),
        )
    } else {
        format!("{what}\n\nKEY=VALUE pairs (comma-separated):\n  {keys}")
    }
}

impl LinkElementFlags {
    /// Puts the elements on the directions the simulator has them on: ACK
    /// aggregation on `up`, every other element on `down`. `rtt` is the
    /// path's base RTT, which the cellular drift is a share of.
    pub fn apply(&self, up: &mut LinkParams, down: &mut LinkParams, rtt: Duration) {
        for s in ELEMENTS {
            (s.overlay)(&self.given, &mut down.elements);
        }
        down.base_rtt = rtt;
        up.elements.aggregation = self.given.aggregation;
    }

    /// Overrides a simulated path's elements with those given (`ramp sim`),
    /// as a scenario file's keys set them: ACK aggregation on the reverse
    /// path, the others on the forward link.
    pub fn apply_to_path(&self, p: &mut PathConfig) {
        for s in ELEMENTS {
            (s.overlay)(&self.given, &mut p.elements);
        }
        if let Some(a) = self.given.aggregation {
            p.elements.aggregation = Some(a);
        }
    }

    /// A scenario error about an element a flag gave, in the flag's terms:
    /// `path.policer.rate: …` is `--policer: rate: …`, `path.cellular: …`
    /// is `--cellular: …`; None when no given element's table starts it.
    pub fn in_flag_terms(&self, message: &str) -> Option<String> {
        ELEMENTS.iter().find_map(|s| {
            (s.spec)(&self.given)?;
            let rest = message.strip_prefix(&format!("path.{}", s.names.table))?;
            let flag = s.names.flag;
            if let Some(key) = rest.strip_prefix('.') {
                Some(format!("--{flag}: {key}"))
            } else {
                rest.starts_with([':', ' '])
                    .then(|| format!("--{flag}{rest}"))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ramp_link::{Cellular, Jitter};

    /// The elements of a forwarder's command line.
    type Link = crate::forwarder_flags::ForwarderLink;

    fn parse(args: &[&str]) -> Result<LinkElementFlags, clap::Error> {
        crate::flag_test::parse::<Link>(args).map(|l| l.elements)
    }

    #[test]
    fn alone_each_flag_gives_its_sourced_defaults() {
        let f = parse(&["--cellular", "--wifi-jitter"]).unwrap();
        assert_eq!(f.given.cellular, Some(Cellular::CELLREPLAY));
        assert_eq!(f.given.jitter, Some(Jitter::WIFI_SUI_2016));
        assert_eq!(f.given.aggregation, None);
        assert_eq!(parse(&[]).unwrap().given.cellular, None);
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
        let mut cmd = crate::flag_test::command::<Link>();
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
            f.given.cellular,
            Some(Cellular {
                light_bytes: 100_000,
                light_fraction: 0.25,
                idle_reset: Duration::from_millis(20),
                drift_mean: 0.0,
                drift_period: Duration::from_millis(500),
            })
        );
        assert_eq!(
            f.given.jitter,
            Some(Jitter {
                median: Duration::from_millis(1),
                p90: Duration::from_millis(5)
            })
        );
        assert_eq!(
            f.given.aggregation,
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
            (
                up.elements.cellular,
                up.elements.jitter,
                down.elements.aggregation
            ),
            (None, None, None)
        );
        assert_eq!(down.elements.cellular, f.given.cellular);
        assert_eq!(down.base_rtt, Duration::from_millis(40));
        assert_eq!(down.elements.jitter, f.given.jitter);
        assert_eq!(up.elements.aggregation, f.given.aggregation);
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

    /// Every element of `ramp_link::ELEMENTS` has a flag, written from
    /// the list, that reads its example text to what its slot reads, and
    /// refuses an unknown key with exit status 2.
    #[test]
    fn every_listed_element_has_a_flag_that_reads_it_through_its_table() {
        for s in ELEMENTS {
            let arg = format!("--{}={}", s.names.flag, s.names.example);
            let mut want = LinkElements::default();
            s.set_spec(&mut want, s.names.example).unwrap();
            assert_eq!(parse(&[&arg]).unwrap().given, want, "{arg}");
            let e = parse(&[&format!("--{}=nonsense=1", s.names.flag)]).unwrap_err();
            assert_eq!(e.exit_code(), 2);
            assert!(e.to_string().contains("nonsense: unknown key"), "{e}");
        }
    }
}
