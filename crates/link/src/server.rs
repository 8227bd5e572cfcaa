//! The link's server: one packet serialised at a time at the link rate.
//!
//! Modelled in virtual time, as picoquic's `sim_link` does: a packet that
//! starts at `t` leaves (last bit) at `t + size / rate`, and the next one
//! starts no earlier. A packet is counted in the backlog until its last bit
//! has left, so the byte limit of a queue includes the packet in service,
//! as in quicly's simulator.
//!
//! For disciplines that decide a packet's fate when it arrives (drop-tail,
//! step marking, PIE), the server is also the whole queue: a packet's
//! departure is fixed on arrival, `max(arrival, previous departure) +
//! size / rate`, and costs one computation rather than an enqueue and a
//! dequeue event. Disciplines that decide at dequeue (CoDel, FQ-CoDel) hold
//! packets themselves and hand them to the server one at a time.

use std::collections::VecDeque;
use std::time::Duration;

use ramp_vocab::{Rate, Time};

use crate::trace::TraceServer;

/// The serialiser and the packets it has accepted but not finished.
#[derive(Clone, Debug)]
pub(crate) struct Server {
    rate: Rate,
    /// Departure time of the last packet accepted.
    busy_until: Time,
    /// Packets not yet fully serialised: (departure time, size).
    in_service: VecDeque<(Time, u32)>,
    /// Bytes of `in_service`.
    backlog_bytes: u64,
    /// Serialisation time of the last packet size seen (sizes repeat: a
    /// u128 division per packet is a measurable share of a simulation).
    last_tx: (u32, Duration),
    /// A trace-driven link's schedule: departures at the trace's delivery
    /// opportunities instead of at `rate` (which is then the trace's mean).
    trace: Option<TraceServer>,
    /// A cellular link's light phase (`crate::cellular`).
    light: Option<crate::cellular::LightPhase>,
}

impl Server {
    pub(crate) fn new(rate: Rate) -> Server {
        Server {
            rate,
            busy_until: Time::ZERO,
            in_service: VecDeque::new(),
            backlog_bytes: 0,
            last_tx: (0, Duration::ZERO),
            trace: None,
            light: None,
        }
    }

    /// A server that delivers at `trace`'s opportunities.
    pub(crate) fn with_trace(trace: std::sync::Arc<crate::trace::DeliveryTrace>) -> Server {
        let mut s = Server::new(trace.mean_rate());
        s.trace = Some(TraceServer::new(trace));
        s
    }

    /// Serves the first bytes of each burst after idle slower (a cellular
    /// link, `crate::cellular`).
    pub(crate) fn set_cellular(&mut self, c: crate::cellular::Cellular) {
        self.light = Some(crate::cellular::LightPhase::new(c));
    }

    /// The delivery trace, on a trace-driven link.
    pub(crate) fn trace(&self) -> Option<&crate::trace::DeliveryTrace> {
        self.trace.as_ref().map(|t| t.trace())
    }

    pub(crate) fn rate(&self) -> Rate {
        self.rate
    }

    /// Serves packets accepted from now on at `rate`; packets already
    /// accepted keep their departure times. A trace-driven server keeps
    /// its trace (configurations reject rate steps on a trace).
    pub(crate) fn set_rate(&mut self, rate: Rate) {
        self.rate = rate;
        self.last_tx = (0, Duration::ZERO);
    }

    /// When the last accepted packet finishes.
    pub(crate) fn busy_until(&self) -> Time {
        self.busy_until
    }

    /// Bytes accepted and not yet fully serialised, as of the last
    /// [`Server::drain`].
    pub(crate) fn backlog_bytes(&self) -> u64 {
        self.backlog_bytes
    }

    /// The wait a packet arriving at `now` would have before its
    /// serialisation starts.
    pub(crate) fn wait(&self, now: Time) -> Duration {
        self.busy_until - now
    }

