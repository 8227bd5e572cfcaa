//! Custom populations in TOML. Errors name the file, the line and the key.
//!
//! ```toml
//! name = "my-fleet"                 # the records' `scenario`
//!
//! [workload]                         # default: the seed's (200 KB – 3.2 MB)
//! min_size = "200KB"                 # log-uniform between min and max,
//! max_size = "3.2MB"                 # or: size = "1MB" (fixed)
//! bins = ["200KB", "400KB", "800KB", "1.6MB", "3.2MB"]
//! # or page loads (workload.rs, page.rs): a 3GPP page per connection,
//! # page load time as the metric, binned by page bytes unless bins given
//! # pages = true
//! # warm_share = 0.5                 # pages on a warm (pooled) connection
//!
//! [[region]]
//! name = "west-europe"               # a built-in region to start from, or
//! weight = 2                         # any new name (then give the tables)
//! rate_mbps = [4.8, 19.7, 67.7, 217, 498]   # p10 p25 p50 p75 p90
//! rtt_ms = [3.2, 7.6, 15.3, 28, 48]          # p10 p25 p50 p75 p90
//! mix = { mobile = 0.35, wifi = 0.45, wired = 0.20, policed = 0.01 }
//! chrome_ack_share = 0.6
//! capacity = { fixed = 1.55, mobile = 1.21 }  # rate = NDT quantile × this
//!                                    # (built-in regions: Ookla / NDT medians;
//!                                    # new regions: 1)
//!
//! [paths]                            # the access model (PathModel), all regions
//! fixed_aqm_share = 0.7              # fixed accesses behind an AQM
//! docsis_share = 0.5                 # of those, DOCSIS-PIE (the rest FQ-CoDel)
//! l4s_share = 0.3                    # of those, Low Latency DOCSIS (docsis_lld)
//! wifi_fq_codel_share = 0.3          # Wi-Fi hops running FQ-CoDel
//! wifi_loss_max = 0.01               # Wi-Fi loss: log-uniform 0.01 % .. this
//! mobile_loss_max = 0.005            # mobile mean loss: uniform 0 .. this
//! policed_scale = 1.0                # × each region's policed share
//! cross_traffic_share = 0.2          # fixed paths with web users on the bottleneck [assumption]
//! cross_traffic_users = 2            # (3GPP HTTP model, CUBIC; default 0 / 2)
//! capacity_weight = 1.0              # rate = NDT × capacity^this: 1 the access capacity,
//!                                    # 0 the NDT single-flow rate [assumption]
//! wifi_jitter = true                 # Wi-Fi delay variation, WiFiSeer's (default on), or
//!                                    # "median=2ms,p90=15ms": keys over WiFiSeer's, as
//!                                    # `--wifi-jitter=…` and `[path.jitter]` take them
//! ack_batching = true                # the sender's receive loop, real mode's (default off)
//! cellular_share = 1.0               # mobile paths on a cellular link (default 1)
//! cellular = true                    # their link: CellReplay's (default), false (none), or
//!                                    # "drift_mean=0.1": keys over CellReplay's, as
//!                                    # `--cellular=…` and `[path.cellular]` take them
//! trace_share = 0.5                  # mobile paths replaying a Mahimahi trace (default 0)
//! traces = ["lte.down", "5g.down"]   # ... drawn uniformly from these (paths from the working directory)
//! droptail_buffer = "mba-2023"       # drop-tail fixed buffers: FCC MBA 2023 downstream queue
//!                                    # under load, or "assumed" (50–250 ms), or [lo, hi] ms
//! mobile_aqm_share = 0.5            # mobile paths with FQ-CoDel at the bottleneck (default 0; not sourced)
//! aqm_buffer_ms = [100, 250]         # AQM'd fixed buffers, log-uniform (default [100, 250])
//! mobile_buffer = [300, 2000]        # mobile buffers: [lo, hi] ms, log-uniform, or "jiang-2012"
//!                                    # (the default, the same range) or "mba-2023"
//! access_correlation = 0.4           # access type vs bandwidth/RTT copula [assumption]
//! mobile_share_scale = 1.0           # × each region's mobile share of the mix [assumption]
//! computer_wifi_share = 0.5          # laptops'/desktops' requests over Wi-Fi [assumption]
//! client_processing_ms = 0           # client's handshake processing, ms [assumption]
//!
//! [[assumption]]                     # a parameter no source pins down (assumptions.rs):
//! key = "paths.fixed_aqm_share"      # replaces the built-in declaration of this key
//! range = [0.0, 1.0]                 # plausible values; must hold the model's value
//! reason = "no source gives the AQM share of fixed downlinks"
//! # value = 0.7                      # optional: checked against the model's value
//!
//! [users]                            # the client side (fleet/users.rs), all off by default
//! flow_control = "chrome"            # receive windows 6 MiB / stream, 15 MiB / connection
//! resumed_share = 0.5                # connections resumed with a 0-RTT request [assumption]
//! token_share = 1.0                  # of those, server holds a NEW_TOKEN token [assumption]
//! resume_jumpstart = true            # those jump to the path's saved window (RFC 9959)
//! rtt_hint = true                    # their clients send the path's RTT as gQUIC's IRTT
//!
//! # or, instead of regions, a grid:
//! # [grid]
//! # rates = ["10mbit", "100mbit"]
//! # rtts = ["20ms", "80ms"]
//! # queues = ["40ms"]
//! # losses = ["0%", "1%", "4%"]
//! # sizes = ["1MB"]
//! # seeds = 10                      # connections per cell
//! # ack_policy = "rfc9000"
//! # aqm = "codel"                   # every cell's queue discipline
//! ```

