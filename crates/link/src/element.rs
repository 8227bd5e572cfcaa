//! One option table per configurable link element: each key of a cellular
//! link ([`crate::Cellular`]) or a Wi-Fi hop ([`crate::Jitter`]) is stated
//! once, as a key, the values it takes, a line of help, a parser and a
//! printer. The scenario file's `[path.cellular]` table, the command
//! line's `--cellular=KEY=VALUE,…` and the population file all read the
//! element through this table, over the element's sourced defaults, so a
//! key means the same thing, takes the same grammar and is refused with
//! the same words wherever it is written. A new key is one
//! [`ElementOption`] row.
//!
//! Values are written in the one grammar of [`ramp_vocab::units`]; the
//! printer writes what the parser reads back to the same value.

use core::fmt;
use core::time::Duration;

use ramp_vocab::units::{parse_duration, parse_rate, parse_size};
use ramp_vocab::Rate;

/// Why an element's `KEY=VALUE` text was refused. Its text starts with the
/// key it is about, so a caller can prefix the table or flag it came from
/// (`path.cellular.light_fraction: …`, `--cellular: light_fraction: …`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ElementError {
    /// An item that is not `KEY=VALUE`.
    NotAPair(String),
    /// A key the element does not have.
    UnknownKey {
        /// The key as given.
        key: String,
        /// The element's keys, comma-separated.
        keys: String,
    },
    /// A key given twice.
    Repeated(&'static str),
    /// A key the element has no default for, not given.
    Missing(&'static str),
    /// A value of the wrong form, or out of its range.
    Value {
        /// The key the value is for.
        key: &'static str,
        /// What is wrong with it.
        reason: String,
    },
}

impl ElementError {
    /// The key the error is about.
    pub fn key(&self) -> &str {
        match self {
            ElementError::NotAPair(item) => item,
            ElementError::UnknownKey { key, .. } => key,
            ElementError::Repeated(k)
            | ElementError::Missing(k)
            | ElementError::Value { key: k, .. } => k,
        }
    }

    /// A value error about `key`.
    pub(crate) fn value(key: &'static str, reason: impl Into<String>) -> ElementError {
        ElementError::Value {
            key,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for ElementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ElementError::NotAPair(item) => write!(f, "{item}: expected KEY=VALUE"),
            ElementError::UnknownKey { key, keys } => {
                write!(f, "{key}: unknown key (keys: {keys})")
            }
            ElementError::Repeated(k) => write!(f, "{k}: given twice"),
            ElementError::Missing(k) => write!(f, "{k}: required (it has no default)"),
            ElementError::Value { key, reason } => write!(f, "{key}: {reason}"),
        }
    }
}

impl std::error::Error for ElementError {}

/// One key of element `E`.
pub struct ElementOption<E> {
    /// The key as written, e.g. `light_fraction`.
    pub key: &'static str,
    /// The values it takes, for help and errors: `<size>`, `<duration>`.
    pub values: &'static str,
    /// What it sets, in a few words (the default is printed from the
    /// element's defaults, not written here).
    pub help: &'static str,
    /// Stores a value; the error says why it is refused.
    pub parse: fn(&mut E, &str) -> Result<(), String>,
    /// The value as written, in a form `parse` reads back exactly.
    pub display: fn(&E) -> String,
}

/// One [`ElementOption`] row whose key is the field's own name and whose
/// value is read, and written back, by one of the unit grammars of
/// [`crate::element_value`]: `number` (a finite number; ranges are the
/// element's check), `size` (bytes), `duration` or `rate`. Every element of
/// ramp-link writes its table with it, and so can one written outside.
///
/// ```
/// use ramp_link::{element_option, parse_spec, spec_of, Element, ElementError, ElementOption};
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Hold {
///     share: f64,
///     by: core::time::Duration,
/// }
///
/// impl Element for Hold {
///     const OPTIONS: &'static [ElementOption<Hold>] = &[
///         element_option!(share: number, "<0..1>", "share of the packets held back"),
///         element_option!(by: duration, "<duration>", "how long a held packet waits"),
///     ];
///     const DEFAULT: Hold = Hold { share: 0.01, by: core::time::Duration::from_millis(1) };
///     fn check(&self) -> Result<(), ElementError> {
///         Ok(())
///     }
/// }
///
/// let h = parse_spec::<Hold>("by=4ms").unwrap();
/// assert_eq!(spec_of(&h), "share=0.01,by=4ms");
/// ```
#[macro_export]
macro_rules! element_option {
    ($field:ident: number, $values:literal, $help:literal) => {
        $crate::element_option!(@row $field, number, |e| e.$field.to_string(), $values, $help)
    };
    ($field:ident: size, $values:literal, $help:literal) => {
        $crate::element_option!(@row $field, size, |e| e.$field.to_string(), $values, $help)
    };
    ($field:ident: duration, $values:literal, $help:literal) => {
        $crate::element_option!(
            @row $field,
            duration,
            |e| $crate::element_value::duration_text(e.$field),
            $values,
            $help
        )
    };
    ($field:ident: rate, $values:literal, $help:literal) => {
        $crate::element_option!(
            @row $field,
            rate,
            |e| $crate::element_value::rate_text(e.$field),
            $values,
            $help
        )
    };
    (@row $field:ident, $read:ident, $display:expr, $values:literal, $help:literal) => {
        $crate::ElementOption {
            key: stringify!($field),
            values: $values,
            help: $help,
            parse: |e, v| {
                e.$field = $crate::element_value::$read(v)?;
                Ok(())
            },
            display: $display,
        }
    };
}

/// A link element configured by `KEY=VALUE` pairs over sourced defaults.
pub trait Element: Copy + 'static {
    /// Every key, each once, in the order help and [`spec_of`] list them.
    const OPTIONS: &'static [ElementOption<Self>];
    /// The sourced defaults a table, flag or file starts from. A key in
    /// [`Element::REQUIRED`] has no default: its value here is never used.
    const DEFAULT: Self;
    /// The keys that must be given (those with no sourced default, such as
    /// a policer's rate); none by default.
    const REQUIRED: &'static [&'static str] = &[];
    /// Checks the ranges, and those that tie keys together; the error
    /// names the key.
    fn check(&self) -> Result<(), ElementError>;
}

