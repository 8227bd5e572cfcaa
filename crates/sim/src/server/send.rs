//! The server's send path: what goes next (handshake data, retransmissions,
//! new response data, probes) and whether the congestion window, the pacer,
//! the anti-amplification limit and the client's flow-control limit let it
//! leave now.

use ramp_cc::pacer::{AnyPacer, Pacing, PacingInput};
use ramp_cc::recovery::{SentPacket, Space};
use ramp_cc::{EcnCodepoint, Time};

use super::{Datagram, Held, Payload, Phase, Server, AMPLIFICATION_FACTOR};

impl Server {
    /// The next thing to send in the handshake, if any: (payload, retx).
    fn next_crypto(&mut self, probe: bool) -> Option<(Payload, bool)> {
        while let Some(&i) = self.crypto_retx.front() {
            if self.crypto_acked[usize::from(i)] {
                self.crypto_retx.pop_front();
            } else {
                return Some((Payload::Crypto(i), true));
            }
        }
        if self.crypto_next < self.crypto_sizes.len() {
            return Some((Payload::Crypto(self.crypto_next as u16), false));
        }
        if probe {
            // Probe with the oldest unacknowledged handshake packet.
            if let Some(i) = self.crypto_acked.iter().position(|a| !a) {
                return Some((Payload::Crypto(i as u16), true));
            }
            return Some((Payload::Ping, false));
        }
        None
    }

    fn next_stream(&mut self, probe: bool) -> Option<(Payload, bool)> {
        while let Some(&c) = self.retx.front() {
            if self.is_acked(c) {
                self.retx.pop_front();
            } else {
                return Some((Payload::Stream(c), true));
            }
        }
        if self.next_chunk < self.requested_end {
            // RFC 9000 §4.1: new stream data only up to the client's
            // limit; resent data was already counted. With several
            // objects the offset is the connection's (MAX_DATA): the
            // stream limits are larger than any object drawn.
            let end = self.offset(self.next_chunk) + self.chunk_len(self.next_chunk);
            if end <= self.fc_limit {
                self.fc_blocked = false;
                return Some((Payload::Stream(self.next_chunk), false));
            }
            if !self.fc_blocked {
                self.fc_blocked = true;
                self.fc_blocked_count += 1;
            }
        }
        if probe {
            if self.lowest_unacked < self.requested_end {
                return Some((Payload::Stream(self.lowest_unacked), true));
            }
            return Some((Payload::Ping, false));
        }
        None
    }

    fn size_of(&self, p: Payload) -> u64 {
        match p {
            Payload::Crypto(i) => u64::from(self.crypto_sizes[usize::from(i)]),
            Payload::Stream(c) => self.chunk_len(c) + self.packet_overhead,
            // A PING probe is padded to a minimal 1-RTT packet.
            Payload::Ping => 64,
        }
    }

    /// The pacing wake-up that [`Server::try_send`] asked for: sends as it
    /// does, reusing the pacing input computed when the pacer held the
    /// packet back. Nothing changed the controller or the RTT estimate since
    /// (every server path that can ends in `try_send`, which drops the held
    /// input unless a wake-up called it), so it is the input
    /// `pacing_input` would compute again; a paced sender's every other
    /// packet waits for a wake-up, and the controller's rate costs
    /// divisions.
    #[inline]
    pub(crate) fn on_wake(&mut self, now: Time, out: &mut Vec<Datagram>) -> Option<Time> {
        debug_assert!(self.held.is_none_or(|h| h.input == self.pacing_input()));
        self.woken = true;
        self.try_send(now, out)
    }

