//! The path flags every command that builds a bottleneck shares:
//! `--rate`, `--rtt`, `--queue`, `--aqm` and `--loss`, defined once and
//! flattened into each command's arguments (`ramp sim`, `ramp relay`,
//! `ramp shell`; the forwarders' `crate::forwarder_flags` says which are
//! required there).
//!
//! Values are parsed by clap with the one unit grammar
//! ([`ramp_vocab::units`]), so a bad value is refused before any work,
//! with the flag's name, and exit status 2.

use core::time::Duration;

use ramp_link::{Aqm, LossModel};
use ramp_vocab::units::{parse_duration, parse_loss, parse_rate};
use ramp_vocab::Rate;

/// `--rate`, `--rtt`, `--queue`, `--aqm`, `--loss`: each optional; a
/// command says what an absent flag means.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct PathFlags {
    /// Bottleneck rate, each direction (e.g. 20mbit).
    #[arg(long, value_parser = parse_rate)]
    pub rate: Option<Rate>,
    /// Base round-trip time, split evenly between the directions (e.g. 40ms).
    #[arg(long, value_parser = parse_duration)]
    pub rtt: Option<Duration>,
    /// Buffer, as time at the link rate (e.g. 40ms).
    #[arg(long, value_parser = parse_duration)]
    pub queue: Option<Duration>,
    /// Queue discipline: droptail, step:<delay>, codel, fq_codel, pie,
    /// docsis_pie, dualpi2, docsis_lld (default: droptail).
    // This doc comment is --help text, read in a terminal: `<delay>` is a
    // placeholder, not HTML.
    #[allow(rustdoc::invalid_html_tags)]
    #[arg(long)]
    pub aqm: Option<Aqm>,
    /// Random loss after the bottleneck (e.g. 0.5%; default: none). In
    /// `ramp sim` it drops data packets only; in `ramp shell` and `ramp
    /// relay` each direction, ACKs too (the shell's --uplink-loss sets the
    /// uplink's apart).
    #[arg(long, value_parser = parse_loss)]
    pub loss: Option<f64>,
}

impl PathFlags {
    /// The `--loss` flag as a loss model (`None` if the flag is absent).
    pub fn loss_model(&self) -> Option<LossModel> {
        self.loss.map(LossModel::bernoulli)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<PathFlags, clap::Error> {
        crate::flag_test::parse(args)
    }

    #[test]
    fn flags_parse_with_the_unit_grammar() {
        let f = parse(&[
            "--rate", "20mbit", "--rtt", "40ms", "--queue", "30ms", "--aqm", "codel", "--loss",
            "0.5%",
        ])
        .unwrap();
        assert_eq!(f.rate.map(|r| r.bits_per_sec()), Some(20_000_000));
        assert_eq!(f.rtt, Some(Duration::from_millis(40)));
        assert_eq!(f.queue, Some(Duration::from_millis(30)));
        assert!(matches!(f.aqm, Some(Aqm::CoDel(_))));
        assert_eq!(f.loss_model(), Some(LossModel::Bernoulli { p: 0.005 }));
        assert_eq!(
            parse(&["--loss", "0"]).unwrap().loss_model(),
            Some(LossModel::None)
        );
    }

    #[test]
    fn a_bad_value_names_its_flag() {
        for (flag, value) in [("--rate", "fast"), ("--rtt", "40"), ("--loss", "0.5")] {
            let e = parse(&[flag, value]).unwrap_err().to_string();
            assert!(e.contains(flag), "{e}");
        }
    }
}
