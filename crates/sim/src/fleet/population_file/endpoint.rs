//! The `[endpoint]` table: what the servers of every region do
//! (`respect_app_limited_share`, `crate::fleet::app_limited`).

use serde::Deserialize;

use crate::fleet::population::Region;

/// An `[endpoint]` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileEndpoint {
    respect_app_limited_share: Option<f64>,
}

/// Sets the table's values on every region; an error starts with the key.
pub(super) fn apply(e: &FileEndpoint, regions: &mut [Region]) -> Result<(), String> {
    if let Some(v) = e.respect_app_limited_share {
        if !(0.0..=1.0).contains(&v) {
            return Err(format!(
                "respect_app_limited_share: must lie in [0, 1], not {v}"
            ));
        }
        for r in regions {
            r.respect_app_limited_share = v;
        }
    }
    Ok(())
}
