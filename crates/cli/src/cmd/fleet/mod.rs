//! `ramp fleet`: fleet-scale A/B experiments in simulation.
//!
//! Draws N connections from a path population (the seven regions of the
//! Rapid Start production experiment by default, or a TOML population),
//! runs each once per arm on all cores, and streams one stats record per
//! connection and arm to `OUT/records.ndjson` in connection order. Then it
//! prints and writes the summary (`summary.md`, `summary.json`) and the
//! A/B charts (`ab-*.png`, `ab-all.svg`, `paired-all.png`) and report.html.
//! A grid population adds TTLB and packets lost against each varying grid
//! axis: a table per arm printed and in summary.md, and `grid-AXIS.png`,
//! `grid-AXIS.svg`.
//!
//! An interrupted run continues with `--resume`: the records file is cut
//! back to its last whole connection and the run goes on from there; the
//! run's parameters (`fleet.params`) must match.
//!
//! `--shard K/N` runs one contiguous range of the connections and writes
//! its records and a manifest; `ramp fleet merge` joins the shards into
//! the unsharded run's directory, byte for byte (`shard.rs`).

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressStyle};
use ramp_sim::fleet::summary::Summary;
use ramp_sim::fleet::{assumptions, experiments, run, FleetPlan};

use crate::run_dir::{self, Owner};
use ramp_vocab::atomic_file::write_atomic;

pub(crate) mod bench;
mod chart_sample;
mod charts;
mod plan;
mod records;
mod sensitivity;
mod shard;
mod summary;
mod trace_conn;

use chart_sample::ChartSample;
use charts::{grid_results, write_charts};
use plan::{
    arm_labels, bin_order, build_plan, is_legacy_params, metric, params_difference,
    plan_assumptions, plan_spec, scenario_text, PlanSpec,
};
use records::{prepare_resume, row_of, LineCheck, Readback};
pub use shard::Shard;
use summary::{print_grid_table, print_headline, summary_json};

/// Arguments of `ramp fleet`.
#[derive(clap::Args, Debug)]
// A later flag overrides an earlier one: a driver (ramp_lab.dist) can
// prepend defaults and append its own `-o`/`--shard` to a user's command
// line without parsing it.
#[command(args_conflicts_with_subcommands = true, args_override_self = true)]
pub struct Args {
    /// `merge`: join shard directories.
    #[command(subcommand)]
    command: Option<FleetCommand>,
    /// Built-in experiment (see --list-presets).
    #[arg(
        long,
        default_value = "rapid-start-2026",
        value_parser = preset_name(),
        hide_possible_values = true,
        conflicts_with = "population"
    )]
    preset: String,
    /// A population file (TOML: [[region]] tables or a [grid]); see
    /// docs/experiments.md. Arms then come from --arms (default: the
    /// Rapid Start preset's four).
    // This doc comment is --help text, read in a terminal: the TOML
    // brackets are not links.
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long, value_name = "FILE")]
    population: Option<String>,
    /// Arms as `label=spec,...` (commas inside parentheses belong to
    /// options); the first is the baseline. Default: the preset's.
    #[arg(long, value_name = "ARMS")]
    arms: Option<String>,
    /// Connections (each runs once per arm). Grids round up to whole cells.
    #[arg(short = 'n', long, default_value_t = experiments::DEFAULT_CONNECTIONS)]
    connections: u64,
    /// Run seed: connection i's path depends only on (seed, i).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run directory.
    #[arg(short, long, default_value = "fleet-out")]
    out: PathBuf,
    /// Worker threads (0: all cores). The output does not depend on it.
    #[arg(short = 'j', long, default_value_t = 0)]
    threads: usize,
    /// Continue an interrupted run in OUT (same parameters).
    #[arg(long)]
    resume: bool,
    /// Run only shard K of N (connections [K·n/N, (K+1)·n/N)); join the
    /// shards with `ramp fleet merge`.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Write no charts or report.html (records and summary only).
    #[arg(long)]
    no_charts: bool,
    /// Quiet: no progress bar and no start or per-point lines on stderr
    /// (errors still print).
    #[arg(short, long)]
    quiet: bool,
    /// List the built-in experiments and exit.
    #[arg(long)]
    list_presets: bool,
    /// A sensitivity study instead of one run: the fleet once per point of
    /// a design over the declared assumptions (base, each at the low and
    /// high end of its range, then this many Latin-hypercube points; at
    /// least 32 recommended). Writes points.ndjson, sensitivity.md/.json and
    /// tornado.png (docs/sensitivity.md). Shards and merges by point.
    #[arg(long, value_name = "LHS_POINTS", default_value_t = 0)]
    sensitivity: u32,
    /// Rerun connection N of the run alone, every arm, with the
    /// simulator's traces: writes OUT/traces/conn-N-ARM.ndjson,
    /// OUT/qlog/conn-N-ARM.sqlog and OUT/conn-N.records.ndjson (its
    /// records, the same bytes as its lines in records.ndjson). Give the
    /// run's preset or population, arms, -n and seed. A list: 3,17.
    #[arg(
        long,
        value_name = "N",
        value_delimiter = ',',
        conflicts_with_all = ["resume", "shard", "sensitivity", "describe"]
    )]
    trace_conn: Vec<u64>,
    /// Check the arguments, print the run's settings as one JSON object
    /// (out, no_charts, threads, connections, arms, seed, shard) and exit
    /// without running: what a driver that shards the run needs to know.
    #[arg(long)]
    describe: bool,
}

