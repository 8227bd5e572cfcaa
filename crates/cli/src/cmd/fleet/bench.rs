//! `ramp bench fleet`: a fleet run timed by phase, in CPU time (which a
//! busy machine disturbs far less than wall-clock time), at one thread and
//! at N, to show how much of a run is serial and what that allows.
//!
//! Phases: planning (main thread), simulation (every thread; the main
//! thread meanwhile is the sink that writes records.ndjson in connection
//! order and feeds the summary), and the summary at the end (merging the
//! sorted values, writing summary.md and summary.json; main thread, with
//! the bootstrap's Poisson draws on the other threads when there are).
//! Planning and the summary run alone: their CPU over the whole run's CPU
//! at one thread is the serial fraction s, and Amdahl's law turns it into
//! the speed-up N cores could give, `1 / (s + (1 − s)/N)`. The sink runs
//! beside the workers, so it limits the speed-up only once N workers make
//! records faster than it writes them: at (CPU per connection) / (sink CPU
//! per connection).

use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use ramp_sim::fleet::experiments;

use crate::run_dir::{self, Owner};

use super::simulate::simulate_all;
use super::{readback, write_results, RECORDS};

/// CPU seconds of `who` (`RUSAGE_SELF`: the process, every thread that
/// ever ran; `RUSAGE_THREAD`: the calling thread), user plus system.
fn cpu_seconds(who: libc::c_int) -> Option<f64> {
    let mut u = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a `rusage` into the pointer it is given,
    // which points at a zeroed one of the right size.
    let rc = unsafe { libc::getrusage(who, u.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: getrusage succeeded, so `u` is initialised.
    let u = unsafe { u.assume_init() };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    Some(t(u.ru_utime) + t(u.ru_stime))
}

fn process_cpu() -> f64 {
    cpu_seconds(libc::RUSAGE_SELF).unwrap_or(f64::NAN)
}

fn thread_cpu() -> f64 {
    cpu_seconds(libc::RUSAGE_THREAD).unwrap_or(f64::NAN)
}

/// One timed fleet run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Phases {
    /// Worker threads.
    pub(crate) threads: usize,
    /// Connections.
    pub(crate) connections: u64,
    /// Arms (each connection runs once per arm).
    pub(crate) arms: usize,
    /// Wall-clock seconds, whole run.
    pub(crate) wall_s: f64,
    /// CPU seconds of the whole process during the run.
    pub(crate) cpu_s: f64,
    /// Main-thread CPU seconds: planning.
    pub(crate) plan_s: f64,
    /// Main-thread CPU seconds while the workers simulate: the sink
    /// (records written in order, rows handed to the summary).
    pub(crate) sink_s: f64,
    /// Main-thread CPU seconds: the summary's merge and its files.
    pub(crate) summary_s: f64,
    /// CPU seconds of every thread during the summary (its helpers draw
    /// the bootstrap's counts at more than one thread).
    pub(crate) summary_cpu_s: f64,
    /// Wall-clock seconds of the summary.
    pub(crate) summary_wall_s: f64,
}

impl Phases {
    /// Everything the main thread did.
    pub(crate) fn main_thread_s(&self) -> f64 {
        self.plan_s + self.sink_s + self.summary_s
    }
}

/// Runs `preset` with `connections` (seed 1) on `threads` threads into
/// `dir` (records and summary, no charts), timing each phase.
pub(crate) fn measure(
    preset: &str,
    connections: u64,
    threads: usize,
    dir: &Path,
) -> anyhow::Result<Phases> {
    // A fleet run directory (so a mistaken --dir is refused, not emptied).
    run_dir::check_owner(dir, Owner::Fleet)?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    run_dir::mark(dir, Owner::Fleet)?;
    let records = dir.join(RECORDS);
    let _ = std::fs::remove_file(&records);
    let (wall0, cpu0, main0) = (Instant::now(), process_cpu(), thread_cpu());
    let plan = experiments::plan(preset, connections, 1).map_err(|e| anyhow::anyhow!("{e}"))?;
    let main1 = thread_cpu();
    let mut back = readback(&plan, dir, true, threads);
    simulate_all(
        &plan,
        &records,
        (0, plan.connections),
        "",
        threads,
        true,
        Some(&mut back),
    )?;
    let (main2, cpu2, wall2) = (thread_cpu(), process_cpu(), Instant::now());
    write_results(&plan, dir, true, back)?;
    let main3 = thread_cpu();
    let (summary_cpu_s, summary_wall_s) = (process_cpu() - cpu2, wall2.elapsed().as_secs_f64());
    Ok(Phases {
        threads,
        connections: plan.connections,
        arms: plan.arms.len(),
        wall_s: wall0.elapsed().as_secs_f64(),
        cpu_s: process_cpu() - cpu0,
        plan_s: main1 - main0,
        sink_s: main2 - main1,
        summary_s: main3 - main2,
        summary_cpu_s,
        summary_wall_s,
    })
}

/// Amdahl's law: the speed-up of `n` cores when a fraction `serial` of
/// the one-core work cannot run in parallel.
pub(crate) fn amdahl(serial: f64, n: usize) -> f64 {
    1.0 / (serial + (1.0 - serial) / n as f64)
}

/// Arguments of `ramp bench fleet`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Built-in experiment (`ramp fleet --list-presets`).
    #[arg(
        long,
        default_value = "rapid-start-2026",
        value_parser = super::preset_name(),
        hide_possible_values = true
    )]
    preset: String,
    /// Connections (each once per arm); kept small, the machine may be
    /// shared.
    #[arg(short = 'n', long, default_value_t = 4000)]
    connections: u64,
    /// Threads of the parallel run, compared with one (0: all cores).
    #[arg(short = 'j', long, default_value_t = 0)]
    threads: usize,
    /// Scratch directory for the runs' records (default: a new directory
    /// under the system's temporary directory; removed at the end).
    #[arg(long, value_name = "DIR")]
    dir: Option<std::path::PathBuf>,
}

