//! Grid populations: every combination of rates × RTTs × queues × loss
//! rates × sizes, K seeds per cell, as in the lab matrix of the CUBIC /
//! HyStart++ talk (shared/seeds/000: download time per loss rate).

use core::time::Duration;

use ramp_cc::Rate;

use super::population::{Access, PathSample};
use super::workload::format_size;
use crate::link::LossModel;
use crate::receiver::AckPolicy;

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
    pub fn validate(&self) -> Result<(), String> {
        for (name, n) in [
            ("rates", self.rates.len()),
            ("rtts", self.rtts.len()),
            ("queues", self.queues.len()),
            ("losses", self.losses.len()),
            ("sizes", self.sizes.len()),
        ] {
            if n == 0 {
                return Err(format!("grid.{name}: needs at least one value"));
            }
        }
        if self.seeds_per_cell == 0 {
            return Err("grid.seeds: must be at least 1".into());
        }
        if self.rates.iter().any(|r| r.bytes_per_sec() == 0) {
            return Err("grid.rates: must be positive".into());
        }
        if self.losses.iter().any(|l| !(0.0..1.0).contains(l)) {
            return Err("grid.losses: must lie in [0, 1)".into());
        }
        if self.sizes.contains(&0) {
            return Err("grid.sizes: must be at least 1 byte".into());
        }
        Ok(())
    }

    /// The name of the axis that varies most (the x axis of grid charts),
    /// in the order loss, rate, rtt, queue, size.
    pub fn main_axis(&self) -> &'static str {
        [
            ("loss", self.losses.len()),
            ("rate", self.rates.len()),
            ("rtt", self.rtts.len()),
            ("queue", self.queues.len()),
            ("size", self.sizes.len()),
        ]
        .iter()
        .fold(
            ("loss", 0),
            |best, &(n, k)| if k > best.1 { (n, k) } else { best },
        )
        .0
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
            parts.push(format!("rtt={}ms", rtt.as_secs_f64() * 1e3));
        }
        if self.queues.len() > 1 {
            parts.push(format!("queue={}ms", queue.as_secs_f64() * 1e3));
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
                loss: if loss > 0.0 {
                    LossModel::Bernoulli { p: loss }
                } else {
                    LossModel::None
                },
                policer: None,
                ack_aggregation: None,
                ack_policy: self.ack_policy,
            },
            size_bytes: size,
            label,
        }
    }
}
