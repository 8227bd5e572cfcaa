//! The loss-based family's names: `newreno` (alias `reno`), `cubic`,
//! `prague`, `hystart`, `rapidstart`, `jumpstart`, joined with `+` and
//! built into one [`LossBased`] controller.
//!
//! At most one congestion-avoidance part (`newreno`, the default, `cubic`
//! or `prague`), at most one of `rapidstart` / `jumpstart`, optionally
//! `hystart`. Connection-level options ([`COMMON_OPTIONS`]) may be written on
//! any part and are printed on the first. Every option is one row of a
//! table in `options.rs`, and every congestion-avoidance part one row of
//! [`CA_PARTS`] (`ca_part.rs`); the parser, the canonical name, the error
//! messages and [`Family::help`] all read the same rows.

use crate::resume::Reconnaissance;
use core::any::Any;
use core::fmt;

use std::sync::OnceLock;

use super::{CcLimitedRule, FirstFlightStart, LossBased, Startup};
use crate::careful_resume::RetreatBeta;
use crate::config::{CcConfig, InitialWindow, PrrMode};
use crate::controller::Controller;
use crate::cubic::FastConvergence;
use crate::newreno::LOSS_REDUCTION_FACTOR;
use crate::pacer::PacerModel;
use crate::rapid_start::{RapidStartOptions, RttClock};
use crate::ratio::Ratio;
use crate::send_rule::SendRule;
use crate::spec::option::{self, OptionDef};
use crate::spec::{ControllerSpec, Family, FamilySpec, SpecError, SpecPart};
use ramp_vocab::ecn::EcnCodepoint;

mod ca_part;
mod options;
pub use ca_part::{CaOptions, CaPart, CaRow, CaSpec, CA_PARTS};
pub use options::{
    COMMON_OPTIONS, CUBIC_OPTIONS, JUMPSTART_OPTIONS, NEWRENO_OPTIONS, RAPIDSTART_OPTIONS,
};

/// NewReno's options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NewRenoOptions {
    /// Multiplicative decrease (default 0.5, RFC 9002 §7.3.2).
    pub beta: Ratio,
    /// The decrease for the loss that ends the initial slow start; `None` =
    /// `beta`. quicly hard-codes 0.5 there and uses its β 0.7 afterwards
    /// ([`crate::spec::QUICLY_RENO_BETA`]).
    pub ss_beta: Option<Ratio>,
    /// quicly's `pico` congestion-avoidance growth (`growth=pico`,
    /// [`crate::newreno::RenoGrowth::pico`]) instead of RFC 9002's.
    pub pico: bool,
}

impl Default for NewRenoOptions {
    fn default() -> Self {
        NewRenoOptions {
            beta: LOSS_REDUCTION_FACTOR,
            ss_beta: None,
            pico: false,
        }
    }
}

/// CUBIC's options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CubicOptions {
    /// N-connection emulation (1 = RFC 9438).
    pub conns: u32,
    /// RFC 9438 §4.7 fast convergence.
    pub fast_convergence: FastConvergence,
}

impl Default for CubicOptions {
    fn default() -> Self {
        CubicOptions {
            conns: 1,
            fast_convergence: FastConvergence::Auto,
        }
    }
}

/// Jump start's options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JumpStartOptions {
    /// Wait for the first RTT sample before jumping.
    pub defer: bool,
    /// Careful Resume's PipeSize and Safe Retreat (RFC 9959) around the
    /// jump; `false` reacts to a loss with the ordinary β·cwnd.
    pub retreat: bool,
    /// The window Safe Retreat falls to: RFC 9959's `PipeSize/2` by
    /// default.
    pub retreat_beta: RetreatBeta,
    /// When a resumed connection may jump to its saved window.
    pub recon: Reconnaissance,
}

impl Default for JumpStartOptions {
    fn default() -> Self {
        JumpStartOptions {
            defer: true,
            retreat: true,
            retreat_beta: RetreatBeta::Half,
            recon: Reconnaissance::Rfc,
        }
    }
}

/// Rapid Start's options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RapidStartSpec {
    /// Use the full-RTT paced first flight.
    pub jump: bool,
    /// Wait for the first RTT sample before jumping.
    pub defer: bool,
    /// Growth and recovery options.
    pub options: RapidStartOptions,
    /// When a resumed connection may jump to its saved window.
    pub recon: Reconnaissance,
}

