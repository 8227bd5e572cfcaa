//! `ramp relay`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use ramp_quic::relay::{Relay, RelayConfig};
use ramp_quic::StopWait;
use ramp_vocab::units::parse_duration;

use crate::forwarder_flags::ForwarderLink;

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
    /// The emulated link, each direction: `--rtt` and `--queue` are
    /// required, and `--rate` unless both directions replay a trace; its
    /// elements; traces, seed, event log, scheduling.
    #[command(flatten)]
    link: ForwarderLink,
    /// NDJSON flow log, written when the relay stops: one record per
    /// client (times each way, bytes, drops by cause, the transfer time
    /// from the link; docs/shell.md, "Flow log and packet log").
    #[arg(long)]
    flow_log: Option<PathBuf>,
    /// Stop after this long (e.g. 60s); default: until Ctrl-C or SIGTERM
    /// (either prints the final counters).
    #[arg(long, value_parser = parse_duration)]
    duration: Option<Duration>,
}

/// Runs `ramp relay`.
pub fn run(args: Args) -> anyhow::Result<()> {
    args.link.fwd.refuse_log_over_traces()?;
    let traces = args.link.fwd.traces()?;
    let (rate, rtt, queue) = args.link.fwd.link(&args.link.path, &traces)?;
    let loss = args.link.path.loss.unwrap_or(0.0);
    let aqm = args.link.path.aqm.unwrap_or_default();
    let mut cfg = RelayConfig::symmetric(
        args.listen,
        args.upstream,
        rate,
        rtt,
        queue,
        loss,
        args.link.fwd.seed,
    );
    cfg.log = args.link.fwd.log;
    cfg.flow_log = args.flow_log;
    cfg.realtime = !args.link.fwd.no_realtime;
    cfg.up.aqm = aqm;
    cfg.down.aqm = aqm;
    args.link.elements.apply(&mut cfg.up, &mut cfg.down, rtt);
    traces.apply(&mut cfg.up, &mut cfg.down);
    // One Ethernet-sized packet, the shell's device MTU: what a QUIC
    // client's datagrams fit in on a real path.
    crate::forwarder_flags::refuse_buffers_under_one_packet(
        &[("--queue", &cfg.down), ("--queue", &cfg.up)],
        ramp_shell::MTU,
    )?;
    let relay = Relay::start(cfg).with_context(|| format!("relay on {}", args.listen))?;
    // Caught from before the `listening on` line a script may answer
    // with a signal at once.
    let stop = StopWait::install()?;
    crate::stdout_line::say!(
        "listening on {} upstream {}",
        relay.local_addr(),
        args.upstream
    );
    stop.block(args.duration);
    let c = relay.stop()?;
    for (name, d) in [("up", c.up), ("down", c.down)] {
        ramp_vocab::note!("ramp relay {name}: {d}");
    }
    ramp_vocab::note!(
        "ramp relay: {} clients ({} evicted: {} unanswered past the handshake grace, the others finished; \
         {} refused with the table full), {} unknown datagrams, \
         {} empty datagrams (clients' reachability probes, dropped), {} ICMP unreachable from the upstream",
        c.clients, c.evicted, c.evicted_unanswered, c.refused, c.unknown, c.empty, c.upstream_unreachable
    );
    Ok(())
}
