//! File names made from user text: a controller's name (`ramp sim
//! --trace/--qlog`), an arm's label (`ramp compare` traces and charts,
//! `ramp fleet --trace-conn`). Every writer that names a file after a
//! spec goes through [`safe_stem`], so the rule is in one place.

use ramp_vocab::fnv::fnv1a64;

/// Longest stem kept whole. File systems allow 255 bytes per name; the
/// writers add at most ~30 (`timeseq-NN-`, `conn-N-`, `.ndjson`), and a
/// name this long is still readable in a listing.
const MAX_STEM: usize = 120;

/// Hex digits of the hash that ends a shortened stem (all 64 bits).
const HASH_DIGITS: usize = 16;

/// `text` as a portable file-name stem: every character but ASCII letters,
/// digits, `.`, `-` and `+` replaced by `_`, so that a name like
/// `cubic+rapidstart(iw=30)` is one file name on every file system (no
/// separators, no parentheses, no `=`).
///
/// A stem longer than [`MAX_STEM`] bytes (a canonical spec with many
/// options) is cut to a readable prefix plus `-` and the FNV-1a 64 of the
/// whole `text` in hex: deterministic, and two long specs that share a
/// prefix get different names. The full spec is not lost: every trace
/// and qlog file carries it in its header, and the run's records name it.
pub(crate) fn safe_stem(text: &str) -> String {
    let safe: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.len() <= MAX_STEM {
        return safe;
    }
    // `safe` is ASCII, so any byte index is a character boundary.
    let keep = MAX_STEM - 1 - HASH_DIGITS;
    format!(
        "{}-{:0width$x}",
        &safe[..keep],
        fnv1a64(text.as_bytes()),
        width = HASH_DIGITS
    )
}

#[cfg(test)]
mod tests {
    use super::{safe_stem, MAX_STEM};

    #[test]
    fn only_portable_characters_remain() {
        assert_eq!(
            safe_stem("cubic+rapidstart(iw=30,beta=0.7)"),
            "cubic+rapidstart_iw_30_beta_0.7_"
        );
        assert_eq!(safe_stem("a/b\\c d"), "a_b_c_d");
    }

    #[test]
    fn a_stem_up_to_the_bound_is_kept_whole() {
        let at = "x".repeat(MAX_STEM);
        assert_eq!(safe_stem(&at), at);
    }

    #[test]
    fn a_long_stem_is_a_prefix_and_a_hash_of_the_whole_text() {
        let common = format!("newreno({})", "opt=1,".repeat(30));
        let (a, b) = (format!("{common}+a"), format!("{common}+b"));
        let (sa, sb) = (safe_stem(&a), safe_stem(&b));
        assert_eq!(sa.len(), MAX_STEM);
        assert!(sa.starts_with("newreno_opt_1_opt_1_"), "{sa}");
        assert_ne!(sa, sb, "a shared prefix must not collide");
        assert_eq!(sa, safe_stem(&a), "the same text, the same name");
        // Over the bound by one byte: shortened too.
        assert_eq!(safe_stem(&"y".repeat(MAX_STEM + 1)).len(), MAX_STEM);
        // Non-ASCII text shortens on a character boundary.
        assert_eq!(safe_stem(&"é".repeat(200)).len(), MAX_STEM);
    }
}
