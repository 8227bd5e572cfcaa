//! Fleet A/B experiments: many connections, each on a path drawn from a
//! population, each run once per arm (controller), as in the Rapid Start
//! production experiment (the Rapid Start slides, IETF 125) — in simulation.
//!
//! - [`Population`]: regions ([`population::Region`], docs/experiments.md) or a
//!   [`grid::Grid`] of fixed paths.
//! - [`workload::Workload`]: object sizes and the bins they are reported in.
//! - [`arms::Arm`]: a labelled controller; the first arm is the baseline.
//! - [`FleetPlan`]: all of the above plus a connection count and a seed;
//!   [`FleetPlan::connection`] draws connection `i`'s path from the run seed
//!   and `i` alone, so every arm sees the same path, and the simulator's
//!   per-element generators are seeded from that path's seed, so every arm
//!   sees the same random-loss draws (a paired design).
//! - [`run::run`]: all connections on all cores, results handed over in
//!   connection order (byte-identical at any thread count) through a
//!   bounded reorder window (memory flat in the number of connections).
//! - [`summary`]: TTLB change per arm against the baseline and the
//!   loss-ratio table, globally, per region and per size bin.
//! - [`experiments`]: the built-in experiments, one per published one.
//! - [`population_file`]: custom populations in TOML.
//! - [`assumptions`]: the parameters no source pins down, declared with
//!   a range and a reason.

pub mod access;
pub mod app_limited;
pub mod arms;
pub mod assumptions;
pub mod bootstrap;
pub mod dist;
pub mod experiments;
pub mod grid;
pub mod params;
pub mod population;
pub mod population_file;
pub mod run;
pub mod sensitivity;
mod spill;
pub mod summarizer;
pub mod summary;
pub mod users;
pub mod video;
pub mod workload;

use core::time::Duration;

use crate::scenario::{QueueLimit, Scenario};
use crate::{flows_for, simulate, SimError, TraceSink};
use ramp_vocab::rng::Rng;

pub use arms::{parse_arms, Arm, ArmError};
pub use grid::Grid;
pub use population::{Access, PathSample, Region};
pub use workload::{SizeDist, Workload};

/// Where connections' paths come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Population {
    /// A weighted mixture of regions; the records' `pop` is the region.
    Regions(Vec<Region>),
    /// Every cell of a grid, K connections each; `pop` is the cell label
    /// and the grid's sizes replace the workload's.
    Grid(Box<Grid>),
}

impl Population {
    /// The `pop` values in report order.
    pub fn pops(&self) -> Vec<String> {
        match self {
            Population::Regions(rs) => rs.iter().map(|r| r.name.clone()).collect(),
            Population::Grid(g) => (0..g.cells()).map(|c| g.cell(c).label).collect(),
        }
    }
}

/// A whole fleet experiment.
#[derive(Clone, Debug, PartialEq)]
pub struct FleetPlan {
    /// Name (preset or population file), the records' `scenario`.
    pub name: String,
    /// Paths.
    pub population: Population,
    /// Object sizes (ignored by grids, which carry their own).
    pub workload: Workload,
    /// Arms; the first is the baseline.
    pub arms: Vec<Arm>,
    /// Connections (each runs once per arm).
    pub connections: u64,
    /// Run seed.
    pub seed: u64,
    /// Endpoint settings and time limit every connection starts from.
    pub base: Scenario,
}

