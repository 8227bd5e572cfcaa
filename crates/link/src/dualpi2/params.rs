//! DualPI2's configuration: Linux `sch_dualpi2`'s defaults (RFC 9332
//! Appendix A's), the L queue's native AQM (Linux's step or the DOCSIS
//! Low Latency ramp) and the ramp's floor at low link rates.

use std::time::Duration;

/// DualPI2's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DualPi2Params {
    /// PI target queue delay (Linux `target`, 15 ms; RFC 9332 Appendix A
    /// suggests 15 ms).
    pub target: Duration,
    /// PI update interval (Linux `tupdate`, 16 ms).
    pub tupdate: Duration,
    /// Integral gain α in Hz (Linux 41/256 ≈ 0.16).
    pub alpha: f64,
    /// Proportional gain β in Hz (Linux 819/256 ≈ 3.2).
    pub beta: f64,
    /// The L queue's native AQM: Linux's step (1 ms of sojourn time) or
    /// the DOCSIS Low Latency ramp.
    pub native: NativeAqm,
    /// The coupling factor k (Linux `coupling_factor`, 2; RFC 9332 §2.4).
    pub coupling: f64,
    /// Share of the link the C queue gets while both queues are
    /// backlogged, in percent (Linux `c_protection`, 10).
    pub c_protection: u32,
    /// Drop rather than mark L packets on overload (Linux
    /// `drop_overload`, on).
    pub drop_overload: bool,
    /// The MTU for the "never under two MTUs" guard, bytes.
    pub mtu: u32,
}

impl DualPi2Params {
    /// Linux `sch_dualpi2`'s defaults (and RFC 9332 Appendix A's).
    pub const LINUX: DualPi2Params = DualPi2Params {
        target: Duration::from_millis(15),
        tupdate: Duration::from_millis(16),
        alpha: 41.0 / 256.0,
        beta: 819.0 / 256.0,
        native: NativeAqm::Step {
            threshold: StepThreshold::Sojourn(Duration::from_millis(1)),
            min_qlen: 0,
        },
        coupling: 2.0,
        c_protection: 10,
        drop_overload: true,
        mtu: 1514,
    };
}

/// The L queue's native (uncoupled) AQM (RFC 9332 §2.5.1.1: a shallow
/// threshold on the L queue's own delay).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NativeAqm {
    /// Linux `sch_dualpi2`'s step: mark every L packet whose queue
    /// exceeds `threshold` (net/sched/sch_dualpi2.c `do_step_aqm`), if at
    /// its enqueue the L queue already held at least `min_qlen` packets
    /// (`min_qlen_step`, Linux default 0: always).
    Step {
        /// The step threshold (Linux `step_thresh`, 1 ms, or in packets).
        threshold: StepThreshold,
        /// Linux `min_qlen_step`: packets the L queue must hold when a
        /// packet arrives for the step to apply to it.
        min_qlen: u32,
    },
    /// The DOCSIS Low Latency immediate AQM (CableLabs MULPIv3.1, Annex N,
    /// "IAQM"): the marking probability ramps linearly from 0 at `min` of
    /// queue delay to 1 at `max` (defaults 475 µs to 1 ms: `MAXTH` 1 ms and
    /// a range of 2^19 ns). The ramp's floor keeps `min` at no less than
    /// two MTUs' serialisation time at the link rate
    /// ([`DualPi2Params::at_rate`]).
    Ramp {
        /// Queue delay below which nothing is marked.
        min: Duration,
        /// Queue delay from which everything is marked.
        max: Duration,
    },
}

/// What Linux's step compares with its threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepThreshold {
    /// The packet's sojourn time (Linux default, 1 ms).
    Sojourn(Duration),
    /// The L queue's length in packets after the packet leaves (Linux
    /// `step_thresh` with the packets unit).
    Packets(u32),
}

/// The DOCSIS IAQM ramp's range, 2^19 ns (MULPIv3.1 Annex N `LG_RANGE`
/// = 19).
pub const DOCSIS_RAMP_RANGE: Duration = Duration::from_nanos(1 << 19);

/// The DOCSIS IAQM ramp's top (MULPIv3.1 Annex N `MAXTH`, 1 ms).
pub const DOCSIS_RAMP_MAX: Duration = Duration::from_millis(1);

impl DualPi2Params {
    /// The DOCSIS Low Latency variant: DualPI2's coupled PI and scheduler
    /// with the IAQM ramp (475 µs – 1 ms) as the L queue's native AQM.
    /// The classic side keeps Linux's PI parameters (an assumption: the
    /// DOCSIS classic AQM is not modelled separately).
    pub const DOCSIS_LLD: DualPi2Params = DualPi2Params {
        native: NativeAqm::Ramp {
            min: Duration::from_nanos(
                DOCSIS_RAMP_MAX.as_nanos() as u64 - DOCSIS_RAMP_RANGE.as_nanos() as u64,
            ),
            max: DOCSIS_RAMP_MAX,
        },
        ..DualPi2Params::LINUX
    };

    /// Whether the L queue runs the DOCSIS ramp.
    pub fn is_docsis_lld(&self) -> bool {
        matches!(self.native, NativeAqm::Ramp { .. })
    }

    /// The parameters for a link of `bits_per_sec`: the DOCSIS ramp's
    /// floor raises its `min` to two MTUs' serialisation time (MULPIv3.1
    /// Annex N `FLOOR`), keeping its range, so that at low rates one
    /// packet ahead does not mark the next. Linux's step has no floor.
    pub fn at_rate(mut self, bits_per_sec: u64) -> DualPi2Params {
        if let NativeAqm::Ramp { min, max } = &mut self.native {
            if bits_per_sec > 0 {
                let floor_ns =
                    2 * u128::from(self.mtu) * 8 * 1_000_000_000 / u128::from(bits_per_sec);
                let floor = Duration::from_nanos(u64::try_from(floor_ns).unwrap_or(u64::MAX));
                if floor > *min {
                    let range = max.saturating_sub(*min);
                    *min = floor;
                    *max = floor + range;
                }
            }
        }
        self
    }
}

impl Default for DualPi2Params {
    fn default() -> Self {
        DualPi2Params::LINUX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docsis_mulpi_annex_n_floor_lifts_the_ramp_to_two_mtus_at_low_rates() {
        // 10 Mbit/s: two 1514-byte frames take 2.42 ms; the ramp moves up
        // and keeps its range.
        let p = DualPi2Params::DOCSIS_LLD.at_rate(10_000_000);
        let NativeAqm::Ramp { min, max } = p.native else {
            panic!("not a ramp");
        };
        assert_eq!(min, Duration::from_nanos(2 * 1514 * 8 * 100));
        assert_eq!(max - min, DOCSIS_RAMP_RANGE);
        // 100 Mbit/s: 242 µs is under 475 µs, so the default stands.
        assert_eq!(
            DualPi2Params::DOCSIS_LLD.at_rate(100_000_000),
            DualPi2Params::DOCSIS_LLD
        );
        // Linux's step has no floor.
        assert_eq!(
            DualPi2Params::LINUX.at_rate(10_000_000),
            DualPi2Params::LINUX
        );
    }
}
