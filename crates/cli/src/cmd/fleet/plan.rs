//! What a `ramp fleet` run is: the plan built from the command line (or
//! from a merge's saved `fleet.plan.json`), how two runs' parameters
//! differ, and the plan's labels, bins, metric and text for the report.

use std::path::Path;

use anyhow::{bail, Context};
use ramp_sim::fleet::population_file::PopulationFile;
use ramp_sim::fleet::{self, experiments, FleetPlan, Population};

use super::Args;

/// Everything a plan is built from (the command line, with a population
/// file's text rather than its path).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct PlanSpec {
    /// `--preset`.
    preset: String,
    /// A population file: its path as given and its text.
    population: Option<(String, String)>,
    /// `--arms`, as given.
    arms: Option<String>,
    /// `--connections`.
    connections: u64,
    /// `--seed`.
    seed: u64,
    /// `--sensitivity` (0: an ordinary run; absent in plans written before
    /// studies existed).
    #[serde(default)]
    pub(super) sensitivity: u32,
}

/// The name of the run's metric: page load time for page loads, else TTLB.
pub(super) fn metric(plan: &FleetPlan) -> &'static str {
    if plan.workload.pages.is_some() {
        "PLT"
    } else {
        "TTLB"
    }
}

/// The plan's inputs from the command line (a population file is read
/// here, so that its text travels with the run).
pub(super) fn plan_spec(args: &Args) -> anyhow::Result<PlanSpec> {
    let population = match &args.population {
        Some(path) => {
            let text = PopulationFile::read_text(path).context("--population")?;
            Some((path.clone(), text))
        }
        None => None,
    };
    Ok(PlanSpec {
        preset: args.preset.clone(),
        population,
        arms: args.arms.clone(),
        connections: args.connections,
        seed: args.seed,
        sensitivity: args.sensitivity,
    })
}

/// The plan's declared assumptions: a population file's (the built-in
/// ones with its `[[assumption]]` tables in their place), or the built-in
/// ones evaluated on the preset's population.
pub(super) fn plan_assumptions(
    args: &PlanSpec,
    plan: &FleetPlan,
) -> anyhow::Result<Vec<ramp_sim::fleet::assumptions::Assumption>> {
    Ok(match &args.population {
        Some((path, text)) => {
            PopulationFile::parse(text, path)
                .map_err(|e| anyhow::anyhow!("{path}: {e}"))?
                .assumptions
        }
        None => ramp_sim::fleet::assumptions::builtin(&plan.population),
    })
}

/// The plan `args` describe, checked: a preset or a population file,
/// the arms (at least two: every table compares with the first) and at
/// least one connection.
pub(super) fn build_plan(args: &PlanSpec) -> anyhow::Result<FleetPlan> {
    let mut plan = match &args.population {
        Some((path, text)) => {
            let stem = Path::new(path)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.clone());
            let f =
                PopulationFile::parse(text, &stem).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
            let mut base = experiments::base_scenario().map_err(|e| anyhow::anyhow!("{e}"))?;
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
        None => experiments::plan(&args.preset, args.connections, args.seed)
            .map_err(|e| anyhow::anyhow!("--preset: {e}"))?,
    };
    if let Some(list) = &args.arms {
        plan.arms = fleet::parse_arms(list).map_err(|e| anyhow::anyhow!("--arms: {e}"))?;
    }
    plan.validate().map_err(|e| anyhow::anyhow!("{e}"))?;
    if plan.arms.len() < 2 {
        // Every table and chart compares arms with the first: refuse now,
        // not after the whole simulation.
        bail!("--arms: a fleet compares arms against the first; give at least two (e.g. `base=newreno,rapidstart`)");
    }
    if plan.connections == 0 {
        bail!("--connections: must be at least 1");
    }
    Ok(plan)
}

/// The parameters (`key = value` lines of [`FleetPlan::fingerprint`]) in
/// which `old` and `new` differ, e.g. "`seed` (was 1, now 2)".
pub(super) fn params_difference(old: &str, new: &str) -> String {
    let pairs =
        |s| -> Vec<(&str, &str)> { str::lines(s).filter_map(|l| l.split_once(" = ")).collect() };
    let (o, n) = (pairs(old), pairs(new));
    // Keys in first-seen order, each once (`arm` repeats).
    let mut keys: Vec<&str> = Vec::new();
    for (k, _) in o.iter().chain(&n) {
        if !keys.contains(k) {
            keys.push(k);
        }
    }
    let values = |v: &[(&str, &str)], k: &str| -> Vec<String> {
        v.iter()
            .filter(|(x, _)| *x == k)
            .map(|(_, v)| v.to_string())
            .collect()
    };
    let show = |v: &[String]| {
        let t = v.join(", ");
        if t.chars().count() > 60 {
            format!("{}…", t.chars().take(60).collect::<String>())
        } else {
            t
        }
    };
    let out: Vec<String> = keys
        .iter()
        .filter_map(|k| {
            let (ov, nv) = (values(&o, k), values(&n, k));
            (ov != nv).then(|| format!("`{k}` (was {}, now {})", show(&ov), show(&nv)))
        })
        .collect();
    if out.is_empty() {
        "its layout".to_string()
    } else {
        out.join(", ")
    }
}

/// Whether `params` is a `fleet.params` written before the file became
/// readable (its population and workload were Rust `Debug` dumps): such a
/// run continues only with the ramp that started it.
pub(super) fn is_legacy_params(params: &str) -> bool {
    params
        .lines()
        .any(|l| l.starts_with("population = \"Regions(") || l.starts_with("population = \"Grid("))
}

/// The arms' labels, the baseline first.
pub(super) fn arm_labels(plan: &FleetPlan) -> Vec<String> {
    plan.arms.iter().map(|a| a.label.clone()).collect()
}

/// The object-size bins in the order the summary lists them: the grid's
/// sizes, or the workload's bins.
pub(super) fn bin_order(plan: &FleetPlan) -> Vec<String> {
    match &plan.population {
        Population::Grid(g) => g
            .sizes
            .iter()
            .map(|&s| fleet::workload::format_size(s))
            .collect(),
        Population::Regions(_) => plan.workload.bin_labels(),
    }
}

/// The run as text for the report (and to re-run it).
pub(super) fn scenario_text(plan: &FleetPlan) -> String {
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
        }
        Population::Grid(_) => {}
    }
    // The grid's axes, or the workload's sizes and bins, as fleet.params
    // writes them.
    for (k, v) in fleet::params::model_outline(plan) {
        if k.starts_with("grid.") || k.starts_with("workload.") {
            t.push_str(&format!("# {k} = {v}\n"));
        }
    }
    t
}
