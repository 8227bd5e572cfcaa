//! Synthetic traces and records for tests and demos (feature `fixtures`).
//!
//! A toy model, deliberately crude and NOT a simulator (ramp-sim is): one
//! sender over one drop-tail bottleneck, ACK per packet, packet-threshold
//! loss detection plus a probe timer, and two growth rules. It exists so
//! that charts and the report can be exercised on data shaped like the
//! real thing, written exactly in the docs/formats.md formats.

use ramp_vocab::rng::SplitMix64;
use std::collections::{BinaryHeap, VecDeque};
use std::fmt::Write as _;

/// Growth rule of the toy sender.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Growth {
    /// cwnd += acked bytes (2× per round trip), halve on loss.
    SlowStart,
    /// cwnd += 2 × acked bytes (3× per round trip) until the first loss.
    Rapid,
}

/// A toy path and transfer.
#[derive(Debug, Clone, PartialEq)]
pub struct ToyRun {
    /// Arm name written as `group`.
    pub group: String,
    /// Controller name written as `cc` / `cc.algorithm`.
    pub cc: String,
    /// Growth rule.
    pub growth: Growth,
    /// Bottleneck rate, bit/s.
    pub rate_bps: f64,
    /// Base RTT, ms.
    pub rtt_ms: f64,
    /// Queue, ms at the link rate.
    pub queue_ms: f64,
    /// Random loss probability.
    pub loss: f64,
    /// Object size, bytes.
    pub content_length: u64,
    /// Path seed (random losses depend only on it).
    pub seed: u64,
    /// Region label written as `pop`.
    pub pop: String,
}

const MDS: u64 = 1200;
const OVERHEAD: u64 = 52;
const IW_PACKETS: u64 = 10;

#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// Packet reaches the bottleneck.
    Arrive(u64),
    /// Packet leaves the bottleneck.
    Depart,
    /// ACK of a packet reaches the sender.
    Ack(u64),
    /// Probe timer for a packet.
    Probe(u64),
}

/// A toy packet's fate so far.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PktState {
    InFlight,
    Acked,
    Lost,
}

struct Pkt {
    sent_us: u64,
    offset: u64,
    len: u64,
    state: PktState,
}

/// Runs the toy model; returns (trace NDJSON text, record JSON line).
pub fn run(cfg: &ToyRun) -> (String, String) {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{{\"ev\":\"meta\",\"cc\":\"{}\",\"group\":\"{}\",\"scenario\":\"toy\",\"seed\":{},\"path\":{{\"rate-bps\":{},\"rtt-ms\":{},\"queue-ms\":{},\"loss\":{}}},\"mds\":{MDS},\"content_length\":{}}}",
        cfg.cc, cfg.group, cfg.seed, cfg.rate_bps, cfg.rtt_ms, cfg.queue_ms, cfg.loss, cfg.content_length
    );
    let mut toy = Toy::new(cfg);
    toy.send_more();
    while let Some(std::cmp::Reverse((t, _, ev))) = toy.heap.pop() {
        toy.now = t;
        let acted = match ev {
            Ev::Arrive(pn) => toy.on_arrive(pn),
            Ev::Depart => toy.on_depart(),
            Ev::Ack(pn) => toy.on_ack(pn),
            Ev::Probe(pn) => {
                toy.on_probe(pn);
                true
            }
        };
        // An event that changed nothing (a drop, a duplicate ACK) does
        // not end the run; the next one may.
        if acted && toy.done_us > 0 && toy.inflight == 0 {
            break;
        }
    }
    toy.events.sort_by_key(|e| (e.0, e.1));
    for (_, _, line) in &toy.events {
        out.push_str(line);
        out.push('\n');
    }
    (out, toy.record())
}

/// The toy model's state while it runs: the event queue, the
/// bottleneck, the sender and the receiver, and the trace lines written.
struct Toy<'a> {
    cfg: &'a ToyRun,
    bytes_per_us: f64,
    /// The bottleneck's buffer, bytes.
    limit: u64,
    /// A quarter of the base RTT, µs: each of the four legs of a packet's
    /// and its ACK's trip.
    quarter: u64,
    rng: SplitMix64,
    heap: BinaryHeap<std::cmp::Reverse<(u64, u64, Ev)>>,
    hseq: u64,
    /// Trace lines with their time and write order.
    events: Vec<(u64, u64, String)>,
    seq: u64,
    pkts: Vec<Pkt>,
    queue: VecDeque<u64>,
    queue_bytes: u64,
    link_busy: bool,
    cwnd: u64,
    ssthresh: Option<u64>,
    inflight: u64,
    next_offset: u64,
    retx_queue: VecDeque<(u64, u64)>,
    recovery_start: u64,
    in_ss: bool,
    min_rtt: u64,
    srtt: u64,
    latest: u64,
    received: Vec<(u64, u64)>,
    delivered: u64,
    largest_acked: Option<u64>,
    n_lost: u64,
    n_sent: u64,
    n_ptos: u64,
    episodes: u64,
    cwnd_exit_ss: Option<u64>,
    done_us: u64,
    now: u64,
}

