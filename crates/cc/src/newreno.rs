//! NewReno congestion avoidance, RFC 9002 §7.3.3.
//!
//! The rest of RFC 9002 §7 (slow start, recovery periods, the minimum
//! window, persistent congestion, app-limited) is shared by every
//! loss-based controller and lives in [`crate::loss_based`].

use crate::ratio::Ratio;

/// RFC 9002 §7.3.2 `kLossReductionFactor`.
pub(crate) const LOSS_REDUCTION_FACTOR: Ratio = Ratio::HALF;

/// RFC 9002 §7.3.3 additive increase: `cwnd += mds·acked/cwnd` per ACK,
/// i.e. one `mds` per window of acknowledged bytes. Computed with an exact
/// byte counter (RFC 3465 style) so that no fraction is lost to integer
/// windows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenoGrowth {
    acked: u64,
}

impl RenoGrowth {
    /// Grows `cwnd` for `acked` newly acknowledged bytes; returns the new
    /// window.
    pub fn on_ack(&mut self, cwnd: u64, acked: u64, mds: u64) -> u64 {
        if cwnd == 0 {
            return cwnd;
        }
        self.acked = self.acked.saturating_add(acked);
        if self.acked < cwnd {
            return cwnd;
        }
        let windows = self.acked / cwnd;
        self.acked -= windows * cwnd;
        cwnd.saturating_add(windows.saturating_mul(mds))
    }

    /// Forget the partial window (after a reduction).
    pub fn reset(&mut self) {
        self.acked = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc9002_7_3_3_one_datagram_per_window_acked() {
        let mut g = RenoGrowth::default();
        let mut cwnd = 12_000;
        for _ in 0..9 {
            cwnd = g.on_ack(cwnd, 1200, 1200);
        }
        assert_eq!(cwnd, 12_000);
        cwnd = g.on_ack(cwnd, 1200, 1200);
        assert_eq!(cwnd, 13_200);
    }
}
