//! Where the flow under test starts within a millisecond of the clock its
//! sender reads (`[endpoint] clock_phase`).
//!
//! A simulated connection starts at time zero, so a sender that reads time
//! in whole milliseconds (quicly's: h2o/quicly 45bf8a37 `lib/defaults.c`
//! `default_now`, `gettimeofday` rounded down to the millisecond; its pacer
//! grants on that clock and its RTT samples are differences of its
//! readings) sees the same phase in every run. A real connection starts
//! wherever the wall clock happens to be, so its RTT samples of a 30.1 ms
//! path are 30 ms in some runs and 31 ms in others, and its pacing rate
//! and pacer grants move with them (docs/interop.md, "quicly's millisecond
//! clock"). This option starts the flow under test `phase` after time
//! zero, a fixed phase or one drawn per run from the run's seed, so that
//! the simulator's runs cover the phases a real sender meets. Off (0) by
//! default: a run's output does not change unless it is asked for.
//!
//! Only the flow under test (flow 0) moves; the link's elements and other
//! flows keep their times. Every figure of a run that is an interval (the
//! transfer time, `ttlb-us`) is unchanged by a shift of whole milliseconds;
//! the phase changes it only through a millisecond clock.

use core::time::Duration;

use ramp_vocab::rng::Stream;

/// One millisecond, the period of the clock the phase is taken within.
const CLOCK_TICK: Duration = Duration::from_millis(1);

/// `[endpoint] clock_phase`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClockPhase {
    /// The flow starts at time zero (the default).
    #[default]
    Zero,
    /// The flow starts this long after time zero (less than 1 ms).
    Fixed(Duration),
    /// The flow starts at a phase drawn uniformly from [0, 1 ms) with the
    /// run's seed (its own stream, `Stream::ClockPhase`, so no other
    /// element's draws move).
    Seeded,
}

/// Why a `clock_phase` value is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClockPhaseError(pub String);

impl core::fmt::Display for ClockPhaseError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "endpoint.clock_phase: \"seeded\" or a duration below 1ms (e.g. \"0.4ms\"), not {:?}",
            self.0
        )
    }
}

impl ClockPhase {
    /// Reads `"seeded"` or a duration below 1 ms.
    pub fn parse(s: &str) -> Result<ClockPhase, ClockPhaseError> {
        if s == "seeded" {
            return Ok(ClockPhase::Seeded);
        }
        match ramp_vocab::units::parse_duration(s) {
            Ok(d) if d.is_zero() => Ok(ClockPhase::Zero),
            Ok(d) if d < CLOCK_TICK => Ok(ClockPhase::Fixed(d)),
            _ => Err(ClockPhaseError(s.to_string())),
        }
    }

    /// How long after time zero the flow under test starts in a run with
    /// `seed`: whole nanoseconds below 1 ms.
    pub fn offset(self, seed: u64) -> Duration {
        match self {
            ClockPhase::Zero => Duration::ZERO,
            ClockPhase::Fixed(d) => d,
            ClockPhase::Seeded => {
                let tick = CLOCK_TICK.as_nanos() as u64;
                let draw = Stream::ClockPhase.rng(seed).next_u64();
                // Multiply-shift: uniform in 0..tick.
                Duration::from_nanos(((u128::from(draw) * u128::from(tick)) >> 64) as u64)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_phase_is_below_a_millisecond_and_seeded_draws_cover_it() {
        assert_eq!(ClockPhase::parse("0ms"), Ok(ClockPhase::Zero));
        assert_eq!(
            ClockPhase::parse("0.4ms").map(|p| p.offset(7)),
            Ok(Duration::from_micros(400))
        );
        assert!(ClockPhase::parse("1ms").is_err());
        assert!(ClockPhase::parse("random").is_err());
        assert_eq!(ClockPhase::Zero.offset(3), Duration::ZERO);
        let draws: Vec<Duration> = (1..=200).map(|s| ClockPhase::Seeded.offset(s)).collect();
        assert!(draws.iter().all(|d| *d < CLOCK_TICK));
        // Spread over the millisecond: every tenth of it is hit.
        for tenth in 0..10u64 {
            let lo = Duration::from_micros(100 * tenth);
            let hi = lo + Duration::from_micros(100);
            assert!(draws.iter().any(|d| *d >= lo && *d < hi), "{tenth}");
        }
        // Deterministic per seed.
        assert_eq!(ClockPhase::Seeded.offset(5), ClockPhase::Seeded.offset(5));
    }
}
