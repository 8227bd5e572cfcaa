//! The summary of a fleet run, in the seed experiment's terms
//! (the Rapid Start slides, IETF 125): TTLB change of each arm against the baseline —
//! the change of the mean and of each decile p10…p90 — globally, per
//! region and per size bin; and the packet-loss-ratio table (average, P50,
//! P90, P99 of the per-connection ratio lost / sent).
//!
//! TTLB statistics are paired: a connection counts only if it completed in
//! every arm, so each arm's distribution is over the very same paths.
//! Loss ratios count every connection that sent a packet.
//!
//! Exact percentiles need the values: [`Summarizer`] streams rows in
//! connection order and sorts the values externally (spilling sorted runs
//! to disk), so memory stays flat in the number of connections and every
//! figure is the one the values in memory give. Percentiles interpolate
//! linearly between order statistics (Hyndman–Fan type 7, as ramp-plot and
//! numpy).

use std::fmt::Write as _;

pub use super::summarizer::{Summarizer, SummaryError};

/// One record as the summary needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Connection index (`conn`).
    pub conn: u64,
    /// Arm (`group`).
    pub arm: String,
    /// Region or grid cell (`pop`).
    pub pop: String,
    /// Size bin (`size-bin`).
    pub bin: String,
    /// Object size, bytes (`content_length`).
    pub size_bytes: u64,
    /// Whether the transfer completed.
    pub completed: bool,
    /// The run's metric, µs: TTLB, or for page loads the page load time
    /// (`page-load-us`).
    pub ttlb_us: u64,
    /// Packets sent.
    pub packets_sent: u64,
    /// Packets declared lost.
    pub packets_lost: u64,
}

/// The deciles the TTLB tables show.
pub const DECILES: [f64; 9] = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0];

/// The percentiles whose TTLB changes are averaged into
/// [`TtlbChange::pctl_change_avg_pct`]: p5, p15, …, p95, the steps of the
/// percentile-delta query in Kazuho Oku's talk "Rapid Start: Faster
/// Internet Connections, with Ruby's Help" (`0.05.step(0.95, 0.1)`).
pub const DELTA_PERCENTILES: [f64; 10] =
    [5.0, 15.0, 25.0, 35.0, 45.0, 55.0, 65.0, 75.0, 85.0, 95.0];

/// The percentiles whose TTLB changes are averaged into
/// [`TtlbChange::pctl_1_99_change_avg_pct`]: p1, p2, …, p99, the
/// percentile-delta chart at whole percentiles (the slides' global chart
/// has a sawtooth at its low percentiles from the 1 ms clock, which a
/// ten-point curve could not show).
pub fn whole_percentiles() -> impl Iterator<Item = f64> {
    (1..=99).map(f64::from)
}

/// The loss-ratio percentiles of the seed's table.
pub const LOSS_PERCENTILES: [f64; 3] = [50.0, 90.0, 99.0];

/// One arm's TTLB against the baseline within one slice.
#[derive(Clone, Debug, PartialEq)]
pub struct TtlbChange {
    /// Arm.
    pub arm: String,
    /// Mean TTLB, ms.
    pub mean_ms: f64,
    /// Change of the mean against the baseline, percent (0 for the baseline).
    pub mean_change_pct: f64,
    /// TTLB at each of [`DECILES`], ms.
    pub deciles_ms: Vec<f64>,
    /// Change of each decile against the baseline's, percent.
    pub decile_change_pct: Vec<f64>,
    /// Average over [`DELTA_PERCENTILES`] (ten points, p5 … p95) of the
    /// per-percentile change against the baseline, percent: the talk's
    /// percentile-delta query summarised in one number. One of the
    /// candidate readings of the slides' "14.7 % average TTLB reduction"
    /// (docs/experiments.md, "Which statistic").
    pub pctl_change_avg_pct: f64,
    /// Average over p1 … p99 of the per-percentile change, percent (the
    /// chart at whole percentiles summarised in one number).
    pub pctl_1_99_change_avg_pct: f64,
    /// Change of the median against the baseline's, percent.
    pub median_change_pct: f64,
    /// Mean packets lost per connection.
    pub mean_lost_packets: f64,
    /// 95 % confidence intervals of the four headline statistics over
    /// connections (sampling uncertainty; [`super::bootstrap`]); empty
    /// ([`ConfidenceInterval::NONE`]) for the baseline.
    pub ci: HeadlineIntervals,
}

/// A 95 % confidence interval of a statistic over the run's connections:
/// the uncertainty of sampling this many connections, not that of the
/// model's assumptions (the sensitivity study's intervals,
/// [`super::sensitivity::Interval`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConfidenceInterval {
    /// Lower bound, percent.
    pub lo: f64,
    /// Upper bound, percent.
    pub hi: f64,
}

impl ConfidenceInterval {
    /// No interval (the baseline arm, or too few connections).
    pub const NONE: ConfidenceInterval = ConfidenceInterval {
        lo: f64::NAN,
        hi: f64::NAN,
    };
}

