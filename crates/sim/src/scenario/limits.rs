//! The range of every scenario number, checked once after a scenario is
//! built (from a preset, a file or the command line), before any run.

use core::time::Duration;

use ramp_cc::Rate;

use crate::{Bound, SimError};
use ramp_link::Aqm;

use super::{QueueLimit, Scenario};

impl Scenario {
    /// Checks the invariants the simulator relies on.
    pub fn validate(&self) -> Result<(), SimError> {
        let p = &self.path;
        let e = &self.endpoint;
        rate_in("path.rate", p.rate)?;
        if let Some(r) = p.reverse_rate {
            rate_in("path.reverse_rate", r)?;
        }
        within("path.forward_delay", p.forward_delay, MAX_DELAY)?;
        within("path.reverse_delay", p.reverse_delay, MAX_DELAY)?;
        if let Aqm::Step { threshold } = p.aqm {
            within("path.aqm step threshold", threshold, MAX_DELAY)?;
        }
        if let Some(a) = p.elements.aggregation {
            within(
                "path.ack_aggregation",
                a.interval(),
                ramp_link::AckAggregation::MAX,
            )?;
        }
        if p.trace.is_some() && p.elements.cellular.is_some() {
            return Err(rule(
                "path.cellular",
                "a trace-driven link cannot be cellular too",
            ));
        }
        if p.trace.is_some() && !p.rate_steps.is_empty() {
            return Err(rule(
                "path.trace",
                "rate steps do not apply to a trace-driven link",
            ));
        }
        for (i, step) in p.rate_steps.iter().enumerate() {
            rate_in(&format!("path.rate_step {}: rate", i + 1), step.rate)?;
            if i > 0 && step.at <= p.rate_steps[i - 1].at {
                return Err(SimError::RateStepOrder {
                    step: i + 1,
                    at: step.at,
                    before: p.rate_steps[i - 1].at,
                });
            }
        }
        if e.mds < 1200 || e.mds > 65_527 {
            return Err(rule(
                "endpoint.mds",
                "must lie in 1200..=65527 (RFC 9000 §14)",
            ));
        }
        if p.header_bytes > super::MAX_HEADER_BYTES {
            return Err(rule(
                "path.header_bytes",
                "must be at most 100 (an IPv6 and a UDP header are 48)",
            ));
        }
        if e.packet_overhead < super::MIN_PACKET_OVERHEAD_BYTES || e.packet_overhead >= e.mds {
            return Err(rule(
                "endpoint.packet_overhead",
                "must be at least 20 bytes (RFC 9000 §17.3.1, §19.8; RFC 9001 §5.3) and less than mds",
            ));
        }
        if p.queue_bytes() < e.mds {
            return Err(SimError::QueueTooSmall {
                rate: p.rate,
                queue: p.queue,
                bytes: p.queue_bytes(),
                mds: e.mds,
            });
        }
        count_in("path.queue (bytes)", p.queue_bytes(), 1, MAX_BYTES_IN_PATH)?;
        if let Some(b) = p.elements.policer {
            rate_in("path.policer.rate", b.rate)?;
            count_in("path.policer.burst", b.burst, e.mds, MAX_BYTES_IN_PATH)?;
        }
        count_in("endpoint.iw (packets)", e.iw_packets, 1, MAX_WINDOW_PACKETS)?;
        count_in(
            "endpoint.jump_window (packets)",
            e.jump_packets,
            1,
            MAX_WINDOW_PACKETS,
        )?;
        within("endpoint.max_ack_delay", e.max_ack_delay, MAX_ACK_DELAY)?;
        if let Some(saved) = e.resume {
            rate_in("endpoint.resume_rate", saved.rate)?;
            if saved.rtt.is_zero() {
                return Err(rule("endpoint.resume_rtt", "must be positive"));
            }
            within("endpoint.resume_rtt", saved.rtt, MAX_DELAY)?;
        }
        if let Some(w) = e.flow_windows {
            use crate::flow_control::{MAX_WINDOW, MIN_WINDOW};
            count_in(
                "endpoint.stream_window (bytes)",
                w.stream,
                MIN_WINDOW,
                MAX_WINDOW,
            )?;
            count_in(
                "endpoint.connection_window (bytes)",
                w.connection,
                MIN_WINDOW,
                MAX_WINDOW,
            )?;
        }
        count_in(
            "endpoint.server_flight (bytes)",
            e.server_flight_bytes,
            1,
            MAX_SERVER_FLIGHT,
        )?;
        count_in("size (bytes)", self.size_bytes, 1, MAX_OBJECT)?;
        if self.time_limit.is_zero() {
            return Err(rule("time_limit", "must be positive"));
        }
        within("time_limit", self.time_limit, MAX_TIME_LIMIT)?;
        count_in("flows", self.cross_flows.len() as u64, 0, MAX_CROSS_FLOWS)?;
        for (i, f) in self.cross_flows.iter().enumerate() {
            spec_of(&format!("flow {}", i + 1), f.cc.as_deref())?;
            count_in(
                &format!("flow {}: size (bytes)", i + 1),
                f.size_bytes,
                1,
                MAX_OBJECT,
            )?;
            within(&format!("flow {}: start", i + 1), f.start, self.time_limit)?;
        }
        for (i, w) in self.web.iter().enumerate() {
            let key = |k: &str| format!("web {}: {k}", i + 1);
            spec_of(&format!("web {}", i + 1), w.cc.as_deref())?;
            count_in(&key("users"), u64::from(w.users), 1, MAX_WEB_USERS)?;
            within(&key("start"), w.start, self.time_limit)?;
            within(&key("horizon"), w.horizon, self.time_limit)?;
            duration_in(&key("reading"), w.model.reading, MIN_READING, MAX_READING)?;
            within(&key("parsing"), w.model.parsing, MAX_PARSING)?;
            // Each user loads about horizon / reading pages: bound the
            // total before anything is drawn, so memory stays bounded.
            let pages =
                f64::from(w.users) * w.horizon.as_secs_f64() / w.model.reading.as_secs_f64();
            if pages > MAX_WEB_PAGES {
                return Err(SimError::TooManyPages {
                    table: i + 1,
                    users: w.users,
                    horizon: w.horizon,
                    reading: w.model.reading,
                });
            }
        }
        Ok(())
    }
}

