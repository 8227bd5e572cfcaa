//! Conformance tests of DualPI2 and the Mahimahi trace link against their
//! references: RFC 9332 (Appendix A pseudocode), Linux `sch_dualpi2.c`
//! (the commit docs/l4s.md cites) and mahimahi's `link_queue.cc`
//! (ravinet/mahimahi ae477d4). Each drives the public `Bottleneck`.

use std::sync::Arc;
use std::time::Duration;

use ramp_link::{Admission, Aqm, Bottleneck, DeliveryTrace, Dequeue, DualPi2Params, Packet};
use ramp_vocab::rng::Rng;
use ramp_vocab::{EcnCodepoint, Rate, Time};

/// Offers one flow of 1000-byte `ecn` packets at twice the 10 Mbit/s
/// link rate for `secs` into DualPI2 with a buffer that never tail-drops;
/// among the packets that leave while the PI part is overloaded
/// (k·p′ ≥ 1), counts those CE-marked and those dropped. Returns
/// (leaving in overload, marked, dropped, p′ at the end).
fn overloaded(ecn: EcnCodepoint, secs: u64) -> (u64, u64, u64, f64) {
    let rate = Rate::from_bits_per_sec(10_000_000);
    let mut b: Bottleneck<u64> = Bottleneck::new(
        rate,
        1 << 30,
        Aqm::DualPi2(DualPi2Params::LINUX),
        Rng::new(7, 3),
    );
    let gap = Duration::from_micros(400); // 1000 B every 0.4 ms = 20 Mbit/s
    let (mut n, mut marked, mut dropped) = (0u64, 0u64, 0u64);
    let end = Time::from_millis(secs * 1000);
    let (mut now, mut i) = (Time::ZERO, 0u64);
    while now < end {
        let p = Packet {
            payload: i,
            size: 1000,
            ecn,
            flow: 0,
        };
        i += 1;
        assert!(matches!(b.offer(now, p), Admission::Held { .. }));
        let over = b.dualpi2_base_probability().unwrap_or(0.0) * 2.0 >= 1.0;
        b.poll(now, |d| {
            if !over {
                return;
            }
            n += 1;
            match d {
                Dequeue::Departs(dep) => marked += u64::from(dep.ce),
                Dequeue::Dropped { .. } => dropped += 1,
            }
        });
        now = now.saturating_add(gap);
    }
    let p = b.dualpi2_base_probability().unwrap_or(0.0);
    (n, marked, dropped, p)
}

/// RFC 9332 Appendix A.2, the Classic branch of the dequeue pseudocode:
/// "if ( (ecn(pkt) == 0) OR (p_C >= p_Cmax) ) { % Overload disables ECN
/// drop(pkt)", p_Cmax = min(1/k², 1); Linux `dualpi2_classic_marking`:
/// "If the qdisc is overloaded, ignore ECT values and only drop". An
/// ECT(0) flow at twice the link rate is dropped, not marked, once the
/// PI part is overloaded, so p′ does not stay pinned at 1.
#[test]
fn rfc9332_a2_overload_disables_ecn_for_classic() {
    let (n, marked, dropped, p) = overloaded(EcnCodepoint::Ect0, 4);
    assert!(n > 1000, "the flow overloads the queue ({n} packets)");
    assert_eq!(marked, 0, "no classic packet is marked on overload");
    assert!(dropped > n / 3, "{dropped} of {n} dropped");
    assert!(p < 1.0, "p' {p}");
    // Not-ECT behaves the same, and the L queue still marks (Linux
    // `dualpi2_scalable_marking`: drop with p_C, mark the rest).
    let (n0, m0, d0, _) = overloaded(EcnCodepoint::NotEct, 4);
    assert_eq!(m0, 0);
    assert!(d0 > n0 / 3);
    let (_, m1, d1, _) = overloaded(EcnCodepoint::Ect1, 4);
    assert!(m1 > 0 && d1 > 0, "L: {m1} marked, {d1} dropped");
}

fn departure(tr: &Arc<DeliveryTrace>, arrive: Time) -> Time {
    let mut b: Bottleneck<()> =
        Bottleneck::with_trace(Arc::clone(tr), 1 << 20, Aqm::DropTail, Rng::new(1, 1));
    let p = Packet {
        payload: (),
        size: 1200,
        ecn: EcnCodepoint::NotEct,
        flow: 0,
    };
    match b.offer(arrive, p) {
        Admission::Departs(d) => d.at,
        other => panic!("{other:?}"),
    }
}

/// mahimahi `LinkQueue::read_packet` calls `rationalize(now)` before it
/// enqueues, and `rationalize` uses up every opportunity with
/// `next_delivery_time() <= now`: a packet that arrives during
/// millisecond t never takes an opportunity at t, even arriving at
/// exactly t.000 (which `pacer=quicly`'s whole-millisecond releases do).
#[test]
fn mahimahi_read_packet_rationalizes_before_enqueue() {
    let tr = Arc::new(DeliveryTrace::parse("1\n2\n3\n4\n", "t.trace").unwrap());
    for (arrive_us, mm_ms) in [(500, 1), (1000, 2), (1001, 2), (2999, 3), (3000, 4)] {
        let dep = departure(&tr, Time::from_micros(arrive_us));
        assert_eq!(dep, Time::from_millis(mm_ms), "arrival {arrive_us} µs");
    }
}

/// The same rule for a packet queued behind another: the bytes an
/// opportunity at t leaves unused are not shared with a packet arriving
/// at t (mahimahi used that opportunity up before the packet arrived).
#[test]
fn mahimahi_leftover_bytes_at_t_are_not_shared_with_an_arrival_at_t() {
    let tr = Arc::new(DeliveryTrace::parse("1\n2\n3\n4\n", "t.trace").unwrap());
    let mut b: Bottleneck<u32> =
        Bottleneck::with_trace(Arc::clone(&tr), 1 << 20, Aqm::DropTail, Rng::new(1, 1));
    let pkt = |id| Packet {
        payload: id,
        size: 500,
        ecn: EcnCodepoint::NotEct,
        flow: 0,
    };
    let at = |a: Admission<u32>| match a {
        Admission::Departs(d) => d.at,
        other => panic!("{other:?}"),
    };
    // 500 B at 0.5 ms leaves at 1 ms with 1000 B of it unused.
    assert_eq!(
        at(b.offer(Time::from_micros(500), pkt(0))),
        Time::from_millis(1)
    );
    // A packet at exactly 1 ms: that opportunity is gone.
    assert_eq!(
        at(b.offer(Time::from_millis(1), pkt(1))),
        Time::from_millis(2)
    );
}
