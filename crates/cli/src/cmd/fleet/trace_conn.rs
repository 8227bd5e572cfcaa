//! `ramp fleet --trace-conn N`: one connection of a run, rerun alone with
//! the simulator's traces. A connection's path and random draws depend
//! only on the plan and its index (`FleetPlan::connection`), so rerunning
//! it gives the record the full run wrote, byte for byte, and the traces
//! show what happened on that path: the worst connection ndq finds in
//! records.ndjson can be looked at packet by packet.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use ramp_sim::fleet::FleetPlan;
use ramp_sim::TraceSink;

use super::plan::{is_legacy_params, params_difference};
use super::PARAMS;
use crate::file_stem::safe_stem;
use crate::run_dir::{self, Owner};

/// Where the NDJSON traces go (`ramp report OUT` draws them from there).
const TRACES: &str = "traces";
/// Where the qlog files go.
const QLOG: &str = "qlog";

/// The files written for one traced connection.
struct Written {
    records: PathBuf,
    traces: Vec<PathBuf>,
}

/// Reruns each connection of `conns` (in the order given, each once) with
/// every arm of `plan`, writing into the run directory `out`:
/// `traces/conn-N-ARM.ndjson`, `qlog/conn-N-ARM.sqlog` and
/// `conn-N.records.ndjson` (the connection's records, one per arm). If
/// `out` holds a run, its parameters must be this plan's.
pub(super) fn trace_conns(plan: &FleetPlan, out: &Path, conns: &[u64]) -> anyhow::Result<()> {
    check_run(plan, out)?;
    if let Some(&n) = conns.iter().find(|&&n| n >= plan.connections) {
        bail!(
            "--trace-conn {n}: the run has connections 0..{} (give its -n)",
            plan.connections
        );
    }
    for d in [TRACES, QLOG] {
        let d = out.join(d);
        fs::create_dir_all(&d).with_context(|| format!("creating {}", d.display()))?;
    }
    run_dir::mark(out, Owner::Fleet)?;
    let mut seen = Vec::new();
    for &n in conns {
        if seen.contains(&n) {
            continue;
        }
        seen.push(n);
        let w = trace_one(plan, out, n)?;
        let c = plan.connection(n);
        println!(
            "connection {n} ({}, {}{}): records {}",
            c.pop,
            c.access.name(),
            if c.policed { ", policed" } else { "" },
            w.records.display()
        );
        for t in &w.traces {
            println!("  trace {}", t.display());
        }
    }
    println!(
        "qlog files are in {}; `ramp report {}` draws the traces",
        out.join(QLOG).display(),
        out.display()
    );
    Ok(())
}

/// Refuses a run directory whose `fleet.params` is another plan's (a
/// shard's adds its shard line; any connection of the run may be traced
/// from it). A directory without one must not belong to another command.
fn check_run(plan: &FleetPlan, out: &Path) -> anyhow::Result<()> {
    let params_path = out.join(PARAMS);
    let old = match fs::read_to_string(&params_path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return run_dir::check_owner(out, Owner::Fleet);
        }
        Err(e) => return Err(e).with_context(|| format!("reading {}", params_path.display())),
    };
    let want = plan.fingerprint();
    // A shard's parameters are the run's and a last `shard = K/N` line.
    let last = old.trim_end_matches('\n').rfind('\n').map_or(0, |i| i + 1);
    let run = if old[last..].starts_with("shard = ") {
        &old[..last]
    } else {
        old.as_str()
    };
    if run != want && is_legacy_params(run) {
        bail!(
            "--trace-conn: {} was written by an older ramp (before fleet.params was readable \
             text); trace the run's connections with that ramp",
            params_path.display()
        );
    }
    if run != want {
        bail!(
            "--trace-conn: {} differs from this command's parameters in {}; give the run's \
             preset or population, arms, -n and seed",
            params_path.display(),
            params_difference(run, &want)
        );
    }
    Ok(())
}

/// Traces every arm of connection `n`.
fn trace_one(plan: &FleetPlan, out: &Path, n: u64) -> anyhow::Result<Written> {
    let create = |p: &Path| -> anyhow::Result<Box<BufWriter<File>>> {
        let f = File::create(p).with_context(|| format!("creating {}", p.display()))?;
        Ok(Box::new(BufWriter::new(f)))
    };
    let mut lines = String::new();
    let mut traces = Vec::new();
    for (i, arm) in plan.arms.iter().enumerate() {
        let stem = format!("conn-{n}-{}", safe_stem(&arm.label));
        let trace = out.join(TRACES).join(format!("{stem}.ndjson"));
        let qlog = out.join(QLOG).join(format!("{stem}.sqlog"));
        let mut sink = TraceSink::off()
            .with_ndjson(create(&trace)?)
            .with_qlog(create(&qlog)?);
        let line = plan
            .trace_connection(n, i, &mut sink)
            .map_err(|e| anyhow::anyhow!("connection {n}, arm {}: {e}", arm.label))?;
        sink.finish()
            .with_context(|| format!("writing {} and {}", trace.display(), qlog.display()))?;
        lines.push_str(&line);
        lines.push('\n');
        traces.push(trace);
    }
    let records = out.join(format!("conn-{n}.records.ndjson"));
    let mut f = create(&records)?;
    f.write_all(lines.as_bytes())
        .and_then(|()| f.flush())
        .with_context(|| format!("writing {}", records.display()))?;
    Ok(Written { records, traces })
}
