//! The congestion-avoidance parts of the loss-based family as a table: one
//! [`CaPart`] row per algorithm in [`CA_PARTS`], holding its name, help,
//! option table and builder. The parser, the canonical name, the help and
//! the builder in [`super`] read the rows and name no algorithm, so adding
//! one is its file (the algorithm and its row), a `pub mod` line and one
//! line in [`CA_PARTS`] (docs/algorithms.md, "Adding a
//! congestion-avoidance algorithm").

use core::any::Any;
use core::fmt;
use core::hash::{Hash, Hasher};
use std::sync::Arc;

use super::{apply_part, help_rows};
use crate::config::CcConfig;
use crate::loss_based::CongestionAvoidance;
use crate::ratio::Ratio;
use crate::spec::option::{self, OptionDef};
use crate::spec::SpecError;
use ramp_vocab::ecn::EcnCodepoint;

/// Every congestion-avoidance part, one row each. The first is the
/// family's default (a spec without a CA part runs it, and its name is
/// left out when a startup part implies it).
pub const CA_PARTS: &[&dyn CaRow] = &[
    &crate::newreno::CA_PART,
    &crate::cubic::CA_PART,
    &crate::prague::CA_PART,
];

/// What a part's options struct must be: a plain value with a default
/// (the part written without options), compared and hashed with the spec.
pub trait CaOptions:
    Clone + Default + PartialEq + Eq + Hash + fmt::Debug + Send + Sync + 'static
{
}

impl<O> CaOptions for O where
    O: Clone + Default + PartialEq + Eq + Hash + fmt::Debug + Send + Sync + 'static
{
}

/// One congestion-avoidance part: its row in [`CA_PARTS`], written in the
/// algorithm's own file as a `pub const CA_PART`.
pub struct CaPart<O: 'static> {
    /// The name in a spec and in canonical names, e.g. `cubic`.
    pub name: &'static str,
    /// Other spellings the parser accepts (`reno`); never printed.
    pub aliases: &'static [&'static str],
    /// One line of help: what it is and its public source.
    pub help: &'static str,
    /// Its options, one row each (`&[]` for none); `O::default()` is the
    /// part written without options.
    pub options: &'static [OptionDef<O>],
    /// Builds the algorithm from its options and the endpoint's config.
    pub build: fn(&O, &CcConfig) -> Box<dyn CongestionAvoidance>,
    /// The ECN codepoint an arm of this part sends when its spec's `ecn=`
    /// says nothing (Prague: ECT(1), RFC 9331 §4.1); `None` leaves it to
    /// the endpoint.
    pub ecn: Option<EcnCodepoint>,
    /// The pacing gain in congestion avoidance in place of the endpoint's
    /// default ([`crate::config::DEFAULT_CA_PACING_GAIN`]) when neither the
    /// spec nor the endpoint sets one; `None` keeps the endpoint's.
    pub ca_pacing_gain: Option<Ratio>,
}

/// A row of [`CA_PARTS`] whatever its options type: what the family's
/// generic code asks of a part.
pub trait CaRow: Sync {
    /// The canonical name.
    fn name(&self) -> &'static str;
    /// Other accepted spellings.
    fn aliases(&self) -> &'static [&'static str];
    /// Whether a spec's part `name` is this one.
    fn is_named(&self, name: &str) -> bool {
        self.name() == name || self.aliases().contains(&name)
    }
    /// Reads the part's own options (the connection-level ones taken out).
    fn parse(&'static self, options: &[(&str, &str)], whole: &str) -> Result<CaSpec, SpecError>;
    /// The part without options.
    fn default_spec(&'static self) -> CaSpec;
    /// Appends the part's help rows: a title line, then one line per option.
    fn write_help(&self, out: &mut String);
}

impl<O: CaOptions> CaRow for CaPart<O> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn aliases(&self) -> &'static [&'static str] {
        self.aliases
    }

    fn parse(&'static self, options: &[(&str, &str)], whole: &str) -> Result<CaSpec, SpecError> {
        let mut o = O::default();
        apply_part(self.options, &mut o, self.name, options, whole)?;
        Ok(CaSpec::new(self, o))
    }

    fn default_spec(&'static self) -> CaSpec {
        CaSpec::new(self, O::default())
    }

    fn write_help(&self, out: &mut String) {
        let title = match self.aliases {
            [] => self.name.to_string(),
            [one] => format!("{} (alias {one})", self.name),
            many => format!("{} (aliases {})", self.name, many.join(", ")),
        };
        help_rows(out, &title, self.help, self.options);
    }
}

