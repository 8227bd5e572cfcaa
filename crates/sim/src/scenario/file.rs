//! The scenario file format: TOML read into a [`Scenario`], every key
//! optional over a preset (the example is in the parent module's docs).
//! Quantities go through the one unit grammar ([`ramp_vocab::units`]); unknown
//! keys are refused, and an error names the key and its line.

use core::time::Duration;
use std::path::Path;
use std::sync::Arc;

use ramp_cc::pacer::{PacerConfig, PacerKind, PACED_FIRST_FLIGHT_BURST_PACKETS};
use ramp_cc::{EcnCodepoint, Rate};
use serde::{Deserialize, Deserializer};
use toml::Spanned;

use crate::receiver::AckPolicy;
use crate::units;
use crate::web::{HttpModel, WebConfig};
use ramp_link::{Aqm, DeliveryTrace, LossModel};

use super::{
    presets, EndpointConfig, FlowConfig, PathConfig, QueueLimit, RateStep, Scenario, ScenarioError,
};

impl Scenario {
    /// Parses a TOML scenario. Errors name the key and its line. Files it
    /// names (`path.trace`) are read relative to the working directory.
    pub fn from_toml(text: &str, name: &str) -> Result<Scenario, ScenarioError> {
        Scenario::parse_toml(text, name, None)
    }

    /// [`Scenario::from_toml`], reading the files it names relative to
    /// `dir` (the scenario file's directory) when given.
    pub(super) fn parse_toml(
        text: &str,
        name: &str,
        dir: Option<&Path>,
    ) -> Result<Scenario, ScenarioError> {
        let at = |line: Option<usize>, m: &str| ScenarioError {
            file: name.to_string(),
            line,
            message: m.to_string(),
            cause: None,
        };
        let file: FileScenario = toml::from_str(text)
            .map_err(|e| at(e.span().map(|s| line_of(text, s.start)), e.message()))?;
        let lines = KeyLines::of(&file, text);
        // Every error after the parse names the line of the key or table
        // it is about (its message starts with the key).
        let err = |m: String| at(lines.of_message(&m), &m);
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
        set(&mut sc.size_bytes, file.size.map(|q| q.into_inner().0));
        set(
            &mut sc.time_limit,
            file.time_limit.map(|q| q.into_inner().0),
        );
        if let Some(p) = file.path {
            p.apply(&mut sc.path, dir).map_err(err)?;
        }
        if let Some(e) = file.endpoint {
            e.apply(&mut sc.endpoint).map_err(err)?;
        }
        for f in file.flow.into_iter().map(Spanned::into_inner) {
            sc.cross_flows.push(FlowConfig {
                cc: f.cc,
                start: f.start.map(|q| q.0).unwrap_or_default(),
                size_bytes: f.size.map(|q| q.0).unwrap_or(sc.size_bytes),
            });
        }
        for w in file.web.into_iter().map(Spanned::into_inner) {
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
        sc.validate().map_err(|e| ScenarioError {
            cause: Some(Box::new(e.clone())),
            ..err(e.to_string())
        })?;
        Ok(sc)
    }
}

/// The 1-based line of a byte offset in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The first line that opens table `name` or sets one of its keys:
/// `[name]`, `[name.x]`, `[[name.x]]` or a dotted `name.x = ...`.
fn table_line(text: &str, name: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let l = l.trim_start().trim_start_matches('[').trim_start();
            l.strip_prefix(name)
                .is_some_and(|rest| rest.trim_start().starts_with([']', '.']))
        })
        .map(|i| i + 1)
}

/// Where a file's keys and tables are, by line, for the errors found after
/// the parse ([`Scenario::validate`] and the tables' own checks), whose
/// messages start with the key they are about (`web 2: cc ...`,
/// `path.rate_step 3: ...`, `endpoint.iw ...`).
struct KeyLines {
    /// Top-level keys (`size`, `time_limit`) and the `[path]` and
    /// `[endpoint]` tables.
    /// The elements' keys (`path.cellular.light_fraction`) come first, so
    /// that an error about one finds its own line before the table's.
    keys: Vec<(String, usize)>,
    flows: Vec<usize>,
    webs: Vec<usize>,
    rate_steps: Vec<usize>,
}

