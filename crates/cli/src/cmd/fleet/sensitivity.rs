//! `ramp fleet --sensitivity N`: the same fleet run once per point of a
//! sensitivity design over the declared assumptions (base, one-at-a-time
//! low and high, N Latin-hypercube points; `ramp_sim::fleet::sensitivity`),
//! one line of headline figures per point in `points.ndjson`, then the
//! analysis: `sensitivity.md`, `sensitivity.json` and the tornado charts
//! (`tornado.png`: the ten-point reading; `tornado-p1-99.png`,
//! `tornado-mean.png`, `tornado-median.png`: the others).
//!
//! Points are the unit of sharding: `--shard K/N` runs a contiguous range
//! of them and `ramp fleet merge` joins the shards (the same checks as a
//! fleet's records: each line carries its point index as `conn`), so
//! ramp_lab's Dask driver runs a study exactly as it runs a fleet. Every
//! point runs the plan's connections with the plan's seed, so a point's
//! figures depend only on the plan and the point: the same bytes at any
//! thread, shard or worker count.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use ramp_sim::fleet::assumptions::Assumption;
use ramp_sim::fleet::sensitivity::{
    self, Analysis, Figures, Point, Reading, ReadingAnalysis, Verdict,
};
use ramp_sim::fleet::summary::summarize;
use ramp_sim::fleet::{run, ArmRecord, FleetPlan};
use ramp_vocab::atomic_file::write_atomic;

use super::plan::{arm_labels, bin_order, metric, params_difference, PlanSpec};
use super::{shard, Shard, PARAMS, PLAN};
use crate::run_dir::{self, Owner};

/// The points file: one JSON line per point.
pub(super) const POINTS: &str = "points.ndjson";

/// What a study is run with.
pub(super) struct Study<'a> {
    pub plan: &'a FleetPlan,
    pub spec: &'a PlanSpec,
    pub assumptions: Vec<Assumption>,
    pub lhs: u32,
}

impl Study<'_> {
    fn points(&self) -> Vec<Point> {
        sensitivity::design(&self.assumptions, self.lhs, self.plan.seed)
    }

    /// The run's parameters: the fleet's, the LHS size and every
    /// declaration (a merge refuses shards of another study).
    fn params(&self) -> String {
        let mut s = self.plan.fingerprint();
        s.push_str(&format!("sensitivity = {}\n", self.lhs));
        for a in &self.assumptions {
            s.push_str(&format!(
                "assumption = {:?}\n",
                format!("{} {} {} {}", a.param.key(), a.value, a.range.0, a.range.1)
            ));
        }
        s
    }
}

