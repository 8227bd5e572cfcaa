//! A fleet run's headline statistics with their 95 % confidence intervals,
//! as its `summary.json` holds them (global slice), for the report's Arms
//! table: both `ramp fleet` and `ramp report DIR` read them from the same
//! file, so the two reports of one run agree.

use std::path::Path;

use crate::error::{Error, Result};

/// `summary.json` is a few kilobytes per slice; a larger file is not one.
const MAX_SUMMARY_BYTES: u64 = 64 << 20;

/// One statistic: its value and its 95 % confidence interval over
/// connections, percent (NaN where the summary has none).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeadlineStat {
    /// The change against the baseline, percent.
    pub value: f64,
    /// Lower bound of the 95 % interval.
    pub lo: f64,
    /// Upper bound of the 95 % interval.
    pub hi: f64,
}

/// One arm's four headline statistics against the baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmHeadline {
    /// The arm.
    pub arm: String,
    /// In [`HEADLINE_STATS`] order.
    pub stats: [HeadlineStat; 4],
}

/// The statistics' `summary.json` keys and column headings: ten-point
/// curve average, 1–99 average, change of the mean, change of the median
/// (docs/experiments.md, "Which statistic").
pub const HEADLINE_STATS: [(&str, &str); 4] = [
    ("pctl_change_avg_pct", "Δ TTLB, ten-pt avg"),
    ("pctl_1_99_change_avg_pct", "Δ TTLB, p1–p99 avg"),
    ("mean_change_pct", "Δ mean TTLB"),
    ("median_change_pct", "Δ median TTLB"),
];

/// The headline of every non-baseline arm in a summary.json's text (its
/// `global` slice); `source` names it in errors.
pub fn headline_of_summary(text: &str, source: &str) -> Result<Vec<ArmHeadline>> {
    let bad = |message: String| Error::Input {
        source: source.to_string(),
        line: 0,
        message,
    };
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let arms = v
        .pointer("/global/arms")
        .and_then(|a| a.as_array())
        .ok_or_else(|| bad("no global.arms".into()))?;
    let num =
        |a: &serde_json::Value, k: &str| a.get(k).and_then(|x| x.as_f64()).unwrap_or(f64::NAN);
    let mut out = Vec::new();
    for (i, a) in arms.iter().enumerate() {
        let arm = a
            .get("arm")
            .and_then(|x| x.as_str())
            .ok_or_else(|| bad(format!("global.arms[{i}]: no arm")))?;
        if i == 0 {
            continue; // the baseline
        }
        let stats = HEADLINE_STATS.map(|(k, _)| HeadlineStat {
            value: num(a, k),
            lo: num(a, &format!("{k}_ci95_lo")),
            hi: num(a, &format!("{k}_ci95_hi")),
        });
        out.push(ArmHeadline {
            arm: arm.to_string(),
            stats,
        });
    }
    Ok(out)
}

/// The headline in `dir/summary.json`, or none when there is no such file.
pub fn read_headline(dir: &Path) -> Result<Vec<ArmHeadline>> {
    let path = dir.join("summary.json");
    if !path.is_file() {
        return Ok(Vec::new());
    }
    let text =
        ramp_vocab::bounded_read::read_capped_to_string(&path, MAX_SUMMARY_BYTES, "a summary.json")
            .map_err(|e| Error::Io {
                path: path.display().to_string(),
                message: e.to_string(),
            })?;
    headline_of_summary(&text, &path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_arm_but_the_baseline_and_tolerates_a_summary_without_intervals() {
        let text = r#"{"global":{"arms":[
            {"arm":"base","mean_ms":100},
            {"arm":"x","pctl_change_avg_pct":-20.5,"pctl_change_avg_pct_ci95_lo":-21.0,
             "pctl_change_avg_pct_ci95_hi":-20.0,"mean_change_pct":-15,"median_change_pct":null}]}}"#;
        let h = headline_of_summary(text, "s").unwrap();
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].arm, "x");
        assert_eq!(
            h[0].stats[0],
            HeadlineStat {
                value: -20.5,
                lo: -21.0,
                hi: -20.0
            }
        );
        assert_eq!(h[0].stats[2].value, -15.0);
        assert!(h[0].stats[2].lo.is_nan() && h[0].stats[3].value.is_nan());
        let e = headline_of_summary("{}", "run/summary.json").unwrap_err();
        assert!(e.to_string().contains("run/summary.json"), "{e}");
    }
}
