//! Which queue discipline a bottleneck runs, by name: the one grammar the
//! simulator's TOML (`path.aqm`), `ramp sim --aqm` and `ramp relay --aqm`
//! share.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use ramp_vocab::units::parse_duration;

use crate::codel::CoDelParams;
use crate::dualpi2::DualPi2Params;
use crate::fq_codel::FqCoDelParams;
use crate::pie::PieParams;

/// A queue discipline.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Aqm {
    /// A FIFO that drops arrivals when full (the default).
    #[default]
    DropTail,
    /// Drop-tail that CE-marks ECT packets whose queueing delay exceeds
    /// `threshold`: the shallow step marking of L4S's low-latency queue
    /// (RFC 9332 §1 describes the step as the simplest native-L4S AQM).
    Step {
        /// Queueing delay above which ECT packets are marked.
        threshold: Duration,
    },
    /// CoDel (RFC 8289).
    CoDel(CoDelParams),
    /// FQ-CoDel (RFC 8290).
    FqCoDel(FqCoDelParams),
    /// PIE (RFC 8033) or DOCSIS-PIE (RFC 8034).
    Pie(PieParams),
    /// DualPI2 (RFC 9332), Linux `sch_dualpi2`'s defaults: an L queue for
    /// ECT(1)/CE beside a classic queue, coupled; or its DOCSIS Low
    /// Latency variant (`docsis_lld`), the L queue's step replaced by the
    /// DOCSIS immediate AQM's ramp.
    DualPi2(DualPi2Params),
}

impl Aqm {
    /// The names [`Aqm::from_str`] accepts, for help and error text.
    pub const NAMES: &'static str =
        "droptail, step:<delay>, codel, fq_codel, pie, docsis_pie, dualpi2, docsis_lld";
}

/// An unknown or malformed queue discipline name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AqmParseError {
    input: String,
    reason: String,
}

impl fmt::Display for AqmParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "queue discipline '{}': {} (valid: {})",
            self.input,
            self.reason,
            Aqm::NAMES
        )
    }
}

impl std::error::Error for AqmParseError {}

impl FromStr for Aqm {
    type Err = AqmParseError;

    fn from_str(s: &str) -> Result<Aqm, AqmParseError> {
        let err = |reason: &str| AqmParseError {
            input: s.to_string(),
            reason: reason.to_string(),
        };
        let lower = s.trim().to_ascii_lowercase();
        if let Some(th) = lower.strip_prefix("step:") {
            let threshold = parse_duration(th).map_err(|e| err(&e.to_string()))?;
            return Ok(Aqm::Step { threshold });
        }
        Ok(match lower.replace('-', "_").as_str() {
            "droptail" | "drop_tail" | "fifo" => Aqm::DropTail,
            "codel" => Aqm::CoDel(CoDelParams::default()),
            "fq_codel" | "fqcodel" => Aqm::FqCoDel(FqCoDelParams::default()),
            "pie" => Aqm::Pie(PieParams::RFC8033),
            "docsis_pie" | "docsispie" => Aqm::Pie(PieParams::DOCSIS),
            "dualpi2" | "dual_pi2" => Aqm::DualPi2(DualPi2Params::LINUX),
            "docsis_lld" | "docsislld" | "lld" => Aqm::DualPi2(DualPi2Params::DOCSIS_LLD),
            "step" => return Err(err("the step needs a threshold, e.g. step:1ms")),
            _ => return Err(err("unknown")),
        })
    }
}

impl fmt::Display for Aqm {
    /// The canonical name; `from_str` of it gives the same discipline back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Aqm::DropTail => f.write_str("droptail"),
            Aqm::Step { threshold } => write!(f, "step:{}us", threshold.as_micros()),
            Aqm::CoDel(_) => f.write_str("codel"),
            Aqm::FqCoDel(_) => f.write_str("fq_codel"),
            Aqm::Pie(p) if p.profile == crate::pie::PieProfile::Docsis => f.write_str("docsis_pie"),
            Aqm::Pie(_) => f.write_str("pie"),
            Aqm::DualPi2(p) if p.is_docsis_lld() => f.write_str("docsis_lld"),
            Aqm::DualPi2(_) => f.write_str("dualpi2"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in [
            "droptail",
            "step:1000us",
            "codel",
            "fq_codel",
            "pie",
            "docsis_pie",
            "dualpi2",
            "docsis_lld",
        ] {
            let a: Aqm = name.parse().unwrap();
            assert_eq!(a.to_string(), name);
        }
        assert_eq!(
            "step:2ms".parse::<Aqm>().unwrap(),
            Aqm::Step {
                threshold: Duration::from_millis(2)
            }
        );
        assert_eq!("FQ-CoDel".parse::<Aqm>().unwrap().to_string(), "fq_codel");
    }

    #[test]
    fn bad_names_say_what_is_valid() {
        let e = "red".parse::<Aqm>().unwrap_err().to_string();
        assert!(e.contains("'red'") && e.contains("fq_codel"), "{e}");
        let e = "step".parse::<Aqm>().unwrap_err().to_string();
        assert!(e.contains("threshold"), "{e}");
        assert!("step:soon".parse::<Aqm>().is_err());
    }
}
