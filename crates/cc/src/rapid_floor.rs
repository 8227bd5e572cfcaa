//! quicly's inputs to Rapid Start's 3× test, where they differ from
//! draft-kazuho-ccwg-rapid-start-02: an RTT read on a millisecond clock, and
//! an RTT floor kept over four time slots of `min_rtt/4` instead of per
//! round.
//!
//! Source: h2o/quicly 45bf8a37 (2026-03-09, the quicly of the window in
//! which Rapid Start ran in h2o, December 2025 to IETF 125, March 2026),
//! `include/quicly/cc.h` (`quicly_cc_rapid_start_update_rtt`,
//! `quicly_cc_rapid_start_use_3x`) and `include/quicly/loss.h`
//! (`quicly_rtt_update`; quicly's clock and all its RTT variables are whole
//! milliseconds). The arithmetic is written here from that description;
//! docs/algorithms.md ("Rapid Start as quicly ran it") lists each
//! difference with its option.

use core::time::Duration;

use ramp_vocab::time::Time;

/// The number of slots the floor is kept over (quicly's
/// `PTLS_ELEMENTSOF(rtt_samples)`).
pub(crate) const SLOTS: u64 = 4;

/// quicly's RTT sample on its millisecond clock: `now − sent` with both
/// times in whole milliseconds, and at least 1 ms ("Force minimum RTT
/// sample to 1ms" in `quicly_rtt_update`). `latest` is the exact sample the
/// packet was acknowledged with at `now`.
pub(crate) fn whole_ms_sample(now: Time, latest: Duration) -> u64 {
    let sent = now.saturating_sub(latest);
    (now.as_millis() - sent.as_millis()).max(1)
}

/// The RTT floor over the last [`SLOTS`] slots of `min_rtt/SLOTS` each: a
/// window of between ¾ and one `min_rtt` that slides with time. Times and
/// RTTs are in one unit chosen by the caller (quicly: milliseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SlotFloor {
    /// When the newest slot ends; `None` before the first sample.
    newest_until: Option<u64>,
    /// The least sample of each slot, newest first (`u64::MAX`: empty).
    slots: [u64; SLOTS as usize],
}

impl Default for SlotFloor {
    fn default() -> Self {
        SlotFloor {
            newest_until: None,
            slots: [u64::MAX; SLOTS as usize],
        }
    }
}

impl SlotFloor {
    /// Records `latest` at `now` with the current `min_rtt` (which must be
    /// at least [`SLOTS`] units: the caller turns Rapid Start off below).
    /// The first call opens a slot that ends one unit later, as quicly's
    /// does at connection start.
    pub(crate) fn update(&mut self, now: u64, min_rtt: u64, latest: u64) {
        let until = *self.newest_until.get_or_insert(now.saturating_add(1));
        if now < until {
            self.slots[0] = self.slots[0].min(latest);
            return;
        }
        let width = (min_rtt / SLOTS).max(1);
        let distance = (now - until) / width + 1;
        for dst in (1..SLOTS as usize).rev() {
            self.slots[dst] = match usize::try_from(distance) {
                Ok(d) if dst >= d => self.slots[dst - d],
                _ => u64::MAX,
            };
        }
        self.slots[0] = latest;
        self.newest_until = Some(until.saturating_add(width.saturating_mul(distance)));
    }

    /// The floor: the least sample in the window (`None` before any).
    pub(crate) fn floor(&self) -> Option<u64> {
        let f = self.slots.iter().copied().min().unwrap_or(u64::MAX);
        (f != u64::MAX).then_some(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quicly_1ms_clock_sample_is_the_difference_of_whole_ms_timestamps() {
        // Sent at 10.9 ms, acked at 41.2 ms: 30.3 ms exact, 41 − 10 = 31 ms.
        let now = Time::from_micros(41_200);
        assert_eq!(whole_ms_sample(now, Duration::from_micros(30_300)), 31);
        // Sent at 11.1 ms: 41 − 11 = 30 ms.
        assert_eq!(whole_ms_sample(now, Duration::from_micros(30_100)), 30);
        // Under a millisecond counts as 1 ms.
        assert_eq!(whole_ms_sample(now, Duration::from_micros(100)), 1);
    }

    #[test]
    fn quicly_rtt_floor_slides_over_4_slots_of_min_rtt_over_4() {
        let mut f = SlotFloor::default();
        f.update(0, 40, 45);
        assert_eq!(f.floor(), Some(45));
        // 10 ms slots: a low sample is remembered for 3 more slots.
        f.update(5, 40, 41);
        assert_eq!(f.floor(), Some(41));
        f.update(12, 40, 50);
        f.update(22, 40, 50);
        f.update(32, 40, 50);
        assert_eq!(
            f.floor(),
            Some(41),
            "the slot of the 41 ms sample is the oldest"
        );
        f.update(42, 40, 50);
        assert_eq!(f.floor(), Some(50), "four slots later it is gone");
        // A gap of more than the window empties every older slot.
        f.update(200, 40, 60);
        assert_eq!(f.floor(), Some(60));
    }
}