impl KeyLines {
    fn of(f: &FileScenario, text: &str) -> KeyLines {
        let line = |start: usize| line_of(text, start);
        let mut keys = Vec::new();
        if let Some(p) = &f.path {
            for (table, e) in p.element_tables() {
                keys.extend(e.key_lines(table, text));
            }
        }
        let mut key = |k: &'static str, span: Option<core::ops::Range<usize>>| {
            if let Some(s) = span {
                keys.push((k.to_string(), line(s.start)));
            }
        };
        key("size", f.size.as_ref().map(Spanned::span));
        key("time_limit", f.time_limit.as_ref().map(Spanned::span));
        // `[path]` and `[endpoint]` by their first line in the text: toml's
        // spans are not available for a table that dotted keys or
        // `[[path.rate_step]]` create implicitly.
        for (k, line) in [
            ("path", table_line(text, "path")),
            ("endpoint", table_line(text, "endpoint")),
        ] {
            if let Some(l) = line {
                keys.push((k.to_string(), l));
            }
        }
        KeyLines {
            keys,
            flows: f.flow.iter().map(|t| line(t.span().start)).collect(),
            webs: f.web.iter().map(|t| line(t.span().start)).collect(),
            rate_steps: f
                .path
                .as_ref()
                .map(|p| p.rate_step.iter().map(|t| line(t.span().start)).collect())
                .unwrap_or_default(),
        }
    }

    /// The line of the key or table an error message starts with.
    fn of_message(&self, m: &str) -> Option<usize> {
        // `flow 3: ...`, `web 1: ...`, `path.rate_step 2: ...`: the table.
        let nth = |prefix: &str, lines: &[usize]| {
            let rest = m.strip_prefix(prefix)?;
            let n: usize = rest[..rest.find(':')?].parse().ok()?;
            lines.get(n.checked_sub(1)?).copied()
        };
        nth("flow ", &self.flows)
            .or_else(|| nth("web ", &self.webs))
            .or_else(|| nth("path.rate_step ", &self.rate_steps))
            // Too many `[[flow]]` tables: the first one past the limit.
            .or_else(|| {
                let limit = m.strip_prefix("flows: ")?;
                let max: usize = limit.rsplit("..=").next()?.trim().parse().ok()?;
                self.flows.get(max).copied()
            })
            .or_else(|| {
                self.keys.iter().find_map(|(k, line)| {
                    let rest = m.strip_prefix(k.as_str())?;
                    rest.starts_with([':', '.', ' ']).then_some(*line)
                })
            })
    }
}

/// A quantity parsed from a string (or a bare number) by one of `ramp_vocab::units`.
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
quantity!(Rate, ramp_vocab::units::parse_rate);
quantity!(Duration, ramp_vocab::units::parse_duration);
quantity!(u64, ramp_vocab::units::parse_size);
quantity!(f64, ramp_vocab::units::parse_loss);

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
    size: Option<Spanned<Q<u64>>>,
    time_limit: Option<Spanned<Q<Duration>>>,
    path: Option<FilePath>,
    endpoint: Option<FileEndpoint>,
    #[serde(default)]
    flow: Vec<Spanned<FileFlow>>,
    #[serde(default)]
    web: Vec<Spanned<FileWeb>>,
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

/// `[path]`: the path's own keys, and one table per link element in
/// `ramp_link::ELEMENTS` (`[path.cellular]`, `[path.jitter]`,
/// `[path.policer]`, `[path.gilbert_elliott]`), whose fields the list's
/// macro writes, so that a new element needs no line here.
macro_rules! file_path {
    ($($table:ident),*) => {
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
            aqm: Option<Q<Aqm>>,
            ecn_threshold: Option<Q<Duration>>,
            reverse_rate: Option<Q<Rate>>,
            ack_aggregation: Option<units::QuantityText>,
            #[serde(default)]
            rate_step: Vec<Spanned<FileRateStep>>,
            trace: Option<String>,
            ack_batching: Option<FileBatching>,
            $($table: Option<FileElement>,)*
        }

        impl FilePath {
            /// The element tables the file gives, by table name, in
            /// `ramp_link::ELEMENTS`' order.
            fn element_tables(&self) -> Vec<(&'static str, &FileElement)> {
                [$((stringify!($table), self.$table.as_ref())),*]
                    .into_iter()
                    .filter_map(|(t, e)| Some((t, e?)))
                    .collect()
            }
        }
    };
}
ramp_link::element_tables!(file_path);

