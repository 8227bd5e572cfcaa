//! `--cc LIST`: a comma-separated list of controller specs
//! (`newreno,rapidstart(beta=0.7)`), parsed by clap with ramp-cc's one
//! grammar, so a bad name is refused before any work, with the flag's
//! name and exit status 2 (`ramp sim`, `ramp bench sim`).

use ramp_cc::spec::ControllerSpec;

/// The controllers a `--cc` list names, at least one, and the text given.
#[derive(Clone)]
pub struct CcList {
    /// The list as given.
    pub text: String,
    /// The specs, in the list's order.
    pub specs: Vec<ControllerSpec>,
}

impl std::fmt::Debug for CcList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// `--cc`'s value parser.
pub fn parse_cc_list(text: &str) -> Result<CcList, String> {
    let specs = ramp_cc::spec::parse_list(text).map_err(|e| e.to_string())?;
    if specs.is_empty() {
        return Err("give at least one controller".into());
    }
    Ok(CcList {
        text: text.to_string(),
        specs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_parses_and_a_bad_or_empty_one_is_refused() {
        let l = parse_cc_list("newreno,cubic").unwrap();
        assert_eq!(l.specs.len(), 2);
        assert_eq!(format!("{l:?}"), "newreno,cubic");
        assert!(parse_cc_list("nosuchcc").is_err());
        assert!(parse_cc_list("").is_err());
    }
}
