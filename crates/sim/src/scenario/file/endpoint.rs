//! The `[endpoint]` table: the endpoints' keys, applied over a preset's
//! [`EndpointConfig`].

use core::time::Duration;

use ramp_cc::pacer::{PacerConfig, PacerKind, PACED_FIRST_FLIGHT_BURST_PACKETS};
use ramp_cc::{EcnCodepoint, Rate};
use serde::Deserialize;

use crate::receiver::AckPolicy;

use super::{set, Q};
use crate::scenario::{EndpointConfig, FileError};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileEndpoint {
    mds: Option<u64>,
    iw: Option<u64>,
    jump_window: Option<u64>,
    ack_policy: Option<Q<AckPolicy>>,
    max_ack_delay: Option<Q<Duration>>,
    client_processing: Option<Q<Duration>>,
    server_flight: Option<Q<u64>>,
    ecn: Option<FileEcn>,
    pacer: Option<String>,
    pacer_initial_burst: Option<u64>,
    pacer_quantum: Option<u64>,
    flow_control: Option<String>,
    stream_window: Option<Q<u64>>,
    connection_window: Option<Q<u64>>,
    resumption: Option<String>,
    resume_rate: Option<Q<Rate>>,
    resume_rtt: Option<Q<Duration>>,
    client_rtt_hint: Option<Q<Duration>>,
    client_closes: Option<bool>,
    packet_overhead: Option<u64>,
    clock_phase: Option<String>,
}

/// `endpoint.ecn`: a switch (`true` = ECT(0)) or a codepoint name.
#[derive(Deserialize)]
#[serde(untagged)]
enum FileEcn {
    Switch(bool),
    Name(String),
}

impl FileEcn {
    fn codepoint(self) -> Result<EcnCodepoint, FileError> {
        match self {
            FileEcn::Switch(true) => Ok(EcnCodepoint::Ect0),
            FileEcn::Switch(false) => Ok(EcnCodepoint::NotEct),
            FileEcn::Name(n) => {
                EcnCodepoint::parse_send(&n).map_err(|error| FileError::Ecn { name: n, error })
            }
        }
    }
}

impl FileEndpoint {
    /// `flow_control = "chrome" | "off"`, then `stream_window` /
    /// `connection_window` override either window (the other stays
    /// Chrome's when none was set).
    fn apply_flow_control(&self, e: &mut EndpointConfig) -> Result<(), FileError> {
        use crate::flow_control::FlowWindows;
        match self.flow_control.as_deref() {
            None => {}
            Some("chrome") => e.flow_windows = Some(FlowWindows::CHROME),
            Some("off") => e.flow_windows = None,
            Some(other) => return Err(FileError::FlowControl(other.to_string())),
        }
        if self.stream_window.is_some() || self.connection_window.is_some() {
            let mut w = e.flow_windows.unwrap_or(FlowWindows::CHROME);
            set(&mut w.stream, self.stream_window.as_ref().map(|Q(b)| *b));
            set(
                &mut w.connection,
                self.connection_window.as_ref().map(|Q(b)| *b),
            );
            e.flow_windows = Some(w);
        }
        Ok(())
    }

    pub(super) fn apply(self, e: &mut EndpointConfig) -> Result<(), FileError> {
        set(&mut e.mds, self.mds);
        if let Some(iw) = self.iw {
            e.set_initial_window(iw);
        }
        set(&mut e.jump_packets, self.jump_window);
        set(&mut e.ack_policy, self.ack_policy.map(|Q(a)| a));
        set(&mut e.max_ack_delay, self.max_ack_delay.map(|Q(d)| d));
        if let Some(Q(d)) = self.client_processing {
            if d > Duration::from_secs(10) {
                return Err(FileError::ClientProcessing);
            }
            e.client_handshake_processing = d;
        }
        if let Some(Q(b)) = self.server_flight {
            if b == 0 {
                return Err(FileError::ServerFlight);
            }
            e.server_flight_bytes = b;
        }
        self.apply_flow_control(e)?;
        if let Some(r) = &self.resumption {
            e.resumption =
                crate::resumption::Resumption::parse(r).map_err(FileError::Resumption)?;
        }
        match (&self.resume_rate, &self.resume_rtt) {
            (Some(Q(rate)), Some(Q(rtt))) => {
                e.resume = Some(ramp_cc::resume::SavedPath {
                    rate: *rate,
                    rtt: *rtt,
                })
            }
            (None, None) => {}
            _ => return Err(FileError::ResumeHalf),
        }
        if let Some(Q(h)) = self.client_rtt_hint {
            if h.is_zero() {
                return Err(FileError::ClientRttHint);
            }
            e.client_rtt_hint = Some(h);
        }
        set(&mut e.client_closes, self.client_closes);
        set(&mut e.packet_overhead, self.packet_overhead);
        if let Some(p) = &self.clock_phase {
            e.clock_phase =
                crate::clock_phase::ClockPhase::parse(p).map_err(FileError::ClockPhase)?;
        }
        if let Some(v) = self.ecn {
            e.ecn = v.codepoint()?;
        }
        let mut cfg = match e.pacer {
            PacerKind::LeakyBucket(c) => c,
            _ => PacerConfig {
                initial_burst_packets: PACED_FIRST_FLIGHT_BURST_PACKETS,
                ..PacerConfig::default()
            },
        };
        cfg.max_datagram_size = e.mds;
        set(&mut cfg.initial_burst_packets, self.pacer_initial_burst);
        set(&mut cfg.burst_quantum_packets, self.pacer_quantum);
        e.pacer = match self.pacer.as_deref() {
            None => match e.pacer {
                PacerKind::LeakyBucket(_) => PacerKind::LeakyBucket(cfg),
                other => other,
            },
            Some("leaky-bucket") | Some("leaky") => PacerKind::LeakyBucket(cfg),
            Some("quinn") => PacerKind::Quinn,
            Some("quicly") => PacerKind::Quicly,
            Some("off") => PacerKind::Off,
            Some(other) => return Err(FileError::Pacer(other.to_string())),
        };
        Ok(())
    }
}