// The documented range of every scenario number (docs/simulator.md,
// "Ranges"): wide enough for any real path, narrow enough that a typo
// (ms for s, bits for bytes) fails at once instead of running for hours.

/// Rates: 1 kbit/s to 1 Tbit/s.
const RATE_BYTES_PER_SEC: core::ops::RangeInclusive<u64> = 125..=125_000_000_000;
/// One-way delays and marking thresholds: at most 10 s.
const MAX_DELAY: Duration = Scenario::MAX_ONE_WAY_DELAY;
/// RFC 9000 §18.2: max_ack_delay values of 2^14 ms or more are invalid.
const MAX_ACK_DELAY: Duration = Duration::from_millis(16_383);
/// Queue and policer bucket: at most 1 GB.
const MAX_BYTES_IN_PATH: u64 = 1_000_000_000;
/// Initial and jump windows: at most 10 000 packets.
pub const MAX_WINDOW_PACKETS: u64 = 10_000;
/// A server's handshake flight: at most 1 MB (real TLS flights are a few
/// kB to a few tens of kB).
const MAX_SERVER_FLIGHT: u64 = 1_000_000;
/// Objects: at most 10 GB.
const MAX_OBJECT: u64 = 10_000_000_000;
/// Simulated time: at most one hour.
const MAX_TIME_LIMIT: Duration = Duration::from_secs(3600);
/// Cross flows on one bottleneck.
const MAX_CROSS_FLOWS: u64 = 64;
/// Web users per `[[web]]` table (each draws a page every ~30 s).
const MAX_WEB_USERS: u64 = 256;
/// Mean reading time between pages: 1 s to 1 h (the model's default is
/// 30 s; below a second a "user" is a load generator, not a reader).
const MIN_READING: Duration = Duration::from_secs(1);
const MAX_READING: Duration = Duration::from_secs(3600);
/// Mean parsing time before embedded objects start: at most 10 s.
const MAX_PARSING: Duration = Duration::from_secs(10);
/// Expected page loads of one `[[web]]` table (users × horizon / reading).
pub(crate) const MAX_WEB_PAGES: f64 = 100_000.0;