impl Default for RapidStartSpec {
    fn default() -> Self {
        RapidStartSpec {
            jump: true,
            defer: true,
            options: RapidStartOptions::default(),
            recon: Reconnaissance::Rfc,
        }
    }
}

/// The startup mechanism of a spec (HyStart++ is separate and combines
/// with each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StartupSpec {
    /// Classic slow start.
    Classic,
    /// Only the full-RTT paced `2·IW` first flight.
    JumpStart(JumpStartOptions),
    /// Rapid Start.
    RapidStart(RapidStartSpec),
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
    /// `ecn=`: the codepoint the arm sends (RFC 9000 §13.4); an ECN-capable
    /// arm sees CE marks where an AQM would drop; `None` leaves it to the
    /// endpoint.
    pub ecn: Option<EcnCodepoint>,
    /// `pacer=`: the pacer the arm's implementation ran (the seed arms:
    /// quicly's); `None` leaves it to the endpoint.
    pub pacer: Option<PacerModel>,
    /// `cc_limited=`: which ACK frames may grow the window
    /// ([`CcLimitedRule`]); `None`: RFC 9002 §7.8's rule.
    pub cc_limited: Option<CcLimitedRule>,
    /// `send_rule=`: which packets the window lets out ([`SendRule`]);
    /// `None`: RFC 9002 §7's (the packet must fit).
    pub send_rule: Option<SendRule>,
    /// `pacing_rtt=`: the smoothed RTT the pacing rate divides by
    /// ([`RttClock::WholeMs`]: quicly's whole milliseconds); `None`: the
    /// estimator's.
    pub pacing_rtt: Option<RttClock>,
    /// `jump_after=`: packets sent after the jump window is set that still
    /// count as sent before the jump ([`LossBased::with_jump_after`]);
    /// `None`: 0.
    pub jump_after: Option<u64>,
}

/// A parsed loss-based controller name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LossBasedSpec {
    /// Congestion avoidance.
    pub ca: CaSpec,
    /// Startup.
    pub startup: StartupSpec,
    /// HyStart++ on the initial slow start.
    pub hystart: bool,
    /// Connection-level options.
    pub common: CommonOptions,
}

impl Default for LossBasedSpec {
    fn default() -> Self {
        LossBasedSpec {
            ca: CaSpec::default(),
            startup: StartupSpec::Classic,
            hystart: false,
            common: CommonOptions::default(),
        }
    }
}

/// The loss-based family, registered in [`crate::spec::Registry::builtin`].
#[derive(Clone, Copy, Debug, Default)]
pub struct LossBasedFamily;

/// The family's part names after the congestion-avoidance parts'.
const STARTUP_NAMES: &[&str] = &["hystart", "rapidstart", "jumpstart"];

fn unknown_option(part: &str, key: &str, valid: String, whole: &str) -> SpecError {
    let common = option::describe(COMMON_OPTIONS);
    let valid = if valid.is_empty() {
        common
    } else {
        format!("{valid}, {common}")
    };
    SpecError::new(format!(
        "unknown option `{key}` for `{part}` in `{whole}`; valid options: {valid}"
    ))
}

/// Applies one part's own table, after the common options were taken out.
fn apply_part<S>(
    table: &[OptionDef<S>],
    target: &mut S,
    part: &str,
    rest: &[(&str, &str)],
    whole: &str,
) -> Result<(), SpecError> {
    for &(k, v) in rest {
        if !option::apply(table, target, k, v, whole)? {
            return Err(unknown_option(part, k, option::describe(table), whole));
        }
    }
    Ok(())
}

