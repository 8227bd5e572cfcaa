//! The paired view's analysis: arms run over the same paths matched path
//! by path (by the pair keys), and the per-path Δ of TTLB.

use super::facet::Facet;
use super::samples::{check_baseline, group, AbOptions, AbSamples};
use crate::error::{Error, Result};
use crate::record::Record;
use ramp_vocab::quantile::sorted_finite;
use std::collections::BTreeMap;

/// One arm's paired deltas in one facet.
#[derive(Debug, Clone, PartialEq)]
pub struct PairedCurve {
    /// Arm name.
    pub arm: String,
    /// Per-path Δ in percent, 100·(TTLB_arm/TTLB_baseline − 1), sorted.
    pub deltas_pct: Vec<f64>,
}

/// One facet of the paired view.
#[derive(Debug, Clone, PartialEq)]
pub struct PairedPanel {
    /// Facet label (empty without faceting).
    pub facet: String,
    /// One curve per non-baseline arm.
    pub curves: Vec<PairedCurve>,
}

/// The paired analysis: arms matched path by path.
#[derive(Debug, Clone, PartialEq)]
pub struct PairedResult {
    /// Baseline arm name.
    pub baseline: String,
    /// All arm names, sorted.
    pub arms: Vec<String>,
    /// Faceting used.
    pub facet: Facet,
    /// Keys that identify a path.
    pub pair_keys: Vec<String>,
    /// Panels in facet order.
    pub panels: Vec<PairedPanel>,
    /// Records skipped (no arm, TTLB, facet or pair key; or no partner).
    pub skipped: usize,
}

/// Matches each arm's records to the baseline's by the pair keys (the
/// path's `seed` by default) and computes per-path Δ. A path key that
/// occurs twice within one arm and facet is an error, since the pairing
/// would be ambiguous.
pub fn paired_deltas(records: &[Record], opts: &AbOptions) -> Result<PairedResult> {
    paired_deltas_of(&AbSamples::from_records(records, opts), opts)
}

/// [`paired_deltas`] on extracted samples (e.g. from [`AbSamples::read`]).
pub fn paired_deltas_of(samples: &AbSamples, opts: &AbOptions) -> Result<PairedResult> {
    let (groups, arms) = group(samples);
    let mut skipped = samples.skipped;
    check_baseline(samples, &arms, opts)?;
    let key_of = |i: usize| samples.samples[i].pair.clone();
    let mut panels = Vec::new();
    let mut any_pair = false;
    for ((_, facet), by_arm) in &groups {
        let mut keyed: BTreeMap<&String, BTreeMap<String, f64>> = BTreeMap::new();
        for (arm, values) in by_arm {
            let m = keyed.entry(arm).or_default();
            for &(ttlb, i) in values {
                let Some(k) = key_of(i) else {
                    skipped += 1;
                    continue;
                };
                if m.insert(k.clone(), ttlb).is_some() {
                    return Err(Error::Data(format!(
                        "paired view: {} \"{k}\" occurs twice in arm \"{arm}\" (record on line {}); \
                         pair by more keys (e.g. --pair-key seed,content_length)",
                        opts.pair_keys.join(","),
                        samples.samples[i].line
                    )));
                }
            }
        }
        let Some(base) = keyed.get(&opts.baseline) else {
            continue;
        };
        let mut curves = Vec::new();
        for (arm, m) in &keyed {
            if **arm == opts.baseline {
                continue;
            }
            let mut deltas = Vec::new();
            for (k, v) in m {
                match base.get(k) {
                    Some(b) => deltas.push(100.0 * (v / b - 1.0)),
                    None => skipped += 1,
                }
            }
            let deltas = sorted_finite(deltas);
            any_pair |= !deltas.is_empty();
            curves.push(PairedCurve {
                arm: (*arm).clone(),
                deltas_pct: deltas,
            });
        }
        panels.push(PairedPanel {
            facet: facet.clone(),
            curves,
        });
    }
    if !any_pair {
        return Err(Error::Data(format!(
            "paired view: no {} value occurs in both the baseline and another arm",
            opts.pair_keys.join(",")
        )));
    }
    Ok(PairedResult {
        baseline: opts.baseline.clone(),
        arms,
        facet: opts.facet.clone(),
        pair_keys: opts.pair_keys.clone(),
        panels,
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ab::test_records as recs;

    #[test]
    fn duplicate_pair_key_is_an_error() {
        let rs = recs(&[
            "{\"group\":\"base\",\"ttlb\":1,\"seed\":1}".to_string(),
            "{\"group\":\"x\",\"ttlb\":1,\"seed\":1}".to_string(),
            "{\"group\":\"x\",\"ttlb\":2,\"seed\":1}".to_string(),
        ]);
        let e = paired_deltas(&rs, &AbOptions::new("base"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("occurs twice") && e.contains("line 3"), "{e}");
    }
}
