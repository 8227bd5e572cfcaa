//! Parsing controller names (the grammar is in the parent module).

use core::time::Duration;

use super::{CaSpec, CommonOptions, ControllerSpec, SpecError, StartupSpec};
use crate::config::{InitialWindow, PrrMode};
use crate::cubic::FastConvergence;
use crate::newreno::LOSS_REDUCTION_FACTOR;
use crate::rapid_start::{PreRecoveryWindow, RapidStartOptions, RttFloorSource};
use crate::ratio::Ratio;

const PART_NAMES: &str = "newreno (alias reno), cubic, hystart, rapidstart, jumpstart";
const COMMON_OPTIONS: &str = "iw=<packets>|rfc, pacing=on|off, ss_gain=<ratio>, ca_gain=<ratio>, prr=off|on|crb|ssrb, undo=on|off, send_one=on|off";

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
        // Ratios are kept exact; the grammar allows 6 decimal places.
        Ok(r) if r.den() > 1_000_000 => Err(SpecError::new(format!(
            "`{whole}`: `{key}={v}` has more than 6 decimal places; write at most 6 (e.g. `{key}=0.5`)"
        ))),
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
        let (mut conns, mut fast_convergence) = (1, FastConvergence::Auto);
        for &(k, v) in opts {
            match k {
                "conns" => {
                    conns = match v.parse::<u32>() {
                        Ok(n) if (1..=100).contains(&n) => n,
                        _ => return Err(bad_value(k, v, "a connection count 1..=100", whole)),
                    }
                }
                "fast_convergence" => {
                    fast_convergence = match v {
                        "auto" => FastConvergence::Auto,
                        "on" => FastConvergence::On,
                        "off" => FastConvergence::Off,
                        _ => return Err(bad_value(k, v, "auto, on or off", whole)),
                    }
                }
                _ => {
                    return Err(unknown_option(
                        "cubic",
                        k,
                        "conns=<n>, fast_convergence=auto|on|off",
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
    let mut ss_beta = None;
    for &(k, v) in opts {
        match k {
            "beta" => beta = beta_value(k, v, whole)?,
            "ss_beta" => ss_beta = Some(beta_value(k, v, whole)?),
            _ => {
                return Err(unknown_option(
                    "newreno",
                    k,
                    "beta=<ratio>, ss_beta=<ratio>",
                    whole,
                ))
            }
        }
    }
    Ok(CaSpec::NewReno { beta, ss_beta })
}

const RAPID_OPTIONS: &str = "beta=<ratio>, ce_beta=<ratio>, jump=on|off, defer=on|off, latch_2x=on|off, iw_floor=on|off, thresh_ms=<ms>, thresh_mult=<ratio>, gain=<ratio>, rtt_floor=fallback|current, pre=flight|cwnd, rec_gain=<ratio>";

fn parse_startup(name: &str, opts: &Opts<'_>, whole: &str) -> Result<StartupSpec, SpecError> {
    let mut defer = true;
    if name == "jumpstart" {
        let mut retreat = true;
        for &(k, v) in opts {
            match k {
                "defer" => defer = on_off(k, v, whole)?,
                "retreat" => retreat = on_off(k, v, whole)?,
                _ => {
                    return Err(unknown_option(
                        "jumpstart",
                        k,
                        "defer=on|off, retreat=on|off",
                        whole,
                    ))
                }
            }
        }
        return Ok(StartupSpec::JumpStart { defer, retreat });
    }
    let mut jump = true;
    let mut o = RapidStartOptions::default();
    for &(k, v) in opts {
        match k {
            "beta" => o.beta = Some(beta_value(k, v, whole)?),
            "ce_beta" => o.ce_beta = Some(beta_value(k, v, whole)?),
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
            "pre" => {
                o.pre_window = match v {
                    "flight" => PreRecoveryWindow::Flight,
                    "cwnd" => PreRecoveryWindow::Cwnd,
                    _ => return Err(bad_value(k, v, "flight or cwnd", whole)),
                }
            }
            "rec_gain" => {
                o.recovery_gain = ratio(k, v, whole, "a gain between 1 and 100", |r| {
                    r.num() >= r.den() && r.num() <= 100 * r.den()
                })?
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
