//! The controller registry: which family answers to which part name.
//!
//! A family (like quinn's one `ControllerFactory` per algorithm) turns the
//! parts of a spec into a [`FamilySpec`], which prints its canonical name and
//! builds controllers. The built-in families are listed once, in
//! [`Registry::builtin`]; a program may [`Registry::register`] its own.

use core::any::Any;
use core::fmt;

use super::{ControllerSpec, SpecError};
use crate::config::CcConfig;
use crate::controller::Controller;
use ramp_vocab::ecn::EcnCodepoint;

/// One `name(key=value,...)` part of a spec, already split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecPart<'a> {
    /// The part's name, e.g. `rapidstart`.
    pub name: &'a str,
    /// Its options in the order written; no key appears twice.
    pub options: &'a [(&'a str, &'a str)],
}

/// A controller family: the part names it owns and how it reads them.
pub trait Family: Send + Sync + 'static {
    /// Every part name this family answers to. A spec's parts must all
    /// belong to one family.
    fn names(&self) -> &'static [&'static str];

    /// Reads a whole spec (`whole`, for error messages) whose parts are
    /// all this family's.
    fn parse(&self, parts: &[SpecPart<'_>], whole: &str) -> Result<ControllerSpec, SpecError>;

    /// One paragraph per part name: what it is and its options, for
    /// `--help` style listings.
    fn help(&self) -> String;
}

/// A parsed spec of one family: plain data that prints its canonical name
/// (which parses back to an equal spec) and builds controllers.
pub trait FamilySpec: fmt::Debug + fmt::Display + Send + Sync + 'static {
    /// The config a controller of this spec runs with: `cfg` overridden by
    /// any connection-level options the spec carries.
    fn effective_config(&self, cfg: &CcConfig) -> CcConfig {
        *cfg
    }

    /// The canonical name of the controller this spec builds under `cfg`.
    fn canonical_name(&self, cfg: &CcConfig) -> String {
        let _ = cfg;
        self.to_string()
    }

    /// The same spec without an explicit initial window, so that a
    /// command-wide `--iw` applies (the default returns `None`: the family
    /// has no such option and the spec is unchanged).
    fn without_initial_window(&self) -> Option<ControllerSpec> {
        None
    }

    /// Builds a controller.
    fn build(&self, cfg: &CcConfig) -> Box<dyn Controller>;

    /// The ECN codepoint this arm's packets carry (RFC 9000 §13.4), when
    /// the spec says so (`ecn=off|on|ect0|ect1`); `None` leaves it to the
    /// endpoint.
    fn ecn_codepoint(&self) -> Option<EcnCodepoint> {
        None
    }

    /// The pacer this arm runs, when the spec says so
    /// (`pacer=leaky|quinn|quicly`); `None` leaves it to the endpoint.
    fn pacer_model(&self) -> Option<crate::pacer::PacerModel> {
        None
    }

    /// Which packets this arm's window lets out, when the spec says so
    /// (`send_rule=rfc|quicly`); `None`: RFC 9002 §7's.
    fn send_rule(&self) -> Option<crate::send_rule::SendRule> {
        None
    }

    /// For downcasting to the family's concrete spec type.
    fn as_any(&self) -> &dyn Any;
}

/// The families a name is looked up in.
pub struct Registry {
    families: Vec<Box<dyn Family>>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.families.iter().map(|fam| fam.names()))
            .finish()
    }
}

impl Registry {
    /// ramp's own controllers. Adding a built-in family is one line here.
    pub fn builtin() -> Registry {
        let mut r = Registry {
            families: Vec::new(),
        };
        r.register(crate::loss_based::spec::LossBasedFamily);
        r.register(crate::bbr3::Bbr3Family);
        r
    }

    /// Adds a family. Its names must not clash with a registered family's.
    pub fn register(&mut self, family: impl Family) -> &mut Registry {
        debug_assert!(family.names().iter().all(|n| self.family_of(n).is_none()));
        self.families.push(Box::new(family));
        self
    }

    /// The index of the family that owns `name` (families are often
    /// zero-sized, so their addresses cannot tell them apart).
    fn family_of(&self, name: &str) -> Option<usize> {
        self.families.iter().position(|f| f.names().contains(&name))
    }

    /// Every part name, in registration order, for error messages.
    pub fn names(&self) -> Vec<&'static str> {
        self.families
            .iter()
            .flat_map(|f| f.names())
            .copied()
            .collect()
    }

    /// Help for every family.
    pub fn help(&self) -> String {
        self.families
            .iter()
            .map(|f| f.help())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Parses one controller name.
    pub fn parse(&self, name: &str) -> Result<ControllerSpec, SpecError> {
        let whole = name.trim();
        let valid = || self.names().join(", ");
        if whole.is_empty() {
            return Err(SpecError::new(format!(
                "empty controller name; valid names: {}",
                valid()
            )));
        }
        let raw = super::grammar::split_parts(whole)?;
        let mut split = Vec::with_capacity(raw.len());
        for part in raw {
            split.push(super::grammar::split_options(part, whole)?);
        }
        let parts: Vec<SpecPart<'_>> = split
            .iter()
            .map(|(name, options)| SpecPart {
                name,
                options: options.as_slice(),
            })
            .collect();
        let mut family: Option<usize> = None;
        for p in &parts {
            let Some(f) = self.family_of(p.name) else {
                return Err(SpecError::new(format!(
                    "unknown controller `{}` in `{whole}`; valid names: {}, joined with `+`",
                    p.name,
                    valid()
                )));
            };
            match family {
                Some(first) if first != f => {
                    return Err(SpecError::new(format!(
                        "`{whole}`: `{}` cannot be combined with `{}`",
                        p.name, parts[0].name
                    )))
                }
                _ => family = Some(f),
            }
        }
        match family {
            Some(f) => self.families[f].parse(&parts, whole),
            None => Err(SpecError::new(format!("`{whole}`: no controller named"))),
        }
    }

    /// Parses a comma-separated list of names; commas inside parentheses
    /// belong to options (`newreno,rapidstart(beta=0.7,jump=on)`).
    pub fn parse_list(&self, names: &str) -> Result<Vec<ControllerSpec>, SpecError> {
        super::grammar::split_list(names)
            .into_iter()
            .map(|n| self.parse(n))
            .collect()
    }
}
