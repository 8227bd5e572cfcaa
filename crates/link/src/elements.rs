//! The optional elements of one link direction, held once: the shared
//! model's [`crate::LinkConfig`], the simulator's path and the real-time
//! forwarders' directions each embed one [`LinkElements`] instead of
//! repeating its fields, and [`ELEMENTS`] lists the elements a scenario
//! file's table, a population file's key or a command-line flag sets, so
//! that the readers of those three iterate over one list instead of
//! naming each element.
//!
//! A new element is its own file (the model and its option table,
//! [`crate::Element`], and its [`Slot`]: where it sits here and what its
//! table and flag are called), its `mod` line in lib.rs, a field of
//! [`LinkElements`] with its row in [`ELEMENTS`] (this file), and the line
//! in [`crate::Link`] that applies it.

use crate::aggregation::AckAggregation;
use crate::cellular::Cellular;
use crate::element::{from_pairs, key_help, pairs, spec_of, Element, ElementError};
use crate::jitter::Jitter;
use crate::loss::{GilbertElliott, LossModel};
use crate::policer::TokenBucket;

/// The optional elements of a link direction, each off unless set. Which
/// direction each acts on is the holder's choice: a simulated path puts
/// ACK aggregation on its reverse direction and the rest on its forward
/// one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkElements {
    /// Token-bucket policer before the queue.
    pub policer: Option<TokenBucket>,
    /// Random loss after the queue (Bernoulli, or a Gilbert-Elliott chain).
    pub loss: LossModel,
    /// A cellular link ([`Cellular`]): load-dependent capacity and
    /// base-delay drift, the drift a share of the path's base RTT.
    pub cellular: Option<Cellular>,
    /// Delay variation after the queue, without reordering (a Wi-Fi hop).
    pub jitter: Option<Jitter>,
    /// Release what leaves the queue only at multiples of an interval
    /// (ACK aggregation on a return direction).
    pub aggregation: Option<AckAggregation>,
}

impl Default for LossModel {
    /// No random loss.
    fn default() -> LossModel {
        LossModel::None
    }
}

/// The names an element is written under, and the help its flag prints.
#[derive(Clone, Copy, Debug)]
pub struct SlotNames {
    /// The scenario file's table under `[path]` (`cellular`:
    /// `[path.cellular]`).
    pub table: &'static str,
    /// The command-line flag, without its dashes (`wifi-jitter`).
    pub flag: &'static str,
    /// The flag's value, for help (`KEY=VALUE,…`).
    pub value_name: &'static str,
    /// A valid `KEY=VALUE,…` text, for help and for the tests that feed
    /// every element through every reader.
    pub example: &'static str,
    /// The flag's one-line help.
    pub help: &'static str,
    /// The flag's long help: what the element models.
    pub about: &'static str,
    /// Where the defaults the flag takes alone come from, for the long
    /// help (unused when some key is [`Element::REQUIRED`]).
    pub defaults_from: &'static str,
    /// The [`LinkElements`] field it sets, so that a reader can refuse it
    /// together with another way of setting that field (`loss`: the
    /// Bernoulli `loss` key and `--loss` flag).
    pub field: &'static str,
}

/// Where an element sits in [`LinkElements`]: the element's own file
/// implements it next to its option table.
pub trait Slot: Element {
    /// Its names in files and flags.
    const NAMES: SlotNames;
    /// The element in `e`, if it is on.
    fn get(e: &LinkElements) -> Option<Self>;
    /// Puts the element into `e`.
    fn put(e: &mut LinkElements, element: Self);
}

/// Sets an element in a set from `KEY=VALUE` pairs.
pub type SetFn = fn(&mut LinkElements, &[(&str, &str)]) -> Result<(), ElementError>;

/// [`Slot::get`] and [`Slot::put`] of an element that is an `Option`
/// field of [`LinkElements`].
macro_rules! option_field {
    ($field:ident) => {
        fn get(e: &$crate::LinkElements) -> Option<Self> {
            e.$field
        }
        fn put(e: &mut $crate::LinkElements, element: Self) {
            e.$field = Some(element);
        }
    };
}
pub(crate) use option_field;

