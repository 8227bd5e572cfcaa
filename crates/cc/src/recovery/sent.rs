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
    /// the largest already sent (the caller broke monotonicity). Inlined
    /// into the detector's `on_packet_sent`: one per packet, and a call
    /// moved the packet twice and saved and restored registers.
    #[inline]
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn packet(pn: u64, size: u64) -> SentPacket<()> {
        SentPacket {
            packet_number: pn,
            time_sent: Time::from_millis(pn),
            size,
            ack_eliciting: true,
            in_flight: true,
            ecn: EcnCodepoint::NotEct,
            payload: (),
        }
    }

    proptest! {
        /// The map keeps the slots of a plain ordered map through sends
        /// with gaps, ACK ranges, losses and trims: the same slots by
        /// packet number, the same counts and the same packets handed
        /// back.
        #[test]
        fn sent_packets_match_an_ordered_map(
            ops in proptest::collection::vec((0u8..4, 0u64..6, 0u64..300), 1..600)
        ) {
            #[derive(Clone, Copy, Debug, PartialEq)]
            enum S { Out(u64), Acked, Lost, Skipped }
            let mut q = SentPackets::<()>::default();
            let mut m: BTreeMap<u64, S> = BTreeMap::new();
            let mut next = 0u64;
            for (op, a, b) in ops {
                match op {
                    0 | 1 => {
                        // Send, skipping `a % 3 == 0 ? 1 : 0` numbers.
                        let pn = next + u64::from(a % 3 == 0);
                        for s in next..pn {
                            if !m.is_empty() { m.insert(s, S::Skipped); }
                        }
                        prop_assert!(q.insert(packet(pn, 100 + a)).is_ok());
                        m.insert(pn, S::Out(100 + a));
                        next = pn + 1;
                    }
                    2 => {
                        let (lo, hi) = (b.min(b / 2 + a * 7), b);
                        let mut got = Vec::new();
                        q.ack_range(lo, hi, |p| got.push(p.packet_number));
                        let want: Vec<u64> = m
                            .range(lo..=hi)
                            .filter(|(_, s)| matches!(s, S::Out(_)))
                            .map(|(pn, _)| *pn)
                            .collect();
                        for pn in &want { m.insert(*pn, S::Acked); }
                        prop_assert_eq!(got, want);
                        q.trim_front();
                    }
                    _ => {
                        let i = (b % 40) as usize;
                        let base = q.base();
                        let want = m.get(&(base + i as u64)).copied();
                        let got = q.take_lost(i).map(|p| p.packet_number);
                        if let Some(S::Out(_)) = want {
                            prop_assert_eq!(got, Some(base + i as u64));
                            m.insert(base + i as u64, S::Lost);
                        } else {
                            prop_assert_eq!(got, None);
                        }
                        q.trim_front();
                    }
                }
                // The model trims its front too.
                while let Some((&pn, s)) = m.iter().next() {
                    if matches!(s, S::Out(_)) { break; }
                    m.remove(&pn);
                }
                prop_assert_eq!(q.len(), m.len());
                if let Some((&first, _)) = m.iter().next() {
                    prop_assert_eq!(q.base(), first);
                }
                for (i, (pn, s)) in m.iter().enumerate() {
                    prop_assert_eq!(q.base() + i as u64, *pn);
                    let ok = match (q.slot(i), s) {
                        (Some(Slot::Outstanding(p)), S::Out(size)) => p.size == *size,
                        (Some(Slot::Acked), S::Acked)
                        | (Some(Slot::Lost), S::Lost)
                        | (Some(Slot::Skipped), S::Skipped) => true,
                        _ => false,
                    };
                    prop_assert!(ok, "slot {} ({}) differs", i, pn);
                }
                let out: Vec<u64> = m.values().filter_map(|s| match s { S::Out(z) => Some(*z), _ => None }).collect();
                prop_assert_eq!(q.bytes_in_flight(), out.iter().sum::<u64>());
                prop_assert_eq!(q.ack_eliciting_in_flight(), out.len() as u64);
                prop_assert_eq!(q.has_skipped(), m.values().any(|s| *s == S::Skipped));
                let first_skipped = m.iter().find(|(_, s)| **s == S::Skipped).map(|(pn, _)| *pn);
                prop_assert_eq!(q.any_skipped_in(0, u64::MAX), first_skipped);
            }
        }
    }
}
