//! Pacing: when the next packet may leave.
//!
//! Two models behind one trait ([`Pacing`]) and one enum ([`AnyPacer`], made
//! from a [`PacerKind`]), so the simulator picks one by configuration:
//!
//! - [`Pacer`], ramp's leaky bucket (RFC 9002 §7.7): it sends at the rate
//!   the controller asks for ([`Controller::pacing_rate`](crate::Controller::pacing_rate)),
//!   lets an initial burst out at once (10 packets, the Google QUIC
//!   default), and lets credit build up to a small quantum only (2 packets,
//!   Chromium's lumpy-pacing size) while idle.
//! - [`QuinnPacer`], a model of the pacer in quinn-proto 0.11.19
//!   (`connection/pacing.rs`), reproducing its arithmetic: it ignores the
//!   controller's rate and refills at `1.25 · window / smoothed_rtt`, with a
//!   bucket of `clamp(window · 2 ms / smoothed_rtt, 10·MTU, 256·MTU)` and, when
//!   short, a wait until a **full** bucket has refilled, times 4/5. It shows
//!   what stock quinn does to a paced first flight (docs/recovery.md).
//!
//! Both are sans-IO: time comes in as [`Time`], so they run in virtual time
//! (the simulator polls `next_send_time` and schedules a wake-up) and in
//! real time (a socket loop arms a timer) alike.

use core::fmt;
use core::time::Duration;

use ramp_vocab::time::{Rate, Time};

/// Google QUIC's initial unpaced burst, packets (`kInitialUnpacedBurst`).
pub const INITIAL_BURST_PACKETS: u64 = 10;

/// The credit of a pacer whose first flight is paced from its first
/// packet: one packet leaves at once and the rest at the pacing rate, so a
/// first flight of `W` bytes paced at `W/srtt` spans the RTT, as
/// draft-kazuho-ccwg-rapid-start-02 §3.1 describes ("paced over one RTT")
/// and as ramp's real mode sends it (its pacing gate takes over after the
/// handshake with this credit). The simulator's endpoints use it; Google
/// QUIC's [`INITIAL_BURST_PACKETS`] stays one option away.
pub const PACED_FIRST_FLIGHT_BURST_PACKETS: u64 = 1;

/// Default credit a paced sender may build up while idle, packets: 2, the
/// lumpy-pacing size of Chromium's QUIC pacer and the minimum TSO burst of
/// Linux `tcp_tso_autosize`. Enough for a late timer to catch up a little,
/// small enough that an idle sender cannot burst.
pub const BURST_QUANTUM_PACKETS: u64 = 2;

/// What a pacer may consult about the connection at each call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacingInput {
    /// The controller's pacing rate ([`Controller::pacing_rate`](crate::Controller::pacing_rate));
    /// `None` means unpaced.
    pub rate: Option<Rate>,
    /// The congestion window, bytes (quinn derives its rate from it).
    pub window: u64,
    /// `smoothed_rtt` (the initial RTT before any sample).
    pub smoothed_rtt: Duration,
    /// The current maximum datagram size, bytes.
    pub max_datagram_size: u64,
    /// The controller's own limit on a burst, as time at the pacing rate
    /// ([`Controller::pacing_burst`](crate::Controller::pacing_burst);
    /// Prague's 250 µs); `None` leaves the pacer's quantum alone.
    pub burst: Option<Duration>,
}

/// A pacer. The caller asks [`Pacing::next_send_time`] before sending a
/// packet and, when the answer is later than `now`, waits until then and
/// asks again; it reports every packet actually sent with
/// [`Pacing::on_packet_sent`] (including packets sent without asking, such
/// as PTO probes, which then leave a debt).
pub trait Pacing: fmt::Debug + Send {
    /// The earliest time a packet of `bytes` may be sent: `now` if at once,
    /// otherwise a time strictly after `now` ([`Time::MAX`] for a zero rate).
    /// Takes `&mut self` because quinn's pacer refills its bucket as a side
    /// effect of being asked.
    fn next_send_time(&mut self, now: Time, input: &PacingInput, bytes: u64) -> Time;