use core::time::Duration;

use ramp_cc::Rate;
use serde::Deserialize;

use super::access::BufferDepth;
use super::assumptions::{self, Assumption, AssumptionError, Param};
use super::dist::QuantileTable;
use super::grid::Grid;
use super::population::{
    seed_regions, AccessMix, CapacityScale, PathModel, Region, CHROME_ACK_SHARE,
};
use super::workload::{SizeDist, Workload};
use super::Population;
use crate::receiver::AckPolicy;
use crate::scenario::line_of;
use crate::units;
use crate::SimError;

/// A population file's contents.
#[derive(Clone, Debug, PartialEq)]
pub struct PopulationFile {
    /// Name (default: the file stem).
    pub name: String,
    /// Regions or grid.
    pub population: Population,
    /// Workload (grids ignore it).
    pub workload: Workload,
    /// Declared assumptions: the built-in ones with the file's
    /// `[[assumption]]` tables in place of theirs (none for a grid).
    pub assumptions: Vec<Assumption>,
}

/// A quantity in the file (see `crate::units::QuantityText`).
type Qty = units::QuantityText;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: Option<String>,
    workload: Option<toml::Spanned<FileWorkload>>,
    #[serde(default)]
    region: Vec<toml::Spanned<FileRegion>>,
    grid: Option<toml::Spanned<FileGrid>>,
    paths: Option<toml::Spanned<FilePaths>>,
    users: Option<toml::Spanned<super::users::FileUsers>>,
    #[serde(default)]
    assumption: Vec<toml::Spanned<FileAssumption>>,
}

