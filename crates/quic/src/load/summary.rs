//! The h2load summary of a load run: counts, traffic and the
//! min/max/mean/sd/±sd table, with h2load's arithmetic and layout.
//!
//! As in h2load (nghttp2 `src/h2load.cc`, `compute_time_stat`): the
//! standard deviation is the population one (divide by n), and "+/- sd"
//! is the share of samples within mean ± sd, inclusive.

use std::fmt;
use std::time::Duration;

use serde_json::{Map, Value};

use super::{LoadReport, Outcome};

/// min / max / mean / sd / share within one sd of a sample set.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SdStat {
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Population standard deviation (divide by n, as h2load).
    pub sd: f64,
    /// Percentage of samples in `[mean - sd, mean + sd]`.
    pub within_sd_pct: f64,
    /// Number of samples.
    pub count: usize,
}

impl SdStat {
    /// The statistics of `samples`; all zero when empty (h2load prints
    /// zeros then).
    pub fn of(samples: &[f64]) -> SdStat {
        if samples.is_empty() {
            return SdStat::default();
        }
        let n = samples.len() as f64;
        let mean = samples.iter().sum::<f64>() / n;
        // Two passes: exact enough for any run length here, and no
        // cancellation as in sum-of-squares.
        let var = samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
        let sd = var.sqrt();
        let within = samples
            .iter()
            .filter(|&&x| x >= mean - sd && x <= mean + sd)
            .count();
        SdStat {
            min: samples.iter().copied().fold(f64::INFINITY, f64::min),
            max: samples.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            mean,
            sd,
            within_sd_pct: 100.0 * within as f64 / n,
            count: samples.len(),
        }
    }

    fn to_json(self) -> Value {
        let mut m = Map::new();
        m.insert("min".into(), self.min.into());
        m.insert("max".into(), self.max.into());
        m.insert("mean".into(), self.mean.into());
        m.insert("sd".into(), self.sd.into());
        m.insert("within-sd-pct".into(), self.within_sd_pct.into());
        m.insert("count".into(), self.count.into());
        Value::Object(m)
    }
}

/// Everything h2load prints after a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Wall time of the run.
    pub elapsed: Duration,
    /// Requests asked for (`-n`).
    pub total: usize,
    /// Requests sent.
    pub started: usize,
    /// Requests that ended: `succeeded + failed`.
    pub done: usize,
    /// Responses with a 2xx or 3xx status and a complete body.
    pub succeeded: usize,
    /// Every other ended request (includes `errored`).
    pub failed: usize,
    /// Failed without a complete response (stream or connection error,
    /// timeout, never sent because the connection failed).
    pub errored: usize,
    /// Failed by the per-request timeout, the run's `--duration` cap or
    /// the connection's idle timeout ([`super::Outcome::IdleTimeout`]).
    pub timeout: usize,
    /// Responses by status class: index 0 = 1xx … 4 = 5xx.
    pub status_classes: [usize; 5],
    /// Bytes read from the transport: QUIC UDP payloads (HTTP/3) or
    /// HTTP/2 frames after TLS (HTTP/2).
    pub traffic_total_bytes: u64,
    /// Response header bytes, decoded (name + value lengths).
    pub traffic_header_bytes: u64,
    /// Response body bytes.
    pub traffic_data_bytes: u64,
    /// Seconds from sending a request to its last body byte.
    pub request_time: SdStat,
    /// Seconds from a client's start to its handshake's end.
    pub connect_time: SdStat,
    /// Seconds from a client's start to its first response.
    pub first_byte_time: SdStat,
    /// Successful requests per second of each client's lifetime.
    pub client_rps: SdStat,
}