    /// A packet of `bytes` was sent at `now`.
    fn on_packet_sent(&mut self, now: Time, bytes: u64, input: &PacingInput);
}

/// Parameters of the leaky-bucket [`Pacer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacerConfig {
    /// Packets that may leave at once when the connection starts, before
    /// pacing applies. Default 10 ([`INITIAL_BURST_PACKETS`]).
    pub initial_burst_packets: u64,
    /// Credit, in packets, that may build up while the sender is idle or
    /// its timer is late. Default 2 ([`BURST_QUANTUM_PACKETS`]); at least 1
    /// is used.
    pub burst_quantum_packets: u64,
    /// Bytes per packet for the two counts above. Default 1200.
    pub max_datagram_size: u64,
}

impl Default for PacerConfig {
    fn default() -> Self {
        PacerConfig {
            initial_burst_packets: INITIAL_BURST_PACKETS,
            burst_quantum_packets: BURST_QUANTUM_PACKETS,
            max_datagram_size: 1200,
        }
    }
}

/// ramp's leaky-bucket pacer (RFC 9002 §7.7).
///
/// Credit (bytes) accrues at the current rate since the last packet sent,
/// up to the quantum; it starts at the initial burst, which does not grow
/// while it lasts. A packet may leave when the credit covers it (or covers a
/// full quantum, for packets larger than the quantum); sending spends the
/// credit, possibly into debt. The accrual since the last packet uses the
/// rate given now, so a rate change applies from the last send.
#[derive(Clone, Debug)]
pub struct Pacer {
    config: PacerConfig,
    /// Credit at `last`, bytes; negative is debt.
    credit: i64,
    last: Option<Time>,
    /// The controller's burst limit ([`PacingInput::burst`]).
    burst: Option<Duration>,
}

fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl Pacer {
    /// A pacer holding the initial burst.
    pub fn new(config: PacerConfig) -> Self {
        let initial = config
            .initial_burst_packets
            .saturating_mul(config.max_datagram_size);
        Pacer {
            config,
            credit: to_i64(initial),
            last: None,
            burst: None,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &PacerConfig {
        &self.config
    }

    /// The idle credit cap, bytes.
    fn quantum(&self) -> i64 {
        to_i64(
            self.config
                .burst_quantum_packets
                .max(1)
                .saturating_mul(self.config.max_datagram_size.max(1)),
        )
    }

    /// The most credit may build to at `rate`: the quantum, or less when
    /// the controller limits its bursts to a time at the rate (at least
    /// one packet).
    fn cap(&self, rate: Rate) -> i64 {
        let q = self.quantum();
        match self.burst {
            Some(b) => {
                q.min(to_i64(rate.bytes_in(b)).max(to_i64(self.config.max_datagram_size.max(1))))
            }
            None => q,
        }
    }

    /// Credit available at `now` with `rate`.
    fn credit_at(&self, now: Time, rate: Rate) -> i64 {
        let Some(last) = self.last else {
            return self.credit;
        };
        let accrued = to_i64(rate.bytes_in(now.saturating_since(last)));
        // A leftover initial burst above the quantum does not grow.
        let cap = self.cap(rate).max(self.credit);
        self.credit.saturating_add(accrued).min(cap)
    }

    /// Credit available at `now` with `rate` (bytes; negative is debt).
    pub fn credit(&self, now: Time, rate: Option<Rate>) -> i64 {
        match rate {
            Some(r) => self.credit_at(now, r),
            None => self.quantum().max(self.credit),
        }
    }

    /// When a packet of `bytes` may leave: `now` if the credit covers it
    /// (or `rate` is `None`, unpaced), else the moment it will;
    /// [`Time::MAX`] for a zero rate.
    pub fn next_send_time(&self, now: Time, rate: Option<Rate>, bytes: u64) -> Time {
        let Some(rate) = rate else {
            return now;
        };
        if rate == Rate::ZERO {
            // `Rate::ZERO` means nothing may be sent, burst or not.
            return Time::MAX;
        }
        if self.last.is_none() {
            // Nothing sent yet: nothing to space the first packet from.
            return now;
        }
        let credit = self.credit_at(now, rate);
        // A packet larger than the quantum waits for a full quantum only.
        let needed = to_i64(bytes).min(self.cap(rate).max(self.credit));
        if credit >= needed {
            return now;
        }
        let deficit = u64::try_from(needed.saturating_sub(credit)).unwrap_or(u64::MAX);
        now.saturating_add(rate.transmit_time(deficit))
    }

    /// A packet of `bytes` left at `now`.
    pub fn on_packet_sent(&mut self, now: Time, bytes: u64, rate: Option<Rate>) {
        let credit = match rate {
            Some(r) => self.credit_at(now, r),
            // Unpaced: nothing to spend from; start the next paced stretch
            // with a quantum.
            None => self.quantum().max(self.credit),
        };
        self.credit = credit.saturating_sub(to_i64(bytes));
        if rate.is_none() || self.last.is_none() {
            // Unpaced, or the very first packet (which may always leave):
            // no debt.
            self.credit = self.credit.max(0);
        }
        self.last = Some(self.last.map_or(now, |l| l.max(now)));
    }
}

impl Pacing for Pacer {
    fn next_send_time(&mut self, now: Time, input: &PacingInput, bytes: u64) -> Time {
        self.burst = input.burst;
        Pacer::next_send_time(self, now, input.rate, bytes)
    }
    fn on_packet_sent(&mut self, now: Time, bytes: u64, input: &PacingInput) {
        self.burst = input.burst;
        Pacer::on_packet_sent(self, now, bytes, input.rate)
    }
}

/// quinn 0.11.19's burst interval: the bucket holds 2 ms of window.
const QUINN_BURST_INTERVAL_NANOS: u128 = 2_000_000;
/// quinn 0.11.19's minimum bucket, packets.
const QUINN_MIN_BURST_PACKETS: u64 = 10;
/// quinn 0.11.19's maximum bucket, packets.
const QUINN_MAX_BURST_PACKETS: u64 = 256;

/// A model of quinn-proto 0.11.19's token-bucket pacer, arithmetic for
/// arithmetic (including its `f64` refill, its truncating casts and its
/// lazy refill, which happens only when a call finds the bucket short).
///
/// The [`Pacing`] implementation feeds it `window`, `smoothed_rtt` and
/// `max_datagram_size` from [`PacingInput`] and ignores `rate`, as quinn
/// does. A zero-length wait (only when the deficit is a few bytes against a
/// window of hundreds of kilobytes per millisecond of RTT) is reported as
/// "send now", so a virtual-time caller cannot livelock.
/// quinn calls `on_transmit` for every packet with a non-empty size,
/// ACK-only ones included, and consults the pacer only for ack-eliciting
/// packets when no loss probe is pending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuinnPacer {
    capacity: u64,
    last_window: u64,
    tokens: u64,
    prev: Time,
}

/// quinn's `optimal_capacity`: `clamp(window · 2 ms / srtt, 10·mtu, 256·mtu)`.
pub fn quinn_optimal_capacity(smoothed_rtt: Duration, window: u64, mtu: u16) -> u64 {
    let rtt = smoothed_rtt.as_nanos().max(1);
    // quinn truncates the u128 quotient to u64.
    let capacity = ((u128::from(window) * QUINN_BURST_INTERVAL_NANOS) / rtt) as u64;
    capacity.clamp(
        QUINN_MIN_BURST_PACKETS * u64::from(mtu),
        QUINN_MAX_BURST_PACKETS * u64::from(mtu),
    )
}

impl QuinnPacer {
    /// quinn's `Pacer::new`: a full bucket sized for `window` and
    /// `smoothed_rtt` (quinn makes it with the initial RTT and window).
    pub fn new(smoothed_rtt: Duration, window: u64, mtu: u16, now: Time) -> Self {
        let capacity = quinn_optimal_capacity(smoothed_rtt, window, mtu);
        QuinnPacer {
            capacity,
            last_window: window,
            tokens: capacity,
            prev: now,
        }
    }

    /// Bucket capacity, bytes.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Tokens in the bucket as of the last refill, bytes.
    pub fn tokens(&self) -> u64 {
        self.tokens
    }

    /// quinn's `on_transmit`.
    pub fn on_transmit(&mut self, packet_length: u16) {
        self.tokens = self.tokens.saturating_sub(packet_length.into());
    }

    /// quinn's `delay`: `None` to send at once, else when to ask again.
    /// (quinn debug-asserts a non-zero window; here a zero window is
    /// unpaced.)
    pub fn delay(
        &mut self,
        smoothed_rtt: Duration,
        bytes_to_send: u64,
        mtu: u16,
        window: u64,
        now: Time,
    ) -> Option<Time> {
        if window != self.last_window {
            self.capacity = quinn_optimal_capacity(smoothed_rtt, window, mtu);
            self.tokens = self.capacity.min(self.tokens);
            self.last_window = window;
        }
        if self.tokens >= bytes_to_send {
            return None;
        }
        if window > u64::from(u32::MAX) || window == 0 {
            return None;
        }
        let window = window as u32;
        let elapsed = now.saturating_since(self.prev);
        if smoothed_rtt.as_nanos() == 0 {
            return None;
        }
        let elapsed_rtts = elapsed.as_secs_f64() / smoothed_rtt.as_secs_f64();
        let new_tokens = f64::from(window) * 1.25 * elapsed_rtts;
        // `f64 as u64` saturates, as in quinn.
        self.tokens = self
            .tokens
            .saturating_add(new_tokens as u64)
            .min(self.capacity);
        self.prev = now;
        if self.tokens >= bytes_to_send {
            return None;
        }
        // quinn casts the byte deficit to u32 for Duration::checked_mul.
        let deficit = (bytes_to_send.max(self.capacity) - self.tokens) as u32;
        let unscaled = smoothed_rtt
            .checked_mul(deficit)
            .unwrap_or(Duration::new(u64::MAX, 999_999_999))
            / window;
        Some(self.prev.saturating_add((unscaled / 5) * 4))
    }
}

fn mtu_u16(max_datagram_size: u64) -> u16 {
    u16::try_from(max_datagram_size).unwrap_or(u16::MAX)
}

impl Pacing for QuinnPacer {
    fn next_send_time(&mut self, now: Time, input: &PacingInput, bytes: u64) -> Time {
        let mtu = mtu_u16(input.max_datagram_size);
        match self.delay(input.smoothed_rtt, bytes, mtu, input.window, now) {
            Some(t) if t > now => t,
            // A zero-length wait: in real time quinn would poll again a few
            // microseconds later and refill; in virtual time a 1 ns retry
            // refills nothing (the refill truncates), so send now.
            None | Some(_) => now,
        }
    }
    fn on_packet_sent(&mut self, _now: Time, bytes: u64, _input: &PacingInput) {
        self.on_transmit(mtu_u16(bytes));
    }
}

/// Which pacer a sender uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacerKind {
    /// No pacing: every packet may leave at once.
    Off,
    /// ramp's leaky bucket at the controller's rate.
    LeakyBucket(PacerConfig),
    /// The quinn 0.11.19 model.
    Quinn,
}

