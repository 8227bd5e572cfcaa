//! The per-connection stats record (docs/formats.md), written as one NDJSON
//! line with keys in a fixed order.

use std::fmt::Write as _;

use ramp_vocab::record_keys as k;

use crate::trace::push_json_str;

/// One connection's results. Field names follow the record keys; see
/// docs/formats.md for units.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Record {
    /// Scenario name.
    pub scenario: String,
    /// A/B arm name (`group`); defaults to the controller name.
    pub group: String,
    /// Canonical controller name.
    pub cc_algorithm: String,
    /// Seed of the path.
    pub seed: u64,
    /// Flow index on the bottleneck (0 = flow under test).
    pub flow: usize,
    /// Whether every byte was acknowledged before the time limit.
    pub completed: bool,
    /// Object size, bytes.
    pub content_length: u64,
    /// Request at the server -> last byte acknowledged at the server, µs.
    pub ttlb_us: u64,
    /// Client sent its first packet -> last byte received at the client, µs.
    pub client_ttlb_us: u64,
    /// Request at the server -> first response byte at the client, µs.
    pub ttfb_us: u64,
    /// Handshake duration at the client (first Initial -> handshake done), µs.
    pub handshake_us: u64,
    /// Packets sent by the server (all spaces).
    pub packets_sent: u64,
    /// Packets declared lost.
    pub packets_lost: u64,
    /// Packets acknowledged.
    pub packets_acked: u64,
    /// Of the lost, later acknowledged.
    pub packets_lost_spurious: u64,
    /// Bytes sent.
    pub bytes_sent: u64,
    /// Bytes declared lost.
    pub bytes_lost: u64,
    /// Bytes acknowledged.
    pub bytes_acked: u64,
    /// Stream bytes sent again.
    pub stream_bytes_resent: u64,
    /// PTO expirations.
    pub ptos: u64,
    /// Packets dropped by the bottleneck queue (this flow's).
    pub drops_queue: u64,
    /// Packets dropped by random loss.
    pub drops_random: u64,
    /// Packets dropped by the policer.
    pub drops_policer: u64,
    /// Packets the queue discipline dropped early (CoDel, FQ-CoDel, PIE).
    pub drops_aqm: u64,
    /// Packets the client reported CE-marked (ACK frame ECN counts).
    pub packets_acked_ce: u64,
    /// Packets the client reported received ECT(0) and ECT(1) (RFC 9000
    /// §19.3.2), written only for a flow that sends ECT(1), so ECT(0)
    /// flows keep the key set they always had.
    pub packets_acked_ect: Option<[u64; 2]>,
    /// The bottleneck's queue discipline.
    pub aqm: String,
    /// RTT at the end, µs.
    pub rtt_min_us: u64,
    /// Smoothed RTT, µs.
    pub rtt_smoothed_us: u64,
    /// RTT variance, µs.
    pub rtt_variance_us: u64,
    /// Latest RTT, µs.
    pub rtt_latest_us: u64,
    /// Window at the end, bytes.
    pub cwnd: u64,
    /// ssthresh at the end (None: infinite).
    pub ssthresh: Option<u64>,
    /// Initial window, bytes.
    pub cwnd_initial: u64,
    /// Window on leaving slow start (None: never left).
    pub cwnd_exiting_slow_start: Option<u64>,
    /// Largest window seen.
    pub cwnd_maximum: u64,
    /// Recovery periods started (loss or CE).
    pub num_loss_episodes: u64,
    /// Of those, by CE alone.
    pub num_ecn_loss_episodes: u64,
    /// Spurious-loss undos.
    pub num_spurious_undos: u64,
    /// Path rate, bit/s.
    pub path_rate_bps: u64,
    /// Base RTT, ms.
    pub path_rtt_ms: f64,
    /// Queue, ms at the link rate.
    pub path_queue_ms: f64,
    /// Mean random loss.
    pub path_loss: f64,
    /// ACK policy name.
    pub ack_policy: String,
    /// With client flow-control windows: the window updates the client
    /// sent and the times the server was blocked by them. None without
    /// windows, so such records keep their key set.
    pub flow_control: Option<[u64; 2]>,
    /// How a resumed connection started (`0rtt`, `0rtt-token`); None for
    /// a full handshake, whose records keep their key set.
    pub resumption: Option<&'static str>,
    /// Page-load figures of a connection that fetched several objects
    /// (crate::page); None for one object, whose records keep their key
    /// set.
    pub page: Option<crate::page::PageRecord>,
}

