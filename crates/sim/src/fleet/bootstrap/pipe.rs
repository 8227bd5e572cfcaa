//! The bootstrap's Poisson counts for the summary's sorted pass, drawn in
//! batches, on helper threads when the summary has more than one.
//!
//! Each value of a bootstrapped series needs its connection's counts
//! (200 draws), and a connection's values are far apart in the sorted
//! order, so the counts are drawn again for every value: at the end of a
//! run this is about a third of the summary's work, and it would run on
//! one core while the others idle. A count depends only on its connection
//! ([`Poisson1::counts`]), so batches of values can be drawn anywhere, in
//! any order; the pass takes the drawn batches back in the order it handed
//! them over and feeds the values to the series in that order, so the
//! summary is the same bytes at any number of helpers.

use std::collections::VecDeque;
use std::io;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::Scope;

use super::{Counts, Poisson1, REPLICATES};

/// Values per batch: big enough that the hand-over (two channel messages)
/// costs nothing beside the draws (512 × 200), small enough that the
/// batches in flight stay well under a megabyte.
pub(crate) const BATCH: usize = 512;

/// Batches in flight per helper beyond the one it is drawing.
const DEPTH: usize = 2;

/// Values of one series (each with its connection) and, once drawn, each
/// connection's counts.
pub(crate) struct Batch {
    /// (value, connection), in the series' ascending order.
    pub(crate) values: Vec<(f64, u32)>,
    /// `counts[i]`: the counts of `values[i]`'s connection.
    pub(crate) counts: Vec<Counts>,
}

impl Batch {
    fn new() -> Batch {
        Batch {
            values: Vec::with_capacity(BATCH),
            counts: Vec::with_capacity(BATCH),
        }
    }

    fn draw(&mut self, p: &Poisson1) {
        self.counts.resize(self.values.len(), [0; REPLICATES]);
        for ((_, conn), c) in self.values.iter().zip(&mut self.counts) {
            p.counts(u64::from(*conn), c);
        }
    }

    /// Whether the batch is full.
    pub(crate) fn is_full(&self) -> bool {
        self.values.len() >= BATCH
    }
}

/// Batches handed over and taken back in order: drawn on the calling
/// thread with no helpers, else round-robin on the helpers.
pub(crate) struct CountPipe<'a> {
    poisson: &'a Poisson1,
    helpers: Vec<(SyncSender<Batch>, Receiver<Batch>)>,
    sent: usize,
    received: usize,
    /// Drawn batches not yet taken back (no helpers).
    drawn: VecDeque<Batch>,
    /// Emptied batches, for reuse.
    spare: Vec<Batch>,
}

fn stopped() -> io::Error {
    io::Error::other("a summary helper thread stopped")
}

impl<'a> CountPipe<'a> {
    /// A pipe with `helpers` threads spawned in `scope` (none: draws on
    /// the calling thread).
    pub(crate) fn new<'env>(
        scope: &'a Scope<'a, 'env>,
        poisson: &'a Poisson1,
        helpers: usize,
    ) -> CountPipe<'a> {
        let helpers = (0..helpers)
            .map(|_| {
                // Capacity for every batch a helper can have in flight, so
                // a helper never waits to hand one back.
                let (to_helper, inbox) = sync_channel::<Batch>(DEPTH + 1);
                let (outbox, from_helper) = sync_channel::<Batch>(DEPTH + 1);
                scope.spawn(move || {
                    for mut b in inbox {
                        b.draw(poisson);
                        if outbox.send(b).is_err() {
                            break;
                        }
                    }
                });
                (to_helper, from_helper)
            })
            .collect();
        CountPipe {
            poisson,
            helpers,
            sent: 0,
            received: 0,
            drawn: VecDeque::new(),
            spare: Vec::new(),
        }
    }

    /// An empty batch.
    pub(crate) fn batch(&mut self) -> Batch {
        self.spare.pop().unwrap_or_else(Batch::new)
    }

    /// Hands `b` over to be drawn. Returns the oldest drawn batch when
    /// enough are in flight (the caller feeds it before handing more).
    pub(crate) fn send(&mut self, mut b: Batch) -> io::Result<Option<Batch>> {
        if self.helpers.is_empty() {
            b.draw(self.poisson);
            self.drawn.push_back(b);
            return self.recv();
        }
        let h = self.helpers.len();
        self.helpers[self.sent % h]
            .0
            .send(b)
            .map_err(|_| stopped())?;
        self.sent += 1;
        if self.sent - self.received > DEPTH * h {
            self.recv()
        } else {
            Ok(None)
        }
    }

    /// The oldest drawn batch not yet taken back, waiting for it; `None`
    /// when none is in flight.
    pub(crate) fn recv(&mut self) -> io::Result<Option<Batch>> {
        if self.helpers.is_empty() {
            return Ok(self.drawn.pop_front());
        }
        if self.received == self.sent {
            return Ok(None);
        }
        let h = self.helpers.len();
        let b = self.helpers[self.received % h]
            .1
            .recv()
            .map_err(|_| stopped())?;
        self.received += 1;
        Ok(Some(b))
    }

    /// Takes back an emptied batch for reuse.
    pub(crate) fn recycle(&mut self, mut b: Batch) {
        b.values.clear();
        b.counts.clear();
        self.spare.push(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_come_back_drawn_and_in_order_at_any_number_of_helpers() {
        let p = Poisson1::new();
        for helpers in [0, 1, 3] {
            std::thread::scope(|scope| {
                let mut pipe = CountPipe::new(scope, &p, helpers);
                let mut next_conn = 0u32;
                let mut check = |b: Batch, pipe: &mut CountPipe| {
                    for (&(v, conn), c) in b.values.iter().zip(&b.counts) {
                        assert_eq!(v, f64::from(next_conn), "{helpers} helpers");
                        assert_eq!(conn, next_conn);
                        let mut want = [0; REPLICATES];
                        p.counts(u64::from(conn), &mut want);
                        assert_eq!(*c, want);
                        next_conn += 1;
                    }
                    pipe.recycle(b);
                };
                let mut conn = 0u32;
                for size in [BATCH, 3, BATCH, 1, BATCH, BATCH, 7, BATCH, BATCH, BATCH] {
                    let mut b = pipe.batch();
                    for _ in 0..size {
                        b.values.push((f64::from(conn), conn));
                        conn += 1;
                    }
                    if let Some(done) = pipe.send(b).unwrap() {
                        check(done, &mut pipe);
                    }
                }
                while let Some(done) = pipe.recv().unwrap() {
                    check(done, &mut pipe);
                }
                assert_eq!(next_conn, conn);
            });
        }
    }
}
