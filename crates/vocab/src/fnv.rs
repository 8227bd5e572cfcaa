//! FNV-1a, 64 bit: a small, stable, non-cryptographic hash for digests and
//! names that must be the same on every machine and every run (std's
//! `DefaultHasher` promises neither). Parameters from the FNV reference
//! (Fowler, Noll, Vo; IETF draft-eastlake-fnv, §2: 64-bit offset basis and
//! prime).

/// FNV-1a 64-bit offset basis (draft-eastlake-fnv §2).
const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64-bit prime (draft-eastlake-fnv §2).
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// An FNV-1a 64 hash fed in pieces: `write` every piece in order, then
/// `finish`; the same bytes give the same value however they are split.
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a64(u64);

impl Default for Fnv1a64 {
    fn default() -> Self {
        Fnv1a64(OFFSET_BASIS)
    }
}

impl Fnv1a64 {
    /// A hash of nothing yet.
    pub fn new() -> Fnv1a64 {
        Fnv1a64::default()
    }

    /// Feeds `bytes`.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(PRIME);
        }
    }

    /// The hash of everything written.
    pub fn finish(self) -> u64 {
        self.0
    }
}

/// FNV-1a 64 of `bytes` in one call.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h = Fnv1a64::new();
    h.write(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::{fnv1a64, Fnv1a64};

    #[test]
    fn known_values_from_the_reference() {
        // Test vectors of the FNV reference code (draft-eastlake-fnv).
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn pieces_hash_as_the_whole() {
        let mut h = Fnv1a64::new();
        h.write(b"foo");
        h.write(b"bar");
        assert_eq!(h.finish(), fnv1a64(b"foobar"));
    }
}
