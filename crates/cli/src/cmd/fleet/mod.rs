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
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use ramp_sim::fleet::summary::Summary;
use ramp_sim::fleet::{assumptions, experiments, run, FleetPlan};

use crate::run_dir::{self, Owner};
use ramp_vocab::atomic_file::write_atomic;

pub(crate) mod bench;
mod chart_sample;
mod charts;
mod merge;
mod plan;
mod records;
mod sensitivity;
mod shard;
mod simulate;
mod summary;
mod trace_conn;

use chart_sample::ChartSample;
use charts::{grid_results, write_charts};
use plan::{
    arm_labels, bin_order, build_plan, is_legacy_params, metric, params_difference,
    plan_assumptions, plan_spec, scenario_text,
};
use records::{prepare_resume, LineCheck, Readback};
pub use shard::Shard;
use simulate::simulate_all;
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
        return list_presets();
    }
    if let Some(FleetCommand::Merge {
        dirs,
        out,
        no_charts,
    }) = &args.command
    {
        return merge::merge(dirs, out, *no_charts);
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

    let start = start_or_resume(&args, &plan, &records, &params_path, &params, first)?;
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

/// `ramp fleet --list-presets`: each preset with its declared assumptions
/// (value, range, reason) indented under it: what its predictions rest on.
fn list_presets() -> anyhow::Result<()> {
    for (name, what) in experiments::PRESETS {
        println!("{name:<22} {what}");
        let plan = experiments::plan(name, 1, 1).map_err(|e| anyhow::anyhow!("{e}"))?;
        for a in assumptions::builtin(&plan.population) {
            println!("    assumes {}", a.describe());
        }
    }
    Ok(())
}

/// The first connection to simulate into `out`: with `--resume`, after
/// the records already there, once the parameters are checked to be this
/// run's; otherwise `first`, once `fleet.params` is written (refusing a
/// directory that already holds records).
fn start_or_resume(
    args: &Args,
    plan: &FleetPlan,
    records: &Path,
    params_path: &Path,
    params: &str,
    first: u64,
) -> anyhow::Result<u64> {
    Ok(if args.resume {
        let old = fs::read_to_string(params_path).with_context(|| {
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
                params_difference(&old, params)
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
                prepare_resume(records, plan.arms.len() as u64, first, check)?
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
        write_atomic(params_path, params.as_bytes())?;
        first
    })
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
