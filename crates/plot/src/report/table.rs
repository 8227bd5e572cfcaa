//! The per-arm summary table of the report.

use super::records::RunRecords;
use ramp_vocab::quantile::{quantile_sorted, sorted_finite};
use ramp_vocab::record_keys as k;

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

/// The statistics of the arm table other than TTLB, by record key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stat {
    /// `num-packets.sent`.
    Sent,
    /// `num-packets.lost`.
    Lost,
    /// `cc.num-loss-episodes`.
    LossEpisodes,
    /// `num-ptos`.
    Ptos,
    /// `cc.cwnd-exiting-slow-start`.
    CwndExitSs,
    /// `cc.cwnd`.
    Cwnd,
    /// `rtt.smoothed`.
    Srtt,
}

impl Stat {
    /// Number of statistics.
    pub(crate) const COUNT: usize = 7;
    /// All, in column order.
    pub(crate) const ALL: [Stat; Stat::COUNT] = [
        Stat::Sent,
        Stat::Lost,
        Stat::LossEpisodes,
        Stat::Ptos,
        Stat::CwndExitSs,
        Stat::Cwnd,
        Stat::Srtt,
    ];

    /// The record key.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Stat::Sent => k::PACKETS_SENT,
            Stat::Lost => k::PACKETS_LOST,
            Stat::LossEpisodes => k::LOSS_EPISODES,
            Stat::Ptos => k::PTOS,
            Stat::CwndExitSs => k::CWND_EXITING_SLOW_START,
            Stat::Cwnd => k::CWND,
            Stat::Srtt => k::RTT_SMOOTHED_MS,
        }
    }
}

/// Summarises the records of each arm, arms in the given order.
pub fn summarise(records: &RunRecords, arms: &[String]) -> Vec<ArmSummary> {
    arms.iter()
        .map(|arm| {
            let (n, ttlb, stats) = records.arm_values(arm);
            let ttlb = sorted_finite(ttlb);
            let median = |s: Stat| quantile_sorted(&sorted_finite(stats[s as usize].clone()), 0.5);
            let sum = |s: Stat| -> Option<f64> {
                let v = &stats[s as usize];
                (!v.is_empty()).then(|| v.iter().sum())
            };
            let loss_ratio = match (sum(Stat::Lost), sum(Stat::Sent)) {
                (Some(l), Some(s)) if s > 0.0 => Some(l / s),
                _ => None,
            };
            ArmSummary {
                arm: arm.clone(),
                n,
                ttlb_ms: [
                    quantile_sorted(&ttlb, 0.5),
                    quantile_sorted(&ttlb, 0.9),
                    quantile_sorted(&ttlb, 0.99),
                ],
                packets_sent: median(Stat::Sent),
                packets_lost: median(Stat::Lost),
                loss_ratio,
                loss_episodes: median(Stat::LossEpisodes),
                ptos: median(Stat::Ptos),
                cwnd_exit_ss: median(Stat::CwndExitSs),
                cwnd_end: median(Stat::Cwnd),
                srtt_ms: median(Stat::Srtt),
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
        let s = summarise(
            &RunRecords::from_records(&rs),
            &["a".into(), "b".into(), "c".into()],
        );
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
