//! Running a plan on all cores with output in connection order.
//!
//! Workers claim chunks of consecutive connections from a shared counter
//! and send finished chunks to the calling thread, which hands them to the
//! sink strictly in connection order. A worker may not claim a chunk more
//! than [`RunOptions::window`] chunks ahead of the next one to be handed
//! over, so at most `window` chunks of results are ever held, however many
//! connections the run has. Each connection's lines depend only on the plan
//! and its index, so the output is byte-identical at any thread count.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Condvar, Mutex};

use super::FleetPlan;
use crate::SimError;

/// How to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// First connection to run (earlier ones are already on disk).
    pub start: u64,
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

type Chunk = Vec<(u64, Result<Vec<String>, SimError>)>;

struct Gate {
    /// Next chunk a worker may claim.
    next_claim: u64,
    /// Next chunk the sink is waiting for.
    next_write: u64,
}

/// The number of worker threads `threads` means (0: all cores).
pub fn effective_threads(threads: usize) -> usize {
    if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
}

/// Runs connections `opts.start .. plan.connections`, calling
/// `sink(index, lines)` for each in order (`lines`: one per arm, arm
/// order, no newline). Stops at the first error.
pub fn run<E, F>(plan: &FleetPlan, opts: RunOptions, mut sink: F) -> Result<(), RunError<E>>
where
    E: Send,
    F: FnMut(u64, &[String]) -> Result<(), E>,
{
    let chunk = opts.chunk.max(1);
    let window = opts.window.max(1);
    let total = plan.connections;
    if opts.start >= total {
        return Ok(());
    }
    let chunks = (total - opts.start).div_ceil(chunk);
    let threads =
        effective_threads(opts.threads).min(usize::try_from(chunks).unwrap_or(usize::MAX));
    let gate = Mutex::new(Gate {
        next_claim: 0,
        next_write: 0,
    });
    let cv = Condvar::new();
    let abort = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(u64, Chunk)>();

    std::thread::scope(|s| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (gate, cv, abort) = (&gate, &cv, &abort);
            s.spawn(move || loop {
                let c = {
                    let Ok(mut g) = gate.lock() else { return };
                    loop {
                        if abort.load(Ordering::Relaxed) || g.next_claim >= chunks {
                            return;
                        }
                        if g.next_claim < g.next_write + window {
                            break;
                        }
                        g = match cv.wait(g) {
                            Ok(g) => g,
                            Err(_) => return,
                        };
                    }
                    g.next_claim += 1;
                    g.next_claim - 1
                };
                let first = opts.start + c * chunk;
                let last = (first + chunk).min(total);
                let results: Chunk = (first..last).map(|i| (i, plan.run_connection(i))).collect();
                if tx.send((c, results)).is_err() {
                    return;
                }
            });
        }
        drop(tx);

        let mut pending: BTreeMap<u64, Chunk> = BTreeMap::new();
        let mut next = 0u64;
        let mut outcome = Ok(());
        'recv: while next < chunks {
            let Ok((c, results)) = rx.recv() else { break };
            pending.insert(c, results);
            while let Some(results) = pending.remove(&next) {
                for (i, r) in results {
                    let step = match r {
                        Ok(lines) => sink(i, &lines).map_err(RunError::Sink),
                        Err(error) => Err(RunError::Sim {
                            connection: i,
                            error,
                        }),
                    };
                    if let Err(e) = step {
                        outcome = Err(e);
                        break 'recv;
                    }
                }
                next += 1;
                if let Ok(mut g) = gate.lock() {
                    g.next_write = next;
                }
                cv.notify_all();
            }
        }
        if outcome.is_ok() && next < chunks {
            outcome = Err(RunError::Sim {
                connection: opts.start + next * chunk,
                error: SimError("internal: a worker stopped early".into()),
            });
        }
        abort.store(true, Ordering::Relaxed);
        // Take the lock so no worker is between its abort check and wait.
        drop(gate.lock());
        cv.notify_all();
        drop(rx);
        outcome
    })
}
