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

use std::fs;
use std::io::{BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressStyle};
use ramp_sim::fleet::population_file::PopulationFile;
use ramp_sim::fleet::summary::{summarize, Row, Summary};
use ramp_sim::fleet::{self, presets, run, FleetPlan, Population};

use crate::atomic_file::write_atomic;

/// Arguments of `ramp fleet`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Built-in experiment (see --list-presets).
    #[arg(
        long,
        default_value = "rapid-start-2026",
        conflicts_with = "population"
    )]
    preset: String,
    /// A population file (TOML: [[region]] tables or a [grid]); see
    /// docs/experiments.md. Arms then come from --arms (default: the
    /// Rapid Start preset's four).
    #[arg(long, value_name = "FILE")]
    population: Option<String>,
    /// Arms as `label=spec,...` (commas inside parentheses belong to
    /// options); the first is the baseline. Default: the preset's.
    #[arg(long, value_name = "ARMS")]
    arms: Option<String>,
    /// Connections (each runs once per arm). Grids round up to whole cells.
    #[arg(short = 'n', long, default_value_t = presets::DEFAULT_CONNECTIONS)]
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
    /// Write no charts or report.html (records and summary only).
    #[arg(long)]
    no_charts: bool,
    /// Hide the progress bar.
    #[arg(short, long)]
    quiet: bool,
    /// List the built-in experiments and exit.
    #[arg(long)]
    list_presets: bool,
}

const RECORDS: &str = "records.ndjson";
const PARAMS: &str = "fleet.params";