/// One connection of a plan, ready to simulate.
#[derive(Clone, Debug, PartialEq)]
pub struct Connection {
    /// Index in the run, 0-based (`conn` in the records).
    pub index: u64,
    /// The path's seed: the simulator's `seed` for every arm.
    pub path_seed: u64,
    /// Region or grid cell.
    pub pop: String,
    /// Access type.
    pub access: Access,
    /// Whether a policer sits on the path.
    pub policed: bool,
    /// Web users sharing the bottleneck.
    pub web_users: u32,
    /// Size-bin label.
    pub bin: String,
    /// The grid cell's axis values (grid populations only).
    pub grid: Option<grid::Coords>,
    /// The rule every arm with quicly's rule runs on this connection: its
    /// server's draw of whether it respects the app-limited state
    /// ([`app_limited`]; regions only, `None` for a grid cell: the arms
    /// run as written).
    pub cc_limited: Option<ramp_cc::loss_based::CcLimitedRule>,
    /// The scenario every arm of this connection runs.
    pub scenario: Scenario,
}

/// Smallest queue a sampled path gets, in packets: a byte limit below two
/// full packets would drop every burst regardless of the controller.
pub const MIN_QUEUE_PACKETS: u64 = 2;

/// Simulated time after which a fleet connection is cut off (recorded with
/// `completed: false`).
pub const FLEET_TIME_LIMIT: Duration = Duration::from_secs(300);

/// Cross-traffic web users start no page after this: long enough to cover
/// most transfers, short enough that a connection does not simulate
/// minutes of browsing.
pub const CROSS_TRAFFIC_HORIZON: Duration = Duration::from_secs(10);

/// The path seed of connection `index` of a run with seed `run_seed`.
pub fn path_seed(run_seed: u64, index: u64) -> u64 {
    Rng::from_u64(
        run_seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ index.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            ^ index,
    )
    .next_u64()
}

/// Offset that separates the path-sampling generator from the simulator's
/// element generators (which are derived from the same path seed).
const SAMPLING_STREAM: u64 = 0x5A3D_1E7B_0F17_C0DE;

impl FleetPlan {
    /// Checks the plan can run.
    pub fn validate(&self) -> Result<(), SimError> {
        if self.arms.is_empty() {
            return Err(SimError::NoArms);
        }
        match &self.population {
            Population::Regions(rs) => {
                if rs.is_empty() {
                    return Err(SimError::Rule {
                        field: "population".to_string(),
                        rule: "no regions",
                    });
                }
                if rs.iter().all(|r| r.weight <= 0.0) {
                    return Err(SimError::Rule {
                        field: "population".to_string(),
                        rule: "every region has weight 0",
                    });
                }
            }
            Population::Grid(g) => g.validate()?,
        }
        Ok(())
    }

