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
//! The four arms of the Rapid Start production experiment (shared/seeds/002):
//!
//! | arm | spec |
//! |---|---|
//! | baseline: paced slow start, IW 30 | `newreno(iw=30)` |
//! | jumpstart: 60-packet first flight over one RTT, 2× growth, β | `jumpstart(iw=30)` |
//! | rapid-no-jump: 3×/2× growth and smooth reduction, no jump | `rapidstart(iw=30,jump=off)` |
//! | rapidstart: both | `rapidstart(iw=30)` |
//!
//! Prefix `cubic+` (e.g. `cubic+rapidstart(iw=30)`) for CUBIC, β = 0.7.

use core::fmt;
use core::time::Duration;

use crate::config::{CcConfig, InitialWindow, PrrMode};
use crate::controller::Controller;
use crate::cubic::Cubic;
use crate::loss_based::{CaAlgorithm, LossBased, Startup};
use crate::newreno::{RenoGrowth, LOSS_REDUCTION_FACTOR};
use crate::rapid_start::{RapidStartOptions, RttFloorSource};
use crate::ratio::Ratio;

/// The spellings of the seed experiment's four arms (shared/seeds/002).
pub const SEED_ARMS: [(&str, &str); 4] = [
    ("baseline", "newreno(iw=30)"),
    ("jumpstart", "jumpstart(iw=30)"),
    ("rapid-no-jump", "rapidstart(iw=30,jump=off)"),
    ("rapidstart", "rapidstart(iw=30)"),
];

const PART_NAMES: &str = "newreno (alias reno), cubic, hystart, rapidstart, jumpstart";
const COMMON_OPTIONS: &str = "iw=<packets>|rfc, pacing=on|off, ss_gain=<ratio>, ca_gain=<ratio>, prr=off|on|crb|ssrb, undo=on|off, send_one=on|off";

/// The congestion-avoidance algorithm of a spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaSpec {
    /// RFC 9002 NewReno.
    NewReno {
        /// Multiplicative decrease (default 0.5).
        beta: Ratio,
    },
    /// RFC 9438 CUBIC.
    Cubic {
        /// N-connection emulation (1 = RFC 9438).
        conns: u32,
        /// RFC 9438 §4.7 fast convergence.
        fast_convergence: bool,
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

impl core::str::FromStr for ControllerSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<ControllerSpec, SpecError> {
        let whole = s.trim();
        if whole.is_empty() {
            return Err(SpecError::new(format!(
                "empty controller name; valid names: {PART_NAMES}"
            )));
        }
        let mut spec = ControllerSpec::default();
        let (mut seen_ca, mut seen_startup) = (false, false);
        for raw in split_parts(whole)? {
            let (name, opts) = split_options(raw, whole)?;
            let mut rest = Vec::new();
            for (k, v) in opts {
                if !set_common(&mut spec.common, k, v, whole)? {
                    rest.push((k, v));
                }
            }
            match name {
                "newreno" | "reno" | "cubic" => {
                    if seen_ca {
                        return Err(SpecError::new(format!(
                            "`{whole}`: more than one congestion-avoidance algorithm (newreno, cubic)"
                        )));
                    }
                    seen_ca = true;
                    spec.ca = parse_ca(name, &rest, whole)?;
                }
                "rapidstart" | "jumpstart" => {
                    if seen_startup {
                        return Err(SpecError::new(format!(
                            "`{whole}`: at most one of rapidstart, jumpstart"
                        )));
                    }
                    seen_startup = true;
                    spec.startup = parse_startup(name, &rest, whole)?;
                }
                "hystart" => {
                    if spec.hystart {
                        return Err(SpecError::new(format!("`{whole}`: hystart given twice")));
                    }
                    if let Some((k, _)) = rest.first() {
                        return Err(unknown_option("hystart", k, "", whole));
                    }
                    spec.hystart = true;
                }
                other => {
                    return Err(SpecError::new(format!(
                        "unknown controller `{other}` in `{whole}`; valid names: {PART_NAMES}, joined with `+`"
                    )))
                }
            }
        }
        Ok(spec)
    }
}

fn split_parts(s: &str) -> Result<Vec<&str>, SpecError> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return Err(SpecError::new(format!("`{s}`: unbalanced `)`")));
                }
            }
            '+' if depth == 0 => {
                parts.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(SpecError::new(format!("`{s}`: unbalanced `(`")));
    }
    parts.push(s[start..].trim());
    if parts.iter().any(|p| p.is_empty()) {
        return Err(SpecError::new(format!("`{s}`: empty part around `+`")));
    }
    Ok(parts)
}

