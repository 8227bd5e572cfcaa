//! Prague's congestion avoidance (draft-briscoe-iccrg-prague-congestion-control),
//! the scalable response L4S asks of a sender (RFC 9331 §4.3): a
//! DCTCP-like reduction in proportion to the share of CE marks, an
//! additive increase made independent of the RTT below a 25 ms reference,
//! and a classic halving on loss.
//!
//! It runs as the congestion-avoidance algorithm of
//! [`crate::loss_based::LossBased`], so any of ramp's startups can sit in
//! front of it (`prague`, `prague+hystart`, `prague+rapidstart`). Where the
//! draft leaves a number open, the L4STeam `udp_prague` reference sender
//! (prague_cc.cpp, github.com/L4STeam/udp_prague) is followed, and the doc
//! of each item says which.

use core::time::Duration;

use crate::controller::CongestionSignal;
use crate::loss_based::spec::CaPart;
use crate::loss_based::{CaContext, CongestionAvoidance};
use crate::ratio::Ratio;
use ramp_vocab::ecn::EcnCodepoint;
use ramp_vocab::time::Time;

/// The reference RTT of the RTT-independence (draft §2.4.4; udp_prague
/// `REF_RTT` = 25 ms): the virtual RTT is max(srtt, 25 ms).
pub(crate) const REF_RTT: Duration = Duration::from_millis(25);

/// EWMA gain g of α (draft §2.3.2, 1/16; udp_prague `ALPHA_SHIFT` 4).
pub(crate) const ALPHA_GAIN_SHIFT: u32 = 4;

/// α is kept in fixed point with this many fractional bits (udp_prague
/// `PROB_SHIFT` = 20).
pub(crate) const ALPHA_SHIFT: u32 = 20;

/// α = 1 in fixed point.
pub(crate) const ALPHA_ONE: u64 = 1 << ALPHA_SHIFT;

/// The additive increase once growth may speed up: the queue the flow
/// adds per RTT, in time at its own rate (udp_prague `QUEUE_GROWTH` = 1 ms).
pub(crate) const QUEUE_GROWTH: Duration = Duration::from_millis(1);

/// Virtual RTTs a flow waits after a CE reduction before growing by
/// [`QUEUE_GROWTH`]: `rate / RATE_STEP + MIN_STEP` (udp_prague
/// `RATE_STEP` = 1.92 MB/s, `MIN_STEP` = 7).
pub(crate) const RATE_STEP_BYTES_PER_SEC: u64 = 1_920_000;
/// See [`RATE_STEP_BYTES_PER_SEC`].
pub(crate) const MIN_STEP: u64 = 7;

/// The longest burst Prague's pacer sends, as time at the pacing rate
/// (udp_prague `BURST_TIME` = 250 µs, at least one packet): at 10 Mbit/s
/// one packet at a time, so that a flow does not queue its own second
/// packet behind the first for a packet's serialisation time, which is
/// over the 1 ms step there (docs/l4s.md).
pub const BURST_TIME: Duration = Duration::from_micros(250);

/// Prague's pacing gain outside slow start: 1 (Linux
/// `prague_update_pacing_rate`, "Pacing is set to 100% during AI";
/// udp_prague paces at `m_fractional_window / srtt`).
pub const CA_PACING_GAIN: Ratio = Ratio::ONE;

/// The `prague` part of the loss-based family: no options; an arm sends
/// ECT(1) (an L4S sender, RFC 9331 §4.1) unless its `ecn=` says otherwise,
/// and paces at [`CA_PACING_GAIN`] in congestion avoidance unless the
/// spec or the endpoint sets a gain.
pub const CA_PART: CaPart<()> = CaPart {
    name: "prague",
    aliases: &[],
    help: "Prague's scalable response (draft-briscoe-iccrg-prague-congestion-control; sends ECT(1) unless ecn= says)",
    options: &[],
    build: |_, _| Box::new(Prague::new()),
    ecn: Some(EcnCodepoint::Ect1),
    ca_pacing_gain: Some(CA_PACING_GAIN),
};

/// Prague's congestion-avoidance state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prague {
    /// α, the EWMA of the marked share, fixed point ([`ALPHA_ONE`] = 1).
    alpha: u64,
    /// A CE mark has been seen: until then α is not updated (Linux
    /// `prague_update_alpha`, `saw_ce`).
    saw_ce: bool,
    /// Start of the current α period (one virtual RTT).
    period_start: Option<Time>,
    /// Bytes acknowledged and bytes reported CE in the period.
    acked: u64,
    marked: u64,
    /// CE bytes not yet taken out of window growth.
    ce_pending: u64,
    /// Virtual RTTs left before growth speeds up to [`QUEUE_GROWTH`].
    rtts_to_growth: u64,
    /// Fractional window increase carried between ACK frames (bytes ×
    /// cwnd, so nothing is lost to rounding).
    carry: u128,
    /// When the window was last reduced, for any cause, and for loss.
    reduced_at: Option<Time>,
    lost_at: Option<Time>,
}