/// Runs `ramp bench fleet`: prints one line per run and the serial
/// fraction, contention and Amdahl figures.
pub(crate) fn run(a: &Args) -> anyhow::Result<()> {
    let n = ramp_sim::fleet::run::effective_threads(a.threads);
    let dir = a.dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("ramp-bench-fleet-{}", std::process::id()))
    });
    let runs: anyhow::Result<Vec<Phases>> = [1, n]
        .iter()
        .map(|&t| measure(&a.preset, a.connections, t, &dir.join(format!("j{t}"))))
        .collect();
    if a.dir.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let runs = runs?;
    let one = runs[0];
    println!(
        "ramp bench fleet: {}, {} connections x {} arms, seed 1, records + summary (no charts)",
        a.preset, one.connections, one.arms
    );
    println!(
        "{:>7} {:>9} {:>9} {:>11} {:>9} {:>9} {:>10} {:>10}",
        "threads", "wall s", "CPU s", "conn/s wall", "plan s", "sink s", "summary s", "main %"
    );
    for r in &runs {
        println!(
            "{:>7} {:>9.2} {:>9.2} {:>11.0} {:>9.3} {:>9.3} {:>10.3} {:>9.2}%",
            r.threads,
            r.wall_s,
            r.cpu_s,
            r.connections as f64 / r.wall_s,
            r.plan_s,
            r.sink_s,
            r.summary_s,
            100.0 * r.main_thread_s() / r.cpu_s
        );
    }
    // Planning and the summary at the end run alone: Amdahl's serial
    // part. The sink runs while the workers simulate (a pipeline stage):
    // it costs nothing until the workers outrun it, and then caps the
    // speed-up at (CPU per connection) / (sink CPU per connection).
    let alone = one.plan_s + one.summary_s;
    let s = alone / one.cpu_s;
    let ceiling = one.cpu_s / one.sink_s;
    let par = runs[runs.len() - 1];
    println!(
        "serial fraction s = (plan + summary CPU) / CPU at 1 thread = {:.3} / {:.2} = {:.2} %",
        alone,
        one.cpu_s,
        100.0 * s
    );
    println!(
        "sink (records written in order, rows to the summary; overlaps the simulation): {:.3} s = \
         {:.2} % of the CPU, so the workers outrun it beyond {:.0} cores",
        one.sink_s,
        100.0 * one.sink_s / one.cpu_s,
        ceiling
    );
    println!(
        "summary at {n} threads: main thread {:.3} s CPU, all threads {:.3} s CPU, {:.3} s wall \
         (its bootstrap draws run on {} helper threads); at 1 thread {:.3} s CPU",
        par.summary_s,
        par.summary_cpu_s,
        par.summary_wall_s,
        par.threads.saturating_sub(1),
        one.summary_s
    );
    let bound = |k: usize| amdahl(s, k).min(ceiling);
    println!(
        "Amdahl: speed-up at {n} threads <= min(1 / (s + (1 - s)/{n}), {ceiling:.0}) = {:.2}x; \
         at 16: {:.2}x; at 64: {:.2}x",
        bound(n),
        bound(16),
        bound(64)
    );
    println!(
        "measured at {n} threads: {:.2}x wall-clock speed-up; CPU per connection {:+.1} % against 1 \
         thread (contention: allocator, caches, memory bandwidth, clock)",
        one.wall_s / par.wall_s,
        100.0 * (par.cpu_s / one.cpu_s - 1.0)
    );
    println!(
        "(wall-clock figures are only meaningful on an otherwise idle machine; CPU figures much \
         less disturbed by other load)"
    );
    Ok(())
}