/// An `[[assumption]]` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileAssumption {
    key: String,
    range: [f64; 2],
    reason: String,
    value: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FilePaths {
    fixed_aqm_share: Option<f64>,
    docsis_share: Option<f64>,
    l4s_share: Option<f64>,
    wifi_fq_codel_share: Option<f64>,
    wifi_loss_max: Option<f64>,
    mobile_loss_max: Option<f64>,
    policed_scale: Option<f64>,
    cross_traffic_share: Option<f64>,
    cross_traffic_users: Option<u32>,
    wifi_jitter: Option<FileSwitchOrSpec>,
    ack_batching: Option<bool>,
    cellular_share: Option<f64>,
    cellular: Option<FileSwitchOrSpec>,
    trace_share: Option<f64>,
    traces: Option<Vec<String>>,
    droptail_buffer: Option<FileBuffer>,
    aqm_buffer_ms: Option<[f64; 2]>,
    mobile_buffer: Option<FileBuffer>,
    mobile_aqm_share: Option<f64>,
    access_correlation: Option<f64>,
    mobile_share_scale: Option<f64>,
    computer_wifi_share: Option<f64>,
    client_processing_ms: Option<f64>,
    capacity_weight: Option<f64>,
}

/// A link element's key (`wifi_jitter`, `cellular`): `true` (the element's sourced
/// defaults), `false` (none), or `KEY=VALUE,…` over the defaults, read by
/// the element's one option table in ramp-link ([`ramp_link::Element`]),
/// as the command line and the scenario file read it. The boolean is the
/// key's first form, kept so that existing files read as before.
#[derive(Deserialize)]
#[serde(untagged)]
enum FileSwitchOrSpec {
    Switch(bool),
    Spec(String),
}

impl FileSwitchOrSpec {
    /// The element, or none; an error starts with `key`.
    fn element<E: ramp_link::Element>(&self, key: &str) -> Result<Option<E>, String> {
        match self {
            FileSwitchOrSpec::Switch(on) => Ok(on.then_some(E::DEFAULT)),
            FileSwitchOrSpec::Spec(s) => ramp_link::parse_spec(s)
                .map(Some)
                .map_err(|e| format!("{key}: {e}")),
        }
    }
}

/// `droptail_buffer`, `mobile_buffer`: a named table or a log-uniform
/// `[lo, hi]` in ms.
#[derive(Deserialize)]
#[serde(untagged)]
enum FileBuffer {
    Named(String),
    Range([f64; 2]),
}

/// A buffer key's value: "mba-2023" (the FCC MBA fixed-downlink table),
/// the key's own named default, or a log-uniform `[lo, hi]` in ms.
fn buffer_depth(
    key: &str,
    b: &FileBuffer,
    default_name: &str,
    default: BufferDepth,
) -> Result<BufferDepth, String> {
    match b {
        FileBuffer::Named(n) if n == "mba-2023" => Ok(BufferDepth::mba_2023()),
        FileBuffer::Named(n) if n == default_name => Ok(default),
        FileBuffer::Named(n) => Err(format!(
            "{key}: unknown table `{n}` (\"mba-2023\", \"{default_name}\" or [lo, hi] in ms)"
        )),
        FileBuffer::Range(r) => {
            let (lo, hi) = buffer_range(key, *r)?;
            Ok(BufferDepth::LogUniform(lo, hi))
        }
    }
}

/// The longest buffer a population may give, ms.
const MAX_BUFFER_MS: f64 = 10_000.0;