type Opts<'a> = Vec<(&'a str, &'a str)>;

fn split_options<'a>(part: &'a str, whole: &str) -> Result<(&'a str, Opts<'a>), SpecError> {
    let Some(open) = part.find('(') else {
        return Ok((part, Vec::new()));
    };
    let name = part[..open].trim();
    let inner = part[open + 1..]
        .strip_suffix(')')
        .ok_or_else(|| SpecError::new(format!("`{whole}`: text after `)` in `{part}`")))?;
    if inner.contains('(') || inner.contains(')') {
        return Err(SpecError::new(format!(
            "`{whole}`: nested parentheses in `{part}`"
        )));
    }
    let mut opts: Opts<'a> = Vec::new();
    for item in inner.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (k, v) = item.split_once('=').ok_or_else(|| {
            SpecError::new(format!(
                "`{whole}`: option `{item}` of `{name}` is not key=value"
            ))
        })?;
        let (k, v) = (k.trim(), v.trim());
        if opts.iter().any(|(seen, _)| *seen == k) {
            return Err(SpecError::new(format!(
                "`{whole}`: option `{k}` given twice"
            )));
        }
        opts.push((k, v));
    }
    Ok((name, opts))
}

fn unknown_option(part: &str, key: &str, valid: &str, whole: &str) -> SpecError {
    let valid = if valid.is_empty() {
        COMMON_OPTIONS.to_string()
    } else {
        format!("{valid}, {COMMON_OPTIONS}")
    };
    SpecError::new(format!(
        "unknown option `{key}` for `{part}` in `{whole}`; valid options: {valid}"
    ))
}

fn bad_value(key: &str, value: &str, expected: &str, whole: &str) -> SpecError {
    SpecError::new(format!(
        "`{whole}`: `{key}={value}` is invalid; expected {expected}"
    ))
}

fn on_off(key: &str, v: &str, whole: &str) -> Result<bool, SpecError> {
    match v {
        "on" | "true" | "1" => Ok(true),
        "off" | "false" | "0" => Ok(false),
        _ => Err(bad_value(key, v, "on or off", whole)),
    }
}

fn ratio(
    key: &str,
    v: &str,
    whole: &str,
    what: &str,
    ok: impl Fn(Ratio) -> bool,
) -> Result<Ratio, SpecError> {
    match v.parse::<Ratio>() {
        Ok(r) if ok(r) => Ok(r),
        _ => Err(bad_value(key, v, what, whole)),
    }
}

/// Sets a connection-level option; `Ok(false)` if `k` is not one.
fn set_common(c: &mut CommonOptions, k: &str, v: &str, whole: &str) -> Result<bool, SpecError> {
    let dup = |set: bool| -> Result<(), SpecError> {
        if set {
            Err(SpecError::new(format!(
                "`{whole}`: option `{k}` given twice"
            )))
        } else {
            Ok(())
        }
    };
    match k {
        "iw" => {
            dup(c.initial_window.is_some())?;
            c.initial_window = Some(match v {
                "rfc" => InitialWindow::Rfc9002,
                _ => match v.parse::<u32>() {
                    Ok(n) if (1..=100_000).contains(&n) => InitialWindow::Packets(n),
                    _ => return Err(bad_value(k, v, "a packet count 1..=100000 or `rfc`", whole)),
                },
            });
        }
        "pacing" => {
            dup(c.pacing.is_some())?;
            c.pacing = Some(on_off(k, v, whole)?);
        }
        "ss_gain" => {
            dup(c.slow_start_pacing_gain.is_some())?;
            c.slow_start_pacing_gain = Some(ratio(k, v, whole, "a gain between 1 and 100", |r| {
                r.num() >= r.den() && r.num() <= 100 * r.den()
            })?);
        }
        "ca_gain" => {
            dup(c.ca_pacing_gain.is_some())?;
            c.ca_pacing_gain = Some(ratio(k, v, whole, "a gain between 1 and 100", |r| {
                r.num() >= r.den() && r.num() <= 100 * r.den()
            })?);
        }
        "prr" => {
            dup(c.prr.is_some())?;
            c.prr = Some(match v {
                "off" => PrrMode::Off,
                "on" => PrrMode::Rfc9937,
                "crb" => PrrMode::Crb,
                "ssrb" => PrrMode::Ssrb,
                _ => return Err(bad_value(k, v, "off, on (RFC 9937), crb or ssrb", whole)),
            });
        }
        "undo" => {
            dup(c.undo.is_some())?;
            c.undo = Some(on_off(k, v, whole)?);
        }
        "send_one" => {
            dup(c.send_one.is_some())?;
            c.send_one = Some(on_off(k, v, whole)?);
        }
        _ => return Ok(false),
    }
    Ok(true)
}

