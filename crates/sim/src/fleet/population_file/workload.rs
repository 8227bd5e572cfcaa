//! The `[workload]` table: transfer sizes (fixed or log-uniform), the
//! bins the summary reports by, page loads, and the share of objects that
//! are video segments (`crate::fleet::video`).

use serde::Deserialize;

use super::{parse_list, Qty};
use crate::fleet::workload::{SizeDist, Workload};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileWorkload {
    size: Option<Qty>,
    min_size: Option<Qty>,
    max_size: Option<Qty>,
    bins: Option<Vec<Qty>>,
    pages: Option<bool>,
    warm_share: Option<f64>,
    video_share: Option<f64>,
}

/// The table's `video_share`, checked against the rest of the table: a
/// share in [0, 1] of a log-uniform workload of single objects (a segment
/// replaces a drawn object only within its size range). `None` if the
/// table does not give it; an error starts with the key.
pub(super) fn video_share(w: &FileWorkload) -> Result<Option<f64>, String> {
    let Some(v) = w.video_share else {
        return Ok(None);
    };
    if !(0.0..=1.0).contains(&v) {
        return Err(format!("video_share: must lie in [0, 1], not {v}"));
    }
    if v > 0.0 && w.size.is_some() {
        return Err("video_share: needs min_size/max_size (a segment's size follows its path), not a fixed size".into());
    }
    if v > 0.0 && w.pages == Some(true) {
        return Err("video_share: applies to single objects, not pages = true".into());
    }
    Ok(Some(v))
}

/// The workload the table gives; an error starts with the key.
pub(super) fn read(w: &FileWorkload) -> Result<Workload, String> {
    let size = |key: &str, q: &Qty| {
        ramp_vocab::units::parse_size(&q.0.clone()).map_err(|e| format!("{key}: {e}"))
    };
    let sizes = match (&w.size, &w.min_size, &w.max_size) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err("size: give either size or min_size/max_size".into())
        }
        (Some(s), None, None) => SizeDist::Fixed(size("size", s)?.max(1)),
        (None, lo, hi) => {
            let lo = match lo {
                Some(q) => size("min_size", q)?,
                None => crate::fleet::workload::SEED_BIN_EDGES[0],
            };
            let hi = match hi {
                Some(q) => size("max_size", q)?,
                None => crate::fleet::workload::SEED_BIN_EDGES[4],
            };
            if lo == 0 || hi <= lo {
                return Err("max_size: must exceed min_size, which must be positive".into());
            }
            SizeDist::LogUniform { lo, hi }
        }
    };
    let pages = w.pages.unwrap_or(false);
    let warm_share = w.warm_share.unwrap_or(0.0);
    if !(0.0..=1.0).contains(&warm_share) {
        return Err(format!("warm_share: must lie in [0, 1], not {warm_share}"));
    }
    if warm_share > 0.0 && !pages {
        return Err("warm_share: needs pages = true".into());
    }
    let bin_edges = match &w.bins {
        None if pages => crate::fleet::workload::PAGE_BIN_EDGES.to_vec(),
        None => crate::fleet::workload::SEED_BIN_EDGES.to_vec(),
        Some(b) => {
            let e = parse_list("bins", b, ramp_vocab::units::parse_size)?;
            if e.windows(2).any(|w| w[0] >= w[1]) {
                return Err("bins: edges must be strictly ascending".into());
            }
            e
        }
    };
    Ok(Workload {
        sizes,
        bin_edges,
        users: Default::default(),
        pages: pages.then(|| crate::fleet::workload::PageLoads {
            model: crate::web::HttpModel::default(),
            warm_share,
        }),
    })
}
