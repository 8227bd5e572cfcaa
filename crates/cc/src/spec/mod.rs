//! Controllers by name: `newreno`, `cubic+hystart`,
//! `rapidstart(beta=0.7,jump=on)`, `cubic(conns=2)+rapidstart(iw=30)`.
//!
//! Grammar: a spec is parts joined by `+`; a part is a name with an optional
//! parenthesised list of `key=value` options. Each part name
//! belongs to one controller family ([`Family`]); a spec's parts all belong
//! to the same one, which reads them into its own [`FamilySpec`]. The
//! [`Registry`] lists the families: [`Registry::builtin`] has ramp's, and a
//! program registers its own with one call (docs/algorithms.md, "Adding a
//! controller"). Every family states its options once, in an
//! [`option::OptionDef`] table that drives parsing, the canonical name, the
//! error messages and the help. [`ControllerSpec`]'s `Display` is the
//! canonical name and parses back to the same spec.
//!
//! The loss-based family ([`LossBasedSpec`], in
//! [`crate::loss_based::spec`]) owns `newreno` (alias `reno`), `cubic`,
//! `prague`, `hystart`, `rapidstart` and `jumpstart`; the BBRv3 family
//! ([`crate::bbr3`]) owns `bbr3`.
//!
//! The four arms of the Rapid Start production experiment (the draft
//! author's IETF 125 slides), as the experiment ran them on h2o/quicly
//! ([`SEED_ARMS`]): quicly's Reno halves at the end of slow start and uses
//! β = 0.7 afterwards, growing in congestion avoidance as quicly's `pico`;
//! Rapid Start's factors use β = 0.7.
//!
//! | arm | spec |
//! |---|---|
//! | baseline: paced slow start, IW 30 | `newreno(iw=30x1472,ca_gain=2,pacer=quicly,cc_limited=quicly,send_rule=quicly,beta=0.7,ss_beta=0.5,growth=pico)` |
//! | jumpstart: Careful Resume, 60-packet jump over one RTT, then 2× | `newreno(iw=30x1472,ca_gain=2,pacer=quicly,cc_limited=quicly,send_rule=quicly,beta=0.7,ss_beta=0.5,growth=pico)+jumpstart(retreat_beta=quicly)` |
//! | rapid-no-jump: 3×/2× growth and smooth reduction, no jump | `newreno(iw=30x1472,ca_gain=2,pacer=quicly,cc_limited=quicly,send_rule=quicly,beta=0.7,ss_beta=0.5,growth=pico)+rapidstart(jump=off)` |
//! | rapidstart: both | `newreno(iw=30x1472,ca_gain=2,pacer=quicly,cc_limited=quicly,send_rule=quicly,beta=0.7,ss_beta=0.5,growth=pico)+rapidstart` |
//!
//! [`RFC9002_SEED_ARMS`] are the same four on RFC 9002's NewReno (β 0.5).
//! Prefix `cubic+` (e.g. `cubic+rapidstart(iw=30)`) for CUBIC, β = 0.7.

use core::fmt;
use std::sync::Arc;

mod grammar;
pub mod option;
mod registry;

pub use crate::loss_based::spec::{
    CaOptions, CaPart, CaRow, CaSpec, CommonOptions, CubicOptions, JumpStartOptions,
    LossBasedFamily, LossBasedSpec, NewRenoOptions, RapidStartSpec, StartupSpec, CA_PARTS,
};
pub use grammar::split_list;
pub use registry::{Family, FamilySpec, Registry, SpecPart};

use crate::config::CcConfig;
use crate::controller::Controller;
use crate::loss_based::LossBased;
use crate::ratio::Ratio;
use ramp_vocab::ecn::EcnCodepoint;

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

/// quicly's pacing multiplier once a connection has seen a loss episode:
/// 2, in recovery and congestion avoidance alike (`calc_pacer_send_rate`
/// in lib/quicly.c at 45bf8a37, where Linux and RFC 9002 §7.7 use 1.25:
/// "the send rate is guaranteed to become no less than that immediately
/// before the loss event"). Before any loss quicly paces at 2× in slow
/// start, 3× in Rapid Start's growth and 1× in the jump, as ramp's
/// controllers do. The seed arms spell it `ca_gain=2`.
pub const QUICLY_PACING_GAIN_AFTER_LOSS: Ratio = Ratio::new_const(2, 1);