impl Family for LossBasedFamily {
    fn names(&self) -> &'static [&'static str] {
        static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
        NAMES.get_or_init(|| {
            CA_PARTS
                .iter()
                .flat_map(|p| core::iter::once(p.name()).chain(p.aliases().iter().copied()))
                .chain(STARTUP_NAMES.iter().copied())
                .collect()
        })
    }

    fn parse(&self, parts: &[SpecPart<'_>], whole: &str) -> Result<ControllerSpec, SpecError> {
        let mut spec = LossBasedSpec::default();
        let (mut seen_ca, mut seen_startup) = (false, false);
        let mut seen_common: Vec<&str> = Vec::new();
        for part in parts {
            let mut rest = Vec::new();
            for &(k, v) in part.options {
                if COMMON_OPTIONS.iter().any(|o| o.key == k) {
                    if seen_common.contains(&k) {
                        return Err(SpecError::new(format!(
                            "`{whole}`: option `{k}` given twice"
                        )));
                    }
                    seen_common.push(k);
                    option::apply(COMMON_OPTIONS, &mut spec.common, k, v, whole)?;
                } else {
                    rest.push((k, v));
                }
            }
            if let Some(row) = ca_part::ca_row(part.name) {
                if seen_ca {
                    return Err(SpecError::new(format!(
                        "`{whole}`: more than one congestion-avoidance algorithm ({})",
                        ca_part::ca_names()
                    )));
                }
                seen_ca = true;
                spec.ca = row.parse(&rest, whole)?;
                continue;
            }
            match part.name {
                "rapidstart" | "jumpstart" => {
                    if seen_startup {
                        return Err(SpecError::new(format!(
                            "`{whole}`: at most one of rapidstart, jumpstart"
                        )));
                    }
                    seen_startup = true;
                    spec.startup = if part.name == "jumpstart" {
                        let mut o = JumpStartOptions::default();
                        apply_part(JUMPSTART_OPTIONS, &mut o, "jumpstart", &rest, whole)?;
                        StartupSpec::JumpStart(o)
                    } else {
                        let mut o = RapidStartSpec::default();
                        apply_part(RAPIDSTART_OPTIONS, &mut o, "rapidstart", &rest, whole)?;
                        StartupSpec::RapidStart(o)
                    };
                }
                _ => {
                    // `hystart`, the one remaining name of this family.
                    if spec.hystart {
                        return Err(SpecError::new(format!("`{whole}`: hystart given twice")));
                    }
                    if let Some((k, _)) = rest.first() {
                        return Err(unknown_option("hystart", k, String::new(), whole));
                    }
                    spec.hystart = true;
                }
            }
        }
        Ok(ControllerSpec::new(spec))
    }

    fn help(&self) -> String {
        let mut s = String::new();
        for part in CA_PARTS {
            part.write_help(&mut s);
        }
        help_rows::<()>(
            &mut s,
            "hystart",
            "RFC 9406 HyStart++ on the initial slow start",
            &[],
        );
        help_rows(
            &mut s,
            "rapidstart",
            "Rapid Start (draft-kazuho-ccwg-rapid-start-02)",
            RAPIDSTART_OPTIONS,
        );
        help_rows(
            &mut s,
            "jumpstart",
            "the full-RTT paced 2·IW first flight (Careful Resume jump)",
            JUMPSTART_OPTIONS,
        );
        help_rows(
            &mut s,
            "connection options (any part of the above)",
            "",
            COMMON_OPTIONS,
        );
        s
    }
}

/// Appends one part's help: `title: what`, then one line per option.
fn help_rows<S>(out: &mut String, title: &str, what: &str, table: &[OptionDef<S>]) {
    out.push_str(&format!("{title}: {what}\n"));
    for o in table {
        out.push_str(&format!("    {}={}  {}\n", o.key, o.values, o.help_line()));
    }
}

impl CommonOptions {
    /// Only the values that differ from [`CcConfig::default`], given the
    /// effective config: what a controller's name must say.
    fn differing_from_default(cfg: &CcConfig) -> CommonOptions {
        let d = CcConfig::default();
        CommonOptions {
            initial_window: (cfg.initial_window != d.initial_window).then_some(cfg.initial_window),
            pacing: (cfg.pacing != d.pacing).then_some(cfg.pacing),
            slow_start_pacing_gain: (cfg.slow_start_pacing_gain != d.slow_start_pacing_gain)
                .then_some(cfg.slow_start_pacing_gain),
            ca_pacing_gain: (cfg.ca_pacing_gain != d.ca_pacing_gain).then_some(cfg.ca_pacing_gain),
            prr: (cfg.prr != d.prr).then_some(cfg.prr),
            undo: (cfg.undo != d.undo).then_some(cfg.undo),
            send_one: (cfg.recovery_send_one != d.recovery_send_one)
                .then_some(cfg.recovery_send_one),
            ecn: None,
            pacer: None,
            cc_limited: None,
            send_rule: None,
            pacing_rtt: None,
            jump_after: None,
        }
    }
}

