//! `bbr3` by name: `bbr3`, `bbr3(startup_gain=2.885,loss_thresh=0.05)`.

use core::any::Any;
use core::fmt;

use super::{Bbr3, BETA, HEADROOM, LOSS_THRESH, STARTUP_PACING_GAIN};
use crate::config::{CcConfig, InitialWindow};
use crate::controller::Controller;
use crate::option_row;
use crate::ratio::Ratio;
use crate::spec::option::{self, OptionDef};
use crate::spec::{ControllerSpec, Family, FamilySpec, SpecError, SpecPart};
use ramp_vocab::ecn::EcnCodepoint;

/// How the Startup ECN exit (Linux BBRv3's `bbr_full_ecn_cnt` rule) measures
/// the share of a round that was CE-marked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EcnCount {
    /// CE-marked bytes against delivered bytes, as Linux does: right when
    /// the signal carries the number of newly CE-marked packets (the
    /// simulator's loss detector, RFC 9000 §13.4.2.1 counts).
    #[default]
    Bytes,
    /// ACK frames that reported new CE marks against all ACK frames of
    /// the round: for a stack that reports at most one CE packet per
    /// frame (quinn 0.11 passes a CE increase without its size), where
    /// the byte rule would need every frame to acknowledge at most two
    /// packets to reach half.
    Frames,
}

/// BBRv3's tunable constants (the draft's defaults unless set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bbr3Options {
    /// Startup's pacing gain (§2.5, 2.77).
    pub startup_gain: Ratio,
    /// Tolerated loss per round while probing (§2.8, 0.02).
    pub loss_thresh: Ratio,
    /// Decrease per round with loss (§2.8, 0.7).
    pub beta: Ratio,
    /// Share of `inflight_longterm` left unused (§2.8, 0.15).
    pub headroom: Ratio,
    /// `ecn=`: the codepoint sent; when ECN-capable, leave Startup on
    /// persistent CE marking and end bandwidth probes on CE (Linux
    /// BBRv3's rules). `None`: the codepoint as the endpoint sets it, the
    /// CE responses on.
    pub ecn: Option<EcnCodepoint>,
    /// Seed of the randomised probe wait (§5.3.3.8); `None` = the
    /// config's per-flow seed ([`CcConfig::flow_seed`]), else 1.
    pub seed: Option<u64>,
    /// How the Startup ECN exit measures a round's CE share.
    pub ecn_count: EcnCount,
    /// `quantum=`: the send quantum enters the cwnd budget (§5.6.4.2).
    pub quantum: bool,
    /// Initial window; `None` = the config's.
    pub initial_window: Option<InitialWindow>,
}

impl Default for Bbr3Options {
    fn default() -> Self {
        Bbr3Options {
            startup_gain: STARTUP_PACING_GAIN,
            loss_thresh: LOSS_THRESH,
            beta: BETA,
            headroom: HEADROOM,
            ecn: None,
            seed: None,
            ecn_count: EcnCount::Bytes,
            quantum: true,
            initial_window: None,
        }
    }
}

/// `bbr3`'s options.
pub const BBR3_OPTIONS: &[OptionDef<Bbr3Options>] = &[
    option_row!(some_value "iw", "<packets>|rfc", "initial window in packets", initial_window,
        option::initial_window, described "the config's"),
    option_row!(value "startup_gain", "<ratio>", "Startup pacing gain",
        startup_gain = STARTUP_PACING_GAIN,
        |v| option::ratio(v, "a gain between 1 and 10", |r| {
            r.num() >= r.den() && r.num() <= 10 * r.den()
        })),
    option_row!(value "loss_thresh", "<ratio>", "loss rate per round that ends a probe",
        loss_thresh = LOSS_THRESH,
        |v| option::ratio(v, "a loss rate strictly between 0 and 1", Ratio::is_proper_fraction)),
    option_row!(value "beta", "<ratio>", "decrease per round with loss", beta = BETA,
        option::beta),
    option_row!(value "headroom", "<ratio>", "share of inflight_longterm left for other flows",
        headroom = HEADROOM,
        |v| option::ratio(v, "a share strictly between 0 and 1", Ratio::is_proper_fraction)),
    OptionDef {
        key: "ecn",
        values: "off|on|ect0|ect1",
        help: "the ECN codepoint sent (RFC 9000 §13.4; on = ect0); ECN-capable, leave Startup on persistent CE marks and end bandwidth probes on CE",
        default: || Some("default: as the endpoint sets it, the CE responses on".into()),
        parse: |o, v| {
            o.ecn = Some(option::ecn_codepoint(v)?);
            Ok(())
        },
        display: |o| o.ecn.map(|e| e.spec_str().to_string()),
    },
    option_row!(some_value "seed", "<n>", "seed of the randomised probe wait", seed,
        |v| option::count(v, 0..=u64::MAX, "an unsigned integer"),
        described "the flow's seed from the simulator, else 1"),
    option_row!(choice "ecn_count", "bytes|frames",
        "Startup ECN exit: CE bytes vs delivered bytes (bytes, Linux) or CE-reporting ACK frames vs ACK frames (frames, for stacks that report one CE per frame, as quinn 0.11)",
        ecn_count = Bbr3Options::default().ecn_count, ECN_COUNT_CHOICES, "bytes or frames"),
    option_row!(switch "quantum", "count the send quantum in the cwnd budget (§5.6.4.2)",
        quantum = Bbr3Options::default().quantum),
];