impl Default for Prague {
    fn default() -> Self {
        Prague::new()
    }
}

impl Prague {
    /// A new flow. α starts at 1, the conservative value RFC 8257 §3.3
    /// gives DCTCP and Linux TCP Prague uses, and stays there until the
    /// first CE mark (Linux `prague_update_alpha`: "Do not update alpha
    /// before we have proof that there's an AQM on the path"), so the CE
    /// mark that ends a slow start halves the window (udp_prague, with no
    /// slow start, starts at 0). Growth first waits `MIN_STEP` (7) virtual
    /// RTTs, as udp_prague's constructor sets `m_rtts_to_growth =
    /// init_rate / RATE_STEP + MIN_STEP` (its initial rate is below one
    /// `RATE_STEP`).
    pub fn new() -> Prague {
        Prague {
            alpha: ALPHA_ONE,
            saw_ce: false,
            period_start: None,
            acked: 0,
            marked: 0,
            ce_pending: 0,
            rtts_to_growth: MIN_STEP,
            carry: 0,
            reduced_at: None,
            lost_at: None,
        }
    }

    /// Whether a congestion event at `now` must not reduce the window
    /// again yet (draft §2.3.3: at most one reduction per virtual RTT;
    /// udp_prague's `cs_in_cwr` and `cs_in_loss` states, which end when
    /// both a packet sent after the reduction is acknowledged, as RFC
    /// 9002's recovery period, and a virtual RTT has passed). A CE mark
    /// waits a virtual RTT after any reduction; a loss only after a loss
    /// reduction (the reference reduces for loss while in CWR, and so
    /// does [`crate::loss_based::LossBased`], even for a packet sent
    /// before the CE reduction).
    pub fn holds_reduction(&self, now: Time, signal: CongestionSignal, srtt: Duration) -> bool {
        let since = match signal {
            CongestionSignal::Ecn { .. } => self.reduced_at,
            CongestionSignal::Loss { .. } => self.lost_at,
        };
        since.is_some_and(|t| now.saturating_since(t) < Self::vrtt(srtt))
    }

    /// α as a fraction.
    pub fn alpha(&self) -> f64 {
        self.alpha as f64 / ALPHA_ONE as f64
    }

    /// The virtual RTT (draft §2.4.4).
    pub fn vrtt(srtt: Duration) -> Duration {
        srtt.max(REF_RTT)
    }

    /// Counts `bytes` acknowledged of a packet sent at `time_sent`. A
    /// period closes when a virtual RTT has passed and a packet sent
    /// since the last update is acknowledged (udp_prague `ACKReceived`;
    /// Linux `prague_e2e_rtt_elapsed` and `prague_target_rtt_elapsed`);
    /// it then folds the period's marked share F into α, α += g·(F − α)
    /// (draft §2.3.2), once a CE mark has been seen.
    pub fn on_acked(&mut self, now: Time, time_sent: Time, bytes: u64, srtt: Duration) {
        self.acked = self.acked.saturating_add(bytes);
        let start = *self.period_start.get_or_insert(now);
        if now.saturating_since(start) < Self::vrtt(srtt) || time_sent < start || self.acked == 0 {
            return;
        }
        if self.saw_ce {
            let f =
                (u128::from(self.marked.min(self.acked)) << ALPHA_SHIFT) / u128::from(self.acked);
            let f = f as u64;
            // α += (F − α) / 16, in fixed point.
            self.alpha = if f >= self.alpha {
                self.alpha + ((f - self.alpha) >> ALPHA_GAIN_SHIFT)
            } else {
                self.alpha - ((self.alpha - f) >> ALPHA_GAIN_SHIFT)
            };
            self.alpha = self.alpha.min(ALPHA_ONE);
        }
        self.acked = 0;
        self.marked = 0;
        self.period_start = Some(now);
        self.rtts_to_growth = self.rtts_to_growth.saturating_sub(1);
    }

    /// Counts newly CE-marked bytes (every mark, in or out of a reduction
    /// period, feeds α).
    pub fn on_ce(&mut self, ce_bytes: u64) {
        self.saw_ce |= ce_bytes > 0;
        self.marked = self.marked.saturating_add(ce_bytes);
        self.ce_pending = self.ce_pending.saturating_add(ce_bytes);
    }