impl<'a> Toy<'a> {
    fn new(cfg: &'a ToyRun) -> Self {
        let bytes_per_us = cfg.rate_bps / 8e6;
        Toy {
            cfg,
            bytes_per_us,
            limit: (cfg.queue_ms * 1000.0 * bytes_per_us) as u64,
            quarter: (cfg.rtt_ms * 250.0) as u64,
            rng: SplitMix64::new(cfg.seed),
            heap: BinaryHeap::new(),
            hseq: 0,
            events: Vec::new(),
            seq: 0,
            pkts: Vec::new(),
            queue: VecDeque::new(),
            queue_bytes: 0,
            link_busy: false,
            cwnd: IW_PACKETS * MDS,
            ssthresh: None,
            inflight: 0,
            next_offset: 0,
            retx_queue: VecDeque::new(),
            recovery_start: 0,
            in_ss: true,
            min_rtt: u64::MAX,
            srtt: 0,
            latest: 0,
            received: Vec::new(),
            delivered: 0,
            largest_acked: None,
            n_lost: 0,
            n_sent: 0,
            n_ptos: 0,
            episodes: 0,
            cwnd_exit_ss: None,
            done_us: 0,
            now: 0,
        }
    }

    fn emit(&mut self, t: u64, s: String) {
        self.seq += 1;
        self.events.push((t, self.seq, s));
    }

    fn push(&mut self, t: u64, ev: Ev) {
        self.hseq += 1;
        self.heap.push(std::cmp::Reverse((t, self.hseq, ev)));
    }

    fn cc_event(&mut self) {
        let now = self.now;
        let line = format!(
            "{{\"ev\":\"cc\",\"t-us\":{now},\"cwnd\":{},\"inflight\":{},\"ssthresh\":{},\"pacing-bps\":null,\"state\":\"{}\"}}",
            self.cwnd,
            self.inflight,
            self.ssthresh.map_or("null".to_string(), |s| s.to_string()),
            if self.in_ss { "slow_start" } else if now < self.recovery_start + self.srtt { "recovery" } else { "congestion_avoidance" }
        );
        self.emit(now, line);
    }

    /// Sends while the window allows: retransmissions first, then new data.
    fn send_more(&mut self) {
        let now = self.now;
        while self.inflight + MDS + OVERHEAD <= self.cwnd + OVERHEAD {
            let (offset, len, retx) = if let Some((o, l)) = self.retx_queue.pop_front() {
                (o, l, true)
            } else if self.next_offset < self.cfg.content_length {
                let l = MDS.min(self.cfg.content_length - self.next_offset);
                self.next_offset += l;
                (self.next_offset - l, l, false)
            } else {
                break;
            };
            let pn = self.pkts.len() as u64;
            let bytes = len + OVERHEAD;
            self.pkts.push(Pkt {
                sent_us: now,
                offset,
                len,
                state: PktState::InFlight,
            });
            self.inflight += bytes;
            self.n_sent += 1;
            self.emit(now, format!(
                "{{\"ev\":\"sent\",\"t-us\":{now},\"pn\":{pn},\"bytes\":{bytes},\"offset\":{offset},\"len\":{len},\"retx\":{retx}}}"
            ));
            self.push(now + self.quarter, Ev::Arrive(pn));
            self.push(now + 3 * self.srtt.max(self.quarter * 4), Ev::Probe(pn));
            self.cc_event();
        }
    }

