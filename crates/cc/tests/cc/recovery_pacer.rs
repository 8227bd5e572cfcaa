//! Pacer properties (RFC 9002 §7.7): an obedient sender never outruns the
//! rate beyond the initial burst and one quantum, idle time buys at most a
//! quantum; the quinn model's bursts, and the first flight it makes of a
//! jump-start window.

use std::time::Duration;

use proptest::prelude::*;
use ramp_cc::pacer::quinn_optimal_capacity;
use ramp_cc::{Pacer, PacerConfig, PacerKind, Pacing, PacingInput, QuinnPacer, Rate, Time};

proptest! {
    #[test]
    fn rfc9002_7_7_leaky_bucket_bounds_bytes_by_rate(
        rate_bps in 100_000u64..10_000_000_000,
        sizes in prop::collection::vec(50u64..1500, 1..400),
        idles in prop::collection::vec(0u64..50_000_000, 1..400),
        burst in 0u64..40,
        quantum in 1u64..10,
    ) {
        let config = PacerConfig {
            initial_burst_packets: burst,
            burst_quantum_packets: quantum,
            max_datagram_size: 1200,
        };
        let rate = Rate::from_bits_per_sec(rate_bps);
        prop_assume!(rate.bytes_per_sec() > 0);
        let mut p = Pacer::new(config);
        let t0 = Time::from_millis(1);
        let mut now = t0;
        let mut sent = 0u64;
        for (i, &size) in sizes.iter().enumerate() {
            // Sometimes the sender has nothing to send for a while.
            let idle = idles[i % idles.len()];
            if i % 3 == 0 {
                now += Duration::from_nanos(idle);
            }
            // Ask, sleep until the answer, ask again: the answer must then
            // be "now" (no livelock).
            let at = p.next_send_time(now, Some(rate), size);
            prop_assert!(at >= now);
            now = at;
            prop_assert_eq!(p.next_send_time(now, Some(rate), size), now);
            p.on_packet_sent(now, size, Some(rate));
            sent += size;
            // Everything sent up to now fits in the initial burst, one
            // quantum, the rate times the time elapsed, and one packet.
            let budget = burst * 1200 + quantum * 1200 + 1500
                + rate.bytes_in(now.saturating_since(t0)) + 1;
            prop_assert!(sent <= budget, "sent {} > budget {}", sent, budget);
        }
    }

    #[test]
    fn rfc9002_7_7_idle_buys_at_most_one_quantum(
        rate_bps in 1_000_000u64..1_000_000_000,
        idle_ms in 1u64..10_000,
        quantum in 1u64..10,
    ) {
        let rate = Some(Rate::from_bits_per_sec(rate_bps));
        let mut p = Pacer::new(PacerConfig {
            initial_burst_packets: 0,
            burst_quantum_packets: quantum,
            max_datagram_size: 1200,
        });
        p.on_packet_sent(Time::ZERO, 1200, rate);
        let t = Time::from_millis(idle_ms);
        let mut at_once = 0;
        while p.next_send_time(t, rate, 1200) == t && at_once < 1000 {
            p.on_packet_sent(t, 1200, rate);
            at_once += 1;
        }
        prop_assert!(at_once <= quantum);
    }

    #[test]
    fn pacers_let_an_obedient_sender_make_progress(
        windows in prop::collection::vec(2_400u64..5_000_000_000, 1..20),
        srtt_us in 1u64..1_000_000,
        size in 1u64..1500,
        quinn in any::<bool>(),
    ) {
        let srtt = Duration::from_micros(srtt_us);
        let mut input = PacingInput {
            rate: Some(Rate::from_bytes_over(windows[0], srtt).scaled(2, 1)),
            window: windows[0],
            smoothed_rtt: srtt,
            max_datagram_size: 1200,
            burst: None,
        };
        let kind = if quinn { PacerKind::Quinn } else { PacerKind::default() };
        let mut p = kind.build(Time::ZERO, &input);
        let mut now = Time::ZERO;
        let mut asks = 0u32;
        for i in 0..200 {
            let w = windows[i % windows.len()];
            input.window = w;
            input.rate = Some(Rate::from_bytes_over(w, srtt).scaled(2, 1));
            loop {
                asks += 1;
                prop_assert!(asks < 2_000, "livelock at packet {i}");
                let at = p.next_send_time(now, &input, size);
                prop_assert!(at >= now);
                if at == now {
                    break;
                }
                now = at;
            }
            p.on_packet_sent(now, size, &input);
        }
    }

    #[test]
    fn quinn_model_bursts_at_most_two_buckets_after_idle(
        window in 2_400u64..50_000_000,
        srtt_us in 100u64..2_000_000,
        idle_ms in 0u64..1000,
    ) {
        let srtt = Duration::from_micros(srtt_us);
        let t0 = Time::from_millis(1);
        let mut q = QuinnPacer::new(srtt, window, 1200, t0);
        let cap = quinn_optimal_capacity(srtt, window, 1200);
        prop_assert_eq!(q.capacity(), cap);
        let t = t0 + Duration::from_millis(idle_ms);
        let mut burst = 0u64;
        while q.delay(srtt, 1200, 1200, window, t).is_none() && burst <= 3 * cap {
            q.on_transmit(1200);
            burst += 1200;
        }
        // quinn refills lazily, only when a call finds the bucket short, and
        // then credits the whole time since the previous refill: after an
        // idle period a sender gets the full bucket, then a second one.
        prop_assert!(burst <= 2 * cap, "burst {} > 2 × capacity {}", burst, cap);
        if idle_ms == 0 {
            prop_assert!(burst <= cap);
        }
        // And when it waits, it asks to be woken strictly later.
        let input = PacingInput {
            rate: None,
            window,
            smoothed_rtt: srtt,
            max_datagram_size: 1200,
            burst: None,
        };
        prop_assert!(Pacing::next_send_time(&mut q, t, &input, 1200) > t);
    }
}