fn write_part(out: &mut Vec<String>, name: &str, opts: &[String]) {
    out.push(if opts.is_empty() {
        name.to_string()
    } else {
        format!("{name}({})", opts.join(","))
    });
}

impl fmt::Display for LossBasedSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<(&str, Vec<String>)> = Vec::new();
        let mut ca = Vec::new();
        self.ca.write_options(&mut ca);
        let ca_name = self.ca.name();
        // The default part (NewReno) without options is implied by a
        // startup part.
        let implied =
            ca_name == CA_PARTS[0].name() && ca.is_empty() && self.startup != StartupSpec::Classic;
        if !implied {
            parts.push((ca_name, ca));
        }
        match &self.startup {
            StartupSpec::Classic => {}
            StartupSpec::JumpStart(o) => {
                let mut v = Vec::new();
                option::write(JUMPSTART_OPTIONS, o, &mut v);
                parts.push(("jumpstart", v));
            }
            StartupSpec::RapidStart(o) => {
                let mut v = Vec::new();
                option::write(RAPIDSTART_OPTIONS, o, &mut v);
                parts.push(("rapidstart", v));
            }
        }
        if self.hystart {
            parts.push(("hystart", Vec::new()));
        }
        let mut common = Vec::new();
        option::write(COMMON_OPTIONS, &self.common, &mut common);
        if let Some(first) = parts.first_mut() {
            common.append(&mut first.1);
            first.1 = common;
        }
        let mut out = Vec::new();
        for (n, o) in &parts {
            write_part(&mut out, n, o);
        }
        f.write_str(&out.join("+"))
    }
}

impl LossBasedSpec {
    /// Builds the controller as its concrete type.
    pub fn build_loss_based(&self, cfg: &CcConfig) -> LossBased {
        let eff = self.effective_config(cfg);
        let ca = self.ca.build(cfg);
        let startup = match self.startup {
            StartupSpec::Classic => Startup {
                first_flight: FirstFlightStart::Off,
                rapid: None,
                hystart: self.hystart,
                careful_resume: false,
                retreat_beta: RetreatBeta::Half,
                recon: Reconnaissance::Rfc,
            },
            StartupSpec::JumpStart(o) => Startup {
                first_flight: FirstFlightStart::deferred(o.defer),
                rapid: None,
                hystart: self.hystart,
                careful_resume: o.retreat,
                retreat_beta: o.retreat_beta,
                recon: o.recon,
            },
            StartupSpec::RapidStart(o) => Startup {
                first_flight: if o.jump {
                    FirstFlightStart::deferred(o.defer)
                } else {
                    FirstFlightStart::Off
                },
                rapid: Some(o.options),
                hystart: self.hystart,
                careful_resume: false,
                retreat_beta: RetreatBeta::Half,
                recon: o.recon,
            },
        };
        LossBased::new(self.canonical_name(cfg), eff, ca, startup)
            .with_cc_limited(self.common.cc_limited.unwrap_or_default())
            .with_pacing_rtt(self.common.pacing_rtt.unwrap_or(RttClock::Exact))
            .with_jump_after(self.common.jump_after.unwrap_or(0))
    }
}

/// Names a thread wrote last, newest last: [`LossBasedSpec::memo_name`].
const NAME_MEMO_ENTRIES: usize = 8;

thread_local! {
    static NAMES: core::cell::RefCell<Vec<(LossBasedSpec, String)>> =
        const { core::cell::RefCell::new(Vec::new()) };
}

impl LossBasedSpec {
    /// `self.to_string()`, remembered for the last few specs of the
    /// thread. A fleet builds a controller per connection from the same few
    /// arms, and writing a name (option tables, one `String` per option)
    /// costs about 25 000 instructions, measured at df1cb7f: about 27 per
    /// simulated packet on the fleet mix, more than the RTT update. The
    /// name is a function of the spec alone, so a remembered one is the
    /// same string.
    fn memo_name(self) -> String {
        NAMES.with(|names| {
            let mut names = names.borrow_mut();
            if let Some((_, name)) = names.iter().find(|(s, _)| *s == self) {
                return name.clone();
            }
            let name = self.to_string();
            if names.len() >= NAME_MEMO_ENTRIES {
                names.remove(0);
            }
            names.push((self, name.clone()));
            name
        })
    }

