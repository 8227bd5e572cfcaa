//! `[[assumption]]` tables: declarations that replace the built-in ones
//! for their keys (see `crate::fleet::assumptions`).

use serde::Deserialize;

use super::lines::key_line;
use super::on_line;
use crate::fleet::assumptions::{Assumption, AssumptionError, Param};
use crate::fleet::Population;
use crate::scenario::line_of;
use crate::SimError;

/// An `[[assumption]]` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileAssumption {
    key: String,
    range: [f64; 2],
    reason: String,
    value: Option<f64>,
}

/// The file's declarations, in file order, checked against `population`;
/// an error names the line of the key it is about (`key`, `range`,
/// `value` or `reason`).
pub(super) fn declared(
    tables: &[toml::Spanned<FileAssumption>],
    population: &Population,
    text: &str,
) -> Result<Vec<Assumption>, SimError> {
    let mut declared = Vec::new();
    for a in tables {
        let at = line_of(text, a.span().start);
        let fa = a.get_ref();
        let d = Param::parse(&fa.key)
            .and_then(|p| {
                if declared.iter().any(|d: &Assumption| d.param == p) {
                    return Err(AssumptionError::DeclaredTwice { param: p });
                }
                let r = (fa.range[0], fa.range[1]);
                Assumption::declare(population, p, r, &fa.reason, fa.value)
            })
            .map_err(|e| {
                // The line of the key the error is about, not the table's.
                let key = match e {
                    AssumptionError::UnknownParam { .. }
                    | AssumptionError::Grid { .. }
                    | AssumptionError::DeclaredTwice { .. } => "key",
                    AssumptionError::RangeOutOfBounds { .. }
                    | AssumptionError::ValueOutsideRange { .. } => "range",
                    AssumptionError::NotTheModelValue { .. } => "value",
                    AssumptionError::NoReason { .. } => "reason",
                };
                let line = key_line(text, at, &format!("{key}:"));
                on_line(line, format!("assumption: {e}"))
            })?;
        declared.push(d);
    }
    Ok(declared)
}
