//! The sampling uncertainty of the fleet summary's headline statistics: a
//! seeded Poisson bootstrap over connections, computed while the summary
//! streams (docs/experiments.md, "Sampling uncertainty of the headline").
//!
//! A bootstrap replicate resamples connections with replacement. The
//! Poisson bootstrap gives each connection an independent Poisson(1)
//! count per replicate instead of drawing N connections from N (Hanley and
//! MacGibbon, "Creating non-parametric bootstrap samples using Poisson
//! frequencies", Computer Methods and Programs in Biomedicine 83(1), 2006;
//! Chamandy et al., "Estimating uncertainty for massive data streams",
//! Google, 2012): a connection's counts depend only on its index, so they
//! can be drawn again wherever its values are read, in any order, on any
//! shard, and no per-connection state is kept. A connection's count is the
//! same in every arm, so each replicate stays paired (the same paths in
//! every arm), as the statistics are.
//!
//! Each replicate's statistics are computed exactly as the summary's own
//! (type-7 percentiles of the replicate's multiset, the mean as the sum in
//! ascending order), from one pass over the sorted values that keeps only
//! the order statistics each replicate's percentiles read. The interval is
//! the standard bootstrap interval, estimate ± z(0.975) × the replicates'
//! standard deviation (Efron and Tibshirani, "An Introduction to the
//! Bootstrap", 1993, §6.4: 200 replicates estimate a standard error
//! well; a percentile interval would want 1,000 or more).

pub(crate) mod cache;
pub(crate) mod pipe;

use std::rc::Rc;

use ramp_vocab::quantile::{quantile_indices, quantile_with};
use ramp_vocab::rng::Rng;

use super::summary::{whole_percentiles, ConfidenceInterval, DELTA_PERCENTILES};

/// Bootstrap replicates.
pub const REPLICATES: usize = 200;

/// The bootstrap's fixed seed: every summary of the same records draws
/// the same replicates.
pub const SEED: u64 = 0xB007_5EED_F1EE_7001;

/// Slices with fewer paired connections get no interval: a bootstrap of a
/// handful of values undercovers badly (one connection would give an
/// interval of width zero), and a region or bin that small is read as
/// anecdote anyway. A judgement, not a sourced figure.
pub const MIN_CONNECTIONS: usize = 10;

/// z(0.975), the standard normal quantile of a two-sided 95 % interval.
const Z_975: f64 = 1.959_963_984_540_054;

/// Poisson(1) counts are capped here (P(count > 15) < 1e-13).
const MAX_COUNT: usize = 15;

/// Each replicate's count of one connection.
pub type Counts = [u8; REPLICATES];

/// A draw's top bits index [`Poisson1`]'s table of counts.
const TABLE_BITS: u32 = 12;

/// A table entry whose range of draws holds a threshold: the count is
/// found by comparing with the thresholds.
const SEARCH: u8 = u8::MAX;

/// Draws Poisson(1) counts by inversion of the CDF, held as 64-bit
/// thresholds so that a draw is one integer compare per step, and looked
/// up by a draw's top bits where that decides the count.
pub struct Poisson1 {
    cdf: [u64; MAX_COUNT],
    /// The count of every draw whose top `TABLE_BITS` bits are the
    /// index, or `SEARCH` where a threshold lies in that range (7 of
    /// the 4,096 ranges, so about 0.2 % of draws compare).
    table: [u8; 1 << TABLE_BITS],
}

impl Default for Poisson1 {
    fn default() -> Self {
        Poisson1::new()
    }
}