/// A `[lo, hi]` buffer range in ms: 1 ≤ lo ≤ hi ≤ 10 s.
fn buffer_range(key: &str, [lo, hi]: [f64; 2]) -> Result<(f64, f64), String> {
    if !(lo >= 1.0 && lo <= hi && hi <= MAX_BUFFER_MS) {
        return Err(format!(
            "{key}: give [lo, hi] in ms with 1 <= lo <= hi <= {MAX_BUFFER_MS}, got [{lo}, {hi}]"
        ));
    }
    Ok((lo, hi))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileCapacity {
    fixed: f64,
    mobile: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileWorkload {
    size: Option<Qty>,
    min_size: Option<Qty>,
    max_size: Option<Qty>,
    bins: Option<Vec<Qty>>,
    pages: Option<bool>,
    warm_share: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRegion {
    name: String,
    weight: Option<f64>,
    rate_mbps: Option<Vec<f64>>,
    rtt_ms: Option<Vec<f64>>,
    mix: Option<FileMix>,
    chrome_ack_share: Option<f64>,
    capacity: Option<FileCapacity>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileMix {
    mobile: f64,
    wifi: f64,
    wired: f64,
    #[serde(default)]
    policed: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileGrid {
    rates: Vec<Qty>,
    rtts: Vec<Qty>,
    queues: Vec<Qty>,
    #[serde(default)]
    losses: Vec<Qty>,
    sizes: Vec<Qty>,
    seeds: Option<u64>,
    ack_policy: Option<String>,
    aqm: Option<String>,
}

const QUANTILE_PS: [f64; 5] = [0.10, 0.25, 0.50, 0.75, 0.90];

/// How far a region's `mix` (mobile + wifi + wired) may sum from 1: three
/// shares written to two decimals are each up to 0.005 off, so 0.015 in
/// all; a sum further off is a mistake (a share typed twice, a percentage
/// for a fraction), refused rather than silently rescaled. The shares
/// accepted are still divided by their sum, so they sample exactly.
const MIX_SUM_TOLERANCE: f64 = 0.015;

fn parse_list<T>(
    key: &str,
    v: &[Qty],
    f: impl Fn(&str) -> Result<T, ramp_vocab::units::UnitError>,
) -> Result<Vec<T>, String> {
    v.iter()
        .map(|q| f(&q.0.clone()).map_err(|e| format!("{key}: {e}")))
        .collect()
}

impl PopulationFile {
    /// The largest population file read: real ones are a few kB; `/dev/zero`
    /// or a records file given by mistake is refused after this many bytes
    /// instead of being read into memory whole.
    pub const MAX_FILE_BYTES: u64 = 1 << 20;

    /// A population file's text, at most [`Self::MAX_FILE_BYTES`].
    pub fn read_text(path: &str) -> Result<String, SimError> {
        ramp_vocab::bounded_read::read_capped_to_string(
            std::path::Path::new(path),
            Self::MAX_FILE_BYTES,
            "a population file",
        )
        .map_err(|e| SimError::PopulationFile {
            file: Some(path.to_string()),
            line: None,
            message: e.to_string(),
        })
    }

    /// Reads a population file.
    pub fn load(path: &str) -> Result<PopulationFile, SimError> {
        let text = Self::read_text(path)?;
        let stem = std::path::Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.to_string());
        PopulationFile::parse(&text, &stem).map_err(|e| match e {
            SimError::PopulationFile { line, message, .. } => SimError::PopulationFile {
                file: Some(path.to_string()),
                line,
                message,
            },
            other => other,
        })
    }

    /// Parses a population file's text; `stem` is the default name. Errors
    /// read `line N: key: what is wrong`.
    pub fn parse(text: &str, stem: &str) -> Result<PopulationFile, SimError> {
        // Every error names its line when it has one: the key's, or the
        // line of the table the key is in.
        let on_line = |line: usize, message: String| SimError::PopulationFile {
            file: None,
            line: Some(line),
            message,
        };
        let whole = |message: &str| SimError::PopulationFile {
            file: None,
            line: None,
            message: message.to_string(),
        };
        let file: File = toml::from_str(text).map_err(|e| SimError::PopulationFile {
            file: None,
            line: e.span().map(|s| line_of(text, s.start)),
            message: e.message().trim().to_string(),
        })?;
        let mut workload = match &file.workload {
            None => Workload::seed(),
            Some(w) => {
                let at = line_of(text, w.span().start);
                workload(w.get_ref())
                    .map_err(|e| on_line(key_line(text, at, &e), format!("workload.{e}")))?
            }
        };
        if let Some(u) = &file.users {
            let at = line_of(text, u.span().start);
            workload.users = u
                .get_ref()
                .model()
                .map_err(|e| on_line(key_line(text, at, &e), format!("users.{e}")))?;
        }
        let population = match (&file.grid, file.region.is_empty()) {
            (Some(_), false) => {
                return Err(whole("give either [[region]] tables or a [grid], not both"))
            }
            (None, true) => {
                return Err(whole(
                    "no [[region]] tables and no [grid]: nothing to sample",
                ))
            }
            (Some(g), true) => {
                let at = line_of(text, g.span().start);
                Population::Grid(Box::new(
                    grid(g.get_ref())
                        .map_err(|e| on_line(key_line(text, at, &e), format!("grid.{e}")))?,
                ))
            }
            (None, false) => {
                let model = match &file.paths {
                    None => PathModel::default(),
                    Some(p) => {
                        let at = line_of(text, p.span().start);
                        paths(p.get_ref())
                            .map_err(|e| on_line(key_line(text, at, &e), format!("paths.{e}")))?
                    }
                };
                let mut out = Vec::new();
                for r in &file.region {
                    let at = line_of(text, r.span().start);
                    let fr = r.get_ref();
                    let mut reg = region(fr).map_err(|e| {
                        on_line(key_line(text, at, &e), format!("region `{}`: {e}", fr.name))
                    })?;
                    reg.paths = model.clone();
                    if out.iter().any(|o: &Region| o.name == reg.name) {
                        return Err(on_line(at, format!("region `{}`: defined twice", reg.name)));
                    }
                    out.push(reg);
                }
                if out.iter().all(|r| r.weight <= 0.0) {
                    return Err(whole("every region has weight 0"));
                }
                Population::Regions(out)
            }
        };
        let mut declared = Vec::new();
        for a in &file.assumption {
            let at = line_of(text, a.span().start);
            let fa = a.get_ref();
            let d = Param::parse(&fa.key)
                .and_then(|p| {
                    if declared.iter().any(|d: &Assumption| d.param == p) {
                        return Err(AssumptionError::DeclaredTwice { param: p });
                    }
                    let r = (fa.range[0], fa.range[1]);
                    Assumption::declare(&population, p, r, &fa.reason, fa.value)
                })
                .map_err(|e| on_line(at, format!("assumption: {e}")))?;
            declared.push(d);
        }
        let assumptions = assumptions::merged(assumptions::builtin(&population), declared);
        Ok(PopulationFile {
            name: file.name.unwrap_or_else(|| stem.to_string()),
            population,
            workload,
            assumptions,
        })
    }
}

fn workload(w: &FileWorkload) -> Result<Workload, String> {
    let size = |key: &str, q: &Qty| {
        ramp_vocab::units::parse_size(&q.0.clone()).map_err(|e| format!("{key}: {e}"))
    };
    let sizes = match (&w.size, &w.min_size, &w.max_size) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err("size: give either size or min_size/max_size".into())
        }
        (Some(s), None, None) => SizeDist::Fixed(size("size", s)?.max(1)),
        (None, lo, hi) => {
            let lo = match lo {
                Some(q) => size("min_size", q)?,
                None => super::workload::SEED_BIN_EDGES[0],
            };
            let hi = match hi {
                Some(q) => size("max_size", q)?,
                None => super::workload::SEED_BIN_EDGES[4],
            };
            if lo == 0 || hi <= lo {
                return Err("max_size: must exceed min_size, which must be positive".into());
            }
            SizeDist::LogUniform { lo, hi }
        }
    };
    let pages = w.pages.unwrap_or(false);
    let warm_share = w.warm_share.unwrap_or(0.0);
    if !(0.0..=1.0).contains(&warm_share) {
        return Err(format!("warm_share: must lie in [0, 1], not {warm_share}"));
    }
    if warm_share > 0.0 && !pages {
        return Err("warm_share: needs pages = true".into());
    }
    let bin_edges = match &w.bins {
        None if pages => super::workload::PAGE_BIN_EDGES.to_vec(),
        None => super::workload::SEED_BIN_EDGES.to_vec(),
        Some(b) => {
            let e = parse_list("bins", b, ramp_vocab::units::parse_size)?;
            if e.windows(2).any(|w| w[0] >= w[1]) {
                return Err("bins: edges must be strictly ascending".into());
            }
            e
        }
    };
    Ok(Workload {
        sizes,
        bin_edges,
        users: Default::default(),
        pages: pages.then(|| super::workload::PageLoads {
            model: crate::web::HttpModel::default(),
            warm_share,
        }),
    })
}

/// The line of the key an error is about: `header` is the line of the
/// table the error was found in, and `err` starts with the key (`rtt_ms:
/// ...`, `mix.wifi: ...`). The first line after the header, before the next
/// table header, that sets the key (`rtt_ms = ...`, or `mix = ...` for
/// `mix.wifi`); the header's own line if none does (a key set in a
/// sub-table, or an error about the table as a whole).
fn key_line(text: &str, header: usize, err: &str) -> usize {
    let key: String = err
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        .collect();
    let first = key.split('.').next().unwrap_or_default();
    if first.is_empty() || !err[key.len()..].starts_with(':') {
        // Not `key: ...`: an error about the table as a whole.
        return header;
    }
    let sets = |line: &str, k: &str| {
        line.trim_start()
            .strip_prefix(k)
            .is_some_and(|rest| rest.trim_start().starts_with(['=', '.']))
    };
    text.lines()
        .enumerate()
        .skip(header)
        .take_while(|(_, l)| !l.trim_start().starts_with('['))
        .find(|(_, l)| sets(l, &key) || sets(l, first))
        .map_or(header, |(i, _)| i + 1)
}

fn table(key: &str, v: &[f64]) -> Result<QuantileTable, String> {
    if v.len() != QUANTILE_PS.len() {
        return Err(format!(
            "{key}: give 5 values (p10, p25, p50, p75, p90), got {}",
            v.len()
        ));
    }
    if let Some(bad) = v.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
        return Err(format!(
            "{key}: values must be non-negative numbers, got {bad}"
        ));
    }
    let pts: Vec<(f64, f64)> = QUANTILE_PS.iter().copied().zip(v.iter().copied()).collect();
    QuantileTable::new(&pts).map_err(|e| format!("{key}: {e}"))
}

fn region(r: &FileRegion) -> Result<Region, String> {
    let builtin = seed_regions().into_iter().find(|b| b.name == r.name);
    let mut reg = match (&builtin, &r.rate_mbps, &r.rtt_ms) {
        (Some(b), _, _) => b.clone(),
        (None, Some(_), Some(_)) => Region {
            name: r.name.clone(),
            weight: 1.0,
            rate_mbps: table("rate_mbps", &[1.0, 2.0, 3.0, 4.0, 5.0])?,
            rtt_ms: table("rtt_ms", &[1.0, 2.0, 3.0, 4.0, 5.0])?,
            mix: AccessMix {
                mobile: 0.4,
                wifi: 0.4,
                wired: 0.2,
                policed: 0.02,
            },
            chrome_ack_share: CHROME_ACK_SHARE,
            capacity_scale: CapacityScale::NONE,
            paths: PathModel::default(),
        },
        (None, _, _) => {
            let names: Vec<String> = seed_regions().into_iter().map(|r| r.name).collect();
            return Err(format!(
                "rate_mbps and rtt_ms are required for a region that is not built in ({})",
                names.join(", ")
            ));
        }
    };
    if r.name.chars().any(|c| c.is_control()) || r.name.is_empty() {
        return Err("name: must be non-empty text".into());
    }
    if let Some(w) = r.weight {
        if !(w >= 0.0 && w.is_finite()) {
            return Err("weight: must be a non-negative number".into());
        }
        reg.weight = w;
    }
    if let Some(v) = &r.rate_mbps {
        reg.rate_mbps = table("rate_mbps", v)?;
    }
    if let Some(v) = &r.rtt_ms {
        reg.rtt_ms = table("rtt_ms", v)?;
    }
    if let Some(m) = &r.mix {
        for (k, v) in [
            ("mobile", m.mobile),
            ("wifi", m.wifi),
            ("wired", m.wired),
            ("policed", m.policed),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(format!("mix.{k}: must lie in [0, 1]"));
            }
        }
        let sum = m.mobile + m.wifi + m.wired;
        if (sum - 1.0).abs() > MIX_SUM_TOLERANCE {
            return Err(format!(
                "mix: mobile + wifi + wired must sum to 1 (they are shares of the region's \
                 connections; policed is a share of its own), got {sum}"
            ));
        }
        reg.mix = AccessMix {
            mobile: m.mobile,
            wifi: m.wifi,
            wired: m.wired,
            policed: m.policed,
        };
    }
    if let Some(c) = r.chrome_ack_share {
        if !(0.0..=1.0).contains(&c) {
            return Err("chrome_ack_share: must lie in [0, 1]".into());
        }
        reg.chrome_ack_share = c;
    }
    if let Some(c) = &r.capacity {
        for (k, v) in [("fixed", c.fixed), ("mobile", c.mobile)] {
            if !(v > 0.0 && v <= 100.0) {
                return Err(format!("capacity.{k}: must lie in (0, 100]"));
            }
        }
        reg.capacity_scale = CapacityScale {
            fixed: c.fixed,
            mobile: c.mobile,
        };
    }
    Ok(reg)
}