/// The 95 % confidence intervals of one arm's headline statistics, in the
/// fields' order of [`TtlbChange`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeadlineIntervals {
    /// Of [`TtlbChange::pctl_change_avg_pct`].
    pub pctl_change_avg: ConfidenceInterval,
    /// Of [`TtlbChange::pctl_1_99_change_avg_pct`].
    pub pctl_1_99_change_avg: ConfidenceInterval,
    /// Of [`TtlbChange::mean_change_pct`].
    pub mean_change: ConfidenceInterval,
    /// Of [`TtlbChange::median_change_pct`].
    pub median_change: ConfidenceInterval,
}

impl HeadlineIntervals {
    /// No intervals.
    pub const NONE: HeadlineIntervals = HeadlineIntervals {
        pctl_change_avg: ConfidenceInterval::NONE,
        pctl_1_99_change_avg: ConfidenceInterval::NONE,
        mean_change: ConfidenceInterval::NONE,
        median_change: ConfidenceInterval::NONE,
    };
}

/// A slice of the run (global, one region, one size bin).
#[derive(Clone, Debug, PartialEq)]
pub struct Slice {
    /// `all`, a region, or a bin label.
    pub label: String,
    /// Connections completed in every arm (the paired sample).
    pub connections: usize,
    /// One entry per arm, baseline first.
    pub arms: Vec<TtlbChange>,
}

/// One arm's loss-ratio statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct LossRow {
    /// Arm.
    pub arm: String,
    /// Connections that sent at least one packet.
    pub connections: usize,
    /// Mean of the per-connection loss ratio, percent.
    pub avg_pct: f64,
    /// [`LOSS_PERCENTILES`] of the per-connection loss ratio, percent.
    pub percentiles_pct: Vec<f64>,
}

/// The summary.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The metric's name in the tables: `TTLB`, or `PLT` (page load time)
    /// for page loads ([`Summary::with_metric`]).
    pub metric: &'static str,
    /// Arms, baseline first.
    pub arms: Vec<String>,
    /// Connections seen (any arm).
    pub connections: usize,
    /// Connections left out of the TTLB tables (incomplete in some arm,
    /// or missing an arm).
    pub excluded: usize,
    /// All connections.
    pub global: Slice,
    /// Per region (or grid cell).
    pub by_pop: Vec<Slice>,
    /// Per size bin.
    pub by_bin: Vec<Slice>,
    /// Loss ratio per arm, all connections.
    pub loss: Vec<LossRow>,
    /// Loss ratio per region, then per arm.
    pub loss_by_pop: Vec<(String, Vec<LossRow>)>,
}

/// The p-th percentile (0–100) of sorted `v` ([`ramp_vocab::quantile`]'s
/// definition), NaN when `v` is empty.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    ramp_vocab::quantile::quantile_sorted(sorted, p / 100.0).unwrap_or(f64::NAN)
}

/// Summarises `rows` for `arms` (baseline first). `pops` and `bins` give
/// the report order of regions and bins (others follow, sorted). Rows of
/// arms not listed are ignored; rows may come in any order (a second row
/// of the same connection and arm replaces the first). Everything stays in
/// memory: a run's records file is summarised by streaming it through a
/// [`Summarizer`] that spills instead. Fails only on more arms or labels
/// than a series key holds ([`SummaryError::TooManyLabels`]).
pub fn summarize(
    rows: &[Row],
    arms: &[String],
    pops: &[String],
    bins: &[String],
) -> Result<Summary, SummaryError> {
    let mut order: Vec<&Row> = rows.iter().collect();
    order.sort_by_key(|r| r.conn);
    let mut s = Summarizer::new(arms, None, usize::MAX);
    for r in order {
        s.push(r)?;
    }
    s.finish(pops, bins)
}

fn pct(v: f64) -> String {
    if v.is_nan() {
        "-".to_string()
    } else {
        format!("{v:+.1}%")
    }
}

/// A change with its 95 % interval: `-22.1% [-22.6, -21.6]`.
fn pct_ci(v: f64, ci: ConfidenceInterval) -> String {
    if v.is_nan() || ci.lo.is_nan() || ci.hi.is_nan() {
        pct(v)
    } else {
        format!("{} [{:+.1}, {:+.1}]", pct(v), ci.lo, ci.hi)
    }
}

fn ratio(v: f64) -> String {
    if v.is_nan() {
        "-".to_string()
    } else {
        format!("{v:.2}%")
    }
}

impl Summary {
    /// The same summary naming its metric `metric` (the rows carried it).
    pub fn with_metric(mut self, metric: &'static str) -> Summary {
        self.metric = metric;
        self
    }

