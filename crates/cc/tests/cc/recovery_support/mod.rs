//! Shared by the recovery tests: a controller that records every call, and a
//! small harness around `LossDetector<u64>` (the payload is the packet
//! number, so tests can check what comes back).

use std::time::Duration;

use ramp_cc::recovery::{
    AckError, AckFrame, AckOutcome, EcnCounts, LossDetector, RecoveryConfig, SentPacket, Space,
    TimeoutOutcome,
};
use ramp_cc::EcnCodepoint;
use ramp_cc::{
    AckFrameSummary, AckedPacket, CongestionEvent, Controller, LossBasedState, RttEstimator, Time,
};

/// One call a controller received.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    Sent {
        pn: Option<u64>,
        bytes: u64,
        in_flight: u64,
    },
    Acked {
        pn: Option<u64>,
        time_sent: Time,
        bytes: u64,
        app_limited: bool,
    },
    FrameEnd(AckFrameSummary),
    Congestion(CongestionEvent),
    Spurious,
}

/// A controller that logs calls and keeps a fixed window.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    pub calls: Vec<Call>,
    /// min_rtt as seen by the last congestion event.
    pub min_rtt_at_event: Option<Duration>,
    /// Whether the estimator had a sample at each `on_packet_acked`.
    pub rtt_sampled_at_acked: Vec<bool>,
}

impl Recorder {
    pub fn congestion_events(&self) -> Vec<CongestionEvent> {
        self.calls
            .iter()
            .filter_map(|c| match c {
                Call::Congestion(e) => Some(*e),
                _ => None,
            })
            .collect()
    }
    pub fn count(&self, f: impl Fn(&Call) -> bool) -> usize {
        self.calls.iter().filter(|c| f(c)).count()
    }
}

impl Controller for Recorder {
    fn on_packet_sent(&mut self, _now: Time, pn: Option<u64>, bytes: u64, in_flight: u64) {
        self.calls.push(Call::Sent {
            pn,
            bytes,
            in_flight,
        });
    }
    fn on_packet_acked(
        &mut self,
        _now: Time,
        p: &AckedPacket,
        rtt: &RttEstimator,
        app_limited: bool,
    ) {
        self.rtt_sampled_at_acked.push(rtt.has_sample());
        self.calls.push(Call::Acked {
            pn: p.packet_number,
            time_sent: p.time_sent,
            bytes: p.bytes,
            app_limited,
        });
    }
    fn on_ack_frame_end(&mut self, _now: Time, s: &AckFrameSummary, _rtt: &RttEstimator) {
        self.calls.push(Call::FrameEnd(*s));
    }
    fn on_congestion_event(&mut self, _now: Time, e: &CongestionEvent, rtt: &RttEstimator) {
        self.min_rtt_at_event = Some(rtt.min());
        self.calls.push(Call::Congestion(*e));
    }
    fn on_spurious_congestion(&mut self, _now: Time) {
        self.calls.push(Call::Spurious);
    }
    fn window(&self) -> u64 {
        12_000
    }
    fn phase(&self) -> ramp_cc::CcPhase {
        LossBasedState::SlowStart.phase()
    }
    fn initial_window(&self) -> u64 {
        12_000
    }
    fn name(&self) -> String {
        "recorder".into()
    }
    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }
}

pub fn ms(v: u64) -> Time {
    Time::from_millis(v)
}
pub fn us(v: u64) -> Time {
    Time::from_micros(v)
}
pub fn dms(v: u64) -> Duration {
    Duration::from_millis(v)
}

pub const MDS: u64 = 1200;

/// A detector with a recording controller and reusable outcomes.
pub struct Harness {
    pub det: LossDetector<u64>,
    pub cc: Recorder,
    pub ack: AckOutcome<u64>,
    pub to: TimeoutOutcome<u64>,
}

impl Harness {
    pub fn new(config: RecoveryConfig) -> Self {
        Harness {
            det: LossDetector::new(config),
            cc: Recorder::default(),
            ack: AckOutcome::new(),
            to: TimeoutOutcome::new(),
        }
    }
    /// Handshake confirmed, RFC defaults otherwise.
    pub fn confirmed() -> Self {
        Self::new(RecoveryConfig::confirmed())
    }
    /// An ack-eliciting, in-flight, 1200-byte Application packet.
    pub fn send(&mut self, now: Time, pn: u64) {
        self.send_in(now, Space::Application, pn);
    }
    pub fn send_in(&mut self, now: Time, space: Space, pn: u64) {
        self.det.on_packet_sent(
            space,
            SentPacket {
                packet_number: pn,
                time_sent: now,
                size: MDS,
                ack_eliciting: true,
                in_flight: true,
                ecn: EcnCodepoint::NotEct,
                payload: pn,
            },
            &mut self.cc,
        );
    }
    /// An ACK-only packet (not ack-eliciting, not in flight).
    pub fn send_ack_only(&mut self, now: Time, pn: u64) {
        self.det.on_packet_sent(
            Space::Application,
            SentPacket {
                packet_number: pn,
                time_sent: now,
                size: 50,
                ack_eliciting: false,
                in_flight: false,
                ecn: EcnCodepoint::NotEct,
                payload: pn,
            },
            &mut self.cc,
        );
    }
    pub fn ack_frame(&mut self, now: Time, space: Space, frame: &AckFrame) -> Result<(), AckError> {
        self.det
            .on_ack_received(now, space, frame, false, &mut self.cc, &mut self.ack)
    }
    /// ACK of `ranges` (descending `(lo, hi)`), zero ack delay, no ECN.
    pub fn ack(&mut self, now: Time, ranges: &[(u64, u64)]) -> Result<(), AckError> {
        self.ack_ecn(now, ranges, None)
    }
    pub fn ack_ecn(
        &mut self,
        now: Time,
        ranges: &[(u64, u64)],
        ce: Option<u64>,
    ) -> Result<(), AckError> {
        let frame = AckFrame {
            ranges: ranges.iter().map(|&(lo, hi)| lo..=hi).collect(),
            ack_delay: Duration::ZERO,
            ecn: ce.map(|ce| EcnCounts {
                ect0: 0,
                ect1: 0,
                ce,
            }),
        };
        self.ack_frame(now, Space::Application, &frame)
    }
    pub fn timeout(&mut self, now: Time) {
        self.det.on_timeout(now, &mut self.cc, &mut self.to);
    }
    pub fn acked_pns(&self) -> Vec<u64> {
        self.ack.acked.iter().map(|p| p.packet_number).collect()
    }
    pub fn lost_pns(&self) -> Vec<u64> {
        self.ack.lost.iter().map(|p| p.packet_number).collect()
    }
    pub fn timeout_lost_pns(&self) -> Vec<u64> {
        self.to.lost.iter().map(|p| p.packet_number).collect()
    }
}