/// Runs a study (or one shard of it) into `out`; `quiet` leaves out the
/// start and per-point lines on stderr.
pub(super) fn run_study(
    study: &Study,
    out: &Path,
    shard: Option<Shard>,
    threads: usize,
    no_charts: bool,
    quiet: bool,
) -> anyhow::Result<()> {
    if study.assumptions.is_empty() {
        bail!("--sensitivity: the population declares no assumptions to vary (a grid has none)");
    }
    run_dir::check_owner(out, Owner::Fleet)?;
    fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    run_dir::mark(out, Owner::Fleet)?;
    let points_path = out.join(POINTS);
    if points_path.exists() {
        bail!(
            "{} exists: a study does not resume; choose another --out",
            points_path.display()
        );
    }
    let mut params = study.params();
    if let Some(s) = shard {
        params.push_str(&s.params_line());
    }
    write_atomic(&out.join(PARAMS), params.as_bytes())?;
    write_atomic(
        &out.join(PLAN),
        serde_json::to_string_pretty(study.spec)?.as_bytes(),
    )?;
    let points = study.points();
    let total = points.len() as u64;
    let (first, end) = match shard {
        Some(s) => s.range(total),
        None => (0, total),
    };
    let threads = run::effective_threads(threads);
    let say = |line: String| {
        if !quiet {
            ramp_vocab::note!("{line}");
        }
    };
    say(format!(
        "ramp fleet --sensitivity: {} — points {first}..{end} of {total} ({} one-at-a-time, {} \
         Latin hypercube), {} connections x {} arms each, on {threads} threads",
        study.plan.name,
        2 * study.assumptions.len(),
        study.lhs,
        study.plan.connections,
        study.plan.arms.len()
    ));
    let tmp = points_path.with_extension("ndjson.partial");
    let mut w = fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    for i in first..end {
        let p = &points[i as usize];
        let t0 = std::time::Instant::now();
        let figures = run_point(study.plan, p, threads)?;
        let line = point_line(i, p, &figures)?;
        w.write_all(line.as_bytes())
            .and_then(|()| w.write_all(b"\n"))
            .with_context(|| format!("writing {}", tmp.display()))?;
        say(format!(
            "  point {i} {}: {} {:+.1} % ({:.0} s)",
            p.kind.label(),
            figures.arm,
            figures.global_pct,
            t0.elapsed().as_secs_f64()
        ));
    }
    w.flush()?;
    drop(w);
    fs::rename(&tmp, &points_path)
        .with_context(|| format!("renaming {} to {}", tmp.display(), points_path.display()))?;
    if let Some(s) = shard {
        shard::write_manifest(out, &points_path, s, total, &[POINTS, PARAMS, PLAN])?;
        println!(
            "shard {s}: points {first}..{end} of {total}; wrote {} ({POINTS}, {}); join the shards \
             with `ramp fleet merge DIR... -o OUT`",
            out.display(),
            shard::MANIFEST
        );
        return Ok(());
    }
    finish(study, &points, out, no_charts)
}

/// Joins study shards into `out` (the merge's sensitivity branch).
pub(super) fn merge_study(
    study: &Study,
    dirs: &[PathBuf],
    out: &Path,
    no_charts: bool,
) -> anyhow::Result<()> {
    let points = study.points();
    let out_points = out.join(POINTS);
    if out_points.exists() {
        bail!(
            "{} exists: merge into a new directory",
            out_points.display()
        );
    }
    let merge_spec = shard::MergeSpec {
        connections: points.len() as u64,
        arms: 1,
        records_name: POINTS,
        params_name: PARAMS,
    };
    let params = shard::merge_records(
        dirs,
        &out_points,
        &merge_spec,
        params_difference,
        &mut |_| Ok(()),
    )?;
    let done = (|| {
        if params != study.params() {
            bail!(
                "this ramp builds a different study from the shards' parameters (differs in {}); \
                 merge with the ramp that ran the shards",
                params_difference(&params, &study.params())
            );
        }
        write_atomic(&out.join(PARAMS), params.as_bytes())?;
        write_atomic(
            &out.join(PLAN),
            serde_json::to_string_pretty(study.spec)?.as_bytes(),
        )?;
        finish(study, &points, out, no_charts)
    })();
    if done.is_err() {
        for f in [POINTS, PARAMS, PLAN] {
            let _ = fs::remove_file(out.join(f));
        }
    }
    done
}

/// Runs one point's fleet in memory and returns its figures.
fn run_point(plan: &FleetPlan, point: &Point, threads: usize) -> anyhow::Result<Figures> {
    let p = point.apply(plan);
    let mut rows = Vec::with_capacity((p.connections as usize) * p.arms.len());
    let opts = run::RunOptions {
        start: 0,
        end: p.connections,
        threads,
        ..run::RunOptions::default()
    };
    // Each record's row is taken from the record on the worker that
    // simulated it; the lines are not needed.
    let of_arms = |_, arms: Vec<ArmRecord>| arms.into_iter().map(|a| a.row).collect::<Vec<_>>();
    run::run_mapped(&p, opts, of_arms, |_, r| -> std::io::Result<()> {
        rows.extend(r);
        Ok(())
    })
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let s = summarize(&rows, &arm_labels(&p), &p.population.pops(), &bin_order(&p))?
        .with_metric(metric(&p));
    Figures::of(&s).context("a study needs at least two arms")
}

