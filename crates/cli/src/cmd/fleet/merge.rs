//! `ramp fleet merge`: joins the shard directories of `ramp fleet --shard
//! K/N` into the run directory the unsharded run would write.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use ramp_sim::fleet::{run, FleetPlan};

use super::plan::{build_plan, params_difference, plan_assumptions, scenario_text, PlanSpec};
use super::records::{row_of, Readback};
use super::{finish, readback, sensitivity, shard, PARAMS, PLAN, RECORDS};
use crate::run_dir::{self, Owner};
use ramp_vocab::atomic_file::write_atomic;

/// `ramp fleet merge`: checks the shards, concatenates their records into
/// OUT and writes what the unsharded run writes.
pub(super) fn merge(dirs: &[PathBuf], out: &Path, no_charts: bool) -> anyhow::Result<()> {
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
