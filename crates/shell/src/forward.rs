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
use std::time::{Duration, Instant};

use ramp_link::{drop_event, Delivery, ForwardCounters, Link, LinkConfig, Offer, Packet};
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
    /// Packets still in the link (queued, or on their way) when the
    /// shell stopped forwarding: neither delivered nor dropped. With
    /// them, `received` = delivered + drops + malformed + refused + send
    /// errors + these.
    pub left_in_flight: u64,
}

/// The closing line's counters: the relay's, then the shell's own.
impl fmt::Display for DirCounters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}; {} CE marks, {} refused, largest packet {} bytes, {} left in flight at exit",
            self.link, self.marked_ce, self.refused, self.max_packet_bytes, self.left_in_flight
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
    /// Packets a dequeue-time discipline holds (offered, fate not yet
    /// decided).
    held: u64,
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

/// What the loop's owner wants after a wake-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Keep forwarding.
    Forward,
    /// The command exited: forward until the link drains ([`Drain`]).
    Drain,
    /// Stop now (a signal ended the shell).
    Stop,
}

/// What the loop asks its owner after every wake-up.
pub(crate) trait Control {
    /// Whether to go on.
    fn step(&mut self) -> Step;
}

impl<F: FnMut() -> Step> Control for F {
    fn step(&mut self) -> Step {
        self()
    }
}

/// How long the loop goes on forwarding after the command exits.
///
/// When a command exits, the kernel closes its sockets: the FIN, the last
/// data still in a socket's send buffer and the final ACKs are then in the
/// link or not yet sent, and the far end answers them. Cutting the link at
/// once loses them: the far end never sees the connection close (a
/// back-to-back `iperf3` run then finds its server busy). So the loop keeps
/// forwarding, both ways, until nothing is in either direction's link and
/// nothing has moved for `quiet`, but no longer than `cap`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Drain {
    /// How long both directions must have been empty and still.
    pub(crate) quiet: Duration,
    /// The longest the drain may last.
    pub(crate) cap: Duration,
}

impl Drain {
    /// Time the far end's application gets to answer the last packet
    /// delivered to it (e.g. to close its socket on end-of-file) before the
    /// link counts as still. An assumption, not a measured figure: kernel
    /// stacks answer within microseconds; an application on a loaded
    /// machine may take milliseconds. Range that would do: 10-200 ms.
    pub(crate) const QUIET: Duration = Duration::from_millis(50);
    /// Added to one round trip through both full buffers for the cap: room
    /// for a closing handshake and the tail of a socket's send buffer (an
    /// assumption; a command's children that keep sending for ever cannot
    /// hold the shell open longer than this).
    pub(crate) const TAIL: Duration = Duration::from_secs(2);
    /// The longest drain whatever the buffers: a shell ends within this of
    /// its command (an assumption: beyond it a user would think it hung).
    pub(crate) const MAX_CAP: Duration = Duration::from_secs(30);

    /// The drain for links `up` and `down`: the cap is one round trip
    /// through both buffers full ([`LinkConfig::delay`] plus the buffer at
    /// the link's (mean) rate, each way) plus [`Drain::TAIL`].
    pub(crate) fn for_links(up: &LinkConfig, down: &LinkConfig) -> Drain {
        // Saturating, and at most MAX_CAP: a rate of 0 takes for ever.
        let through = |c: &LinkConfig| c.delay.saturating_add(c.rate.transmit_time(c.limit_bytes));
        Drain {
            quiet: Drain::QUIET,
            cap: through(up)
                .saturating_add(through(down))
                .saturating_add(Drain::TAIL)
                .min(Drain::MAX_CAP),
        }
    }
}

/// Forwards until `control` says stop, or until the link drains after it
/// says drain; returns the counters.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    dev: &Devices,
    path: &ShellPath,
    up: Link<Vec<u8>>,
    down: Link<Vec<u8>>,
    drain: Drain,
    log: Option<File>,
    flows: Option<Flows>,
    control: &mut dyn Control,
) -> io::Result<Counters> {
    ramp_host::tight_timer_slack();
    let start = Instant::now();
    let now = || Time::from_nanos(ramp_vocab::time::duration_nanos(start.elapsed()));
    let mut log = Log(log.map(BufWriter::new), flows);
    let mut dirs = [
        Dir::new(Way::Up, up, dev.inner, dev.outer),
        Dir::new(Way::Down, down, dev.outer, dev.inner),
    ];
    let mut buf = vec![0u8; BUF_BYTES];
    // Set once the command has exited: the drain's end at the latest.
    let mut drain_deadline: Option<Time> = None;
    // The last time a packet was read or written.
    let mut last_moved = Time::ZERO;
    loop {
        match control.step() {
            Step::Stop => break,
            Step::Drain if drain_deadline.is_none() => {
                drain_deadline = Some(now() + drain.cap);
            }
            Step::Drain | Step::Forward => {}
        }
        let t = now();
        for d in &mut dirs {
            if d.send_due(t, &mut log) {
                last_moved = t;
            }
        }
        let mut next = dirs.iter().filter_map(Dir::next_due).min();
        if let Some(deadline) = drain_deadline {
            let still_since = last_moved + drain.quiet;
            let empty = dirs.iter().all(Dir::is_empty);
            if t >= deadline || (empty && t >= still_since) {
                break;
            }
            let wake = if empty { still_since } else { deadline };
            next = Some(next.map_or(wake, |n| n.min(wake)));
        }
        let t = now();
        let timeout = next.map(|n| n.saturating_since(t));
        let ready = sys::wait_readable([dirs[0].from, dirs[1].from], timeout)?;
        for (d, r) in dirs.iter_mut().zip(ready) {
            if r && d.read_batch(&mut buf, path, &now, &mut log)? {
                last_moved = now();
            }
        }
    }
    if let Some(w) = &mut log.0 {
        w.flush()?;
    }
    if let Some(f) = &mut log.1 {
        f.finish()?;
    }
    for d in &mut dirs {
        d.c.left_in_flight = d.fifo.len() as u64 + d.held;
    }
    Ok(Counters {
        up: dirs[0].c,
        down: dirs[1].c,
    })
}

impl Dir {
    fn new(way: Way, link: Link<Vec<u8>>, from: RawFd, to: RawFd) -> Dir {
        Dir {
            way,
            link,
            fifo: VecDeque::new(),
            held: 0,
            from,
            to,
            c: DirCounters::default(),
        }
    }

    /// Nothing queued or on its way.
    fn is_empty(&self) -> bool {
        self.fifo.is_empty() && self.held == 0
    }

    fn next_due(&self) -> Option<Time> {
        let head = self.fifo.front().map(|p| p.0);
        match (head, self.link.next_wake()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Runs the discipline's dequeues due by `t` and writes every packet
    /// due by `t`; true if it wrote any.
    fn send_due(&mut self, t: Time, log: &mut Log) -> bool {
        if self.link.next_wake().is_some_and(|w| w <= t) {
            let mut decided = Vec::new();
            self.link.poll(t, |d| decided.push(d));
            self.held = self.held.saturating_sub(decided.len() as u64);
            for d in decided {
                self.decided(d, log);
            }
        }
        let mut wrote = false;
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
            wrote = true;
        }
        wrote
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
    ) -> io::Result<bool> {
        let mut read = false;
        for _ in 0..READ_BATCH {
            let Some(n) = sys::read_packet(self.from, buf)? else {
                return Ok(read);
            };
            read = true;
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
        Ok(read)
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
                // The evicted were held before (possibly this one).
                self.held = (self.held + 1).saturating_sub(evicted.len() as u64);
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
