//! The scenario file format: TOML read into a [`Scenario`], every key
//! optional over a preset (the example is in the parent module's docs).
//! Quantities go through the one unit grammar ([`ramp_vocab::units`]); unknown
//! keys are refused, and an error names the key and its line.

mod endpoint;
mod lines;
mod path;

#[cfg(test)]
mod adding_an_element;
#[cfg(test)]
mod error_texts;

use core::time::Duration;
use std::path::Path;

use ramp_cc::Rate;
use serde::{Deserialize, Deserializer};
use toml::Spanned;

use crate::receiver::AckPolicy;
use crate::units;
use crate::web::{HttpModel, WebConfig};
use ramp_link::Aqm;

use super::{presets, FileError, FlowConfig, Scenario, ScenarioError};
use crate::SimError;
use lines::KeyLines;

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
        // A table's refusal: its text is the message, the typed error the
        // cause.
        let refused = |e: FileError| ScenarioError {
            cause: Some(Box::new(SimError::ScenarioFile(e.clone()))),
            ..err(e.to_string())
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
        set(&mut sc.size_bytes, file.size.map(|q| q.into_inner().0));
        set(
            &mut sc.time_limit,
            file.time_limit.map(|q| q.into_inner().0),
        );
        if let Some(p) = file.path {
            p.apply(&mut sc.path, dir).map_err(refused)?;
        }
        if let Some(e) = file.endpoint {
            e.apply(&mut sc.endpoint).map_err(refused)?;
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

/// A quantity parsed from a string (or a bare number) by one of `ramp_vocab::units`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Q<T>(pub(super) T);

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
    path: Option<path::FilePath>,
    endpoint: Option<endpoint::FileEndpoint>,
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileFlow {
    cc: Option<String>,
    start: Option<Q<Duration>>,
    size: Option<Q<u64>>,
}

/// Overrides a preset's value with the file's, when the file gives one.
pub(super) fn set<T>(dst: &mut T, file_value: Option<T>) {
    if let Some(v) = file_value {
        *dst = v;
    }
}

pub(crate) use lines::line_of;