fn paths(p: &FilePaths) -> Result<PathModel, String> {
    let mut m = PathModel::default();
    let share = |k: &str, v: Option<f64>, dst: &mut f64, max: f64| -> Result<(), String> {
        if let Some(v) = v {
            if !(0.0..=max).contains(&v) {
                return Err(format!("{k}: must lie in [0, {max}]"));
            }
            *dst = v;
        }
        Ok(())
    };
    share(
        "fixed_aqm_share",
        p.fixed_aqm_share,
        &mut m.fixed_aqm_share,
        1.0,
    )?;
    share("docsis_share", p.docsis_share, &mut m.docsis_share, 1.0)?;
    share("l4s_share", p.l4s_share, &mut m.l4s_share, 1.0)?;
    if m.docsis_share + m.l4s_share > 1.0 {
        return Err(format!(
            "docsis_share + l4s_share: {} + {} exceeds 1 (both are shares of the AQM'd fixed accesses)",
            m.docsis_share, m.l4s_share
        ));
    }
    share(
        "wifi_fq_codel_share",
        p.wifi_fq_codel_share,
        &mut m.wifi_fq_codel_share,
        1.0,
    )?;
    share("wifi_loss_max", p.wifi_loss_max, &mut m.wifi_loss_max, 0.5)?;
    share(
        "mobile_loss_max",
        p.mobile_loss_max,
        &mut m.mobile_loss_max,
        0.5,
    )?;
    share("policed_scale", p.policed_scale, &mut m.policed_scale, 20.0)?;
    share(
        "cross_traffic_share",
        p.cross_traffic_share,
        &mut m.cross_traffic_share,
        1.0,
    )?;
    if let Some(j) = &p.wifi_jitter {
        m.wifi_jitter = j.element("wifi_jitter")?;
    }
    if let Some(c) = &p.cellular {
        m.cellular = c.element("cellular")?;
    }
    if let Some(on) = p.ack_batching {
        m.ack_batching = on;
    }
    share(
        "cellular_share",
        p.cellular_share,
        &mut m.cellular_share,
        1.0,
    )?;
    share("trace_share", p.trace_share, &mut m.trace_share, 1.0)?;
    if let Some(files) = &p.traces {
        for f in files {
            let t = ramp_link::DeliveryTrace::load(std::path::Path::new(f))
                .map_err(|e| format!("traces: {e}"))?;
            m.traces.push(std::sync::Arc::new(t));
        }
    }
    if m.trace_share > 0.0 && m.traces.is_empty() {
        return Err("trace_share: give the traces to draw from (traces = [\"file\", ...])".into());
    }
    if let Some(b) = &p.droptail_buffer {
        m.droptail_buffer = buffer_depth("droptail_buffer", b, "assumed", BufferDepth::ASSUMED)?;
    }
    if let Some(b) = &p.mobile_buffer {
        m.mobile_buffer = buffer_depth(
            "mobile_buffer",
            b,
            "jiang-2012",
            BufferDepth::MOBILE_JIANG_2012,
        )?;
    }
    share(
        "mobile_aqm_share",
        p.mobile_aqm_share,
        &mut m.mobile_aqm_share,
        1.0,
    )?;
    if let Some(c) = p.access_correlation {
        let (lo, hi) = Param::AccessCorrelation.bounds();
        if !(lo..=hi).contains(&c) {
            return Err(format!("access_correlation: must lie in [{lo}, {hi}]"));
        }
        m.access_correlation = c;
    }
    for (param, v, field) in [
        (
            Param::MobileShareScale,
            p.mobile_share_scale,
            &mut m.mobile_share_scale,
        ),
        (
            Param::ComputerWifiShare,
            p.computer_wifi_share,
            &mut m.computer_wifi_share,
        ),
        (
            Param::ClientProcessingMs,
            p.client_processing_ms,
            &mut m.client_processing_ms,
        ),
        (
            Param::CapacityWeight,
            p.capacity_weight,
            &mut m.capacity_weight,
        ),
    ] {
        if let Some(v) = v {
            let (lo, hi) = param.bounds();
            if !(lo..=hi).contains(&v) {
                let key = param.key().trim_start_matches("paths.");
                return Err(format!("{key}: must lie in [{lo}, {hi}]"));
            }
            *field = v;
        }
    }
    if let Some(r) = p.aqm_buffer_ms {
        m.aqm_buffer_ms = buffer_range("aqm_buffer_ms", r)?;
    }
    if let Some(u) = p.cross_traffic_users {
        if !(1..=64).contains(&u) {
            return Err("cross_traffic_users: must lie in 1..=64".into());
        }
        m.cross_traffic_users = u;
    }
    Ok(m)
}

