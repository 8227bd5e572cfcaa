//! A token-bucket policer: no queue, so no delay signal, only drops. Its
//! two parameters ([`TokenBucket`]) have one option table
//! ([`crate::Element`]), read by the scenario file's `[path.policer]` and
//! the command line's `--policer`.

use ramp_vocab::{Rate, Time};

use crate::element::{Element, ElementError, ElementOption};
use crate::element_option;
use crate::elements::{option_field, Slot, SlotNames};

/// A policer's token bucket: it refills at `rate` and holds at most
/// `burst` bytes. Neither has a default: a policer is the operator's
/// choice, so both keys are required.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenBucket {
    /// The refill rate: the rate a policed flow gets over time.
    pub rate: Rate,
    /// The bucket's size, bytes: what passes at once after idle.
    pub burst: u64,
}

impl Element for TokenBucket {
    const OPTIONS: &'static [ElementOption<TokenBucket>] = &[
        element_option!(rate: rate, "<rate>", "refill rate of the token bucket"),
        element_option!(
            burst: size,
            "<size>",
            "bucket size: the bytes that pass at once after idle"
        ),
    ];
    /// A placeholder: both keys are [`Element::REQUIRED`].
    const DEFAULT: TokenBucket = TokenBucket {
        rate: Rate::from_bits_per_sec(0),
        burst: 0,
    };
    const REQUIRED: &'static [&'static str] = &["rate", "burst"];

    /// A bucket that refills and holds at least a byte (a scenario's own
    /// ranges, such as a burst of at least one datagram, are its check).
    fn check(&self) -> Result<(), ElementError> {
        if self.rate.bits_per_sec() == 0 {
            return Err(ElementError::value("rate", "must be positive"));
        }
        if self.burst == 0 {
            return Err(ElementError::value("burst", "must be positive"));
        }
        Ok(())
    }
}

/// A token-bucket policer with no queue: a packet passes if the bucket holds
/// its size in tokens, and is dropped otherwise.
#[derive(Clone, Debug)]
pub struct Policer {
    rate: Rate,
    burst_bytes: u64,
    /// Tokens, in bytes x 10^9 (byte-nanoseconds at 1 B/s) for exact refill.
    tokens_scaled: u128,
    last: Time,
}

impl Policer {
    /// A policer with `bucket`, full at start.
    pub fn new(bucket: TokenBucket) -> Policer {
        Policer {
            rate: bucket.rate,
            burst_bytes: bucket.burst,
            tokens_scaled: u128::from(bucket.burst) * 1_000_000_000,
            last: Time::ZERO,
        }
    }

    /// Whether a packet of `size` bytes arriving at `now` passes.
    pub fn admit(&mut self, now: Time, size: u32) -> bool {
        let elapsed = u128::from((now - self.last).as_nanos() as u64);
        self.last = self.last.max(now);
        let cap = u128::from(self.burst_bytes) * 1_000_000_000;
        self.tokens_scaled =
            (self.tokens_scaled + elapsed * u128::from(self.rate.bytes_per_sec())).min(cap);
        let need = u128::from(size) * 1_000_000_000;
        if self.tokens_scaled >= need {
            self.tokens_scaled -= need;
            true
        } else {
            false
        }
    }
}

impl Slot for TokenBucket {
    const NAMES: SlotNames = SlotNames {
        table: "policer",
        flag: "policer",
        value_name: "rate=R,burst=SIZE",
        example: "rate=10mbit,burst=32KB",
        help: "A token-bucket policer before the downlink's queue (rate=R,burst=SIZE, both \
               required).",
        about: "A token-bucket policer before the downlink's queue: a packet passes if the bucket \
                holds its size in tokens, and is dropped otherwise; the bucket refills at rate \
                and holds at most burst bytes.",
        defaults_from: "nothing",
        field: "policer",
    };
    option_field!(policer);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn mbit(v: u64) -> Rate {
        Rate::from_bits_per_sec(v * 1_000_000)
    }

    #[test]
    fn policer_passes_burst_then_rate() {
        // 1 Mbit/s = 125,000 B/s; bucket 3000 bytes.
        let mut p = Policer::new(TokenBucket {
            rate: mbit(1),
            burst: 3000,
        });
        let t = Time::from_millis(10);
        assert!(p.admit(t, 1000));
        assert!(p.admit(t, 1000));
        assert!(p.admit(t, 1000));
        assert!(!p.admit(t, 1000));
        // 8 ms later, 1000 bytes of tokens have accrued.
        let t2 = t + Duration::from_millis(8);
        assert!(p.admit(t2, 1000));
        assert!(!p.admit(t2, 1000));
        // Long idle: the bucket caps at the burst.
        let t3 = t2 + Duration::from_secs(10);
        assert!((0..3).all(|_| p.admit(t3, 1000)));
        assert!(!p.admit(t3, 1000));
    }

    #[test]
    fn a_token_bucket_needs_both_keys_and_reads_back() {
        use crate::{parse_spec, spec_of};
        let t = parse_spec::<TokenBucket>("rate=10mbit, burst=32KB").unwrap();
        assert_eq!(
            t,
            TokenBucket {
                rate: mbit(10),
                burst: 32_000
            }
        );
        assert_eq!(spec_of(&t), "rate=10000000bit,burst=32000");
        assert_eq!(parse_spec::<TokenBucket>(&spec_of(&t)), Ok(t));
        for (spec, text) in [
            ("rate=10mbit", "burst: required (it has no default)"),
            ("", "rate: required (it has no default)"),
            ("rate=10mbit,burst=0", "burst: must be positive"),
        ] {
            assert_eq!(
                parse_spec::<TokenBucket>(spec).unwrap_err().to_string(),
                text
            );
        }
        assert!(crate::key_help::<TokenBucket>()[0].ends_with("(required)"));
    }
}
