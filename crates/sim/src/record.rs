//! The per-connection stats record (docs/formats.md), written as one NDJSON
//! line with keys in a fixed order.

use std::fmt::Write as _;

use crate::trace::json_str;

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
}

fn ms_floor(us: u64) -> u64 {
    us / 1000
}

impl Record {
    /// The record as one JSON object (no trailing newline).
    pub fn to_json(&self) -> String {
        let mut s = String::with_capacity(1024);
        let _ = write!(
            s,
            "{{\"scenario\":{},\"group\":{},\"cc.algorithm\":{},\"seed\":{},\"flow\":{},\"completed\":{}",
            json_str(&self.scenario),
            json_str(&self.group),
            json_str(&self.cc_algorithm),
            self.seed,
            self.flow,
            self.completed
        );
        let _ = write!(
            s,
            ",\"content_length\":{},\"ttlb\":{},\"ttlb-us\":{},\"client-ttlb-us\":{},\"ttfb-us\":{},\"handshake-us\":{}",
            self.content_length,
            ms_floor(self.ttlb_us),
            self.ttlb_us,
            self.client_ttlb_us,
            self.ttfb_us,
            self.handshake_us
        );
        let _ = write!(
            s,
            ",\"num-packets.sent\":{},\"num-packets.lost\":{},\"num-packets.ack-received\":{},\"num-packets.lost-spurious\":{}",
            self.packets_sent, self.packets_lost, self.packets_acked, self.packets_lost_spurious
        );
        let _ = write!(
            s,
            ",\"num-bytes.sent\":{},\"num-bytes.lost\":{},\"num-bytes.ack-received\":{},\"num-bytes.stream-data-resent\":{}",
            self.bytes_sent, self.bytes_lost, self.bytes_acked, self.stream_bytes_resent
        );
        let _ = write!(
            s,
            ",\"num-ptos\":{},\"path.drops-queue\":{},\"path.drops-random\":{},\"path.drops-policer\":{}",
            self.ptos, self.drops_queue, self.drops_random, self.drops_policer
        );
        let _ = write!(
            s,
            ",\"rtt.minimum\":{},\"rtt.smoothed\":{},\"rtt.variance\":{},\"rtt.latest\":{},\"rtt.minimum-us\":{},\"rtt.smoothed-us\":{}",
            ms_floor(self.rtt_min_us),
            ms_floor(self.rtt_smoothed_us),
            ms_floor(self.rtt_variance_us),
            ms_floor(self.rtt_latest_us),
            self.rtt_min_us,
            self.rtt_smoothed_us
        );
        let _ = write!(s, ",\"cc.cwnd\":{}", self.cwnd);
        if let Some(t) = self.ssthresh {
            let _ = write!(s, ",\"cc.ssthresh\":{t}");
        }
        let _ = write!(
            s,
            ",\"cc.cwnd-initial\":{},\"cc.cwnd-exiting-slow-start\":{},\"cc.cwnd-maximum\":{}",
            self.cwnd_initial,
            self.cwnd_exiting_slow_start.unwrap_or(0),
            self.cwnd_maximum
        );
        let _ = write!(
            s,
            ",\"cc.num-loss-episodes\":{},\"cc.num-ecn-loss-episodes\":{},\"cc.num-spurious-undos\":{}",
            self.num_loss_episodes, self.num_ecn_loss_episodes, self.num_spurious_undos
        );
        let _ = write!(
            s,
            ",\"path.rate-bps\":{},\"path.rtt-ms\":{},\"path.queue-ms\":{},\"path.loss\":{},\"path.ack-policy\":{}}}",
            self.path_rate_bps,
            self.path_rtt_ms,
            self.path_queue_ms,
            self.path_loss,
            json_str(&self.ack_policy)
        );
        s
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
}
