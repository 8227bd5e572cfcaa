//! A/B analysis of stats records: percentile-versus-Δ curves with bootstrap
//! bands, and paired per-connection deltas.
//!
//! For each percentile p in 1…99, Δ(p) = 100·(Q_arm(p)/Q_baseline(p) − 1),
//! so −10 means the arm's p-th percentile TTLB is 10 % shorter. Q is the
//! linear-interpolation percentile of [`crate::quantile`]. The band is the
//! percentile bootstrap: each arm and the baseline are resampled
//! independently (connections are the unit), Δ(p) recomputed, and the
//! (1−level)/2 and (1+level)/2 quantiles of the replicates taken. The
//! resampling generator is seeded from the options' seed and the names of
//! facet and arm, so a chart is identical on every run.

use crate::bootstrap::{percentile_interval, resample_quantiles, Bootstrap, SplitMix64};
use crate::error::{Error, Result};
use crate::quantile::{quantile_sorted, sorted_finite};
use crate::record::Record;
use crate::units::format_bytes;
use std::collections::BTreeMap;

/// How to split records into facets (small multiples).
#[derive(Debug, Clone, PartialEq)]
pub enum Facet {
    /// One panel for everything.
    None,
    /// One panel per value of a record key (e.g. `pop`).
    Key(String),
    /// One panel per object-size bin of `content_length`; the edges are
    /// bin boundaries in bytes, ascending.
    SizeBins(Vec<f64>),
}

impl Facet {
    /// Decade size bins: < 10 KB, 10–100 KB, 100 KB–1 MB, 1–10 MB, ≥ 10 MB.
    pub fn decade_size_bins() -> Facet {
        Facet::SizeBins(vec![1e4, 1e5, 1e6, 1e7])
    }

    /// Parses a `--by` value: `size` (decade bins), `size:200000,400000,…`
    /// (explicit edges in bytes), or any record key.
    pub fn parse(spec: &str) -> Result<Facet> {
        if spec == "size" {
            return Ok(Facet::decade_size_bins());
        }
        if let Some(edges) = spec.strip_prefix("size:") {
            let mut v = Vec::new();
            for e in edges.split(',') {
                let x: f64 = e.trim().parse().map_err(|_| {
                    Error::Data(format!("--by size:…: `{e}` is not a number of bytes"))
                })?;
                v.push(x);
            }
            if v.is_empty() || v.windows(2).any(|w| w[0] >= w[1]) {
                return Err(Error::Data(
                    "--by size:…: bin edges must be ascending".to_string(),
                ));
            }
            return Ok(Facet::SizeBins(v));
        }
        Ok(Facet::Key(spec.to_string()))
    }

    /// The facet of a record as (sort key, label), or `None` if it has none.
    fn of(&self, r: &Record) -> Option<(u64, String)> {
        match self {
            Facet::None => Some((0, String::new())),
            Facet::Key(k) => r.text(k).map(|v| (0, v)),
            Facet::SizeBins(edges) => {
                let size = r.f64("content_length")?;
                let i = edges.iter().take_while(|&&e| size >= e).count();
                let label = if i == 0 {
                    format!("< {}", format_bytes(edges[0]))
                } else if i == edges.len() {
                    format!("≥ {}", format_bytes(edges[i - 1]))
                } else {
                    format!(
                        "{} – {}",
                        format_bytes(edges[i - 1]),
                        format_bytes(edges[i])
                    )
                };
                Some((i as u64, label))
            }
        }
    }

    /// A name for titles, e.g. `pop` or `object size`.
    pub fn describe(&self) -> String {
        match self {
            Facet::None => String::new(),
            Facet::Key(k) => k.clone(),
            Facet::SizeBins(_) => "object size".to_string(),
        }
    }
}

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

/// One point of an A/B curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AbPoint {
    /// Percentile, 1…99.
    pub percentile: f64,
    /// Δ in percent: 100·(Q_arm/Q_baseline − 1).
    pub delta_pct: f64,
    /// Lower end of the bootstrap band, percent.
    pub lo_pct: f64,
    /// Upper end of the bootstrap band, percent.
    pub hi_pct: f64,
}

