//! Declarative option tables: each family states every option once, as a
//! key, the values it takes, a parser and a printer; the generic code here
//! applies a table to `key=value` pairs, writes the canonical spelling, and
//! words the errors. A new option is one [`OptionDef`] row, most of them
//! written with [`crate::option_row!`], which states the field and its
//! default once: the parser, the printer and the help's "(default …)"
//! all come from that.

use super::SpecError;
use crate::ratio::Ratio;
use ramp_vocab::ecn::EcnCodepoint;

/// Why a value was refused; the caller adds the spec, key and value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueError {
    /// The value is not of the expected form; the text says what is.
    Expected(&'static str),
    /// A ratio with more than six decimal places (ratios are kept exact and
    /// the grammar allows six).
    TooManyDecimals,
}

/// One option of a controller part: `key=value` on `S`, the family's
/// options struct.
pub struct OptionDef<S> {
    /// The key as written, e.g. `beta`.
    pub key: &'static str,
    /// The values it takes, for error messages and help: `<ratio>`, `on|off`.
    pub values: &'static str,
    /// One line of help: what it does. [`OptionDef::help_line`] adds the
    /// default.
    pub help: &'static str,
    /// The default as the help says it (`default 0.5`, `default: the
    /// CA's β`), or `None` to say nothing.
    pub default: fn() -> Option<String>,
    /// Stores a value.
    pub parse: fn(&mut S, &str) -> Result<(), ValueError>,
    /// The canonical value to write, or `None` when it is the default and
    /// the name leaves it out.
    pub display: fn(&S) -> Option<String>,
}

impl<S> OptionDef<S> {
    /// The help with its default: `what it does (default 0.5)`.
    pub fn help_line(&self) -> String {
        match (self.default)() {
            Some(d) => format!("{} ({d})", self.help),
            None => self.help.to_string(),
        }
    }
}

/// One [`OptionDef`] row, its field and default named once. The kinds:
///
/// - `switch KEY, HELP, FIELD = DEFAULT`: an `on|off` field;
/// - `value KEY, VALUES, HELP, FIELD = DEFAULT, PARSE`: a field `PARSE`
///   reads (`fn(&str) -> Result<T, ValueError>`) and `Display` writes;
/// - `choice KEY, VALUES, HELP, FIELD = DEFAULT, CHOICES, WHAT`: one of
///   `CHOICES` (as [`choice`] reads them; `WHAT` words the error);
/// - `some_switch`, `some_value`, `some_choice`: the same for an `Option`
///   field, `None` until set, with the default last: `default = EXPR` (a
///   value from elsewhere, e.g. the endpoint's [`crate::CcConfig`]) or
///   `described TEXT`.
///
/// `FIELD` is a field path in the options struct (`options.beta`).
#[macro_export]
macro_rules! option_row {
    (switch $key:literal, $help:expr, $($f:ident).+ = $default:expr) => {
        $crate::option_row!(@def $key, "on|off", $help, @switch $default,
            |o, v| o.$($f).+ = $crate::spec::option::on_off(v)?,
            |o| $crate::spec::option::on_off_unless_default(o.$($f).+, $default))
    };
    (value $key:literal, $values:literal, $help:expr, $($f:ident).+ = $default:expr,
        $parse:expr) => {
        $crate::option_row!(@def $key, $values, $help, default = $default,
            |o, v| o.$($f).+ = ($parse)(v)?,
            |o| $crate::spec::option::unless_default(o.$($f).+, $default, |x| x.to_string()))
    };
    (choice $key:literal, $values:literal, $help:expr, $($f:ident).+ = $default:expr,
        $choices:expr, $what:literal) => {
        $crate::option_row!(@def $key, $values, $help, default = $default ; $choices,
            |o, v| o.$($f).+ = $crate::spec::option::choice(v, &$choices, $what)?,
            |o| $crate::spec::option::choice_unless_default(o.$($f).+, $default, &$choices))
    };
    (some_switch $key:literal, $help:expr, $($f:ident).+, default = $default:expr) => {
        $crate::option_row!(@def $key, "on|off", $help, @switch $default,
            |o, v| o.$($f).+ = Some($crate::spec::option::on_off(v)?),
            |o| o.$($f).+.map(|b| $crate::spec::option::on_off_str(b).to_string()))
    };
    (some_value $key:literal, $values:literal, $help:expr, $($f:ident).+, $parse:expr,
        $($note:tt)+) => {
        $crate::option_row!(@def $key, $values, $help, $($note)+,
            |o, v| o.$($f).+ = Some(($parse)(v)?),
            |o| o.$($f).+.map(|x| x.to_string()))
    };
    (some_choice $key:literal, $values:literal, $help:expr, $($f:ident).+, $choices:expr,
        $what:literal, $($note:tt)+) => {
        $crate::option_row!(@def $key, $values, $help, $($note)+ ; $choices,
            |o, v| o.$($f).+ = Some($crate::spec::option::choice(v, &$choices, $what)?),
            |o| o.$($f).+.and_then(|x| $crate::spec::option::choice_name(&$choices, x)))
    };
    // The row itself; the default note is one of the three forms below.
    (@def $key:literal, $values:expr, $help:expr, $($note:tt)+) => {
        $crate::option_row!(@split [$key, $values, $help] [] $($note)+)
    };
    (@split $head:tt [$($note:tt)*] , |$o:ident, $v:ident| $parse:expr, |$d:ident| $display:expr) => {
        $crate::option_row!(@emit $head [$($note)*] |$o, $v| $parse, |$d| $display)
    };
    (@split $head:tt [$($note:tt)*] $t:tt $($rest:tt)*) => {
        $crate::option_row!(@split $head [$($note)* $t] $($rest)*)
    };
    (@emit [$key:literal, $values:expr, $help:expr] [$($note:tt)*]
        |$o:ident, $v:ident| $parse:expr, |$d:ident| $display:expr) => {
        $crate::spec::option::OptionDef {
            key: $key,
            values: $values,
            help: $help,
            default: $crate::option_row!(@note $($note)*),
            parse: |$o, $v| {
                $parse;
                Ok(())
            },
            display: |$d| $display,
        }
    };
    (@note @switch $default:expr) => {
        || Some(::std::format!("default {}", $crate::spec::option::on_off_str($default)))
    };
    (@note default = $default:expr ; $choices:expr) => {
        || $crate::spec::option::choice_name(&$choices, $default).map(|n| ::std::format!("default {n}"))
    };
    (@note default = $default:expr) => {
        || Some(::std::format!("default {}", $default))
    };
    (@note described $text:literal $(; $choices:expr)?) => {
        || Some(::std::format!("default: {}", $text))
    };
}