    /// The window after a congestion event that starts a reduction period:
    /// cwnd·(1 − α/2) for CE (draft §2.3.3), cwnd/2 for loss (§2.3.4).
    /// Growth then waits a number of virtual RTTs (udp_prague).
    pub fn on_congestion(
        &mut self,
        now: Time,
        cwnd: u64,
        signal: CongestionSignal,
        srtt: Duration,
        mds: u64,
    ) -> u64 {
        let rate = rate_bytes_per_sec(cwnd, srtt);
        self.carry = 0;
        self.reduced_at = Some(now);
        if matches!(signal, CongestionSignal::Loss { .. }) {
            self.lost_at = Some(now);
        }
        match signal {
            CongestionSignal::Ecn { .. } => {
                self.rtts_to_growth = rate / RATE_STEP_BYTES_PER_SEC + MIN_STEP;
                let cut = (u128::from(cwnd) * u128::from(self.alpha)) >> (ALPHA_SHIFT + 1);
                cwnd - cut as u64
            }
            CongestionSignal::Loss { .. } => {
                // udp_prague: the vRTTs a 25 ms flow would take to grow
                // back by half its rate one packet per RTT.
                let vrtt = Self::vrtt(srtt).as_micros().max(1) as u64;
                let ref_us = REF_RTT.as_micros() as u64;
                self.rtts_to_growth = (rate / 2 / mds.max(1)) * ref_us / vrtt * ref_us / 1_000_000;
                cwnd / 2
            }
        }
    }

    /// Additive increase for `n` newly acknowledged bytes (the reference's
    /// rule, prague_cc.cpp): per RTT the window grows by `increment`
    /// scaled by (srtt/vRTT)², where `increment` is one packet while
    /// growth waits after a reduction, else `QUEUE_GROWTH` of the flow's
    /// rate (at least a packet). CE-marked bytes do not count.
    pub fn on_ack(&mut self, cwnd: u64, n: u64, srtt: Duration, mds: u64) -> u64 {
        let skip = self.ce_pending.min(n);
        self.ce_pending -= skip;
        let n = n - skip;
        if n == 0 || cwnd == 0 {
            return cwnd;
        }
        let rate = rate_bytes_per_sec(cwnd, srtt);
        let grown = u64::try_from(u128::from(rate) * QUEUE_GROWTH.as_nanos() / 1_000_000_000)
            .unwrap_or(u64::MAX);
        let increment = if self.rtts_to_growth > 0 || grown < mds {
            mds
        } else {
            grown
        };
        let (s, v) = (srtt.as_nanos().max(1), Self::vrtt(srtt).as_nanos());
        // Δ = n·increment·s² / (cwnd·v²), carried exactly.
        let num = u128::from(n) * u128::from(increment) * s * s;
        let den = u128::from(cwnd) * v * v;
        self.carry += num;
        let inc = self.carry / den;
        self.carry %= den;
        cwnd.saturating_add(u64::try_from(inc).unwrap_or(u64::MAX))
    }
}

/// Prague as the loss-based family's congestion-avoidance algorithm.
impl CongestionAvoidance for Prague {
    /// Its loss response (draft §2.3.4); a CE mark's is α's.
    fn beta(&self) -> Ratio {
        Ratio::HALF
    }

    fn grow(&mut self, ctx: &CaContext, acked: u64) -> u64 {
        Prague::on_ack(self, ctx.cwnd, acked, ctx.srtt, ctx.mds)
    }

    fn reduce(&mut self, ctx: &CaContext, signal: CongestionSignal, _in_startup: bool) -> u64 {
        Prague::on_congestion(self, ctx.now, ctx.cwnd, signal, ctx.srtt, ctx.mds)
    }

    /// α counts every acknowledged byte, in recovery or not.
    fn on_bytes_acked(&mut self, ctx: &CaContext, time_sent: Time, bytes: u64) {
        Prague::on_acked(self, ctx.now, time_sent, bytes, ctx.srtt);
    }

    fn observes_acked_bytes(&self) -> bool {
        true
    }

    /// Every mark feeds α, in a reduction period or not.
    fn on_ce_bytes(&mut self, ce_bytes: u64) {
        Prague::on_ce(self, ce_bytes);
    }

    /// At most one reduction per virtual RTT (draft §2.3.3).
    fn holds_reduction(&self, ctx: &CaContext, signal: CongestionSignal) -> bool {
        Prague::holds_reduction(self, ctx.now, signal, ctx.srtt)
    }

    /// Linux tcp_prague.c: "cwnd is updated for every ACK, regardless of
    /// the congestion status" (TCP_CA_CWR); udp_prague grows unless
    /// `cs_in_loss`.
    fn grows_in_ce_recovery(&self) -> bool {
        true
    }

    fn pacing_burst(&self) -> Option<Duration> {
        Some(BURST_TIME)
    }
}

