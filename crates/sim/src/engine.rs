//! The discrete-event engine: a binary heap of events on an integer-ns
//! clock, ties broken by insertion order, driving the flows over the path.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use core::time::Duration;

use ramp_cc::recovery::{RecoveryConfig, Space};
use ramp_cc::{Controller, Time};

use crate::client::{Client, ClientOut, UpPacket, ACK_PACKET_BYTES};
use crate::network::{Fate, Network};
use crate::record::Record;
use crate::scenario::Scenario;
use crate::server::{Datagram, Payload, Phase, Server};
use crate::trace::{CcSnapshot, RttSnapshot, StreamRange, TraceMeta, TraceSink};

/// One flow to simulate.
pub struct FlowSetup {
    /// Its controller (built by the caller from a spec).
    pub controller: Box<dyn Controller>,
    /// A/B arm label for the record (`group`).
    pub group: String,
    /// When its client starts.
    pub start: Duration,
    /// Response size, bytes.
    pub size_bytes: u64,
}

/// What a simulation produced.
#[derive(Debug)]
pub struct SimOutput {
    /// One record per flow, in flow order.
    pub records: Vec<Record>,
    /// Server datagrams offered to the path (all flows).
    pub packets: u64,
    /// Events processed.
    pub events: u64,
}

/// What happens; `Data` and `Up` come from the path FIFOs, the others
/// from the timer heap.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Start,
    Data { d: Datagram, ce: bool },
    Up,
    Wake,
    Timer,
    AckTimer,
}

/// A timer-heap entry (small, so heap moves are cheap).
#[derive(Clone, Copy, Debug)]
enum TimerKind {
    Start,
    Wake,
    Timer,
    AckTimer,
}

#[derive(Clone, Copy, Debug)]
struct Event {
    at: Time,
    flow: u32,
    kind: Kind,
}

#[derive(Clone, Copy, Debug)]
struct HeapEvent {
    at: Time,
    seq: u64,
    flow: u32,
    kind: TimerKind,
}

impl PartialEq for HeapEvent {
    fn eq(&self, o: &Self) -> bool {
        self.at == o.at && self.seq == o.seq
    }
}
impl Eq for HeapEvent {}
impl PartialOrd for HeapEvent {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for HeapEvent {
    /// Reversed, so the max-heap pops the earliest (then first-inserted) event.
    fn cmp(&self, o: &Self) -> Ordering {
        o.at.cmp(&self.at).then(o.seq.cmp(&self.seq))
    }
}

/// The event queue. Packets on the forward path arrive in the order they
/// left the FIFO bottleneck (constant propagation delay), and client packets
/// arrive in send order (the reverse path is FIFO too), so both live in
/// plain FIFOs; only timers and wake-ups need the heap. Every item takes a
/// sequence number from one counter, and the earliest (time, sequence) of
/// the three heads is processed next: the same total order as one heap.
struct Queue {
    heap: BinaryHeap<HeapEvent>,
    fwd: VecDeque<(Time, u64, u32, Datagram, bool)>,
    rev: VecDeque<(Time, u64, u32)>,
    seq: u64,
}

impl Queue {
    #[inline]
    fn push(&mut self, at: Time, flow: u32, kind: TimerKind) {
        self.seq += 1;
        self.heap.push(HeapEvent {
            at,
            seq: self.seq,
            flow,
            kind,
        });
    }

    #[inline]
    fn push_fwd(&mut self, at: Time, flow: u32, d: Datagram, ce: bool) {
        self.seq += 1;
        // Arrivals are non-decreasing (FIFO link, constant delay).
        let at = self.fwd.back().map_or(at, |b| at.max(b.0));
        self.fwd.push_back((at, self.seq, flow, d, ce));
    }

    #[inline]
    fn push_rev(&mut self, at: Time, flow: u32) {
        self.seq += 1;
        let at = self.rev.back().map_or(at, |b| at.max(b.0));
        self.rev.push_back((at, self.seq, flow));
    }

