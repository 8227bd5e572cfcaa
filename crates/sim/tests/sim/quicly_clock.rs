//! quicly's millisecond clock in the simulator: where the connection
//! starts within a millisecond (`[endpoint] clock_phase`) and the options
//! that read quicly's clock (`pacing_rtt=ms`, Rapid Start's `clock=ms`,
//! `pacer=quicly`) decide, at the overflow edge of 100 Mbit/s, 30 ms, 1 MB
//! with Rapid Start, whether the response's last flight fits the queue
//! (docs/interop.md, "quicly's millisecond clock").

use crate::common::*;
use ramp_sim::Scenario;

/// 100 Mbit/s, 30 ms, a 30 ms queue, 1 MB, as the interop benchmark's
/// quicly side frames it (1,280-byte packets carrying 1,256 B, the shell's
/// 28 B of headers), with the client's handshake processing measured for
/// quicly's `cli` (0.30–0.41 ms) and the flow started `phase` into its
/// sender's millisecond.
fn edge(phase: &str) -> Scenario {
    Scenario::from_toml(
        &format!(
            "size = \"1MB\"\n[path]\nrate = \"100mbit\"\nrtt = \"30ms\"\nqueue = \"30ms\"\n\
             header_bytes = 28\n[endpoint]\nmds = 1280\npacket_overhead = 24\n\
             client_closes = true\nclient_processing = \"0.35ms\"\nclock_phase = \"{phase}\"\n"
        ),
        "edge",
    )
    .unwrap()
}

/// The seed experiment's `rapidstart` arm, with quicly's whole-millisecond
/// pacing RTT and its jump after the `cli`'s first 10-packet call.
const QUICLY_RAPIDSTART: &str = "newreno(iw=30x1472,ca_gain=2,pacer=quicly,cc_limited=quicly,\
    send_rule=quicly,beta=0.7,ss_beta=0.5,growth=pico,pacing_rtt=ms,jump_after=10)+\
    rapidstart(jump_floor=on,thresh_mult=1.09375,rtt_floor=slots,k=11/18,thresh=max,clock=ms,\
    off_below_ms=4,recovery=quicly,recon=quicly)";

fn drops(r: &ramp_sim::Record) -> u64 {
    r.drops_queue + r.drops_aqm + r.drops_random + r.drops_policer
}

#[test]
fn quicly_clock_phase_decides_whether_the_last_flight_overflows() {
    // Sent 0.6 ms into the millisecond, the handshake's 30.45 ms reads 31
    // on quicly's clock: the pacer runs 3 % slower and nothing drops.
    let fast = run(&edge("0.6ms"), QUICLY_RAPIDSTART, 1);
    assert_eq!(drops(&fast), 0, "{}", fast.ttlb_us);
    // At 0.2 ms it reads 30: the last flight overflows the queue.
    let slow = run(&edge("0.2ms"), QUICLY_RAPIDSTART, 1);
    assert!(drops(&slow) > 0, "{}", slow.ttlb_us);
    assert!(
        slow.ttlb_us > fast.ttlb_us + 30_000,
        "{} {}",
        slow.ttlb_us,
        fast.ttlb_us
    );
    // Without quicly's pacing RTT and jump point the seed arm overflows at
    // every phase: the phase alone does not split the runs.
    let seed_arm = QUICLY_RAPIDSTART.replace(",pacing_rtt=ms,jump_after=10", "");
    for phase in ["0ms", "0.2ms", "0.6ms", "0.9ms"] {
        assert!(drops(&run(&edge(phase), &seed_arm, 1)) > 0, "{phase}");
    }
}

#[test]
fn a_sender_without_a_millisecond_clock_runs_the_same_at_any_phase() {
    let at = |phase: &str| {
        let r = run(&edge(phase), "newreno+rapidstart", 1);
        (r.ttlb_us, drops(&r), r.packets_sent)
    };
    assert_eq!(at("0ms"), at("0.37ms"));
    assert_eq!(at("0ms"), at("0.91ms"));
}

#[test]
fn a_seeded_phase_is_the_runs_own_and_the_default_is_time_zero() {
    let seeded = |seed| run(&edge("seeded"), QUICLY_RAPIDSTART, seed).ttlb_us;
    assert_eq!(seeded(3), seeded(3));
    let sc = Scenario::from_toml("preset = \"seed-100m\"\n", "d").unwrap();
    assert_eq!(
        sc.endpoint.clock_phase,
        ramp_sim::clock_phase::ClockPhase::Zero
    );
    // Over 20 seeds the draws land on both sides of the edge.
    let modes: Vec<bool> = (1..=20)
        .map(|s| drops(&run(&edge("seeded"), QUICLY_RAPIDSTART, s)) == 0)
        .collect();
    assert!(modes.contains(&true) && modes.contains(&false), "{modes:?}");
}
