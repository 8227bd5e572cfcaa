//! Throughput and delay over time from a forwarder's per-packet log
//! (`ramp shell --packet-log`, NDJSON: `t-us`, `dir`, `ev` = `arrive` |
//! `deliver` | `drop`, `bytes`, `delay-us` on deliveries), binned in time,
//! as Mahimahi's mm-throughput-graph (ingress and egress rates per bin) and
//! mm-delay-graph (each packet's delay through the link) draw a
//! `--downlink-log`. The result is [`XyData`] for the XY chart.

use std::io::BufRead;

use crate::chart::XyData;
use crate::error::{Error, Result};

/// One direction of a packet log, binned.
#[derive(Debug, Clone, PartialEq)]
pub struct PacketSeries {
    /// Bin width, seconds.
    pub bin_s: f64,
    /// Per bin: bytes that arrived, bytes delivered, drops, and the
    /// delays (µs) of the packets delivered.
    pub bins: Vec<Bin>,
}

/// One time bin.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bin {
    /// Bytes offered to the link.
    pub arrived: u64,
    /// Bytes delivered.
    pub delivered: u64,
    /// Packets dropped.
    pub drops: u64,
    /// Delays of the packets delivered, µs.
    pub delays_us: Vec<u64>,
}

impl PacketSeries {
    /// Reads the events of direction `dir` (`up` or `down`) into bins of
    /// `bin_s` seconds. Errors name the line.
    pub fn read(input: impl BufRead, dir: &str, bin_s: f64) -> Result<PacketSeries> {
        if !(bin_s > 0.0 && bin_s.is_finite()) {
            return Err(Error::Data(format!(
                "packet log: bin width {bin_s} s is not positive"
            )));
        }
        let mut bins: Vec<Bin> = Vec::new();
        for (i, line) in input.lines().enumerate() {
            let line = line.map_err(|e| Error::Data(format!("packet log: line {}: {e}", i + 1)))?;
            if line.trim().is_empty() {
                continue;
            }
            let v: serde_json::Value = serde_json::from_str(&line)
                .map_err(|e| Error::Data(format!("packet log: line {}: {e}", i + 1)))?;
            if v["dir"] != dir {
                continue;
            }
            let field = |k: &str| {
                v[k].as_u64().ok_or_else(|| {
                    Error::Data(format!("packet log: line {}: no number `{k}`", i + 1))
                })
            };
            let t = field("t-us")?;
            let bytes = field("bytes")?;
            let ix = (t as f64 / 1e6 / bin_s) as usize;
            if bins.len() <= ix {
                bins.resize(ix + 1, Bin::default());
            }
            let b = &mut bins[ix];
            match v["ev"].as_str() {
                Some("arrive") => b.arrived += bytes,
                Some("deliver") => {
                    b.delivered += bytes;
                    b.delays_us.push(field("delay-us")?);
                }
                Some("drop") => b.drops += 1,
                other => {
                    return Err(Error::Data(format!(
                        "packet log: line {}: unknown event {other:?}",
                        i + 1
                    )))
                }
            }
        }
        if bins.is_empty() {
            return Err(Error::Data(format!("packet log: no `{dir}` events")));
        }
        Ok(PacketSeries { bin_s, bins })
    }

    /// Ingress and egress rates per bin, Mbit/s (mm-throughput-graph).
    pub fn throughput(&self) -> XyData {
        let mbit = |b: u64| b as f64 * 8.0 / self.bin_s / 1e6;
        XyData {
            x_label: "time (s)".into(),
            series: vec!["arriving (Mbit/s)".into(), "delivered (Mbit/s)".into()],
            rows: self
                .bins
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    (
                        self.x(i),
                        vec![Some(mbit(b.arrived)), Some(mbit(b.delivered))],
                    )
                })
                .collect(),
        }
    }

    /// The delay through the link per bin, ms: median and largest of the
    /// packets delivered in it (mm-delay-graph draws every packet; a bin
    /// without deliveries has no point).
    pub fn delay(&self) -> XyData {
        XyData {
            x_label: "time (s)".into(),
            series: vec!["median delay (ms)".into(), "max delay (ms)".into()],
            rows: self
                .bins
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let mut d = b.delays_us.clone();
                    d.sort_unstable();
                    let ms = |v: u64| v as f64 / 1e3;
                    let med = (!d.is_empty()).then(|| ms(d[(d.len() - 1) / 2]));
                    (self.x(i), vec![med, d.last().map(|v| ms(*v))])
                })
                .collect(),
        }
    }

    fn x(&self, i: usize) -> f64 {
        (i as f64 + 0.5) * self.bin_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = r#"{"t-us":100,"dir":"down","bytes":1000,"flow":"udp a b","ev":"arrive"}
{"t-us":200,"dir":"up","bytes":50,"flow":"udp a b","ev":"arrive"}
{"t-us":10100,"dir":"down","bytes":1000,"flow":"udp a b","ev":"deliver","delay-us":10000,"ce":false}
{"t-us":150000,"dir":"down","bytes":1000,"flow":"udp a b","ev":"drop","cause":"queue"}
"#;

    #[test]
    fn bins_rates_and_delays_of_one_direction() {
        let s = PacketSeries::read(LOG.as_bytes(), "down", 0.1).unwrap();
        assert_eq!(s.bins.len(), 2);
        assert_eq!(s.bins[0].arrived, 1000);
        assert_eq!(s.bins[1].drops, 1);
        let t = s.throughput();
        // 1000 B in 100 ms: 0.08 Mbit/s.
        assert!((t.rows[0].1[0].unwrap() - 0.08).abs() < 1e-9);
        let d = s.delay();
        assert_eq!(d.rows[0].1[0], Some(10.0));
        assert_eq!(d.rows[1].1[0], None);
    }

    #[test]
    fn bad_lines_are_named() {
        let e = PacketSeries::read("{\"dir\":\"down\"}\n".as_bytes(), "down", 0.1).unwrap_err();
        assert!(e.to_string().contains("line 1"), "{e}");
        assert!(PacketSeries::read("".as_bytes(), "down", 0.1).is_err());
        assert!(PacketSeries::read(LOG.as_bytes(), "down", 0.0).is_err());
    }
}
