//! `ramp serve`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use ramp_quic::server::{
    serve_blocking_on, serve_blocking_with, AckTiming, SendPacing, ServeConfig, ServeOptions,
};
use ramp_quic::CcChoice;
use ramp_quic::Identity;
use ramp_quic::PathLabels;
use ramp_vocab::units::{parse_duration, parse_loss, parse_rate};
use ramp_vocab::Rate;

/// Arguments of `ramp serve`.
///
/// Serves `/bytes/N` (N bytes of a fixed pattern, byte i = i mod 251) and
/// the files under `--root` over HTTP/3, every connection running the
/// chosen ramp-cc controller, and writes one stats record per request.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Controller, named as in the simulator (the list comes from the
    /// registry: `cc_help`).
    #[arg(long, default_value = "cubic", value_parser = CcChoice::parse, help = cc_help())]
    cc: CcChoice,
    /// UDP address to listen on (port 0: any free port, printed at start).
    #[arg(long, default_value = "127.0.0.1:4433")]
    listen: SocketAddr,
    /// NDJSON stats file: one record per request, flushed as each ends.
    #[arg(long)]
    stats: Option<PathBuf>,
    /// Certificate chain (PEM); default: a self-signed one made at start.
    #[arg(long, requires = "key")]
    cert: Option<PathBuf>,
    /// Private key (PEM) of --cert.
    #[arg(long, requires = "cert")]
    key: Option<PathBuf>,
    /// Directory whose files are served (no path leaves it).
    #[arg(long)]
    root: Option<PathBuf>,
    /// Stop after this long (e.g. 30s); default: until Ctrl-C or SIGTERM
    /// (either prints the final counters).
    #[arg(long, value_parser = parse_duration)]
    duration: Option<Duration>,
    /// Record label `path.rate-bps` (the emulated path, e.g. 20mbit).
    #[arg(long, value_parser = parse_rate)]
    path_rate: Option<Rate>,
    /// Record label `path.rtt-ms` (e.g. 40ms).
    #[arg(long, value_parser = parse_duration)]
    path_rtt: Option<Duration>,
    /// Record label `path.queue-ms` (e.g. 40ms).
    #[arg(long, value_parser = parse_duration)]
    path_queue: Option<Duration>,
    /// Record label `path.loss` (e.g. 0.5%).
    #[arg(long, value_parser = parse_loss)]
    path_loss: Option<f64>,
    /// Record label `seed`.
    #[arg(long)]
    seed: Option<u64>,
    /// Record label `group` (the A/B arm).
    #[arg(long)]
    group: Option<String>,
    /// Also serve the same paths over TLS on TCP (same certificate), on
    /// --listen's address or --h2-listen: HTTP/2, or HTTP/1.1 to clients
    /// that ask for it by ALPN (`curl --http1.1`) or ask for nothing.
    #[arg(long)]
    h2: bool,
    /// Kernel TCP congestion controller of every --h2 connection (cubic,
    /// reno, bbr, ... as in /proc/sys/net/ipv4/tcp_available_congestion_control;
    /// set per socket with TCP_CONGESTION). Default: the system's.
    #[arg(long, requires = "h2")]
    tcp_cc: Option<String>,
    /// TCP address of the HTTP/2 listener (default: --listen's).
    #[arg(long, requires = "h2")]
    h2_listen: Option<SocketAddr>,
    /// UDP payload size of every HTTP/3 packet, fixed, 1200..=65527
    /// (larger only on paths known to carry it, e.g. 1452 on loopback
    /// benchmarks). Without it, --pmtud decides.
    #[arg(long)]
    datagram_bytes: Option<u16>,
    /// Path MTU discovery: `on` (default, as quinn) probes from 1200 bytes
    /// up to 6550, the largest a 10-datagram GSO send carries (an Ethernet
    /// path settles at 1472, loopback at 6550); `off` keeps every packet at 1200 bytes, the size the
    /// simulator models — use it (or --datagram-bytes) for congestion
    /// control experiments compared with `ramp sim`.
    #[arg(long, default_value = "on")]
    pmtud: Switch,
    /// Who paces sends: `controller` (default) sends at the controller's
    /// pacing rate, datagram by datagram, with the pacer the arm names as
    /// the simulator does (`pacer=quicly`: quicly's pacer, a 1 ms clock and
    /// bursts of 8–10 packets; otherwise the simulator's leaky bucket);
    /// `quicly` uses quicly's pacer for any arm; `quinn` leaves quinn
    /// 0.11's own pacer in charge (1.25·cwnd/srtt in bursts of 10 or more
    /// packets), for reference (docs/real-pacing.md).
    #[arg(
        long,
        default_value = "controller",
        value_parser = PossibleValuesParser::new(SendPacing::NAMES).try_map(|s| s.parse::<SendPacing>())
    )]
    pacing: SendPacing,
    /// The time an ACK frame is given to the controller: `kernel`
    /// (default) is when the kernel received its datagram
    /// (SO_TIMESTAMPNS), as the simulator times each ACK; `driver` is
    /// quinn 0.11's one time per receive wake-up, shared by every
    /// datagram read in it (docs/real-pacing.md).
    #[arg(
        long,
        default_value = "kernel",
        value_parser = PossibleValuesParser::new(AckTiming::NAMES).try_map(|s| s.parse::<AckTiming>())
    )]
    ack_timing: AckTiming,
    /// Write one qlog 0.3 JSON-SEQ file per connection into this directory
    /// (created if missing): `conn-N.sqlog` for the N-th connection
    /// accepted, from 0; quinn's own packet_sent, packet_lost and
    /// metrics_updated events, the names the simulator's `--qlog` uses
    /// (docs/interop.md).
    #[arg(long, value_name = "DIR")]
    qlog: Option<PathBuf>,
}