/// cwnd/srtt in bytes per second (0 before an RTT is known).
fn rate_bytes_per_sec(cwnd: u64, srtt: Duration) -> u64 {
    let ns = srtt.as_nanos();
    if ns == 0 {
        return 0;
    }
    u64::try_from(u128::from(cwnd) * 1_000_000_000 / ns).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MDS: u64 = 1200;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    fn ce() -> CongestionSignal {
        CongestionSignal::Ecn {
            ce_packets: 1,
            ce_bytes: MDS,
        }
    }

    #[test]
    fn prague_2_3_2_alpha_is_an_ewma_with_gain_one_sixteenth_per_virtual_rtt() {
        let mut p = Prague::new();
        p.alpha = 0;
        let t0 = Time::ZERO;
        // A whole period with a quarter of the bytes marked: α = 1/64.
        p.on_acked(t0, t0, 0, ms(10));
        p.on_ce(25_000);
        p.on_acked(t0 + ms(10), t0, 100_000, ms(10));
        // 10 ms < the 25 ms virtual RTT: no update yet.
        assert_eq!(p.alpha(), 0.0);
        p.on_acked(t0 + ms(25), t0, 0, ms(10));
        assert!((p.alpha() - 0.25 / 16.0).abs() < 1e-6, "{}", p.alpha());
    }

    #[test]
    fn prague_2_3_3_ce_response_is_cwnd_times_one_minus_alpha_over_two() {
        let mut p = Prague::new();
        assert_eq!(
            p.on_congestion(Time::ZERO, 100_000, ce(), ms(20), MDS),
            50_000
        );
        p.alpha = ALPHA_ONE / 4;
        assert_eq!(
            p.on_congestion(Time::ZERO, 100_000, ce(), ms(20), MDS),
            87_500
        );
        // Loss halves whatever α is.
        assert_eq!(
            p.on_congestion(
                Time::ZERO,
                100_000,
                CongestionSignal::Loss { lost_bytes: 1 },
                ms(20),
                MDS
            ),
            50_000
        );
    }

    #[test]
    fn prague_2_4_4_increase_is_rtt_independent_below_the_reference() {
        // Over one RTT's worth of ACKs, a 5 ms flow grows (5/25)² as much
        // per RTT as a 25 ms flow, i.e. the same per unit of time once
        // rounds are 5x as frequent... in packets per second of growth:
        // 5 rounds × 1/25 vs 1 round × 1.
        let grow = |srtt: Duration| {
            let mut p = Prague::new();
            p.rtts_to_growth = 1; // one packet per RTT
            let cwnd = 100 * MDS;
            p.on_ack(cwnd, cwnd, srtt, MDS) - cwnd
        };
        assert_eq!(grow(ms(25)), MDS);
        assert_eq!(grow(ms(50)), MDS);
        let g5 = grow(ms(5));
        assert_eq!(g5, MDS / 25);
    }

    #[test]
    fn prague_reference_growth_adds_one_ms_of_queue_per_rtt_once_allowed() {
        let mut p = Prague::new();
        p.rtts_to_growth = 0;
        // 1 MB window at 25 ms: 40 MB/s, 1 ms of it = 40 kB per RTT.
        let cwnd = 1_000_000;
        let next = p.on_ack(cwnd, cwnd, ms(25), MDS);
        assert_eq!(next - cwnd, 40_000);
        // After a CE reduction growth waits rate/1.92 MB/s + 7 vRTTs.
        p.on_congestion(Time::ZERO, cwnd, ce(), ms(25), MDS);
        assert_eq!(
            p.rtts_to_growth,
            40_000_000 / RATE_STEP_BYTES_PER_SEC + MIN_STEP
        );
    }

    #[test]
    fn prague_2_3_3_at_most_one_reduction_per_virtual_rtt() {
        let mut p = Prague::new();
        let t0 = Time::ZERO + ms(100);
        p.on_congestion(t0, 100_000, ce(), ms(10), MDS);
        // 10 ms RTT: the virtual RTT is 25 ms, so CE 20 ms later is held.
        assert!(p.holds_reduction(t0 + ms(20), ce(), ms(10)));
        assert!(!p.holds_reduction(t0 + ms(25), ce(), ms(10)));
        // Above 25 ms the virtual RTT is the RTT.
        assert!(p.holds_reduction(t0 + ms(30), ce(), ms(40)));
        // A loss is not held by a CE reduction, only by a loss one.
        let loss = CongestionSignal::Loss { lost_bytes: 1 };
        assert!(!p.holds_reduction(t0 + ms(1), loss, ms(10)));
        p.on_congestion(t0, 100_000, loss, ms(10), MDS);
        assert!(p.holds_reduction(t0 + ms(1), loss, ms(10)));
        assert!(!Prague::new().holds_reduction(t0, ce(), ms(10)));
    }

    #[test]
    fn ce_marked_bytes_do_not_grow_the_window() {
        let mut p = Prague::new();
        p.rtts_to_growth = 1;
        p.on_ce(10 * MDS);
        let cwnd = 10 * MDS;
        assert_eq!(p.on_ack(cwnd, 10 * MDS, ms(25), MDS), cwnd);
    }
}
