//! The `[path]` table: the link's own keys, its element tables and its
//! rate steps, applied over a preset's [`PathConfig`].

use core::time::Duration;
use std::path::Path;
use std::sync::Arc;

use ramp_cc::Rate;
use serde::{Deserialize, Deserializer};
use toml::Spanned;

use crate::units;
use ramp_link::{Aqm, DeliveryTrace, LossModel};

use super::{line_of, set, Q};
use crate::scenario::{FileError, PathConfig, QueueLimit, RateStep};

/// `[path]`: the path's own keys, and one table per link element in
/// `ramp_link::ELEMENTS` (`[path.cellular]`, `[path.jitter]`,
/// `[path.policer]`, `[path.gilbert_elliott]`), whose fields the list's
/// macro writes, so that a new element needs no line here.
macro_rules! file_path {
    ($($table:ident),*) => {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        pub(super) struct FilePath {
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
            pub(super) rate_step: Vec<Spanned<FileRateStep>>,
            trace: Option<String>,
            ack_batching: Option<FileBatching>,
            header_bytes: Option<u32>,
            $($table: Option<FileElement>,)*
        }

        impl FilePath {
            /// The element tables the file gives, by table name, in
            /// `ramp_link::ELEMENTS`' order.
            pub(super) fn element_tables(&self) -> Vec<(&'static str, &FileElement)> {
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
pub(super) struct FileElement(Vec<(String, Spanned<units::QuantityText>)>);

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
    pub(super) fn element<E: ramp_link::Element>(&self, table: &str) -> Result<E, String> {
        ramp_link::from_pairs(self.pairs()).map_err(|e| format!("path.{table}.{e}"))
    }

    /// Sets `[path.TABLE]`'s element in `elements` through its slot; an
    /// error starts with `path.TABLE.KEY`.
    fn set(
        &self,
        table: &'static str,
        elements: &mut ramp_link::LinkElements,
    ) -> Result<(), FileError> {
        let slot = ramp_link::slot(table).ok_or(FileError::NotAnElement { table })?;
        (slot.set)(elements, &self.pairs()).map_err(|error| FileError::Element { table, error })
    }

    /// Each key's `path.TABLE.KEY` and the line of its value.
    pub(super) fn key_lines(&self, table: &str, text: &str) -> Vec<(String, usize)> {
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
    fn latency(self) -> Result<Option<crate::wakeup::WakeupLatency>, FileError> {
        use crate::wakeup::WakeupLatency;
        match self {
            FileBatching::Name(n) if n == "real-mode" => {
                Ok(Some(WakeupLatency::real_mode_measured()))
            }
            FileBatching::Name(n) if n == "off" => Ok(None),
            FileBatching::Name(n) => Err(FileError::AckBatchingName(n)),
            FileBatching::Table(t) => WakeupLatency::new(
                t.into_iter()
                    .map(|(p, us)| (p, Duration::from_micros(us)))
                    .collect(),
            )
            .map(Some)
            .map_err(FileError::AckBatchingTable),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileRateStep {
    at: Q<Duration>,
    rate: Q<Rate>,
}

impl FilePath {
    pub(super) fn apply(self, p: &mut PathConfig, dir: Option<&Path>) -> Result<(), FileError> {
        set(&mut p.rate, self.rate.map(|Q(r)| r));
        set(&mut p.header_bytes, self.header_bytes);
        if let Some(file) = &self.trace {
            if self.rate.is_some() || !self.rate_step.is_empty() {
                return Err(FileError::TraceWithRate);
            }
            let path = match dir {
                Some(d) if Path::new(file).is_relative() => d.join(file),
                _ => Path::new(file).to_path_buf(),
            };
            let t = DeliveryTrace::load(&path).map_err(FileError::Trace)?;
            p.rate = t.mean_rate();
            p.rate_steps.clear();
            p.trace = Some(Arc::new(t));
        }
        if let Some(Q(rtt)) = self.rtt {
            if self.forward_delay.is_some() || self.reverse_delay.is_some() {
                return Err(FileError::RttWithDelays);
            }
            p.forward_delay = rtt / 2;
            p.reverse_delay = rtt - rtt / 2;
        }
        set(&mut p.forward_delay, self.forward_delay.map(|Q(d)| d));
        set(&mut p.reverse_delay, self.reverse_delay.map(|Q(d)| d));
        match (self.queue, self.queue_bytes) {
            (Some(_), Some(_)) => return Err(FileError::QueueTimeAndBytes),
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
                return Err(FileError::LossWithTable { table });
            }
            // A trace-driven link cannot be cellular too: `validate` says so.
            e.set(table, &mut p.elements)?;
        }
        match (self.aqm, self.ecn_threshold) {
            (Some(_), Some(_)) => return Err(FileError::AqmWithThreshold),
            (Some(Q(a)), None) => p.aqm = a,
            (None, Some(Q(threshold))) => p.aqm = Aqm::Step { threshold },
            (None, None) => {}
        }
        set(&mut p.reverse_rate, self.reverse_rate.map(|Q(r)| Some(r)));
        if let Some(t) = &self.ack_aggregation {
            let a = ramp_link::AckAggregation::parse(&t.0).map_err(FileError::AckAggregation)?;
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
