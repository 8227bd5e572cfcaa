//! The forwarding loop: one thread moves packets between the two TUN
//! devices, each direction through its own `ramp-link` [`Link`], and
//! writes every packet out at its modelled delivery time.
//!
//! One thread for both directions: no locks or hand-overs on the path of
//! a packet. It waits in `ppoll` for a packet to read or the next packet
//! (or CoDel dequeue) to fall due, with the timer slack at 1 ns, so a
//! packet leaves within the kernel's wake-up latency of its time.

use std::collections::VecDeque;
use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::fd::RawFd;
use std::time::Instant;

use ramp_link::{drop_event, Delivery, ForwardCounters, Link, Offer, Packet};
use ramp_vocab::{EcnCodepoint, Time};

use crate::addr::ShellPath;
use crate::flows::Flows;
use crate::ip;
use crate::sys;

/// Packets read from one device before the loop looks at the clock again.
const READ_BATCH: usize = 64;
/// Largest packet read; the devices' MTU is far below it.
const BUF_BYTES: usize = 65_536;

/// One direction's counters, printed when the shell ends: the relay's
/// ([`ForwardCounters`]), plus the shell's own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirCounters {
    /// What the link and the forwarding did, as the relay counts it.
    pub link: ForwardCounters,
    /// ECN-capable packets marked CE.
    pub marked_ce: u64,
    /// Packets to a destination the shell does not let the command reach.
    pub refused: u64,
    /// Largest packet read (at most the MTU: no offload super-packets).
    pub max_packet_bytes: u64,
}

/// The closing line's counters: the relay's, then the shell's own.
impl fmt::Display for DirCounters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}; {} CE marks, {} refused, largest packet {} bytes",
            self.link, self.marked_ce, self.refused, self.max_packet_bytes
        )
    }
}

/// Which way a direction carries packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Way {
    /// From the command's namespace out.
    Up,
    /// From outside into the command's namespace.
    Down,
}

impl Way {
    fn name(self) -> &'static str {
        match self {
            Way::Up => "up",
            Way::Down => "down",
        }
    }
}

struct Dir {
    way: Way,
    link: Link<Vec<u8>>,
    /// Packets whose fate is decided, in delivery order.
    fifo: VecDeque<(Time, Vec<u8>)>,
    from: RawFd,
    to: RawFd,
    c: DirCounters,
}

/// The NDJSON event log, in the relay's format, and the flow log.
struct Log(Option<BufWriter<File>>, Option<Flows>);

impl Log {
    fn line(&mut self, f: impl FnOnce() -> String) {
        if let Some(w) = &mut self.0 {
            // A full disk must not stop the forwarding; the log is best effort
            // after it opened.
            let _ = writeln!(w, "{}", f());
        }
    }
}

/// The ends of the forwarding loop.
pub(crate) struct Devices {
    /// The TUN device in the command's namespace.
    pub inner: RawFd,
    /// The TUN device in the namespace the shell runs in.
    pub outer: RawFd,
}

/// Both directions' counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// From the command out.
    pub up: DirCounters,
    /// Into the command's namespace.
    pub down: DirCounters,
}

/// What the loop asks its owner after every wake-up.
pub(crate) trait Control {
    /// True to stop forwarding now.
    fn stop(&mut self) -> bool;
}

impl<F: FnMut() -> bool> Control for F {
    fn stop(&mut self) -> bool {
        self()
    }
}

/// Forwards until `control` says stop; returns the counters.
pub(crate) fn run(
    dev: &Devices,
    path: &ShellPath,
    up: Link<Vec<u8>>,
    down: Link<Vec<u8>>,
    log: Option<File>,
    flows: Option<Flows>,
    control: &mut dyn Control,
) -> io::Result<Counters> {
    ramp_host::tight_timer_slack();
    let start = Instant::now();
    let now = || Time::from_nanos(ramp_vocab::time::duration_nanos(start.elapsed()));
    let mut log = Log(log.map(BufWriter::new), flows);
    let mut dirs = [
        Dir {
            way: Way::Up,
            link: up,
            fifo: VecDeque::new(),
            from: dev.inner,
            to: dev.outer,
            c: DirCounters::default(),
        },
        Dir {
            way: Way::Down,
            link: down,
            fifo: VecDeque::new(),
            from: dev.outer,
            to: dev.inner,
            c: DirCounters::default(),
        },
    ];
    let mut buf = vec![0u8; BUF_BYTES];
    while !control.stop() {
        let t = now();
        for d in &mut dirs {
            d.send_due(t, &mut log);
        }
        let next = dirs.iter().filter_map(Dir::next_due).min();
        let t = now();
        let timeout = next.map(|n| n.saturating_since(t));
        let ready = sys::wait_readable([dirs[0].from, dirs[1].from], timeout)?;
        for (d, r) in dirs.iter_mut().zip(ready) {
            if r {
                d.read_batch(&mut buf, path, &now, &mut log)?;
            }
        }
    }
    if let Some(w) = &mut log.0 {
        w.flush()?;
    }
    if let Some(f) = &mut log.1 {
        f.finish()?;
    }
    Ok(Counters {
        up: dirs[0].c,
        down: dirs[1].c,
    })
}