/// Runs `ramp fleet`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.list_presets {
        for (name, what) in presets::PRESETS {
            println!("{name:<22} {what}");
        }
        return Ok(());
    }
    let plan = build_plan(&args)?;
    fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    let records = args.out.join(RECORDS);
    let params_path = args.out.join(PARAMS);
    let params = plan.fingerprint();

    let start = if args.resume {
        let old = fs::read_to_string(&params_path).with_context(|| {
            format!(
                "--resume: reading {} (was this directory made by `ramp fleet`?)",
                params_path.display()
            )
        })?;
        if old != params {
            bail!(
                "--resume: {} differs from this run's parameters; give the same preset, population, \
                 arms, connections and seed (or a new --out)",
                params_path.display()
            );
        }
        if records.exists() {
            prepare_resume(&records, plan.arms.len() as u64)?
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
        0
    };
    write_atomic(
        &args.out.join("scenario.toml"),
        scenario_text(&plan).as_bytes(),
    )?;

    let threads = run::effective_threads(args.threads);
    if start < plan.connections {
        simulate_all(&plan, &records, start, threads, args.quiet)?;
    }

    let rows = read_rows(&records)?;
    let summary = summarize(
        &rows,
        &arm_labels(&plan),
        &plan.population.pops(),
        &bin_order(&plan),
    );
    let title = format!(
        "ramp fleet: {} ({} connections, seed {})",
        plan.name, plan.connections, plan.seed
    );
    let grids = grid_results(&plan, &rows)?;
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
    write_atomic(&args.out.join("summary.md"), md.as_bytes())?;
    write_atomic(
        &args.out.join("summary.json"),
        serde_json::to_string_pretty(&summary_json(&summary, &plan))?.as_bytes(),
    )?;
    print_headline(&summary, &plan);
    for g in &grids {
        print_grid_table(g);
    }
    if !args.no_charts {
        write_charts(&plan, &rows, &grids, &args.out)?;
    }
    println!(
        "\nwrote {} (records.ndjson, summary.md, summary.json{}{})",
        args.out.display(),
        if args.no_charts {
            ""
        } else {
            ", ab-*.png, ab-all.svg, paired-all.png, report.html"
        },
        if args.no_charts || grids.is_empty() {
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

fn build_plan(args: &Args) -> anyhow::Result<FleetPlan> {
    let mut plan = match &args.population {
        Some(path) => {
            let f = PopulationFile::load(path).map_err(|e| anyhow::anyhow!("{e}"))?;
            let mut base = presets::base_scenario().map_err(|e| anyhow::anyhow!("{e}"))?;
            base.name = f.name.clone();
            let connections = match &f.population {
                Population::Grid(g) => g.connections(),
                Population::Regions(_) => args.connections,
            };
            let seed_arms: Vec<String> = ramp_cc::spec::SEED_ARMS
                .iter()
                .map(|(l, s)| format!("{l}={s}"))
                .collect();
            FleetPlan {
                name: f.name,
                population: f.population,
                workload: f.workload,
                arms: fleet::parse_arms(&seed_arms.join(","))
                    .map_err(|e| anyhow::anyhow!("{e}"))?,
                connections,
                seed: args.seed,
                base,
            }
        }
        None => presets::plan(&args.preset, args.connections, args.seed)
            .map_err(|e| anyhow::anyhow!("--preset: {e}"))?,
    };
    if let Some(list) = &args.arms {
        plan.arms = fleet::parse_arms(list).map_err(|e| anyhow::anyhow!("--arms: {e}"))?;
    }
    plan.validate().map_err(|e| anyhow::anyhow!("{e}"))?;
    if plan.connections == 0 {
        bail!("--connections: must be at least 1");
    }
    Ok(plan)
}

fn arm_labels(plan: &FleetPlan) -> Vec<String> {
    plan.arms.iter().map(|a| a.label.clone()).collect()
}

fn bin_order(plan: &FleetPlan) -> Vec<String> {
    match &plan.population {
        Population::Grid(g) => g
            .sizes
            .iter()
            .map(|&s| fleet::workload::format_size(s))
            .collect(),
        Population::Regions(_) => plan.workload.bin_labels(),
    }
}

/// Cuts `records` back to its last whole connection (`arms` lines each)
/// and returns how many connections it holds. A torn last line (the run
/// was killed mid-write) and a connection with only some of its arms are
/// dropped; they are simulated again.
pub fn prepare_resume(records: &Path, arms: u64) -> anyhow::Result<u64> {
    let mut f = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(records)
        .with_context(|| format!("opening {}", records.display()))?;
    let mut lines = 0u64;
    let mut keep = 0u64; // bytes up to the end of the last whole connection
    let mut offset = 0u64;
    let mut last_conn_line = String::new();
    {
        let mut r = BufReader::new(&mut f);
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = r
                .read_until(b'\n', &mut line)
                .with_context(|| format!("reading {}", records.display()))?;
            if n == 0 || line.last() != Some(&b'\n') {
                break;
            }
            offset += n as u64;
            lines += 1;
            if lines % arms == 0 {
                keep = offset;
                last_conn_line = String::from_utf8_lossy(&line).into_owned();
            }
        }
    }
    let done = lines / arms;
    if done > 0 {
        let v: serde_json::Value =
            serde_json::from_str(last_conn_line.trim()).with_context(|| {
                format!(
                    "--resume: {}: line {} is not a record",
                    records.display(),
                    done * arms
                )
            })?;
        if v.get("conn").and_then(|c| c.as_u64()) != Some(done - 1) {
            bail!(
                "--resume: {}: line {} should be connection {} but is not; the file was not written \
                 by this run",
                records.display(),
                done * arms,
                done - 1
            );
        }
    }
    f.set_len(keep)
        .with_context(|| format!("truncating {}", records.display()))?;
    f.seek(SeekFrom::End(0))?;
    Ok(done)
}

fn simulate_all(
    plan: &FleetPlan,
    records: &Path,
    start: u64,
    threads: usize,
    quiet: bool,
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
        ProgressBar::new(plan.connections)
    };
    progress.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] [{bar:30}] {pos}/{len} connections ({per_sec}, ETA {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    progress.set_position(start);
    eprintln!(
        "ramp fleet: {} — {} connections x {} arms on {} threads{}",
        plan.name,
        plan.connections,
        plan.arms.len(),
        threads,
        if start > 0 {
            format!(", resuming at connection {start}")
        } else {
            String::new()
        }
    );
    let opts = run::RunOptions {
        start,
        threads,
        ..run::RunOptions::default()
    };
    let result = run::run(plan, opts, |_, lines| -> std::io::Result<()> {
        for l in lines {
            w.write_all(l.as_bytes())?;
            w.write_all(b"\n")?;
        }
        progress.inc(1);
        Ok(())
    });
    progress.finish_and_clear();
    let flushed = w.flush();
    result.map_err(|e| anyhow::anyhow!("{e}"))?;
    flushed.with_context(|| format!("writing {}", records.display()))?;
    Ok(())
}

/// Reads the summary's fields back from the records file (so a resumed run
/// summarises everything, not just what this process simulated).
pub fn read_rows(records: &Path) -> anyhow::Result<Vec<Row>> {
    let f = fs::File::open(records).with_context(|| format!("opening {}", records.display()))?;
    let mut rows = Vec::new();
    for (i, line) in BufReader::new(f).lines().enumerate() {
        let line = line.with_context(|| format!("reading {}", records.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("{}: line {}", records.display(), i + 1);
        let v: serde_json::Value = serde_json::from_str(&line).with_context(at)?;
        let text = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
        let num = |k: &str| v.get(k).and_then(|x| x.as_u64());
        let (Some(conn), Some(arm)) = (num("conn"), text("group")) else {
            bail!("{}: not a fleet record (no conn or group)", at());
        };
        rows.push(Row {
            conn,
            arm,
            pop: text("pop").unwrap_or_default(),
            bin: text("size-bin").unwrap_or_default(),
            size_bytes: num("content_length").unwrap_or(0),
            completed: v
                .get("completed")
                .and_then(|x| x.as_bool())
                .unwrap_or(false),
            ttlb_us: num("ttlb-us").unwrap_or(0),
            packets_sent: num("num-packets.sent").unwrap_or(0),
            packets_lost: num("num-packets.lost").unwrap_or(0),
        });
    }
    Ok(rows)
}

fn print_headline(s: &Summary, plan: &FleetPlan) {
    let base = s.arms.first().cloned().unwrap_or_default();
    println!(
        "\n{}: {} connections x {} arms, {} completed in every arm; baseline `{base}`",
        plan.name,
        s.connections,
        s.arms.len(),
        s.global.connections
    );
    println!(
        "\nTTLB change against {base}: average of the per-percentile change over p5..p95 \
         (the seed's method) / change of the mean:"
    );
    let width = std::iter::once(&s.global)
        .chain(&s.by_pop)
        .chain(&s.by_bin)
        .map(|sl| sl.label.chars().count())
        .max()
        .unwrap_or(0)
        .max(16);
    print!("{:<width$} {:>7}", "slice", "n");
    for a in s.arms.iter().skip(1) {
        print!(" {:>22}", a);
    }
    println!();
    for sl in std::iter::once(&s.global).chain(&s.by_pop).chain(&s.by_bin) {
        print!("{:<width$} {:>7}", sl.label, sl.connections);
        for a in sl.arms.iter().skip(1) {
            print!(
                " {:>22}",
                format!(
                    "{:+.1}% / {:+.1}%",
                    a.pctl_change_avg_pct, a.mean_change_pct
                )
            );
        }
        println!();
    }
    println!("\npacket loss ratio (per connection, lost/sent):");
    print!("{:<6}", "");
    for r in &s.loss {
        print!(" {:>14}", r.arm);
    }
    println!();
    print!("{:<6}", "avg.");
    for r in &s.loss {
        print!(" {:>13.2}%", r.avg_pct);
    }
    println!();
    for (i, p) in ramp_sim::fleet::summary::LOSS_PERCENTILES
        .iter()
        .enumerate()
    {
        print!("{:<6}", format!("P{p:.0}"));
        for r in &s.loss {
            print!(" {:>13.2}%", r.percentiles_pct[i]);
        }
        println!();
    }
}

fn num(v: f64) -> serde_json::Value {
    if v.is_finite() {
        serde_json::json!((v * 1e4).round() / 1e4)
    } else {
        serde_json::Value::Null
    }
}

fn summary_json(s: &Summary, plan: &FleetPlan) -> serde_json::Value {
    use serde_json::json;
    let slice = |sl: &ramp_sim::fleet::summary::Slice| {
        json!({
            "label": sl.label,
            "connections": sl.connections,
            "arms": sl.arms.iter().map(|a| json!({
                "arm": a.arm,
                "mean_ms": num(a.mean_ms),
                "mean_change_pct": num(a.mean_change_pct),
                "pctl_change_avg_pct": num(a.pctl_change_avg_pct),
                "deciles_ms": a.deciles_ms.iter().map(|v| num(*v)).collect::<Vec<_>>(),
                "decile_change_pct": a.decile_change_pct.iter().map(|v| num(*v)).collect::<Vec<_>>(),
                "mean_lost_packets": num(a.mean_lost_packets),
            })).collect::<Vec<_>>(),
        })
    };
    let loss = |rows: &[ramp_sim::fleet::summary::LossRow]| {
        rows.iter()
            .map(|r| {
                json!({
                    "arm": r.arm,
                    "connections": r.connections,
                    "avg_pct": num(r.avg_pct),
                    "p50_pct": num(r.percentiles_pct[0]),
                    "p90_pct": num(r.percentiles_pct[1]),
                    "p99_pct": num(r.percentiles_pct[2]),
                })
            })
            .collect::<Vec<_>>()
    };
    json!({
        "name": plan.name,
        "seed": plan.seed,
        "connections": s.connections,
        "excluded": s.excluded,
        "arms": plan.arms.iter().map(|a| json!({"label": a.label, "spec": a.spec.to_string()})).collect::<Vec<_>>(),
        "deciles": ramp_sim::fleet::summary::DECILES,
        "global": slice(&s.global),
        "by_pop": s.by_pop.iter().map(slice).collect::<Vec<_>>(),
        "by_bin": s.by_bin.iter().map(slice).collect::<Vec<_>>(),
        "loss": loss(&s.loss),
        "loss_by_pop": s.loss_by_pop.iter().map(|(p, r)| json!({"pop": p, "arms": loss(r)})).collect::<Vec<_>>(),
    })
}

/// The records as ramp-plot sees them, made one at a time (each analysis
/// keeps only its own few fields per record, never the JSON maps): only
/// the keys the charts and the report read. Incomplete connections keep
/// no TTLB (the A/B charts leave them out) but count in packets lost.
/// Grid runs get their cell's `grid.*` keys back from the plan
/// (connection i is in cell i / seeds_per_cell).
fn plot_records<'a>(
    plan: &'a FleetPlan,
    rows: &'a [Row],
) -> impl Iterator<Item = ramp_plot::Record> + 'a {
    rows.iter().map(|r| {
        let mut m = serde_json::Map::new();
        m.insert("group".into(), r.arm.clone().into());
        m.insert("pop".into(), r.pop.clone().into());
        m.insert("size-bin".into(), r.bin.clone().into());
        m.insert("conn".into(), r.conn.into());
        m.insert("completed".into(), r.completed.into());
        if r.completed {
            m.insert("ttlb-us".into(), r.ttlb_us.into());
        }
        m.insert("content_length".into(), r.size_bytes.into());
        m.insert("num-packets.sent".into(), r.packets_sent.into());
        m.insert("num-packets.lost".into(), r.packets_lost.into());
        if let Population::Grid(g) = &plan.population {
            let c = g.cell_of_connection(r.conn).coords;
            m.insert("grid.cell".into(), c.cell.into());
            m.insert("grid.rate-bps".into(), c.rate_bps.into());
            m.insert("grid.rtt-ms".into(), (c.rtt_us as f64 / 1000.0).into());
            m.insert("grid.queue-ms".into(), (c.queue_us as f64 / 1000.0).into());
            m.insert("grid.loss".into(), c.loss.into());
            m.insert("grid.size-bytes".into(), c.size_bytes.into());
        }
        ramp_plot::Record::new(m)
    })
}

/// For a grid population: TTLB and packets lost against each axis that
/// varies (the other axes pooled), arms in the plan's order.
fn grid_results(plan: &FleetPlan, rows: &[Row]) -> anyhow::Result<Vec<ramp_plot::GridResult>> {
    if !matches!(plan.population, Population::Grid(_)) {
        return Ok(Vec::new());
    }
    let samples = ramp_plot::GridSamples::from_records(plot_records(plan, rows), "group");
    let arms = arm_labels(plan);
    samples
        .varying_axes()
        .into_iter()
        .map(|axis| Ok(ramp_plot::grid_curves(&samples, axis, &arms)?))
        .collect()
}

/// The grid table per arm: TTLB median and mean packets lost per axis value.
fn print_grid_table(g: &ramp_plot::GridResult) {
    println!(
        "\nTTLB median / mean packets lost per connection, against {}{}:",
        g.axis.describe(),
        if g.pooled.is_empty() {
            String::new()
        } else {
            format!(" (pooled over {})", g.describe_pooled())
        }
    );
    print!("{:>12}", g.axis.name());
    for s in &g.series {
        print!(" {:>22}", s.arm);
    }
    println!();
    for &x in &g.values {
        print!("{:>12}", g.axis.format(x));
        for s in &g.series {
            let cell = match s.points.iter().find(|p| p.x == x) {
                Some(p) if p.ttlb_median_ms.is_finite() => {
                    format!("{:.0} ms / {:.1}", p.ttlb_median_ms, p.lost_mean)
                }
                Some(p) => format!("- / {:.1}", p.lost_mean),
                None => "-".to_string(),
            };
            print!(" {cell:>22}");
        }
        println!();
    }
}

/// The A/B charts (ramp-plot) per region and size bin, the grid charts,
/// and report.html.
fn write_charts(
    plan: &FleetPlan,
    rows: &[Row],
    grids: &[ramp_plot::GridResult],
    out: &Path,
) -> anyhow::Result<()> {
    use ramp_plot::chart::{ab::AbChart, paired::PairedChart, save, style::Theme, GridChart};
    use ramp_plot::{ab_curves_of, paired_deltas_of, AbOptions, AbSamples, Facet};
    let baseline = plan
        .arms
        .first()
        .map(|a| a.label.clone())
        .unwrap_or_default();
    let theme = Theme::Light;
    let mut opts = AbOptions::new(&baseline);
    opts.pair_keys = vec!["conn".to_string()];
    // Size panels in size order: bins by the workload's edges (grids: one
    // panel per grid size).
    let size_facet = match &plan.population {
        Population::Grid(_) => Facet::Key("size-bin".into()),
        Population::Regions(_) => {
            Facet::SizeBins(plan.workload.bin_edges.iter().map(|&e| e as f64).collect())
        }
    };
    let facets = [
        ("all", Facet::None, "all connections"),
        ("pop", Facet::Key("pop".into()), "per region"),
        ("size", size_facet, "per object size"),
    ];
    for (stem, facet, what) in facets {
        opts.facet = facet;
        let samples = AbSamples::from_records(plot_records(plan, rows), &opts);
        let ab = ab_curves_of(&samples, &opts)?;
        let chart = AbChart::new(&ab).title(format!(
            "{}: TTLB change vs {baseline}, {what} ({} connections)",
            plan.name, plan.connections
        ));
        save(&chart, &out.join(format!("ab-{stem}.png")), theme)?;
        if stem == "all" {
            save(&chart, &out.join("ab-all.svg"), theme)?;
            let paired = paired_deltas_of(&samples, &opts)?;
            let chart = PairedChart::new(&paired).title(format!(
                "{}: per-connection TTLB change vs {baseline} (same path, same losses)",
                plan.name
            ));
            save(&chart, &out.join("paired-all.png"), theme)?;
        }
    }
    let seeds = match &plan.population {
        Population::Grid(g) => g.seeds_per_cell,
        Population::Regions(_) => 0,
    };
    for g in grids {
        let fixed = g.describe_fixed();
        let chart = GridChart::new(g)
            .title(format!("{}: {}", plan.name, GridChart::default_title(g)))
            .subtitle(format!(
                "{fixed}{}{seeds} seeds per cell, same paths and losses in every arm",
                if fixed.is_empty() { "" } else { "; " }
            ));
        for ext in ["png", "svg"] {
            save(
                &chart,
                &out.join(format!("grid-{}.{ext}", g.axis.name())),
                theme,
            )?;
        }
    }
    let run = ramp_plot::RunData {
        title: format!("ramp fleet: {}", plan.name),
        scenario: fs::read_to_string(out.join("scenario.toml")).ok(),
        records: ramp_plot::RunRecords::from_records(plot_records(plan, rows)),
        traces: Vec::new(),
        baseline: Some(baseline),
    };
    ramp_plot::write_report(&run, &out.join("report.html"))?;
    Ok(())
}

/// The run as text for the report (and to re-run it).
fn scenario_text(plan: &FleetPlan) -> String {
    let mut t = format!(
        "# ramp fleet --preset/--population {}\n# connections = {}\n# seed = {}\n# arms (first is the baseline):\n",
        plan.name, plan.connections, plan.seed
    );
    for a in &plan.arms {
        t.push_str(&format!("#   {} = {}\n", a.label, a.spec));
    }
    match &plan.population {
        Population::Regions(rs) => {
            t.push_str("# regions (equal weights unless stated):\n");
            for r in rs {
                t.push_str(&format!(
                    "#   {} weight {} rate p50 {:.1} Mbit/s, rtt p50 {:.1} ms, mix mobile {:.0}% wifi {:.0}% wired {:.0}% policed {:.0}%\n",
                    r.name,
                    r.weight,
                    r.rate_mbps.at(0.5),
                    r.rtt_ms.at(0.5),
                    r.mix.mobile * 100.0,
                    r.mix.wifi * 100.0,
                    r.mix.wired * 100.0,
                    r.mix.policed * 100.0
                ));
            }
            t.push_str(&format!("# workload: {:?}\n", plan.workload));
        }
        Population::Grid(g) => t.push_str(&format!("# grid: {g:?}\n")),
    }
    t
}
