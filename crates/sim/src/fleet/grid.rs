//! Grid populations: every combination of rates × RTTs × queues × loss
//! rates × sizes, K seeds per cell, as in the lab matrix of the CUBIC /
//! HyStart++ talk (download time per loss rate).

use core::time::Duration;

use ramp_cc::Rate;

use super::population::{Access, PathSample};
use super::workload::format_size;
use crate::receiver::AckPolicy;
use crate::SimError;
use ramp_link::LossModel;

/// The axes of a grid. Cells are enumerated rates outermost, sizes
/// innermost; connection `i` is cell `i / seeds_per_cell`.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// Bottleneck rates.
    pub rates: Vec<Rate>,
    /// Base RTTs.
    pub rtts: Vec<Duration>,
    /// Queues, time at the link rate.
    pub queues: Vec<Duration>,
    /// Bernoulli loss rates.
    pub losses: Vec<f64>,
    /// Object sizes, bytes.
    pub sizes: Vec<u64>,
    /// Connections (seeds) per cell.
    pub seeds_per_cell: u64,
    /// The receivers' ACK policy.
    pub ack_policy: AckPolicy,
    /// Every cell's queue discipline.
    pub aqm: ramp_link::Aqm,
}

/// One cell of a grid.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// The path.
    pub path: PathSample,
    /// Object size, bytes.
    pub size_bytes: u64,
    /// Label naming the axes that vary, e.g. `loss=2%`.
    pub label: String,
    /// The cell's nominal axis values (the records' `grid.*` keys).
    pub coords: Coords,
}

/// A cell's place in the grid: its index and its value on every axis, as
/// the grid gives them (not as the path was built: a queue shorter than
/// [`super::MIN_QUEUE_PACKETS`] packets is lengthened on the path, and
/// `path.queue-ms` says so, but the cell is still the grid's queue).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coords {
    /// Cell number, `0..Grid::cells()` (`grid.cell`).
    pub cell: u64,
    /// Bottleneck rate, bit/s (`grid.rate-bps`).
    pub rate_bps: u64,
    /// Base RTT, µs (`grid.rtt-ms` = this / 1000).
    pub rtt_us: u64,
    /// Queue, µs at the link rate (`grid.queue-ms` = this / 1000).
    pub queue_us: u64,
    /// Bernoulli loss probability (`grid.loss`).
    pub loss: f64,
    /// Object size, bytes (`grid.size-bytes`).
    pub size_bytes: u64,
}

impl Coords {
    /// The record keys, each as `,"key":value` (appended to a record).
    pub fn json_keys(&self) -> String {
        // µs / 1000 prints exactly (40 ms as 40, 2.5 ms as 2.5).
        format!(
            ",\"grid.cell\":{},\"grid.rate-bps\":{},\"grid.rtt-ms\":{},\"grid.queue-ms\":{},\"grid.loss\":{},\"grid.size-bytes\":{}",
            self.cell,
            self.rate_bps,
            self.rtt_us as f64 / 1000.0,
            self.queue_us as f64 / 1000.0,
            self.loss,
            self.size_bytes
        )
    }
}

impl Grid {
    /// Number of cells.
    pub fn cells(&self) -> u64 {
        [
            self.rates.len(),
            self.rtts.len(),
            self.queues.len(),
            self.losses.len(),
            self.sizes.len(),
        ]
        .iter()
        .map(|&n| n as u64)
        .product()
    }

    /// Connections in the whole grid.
    pub fn connections(&self) -> u64 {
        self.cells() * self.seeds_per_cell
    }

    /// Checks the axes are non-empty and sane.
    pub fn validate(&self) -> Result<(), SimError> {
        for (name, n) in [
            ("rates", self.rates.len()),
            ("rtts", self.rtts.len()),
            ("queues", self.queues.len()),
            ("losses", self.losses.len()),
            ("sizes", self.sizes.len()),
        ] {
            if n == 0 {
                return Err(rule(&format!("grid.{name}"), "needs at least one value"));
            }
        }
        if self.seeds_per_cell == 0 {
            return Err(rule("grid.seeds", "must be at least 1"));
        }
        if self.rates.iter().any(|r| r.bytes_per_sec() == 0) {
            return Err(rule("grid.rates", "must be positive"));
        }
        if self.losses.iter().any(|l| !(0.0..1.0).contains(l)) {
            return Err(rule("grid.losses", "must lie in [0, 1)"));
        }
        if self.sizes.contains(&0) {
            return Err(rule("grid.sizes", "must be at least 1 byte"));
        }
        Ok(())
    }