fn grid(g: &FileGrid) -> Result<Grid, String> {
    let rates: Vec<Rate> = parse_list("rates", &g.rates, ramp_vocab::units::parse_rate)?;
    let rtts: Vec<Duration> = parse_list("rtts", &g.rtts, ramp_vocab::units::parse_duration)?;
    let queues: Vec<Duration> = parse_list("queues", &g.queues, ramp_vocab::units::parse_duration)?;
    let mut losses: Vec<f64> = parse_list("losses", &g.losses, ramp_vocab::units::parse_loss)?;
    if losses.is_empty() {
        losses.push(0.0);
    }
    let sizes: Vec<u64> = parse_list("sizes", &g.sizes, ramp_vocab::units::parse_size)?;
    let ack_policy = match &g.ack_policy {
        Some(a) => AckPolicy::parse(a).map_err(|e| format!("ack_policy: {e}"))?,
        None => AckPolicy::Rfc9000,
    };
    let grid = Grid {
        rates,
        rtts,
        queues,
        losses,
        sizes,
        seeds_per_cell: g.seeds.unwrap_or(10),
        ack_policy,
        aqm: match &g.aqm {
            Some(a) => a.parse().map_err(|e| format!("aqm: {e}"))?,
            None => ramp_link::Aqm::DropTail,
        },
    };
    grid.validate()
        .map_err(|e| e.to_string().trim_start_matches("grid.").to_string())?;
    Ok(grid)
}
