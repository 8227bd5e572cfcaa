//! Byte-class scanning primitives for the JSON scanner: SSE2 (part of the
//! x86-64 baseline) and SWAR (eight bytes in a u64) loops that find the end
//! of a string segment or a digit run without a branch per byte.

/// Index of the first byte at or after `i` that is `"`, `\`, a control
/// character or non-ASCII (a UTF-8 sequence to validate): the string
/// scanner's hot loop. SSE2 (baseline on x86-64)
/// looks at 16 bytes per step; the tail goes 8 bytes at a time (SWAR).
#[inline]
pub(crate) fn find_string_special(b: &[u8], mut i: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        /// Bit i set where byte i of `v` is `"`, `\` or below 0x20.
        #[inline(always)]
        fn special(v: __m128i) -> u32 {
            // SAFETY: SSE2 is part of the x86-64 baseline; register-only ops.
            unsafe {
                let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
                let bslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
                // Unsigned v <= 0x1f  <=>  max(v, 0x1f) == 0x1f.
                let lim = _mm_set1_epi8(0x1f);
                let ctl = _mm_cmpeq_epi8(_mm_max_epu8(v, lim), lim);
                // movemask(v) itself flags bytes >= 0x80 (UTF-8 to validate).
                (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, bslash), ctl))
                    | _mm_movemask_epi8(v)) as u32
            }
        }
        // 32 bytes per step with one branch: most keys end within the
        // first step, so the loop exit is well predicted.
        while i + 32 <= b.len() {
            // SAFETY: unaligned loads of b[i..i + 32], in bounds.
            let (lo, hi) = unsafe {
                let p = b.as_ptr().add(i) as *const __m128i;
                (_mm_loadu_si128(p), _mm_loadu_si128(p.add(1)))
            };
            let mask = special(lo) | (special(hi) << 16);
            if mask != 0 {
                return Some(i + mask.trailing_zeros() as usize);
            }
            i += 32;
        }
        if i + 16 <= b.len() {
            // SAFETY: unaligned load of b[i..i + 16], in bounds.
            let mask = special(unsafe { _mm_loadu_si128(b.as_ptr().add(i) as *const __m128i) });
            if mask != 0 {
                return Some(i + mask.trailing_zeros() as usize);
            }
            i += 16;
        }
    }
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    while i + 8 <= b.len() {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[i..i + 8]);
        let w = u64::from_le_bytes(a);
        let q = w ^ (LO * 0x22);
        let s = w ^ (LO * 0x5c);
        // Classic "has zero byte" test; exact for the lowest hit, which is
        // the only one we use.
        let m = (q.wrapping_sub(LO) & !q & HI)
            | (s.wrapping_sub(LO) & !s & HI)
            | (w.wrapping_sub(LO * 0x20) & !w & HI)
            | (w & HI);
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    while i < b.len() {
        let c = b[i];
        if c == b'"' || c == b'\\' || !(0x20..0x80).contains(&c) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Length of the run of ASCII digits starting at `b[i]`. Eight bytes are
/// classified at once (SWAR), so the end of a typical number costs no
/// data-dependent branch.
#[inline(always)]
pub(crate) fn digit_run(b: &[u8], mut i: usize) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    let start = i;
    while i + 8 <= b.len() {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[i..i + 8]);
        let w = u64::from_le_bytes(a);
        // Non-zero byte where the high nibble is not 3 ...
        let hi = (w & (LO * 0xf0)) ^ (LO * 0x30);
        // ... or the low nibble is above 9 (adding 6 carries into bit 4;
        // no carry crosses bytes since 0x0f + 6 < 0x100).
        let lo = ((w & (LO * 0x0f)) + LO * 6) & (LO * 0xf0);
        let bad = hi | lo;
        // High bit set in each non-zero byte.
        let nz = (((bad & (LO * 0x7f)) + LO * 0x7f) | bad) & (LO * 0x80);
        if nz != 0 {
            return i - start + (nz.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    i - start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_scanner_finds_first_special_at_every_offset() {
        for len in 0..40 {
            for pos in 0..len {
                for special in [b'"', b'\\', 0x01, 0x1f] {
                    let mut v = vec![b'a'; len];
                    v[pos] = special;
                    if pos + 1 < len {
                        v[pos + 1] = b'"';
                    }
                    assert_eq!(find_string_special(&v, 0), Some(pos), "len {len} pos {pos}");
                }
            }
            let v = vec![b'a'; len];
            assert_eq!(find_string_special(&v, 0), None);
            if len > 0 {
                let mut v = vec![b'a'; len];
                v[len - 1] = 0xe9;
                assert_eq!(
                    find_string_special(&v, 0),
                    Some(len - 1),
                    "non-ASCII at {}",
                    len - 1
                );
            }
        }
    }

    #[test]
    fn digit_runs() {
        for text in [
            "1",
            "12345678",
            "123456789,",
            "0123x",
            "9/",
            "1:",
            "12345678901234567890}",
        ] {
            let want = text.bytes().take_while(u8::is_ascii_digit).count();
            let mut padded = text.as_bytes().to_vec();
            assert_eq!(digit_run(&padded, 0), want, "{text}");
            padded.extend_from_slice(b"        ");
            assert_eq!(digit_run(&padded, 0), want, "{text} padded");
        }
        for c in 0u8..=255 {
            let v = [b'1', c, b'x', b'x', b'x', b'x', b'x', b'x', b'x'];
            assert_eq!(
                digit_run(&v, 0),
                if c.is_ascii_digit() { 2 } else { 1 },
                "byte {c}"
            );
        }
    }
}
