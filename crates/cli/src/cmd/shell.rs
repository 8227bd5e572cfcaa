//! `ramp shell`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use ramp_cc::Rate;
use ramp_quic::relay::LinkParams;
use ramp_shell::ShellConfig;
use ramp_vocab::units::{parse_duration, parse_loss, parse_rate};

use crate::forwarder_flags::{ForwarderLink, Traces};

/// Arguments of `ramp shell`.
///
/// Runs COMMAND in a new network namespace whose IP traffic to the outside
/// crosses the simulator's link model in both directions (through TUN
/// devices and a userspace loop, in the manner of Mahimahi's mm-link): rate,
/// propagation delay (half the RTT each way), a buffer sized in time at the
/// rate run by a queue discipline, ECN marking of ECT packets, random loss;
/// a cellular downlink (--cellular), Wi-Fi delay variation (--wifi-jitter)
/// and ACK aggregation on the uplink (--ack-aggregation), as in `ramp relay`.
/// The command reaches the outer end of the link at $RAMP_SHELL_HOST (and
/// $RAMP_SHELL_HOST6); nothing else. Needs root, or CAP_NET_ADMIN and
/// CAP_SYS_ADMIN, and iproute2's `ip`. After the command exits, the shell
/// forwards until the link drains (docs/shell.md, "Normal exit").
#[derive(clap::Args, Debug)]
#[command(override_usage = usage())]
pub struct Args {
    /// The emulated link: each direction unless an --uplink-… flag says
    /// otherwise; `--rtt` and `--queue` are required, and `--rate` unless
    /// both directions replay a trace. Its elements, the uplink's own
    /// values, then traces, seed, event log, scheduling.
    #[command(flatten)]
    link: ForwarderLink<UplinkFlags>,
    /// NDJSON flow log, written when the shell ends: one record per flow
    /// (protocol and both ends): packets, bytes, first and last times each
    /// way, drops by cause, CE marks, and the transfer time seen from the
    /// link (request's first packet in to last data packet out; docs/shell.md).
    #[arg(long)]
    flow_log: Option<PathBuf>,
    /// NDJSON per-packet log (in the spirit of Mahimahi's --downlink-log):
    /// every arrival, every delivery with its delay through the link, every
    /// drop, each with its flow. `ramp plot flows` draws it.
    #[arg(long)]
    packet_log: Option<PathBuf>,
    /// Remove the namespaces of shells that were killed (SIGKILL) and exit.
    #[arg(long, conflicts_with_all = ["rate", "rtt", "queue", "command"])]
    cleanup: bool,
    /// The command and its arguments (after --).
    #[arg(last = true, required_unless_present = "cleanup")]
    command: Vec<OsString>,
}

/// The uplink's values where they differ from the downlink's.
#[derive(clap::Args, Debug)]
pub struct UplinkFlags {
    /// The uplink's rate, when it differs.
    #[arg(long, value_parser = parse_rate)]
    uplink_rate: Option<Rate>,
    /// The uplink's buffer, when it differs.
    #[arg(long, value_parser = parse_duration)]
    uplink_queue: Option<Duration>,
    /// The uplink's queue discipline, when it differs.
    #[arg(long)]
    uplink_aqm: Option<ramp_link::Aqm>,
    /// The uplink's random loss, when it differs.
    #[arg(long, value_parser = parse_loss)]
    uplink_loss: Option<f64>,
}

/// Runs `ramp shell`; exits with the command's status.
pub fn run(args: Args) -> anyhow::Result<()> {
    args.link.fwd.refuse_log_over_traces()?;
    if args.cleanup {
        ramp_shell::preflight()?;
        let c = ramp_shell::cleanup();
        for r in &c.removed {
            crate::stdout_line::say!(
                "removed {} (and {} processes still running in it)",
                r.name,
                r.killed
            );
        }
        for n in &c.live {
            crate::stdout_line::say!("kept {n} (its shell is running)");
        }
        return Ok(());
    }
    let traces = args.link.fwd.traces()?;
    let cfg = configure(&args, &traces)?;
    let out = ramp_shell::run(&cfg, &args.command)?;
    for (name, d) in [("up", out.counters.up), ("down", out.counters.down)] {
        ramp_vocab::note!("ramp shell {} {name}: {d}", out.path);
    }
    if let Some(sig) = out.interrupted_by {
        ramp_vocab::note!("ramp shell {}: stopped by signal {sig}", out.path);
    }
    std::process::exit(out.exit_code());
}

/// `ramp shell`'s usage lines; the element flags come from
/// `ramp_link::ELEMENTS` ([`crate::link_elements::usage`]), so the list
/// cannot drift from the flags the shell takes.
fn usage() -> String {
    format!(
        "ramp shell --rate R --rtt D --queue D [--aqm NAME] [--loss P] {} [--uplink-…] -- COMMAND [ARGS…]\n       ramp shell --cleanup",
        crate::link_elements::usage()
    )
}

/// The two directions' links and the logs of a shell, from its flags and
/// the traces they named (loaded by the caller): every check of the flags
/// that needs no namespace. Separate from [`run`] so that the fuzz target
/// `cli/shell_flags` (crates/cli/fuzz) can run it on any command line.
pub(crate) fn configure(args: &Args, traces: &Traces) -> anyhow::Result<ShellConfig> {
    let (rate, rtt, queue) = args.link.fwd.link(&args.link.path, traces)?;
    if args.link.path.rate.is_some() {
        check_rate(rate, "--rate")?;
    }
    let mut down = LinkParams::new(
        rate,
        rtt / 2,
        queue,
        args.link.path.loss.unwrap_or(0.0),
        args.link.path.aqm.unwrap_or_default(),
    );
    let mut up = down.clone();
    if let Some(r) = args.link.own.uplink_rate {
        check_rate(r, "--uplink-rate")?;
        up.rate = r;
    }
    if let Some(q) = args.link.own.uplink_queue {
        up.queue = q;
    }
    if let Some(l) = args.link.own.uplink_loss {
        up.elements.loss = ramp_link::LossModel::bernoulli(l);
    }
    if let Some(a) = args.link.own.uplink_aqm {
        up.aqm = a;
    }
    args.link.elements.apply(&mut up, &mut down, rtt);
    traces.apply(&mut up, &mut down);
    // After the traces: a trace's mean rate sizes its direction's buffer.
    crate::forwarder_flags::refuse_buffers_under_one_packet(
        &[("--queue", &down), ("--uplink-queue", &up)],
        ramp_shell::MTU,
    )?;
    for (flag, out) in [
        ("--flow-log", &args.flow_log),
        ("--packet-log", &args.packet_log),
    ] {
        let Some(out) = out else { continue };
        for input in [&args.link.fwd.trace, &args.link.fwd.uplink_trace]
            .into_iter()
            .flatten()
        {
            if same_file(out, input) {
                anyhow::bail!("{flag} {}: that is a trace this shell reads", out.display());
            }
        }
    }
    Ok(ShellConfig {
        up: up.link_config(),
        down: down.link_config(),
        seed: args.link.fwd.seed,
        log: args.link.fwd.log.clone(),
        flow_log: args.flow_log.clone(),
        packet_log: args.packet_log.clone(),
        realtime: !args.link.fwd.no_realtime,
    })
}

/// Whether two paths name the same existing file.
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn check_rate(r: Rate, flag: &str) -> anyhow::Result<()> {
    if r == Rate::ZERO {
        anyhow::bail!("{flag}: the rate must be above 0");
    }
    Ok(())
}