impl Summary {
    /// Summarises a run.
    pub fn of(report: &LoadReport) -> Summary {
        let mut s = Summary {
            elapsed: report.elapsed,
            total: report.planned,
            started: 0,
            done: 0,
            succeeded: 0,
            failed: 0,
            errored: 0,
            timeout: 0,
            status_classes: [0; 5],
            traffic_total_bytes: 0,
            traffic_header_bytes: 0,
            traffic_data_bytes: 0,
            request_time: SdStat::default(),
            connect_time: SdStat::default(),
            first_byte_time: SdStat::default(),
            client_rps: SdStat::default(),
        };
        let mut request_times = Vec::new();
        for r in &report.requests {
            s.started += usize::from(r.started);
            s.done += 1;
            s.traffic_header_bytes += r.header_bytes;
            s.traffic_data_bytes += r.data_bytes;
            if let Some(st) = r.status {
                if (100..600).contains(&st) {
                    s.status_classes[usize::from(st / 100 - 1)] += 1;
                }
            }
            match &r.outcome {
                Outcome::Complete => {
                    if let Some(t) = r.time {
                        request_times.push(t.as_secs_f64());
                    }
                    if r.status.is_some_and(|st| (200..400).contains(&st)) {
                        s.succeeded += 1;
                    } else {
                        s.failed += 1;
                    }
                }
                Outcome::Errored(_) => {
                    s.failed += 1;
                    s.errored += 1;
                }
                Outcome::TimedOut | Outcome::IdleTimeout => {
                    s.failed += 1;
                    s.errored += 1;
                    s.timeout += 1;
                }
            }
        }
        // Never sent because their connection failed: done and errored,
        // not started (h2load counts them so too).
        let abandoned: usize = report.clients.iter().map(|c| c.abandoned).sum();
        s.done += abandoned;
        s.failed += abandoned;
        s.errored += abandoned;
        s.traffic_total_bytes = report.clients.iter().map(|c| c.transport_rx_bytes).sum();
        s.request_time = SdStat::of(&request_times);
        let secs = |d: &Option<Duration>| d.map(|d| d.as_secs_f64());
        let connect: Vec<f64> = report
            .clients
            .iter()
            .filter_map(|c| secs(&c.connect))
            .collect();
        let first: Vec<f64> = report
            .clients
            .iter()
            .filter_map(|c| secs(&c.first_byte))
            .collect();
        let rps: Vec<f64> = report
            .clients
            .iter()
            .filter(|c| c.connect.is_some())
            .map(|c| {
                let life = c.lifetime.as_secs_f64();
                if life > 0.0 {
                    c.succeeded as f64 / life
                } else {
                    0.0
                }
            })
            .collect();
        s.connect_time = SdStat::of(&connect);
        s.first_byte_time = SdStat::of(&first);
        s.client_rps = SdStat::of(&rps);
        s
    }

    /// Successful requests per second of the whole run (h2load's "req/s").
    pub fn req_per_sec(&self) -> f64 {
        per_sec(self.succeeded as f64, self.elapsed)
    }

    /// Transport bytes per second of the whole run (h2load's "MB/s").
    pub fn bytes_per_sec(&self) -> f64 {
        per_sec(self.traffic_total_bytes as f64, self.elapsed)
    }

    /// The summary as one JSON object (`ramp load --summary-json`).
    pub fn to_json(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("elapsed-s".into(), self.elapsed.as_secs_f64().into());
        m.insert("req-per-s".into(), self.req_per_sec().into());
        m.insert("bytes-per-s".into(), self.bytes_per_sec().into());
        for (k, v) in [
            ("requests.total", self.total),
            ("requests.started", self.started),
            ("requests.done", self.done),
            ("requests.succeeded", self.succeeded),
            ("requests.failed", self.failed),
            ("requests.errored", self.errored),
            ("requests.timeout", self.timeout),
        ] {
            m.insert(k.into(), v.into());
        }
        for (i, n) in self.status_classes.iter().enumerate() {
            m.insert(format!("status.{}xx", i + 1), (*n).into());
        }
        m.insert("traffic.total".into(), self.traffic_total_bytes.into());
        m.insert("traffic.headers".into(), self.traffic_header_bytes.into());
        m.insert("traffic.data".into(), self.traffic_data_bytes.into());
        m.insert("time-for-request-s".into(), self.request_time.to_json());
        m.insert("time-for-connect-s".into(), self.connect_time.to_json());
        m.insert("time-to-1st-byte-s".into(), self.first_byte_time.to_json());
        m.insert("req-per-s-per-client".into(), self.client_rps.to_json());
        m
    }
}

fn per_sec(x: f64, d: Duration) -> f64 {
    let s = d.as_secs_f64();
    if s > 0.0 {
        x / s
    } else {
        0.0
    }
}