/// One element of [`ELEMENTS`], its type erased: what a file or flag
/// reader needs to set it, print it and describe it.
#[derive(Clone, Copy)]
pub struct ElementSlot {
    /// Its names and help.
    pub names: SlotNames,
    /// The keys that have no default.
    pub required: &'static [&'static str],
    /// Sets the element in a set from `KEY=VALUE` pairs over its
    /// defaults, checked ([`crate::from_pairs`]).
    pub set: SetFn,
    /// Copies the element from `from` into `to` when it is on in `from`.
    pub overlay: fn(from: &LinkElements, to: &mut LinkElements),
    /// The element's `KEY=VALUE,…` text when it is on ([`crate::spec_of`]).
    pub spec: fn(&LinkElements) -> Option<String>,
    /// The defaults' text.
    pub default_spec: fn() -> String,
    /// One help line per key ([`crate::key_help`]).
    pub key_help: fn() -> Vec<String>,
}

impl ElementSlot {
    /// The slot of element `E`.
    pub const fn of<E: Slot>() -> ElementSlot {
        ElementSlot {
            names: E::NAMES,
            required: E::REQUIRED,
            set: set_pairs::<E>,
            overlay: overlay::<E>,
            spec: spec::<E>,
            default_spec: default_spec::<E>,
            key_help: key_help::<E>,
        }
    }

    /// Sets the element from a `KEY=VALUE,KEY=VALUE` text (empty: the
    /// defaults), as [`crate::parse_spec`] reads it.
    pub fn set_spec(&self, e: &mut LinkElements, spec: &str) -> Result<(), ElementError> {
        (self.set)(e, &pairs(spec)?)
    }
}

impl core::fmt::Debug for ElementSlot {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ElementSlot")
            .field("names", &self.names)
            .finish_non_exhaustive()
    }
}

fn set_pairs<E: Slot>(e: &mut LinkElements, pairs: &[(&str, &str)]) -> Result<(), ElementError> {
    E::put(e, from_pairs::<E>(pairs.iter().copied())?);
    Ok(())
}

fn spec<E: Slot>(e: &LinkElements) -> Option<String> {
    E::get(e).map(|v| spec_of(&v))
}

fn default_spec<E: Slot>() -> String {
    spec_of(&E::DEFAULT)
}

fn overlay<E: Slot>(from: &LinkElements, to: &mut LinkElements) {
    if let Some(v) = E::get(from) {
        E::put(to, v);
    }
}

/// Every element a scenario file's `[path.TABLE]`, a `--FLAG=KEY=VALUE,…`
/// and a population file's key set, in the order help lists them. (ACK
/// aggregation, one interval, is a plain key and flag of its own.)
pub const ELEMENTS: &[ElementSlot] = &[
    ElementSlot::of::<Cellular>(),
    ElementSlot::of::<Jitter>(),
    ElementSlot::of::<TokenBucket>(),
    ElementSlot::of::<GilbertElliott>(),
];

/// The slot whose table (scenario file, population file) is `table`.
pub fn slot(table: &str) -> Option<&'static ElementSlot> {
    ELEMENTS.iter().find(|s| s.names.table == table)
}

/// Calls macro `$m` with the tables of [`ELEMENTS`] as identifiers, in
/// its order (`$m! { cellular, jitter, policer, gilbert_elliott }`), for a
/// reader that needs them as struct fields (the scenario file's serde
/// struct). ramp-link's tests check that the two lists agree.
#[macro_export]
macro_rules! element_tables {
    ($m:ident) => {
        $m! { cellular, jitter, policer, gilbert_elliott }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! names {
        ($($t:ident),*) => { [$(stringify!($t)),*] };
    }

    #[test]
    fn the_macro_lists_the_tables_of_the_slots_in_order() {
        let tables: Vec<&str> = ELEMENTS.iter().map(|s| s.names.table).collect();
        assert_eq!(tables, element_tables!(names));
    }

    #[test]
    fn every_slot_sets_reads_back_and_overlays_its_element() {
        for s in ELEMENTS {
            let mut e = LinkElements::default();
            assert_eq!((s.spec)(&e), None, "{}", s.names.table);
            s.set_spec(&mut e, s.names.example).unwrap();
            let spec = (s.spec)(&e).unwrap();
            let mut again = LinkElements::default();
            s.set_spec(&mut again, &spec).unwrap();
            assert_eq!(again, e, "{spec}");
            let mut to = LinkElements::default();
            (s.overlay)(&LinkElements::default(), &mut to);
            assert_eq!(to, LinkElements::default());
            (s.overlay)(&e, &mut to);
            assert_eq!(to, e);
            assert_eq!((s.key_help)().len(), spec.split(',').count());
        }
        assert!(slot("cellular").is_some() && slot("loss").is_none());
    }
}
