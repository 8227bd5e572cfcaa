//! Exact rational factors: decrease factors (β) and pacing gains.
//!
//! Rapid Start's factors `(2+β)/3`, `2(1−β)/3` are fractions of β; doing the
//! window arithmetic in floats would make `silence − ack == β` only
//! approximately true. A [`Ratio`] keeps `num/den` in integers, so the
//! controllers (and their tests) can compute exactly.

use core::fmt;
use core::str::FromStr;

/// A positive rational number `num / den`, always kept in lowest terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ratio {
    num: u64,
    den: u64,
}

impl Ratio {
    /// One half: RFC 9002 §7.3.2 `kLossReductionFactor`.
    pub const HALF: Ratio = Ratio { num: 1, den: 2 };
    /// 7/10: RFC 9438 §4.6 `β_cubic`.
    pub const SEVEN_TENTHS: Ratio = Ratio { num: 7, den: 10 };
    /// One.
    pub const ONE: Ratio = Ratio { num: 1, den: 1 };

    /// `num / den` in lowest terms, or `None` if `den == 0`.
    pub const fn new(num: u64, den: u64) -> Option<Ratio> {
        if den == 0 {
            return None;
        }
        let g = gcd(num, den);
        Some(Ratio {
            num: num / g,
            den: den / g,
        })
    }

    /// `num / den` for constants: a zero `den` fails to compile when used
    /// in a `const`.
    pub const fn new_const(num: u64, den: u64) -> Ratio {
        match Ratio::new(num, den) {
            Some(r) => r,
            None => panic!("a ratio's denominator must not be zero"),
        }
    }

    /// The numerator (lowest terms).
    pub const fn num(self) -> u64 {
        self.num
    }
    /// The denominator (lowest terms, never zero).
    pub const fn den(self) -> u64 {
        self.den
    }
    /// The value as a float (for CUBIC's cube roots and for display).
    pub fn as_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
    /// Whether the value is strictly between 0 and 1 (a valid β).
    pub fn is_proper_fraction(self) -> bool {
        self.num > 0 && self.num < self.den
    }
    /// `x · self`, rounded down, saturating.
    pub fn mul_floor(self, x: u64) -> u64 {
        let r = u128::from(x) * u128::from(self.num) / u128::from(self.den);
        u64::try_from(r).unwrap_or(u64::MAX)
    }
}

impl fmt::Display for Ratio {
    /// A decimal when the value has at most six decimal places (`0.7`,
    /// `1.25`, `2`), else `num/den`. Either form parses back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut scale = 1u64;
        for digits in 0..=6u32 {
            if (self.num as u128 * scale as u128).is_multiple_of(self.den as u128) {
                let scaled = (self.num as u128 * scale as u128) / self.den as u128;
                let int = scaled / scale as u128;
                let frac = scaled % scale as u128;
                if digits == 0 {
                    return write!(f, "{int}");
                }
                let s = format!("{frac:0width$}", width = digits as usize);
                return write!(f, "{int}.{}", s.trim_end_matches('0'));
            }
            scale *= 10;
        }
        write!(f, "{}/{}", self.num, self.den)
    }
}

/// Why a string is not a ratio.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseRatioError(String);

impl fmt::Display for ParseRatioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a number (expected a decimal like 0.7 or a fraction like 7/10)",
            self.0
        )
    }
}

impl std::error::Error for ParseRatioError {}

impl FromStr for Ratio {
    type Err = ParseRatioError;

    /// Parses `2`, `0.7`, `1.25` (up to 9 decimals) or `7/10`.
    fn from_str(s: &str) -> Result<Ratio, ParseRatioError> {
        let err = || ParseRatioError(s.to_string());
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        if let Some((n, d)) = s.split_once('/') {
            if !digits(n) || !digits(d) {
                return Err(err());
            }
            let n: u64 = n.parse().map_err(|_| err())?;
            let d: u64 = d.parse().map_err(|_| err())?;
            return Ratio::new(n, d).ok_or_else(err);
        }
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        if !digits(int) || (s.contains('.') && !digits(frac)) || frac.len() > 9 {
            return Err(err());
        }
        let scale = 10u64.pow(frac.len() as u32);
        let int: u64 = int.parse().map_err(|_| err())?;
        let frac_v: u64 = if frac.is_empty() {
            0
        } else {
            frac.parse().map_err(|_| err())?
        };
        let num = int
            .checked_mul(scale)
            .and_then(|v| v.checked_add(frac_v))
            .ok_or_else(err)?;
        Ratio::new(num, scale).ok_or_else(err)
    }
}

const fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_decimals_and_fractions_in_lowest_terms() {
        assert_eq!("0.7".parse::<Ratio>(), Ok(Ratio::SEVEN_TENTHS));
        assert_eq!("14/20".parse::<Ratio>(), Ok(Ratio::SEVEN_TENTHS));
        assert_eq!("0.50".parse::<Ratio>(), Ok(Ratio::HALF));
        assert_eq!(
            "2".parse::<Ratio>(),
            Ratio::new(2, 1).ok_or(ParseRatioError(String::new()))
        );
        for bad in ["", ".5", "1.", "1/0", "a", "-1", "1e3", "0.1234567891"] {
            assert!(bad.parse::<Ratio>().is_err(), "{bad}");
        }
    }

    #[test]
    fn display_round_trips() {
        for s in ["0.7", "1.25", "2", "0.85", "67/70", "1/3", "0"] {
            let r: Ratio = s.parse().unwrap_or(Ratio::ONE);
            assert_eq!(r.to_string(), s);
            assert_eq!(r.to_string().parse::<Ratio>(), Ok(r));
        }
    }
}
