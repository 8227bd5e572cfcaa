//! The ECN codepoint: the two ECN bits of the IP header (RFC 3168 §5), one
//! type from a controller's spec through the simulator's packets and the
//! link's queues to the receiver's ACK counts (RFC 9000 §13.4, §19.3.2).
//!
//! L4S (RFC 9331) gives ECT(1) a meaning of its own: a sender that marks
//! ECT(1) promises a scalable response to CE, and an L4S queue (DualPI2,
//! RFC 9332) classifies ECT(1) and CE packets into its low-latency queue
//! (RFC 9331 §5.1). So the codepoint, not a bool, travels with a packet.

use core::fmt;
use core::str::FromStr;

/// The ECN field of a packet (RFC 3168 §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EcnCodepoint {
    /// `00`: not ECN-capable; an AQM drops such a packet where it would
    /// mark an ECN-capable one.
    #[default]
    NotEct,
    /// `10`: ECN-capable transport, classic (RFC 3168) response.
    Ect0,
    /// `01`: ECN-capable transport; under RFC 9331 §4.1 the L4S identifier.
    Ect1,
    /// `11`: Congestion Experienced, set by a queue on an ECN-capable packet.
    Ce,
}

impl EcnCodepoint {
    /// Every codepoint, in [`EcnCodepoint::index`] order.
    pub const ALL: [EcnCodepoint; 4] = [
        EcnCodepoint::NotEct,
        EcnCodepoint::Ect0,
        EcnCodepoint::Ect1,
        EcnCodepoint::Ce,
    ];

    /// A dense index, for per-codepoint counters.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Whether a queue may mark this packet CE instead of dropping it
    /// (RFC 3168 §5: any codepoint but Not-ECT; a CE packet stays CE).
    pub const fn is_ect(self) -> bool {
        !matches!(self, EcnCodepoint::NotEct)
    }

    /// Whether an L4S queue classifies the packet into its L queue
    /// (RFC 9331 §5.1: ECT(1) or CE).
    pub const fn is_l4s(self) -> bool {
        matches!(self, EcnCodepoint::Ect1 | EcnCodepoint::Ce)
    }

    /// The packet after a queue marked it: CE if it was ECN-capable, else
    /// unchanged (a queue never marks a Not-ECT packet, RFC 3168 §5).
    pub const fn marked(self) -> EcnCodepoint {
        if self.is_ect() {
            EcnCodepoint::Ce
        } else {
            self
        }
    }

    /// The name specs, records and traces use: `off`, `ect0`, `ect1`, `ce`.
    pub const fn as_str(self) -> &'static str {
        match self {
            EcnCodepoint::NotEct => "off",
            EcnCodepoint::Ect0 => "ect0",
            EcnCodepoint::Ect1 => "ect1",
            EcnCodepoint::Ce => "ce",
        }
    }

    /// A sender's choice from a spec value: `off`, `ect0`, `ect1`, and the
    /// older switch spellings `on` (= ECT(0)), `true`/`1`, `false`/`0`. A
    /// sender never sends CE (RFC 3168 §5), so `ce` is refused.
    pub fn parse_send(v: &str) -> Result<EcnCodepoint, ParseEcnError> {
        match v {
            "off" | "false" | "0" => Ok(EcnCodepoint::NotEct),
            "on" | "true" | "1" | "ect0" => Ok(EcnCodepoint::Ect0),
            "ect1" => Ok(EcnCodepoint::Ect1),
            _ => Err(ParseEcnError),
        }
    }

    /// The canonical spelling of a sender's choice in a spec: ECT(0) keeps
    /// the switch spelling `on` so that names (and the records that carry
    /// them) read as they did before codepoints existed.
    pub const fn spec_str(self) -> &'static str {
        match self {
            EcnCodepoint::Ect0 => "on",
            other => other.as_str(),
        }
    }
}

impl fmt::Display for EcnCodepoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A spec value that is not a sendable codepoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseEcnError;

impl fmt::Display for ParseEcnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("expected off, on, ect0 or ect1")
    }
}

impl std::error::Error for ParseEcnError {}

impl FromStr for EcnCodepoint {
    type Err = ParseEcnError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EcnCodepoint::parse_send(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc9331_5_1_l4s_classifier_is_ect1_or_ce() {
        let l4s: Vec<_> = EcnCodepoint::ALL.iter().map(|c| c.is_l4s()).collect();
        assert_eq!(l4s, [false, false, true, true]);
    }

    #[test]
    fn rfc3168_5_only_ect_packets_are_marked() {
        assert_eq!(EcnCodepoint::NotEct.marked(), EcnCodepoint::NotEct);
        for c in [EcnCodepoint::Ect0, EcnCodepoint::Ect1, EcnCodepoint::Ce] {
            assert_eq!(c.marked(), EcnCodepoint::Ce);
        }
    }

    #[test]
    fn spec_values_parse_and_on_stays_ect0() {
        assert_eq!("on".parse(), Ok(EcnCodepoint::Ect0));
        assert_eq!("ect1".parse(), Ok(EcnCodepoint::Ect1));
        assert_eq!("off".parse(), Ok(EcnCodepoint::NotEct));
        assert_eq!("ce".parse::<EcnCodepoint>(), Err(ParseEcnError));
        assert_eq!(EcnCodepoint::Ect0.spec_str(), "on");
        for c in [EcnCodepoint::NotEct, EcnCodepoint::Ect0, EcnCodepoint::Ect1] {
            assert_eq!(c.spec_str().parse(), Ok(c));
        }
    }
}