/// A link element's table (`[path.cellular]`, …): its keys in file
/// order, each value kept as text with its byte span, for the element's
/// one option table in ramp-link ([`ramp_link::Element`]), which the
/// command line's `--cellular=…` (and the other element flags) read too.
/// A key is optional over the element's sourced default where it has one.
struct FileElement(Vec<(String, Spanned<units::QuantityText>)>);

impl<'de> Deserialize<'de> for FileElement {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = FileElement;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a table of the element's keys")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<FileElement, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    out.push((k, map.next_value()?));
                }
                Ok(FileElement(out))
            }
        }
        d.deserialize_map(V)
    }
}

impl FileElement {
    /// The table's `KEY=VALUE` pairs, in file order.
    fn pairs(&self) -> Vec<(&str, &str)> {
        self.0
            .iter()
            .map(|(k, v)| (k.as_str(), v.get_ref().0.as_str()))
            .collect()
    }

    /// The element the table gives; an error starts with `path.TABLE.KEY`.
    #[cfg(test)]
    fn element<E: ramp_link::Element>(&self, table: &str) -> Result<E, String> {
        ramp_link::from_pairs(self.pairs()).map_err(|e| format!("path.{table}.{e}"))
    }

    /// Sets `[path.TABLE]`'s element in `elements` through its slot; an
    /// error starts with `path.TABLE.KEY`.
    fn set(&self, table: &str, elements: &mut ramp_link::LinkElements) -> Result<(), String> {
        let slot = ramp_link::slot(table)
            .ok_or_else(|| format!("path.{table}: not a link element (internal)"))?;
        (slot.set)(elements, &self.pairs()).map_err(|e| format!("path.{table}.{e}"))
    }

    /// Each key's `path.TABLE.KEY` and the line of its value.
    fn key_lines(&self, table: &str, text: &str) -> Vec<(String, usize)> {
        self.0
            .iter()
            .map(|(k, v)| (format!("path.{table}.{k}"), line_of(text, v.span().start)))
            .collect()
    }
}

/// `path.ack_batching`: a built-in table's name or quantile points.
#[derive(Deserialize)]
#[serde(untagged)]
enum FileBatching {
    Name(String),
    Table(Vec<(f64, u64)>),
}