impl Default for PacerKind {
    fn default() -> Self {
        PacerKind::LeakyBucket(PacerConfig::default())
    }
}

impl PacerKind {
    /// A fresh pacer for a connection starting at `now` (quinn's is sized
    /// from `input`'s window and RTT, as quinn sizes it from the initial
    /// ones).
    pub fn build(&self, now: Time, input: &PacingInput) -> AnyPacer {
        match *self {
            PacerKind::Off => AnyPacer::Off,
            PacerKind::LeakyBucket(c) => AnyPacer::LeakyBucket(Pacer::new(c)),
            PacerKind::Quinn => AnyPacer::Quinn(QuinnPacer::new(
                input.smoothed_rtt,
                input.window,
                mtu_u16(input.max_datagram_size),
                now,
            )),
        }
    }

    /// A stable name for records and traces: `off`, `leaky-bucket`, `quinn`.
    pub fn as_str(&self) -> &'static str {
        match self {
            PacerKind::Off => "off",
            PacerKind::LeakyBucket(_) => "leaky-bucket",
            PacerKind::Quinn => "quinn",
        }
    }
}

/// One of the pacers, chosen at run time without a `Box`.
#[derive(Clone, Debug)]
pub enum AnyPacer {
    /// No pacing.
    Off,
    /// ramp's leaky bucket.
    LeakyBucket(Pacer),
    /// The quinn 0.11.19 model.
    Quinn(QuinnPacer),
}

