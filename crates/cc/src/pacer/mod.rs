//! Pacing: when the next packet may leave.
//!
//! Three models behind one trait ([`Pacing`]) and one enum ([`AnyPacer`],
//! made from a [`PacerKind`]), so the simulator picks one by configuration:
//!
//! - [`Pacer`], ramp's leaky bucket (RFC 9002 §7.7): it sends at the rate
//!   the controller asks for ([`Controller::pacing_rate`](crate::Controller::pacing_rate)),
//!   lets an initial burst out at once (10 packets, the Google QUIC
//!   default), and lets credit build up to a small quantum only (2 packets,
//!   Chromium's lumpy-pacing size) while idle.
//! - [`QuinnPacer`] (`quinn.rs`), a model of the pacer in quinn-proto
//!   0.11.19, which ignores the controller's rate.
//! - [`QuiclyPacer`] (`quicly.rs`), a model of h2o/quicly's pacer
//!   (`include/quicly/pacer.h`), the one the Rapid Start production
//!   experiment ran: 8–10 packets of burst on a millisecond clock, grants
//!   of at least 2 packets.
//!
//! All are sans-IO: time comes in as [`Time`], so they run in virtual time
//! (the simulator polls `next_send_time` and schedules a wake-up) and in
//! real time (a socket loop arms a timer) alike.

use core::fmt;
use core::time::Duration;

use ramp_vocab::time::{Rate, Time};

mod quicly;
mod quinn;

pub use quicly::{
    bytes_per_msec, quicly_pacer_calc_send_rate, QuiclyPacer, QUICLY_PACER_BURST_HIGH,
    QUICLY_PACER_BURST_LOW, QUICLY_PACER_MIN_GRANT_PACKETS,
};
pub use quinn::{quinn_optimal_capacity, QuinnPacer};

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
    /// The idle credit cap, bytes: the configuration's quantum, computed
    /// once (every call needs it).
    quantum: i64,
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
        let quantum = to_i64(
            config
                .burst_quantum_packets
                .max(1)
                .saturating_mul(config.max_datagram_size.max(1)),
        );
        Pacer {
            config,
            quantum,
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
        self.quantum
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
        // A leftover initial burst above the quantum does not grow.
        self.credit_within(now, rate, self.cap(rate).max(self.credit))
    }

    /// [`Pacer::credit_at`] with its cap, `self.cap(rate).max(self.credit)`,
    /// already computed.
    fn credit_within(&self, now: Time, rate: Rate, cap: i64) -> i64 {
        let Some(last) = self.last else {
            return self.credit;
        };
        let elapsed = now.as_nanos().saturating_sub(last.as_nanos());
        let accrued = to_i64(rate.bytes_in_nanos(elapsed));
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
        let cap = self.cap(rate).max(self.credit);
        let credit = self.credit_within(now, rate, cap);
        // A packet larger than the quantum waits for a full quantum only.
        let needed = to_i64(bytes).min(cap);
        if credit >= needed {
            return now;
        }
        let deficit = u64::try_from(needed.saturating_sub(credit)).unwrap_or(u64::MAX);
        Time::from_nanos(now.as_nanos().saturating_add(rate.transmit_nanos(deficit)))
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

fn mtu_u16(max_datagram_size: u64) -> u16 {
    u16::try_from(max_datagram_size).unwrap_or(u16::MAX)
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
    /// The quicly (45bf8a37) model.
    Quicly,
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
            PacerKind::Quicly => AnyPacer::Quicly(QuiclyPacer::new()),
        }
    }

    /// A stable name for records and traces: `off`, `leaky-bucket`,
    /// `quinn`, `quicly`.
    pub fn as_str(&self) -> &'static str {
        match self {
            PacerKind::Off => "off",
            PacerKind::LeakyBucket(_) => "leaky-bucket",
            PacerKind::Quinn => "quinn",
            PacerKind::Quicly => "quicly",
        }
    }
}

/// A pacer named by a controller spec (`pacer=leaky|quinn|quicly`), so an
/// arm can carry the pacer its implementation ran (the Rapid Start seed
/// arms carry quicly's); unset, the endpoint's pacer applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PacerModel {
    /// ramp's leaky bucket.
    LeakyBucket,
    /// The quinn 0.11.19 model.
    Quinn,
    /// The quicly (45bf8a37) model.
    Quicly,
}