/// The value parser of a `--preset` flag: clap refuses a name that is not
/// a built-in experiment (exit 2, with the names) before any work. The
/// help leaves the names out: `--list-presets` lists them with what each is.
pub(crate) fn preset_name() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(experiments::PRESETS.iter().map(|p| p.0))
}

/// `ramp fleet merge`.
#[derive(clap::Subcommand, Debug)]
enum FleetCommand {
    /// Join the directories of `ramp fleet --shard K/N` runs (all N of them,
    /// any order) into the run directory the unsharded run would write:
    /// records, summary, charts and report, byte for byte.
    Merge {
        /// The shard directories.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Run directory to write.
        #[arg(short, long)]
        out: PathBuf,
        /// Write no charts or report.html.
        #[arg(long)]
        no_charts: bool,
    },
}

const RECORDS: &str = "records.ndjson";
const PARAMS: &str = "fleet.params";
/// How the plan was given, so that `merge` can rebuild it.
const PLAN: &str = "fleet.plan.json";

/// Runs `ramp fleet`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.list_presets {
        for (name, what) in experiments::PRESETS {
            println!("{name:<22} {what}");
            // Each preset's declared assumptions (value, range, reason),
            // indented under it: what its predictions rest on.
            let plan = experiments::plan(name, 1, 1).map_err(|e| anyhow::anyhow!("{e}"))?;
            for a in assumptions::builtin(&plan.population) {
                println!("    assumes {}", a.describe());
            }
        }
        return Ok(());
    }
    if let Some(FleetCommand::Merge {
        dirs,
        out,
        no_charts,
    }) = &args.command
    {
        return merge(dirs, out, *no_charts);
    }
    if let Some(p) = &args.population {
        crate::clobber::refuse_output_over_inputs("--out", &args.out, &[Path::new(p)])?;
    }
    let spec = plan_spec(&args)?;
    let plan = build_plan(&spec)?;
    if args.describe {
        let d = serde_json::json!({
            "out": args.out,
            "no_charts": args.no_charts,
            "threads": args.threads,
            "connections": plan.connections,
            "arms": arm_labels(&plan),
            "seed": plan.seed,
            "shard": args.shard.map(|s| s.to_string()),
            "sensitivity": args.sensitivity,
        });
        println!("{d}");
        return Ok(());
    }
    if !args.trace_conn.is_empty() {
        return trace_conn::trace_conns(&plan, &args.out, &args.trace_conn);
    }
    if args.sensitivity > 0 {
        if args.resume {
            bail!("--resume: a sensitivity study does not resume; run it again into a new --out");
        }
        let study = sensitivity::Study {
            plan: &plan,
            spec: &spec,
            assumptions: plan_assumptions(&spec, &plan)?,
            lhs: args.sensitivity,
        };
        return sensitivity::run_study(
            &study,
            &args.out,
            args.shard,
            args.threads,
            args.no_charts,
            args.quiet,
        );
    }
    if !args.out.join(PARAMS).exists() {
        // (A run directory from before the marker has fleet's parameters.)
        run_dir::check_owner(&args.out, Owner::Fleet)?;
    }
    fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    run_dir::mark(&args.out, Owner::Fleet)?;
    let records = args.out.join(RECORDS);
    let params_path = args.out.join(PARAMS);
    let mut params = plan.fingerprint();
    if let Some(s) = args.shard {
        params.push_str(&s.params_line());
    }
    let (first, end) = match args.shard {
        Some(s) => s.range(plan.connections),
        None => (0, plan.connections),
    };

    let start = if args.resume {
        let old = fs::read_to_string(&params_path).with_context(|| {
            format!(
                "--resume: reading {} (was this directory made by `ramp fleet`?)",
                params_path.display()
            )
        })?;
        if old != params && is_legacy_params(&old) {
            bail!(
                "--resume: {} was written by an older ramp (before fleet.params was readable \
                 text); continue the run with that ramp, or start it again into a new --out",
                params_path.display()
            );
        }
        if old != params {
            bail!(
                "--resume: {} differs from this run's parameters in {}; give the same preset, \
                 population, arms, connections and seed (or a new --out)",
                params_path.display(),
                params_difference(&old, &params)
            );
        }
        first
            + if records.exists() {
                // A whole run reads every record back for its summary
                // below, before simulating; a shard's are read only by the
                // merge, so their `conn`s are checked here.
                let check = match args.shard {
                    Some(_) => LineCheck::EachConn,
                    None => LineCheck::LastOnly,
                };
                prepare_resume(&records, plan.arms.len() as u64, first, check)?
            } else {
                0
            }
    } else {
        if records.exists() {
            bail!(
                "{} exists: use --resume to continue that run, or choose another --out",
                records.display()
            );
        }
        write_atomic(&params_path, params.as_bytes())?;
        first
    };
    // How the plan was given (after the parameters check, so on --resume
    // it describes the same plan): `merge` rebuilds it from this.
    write_atomic(
        &args.out.join(PLAN),
        serde_json::to_string_pretty(&spec)?.as_bytes(),
    )?;
    write_atomic(
        &args.out.join("scenario.toml"),
        scenario_text(&plan).as_bytes(),
    )?;

    let threads = run::effective_threads(args.threads);
    // A whole run summarises its records as it writes them (a shard
    // leaves that to the merge); a resumed one first reads back what is
    // already on disk.
    let mut back = args
        .shard
        .is_none()
        .then(|| readback(&plan, &args.out, args.no_charts, threads));
    if let Some(b) = &mut back {
        if start > first {
            b.read_file(&records)?;
        }
    }
    if start < end {
        let what = match args.shard {
            Some(s) => format!(", shard {s}: connections {first}..{end}"),
            None => String::new(),
        };
        let resumed = if start > first {
            format!(", resuming at connection {start}")
        } else {
            String::new()
        };
        simulate_all(
            &plan,
            &records,
            (start, end),
            &format!("{what}{resumed}"),
            threads,
            args.quiet,
            back.as_mut(),
        )?;
    }
    if let Some(s) = args.shard {
        if !records.exists() {
            // An empty shard (more shards than connections).
            fs::File::create(&records)
                .with_context(|| format!("creating {}", records.display()))?;
        }
        shard::write_manifest(
            &args.out,
            &records,
            s,
            plan.connections,
            &[RECORDS, PARAMS, PLAN],
        )?;
        println!(
            "shard {s}: connections {first}..{end} of {}; wrote {} (records.ndjson, {}); join the \
             shards with `ramp fleet merge DIR... -o OUT`",
            plan.connections,
            args.out.display(),
            shard::MANIFEST
        );
        return Ok(());
    }
    let back = back.unwrap_or_else(|| readback(&plan, &args.out, args.no_charts, threads));
    finish(&plan, &args.out, args.no_charts, back)
}