    #[inline]
    fn pop(&mut self) -> Option<Event> {
        let h = self.heap.peek().map(|e| (e.at, e.seq));
        let f = self.fwd.front().map(|e| (e.0, e.1));
        let r = self.rev.front().map(|e| (e.0, e.1));
        let mut best = 0u8;
        let mut key = None;
        for (i, k) in [(1u8, h), (2, f), (3, r)] {
            if let Some(k) = k {
                if key.is_none_or(|b| k < b) {
                    key = Some(k);
                    best = i;
                }
            }
        }
        match best {
            1 => self.heap.pop().map(|e| Event {
                at: e.at,
                flow: e.flow,
                kind: match e.kind {
                    TimerKind::Start => Kind::Start,
                    TimerKind::Wake => Kind::Wake,
                    TimerKind::Timer => Kind::Timer,
                    TimerKind::AckTimer => Kind::AckTimer,
                },
            }),
            2 => self.fwd.pop_front().map(|(at, _, flow, d, ce)| Event {
                at,
                flow,
                kind: Kind::Data { d, ce },
            }),
            3 => self.rev.pop_front().map(|(at, _, flow)| Event {
                at,
                flow,
                kind: Kind::Up,
            }),
            _ => None,
        }
    }
}

struct Flow {
    server: Server,
    client: Client,
    up: VecDeque<UpPacket>,
    group: String,
    wake_at: Option<Time>,
    timer_event: Option<Time>,
    ack_timer_at: Option<Time>,
    drops: [u64; 3],
    size_bytes: u64,
}

/// Runs `flows` over the path of `scenario` with `seed`. `trace` records
/// flow 0.
pub fn simulate(
    scenario: &Scenario,
    flows: Vec<FlowSetup>,
    seed: u64,
    trace: &mut TraceSink,
) -> SimOutput {
    let ep = &scenario.endpoint;
    let mut net = Network::new(&scenario.path, seed);
    let mut q = Queue {
        heap: BinaryHeap::with_capacity(64),
        fwd: VecDeque::with_capacity(1024),
        rev: VecDeque::with_capacity(256),
        seq: 0,
    };
    let recovery = RecoveryConfig {
        max_ack_delay: ep.max_ack_delay,
        ..RecoveryConfig::default()
    };
    let mut fl: Vec<Flow> = Vec::with_capacity(flows.len());
    for (i, f) in flows.into_iter().enumerate() {
        let server = Server::new(
            f.controller,
            recovery.clone(),
            ep.pacer,
            ep.mds,
            f.size_bytes,
            ep.server_flight_bytes,
            ep.ecn,
        );
        let client = Client::new(
            ep.ack_policy,
            ep.max_ack_delay,
            ep.ecn,
            server.crypto_packets(),
            f.size_bytes,
            server.chunk_bytes,
            ep.mds,
        );
        let start = Time::ZERO + f.start;
        q.push(start, i as u32, TimerKind::Start);
        if i == 0 && trace.is_on() {
            let name = server.cc.name();
            trace.meta(
                start,
                &TraceMeta {
                    cc: &name,
                    scenario: &scenario.name,
                    seed,
                    rate_bps: scenario.path.rate.bits_per_sec(),
                    rtt_ms: scenario.path.rtt().as_secs_f64() * 1e3,
                    queue_ms: scenario.path.queue_time().as_secs_f64() * 1e3,
                    loss: scenario.path.loss.mean_loss(),
                    mds: ep.mds,
                    content_length: f.size_bytes,
                    flow: 0,
                    group: &f.group,
                },
            );
        }
        fl.push(Flow {
            server,
            client,
            up: VecDeque::new(),
            group: f.group,
            wake_at: None,
            timer_event: None,
            ack_timer_at: None,
            drops: [0; 3],
            size_bytes: f.size_bytes,
        });
    }
    let limit = Time::ZERO + scenario.time_limit;
    let tracing = trace.is_on();
    let mut dgs: Vec<Datagram> = Vec::with_capacity(64);
    let mut cout = ClientOut::default();
    let mut packets = 0u64;
    let mut events = 0u64;
    let mut remaining = fl.len();

    while let Some(ev) = q.pop() {
        if ev.at > limit {
            break;
        }
        events += 1;
        let now = ev.at;
        let fi = ev.flow as usize;
        let traced = tracing && fi == 0;
        let flow = &mut fl[fi];
        let was_done = flow.server.phase == Phase::Done;
        dgs.clear();
        let mut server_acted = false;
        let mut wake = None;
        match ev.kind {
            Kind::Start => {
                let p = flow.client.start(now);
                send_up(&mut net, &mut q, flow, ev.flow, now, p);
                arm_client_timer(&mut q, flow, ev.flow);
            }
            Kind::Data { d, ce } => {
                flow.client.on_datagram(now, &d, ce, &mut cout);
                if traced {
                    if let Some(b) = cout.delivered {
                        trace.delivered(now, b);
                    }
                }
                cout.delivered = None;
                for p in cout.send.drain(..) {
                    send_up(&mut net, &mut q, flow, ev.flow, now, p);
                }
                arm_client_timer(&mut q, flow, ev.flow);
            }
            Kind::AckTimer => {
                if flow.ack_timer_at == Some(now) {
                    flow.ack_timer_at = None;
                    flow.client.on_timer(now, &mut cout);
                    for p in cout.send.drain(..) {
                        send_up(&mut net, &mut q, flow, ev.flow, now, p);
                    }
                    // The deadline may have moved later since this event
                    // was queued.
                    arm_client_timer(&mut q, flow, ev.flow);
                }
            }
            Kind::Up => {
                server_acted = true;
                match flow.up.pop_front() {
                    Some(UpPacket::Initial { bytes }) => {
                        wake = flow.server.on_client_initial(now, bytes, &mut dgs);
                    }
                    Some(UpPacket::FinishedRequest { bytes }) => {
                        wake = flow.server.on_request(now, bytes, &mut dgs);
                    }
                    Some(UpPacket::Probe { bytes, handshake }) => {
                        if handshake {
                            flow.server.on_client_handshake(bytes);
                            wake = flow.server.try_send(now, &mut dgs);
                        } else {
                            wake = flow.server.on_client_initial(now, bytes, &mut dgs);
                        }
                    }
                    Some(UpPacket::Ack { space, frame }) => {
                        if space == Space::Initial {
                            flow.server
                                .on_client_initial(now, ACK_PACKET_BYTES, &mut dgs);
                        } else {
                            flow.server.on_client_handshake(ACK_PACKET_BYTES);
                        }
                        if traced {
                            trace.ack_received(now, space_name(space), &frame);
                        }
                        wake = flow.server.on_ack(now, space, &frame, &mut dgs);
                        if traced {
                            trace_ack_outcome(trace, now, &flow.server);
                        }
                        flow.client.recycle(frame);
                    }
                    None => {}
                }
            }
            Kind::Wake => {
                if flow.wake_at == Some(now) {
                    flow.wake_at = None;
                    server_acted = true;
                    wake = flow.server.try_send(now, &mut dgs);
                }
            }
            Kind::Timer => {
                if flow.timer_event == Some(now) {
                    flow.timer_event = None;
                    server_acted = true;
                    if flow.server.timer().is_some_and(|t| t <= now) {
                        wake = flow.server.on_timer(now, &mut dgs);
                    }
                    if traced {
                        for p in &flow.server.timeout_out.lost {
                            let (space, stream) = describe(&flow.server, p.payload);
                            trace.lost(
                                now,
                                p.packet_number,
                                p.size,
                                space,
                                stream,
                                "time_threshold",
                            );
                        }
                    }
                }
            }
        }
        if server_acted {
            // Route what the server sent.
            for d in &dgs {
                packets += 1;
                if traced {
                    let (space, stream) = describe(&flow.server, d.payload);
                    let sp = if d.space == Space::Application {
                        "1RTT"
                    } else {
                        space
                    };
                    trace.sent(now, d.pn, u64::from(d.size), sp, stream, d.retx);
                }
                if traced {
                    net.drain_queue(now, |t, bytes, delay| {
                        trace.queue(t, bytes, delay.as_micros() as u64);
                    });
                }
                let fate = net.forward(now, d.size, d.ect);
                if traced {
                    let (bytes, delay) = net.queue_state(now);
                    trace.queue(now, bytes, delay.as_micros() as u64);
                }
                match fate {
                    Fate::Arrives { at, ce } => q.push_fwd(at, ev.flow, *d, ce),
                    Fate::QueueFull => {
                        flow.drops[0] += 1;
                        if traced {
                            trace.drop(now, d.pn, u64::from(d.size), "queue");
                        }
                    }
                    Fate::RandomLoss => {
                        flow.drops[1] += 1;
                        if traced {
                            trace.drop(now, d.pn, u64::from(d.size), "random");
                        }
                    }
                    Fate::Policed => {
                        flow.drops[2] += 1;
                        if traced {
                            trace.drop(now, d.pn, u64::from(d.size), "policer");
                        }
                    }
                }
            }
            // Wake-ups and timers: an event is pushed only when the new
            // deadline is earlier than the one already queued; a later
            // deadline is picked up when the queued event fires (and finds
            // it is early), so the heap stays a handful of events.
            if let Some(t) = wake {
                if flow.wake_at.is_none_or(|w| t < w) {
                    flow.wake_at = Some(t);
                    q.push(t, ev.flow, TimerKind::Wake);
                }
            }
            // Sending only moves the loss-detection timer later (the PTO
            // counts from the newest ack-eliciting send; loss times depend
            // on ACKs), so after a pure send wake-up the queued timer event
            // still fires early enough, and re-reading the timer (a scan of
            // all spaces) is needed only when none is queued.
            let only_sent = matches!(ev.kind, Kind::Wake);
            let timer = if only_sent && flow.timer_event.is_some() {
                None
            } else {
                flow.server.timer()
            };
            if let Some(t) = timer {
                let t = t.max(now);
                if flow.timer_event.is_none_or(|e| t < e) {
                    flow.timer_event = Some(t);
                    q.push(t, ev.flow, TimerKind::Timer);
                }
            }
            if traced {
                trace.cc(now, cc_snapshot(&flow.server));
            }
        }
        if !was_done && flow.server.phase == Phase::Done {
            remaining -= 1;
            if remaining == 0 {
                break;
            }
        }
    }

    if tracing {
        // The queue's tail: departures after the last packet was offered.
        net.drain_queue(Time::MAX, |t, bytes, delay| {
            trace.queue(t, bytes, delay.as_micros() as u64);
        });
    }
    let records = fl
        .iter()
        .enumerate()
        .map(|(i, f)| make_record(scenario, seed, i, f))
        .collect();
    SimOutput {
        records,
        packets,
        events,
    }
}

/// Queues the client's timer (delayed ACK or handshake PTO) if it is
/// earlier than the one already queued; a queued event that finds its
/// deadline moved later re-arms through here.
fn arm_client_timer(q: &mut Queue, flow: &mut Flow, fi: u32) {
    if let Some(t) = flow.client.next_timer() {
        if flow.ack_timer_at.is_none_or(|queued| t < queued) {
            flow.ack_timer_at = Some(t);
            q.push(t, fi, TimerKind::AckTimer);
        }
    }
}

fn send_up(net: &mut Network, q: &mut Queue, flow: &mut Flow, fi: u32, now: Time, p: UpPacket) {
    let bytes = match &p {
        UpPacket::Initial { bytes }
        | UpPacket::FinishedRequest { bytes }
        | UpPacket::Probe { bytes, .. } => *bytes,
        UpPacket::Ack { .. } => ACK_PACKET_BYTES,
    };
    let at = net.reverse(now, bytes as u32);
    flow.up.push_back(p);
    q.push_rev(at, fi);
}

fn space_name(s: Space) -> &'static str {
    match s {
        Space::Initial => "initial",
        Space::Handshake => "handshake",
        Space::Application => "1RTT",
    }
}

