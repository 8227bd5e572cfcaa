//! The simulator's random streams: which fixed stream number each random
//! element of a path draws from (the generators are [`ramp_vocab::rng`]'s).

pub use ramp_vocab::rng::{Probability, Rng};

/// Identifiers of the random elements of a path. Fixed numbers: changing one
/// changes every simulation's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Stream {
    /// The forward (data) path's random-loss element.
    ForwardLoss = 1,
    /// The reverse (ACK) path's random-loss element (unused: the reverse
    /// path is lossless; reserved so adding it changes nothing else).
    ReverseLoss = 2,
    /// The data sender's receive-path wake-ups (`crate::wakeup`).
    SenderWakeup = 3,
}

impl Stream {
    /// A generator for this element of the path with seed `seed`.
    pub fn rng(self, seed: u64) -> Rng {
        Rng::new(seed, self as u64)
    }
}