impl PacerModel {
    /// The spellings of `pacer=`.
    pub const CHOICES: [(&'static str, PacerModel); 3] = [
        ("leaky", PacerModel::LeakyBucket),
        ("quinn", PacerModel::Quinn),
        ("quicly", PacerModel::Quicly),
    ];

    /// The spelling in a spec.
    pub fn as_str(self) -> &'static str {
        match self {
            PacerModel::LeakyBucket => "leaky",
            PacerModel::Quinn => "quinn",
            PacerModel::Quicly => "quicly",
        }
    }

    /// The pacer this names at an endpoint whose own pacer is `endpoint`:
    /// a leaky bucket keeps the endpoint's leaky-bucket parameters when it
    /// has them, else takes a first flight paced from its first packet
    /// ([`PACED_FIRST_FLIGHT_BURST_PACKETS`]) and packets of
    /// `max_datagram_size` bytes.
    pub fn kind(self, endpoint: PacerKind, max_datagram_size: u64) -> PacerKind {
        match (self, endpoint) {
            (PacerModel::LeakyBucket, PacerKind::LeakyBucket(c)) => PacerKind::LeakyBucket(c),
            (PacerModel::LeakyBucket, _) => PacerKind::LeakyBucket(PacerConfig {
                initial_burst_packets: PACED_FIRST_FLIGHT_BURST_PACKETS,
                burst_quantum_packets: BURST_QUANTUM_PACKETS,
                max_datagram_size,
            }),
            (PacerModel::Quinn, _) => PacerKind::Quinn,
            (PacerModel::Quicly, _) => PacerKind::Quicly,
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
    /// The quicly model.
    Quicly(QuiclyPacer),
}

impl Pacing for AnyPacer {
    fn next_send_time(&mut self, now: Time, input: &PacingInput, bytes: u64) -> Time {
        match self {
            AnyPacer::Off => now,
            AnyPacer::LeakyBucket(p) => Pacing::next_send_time(p, now, input, bytes),
            AnyPacer::Quinn(p) => Pacing::next_send_time(p, now, input, bytes),
            AnyPacer::Quicly(p) => Pacing::next_send_time(p, now, input, bytes),
        }
    }
    fn on_packet_sent(&mut self, now: Time, bytes: u64, input: &PacingInput) {
        match self {
            AnyPacer::Off => {}
            AnyPacer::LeakyBucket(p) => Pacing::on_packet_sent(p, now, bytes, input),
            AnyPacer::Quinn(p) => Pacing::on_packet_sent(p, now, bytes, input),
            AnyPacer::Quicly(p) => Pacing::on_packet_sent(p, now, bytes, input),
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
        let mut quicly = PacerKind::Quicly.build(t, &input);
        for _ in 0..10 {
            for p in [&mut off, &mut quinn, &mut leaky, &mut quicly] {
                assert_eq!(p.next_send_time(t, &input, 1200), t);
                p.on_packet_sent(t, 1200, &input);
            }
        }
        assert_eq!(off.next_send_time(t, &input, 1200), t);
        assert_eq!(quinn.next_send_time(t, &input, 1200), t + ms(20));
        assert_eq!(leaky.next_send_time(t, &input, 1200), t + ms(1));
        // quicly at 1200 B/ms: (12000 − (9601 − 1200)) / 1200 = 2.99 ms,
        // rounded down.
        assert_eq!(quicly.next_send_time(t, &input, 1200), t + ms(2));
    }

    #[test]
    fn pacer_model_names_round_trip_and_keep_endpoint_settings() {
        for (name, m) in PacerModel::CHOICES {
            assert_eq!(m.as_str(), name);
        }
        let burst10 = PacerKind::LeakyBucket(PacerConfig::default());
        assert_eq!(PacerModel::LeakyBucket.kind(burst10, 1252), burst10);
        assert_eq!(PacerModel::Quicly.kind(burst10, 1252), PacerKind::Quicly);
        assert_eq!(
            PacerModel::LeakyBucket.kind(PacerKind::Quicly, 1252),
            PacerKind::LeakyBucket(PacerConfig {
                initial_burst_packets: PACED_FIRST_FLIGHT_BURST_PACKETS,
                burst_quantum_packets: BURST_QUANTUM_PACKETS,
                max_datagram_size: 1252,
            })
        );
    }
}
