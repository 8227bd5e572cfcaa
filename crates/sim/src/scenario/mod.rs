//! Scenarios: a path, endpoint settings and a workload, from a preset or a
//! TOML file.
//!
//! This module holds the model; `file` reads it from TOML, `limits` checks
//! every number's range, and [`presets`] holds the built-in scenarios.
//!
//! ```toml
//! preset = "seed-100m"          # optional base; every key below overrides it
//! seed = 1
//! size = "3MB"
//!
//! [path]
//! rate = "100mbit"
//! rtt = "30ms"                  # split evenly, or give the one-way delays:
//! # forward_delay = "15ms"      # server -> client (data)
//! # reverse_delay = "15ms"      # client -> server (ACKs)
//! queue = "30ms"                # or queue_bytes = 375000
//! loss = "0.1%"                 # Bernoulli, after the bottleneck
//! # aqm = "fq_codel"            # droptail (default), step:1ms, codel, fq_codel, pie, docsis_pie
//! # ecn_threshold = "1ms"       # shorthand for aqm = "step:1ms"
//! # reverse_rate = "10mbit"     # serialise ACKs on the reverse path
//! # ack_aggregation = "4ms"     # release ACKs in batches every 4 ms
//! # ack_batching = "real-mode"  # the sender's receive loop (crate::wakeup); or a
//! #                             # table [[p, µs], ...] from p = 0 to 1
//! # [[path.rate_step]]          at = "5s", rate = "10mbit" (the link's rate from then on)
//! # trace = "lte.down"          # deliver at a Mahimahi trace's opportunities (replaces rate)
//! # [path.jitter]           median = "3ms", p90 = "20ms" (Wi-Fi delay variation, no reordering;
//! #                         each key optional, WiFiSeer's defaults)
//! # [path.cellular]         (CellReplay's defaults; each key optional; the keys are
//! #                         `ramp_link::Element`'s table, as `--cellular=…`:) light_bytes = 280000,
//! #                         light_fraction = 0.5, idle_reset = "50ms", drift_mean = 0.15, drift_period = "1s"
//! # [path.gilbert_elliott]  p_good_to_bad = 0.01, p_bad_to_good = 0.3, loss_bad = 0.5
//! #                         (`ramp_link::GilbertElliott`'s table, as `--gilbert-elliott=…`;
//! #                         loss_good 0 and loss_bad 1 unless given)
//! # [path.policer]          rate = "10mbit", burst = "32KB" (both required;
//! #                         `ramp_link::TokenBucket`'s table, as `--policer=…`)
//!
//! [endpoint]
//! mds = 1252                    # UDP payload of a full packet, bytes
//! iw = 30                       # initial window, packets
//! jump_window = 60              # full-RTT pacing window, packets
//! ack_policy = "rfc9000"        # "chrome", "ackfreq(10,25ms)"
//! max_ack_delay = "25ms"
//! server_flight = 3000          # server handshake bytes (Initial + Handshake)
//! # client_processing = "40ms" # client's handshake work before it answers (default 0)
//! # ecn = "ect1"               # codepoint sent: off (default), on = ect0, ect1
//! # flow_control = "chrome"    # client receive windows 6 MiB / 15 MiB (default off)
//! # stream_window = "1MiB"     # or either window alone (1200 B ..= 1 GiB)
//! # connection_window = "4MiB"
//! # resumption = "0rtt"        # full (default), 0rtt, 0rtt-token (crate::resumption)
//! # resume_rate = "50mbit"     # saved delivery rate and min RTT of an earlier
//! # resume_rtt = "40ms"        # connection (RFC 9959, ramp_cc::resume); both or neither
//! # client_rtt_hint = "40ms"   # a 0-RTT client's cached RTT (gQUIC IRTT; crate::resumption)
//! # client_closes = true       # the client closes once it has the response: its last ACK leaves at once
//! # packet_overhead = 52       # bytes of a full response packet that are not data (default: h2o's)
//! # clock_phase = "seeded"     # start the flow under test within its sender's ms: "0.4ms" or drawn
//! #                            # from the seed (crate::clock_phase; default 0)
//!
//! [[flow]]                      # extra flows sharing the bottleneck
//! cc = "cubic"
//! start = "200ms"
//! size = "20MB"
//! ```

use core::fmt;
use core::time::Duration;
use std::sync::Arc;

use ramp_cc::pacer::{PacerConfig, PacerKind, PACED_FIRST_FLIGHT_BURST_PACKETS};
use ramp_cc::{EcnCodepoint, Rate};

use crate::receiver::AckPolicy;
use crate::web::WebConfig;
use crate::SimError;
use ramp_link::{Aqm, DeliveryTrace, LinkConfig, LinkElements, LossModel};

mod file;
mod file_error;
mod limits;
pub(crate) use limits::{write_queue_too_small, MAX_WEB_PAGES};
pub mod presets;

