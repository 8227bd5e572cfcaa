//! Windowed maximum filters over a small integer clock (rounds or ProbeBW
//! cycles), as BBR keeps its bandwidth and aggregation estimates.

/// The running maximum over the last `window` ticks, tracked with the best,
/// second-best and third-best samples of disjoint sub-windows (Kathleen
/// Nichols' algorithm, as BBR uses it): exact when the maximum is recent,
/// and within one sub-window of the true window otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct WindowedMax {
    best: [(u64, u64); 3],
}

impl WindowedMax {
    /// The current maximum.
    pub(super) fn get(&self) -> u64 {
        self.best[0].1
    }

    /// Forgets everything; the next sample starts a new window.
    pub(super) fn reset(&mut self, tick: u64, value: u64) {
        self.best = [(tick, value); 3];
    }

    /// Adds `value` at `tick` (ticks never go back) and returns the maximum
    /// over the last `window` ticks.
    pub(super) fn update(&mut self, tick: u64, value: u64, window: u64) -> u64 {
        let new = (tick, value);
        if value >= self.best[0].1 || tick.saturating_sub(self.best[0].0) > window {
            self.reset(tick, value);
            return value;
        }
        if value >= self.best[1].1 {
            self.best[1] = new;
            self.best[2] = new;
        } else if value >= self.best[2].1 {
            self.best[2] = new;
        }
        let age = tick.saturating_sub(self.best[0].0);
        if age > window {
            // The best expired: promote the others.
            self.best = [self.best[1], self.best[2], new];
            if tick.saturating_sub(self.best[0].0) > window {
                self.best = [self.best[1], self.best[2], new];
            }
        } else if self.best[1].0 == self.best[0].0 && age > window / 4 {
            // A quarter of the window passed with one sample: take a
            // second-best from the new sub-window.
            self.best[1] = new;
            self.best[2] = new;
        } else if self.best[2].0 == self.best[1].0 && age > window / 2 {
            self.best[2] = new;
        }
        self.best[0].1
    }
}

/// BBR.max_bw's filter (draft-ietf-ccwg-bbr-06 §5.5.3, `MaxBwFilterLen` =
/// 2 ProbeBW cycles): the maximum of the current cycle's samples and the
/// previous cycle's, advanced once per cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct TwoCycleMax {
    previous: u64,
    current: u64,
}

impl TwoCycleMax {
    /// The maximum over the two cycles.
    pub(super) fn get(&self) -> u64 {
        self.previous.max(self.current)
    }

    /// Adds a sample to the current cycle.
    pub(super) fn update(&mut self, value: u64) {
        self.current = self.current.max(value);
    }

    /// §5.5.6 `AdvanceMaxBwFilter`: a new cycle starts; the oldest drops.
    /// A cycle without samples does not push the previous one out: Linux
    /// BBRv3's `bbr_advance_max_bw_filter` returns early then ("no samples
    /// in this window; remember old window"), so the estimate never falls
    /// to zero for want of samples.
    pub(super) fn advance(&mut self) {
        if self.current == 0 {
            return;
        }
        self.previous = self.current;
        self.current = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windowed_max_forgets_a_peak_after_its_window() {
        let mut f = WindowedMax::default();
        assert_eq!(f.update(0, 100, 10), 100);
        for t in 1..=10 {
            assert_eq!(f.update(t, 50, 10), 100, "tick {t}");
        }
        assert_eq!(f.update(11, 50, 10), 50, "the peak is 11 ticks old");
        assert_eq!(f.update(12, 70, 10), 70);
    }

    #[test]
    fn two_cycle_max_keeps_the_previous_cycle() {
        let mut f = TwoCycleMax::default();
        f.update(10);
        f.advance();
        f.update(4);
        assert_eq!(f.get(), 10);
        f.advance();
        assert_eq!(f.get(), 4);
    }

    #[test]
    fn bbr_5_5_6_a_cycle_without_samples_keeps_the_old_window_as_linux() {
        let mut f = TwoCycleMax::default();
        f.update(10);
        f.advance();
        f.update(4);
        f.advance();
        f.advance();
        f.advance();
        assert_eq!(f.get(), 4, "no samples since: the last window stays");
        f.update(3);
        f.advance();
        assert_eq!(f.get(), 3);
    }
}
