//! `--cc LIST`: a comma-separated list of controller specs
//! (`newreno,rapidstart(beta=0.7)`), parsed by clap with ramp-cc's one
//! grammar, so a bad name is refused before any work, with the flag's
//! name and exit status 2 (`ramp sim`, `ramp bench sim`); and `ramp
//! compare --cc ARMS`, the same list with optional `label=` per arm.

use ramp_cc::spec::{ControllerSpec, SpecError};
use ramp_sim::fleet::arms::{parse_arms, Arm, ArmError};

/// A comma-separated list a flag names: its items, in the list's order,
/// and the text given (what `Debug` prints, so the parsed arguments show
/// the list as the user wrote it).
#[derive(Clone)]
pub struct GivenList<T> {
    /// The list as given.
    pub text: String,
    /// The items, in the list's order.
    pub items: Vec<T>,
}

impl<T> std::fmt::Debug for GivenList<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// The controllers a `--cc` list names, at least one.
pub type CcList = GivenList<ControllerSpec>;

/// `--cc`'s value parser (clap prints the error's text).
pub fn parse_cc_list(text: &str) -> Result<CcList, CcListError> {
    let specs = ramp_cc::spec::parse_list(text).map_err(CcListError::Spec)?;
    if specs.is_empty() {
        return Err(CcListError::Empty);
    }
    Ok(CcList {
        text: text.to_string(),
        items: specs,
    })
}

/// Why a `--cc` list is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CcListError {
    /// A spec in the list does not parse.
    Spec(SpecError),
    /// The list names no controller.
    Empty,
}

impl std::fmt::Display for CcListError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CcListError::Spec(e) => e.fmt(f),
            CcListError::Empty => f.write_str("give at least one controller"),
        }
    }
}

impl std::error::Error for CcListError {}

/// The arms a `ramp compare --cc` list names (`label=spec` or `spec`), at
/// least one, labels unique; the first is the baseline.
pub type ArmList = GivenList<Arm>;

/// `ramp compare --cc`'s value parser (clap prints the error's text).
pub fn parse_arm_list(text: &str) -> Result<ArmList, ArmError> {
    Ok(ArmList {
        text: text.to_string(),
        items: parse_arms(text)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_parses_and_a_bad_or_empty_one_is_refused() {
        let l = parse_cc_list("newreno,cubic").unwrap();
        assert_eq!(l.items.len(), 2);
        assert_eq!(format!("{l:?}"), "newreno,cubic");
        assert!(matches!(
            parse_cc_list("nosuchcc"),
            Err(CcListError::Spec(_))
        ));
        assert!(parse_cc_list("").is_err());
        assert_eq!(
            CcListError::Empty.to_string(),
            "give at least one controller"
        );
    }

    #[test]
    fn an_arm_list_parses_and_a_bad_empty_or_twice_labelled_one_is_refused() {
        let l = parse_arm_list("base=newreno,cubic").unwrap();
        let labels: Vec<&str> = l.items.iter().map(|a| a.label.as_str()).collect();
        assert_eq!(labels, ["base", "cubic"]);
        assert_eq!(format!("{l:?}"), "base=newreno,cubic");
        assert!(parse_arm_list("nosuchcc").is_err());
        assert!(parse_arm_list("").is_err());
        assert!(parse_arm_list("a=newreno,a=cubic").is_err());
    }
}