pub(crate) use file::line_of;
pub use file_error::FileError;
pub use limits::MAX_WINDOW_PACKETS;

/// How the bottleneck queue is sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    /// Time at the link rate, enforced as bytes (quicly's convention).
    Time(Duration),
    /// Bytes.
    Bytes(u64),
}

/// Path parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct PathConfig {
    /// Bottleneck rate (forward, data direction).
    pub rate: Rate,
    /// One-way propagation delay server -> client.
    pub forward_delay: Duration,
    /// One-way propagation delay client -> server.
    pub reverse_delay: Duration,
    /// Drop-tail queue limit.
    pub queue: QueueLimit,
    /// The optional elements (`ramp_link::LinkElements`): ACK aggregation
    /// acts on the reverse path, every other element on the forward link
    /// (the data direction): the policer before its queue, random loss,
    /// a cellular link's behaviour and Wi-Fi delay variation after it.
    pub elements: LinkElements,
    /// The bottleneck's queue discipline.
    pub aqm: Aqm,
    /// Serialisation rate of the reverse path (None: infinitely fast).
    pub reverse_rate: Option<Rate>,
    /// Changes of the bottleneck rate during the run, in time order: from
    /// `at` (since the simulation started) the link serves at `rate`. The
    /// queue limit stays the bytes it was at the first rate.
    pub rate_steps: Vec<RateStep>,
    /// A Mahimahi delivery trace the forward link delivers at instead of
    /// `rate` (`rate` is then the trace's mean rate).
    pub trace: Option<Arc<DeliveryTrace>>,
    /// The data sender's receive loop: ACK frames processed in wake-ups
    /// (`crate::wakeup`); None: each at its arrival.
    pub ack_batching: Option<crate::wakeup::WakeupLatency>,
    /// Bytes each packet costs the links beyond its UDP datagram
    /// (`[path] header_bytes`): 0 by default, the datagram as the
    /// endpoints count it; 28 for IPv4 + UDP (RFC 791 §3.1, RFC 768), as
    /// `ramp shell`'s links serialise and queue IP packets. The
    /// controllers and the records count datagrams either way.
    pub header_bytes: u32,
}

/// The most [`PathConfig::header_bytes`]: an IPv6 and a UDP header (48 B)
/// with room for an encapsulation (an assumption).
pub const MAX_HEADER_BYTES: u32 = 100;

/// One change of the bottleneck rate ([`PathConfig::rate_steps`]).
pub use ramp_link::RateStep;

impl PathConfig {
    /// Base (idle) RTT: the sum of the one-way delays.
    pub fn rtt(&self) -> Duration {
        self.forward_delay + self.reverse_delay
    }
    /// Queue limit in bytes.
    pub fn queue_bytes(&self) -> u64 {
        match self.queue {
            QueueLimit::Time(d) => ramp_link::queue_bytes_for(self.rate, d),
            QueueLimit::Bytes(b) => b,
        }
    }
    /// The forward (data) direction as the shared link model sees it.
    pub fn forward_link(&self) -> LinkConfig {
        // The forward link is not aggregated; the reverse path is
        // (`crate::path`).
        LinkConfig::new(self.rate, self.queue_bytes(), self.forward_delay)
            .with_aqm(self.aqm)
            .with_rate_steps(self.rate_steps.clone())
            .with_trace(self.trace.clone())
            .with_elements(LinkElements {
                aggregation: None,
                ..self.elements
            })
            .with_base_rtt(self.rtt())
    }
    /// Queue limit in time at the link rate.
    pub fn queue_time(&self) -> Duration {
        match self.queue {
            QueueLimit::Time(d) => d,
            QueueLimit::Bytes(b) => self.rate.transmit_time(b),
        }
    }
}