    /// Forgets the packets that have left by `now`, reporting each
    /// `(departure, backlog after, wait it had)` in departure order.
    #[inline]
    pub(crate) fn drain(&mut self, now: Time, mut on_departure: impl FnMut(Time, u64, Duration)) {
        while let Some(&(dep, size)) = self.in_service.front() {
            if dep > now {
                break;
            }
            self.backlog_bytes -= u64::from(size);
            self.in_service.pop_front();
            on_departure(dep, self.backlog_bytes, self.busy_until - dep);
        }
    }

    /// Accepts a packet of `size` bytes at `now`; returns its departure
    /// and the time it waited before its serialisation started.
    ///
    /// A plain link's acceptance is a few additions, but the whole
    /// function (trace schedule, cellular light phase) was too large to
    /// inline, so every packet paid a call's register saves; the plain case
    /// stays here and the shaped ones go to [`Server::accept_shaped`].
    #[inline]
    pub(crate) fn accept(&mut self, now: Time, size: u32) -> (Time, Duration) {
        if self.trace.is_some() || self.light.is_some() || self.last_tx.0 != size {
            return self.accept_shaped(now, size);
        }
        let start = self.busy_until.max(now);
        let departure = start + self.last_tx.1;
        self.busy_until = departure;
        self.in_service.push_back((departure, size));
        self.backlog_bytes += u64::from(size);
        (departure, start - now)
    }

    /// [`Server::accept`] on a trace-driven or cellular link, or for a
    /// packet size other than the last one's.
    #[inline(never)]
    fn accept_shaped(&mut self, now: Time, size: u32) -> (Time, Duration) {
        if let Some(tr) = &mut self.trace {
            let (departure, first) = tr.accept(now, size);
            self.busy_until = departure;
            self.in_service.push_back((departure, size));
            self.backlog_bytes += u64::from(size);
            return (departure, first - now);
        }
        let start = self.busy_until.max(now);
        let waited = start - now;
        if self.last_tx.0 != size {
            self.last_tx = (size, self.rate.transmit_time(u64::from(size)));
        }
        let tx = match &mut self.light {
            Some(l) => l.serialisation(start.max(now), self.busy_until, size, self.last_tx.1),
            None => self.last_tx.1,
        };
        let departure = start + tx;
        self.busy_until = departure;
        self.in_service.push_back((departure, size));
        self.backlog_bytes += u64::from(size);
        (departure, waited)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mbit(v: u64) -> Rate {
        Rate::from_bits_per_sec(v * 1_000_000)
    }

    #[test]
    fn serialisation_time_is_size_over_rate() {
        // 1252 bytes at 100 Mbit/s: 100.16 µs; a back-to-back second packet
        // leaves one serialisation time later.
        let mut s = Server::new(mbit(100));
        let now = Time::from_millis(1);
        assert_eq!(s.accept(now, 1252).0 - now, Duration::from_nanos(100_160));
        let (dep, waited) = s.accept(now, 1252);
        assert_eq!(dep - now, Duration::from_nanos(200_320));
        assert_eq!(waited, Duration::from_nanos(100_160));
    }

    #[test]
    fn drain_reports_each_departure_at_link_rate() {
        // 1200-byte packets at 9.6 Mbit/s take exactly 1 ms each.
        let mut s = Server::new(Rate::from_bits_per_sec(9_600_000));
        for _ in 0..3 {
            s.accept(Time::ZERO, 1200);
        }
        let mut seen = Vec::new();
        s.drain(Time::from_millis(10), |t, bytes, delay| {
            seen.push((t, bytes, delay))
        });
        assert_eq!(
            seen,
            vec![
                (Time::from_millis(1), 2400, Duration::from_millis(2)),
                (Time::from_millis(2), 1200, Duration::from_millis(1)),
                (Time::from_millis(3), 0, Duration::ZERO),
            ]
        );
        assert_eq!(s.backlog_bytes(), 0);
    }
}
