//! Controllers by name: `newreno`, `cubic+hystart`,
//! `rapidstart(beta=0.7,jump=on)`, `cubic(conns=2)+rapidstart(iw=30)`.
//!
//! Grammar: a spec is parts joined by `+`; a part is a name with an optional
//! parenthesised list of `key=value` options. At most one congestion-avoidance
//! algorithm (`newreno`, the default, or `cubic`), at most one of
//! `rapidstart` / `jumpstart`, optionally `hystart`. Connection-level options
//! (`iw`, `pacing`, `ss_gain`, `ca_gain`, `prr`, `undo`, `send_one`) may be written on any
//! part. [`ControllerSpec`]'s `Display` is the canonical name and parses back
//! to the same spec.
//!
//! The four arms of the Rapid Start production experiment (the draft
//! author's IETF 125 slides), as the experiment ran them on h2o/quicly
//! ([`SEED_ARMS`]): quicly's Reno halves at the end of slow start and uses
//! β = 0.7 afterwards; Rapid Start's factors use β = 0.7.
//!
//! | arm | spec |
//! |---|---|
//! | baseline: paced slow start, IW 30 | `newreno(iw=30,beta=0.7,ss_beta=0.5)` |
//! | jumpstart: Careful Resume, 60-packet jump over one RTT, then 2× | `newreno(iw=30,beta=0.7,ss_beta=0.5)+jumpstart` |
//! | rapid-no-jump: 3×/2× growth and smooth reduction, no jump | `newreno(iw=30,beta=0.7,ss_beta=0.5)+rapidstart(jump=off)` |
//! | rapidstart: both | `newreno(iw=30,beta=0.7,ss_beta=0.5)+rapidstart` |
//!
//! [`RFC9002_SEED_ARMS`] are the same four on RFC 9002's NewReno (β 0.5).
//! Prefix `cubic+` (e.g. `cubic+rapidstart(iw=30)`) for CUBIC, β = 0.7.

use core::fmt;

mod display;
mod parse;

use crate::config::{CcConfig, InitialWindow, PrrMode};
use crate::controller::Controller;
use crate::cubic::{Cubic, FastConvergence};
use crate::loss_based::{CaAlgorithm, LossBased, Startup};
use crate::newreno::{RenoGrowth, LOSS_REDUCTION_FACTOR};
use crate::rapid_start::RapidStartOptions;
use crate::ratio::Ratio;

/// quicly's Reno decrease factor in congestion avoidance,
/// `QUICLY_RENO_BETA` = 0.7 (h2o/quicly, include/quicly/cc.h); RFC 9002
/// §7.3.2's `kLossReductionFactor` is 0.5. quicly's Rapid Start factors use
/// it too (0.9, 0.2, 0.9 under -02 §3.3).
pub const QUICLY_RENO_BETA: Ratio = Ratio::SEVEN_TENTHS;

/// quicly's decrease for the loss that ends slow start: 0.5, hard-coded in
/// lib/cc-reno.c and lib/cc-pico.c (`cwnd *= ssthresh == UINT32_MAX ? 0.5 :
/// QUICLY_RENO_BETA`, since 2023-11: the loss signal arrives one RTT late,
/// after slow start has doubled the window).
pub const QUICLY_SLOW_START_EXIT_BETA: Ratio = Ratio::HALF;

/// The seed experiment's four arms, as it ran them on quicly: Reno with
/// β = [`QUICLY_RENO_BETA`] and `ss_beta` = [`QUICLY_SLOW_START_EXIT_BETA`],
/// IW 30 packets, the jump Careful Resume with a 60-packet window. A test
/// keeps these spellings equal to the two constants.
pub const SEED_ARMS: [(&str, &str); 4] = [
    ("baseline", "newreno(iw=30,beta=0.7,ss_beta=0.5)"),
    ("jumpstart", "newreno(iw=30,beta=0.7,ss_beta=0.5)+jumpstart"),
    (
        "rapid-no-jump",
        "newreno(iw=30,beta=0.7,ss_beta=0.5)+rapidstart(jump=off)",
    ),
    (
        "rapidstart",
        "newreno(iw=30,beta=0.7,ss_beta=0.5)+rapidstart",
    ),
];

/// The same four arms on RFC 9002's NewReno (β = 0.5).
pub const RFC9002_SEED_ARMS: [(&str, &str); 4] = [
    ("baseline", "newreno(iw=30)"),
    ("jumpstart", "jumpstart(iw=30)"),
    ("rapid-no-jump", "rapidstart(iw=30,jump=off)"),
    ("rapidstart", "rapidstart(iw=30)"),
];

/// The congestion-avoidance algorithm of a spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaSpec {
    /// RFC 9002 NewReno.
    NewReno {
        /// Multiplicative decrease (default 0.5).
        beta: Ratio,
        /// The decrease for the loss that ends the initial slow start;
        /// `None` = `beta`. quicly hard-codes 0.5 there and uses its β 0.7
        /// afterwards ([`QUICLY_RENO_BETA`]).
        ss_beta: Option<Ratio>,
    },
    /// RFC 9438 CUBIC.
    Cubic {
        /// N-connection emulation (1 = RFC 9438).
        conns: u32,
        /// RFC 9438 §4.7 fast convergence.
        fast_convergence: FastConvergence,
    },
}