/// The element the pairs give over its defaults, checked. Each key may be
/// given once, and each of [`Element::REQUIRED`] must be; the first
/// refused pair's error is returned.
pub fn from_pairs<'a, E: Element>(
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<E, ElementError> {
    let mut e = E::DEFAULT;
    let mut seen: Vec<&'static str> = Vec::new();
    for (key, value) in pairs {
        let key = key.trim();
        let Some(def) = E::OPTIONS.iter().find(|o| o.key == key) else {
            return Err(ElementError::UnknownKey {
                key: key.to_string(),
                keys: keys::<E>(),
            });
        };
        if seen.contains(&def.key) {
            return Err(ElementError::Repeated(def.key));
        }
        seen.push(def.key);
        (def.parse)(&mut e, value.trim()).map_err(|reason| ElementError::value(def.key, reason))?;
    }
    if let Some(k) = E::REQUIRED.iter().find(|k| !seen.contains(k)) {
        return Err(ElementError::Missing(k));
    }
    e.check()?;
    Ok(e)
}

/// The element a `KEY=VALUE,KEY=VALUE` text gives over its defaults (an
/// empty text: the defaults), checked.
pub fn parse_spec<E: Element>(spec: &str) -> Result<E, ElementError> {
    from_pairs(pairs(spec)?)
}

/// The `KEY=VALUE` pairs of a comma-separated text, each trimmed of
/// spaces around it; an item without `=` is refused.
pub(crate) fn pairs(spec: &str) -> Result<Vec<(&str, &str)>, ElementError> {
    spec.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|item| {
            item.split_once('=')
                .ok_or_else(|| ElementError::NotAPair(item.to_string()))
        })
        .collect()
}

/// Every key of `e` as `KEY=VALUE`, comma-separated: [`parse_spec`] reads
/// it back to `e`.
pub fn spec_of<E: Element>(e: &E) -> String {
    E::OPTIONS
        .iter()
        .map(|o| format!("{}={}", o.key, (o.display)(e)))
        .collect::<Vec<_>>()
        .join(",")
}

/// The element's keys, comma-separated.
pub fn keys<E: Element>() -> String {
    E::OPTIONS
        .iter()
        .map(|o| o.key)
        .collect::<Vec<_>>()
        .join(", ")
}