const ECN_COUNT_CHOICES: [(&str, EcnCount); 2] =
    [("bytes", EcnCount::Bytes), ("frames", EcnCount::Frames)];

/// A parsed `bbr3` name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bbr3Spec {
    /// The options.
    pub options: Bbr3Options,
}

impl fmt::Display for Bbr3Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut opts = Vec::new();
        option::write(BBR3_OPTIONS, &self.options, &mut opts);
        if opts.is_empty() {
            f.write_str("bbr3")
        } else {
            write!(f, "bbr3({})", opts.join(","))
        }
    }
}

impl FamilySpec for Bbr3Spec {
    fn effective_config(&self, cfg: &CcConfig) -> CcConfig {
        CcConfig {
            initial_window: self.options.initial_window.unwrap_or(cfg.initial_window),
            ..*cfg
        }
    }

    fn canonical_name(&self, cfg: &CcConfig) -> String {
        let eff = self.effective_config(cfg);
        let mut shown = *self;
        shown.options.initial_window = (eff.initial_window != CcConfig::default().initial_window)
            .then_some(eff.initial_window);
        shown.to_string()
    }

    fn without_initial_window(&self) -> Option<ControllerSpec> {
        let mut s = *self;
        s.options.initial_window = None;
        Some(ControllerSpec::new(s))
    }

    fn build(&self, cfg: &CcConfig) -> Box<dyn Controller> {
        Box::new(self.build_bbr3(cfg))
    }

    fn ecn_codepoint(&self) -> Option<EcnCodepoint> {
        self.options.ecn
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Bbr3Spec {
    /// Builds the controller as its concrete type.
    pub fn build_bbr3(&self, cfg: &CcConfig) -> Bbr3 {
        Bbr3::new(
            self.canonical_name(cfg),
            &self.effective_config(cfg),
            self.options,
        )
    }
}

/// The `bbr3` family, registered in [`crate::spec::Registry::builtin`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Bbr3Family;

impl Family for Bbr3Family {
    fn names(&self) -> &'static [&'static str] {
        &["bbr3"]
    }

    fn parse(&self, parts: &[SpecPart<'_>], whole: &str) -> Result<ControllerSpec, SpecError> {
        let [part] = parts else {
            return Err(SpecError::new(format!(
                "`{whole}`: bbr3 has its own startup and cannot be combined with other parts"
            )));
        };
        let mut spec = Bbr3Spec::default();
        for &(k, v) in part.options {
            if !option::apply(BBR3_OPTIONS, &mut spec.options, k, v, whole)? {
                return Err(SpecError::new(format!(
                    "unknown option `{k}` for `bbr3` in `{whole}`; valid options: {}",
                    option::describe(BBR3_OPTIONS)
                )));
            }
        }
        Ok(ControllerSpec::new(spec))
    }

    fn help(&self) -> String {
        let mut s = "bbr3: BBRv3 (draft-ietf-ccwg-bbr-06)\n".to_string();
        for o in BBR3_OPTIONS {
            s.push_str(&format!("    {}={}  {}\n", o.key, o.values, o.help_line()));
        }
        s
    }
}