/// `key=values, key=values, ...` of a table, for "valid options" messages.
pub fn describe<S>(table: &[OptionDef<S>]) -> String {
    table
        .iter()
        .map(|o| format!("{}={}", o.key, o.values))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Looks `key` up in `table` and stores `value` into `target`; `Ok(false)`
/// when the table has no such key.
pub fn apply<S>(
    table: &[OptionDef<S>],
    target: &mut S,
    key: &str,
    value: &str,
    whole: &str,
) -> Result<bool, SpecError> {
    let Some(def) = table.iter().find(|o| o.key == key) else {
        return Ok(false);
    };
    (def.parse)(target, value).map_err(|e| value_error(key, value, e, whole))?;
    Ok(true)
}

/// Appends `key=value` for every option of `table` that differs from its
/// default, in table order.
pub fn write<S>(table: &[OptionDef<S>], source: &S, out: &mut Vec<String>) {
    out.extend(
        table
            .iter()
            .filter_map(|o| (o.display)(source).map(|v| format!("{}={v}", o.key))),
    );
}

/// The error for a refused value.
pub fn value_error(key: &str, value: &str, e: ValueError, whole: &str) -> SpecError {
    SpecError::new(match e {
        ValueError::Expected(what) => {
            format!("`{whole}`: `{key}={value}` is invalid; expected {what}")
        }
        ValueError::TooManyDecimals => format!(
            "`{whole}`: `{key}={value}` has more than 6 decimal places; write at most 6 (e.g. `{key}=0.5`)"
        ),
    })
}

/// `on|off` (also `true|false`, `1|0`).
pub fn on_off(v: &str) -> Result<bool, ValueError> {
    match v {
        "on" | "true" | "1" => Ok(true),
        "off" | "false" | "0" => Ok(false),
        _ => Err(ValueError::Expected("on or off")),
    }
}

/// A sender's ECN codepoint (`off|on|ect0|ect1`, `on` = ECT(0)).
pub fn ecn_codepoint(v: &str) -> Result<EcnCodepoint, ValueError> {
    EcnCodepoint::parse_send(v).map_err(|_| ValueError::Expected("off, on, ect0 or ect1"))
}

/// The canonical spelling of a switch.
pub fn on_off_str(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

/// An exact ratio of at most six decimals that satisfies `ok`.
pub fn ratio(v: &str, what: &'static str, ok: impl Fn(Ratio) -> bool) -> Result<Ratio, ValueError> {
    match v.parse::<Ratio>() {
        Ok(r) if r.den() > 1_000_000 => Err(ValueError::TooManyDecimals),
        Ok(r) if ok(r) => Ok(r),
        _ => Err(ValueError::Expected(what)),
    }
}

/// A multiplicative decrease strictly between 0 and 1.
pub fn beta(v: &str) -> Result<Ratio, ValueError> {
    ratio(v, "a decrease factor strictly between 0 and 1", |r| {
        r.is_proper_fraction()
    })
}

/// A gain between 1 and 100.
pub fn gain(v: &str) -> Result<Ratio, ValueError> {
    ratio(v, "a gain between 1 and 100", |r| {
        r.num() >= r.den() && r.num() <= 100 * r.den()
    })
}

/// An initial window: a packet count 1..=100000 (packets of the
/// datagram size), `NxS` (quicly's unit: N packets of min(S, 1472) bytes,
/// S the endpoint's max_udp_payload_size 1200..=65527, RFC 9000 §18.2),
/// or `rfc` (RFC 9002 §7.2's `kInitialWindow`).
pub fn initial_window(v: &str) -> Result<crate::config::InitialWindow, ValueError> {
    use crate::config::InitialWindow;
    const EXPECTED: &str = "a packet count 1..=100000, NxS (S 1200..=65527) or `rfc`";
    let packets = |n: &str| match n.parse::<u32>() {
        Ok(n) if (1..=100_000).contains(&n) => Ok(n),
        _ => Err(ValueError::Expected(EXPECTED)),
    };
    match v {
        "rfc" => Ok(InitialWindow::Rfc9002),
        _ => match v.split_once('x') {
            None => packets(v).map(InitialWindow::Packets),
            Some((n, s)) => match s.parse::<u16>() {
                Ok(size) if (1200..=65527).contains(&size) => Ok(InitialWindow::Quicly {
                    packets: packets(n)?,
                    max_udp_payload_size: size,
                }),
                _ => Err(ValueError::Expected(EXPECTED)),
            },
        },
    }
}

/// One of `choices`, each a spelling and its value.
pub fn choice<T: Copy>(
    v: &str,
    choices: &[(&str, T)],
    what: &'static str,
) -> Result<T, ValueError> {
    choices
        .iter()
        .find(|(name, _)| *name == v)
        .map(|&(_, t)| t)
        .ok_or(ValueError::Expected(what))
}

/// `show(value)`, or `None` when `value` is the default: how a row's
/// `display` keeps defaults out of a canonical name.
pub fn unless_default<T: PartialEq>(
    value: T,
    default: T,
    show: impl FnOnce(T) -> String,
) -> Option<String> {
    (value != default).then(|| show(value))
}

/// `on` or `off` for a flag, or `None` when it is at its default.
pub fn on_off_unless_default(value: bool, default: bool) -> Option<String> {
    unless_default(value, default, |b| on_off_str(b).to_string())
}

/// The spelling of `value` among `choices` (as [`choice`] reads them).
pub fn choice_name<T: PartialEq>(choices: &[(&str, T)], value: T) -> Option<String> {
    choices
        .iter()
        .find(|(_, t)| *t == value)
        .map(|(n, _)| (*n).to_string())
}

/// A whole number in `range`; `what` words the error.
pub fn count<T: core::str::FromStr + PartialOrd>(
    v: &str,
    range: core::ops::RangeInclusive<T>,
    what: &'static str,
) -> Result<T, ValueError> {
    match v.parse::<T>() {
        Ok(n) if range.contains(&n) => Ok(n),
        _ => Err(ValueError::Expected(what)),
    }
}

/// The spelling of `value` among `choices` (as [`choice`] reads them), or
/// `None` when `value` is the default.
pub fn choice_unless_default<T: PartialEq + Copy>(
    value: T,
    default: T,
    choices: &[(&str, T)],
) -> Option<String> {
    if value == default {
        return None;
    }
    choice_name(choices, value)
}