    /// The CA pacing gain when the spec sets none: the endpoint's, except
    /// that a part with its own ([`CaPart::ca_pacing_gain`], Prague's
    /// [`crate::prague::CA_PACING_GAIN`]) uses it in place of the endpoint's
    /// default.
    fn default_ca_pacing_gain(&self, cfg: &CcConfig) -> Ratio {
        match self.ca.ca_pacing_gain() {
            Some(own) if cfg.ca_pacing_gain == crate::config::DEFAULT_CA_PACING_GAIN => own,
            _ => cfg.ca_pacing_gain,
        }
    }
}

impl FamilySpec for LossBasedSpec {
    fn effective_config(&self, cfg: &CcConfig) -> CcConfig {
        let c = &self.common;
        CcConfig {
            max_datagram_size: cfg.max_datagram_size,
            initial_window: c.initial_window.unwrap_or(cfg.initial_window),
            pacing: c.pacing.unwrap_or(cfg.pacing),
            slow_start_pacing_gain: c
                .slow_start_pacing_gain
                .unwrap_or(cfg.slow_start_pacing_gain),
            ca_pacing_gain: c.ca_pacing_gain.unwrap_or(self.default_ca_pacing_gain(cfg)),
            prr: c.prr.unwrap_or(cfg.prr),
            undo: c.undo.unwrap_or(cfg.undo),
            recovery_send_one: c.send_one.unwrap_or(cfg.recovery_send_one),
            alone_on_bottleneck: cfg.alone_on_bottleneck,
            flow_seed: cfg.flow_seed,
        }
    }

    /// Connection-level values are written when they differ from the
    /// defaults, whether they came from the spec or from `cfg`.
    fn canonical_name(&self, cfg: &CcConfig) -> String {
        let mut eff = self.effective_config(cfg);
        let gain = eff.ca_pacing_gain;
        if self.common.ca_pacing_gain.is_none() {
            // A part's own default gain (Prague's) is not a setting to
            // name; every other part's is the endpoint's already.
            eff.ca_pacing_gain = cfg.ca_pacing_gain;
        }
        let mut common = CommonOptions::differing_from_default(&eff);
        if let Some(own) = self.ca.ca_pacing_gain() {
            // The endpoint's default chosen on a part with its own
            // (`prague(ca_gain=1.25)`): a name without it would build the
            // part's own gain.
            if common.ca_pacing_gain.is_none() && gain != own {
                common.ca_pacing_gain = Some(gain);
            }
        }
        LossBasedSpec {
            common: CommonOptions {
                // Not a controller setting: the spec's own value is the name's.
                ecn: self.common.ecn,
                pacer: self.common.pacer,
                // The default rule is not named.
                cc_limited: self
                    .common
                    .cc_limited
                    .filter(|r| *r != CcLimitedRule::Rfc9002),
                send_rule: self.common.send_rule.filter(|r| *r != SendRule::Rfc9002),
                pacing_rtt: self.common.pacing_rtt.filter(|c| *c != RttClock::Exact),
                jump_after: self.common.jump_after.filter(|n| *n != 0),
                ..common
            },
            ..self.clone()
        }
        .memo_name()
    }

    fn ecn_codepoint(&self) -> Option<EcnCodepoint> {
        // A part's own codepoint (Prague, an L4S sender: ECT(1), RFC 9331
        // §4.1) unless the spec says otherwise.
        self.common.ecn.or(self.ca.ecn())
    }

    fn pacer_model(&self) -> Option<PacerModel> {
        self.common.pacer
    }

    fn send_rule(&self) -> Option<SendRule> {
        self.common.send_rule
    }

    fn without_initial_window(&self) -> Option<ControllerSpec> {
        let mut s = self.clone();
        s.common.initial_window = None;
        Some(ControllerSpec::new(s))
    }

    fn build(&self, cfg: &CcConfig) -> Box<dyn Controller> {
        Box::new(self.build_loss_based(cfg))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
