//! A run directory: what `ramp compare`, `ramp fleet` and `ramp sim`
//! write and `ramp report` reads (docs/charts.md § Run directory).
//!
//! ```text
//! RUN_DIR/
//!   records.ndjson     stats records, one per connection (required)
//!   traces/*.ndjson    per-connection traces (optional; any file names,
//!                      read in name order)
//!   scenario.toml      the scenario as run (optional; shown verbatim)
//!   summary.json       a fleet run's summary (optional; its headline
//!                      statistics and their intervals join the Arms table)
//! ```

use super::explorer::ExplorerData;
use super::headline::{read_headline, ArmHeadline};
use super::records::RunRecords;
use crate::error::{Error, Result};
use crate::trace::{read_trace, Trace};
use std::path::Path;

/// Everything a report is made from.
#[derive(Debug, Clone, Default)]
pub struct RunData {
    /// Report title, e.g. the scenario name.
    pub title: String,
    /// The scenario as run (TOML or free text), shown verbatim.
    pub scenario: Option<String>,
    /// Stats records, one per connection, as the report needs them.
    pub records: RunRecords,
    /// Per-connection traces.
    pub traces: Vec<Trace>,
    /// The arm the others are compared against. `None`: the arm named
    /// `baseline` if there is one, else the first arm in name order.
    pub baseline: Option<String>,
    /// The explorer's data when it should come from other records than
    /// `records` (e.g. a fleet run's full records.ndjson where `records`
    /// holds the charts' few keys). `None`: from `records`.
    pub explorer: Option<ExplorerData>,
    /// A fleet run's headline statistics with their 95 % confidence
    /// intervals (its summary.json), shown in the Arms table; empty for
    /// other runs.
    pub headline: Vec<ArmHeadline>,
}

impl RunData {
    /// Reads a run directory.
    pub fn load(dir: &Path) -> Result<RunData> {
        if !dir.is_dir() {
            return Err(Error::Data(format!(
                "{}: not a run directory",
                dir.display()
            )));
        }
        let records_path = dir.join("records.ndjson");
        if !records_path.is_file() {
            return Err(Error::Data(format!(
                "{}: missing records.ndjson (a run directory holds records.ndjson, traces/*.ndjson and optionally scenario.toml)",
                dir.display()
            )));
        }
        let records = RunRecords::read(&records_path)?;
        let mut traces = Vec::new();
        let traces_dir = dir.join("traces");
        if traces_dir.is_dir() {
            let mut paths: Vec<_> = std::fs::read_dir(&traces_dir)
                .map_err(|e| Error::io(&traces_dir, &e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "ndjson"))
                .collect();
            paths.sort();
            for p in paths {
                traces.push(read_trace(&p)?);
            }
        }
        let scenario_path = dir.join("scenario.toml");
        let scenario = if scenario_path.is_file() {
            Some(
                std::fs::read_to_string(&scenario_path)
                    .map_err(|e| Error::io(&scenario_path, &e))?,
            )
        } else {
            None
        };
        let title = traces
            .iter()
            .find_map(|t| t.meta.scenario.clone())
            .or_else(|| {
                dir.canonicalize()
                    .ok()
                    .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            })
            .unwrap_or_else(|| "ramp run".to_string());
        Ok(RunData {
            title,
            scenario,
            records,
            traces,
            baseline: None,
            explorer: None,
            headline: read_headline(dir)?,
        })
    }

    /// The record key naming the arm: `group` when every record has one,
    /// else `cc.algorithm`.
    pub fn arm_key(&self) -> &'static str {
        self.records.arm_key()
    }

    /// Arm names in order of first appearance in the records.
    pub fn arms(&self) -> Vec<String> {
        self.records.arms()
    }

    /// Sets the baseline arm, which must be one of the run's arms (a name
    /// that is not would leave the report without its A/B charts).
    pub fn set_baseline(&mut self, arm: &str) -> Result<()> {
        let arms = self.arms();
        if !arms.iter().any(|a| a == arm) {
            return Err(Error::Data(format!(
                "--baseline {arm}: no such arm in this run (its arms, by `{}`: {})",
                self.arm_key(),
                if arms.is_empty() {
                    "none".to_string()
                } else {
                    arms.join(", ")
                }
            )));
        }
        self.baseline = Some(arm.to_string());
        Ok(())
    }

    /// The baseline arm (see [`RunData::baseline`]).
    pub fn baseline_arm(&self) -> Option<String> {
        let arms = self.arms();
        match &self.baseline {
            Some(b) => Some(b.clone()),
            None if arms.iter().any(|a| a == "baseline") => Some("baseline".to_string()),
            None => arms.first().cloned(),
        }
    }
}