/// A JSON array of numbers.
fn json_array(v: &[u64]) -> String {
    let mut s = String::from("[");
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        push_u64(&mut s, *x);
    }
    s.push(']');
    s
}

/// A duration in whole µs, the records' unit (saturating).
pub(crate) fn micros(d: core::time::Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

fn ms_floor(us: u64) -> u64 {
    us / 1000
}

/// Writes `"key":value` members of one JSON object, in call order.
struct Members {
    s: String,
}

impl Members {
    fn new() -> Members {
        Members {
            s: String::with_capacity(1024),
        }
    }

    /// A member whose value is a number, a boolean or raw JSON ([`Value`]).
    fn num(&mut self, key: &str, v: impl Value) -> &mut Members {
        self.key(key);
        v.put(&mut self.s);
        self
    }

    /// A member whose value is a JSON string.
    fn text(&mut self, key: &str, v: &str) -> &mut Members {
        self.key(key);
        push_json_str(&mut self.s, v);
        self
    }

    /// The separator and `"key":` (the keys are ramp's own, nothing to
    /// escape).
    fn key(&mut self, key: &str) {
        self.s.push(if self.s.is_empty() { '{' } else { ',' });
        self.s.push('"');
        self.s.push_str(key);
        self.s.push_str("\":");
    }

    fn finish(&mut self) -> String {
        self.s.push('}');
        core::mem::take(&mut self.s)
    }
}

/// A member's value, written as its `Display` text would be: a record
/// has about fifty members, and going through `write!` for each was most
/// of the cost of writing a fleet record (an integer is written by hand;
/// a float keeps `Display`'s shortest round-trip text).
trait Value {
    fn put(self, s: &mut String);
}

impl Value for u64 {
    fn put(self, s: &mut String) {
        push_u64(s, self);
    }
}

impl Value for u32 {
    fn put(self, s: &mut String) {
        push_u64(s, u64::from(self));
    }
}

impl Value for usize {
    fn put(self, s: &mut String) {
        push_u64(s, self as u64);
    }
}

impl Value for bool {
    fn put(self, s: &mut String) {
        s.push_str(if self { "true" } else { "false" });
    }
}

impl Value for f64 {
    fn put(self, s: &mut String) {
        let _ = write!(s, "{self}");
    }
}

/// Raw JSON (an array already written).
impl Value for String {
    fn put(self, s: &mut String) {
        s.push_str(&self);
    }
}

/// `v` in decimal, as `Display` writes it.
pub(crate) fn push_u64(s: &mut String, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        s.push(char::from(d));
    }
}

