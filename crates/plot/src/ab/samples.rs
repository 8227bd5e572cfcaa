//! What the A/B analysis reads of each record (arm, TTLB, facet, path
//! identity), so that production logs of millions of lines fit in memory;
//! and the grouping of samples by facet and arm.

use super::facet::Facet;
use crate::bootstrap::Bootstrap;
use crate::error::{Error, Result};
use crate::record::Record;
use std::borrow::Borrow;
use std::collections::BTreeMap;

/// Options of the A/B analysis.
#[derive(Debug, Clone, PartialEq)]
pub struct AbOptions {
    /// The baseline arm's name.
    pub baseline: String,
    /// The record key naming the arm (`group` in docs/formats.md).
    pub arm_key: String,
    /// Faceting.
    pub facet: Facet,
    /// Bootstrap settings for the band.
    pub bootstrap: Bootstrap,
    /// Keys identifying a path, for the paired view (default `seed`).
    pub pair_keys: Vec<String>,
}

impl AbOptions {
    /// Defaults: arm key `group`, no facets, 400 resamples, 95 %, pairs by `seed`.
    pub fn new(baseline: &str) -> Self {
        AbOptions {
            baseline: baseline.to_string(),
            arm_key: "group".to_string(),
            facet: Facet::None,
            bootstrap: Bootstrap::default(),
            pair_keys: vec!["seed".to_string()],
        }
    }
}

/// The fields of one record the A/B analysis uses.
#[derive(Debug, Clone, PartialEq)]
pub struct AbSample {
    /// Arm name.
    pub arm: String,
    /// TTLB in ms ([`Record::ttlb_ms`]).
    pub ttlb_ms: f64,
    /// Facet as (sort key, label).
    pub facet: (u64, String),
    /// Path identity for pairing (the pair keys' values joined by `/`).
    pub pair: Option<String>,
    /// Line in the source file (0 if none).
    pub line: usize,
}

/// The A/B samples of a record set, keeping only what the charts need, so
/// that production logs of millions of lines fit in memory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AbSamples {
    /// Usable samples, in input order.
    pub samples: Vec<AbSample>,
    /// Records without the arm key, a TTLB or the facet key.
    pub skipped: usize,
    /// Of those, the records without the arm key, and those with it but
    /// without the facet key.
    pub lacking_arm: usize,
    /// See [`AbSamples::lacking_arm`].
    pub lacking_facet: usize,
    /// The keys of the first skipped record, to name what a misspelt
    /// `--by` or `--arm-key` could have meant.
    pub keys_seen: Vec<String>,
}

impl AbSamples {
    fn push(&mut self, r: &Record, opts: &AbOptions) {
        let (arm, facet) = (r.text(&opts.arm_key), opts.facet.of(r));
        let (Some(arm), Some(ttlb_ms), Some(facet)) = (arm.clone(), r.ttlb_ms(), facet.clone())
        else {
            self.skipped += 1;
            if arm.is_none() {
                self.lacking_arm += 1;
            } else if facet.is_none() {
                self.lacking_facet += 1;
            }
            if self.keys_seen.is_empty() {
                self.keys_seen = r.fields().keys().cloned().collect();
            }
            return;
        };
        let pair: Option<Vec<String>> = opts.pair_keys.iter().map(|k| r.text(k)).collect();
        self.samples.push(AbSample {
            arm,
            ttlb_ms,
            facet,
            pair: pair.map(|p| p.join("/")),
            line: r.line(),
        });
    }

    /// Extracts samples from records (a slice, or records made one at a
    /// time and dropped after).
    pub fn from_records(
        records: impl IntoIterator<Item = impl Borrow<Record>>,
        opts: &AbOptions,
    ) -> AbSamples {
        let mut out = AbSamples::default();
        for r in records {
            out.push(r.borrow(), opts);
        }
        out
    }

    /// Streams an NDJSON records file, keeping only the samples. Errors
    /// name the file and line.
    pub fn read(path: &std::path::Path, opts: &AbOptions) -> Result<AbSamples> {
        let mut out = AbSamples::default();
        crate::record::for_each_record(path, |r| {
            out.push(&r, opts);
            Ok(())
        })?;
        Ok(out)
    }
}

pub(crate) type Groups = BTreeMap<(u64, String), BTreeMap<String, Vec<(f64, usize)>>>;

/// Groups TTLBs (ms) by facet and arm; values keep their sample index.
pub(crate) fn group(samples: &AbSamples) -> (Groups, Vec<String>) {
    let mut groups: Groups = BTreeMap::new();
    let mut arms = std::collections::BTreeSet::new();
    for (i, s) in samples.samples.iter().enumerate() {
        arms.insert(s.arm.clone());
        groups
            .entry(s.facet.clone())
            .or_default()
            .entry(s.arm.clone())
            .or_default()
            .push((s.ttlb_ms, i));
    }
    (groups, arms.into_iter().collect())
}

/// Checks that the baseline arm has records. When no record was usable at
/// all, says which key every record lacked (a misspelt `--by` or
/// `--arm-key`), not that the baseline is missing.
pub(crate) fn check_baseline(samples: &AbSamples, arms: &[String], opts: &AbOptions) -> Result<()> {
    let keys = || {
        if samples.keys_seen.is_empty() {
            "none".to_string()
        } else {
            samples.keys_seen.join(", ")
        }
    };
    if arms.is_empty() && samples.lacking_facet > 0 {
        if let Facet::Key(k) = &opts.facet {
            return Err(Error::Data(format!(
                "--by {k}: no record has the key `{k}` (the records' keys: {})",
                keys()
            )));
        }
        if let Facet::SizeBins(_) = &opts.facet {
            return Err(Error::Data(format!(
                "--by size: no record has `content_length` (the records' keys: {})",
                keys()
            )));
        }
    }
    if arms.is_empty() && samples.lacking_arm > 0 && samples.lacking_arm == samples.skipped {
        return Err(Error::Data(format!(
            "no record has the arm key `{}` (--arm-key; the records' keys: {})",
            opts.arm_key,
            keys()
        )));
    }
    if arms.contains(&opts.baseline) {
        Ok(())
    } else {
        Err(Error::Data(format!(
            "no record has {}=\"{}\" (the baseline); arms found: {}",
            opts.arm_key,
            opts.baseline,
            if arms.is_empty() {
                "none".to_string()
            } else {
                arms.join(", ")
            }
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_records;

    #[test]
    fn streaming_read_matches_in_memory_and_names_bad_lines() {
        let dir = std::env::temp_dir().join(format!("ramp-plot-ab-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("r.ndjson");
        let text = "{\"group\":\"base\",\"ttlb\":10,\"seed\":1}\n\n{\"group\":\"x\",\"ttlb-us\":9000,\"seed\":1}\n{\"ttlb\":1}\n";
        std::fs::write(&p, text).unwrap();
        let o = AbOptions::new("base");
        let streamed = AbSamples::read(&p, &o).unwrap();
        let in_memory = AbSamples::from_records(parse_records(text, "r").unwrap(), &o);
        assert_eq!(streamed, in_memory);
        assert_eq!(streamed.skipped, 1);
        assert_eq!(streamed.samples[1].line, 3);
        assert_eq!(streamed.samples[1].ttlb_ms, 9.0);
        std::fs::write(&p, "{\"group\":\"base\",\"ttlb\":10}\n{\"group\":").unwrap();
        let e = AbSamples::read(&p, &o).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{}:2: invalid JSON", p.display())),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
