//! The one parallel runner: independent jobs on worker threads, results
//! handed over strictly in job order.
//!
//! Workers claim job indices from a shared counter and send finished
//! results to the calling thread, which gives them to the sink in index
//! order. A worker may not claim a job more than `window` jobs ahead of the
//! next one to be handed over, so at most `window` results are ever held,
//! however many jobs there are. When each job's result depends only on its
//! index, the output is the same at any thread count. The fleet (chunks of
//! connections), `run_arms` and `ramp compare` (one job per arm) all run
//! through here.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Condvar, Mutex};

/// The number of worker threads `threads` means (0: all cores).
pub fn effective_threads(threads: usize) -> usize {
    if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
}

struct Gate {
    /// Next job a worker may claim.
    next_claim: u64,
    /// Next job the sink is waiting for.
    next_write: u64,
}

/// Runs `work(0) .. work(jobs - 1)` on up to `threads` threads (0: all
/// cores), at most `window` jobs ahead of the sink, and calls `sink(i, r)`
/// for each result in index order. Stops at the first sink error and
/// returns it; jobs not yet handed over are dropped. Otherwise returns how
/// many results were handed over: `jobs`, unless a worker died.
pub(crate) fn run_ordered<R, E, W, S>(
    jobs: u64,
    threads: usize,
    window: u64,
    work: W,
    mut sink: S,
) -> Result<u64, E>
where
    R: Send,
    W: Fn(u64) -> R + Sync,
    S: FnMut(u64, R) -> Result<(), E>,
{
    if jobs == 0 {
        return Ok(0);
    }
    let window = window.max(1);
    let threads = effective_threads(threads).min(usize::try_from(jobs).unwrap_or(usize::MAX));
    let gate = Mutex::new(Gate {
        next_claim: 0,
        next_write: 0,
    });
    let cv = Condvar::new();
    let abort = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(u64, R)>();

    std::thread::scope(|s| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (gate, cv, abort, work) = (&gate, &cv, &abort, &work);
            s.spawn(move || loop {
                let job = {
                    let Ok(mut g) = gate.lock() else { return };
                    loop {
                        if abort.load(Ordering::Relaxed) || g.next_claim >= jobs {
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
                if tx.send((job, work(job))).is_err() {
                    return;
                }
            });
        }
        drop(tx);

        let mut pending: BTreeMap<u64, R> = BTreeMap::new();
        let mut next = 0u64;
        let mut failed = None;
        'recv: while next < jobs {
            let Ok((job, r)) = rx.recv() else { break };
            pending.insert(job, r);
            while let Some(r) = pending.remove(&next) {
                if let Err(e) = sink(next, r) {
                    failed = Some(e);
                    break 'recv;
                }
                next += 1;
                if let Ok(mut g) = gate.lock() {
                    g.next_write = next;
                }
                cv.notify_all();
            }
        }
        abort.store(true, Ordering::Relaxed);
        // Take the lock so no worker is between its abort check and wait.
        drop(gate.lock());
        cv.notify_all();
        drop(rx);
        match failed {
            Some(e) => Err(e),
            None => Ok(next),
        }
    })
}

/// `run_ordered` collecting every result, in index order (fewer than
/// `jobs` only if a worker died).
pub fn map_ordered<R, W>(jobs: u64, threads: usize, work: W) -> Vec<R>
where
    R: Send,
    W: Fn(u64) -> R + Sync,
{
    let mut out = Vec::with_capacity(usize::try_from(jobs).unwrap_or(0));
    let collected: Result<u64, core::convert::Infallible> =
        run_ordered(jobs, threads, jobs, work, |_, r| {
            out.push(r);
            Ok(())
        });
    match collected {
        Ok(_) => out,
        Err(never) => match never {},
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_order_at_any_thread_count() {
        for threads in [1, 2, 3, 8] {
            let out = map_ordered(50, threads, |i| i * i);
            assert_eq!(out, (0..50).map(|i| i * i).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_sink_error_stops_the_run() {
        let mut seen = Vec::new();
        let r = run_ordered(
            100,
            2,
            4,
            |i| i,
            |i, _| {
                seen.push(i);
                if i == 10 {
                    Err("full")
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(r, Err("full"));
        assert_eq!(seen, (0..=10).collect::<Vec<_>>());
    }
}
