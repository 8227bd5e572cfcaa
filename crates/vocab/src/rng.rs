//! ramp's one source of pseudo-random numbers: xoshiro256** ([`Rng`])
//! seeded by splitmix64, and splitmix64 itself ([`SplitMix64`]) where a
//! tiny generator is enough (bootstrap resampling, the relay's draws).
//!
//! Hand-written so that a dependency update can never change a simulation's
//! output, and shared so that the simulator, the relay, the charts and the
//! controllers (BBR's randomised probe wait) draw from the same, pinned
//! algorithms. Every random element (each loss element of a path, each
//! policer) owns its own generator, derived from a seed and a fixed stream
//! identifier, so that two arms of an A/B run draw the very same numbers
//! for the same element, whatever the other elements do.

/// One step of splitmix64 (Steele, Lea, Flood 2014), used to expand seeds.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// SplitMix64 (Steele, Lea and Flood, OOPSLA 2014): a tiny, well-mixed,
/// seedable generator.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator started at `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        splitmix64(&mut self.state)
    }

    /// A uniform float in [0, 1) with 53 bits of precision.
    pub fn next_f64(&mut self) -> f64 {
        unit_f64(self.next_u64())
    }

    /// A uniform index in `0..n` (multiply-shift; the bias is below 2^-32
    /// for any `n` below 2^32).
    pub fn index(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// The top 53 bits of `bits` as a float in [0, 1).
fn unit_f64(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The stream number of every random element that draws from a run's seed
/// through [`Rng::new`]: the link's elements (ramp-link) and the
/// simulator's (its web users, the sender's receive-path wake-ups). One
/// list, so that no two elements of one path can share a number: two
/// elements on one number would draw the very same sequence, and their
/// draws would be perfectly correlated (a duplicate discriminant does not
/// compile). The numbers are fixed: changing one changes every output that
/// element's draws feed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Stream {
    /// A link's random loss.
    Loss = 1,
    /// A queue discipline's drop or mark draws (PIE, DualPI2).
    Aqm = 3,
    /// The simulator's web users (each user's seed is offset by its index).
    WebUsers = 4,
    /// A link's delay variation (Wi-Fi jitter).
    Jitter = 5,
    /// A cellular link's base-delay drift.
    Drift = 6,
    /// The data sender's receive-path wake-ups (ACK batching at the sender).
    SenderWakeup = 7,
    /// The page loads a connection under test fetches (its 3GPP pages).
    PageLoads = 8,
    /// Where the flow under test starts within its sender's millisecond
    /// (the simulator's `[endpoint] clock_phase = "seeded"`).
    ClockPhase = 9,
}

impl Stream {
    /// This element's generator under `seed`.
    pub fn rng(self, seed: u64) -> Rng {
        Rng::new(seed, self as u64)
    }
}

/// xoshiro256** (Blackman and Vigna 2018).
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator for the random element numbered `stream` under `seed`.
    /// Stream numbers are fixed per element: changing one changes every
    /// output that element's draws feed.
    pub fn new(seed: u64, stream: u64) -> Rng {
        Rng::from_u64(seed ^ stream.wrapping_mul(0xD6E8_FEB8_6659_FD93))
    }

    /// A generator seeded from one 64-bit value.
    pub fn from_u64(seed: u64) -> Rng {
        let mut st = seed;
        let s = [
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
        ];
        Rng { s }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A uniform float in [0, 1) with 53 bits of precision.
    pub fn next_f64(&mut self) -> f64 {
        unit_f64(self.next_u64())
    }

    /// True with probability `p` (a [`Probability`]).
    pub fn chance(&mut self, p: Probability) -> bool {
        p.0 != 0 && self.next_u64() < p.0
    }
}

/// A probability stored as a 64-bit threshold, so that a draw is one integer
/// comparison and never depends on float rounding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Probability(u64);

impl Probability {
    /// Never.
    pub const ZERO: Probability = Probability(0);

    /// `p` clamped to [0, 1].
    pub fn new(p: f64) -> Probability {
        if p.is_nan() || p <= 0.0 {
            Probability(0)
        } else if p >= 1.0 {
            Probability(u64::MAX)
        } else {
            // 2^64 * p, exact enough: the error is below 2^-53.
            Probability((p * 18_446_744_073_709_551_616.0) as u64)
        }
    }

    /// Whether this is zero.
    pub fn is_zero(self) -> bool {
        self.0 == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_output_never_changes() {
        // Pinned values: if these change, every recorded simulation changes.
        let mut r = Rng::from_u64(0);
        let v: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(
            v,
            [
                0x99EC_5F36_CB75_F2B4,
                0xBF6E_1F78_4956_452A,
                0x1A5F_849D_4933_E6E0
            ]
        );
    }

    #[test]
    fn streams_are_independent() {
        let a = Rng::new(7, 1).next_u64();
        let b = Rng::new(7, 2).next_u64();
        assert_ne!(a, b);
    }

    #[test]
    fn splitmix_reference_output_never_changes() {
        // The first output for seed 0 (Steele, Lea and Flood's test vector).
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
        let mut s = SplitMix64::new(5);
        assert!((0..1000).all(|_| s.index(7) < 7 && (0.0..1.0).contains(&s.next_f64())));
    }

    #[test]
    fn chance_extremes() {
        let mut r = Rng::from_u64(1);
        assert!((0..1000).all(|_| !r.chance(Probability::ZERO)));
        assert!((0..1000).all(|_| r.chance(Probability::new(1.0))));
    }
}