fn beta_value(k: &str, v: &str, whole: &str) -> Result<Ratio, SpecError> {
    ratio(
        k,
        v,
        whole,
        "a decrease factor strictly between 0 and 1",
        |r| r.is_proper_fraction() && r.den() <= 1_000_000,
    )
}

fn parse_ca(name: &str, opts: &Opts<'_>, whole: &str) -> Result<CaSpec, SpecError> {
    if name == "cubic" {
        let (mut conns, mut fast_convergence) = (1, false);
        for &(k, v) in opts {
            match k {
                "conns" => {
                    conns = match v.parse::<u32>() {
                        Ok(n) if (1..=100).contains(&n) => n,
                        _ => return Err(bad_value(k, v, "a connection count 1..=100", whole)),
                    }
                }
                "fast_convergence" => fast_convergence = on_off(k, v, whole)?,
                _ => {
                    return Err(unknown_option(
                        "cubic",
                        k,
                        "conns=<n>, fast_convergence=on|off",
                        whole,
                    ))
                }
            }
        }
        return Ok(CaSpec::Cubic {
            conns,
            fast_convergence,
        });
    }
    let mut beta = LOSS_REDUCTION_FACTOR;
    for &(k, v) in opts {
        match k {
            "beta" => beta = beta_value(k, v, whole)?,
            _ => return Err(unknown_option("newreno", k, "beta=<ratio>", whole)),
        }
    }
    Ok(CaSpec::NewReno { beta })
}

const RAPID_OPTIONS: &str = "beta=<ratio>, jump=on|off, defer=on|off, latch_2x=on|off, iw_floor=on|off, thresh_ms=<ms>, thresh_mult=<ratio>, gain=<ratio>, rtt_floor=fallback|current";

fn parse_startup(name: &str, opts: &Opts<'_>, whole: &str) -> Result<StartupSpec, SpecError> {
    let mut defer = true;
    if name == "jumpstart" {
        for &(k, v) in opts {
            match k {
                "defer" => defer = on_off(k, v, whole)?,
                _ => return Err(unknown_option("jumpstart", k, "defer=on|off", whole)),
            }
        }
        return Ok(StartupSpec::JumpStart { defer });
    }
    let mut jump = true;
    let mut o = RapidStartOptions::default();
    for &(k, v) in opts {
        match k {
            "beta" => o.beta = Some(beta_value(k, v, whole)?),
            "jump" => jump = on_off(k, v, whole)?,
            "defer" => defer = on_off(k, v, whole)?,
            "latch_2x" => o.latch_2x = on_off(k, v, whole)?,
            "iw_floor" => o.iw_floor = on_off(k, v, whole)?,
            "thresh_ms" => {
                let r = ratio(k, v, whole, "milliseconds between 0 and 1000", |r| {
                    r.num() <= 1000 * r.den() && r.den() <= 1_000_000
                })?;
                o.thresh_add = Duration::from_nanos(r.mul_floor(1_000_000));
            }
            "thresh_mult" => {
                o.thresh_mult = ratio(k, v, whole, "a factor between 1 and 10", |r| {
                    r.num() >= r.den() && r.num() <= 10 * r.den()
                })?
            }
            "gain" => {
                o.pacing_gain = ratio(k, v, whole, "a gain between 1 and 100", |r| {
                    r.num() >= r.den() && r.num() <= 100 * r.den()
                })?
            }
            "rtt_floor" => {
                o.rtt_floor = match v {
                    "fallback" => RttFloorSource::Fallback,
                    "current" => RttFloorSource::Current,
                    _ => return Err(bad_value(k, v, "fallback or current", whole)),
                }
            }
            _ => return Err(unknown_option("rapidstart", k, RAPID_OPTIONS, whole)),
        }
    }
    Ok(StartupSpec::RapidStart {
        jump,
        defer,
        options: o,
    })
}

fn on_off_str(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

impl CommonOptions {
    fn write(&self, out: &mut Vec<String>) {
        if let Some(iw) = self.initial_window {
            out.push(format!("iw={iw}"));
        }
        if let Some(p) = self.pacing {
            out.push(format!("pacing={}", on_off_str(p)));
        }
        if let Some(g) = self.slow_start_pacing_gain {
            out.push(format!("ss_gain={g}"));
        }
        if let Some(g) = self.ca_pacing_gain {
            out.push(format!("ca_gain={g}"));
        }
        if let Some(p) = self.prr {
            out.push(format!("prr={}", p.as_str()));
        }
        if let Some(u) = self.undo {
            out.push(format!("undo={}", on_off_str(u)));
        }
        if let Some(u) = self.send_one {
            out.push(format!("send_one={}", on_off_str(u)));
        }
    }

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
        }
    }
}