/// One arm's curve against the baseline in one facet.
#[derive(Debug, Clone, PartialEq)]
pub struct AbCurve {
    /// Arm name.
    pub arm: String,
    /// Connections in this arm (and facet).
    pub n: usize,
    /// Points for p = 1…99.
    pub points: Vec<AbPoint>,
}

impl AbCurve {
    /// Δ at the median.
    pub fn median_delta_pct(&self) -> Option<f64> {
        self.points
            .iter()
            .find(|p| p.percentile == 50.0)
            .map(|p| p.delta_pct)
    }
}

/// One facet: all arms against its baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct AbPanel {
    /// Facet label (empty without faceting).
    pub facet: String,
    /// Connections in the baseline arm.
    pub baseline_n: usize,
    /// One curve per non-baseline arm, in name order.
    pub curves: Vec<AbCurve>,
}

/// The A/B analysis of a record set.
#[derive(Debug, Clone, PartialEq)]
pub struct AbResult {
    /// Baseline arm name.
    pub baseline: String,
    /// All arm names (baseline included), sorted; colours follow this order.
    pub arms: Vec<String>,
    /// Faceting used.
    pub facet: Facet,
    /// Panels in facet order.
    pub panels: Vec<AbPanel>,
    /// Records skipped for lacking the arm key, a TTLB or the facet key.
    pub skipped: usize,
}

/// A stable 64-bit hash (FNV-1a) for seeding per-curve generators.
fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain(std::iter::once(0xff)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
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
}