/// The seed experiment's four arms, as it ran them on quicly: Reno with
/// β = [`QUICLY_RENO_BETA`] and `ss_beta` = [`QUICLY_SLOW_START_EXIT_BETA`]
/// growing as quicly's `pico` does in congestion avoidance (`growth=pico`:
/// Rapid Start exists only in `pico` at 45bf8a37 and is switched on per
/// connection within one congestion controller, lib/quicly.c, so every arm
/// ran `pico`), IW 30 packets counted in quicly's unit (`iw=30x1472`:
/// 30 × min(max_udp_payload_size, 1472) = 44,160 B whatever the packets'
/// size, [`crate::config::quicly_initial_cwnd`]; the jump 2 × IW = 88,320 B,
/// quicly's 60 packets), the jump Careful Resume with a 60-packet window whose
/// reaction to a loss before validation is quicly 45bf8a37's
/// (`retreat_beta=quicly`: 0.5 rising to 0.7 × the jump bytes acked, the
/// slides' "0.5x to 0.7x of PipeSize"), Rapid Start with quicly's values
/// ([`crate::rapid_start::RapidStartOptions::quicly`]; [`SEED_DRAFT02_ARMS`]
/// has -02's), paced by quicly's pacer (`pacer=quicly`: 8–10 packets of
/// burst on a 1 ms clock, include/quicly/pacer.h; [`crate::QuiclyPacer`])
/// at quicly's multipliers (`ca_gain=2`: [`QUICLY_PACING_GAIN_AFTER_LOSS`]),
/// and growing only on the ACK frames quicly counts as CC-limited
/// (`cc_limited=quicly`, [`crate::loss_based::CcLimitedRule::Quicly`]):
/// h2o/quicly 45bf8a37, lib/quicly.c, `commit_send_packet` marks a packet
/// sent with bytes in flight ≥ cwnd/2, and `handle_ack_frame` passes
/// `cc_limited` to `cc_on_acked` when in flight at the frame's arrival is
/// ≥ cwnd/2 or a newly acked packet carries the mark; lib/cc-reno.c and
/// lib/cc-pico.c grow nothing on a frame without it. That holds for a
/// connection that respects the app-limited state, which is quicly's
/// default (`enable_ratio.respect_app_limited = 255`, lib/defaults.c) and
/// what quicly's simulator runs. A connection drawn not to respect it
/// (`num_respected_app_limited == 0`, the first term of the same test in
/// `handle_ack_frame`; the cli's `--disregard-app-limited`) grows on every
/// frame. The one production record the slides show has
/// `"num-respected-app-limited":0`. The fleet draws that branch
/// (`cc_limited=always`, [`crate::loss_based::CcLimitedRule::Always`]) per
/// connection for every arm with quicly's rule, by its population's
/// declared share (`endpoint.respect_app_limited_share`, ramp-sim's
/// `fleet::app_limited`; docs/experiments.md); these specs are what a
/// connection that respects the app-limited state runs. The window lets
/// packets out as quicly's does (`send_rule=quicly`,
/// [`crate::SendRule::Quicly`]): while bytes in flight are below it, the
/// last packet crossing it (lib/quicly.c `calc_send_window` and
/// `do_allocate_frame` at 45bf8a37).
/// A test keeps these spellings equal to the constants.
pub const SEED_ARMS: [(&str, &str); 4] = [
    ("baseline", "newreno(iw=30x1472,ca_gain=2,pacer=quicly,cc_limited=quicly,send_rule=quicly,beta=0.7,ss_beta=0.5,growth=pico)"),
    (
        "jumpstart",
        "newreno(iw=30x1472,ca_gain=2,pacer=quicly,cc_limited=quicly,send_rule=quicly,beta=0.7,ss_beta=0.5,growth=pico)+jumpstart(retreat_beta=quicly,recon=quicly)",
    ),
    (
        "rapid-no-jump",
        "newreno(iw=30x1472,ca_gain=2,pacer=quicly,cc_limited=quicly,send_rule=quicly,beta=0.7,ss_beta=0.5,growth=pico)+rapidstart(jump=off,jump_floor=on,thresh_mult=1.09375,rtt_floor=slots,k=11/18,thresh=max,clock=ms,off_below_ms=4,recovery=quicly)",
    ),
    (
        "rapidstart",
        "newreno(iw=30x1472,ca_gain=2,pacer=quicly,cc_limited=quicly,send_rule=quicly,beta=0.7,ss_beta=0.5,growth=pico)+rapidstart(jump_floor=on,thresh_mult=1.09375,rtt_floor=slots,k=11/18,thresh=max,clock=ms,off_below_ms=4,recovery=quicly,recon=quicly)",
    ),
];

/// The seed arms with draft-kazuho-ccwg-rapid-start-02's own values for
/// Rapid Start (K = 2/3, `min(min_rtt + 4 ms, 1.10·min_rtt)` on exact RTTs,
/// the per-round floor, no low-RTT limit) instead of quicly's.
pub const SEED_DRAFT02_ARMS: [(&str, &str); 4] = [
    SEED_ARMS[0],
    SEED_ARMS[1],
    (
        "rapid-no-jump",
        "newreno(iw=30x1472,ca_gain=2,pacer=quicly,cc_limited=quicly,send_rule=quicly,beta=0.7,ss_beta=0.5,growth=pico)+rapidstart(jump=off)",
    ),
    (
        "rapidstart",
        "newreno(iw=30x1472,ca_gain=2,pacer=quicly,cc_limited=quicly,send_rule=quicly,beta=0.7,ss_beta=0.5,growth=pico)+rapidstart",
    ),
];

/// The same four arms on RFC 9002's NewReno (β = 0.5).
pub const RFC9002_SEED_ARMS: [(&str, &str); 4] = [
    ("baseline", "newreno(iw=30)"),
    ("jumpstart", "jumpstart(iw=30)"),
    ("rapid-no-jump", "rapidstart(iw=30,jump=off)"),
    ("rapidstart", "rapidstart(iw=30)"),
];