impl Poisson1 {
    /// The sampler (its CDF thresholds).
    pub fn new() -> Poisson1 {
        // e^-1 as a literal (a library exp may differ in the last bit
        // between platforms); the rest is IEEE arithmetic, the same
        // everywhere.
        let mut p = 0.367_879_441_171_442_33_f64;
        let mut acc = 0.0;
        let mut cdf = [u64::MAX; MAX_COUNT];
        for (k, c) in cdf.iter_mut().enumerate() {
            acc += p;
            *c = (acc * 18_446_744_073_709_551_616.0).min(u64::MAX as f64) as u64;
            p /= (k + 1) as f64;
        }
        // The count grows with the draw, so a range whose lowest and
        // highest draws have the same count has it throughout.
        let count = |u: u64| cdf.iter().take_while(|&&t| u >= t).count() as u8;
        let mut table = [SEARCH; 1 << TABLE_BITS];
        for (i, e) in table.iter_mut().enumerate() {
            let lo = (i as u64) << (64 - TABLE_BITS);
            let hi = lo | (u64::MAX >> TABLE_BITS);
            if count(lo) == count(hi) {
                *e = count(lo);
            }
        }
        Poisson1 { cdf, table }
    }

    /// Connection `conn`'s count in every replicate: a function of `conn`
    /// and [`SEED`] only.
    pub fn counts(&self, conn: u64, out: &mut Counts) {
        let mut rng = Rng::from_u64(SEED ^ conn.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        // The count is the number of thresholds at or below the draw (the
        // thresholds ascend). The counts are random, so a search that
        // stops at the first threshold above the draw would mispredict
        // about every other draw: the draw's top bits look the count up
        // instead (one load, a branch taken about once in 500 draws), and
        // only draws next to a threshold compare.
        for c in out.iter_mut() {
            *c = self.count(rng.next_u64());
        }
    }

    /// The count of draw `u`: the number of thresholds at or below it.
    #[inline(always)]
    fn count(&self, u: u64) -> u8 {
        let k = self.table[(u >> (64 - TABLE_BITS)) as usize];
        if k != SEARCH {
            k
        } else {
            self.count_from(0, u)
        }
    }

    /// The number of thresholds at or below `u`, knowing the first
    /// `from` are.
    fn count_from(&self, from: usize, u: u64) -> u8 {
        (from + self.cdf[from..].iter().take_while(|&&t| u >= t).count()) as u8
    }
}

/// The statistics of one replicate of one series (one arm in one slice):
/// its mean and its values at p1 … p99.
#[derive(Clone)]
pub(crate) struct ReplicateStats {
    mean: f64,
    whole: Vec<f64>,
}

/// Where one percentile of a replicate lies among the order statistics
/// it keeps: the positions in its `need` list of the two neighbours
/// (`hi` when between two) and how far between ([`quantile_with`]'s
/// `frac`).
#[derive(Clone, Copy)]
struct Pick {
    lo: usize,
    hi: Option<usize>,
    frac: f64,
}

/// What one replicate's percentiles read, a function of its total alone:
/// the order statistics, and where each percentile lies among them.
struct ReplicatePlan {
    /// Resampled values (sum of counts) in the series.
    total: u64,
    /// The order statistics the percentiles read, ascending.
    need: Vec<usize>,
    /// p1 … p99 ([`whole_percentiles`]); empty when `total` is 0.
    picks: Vec<Pick>,
}

impl ReplicatePlan {
    fn new(total: u64) -> ReplicatePlan {
        let n = usize::try_from(total).unwrap_or(usize::MAX);
        // A plain loop: the filter_map/flat_map chain it replaces
        // counted about 50 000 instructions a replicate.
        let mut need = Vec::with_capacity(2 * 99);
        let mut places = Vec::with_capacity(99);
        for p in whole_percentiles() {
            if let Some((lo, hi)) = quantile_indices(n, p / 100.0) {
                need.push(lo);
                need.extend(hi);
                // `quantile_with` of 0 at `lo` and 1 at `hi` is exactly its
                // `frac` (frac × (1 − 0) = frac).
                let frac = quantile_with(n, p / 100.0, |i| if i == lo { 0.0 } else { 1.0 });
                places.push((lo, hi, frac.unwrap_or(0.0)));
            }
        }
        need.sort_unstable();
        need.dedup();
        let pos = |i: usize| need.binary_search(&i).unwrap_or(usize::MAX);
        let picks = places
            .iter()
            .map(|&(lo, hi, frac)| Pick {
                lo: pos(lo),
                hi: hi.map(pos),
                frac,
            })
            .collect();
        ReplicatePlan { total, need, picks }
    }

