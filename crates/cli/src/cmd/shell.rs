//! `ramp shell`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use ramp_cc::Rate;
use ramp_link::DeliveryTrace;
use ramp_quic::relay::LinkParams;
use ramp_quic::units::{parse_duration, parse_loss, parse_rate};
use ramp_shell::{DirCounters, ShellConfig};

/// Arguments of `ramp shell`.
///
/// Runs COMMAND in a new network namespace whose IP traffic to the outside
/// crosses the simulator's link model in both directions (through TUN
/// devices and a userspace loop, in the manner of Mahimahi's mm-link): rate,
/// propagation delay (half the RTT each way), a buffer sized in time at the
/// rate run by a queue discipline, ECN marking of ECT packets, random loss.
/// The command reaches the outer end of the link at $RAMP_SHELL_HOST (and
/// $RAMP_SHELL_HOST6); nothing else. Needs root or CAP_NET_ADMIN.
#[derive(clap::Args, Debug)]
#[command(
    override_usage = "ramp shell --rate R --rtt D --queue D [--aqm NAME] [--loss P] [--uplink-…] -- COMMAND [ARGS…]\n       ramp shell --cleanup"
)]
pub struct Args {
    /// Downlink rate (into the shell), and the uplink's unless
    /// --uplink-rate (e.g. 20mbit).
    #[arg(long, required_unless_present = "cleanup")]
    rate: Option<String>,
    /// Base round-trip time added (e.g. 40ms; half each way).
    #[arg(long, required_unless_present = "cleanup")]
    rtt: Option<String>,
    /// Buffer, as time at the rate (e.g. 40ms).
    #[arg(long, required_unless_present = "cleanup")]
    queue: Option<String>,
    /// Queue discipline: droptail, step:<delay>, codel, fq_codel, pie,
    /// docsis_pie (the simulator's own implementations).
    #[arg(long, default_value = "droptail")]
    aqm: ramp_link::Aqm,
    /// Random loss probability, each direction (e.g. 1%).
    #[arg(long, default_value = "0")]
    loss: String,
    /// The uplink's rate, when it differs.
    #[arg(long)]
    uplink_rate: Option<String>,
    /// The uplink's buffer, when it differs.
    #[arg(long)]
    uplink_queue: Option<String>,
    /// The uplink's queue discipline, when it differs.
    #[arg(long)]
    uplink_aqm: Option<ramp_link::Aqm>,
    /// The uplink's random loss, when it differs.
    #[arg(long)]
    uplink_loss: Option<String>,
    /// Mahimahi trace for the downlink (into the shell): one line per
    /// 1500-byte delivery opportunity, in ms, repeating; replaces --rate
    /// in that direction (the buffer is --queue at the trace's mean rate).
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Mahimahi trace for the uplink; replaces --uplink-rate.
    #[arg(long)]
    uplink_trace: Option<PathBuf>,
    /// Seed of the random elements.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// NDJSON event log (the relay's format): every arrival with the queue
    /// depth, every drop.
    #[arg(long)]
    log: Option<PathBuf>,
    /// Run the forwarding loop at normal priority instead of SCHED_FIFO
    /// (real-time priority keeps packets on time on a busy machine).
    #[arg(long)]
    no_realtime: bool,
    /// Remove the namespaces of shells that were killed (SIGKILL) and exit.
    #[arg(long, conflicts_with_all = ["rate", "rtt", "queue", "command"])]
    cleanup: bool,
    /// The command and its arguments (after --).
    #[arg(last = true, required_unless_present = "cleanup")]
    command: Vec<OsString>,
}

fn required<'a>(v: &'a Option<String>, flag: &str) -> anyhow::Result<&'a str> {
    v.as_deref().with_context(|| format!("{flag} is required"))
}

/// Runs `ramp shell`; exits with the command's status.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.cleanup {
        ramp_shell::preflight()?;
        let c = ramp_shell::cleanup();
        for n in &c.removed {
            crate::stdout_line::say!("removed {n}");
        }
        for n in &c.live {
            crate::stdout_line::say!("kept {n} (its shell is running)");
        }
        return Ok(());
    }
    let rate = parse_rate(required(&args.rate, "--rate")?).context("--rate")?;
    let rtt = parse_duration(required(&args.rtt, "--rtt")?).context("--rtt")?;
    let queue = parse_duration(required(&args.queue, "--queue")?).context("--queue")?;
    let loss = parse_loss(&args.loss).context("--loss")?;
    check_rate(rate, "--rate")?;
    let mut down = LinkParams {
        rate,
        delay: rtt / 2,
        queue,
        loss,
        aqm: args.aqm,
        trace: None,
    };
    let mut up = down.clone();
    if let Some(r) = &args.uplink_rate {
        up.rate = parse_rate(r).context("--uplink-rate")?;
        check_rate(up.rate, "--uplink-rate")?;
    }
    if let Some(q) = &args.uplink_queue {
        up.queue = parse_duration(q).context("--uplink-queue")?;
    }
    if let Some(l) = &args.uplink_loss {
        up.loss = parse_loss(l).context("--uplink-loss")?;
    }
    if let Some(a) = args.uplink_aqm {
        up.aqm = a;
    }
    for (flag, q, r) in [
        ("--queue", down.queue, down.rate),
        ("--uplink-queue", up.queue, up.rate),
    ] {
        if ramp_link::queue_bytes_for(r, q) < u64::from(ramp_shell::MTU) {
            anyhow::bail!(
                "{flag}: the buffer holds less than one {}-byte packet at this rate",
                ramp_shell::MTU
            );
        }
    }
    if let Some(f) = &args.trace {
        down.set_trace(Arc::new(DeliveryTrace::load(f).context("--trace")?));
    }
    if let Some(f) = &args.uplink_trace {
        up.set_trace(Arc::new(DeliveryTrace::load(f).context("--uplink-trace")?));
    }
    let cfg = ShellConfig {
        up: up.link_config(),
        down: down.link_config(),
        seed: args.seed,
        log: args.log,
        realtime: !args.no_realtime,
    };
    let out = ramp_shell::run(&cfg, &args.command)?;
    for (name, d) in [("up", out.counters.up), ("down", out.counters.down)] {
        eprintln!("{}", closing_line(&out.path.to_string(), name, &d));
    }
    if let Some(sig) = out.interrupted_by {
        eprintln!("ramp shell {}: stopped by signal {sig}", out.path);
    }
    std::process::exit(out.exit_code());
}

fn check_rate(r: Rate, flag: &str) -> anyhow::Result<()> {
    if r == Rate::ZERO {
        anyhow::bail!("{flag}: the rate must be above 0");
    }
    Ok(())
}

/// The relay's closing line, with the shell's own counters after it.
fn closing_line(path: &str, name: &str, d: &DirCounters) -> String {
    format!(
        "ramp shell {path} {name}: {} received, {} delivered, {} queue drops, {} AQM drops, {} random losses, {} malformed; \
         max queue {} bytes; lateness mean {:?} max {:?}, {} over 1 ms; {} CE marks, {} refused, largest packet {} bytes",
        d.received,
        d.delivered,
        d.dropped_queue,
        d.dropped_aqm,
        d.dropped_loss,
        d.malformed,
        d.max_queue_bytes,
        d.lateness_mean(),
        Duration::from_nanos(d.lateness_max_ns),
        d.late_over_1ms,
        d.marked_ce,
        d.refused,
        d.max_packet_bytes
    )
}