/// The startup mechanism of a spec (HyStart++ is separate and combines
/// with each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StartupSpec {
    /// Classic slow start.
    Classic,
    /// Only the full-RTT paced `2·IW` first flight.
    JumpStart {
        /// Wait for the first RTT sample before jumping.
        defer: bool,
        /// Careful Resume's PipeSize and Safe Retreat (RFC 9959) around the
        /// jump; `false` reacts to a loss with the ordinary β·cwnd.
        retreat: bool,
    },
    /// Rapid Start.
    RapidStart {
        /// Use the full-RTT paced first flight.
        jump: bool,
        /// Wait for the first RTT sample before jumping.
        defer: bool,
        /// Growth and recovery options.
        options: RapidStartOptions,
    },
}

/// Connection-level overrides of [`CcConfig`]; `None` = take the config's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CommonOptions {
    /// `iw=`.
    pub initial_window: Option<InitialWindow>,
    /// `pacing=`.
    pub pacing: Option<bool>,
    /// `ss_gain=`.
    pub slow_start_pacing_gain: Option<Ratio>,
    /// `ca_gain=`.
    pub ca_pacing_gain: Option<Ratio>,
    /// `prr=`.
    pub prr: Option<PrrMode>,
    /// `undo=`.
    pub undo: Option<bool>,
    /// `send_one=`.
    pub send_one: Option<bool>,
}

/// A parsed controller name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ControllerSpec {
    /// Congestion avoidance.
    pub ca: CaSpec,
    /// Startup.
    pub startup: StartupSpec,
    /// HyStart++ on the initial slow start.
    pub hystart: bool,
    /// Connection-level options.
    pub common: CommonOptions,
}

/// A name that is not a controller, with a message saying what is valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    message: String,
}

impl SpecError {
    fn new(message: String) -> SpecError {
        SpecError { message }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SpecError {}

impl Default for ControllerSpec {
    fn default() -> Self {
        ControllerSpec {
            ca: CaSpec::NewReno {
                beta: LOSS_REDUCTION_FACTOR,
                ss_beta: None,
            },
            startup: StartupSpec::Classic,
            hystart: false,
            common: CommonOptions::default(),
        }
    }
}

/// Parses one controller name.
pub fn parse(name: &str) -> Result<ControllerSpec, SpecError> {
    name.parse()
}

/// Parses a comma-separated list of names; commas inside parentheses
/// belong to options (`newreno,rapidstart(beta=0.7,jump=on)`).
pub fn parse_list(names: &str) -> Result<Vec<ControllerSpec>, SpecError> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in names.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(parse(&names[start..i])?);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(parse(&names[start..])?);
    Ok(out)
}

impl ControllerSpec {
    /// The config this spec runs with: `cfg` overridden by the spec's
    /// connection-level options.
    pub fn effective_config(&self, cfg: &CcConfig) -> CcConfig {
        let c = &self.common;
        CcConfig {
            max_datagram_size: cfg.max_datagram_size,
            initial_window: c.initial_window.unwrap_or(cfg.initial_window),
            pacing: c.pacing.unwrap_or(cfg.pacing),
            slow_start_pacing_gain: c
                .slow_start_pacing_gain
                .unwrap_or(cfg.slow_start_pacing_gain),
            ca_pacing_gain: c.ca_pacing_gain.unwrap_or(cfg.ca_pacing_gain),
            prr: c.prr.unwrap_or(cfg.prr),
            undo: c.undo.unwrap_or(cfg.undo),
            recovery_send_one: c.send_one.unwrap_or(cfg.recovery_send_one),
            event_order: cfg.event_order,
            alone_on_bottleneck: cfg.alone_on_bottleneck,
        }
    }

    /// The canonical name of the controller this spec builds under `cfg`:
    /// connection-level values are written when they differ from the
    /// defaults, whether they came from the spec or from `cfg`.
    pub fn canonical_name(&self, cfg: &CcConfig) -> String {
        let eff = self.effective_config(cfg);
        ControllerSpec {
            common: CommonOptions::differing_from_default(&eff),
            ..*self
        }
        .to_string()
    }

    /// Builds the controller as its concrete type.
    pub fn build_loss_based(&self, cfg: &CcConfig) -> LossBased {
        let eff = self.effective_config(cfg);
        let ca = match self.ca {
            CaSpec::NewReno { beta, ss_beta } => CaAlgorithm::Reno {
                beta,
                ss_beta: ss_beta.unwrap_or(beta),
                growth: RenoGrowth::default(),
            },
            CaSpec::Cubic {
                conns,
                fast_convergence,
            } => CaAlgorithm::Cubic(Cubic::new(
                conns,
                fast_convergence.resolve(cfg.alone_on_bottleneck),
            )),
        };
        let startup = match self.startup {
            StartupSpec::Classic => Startup {
                first_flight: None,
                rapid: None,
                hystart: self.hystart,
                careful_resume: false,
            },
            StartupSpec::JumpStart { defer, retreat } => Startup {
                first_flight: Some(defer),
                rapid: None,
                hystart: self.hystart,
                careful_resume: retreat,
            },
            StartupSpec::RapidStart {
                jump,
                defer,
                options,
            } => Startup {
                first_flight: jump.then_some(defer),
                rapid: Some(options),
                hystart: self.hystart,
                careful_resume: false,
            },
        };
        LossBased::new(self.canonical_name(cfg), eff, ca, startup)
    }

    /// Builds the controller.
    pub fn build(&self, cfg: &CcConfig) -> Box<dyn Controller> {
        Box::new(self.build_loss_based(cfg))
    }
}