impl Dir {
    fn next_due(&self) -> Option<Time> {
        let head = self.fifo.front().map(|p| p.0);
        match (head, self.link.next_wake()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Runs the discipline's dequeues due by `t` and writes every packet
    /// due by `t`.
    fn send_due(&mut self, t: Time, log: &mut Log) {
        if self.link.next_wake().is_some_and(|w| w <= t) {
            let mut decided = Vec::new();
            self.link.poll(t, |d| decided.push(d));
            for d in decided {
                self.decided(d, log);
            }
        }
        while self.fifo.front().is_some_and(|p| p.0 <= t) {
            let Some((due, pkt)) = self.fifo.pop_front() else {
                break;
            };
            if let Some(f) = &mut log.1 {
                f.deliver(t, &pkt, self.way == Way::Up);
            }
            match sys::write_packet(self.to, &pkt) {
                Ok(()) => self
                    .c
                    .link
                    .count_delivered(pkt.len() as u64, t.saturating_since(due)),
                Err(_) => self.c.link.send_errors += 1,
            }
        }
    }

    /// A packet's fate: CE-marked and queued for delivery, or counted
    /// and logged as dropped.
    fn decided(&mut self, d: Delivery<Vec<u8>>, log: &mut Log) {
        match d {
            Delivery::Arrives {
                mut payload,
                at,
                ecn,
            } => {
                if ecn == EcnCodepoint::Ce && ip::mark_ce(&mut payload) {
                    self.c.marked_ce += 1;
                }
                self.fifo.push_back((at, payload));
            }
            Delivery::Dropped { payload, at, cause } => {
                self.c.link.count_drop(cause);
                if let Some(f) = &mut log.1 {
                    f.drop_queued(at, &payload, self.way == Way::Up, cause);
                }
                let backlog = self.link.bottleneck_ref().backlog_bytes();
                log.line(|| {
                    format!(
                        "{{\"t-us\":{},\"dir\":\"{}\",\"ev\":\"{}\",\"bytes\":{},\"queue-bytes\":{}}}",
                        at.as_micros(),
                        self.way.name(),
                        drop_event(cause),
                        payload.len(),
                        backlog
                    )
                });
            }
        }
    }

    fn read_batch(
        &mut self,
        buf: &mut [u8],
        path: &ShellPath,
        now: &dyn Fn() -> Time,
        log: &mut Log,
    ) -> io::Result<()> {
        for _ in 0..READ_BATCH {
            let Some(n) = sys::read_packet(self.from, buf)? else {
                return Ok(());
            };
            let t = now();
            self.c.link.received += 1;
            self.c.max_packet_bytes = self.c.max_packet_bytes.max(n as u64);
            let pkt = &buf[..n];
            let Some(h) = ip::parse(pkt) else {
                self.c.link.malformed += 1;
                log.line(|| self.other_event(t, "malformed", n, None));
                continue;
            };
            let allowed = match self.way {
                Way::Up => path.may_reach(h.dst),
                Way::Down => path.contains(h.dst),
            };
            if !allowed {
                self.c.refused += 1;
                log.line(|| self.other_event(t, "refused", n, Some(h.dst)));
                continue;
            }
            self.offer(t, pkt.to_vec(), h, log);
        }
        Ok(())
    }

    fn offer(&mut self, t: Time, pkt: Vec<u8>, h: ip::Header, log: &mut Log) {
        let bytes = pkt.len() as u64;
        // The backlog this packet finds: what has left by now is gone.
        self.link.bottleneck().drain_reporting(t, |_, _, _| {});
        let queue_bytes = self.link.bottleneck_ref().backlog_bytes();
        let up = self.way == Way::Up;
        if let Some(f) = &mut log.1 {
            f.arrive(t, &pkt, up);
        }
        let packet = Packet {
            payload: pkt,
            size: u32::try_from(bytes).unwrap_or(u32::MAX),
            ecn: h.ecn,
            flow: h.flow,
        };
        let ev = match self.link.offer(t, packet) {
            Offer::Now(d @ Delivery::Arrives { .. }) => {
                self.decided(d, &mut Log(None, None));
                self.c.link.max_queue_bytes = self.c.link.max_queue_bytes.max(queue_bytes + bytes);
                "enqueue"
            }
            Offer::Now(Delivery::Dropped { cause, payload, .. }) => {
                self.c.link.count_drop(cause);
                if let Some(f) = &mut log.1 {
                    f.refuse(t, &payload, up, cause);
                }
                drop_event(cause)
            }
            Offer::Held { evicted } => {
                self.c.link.max_queue_bytes = self.c.link.max_queue_bytes.max(queue_bytes + bytes);
                for d in evicted {
                    if let Delivery::Dropped { cause, payload, at } = d {
                        self.c.link.count_drop(cause);
                        if let Some(f) = &mut log.1 {
                            f.drop_queued(at, &payload, up, cause);
                        }
                    }
                }
                "enqueue"
            }
        };
        log.line(|| {
            format!(
                "{{\"t-us\":{},\"dir\":\"{}\",\"ev\":\"{}\",\"bytes\":{},\"queue-bytes\":{}}}",
                t.as_micros(),
                self.way.name(),
                ev,
                bytes,
                queue_bytes
            )
        });
    }

    fn other_event(&self, t: Time, ev: &str, bytes: usize, to: Option<std::net::IpAddr>) -> String {
        let to = to.map(|a| format!(",\"to\":\"{a}\"")).unwrap_or_default();
        format!(
            "{{\"t-us\":{},\"dir\":\"{}\",\"ev\":\"{ev}\",\"bytes\":{bytes}{to}}}",
            t.as_micros(),
            self.way.name()
        )
    }
}
