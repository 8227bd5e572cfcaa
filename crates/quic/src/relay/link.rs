//! One direction of the relay: the simulator's link model (`ramp-link`),
//! driven by the relay's clock.
//!
//! The relay and `ramp-sim` run the same code for the queue: admission
//! (drop-tail counts the packet in service against the byte limit), the
//! queue discipline, random loss after the queue, the order in which the
//! generators are drawn. The one difference is the clock: the relay's is
//! the time since it started. Datagrams are not ECN-capable here (the relay
//! reads UDP payloads, not the IP header's ECN field), so an AQM drops
//! where it would mark.

use std::sync::Arc;
use std::time::Duration;

use ramp_cc::Rate;
use ramp_link::{queue_bytes_for, Aqm, DeliveryTrace, LinkConfig, LossModel};

/// The properties of one direction.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkParams {
    /// Serialisation rate.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Buffer, as time at `rate`.
    pub queue: Duration,
    /// Random loss probability (Bernoulli, after the queue).
    pub loss: f64,
    /// Queue discipline.
    pub aqm: Aqm,
    /// Deliver at a Mahimahi trace's opportunities instead of at `rate`.
    pub trace: Option<Arc<DeliveryTrace>>,
}

impl LinkParams {
    /// Delivers at `trace` from now on; the rate becomes its mean rate
    /// (which sizes the buffer given as time).
    pub fn set_trace(&mut self, trace: Arc<DeliveryTrace>) {
        self.rate = trace.mean_rate();
        self.trace = Some(trace);
    }

    /// The shared model's configuration of this direction.
    pub fn link_config(&self) -> LinkConfig {
        LinkConfig {
            rate: self.rate,
            limit_bytes: queue_bytes_for(self.rate, self.queue),
            aqm: self.aqm,
            delay: self.delay,
            loss: if self.loss > 0.0 {
                LossModel::Bernoulli { p: self.loss }
            } else {
                LossModel::None
            },
            policer: None,
            rate_steps: Vec::new(),
            trace: self.trace.clone(),
            jitter: None,
            cellular: None,
            cellular_rtt: Duration::ZERO,
        }
    }
}
