//! docs/algorithms.md, "Adding a congestion-avoidance algorithm": an
//! algorithm written outside ramp-cc, implementing only the three required
//! methods of `CongestionAvoidance`, runs inside the loss-based skeleton
//! (RFC 9002 §7's recovery periods and minimum window) with no edit to
//! it. If this stops compiling, update the walk-through.

use std::time::Duration;

use ramp_cc::loss_based::{CaContext, CongestionAvoidance, Startup};
use ramp_cc::{
    AckFrameSummary, AckedPacket, CcConfig, CongestionEvent, CongestionSignal, Controller,
    EventSource, LossBased, LossBasedState, Ratio, RttEstimator, Time,
};

/// Step 1: the algorithm. A plain AIMD: one datagram per ACK frame, β = 0.8.
#[derive(Clone, Debug)]
struct Aimd {
    reductions: u32,
}

impl CongestionAvoidance for Aimd {
    fn beta(&self) -> Ratio {
        Ratio::new_const(8, 10)
    }
    fn grow(&mut self, ctx: &CaContext, _acked: u64) -> u64 {
        ctx.cwnd + ctx.mds
    }
    fn reduce(&mut self, ctx: &CaContext, _signal: CongestionSignal, _in_startup: bool) -> u64 {
        self.reductions += 1;
        self.beta().mul_floor(ctx.cwnd)
    }
}

fn at(ms: u64) -> Time {
    Time::from_millis(ms)
}

fn ack(cc: &mut LossBased, now: Time, pn: u64, sent: Time, rtt: &RttEstimator) {
    let p = AckedPacket {
        packet_number: Some(pn),
        time_sent: sent,
        bytes: 1200,
    };
    cc.on_packet_acked(now, &p, rtt, false);
    let s = AckFrameSummary {
        bytes_in_flight: 0,
        largest_acked: Some(pn),
        rtt_sample: Some(Duration::from_millis(50)),
        app_limited: false,
    };
    cc.on_ack_frame_end(now, &s, rtt);
}

#[test]
fn a_congestion_avoidance_algorithm_from_outside_runs_in_the_skeleton() {
    let cfg = CcConfig::default();
    let mut cc = LossBased::new(
        "aimd".into(),
        cfg,
        Box::new(Aimd { reductions: 0 }),
        Startup::default(),
    );
    let iw = cc.window();
    let mut rtt = RttEstimator::default();
    rtt.update(
        Duration::from_millis(50),
        Duration::ZERO,
        Duration::ZERO,
        false,
    );
    for pn in 0..4 {
        cc.on_packet_sent(at(0), Some(pn), 1200, (pn + 1) * 1200);
    }
    // A loss ends slow start: the algorithm's reduce() sets the window
    // (RFC 9002 §7.3.2 recovery period, entered by the skeleton).
    let loss = CongestionEvent {
        signal: CongestionSignal::Loss { lost_bytes: 1200 },
        time_sent: at(0),
        persistent_congestion: false,
        source: EventSource::AckFrame,
    };
    cc.on_congestion_event(at(50), &loss, &rtt);
    assert_eq!(cc.window(), iw * 8 / 10);
    assert_eq!(cc.state(), LossBasedState::Recovery);
    // A second loss of a packet sent before the recovery began is absorbed.
    cc.on_congestion_event(at(51), &loss, &rtt);
    assert_eq!(cc.ca_as::<Aimd>().map(|a| a.reductions), Some(1));
    // A packet sent after the recovery began ends it; then the
    // algorithm's grow() adds one datagram per ACK frame.
    cc.on_packet_sent(at(60), Some(10), 1200, 1200);
    ack(&mut cc, at(110), 10, at(60), &rtt);
    assert_eq!(cc.state(), LossBasedState::CongestionAvoidance);
    let w = cc.window();
    cc.on_packet_sent(at(110), Some(11), 1200, 1200);
    ack(&mut cc, at(160), 11, at(110), &rtt);
    assert_eq!(cc.window(), w + 1200);
    // The defaults it did not write: no pacing burst of its own.
    assert_eq!(cc.pacing_burst(), None);
}

/// Step 2: its row. With this `CaPart` a spec carries the algorithm, prints
/// its name and builds it behind any startup; listing the row in
/// `CA_PARTS` (inside ramp-cc) is what lets the parser find it by name.
const AIMD_PART: ramp_cc::spec::CaPart<()> = ramp_cc::spec::CaPart {
    name: "aimd",
    aliases: &[],
    help: "a plain AIMD, beta 0.8",
    options: &[],
    build: |_, _| Box::new(Aimd { reductions: 0 }),
    ecn: None,
    ca_pacing_gain: None,
};

#[test]
fn a_congestion_avoidance_row_from_outside_names_and_builds_the_algorithm() {
    use ramp_cc::spec::{CaSpec, LossBasedSpec, StartupSpec};
    let spec = LossBasedSpec {
        ca: CaSpec::new(&AIMD_PART, ()),
        startup: StartupSpec::RapidStart(Default::default()),
        ..LossBasedSpec::default()
    };
    assert_eq!(spec.to_string(), "aimd+rapidstart");
    let cc = spec.build_loss_based(&CcConfig::default());
    assert_eq!(cc.name(), "aimd+rapidstart");
    assert!(cc.ca_as::<Aimd>().is_some());
}
