//! The arms of an A/B run: `label=spec` items, comma-separated, where
//! commas inside parentheses belong to a spec's options
//! (`baseline=newreno(iw=30),rapid=rapidstart(iw=30,jump=off)`).

use core::fmt;

use ramp_cc::spec::{self, ControllerSpec, SpecError};

/// One arm: the `group` label its records carry and its controller.
#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    /// Label (`group` in the records).
    pub label: String,
    /// Controller.
    pub spec: ControllerSpec,
}

/// Why an arm list does not parse: each names the arm as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArmError {
    /// An arm's controller does not parse.
    Spec {
        /// The arm as written (`label=spec` or a bare spec).
        item: String,
        /// Why its spec does not parse.
        error: SpecError,
    },
    /// A label holds a quote, backslash or control character.
    BadLabel {
        /// The arm as written.
        item: String,
    },
    /// Two arms carry the same label, so their records could not be told
    /// apart.
    DuplicateLabel {
        /// The label given twice.
        label: String,
    },
    /// The list holds no arm.
    Empty,
}

impl fmt::Display for ArmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArmError::Spec { item, error } => write!(f, "arm `{item}`: {error}"),
            ArmError::BadLabel { item } => write!(
                f,
                "arm `{item}`: label must not hold quotes, backslashes or control characters"
            ),
            ArmError::DuplicateLabel { label } => write!(f, "two arms are labelled `{label}`"),
            ArmError::Empty => f.write_str("no arms given"),
        }
    }
}

impl std::error::Error for ArmError {}

/// Parses `label=spec,...`; a bare spec is labelled by its canonical name.
/// The first arm is the baseline. Labels must be unique.
pub fn parse_arms(list: &str) -> Result<Vec<Arm>, ArmError> {
    let mut arms: Vec<Arm> = Vec::new();
    for item in spec::split_list(list) {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let (label, name) = match item.split_once('=') {
            // `rapidstart(beta=0.7)` has an `=` inside the options.
            Some((l, n)) if !l.contains('(') => (l.trim().to_string(), n.trim()),
            _ => (String::new(), item),
        };
        let spec = spec::parse(name).map_err(|error| ArmError::Spec {
            item: item.to_string(),
            error,
        })?;
        let label = if label.is_empty() {
            spec.to_string()
        } else {
            label
        };
        if label
            .chars()
            .any(|c| c.is_control() || c == '"' || c == '\\')
        {
            return Err(ArmError::BadLabel {
                item: item.to_string(),
            });
        }
        if arms.iter().any(|a| a.label == label) {
            return Err(ArmError::DuplicateLabel { label });
        }
        arms.push(Arm { label, spec });
    }
    if arms.is_empty() {
        return Err(ArmError::Empty);
    }
    Ok(arms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commas_inside_parentheses_belong_to_options() {
        let a =
            parse_arms("baseline=newreno(iw=30),rapid=rapidstart(iw=30,jump=off), cubic").unwrap();
        assert_eq!(a.len(), 3);
        assert_eq!(a[0].label, "baseline");
        assert_eq!(a[1].label, "rapid");
        assert_eq!(
            a[1].spec,
            spec::parse("rapidstart(iw=30,jump=off)").unwrap()
        );
        assert_eq!(a[2].label, "cubic");
    }

    #[test]
    fn each_bad_list_gets_its_own_error_with_the_arm_named() {
        assert_eq!(
            parse_arms("x=newreno,x=cubic"),
            Err(ArmError::DuplicateLabel {
                label: "x".to_string()
            })
        );
        assert_eq!(
            parse_arms("x=newreno,x=cubic").unwrap_err().to_string(),
            "two arms are labelled `x`"
        );
        let e = parse_arms("x=nosuchcc").unwrap_err();
        assert!(
            matches!(&e, ArmError::Spec { item, .. } if item == "x=nosuchcc"),
            "{e:?}"
        );
        assert!(e.to_string().starts_with("arm `x=nosuchcc`: "), "{e}");
        assert!(e.to_string().contains("nosuchcc"), "{e}");
        assert_eq!(
            parse_arms("a\\b=newreno").unwrap_err().to_string(),
            "arm `a\\b=newreno`: label must not hold quotes, backslashes or control characters"
        );
        assert_eq!(parse_arms(" , "), Err(ArmError::Empty));
        assert_eq!(ArmError::Empty.to_string(), "no arms given");
    }
}
