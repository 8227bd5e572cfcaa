//! Waking a quinn connection when its pacing gate opens.
//!
//! quinn 0.11 re-polls a connection for packets to send when a timer of
//! its own fires, a datagram arrives or the application touches the
//! connection. When [`super::gate`] closes the window because the pacer is
//! out of credit, none of those is due: quinn arms its pacing timer only
//! for its own pacer, and a first flight has no ACK coming to wake it. So
//! the gate books a wake-up here, and one thread per process sleeps until
//! the earliest booked instant and then touches the connection through the
//! cheapest public call that wakes quinn's driver without changing
//! anything: `Connection::set_send_window` with the value already set.
//!
//! Why a thread and not a tokio timer: tokio's timer wheel has 1 ms
//! resolution, while at 100 Mbit/s a 1200-byte packet leaves every 96 µs;
//! a condition variable's timed wait wakes within tens of microseconds on
//! an idle core. The thread idles on the condition variable when nothing
//! is booked.
//!
//! Locks: the gate books from inside quinn's connection lock (quinn calls
//! `window()` holding it), so booking takes only this module's own locks,
//! and the thread releases them before it calls into quinn.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::Instant;

/// One connection's end of the waker: the connection to touch and the
/// earliest wake-up booked for it.
#[derive(Debug, Default)]
pub(crate) struct ConnWake {
    /// Set by [`ConnWake::attach`], cleared by [`ConnWake::detach`]; read by
    /// the gate on every `window()` call, so an atomic rather than the lock.
    attached: AtomicBool,
    /// The connection and the send window it runs with.
    conn: Mutex<Option<(quinn::Connection, u64)>>,
    /// The earliest booked wake-up not yet fired.
    due: Mutex<Option<Instant>>,
}

impl ConnWake {
    /// A waker end with no connection yet: the gate stays inactive (quinn
    /// paces) until [`ConnWake::attach`].
    pub(crate) fn new() -> Arc<ConnWake> {
        Arc::new(ConnWake::default())
    }

    /// Hands over the established connection, whose send window is
    /// `send_window` bytes (the value re-set on each wake-up). Returns
    /// false, and leaves the gate inactive, when the process could not
    /// start the waker thread.
    ///
    /// The connection holds its controller, which holds this waker end:
    /// call [`ConnWake::detach`] once the connection is closed, or the
    /// cycle keeps both alive.
    pub(crate) fn attach(&self, conn: quinn::Connection, send_window: u64) -> bool {
        if waker().is_none() {
            return false;
        }
        *self.conn.lock().unwrap_or_else(|p| p.into_inner()) = Some((conn, send_window));
        self.attached.store(true, AtomicOrdering::Release);
        true
    }

    /// Puts the gate in charge without a connection: wake-ups are booked
    /// and fire into nothing (the adapter's unit tests).
    #[cfg(test)]
    pub(crate) fn attach_without_connection(&self) {
        if waker().is_some() {
            self.attached.store(true, AtomicOrdering::Release);
        }
    }

    /// Drops the connection (breaking the cycle) and deactivates the gate.
    pub(crate) fn detach(&self) {
        self.attached.store(false, AtomicOrdering::Release);
        self.conn.lock().unwrap_or_else(|p| p.into_inner()).take();
    }

    /// Whether a connection is attached (the gate is in charge).
    pub(crate) fn is_attached(&self) -> bool {
        self.attached.load(AtomicOrdering::Acquire)
    }

    /// Books a wake-up at `at`, unless one at or before `at` is booked.
    pub(crate) fn book(self: &Arc<Self>, at: Instant) {
        let Some(w) = waker() else {
            return;
        };
        {
            let mut due = self.due.lock().unwrap_or_else(|p| p.into_inner());
            if due.is_some_and(|d| d <= at) {
                return;
            }
            *due = Some(at);
        }
        w.push(at, Arc::downgrade(self));
    }

    /// A booked instant came: touch the connection so quinn polls it.
    fn fire(&self, now: Instant) {
        {
            let mut due = self.due.lock().unwrap_or_else(|p| p.into_inner());
            if due.is_some_and(|d| d <= now) {
                *due = None;
            }
        }
        let conn = self
            .conn
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|(c, w)| (c.clone(), *w));
        if let Some((conn, send_window)) = conn {
            conn.set_send_window(send_window);
        }
    }
}

/// A booked wake-up; ordered by instant, then by booking order.
struct Entry {
    at: Instant,
    seq: u64,
    conn: Weak<ConnWake>,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed, so that [`BinaryHeap`] pops the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

#[derive(Default)]
struct Queue {
    heap: BinaryHeap<Entry>,
    seq: u64,
}

/// The process's waker thread and its queue.
struct Waker {
    queue: Mutex<Queue>,
    ready: Condvar,
}

impl Waker {
    fn push(&self, at: Instant, conn: Weak<ConnWake>) {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        let seq = q.seq;
        q.seq += 1;
        let earliest = q.heap.peek().is_none_or(|e| at < e.at);
        q.heap.push(Entry { at, seq, conn });
        drop(q);
        if earliest {
            self.ready.notify_one();
        }
    }

    /// The thread's loop: sleep until the earliest entry is due, fire it.
    fn run(&self) {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let now = Instant::now();
            match q.heap.peek().map(|e| e.at) {
                None => {
                    q = self.ready.wait(q).unwrap_or_else(|p| p.into_inner());
                }
                Some(at) if at > now => {
                    q = self
                        .ready
                        .wait_timeout(q, at - now)
                        .unwrap_or_else(|p| p.into_inner())
                        .0;
                }
                Some(_) => {
                    let entry = q.heap.pop();
                    drop(q);
                    if let Some(conn) = entry.and_then(|e| e.conn.upgrade()) {
                        conn.fire(now);
                    }
                    q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
                }
            }
        }
    }
}

/// The process's waker, started on first use; `None` if the thread could
/// not be spawned (the gates then stay inactive and quinn paces).
fn waker() -> Option<&'static Waker> {
    static WAKER: OnceLock<Option<Arc<Waker>>> = OnceLock::new();
    WAKER
        .get_or_init(|| {
            let w = Arc::new(Waker {
                queue: Mutex::new(Queue::default()),
                ready: Condvar::new(),
            });
            let run = w.clone();
            std::thread::Builder::new()
                .name("ramp-pacing-wake".into())
                .spawn(move || run.run())
                .ok()
                .map(|_| w)
        })
        .as_deref()
}