/// What a sender does: ask, sleep until the answer, ask again (quinn's
/// pacer refills only when asked), then send.
fn send_when_allowed(p: &mut impl Pacing, mut now: Time, input: &PacingInput) -> Time {
    loop {
        let at = p.next_send_time(now, input, 1200);
        if at == now {
            p.on_packet_sent(now, 1200, input);
            return now;
        }
        now = at;
    }
}

#[test]
fn quinn_model_spreads_a_jump_start_flight_as_two_bursts() {
    // quinn-proto 0.11 (connection/pacing.rs): 2·IW = 24,000 B over srtt 50 ms with the
    // stock pacer: how many of the 20 packets leave when.
    let input = PacingInput {
        rate: Some(Rate::from_bytes_per_sec(24_000 * 20)), // ignored by quinn
        window: 24_000,
        smoothed_rtt: Duration::from_millis(50),
        max_datagram_size: 1200,
        burst: None,
    };
    let t0 = Time::ZERO;
    let mut p = PacerKind::Quinn.build(t0, &input);
    let mut now = t0;
    let mut times = vec![];
    for _ in 0..20 {
        now = send_when_allowed(&mut p, now, &input);
        times.push(now.as_micros());
    }
    assert_eq!(&times[..10], &[0; 10], "a 10-packet burst at once");
    assert_eq!(&times[10..19], &[20_000; 9], "then 9 after 0.4 RTT");
    assert_eq!(times[19], 38_001, "the 20th after another 18 ms");
    // The leaky bucket at the controller's rate (one RTT for the flight)
    // sends the initial burst, then one packet every 2.5 ms.
    let mut p = PacerKind::default().build(t0, &input);
    let mut now = t0;
    let mut times = vec![];
    for _ in 0..20 {
        now = send_when_allowed(&mut p, now, &input);
        times.push(now.as_micros());
    }
    assert_eq!(&times[..10], &[0; 10]);
    assert_eq!(times[10], 2_500);
    assert_eq!(times[19], 25_000);
}

#[test]
fn quinn_model_sends_two_buckets_after_an_idle_period() {
    // A quirk of the lazy refill in quinn 0.11.19: the bucket starts full,
    // and the first shortfall after 100 ms idle credits all 100 ms, so 20
    // packets (two 12,000-byte buckets) leave at once.
    let srtt = Duration::from_millis(50);
    let mut q = QuinnPacer::new(srtt, 24_000, 1200, Time::ZERO);
    let t = Time::from_millis(100);
    let mut at_once = 0;
    while q.delay(srtt, 1200, 1200, 24_000, t).is_none() && at_once < 100 {
        q.on_transmit(1200);
        at_once += 1;
    }
    assert_eq!(at_once, 20);
}

/// Prague's burst limit (udp_prague `BURST_TIME`, 250 µs at the pacing
/// rate, at least one packet) lowers the quantum at low rates only.
#[test]
fn a_controller_burst_limit_caps_the_quantum_at_low_rates() {
    let burst_after_idle = |rate_bps: u64, burst: Option<Duration>| {
        let mut p = Pacer::new(PacerConfig {
            initial_burst_packets: 1,
            burst_quantum_packets: 2,
            max_datagram_size: 1200,
        });
        let input = PacingInput {
            rate: Some(Rate::from_bits_per_sec(rate_bps)),
            window: 1 << 20,
            smoothed_rtt: Duration::from_millis(20),
            max_datagram_size: 1200,
            burst,
        };
        let mut t = Time::ZERO;
        Pacing::on_packet_sent(&mut p, t, 1200, &input);
        // Idle for 100 ms, then count the packets that may leave at once.
        t += Duration::from_millis(100);
        let mut n = 0;
        while Pacing::next_send_time(&mut p, t, &input, 1200) == t {
            Pacing::on_packet_sent(&mut p, t, 1200, &input);
            n += 1;
        }
        n
    };
    let b = Some(Duration::from_micros(250));
    // 10 Mbit/s: 250 µs is 312 bytes, so one packet at a time.
    assert_eq!(burst_after_idle(10_000_000, None), 2);
    assert_eq!(burst_after_idle(10_000_000, b), 1);
    // 100 Mbit/s: 250 µs is 3125 bytes, over the 2-packet quantum.
    assert_eq!(burst_after_idle(100_000_000, b), 2);
}