    /// The order statistic after the first `kept`.
    fn next(&self, kept: usize) -> u64 {
        self.need.get(kept).map_or(u64::MAX, |&i| i as u64)
    }
}

/// Every replicate's plan for the series of one slice: the arms of a
/// slice have the same totals (the counts are the connection's in every
/// arm), so their plans are made once.
pub(crate) struct BootPlan {
    replicates: Vec<ReplicatePlan>,
}

impl BootPlan {
    /// The plans of a slice whose connections' counts sum to `totals` per
    /// replicate.
    pub(crate) fn new(totals: &[u64]) -> BootPlan {
        BootPlan {
            replicates: totals.iter().map(|&t| ReplicatePlan::new(t)).collect(),
        }
    }
}

/// One replicate's running state in a series' pass, touched by every
/// value (the values kept are in [`SeriesBoot::kept`]).
#[derive(Clone, Copy)]
struct Running {
    /// Values seen so far, with their counts.
    seen: u64,
    /// The next order statistic to keep (`need[kept.len()]` of the
    /// replicate's plan), `u64::MAX` when all are kept.
    next: u64,
    /// Sum of count × value in ascending value order.
    sum: f64,
}

/// One series' replicates, fed its values in ascending order.
pub(crate) struct SeriesBoot {
    plan: Rc<BootPlan>,
    running: Vec<Running>,
    /// Per replicate, the values at its plan's `need`, filled in order
    /// (touched only when one is reached).
    kept: Vec<Vec<f64>>,
}

/// `sum` plus `c` copies of `v`, added one at a time as the sum of the
/// replicate's sorted multiset is (c × v can differ from v + v + v in the
/// last bit). The counts are random, so the usual 0–3 copies are
/// selected without a branch.
#[inline]
fn add_copies(sum: f64, v: f64, c: u8) -> f64 {
    let s1 = sum + v;
    let s2 = s1 + v;
    let s3 = s2 + v;
    let mut s = [sum, s1, s2, s3][usize::from(c.min(3))];
    for _ in 3..c {
        s += v;
    }
    s
}

impl SeriesBoot {
    /// A series of a slice with `plan` (its replicates' totals).
    pub(crate) fn new(plan: Rc<BootPlan>) -> SeriesBoot {
        let running = plan
            .replicates
            .iter()
            .map(|r| Running {
                seen: 0,
                next: r.next(0),
                sum: 0.0,
            })
            .collect();
        let kept = plan
            .replicates
            .iter()
            .map(|r| Vec::with_capacity(r.need.len()))
            .collect();
        SeriesBoot {
            plan,
            running,
            kept,
        }
    }

    /// The next value (ascending) of a connection with `counts`.
    pub(crate) fn add(&mut self, v: f64, counts: &Counts) {
        let plans = &self.plan.replicates;
        for (((r, k), p), &c) in self
            .running
            .iter_mut()
            .zip(&mut self.kept)
            .zip(plans)
            .zip(counts)
        {
            r.seen += u64::from(c);
            r.sum = add_copies(r.sum, v, c);
            while r.next < r.seen {
                k.push(v);
                r.next = p.next(k.len());
            }
        }
    }

