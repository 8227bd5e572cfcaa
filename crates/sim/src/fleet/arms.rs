//! The arms of an A/B run: `label=spec` items, comma-separated, where
//! commas inside parentheses belong to a spec's options
//! (`baseline=newreno(iw=30),rapid=rapidstart(iw=30,jump=off)`).

use ramp_cc::spec::{self, ControllerSpec};

/// One arm: the `group` label its records carry and its controller.
#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    /// Label (`group` in the records).
    pub label: String,
    /// Controller.
    pub spec: ControllerSpec,
}

/// Parses `label=spec,...`; a bare spec is labelled by its canonical name.
/// The first arm is the baseline. Labels must be unique.
pub fn parse_arms(list: &str) -> Result<Vec<Arm>, String> {
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
        let spec = spec::parse(name).map_err(|e| format!("arm `{item}`: {e}"))?;
        let label = if label.is_empty() {
            spec.to_string()
        } else {
            label
        };
        if label
            .chars()
            .any(|c| c.is_control() || c == '"' || c == '\\')
        {
            return Err(format!(
                "arm `{item}`: label must not hold quotes, backslashes or control characters"
            ));
        }
        if arms.iter().any(|a| a.label == label) {
            return Err(format!("two arms are labelled `{label}`"));
        }
        arms.push(Arm { label, spec });
    }
    if arms.is_empty() {
        return Err("no arms given".to_string());
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
        assert!(parse_arms("x=newreno,x=cubic").is_err());
        assert!(parse_arms("x=nosuchcc").unwrap_err().contains("nosuchcc"));
        assert!(parse_arms(" , ").is_err());
    }
}