impl FileBatching {
    fn latency(self) -> Result<Option<crate::wakeup::WakeupLatency>, String> {
        use crate::wakeup::WakeupLatency;
        match self {
            FileBatching::Name(n) if n == "real-mode" => {
                Ok(Some(WakeupLatency::real_mode_measured()))
            }
            FileBatching::Name(n) if n == "off" => Ok(None),
            FileBatching::Name(n) => Err(format!(
                "path.ack_batching: \"real-mode\", \"off\" or a table [[p, µs], ...], not {n:?}"
            )),
            FileBatching::Table(t) => WakeupLatency::new(
                t.into_iter()
                    .map(|(p, us)| (p, Duration::from_micros(us)))
                    .collect(),
            )
            .map(Some)
            .map_err(|e| format!("path.ack_batching: {e}")),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRateStep {
    at: Q<Duration>,
    rate: Q<Rate>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileEndpoint {
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
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileFlow {
    cc: Option<String>,
    start: Option<Q<Duration>>,
    size: Option<Q<u64>>,
}

/// `endpoint.ecn`: a switch (`true` = ECT(0)) or a codepoint name.
#[derive(Deserialize)]
#[serde(untagged)]
enum FileEcn {
    Switch(bool),
    Name(String),
}

impl FileEcn {
    fn codepoint(self) -> Result<EcnCodepoint, String> {
        match self {
            FileEcn::Switch(true) => Ok(EcnCodepoint::Ect0),
            FileEcn::Switch(false) => Ok(EcnCodepoint::NotEct),
            FileEcn::Name(n) => {
                EcnCodepoint::parse_send(&n).map_err(|e| format!("endpoint.ecn: {e}, not {n:?}"))
            }
        }
    }
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
        if let Some(Q(l)) = self.loss {
            p.elements.loss = LossModel::bernoulli(l);
        }
        for (table, e) in self.element_tables() {
            let field = ramp_link::slot(table).map(|s| s.names.field);
            if field == Some("loss") && self.loss.is_some() {
                return Err(format!("path.loss: give either loss or [path.{table}]"));
            }
            // A trace-driven link cannot be cellular too: `validate` says so.
            e.set(table, &mut p.elements)?;
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
        if let Some(t) = &self.ack_aggregation {
            let a = ramp_link::AckAggregation::parse(&t.0).map_err(|e| format!("path.{e}"))?;
            p.elements.aggregation = Some(a);
        }
        if let Some(b) = self.ack_batching {
            p.ack_batching = b.latency()?;
        }
        if !self.rate_step.is_empty() {
            p.rate_steps = self
                .rate_step
                .into_iter()
                .map(Spanned::into_inner)
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
    /// `flow_control = "chrome" | "off"`, then `stream_window` /
    /// `connection_window` override either window (the other stays
    /// Chrome's when none was set).
    fn apply_flow_control(&self, e: &mut EndpointConfig) -> Result<(), String> {
        use crate::flow_control::FlowWindows;
        match self.flow_control.as_deref() {
            None => {}
            Some("chrome") => e.flow_windows = Some(FlowWindows::CHROME),
            Some("off") => e.flow_windows = None,
            Some(other) => {
                return Err(format!(
                    "endpoint.flow_control: unknown setting `{other}` (use chrome, off)"
                ))
            }
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

    fn apply(self, e: &mut EndpointConfig) -> Result<(), String> {
        set(&mut e.mds, self.mds);
        if let Some(iw) = self.iw {
            e.set_initial_window(iw);
        }
        set(&mut e.jump_packets, self.jump_window);
        set(&mut e.ack_policy, self.ack_policy.map(|Q(a)| a));
        set(&mut e.max_ack_delay, self.max_ack_delay.map(|Q(d)| d));
        if let Some(Q(d)) = self.client_processing {
            if d > Duration::from_secs(10) {
                return Err("endpoint.client_processing: at most 10s".into());
            }
            e.client_handshake_processing = d;
        }
        if let Some(Q(b)) = self.server_flight {
            if b == 0 {
                return Err("endpoint.server_flight: must be at least 1 byte".into());
            }
            e.server_flight_bytes = b;
        }
        self.apply_flow_control(e)?;
        if let Some(r) = &self.resumption {
            e.resumption = crate::resumption::Resumption::parse(r).map_err(|e| e.to_string())?;
        }
        match (&self.resume_rate, &self.resume_rtt) {
            (Some(Q(rate)), Some(Q(rtt))) => {
                e.resume = Some(ramp_cc::resume::SavedPath {
                    rate: *rate,
                    rtt: *rtt,
                })
            }
            (None, None) => {}
            _ => {
                return Err("endpoint.resume_rate: give resume_rate and resume_rtt together".into())
            }
        }
        if let Some(Q(h)) = self.client_rtt_hint {
            if h.is_zero() {
                return Err("endpoint.client_rtt_hint: must be more than 0".into());
            }
            e.client_rtt_hint = Some(h);
        }
        set(&mut e.client_closes, self.client_closes);
        set(&mut e.packet_overhead, self.packet_overhead);
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
            Some(other) => {
                return Err(format!(
                    "endpoint.pacer: unknown pacer `{other}` (use leaky-bucket, quinn, quicly, off)"
                ))
            }
        };
        Ok(())
    }
}

#[cfg(test)]
mod adding_an_element {
    //! A new link element, written outside ramp-link as a new one is: its
    //! struct, its option table and its check, nothing else. The scenario
    //! file's table reader ([`FileElement`]) and the command line's value
    //! parser (`ramp_link::parse_spec`) read it with no code of its own, to
    //! the same value and the same errors. A real element also takes a
    //! field and a row in `ramp_link::LinkElements`/`ELEMENTS` and the line
    //! in `ramp_link::Link` that applies it (docs/architecture.md); the
    //! second test shows that this file's `[path]` reader then takes its
    //! table with no line of its own, as the CLI's flags do (its tests in
    //! cli/src/link_elements.rs).

    use core::time::Duration;

    use ramp_link::{key_help, parse_spec, spec_of, Element, ElementError, ElementOption};

    use super::FileElement;

    /// A toy element: reorder `share` of the packets by `by`.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Reorder {
        share: f64,
        by: Duration,
    }

    impl Element for Reorder {
        const OPTIONS: &'static [ElementOption<Reorder>] = &[
            ElementOption {
                key: "share",
                values: "<0..1>",
                help: "share of the packets held back",
                parse: |r, v| {
                    r.share = v
                        .parse()
                        .map_err(|_| format!("expected a number, not {v:?}"))?;
                    Ok(())
                },
                display: |r| r.share.to_string(),
            },
            ElementOption {
                key: "by",
                values: "<duration>",
                help: "how long a held packet waits",
                parse: |r, v| {
                    r.by = ramp_vocab::units::parse_duration(v).map_err(|e| e.to_string())?;
                    Ok(())
                },
                display: |r| ramp_link::duration_text(r.by),
            },
        ];
        const DEFAULT: Reorder = Reorder {
            share: 0.01,
            by: Duration::from_millis(1),
        };
        fn check(&self) -> Result<(), ElementError> {
            if (0.0..=1.0).contains(&self.share) {
                Ok(())
            } else {
                Err(ElementError::Value {
                    key: "share",
                    reason: "must lie in [0, 1]".into(),
                })
            }
        }
    }

    /// `[path.reorder]` as the scenario file's reader reads it.
    fn from_toml(table: &str) -> Result<Reorder, String> {
        #[derive(serde::Deserialize)]
        struct Path {
            reorder: FileElement,
        }
        let p: Path = toml::from_str(&format!("[reorder]\n{table}")).map_err(|e| e.to_string())?;
        p.reorder.element("reorder")
    }

    #[test]
    fn a_new_element_is_read_by_the_file_and_the_flag_parser_through_its_table_alone() {
        let file = from_toml("share = 0.05\nby = \"4ms\"\n").unwrap();
        let flag = parse_spec::<Reorder>("share=0.05,by=4ms").unwrap();
        assert_eq!(file, flag);
        assert_eq!(
            file,
            Reorder {
                share: 0.05,
                by: Duration::from_millis(4)
            }
        );
        // Keys left out keep the defaults; the printer reads back.
        assert_eq!(from_toml("").unwrap(), Reorder::DEFAULT);
        assert_eq!(parse_spec::<Reorder>(&spec_of(&flag)), Ok(flag));
        // The same refusal both ways, naming the key.
        let e = from_toml("share = 2\n").unwrap_err();
        assert_eq!(e, "path.reorder.share: must lie in [0, 1]");
        let e = parse_spec::<Reorder>("share=2").unwrap_err().to_string();
        assert_eq!(e, "share: must lie in [0, 1]");
        let e = from_toml("delay = \"1ms\"\n").unwrap_err();
        assert_eq!(e, "path.reorder.delay: unknown key (keys: share, by)");
        // Help comes from the table.
        assert_eq!(
            key_help::<Reorder>(),
            [
                "share=<0..1>  share of the packets held back (default 0.01)",
                "by=<duration>  how long a held packet waits (default 1ms)"
            ]
        );
    }

    /// Every element of `ramp_link::ELEMENTS`, written as its
    /// `[path.TABLE]` from its example text, gives the path its slot gives
    /// from the same text, and an unknown key in it is refused with the
    /// table's name: the reader has no line of its own per element.
    #[test]
    fn every_listed_element_is_read_from_its_table_with_no_code_of_its_own_here() {
        let base = crate::Scenario::from_toml("", "t").unwrap().path.elements;
        for s in ramp_link::ELEMENTS {
            let n = &s.names;
            let mut table = format!("[path.{}]\n", n.table);
            for kv in n.example.split(',') {
                let (k, v) = kv.split_once('=').unwrap();
                table += &format!("{k} = \"{v}\"\n");
            }
            let sc = crate::Scenario::from_toml(&table, "t").unwrap();
            let mut want = base;
            s.set_spec(&mut want, n.example).unwrap();
            assert_eq!(sc.path.elements, want, "{table}");
            let e = crate::Scenario::from_toml(&format!("{table}nonsense = 1\n"), "t")
                .unwrap_err()
                .to_string();
            let key = format!("path.{}.nonsense: unknown key", n.table);
            assert!(e.contains(&key), "{e}");
        }
    }
}
