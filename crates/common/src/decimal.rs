//! Fixed-point DECIMAL values: a signed 128-bit mantissa and a decimal scale.
//!
//! Invariant: `scale <= MAX_SCALE` and `|mantissa| < 10^MAX_PRECISION`. That covers
//! DECIMAL(38, s); wider declarations are refused at CREATE TABLE with errno 1426
//! (MySQL allows 65 digits, which would need a multi-word representation).
//! Rounding is half away from zero, as MySQL rounds DECIMAL.

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt;

/// Largest number of significant digits a Basalt DECIMAL holds.
pub const MAX_PRECISION: u32 = 38;
/// Largest number of digits after the point.
pub const MAX_SCALE: u32 = 30;

/// `mantissa * 10^-scale`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Decimal {
    pub mantissa: i128,
    pub scale: u8,
}

/// 10^0 ..= 10^38, every power an i128 holds.
const POW10: [i128; 39] = {
    let mut t = [1i128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

fn pow10(n: u32) -> i128 {
    match POW10.get(n as usize) {
        Some(p) => *p,
        None => 10i128.pow(n),
    }
}

impl Decimal {
    pub const ZERO: Decimal = Decimal {
        mantissa: 0,
        scale: 0,
    };

    pub fn new(mantissa: i128, scale: u8) -> Self {
        Decimal { mantissa, scale }
    }

    pub fn from_i64(v: i64) -> Self {
        Decimal::new(v as i128, 0)
    }

    pub fn from_u64(v: u64) -> Self {
        Decimal::new(v as i128, 0)
    }

    /// Converts a double, keeping up to `MAX_SCALE` fractional digits as `{}` prints them.
    pub fn from_f64(v: f64) -> Option<Self> {
        if !v.is_finite() {
            return None;
        }
        Decimal::parse(&format!("{v}"))
    }

    /// Parses `[+-]digits[.digits][e[+-]digits]`; `None` if not a number or too wide.
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        let (neg, body) = match s.as_bytes().first()? {
            b'-' => (true, &s[1..]),
            b'+' => (false, &s[1..]),
            _ => (false, s),
        };
        let (num, exp) = match body.find(['e', 'E']) {
            Some(p) => (&body[..p], body[p + 1..].parse::<i32>().ok()?),
            None => (body, 0),
        };
        let (int_part, frac_part) = match num.find('.') {
            Some(p) => (&num[..p], &num[p + 1..]),
            None => (num, ""),
        };
        if int_part.is_empty() && frac_part.is_empty() {
            return None;
        }
        if !int_part.bytes().all(|b| b.is_ascii_digit())
            || !frac_part.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let digits = format!("{int_part}{frac_part}");
        let mut digits = digits.trim_start_matches('0').to_string();
        // In i64: the exponent is any i32, the fraction as long as the text.
        let mut scale = frac_part.len() as i64 - i64::from(exp);
        if scale < 0 {
            // Trailing zeros for a positive exponent, checked against the
            // precision before they are written: `1e2000000000` must not make a
            // 2 GB string. Zero stays zero whatever the exponent.
            let zeros = scale.unsigned_abs();
            if !digits.is_empty() {
                if digits.len() as u64 + zeros > u64::from(MAX_PRECISION) {
                    return None;
                }
                digits.push_str(&"0".repeat(zeros as usize));
            }
            scale = 0;
        }
        // Drop fractional digits beyond MAX_SCALE, rounding.
        let mut round_up = false;
        if scale > i64::from(MAX_SCALE) {
            let drop = usize::try_from(scale - i64::from(MAX_SCALE)).unwrap_or(usize::MAX);
            if drop > digits.len() {
                digits.clear();
            } else {
                let keep = digits.len().saturating_sub(drop);
                round_up = digits.as_bytes().get(keep).is_some_and(|b| *b >= b'5');
                digits.truncate(keep);
            }
            scale = i64::from(MAX_SCALE);
        }
        if digits.len() > MAX_PRECISION as usize {
            return None;
        }
        let mut m: i128 = if digits.is_empty() {
            0
        } else {
            digits.parse().ok()?
        };
        if round_up {
            m += 1;
        }
        Some(Decimal::new(if neg { -m } else { m }, scale as u8))
    }

    /// Rescales with half-away-from-zero rounding; `None` on overflow.
    pub fn rescale(self, scale: u8) -> Option<Self> {
        match scale.cmp(&self.scale) {
            Ordering::Equal => Some(self),
            Ordering::Greater => {
                let f = pow10((scale - self.scale) as u32);
                self.mantissa.checked_mul(f).map(|m| Decimal::new(m, scale))
            }
            Ordering::Less => {
                let f = pow10((self.scale - scale) as u32);
                let q = self.mantissa / f;
                let r = (self.mantissa % f).abs();
                let q = if r * 2 >= f {
                    q + self.mantissa.signum()
                } else {
                    q
                };
                Some(Decimal::new(q, scale))
            }
        }
    }

    /// Number of significant integer digits.
    pub fn int_digits(&self) -> u32 {
        let int = (self.mantissa / pow10(self.scale as u32)).unsigned_abs();
        if int == 0 {
            0
        } else {
            int.ilog10() + 1
        }
    }

    /// True if the value fits DECIMAL(precision, scale) after rounding to `scale`.
    pub fn fits(&self, precision: u8, scale: u8) -> bool {
        match self.rescale(scale) {
            Some(d) => d.mantissa.unsigned_abs() < pow10(precision as u32) as u128,
            None => false,
        }
    }

    pub fn is_zero(&self) -> bool {
        self.mantissa == 0
    }

    /// The nearest double (correctly rounded, as MariaDB's `decimal2double`, which
    /// reads the decimal's digits with `strtod`).
    pub fn to_f64(&self) -> f64 {
        // Both operands exact doubles: the one division rounds once.
        const EXACT_POW10: [f64; 23] = [
            1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
            1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
        ];
        let m = self.mantissa;
        if m.unsigned_abs() <= 1 << 53 {
            if let Some(p) = EXACT_POW10.get(self.scale as usize) {
                return m as f64 / p;
            }
        }
        format!("{m}e-{}", self.scale).parse().unwrap_or(0.0)
    }

    /// Truncates toward zero; `None` if out of i64 range.
    pub fn trunc_i64(&self) -> Option<i64> {
        i64::try_from(self.mantissa / pow10(self.scale as u32)).ok()
    }

    /// Rounds half away from zero to an integer; `None` if out of i128 range of i64.
    pub fn round_i64(&self) -> Option<i64> {
        self.rescale(0).and_then(|d| i64::try_from(d.mantissa).ok())
    }

    fn aligned(a: Decimal, b: Decimal) -> Option<(i128, i128, u8)> {
        let s = a.scale.max(b.scale);
        Some((a.rescale(s)?.mantissa, b.rescale(s)?.mantissa, s))
    }

    pub fn checked_add(self, o: Decimal) -> Option<Decimal> {
        let (a, b, s) = Self::aligned(self, o)?;
        a.checked_add(b).map(|m| Decimal::new(m, s))
    }

    pub fn checked_sub(self, o: Decimal) -> Option<Decimal> {
        let (a, b, s) = Self::aligned(self, o)?;
        a.checked_sub(b).map(|m| Decimal::new(m, s))
    }

    pub fn checked_mul(self, o: Decimal) -> Option<Decimal> {
        let scale = self.scale as u32 + o.scale as u32;
        let m = self.mantissa.checked_mul(o.mantissa)?;
        let d = Decimal::new(m, scale.min(255) as u8);
        if scale > MAX_SCALE {
            d.rescale(MAX_SCALE as u8)
        } else {
            Some(d)
        }
    }

    /// Division with `extra` more fractional digits than the dividend
    /// (MySQL's `div_precision_increment`, default 4). `None` for x/0 or overflow.
    pub fn checked_div(self, o: Decimal, extra: u8) -> Option<Decimal> {
        if o.mantissa == 0 {
            return None;
        }
        let scale = (self.scale as u32 + extra as u32).min(MAX_SCALE);
        // result = a / b * 10^(scale - sa + sb), computed with one extra digit for rounding.
        let shift = scale as i32 - self.scale as i32 + o.scale as i32 + 1;
        let (num, den) = if shift >= 0 {
            (self.mantissa.checked_mul(pow10(shift as u32))?, o.mantissa)
        } else {
            (
                self.mantissa,
                o.mantissa.checked_mul(pow10((-shift) as u32))?,
            )
        };
        let q = num / den;
        let r = q % 10;
        let q = q / 10;
        let q = if r.abs() >= 5 {
            q + if (num < 0) != (den < 0) { -1 } else { 1 }
        } else {
            q
        };
        Some(Decimal::new(q, scale as u8))
    }
}

impl std::ops::Neg for Decimal {
    type Output = Decimal;
    fn neg(self) -> Decimal {
        Decimal::new(-self.mantissa, self.scale)
    }
}

impl PartialEq for Decimal {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Decimal {}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        match Decimal::aligned(*self, *other) {
            Some((a, b, _)) => a.cmp(&b),
            // Alignment overflowed: the one with fewer fractional digits has the larger magnitude.
            None => self.to_f64().total_cmp(&other.to_f64()),
        }
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let neg = self.mantissa < 0;
        let digits = self.mantissa.unsigned_abs().to_string();
        let scale = self.scale as usize;
        let (int, frac) = if digits.len() > scale {
            digits.split_at(digits.len() - scale)
        } else {
            ("0", "")
        };
        let frac = if digits.len() > scale {
            frac.to_string()
        } else {
            format!("{}{}", "0".repeat(scale - digits.len()), digits)
        };
        if neg {
            f.write_str("-")?;
        }
        f.write_str(int)?;
        if scale > 0 {
            f.write_str(".")?;
            f.write_str(&frac)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).expect("valid literal")
    }

    #[test]
    fn parse_and_print() {
        assert_eq!(d("12.50").to_string(), "12.50");
        assert_eq!(d("-0.05").to_string(), "-0.05");
        assert_eq!(d(".5").to_string(), "0.5");
        assert_eq!(d("1e3").to_string(), "1000");
        assert_eq!(d("1.5e-2").to_string(), "0.015");
        assert!(Decimal::parse("abc").is_none());
        assert!(Decimal::parse("").is_none());
    }

    /// Exponents anywhere in i32's range: checked before any digit is written (a
    /// 338-byte COM_STMT_EXECUTE with `...E2000000435` as a DECIMAL parameter made
    /// a 2 GB string), and no overflow in the scale arithmetic.
    #[test]
    fn huge_exponents_neither_allocate_nor_overflow() {
        assert!(Decimal::parse("1e2147483647").is_none());
        assert!(Decimal::parse("30050000.000000000E0000000002000000435").is_none());
        assert!(Decimal::parse("12e37").is_none());
        assert_eq!(d("12e36").to_string(), format!("12{}", "0".repeat(36)));
        assert_eq!(d("0e2147483647").to_string(), "0");
        assert_eq!(d("0.000e999999999").to_string(), "0");
        assert_eq!(d("1e-2147483648").mantissa, 0);
        assert_eq!(d("1.5e-2147483648").mantissa, 0);
        assert_eq!(d("-5e-31").to_string(), "-0.000000000000000000000000000001");
    }

    #[test]
    fn to_f64_is_correctly_rounded() {
        for text in [
            "98.20363932880133",
            "999999999999999.9",
            "0.1",
            "-123456789012345678901234567.891",
            "0.000000000000000000000000000001",
            "9007199254740993",
            "12345678901234567890123456789012345678",
        ] {
            let want: f64 = text.parse().expect("float literal");
            assert_eq!(d(text).to_f64(), want, "{text}");
        }
    }

    #[test]
    fn rescale_rounds_half_away_from_zero() {
        assert_eq!(
            d("2.345").rescale(2).map(|x| x.to_string()).as_deref(),
            Some("2.35")
        );
        assert_eq!(
            d("-2.345").rescale(2).map(|x| x.to_string()).as_deref(),
            Some("-2.35")
        );
        assert_eq!(
            d("2.344").rescale(2).map(|x| x.to_string()).as_deref(),
            Some("2.34")
        );
        assert_eq!(
            d("7").rescale(2).map(|x| x.to_string()).as_deref(),
            Some("7.00")
        );
    }

    #[test]
    fn arithmetic() {
        assert_eq!(
            d("1.10")
                .checked_add(d("2.2"))
                .map(|x| x.to_string())
                .as_deref(),
            Some("3.30")
        );
        assert_eq!(
            d("1.5")
                .checked_mul(d("2.25"))
                .map(|x| x.to_string())
                .as_deref(),
            Some("3.375")
        );
        assert_eq!(
            d("1")
                .checked_div(d("3"), 4)
                .map(|x| x.to_string())
                .as_deref(),
            Some("0.3333")
        );
        assert_eq!(
            d("2")
                .checked_div(d("3"), 4)
                .map(|x| x.to_string())
                .as_deref(),
            Some("0.6667")
        );
        assert!(d("1").checked_div(d("0"), 4).is_none());
        assert_eq!(d("1.0"), d("1.00"));
        assert!(d("1.01") > d("1.001"));
    }

    #[test]
    fn fits_precision() {
        assert!(d("999.99").fits(5, 2));
        assert!(!d("1000.00").fits(5, 2));
        assert!(!d("999.995").fits(5, 2));
    }
}
