//! Simulating a run's connections into its records file.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use ramp_sim::fleet::{run, ArmRecord, FleetPlan};

use super::records::Readback;

/// Simulates connections `start..end` into `records` (appending); each
/// record's row also goes to `back`, taken from the record on the worker
/// that simulated it (so the summary's share of the serial sink is only
/// the hand-over).
pub(super) fn simulate_all(
    plan: &FleetPlan,
    records: &Path,
    (start, end): (u64, u64),
    context: &str,
    threads: usize,
    quiet: bool,
    mut back: Option<&mut Readback>,
) -> anyhow::Result<()> {
    let file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(records)
        .with_context(|| format!("opening {}", records.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let progress = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(end)
    };
    progress.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] [{bar:30}] {pos}/{len} connections ({rate}, ETA {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        // Whole connections a second: indicatif's own `{per_sec}` prints
        // three decimals ("106.012/s"), noise at this scale.
        .with_key(
            "rate",
            |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0}/s", s.per_sec());
            },
        )
        .progress_chars("=> "),
    );
    progress.set_position(start);
    // `context`: the shard's range and where a resumed run picks up.
    if !quiet {
        ramp_vocab::note!(
            "ramp fleet: {} — {} connections x {} arms on {} threads{context}",
            plan.name,
            plan.connections,
            plan.arms.len(),
            threads,
        );
    }
    let opts = run::RunOptions {
        start,
        end,
        threads,
        ..run::RunOptions::default()
    };
    // Each record's row comes with its line from the worker that
    // simulated it (taken from the record, not parsed from the line).
    let keep_rows = back.is_some();
    let split = |_, arms: Vec<ArmRecord>| {
        let mut lines = Vec::with_capacity(arms.len());
        let mut rows = Vec::with_capacity(if keep_rows { arms.len() } else { 0 });
        for a in arms {
            lines.push(a.line);
            if keep_rows {
                rows.push(a.row);
            }
        }
        (lines, rows)
    };
    let result = run::run_mapped(plan, opts, split, |_, (lines, rows)| {
        for l in &lines {
            w.write_all(l.as_bytes())
                .and_then(|()| w.write_all(b"\n"))
                .with_context(|| format!("writing {}", records.display()))?;
        }
        if let Some(b) = &mut back {
            for r in rows {
                b.push(r)?;
            }
        }
        progress.inc(1);
        anyhow::Ok(())
    });
    progress.finish_and_clear();
    let flushed = w.flush();
    result.map_err(|e| anyhow::anyhow!("{e}"))?;
    flushed.with_context(|| format!("writing {}", records.display()))?;
    Ok(())
}