/// `--cc`'s help: every controller the registry knows, so that a new one
/// cannot be left out of it.
fn cc_help() -> String {
    format!(
        "Controller, named as in the simulator: {}; parts joined with + \
         (cubic+hystart), options in parentheses (rapidstart(beta=0.7))",
        ramp_cc::spec::Registry::builtin().names().join(", ")
    )
}

/// An on/off switch (`--pmtud`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Switch {
    /// On.
    On,
    /// Off.
    Off,
}

/// A port number free for both UDP (HTTP/3) and TCP (HTTP/2), for
/// `--listen IP:0 --h2`.
///
/// The kernel picks a UDP port, and any TCP socket (a listener, or a
/// connection bound to it) may already hold that number: HTTP/2 would then
/// fail with EADDRINUSE after HTTP/3 announced itself. So a TCP listener
/// takes the number first and holds it until the HTTP/2 server binds;
/// a UDP port whose number TCP cannot have is kept bound while the next
/// is tried, so the kernel offers a different one each time. The UDP
/// socket itself becomes the HTTP/3 server's (`serve_blocking_on`): were
/// it closed for quinn to bind the number again, another process could
/// take the port in between.
struct PortPair {
    /// `IP:port`, the port free for both.
    addr: SocketAddr,
    /// The UDP socket bound to it, for the HTTP/3 server.
    udp: std::net::UdpSocket,
    /// Holds the TCP port until the HTTP/2 server takes it.
    tcp: std::net::TcpListener,
}

impl PortPair {
    /// Tries this many UDP ports before giving up.
    const ATTEMPTS: usize = 64;

    fn reserve(listen: SocketAddr) -> anyhow::Result<PortPair> {
        let mut refused = Vec::new();
        let mut last = None;
        for _ in 0..Self::ATTEMPTS {
            let udp = std::net::UdpSocket::bind(listen)
                .map_err(|e| anyhow::anyhow!("listen on {listen}: {e}"))?;
            let addr = udp.local_addr()?;
            match std::net::TcpListener::bind(addr) {
                Ok(tcp) => return Ok(PortPair { addr, udp, tcp }),
                Err(e) => {
                    last = Some(e);
                    refused.push(udp);
                }
            }
        }
        let why = last.map(|e| e.to_string()).unwrap_or_default();
        anyhow::bail!(
            "--h2: no port number free for both UDP and TCP on {} after {} tries (last: {why}); \
             give --h2-listen",
            listen.ip(),
            Self::ATTEMPTS
        )
    }
}

