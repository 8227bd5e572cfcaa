//! The per-arm summary table of the report.

use crate::quantile::{quantile_sorted, sorted_finite};
use crate::record::Record;

/// One arm's summary: medians (and TTLB percentiles) over its records.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmSummary {
    /// Arm name.
    pub arm: String,
    /// Number of records.
    pub n: usize,
    /// TTLB percentiles (ms): p50, p90, p99.
    pub ttlb_ms: [Option<f64>; 3],
    /// Median of `num-packets.sent`.
    pub packets_sent: Option<f64>,
    /// Median of `num-packets.lost`.
    pub packets_lost: Option<f64>,
    /// Lost / sent over all records of the arm.
    pub loss_ratio: Option<f64>,
    /// Median of `cc.num-loss-episodes`.
    pub loss_episodes: Option<f64>,
    /// Median of `num-ptos`.
    pub ptos: Option<f64>,
    /// Median of `cc.cwnd-exiting-slow-start` (bytes).
    pub cwnd_exit_ss: Option<f64>,
    /// Median of `cc.cwnd` at the end (bytes).
    pub cwnd_end: Option<f64>,
    /// Median of `rtt.smoothed` at the end (ms).
    pub srtt_ms: Option<f64>,
}

fn median(records: &[&Record], key: &str) -> Option<f64> {
    quantile_sorted(
        &sorted_finite(records.iter().filter_map(|r| r.f64(key))),
        0.5,
    )
}

/// Summarises the records of each arm, arms in the given order.
pub fn summarise(records: &[Record], arm_key: &str, arms: &[String]) -> Vec<ArmSummary> {
    arms.iter()
        .map(|arm| {
            let rs: Vec<&Record> = records
                .iter()
                .filter(|r| r.text(arm_key).as_deref() == Some(arm.as_str()))
                .collect();
            let ttlb = sorted_finite(rs.iter().filter_map(|r| r.ttlb_ms()));
            let sum = |k: &str| -> Option<f64> {
                let v: Vec<f64> = rs.iter().filter_map(|r| r.f64(k)).collect();
                (!v.is_empty()).then(|| v.iter().sum())
            };
            let loss_ratio = match (sum("num-packets.lost"), sum("num-packets.sent")) {
                (Some(l), Some(s)) if s > 0.0 => Some(l / s),
                _ => None,
            };
            ArmSummary {
                arm: arm.clone(),
                n: rs.len(),
                ttlb_ms: [
                    quantile_sorted(&ttlb, 0.5),
                    quantile_sorted(&ttlb, 0.9),
                    quantile_sorted(&ttlb, 0.99),
                ],
                packets_sent: median(&rs, "num-packets.sent"),
                packets_lost: median(&rs, "num-packets.lost"),
                loss_ratio,
                loss_episodes: median(&rs, "cc.num-loss-episodes"),
                ptos: median(&rs, "num-ptos"),
                cwnd_exit_ss: median(&rs, "cc.cwnd-exiting-slow-start"),
                cwnd_end: median(&rs, "cc.cwnd"),
                srtt_ms: median(&rs, "rtt.smoothed"),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_records;

    #[test]
    fn medians_and_loss_ratio() {
        let rs = parse_records(
            "{\"group\":\"a\",\"ttlb\":10,\"num-packets.sent\":100,\"num-packets.lost\":2}\n\
             {\"group\":\"a\",\"ttlb\":30,\"num-packets.sent\":300,\"num-packets.lost\":0}\n\
             {\"group\":\"b\",\"ttlb\":5}\n",
            "t",
        )
        .unwrap();
        let s = summarise(&rs, "group", &["a".into(), "b".into(), "c".into()]);
        assert_eq!(s[0].n, 2);
        assert_eq!(s[0].ttlb_ms[0], Some(20.0));
        assert_eq!(s[0].ttlb_ms[1], Some(28.0));
        assert_eq!(s[0].packets_sent, Some(200.0));
        assert_eq!(s[0].loss_ratio, Some(0.005));
        assert_eq!(s[1].packets_sent, None);
        assert_eq!(s[2].n, 0);
        assert_eq!(s[2].ttlb_ms[0], None);
    }
}