    /// Declares packet `pn` lost if it is still in flight: queue its data
    /// again, and halve the window once per recovery period.
    fn declare_lost(&mut self, pn: u64) {
        let now = self.now;
        let p = &mut self.pkts[pn as usize];
        if p.state != PktState::InFlight {
            return;
        }
        p.state = PktState::Lost;
        let (sent_us, offset, len) = (p.sent_us, p.offset, p.len);
        let bytes = len + OVERHEAD;
        self.inflight -= bytes;
        self.n_lost += 1;
        self.emit(now, format!(
            "{{\"ev\":\"lost\",\"t-us\":{now},\"pn\":{pn},\"bytes\":{bytes},\"offset\":{offset},\"len\":{len}}}"
        ));
        self.retx_queue.push_back((offset, len));
        if sent_us >= self.recovery_start {
            // One reduction per recovery period.
            self.recovery_start = now;
            self.episodes += 1;
            if self.in_ss {
                self.cwnd_exit_ss = Some(self.cwnd);
                self.in_ss = false;
            }
            self.cwnd = (self.cwnd / 2).max(2 * MDS);
            self.ssthresh = Some(self.cwnd);
        }
    }

    fn queue_event(&mut self) {
        let now = self.now;
        let line = format!(
            "{{\"ev\":\"queue\",\"t-us\":{now},\"bytes\":{},\"delay-us\":{}}}",
            self.queue_bytes,
            (self.queue_bytes as f64 / self.bytes_per_us) as u64
        );
        self.emit(now, line);
    }

    /// Packet `pn` reaches the bottleneck; `false` if it was dropped
    /// (buffer full or random loss).
    fn on_arrive(&mut self, pn: u64) -> bool {
        let bytes = self.pkts[pn as usize].len + OVERHEAD;
        if self.queue_bytes + bytes > self.limit || self.rng.next_f64() < self.cfg.loss {
            return false;
        }
        self.queue.push_back(pn);
        self.queue_bytes += bytes;
        self.queue_event();
        if !self.link_busy {
            self.link_busy = true;
            self.push(
                self.now + (bytes as f64 / self.bytes_per_us) as u64,
                Ev::Depart,
            );
        }
        true
    }

    /// The head packet leaves the bottleneck: the receiver delivers in
    /// order a quarter RTT later and ACKs it; `false` if the queue was
    /// empty.
    fn on_depart(&mut self) -> bool {
        let now = self.now;
        let Some(pn) = self.queue.pop_front() else {
            return false;
        };
        let (offset, len) = (self.pkts[pn as usize].offset, self.pkts[pn as usize].len);
        self.queue_bytes -= len + OVERHEAD;
        self.queue_event();
        // Receiver: in-order delivery one quarter RTT later.
        self.received.push((offset, offset + len));
        self.received.sort_unstable();
        let before = self.delivered;
        for &(a, b) in &self.received {
            if a <= self.delivered {
                self.delivered = self.delivered.max(b);
            }
        }
        if self.delivered > before {
            let at = now + self.quarter;
            let delivered = self.delivered;
            self.emit(
                at,
                format!("{{\"ev\":\"delivered\",\"t-us\":{at},\"bytes\":{delivered}}}"),
            );
            if delivered == self.cfg.content_length {
                self.done_us = at;
            }
        }
        self.push(now + 3 * self.quarter, Ev::Ack(pn));
        if let Some(&next) = self.queue.front() {
            let b = self.pkts[next as usize].len + OVERHEAD;
            self.push(now + (b as f64 / self.bytes_per_us) as u64, Ev::Depart);
        } else {
            self.link_busy = false;
        }
        true
    }

    /// The ACK of `pn` reaches the sender: RTT sample, window growth,
    /// packet-threshold loss detection, more sending; `false` if `pn` was
    /// already acknowledged.
    fn on_ack(&mut self, pn: u64) -> bool {
        let now = self.now;
        let p = &mut self.pkts[pn as usize];
        let was = p.state;
        if was == PktState::Acked {
            return false;
        }
        p.state = PktState::Acked;
        let (sent_us, bytes) = (p.sent_us, p.len + OVERHEAD);
        if was == PktState::InFlight {
            self.inflight -= bytes;
        }
        self.emit(
            now,
            format!("{{\"ev\":\"acked\",\"t-us\":{now},\"pn\":{pn},\"bytes\":{bytes}}}"),
        );
        self.latest = now - sent_us;
        self.min_rtt = self.min_rtt.min(self.latest);
        self.srtt = if self.srtt == 0 {
            self.latest
        } else {
            (7 * self.srtt + self.latest) / 8
        };
        self.emit(
            now,
            format!(
            "{{\"ev\":\"rtt\",\"t-us\":{now},\"latest-us\":{},\"min-us\":{},\"smoothed-us\":{}}}",
            self.latest, self.min_rtt, self.srtt
        ),
        );
        if sent_us >= self.recovery_start || self.episodes == 0 {
            let gain = match (self.cfg.growth, self.in_ss) {
                (Growth::Rapid, true) => 2,
                (_, true) => 1,
                // Congestion avoidance: about one MDS per window.
                (_, false) => 0,
            };
            self.cwnd += gain * bytes;
            if !self.in_ss {
                self.cwnd += MDS * bytes / self.cwnd.max(1);
            }
        }
        self.largest_acked = Some(self.largest_acked.map_or(pn, |l: u64| l.max(pn)));
        if let Some(la) = self.largest_acked {
            for old in 0..la.saturating_sub(2) {
                if self.pkts[old as usize].state == PktState::InFlight {
                    self.declare_lost(old);
                }
            }
        }
        self.cc_event();
        self.send_more();
        true
    }

