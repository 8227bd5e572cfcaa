//! The sent-packet map of one packet-number space.
//!
//! Packet numbers are dense and increase, so the map is a `VecDeque` indexed
//! by `packet_number - base`, where `base` is the oldest packet still
//! outstanding. Acknowledged and lost packets leave a tombstone until the
//! front passes them, so the persistent-congestion scan can see that a packet
//! between two lost ones was acknowledged (RFC 9002 §7.6.2).

use std::collections::VecDeque;

use ramp_vocab::ecn::EcnCodepoint;
use ramp_vocab::time::Time;

/// A packet the loss detector tracks, handed back when it is acknowledged or
/// declared lost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentPacket<P> {
    /// Its packet number (in its space).
    pub packet_number: u64,
    /// When it was sent.
    pub time_sent: Time,
    /// Bytes it counts in bytes-in-flight (the UDP payload).
    pub size: u64,
    /// Whether it elicits an ACK (RFC 9002 §2).
    pub ack_eliciting: bool,
    /// Whether it counts in bytes-in-flight (ack-eliciting or padding; an
    /// ACK-only packet is not in flight, §2).
    pub in_flight: bool,
    /// The ECN codepoint it was sent with (RFC 9000 §13.4.2 validates the
    /// peer's counts against these).
    pub ecn: EcnCodepoint,
    /// The caller's payload (e.g. the stream range to retransmit).
    pub payload: P,
}

/// One slot of the map.
#[derive(Clone, Debug)]
pub(crate) enum Slot<P> {
    /// Sent, neither acknowledged nor declared lost.
    Outstanding(SentPacket<P>),
    /// Acknowledged.
    Acked,
    /// Declared lost.
    Lost,
    /// Never sent: the sender skipped this number.
    Skipped,
}

/// Sent packets of one space.
#[derive(Clone, Debug)]
pub(crate) struct SentPackets<P> {
    slots: VecDeque<Slot<P>>,
    /// Packet number of `slots[0]`.
    base: u64,
    /// Largest packet number ever sent in this space.
    largest_sent: Option<u64>,
    /// `Skipped` slots currently in `slots`.
    skipped: u64,
    /// Outstanding packets that are ack-eliciting and in flight.
    ack_eliciting_in_flight: u64,
    /// Bytes of outstanding in-flight packets.
    bytes_in_flight: u64,
}

impl<P> Default for SentPackets<P> {
    fn default() -> Self {
        SentPackets {
            slots: VecDeque::new(),
            base: 0,
            largest_sent: None,
            skipped: 0,
            ack_eliciting_in_flight: 0,
            bytes_in_flight: 0,
        }
    }
}

impl<P> SentPackets<P> {
    pub(crate) fn largest_sent(&self) -> Option<u64> {
        self.largest_sent
    }
    pub(crate) fn base(&self) -> u64 {
        self.base
    }
    pub(crate) fn has_skipped(&self) -> bool {
        self.skipped > 0
    }
    pub(crate) fn ack_eliciting_in_flight(&self) -> u64 {
        self.ack_eliciting_in_flight
    }
    pub(crate) fn bytes_in_flight(&self) -> u64 {
        self.bytes_in_flight
    }

    /// Records a sent packet. Returns it back if its number does not exceed
    /// the largest already sent (the caller broke monotonicity).
    pub(crate) fn insert(&mut self, packet: SentPacket<P>) -> Result<(), SentPacket<P>> {
        let pn = packet.packet_number;
        if let Some(largest) = self.largest_sent {
            if pn <= largest {
                return Err(packet);
            }
        }
        if self.slots.is_empty() {
            self.base = pn;
        } else {
            // Numbers skipped since the previous packet keep their slots so
            // that an ACK of one can be recognised.
            let next = self.base + self.slots.len() as u64;
            for _ in next..pn {
                self.slots.push_back(Slot::Skipped);
                self.skipped += 1;
            }
        }
        if packet.in_flight {
            self.bytes_in_flight += packet.size;
            if packet.ack_eliciting {
                self.ack_eliciting_in_flight += 1;
            }
        }
        self.largest_sent = Some(pn);
        self.slots.push_back(Slot::Outstanding(packet));
        Ok(())
    }

