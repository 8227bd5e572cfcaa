//! The fleet run's pictures: A/B and paired charts, grid-axis charts and
//! report.html, drawn by ramp-plot from the summary rows.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;

use anyhow::Context;

use ramp_sim::fleet::summary::Row;
use ramp_sim::fleet::{FleetPlan, Population};

use super::chart_sample::Sampled;
use super::plan::{arm_labels, metric};
use super::shard::ConnOnly;
use ramp_vocab::record_keys as k;

/// The records as ramp-plot sees them, made one at a time (each analysis
/// keeps only its own few fields per record, never the JSON maps): only
/// the keys the charts and the report read. Incomplete connections keep
/// no TTLB (the A/B charts leave them out) but count in packets lost.
/// Grid runs get their cell's `grid.*` keys back from the plan
/// (connection i is in cell i / seeds_per_cell). Every record carries its
/// path seed, as records.ndjson does: the report pairs arms by `seed`, and
/// without it the fleet's own report said no path was shared.
pub(super) fn plot_records<'a>(
    plan: &'a FleetPlan,
    rows: &'a [Row],
) -> impl Iterator<Item = ramp_plot::Record> + 'a {
    rows.iter().map(|r| {
        let mut m = serde_json::Map::new();
        m.insert(k::GROUP.into(), r.arm.clone().into());
        m.insert(k::POP.into(), r.pop.clone().into());
        m.insert(k::SIZE_BIN.into(), r.bin.clone().into());
        m.insert(k::CONN.into(), r.conn.into());
        m.insert(
            k::SEED.into(),
            ramp_sim::fleet::path_seed(plan.seed, r.conn).into(),
        );
        m.insert(k::COMPLETED.into(), r.completed.into());
        if r.completed {
            m.insert(k::TTLB_US.into(), r.ttlb_us.into());
        }
        m.insert(k::CONTENT_LENGTH.into(), r.size_bytes.into());
        m.insert(k::PACKETS_SENT.into(), r.packets_sent.into());
        m.insert(k::PACKETS_LOST.into(), r.packets_lost.into());
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
pub(super) fn grid_results(
    plan: &FleetPlan,
    rows: &[Row],
) -> anyhow::Result<Vec<ramp_plot::GridResult>> {
    if !matches!(plan.population, Population::Grid(_)) {
        return Ok(Vec::new());
    }
    let samples = ramp_plot::GridSamples::from_records(plot_records(plan, rows), k::GROUP);
    let arms = arm_labels(plan);
    samples
        .varying_axes()
        .into_iter()
        .map(|axis| Ok(ramp_plot::grid_curves(&samples, axis, &arms)?))
        .collect()
}

/// What the charts were drawn from, in full (the report's title): "N
/// connections", or the sample ([`super::chart_sample`]).
fn drawn_from(plan: &FleetPlan, sampled: &Sampled) -> String {
    if sampled.is_whole() {
        format!("{} connections", plan.connections)
    } else {
        format!(
            "seeded sample of {} of {} connections",
            sampled.conns().len(),
            plan.connections
        )
    }
}

/// The sample as a chart title's last words, short enough that a title
/// fits the image whole: "sample 20000/200000".
fn sample_short(plan: &FleetPlan, sampled: &Sampled) -> String {
    format!("sample {}/{}", sampled.conns().len(), plan.connections)
}

/// The A/B charts (ramp-plot) per region and size bin, the grid charts,
/// and report.html, from the sampled connections' rows.
pub(super) fn write_charts(
    plan: &FleetPlan,
    sampled: &Sampled,
    grids: &[ramp_plot::GridResult],
    out: &Path,
) -> anyhow::Result<()> {
    let rows = &sampled.rows[..];
    let drawn = drawn_from(plan, sampled);
    use ramp_plot::chart::{ab::AbChart, paired::PairedChart, save, style::Theme, GridChart};
    use ramp_plot::{ab_curves_of, paired_deltas_of, AbOptions, AbSamples, Facet};
    let baseline = plan
        .arms
        .first()
        .map(|a| a.label.clone())
        .unwrap_or_default();
    let theme = Theme::Light;
    let mut opts = AbOptions::new(&baseline);
    opts.pair_keys = vec![k::CONN.to_string()];
    // Size panels in size order: bins by the workload's edges (grids: one
    // panel per grid size).
    let size_facet = match &plan.population {
        Population::Grid(_) => Facet::Key(k::SIZE_BIN.into()),
        Population::Regions(_) => {
            Facet::SizeBins(plan.workload.bin_edges.iter().map(|&e| e as f64).collect())
        }
    };
    let facets = [
        ("all", Facet::None, "all connections"),
        (k::POP, Facet::Key(k::POP.into()), "per region"),
        ("size", size_facet, "per object size"),
    ];
    for (stem, facet, what) in facets {
        opts.facet = facet;
        let samples = AbSamples::from_records(plot_records(plan, rows), &opts);
        let ab = ab_curves_of(&samples, &opts)?;
        let chart = AbChart::new(&ab).title(if sampled.is_whole() {
            format!(
                "{}: {} change vs {baseline}, {what} ({drawn})",
                plan.name,
                metric(plan),
            )
        } else {
            format!(
                "{}: {} change vs {baseline}, {what}, {}",
                plan.name,
                metric(plan),
                sample_short(plan, sampled)
            )
        });
        save(&chart, &out.join(format!("ab-{stem}.png")), theme)?;
        if stem == "all" {
            save(&chart, &out.join("ab-all.svg"), theme)?;
            let paired = paired_deltas_of(&samples, &opts)?;
            let chart = PairedChart::new(&paired).title(if sampled.is_whole() {
                format!(
                    "{}: per-connection {} change vs {baseline} (same path, same losses)",
                    plan.name,
                    metric(plan)
                )
            } else {
                format!(
                    "{}: per-connection {} change vs {baseline}, {}",
                    plan.name,
                    metric(plan),
                    sample_short(plan, sampled)
                )
            });
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
        title: if sampled.is_whole() {
            format!("ramp fleet: {}", plan.name)
        } else {
            format!(
                "ramp fleet: {} (charts and tables: {drawn}; summary.md: all)",
                plan.name
            )
        },
        scenario: fs::read_to_string(out.join("scenario.toml")).ok(),
        records: ramp_plot::RunRecords::from_records(plot_records(plan, rows)),
        traces: Vec::new(),
        baseline: Some(baseline),
        // The explorer filters on what records.ndjson has beyond the
        // charts' keys (access, policed, base RTT, rate, AQM).
        explorer: Some(explorer_of(&out.join("records.ndjson"), &sampled.conns())?),
        // From summary.json (written before the charts), as `ramp report
        // DIR` reads it: the two reports of one run show the same figures.
        headline: ramp_plot::read_headline(out)?,
    };
    ramp_plot::write_report(&run, &out.join("report.html"))?;
    Ok(())
}

/// The report explorer's data from the records of connections `conns`
/// (ascending) in `records`, streamed: only their lines are parsed whole.
fn explorer_of(records: &Path, conns: &[u64]) -> anyhow::Result<ramp_plot::ExplorerData> {
    let file = fs::File::open(records).with_context(|| format!("opening {}", records.display()))?;
    let mut b = ramp_plot::ExplorerBuilder::new();
    let source = records.display().to_string();
    for (i, line) in BufReader::with_capacity(1 << 20, file).lines().enumerate() {
        let line = line.with_context(|| format!("reading {}", records.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        let conn = serde_json::from_str::<ConnOnly>(&line)
            .with_context(|| format!("{source}: line {} is not a record", i + 1))?
            .conn;
        if conns.binary_search(&conn).is_ok() {
            for r in ramp_plot::parse_records(&line, &source)? {
                b.push(&r);
            }
        }
    }
    Ok(b.finish())
}