    /// Draws connection `index`. Depends only on the plan's population,
    /// workload, base scenario, seed and `index` — never on the arms, the
    /// thread, or other connections.
    pub fn connection(&self, index: u64) -> Connection {
        let path_seed = path_seed(self.seed, index);
        let mut rng = Rng::from_u64(path_seed ^ SAMPLING_STREAM);
        let mut requests = None;
        let mut cc_limited = None;
        let (pop, path, size, bin, coords) = match &self.population {
            Population::Regions(rs) => {
                let total: f64 = rs.iter().map(|r| r.weight.max(0.0)).sum();
                let mut u = rng.next_f64() * total;
                let mut region = &rs[rs.len() - 1];
                for r in rs {
                    let w = r.weight.max(0.0);
                    if u < w {
                        region = r;
                        break;
                    }
                    u -= w;
                }
                let mut path = region.sample(&mut rng);
                region.cellular_links(&mut path, path_seed);
                cc_limited = Some(app_limited::connection_rule(
                    region.respect_app_limited_share,
                    path_seed,
                ));
                // A video segment's size follows the path (its own
                // stream: the size draw above stays, no other draw moves).
                let (size, _) = video::object_size(
                    region.video_share,
                    path_seed,
                    path.rate.bits_per_sec(),
                    self.workload.sample(&mut rng),
                    &self.workload.sizes,
                );
                // Page loads draw their pages from their own generator:
                // the path draws stay those of the object workload.
                requests = self.workload.pages.as_ref().map(|p| p.requests(path_seed));
                let bin = match &requests {
                    Some(r) => self.workload.bin_of(r.page_bytes()),
                    None => self.workload.bin_of(size),
                };
                (region.name.clone(), path, size, bin, None)
            }
            Population::Grid(g) => {
                let cell = g.cell_of_connection(index);
                let bin = workload::format_size(cell.size_bytes);
                let coords = Some(cell.coords);
                (cell.label, cell.path, cell.size_bytes, bin, coords)
            }
        };
        let mut sc = self.base.clone();
        sc.name = self.name.clone();
        sc.seed = path_seed;
        sc.size_bytes = size;
        if let Some(r) = requests {
            sc.size_bytes = r.total_bytes();
            sc.requests = Some(r);
        }
        let p = &mut sc.path;
        p.rate = path.rate;
        p.forward_delay = path.rtt / 2;
        p.reverse_delay = path.rtt - path.rtt / 2;
        let min_queue = MIN_QUEUE_PACKETS * sc.endpoint.mds;
        let bytes = ramp_link::queue_bytes_for(path.rate, path.queue);
        p.queue = if bytes >= min_queue {
            QueueLimit::Time(path.queue)
        } else {
            QueueLimit::Bytes(min_queue)
        };
        p.aqm = path.aqm;
        p.elements = ramp_link::LinkElements {
            policer: path.policer,
            loss: path.loss,
            cellular: path.cellular,
            jitter: path.jitter,
            aggregation: path
                .ack_aggregation
                .and_then(ramp_link::AckAggregation::new),
        };
        p.ack_batching = path
            .ack_batching
            .then(crate::wakeup::WakeupLatency::real_mode_measured);
        if let Some(t) = &path.trace {
            p.trace = Some(std::sync::Arc::clone(t));
            p.rate_steps.clear();
        }
        sc.endpoint.ack_policy = path.ack_policy;
        if !path.client_processing.is_zero() {
            sc.endpoint.client_handshake_processing = path.client_processing;
        }
        self.workload.users.apply(&mut sc, path_seed);
        if path.web_users > 0 {
            // Other users' browsers: CUBIC (Chrome's QUIC default), a page
            // each at the start, then the 3GPP model's reading times.
            sc.web = vec![crate::web::WebConfig {
                users: path.web_users,
                cc: Some("cubic".to_string()),
                start: Duration::ZERO,
                horizon: CROSS_TRAFFIC_HORIZON,
                model: crate::web::HttpModel::default(),
            }];
        }
        Connection {
            index,
            path_seed,
            pop,
            access: path.access,
            policed: path.policer.is_some(),
            web_users: path.web_users,
            bin,
            grid: coords,
            cc_limited,
            scenario: sc,
        }
    }

    /// Simulates connection `index` once per arm and returns one NDJSON
    /// line per arm (no newline), in arm order: ramp-sim's record plus
    /// `pop`, `access`, `policed`, `size-bin` and `conn`.
    pub fn run_connection(&self, index: u64) -> Result<Vec<String>, SimError> {
        let c = self.connection(index);
        self.arms
            .iter()
            .map(|arm| run_arm(&c, arm, &mut TraceSink::off()).map(|(line, _)| line))
            .collect()
    }

    /// [`FleetPlan::run_connection`], each line with the summary's row of
    /// its record, taken from the record itself: the same values a
    /// reader of the line gets (`ramp fleet` reads a resumed run's rows
    /// back from its lines), without parsing the line again.
    pub fn run_connection_rows(&self, index: u64) -> Result<Vec<ArmRecord>, SimError> {
        let c = self.connection(index);
        self.arms
            .iter()
            .map(|arm| {
                let (line, rec) = run_arm(&c, arm, &mut TraceSink::off())?;
                Ok(ArmRecord {
                    line,
                    row: summary_row(&rec, &c),
                })
            })
            .collect()
    }