/// Endpoint parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct EndpointConfig {
    /// Maximum datagram size (UDP payload of a full packet), bytes.
    pub mds: u64,
    /// Initial window, packets.
    pub iw_packets: u64,
    /// Jump window (full-RTT pacing of the first flight), packets.
    pub jump_packets: u64,
    /// The client's ACK policy.
    pub ack_policy: AckPolicy,
    /// The client's max_ack_delay (RFC 9000 §18.2).
    pub max_ack_delay: Duration,
    /// Bytes of the server's handshake flight (Initial + Handshake).
    pub server_flight_bytes: u64,
    /// The ECN codepoint packets carry unless a controller's spec says
    /// (`ecn=`); Not-ECT by default.
    pub ecn: EcnCodepoint,
    /// The server's pacer (ramp-cc): leaky bucket (default), quinn, off.
    pub pacer: PacerKind,
    /// The client's flow-control receive windows (RFC 9000 §4); None:
    /// unlimited (the default).
    pub flow_windows: Option<crate::flow_control::FlowWindows>,
    /// How the connection starts: a full 1-RTT handshake (the default) or
    /// a resumed one with 0-RTT.
    pub resumption: crate::resumption::Resumption,
    /// Parameters saved from an earlier connection on the path (RFC 9959),
    /// given to the flow under test's controller: a jumping controller
    /// sizes its jump from them once an RTT sample confirms the path.
    pub resume: Option<ramp_cc::resume::SavedPath>,
    /// The RTT a resumed client sends in its hello (gQUIC's `IRTT`: the
    /// smoothed RTT of its previous connection to the server); a 0-RTT
    /// connection's server starts its RTT estimate from it, clamped to
    /// [10 ms, 1 s] as quiche does ([`crate::resumption::server_initial_rtt`]).
    /// None (the default): RFC 9002's 333 ms.
    pub client_rtt_hint: Option<Duration>,
    /// The client closes the connection as soon as it has the whole
    /// response, as a command-line downloader does (`ramp get`, the client
    /// of real mode): its pending ACK then leaves at once instead of after
    /// `max_ack_delay`, because a QUIC stack puts its ACK frames in the
    /// packet that carries CONNECTION_CLOSE (quinn-proto 0.11.19,
    /// `Connection::poll_transmit`). Off by default: a browser keeps the
    /// connection open.
    pub client_closes: bool,
    /// The client's handshake processing time (`[endpoint]
    /// client_processing`): its answers to the server's handshake flight
    /// leave this long after the flight's first packet arrives, so the
    /// server's first RTT samples include it and the path's minimum does
    /// not ([`crate::client::Client::with_handshake_processing`]). Zero by
    /// default. No published distribution was found; an h2o record in the
    /// RubyKaigi 2026 Rapid Start talk shows the server's handshake RTT
    /// (`jumpstart.new-rtt` 106 ms) 40 ms above the path's minimum (66 ms)
    /// on one connection.
    pub client_handshake_processing: Duration,
    /// Bytes of a full 1-RTT packet of the response that are not stream
    /// data (`[endpoint] packet_overhead`): short header, STREAM frame
    /// header, AEAD tag and whatever else the server's stack puts in every
    /// packet. [`DEFAULT_PACKET_OVERHEAD_BYTES`] (h2o's) unless given; a
    /// harness comparing with another stack gives that stack's.
    pub packet_overhead: u64,
    /// Where the flow under test starts within a millisecond of its
    /// sender's clock (`[endpoint] clock_phase`,
    /// [`crate::clock_phase::ClockPhase`]); at time zero by default.
    pub clock_phase: crate::clock_phase::ClockPhase,
}

/// The default of [`EndpointConfig::packet_overhead`]: a short header (1 +
/// 8-byte connection ID + 2-byte packet number), a STREAM frame header
/// (about 9 bytes) and the 16-byte AEAD tag, rounded up to h2o's observed
/// 1252-byte packets carrying 1200 bytes of data (about 52 bytes).
pub const DEFAULT_PACKET_OVERHEAD_BYTES: u64 = 52;

/// The least [`EndpointConfig::packet_overhead`]: a 1-byte short header
/// with a zero-length connection ID and a 1-byte packet number (RFC 9000
/// §17.3.1), a STREAM frame's type and stream ID (§19.8) and the 16-byte
/// AEAD tag (RFC 9001 §5.3).
pub const MIN_PACKET_OVERHEAD_BYTES: u64 = 20;

impl EndpointConfig {
    /// Sets the initial window, and the jump window to its default of
    /// twice it, capped at [`MAX_WINDOW_PACKETS`] (so that any initial
    /// window in range gives a jump window in range; a scenario file's
    /// `jump_window` overrides it).
    pub fn set_initial_window(&mut self, iw_packets: u64) {
        self.iw_packets = iw_packets;
        self.jump_packets = iw_packets.saturating_mul(2).min(MAX_WINDOW_PACKETS);
    }
}

/// One flow on the shared bottleneck.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowConfig {
    /// Controller spec (None: the arm under test).
    pub cc: Option<String>,
    /// When the client starts its handshake.
    pub start: Duration,
    /// Object size, bytes.
    pub size_bytes: u64,
}

/// A complete scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Name (preset name or file stem).
    pub name: String,
    /// Path.
    pub path: PathConfig,
    /// Endpoints.
    pub endpoint: EndpointConfig,
    /// The flow under test's object size, bytes (with `requests`, the
    /// total of its objects).
    pub size_bytes: u64,
    /// The flow under test's requests when it fetches several objects on
    /// its connection (crate::page); None: one object of `size_bytes`.
    pub requests: Option<crate::page::Requests>,
    /// Default seed.
    pub seed: u64,
    /// Other flows sharing the bottleneck (cross traffic).
    pub cross_flows: Vec<FlowConfig>,
    /// On/off web users sharing the bottleneck (`[[web]]`).
    pub web: Vec<WebConfig>,
    /// Simulated time after which the run stops, finished or not.
    pub time_limit: Duration,
}