    /// Each replicate's mean and percentiles: each percentile reads its
    /// plan's two order statistics and interpolates as [`quantile_with`]
    /// does.
    pub(crate) fn finish(self) -> Vec<ReplicateStats> {
        let plans = &self.plan.replicates;
        self.kept
            .iter()
            .zip(&self.running)
            .zip(plans)
            .map(|((at, run), plan)| {
                let at = |k: usize| at.get(k).copied().unwrap_or(f64::NAN);
                let whole = if plan.picks.is_empty() {
                    vec![f64::NAN; whole_percentiles().count()]
                } else {
                    plan.picks
                        .iter()
                        .map(|p| {
                            let a = at(p.lo);
                            match p.hi {
                                Some(hi) => a + p.frac * (at(hi) - a),
                                None => a,
                            }
                        })
                        .collect()
                };
                ReplicateStats {
                    mean: if plan.total == 0 {
                        f64::NAN
                    } else {
                        run.sum / plan.total as f64
                    },
                    whole,
                }
            })
            .collect()
    }
}

/// The bootstrap standard errors of an arm's four headline statistics
/// against the baseline (ten-point average, 1–99 average, change of the
/// mean, change of the median), from both series' replicates. `change`
/// and `mean` are the summary's own.
pub(crate) fn standard_errors(
    arm: &[ReplicateStats],
    base: &[ReplicateStats],
    change: fn(f64, f64) -> f64,
    mean: fn(&[f64]) -> f64,
) -> [f64; 4] {
    let mut stats: [Vec<f64>; 4] = Default::default();
    for (a, b) in arm.iter().zip(base) {
        let at = |r: &ReplicateStats, p: f64| r.whole[p as usize - 1];
        let ten: Vec<f64> = DELTA_PERCENTILES
            .iter()
            .map(|&p| change(at(a, p), at(b, p)))
            .collect();
        let whole: Vec<f64> = a
            .whole
            .iter()
            .zip(&b.whole)
            .map(|(x, y)| change(*x, *y))
            .collect();
        let v = [
            mean(&ten),
            mean(&whole),
            change(a.mean, b.mean),
            change(at(a, 50.0), at(b, 50.0)),
        ];
        for (s, x) in stats.iter_mut().zip(v) {
            if x.is_finite() {
                s.push(x);
            }
        }
    }
    stats.map(|s| sd(&s))
}

/// Sample standard deviation (n − 1), NaN below two values.
fn sd(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return f64::NAN;
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
}

/// The standard 95 % interval of `estimate` with bootstrap standard error
/// `se` (NaN bounds when either is not finite).
pub(crate) fn interval(estimate: f64, se: f64) -> ConfidenceInterval {
    if estimate.is_finite() && se.is_finite() {
        ConfidenceInterval {
            lo: estimate - Z_975 * se,
            hi: estimate + Z_975 * se,
        }
    } else {
        ConfidenceInterval::NONE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_counts_have_mean_and_variance_one_and_are_a_function_of_the_connection() {
        let p = Poisson1::new();
        let mut c = [0u8; REPLICATES];
        let (mut s, mut s2, mut n) = (0.0, 0.0, 0.0);
        for conn in 0..500 {
            p.counts(conn, &mut c);
            for &x in &c {
                s += f64::from(x);
                s2 += f64::from(x) * f64::from(x);
                n += 1.0;
            }
        }
        let m = s / n;
        let var = s2 / n - m * m;
        assert!((m - 1.0).abs() < 0.01, "{m}");
        assert!((var - 1.0).abs() < 0.02, "{var}");
        let mut a = [0u8; REPLICATES];
        let mut b = [0u8; REPLICATES];
        p.counts(7, &mut a);
        p.counts(7, &mut b);
        assert_eq!(a, b);
        p.counts(8, &mut b);
        assert_ne!(a, b);
    }

    #[test]
    fn looked_up_counts_equal_the_threshold_search() {
        // The reference: the first threshold above the draw, searched.
        let p = Poisson1::new();
        let search = |u: u64| p.cdf.iter().take_while(|&&t| u >= t).count() as u8;
        let mut c = [0u8; REPLICATES];
        let (mut tail, mut searched) = (0, 0);
        for conn in 0..2_000 {
            p.counts(conn, &mut c);
            let mut rng = Rng::from_u64(SEED ^ conn.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            for &k in &c {
                let u = rng.next_u64();
                assert_eq!(k, search(u), "connection {conn}");
                tail += usize::from(k >= 4);
                searched += usize::from(p.table[(u >> (64 - TABLE_BITS)) as usize] == SEARCH);
            }
        }
        assert!(tail > 1_000, "counts past four are exercised ({tail})");
        assert!(
            searched > 100,
            "draws next to a threshold are exercised ({searched})"
        );
        // Every range's first and last draw, and the draws at and next to
        // every threshold.
        let ranges = (0..1u64 << TABLE_BITS).flat_map(|i| {
            let lo = i << (64 - TABLE_BITS);
            [lo, lo | (u64::MAX >> TABLE_BITS)]
        });
        let edges = p
            .cdf
            .iter()
            .flat_map(|&t| [t.saturating_sub(1), t, t.saturating_add(1)]);
        for u in ranges.chain(edges) {
            assert_eq!(p.count(u), search(u), "draw {u}");
        }
    }

    #[test]
    fn copies_are_added_one_at_a_time() {
        let mut rng = Rng::from_u64(3);
        for _ in 0..1_000 {
            let (sum, v) = (rng.next_f64() * 1e6, rng.next_f64() * 1e3);
            for c in 0..=u8::try_from(MAX_COUNT).unwrap() {
                let mut want = sum;
                for _ in 0..c {
                    want += v;
                }
                assert_eq!(
                    add_copies(sum, v, c).to_bits(),
                    want.to_bits(),
                    "{c} copies"
                );
            }
        }
    }

    #[test]
    fn a_replicate_with_unit_counts_is_the_sample_itself() {
        let v: Vec<f64> = (0..37).map(|i| f64::from(i * i) / 7.0).collect();
        let mut boot = SeriesBoot::new(Rc::new(BootPlan::new(&[v.len() as u64])));
        let mut ones = [0u8; REPLICATES];
        ones[0] = 1;
        for &x in &v {
            boot.add(x, &ones);
        }
        let r = &boot.finish()[0];
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        assert_eq!(r.mean, mean);
        for (i, p) in whole_percentiles().enumerate() {
            let want = ramp_vocab::quantile::quantile_sorted(&v, p / 100.0).unwrap();
            assert_eq!(r.whole[i], want, "p{p}");
        }
    }

    #[test]
    fn a_plan_reads_the_percentiles_quantile_with_reads() {
        // Every total from 0 to 300 and some large ones, random sorted
        // values: the plan's picks give quantile_with's values bit for bit.
        let mut rng = Rng::from_u64(5);
        let totals = (0..300u64).chain([997, 10_007, 123_457]);
        for total in totals {
            let plan = ReplicatePlan::new(total);
            let n = total as usize;
            let mut v: Vec<f64> = (0..n).map(|_| rng.next_f64() * 1e4).collect();
            v.sort_by(f64::total_cmp);
            let kept: Vec<f64> = plan.need.iter().map(|&i| v[i]).collect();
            for (k, p) in whole_percentiles().enumerate() {
                let want = quantile_with(n, p / 100.0, |i| v[i]).unwrap_or(f64::NAN);
                let got = plan.picks.get(k).map_or(f64::NAN, |pick| {
                    let a = kept[pick.lo];
                    pick.hi.map_or(a, |hi| a + pick.frac * (kept[hi] - a))
                });
                assert_eq!(got.to_bits(), want.to_bits(), "total {total}, p{p}");
            }
        }
    }

    #[test]
    fn a_count_of_two_repeats_a_value() {
        // Values 1, 2, 3 with counts 2, 0, 1: the multiset {1, 1, 3}.
        let mut boot = SeriesBoot::new(Rc::new(BootPlan::new(&[3])));
        let mut c = [0u8; REPLICATES];
        for (v, k) in [(1.0, 2), (2.0, 0), (3.0, 1)] {
            c[0] = k;
            boot.add(v, &c);
        }
        let r = &boot.finish()[0];
        assert_eq!(r.mean, 5.0 / 3.0);
        assert_eq!(r.whole[49], 1.0, "median of 1, 1, 3");
        assert_eq!(r.whole[98], 1.0 + 0.98 * 2.0, "p99 of 1, 1, 3");
    }
}