fn describe(server: &Server, p: Payload) -> (&'static str, Option<StreamRange>) {
    match p {
        Payload::Crypto(0) => ("initial", None),
        Payload::Crypto(_) => ("handshake", None),
        Payload::Stream(c) => (
            "1RTT",
            Some(StreamRange {
                offset: u64::from(c) * server.chunk_bytes,
                len: server.chunk_len(c),
            }),
        ),
        Payload::Ping => ("1RTT", None),
    }
}

fn trace_ack_outcome(trace: &mut TraceSink, now: Time, server: &Server) {
    let o = &server.ack_out;
    for p in &o.acked {
        trace.acked(now, p.packet_number, p.size);
    }
    for p in &o.lost {
        let (space, stream) = describe(server, p.payload);
        // RFC 9002 §6.1: lost by the packet threshold if kPacketThreshold
        // newer packets were acknowledged, else by the time threshold.
        let sp = match space {
            "initial" => Space::Initial,
            "handshake" => Space::Handshake,
            _ => Space::Application,
        };
        let threshold = server.ld.config().packet_threshold.max(1);
        let by_count = server
            .ld
            .largest_acked(sp)
            .is_some_and(|l| l >= p.packet_number.saturating_add(threshold));
        let trigger = if by_count {
            "reordering_threshold"
        } else {
            "time_threshold"
        };
        trace.lost(now, p.packet_number, p.size, space, stream, trigger);
    }
    if o.rtt_sample.is_some() {
        let r = server.ld.rtt();
        trace.rtt(
            now,
            RttSnapshot {
                latest_us: r.latest().as_micros() as u64,
                min_us: r.min().as_micros() as u64,
                smoothed_us: r.smoothed().as_micros() as u64,
                var_us: r.var().as_micros() as u64,
            },
        );
    }
}

