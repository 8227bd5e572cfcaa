//! `ramp serve --qlog DIR` read back: per server connection, when it sent
//! and received its packets (ms since it accepted the connection; the
//! format is in the ramp-quic server's `qlog` module and docs/interop.md).
//! quinn writes a connection's file through a buffer it flushes when it
//! drops the connection, so a file is whole only once its connection has
//! ended.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// One server connection's packets.
pub(crate) struct ConnLog {
    /// The file, `conn-N.sqlog`.
    pub(crate) file: PathBuf,
    /// Its `N`: the connection's place in serve's accept order, from 0.
    pub(crate) index: usize,
    /// Times of its `transport:packet_sent` events, in file order.
    pub(crate) sent: Vec<f64>,
    /// Times of its `transport:packet_received` events, in file order.
    pub(crate) received: Vec<f64>,
}

impl ConnLog {
    /// The file name, for messages.
    pub(crate) fn name(&self) -> String {
        self.file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    }

    /// The time of its last received packet.
    pub(crate) fn last_received(&self) -> Option<f64> {
        self.received.last().copied()
    }

    /// The times of the packets it sent after its last receive (all of
    /// them if it received nothing).
    pub(crate) fn sent_after_last_receive(&self) -> Vec<f64> {
        let from = self.last_received().unwrap_or(f64::NEG_INFINITY);
        self.sent.iter().copied().filter(|&t| t > from).collect()
    }
}

/// Every `conn-N.sqlog` in `dir`, in accept order. A record that does not
/// parse (the cut end of a file not yet flushed) is skipped.
pub(crate) fn read(dir: &Path) -> Vec<ConnLog> {
    let mut files: Vec<(usize, PathBuf)> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .filter_map(|p| {
            let n = p.file_name()?.to_str()?;
            let index = n
                .strip_prefix("conn-")?
                .strip_suffix(".sqlog")?
                .parse()
                .ok()?;
            Some((index, p))
        })
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|(index, file)| {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let (mut sent, mut received) = (Vec::new(), Vec::new());
            // JSON-SEQ (RFC 7464): each record starts with RS (0x1e).
            for r in text.split('\u{1e}').filter(|r| !r.trim().is_empty()) {
                let Ok(v) = serde_json::from_str::<Value>(r.trim()) else {
                    continue;
                };
                let Some(time) = v["time"].as_f64() else {
                    continue;
                };
                match v["name"].as_str() {
                    Some("transport:packet_sent") => sent.push(time),
                    Some("transport:packet_received") => received.push(time),
                    _ => {}
                }
            }
            ConnLog {
                file,
                index,
                sent,
                received,
            }
        })
        .collect()
}