    /// Simulates arm `arm` (an index into [`FleetPlan::arms`]) of
    /// connection `index` alone, with the flow under test's events going
    /// to `trace`; returns the record line [`FleetPlan::run_connection`]
    /// gives for it (the same bytes: a trace only observes). The caller
    /// finishes `trace`. `ramp fleet --trace-conn` reruns one connection
    /// of a run this way.
    pub fn trace_connection(
        &self,
        index: u64,
        arm: usize,
        trace: &mut TraceSink,
    ) -> Result<String, SimError> {
        let arm = self
            .arms
            .get(arm)
            .ok_or(SimError::Internal("no such arm"))?;
        run_arm(&self.connection(index), arm, trace).map(|(line, _)| line)
    }

    /// The run's parameters as text, one `key = value` per line
    /// (`params`: readable lines and a digest of the whole model): written
    /// next to the records, and compared on `--resume` so that a run is
    /// only ever continued with the plan that started it.
    pub fn fingerprint(&self) -> String {
        params::params_text(self)
    }
}

/// One arm of a simulated connection ([`FleetPlan::run_connection_rows`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ArmRecord {
    /// The record line (no newline).
    pub line: String,
    /// The fields of the record the summary reads.
    pub row: summary::Row,
}

/// One arm of connection `c`: its record line with the fleet keys, and
/// the record.
fn run_arm(
    c: &Connection,
    arm: &Arm,
    trace: &mut TraceSink,
) -> Result<(String, crate::Record), SimError> {
    let spec = app_limited::arm_spec(&arm.spec, c.cc_limited);
    let flows = flows_for(&c.scenario, &spec, &arm.label, c.path_seed)?;
    let out = simulate(&c.scenario, flows, c.path_seed, trace);
    let rec = out
        .records
        .into_iter()
        .next()
        .ok_or(SimError::Internal("no record for flow 0"))?;
    Ok((with_fleet_keys(rec.to_json(), c), rec))
}

/// The summary's row of connection `c`'s record `rec`: the values its line
/// carries under `conn`, `group`, `pop`, `size-bin`, `completed`,
/// `num-packets.sent` and `.lost`, and for a page load `page.bytes` and
/// `page-load-us` in place of `content_length` and `ttlb-us`.
fn summary_row(rec: &crate::Record, c: &Connection) -> summary::Row {
    summary::Row {
        conn: c.index,
        arm: rec.group.clone(),
        pop: c.pop.clone(),
        bin: c.bin.clone(),
        size_bytes: rec.page.as_ref().map_or(rec.content_length, |p| p.bytes),
        completed: rec.completed,
        ttlb_us: rec.page.as_ref().map_or(rec.ttlb_us, |p| p.load_us),
        packets_sent: rec.packets_sent,
        packets_lost: rec.packets_lost,
    }
}

/// Appends the fleet keys (and, for grid cells, the `grid.*` keys) to a
/// record's JSON object, in place.
fn with_fleet_keys(mut json: String, c: &Connection) -> String {
    use crate::record::push_u64;
    use crate::trace::push_json_str;
    use ramp_vocab::record_keys::{ACCESS, CONN, POLICED, POP, SIZE_BIN, WEB_USERS};
    fn key<'a>(json: &'a mut String, k: &str) -> &'a mut String {
        json.push_str(",\"");
        json.push_str(k);
        json.push_str("\":");
        json
    }
    if json.ends_with('}') {
        json.pop();
    }
    push_json_str(key(&mut json, POP), &c.pop);
    let s = key(&mut json, ACCESS);
    s.push('"');
    s.push_str(c.access.name());
    s.push('"');
    key(&mut json, POLICED).push_str(if c.policed { "true" } else { "false" });
    push_u64(key(&mut json, WEB_USERS), u64::from(c.web_users));
    push_json_str(key(&mut json, SIZE_BIN), &c.bin);
    push_u64(key(&mut json, CONN), c.index);
    if let Some(g) = c.grid {
        json.push_str(&g.json_keys());
    }
    json.push('}');
    json
}
