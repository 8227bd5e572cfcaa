//! `ramp load`.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use ramp_quic::load::{self, LoadConfig, Progress, Protocol, Summary};
use ramp_quic::Trust;
use ramp_vocab::units::parse_duration;

/// Arguments of `ramp load`.
///
/// An h2load-style load generator: `-n` requests over `-c` connections,
/// up to `-m` in flight on each, over HTTP/3 (default) or HTTP/2 over
/// TLS. Prints h2load's summary.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// `https://host:port/path`.
    url: String,
    /// Total requests.
    #[arg(short = 'n', long = "requests", default_value_t = 1)]
    requests: usize,
    /// Clients (one connection each).
    #[arg(short = 'c', long = "clients", default_value_t = 1)]
    clients: usize,
    /// Requests in flight per client (concurrent streams).
    #[arg(short = 'm', long = "max-concurrent-streams", default_value_t = 1)]
    max_streams: usize,
    /// HTTP/3 over QUIC (the default).
    #[arg(long, conflicts_with = "h2")]
    h3: bool,
    /// HTTP/2 over TLS over TCP.
    #[arg(long)]
    h2: bool,
    /// Accept any server certificate.
    #[arg(long, short = 'k')]
    insecure: bool,
    /// Trust the CA certificates in this PEM file.
    #[arg(long, conflicts_with = "insecure")]
    cacert: Option<PathBuf>,
    /// Stop the whole run after this long (in-flight requests end as
    /// timeouts, unsent ones are not started).
    #[arg(long, short = 'D', value_parser = parse_duration)]
    duration: Option<Duration>,
    /// Give up one request after this long.
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    timeout: Duration,
    /// Give up a handshake after this long.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    connect_timeout: Duration,
    /// Per-request NDJSON records, in request order.
    #[arg(long)]
    json: Option<PathBuf>,
    /// The summary as one JSON object.
    #[arg(long)]
    summary_json: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// A progress bar is drawn once a run has lasted this long.
const PROGRESS_AFTER: Duration = Duration::from_secs(2);

/// Runs `ramp load`.
pub fn run(args: Args) -> anyhow::Result<()> {
    crate::clobber::refuse_optional_outputs(
        &[
            ("--json", args.json.as_ref()),
            ("--summary-json", args.summary_json.as_ref()),
        ],
        &[args.cacert.as_ref()],
    )?;
    let url: load::Uri = args
        .url
        .parse()
        .with_context(|| format!("URL {:?}", args.url))?;
    let trust = match (&args.cacert, args.insecure) {
        (Some(p), _) => Trust::CaFile(p.clone()),
        (None, true) => Trust::Insecure,
        (None, false) => anyhow::bail!(
            "no way to verify the server: pass --insecure (ramp serve's certificate is self-signed) or --cacert FILE"
        ),
    };
    let cfg = LoadConfig {
        url,
        protocol: if args.h2 { Protocol::H2 } else { Protocol::H3 },
        requests: args.requests,
        clients: args.clients,
        max_streams: args.max_streams,
        trust,
        request_timeout: args.timeout,
        connect_timeout: args.connect_timeout,
        duration_cap: args.duration,
    };
    if cfg.requests == 0 || cfg.clients == 0 || cfg.max_streams == 0 {
        anyhow::bail!("-n, -c and -m must each be at least 1");
    }
    // The outputs are written after the run: check them before it.
    for (what, path) in [
        ("--json", &args.json),
        ("--summary-json", &args.summary_json),
    ] {
        if let Some(p) = path {
            crate::writable::check_writable(what, p)?;
        }
    }
    let _ = writeln!(
        std::io::stdout().lock(),
        "starting benchmark ({})...\nspawning {} clients, {} requests, max {} concurrent streams per client",
        cfg.protocol.name(),
        cfg.clients.min(cfg.requests),
        cfg.requests,
        cfg.max_streams
    );
    let progress = Arc::new(Progress::default());
    let bar = (!args.quiet).then(|| spawn_bar(progress.clone(), cfg.requests as u64));
    let result = load::run_blocking(&cfg, progress);
    if let Some((stop, handle)) = bar {
        stop.store(true, Ordering::Relaxed);
        let _ = handle.join();
    }
    let report = result.map_err(|e| anyhow::anyhow!("{e}"))?;
    for c in report.clients.iter().filter(|c| c.error.is_some()) {
        if let Some(e) = &c.error {
            ramp_vocab::note!("client {}: {e}", c.index);
        }
    }
    let summary = Summary::of(&report);
    // A closed stdout (`| head`) is not an error of the run.
    let _ = write!(std::io::stdout().lock(), "\n{summary}");
    if let Some(path) = &args.json {
        let f = std::fs::File::create(path).with_context(|| format!("{}", path.display()))?;
        let mut w = std::io::BufWriter::new(f);
        for r in &report.requests {
            serde_json::to_writer(&mut w, &r.to_json())
                .with_context(|| format!("{}", path.display()))?;
            w.write_all(b"\n")
                .with_context(|| format!("{}", path.display()))?;
        }
        w.flush().with_context(|| format!("{}", path.display()))?;
    }
    if let Some(path) = &args.summary_json {
        let mut m = summary.to_json();
        m.insert("protocol".into(), cfg.protocol.name().into());
        m.insert("url".into(), args.url.clone().into());
        m.insert("clients".into(), cfg.clients.into());
        m.insert("max-streams".into(), cfg.max_streams.into());
        let text = serde_json::to_string_pretty(&m)?;
        std::fs::write(path, text + "\n").with_context(|| format!("{}", path.display()))?;
    }
    // Like `ramp get` (and curl --fail): a run in which any request failed
    // is a failed run, after the summary and the files are written.
    if summary.failed > 0 {
        anyhow::bail!(
            "{} of {} requests failed: {} errored (of which {} timed out), {} 4xx, {} 5xx",
            summary.failed,
            summary.total,
            summary.errored,
            summary.timeout,
            summary.status_classes[3],
            summary.status_classes[4]
        );
    }
    Ok(())
}