/// A point's line: index as `conn` (what the merge checks), label, values
/// and figures.
fn point_line(i: u64, p: &Point, f: &Figures) -> anyhow::Result<String> {
    let values: serde_json::Map<String, serde_json::Value> = p
        .values
        .iter()
        .map(|(k, v)| (k.key().to_string(), serde_json::json!(v)))
        .collect();
    Ok(serde_json::to_string(&serde_json::json!({
        "conn": i,
        "point": p.kind.label(),
        "values": values,
        "figures": f,
    }))?)
}

/// Reads `points.ndjson` back (in point order).
fn read_points(path: &Path, n: usize) -> anyhow::Result<Vec<Figures>> {
    let text = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = Vec::with_capacity(n);
    for (i, line) in text.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line)
            .with_context(|| format!("{}: line {}", path.display(), i + 1))?;
        let f: Figures = serde_json::from_value(v["figures"].clone())
            .with_context(|| format!("{}: line {}: figures", path.display(), i + 1))?;
        out.push(f);
    }
    if out.len() != n {
        bail!(
            "{}: {} points, the study has {n}",
            path.display(),
            out.len()
        );
    }
    Ok(out)
}

/// Writes the analysis of a whole study.
fn finish(study: &Study, points: &[Point], out: &Path, no_charts: bool) -> anyhow::Result<()> {
    let figures = read_points(&out.join(POINTS), points.len())?;
    let an = sensitivity::analyze(points, &figures);
    let bins = bin_order(study.plan);
    let verdicts = if study.plan.name == "rapid-start-2026" {
        sensitivity::verdicts(&sensitivity::RAPID_START_2026, points, &figures, &bins)
    } else {
        Vec::new()
    };
    let arm = figures.first().map(|f| f.arm.clone()).unwrap_or_default();
    let md = markdown(study, &an, &verdicts, &arm);
    write_atomic(&out.join("sensitivity.md"), md.as_bytes())?;
    let json = serde_json::json!({
        "plan": study.plan.name,
        "connections": study.plan.connections,
        "seed": study.plan.seed,
        "arm": arm,
        "assumptions": study.assumptions.iter().map(|a| serde_json::json!({
            "key": a.param.key(), "value": a.value, "range": [a.range.0, a.range.1],
            "reason": a.reason,
        })).collect::<Vec<_>>(),
        "analysis": an,
        "published": verdicts,
    });
    write_atomic(
        &out.join("sensitivity.json"),
        serde_json::to_string_pretty(&json)?.as_bytes(),
    )?;
    print!("{md}");
    if !no_charts {
        for r in &an.by_reading {
            tornado(study, r, &arm, out)?;
        }
    }
    println!(
        "\nwrote {} ({POINTS}, sensitivity.md, sensitivity.json{})",
        out.display(),
        if no_charts {
            ""
        } else {
            ", tornado.png and one per other reading"
        }
    );
    Ok(())
}

/// The tornado chart file of a reading: `tornado.png` for the ten-point
/// average (the headline's, and the file's name before readings),
/// `tornado-KEY.png` for the others.
fn tornado_file(r: Reading) -> String {
    match r {
        Reading::TenPoint => "tornado.png".to_string(),
        other => format!("tornado-{}.png", other.key()),
    }
}

/// Draws one reading's tornado chart into `out`.
fn tornado(study: &Study, r: &ReadingAnalysis, arm: &str, out: &Path) -> anyhow::Result<()> {
    let chart = ramp_plot::chart::TornadoChart {
        title: format!(
            "{}: {arm} global TTLB change, one parameter at a time",
            study.plan.name
        ),
        x_desc: format!("{arm} TTLB change vs baseline, {} (%)", r.reading.label()),
        base: r.base_global_pct,
        bars: r
            .swings
            .iter()
            .map(|s| ramp_plot::chart::TornadoBar {
                label: format!("{} [{}, {}]", s.key, s.range.0, s.range.1),
                at_low: s.at_low,
                at_high: s.at_high,
            })
            .collect(),
    };
    let file = tornado_file(r.reading);
    ramp_plot::chart::save(&chart, &out.join(&file), ramp_plot::chart::Theme::Light)
        .map_err(|e| anyhow::anyhow!("{file}: {e}"))
}

