//! Scenarios: a path, endpoint settings and a workload, from a preset or a
//! TOML file.
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
//! # [[path.rate_step]]          at = "5s", rate = "10mbit" (the link's rate from then on)
//! # trace = "lte.down"          # deliver at a Mahimahi trace's opportunities (replaces rate)
//! # [path.gilbert_elliott]  p_good_to_bad = 0.01, p_bad_to_good = 0.3, loss_bad = 0.5
//! # [path.policer]          rate = "10mbit", burst = "32KB"
//!
//! [endpoint]
//! mds = 1252                    # UDP payload of a full packet, bytes
//! iw = 30                       # initial window, packets
//! jump_window = 60              # full-RTT pacing window, packets
//! ack_policy = "rfc9000"        # "chrome", "ackfreq(10,25ms)"
//! max_ack_delay = "25ms"
//! server_flight = 3000          # server handshake bytes (Initial + Handshake)
//!
//! [[flow]]                      # extra flows sharing the bottleneck
//! cc = "cubic"
//! start = "200ms"
//! size = "20MB"
//! ```

use core::fmt;
use core::time::Duration;
use std::path::Path;
use std::sync::Arc;

use ramp_cc::pacer::{PacerConfig, PacerKind};
use ramp_cc::Rate;
use serde::{Deserialize, Deserializer};

use crate::link::{Aqm, DeliveryTrace, LinkConfig, LossModel};
use crate::presets;
use crate::receiver::AckPolicy;
use crate::units;
use crate::web::{HttpModel, WebConfig};
use crate::SimError;

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
    /// Random loss after the bottleneck.
    pub loss: LossModel,
    /// Token-bucket policer before the queue: (rate, burst bytes).
    pub policer: Option<(Rate, u64)>,
    /// The bottleneck's queue discipline.
    pub aqm: Aqm,
    /// Serialisation rate of the reverse path (None: infinitely fast).
    pub reverse_rate: Option<Rate>,
    /// Release reverse-path packets only at multiples of this interval.
    pub ack_aggregation: Option<Duration>,
    /// Changes of the bottleneck rate during the run, in time order: from
    /// `at` (since the simulation started) the link serves at `rate`. The
    /// queue limit stays the bytes it was at the first rate.
    pub rate_steps: Vec<RateStep>,
    /// A Mahimahi delivery trace the forward link delivers at instead of
    /// `rate` (`rate` is then the trace's mean rate).
    pub trace: Option<Arc<DeliveryTrace>>,
}

/// One change of the bottleneck rate ([`PathConfig::rate_steps`]).
pub use crate::link::RateStep;

