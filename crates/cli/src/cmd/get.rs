//! `ramp get`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use ramp_quic::client::{get_blocking_reporting, Distribution, GetConfig, GetResult};
use ramp_quic::load::Progress;
use ramp_quic::Trust;

/// Arguments of `ramp get`.
///
/// Fetches URL over HTTP/3 K times and reports TTFB (request sent to
/// response headers) and TTLB (to the last body byte) per request. With C
/// connections each carries its share of the requests one after another.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// `https://host:port/path`, e.g. https://127.0.0.1:4433/bytes/2000000.
    url: String,
    /// Number of requests (`ramp load`'s and h2load's spelling; `--n`
    /// still works).
    #[arg(
        short = 'n',
        long = "requests",
        alias = "n",
        value_name = "REQUESTS",
        default_value_t = 1
    )]
    n: usize,
    /// Connections in parallel (as `ramp load -c`; `--concurrency` still
    /// works).
    #[arg(short = 'c', long = "clients", alias = "concurrency", value_name = "CLIENTS", default_value_t = 1, value_parser = crate::ranges::number_in(1usize, 1024))]
    concurrency: usize,
    /// Accept any server certificate (like curl's --insecure).
    #[arg(long, short = 'k')]
    insecure: bool,
    /// Trust the CA certificates in this PEM file (curl's and `ramp
    /// load`'s spelling; `--ca` still works).
    #[arg(
        long = "cacert",
        alias = "ca",
        value_name = "CACERT",
        conflicts_with = "insecure"
    )]
    ca: Option<PathBuf>,
    /// One JSON record per request on stdout instead of the summary.
    #[arg(long)]
    json: bool,
    /// No progress bar. (The bar is drawn on stderr, only on a terminal,
    /// once the run has lasted 2 s: stdout carries only the results.)
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Give up on one request after this long.
    #[arg(long, default_value = "60s", value_parser = crate::ranges::duration_in(Duration::from_millis(1), Duration::from_secs(3600)))]
    timeout: Duration,
}

/// Runs `ramp get`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let trust = match (&args.ca, args.insecure) {
        (Some(ca), _) => Trust::CaFile(ca.clone()),
        (None, true) => Trust::Insecure,
        (None, false) => {
            anyhow::bail!(
                "no trust anchor: pass --cacert FILE, or --insecure for a self-signed server"
            )
        }
    };
    if args.n == 0 {
        anyhow::bail!("-n must be at least 1");
    }
    let cfg = GetConfig {
        url: args
            .url
            .parse()
            .with_context(|| format!("URL {:?}", args.url))?,
        n: args.n,
        concurrency: args.concurrency,
        trust,
        timeout: args.timeout,
    };
    let progress = Arc::new(Progress::default());
    let bar = (!args.quiet).then(|| super::load::spawn_bar(progress.clone(), cfg.n as u64));
    // JSON records are printed (and flushed) as soon as the requests have
    // ended, before the client's closing period: a script that waits for
    // them (bench/interop/run.py) need not wait for the process to exit.
    let json = args.json;
    let results = get_blocking_reporting(&cfg, progress, |results| {
        if json {
            print_json(results);
        }
    });
    if let Some((stop, handle)) = bar {
        stop.store(true, Ordering::Relaxed);
        let _ = handle.join();
    }
    let results = results.map_err(|e| anyhow::anyhow!("{e}"))?;
    let failed = results.iter().filter(|r| !r.is_ok()).count();
    if !args.json && failed < results.len() {
        print_summary(&results, failed);
    }
    if !args.json {
        for r in results.iter().filter(|r| !r.is_ok()).take(5) {
            ramp_vocab::note!("request {}: {}", r.index, failure(r));
        }
    }
    if failed > 0 {
        anyhow::bail!(
            "{failed} of {} {} failed",
            results.len(),
            plural(results.len(), "request")
        );
    }
    Ok(())
}

/// One JSON record per result on stdout, flushed.
fn print_json(results: &[GetResult]) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    for r in results {
        // A closed stdout is not an error worth failing the download for.
        let _ = writeln!(out, "{}", serde_json::Value::Object(r.to_json()));
    }
    let _ = out.flush();
}

/// `word`, with an `s` unless `n` is 1.
fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        word.to_string()
    } else {
        format!("{word}s")
    }
}

/// Why a request that did not succeed failed, in words: the error; else a
/// status other than 200 (a 404 is not "wrong bytes"); else a `/bytes/N`
/// body that did not match the server's pattern or length.
fn failure(r: &GetResult) -> String {
    match (&r.error, r.status) {
        (Some(e), Some(status)) => format!("HTTP status {status}, then {e}"),
        (Some(e), None) => e.clone(),
        (None, Some(status)) if status != 200 => {
            format!("HTTP status {status} (not 200), {} body bytes", r.bytes)
        }
        _ => format!(
            "status 200, but the {} body bytes are not the /bytes/N pattern of that length",
            r.bytes
        ),
    }
}

/// The counts and the TTFB/TTLB table of the requests that succeeded.
fn print_summary(results: &[GetResult], failed: usize) {
    let ok: Vec<_> = results.iter().filter(|r| r.is_ok()).collect();
    let ttfb: Vec<Duration> = ok.iter().filter_map(|r| r.ttfb).collect();
    let ttlb: Vec<Duration> = ok.iter().filter_map(|r| r.ttlb).collect();
    let bytes: u64 = ok.iter().map(|r| r.bytes).sum();
    println!(
        "{} {}: {} ok, {} failed; {} body bytes",
        results.len(),
        plural(results.len(), "request"),
        ok.len(),
        failed,
        bytes
    );
    println!(
        "{:<5} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "ms", "min", "mean", "p50", "p90", "p99", "max"
    );
    for (name, v) in [("ttfb", &ttfb), ("ttlb", &ttlb)] {
        if let Some(d) = Distribution::of(v) {
            let f = |x: Duration| format!("{:.3}", x.as_secs_f64() * 1e3);
            println!(
                "{:<5} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
                name,
                f(d.min),
                f(d.mean),
                f(d.p50),
                f(d.p90),
                f(d.p99),
                f(d.max)
            );
        }
    }
}
