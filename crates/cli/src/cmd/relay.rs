//! `ramp relay`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use ramp_link::DeliveryTrace;
use ramp_quic::block_until_interrupted;
use ramp_quic::parse_optional_duration;
use ramp_quic::relay::{Relay, RelayConfig};

use crate::link_elements::LinkElementFlags;
use crate::path_flags::PathFlags;

/// Arguments of `ramp relay`.
///
/// A UDP relay that emulates a bottleneck in each direction: rate,
/// propagation delay (half the RTT each way), a buffer sized in
/// time at the link rate run by a queue discipline (drop-tail by default;
/// CoDel, FQ-CoDel, PIE, DOCSIS-PIE), and random loss from a seeded
/// generator, all with the simulator's link model; either direction may
/// instead deliver at a Mahimahi trace's opportunities (--trace), and the
/// path may be cellular (--cellular), vary its delay as a Wi-Fi hop does
/// (--wifi-jitter) or aggregate ACKs (--ack-aggregation), all with the
/// simulator's model and defaults. Every
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
    /// The emulated link, each direction: `--rate`, `--rtt` and `--queue`
    /// are required.
    #[command(flatten)]
    path: PathFlags,
    /// Cellular behaviour, Wi-Fi delay variation, ACK aggregation.
    #[command(flatten)]
    elements: LinkElementFlags,
    /// Mahimahi trace for the server -> client direction: one line per
    /// 1500-byte delivery opportunity, in ms, repeating; replaces --rate
    /// in that direction (the buffer is --queue at the trace's mean rate).
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Mahimahi trace for the client -> server direction.
    #[arg(long, alias = "up-trace")]
    uplink_trace: Option<PathBuf>,
    /// Seed of the random elements (losses, cellular drift, Wi-Fi delay
    /// variation; each direction draws from its own streams).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// NDJSON event log: every enqueue with the queue depth, every drop.
    #[arg(long)]
    log: Option<PathBuf>,
    /// NDJSON flow log, written when the relay stops: one record per
    /// client (times each way, bytes, drops by cause, the transfer time
    /// from the link; docs/shell.md, "Flow log and packet log").
    #[arg(long)]
    flow_log: Option<PathBuf>,
    /// Stop after this long (e.g. 60s); default: until Ctrl-C.
    #[arg(long)]
    duration: Option<String>,
    /// Run the relay's threads at normal priority instead of SCHED_FIFO
    /// (real-time priority keeps datagrams on time on a busy machine).
    #[arg(long)]
    no_realtime: bool,
}

/// Runs `ramp relay`.
pub fn run(args: Args) -> anyhow::Result<()> {
    crate::clobber::refuse_optional_outputs(
        &[("--log", args.log.as_ref())],
        &[args.trace.as_ref(), args.uplink_trace.as_ref()],
    )?;
    let (rate, rtt, queue) = args.path.required()?;
    let loss = args.path.loss.unwrap_or(0.0);
    let aqm = args.path.aqm.unwrap_or_default();
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
    cfg.flow_log = args.flow_log;
    cfg.realtime = !args.no_realtime;
    cfg.up.aqm = aqm;
    cfg.down.aqm = aqm;
    args.elements.apply(&mut cfg.up, &mut cfg.down, rtt);
    if let Some(f) = &args.trace {
        cfg.down
            .set_trace(Arc::new(DeliveryTrace::load(f).context("--trace")?));
    }
    if let Some(f) = &args.uplink_trace {
        cfg.up
            .set_trace(Arc::new(DeliveryTrace::load(f).context("--uplink-trace")?));
    }
    let relay = Relay::start(cfg).with_context(|| format!("relay on {}", args.listen))?;
    crate::stdout_line::say!(
        "listening on {} upstream {}",
        relay.local_addr(),
        args.upstream
    );
    block_until_interrupted(limit)?;
    let c = relay.stop()?;
    for (name, d) in [("up", c.up), ("down", c.down)] {
        ramp_vocab::note!("ramp relay {name}: {d}");
    }
    ramp_vocab::note!(
        "ramp relay: {} clients ({} evicted unanswered or finished, {} refused with the table full), {} unknown datagrams, \
         {} empty datagrams (clients' reachability probes, dropped), {} ICMP unreachable from the upstream",
        c.clients, c.evicted, c.refused, c.unknown, c.empty, c.upstream_unreachable
    );
    Ok(())
}
