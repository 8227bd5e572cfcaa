//! Proportional Rate Reduction, RFC 9937, for QUIC.
//!
//! During an ordinary recovery period PRR decides how much may be sent per
//! ACK so that bytes in flight glide to ssthresh instead of stopping and
//! then bursting. The API is the window itself: like Linux
//! (`snd_cwnd = pipe + sndcnt`), the controller's `window()` during recovery
//! is `pipe + sndcnt`, where `pipe` is bytes in flight after the ACK. The
//! sender, which sends while `bytes_in_flight < window()`, then sends exactly
//! `sndcnt` bytes; each send is counted in `prr_out`. quinn's `window()`-only
//! interface needs nothing more.
//!
//! QUIC mapping: `DeliveredData` = bytes newly acknowledged by the ACK frame;
//! `RecoverFS` = bytes in flight at the start of recovery plus the bytes
//! declared lost by the triggering event (RFC 9937 §6.1 counts losses in
//! RecoverFS); a "safe" ACK (§6.2) is one that delivers data and comes with
//! no loss in the same ACK frame.

use crate::config::PrrMode;

/// PRR state for one recovery period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prr {
    mode: PrrMode,
    ssthresh: u64,
    recover_fs: u64,
    delivered: u64,
    out: u64,
    pipe: u64,
    sndcnt: u64,
}

impl Prr {
    /// RFC 9937 §6.1 initialisation, then the §6.2 rule that forces one
    /// packet out at the start of recovery (RFC 9002 §7.3.2 allows one
    /// packet too).
    pub fn start(mode: PrrMode, ssthresh: u64, recover_fs: u64, pipe: u64, mds: u64) -> Prr {
        Prr {
            mode,
            ssthresh,
            recover_fs: recover_fs.max(1),
            delivered: 0,
            out: 0,
            pipe,
            sndcnt: mds,
        }
    }

    /// Bytes sent during recovery (`prr_out += data sent`).
    pub fn on_sent(&mut self, bytes: u64) {
        self.out = self.out.saturating_add(bytes);
    }

    /// One ACK frame: `delivered` bytes newly acknowledged, `pipe` bytes in
    /// flight after it, `safe` when no loss came with it (§6.2).
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, safe: bool, mds: u64) {
        if delivered == 0 {
            // §6.2: an ACK that delivers nothing changes nothing.
            return;
        }
        self.delivered = self.delivered.saturating_add(delivered);
        self.pipe = pipe;
        let out = i128::from(self.out);
        let d = i128::from(self.delivered);
        let ss = i128::from(self.ssthresh);
        let sndcnt: i128 = if pipe > self.ssthresh {
            // Proportional part: ceil(prr_delivered·ssthresh/RecoverFS) − prr_out.
            let fs = i128::from(self.recover_fs);
            (d * ss + fs - 1) / fs - out
        } else {
            let limit = match self.mode {
                PrrMode::Crb => d - out,
                PrrMode::Ssrb => (d - out).max(i128::from(delivered)) + i128::from(mds),
                PrrMode::Rfc9937 | PrrMode::Off => {
                    let base = (d - out).max(i128::from(delivered));
                    if safe {
                        base + i128::from(mds)
                    } else {
                        base
                    }
                }
            };
            limit.min(ss - i128::from(pipe))
        };
        let mut sndcnt = u64::try_from(sndcnt.max(0)).unwrap_or(u64::MAX);
        if self.out == 0 && sndcnt == 0 {
            sndcnt = mds;
        }
        self.sndcnt = sndcnt;
    }

    /// The window PRR allows: `pipe + sndcnt`.
    pub fn window(&self) -> u64 {
        self.pipe.saturating_add(self.sndcnt)
    }
    /// `sndcnt` computed at the last ACK.
    pub fn sndcnt(&self) -> u64 {
        self.sndcnt
    }
    /// `prr_delivered`.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }
    /// `prr_out`.
    pub fn out(&self) -> u64 {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MDS: u64 = 1000;

    #[test]
    fn rfc9937_proportional_phase_sends_ssthresh_over_recoverfs() {
        // RecoverFS 20 packets, ssthresh 10: one packet out per two delivered.
        let mut p = Prr::start(PrrMode::Rfc9937, 10 * MDS, 20 * MDS, 19 * MDS, MDS);
        assert_eq!(p.sndcnt(), MDS, "forced first transmission");
        p.on_sent(MDS);
        let mut sent = MDS;
        let mut pipe = 20 * MDS;
        for _ in 0..10 {
            pipe -= MDS;
            p.on_ack(MDS, pipe, true, MDS);
            let s = p.sndcnt();
            p.on_sent(s);
            sent += s;
            pipe += s;
        }
        // ceil(10·10/20) = 5 packets after 10 delivered.
        assert_eq!(sent, 5 * MDS);
    }

    #[test]
    fn rfc9937_crb_never_exceeds_delivered_below_ssthresh() {
        let mut p = Prr::start(PrrMode::Crb, 10 * MDS, 20 * MDS, 5 * MDS, MDS);
        p.on_sent(MDS);
        p.on_ack(2 * MDS, 4 * MDS, true, MDS);
        assert_eq!(p.sndcnt(), MDS); // delivered 2 − out 1
        let mut s = Prr::start(PrrMode::Ssrb, 10 * MDS, 20 * MDS, 5 * MDS, MDS);
        s.on_sent(MDS);
        s.on_ack(2 * MDS, 4 * MDS, true, MDS);
        assert_eq!(s.sndcnt(), 3 * MDS); // max(1, 2) + 1
    }
}
