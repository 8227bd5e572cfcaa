//! `ramp serve --qlog DIR`: one qlog file per connection, written by
//! quinn itself (quinn-proto's `qlog` feature).
//!
//! The file is qlog 0.3 JSON-SEQ (RFC 7464 records), the dialect and event
//! names the simulator's `--qlog` writes (`transport:packet_sent`,
//! `transport:packet_received`, `recovery:packet_lost`,
//! `recovery:metrics_updated`, draft-ietf-quic-qlog-quic-events as qvis
//! reads it), so one reader takes both. Times are ms since the server
//! accepted the connection. The server is the vantage point.
//!
//! What quinn 0.11.19 writes, and what it leaves out (docs/interop.md,
//! "ramp serve's qlog"):
//! - `packet_sent` per packet: its number, space and length (no frames);
//! - `packet_received` per packet: number and space (no ACK ranges);
//! - `packet_lost` per packet quinn's loss detection declares lost, at
//!   the moment it does. Its `trigger` is not reliable: quinn compares
//!   `time_sent.saturating_duration_since(now)` (always zero) with the
//!   loss delay, so every loss reads `reordering_threshold`. The rule is
//!   told from the packet's send time (its `packet_sent`) and the RTTs of
//!   the last `metrics_updated`: RFC 9002 §6.1.2's time threshold when
//!   `now − sent ≥ 9/8 · max(smoothed_rtt, latest_rtt)`, else §6.1.1's
//!   packet threshold;
//! - `metrics_updated` when a value changed: RTTs, PTO count, bytes and
//!   packets in flight, and the controller's window, ssthresh and pacing
//!   rate as the shim reports them to quinn (`ControllerMetrics`).

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Instant;

use quinn_proto::{QlogConfig, QlogStream};

/// The qlog file of the `index`-th connection the server accepted (from
/// 0, in accept order): `DIR/conn-INDEX.sqlog`.
pub(super) fn file_of(dir: &Path, index: u64) -> PathBuf {
    dir.join(format!("conn-{index}.sqlog"))
}

/// A qlog stream writing to `path`, its times relative to `start`, titled
/// with the controller's name.
pub(super) fn stream(path: &Path, cc: &str, start: Instant) -> std::io::Result<QlogStream> {
    let f = File::create(path)?;
    let mut cfg = QlogConfig::default();
    // Buffered: one write per packet event would put a system call in the
    // send path. The buffer is flushed when quinn drops the connection.
    cfg.writer(Box::new(BufWriter::new(f)))
        .title(Some(format!("ramp serve --cc {cc}")))
        .description(Some(
            "ramp serve (quinn 0.11): server vantage point, ms since the connection was accepted"
                .to_string(),
        ))
        .start_time(start);
    cfg.into_stream().ok_or_else(|| {
        std::io::Error::other(format!("{}: could not start the qlog", path.display()))
    })
}