/// Why a queue cannot hold one packet ([`SimError::QueueTooSmall`]). A
/// time-sized queue holds rate × time, so at a low rate it is the rate the
/// user got wrong (`--rate 1kbit` with the preset's 30 ms queue): name it,
/// and the range in which this queue holds a packet.
pub(crate) fn write_queue_too_small(
    f: &mut core::fmt::Formatter<'_>,
    rate: Rate,
    queue: QueueLimit,
    bytes: u64,
    mds: u64,
) -> core::fmt::Result {
    if let QueueLimit::Time(q) = queue {
        let min = (u128::from(mds) * 1_000_000_000).div_ceil(q.as_nanos().max(1));
        if min <= u128::from(*RATE_BYTES_PER_SEC.end()) {
            return write!(
                f,
                "path.rate: {} bit/s fills the {q:?} queue with {bytes} bytes, less than one \
                 {mds}-byte packet; with this queue the rate must lie in {} bit/s ..= 1 Tbit/s \
                 (or set a longer queue)",
                rate.bits_per_sec(),
                (min as u64).max(*RATE_BYTES_PER_SEC.start()) * 8,
            );
        }
        return write!(
            f,
            "path.queue: {q:?} holds less than one {mds}-byte packet at any rate up to 1 Tbit/s"
        );
    }
    write!(
        f,
        "path.queue: {bytes} bytes is less than one {mds}-byte packet"
    )
}

/// A flow's controller spec must parse when the scenario is loaded, not
/// when the run reaches the flow.
fn spec_of(table: &str, cc: Option<&str>) -> Result<(), SimError> {
    match cc {
        Some(name) => ramp_cc::spec::parse(name)
            .map(drop)
            .map_err(|error| SimError::Controller {
                table: table.to_string(),
                name: name.to_string(),
                error,
            }),
        None => Ok(()),
    }
}

fn rule(field: &str, rule: &'static str) -> SimError {
    SimError::Rule {
        field: field.to_string(),
        rule,
    }
}

fn out_of_range(field: &str, bound: Bound) -> SimError {
    SimError::OutOfRange {
        field: field.to_string(),
        bound,
    }
}

fn duration_in(key: &str, value: Duration, lo: Duration, hi: Duration) -> Result<(), SimError> {
    if value < lo || value > hi {
        return Err(out_of_range(key, Bound::Duration { value, lo, hi }));
    }
    Ok(())
}

fn within(key: &str, value: Duration, max: Duration) -> Result<(), SimError> {
    if value > max {
        return Err(out_of_range(key, Bound::AtMost { value, max }));
    }
    Ok(())
}

fn count_in(key: &str, value: u64, lo: u64, hi: u64) -> Result<(), SimError> {
    if !(lo..=hi).contains(&value) {
        return Err(out_of_range(key, Bound::Count { value, lo, hi }));
    }
    Ok(())
}

fn rate_in(key: &str, r: Rate) -> Result<(), SimError> {
    if !RATE_BYTES_PER_SEC.contains(&r.bytes_per_sec()) {
        return Err(out_of_range(
            key,
            Bound::Rate {
                bits_per_sec: r.bits_per_sec(),
            },
        ));
    }
    Ok(())
}
