//! `ramp relay`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use ramp_link::DeliveryTrace;
use ramp_quic::relay::{Relay, RelayConfig};
use ramp_quic::runtime::block_until_interrupted;
use ramp_quic::units::{parse_duration, parse_loss, parse_optional_duration, parse_rate};

/// Arguments of `ramp relay`.
///
/// A UDP relay that emulates a bottleneck in each direction: rate,
/// propagation delay (half the RTT each way), a buffer sized in
/// time at the link rate run by a queue discipline (drop-tail by default;
/// CoDel, FQ-CoDel, PIE, DOCSIS-PIE), and random loss from a seeded
/// generator, all with the simulator's link model; either direction may
/// instead deliver at a Mahimahi trace's opportunities (--trace). Every
/// client address gets its own upstream socket; all clients share the
/// link. Non-QUIC datagrams and unknown senders are counted and dropped.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Address clients send to.
    #[arg(long)]
    listen: SocketAddr,
    /// The server.
    #[arg(long)]
    upstream: SocketAddr,
    /// Bottleneck rate, each direction (e.g. 20mbit).
    #[arg(long)]
    rate: String,
    /// Base round-trip time added (e.g. 40ms; half each way).
    #[arg(long)]
    rtt: String,
    /// Buffer, as time at the rate (e.g. 40ms).
    #[arg(long)]
    queue: String,
    /// Queue discipline, each direction: droptail, step:<delay>, codel,
    /// fq_codel, pie, docsis_pie (the simulator's own implementations).
    #[arg(long, default_value = "droptail")]
    aqm: ramp_link::Aqm,
    /// Mahimahi trace for the server -> client direction: one line per
    /// 1500-byte delivery opportunity, in ms, repeating; replaces --rate
    /// in that direction (the buffer is --queue at the trace's mean rate).
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Mahimahi trace for the client -> server direction.
    #[arg(long)]
    up_trace: Option<PathBuf>,
    /// Random loss probability, each direction (e.g. 0.5%).
    #[arg(long, default_value = "0")]
    loss: String,
    /// Seed of the random losses.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// NDJSON event log: every enqueue with the queue depth, every drop.
    #[arg(long)]
    log: Option<PathBuf>,
    /// Stop after this long (e.g. 60s); default: until Ctrl-C.
    #[arg(long)]
    duration: Option<String>,
}

/// Runs `ramp relay`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let rate = parse_rate(&args.rate).context("--rate")?;
    let rtt = parse_duration(&args.rtt).context("--rtt")?;
    let queue = parse_duration(&args.queue).context("--queue")?;
    let loss = parse_loss(&args.loss).context("--loss")?;
    let limit = parse_optional_duration(args.duration.as_deref()).context("--duration")?;
    let mut cfg = RelayConfig::symmetric(
        args.listen,
        args.upstream,
        rate,
        rtt,
        queue,
        loss,
        args.seed,
    );
    cfg.log = args.log;
    cfg.up.aqm = args.aqm;
    cfg.down.aqm = args.aqm;
    if let Some(f) = &args.trace {
        cfg.down
            .set_trace(Arc::new(DeliveryTrace::load(f).context("--trace")?));
    }
    if let Some(f) = &args.up_trace {
        cfg.up
            .set_trace(Arc::new(DeliveryTrace::load(f).context("--up-trace")?));
    }
    let relay = Relay::start(cfg).with_context(|| format!("relay on {}", args.listen))?;
    println!(
        "listening on {} upstream {}",
        relay.local_addr(),
        args.upstream
    );
    block_until_interrupted(limit)?;
    let c = relay.stop()?;
    for (name, d) in [("up", c.up), ("down", c.down)] {
        eprintln!(
            "ramp relay {name}: {} received, {} delivered, {} queue drops, {} AQM drops, {} random losses, {} malformed; \
             max queue {} bytes; lateness mean {:?} max {:?}, {} over 1 ms",
            d.received,
            d.delivered,
            d.dropped_queue,
            d.dropped_aqm,
            d.dropped_loss,
            d.malformed,
            d.max_queue_bytes,
            d.lateness_mean,
            d.lateness_max,
            d.late_over_1ms
        );
    }
    eprintln!(
        "ramp relay: {} clients ({} evicted unanswered, {} refused with the table full), {} unknown datagrams",
        c.clients, c.evicted, c.refused, c.unknown
    );
    Ok(())
}