/// The read-back of a run in `out`: rows kept only for charts and grid
/// tables; the summary at the end uses `threads` threads.
fn readback(plan: &FleetPlan, out: &Path, no_charts: bool, threads: usize) -> Readback {
    let grid = matches!(plan.population, ramp_sim::fleet::Population::Grid(_));
    // A grid's tables (summary.md) are exact: they keep every row.
    let sample = if grid {
        Some(ChartSample::new(plan.seed, usize::MAX))
    } else {
        (!no_charts).then(|| ChartSample::new(plan.seed, chart_connections()))
    };
    Readback::new(out, &arm_labels(plan), sample, threads)
}

/// Connections the charts are drawn from at most:
/// [`chart_sample::CHART_CONNECTIONS`], or `RAMP_CHART_CONNECTIONS` (a
/// test samples a small run with it).
fn chart_connections() -> usize {
    std::env::var("RAMP_CHART_CONNECTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(chart_sample::CHART_CONNECTIONS)
}

/// `ramp fleet merge`: checks the shards, concatenates their records into
/// OUT and writes what the unsharded run writes.
fn merge(dirs: &[PathBuf], out: &Path, no_charts: bool) -> anyhow::Result<()> {
    let inputs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    crate::clobber::refuse_output_over_inputs("--out", out, &inputs)?;
    let Some(first_dir) = dirs.first() else {
        bail!("merge: give the shard directories");
    };
    run_dir::check_owner(out, Owner::Fleet)?;
    fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    run_dir::mark(out, Owner::Fleet)?;
    let records = out.join(RECORDS);
    if records.exists() {
        bail!("{} exists: merge into a new directory", records.display());
    }
    // The plan the shards say they ran (every shard's parameters are
    // checked equal, and equal to this plan's, below).
    let spec_path = first_dir.join(PLAN);
    let spec: PlanSpec = serde_json::from_str(
        &fs::read_to_string(&spec_path)
            .with_context(|| format!("reading {}", spec_path.display()))?,
    )
    .with_context(|| format!("{}: not a plan", spec_path.display()))?;
    let plan = build_plan(&spec)?;
    if spec.sensitivity > 0 {
        let study = sensitivity::Study {
            plan: &plan,
            spec: &spec,
            assumptions: plan_assumptions(&spec, &plan)?,
            lhs: spec.sensitivity,
        };
        return sensitivity::merge_study(&study, dirs, out, no_charts);
    }
    let merge_spec = shard::MergeSpec {
        connections: plan.connections,
        arms: plan.arms.len() as u64,
        records_name: RECORDS,
        params_name: PARAMS,
    };
    // The summary reads each record as the merge copies it: the merged
    // file is written once and not read back.
    // The merge has no --threads: its summary may use every core.
    let mut back = readback(&plan, out, no_charts, run::effective_threads(0));
    let params = shard::merge_records(
        dirs,
        &records,
        &merge_spec,
        params_difference,
        &mut |line| {
            let line = std::str::from_utf8(line).context("not UTF-8")?;
            back.push(row_of(line)?)
        },
    )?;
    // From here on the merged records exist: any failure removes them, so
    // the same merge can simply be run again.
    let done = finish_merge(&plan, &spec, &params, &spec_path, out, no_charts, back);
    if done.is_err() {
        for f in [RECORDS, PARAMS, PLAN, "scenario.toml"] {
            let _ = fs::remove_file(out.join(f));
        }
    }
    done
}

/// The merge after the records are joined: the plan check, then the files
/// the unsharded run writes.
fn finish_merge(
    plan: &FleetPlan,
    spec: &PlanSpec,
    params: &str,
    spec_path: &Path,
    out: &Path,
    no_charts: bool,
    back: Readback,
) -> anyhow::Result<()> {
    if plan.fingerprint() != params {
        bail!(
            "{}: this ramp builds a different plan from the shards' parameters (differs in {}); \
             merge with the ramp that ran the shards",
            spec_path.display(),
            params_difference(params, &plan.fingerprint())
        );
    }
    write_atomic(&out.join(PARAMS), params.as_bytes())?;
    write_atomic(
        &out.join(PLAN),
        serde_json::to_string_pretty(spec)?.as_bytes(),
    )?;
    write_atomic(&out.join("scenario.toml"), scenario_text(plan).as_bytes())?;
    finish(plan, out, no_charts, back)
}

/// Writes a finished run's summary, charts and report from its records as
/// `back` read them, and prints the headline.
fn finish(plan: &FleetPlan, out: &Path, no_charts: bool, back: Readback) -> anyhow::Result<()> {
    let (summary, grids) = write_results(plan, out, no_charts, back)?;
    print_headline(&summary, plan);
    for g in &grids {
        print_grid_table(g);
    }
    println!(
        "\nwrote {} (records.ndjson, summary.md, summary.json{}{})",
        out.display(),
        if no_charts {
            ""
        } else {
            ", ab-*.png, ab-all.svg, paired-all.png, report.html"
        },
        if no_charts || grids.is_empty() {
            String::new()
        } else {
            grids
                .iter()
                .map(|g| format!(", grid-{}.png/.svg", g.axis.name()))
                .collect()
        }
    );
    Ok(())
}

/// Writes summary.md, summary.json and (unless `no_charts`) the charts and
/// report; returns the summary and the grid tables for the terminal.
fn write_results(
    plan: &FleetPlan,
    out: &Path,
    no_charts: bool,
    back: Readback,
) -> anyhow::Result<(Summary, Vec<ramp_plot::GridResult>)> {
    let (summary, sampled) = back.finish(&plan.population.pops(), &bin_order(plan))?;
    let rows = &sampled.rows;
    let summary = summary.with_metric(metric(plan));
    let title = format!(
        "ramp fleet: {} ({} connections, seed {})",
        plan.name, plan.connections, plan.seed
    );
    let grids = grid_results(plan, rows)?;
    let mut md = summary.to_markdown(&title);
    for g in &grids {
        md.push_str(&format!(
            "\n## TTLB (median) and packets lost (mean per connection) against {}\n\n",
            g.axis.describe()
        ));
        if !g.pooled.is_empty() {
            md.push_str(&format!("Pooled over {}.\n\n", g.describe_pooled()));
        }
        md.push_str(&ramp_plot::grid::grid_table_markdown(g));
    }
    write_atomic(&out.join("summary.md"), md.as_bytes())?;
    write_atomic(
        &out.join("summary.json"),
        serde_json::to_string_pretty(&summary_json(&summary, plan))?.as_bytes(),
    )?;
    if !no_charts {
        write_charts(plan, &sampled, &grids, out)?;
    }
    Ok((summary, grids))
}

/// Simulates connections `start..end` into `records` (appending); each
/// record's row also goes to `back`, read from its line on the worker
/// that simulated it (so the summary's share of the serial sink is only
/// the hand-over).
fn simulate_all(
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
    let parse = back.is_some();
    let rows_of = |_, lines: Vec<String>| {
        let rows: Vec<anyhow::Result<_>> = if parse {
            lines.iter().map(|l| row_of(l)).collect()
        } else {
            Vec::new()
        };
        (lines, rows)
    };
    let result = run::run_mapped(plan, opts, rows_of, |i, (lines, rows)| {
        for l in &lines {
            w.write_all(l.as_bytes())
                .and_then(|()| w.write_all(b"\n"))
                .with_context(|| format!("writing {}", records.display()))?;
        }
        if let Some(b) = &mut back {
            for r in rows {
                b.push(r.with_context(|| format!("internal: connection {i}'s record"))?)?;
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