/// A duration as h2load prints it: whole µs below 1 ms, else two
/// decimals in ms or s.
pub fn format_secs(t: f64) -> String {
    if t >= 1.0 {
        format!("{t:.2}s")
    } else if t >= 0.001 {
        format!("{:.2}ms", t * 1e3)
    } else {
        format!("{}us", (t * 1e6) as i64)
    }
}

/// A byte count as h2load prints it: binary units, two decimals.
pub fn format_bytes(n: f64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if n < 1024.0 {
        return format!("{}B", n as u64);
    }
    let mut v = n / 1024.0;
    let mut unit = UNITS[0];
    for u in &UNITS[1..] {
        if v < 1024.0 {
            break;
        }
        v /= 1024.0;
        unit = u;
    }
    format!("{v:.2}{unit}")
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "finished in {}, {:.2} req/s, {}/s",
            format_secs(self.elapsed.as_secs_f64()),
            self.req_per_sec(),
            format_bytes(self.bytes_per_sec())
        )?;
        writeln!(
            f,
            "requests: {} total, {} started, {} done, {} succeeded, {} failed, {} errored, {} timeout",
            self.total, self.started, self.done, self.succeeded, self.failed, self.errored, self.timeout
        )?;
        let c = &self.status_classes;
        writeln!(
            f,
            "status codes: {} 2xx, {} 3xx, {} 4xx, {} 5xx",
            c[1], c[2], c[3], c[4]
        )?;
        writeln!(
            f,
            "traffic: {} ({}) total, {} ({}) headers (decoded), {} ({}) data",
            format_bytes(self.traffic_total_bytes as f64),
            self.traffic_total_bytes,
            format_bytes(self.traffic_header_bytes as f64),
            self.traffic_header_bytes,
            format_bytes(self.traffic_data_bytes as f64),
            self.traffic_data_bytes
        )?;
        writeln!(
            f,
            "                     min         max         mean         sd        +/- sd"
        )?;
        let time_row = |f: &mut fmt::Formatter<'_>, label: &str, s: &SdStat| {
            writeln!(
                f,
                "{label}: {:>10}  {:>10}  {:>10}  {:>10}{:>9.2}%",
                format_secs(s.min),
                format_secs(s.max),
                format_secs(s.mean),
                format_secs(s.sd),
                s.within_sd_pct
            )
        };
        time_row(f, "time for request", &self.request_time)?;
        time_row(f, "time for connect", &self.connect_time)?;
        time_row(f, "time to 1st byte", &self.first_byte_time)?;
        let r = &self.client_rps;
        writeln!(
            f,
            "req/s           : {:>10.2}  {:>10.2}  {:>10.2}  {:>10.2}{:>9.2}%",
            r.min, r.max, r.mean, r.sd, r.within_sd_pct
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{ClientRecord, RequestRecord};

    #[test]
    fn sd_stat_by_hand() {
        // 1, 2, 3, 4, 10: mean 4, squared deviations 9+4+1+0+36 = 50,
        // population variance 10, sd √10 = 3.1623; within [0.84, 7.16]:
        // 1, 2, 3, 4 → 80 %.
        let s = SdStat::of(&[1.0, 2.0, 3.0, 4.0, 10.0]);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 10.0);
        assert!((s.mean - 4.0).abs() < 1e-12);
        assert!((s.sd - 10f64.sqrt()).abs() < 1e-12);
        assert!((s.within_sd_pct - 80.0).abs() < 1e-12);
        assert_eq!(s.count, 5);
    }

    #[test]
    fn sd_stat_edges() {
        assert_eq!(SdStat::of(&[]), SdStat::default());
        let one = SdStat::of(&[0.5]);
        assert_eq!((one.min, one.max, one.mean, one.sd), (0.5, 0.5, 0.5, 0.0));
        // A sample exactly at mean ± sd counts as within (inclusive).
        let two = SdStat::of(&[1.0, 3.0]);
        assert_eq!((two.mean, two.sd, two.within_sd_pct), (2.0, 1.0, 100.0));
    }

    fn req(
        index: usize,
        status: Option<u16>,
        time_s: Option<f64>,
        outcome: Outcome,
    ) -> RequestRecord {
        RequestRecord {
            index,
            client: index % 2,
            started: true,
            start: Duration::ZERO,
            status,
            header_bytes: 10,
            data_bytes: if status.is_some() { 100 } else { 0 },
            ttfb: time_s.map(|_| Duration::from_millis(1)),
            time: time_s.map(Duration::from_secs_f64),
            outcome,
        }
    }

    #[test]
    fn summary_counts_and_times_by_hand() {
        let requests = vec![
            req(0, Some(200), Some(1.0), Outcome::Complete),
            req(1, Some(302), Some(3.0), Outcome::Complete),
            req(2, Some(404), Some(2.0), Outcome::Complete),
            req(3, None, None, Outcome::Errored("reset".into())),
            req(4, None, None, Outcome::TimedOut),
        ];
        let client = |index, succeeded, lifetime_s: f64| ClientRecord {
            index,
            connect: Some(Duration::from_millis(2 + index as u64 * 2)),
            first_byte: Some(Duration::from_millis(5)),
            lifetime: Duration::from_secs_f64(lifetime_s),
            end: Duration::from_secs_f64(lifetime_s),
            succeeded,
            transport_rx_bytes: 500,
            error: None,
            abandoned: 0,
        };
        let report = LoadReport {
            planned: 6,
            elapsed: Duration::from_secs(4),
            requests,
            clients: vec![client(0, 1, 2.0), client(1, 1, 4.0)],
        };
        let s = Summary::of(&report);
        assert_eq!((s.total, s.started, s.done), (6, 5, 5));
        // A third client whose connection failed: its 3 requests are done
        // and errored, not started, without a record each.
        let mut failed = client(2, 0, 1.0);
        (failed.connect, failed.first_byte, failed.transport_rx_bytes) = (None, None, 0);
        failed.abandoned = 3;
        let mut with_failed = report.clone();
        with_failed.planned = 9;
        with_failed.clients.push(failed);
        let f = Summary::of(&with_failed);
        assert_eq!((f.total, f.started, f.done), (9, 5, 8));
        assert_eq!((f.succeeded, f.failed, f.errored, f.timeout), (2, 6, 5, 1));
        assert_eq!((s.succeeded, s.failed, s.errored, s.timeout), (2, 3, 2, 1));
        assert_eq!(s.status_classes, [0, 1, 1, 1, 0]);
        assert_eq!(
            (
                s.traffic_total_bytes,
                s.traffic_header_bytes,
                s.traffic_data_bytes
            ),
            (1000, 50, 300)
        );
        // Request times 1, 3, 2 s: mean 2, population sd √(2/3).
        assert_eq!(s.request_time.count, 3);
        assert!((s.request_time.mean - 2.0).abs() < 1e-12);
        assert!((s.request_time.sd - (2.0f64 / 3.0).sqrt()).abs() < 1e-12);
        // Connect 2 and 4 ms: mean 3 ms, sd 1 ms, both on the edge → 100 %.
        assert!((s.connect_time.mean - 0.003).abs() < 1e-12);
        assert!((s.connect_time.sd - 0.001).abs() < 1e-12);
        // Per client: 1 / 2 s and 1 / 4 s.
        assert!((s.client_rps.min - 0.25).abs() < 1e-12);
        assert!((s.client_rps.max - 0.5).abs() < 1e-12);
        // Whole run: 2 successes in 4 s, 1000 bytes in 4 s.
        assert!((s.req_per_sec() - 0.5).abs() < 1e-12);
        assert!((s.bytes_per_sec() - 250.0).abs() < 1e-12);
        let text = s.to_string();
        assert!(
            text.starts_with("finished in 4.00s, 0.50 req/s, 250B/s\n"),
            "{text}"
        );
        assert!(text.contains(
            "requests: 6 total, 5 started, 5 done, 2 succeeded, 3 failed, 2 errored, 1 timeout\n"
        ));
        assert!(text.contains("status codes: 1 2xx, 1 3xx, 1 4xx, 0 5xx\n"));
        assert!(
            text.contains(
                "time for request:      1.00s       3.00s       2.00s    816.50ms    33.33%\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn h2load_number_formats() {
        assert_eq!(format_secs(0.000716), "716us");
        assert_eq!(format_secs(0.01432), "14.32ms");
        assert_eq!(format_secs(2.43), "2.43s");
        assert_eq!(format_bytes(2876.0), "2.81KB");
        assert_eq!(format_bytes(3_357_292_466.0), "3.13GB");
        assert_eq!(format_bytes(1000.0), "1000B");
        assert_eq!(format_bytes(32_768_000.0), "31.25MB");
    }
}
