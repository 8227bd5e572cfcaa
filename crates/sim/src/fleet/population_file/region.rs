//! A `[[region]]` table: a built-in region to start from or a new one,
//! its NDT quantile tables, access mix, ACK share and capacity scale.

use serde::Deserialize;

use crate::fleet::app_limited::RESPECT_APP_LIMITED_SHARE;
use crate::fleet::dist::QuantileTable;
use crate::fleet::population::{
    seed_regions, AccessMix, CapacityScale, PathModel, Region, CHROME_ACK_SHARE,
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileCapacity {
    fixed: f64,
    mobile: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileRegion {
    pub(super) name: String,
    weight: Option<f64>,
    rate_mbps: Option<Vec<f64>>,
    rtt_ms: Option<Vec<f64>>,
    mix: Option<FileMix>,
    chrome_ack_share: Option<f64>,
    capacity: Option<FileCapacity>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileMix {
    mobile: f64,
    wifi: f64,
    wired: f64,
    #[serde(default)]
    policed: f64,
}

const QUANTILE_PS: [f64; 5] = [0.10, 0.25, 0.50, 0.75, 0.90];

/// How far a region's `mix` (mobile + wifi + wired) may sum from 1: three
/// shares written to two decimals are each up to 0.005 off, so 0.015 in
/// all; a sum further off is a mistake (a share typed twice, a percentage
/// for a fraction), refused rather than silently rescaled. The shares
/// accepted are still divided by their sum, so they sample exactly.
const MIX_SUM_TOLERANCE: f64 = 0.015;

fn table(key: &str, v: &[f64]) -> Result<QuantileTable, String> {
    if v.len() != QUANTILE_PS.len() {
        return Err(format!(
            "{key}: give 5 values (p10, p25, p50, p75, p90), got {}",
            v.len()
        ));
    }
    if let Some(bad) = v.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
        return Err(format!(
            "{key}: values must be non-negative numbers, got {bad}"
        ));
    }
    let pts: Vec<(f64, f64)> = QUANTILE_PS.iter().copied().zip(v.iter().copied()).collect();
    QuantileTable::new(&pts).map_err(|e| format!("{key}: {e}"))
}

/// The region the table gives; an error starts with the key.
pub(super) fn read(r: &FileRegion) -> Result<Region, String> {
    let builtin = seed_regions().into_iter().find(|b| b.name == r.name);
    let mut reg = match (&builtin, &r.rate_mbps, &r.rtt_ms) {
        (Some(b), _, _) => b.clone(),
        (None, Some(_), Some(_)) => Region {
            name: r.name.clone(),
            weight: 1.0,
            rate_mbps: table("rate_mbps", &[1.0, 2.0, 3.0, 4.0, 5.0])?,
            rtt_ms: table("rtt_ms", &[1.0, 2.0, 3.0, 4.0, 5.0])?,
            mix: AccessMix {
                mobile: 0.4,
                wifi: 0.4,
                wired: 0.2,
                policed: 0.02,
            },
            chrome_ack_share: CHROME_ACK_SHARE,
            respect_app_limited_share: RESPECT_APP_LIMITED_SHARE,
            video_share: crate::fleet::video::VIDEO_SHARE,
            capacity_scale: CapacityScale::NONE,
            paths: PathModel::default(),
        },
        (None, _, _) => {
            let names: Vec<String> = seed_regions().into_iter().map(|r| r.name).collect();
            return Err(format!(
                "rate_mbps and rtt_ms are required for a region that is not built in ({})",
                names.join(", ")
            ));
        }
    };
    if r.name.chars().any(|c| c.is_control()) || r.name.is_empty() {
        return Err("name: must be non-empty text".into());
    }
    if let Some(w) = r.weight {
        if !(w >= 0.0 && w.is_finite()) {
            return Err("weight: must be a non-negative number".into());
        }
        reg.weight = w;
    }
    if let Some(v) = &r.rate_mbps {
        reg.rate_mbps = table("rate_mbps", v)?;
    }
    if let Some(v) = &r.rtt_ms {
        reg.rtt_ms = table("rtt_ms", v)?;
    }
    if let Some(m) = &r.mix {
        for (k, v) in [
            ("mobile", m.mobile),
            ("wifi", m.wifi),
            ("wired", m.wired),
            ("policed", m.policed),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(format!("mix.{k}: must lie in [0, 1]"));
            }
        }
        let sum = m.mobile + m.wifi + m.wired;
        if (sum - 1.0).abs() > MIX_SUM_TOLERANCE {
            return Err(format!(
                "mix: mobile + wifi + wired must sum to 1 (they are shares of the region's \
                 connections; policed is a share of its own), got {sum}"
            ));
        }
        reg.mix = AccessMix {
            mobile: m.mobile,
            wifi: m.wifi,
            wired: m.wired,
            policed: m.policed,
        };
    }
    if let Some(c) = r.chrome_ack_share {
        if !(0.0..=1.0).contains(&c) {
            return Err("chrome_ack_share: must lie in [0, 1]".into());
        }
        reg.chrome_ack_share = c;
    }
    if let Some(c) = &r.capacity {
        for (k, v) in [("fixed", c.fixed), ("mobile", c.mobile)] {
            if !(v > 0.0 && v <= 100.0) {
                return Err(format!("capacity.{k}: must lie in (0, 100]"));
            }
        }
        reg.capacity_scale = CapacityScale {
            fixed: c.fixed,
            mobile: c.mobile,
        };
    }
    Ok(reg)
}