/// The one-at-a-time swings and the variance shares under every reading,
/// one column each, rows in the ten-point reading's order.
fn reading_tables(an: &Analysis, arm: &str) -> (String, String) {
    let head = {
        let mut h = String::from("| parameter |");
        for r in &an.by_reading {
            h.push_str(&format!(" {} |", r.reading.label()));
        }
        h.push_str("\n|---|");
        h.push_str(&"---|".repeat(an.by_reading.len()));
        h.push('\n');
        h
    };
    let mut oat = format!(
        "\n### Under every reading\n\n\
         The same points, {arm}'s global change under each reading (docs/experiments.md, \
         \"Which statistic the published figures are\"): at low → at high (the swing, points). \
         Rows in the ten-point order above; each reading's own order is its tornado chart \
         ({}).\n\n{head}",
        Reading::ALL
            .iter()
            .map(|r| format!("`{}`", tornado_file(*r)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut var = format!(
        "\n### Under every reading\n\n\
         SRC² of {arm}'s global change under each reading over the same Latin hypercube (rows \
         in the ten-point order above), and each linear fit's R².\n\n{head}"
    );
    for w in &an.swings {
        oat.push_str(&format!("| `{}` |", w.key));
        for r in &an.by_reading {
            let cell = r.swings.iter().find(|s| s.key == w.key).map_or_else(
                || "–".to_string(),
                |s| {
                    format!(
                        "{:+.1} → {:+.1} ({:.1})",
                        s.at_low,
                        s.at_high,
                        (s.at_high - s.at_low).abs()
                    )
                },
            );
            oat.push_str(&format!(" {cell} |"));
        }
        oat.push('\n');
    }
    oat.push_str("| base point |");
    for r in &an.by_reading {
        oat.push_str(&format!(" {} |", pct(r.base_global_pct)));
    }
    oat.push('\n');
    for sh in &an.shares {
        var.push_str(&format!("| `{}` |", sh.key));
        for r in &an.by_reading {
            let cell = r
                .shares
                .iter()
                .find(|s| s.key == sh.key)
                .map_or_else(|| "–".to_string(), |s| format!("{:.2}", s.src2));
            var.push_str(&format!(" {cell} |"));
        }
        var.push('\n');
    }
    var.push_str("| R² |");
    for r in &an.by_reading {
        var.push_str(&format!(" {:.2} |", r.r2));
    }
    var.push('\n');
    (oat, var)
}

fn pct(v: f64) -> String {
    format!("{v:+.1} %")
}

/// The published figures against the intervals: TTLB figures one row
/// each with a column per reading, then the loss figures.
fn published_tables(verdicts: &[Verdict]) -> String {
    let cell = |v: &Verdict| {
        format!(
            "{:.2} … {:.2} {}",
            v.interval.0,
            v.interval.1,
            if v.inside { "yes" } else { "**no**" }
        )
    };
    let mut s = String::from(
        "\n## Published figures (Rapid Start slides, IETF 125) against the intervals\n\n\
         The sources do not say which statistic \"average TTLB reduction\" is \
         (docs/experiments.md, \"Which statistic the published figures are\"), so every TTLB \
         figure has an interval and a verdict under each reading. `bin:trend` is the last size \
         bin's change minus the first's (points; positive: the largest objects gain less).\n\n\
         | figure | published |",
    );
    for r in Reading::ALL {
        s.push_str(&format!(" {} |", r.label()));
    }
    s.push_str("\n|---|---|---|---|---|---|\n");
    let mut seen: Vec<&str> = Vec::new();
    for v in verdicts.iter().filter(|v| v.reading.is_some()) {
        let what = v.published.what;
        if seen.contains(&what) {
            continue;
        }
        seen.push(what);
        s.push_str(&format!("| {what} | {:.2} |", v.published.value));
        for r in Reading::ALL {
            let c = verdicts
                .iter()
                .find(|x| x.published.what == what && x.reading == Some(r))
                .map_or_else(|| "–".to_string(), cell);
            s.push_str(&format!(" {c} |"));
        }
        s.push('\n');
    }
    s.push_str("\n| figure | published | 90 % interval | inside |\n|---|---|---|---|\n");
    for v in verdicts.iter().filter(|v| v.reading.is_none()) {
        s.push_str(&format!(
            "| {} | {:.2} | {:.2} … {:.2} | {} |\n",
            v.published.what,
            v.published.value,
            v.interval.0,
            v.interval.1,
            if v.inside { "yes" } else { "**no**" }
        ));
    }
    s
}

/// The report: declarations, tornado table, intervals, published figures
/// against them, variance shares.
fn markdown(study: &Study, an: &Analysis, verdicts: &[Verdict], arm: &str) -> String {
    let mut s = format!(
        "# Sensitivity: {} ({} connections per point, seed {})\n\n",
        study.plan.name, study.plan.connections, study.plan.seed
    );
    s.push_str("## Declared assumptions\n\n| key | value | range | reason |\n|---|---|---|---|\n");
    for a in &study.assumptions {
        s.push_str(&format!(
            "| `{}` | {} | {} – {} | {} |\n",
            a.param.key(),
            a.value,
            a.range.0,
            a.range.1,
            a.reason
        ));
    }
    s.push_str(&format!(
        "\n## One at a time: {arm}'s global TTLB change (percentile average)\n\n\
         Base point: {}. Largest swing first (the tornado chart).\n\n\
         | parameter | at low | at high | swing |\n|---|---|---|---|\n",
        pct(an.base_global_pct)
    ));
    for w in &an.swings {
        s.push_str(&format!(
            "| `{}` = {} / {} | {} | {} | {:.1} points |\n",
            w.key,
            w.range.0,
            w.range.1,
            pct(w.at_low),
            pct(w.at_high),
            (w.at_high - w.at_low).abs()
        ));
    }
    let (oat_readings, variance_readings) = reading_tables(an, arm);
    s.push_str(&oat_readings);
    s.push_str(&format!(
        "\n## 90 % intervals over the Latin hypercube ({} points)\n\n\
         The 5th to 95th percentile of each figure over the sample (all parameters varied \
         together): the uncertainty of the model's declared assumptions, not the sampling \
         uncertainty over connections (each run's summary.md gives that, as 95 % confidence \
         intervals). TTLB figures are {arm}'s change against the baseline, percentile average \
         unless named `global-mean` (change of the mean); `loss:ARM` is the arm's average loss \
         ratio, `baseline-loss-pN` the baseline's Nth percentile of the per-connection loss \
         ratio (%), `loss-order-margin` the smallest rise of average loss from one arm to the \
         next in arm order (points; negative: the order breaks).\n\n| figure | base | 90 % interval |\n|---|---|---|\n",
        an.lhs_points
    ));
    for i in &an.intervals {
        s.push_str(&format!(
            "| {} | {:.2} | {:.2} … {:.2} |\n",
            i.figure, i.base, i.lo, i.hi
        ));
    }
    if !verdicts.is_empty() {
        s.push_str(&published_tables(verdicts));
        s.push_str(&format!(
            "\nThe loss order (every arm's average loss above the previous arm's) holds at {} of \
             the {} Latin-hypercube points.\n",
            an.loss_order_held, an.lhs_points
        ));
    }
    s.push_str(&format!(
        "\n## What explains the global gain's variance\n\n\
         Standardized regression coefficients (SRC) of {arm}'s global change on the parameters \
         over the Latin hypercube; SRC² is a parameter's share of the variance in the linear \
         model, whose R² is {:.2} (the shares approach R² as the sampled parameters' \
         correlations vanish; at a few tens of points they need not add up to it).\n\n\
         | parameter | SRC | SRC² |\n|---|---|---|\n",
        an.r2
    ));
    for sh in &an.shares {
        s.push_str(&format!(
            "| `{}` | {:+.2} | {:.2} |\n",
            sh.key, sh.src, sh.src2
        ));
    }
    s.push_str(&variance_readings);
    s
}
