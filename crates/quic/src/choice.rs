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
            build: Arc::new(move |mtu| spec.build(&config_for(mtu))),
        })
    }

    /// A choice from any builder (tests, experiments).
    pub fn custom(name: impl Into<String>, build: Arc<BuildController>) -> CcChoice {
        CcChoice {
            name: name.into(),
            build,
            pacer: None,
        }
    }
}

fn config_for(mtu: u16) -> CcConfig {
    CcConfig {
        max_datagram_size: u64::from(mtu),
        ..CcConfig::default()
    }
}
