//! Telling "ramp is wrong" from "the machine could not keep time" in tests
//! that measure real time (a download through the relay or the shell
//! compared with the simulator, a rate over a wall-clock second).
//!
//! Such a test measures how busy the machine was during each run, from the
//! kernel's CPU pressure stall information (PSI, `/proc/pressure/cpu`, the
//! `some` line: the share of wall time in which at least one runnable task
//! waited for a CPU), together with the forwarder's own send lateness. A
//! run that was late beyond the test's stated bound is discarded and run
//! again; after a few late runs the test reports itself *inconclusive*,
//! loudly on stderr (past the test harness's capture), and passes, unless
//! [`STRICT_ENV`] is set: CI sets it for the step that runs these tests on
//! the otherwise idle machine, where "inconclusive" is a failure.

use std::io::Write as _;
use std::time::{Duration, Instant};

/// Environment variable: when set to anything but `0` or empty, an
/// inconclusive real-time test fails.
pub const STRICT_ENV: &str = "RAMP_STRICT_TIMING";

/// Whether [`STRICT_ENV`] asks inconclusive tests to fail.
pub fn strict() -> bool {
    std::env::var(STRICT_ENV).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The CPU pressure counter at one instant.
#[derive(Clone, Copy, Debug)]
pub struct CpuPressure {
    /// `some total=` of `/proc/pressure/cpu`, microseconds.
    stalled_us: u64,
    at: Instant,
}

impl CpuPressure {
    /// The counter now, or `None` where the kernel has no PSI (not Linux,
    /// or built without `CONFIG_PSI`).
    pub fn now() -> Option<CpuPressure> {
        let text = std::fs::read_to_string("/proc/pressure/cpu").ok()?;
        let stalled_us = parse_some_total(&text)?;
        Some(CpuPressure {
            stalled_us,
            at: Instant::now(),
        })
    }

    /// The share of wall time since `self` in which some task waited for a
    /// CPU (0 = the machine kept up, 1 = something always waited).
    pub fn share_since(&self) -> Option<f64> {
        let now = CpuPressure::now()?;
        let wall_us = now.at.duration_since(self.at).as_micros() as f64;
        if wall_us <= 0.0 {
            return None;
        }
        Some((now.stalled_us.saturating_sub(self.stalled_us) as f64 / wall_us).min(1.0))
    }
}

/// `total=` of the `some` line of a `/proc/pressure/*` file.
fn parse_some_total(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("some "))?;
    line.split_whitespace()
        .find_map(|f| f.strip_prefix("total="))?
        .parse()
        .ok()
}

/// Writes `line` straight to the process's stderr: the test harness
/// captures `eprintln!` of passing tests, and a skip or an inconclusive
/// result must be seen without `--nocapture`.
pub fn loud(line: &str) {
    let mut e = std::io::stderr().lock();
    let _ = writeln!(e, "{line}");
}

/// Ends a real-time test whose every run was late: prints `INCONCLUSIVE`
/// with `details` (the lateness figures) on stderr, and fails only under
/// [`STRICT_ENV`].
pub fn inconclusive(test: &str, details: &str) {
    loud(&format!(
        "INCONCLUSIVE: {test}: the machine could not keep time, so this run proves nothing \
         either way ({details}); rerun on an idle machine, or with {STRICT_ENV}=1 to make this \
         a failure"
    ));
    assert!(
        !strict(),
        "{test}: inconclusive under {STRICT_ENV}: {details}"
    );
}

/// The share of CPU pressure above which a late run proves nothing: some
/// task waited for a CPU more than half the time. An assumption (a
/// machine that kept up at least half the time should meet a bound set
/// many times the idle time); anywhere in 0.3–0.7 would serve.
pub const BUSY_SHARE: f64 = 0.5;

/// Checks that work started at `t0` ended within `bound`, a bound many
/// times its time on an idle machine. Within it: nothing to say. Over it
/// while the machine was busy (CPU pressure since `pressure` above
/// [`BUSY_SHARE`]): [`inconclusive`]. Over it on a machine that kept up,
/// or where the pressure cannot be read: a failure (panic) naming `test`.
///
/// `pressure` is [`CpuPressure::now`] taken with `t0`.
pub fn promptly(test: &str, t0: Instant, bound: Duration, pressure: Option<CpuPressure>) {
    let took = t0.elapsed();
    if took < bound {
        return;
    }
    match pressure.and_then(|p| p.share_since()) {
        Some(share) if share > BUSY_SHARE => inconclusive(
            test,
            &format!(
                "took {took:?}, bound {bound:?}, CPU pressure {:.0}%",
                share * 100.0
            ),
        ),
        share => panic!("{test}: took {took:?}, bound {bound:?} (CPU pressure {share:?})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_some_total_of_a_pressure_file() {
        let text = "some avg10=98.57 avg60=98.97 avg300=99.13 total=2753751564\n\
                    full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
        assert_eq!(parse_some_total(text), Some(2_753_751_564));
        assert_eq!(parse_some_total("full total=3\n"), None);
    }

    #[test]
    fn promptly_is_silent_within_its_bound() {
        promptly("within", Instant::now(), Duration::from_secs(60), None);
    }

    #[test]
    #[should_panic(expected = "took")]
    fn promptly_fails_a_late_run_whose_pressure_cannot_be_read() {
        let t0 = Instant::now() - Duration::from_secs(2);
        promptly("late", t0, Duration::from_secs(1), None);
    }

    #[test]
    fn a_share_lies_in_0_to_1() {
        match CpuPressure::now() {
            None => loud("SKIPPED: a_share_lies_in_0_to_1: no /proc/pressure/cpu here"),
            Some(p) => {
                std::thread::sleep(std::time::Duration::from_millis(20));
                let s = p.share_since().expect("a second reading");
                assert!((0.0..=1.0).contains(&s), "{s}");
            }
        }
    }
}