fn part(name: &str, opts: &[String]) -> String {
    if opts.is_empty() {
        name.to_string()
    } else {
        format!("{name}({})", opts.join(","))
    }
}

impl fmt::Display for ControllerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<(String, Vec<String>)> = Vec::new();
        let ca_opts = match self.ca {
            CaSpec::NewReno { beta } if beta == LOSS_REDUCTION_FACTOR => None,
            CaSpec::NewReno { beta } => Some(("newreno", vec![format!("beta={beta}")])),
            CaSpec::Cubic {
                conns,
                fast_convergence,
            } => {
                let mut o = Vec::new();
                if conns != 1 {
                    o.push(format!("conns={conns}"));
                }
                if fast_convergence {
                    o.push("fast_convergence=on".to_string());
                }
                Some(("cubic", o))
            }
        };
        let startup = match self.startup {
            StartupSpec::Classic => None,
            StartupSpec::JumpStart { defer } => {
                let o = if defer {
                    vec![]
                } else {
                    vec!["defer=off".to_string()]
                };
                Some(("jumpstart", o))
            }
            StartupSpec::RapidStart {
                jump,
                defer,
                options: o,
            } => {
                let d = RapidStartOptions::default();
                let mut v = Vec::new();
                if let Some(b) = o.beta {
                    v.push(format!("beta={b}"));
                }
                if !jump {
                    v.push("jump=off".to_string());
                }
                if !defer {
                    v.push("defer=off".to_string());
                }
                if o.latch_2x {
                    v.push("latch_2x=on".to_string());
                }
                if o.iw_floor {
                    v.push("iw_floor=on".to_string());
                }
                if o.thresh_add != d.thresh_add {
                    let ms =
                        Ratio::new(o.thresh_add.as_nanos() as u64, 1_000_000).unwrap_or(Ratio::ONE);
                    v.push(format!("thresh_ms={ms}"));
                }
                if o.thresh_mult != d.thresh_mult {
                    v.push(format!("thresh_mult={}", o.thresh_mult));
                }
                if o.pacing_gain != d.pacing_gain {
                    v.push(format!("gain={}", o.pacing_gain));
                }
                if o.rtt_floor != d.rtt_floor {
                    v.push("rtt_floor=current".to_string());
                }
                Some(("rapidstart", v))
            }
        };
        match (ca_opts, startup.is_some()) {
            (Some((n, o)), _) => parts.push((n.to_string(), o)),
            (None, false) => parts.push(("newreno".to_string(), Vec::new())),
            (None, true) => {}
        }
        if let Some((n, o)) = startup {
            parts.push((n.to_string(), o));
        }
        if self.hystart {
            parts.push(("hystart".to_string(), Vec::new()));
        }
        let mut common = Vec::new();
        self.common.write(&mut common);
        if let Some(first) = parts.first_mut() {
            common.append(&mut first.1);
            first.1 = common;
        }
        let s: Vec<String> = parts.iter().map(|(n, o)| part(n, o)).collect();
        f.write_str(&s.join("+"))
    }
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
            CaSpec::NewReno { beta } => CaAlgorithm::Reno {
                beta,
                growth: RenoGrowth::default(),
            },
            CaSpec::Cubic {
                conns,
                fast_convergence,
            } => CaAlgorithm::Cubic(Cubic::new(conns, fast_convergence)),
        };
        let startup = match self.startup {
            StartupSpec::Classic => Startup {
                first_flight: None,
                rapid: None,
                hystart: self.hystart,
            },
            StartupSpec::JumpStart { defer } => Startup {
                first_flight: Some(defer),
                rapid: None,
                hystart: self.hystart,
            },
            StartupSpec::RapidStart {
                jump,
                defer,
                options,
            } => Startup {
                first_flight: jump.then_some(defer),
                rapid: Some(options),
                hystart: self.hystart,
            },
        };
        LossBased::new(self.canonical_name(cfg), eff, ca, startup)
    }

    /// Builds the controller.
    pub fn build(&self, cfg: &CcConfig) -> Box<dyn Controller> {
        Box::new(self.build_loss_based(cfg))
    }
}