impl PathConfig {
    /// Base (idle) RTT: the sum of the one-way delays.
    pub fn rtt(&self) -> Duration {
        self.forward_delay + self.reverse_delay
    }
    /// Queue limit in bytes.
    pub fn queue_bytes(&self) -> u64 {
        match self.queue {
            QueueLimit::Time(d) => crate::link::queue_bytes_for(self.rate, d),
            QueueLimit::Bytes(b) => b,
        }
    }
    /// The forward (data) direction as the shared link model sees it.
    pub fn forward_link(&self) -> LinkConfig {
        LinkConfig {
            rate: self.rate,
            limit_bytes: self.queue_bytes(),
            aqm: self.aqm,
            delay: self.forward_delay,
            loss: self.loss,
            policer: self.policer,
            rate_steps: self.rate_steps.clone(),
            trace: self.trace.clone(),
        }
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
    /// Send packets ECN-capable (ECT(0)).
    pub ecn: bool,
    /// The server's pacer (ramp-cc): leaky bucket (default), quinn, off.
    pub pacer: PacerKind,
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
    /// The flow under test's object size, bytes.
    pub size_bytes: u64,
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
                loss: if p.loss > 0.0 {
                    LossModel::Bernoulli { p: p.loss }
                } else {
                    LossModel::None
                },
                policer: None,
                aqm: Aqm::DropTail,
                reverse_rate: None,
                ack_aggregation: None,
                rate_steps: Vec::new(),
                trace: None,
            },
            endpoint: EndpointConfig {
                mds: 1252,
                iw_packets: p.iw_packets,
                jump_packets: p.jump_packets,
                ack_policy: AckPolicy::Rfc9000,
                max_ack_delay: Duration::from_millis(25),
                server_flight_bytes: 3000,
                ecn: false,
                pacer: PacerKind::LeakyBucket(PacerConfig {
                    max_datagram_size: 1252,
                    ..PacerConfig::default()
                }),
            },
            size_bytes: 3_000_000,
            seed: 1,
            cross_flows: Vec::new(),
            web: Vec::new(),
            time_limit: Duration::from_secs(600),
        }
    }

    /// A preset by name, or a TOML file if `name_or_path` is not a preset.
    pub fn load(name_or_path: &str) -> Result<Scenario, ScenarioError> {
        if let Some(p) = presets::find(name_or_path) {
            return Ok(Scenario::from_preset(&p));
        }
        let text = std::fs::read_to_string(name_or_path).map_err(|e| ScenarioError {
            file: name_or_path.to_string(),
            message: format!(
                "not a preset (see `ramp sim --list-presets`) and not a readable file: {e}"
            ),
        })?;
        let stem = std::path::Path::new(name_or_path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| name_or_path.to_string());
        let dir = Path::new(name_or_path).parent();
        Scenario::parse_toml(&text, &stem, dir).map_err(|mut e| {
            e.file = name_or_path.to_string();
            e
        })
    }

    /// Parses a TOML scenario. Errors name the key and its line. Files it
    /// names (`path.trace`) are read relative to the working directory.
    pub fn from_toml(text: &str, name: &str) -> Result<Scenario, ScenarioError> {
        Scenario::parse_toml(text, name, None)
    }

    /// [`Scenario::from_toml`], reading the files it names relative to
    /// `dir` (the scenario file's directory) when given.
    fn parse_toml(text: &str, name: &str, dir: Option<&Path>) -> Result<Scenario, ScenarioError> {
        let file: FileScenario = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            ScenarioError {
                file: name.to_string(),
                message: match line {
                    Some(l) => format!("line {l}: {}", e.message()),
                    None => e.message().to_string(),
                },
            }
        })?;
        let err = |m: String| ScenarioError {
            file: name.to_string(),
            message: m,
        };
        let mut sc = match &file.preset {
            Some(p) => Scenario::from_preset(
                &presets::find(p).ok_or_else(|| err(format!("preset: unknown preset `{p}`")))?,
            ),
            None => Scenario::from_preset(
                &presets::find("seed-100m")
                    .ok_or_else(|| err("internal: seed-100m preset missing".to_string()))?,
            ),
        };
        sc.name = file.name.clone().unwrap_or_else(|| name.to_string());
        set(&mut sc.seed, file.seed);
        set(&mut sc.size_bytes, file.size.map(|Q(s)| s));
        set(&mut sc.time_limit, file.time_limit.map(|Q(t)| t));
        if let Some(p) = file.path {
            p.apply(&mut sc.path, dir).map_err(err)?;
        }
        if let Some(e) = file.endpoint {
            e.apply(&mut sc.endpoint).map_err(err)?;
        }
        for f in file.flow {
            sc.cross_flows.push(FlowConfig {
                cc: f.cc,
                start: f.start.map(|q| q.0).unwrap_or_default(),
                size_bytes: f.size.map(|q| q.0).unwrap_or(sc.size_bytes),
            });
        }
        for w in file.web {
            let mut model = HttpModel::default();
            set(&mut model.reading, w.reading.map(|Q(d)| d));
            set(&mut model.parsing, w.parsing.map(|Q(d)| d));
            sc.web.push(WebConfig {
                users: w.users,
                cc: w.cc,
                start: w.start.map(|q| q.0).unwrap_or_default(),
                horizon: w.horizon.map(|q| q.0).unwrap_or(Duration::from_secs(30)),
                model,
            });
        }
        sc.validate().map_err(|e| err(e.0))?;
        Ok(sc)
    }

    /// Checks the invariants the simulator relies on.
    pub fn validate(&self) -> Result<(), SimError> {
        let p = &self.path;
        let e = &self.endpoint;
        rate_in("path.rate", p.rate)?;
        if let Some(r) = p.reverse_rate {
            rate_in("path.reverse_rate", r)?;
        }
        within("path.forward_delay", p.forward_delay, MAX_DELAY)?;
        within("path.reverse_delay", p.reverse_delay, MAX_DELAY)?;
        if let Aqm::Step { threshold } = p.aqm {
            within("path.aqm step threshold", threshold, MAX_DELAY)?;
        }
        if let Some(a) = p.ack_aggregation {
            within("path.ack_aggregation", a, MAX_ACK_AGGREGATION)?;
        }
        if p.trace.is_some() && !p.rate_steps.is_empty() {
            return Err("path.trace: rate steps do not apply to a trace-driven link".into());
        }
        for (i, step) in p.rate_steps.iter().enumerate() {
            rate_in("path.rate_step.rate", step.rate)?;
            if i > 0 && step.at <= p.rate_steps[i - 1].at {
                return Err("path.rate_step: the steps' `at` times must increase".into());
            }
        }
        if e.mds < 1200 || e.mds > 65_527 {
            return Err("endpoint.mds: must lie in 1200..=65527 (RFC 9000 §14)".into());
        }
        if p.queue_bytes() < e.mds {
            return Err("path.queue: must hold at least one full packet".into());
        }
        count_in("path.queue (bytes)", p.queue_bytes(), 1, MAX_BYTES_IN_PATH)?;
        if let Some((rate, burst)) = p.policer {
            rate_in("path.policer.rate", rate)?;
            count_in("path.policer.burst", burst, e.mds, MAX_BYTES_IN_PATH)?;
        }
        count_in("endpoint.iw (packets)", e.iw_packets, 1, MAX_WINDOW_PACKETS)?;
        count_in(
            "endpoint.jump_window (packets)",
            e.jump_packets,
            1,
            MAX_WINDOW_PACKETS,
        )?;
        within("endpoint.max_ack_delay", e.max_ack_delay, MAX_ACK_DELAY)?;
        count_in(
            "endpoint.server_flight (bytes)",
            e.server_flight_bytes,
            1,
            MAX_SERVER_FLIGHT,
        )?;
        count_in("size (bytes)", self.size_bytes, 1, MAX_OBJECT)?;
        if self.time_limit.is_zero() {
            return Err("time_limit: must be positive".into());
        }
        within("time_limit", self.time_limit, MAX_TIME_LIMIT)?;
        count_in("flows", self.cross_flows.len() as u64, 0, MAX_CROSS_FLOWS)?;
        for (i, f) in self.cross_flows.iter().enumerate() {
            count_in(
                &format!("flow {}: size (bytes)", i + 1),
                f.size_bytes,
                1,
                MAX_OBJECT,
            )?;
            within(&format!("flow {}: start", i + 1), f.start, self.time_limit)?;
        }
        for (i, w) in self.web.iter().enumerate() {
            let key = |k: &str| format!("web {}: {k}", i + 1);
            count_in(&key("users"), u64::from(w.users), 1, MAX_WEB_USERS)?;
            within(&key("start"), w.start, self.time_limit)?;
            within(&key("horizon"), w.horizon, self.time_limit)?;
            if w.model.reading.is_zero() {
                return Err(SimError(format!("{}: must be positive", key("reading"))));
            }
        }
        Ok(())
    }
}