impl AbSamples {
    fn push(&mut self, r: &Record, opts: &AbOptions) {
        let (Some(arm), Some(ttlb_ms), Some(facet)) =
            (r.text(&opts.arm_key), r.ttlb_ms(), opts.facet.of(r))
        else {
            self.skipped += 1;
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

    /// Extracts samples from records in memory.
    pub fn from_records(records: &[Record], opts: &AbOptions) -> AbSamples {
        let mut out = AbSamples::default();
        for r in records {
            out.push(r, opts);
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

type Groups = BTreeMap<(u64, String), BTreeMap<String, Vec<(f64, usize)>>>;

/// Groups TTLBs (ms) by facet and arm; values keep their sample index.
fn group(samples: &AbSamples) -> (Groups, Vec<String>) {
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

fn check_baseline(arms: &[String], opts: &AbOptions) -> Result<()> {
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

/// Computes the percentile-versus-Δ curves, one panel per facet.
/// Facets without baseline records are left out.
pub fn ab_curves(records: &[Record], opts: &AbOptions) -> Result<AbResult> {
    ab_curves_of(&AbSamples::from_records(records, opts), opts)
}

/// [`ab_curves`] on extracted samples (e.g. from [`AbSamples::read`]).
pub fn ab_curves_of(samples: &AbSamples, opts: &AbOptions) -> Result<AbResult> {
    let (groups, arms) = group(samples);
    let skipped = samples.skipped;
    check_baseline(&arms, opts)?;
    let probs: Vec<f64> = (1..=99).map(|p| f64::from(p) / 100.0).collect();
    let bs = opts.bootstrap;
    let mut panels = Vec::new();
    for ((_, facet), by_arm) in &groups {
        let Some(base) = by_arm.get(&opts.baseline) else {
            continue;
        };
        let base = sorted_finite(base.iter().map(|v| v.0));
        let base_q: Vec<f64> = probs
            .iter()
            .map(|&p| quantile_sorted(&base, p).unwrap_or(f64::NAN))
            .collect();
        let mut curves = Vec::new();
        for (arm, values) in by_arm {
            if *arm == opts.baseline {
                continue;
            }
            let xs = sorted_finite(values.iter().map(|v| v.0));
            let delta = |q_arm: f64, q_base: f64| 100.0 * (q_arm / q_base - 1.0);
            let est: Vec<f64> = probs
                .iter()
                .zip(&base_q)
                .map(|(&p, &qb)| delta(quantile_sorted(&xs, p).unwrap_or(f64::NAN), qb))
                .collect();
            // Replicates, one row per percentile.
            let mut reps: Vec<Vec<f64>> = vec![Vec::with_capacity(bs.resamples); probs.len()];
            let mut rng = SplitMix64::new(bs.seed ^ fnv1a(&[facet, arm, &opts.baseline]));
            let (mut counts, mut qa, mut qb) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..bs.resamples {
                resample_quantiles(&xs, &probs, &mut rng, &mut counts, &mut qa);
                resample_quantiles(&base, &probs, &mut rng, &mut counts, &mut qb);
                for (k, row) in reps.iter_mut().enumerate() {
                    let d = delta(qa[k], qb[k]);
                    if d.is_finite() {
                        row.push(d);
                    }
                }
            }
            let points = probs
                .iter()
                .zip(est)
                .zip(reps.iter_mut())
                .map(|((&p, d), row)| {
                    let (lo, hi) = percentile_interval(row, bs.level).unwrap_or((d, d));
                    AbPoint {
                        percentile: p * 100.0,
                        delta_pct: d,
                        lo_pct: lo,
                        hi_pct: hi,
                    }
                })
                .collect();
            curves.push(AbCurve {
                arm: arm.clone(),
                n: xs.len(),
                points,
            });
        }
        panels.push(AbPanel {
            facet: facet.clone(),
            baseline_n: base.len(),
            curves,
        });
    }
    Ok(AbResult {
        baseline: opts.baseline.clone(),
        arms,
        facet: opts.facet.clone(),
        panels,
        skipped,
    })
}

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
    check_baseline(&arms, opts)?;
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
    use crate::record::parse_records;

    fn recs(lines: &[String]) -> Vec<Record> {
        parse_records(&lines.join("\n"), "t").unwrap()
    }

    #[test]
    fn constant_ratio_gives_constant_delta_and_tight_band() {
        // Arm B is exactly 20 % faster on every path: Δ(p) = −20 at every p,
        // and every resample of a 0.8-scaled copy gives the same Δ only when
        // the same indices are drawn — so the band must contain −20.
        let mut lines = Vec::new();
        for i in 1..=200 {
            let t = 100.0 + f64::from(i);
            lines.push(format!("{{\"group\":\"base\",\"ttlb\":{t},\"seed\":{i}}}"));
            lines.push(format!(
                "{{\"group\":\"b\",\"ttlb\":{},\"seed\":{i}}}",
                t * 0.8
            ));
        }
        let r = ab_curves(&recs(&lines), &AbOptions::new("base")).unwrap();
        assert_eq!(r.panels.len(), 1);
        let c = &r.panels[0].curves[0];
        assert_eq!(
            (c.arm.as_str(), c.n, r.panels[0].baseline_n),
            ("b", 200, 200)
        );
        for p in &c.points {
            assert!((p.delta_pct + 20.0).abs() < 1e-9, "{p:?}");
            assert!(
                p.lo_pct <= -20.0 + 1e-9 && p.hi_pct >= -20.0 - 1e-9,
                "{p:?}"
            );
        }
        let paired = paired_deltas(&recs(&lines), &AbOptions::new("base")).unwrap();
        let d = &paired.panels[0].curves[0].deltas_pct;
        assert_eq!(d.len(), 200);
        assert!(d.iter().all(|x| (x + 20.0).abs() < 1e-9));
    }

    #[test]
    fn hand_computed_delta() {
        // base ttlb 10,20,30,40,50; arm 12,22,33,44,60.
        // p = 50: Q_base = 30, Q_arm = 33 → Δ = +10 %.
        // p = 25: h = 1 → 20 vs 22 → +10 %. p = 90: h = 3.6 →
        // base 40 + 0.6·10 = 46, arm 44 + 0.6·16 = 53.6 → Δ = 16.521…%.
        let mut lines = Vec::new();
        for (b, a) in [(10, 12), (20, 22), (30, 33), (40, 44), (50, 60)] {
            lines.push(format!("{{\"group\":\"base\",\"ttlb\":{b}}}"));
            lines.push(format!("{{\"group\":\"x\",\"ttlb\":{a}}}"));
        }
        let r = ab_curves(&recs(&lines), &AbOptions::new("base")).unwrap();
        let pts = &r.panels[0].curves[0].points;
        let at = |p: f64| pts.iter().find(|q| q.percentile == p).unwrap().delta_pct;
        assert!((at(50.0) - 10.0).abs() < 1e-9);
        assert!((at(25.0) - 10.0).abs() < 1e-9);
        assert!((at(90.0) - (100.0 * (53.6 / 46.0 - 1.0))).abs() < 1e-9);
    }

    #[test]
    fn band_is_deterministic_for_a_seed_and_moves_with_it() {
        let mut lines = Vec::new();
        for i in 0..300u64 {
            let t = 50 + (i * 7919) % 400;
            lines.push(format!("{{\"group\":\"base\",\"ttlb\":{t}}}"));
            lines.push(format!("{{\"group\":\"x\",\"ttlb\":{}}}", t + (i % 13)));
        }
        let rs = recs(&lines);
        let opts = AbOptions::new("base");
        let a = ab_curves(&rs, &opts).unwrap();
        let b = ab_curves(&rs, &opts).unwrap();
        assert_eq!(a, b);
        let mut other = opts.clone();
        other.bootstrap.seed = 7;
        let c = ab_curves(&rs, &other).unwrap();
        assert_ne!(a, c);
        // The estimate does not depend on the seed, only the band does.
        let est = |r: &AbResult| -> Vec<f64> {
            r.panels[0].curves[0]
                .points
                .iter()
                .map(|p| p.delta_pct)
                .collect()
        };
        assert_eq!(est(&a), est(&c));
    }

    #[test]
    fn facets_by_key_and_size_bin() {
        let mut lines = Vec::new();
        for (pop, size) in [("ams", 5_000), ("nrt", 50_000), ("ams", 2_000_000)] {
            for arm in ["base", "x"] {
                lines.push(format!(
                    "{{\"group\":\"{arm}\",\"ttlb\":10,\"pop\":\"{pop}\",\"content_length\":{size}}}"
                ));
            }
        }
        let rs = recs(&lines);
        let mut o = AbOptions::new("base");
        o.facet = Facet::Key("pop".into());
        let r = ab_curves(&rs, &o).unwrap();
        let names: Vec<_> = r.panels.iter().map(|p| p.facet.as_str()).collect();
        assert_eq!(names, ["ams", "nrt"]);
        o.facet = Facet::decade_size_bins();
        let r = ab_curves(&rs, &o).unwrap();
        let names: Vec<_> = r.panels.iter().map(|p| p.facet.as_str()).collect();
        assert_eq!(names, ["< 10 KB", "10 KB – 100 KB", "1 MB – 10 MB"]);
        assert_eq!(
            Facet::parse("size:1,2").unwrap(),
            Facet::SizeBins(vec![1.0, 2.0])
        );
        assert!(Facet::parse("size:2,1").is_err());
    }

    #[test]
    fn missing_baseline_is_an_error_listing_arms() {
        let rs = recs(&["{\"group\":\"a\",\"ttlb\":1}".to_string()]);
        let e = ab_curves(&rs, &AbOptions::new("base"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("baseline") && e.contains("arms found: a"), "{e}");
    }

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

    #[test]
    fn streaming_read_matches_in_memory_and_names_bad_lines() {
        let dir = std::env::temp_dir().join(format!("ramp-plot-ab-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("r.ndjson");
        let text = "{\"group\":\"base\",\"ttlb\":10,\"seed\":1}\n\n{\"group\":\"x\",\"ttlb-us\":9000,\"seed\":1}\n{\"ttlb\":1}\n";
        std::fs::write(&p, text).unwrap();
        let o = AbOptions::new("base");
        let streamed = AbSamples::read(&p, &o).unwrap();
        let in_memory = AbSamples::from_records(&parse_records(text, "r").unwrap(), &o);
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
