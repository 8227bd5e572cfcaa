//! The pacing gate inside the shim, driven as quinn-proto 0.11.19 drives
//! it: `window()` before each congestion-checked datagram (twice for one
//! it builds), one `on_sent` per batch, ACK frames between passes.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use quinn_proto::congestion::{Controller, ControllerFactory as _};
use ramp_cc::pacer::BURST_QUANTUM_PACKETS;
use ramp_cc::Rate;

use super::gate::{CLOSED_WINDOW, OPEN_WINDOW};
use super::tests::Recorder;
use super::{ConnWake, RampController, RampFactory};

/// The datagram size `ramp serve`'s path-MTU discovery reached in the
/// stuck `ramp load` 4xx run (loopback).
const PMTUD_MDS: u16 = 6550;

/// A shim with the gate attached, for datagrams of `mds` bytes, over a
/// controller with a fixed `window` and a pacing rate of 10 Gbit/s. One
/// datagram has been sent and acknowledged, and the connection has idled
/// since (longer than the gate's wake-up slack), so the pacer holds its
/// idle quantum: [`BURST_QUANTUM_PACKETS`] datagrams may leave at once.
fn gated(mds: u16, window: u64) -> (Box<dyn Controller>, Arc<ConnWake>) {
    let wake = ConnWake::new();
    let build = move |_mtu: u16| -> Box<dyn ramp_cc::Controller> {
        Box::new(Recorder {
            calls: Arc::new(Mutex::new(Vec::new())),
            window,
            rate: Rate::from_bits_per_sec(10_000_000_000),
        })
    };
    let factory = Arc::new(RampFactory::new(Arc::new(build)).paced_by_controller(wake.clone()));
    let mut c = factory.build(Instant::now(), mds);
    wake.attach_without_connection();
    let mut pn = 0;
    assert_eq!(send_pass(&mut c, mds, &mut pn), 1, "no initial burst");
    std::thread::sleep(super::gate::WAKE_SLACK * 3);
    c.on_end_acks(Instant::now(), 0, false, Some(pn));
    (c, wake)
}

/// One quinn send pass of up to 10 datagrams of `mds` bytes: a datagram
/// is built when both of quinn's questions about it (its congestion check,
/// then its pacer's window argument, which a closed answer makes quinn's
/// own pacer hold it back) are answered open. Reports the batch; returns
/// how many datagrams it held.
fn send_pass(c: &mut Box<dyn Controller>, mds: u16, pn: &mut u64) -> u64 {
    let mut built = 0;
    while built < 10 && c.window() == OPEN_WINDOW && c.window() == OPEN_WINDOW {
        built += 1;
    }
    if built > 0 {
        *pn += built;
        c.on_sent(Instant::now(), built * u64::from(mds), *pn);
    }
    built
}

#[test]
fn an_ack_only_packet_and_a_stray_question_do_not_shut_a_two_datagram_window() {
    // The `ramp load` 4xx stall: PMTUD at 6550-byte datagrams, a window
    // of two. Everything was acknowledged; then quinn sent an ACK-only
    // packet (34 B: quinn counts it neither in flight nor ever
    // acknowledges it, but reports it with `on_sent`) and something read
    // the window outside a send pass (`Connection::stats`). The next
    // response must leave.
    let mds = u64::from(PMTUD_MDS);
    let (mut c, wake) = gated(PMTUD_MDS, 2 * mds);
    let now = Instant::now();
    let mut pn = 1;
    pn += 1;
    c.on_sent(now, 34, pn);
    let _stray = c.window();
    let first = send_pass(&mut c, PMTUD_MDS, &mut pn);
    let second = send_pass(&mut c, PMTUD_MDS, &mut pn);
    assert!(
        first + second > 0,
        "the gate stays shut with nothing in flight: no ACK or PTO can reopen it"
    );
    assert!(
        first + second <= 2,
        "{first} + {second} datagrams past a window of two"
    );
    wake.detach();
}