    /// Sends whatever the window, the pacer and the amplification limit
    /// allow, appending datagrams to `out`. Returns the time at which the
    /// pacer allows the next packet, if it is what stops sending.
    pub(crate) fn try_send(&mut self, now: Time, out: &mut Vec<Datagram>) -> Option<Time> {
        // Only a wake-up may reuse a held input: whatever else called this
        // may have changed the controller or the RTT estimate. (One
        // function with a flag rather than a loop shared by two callers:
        // measured, the extra call layer or a second inlined copy cost as
        // much as the reuse saves.)
        let woken = core::mem::take(&mut self.woken);
        let mut held = self.held.take().filter(|_| woken);
        loop {
            let probe = self.probes > 0;
            let (space, next) = match self.phase {
                Phase::Idle => return None,
                Phase::Handshake if self.early && self.crypto_acked.iter().all(|&a| a) => {
                    (Space::Application, self.next_stream(probe))
                }
                Phase::Handshake => match self.next_crypto(probe) {
                    // 0.5-RTT data once the flight is out (0-RTT request).
                    None if self.early => (Space::Application, self.next_stream(probe)),
                    next => (Space::Handshake, next),
                },
                Phase::Serving => (Space::Application, self.next_stream(probe)),
                Phase::Done => {
                    self.probes = 0;
                    return None;
                }
            };
            let Some((payload, retx)) = next else {
                // Nothing to send: application-limited unless the window is full.
                self.app_limited = !self.ld.is_cwnd_limited(self.cc.window());
                return None;
            };
            let size = self.size_of(payload);
            if !self.validated && self.amp_sent + size > AMPLIFICATION_FACTOR * self.amp_received {
                // Blocked until the client sends more (RFC 9000 §8.1).
                return None;
            }
            let handshake = space != Space::Application;
            // Read once for the window test and the pacer (nothing between
            // them changes the controller); a held input is used once, as
            // the first packet's send changes the controller.
            let held = held.take();
            let window = held.map_or_else(|| self.cc.window(), |h| h.input.window);
            if !probe
                && !handshake
                && !self
                    .send_rule
                    .allows(self.ld.bytes_in_flight(), size, window)
            {
                self.app_limited = false;
                return None;
            }
            // The pacing rate costs divisions: computed once per packet,
            // only once the window allows it.
            let input = held.map_or_else(|| self.pacing_input_with(window), |h| h.input);
            if !probe && !handshake && !held.is_some_and(|h| self.pacer_keeps_its_word(h, now)) {
                let at = self.pacer.next_send_time(now, &input, size);
                if at > now {
                    self.app_limited = false;
                    self.held = Some(Held { input, at });
                    return Some(at);
                }
            }
            // Commit.
            let space = if let Payload::Crypto(0) = payload {
                Space::Initial
            } else {
                space
            };
            match payload {
                Payload::Crypto(i) => {
                    if retx {
                        if self.crypto_retx.front() == Some(&i) {
                            self.crypto_retx.pop_front();
                        }
                    } else {
                        self.crypto_next += 1;
                    }
                }
                Payload::Stream(c) => {
                    if retx {
                        if self.retx.front() == Some(&c) {
                            self.retx.pop_front();
                        }
                        self.resent_bytes += self.chunk_len(c);
                    } else {
                        self.next_chunk += 1;
                    }
                }
                Payload::Ping => {}
            }
            if probe {
                self.probes -= 1;
            }
            if !handshake {
                // Probes are sent at once but leave a debt (ramp-cc's contract).
                self.pacer.on_packet_sent(now, size, &input);
            }
            let pn = self.next_pn[space.index()];
            self.next_pn[space.index()] += 1;
            self.amp_sent += size;
            // RFC 9000 §13.4.2.2: Not-ECT once validation has failed.
            let ecn = if self.ld.ecn_capable() {
                self.ecn
            } else {
                EcnCodepoint::NotEct
            };
            self.ld.on_packet_sent(
                space,
                SentPacket {
                    packet_number: pn,
                    time_sent: now,
                    size,
                    ack_eliciting: true,
                    in_flight: true,
                    ecn,
                    payload,
                },
                self.cc.as_mut(),
            );
            self.cwnd_max = self.cwnd_max.max(self.cc.window());
            out.push(Datagram {
                space,
                pn,
                size: size as u32,
                payload,
                retx,
                ecn,
            });
        }
    }

