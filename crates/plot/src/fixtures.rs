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

struct Pkt {
    sent_us: u64,
    offset: u64,
    len: u64,
    state: u8, // 0 in flight, 1 acked, 2 lost
}

/// Runs the toy model; returns (trace NDJSON text, record JSON line).
pub fn run(cfg: &ToyRun) -> (String, String) {
    let mut out = String::new();
    let mut events: Vec<(u64, u64, String)> = Vec::new();
    let mut seq = 0u64;
    let mut emit = |t: u64, s: String| {
        seq += 1;
        events.push((t, seq, s));
    };
    let bytes_per_us = cfg.rate_bps / 8e6;
    let limit = (cfg.queue_ms * 1000.0 * bytes_per_us) as u64;
    let quarter = (cfg.rtt_ms * 250.0) as u64;
    let mut rng = SplitMix64::new(cfg.seed);
    let mut heap: BinaryHeap<std::cmp::Reverse<(u64, u64, Ev)>> = BinaryHeap::new();
    let mut hseq = 0u64;
    let mut push = |heap: &mut BinaryHeap<_>, t: u64, ev: Ev| {
        hseq += 1;
        heap.push(std::cmp::Reverse((t, hseq, ev)));
    };
    let mut pkts: Vec<Pkt> = Vec::new();
    let mut queue: VecDeque<u64> = VecDeque::new();
    let mut queue_bytes = 0u64;
    let mut link_busy = false;
    let mut cwnd = IW_PACKETS * MDS;
    let mut ssthresh: Option<u64> = None;
    let mut inflight = 0u64;
    let mut next_offset = 0u64;
    let mut retx_queue: VecDeque<(u64, u64)> = VecDeque::new();
    let mut recovery_start = 0u64;
    let mut in_ss = true;
    let (mut min_rtt, mut srtt, mut latest) = (u64::MAX, 0u64, 0u64);
    let mut received: Vec<(u64, u64)> = Vec::new();
    let mut delivered = 0u64;
    let mut largest_acked: Option<u64> = None;
    let (mut n_lost, mut n_sent, mut n_ptos, mut episodes) = (0u64, 0u64, 0u64, 0u64);
    let mut cwnd_exit_ss: Option<u64> = None;
    let mut done_us = 0u64;
    let mut now = 0u64;

    macro_rules! cc_event {
        () => {
            emit(
                now,
                format!(
                    "{{\"ev\":\"cc\",\"t-us\":{now},\"cwnd\":{cwnd},\"inflight\":{inflight},\"ssthresh\":{},\"pacing-bps\":null,\"state\":\"{}\"}}",
                    ssthresh.map_or("null".to_string(), |s| s.to_string()),
                    if in_ss { "slow_start" } else if now < recovery_start + srtt { "recovery" } else { "congestion_avoidance" }
                ),
            )
        };
    }
    macro_rules! send_more {
        () => {
            while inflight + MDS + OVERHEAD <= cwnd + OVERHEAD {
                let (offset, len, retx) = if let Some((o, l)) = retx_queue.pop_front() {
                    (o, l, true)
                } else if next_offset < cfg.content_length {
                    let l = MDS.min(cfg.content_length - next_offset);
                    next_offset += l;
                    (next_offset - l, l, false)
                } else {
                    break;
                };
                let pn = pkts.len() as u64;
                let bytes = len + OVERHEAD;
                pkts.push(Pkt { sent_us: now, offset, len, state: 0 });
                inflight += bytes;
                n_sent += 1;
                emit(now, format!(
                    "{{\"ev\":\"sent\",\"t-us\":{now},\"pn\":{pn},\"bytes\":{bytes},\"offset\":{offset},\"len\":{len},\"retx\":{retx}}}"
                ));
                push(&mut heap, now + quarter, Ev::Arrive(pn));
                push(&mut heap, now + 3 * srtt.max(quarter * 4), Ev::Probe(pn));
                cc_event!();
            }
        };
    }
    macro_rules! declare_lost {
        ($pn:expr) => {{
            let p = &mut pkts[$pn as usize];
            if p.state == 0 {
                p.state = 2;
                let bytes = p.len + OVERHEAD;
                inflight -= bytes;
                n_lost += 1;
                emit(now, format!(
                    "{{\"ev\":\"lost\",\"t-us\":{now},\"pn\":{},\"bytes\":{bytes},\"offset\":{},\"len\":{}}}",
                    $pn, p.offset, p.len
                ));
                retx_queue.push_back((p.offset, p.len));
                if p.sent_us >= recovery_start {
                    // One reduction per recovery period.
                    recovery_start = now;
                    episodes += 1;
                    if in_ss {
                        cwnd_exit_ss = Some(cwnd);
                        in_ss = false;
                    }
                    cwnd = (cwnd / 2).max(2 * MDS);
                    ssthresh = Some(cwnd);
                }
            }
        }};
    }

    let _ = writeln!(
        out,
        "{{\"ev\":\"meta\",\"cc\":\"{}\",\"group\":\"{}\",\"scenario\":\"toy\",\"seed\":{},\"path\":{{\"rate-bps\":{},\"rtt-ms\":{},\"queue-ms\":{},\"loss\":{}}},\"mds\":{MDS},\"content_length\":{}}}",
        cfg.cc, cfg.group, cfg.seed, cfg.rate_bps, cfg.rtt_ms, cfg.queue_ms, cfg.loss, cfg.content_length
    );
    send_more!();
    while let Some(std::cmp::Reverse((t, _, ev))) = heap.pop() {
        now = t;
        match ev {
            Ev::Arrive(pn) => {
                let bytes = pkts[pn as usize].len + OVERHEAD;
                if queue_bytes + bytes > limit || rng.next_f64() < cfg.loss {
                    continue; // dropped
                }
                queue.push_back(pn);
                queue_bytes += bytes;
                emit(
                    now,
                    format!(
                    "{{\"ev\":\"queue\",\"t-us\":{now},\"bytes\":{queue_bytes},\"delay-us\":{}}}",
                    (queue_bytes as f64 / bytes_per_us) as u64
                ),
                );
                if !link_busy {
                    link_busy = true;
                    push(
                        &mut heap,
                        now + (bytes as f64 / bytes_per_us) as u64,
                        Ev::Depart,
                    );
                }
            }
            Ev::Depart => {
                let Some(pn) = queue.pop_front() else {
                    continue;
                };
                let p = &pkts[pn as usize];
                queue_bytes -= p.len + OVERHEAD;
                emit(
                    now,
                    format!(
                    "{{\"ev\":\"queue\",\"t-us\":{now},\"bytes\":{queue_bytes},\"delay-us\":{}}}",
                    (queue_bytes as f64 / bytes_per_us) as u64
                ),
                );
                // Receiver: in-order delivery one quarter RTT later.
                received.push((p.offset, p.offset + p.len));
                received.sort_unstable();
                let before = delivered;
                for &(a, b) in &received {
                    if a <= delivered {
                        delivered = delivered.max(b);
                    }
                }
                if delivered > before {
                    let at = now + quarter;
                    emit(
                        at,
                        format!("{{\"ev\":\"delivered\",\"t-us\":{at},\"bytes\":{delivered}}}"),
                    );
                    if delivered == cfg.content_length {
                        done_us = at;
                    }
                }
                push(&mut heap, now + 3 * quarter, Ev::Ack(pn));
                if let Some(&next) = queue.front() {
                    let b = pkts[next as usize].len + OVERHEAD;
                    push(
                        &mut heap,
                        now + (b as f64 / bytes_per_us) as u64,
                        Ev::Depart,
                    );
                } else {
                    link_busy = false;
                }
            }
            Ev::Ack(pn) => {
                let p = &mut pkts[pn as usize];
                let was = p.state;
                if was == 1 {
                    continue;
                }
                p.state = 1;
                let bytes = p.len + OVERHEAD;
                if was == 0 {
                    inflight -= bytes;
                }
                emit(
                    now,
                    format!("{{\"ev\":\"acked\",\"t-us\":{now},\"pn\":{pn},\"bytes\":{bytes}}}"),
                );
                latest = now - p.sent_us;
                min_rtt = min_rtt.min(latest);
                srtt = if srtt == 0 {
                    latest
                } else {
                    (7 * srtt + latest) / 8
                };
                emit(now, format!(
                    "{{\"ev\":\"rtt\",\"t-us\":{now},\"latest-us\":{latest},\"min-us\":{min_rtt},\"smoothed-us\":{srtt}}}"
                ));
                if p.sent_us >= recovery_start || episodes == 0 {
                    let gain = match (cfg.growth, in_ss) {
                        (Growth::Rapid, true) => 2,
                        (_, true) => 1,
                        // Congestion avoidance: about one MDS per window.
                        (_, false) => 0,
                    };
                    cwnd += gain * bytes;
                    if !in_ss {
                        cwnd += MDS * bytes / cwnd.max(1);
                    }
                }
                largest_acked = Some(largest_acked.map_or(pn, |l: u64| l.max(pn)));
                if let Some(la) = largest_acked {
                    for old in 0..la.saturating_sub(2) {
                        if pkts[old as usize].state == 0 {
                            declare_lost!(old);
                        }
                    }
                }
                cc_event!();
                send_more!();
            }
            Ev::Probe(pn) => {
                if pkts[pn as usize].state == 0 && done_us == 0 {
                    n_ptos += 1;
                    declare_lost!(pn);
                    cc_event!();
                    send_more!();
                }
            }
        }
        if done_us > 0 && inflight == 0 {
            break;
        }
    }
    events.sort_by_key(|e| (e.0, e.1));
    for (_, _, line) in events {
        out.push_str(&line);
        out.push('\n');
    }
    let ttlb_us = done_us;
    let record = format!(
        "{{\"ttlb\":{},\"ttlb-us\":{ttlb_us},\"content_length\":{},\"num-packets.sent\":{n_sent},\"num-packets.lost\":{n_lost},\"num-ptos\":{n_ptos},\"rtt.minimum\":{},\"rtt.smoothed\":{},\"rtt.latest\":{},\"cc.algorithm\":\"{}\",\"cc.cwnd\":{cwnd},\"cc.cwnd-exiting-slow-start\":{},\"cc.num-loss-episodes\":{episodes},\"path.rate-bps\":{},\"path.rtt-ms\":{},\"path.queue-ms\":{},\"path.loss\":{},\"seed\":{},\"group\":\"{}\",\"pop\":\"{}\"}}",
        ttlb_us / 1000,
        cfg.content_length,
        min_rtt / 1000,
        srtt / 1000,
        latest / 1000,
        cfg.cc,
        cwnd_exit_ss.unwrap_or(0),
        cfg.rate_bps,
        cfg.rtt_ms,
        cfg.queue_ms,
        cfg.loss,
        cfg.seed,
        cfg.group,
        cfg.pop
    );
    (out, record)
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