fn cc_snapshot(s: &Server) -> CcSnapshot {
    CcSnapshot {
        cwnd: s.cc.window(),
        inflight: s.ld.bytes_in_flight(),
        ssthresh: s.cc.ssthresh(),
        pacing_bps: s.cc.pacing_rate(s.ld.rtt()).map(|r| r.bits_per_sec()),
        state: s.cc.state().as_str(),
    }
}

fn us(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

fn make_record(sc: &Scenario, seed: u64, i: usize, f: &Flow) -> Record {
    let s = &f.server;
    let c = &f.client;
    let st = s.ld.stats();
    let m = s.cc.metrics();
    let r = s.ld.rtt();
    let name = s.cc.name();
    Record {
        scenario: sc.name.clone(),
        group: if f.group.is_empty() {
            name.clone()
        } else {
            f.group.clone()
        },
        cc_algorithm: name,
        seed,
        flow: i,
        completed: s.phase == Phase::Done,
        content_length: f.size_bytes,
        ttlb_us: match (s.t_request, s.t_done) {
            (Some(a), Some(b)) => us(b - a),
            _ => 0,
        },
        client_ttlb_us: c.t_last_byte.map(|t| us(t - c.t_start)).unwrap_or(0),
        ttfb_us: match (c.t_handshake, c.t_first_byte) {
            (Some(a), Some(b)) => us(b - a),
            _ => 0,
        },
        handshake_us: c.t_handshake.map(|t| us(t - c.t_start)).unwrap_or(0),
        packets_sent: st.packets_sent,
        packets_lost: st.packets_lost,
        packets_acked: st.packets_acked,
        packets_lost_spurious: st.spurious_losses,
        bytes_sent: st.bytes_sent,
        bytes_lost: st.bytes_lost,
        bytes_acked: st.bytes_acked,
        stream_bytes_resent: s.resent_bytes,
        ptos: st.ptos,
        drops_queue: f.drops[0],
        drops_random: f.drops[1],
        drops_policer: f.drops[2],
        rtt_min_us: us(r.min()),
        rtt_smoothed_us: us(r.smoothed()),
        rtt_variance_us: us(r.var()),
        rtt_latest_us: us(r.latest()),
        cwnd: s.cc.window(),
        ssthresh: s.cc.ssthresh(),
        cwnd_initial: s.cc.initial_window(),
        cwnd_exiting_slow_start: m.cwnd_exiting_slow_start_bytes,
        cwnd_maximum: s.cwnd_max,
        num_loss_episodes: m.num_loss_episodes,
        num_ecn_loss_episodes: m.num_ecn_loss_episodes,
        num_spurious_undos: m.num_spurious_undos,
        path_rate_bps: sc.path.rate.bits_per_sec(),
        path_rtt_ms: sc.path.rtt().as_secs_f64() * 1e3,
        path_queue_ms: sc.path.queue_time().as_secs_f64() * 1e3,
        path_loss: sc.path.loss.mean_loss(),
        ack_policy: sc.endpoint.ack_policy.to_string(),
    }
}