/// Runs `ramp serve`.
pub fn run(args: Args) -> anyhow::Result<()> {
    crate::clobber::refuse_optional_outputs(
        &[
            ("--stats", args.stats.as_ref()),
            ("--qlog", args.qlog.as_ref()),
        ],
        &[args.cert.as_ref(), args.key.as_ref(), args.root.as_ref()],
    )?;
    let cc = args.cc;
    let pacing = args.pacing;
    // An arm's `pacer=` (the seed arms carry quicly's) chooses the pacer
    // under `--pacing controller`, as in the simulator; an explicit
    // `--pacing quicly|quinn` overrides it, which is worth a word.
    if let Some(m) = cc.pacer {
        let effective = pacing.for_arm(Some(m));
        if effective.name() != m.as_str()
            && !(m.as_str() == "leaky" && effective.name() == "controller")
        {
            ramp_vocab::note!(
                "ramp serve: warning: --cc {}: the arm names pacer={}, but --pacing {} paces it",
                cc.name,
                m.as_str(),
                effective.name()
            );
        }
    }
    if let Some(why) = cc.real_mode_limitation() {
        ramp_vocab::note!("ramp serve: warning: {why}");
    }
    let identity = match (&args.cert, &args.key) {
        (Some(c), Some(k)) => Identity::from_pem_files(c, k)?,
        _ => Identity::self_signed()?,
    };
    let labels = PathLabels {
        rate_bps: args.path_rate.map(|r| r.bits_per_sec()),
        rtt: args.path_rtt,
        queue: args.path_queue,
        loss: args.path_loss,
        seed: args.seed,
        group: args.group.clone(),
    };
    if let Some(dir) = &args.qlog {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("--qlog {}: {e}", dir.display()))?;
    }
    if let Some(root) = &args.root {
        // Refuse at start, not on every request: a typo would serve 404s.
        if !root.is_dir() {
            anyhow::bail!("--root {}: not a directory", root.display());
        }
    }
    let limit = args.duration;
    let name = cc.name.clone();
    // HTTP/2 listens on TCP at HTTP/3's address, port included (so with
    // `--listen :0` both share one port number), unless --h2-listen says
    // otherwise. It starts once HTTP/3 is bound; the lines print HTTP/3
    // first, then HTTP/2.
    let mut listen = args.listen;
    let mut tcp_hold = None;
    let mut udp = None;
    if args.h2 && args.h2_listen.is_none() && listen.port() == 0 {
        let pair = PortPair::reserve(listen)?;
        listen = pair.addr;
        tcp_hold = Some(pair.tcp);
        udp = Some(pair.udp);
    }
    let h2 = args.h2.then(|| {
        (
            args.h2_listen,
            ramp_quic::h2::tls::clone_identity(&identity),
            args.root.clone(),
            args.tcp_cc.clone(),
        )
    });
    let cfg = ServeConfig {
        listen,
        cc,
        identity,
        root: args.root,
        stats: args.stats,
        labels,
        idle_timeout: ramp_quic::IDLE_TIMEOUT,
    };
    let opts = ServeOptions {
        datagram_bytes: args.datagram_bytes,
        pmtud: args.pmtud == Switch::On,
        pacing,
        ack_timing: args.ack_timing,
        qlog: args.qlog,
    };
    let on_ready = |addr| {
        // Scripts read the port from this line when listening on port 0.
        crate::stdout_line::say!("listening on {addr} cc {name}");
        if let Some((h2_listen, identity, root, tcp_cc)) = h2 {
            let at = h2_listen.unwrap_or(addr);
            // The reserved TCP port is let go only now, for the HTTP/2
            // listener to take it.
            drop(tcp_hold);
            if let Err(e) = super::load::start_h2_server(at, &identity, root, tcp_cc, limit) {
                // The HTTP/3 server is already up: stop the process with
                // the error rather than serve half of what was asked.
                ramp_vocab::note!("ramp: error: {e:#}");
                std::process::exit(2);
            }
        }
    };
    let counters = match udp {
        Some(socket) => serve_blocking_on(socket, cfg, opts, limit, on_ready),
        None => serve_blocking_with(cfg, opts, limit, on_ready),
    }
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    ramp_vocab::note!(
        "ramp serve: {} connections, {} requests ok, {} failed, {} records",
        counters.connections,
        counters.requests_ok,
        counters.requests_failed,
        counters.records
    );
    if counters.record_errors > 0 {
        anyhow::bail!(
            "{} stats records could not be written",
            counters.record_errors
        );
    }
    Ok(())
}