/// The seed arms and BBRv3 (draft-ietf-ccwg-bbr-06) as a fifth.
pub const SEED_BBR3_ARMS: [(&str, &str); 5] = [
    SEED_ARMS[0],
    SEED_ARMS[1],
    SEED_ARMS[2],
    SEED_ARMS[3],
    ("bbr3", "bbr3"),
];

/// Paced slow start, jump start, HyStart++ and Rapid Start, each over
/// RFC 9002 NewReno and over CUBIC (RFC 9438), with the scenario's IW.
pub const EXTENDED_ARMS: [(&str, &str); 8] = [
    ("slowstart", "newreno"),
    ("jumpstart", "jumpstart"),
    ("hystart", "newreno+hystart"),
    ("rapidstart", "rapidstart"),
    ("cubic", "cubic"),
    ("cubic+jumpstart", "cubic+jumpstart"),
    ("cubic+hystart", "cubic+hystart"),
    ("cubic+rapidstart", "cubic+rapidstart"),
];

/// A parsed controller name of any family: cheap to clone, prints its
/// canonical name, builds controllers.
#[derive(Clone)]
pub struct ControllerSpec(Arc<dyn FamilySpec>);

impl ControllerSpec {
    /// Wraps a family's spec.
    pub fn new(spec: impl FamilySpec) -> ControllerSpec {
        ControllerSpec(Arc::new(spec))
    }

    /// The family's own spec, if it is an `S`.
    pub fn downcast_ref<S: FamilySpec>(&self) -> Option<&S> {
        self.0.as_any().downcast_ref::<S>()
    }

    /// The loss-based spec, if this is one.
    pub fn as_loss_based(&self) -> Option<&LossBasedSpec> {
        self.downcast_ref()
    }

    /// The config this spec runs with: `cfg` overridden by the spec's
    /// connection-level options.
    pub fn effective_config(&self, cfg: &CcConfig) -> CcConfig {
        self.0.effective_config(cfg)
    }

    /// The canonical name of the controller this spec builds under `cfg`:
    /// connection-level values are written when they differ from the
    /// defaults, whether they came from the spec or from `cfg`.
    pub fn canonical_name(&self, cfg: &CcConfig) -> String {
        self.0.canonical_name(cfg)
    }

    /// The same spec without an explicit initial window, so that a
    /// command-wide initial window applies; unchanged for families without
    /// one.
    pub fn without_initial_window(&self) -> ControllerSpec {
        self.0
            .without_initial_window()
            .unwrap_or_else(|| self.clone())
    }

    /// Builds the controller.
    pub fn build(&self, cfg: &CcConfig) -> Box<dyn Controller> {
        self.0.build(cfg)
    }

    /// The ECN codepoint the arm sends, if its spec says
    /// (`ecn=off|on|ect0|ect1`); `None` leaves it to the endpoint.
    pub fn ecn_codepoint(&self) -> Option<EcnCodepoint> {
        self.0.ecn_codepoint()
    }

    /// The pacer the arm runs, if its spec says (`pacer=leaky|quinn|quicly`);
    /// `None` leaves it to the endpoint.
    pub fn pacer_model(&self) -> Option<crate::pacer::PacerModel> {
        self.0.pacer_model()
    }

    /// Which packets the arm's window lets out (`send_rule=rfc|quicly`;
    /// RFC 9002 §7's when the spec does not say).
    pub fn send_rule(&self) -> crate::send_rule::SendRule {
        self.0.send_rule().unwrap_or_default()
    }

    /// Builds a loss-based controller as its concrete type; `None` for
    /// another family.
    pub fn build_loss_based(&self, cfg: &CcConfig) -> Option<LossBased> {
        self.as_loss_based().map(|s| s.build_loss_based(cfg))
    }
}

impl Default for ControllerSpec {
    /// RFC 9002 NewReno.
    fn default() -> Self {
        ControllerSpec::new(LossBasedSpec::default())
    }
}

impl fmt::Display for ControllerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl fmt::Debug for ControllerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// Two specs are equal when their canonical names are: the name parses
/// back to an equal spec (a property test checks it), so it determines the
/// controller.
impl PartialEq for ControllerSpec {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Eq for ControllerSpec {}

impl core::str::FromStr for ControllerSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<ControllerSpec, SpecError> {
        parse(s)
    }
}

/// A name that is not a controller, with a message saying what is valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    message: String,
}

impl SpecError {
    /// An error with this message; it should name the spec and say what
    /// is valid.
    pub fn new(message: String) -> SpecError {
        SpecError { message }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SpecError {}

/// Parses one controller name with the built-in families.
pub fn parse(name: &str) -> Result<ControllerSpec, SpecError> {
    Registry::builtin().parse(name)
}

/// Parses a comma-separated list of names with the built-in families;
/// commas inside parentheses belong to options
/// (`newreno,rapidstart(beta=0.7,jump=on)`).
pub fn parse_list(names: &str) -> Result<Vec<ControllerSpec>, SpecError> {
    Registry::builtin().parse_list(names)
}
