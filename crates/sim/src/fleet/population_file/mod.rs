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
//! video_share = 0.0                  # objects that are video segments, sized by the path's
//!                                    # rate (Apple's HLS ladder x 6 s, dash.js's rule) [assumption]
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
//! [endpoint]                         # the servers, all regions
//! respect_app_limited_share = 0.0    # connections whose CC respects app-limited (quicly's
//!                                    # rule; the rest grow on every ACK) [assumption]
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

mod assumption;
mod endpoint;
mod grid;
mod lines;
mod paths;
mod region;
mod workload;

use serde::Deserialize;

use super::assumptions::{self, Assumption};
use super::population::{PathModel, Region};
use super::workload::Workload;
use super::Population;
use crate::scenario::line_of;
use crate::units;
use crate::SimError;
use lines::key_line;

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
    workload: Option<toml::Spanned<workload::FileWorkload>>,
    #[serde(default)]
    region: Vec<toml::Spanned<region::FileRegion>>,
    grid: Option<toml::Spanned<grid::FileGrid>>,
    paths: Option<toml::Spanned<paths::FilePaths>>,
    users: Option<toml::Spanned<super::users::FileUsers>>,
    endpoint: Option<toml::Spanned<endpoint::FileEndpoint>>,
    #[serde(default)]
    assumption: Vec<toml::Spanned<assumption::FileAssumption>>,
}

/// A list of quantities, each read by `f`; an error starts with `key`.
fn parse_list<T>(
    key: &str,
    v: &[Qty],
    f: impl Fn(&str) -> Result<T, ramp_vocab::units::UnitError>,
) -> Result<Vec<T>, String> {
    v.iter()
        .map(|q| f(&q.0.clone()).map_err(|e| format!("{key}: {e}")))
        .collect()
}

/// An error on a line of the file (the file's name is added by
/// [`PopulationFile::load`]).
fn on_line(line: usize, message: String) -> SimError {
    SimError::PopulationFile {
        file: None,
        line: Some(line),
        message,
    }
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
        let whole = |message: &str| SimError::PopulationFile {
            file: None,
            line: None,
            message: message.to_string(),
        };
        // The TOML reader's error names the line; a value's error (a wrong
        // type) is also given its key, which the reader's message lacks.
        let file: File = toml::from_str(text).map_err(|e| {
            let message = e.message().trim();
            SimError::PopulationFile {
                file: None,
                line: e.span().map(|s| line_of(text, s.start)),
                message: match e.span().and_then(|s| lines::value_key(text, s.start)) {
                    Some(key) => format!("{key}: {message}"),
                    None => message.to_string(),
                },
            }
        })?;
        let workload_error = |w: &toml::Spanned<workload::FileWorkload>, e: String| {
            let at = line_of(text, w.span().start);
            on_line(key_line(text, at, &e), format!("workload.{e}"))
        };
        let mut workload = match &file.workload {
            None => Workload::seed(),
            Some(w) => workload::read(w.get_ref()).map_err(|e| workload_error(w, e))?,
        };
        let video_share = match &file.workload {
            None => None,
            Some(w) => workload::video_share(w.get_ref()).map_err(|e| workload_error(w, e))?,
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
            (Some(_), true) if file.endpoint.is_some() => {
                let at = file
                    .endpoint
                    .as_ref()
                    .map_or(0, |e| line_of(text, e.span().start));
                return Err(on_line(
                    at,
                    "endpoint: a grid has no regions to set it on (its arms run as written)"
                        .to_string(),
                ));
            }
            (Some(_), true) if video_share.is_some() => {
                let w = file
                    .workload
                    .as_ref()
                    .ok_or(SimError::Internal("video_share"))?;
                return Err(workload_error(
                    w,
                    "video_share: a grid's cells carry their own sizes".to_string(),
                ));
            }
            (Some(g), true) => {
                let at = line_of(text, g.span().start);
                Population::Grid(Box::new(
                    grid::read(g.get_ref())
                        .map_err(|e| on_line(key_line(text, at, &e), format!("grid.{e}")))?,
                ))
            }
            (None, false) => {
                let model = match &file.paths {
                    None => PathModel::default(),
                    Some(p) => {
                        let at = line_of(text, p.span().start);
                        paths::read(p.get_ref())
                            .map_err(|e| on_line(key_line(text, at, &e), format!("paths.{e}")))?
                    }
                };
                let mut out = Vec::new();
                for r in &file.region {
                    let at = line_of(text, r.span().start);
                    let fr = r.get_ref();
                    let mut reg = region::read(fr).map_err(|e| {
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
                if let Some(e) = &file.endpoint {
                    let at = line_of(text, e.span().start);
                    endpoint::apply(e.get_ref(), &mut out)
                        .map_err(|e| on_line(key_line(text, at, &e), format!("endpoint.{e}")))?;
                }
                if let Some(v) = video_share {
                    for r in &mut out {
                        r.video_share = v;
                    }
                }
                Population::Regions(out)
            }
        };
        let declared = assumption::declared(&file.assumption, &population, text)?;
        let assumptions = assumptions::merged(assumptions::builtin(&population), declared);
        Ok(PopulationFile {
            name: file.name.unwrap_or_else(|| stem.to_string()),
            population,
            workload,
            assumptions,
        })
    }
}