/// A thread drawing a progress bar on stderr (only on a terminal, and only
/// once the run has lasted [`PROGRESS_AFTER`]); `ramp get` shares it.
pub(crate) fn spawn_bar(
    progress: Arc<Progress>,
    total: u64,
) -> (
    Arc<std::sync::atomic::AtomicBool>,
    std::thread::JoinHandle<()>,
) {
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop2 = stop.clone();
    let handle = std::thread::spawn(move || {
        let started = std::time::Instant::now();
        let mut bar: Option<indicatif::ProgressBar> = None;
        while !stop2.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(100));
            if bar.is_none() && started.elapsed() >= PROGRESS_AFTER {
                let b = indicatif::ProgressBar::new(total);
                if let Ok(style) = indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:40}] {pos}/{len} requests {msg}",
                ) {
                    b.set_style(style.progress_chars("=> "));
                }
                bar = Some(b);
            }
            if let Some(b) = &bar {
                b.set_position(progress.done.load(Ordering::Relaxed));
                let bytes = progress.data_bytes.load(Ordering::Relaxed);
                b.set_message(load::summary::format_bytes(bytes as f64));
            }
        }
        if let Some(b) = bar {
            b.finish_and_clear();
        }
    });
    (stop, handle)
}

/// Starts `ramp serve --h2`'s HTTP/2 listener on its own thread and
/// runtime; returns once it is bound (printing `listening h2 on ADDR`) or
/// failed to bind. It stops with the process, or after `limit`.
pub fn start_h2_server(
    listen: std::net::SocketAddr,
    identity: &ramp_quic::Identity,
    root: Option<PathBuf>,
    tcp_cc: Option<String>,
    limit: Option<Duration>,
) -> anyhow::Result<()> {
    use ramp_quic::h2::server::{serve_blocking, H2Config};
    let cfg = H2Config {
        listen,
        identity: ramp_quic::h2::tls::clone_identity(identity),
        root,
        tcp_cc,
    };
    let (tx, rx) = std::sync::mpsc::channel::<Result<(), String>>();
    let tx_err = tx.clone();
    std::thread::Builder::new()
        .name("ramp-serve-h2".into())
        .spawn(move || {
            let r = serve_blocking(cfg, limit, |addr| {
                // Scripts read the port from this line when listening on port 0.
                crate::stdout_line::say!("listening h2 on {addr}");
                let _ = tx.send(Ok(()));
            });
            match r {
                Ok(c) => ramp_vocab::note!(
                    "ramp serve --h2: {} connections ({} refused), {} requests ok, {} failed",
                    c.connections,
                    c.connections_refused,
                    c.requests_ok,
                    c.requests_failed
                ),
                Err(e) => {
                    let _ = tx_err.send(Err(e.to_string()));
                }
            }
        })
        .context("starting the HTTP/2 server thread")?;
    match rx.recv() {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => anyhow::bail!("--h2: {e}"),
        Err(_) => anyhow::bail!("--h2: the HTTP/2 server stopped before listening"),
    }
}