impl Record {
    /// The record as one JSON object (no trailing newline), keys in the
    /// order of docs/formats.md.
    pub fn to_json(&self) -> String {
        let mut m = Members::new();
        m.text(k::SCENARIO, &self.scenario)
            .text(k::GROUP, &self.group)
            .text(k::CC_ALGORITHM, &self.cc_algorithm)
            .num(k::SEED, self.seed)
            .num(k::FLOW, self.flow)
            .num(k::COMPLETED, self.completed)
            .num(k::CONTENT_LENGTH, self.content_length)
            .num(k::TTLB_MS, ms_floor(self.ttlb_us))
            .num(k::TTLB_US, self.ttlb_us)
            .num(k::CLIENT_TTLB_US, self.client_ttlb_us)
            .num(k::TTFB_US, self.ttfb_us)
            .num(k::HANDSHAKE_US, self.handshake_us)
            .num(k::PACKETS_SENT, self.packets_sent)
            .num(k::PACKETS_LOST, self.packets_lost)
            .num(k::PACKETS_ACKED, self.packets_acked)
            .num(k::PACKETS_LOST_SPURIOUS, self.packets_lost_spurious)
            .num(k::BYTES_SENT, self.bytes_sent)
            .num(k::BYTES_LOST, self.bytes_lost)
            .num(k::BYTES_ACKED, self.bytes_acked)
            .num(k::STREAM_BYTES_RESENT, self.stream_bytes_resent)
            .num(k::PTOS, self.ptos)
            .num(k::DROPS_QUEUE, self.drops_queue)
            .num(k::DROPS_RANDOM, self.drops_random)
            .num(k::DROPS_POLICER, self.drops_policer)
            .num(k::DROPS_AQM, self.drops_aqm)
            .num(k::PACKETS_ACKED_ECN_CE, self.packets_acked_ce);
        if let Some([ect0, ect1]) = self.packets_acked_ect {
            m.num(k::PACKETS_ACKED_ECN_ECT0, ect0)
                .num(k::PACKETS_ACKED_ECN_ECT1, ect1);
        }
        m.num(k::RTT_MIN_MS, ms_floor(self.rtt_min_us))
            .num(k::RTT_SMOOTHED_MS, ms_floor(self.rtt_smoothed_us))
            .num(k::RTT_VARIANCE_MS, ms_floor(self.rtt_variance_us))
            .num(k::RTT_LATEST_MS, ms_floor(self.rtt_latest_us))
            .num(k::RTT_MIN_US, self.rtt_min_us)
            .num(k::RTT_SMOOTHED_US, self.rtt_smoothed_us)
            .num(k::CWND, self.cwnd);
        if let Some(t) = self.ssthresh {
            m.num(k::SSTHRESH, t);
        }
        m.num(k::CWND_INITIAL, self.cwnd_initial)
            .num(
                k::CWND_EXITING_SLOW_START,
                self.cwnd_exiting_slow_start.unwrap_or(0),
            )
            .num(k::CWND_MAXIMUM, self.cwnd_maximum)
            .num(k::LOSS_EPISODES, self.num_loss_episodes)
            .num(k::ECN_LOSS_EPISODES, self.num_ecn_loss_episodes)
            .num(k::SPURIOUS_UNDOS, self.num_spurious_undos)
            .num(k::PATH_RATE_BPS, self.path_rate_bps)
            .num(k::PATH_RTT_MS, self.path_rtt_ms)
            .num(k::PATH_QUEUE_MS, self.path_queue_ms)
            .num(k::PATH_LOSS, self.path_loss)
            .text(k::PATH_ACK_POLICY, &self.ack_policy)
            .text(k::PATH_AQM, &self.aqm);
        if let Some([updates, blocked]) = self.flow_control {
            m.num(k::MAX_STREAM_DATA_RECEIVED, updates)
                .num(k::STREAM_DATA_BLOCKED_SENT, blocked);
        }
        if let Some(r) = self.resumption {
            m.text(k::RESUMPTION, r);
        }
        if let Some(p) = &self.page {
            m.num(k::PAGE_LOAD_US, p.load_us)
                .num(k::PAGE_OBJECTS, p.objects)
                .num(k::PAGE_BYTES, p.bytes)
                .num(k::PAGE_WARM, p.warm)
                .num(k::PAGE_OBJECT_US, json_array(&p.object_us))
                .num(k::PAGE_OBJECT_BYTES, json_array(&p.object_bytes));
        }
        m.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_keys_follow_formats_md() {
        let r = Record {
            ttlb_us: 123_456,
            ssthresh: None,
            ..Record::default()
        };
        let j = r.to_json();
        assert!(j.contains("\"ttlb\":123,\"ttlb-us\":123456"));
        assert!(!j.contains("cc.ssthresh"));
        assert!(j.contains("\"cc.cwnd-exiting-slow-start\":0"));
    }

    #[test]
    fn integers_are_written_as_display_writes_them() {
        let mut rng = ramp_vocab::rng::Rng::from_u64(9);
        let edges = [0, 1, 9, 10, 99, 100, 999_999, u64::MAX - 1, u64::MAX];
        let random = (0..2_000).map(|i| rng.next_u64() >> (i % 64));
        for v in edges.into_iter().chain(random) {
            let mut s = String::new();
            push_u64(&mut s, v);
            assert_eq!(s, v.to_string());
        }
    }
}
