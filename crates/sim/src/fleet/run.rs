//! Running a plan on all cores with output in connection order: chunks of
//! consecutive connections are the jobs of `crate::parallel::run_ordered`,
//! at most [`RunOptions::window`] chunks ahead of the sink. Each
//! connection's lines depend only on the plan and its index, so the output
//! is byte-identical at any thread count.

use super::{ArmRecord, FleetPlan};
pub use crate::parallel::effective_threads;
use crate::parallel::run_ordered;
use crate::SimError;

/// How to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// First connection to run (earlier ones are already on disk).
    pub start: u64,
    /// One past the last connection to run (capped at the plan's count):
    /// a shard runs a contiguous range.
    pub end: u64,
    /// Worker threads (0: all cores).
    pub threads: usize,
    /// Connections per chunk (the unit of work).
    pub chunk: u64,
    /// Chunks that may be in flight or waiting ahead of the sink.
    pub window: u64,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            start: 0,
            end: u64::MAX,
            threads: 0,
            chunk: 4,
            window: 64,
        }
    }
}

/// Why a run stopped.
#[derive(Debug)]
pub enum RunError<E> {
    /// A connection could not be simulated.
    Sim {
        /// Its index.
        connection: u64,
        /// What went wrong.
        error: SimError,
    },
    /// The sink failed (e.g. the disk is full).
    Sink(E),
}

impl<E: std::fmt::Display> std::fmt::Display for RunError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Sim { connection, error } => write!(f, "connection {connection}: {error}"),
            RunError::Sink(e) => write!(f, "{e}"),
        }
    }
}

type Chunk<T> = Vec<(u64, Result<T, SimError>)>;

/// Runs connections `opts.start .. min(opts.end, plan.connections)`, calling
/// `sink(index, lines)` for each in order (`lines`: one per arm, arm
/// order, no newline). Stops at the first error.
pub fn run<E, F>(plan: &FleetPlan, opts: RunOptions, mut sink: F) -> Result<(), RunError<E>>
where
    E: Send,
    F: FnMut(u64, &[String]) -> Result<(), E>,
{
    run_each(
        plan,
        opts,
        |i| plan.run_connection(i),
        |i, lines| sink(i, &lines),
    )
}

/// [`run`], each connection's arms as [`ArmRecord`]s (the line and the
/// summary's row of its record) with `map(index, arms)` applied on the
/// worker that simulated the connection, and `sink(index, mapped)` called
/// in order: work that depends only on one connection's records then runs
/// in parallel instead of in the sink.
pub fn run_mapped<T, E, M, F>(
    plan: &FleetPlan,
    opts: RunOptions,
    map: M,
    sink: F,
) -> Result<(), RunError<E>>
where
    T: Send,
    E: Send,
    M: Fn(u64, Vec<ArmRecord>) -> T + Sync,
    F: FnMut(u64, T) -> Result<(), E>,
{
    run_each(
        plan,
        opts,
        |i| plan.run_connection_rows(i).map(|arms| map(i, arms)),
        sink,
    )
}

/// Runs `connection(index)` for the range on all cores, handing the
/// results to `sink` in order.
fn run_each<T, E, C, F>(
    plan: &FleetPlan,
    opts: RunOptions,
    connection: C,
    mut sink: F,
) -> Result<(), RunError<E>>
where
    T: Send,
    E: Send,
    C: Fn(u64) -> Result<T, SimError> + Sync,
    F: FnMut(u64, T) -> Result<(), E>,
{
    let chunk = opts.chunk.max(1);
    let total = plan.connections.min(opts.end);
    if opts.start >= total {
        return Ok(());
    }
    let chunks = (total - opts.start).div_ceil(chunk);
    let work = |c: u64| -> Chunk<T> {
        let first = opts.start + c * chunk;
        let last = (first + chunk).min(total);
        (first..last).map(|i| (i, connection(i))).collect()
    };
    let handed = run_ordered(
        chunks,
        opts.threads,
        opts.window,
        work,
        |_, results: Chunk<T>| {
            for (i, r) in results {
                match r {
                    Ok(t) => sink(i, t).map_err(RunError::Sink)?,
                    Err(error) => {
                        return Err(RunError::Sim {
                            connection: i,
                            error,
                        })
                    }
                }
            }
            Ok(())
        },
    )?;
    if handed < chunks {
        return Err(RunError::Sim {
            connection: opts.start + handed * chunk,
            error: SimError::Internal("a worker stopped early"),
        });
    }
    Ok(())
}