impl Scenario {
    /// The scenario of a built-in preset.
    pub fn from_preset(p: &presets::Preset) -> Scenario {
        Scenario {
            name: p.name.clone(),
            path: PathConfig {
                rate: p.rate,
                forward_delay: p.rtt / 2,
                reverse_delay: p.rtt - p.rtt / 2,
                queue: QueueLimit::Time(p.queue),
                elements: LinkElements {
                    loss: LossModel::bernoulli(p.loss),
                    ..LinkElements::default()
                },
                aqm: Aqm::DropTail,
                reverse_rate: None,
                rate_steps: Vec::new(),
                trace: None,
                ack_batching: None,
                header_bytes: 0,
            },
            endpoint: EndpointConfig {
                mds: 1252,
                iw_packets: p.iw_packets,
                jump_packets: p.jump_packets,
                ack_policy: AckPolicy::Rfc9000,
                max_ack_delay: Duration::from_millis(25),
                server_flight_bytes: 3000,
                ecn: EcnCodepoint::NotEct,
                pacer: PacerKind::LeakyBucket(PacerConfig {
                    max_datagram_size: 1252,
                    initial_burst_packets: PACED_FIRST_FLIGHT_BURST_PACKETS,
                    ..PacerConfig::default()
                }),
                flow_windows: None,
                resumption: crate::resumption::Resumption::Full,
                resume: None,
                client_rtt_hint: None,
                client_closes: false,
                client_handshake_processing: Duration::ZERO,
                packet_overhead: DEFAULT_PACKET_OVERHEAD_BYTES,
                clock_phase: crate::clock_phase::ClockPhase::Zero,
            },
            size_bytes: 3_000_000,
            requests: None,
            seed: 1,
            cross_flows: Vec::new(),
            web: Vec::new(),
            time_limit: Duration::from_secs(600),
        }
    }

    /// The longest one-way delay of either direction (so an RTT of at most
    /// twice this): an assumption well above any terrestrial or satellite
    /// path, that keeps timer arithmetic far from overflow.
    pub const MAX_ONE_WAY_DELAY: Duration = Duration::from_secs(10);

    /// The largest scenario file read: real ones are a few kB; `/dev/zero`
    /// or a records file given by mistake is refused after this many bytes
    /// instead of being read into memory whole.
    pub const MAX_FILE_BYTES: u64 = 1 << 20;

    /// A preset by name, or a TOML file if `name_or_path` is not a preset.
    pub fn load(name_or_path: &str) -> Result<Scenario, ScenarioError> {
        if let Some(p) = presets::find(name_or_path) {
            return Ok(Scenario::from_preset(&p));
        }
        let text = read_bounded(name_or_path).map_err(|message| ScenarioError {
            file: name_or_path.to_string(),
            line: None,
            message,
            cause: None,
        })?;
        let stem = std::path::Path::new(name_or_path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| name_or_path.to_string());
        let dir = std::path::Path::new(name_or_path).parent();
        Scenario::parse_toml(&text, &stem, dir).map_err(|mut e| {
            e.file = name_or_path.to_string();
            e
        })
    }
}

/// A scenario that could not be loaded: `FILE: line N: MESSAGE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// File (or preset) name.
    pub file: String,
    /// The 1-based line of the key or table the error is about, when known.
    pub line: Option<usize>,
    /// What is wrong, starting with the key when known.
    pub message: String,
    /// The typed error behind `message` when the file was parsed but a
    /// `[path]` or `[endpoint]` key was refused ([`SimError::ScenarioFile`]
    /// holding a [`FileError`]), or the scenario breaks a range or a rule
    /// ([`Scenario::validate`]); `None` for a file that cannot be read or
    /// parsed.
    pub cause: Option<Box<SimError>>,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}: line {l}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for ScenarioError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// A scenario file's text, at most [`Scenario::MAX_FILE_BYTES`], checked
/// as the bytes arrive.
fn read_bounded(path: &str) -> Result<String, String> {
    use std::io::Read;
    let unreadable = |e: std::io::Error| {
        format!("not a preset (see `ramp sim --list-presets`) and not a readable file: {e}")
    };
    let f = std::fs::File::open(path).map_err(unreadable)?;
    let mut bytes = Vec::new();
    f.take(Scenario::MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > Scenario::MAX_FILE_BYTES {
        return Err(format!(
            "longer than the maximum of {} KiB for a scenario file",
            Scenario::MAX_FILE_BYTES >> 10
        ));
    }
    String::from_utf8(bytes).map_err(|e| format!("not UTF-8 text: {e}"))
}

#[cfg(test)]
mod tests;