#[test]
fn ack_only_packets_do_not_pile_up_in_the_gates_bytes_in_flight() {
    // A client uploading: the server answers with ACK-only packets and
    // hears no ACK frame back (there is nothing of its own in flight to
    // acknowledge). 330 of them (11 220 B) would leave less than a
    // datagram of a 12 000-byte window if they counted.
    let (mut c, wake) = gated(1200, 12_000);
    let now = Instant::now();
    for pn in 2..=331 {
        c.on_sent(now, 34, pn);
    }
    let mut pn = 331;
    assert_eq!(
        send_pass(&mut c, 1200, &mut pn),
        BURST_QUANTUM_PACKETS,
        "the pacer's idle quantum, as if no ACK-only packet had been sent"
    );
    wake.detach();
}

#[test]
fn a_stats_read_between_passes_asks_the_gate_nothing() {
    // `Connection::stats` reads `window()` once. Taken for the first
    // question about a datagram, it would shift quinn's next pair of
    // questions by one: the pass would then stop a datagram early, at the
    // second question about one the window has room for. Read through
    // `stats_of`, it reports the controller's window and the pass sends
    // the window's two datagrams.
    let mds = u64::from(PMTUD_MDS);
    let (mut c, wake) = gated(PMTUD_MDS, 2 * mds);
    let cwnd = super::stats_read::while_reading_stats(|| c.window());
    let mut pn = 1;
    assert_eq!(send_pass(&mut c, PMTUD_MDS, &mut pn), 2);
    assert_eq!(c.window(), CLOSED_WINDOW, "the window is full");
    assert_eq!(cwnd, 2 * mds, "stats show the controller's window");
    wake.detach();
}

#[test]
fn the_gate_opens_for_the_controllers_rate_and_window_only() {
    use quinn_proto::congestion::ControllerFactory as _;
    // NewReno before any RTT sample: 2 · 12 000 B / 333 ms, one 1200-byte
    // datagram every 16.7 ms, far longer than this test takes.
    let choice = crate::choice::CcChoice::parse("newreno").unwrap();
    let wake = ConnWake::new();
    let factory =
        Arc::new(RampFactory::new(choice.build.clone()).paced_by_controller(wake.clone()));
    let mut c = factory.build(Instant::now(), 1200);
    // Not attached yet: quinn's own window and pacer.
    assert_eq!(c.window(), 12_000);
    wake.attach_without_connection();
    assert!(wake.is_attached());
    assert_eq!(c.window(), OPEN_WINDOW, "the first datagram leaves");
    c.on_sent(Instant::now(), 1200, 0);
    assert_eq!(c.window(), CLOSED_WINDOW, "the next waits for credit");
    // A full window closes the gate whatever the credit (RFC 9002 §7).
    c.on_sent(Instant::now(), 10_800, 1);
    assert_eq!(c.window(), CLOSED_WINDOW);
    // The metrics still report the controller's window, not the gate's.
    assert_eq!(c.metrics().congestion_window, 12_000);
    wake.detach();
    assert_eq!(c.window(), 12_000);
}

#[test]
fn a_seed_arm_is_paced_by_quicly_s_pacer_in_a_gso_batch_of_ten() {
    use quinn_proto::congestion::ControllerFactory as _;
    // The seed arms name quicly's pacer (`pacer=quicly`); the server
    // then builds the gate on it: a fresh pacer grants a 10-packet burst,
    // quinn's full GSO batch, where the leaky bucket lets one datagram out.
    let spec = ramp_cc::spec::SEED_ARMS[0].1;
    let choice = crate::choice::CcChoice::parse(spec).unwrap();
    assert_eq!(choice.pacer, Some(ramp_cc::PacerModel::Quicly));
    let pacing = crate::server::SendPacing::Controller.for_arm(choice.pacer);
    assert_eq!(pacing, crate::server::SendPacing::Quicly);
    let wake = ConnWake::new();
    let factory = Arc::new(
        RampFactory::new(choice.build.clone())
            .paced_by_controller(wake.clone())
            .with_quicly_pacer(),
    );
    let c = factory.build(Instant::now(), 1200);
    wake.attach_without_connection();
    let mut granted = 0;
    while granted < 20 && c.window() == OPEN_WINDOW {
        // quinn's second question about the same datagram.
        assert_eq!(c.window(), OPEN_WINDOW);
        granted += 1;
    }
    assert_eq!(granted, 10);
    let c = c.into_any().downcast::<RampController>().unwrap();
    assert_eq!(
        c.gate.as_ref().map(|g| g.pacer.model_name()),
        Some("quicly")
    );
    wake.detach();
}