    /// The summary as Markdown: the headline table (mean TTLB change per
    /// arm per slice), the decile tables, and the loss-ratio tables in the
    /// seed's layout (arms as columns; avg, P50, P90, P99 as rows).
    pub fn to_markdown(&self, title: &str) -> String {
        let mut s = String::new();
        let base = self.arms.first().cloned().unwrap_or_default();
        let _ = writeln!(s, "# {title}\n");
        let _ = writeln!(
            s,
            "{} connections x {} arms; {} in the {} tables (completed in every arm), {} excluded. \
             Baseline: `{base}`.\n",
            self.connections,
            self.arms.len(),
            self.global.connections,
            self.metric,
            self.excluded
        );
        let _ = writeln!(s, "## {} change against `{base}`\n", self.metric);
        let _ = writeln!(
            s,
            "Each arm, every candidate reading of a published \"average TTLB reduction\" \
             (docs/experiments.md, \"Which statistic\"): ten-pt = the average of its \
             per-percentile change over p5, p15, …, p95 (the talk's percentile-delta query); \
             1-99 = the same over p1 … p99; mean = the change of the mean; median = the change \
             of the median. In brackets: its 95 % confidence interval over connections (the \
             uncertainty of sampling this many connections, from a seeded paired Poisson \
             bootstrap of {} replicates; not the model's uncertainty, which `ramp fleet \
             --sensitivity` estimates).\n",
            super::bootstrap::REPLICATES
        );
        let mut head = String::from("| slice | n |");
        let mut rule = String::from("|---|---:|");
        for a in &self.arms {
            if *a == base {
                let _ = write!(head, " {a} mean |");
                rule.push_str("---:|");
            } else {
                let _ = write!(head, " {a} ten-pt | {a} 1-99 | {a} mean | {a} median |");
                rule.push_str("---:|---:|---:|---:|");
            }
        }
        let _ = writeln!(s, "{head}\n{rule}");
        let row = |s: &mut String, sl: &Slice| {
            let _ = write!(s, "| {} | {} |", sl.label, sl.connections);
            for a in &sl.arms {
                if a.arm == base {
                    let _ = write!(s, " {:.0} ms |", a.mean_ms);
                } else {
                    let _ = write!(
                        s,
                        " {} | {} | {} | {} |",
                        pct_ci(a.pctl_change_avg_pct, a.ci.pctl_change_avg),
                        pct_ci(a.pctl_1_99_change_avg_pct, a.ci.pctl_1_99_change_avg),
                        pct_ci(a.mean_change_pct, a.ci.mean_change),
                        pct_ci(a.median_change_pct, a.ci.median_change)
                    );
                }
            }
            s.push('\n');
        };
        row(&mut s, &self.global);
        for sl in self.by_pop.iter().chain(&self.by_bin) {
            row(&mut s, sl);
        }
        s.push('\n');

        let _ = writeln!(
            s,
            "## {}: change per decile against `{base}`\n",
            self.metric
        );
        for sl in std::iter::once(&self.global)
            .chain(&self.by_pop)
            .chain(&self.by_bin)
        {
            let _ = writeln!(s, "### {} (n = {})\n", sl.label, sl.connections);
            let mut h = String::from("| arm | mean |");
            let mut r = String::from("|---|---:|");
            for p in DECILES {
                let _ = write!(h, " p{p:.0} |");
                r.push_str("---:|");
            }
            let _ = writeln!(s, "{h} lost pkts |\n{r}---:|");
            for a in &sl.arms {
                if a.arm == base {
                    let _ = write!(s, "| {} (ms) | {:.0} |", a.arm, a.mean_ms);
                    for v in &a.deciles_ms {
                        let _ = write!(s, " {v:.0} |");
                    }
                } else {
                    let _ = write!(s, "| {} | {} |", a.arm, pct(a.mean_change_pct));
                    for v in &a.decile_change_pct {
                        let _ = write!(s, " {} |", pct(*v));
                    }
                }
                let _ = writeln!(s, " {:.1} |", a.mean_lost_packets);
            }
            s.push('\n');
        }

        let _ = writeln!(s, "## Packet loss ratio (per connection, lost / sent)\n");
        write_loss(&mut s, &self.loss);
        for (pop, rows) in &self.loss_by_pop {
            let _ = writeln!(s, "\n### {pop}\n");
            write_loss(&mut s, rows);
        }
        s
    }
}

fn write_loss(s: &mut String, rows: &[LossRow]) {
    let mut h = String::from("| |");
    let mut r = String::from("|---|");
    for row in rows {
        let _ = write!(h, " {} |", row.arm);
        r.push_str("---:|");
    }
    let _ = writeln!(s, "{h}\n{r}");
    let _ = write!(s, "| avg. |");
    for row in rows {
        let _ = write!(s, " {} |", ratio(row.avg_pct));
    }
    s.push('\n');
    for (i, p) in LOSS_PERCENTILES.iter().enumerate() {
        let _ = write!(s, "| P{p:.0} |");
        for row in rows {
            let _ = write!(s, " {} |", ratio(row.percentiles_pct[i]));
        }
        s.push('\n');
    }
}