    /// Whether the pacer would let the held packet go at `now` without
    /// being asked again: true for ramp's leaky bucket once the time it
    /// named has come. Its answer is exact, not an estimate: it waits
    /// `ceil(deficit / rate)`, in which at least the deficit accrues
    /// (credit rounds down, `floor(rate * ceil(deficit / rate)) >=
    /// deficit`), credit only grows with time up to a cap no smaller than
    /// what the packet needs, and nothing but a send spends it. The same
    /// packet and pacing input are guaranteed by [`Server::on_wake`]. The
    /// quinn and quicly models change state when asked, so they are asked
    /// again. (A paced sender asks twice for every other packet: this
    /// saves the second question.)
    #[inline]
    fn pacer_keeps_its_word(&self, held: Held, now: Time) -> bool {
        now >= held.at && matches!(self.pacer, AnyPacer::LeakyBucket(_))
    }

    /// What the pacer needs to know now: the controller's rate and window,
    /// the smoothed RTT and the datagram size.
    pub(super) fn pacing_input(&self) -> PacingInput {
        self.pacing_input_with(self.cc.window())
    }

    /// The pacing input with the controller's window already read.
    fn pacing_input_with(&self, window: u64) -> PacingInput {
        PacingInput {
            rate: self.cc.pacing_rate(self.ld.rtt()),
            window,
            smoothed_rtt: self.ld.rtt().smoothed(),
            max_datagram_size: self.mds,
            burst: self.pacing_burst,
        }
    }
}

#[cfg(test)]
mod tests {
    use core::time::Duration;

    use ramp_cc::pacer::{Pacer, PacerConfig, Pacing, PacingInput};
    use ramp_cc::{Rate, Time};

    /// The leaky bucket keeps its word: once it names a time for a packet,
    /// asking again at that time or later (same packet, same input, nothing
    /// sent in between) lets the packet go. `Server::try_send` relies on
    /// this to skip the wake-up's second question.
    #[test]
    fn leaky_bucket_lets_the_held_packet_go_at_the_time_it_named() {
        let mut rng = ramp_vocab::rng::Rng::from_u64(0x9e37_79b9_7f4a_7c15u64);
        let mut next = move || rng.next_u64();
        let mut checked = 0;
        for _ in 0..2_000 {
            let mut p = Pacer::new(PacerConfig::default());
            let input = PacingInput {
                // 1 kB/s to about 1 GB/s, odd values included.
                rate: Some(Rate::from_bytes_per_sec(
                    (1_000 << (next() % 20)) + next() % 1_000,
                )),
                window: 1 + next() % 10_000_000,
                smoothed_rtt: Duration::from_micros(1 + next() % 500_000),
                max_datagram_size: 1200,
                burst: (next() % 3 == 0).then(|| Duration::from_nanos(next() % 1_000_000)),
            };
            let mut now = Time::from_nanos(next() % 1_000_000_000);
            for _ in 0..40 {
                let bytes = 40 + next() % 1_500;
                let at = Pacing::next_send_time(&mut p, now, &input, bytes);
                if at > now {
                    if at == Time::MAX {
                        break;
                    }
                    // At the time named, and a little later.
                    let later = at + Duration::from_nanos(next() % 3);
                    assert_eq!(
                        Pacing::next_send_time(&mut p.clone(), at, &input, bytes),
                        at
                    );
                    assert_eq!(Pacing::next_send_time(&mut p, later, &input, bytes), later);
                    now = later;
                    checked += 1;
                }
                Pacing::on_packet_sent(&mut p, now, bytes, &input);
                // Up to two packets' time at the rate: about half wait.
                let gap = input
                    .rate
                    .map_or(0, |r| r.transmit_time(2 * bytes).as_nanos());
                now += Duration::from_nanos(next() % (gap as u64 + 1));
            }
        }
        assert!(checked > 5_000, "too few held packets checked: {checked}");
    }
}
