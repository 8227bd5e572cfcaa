//! Resuming a window remembered from an earlier connection on the same
//! path: Careful Resume's saved parameters (RFC 9959) as h2o/quicly's
//! resume-jumpstart carries them.
//!
//! What is remembered: quicly (h2o/quicly 45bf8a37, 2026-03-09) puts the
//! previous connection's delivery rate (the larger of its rate meter's
//! smoothed and latest values) and its minimum RTT into the address token
//! it sends in a NEW_TOKEN frame (`calc_resume_sendrate`,
//! `encode_resumption_info`, lib/quicly.c). A resumed connection that
//! presents the token turns them back into a window, `saved_cwnd = rate ×
//! saved_rtt` (`derive_jumpstart_cwnd`).
//!
//! How it is used, as RFC 9959 requires:
//!
//! - **Reconnaissance**: the saved parameters are used only once the new
//!   connection has an RTT sample, and only if that RTT confirms the path:
//!   the sender must not resume when `current_rtt ≤ saved_rtt / 2` ("MUST
//!   stop using Careful Resume") or `current_rtt > 10 × saved_rtt` ("more
//!   than ten times ... indicative of a path change") (RFC 9959,
//!   "Confirming the Path"). By default ([`Reconnaissance::Rfc`]) the jump
//!   also waits until the connection's first initial window of data has
//!   been acknowledged ("Path confirmed": "an ACK that acknowledges all
//!   the initial data (usually the IW) without reported congestion");
//!   quicly jumps at the first RTT sample, which a server has from the
//!   handshake ([`Reconnaissance::Quicly`], `recon=quicly`, the seed
//!   arms).
//! - **Unvalidated Phase**: the jump window is at most half the saved
//!   window, `jump_cwnd = saved_cwnd / 2`. quicly additionally scales the
//!   window down by `current_rtt / saved_rtt` when the RTT shrank, so that
//!   the rate does not exceed the previous connection's; that is applied
//!   too (it only ever lowers the window).
//! - The jump is never smaller than the one the controller makes without
//!   saved parameters (quicly: "Jumpstart only if the amount that can be
//!   sent in 1 RTT would be higher than without").
//!
//! The rest — pacing the jump over one RTT, validating it, Safe Retreat
//! on a loss — is the controller's ordinary jump ([`crate::careful_resume`]).

use core::time::Duration;

use crate::Rate;

/// Parameters saved from an earlier connection on the same path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SavedPath {
    /// Its delivery rate.
    pub rate: Rate,
    /// Its minimum RTT.
    pub rtt: Duration,
}

impl SavedPath {
    /// The saved window, `rate × saved_rtt`, bytes.
    pub fn saved_cwnd(&self) -> u64 {
        let b = u128::from(self.rate.bytes_per_sec()) * self.rtt.as_nanos() / 1_000_000_000;
        u64::try_from(b).unwrap_or(u64::MAX)
    }

    /// RFC 9959's path confirmation: the current RTT lies in
    /// `(saved_rtt / 2, 10 × saved_rtt]`.
    pub fn confirms(&self, current_rtt: Duration) -> bool {
        current_rtt > self.rtt / 2 && current_rtt <= self.rtt.saturating_mul(10)
    }

    /// The jump window for a connection whose current RTT is
    /// `current_rtt`, or None when the path is not confirmed: half the
    /// saved window (RFC 9959, Unvalidated Phase), scaled by
    /// `current_rtt / saved_rtt` when the RTT shrank (quicly's
    /// `derive_jumpstart_cwnd`).
    pub fn jump_window(&self, current_rtt: Duration) -> Option<u64> {
        if !self.confirms(current_rtt) {
            return None;
        }
        let mut w = u128::from(self.saved_cwnd() / 2);
        if current_rtt < self.rtt && !self.rtt.is_zero() {
            w = w * current_rtt.as_nanos() / self.rtt.as_nanos();
        }
        Some(u64::try_from(w).unwrap_or(u64::MAX))
    }
}

/// When a resumed connection may jump to its saved window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Reconnaissance {
    /// RFC 9959's Reconnaissance Phase: the initial window's worth of
    /// data is sent and acknowledged without congestion first.
    #[default]
    Rfc,
    /// quicly 45bf8a37: at the first RTT sample (lib/quicly.c enters
    /// jumpstart once `rtt.minimum` is known), the handshake's for a
    /// server, before any application data is acknowledged.
    Quicly,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved() -> SavedPath {
        SavedPath {
            rate: Rate::from_bits_per_sec(100_000_000),
            rtt: Duration::from_millis(40),
        }
    }

    #[test]
    fn rfc9959_saved_cwnd_is_rate_times_rtt() {
        assert_eq!(saved().saved_cwnd(), 500_000);
    }

    #[test]
    fn rfc9959_confirming_the_path_refuses_half_or_less_and_more_than_ten_times() {
        // "less than or equal to (saved_rtt / 2) ... MUST stop"; "more
        // than ten times the saved_rtt is indicative of a path change".
        let s = saved();
        assert!(!s.confirms(Duration::from_millis(19)));
        assert!(!s.confirms(Duration::from_millis(20)));
        assert!(s.confirms(Duration::from_micros(20_001)));
        assert!(s.confirms(Duration::from_millis(400)));
        assert!(!s.confirms(Duration::from_micros(400_001)));
        assert_eq!(s.jump_window(Duration::from_millis(20)), None);
        assert_eq!(s.jump_window(Duration::from_millis(401)), None);
    }

    #[test]
    fn rfc9959_unvalidated_phase_jumps_to_at_most_half_the_saved_cwnd() {
        let s = saved();
        assert_eq!(s.jump_window(Duration::from_millis(40)), Some(250_000));
        assert_eq!(s.jump_window(Duration::from_millis(100)), Some(250_000));
        // quicly: a shorter RTT scales the window so the rate stays the
        // previous connection's.
        assert_eq!(s.jump_window(Duration::from_millis(30)), Some(187_500));
    }
}