// The documented range of every scenario number (docs/simulator.md,
// "Ranges"): wide enough for any real path, narrow enough that a typo
// (ms for s, bits for bytes) fails at once instead of running for hours.

/// Rates: 1 kbit/s to 1 Tbit/s.
const RATE_BYTES_PER_SEC: core::ops::RangeInclusive<u64> = 125..=125_000_000_000;
/// One-way delays and marking thresholds: at most 10 s.
const MAX_DELAY: Duration = Duration::from_secs(10);
/// ACK aggregation interval: at most 1 s.
const MAX_ACK_AGGREGATION: Duration = Duration::from_secs(1);
/// RFC 9000 §18.2: max_ack_delay values of 2^14 ms or more are invalid.
const MAX_ACK_DELAY: Duration = Duration::from_millis(16_383);
/// Queue and policer bucket: at most 1 GB.
const MAX_BYTES_IN_PATH: u64 = 1_000_000_000;
/// Initial and jump windows: at most 10 000 packets.
const MAX_WINDOW_PACKETS: u64 = 10_000;
/// A server's handshake flight: at most 1 MB (real TLS flights are a few
/// kB to a few tens of kB).
const MAX_SERVER_FLIGHT: u64 = 1_000_000;
/// Objects: at most 10 GB.
const MAX_OBJECT: u64 = 10_000_000_000;
/// Simulated time: at most one hour.
const MAX_TIME_LIMIT: Duration = Duration::from_secs(3600);
/// Cross flows on one bottleneck.
const MAX_CROSS_FLOWS: u64 = 64;
/// Web users per `[[web]]` table (each draws a page every ~30 s).
const MAX_WEB_USERS: u64 = 256;