impl Pacing for AnyPacer {
    fn next_send_time(&mut self, now: Time, input: &PacingInput, bytes: u64) -> Time {
        match self {
            AnyPacer::Off => now,
            AnyPacer::LeakyBucket(p) => Pacing::next_send_time(p, now, input, bytes),
            AnyPacer::Quinn(p) => Pacing::next_send_time(p, now, input, bytes),
        }
    }
    fn on_packet_sent(&mut self, now: Time, bytes: u64, input: &PacingInput) {
        match self {
            AnyPacer::Off => {}
            AnyPacer::LeakyBucket(p) => Pacing::on_packet_sent(p, now, bytes, input),
            AnyPacer::Quinn(p) => Pacing::on_packet_sent(p, now, bytes, input),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn leaky_bucket_initial_burst_then_paced() {
        let mut p = Pacer::new(PacerConfig::default());
        // 1200 B at 1.2 MB/s: one packet per millisecond.
        let rate = Some(Rate::from_bytes_per_sec(1_200_000));
        let t0 = Time::from_millis(100);
        for _ in 0..10 {
            assert_eq!(p.next_send_time(t0, rate, 1200), t0);
            p.on_packet_sent(t0, 1200, rate);
        }
        assert_eq!(p.next_send_time(t0, rate, 1200), t0 + ms(1));
        let t1 = t0 + ms(1);
        p.on_packet_sent(t1, 1200, rate);
        assert_eq!(p.next_send_time(t1, rate, 1200), t1 + ms(1));
    }

    #[test]
    fn leaky_bucket_idle_credit_capped_at_quantum() {
        let mut p = Pacer::new(PacerConfig {
            initial_burst_packets: 0,
            ..PacerConfig::default()
        });
        let rate = Some(Rate::from_bytes_per_sec(1_200_000));
        p.on_packet_sent(Time::ZERO, 1200, rate);
        // A second idle: only the 2-packet quantum builds up.
        let t = Time::from_millis(1000);
        assert_eq!(p.credit(t, rate), 2400);
        for _ in 0..2 {
            assert_eq!(p.next_send_time(t, rate, 1200), t);
            p.on_packet_sent(t, 1200, rate);
        }
        assert!(p.next_send_time(t, rate, 1200) > t);
    }

    #[test]
    fn leaky_bucket_without_initial_burst_spaces_from_the_first_packet() {
        let mut p = Pacer::new(PacerConfig {
            initial_burst_packets: 0,
            ..PacerConfig::default()
        });
        let rate = Some(Rate::from_bytes_per_sec(1_200_000));
        let t = Time::from_millis(3);
        assert_eq!(p.next_send_time(t, rate, 1200), t);
        p.on_packet_sent(t, 1200, rate);
        assert_eq!(p.next_send_time(t, rate, 1200), t + ms(1));
        let t1 = t + ms(1);
        assert_eq!(p.next_send_time(t1, rate, 1200), t1);
    }

    #[test]
    fn leaky_bucket_unpaced_and_zero_rate() {
        let p = Pacer::new(PacerConfig::default());
        let t = Time::from_millis(5);
        assert_eq!(p.next_send_time(t, None, 1_000_000), t);
        assert_eq!(
            p.next_send_time(t, Some(Rate::ZERO), 1200),
            Time::MAX,
            "not even the initial burst at a zero rate"
        );
        let mut p = Pacer::new(PacerConfig {
            initial_burst_packets: 0,
            ..PacerConfig::default()
        });
        p.on_packet_sent(t, 1200, Some(Rate::ZERO));
        assert_eq!(p.next_send_time(t, Some(Rate::ZERO), 1200), Time::MAX);
    }

    #[test]
    fn quinn_first_flight_is_two_bursts_of_ten() {
        // quinn-proto 0.11 (connection/pacing.rs): IW 12,000 B, jump window 24,000 B, srtt 50 ms:
        // 10 packets at once, then a 20 ms wait.
        let t0 = Time::from_millis(10);
        let mut q = QuinnPacer::new(ms(50), 24_000, 1200, t0);
        assert_eq!(q.capacity(), 12_000);
        for _ in 0..10 {
            assert_eq!(q.delay(ms(50), 1200, 1200, 24_000, t0), None);
            q.on_transmit(1200);
        }
        assert_eq!(q.delay(ms(50), 1200, 1200, 24_000, t0), Some(t0 + ms(20)));
        // At that time quinn's f64 refill gives 30000 · (0.02 / 0.05) =
        // 11999.999… → 11,999 tokens (truncated): only 9 packets go, and the
        // 10th waits (12000 − 1199) · 50 ms / 24000 · 4/5 = 18.0016 ms more.
        let t1 = t0 + ms(20);
        for _ in 0..9 {
            assert_eq!(q.delay(ms(50), 1200, 1200, 24_000, t1), None);
            q.on_transmit(1200);
        }
        assert_eq!(q.tokens(), 1199);
        assert_eq!(
            q.delay(ms(50), 1200, 1200, 24_000, t1),
            Some(t1 + Duration::from_nanos(18_001_664))
        );
    }

    #[test]
    fn quinn_capacity_clamps_and_follows_window() {
        assert_eq!(quinn_optimal_capacity(ms(50), 2_000_000, 1500), 80_000);
        assert_eq!(
            quinn_optimal_capacity(Duration::ZERO, 2_000_000, 1500),
            384_000
        );
        assert_eq!(quinn_optimal_capacity(ms(50), 1, 1500), 15_000);
        let t = Time::ZERO;
        let mut q = QuinnPacer::new(ms(50), 2_000_000, 1500, t);
        q.delay(ms(50), 1500, 1500, 1_000_000, t);
        assert_eq!((q.capacity(), q.tokens()), (40_000, 40_000));
    }

    #[test]
    fn quinn_half_refill_after_half_the_pause() {
        // quinn's own `computes_pause_correctly` scenario, as a fact check.
        let (w, mtu, rtt) = (2_000_000u64, 1000u16, ms(50));
        let t0 = Time::from_millis(1);
        let mut q = QuinnPacer::new(rtt, w, mtu, t0);
        for _ in 0..q.capacity() / 1000 {
            assert_eq!(q.delay(rtt, 1000, mtu, w, t0), None);
            q.on_transmit(mtu);
        }
        let pause = Duration::from_micros(1600);
        assert_eq!(q.delay(rtt, 1000, mtu, w, t0), Some(t0 + pause));
        assert_eq!(q.delay(rtt, 1000, mtu, w, t0 + pause / 2), None);
        assert_eq!(q.tokens(), q.capacity() / 2);
    }

    #[test]
    fn any_pacer_dispatches() {
        let input = PacingInput {
            rate: Some(Rate::from_bytes_per_sec(1_200_000)),
            window: 24_000,
            smoothed_rtt: ms(50),
            max_datagram_size: 1200,
            burst: None,
        };
        let t = Time::ZERO;
        let mut off = PacerKind::Off.build(t, &input);
        let mut quinn = PacerKind::Quinn.build(t, &input);
        let mut leaky = PacerKind::default().build(t, &input);
        for _ in 0..10 {
            for p in [&mut off, &mut quinn, &mut leaky] {
                assert_eq!(p.next_send_time(t, &input, 1200), t);
                p.on_packet_sent(t, 1200, &input);
            }
        }
        assert_eq!(off.next_send_time(t, &input, 1200), t);
        assert_eq!(quinn.next_send_time(t, &input, 1200), t + ms(20));
        assert_eq!(leaky.next_send_time(t, &input, 1200), t + ms(1));
    }
}
