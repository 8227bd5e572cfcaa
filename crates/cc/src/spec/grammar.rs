//! The spec grammar: `part+part`, `name(key=value,...)`, and lists
//! `spec,spec` whose commas inside parentheses belong to options.

use super::SpecError;

/// Splits a comma-separated list of specs (or of `label=spec` arms),
/// keeping commas inside parentheses: they separate a spec's options.
pub fn split_list(names: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in names.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&names[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&names[start..]);
    out
}

pub(super) fn split_parts(s: &str) -> Result<Vec<&str>, SpecError> {
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

pub(super) type Opts<'a> = Vec<(&'a str, &'a str)>;

pub(super) fn split_options<'a>(
    part: &'a str,
    whole: &str,
) -> Result<(&'a str, Opts<'a>), SpecError> {
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