fn within(key: &str, v: Duration, max: Duration) -> Result<(), String> {
    if v > max {
        return Err(format!("{key}: {v:?} is above the maximum {max:?}"));
    }
    Ok(())
}

fn count_in(key: &str, v: u64, lo: u64, hi: u64) -> Result<(), String> {
    if !(lo..=hi).contains(&v) {
        return Err(format!("{key}: {v} is outside {lo}..={hi}"));
    }
    Ok(())
}

fn rate_in(key: &str, r: Rate) -> Result<(), String> {
    if !RATE_BYTES_PER_SEC.contains(&r.bytes_per_sec()) {
        return Err(format!(
            "{key}: {} bit/s is outside 1 kbit/s ..= 1 Tbit/s",
            r.bits_per_sec()
        ));
    }
    Ok(())
}

/// A scenario that could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// File (or preset) name.
    pub file: String,
    /// What is wrong, with the key and line when known.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// A quantity parsed from a string (or a bare number) by one of `units`.
#[derive(Clone, Copy, Debug)]
struct Q<T>(T);

macro_rules! quantity {
    ($t:ty, $parse:path) => {
        impl<'de> Deserialize<'de> for Q<$t> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = units::QuantityText::deserialize(d)?.0;
                $parse(&s).map(Q).map_err(serde::de::Error::custom)
            }
        }
    };
}
quantity!(Rate, units::parse_rate);
quantity!(Duration, units::parse_duration);
quantity!(u64, units::parse_size);
quantity!(f64, units::parse_loss);