    /// Whether any packet number in `lo..=hi` was skipped.
    pub(crate) fn any_skipped_in(&self, lo: u64, hi: u64) -> Option<u64> {
        if self.skipped == 0 || self.slots.is_empty() {
            return None;
        }
        let last = self.base + self.slots.len() as u64 - 1;
        let lo = lo.max(self.base);
        let hi = hi.min(last);
        if lo > hi {
            return None;
        }
        let (a, b) = ((lo - self.base) as usize, (hi - self.base) as usize);
        self.slots
            .range(a..=b)
            .position(|s| matches!(s, Slot::Skipped))
            .map(|i| lo + i as u64)
    }

    /// Marks every outstanding packet in `lo..=hi` acknowledged, handing it
    /// to `f` (ascending packet number).
    pub(crate) fn ack_range(&mut self, lo: u64, hi: u64, mut f: impl FnMut(SentPacket<P>)) {
        if self.slots.is_empty() {
            return;
        }
        let last = self.base + self.slots.len() as u64 - 1;
        let lo = lo.max(self.base);
        let hi = hi.min(last);
        if lo > hi {
            return;
        }
        let (a, b) = ((lo - self.base) as usize, (hi - self.base) as usize);
        for slot in self.slots.range_mut(a..=b) {
            if matches!(slot, Slot::Outstanding(_)) {
                if let Slot::Outstanding(p) = core::mem::replace(slot, Slot::Acked) {
                    if p.in_flight {
                        self.bytes_in_flight -= p.size;
                        if p.ack_eliciting {
                            self.ack_eliciting_in_flight -= 1;
                        }
                    }
                    f(p);
                }
            }
        }
    }

    /// Number of slots (for scans by index).
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// The slot at `index`.
    pub(crate) fn slot(&self, index: usize) -> Option<&Slot<P>> {
        self.slots.get(index)
    }

    /// Declares the outstanding packet at slot `index` lost and returns it.
    pub(crate) fn take_lost(&mut self, index: usize) -> Option<SentPacket<P>> {
        let slot = self.slots.get_mut(index)?;
        if !matches!(slot, Slot::Outstanding(_)) {
            return None;
        }
        match core::mem::replace(slot, Slot::Lost) {
            Slot::Outstanding(p) => {
                if p.in_flight {
                    self.bytes_in_flight -= p.size;
                    if p.ack_eliciting {
                        self.ack_eliciting_in_flight -= 1;
                    }
                }
                Some(p)
            }
            _ => None,
        }
    }

    /// Drops tombstones from the front so `base` is the oldest outstanding
    /// packet.
    pub(crate) fn trim_front(&mut self) {
        while let Some(front) = self.slots.front() {
            match front {
                Slot::Outstanding(_) => break,
                Slot::Skipped => self.skipped -= 1,
                Slot::Acked | Slot::Lost => {}
            }
            self.slots.pop_front();
            self.base += 1;
        }
        if self.slots.is_empty() {
            if let Some(l) = self.largest_sent {
                self.base = l.saturating_add(1);
            }
        }
    }

    /// Forgets every packet (RFC 9002 §6.4, keys discarded), keeping the
    /// largest sent number so later numbers still increase. Returns the
    /// outstanding packets through `f`.
    pub(crate) fn discard(&mut self, mut f: impl FnMut(SentPacket<P>)) {
        for slot in self.slots.drain(..) {
            if let Slot::Outstanding(p) = slot {
                f(p);
            }
        }
        self.skipped = 0;
        self.ack_eliciting_in_flight = 0;
        self.bytes_in_flight = 0;
        if let Some(l) = self.largest_sent {
            self.base = l.saturating_add(1);
        }
    }
}