    /// The cell of connection `index`: cells in order, `seeds_per_cell`
    /// connections each, wrapping after the last cell.
    pub fn cell_of_connection(&self, index: u64) -> Cell {
        self.cell((index / self.seeds_per_cell.max(1)) % self.cells().max(1))
    }

    /// Cell number `c` (`c < cells()`).
    pub fn cell(&self, c: u64) -> Cell {
        let mut rest = c;
        let mut pick = |n: usize| {
            let n = n as u64;
            let i = rest % n;
            rest /= n;
            i as usize
        };
        // Innermost first.
        let si = pick(self.sizes.len());
        let li = pick(self.losses.len());
        let qi = pick(self.queues.len());
        let ti = pick(self.rtts.len());
        let ri = pick(self.rates.len());
        let (rate, rtt, queue, loss, size) = (
            self.rates[ri],
            self.rtts[ti],
            self.queues[qi],
            self.losses[li],
            self.sizes[si],
        );
        let mut parts = Vec::new();
        if self.rates.len() > 1 {
            parts.push(format!("rate={}mbit", rate.bits_per_sec() as f64 / 1e6));
        }
        if self.rtts.len() > 1 {
            parts.push(format!(
                "rtt={}ms",
                ramp_vocab::time::duration_millis_f64(rtt)
            ));
        }
        if self.queues.len() > 1 {
            parts.push(format!(
                "queue={}ms",
                ramp_vocab::time::duration_millis_f64(queue)
            ));
        }
        if self.losses.len() > 1 {
            // Round to 1e-4 percent so 0.07 prints as 7, not 7.000000000000001.
            parts.push(format!("loss={}%", (loss * 1e6).round() / 1e4));
        }
        if self.sizes.len() > 1 {
            parts.push(format!("size={}", format_size(size)));
        }
        let label = if parts.is_empty() {
            "all".to_string()
        } else {
            parts.join(",")
        };
        Cell {
            path: PathSample {
                access: Access::Wired,
                rate,
                rtt,
                queue,
                aqm: self.aqm,
                loss: if loss > 0.0 {
                    LossModel::Bernoulli { p: loss }
                } else {
                    LossModel::None
                },
                policer: None,
                ack_aggregation: None,
                jitter: None,
                ack_batching: false,
                cellular: None,
                trace: None,
                ack_policy: self.ack_policy,
                web_users: 0,
                client_processing: core::time::Duration::ZERO,
            },
            size_bytes: size,
            label,
            coords: Coords {
                cell: c,
                rate_bps: rate.bits_per_sec(),
                rtt_us: rtt.as_micros() as u64,
                queue_us: queue.as_micros() as u64,
                loss,
                size_bytes: size,
            },
        }
    }
}

/// A grid axis's broken rule, as [`SimError::Rule`].
fn rule(field: &str, rule: &'static str) -> SimError {
    SimError::Rule {
        field: field.to_string(),
        rule,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_map_to_cells_and_coords_print_exactly() {
        let g = Grid {
            rates: vec![Rate::from_bits_per_sec(20_000_000)],
            rtts: vec![Duration::from_micros(2_500)],
            queues: vec![Duration::from_millis(40)],
            losses: vec![0.0, 0.07],
            sizes: vec![1_000],
            seeds_per_cell: 3,
            ack_policy: AckPolicy::Rfc9000,
            aqm: ramp_link::Aqm::DropTail,
        };
        assert_eq!(g.cell_of_connection(2).coords.cell, 0);
        assert_eq!(g.cell_of_connection(3).coords.cell, 1);
        assert_eq!(g.cell_of_connection(6).coords.cell, 0, "wraps");
        assert_eq!(
            g.cell_of_connection(4).coords.json_keys(),
            ",\"grid.cell\":1,\"grid.rate-bps\":20000000,\"grid.rtt-ms\":2.5,\
             \"grid.queue-ms\":40,\"grid.loss\":0.07,\"grid.size-bytes\":1000"
        );
    }
}
