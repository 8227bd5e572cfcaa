//! Controllers by name, exactly as in the simulator (`ramp_cc::spec`).

use std::sync::Arc;

use ramp_cc::{CcConfig, ControllerSpec, PacerModel, SpecError};

use crate::adapter::BuildController;

/// The controllers real mode is checked against the simulator with (the
/// end-to-end tests, the adapter's property test, `bench/real`): each
/// family, and each startup of the loss-based one.
pub const COMPARED: [&str; 6] = [
    "newreno",
    "cubic",
    "cubic+hystart",
    "rapidstart",
    "jumpstart",
    "bbr3",
];

/// A controller chosen by name, ready to build one per connection.
#[derive(Clone)]
pub struct CcChoice {
    /// The canonical name (`cc.algorithm` in stats records).
    pub name: String,
    /// Builds a controller for a connection, given quinn's starting MTU.
    pub build: Arc<BuildController>,
    /// The pacer the arm names (`pacer=leaky|quinn|quicly`; the seed arms
    /// name quicly's); `None` leaves it to the server's `--pacing`.
    pub pacer: Option<PacerModel>,
    /// Which packets the arm's window lets out (`send_rule=`): applied by
    /// the pacing gate when the controller paces (docs/interop.md, "Window units");
    /// otherwise quinn's own test holds.
    pub send_rule: ramp_cc::SendRule,
    /// The ECN codepoint the arm asks for (`ecn=`; Prague's ECT(1)).
    pub ecn: Option<ramp_cc::EcnCodepoint>,
}

impl std::fmt::Debug for CcChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CcChoice")
            .field("name", &self.name)
            .finish()
    }
}

impl CcChoice {
    /// Parses `name` (`newreno`, `cubic+hystart`, `rapidstart(iw=30)`, ...)
    /// with `ramp_cc::spec`; windows use the MTU quinn reports.
    pub fn parse(name: &str) -> Result<CcChoice, SpecError> {
        let spec: ControllerSpec = ramp_cc::spec::parse(name)?;
        let canonical = spec.canonical_name(&config_for(crate::transport::DATAGRAM_BYTES));
        Ok(CcChoice {
            name: canonical,
            pacer: spec.pacer_model(),
            send_rule: spec.send_rule(),
            ecn: spec.ecn_codepoint(),
            build: Arc::new(move |mtu| spec.build(&config_for(mtu))),
        })
    }

    /// A choice from any builder (tests, experiments).
    pub fn custom(name: impl Into<String>, build: Arc<BuildController>) -> CcChoice {
        CcChoice {
            name: name.into(),
            build,
            pacer: None,
            send_rule: ramp_cc::SendRule::default(),
            ecn: None,
        }
    }

    /// Why real mode cannot run this arm as specified, if it cannot: one
    /// line for a warning. quinn-proto 0.11.19 (Cargo.lock) marks every
    /// datagram ECT(0) once ECN is validated (`Connection::poll_transmit`,
    /// `ecn: Some(EcnCodepoint::Ect0)`), with no way to ask for ECT(1), so
    /// an L4S arm (`prague`, `ecn=ect1`) lands in a DualPI2's classic
    /// queue, and the controller hears one CE event per increase of the
    /// peer's CE count, not the bytes marked.
    pub fn real_mode_limitation(&self) -> Option<String> {
        matches!(self.ecn, Some(ramp_cc::EcnCodepoint::Ect1)).then(|| {
            format!(
                "--cc {}: asks for ECT(1), but quinn-proto 0.11 sends only ECT(0): the flow is classic to an L4S AQM, and CE reaches the controller as one packet per CE-count increase (docs/l4s.md, \"Real mode\")",
                self.name
            )
        })
    }
}

fn config_for(mtu: u16) -> CcConfig {
    CcConfig {
        max_datagram_size: u64::from(mtu),
        ..CcConfig::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quinn_proto_0_11_sends_only_ect0_so_an_ect1_arm_is_flagged() {
        // quinn-proto 0.11.19 connection/mod.rs: `ecn: if
        // self.path.sending_ecn { Some(EcnCodepoint::Ect0) } else { None }`.
        for spec in ["prague", "prague+rapidstart", "cubic(ecn=ect1)"] {
            let c = CcChoice::parse(spec).unwrap();
            let why = c.real_mode_limitation().expect(spec);
            assert!(why.contains("only ECT(0)"), "{why}");
        }
        for spec in ["cubic", "prague(ecn=ect0)", "newreno(ecn=off)"] {
            let c = CcChoice::parse(spec).unwrap();
            assert_eq!(c.real_mode_limitation(), None, "{spec}");
        }
    }
}
