//! The simulator's own random streams: which fixed stream number each of
//! its random elements draws from (the generators are
//! [`ramp_vocab::rng`]'s; the link's elements number theirs in ramp-link).

use ramp_vocab::rng::Rng;

/// Identifiers of the simulator's random elements. Fixed numbers: changing
/// one changes every simulation's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub(crate) enum Stream {
    /// The data sender's receive-path wake-ups (`crate::wakeup`).
    SenderWakeup = 3,
}

impl Stream {
    /// A generator for this element of the path with seed `seed`.
    pub(crate) fn rng(self, seed: u64) -> Rng {
        Rng::new(seed, self as u64)
    }
}