    /// The probe timer of `pn` fires: if it is still in flight and the
    /// transfer not done, it is lost.
    fn on_probe(&mut self, pn: u64) {
        if self.pkts[pn as usize].state == PktState::InFlight && self.done_us == 0 {
            self.n_ptos += 1;
            self.declare_lost(pn);
            self.cc_event();
            self.send_more();
        }
    }

    /// The stats record of the finished run.
    fn record(&self) -> String {
        let cfg = self.cfg;
        let ttlb_us = self.done_us;
        format!(
            "{{\"ttlb\":{},\"ttlb-us\":{ttlb_us},\"content_length\":{},\"num-packets.sent\":{},\"num-packets.lost\":{},\"num-ptos\":{},\"rtt.minimum\":{},\"rtt.smoothed\":{},\"rtt.latest\":{},\"cc.algorithm\":\"{}\",\"cc.cwnd\":{},\"cc.cwnd-exiting-slow-start\":{},\"cc.num-loss-episodes\":{},\"path.rate-bps\":{},\"path.rtt-ms\":{},\"path.queue-ms\":{},\"path.loss\":{},\"seed\":{},\"group\":\"{}\",\"pop\":\"{}\"}}",
            ttlb_us / 1000,
            cfg.content_length,
            self.n_sent,
            self.n_lost,
            self.n_ptos,
            self.min_rtt / 1000,
            self.srtt / 1000,
            self.latest / 1000,
            cfg.cc,
            self.cwnd,
            self.cwnd_exit_ss.unwrap_or(0),
            self.episodes,
            cfg.rate_bps,
            cfg.rtt_ms,
            cfg.queue_ms,
            cfg.loss,
            cfg.seed,
            cfg.group,
            cfg.pop
        )
    }
}

/// The two arms of the demo: `baseline` (slow start) and `rapid`.
pub fn arms() -> Vec<(&'static str, &'static str, Growth)> {
    vec![
        ("baseline", "newreno", Growth::SlowStart),
        ("rapid", "newreno+rapid", Growth::Rapid),
    ]
}

/// A fleet of toy runs: `paths` random paths (seeded), each run under every
/// arm of [`arms`]; returns (records NDJSON, traces as (file name, text)).
/// Traces are kept for the first `keep_traces` paths only.
pub fn fleet(paths: u64, keep_traces: u64) -> (String, Vec<(String, String)>) {
    let pops = ["ams", "nrt", "iad", "gru"];
    let mut rng = SplitMix64::new(2024);
    let mut records = String::new();
    let mut traces = Vec::new();
    for seed in 1..=paths {
        let rate = [10e6, 30e6, 100e6][rng.index(3)];
        let rtt = 10.0 + (rng.next_f64() * 90.0).round();
        let size = [150_000u64, 400_000, 1_000_000][rng.index(3)];
        let pop = pops[rng.index(pops.len())];
        let loss = if rng.next_f64() < 0.3 { 0.002 } else { 0.0 };
        for (group, cc, growth) in arms() {
            let cfg = ToyRun {
                group: group.to_string(),
                cc: cc.to_string(),
                growth,
                rate_bps: rate,
                rtt_ms: rtt,
                queue_ms: rtt,
                loss,
                content_length: size,
                seed,
                pop: pop.to_string(),
            };
            let (trace, record) = run(&cfg);
            records.push_str(&record);
            records.push('\n');
            if seed <= keep_traces {
                traces.push((format!("{group}-{seed}.ndjson"), trace));
            }
        }
    }
    (records, traces)
}
