//! The `[grid]` table: a population of every combination of the given
//! rates, RTTs, queues, losses and sizes instead of regions.

use core::time::Duration;

use ramp_cc::Rate;
use serde::Deserialize;

use super::{parse_list, Qty};
use crate::fleet::grid::Grid;
use crate::receiver::AckPolicy;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileGrid {
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

/// The grid the table gives; an error starts with the key.
pub(super) fn read(g: &FileGrid) -> Result<Grid, String> {
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