/// One help line per key: `KEY=VALUES  what it sets (default D)`, or
/// `(required)` for a key with no default.
pub fn key_help<E: Element>() -> Vec<String> {
    E::OPTIONS
        .iter()
        .map(|o| {
            let default = if E::REQUIRED.contains(&o.key) {
                "required".to_string()
            } else {
                format!("default {}", (o.display)(&E::DEFAULT))
            };
            format!("{}={}  {} ({default})", o.key, o.values, o.help)
        })
        .collect()
}

/// A duration as the unit grammar reads it back exactly: whole seconds as
/// `s`, else whole milliseconds as `ms`, microseconds as `us`, else `ns`.
pub fn duration_text(d: Duration) -> String {
    let ns = d.as_nanos();
    for (unit, per) in [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)] {
        if ns.is_multiple_of(per) {
            return format!("{}{unit}", ns / per);
        }
    }
    format!("{ns}ns")
}

/// A duration value (the unit grammar).
pub fn duration(v: &str) -> Result<Duration, String> {
    parse_duration(v).map_err(|e| e.to_string())
}

/// A size value in bytes (the unit grammar).
pub fn size(v: &str) -> Result<u64, String> {
    parse_size(v).map_err(|e| e.to_string())
}

/// A rate value (the unit grammar).
pub fn rate(v: &str) -> Result<Rate, String> {
    parse_rate(v).map_err(|e| e.to_string())
}

/// A rate as [`rate`] reads it back exactly: whole bits per second.
pub fn rate_text(r: Rate) -> String {
    format!("{}bit", r.bits_per_sec())
}

/// A finite number (ranges are the element's check).
pub fn number(v: &str) -> Result<f64, String> {
    v.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .ok_or_else(|| format!("expected a number, not {v:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Cellular, Jitter};

    #[test]
    fn durations_print_in_a_form_that_parses_back() {
        for (d, text) in [
            (Duration::from_secs(1), "1s"),
            (Duration::from_millis(50), "50ms"),
            (Duration::from_micros(1500), "1500us"),
            (Duration::from_nanos(7), "7ns"),
            (Duration::ZERO, "0s"),
        ] {
            assert_eq!(duration_text(d), text);
            assert_eq!(parse_duration(text), Ok(d));
        }
    }

    #[test]
    fn the_printed_spec_reads_back_to_the_element() {
        let c = Cellular::CELLREPLAY;
        assert_eq!(
            spec_of(&c),
            "light_bytes=280000,light_fraction=0.5,idle_reset=50ms,drift_mean=0.15,drift_period=1s"
        );
        assert_eq!(parse_spec::<Cellular>(&spec_of(&c)), Ok(c));
        let j = Jitter {
            median: Duration::from_micros(2500),
            p90: Duration::from_millis(17),
        };
        assert_eq!(spec_of(&j), "median=2500us,p90=17ms");
        assert_eq!(parse_spec::<Jitter>(&spec_of(&j)), Ok(j));
        assert_eq!(parse_spec::<Jitter>(""), Ok(Jitter::WIFI_SUI_2016));
    }

    #[test]
    fn refusals_name_the_key() {
        for (spec, text) in [
            ("burst=1", "burst: unknown key (keys: light_bytes, light_fraction, idle_reset, drift_mean, drift_period)"),
            ("drift_mean=0.1,drift_mean=0.2", "drift_mean: given twice"),
            ("drift_mean", "drift_mean: expected KEY=VALUE"),
            ("light_fraction=half", "light_fraction: expected a number, not \"half\""),
            ("light_fraction=0", "light_fraction: must lie in (0, 1]"),
            ("idle_reset=2min", "idle_reset: at most 60 s"),
        ] {
            assert_eq!(
                parse_spec::<Cellular>(spec).unwrap_err().to_string(),
                text,
                "{spec}"
            );
        }
        let e = parse_spec::<Jitter>("p90=2s").unwrap_err();
        assert_eq!(e.key(), "p90");
    }

    #[test]
    fn help_lists_every_key_with_its_default() {
        let h = key_help::<Cellular>();
        assert_eq!(h.len(), Cellular::OPTIONS.len());
        assert!(h[2].starts_with("idle_reset=<duration>") && h[2].ends_with("(default 50ms)"));
    }
}