impl<'de> Deserialize<'de> for Q<Aqm> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map(Q).map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for Q<AckPolicy> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        AckPolicy::parse(&s)
            .map(Q)
            .map_err(serde::de::Error::custom)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileScenario {
    name: Option<String>,
    preset: Option<String>,
    seed: Option<u64>,
    size: Option<Q<u64>>,
    time_limit: Option<Q<Duration>>,
    path: Option<FilePath>,
    endpoint: Option<FileEndpoint>,
    #[serde(default)]
    flow: Vec<FileFlow>,
    #[serde(default)]
    web: Vec<FileWeb>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileWeb {
    users: u32,
    cc: Option<String>,
    start: Option<Q<Duration>>,
    horizon: Option<Q<Duration>>,
    reading: Option<Q<Duration>>,
    parsing: Option<Q<Duration>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FilePath {
    rate: Option<Q<Rate>>,
    rtt: Option<Q<Duration>>,
    forward_delay: Option<Q<Duration>>,
    reverse_delay: Option<Q<Duration>>,
    queue: Option<Q<Duration>>,
    queue_bytes: Option<Q<u64>>,
    loss: Option<Q<f64>>,
    gilbert_elliott: Option<FileGe>,
    policer: Option<FilePolicer>,
    aqm: Option<Q<Aqm>>,
    ecn_threshold: Option<Q<Duration>>,
    reverse_rate: Option<Q<Rate>>,
    ack_aggregation: Option<Q<Duration>>,
    #[serde(default)]
    rate_step: Vec<FileRateStep>,
    trace: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRateStep {
    at: Q<Duration>,
    rate: Q<Rate>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileGe {
    p_good_to_bad: f64,
    p_bad_to_good: f64,
    #[serde(default)]
    loss_good: f64,
    #[serde(default = "one")]
    loss_bad: f64,
}

fn one() -> f64 {
    1.0
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FilePolicer {
    rate: Q<Rate>,
    burst: Q<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileEndpoint {
    mds: Option<u64>,
    iw: Option<u64>,
    jump_window: Option<u64>,
    ack_policy: Option<Q<AckPolicy>>,
    max_ack_delay: Option<Q<Duration>>,
    server_flight: Option<Q<u64>>,
    ecn: Option<bool>,
    pacer: Option<String>,
    pacer_initial_burst: Option<u64>,
    pacer_quantum: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileFlow {
    cc: Option<String>,
    start: Option<Q<Duration>>,
    size: Option<Q<u64>>,
}

/// Overrides a preset's value with the file's, when the file gives one.
fn set<T>(dst: &mut T, file_value: Option<T>) {
    if let Some(v) = file_value {
        *dst = v;
    }
}

impl FilePath {
    fn apply(self, p: &mut PathConfig, dir: Option<&Path>) -> Result<(), String> {
        set(&mut p.rate, self.rate.map(|Q(r)| r));
        if let Some(file) = &self.trace {
            if self.rate.is_some() || !self.rate_step.is_empty() {
                return Err(
                    "path.trace: a trace sets the link's rate; give no rate or rate_step with it"
                        .into(),
                );
            }
            let path = match dir {
                Some(d) if Path::new(file).is_relative() => d.join(file),
                _ => Path::new(file).to_path_buf(),
            };
            let t = DeliveryTrace::load(&path).map_err(|e| format!("path.trace: {e}"))?;
            p.rate = t.mean_rate();
            p.rate_steps.clear();
            p.trace = Some(Arc::new(t));
        }
        if let Some(Q(rtt)) = self.rtt {
            if self.forward_delay.is_some() || self.reverse_delay.is_some() {
                return Err("path.rtt: give either rtt or forward_delay/reverse_delay".into());
            }
            p.forward_delay = rtt / 2;
            p.reverse_delay = rtt - rtt / 2;
        }
        set(&mut p.forward_delay, self.forward_delay.map(|Q(d)| d));
        set(&mut p.reverse_delay, self.reverse_delay.map(|Q(d)| d));
        match (self.queue, self.queue_bytes) {
            (Some(_), Some(_)) => {
                return Err("path.queue: give either queue (time) or queue_bytes".into())
            }
            (Some(Q(d)), None) => p.queue = QueueLimit::Time(d),
            (None, Some(Q(b))) => p.queue = QueueLimit::Bytes(b),
            (None, None) => {}
        }
        match (self.loss, self.gilbert_elliott) {
            (Some(_), Some(_)) => {
                return Err("path.loss: give either loss or [path.gilbert_elliott]".into())
            }
            (Some(Q(l)), None) => {
                p.loss = if l > 0.0 {
                    LossModel::Bernoulli { p: l }
                } else {
                    LossModel::None
                }
            }
            (None, Some(ge)) => {
                for (k, v) in [
                    ("p_good_to_bad", ge.p_good_to_bad),
                    ("p_bad_to_good", ge.p_bad_to_good),
                    ("loss_good", ge.loss_good),
                    ("loss_bad", ge.loss_bad),
                ] {
                    if !(0.0..=1.0).contains(&v) {
                        return Err(format!("path.gilbert_elliott.{k}: must lie in [0, 1]"));
                    }
                }
                p.loss = LossModel::GilbertElliott {
                    p_good_to_bad: ge.p_good_to_bad,
                    p_bad_to_good: ge.p_bad_to_good,
                    loss_good: ge.loss_good,
                    loss_bad: ge.loss_bad,
                };
            }
            (None, None) => {}
        }
        if let Some(pol) = self.policer {
            p.policer = Some((pol.rate.0, pol.burst.0));
        }
        match (self.aqm, self.ecn_threshold) {
            (Some(_), Some(_)) => {
                return Err(
                    "path: give either aqm or ecn_threshold (the latter is aqm = \"step:<delay>\")"
                        .into(),
                )
            }
            (Some(Q(a)), None) => p.aqm = a,
            (None, Some(Q(threshold))) => p.aqm = Aqm::Step { threshold },
            (None, None) => {}
        }
        set(&mut p.reverse_rate, self.reverse_rate.map(|Q(r)| Some(r)));
        if let Some(Q(d)) = self.ack_aggregation {
            if d.is_zero() {
                return Err("path.ack_aggregation: must be positive".into());
            }
            p.ack_aggregation = Some(d);
        }
        if !self.rate_step.is_empty() {
            p.rate_steps = self
                .rate_step
                .into_iter()
                .map(|s| RateStep {
                    at: s.at.0,
                    rate: s.rate.0,
                })
                .collect();
        }
        Ok(())
    }
}

impl FileEndpoint {
    fn apply(self, e: &mut EndpointConfig) -> Result<(), String> {
        set(&mut e.mds, self.mds);
        if let Some(iw) = self.iw {
            e.iw_packets = iw;
            e.jump_packets = 2 * iw;
        }
        set(&mut e.jump_packets, self.jump_window);
        set(&mut e.ack_policy, self.ack_policy.map(|Q(a)| a));
        set(&mut e.max_ack_delay, self.max_ack_delay.map(|Q(d)| d));
        if let Some(Q(b)) = self.server_flight {
            if b == 0 {
                return Err("endpoint.server_flight: must be at least 1 byte".into());
            }
            e.server_flight_bytes = b;
        }
        set(&mut e.ecn, self.ecn);
        let mut cfg = match e.pacer {
            PacerKind::LeakyBucket(c) => c,
            _ => PacerConfig::default(),
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
            Some("off") => PacerKind::Off,
            Some(other) => {
                return Err(format!(
                    "endpoint.pacer: unknown pacer `{other}` (use leaky-bucket, quinn, off)"
                ))
            }
        };
        Ok(())
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn rate_steps_parse_in_order_and_must_increase() {
        let sc = Scenario::from_toml(
            "[path]\nrate = \"20mbit\"\n[[path.rate_step]]\nat = \"1s\"\nrate = \"5mbit\"\n[[path.rate_step]]\nat = \"2s\"\nrate = \"20mbit\"\n",
            "steps",
        )
        .unwrap();
        assert_eq!(sc.path.rate_steps.len(), 2);
        assert_eq!(sc.path.rate_steps[0].at, Duration::from_secs(1));
        assert_eq!(sc.path.rate_steps[0].rate.bits_per_sec(), 5_000_000);
        let bad = Scenario::from_toml(
            "[[path.rate_step]]\nat = \"2s\"\nrate = \"5mbit\"\n[[path.rate_step]]\nat = \"1s\"\nrate = \"20mbit\"\n",
            "bad",
        );
        let msg = bad.map(|_| ()).unwrap_err().to_string();
        assert!(msg.contains("path.rate_step"), "{msg}");
    }

    use super::*;

    #[test]
    fn path_trace_reads_a_mahimahi_file_relative_to_the_scenario() {
        let dir = std::env::temp_dir().join(format!("ramp-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // One 1500-byte opportunity every 2 ms: 6 Mbit/s.
        let ops: String = (1..=50).map(|i| format!("{}\n", 2 * i)).collect();
        std::fs::write(dir.join("six.trace"), ops).unwrap();
        std::fs::write(dir.join("bad.trace"), "1\n2\nfast\n").unwrap();
        let file = dir.join("t.toml");
        std::fs::write(&file, "[path]\ntrace = \"six.trace\"\nrtt = \"40ms\"\n").unwrap();
        let sc = Scenario::load(file.to_str().unwrap()).unwrap();
        assert_eq!(sc.path.rate.bits_per_sec(), 6_000_000);
        assert_eq!(sc.path.trace.as_ref().map(|t| t.opportunities()), Some(50));
        std::fs::write(&file, "[path]\ntrace = \"bad.trace\"\n").unwrap();
        let msg = Scenario::load(file.to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("path.trace: ") && msg.contains("bad.trace:3: `fast`"),
            "{msg}"
        );
        std::fs::write(&file, "[path]\ntrace = \"six.trace\"\nrate = \"5mbit\"\n").unwrap();
        let msg = Scenario::load(file.to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(msg.contains("give no rate"), "{msg}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_scenario_number_has_a_range_and_the_error_names_the_key() {
        let base = Scenario::load("seed-100m").unwrap();
        assert!(base.validate().is_ok());
        type Change = Box<dyn Fn(&mut Scenario)>;
        let cases: Vec<(&str, Change)> = vec![
            (
                "endpoint.server_flight",
                Box::new(|s| s.endpoint.server_flight_bytes = 100_000_000),
            ),
            (
                "path.forward_delay",
                Box::new(|s| s.path.forward_delay = Duration::from_secs(30)),
            ),
            (
                "path.rate",
                Box::new(|s| s.path.rate = Rate::from_bits_per_sec(100)),
            ),
            (
                "endpoint.iw",
                Box::new(|s| s.endpoint.iw_packets = 1_000_000),
            ),
            (
                "endpoint.max_ack_delay",
                Box::new(|s| s.endpoint.max_ack_delay = Duration::from_secs(20)),
            ),
            ("size", Box::new(|s| s.size_bytes = 0)),
            (
                "time_limit",
                Box::new(|s| s.time_limit = Duration::from_secs(86_400)),
            ),
            (
                "path.queue",
                Box::new(|s| s.path.queue = QueueLimit::Bytes(10_000_000_000)),
            ),
        ];
        for (key, change) in cases {
            let mut s = base.clone();
            change(&mut s);
            let e = s.validate().unwrap_err();
            assert!(e.0.starts_with(key), "{key}: {e}");
        }
    }

    #[test]
    fn toml_overrides_a_preset() {
        let sc = Scenario::from_toml(
            "preset = \"vdsl\"\nsize = \"1MB\"\n[path]\nloss = \"1%\"\nqueue_bytes = 100000\n\
             [endpoint]\nack_policy = \"ackfreq(10, 5ms)\"\n[[flow]]\ncc = \"cubic\"\nstart = \"1s\"\n",
            "t",
        )
        .unwrap();
        assert_eq!(sc.path.rate.bits_per_sec(), 55_000_000);
        assert_eq!(sc.path.rtt(), Duration::from_millis(39));
        assert_eq!(sc.path.queue, QueueLimit::Bytes(100_000));
        assert_eq!(sc.path.loss, LossModel::Bernoulli { p: 0.01 });
        assert_eq!(sc.size_bytes, 1_000_000);
        assert_eq!(
            sc.endpoint.ack_policy,
            AckPolicy::AckFrequency {
                packets: 10,
                delay: Duration::from_millis(5)
            }
        );
        assert_eq!(sc.cross_flows.len(), 1);
        assert_eq!(sc.cross_flows[0].start, Duration::from_secs(1));
    }

    #[test]
    fn errors_name_the_key_and_line() {
        let e = Scenario::from_toml("seed = 1\n[path]\nrate = \"fast\"\n", "bad").unwrap_err();
        assert!(e.message.contains("line 3"), "{e}");
        assert!(e.message.contains("fast"), "{e}");
        let e = Scenario::from_toml("[path]\nrtt = \"1ms\"\nqeue = \"3ms\"\n", "bad").unwrap_err();
        assert!(
            e.message.contains("line 3") && e.message.contains("qeue"),
            "{e}"
        );
        let e = Scenario::from_toml("preset = \"nope\"\n", "bad").unwrap_err();
        assert!(e.message.contains("preset"), "{e}");
    }
}