/// The names of every congestion-avoidance part, for messages:
/// `newreno, cubic, prague`.
pub(super) fn ca_names() -> String {
    CA_PARTS
        .iter()
        .map(|p| p.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The row a spec's part name belongs to, if it is a congestion-avoidance
/// part.
pub(super) fn ca_row(name: &str) -> Option<&'static dyn CaRow> {
    CA_PARTS.iter().copied().find(|p| p.is_named(name))
}

/// A chosen part with its options, behind [`CaSpec`].
trait CaValue: fmt::Debug + Send + Sync {
    fn name(&self) -> &'static str;
    fn write(&self, out: &mut Vec<String>);
    fn build(&self, cfg: &CcConfig) -> Box<dyn CongestionAvoidance>;
    fn ecn(&self) -> Option<EcnCodepoint>;
    fn ca_pacing_gain(&self) -> Option<Ratio>;
    fn as_any(&self) -> &dyn Any;
    fn eq_value(&self, other: &dyn CaValue) -> bool;
    fn hash_value(&self, state: &mut dyn Hasher);
}

struct Chosen<O: 'static> {
    part: &'static CaPart<O>,
    options: O,
}

impl<O: CaOptions> fmt::Debug for Chosen<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple(self.part.name).field(&self.options).finish()
    }
}

impl<O: CaOptions> CaValue for Chosen<O> {
    fn name(&self) -> &'static str {
        self.part.name
    }

    fn write(&self, out: &mut Vec<String>) {
        option::write(self.part.options, &self.options, out);
    }

    fn build(&self, cfg: &CcConfig) -> Box<dyn CongestionAvoidance> {
        (self.part.build)(&self.options, cfg)
    }

    fn ecn(&self) -> Option<EcnCodepoint> {
        self.part.ecn
    }

    fn ca_pacing_gain(&self) -> Option<Ratio> {
        self.part.ca_pacing_gain
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn eq_value(&self, other: &dyn CaValue) -> bool {
        // Two rows may share an options type (`()`): the name tells them apart.
        self.name() == other.name()
            && other
                .as_any()
                .downcast_ref::<Chosen<O>>()
                .is_some_and(|o| o.options == self.options)
    }

    fn hash_value(&self, mut state: &mut dyn Hasher) {
        self.part.name.hash(&mut state);
        self.options.hash(&mut state);
    }
}

/// The congestion-avoidance algorithm of a spec: a row of [`CA_PARTS`]
/// and its options. Cheap to clone.
#[derive(Clone)]
pub struct CaSpec(Arc<dyn CaValue>);

impl CaSpec {
    /// `part` with `options`.
    pub fn new<O: CaOptions>(part: &'static CaPart<O>, options: O) -> CaSpec {
        CaSpec(Arc::new(Chosen { part, options }))
    }

    /// The part's canonical name.
    pub fn name(&self) -> &'static str {
        self.0.name()
    }

    /// The options, if the part's options are an `O`.
    pub fn options<O: CaOptions>(&self) -> Option<&O> {
        self.0
            .as_any()
            .downcast_ref::<Chosen<O>>()
            .map(|c| &c.options)
    }

    /// Builds the algorithm.
    pub fn build(&self, cfg: &CcConfig) -> Box<dyn CongestionAvoidance> {
        self.0.build(cfg)
    }

    /// Appends the options that differ from the part's defaults as
    /// `key=value`.
    pub(super) fn write_options(&self, out: &mut Vec<String>) {
        self.0.write(out);
    }

    /// See [`CaPart::ecn`].
    pub(super) fn ecn(&self) -> Option<EcnCodepoint> {
        self.0.ecn()
    }

    /// See [`CaPart::ca_pacing_gain`].
    pub(super) fn ca_pacing_gain(&self) -> Option<Ratio> {
        self.0.ca_pacing_gain()
    }
}

impl Default for CaSpec {
    /// The first row of [`CA_PARTS`] without options.
    fn default() -> Self {
        CA_PARTS[0].default_spec()
    }
}

impl fmt::Debug for CaSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl PartialEq for CaSpec {
    fn eq(&self, other: &Self) -> bool {
        self.0.eq_value(&*other.0)
    }
}

impl Eq for CaSpec {}

impl Hash for CaSpec {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash_value(state);
    }
}
