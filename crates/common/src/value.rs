//! Runtime values of SQL expressions and table cells.
//!
//! A [`Value`] carries no column type; the SQL layer tracks types alongside values
//! (and conversion rules live there). Strings and blobs are bytes: UTF-8 for character
//! columns, arbitrary for binary ones.

use crate::datetime::{Date, DateTime, Time};
use crate::decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// A row of a table or a result set, indexed by column ordinal.
pub type Row = Vec<Value>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub enum Value {
    #[default]
    Null,
    Int(i64),
    UInt(u64),
    Double(f64),
    Decimal(Decimal),
    Bytes(Vec<u8>),
    Date(Date),
    /// DATETIME and TIMESTAMP.
    DateTime(DateTime),
    Time(Time),
    /// A value of an ENUM or SET column: its number (ENUM position, 1-based, 0 for
    /// ''; SET bitmask) for numeric context and sorting, and its text (the member,
    /// or the members in declaration order joined by ',') for string context.
    Enum(u64, Vec<u8>),
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn str(s: &str) -> Value {
        Value::Bytes(s.as_bytes().to_vec())
    }

    /// Text-protocol rendering (what a `SELECT` sends for this value), with
    /// `fsp` fractional digits for temporal values. `None` for NULL.
    pub fn to_text(&self, fsp: u8) -> Option<Vec<u8>> {
        let mut s = String::new();
        match self {
            Value::Null => return None,
            Value::Bytes(b) | Value::Enum(_, b) => return Some(b.clone()),
            Value::Int(v) => write!(s, "{v}").ok()?,
            Value::UInt(v) => write!(s, "{v}").ok()?,
            Value::Double(v) => s = format_double(*v),
            Value::Decimal(d) => write!(s, "{d}").ok()?,
            Value::Date(d) => write!(s, "{d}").ok()?,
            Value::DateTime(dt) => write!(s, "{}", dt.display(fsp)).ok()?,
            Value::Time(t) => write!(s, "{}", t.display(fsp)).ok()?,
        }
        Some(s.into_bytes())
    }

    /// Lossy display for messages (`Duplicate entry '...'`).
    pub fn display_lossy(&self) -> String {
        match self.to_text(6) {
            None => "NULL".into(),
            Some(b) => String::from_utf8_lossy(&b).into_owned(),
        }
    }
}

/// Formats a DOUBLE as MariaDB prints it (`my_gcvt` for a wide field): the
/// shortest digits that read back to the same value, in positional notation when
/// the decimal exponent allows it, else in exponent notation (`1e15`, `1e-16`).
pub fn format_double(v: f64) -> String {
    if !v.is_finite() {
        return non_finite(v);
    }
    gcvt(&shortest(v))
}

/// The shortest digits that read back to `v`, as dtoa's mode 0 chooses them:
/// among the strings of that length, the nearest to `v`, ties to even. (`{:e}`
/// gives the shortest length but breaks ties upwards: 198.832550048828125 is
/// `1.9883255004882813e2` there and `198.83255004882812` in MariaDB.)
fn shortest(v: f64) -> String {
    let s = format!("{v:e}");
    // A tie needs an exact expansion one digit longer than the shortest string,
    // which a double only has from 16 significant digits on.
    let n = s
        .bytes()
        .take_while(|b| *b != b'e')
        .filter(u8::is_ascii_digit)
        .count();
    if n < 16 {
        return s;
    }
    // `{:.Ne}` is exact and rounds ties to even.
    let nearest = format!("{:.*e}", n - 1, v);
    if nearest != s && nearest.parse::<f64>() == Ok(v) {
        nearest
    } else {
        s
    }
}

/// Formats a FLOAT (single precision) as MariaDB prints it: as [`format_double`],
/// with at most 6 significant digits (`FLT_DIG`), correctly rounded.
pub fn format_float(v: f32) -> String {
    let d = v as f64;
    if !d.is_finite() {
        return non_finite(d);
    }
    gcvt(&format!("{d:.5e}"))
}

fn non_finite(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v < 0.0 {
        "-inf".into()
    } else {
        "inf".into()
    }
}

/// Digits beyond which (either way) `my_gcvt` switches to exponent notation
/// (`MAX_DECPT_FOR_F_FORMAT`, i.e. `DBL_DIG`).
const MAX_DECPT_FOR_F_FORMAT: i32 = 15;

/// Lays out Rust's exponent form (`-1.2500e-7`, trailing zeros allowed) as
/// `my_gcvt` does. `decpt` is the position of the decimal point relative to the
/// first digit (dtoa's convention: 1 for `1.5`, 0 for `0.15`, -1 for `0.015`).
/// Positional notation is used when `-14 <= decpt <= 15`, or when the digits go
/// past the point; negative zero prints as `0`, as MariaDB stores and prints it.
fn gcvt(e_form: &str) -> String {
    let (neg, body) = match e_form.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, e_form),
    };
    let (mant, exp) = body.split_once('e').unwrap_or((body, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits: Vec<u8> = mant.bytes().filter(|b| b.is_ascii_digit()).collect();
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    if digits == b"0" {
        return "0".into();
    }
    let len = digits.len() as i32;
    let decpt = exp + 1;
    let mut out = String::with_capacity(digits.len() + 8);
    if neg {
        out.push('-');
    }
    let positional =
        decpt > -MAX_DECPT_FOR_F_FORMAT && (decpt <= MAX_DECPT_FOR_F_FORMAT || len > decpt);
    let text = |d: &[u8]| String::from_utf8_lossy(d).into_owned();
    if positional {
        if decpt <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-decpt) as usize));
            out.push_str(&text(&digits));
        } else if decpt < len {
            out.push_str(&text(&digits[..decpt as usize]));
            out.push('.');
            out.push_str(&text(&digits[decpt as usize..]));
        } else {
            out.push_str(&text(&digits));
            out.extend(std::iter::repeat_n('0', (decpt - len) as usize));
        }
    } else {
        out.push(digits[0] as char);
        if len > 1 {
            out.push('.');
            out.push_str(&text(&digits[1..]));
        }
        let _ = write!(out, "e{}", decpt - 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_rendering() {
        assert_eq!(Value::Int(-5).to_text(0), Some(b"-5".to_vec()));
        assert_eq!(Value::Null.to_text(0), None);
        assert_eq!(format_double(0.1), "0.1");
        assert_eq!(format_double(1e20), "1e20");
        assert_eq!(format_double(1.5e-5), "0.000015");
        assert_eq!(format_double(100.0), "100");
        assert_eq!(format_float(0.1f32), "0.1");
    }

    /// Outputs of MariaDB 10.11 for the same values.
    #[test]
    fn doubles_print_as_mariadb() {
        for (v, want) in [
            (98.20363932880133, "98.20363932880133"),
            (1e15, "1e15"),
            (1e14, "100000000000000"),
            (999999999999999.9, "999999999999999.9"),
            (1234567890123456.7, "1234567890123456.8"),
            (1.2345678901234568e17, "1.2345678901234568e17"),
            (1e-4, "0.0001"),
            (1e-5, "0.00001"),
            (-1.5e-7, "-0.00000015"),
            (1e-15, "0.000000000000001"),
            (-1.5e-15, "-0.0000000000000015"),
            (1e-16, "1e-16"),
            (5e-324, "5e-324"),
            (2.2250738585072014e-308, "2.2250738585072014e-308"),
            (1.5e300, "1.5e300"),
            (-0.0, "0"),
            (0.0, "0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e-15 + 3.6274937e-24, "0.0000000000000010000000036274937"),
            (198.832_550_048_828_12, "198.83255004882812"),
        ] {
            assert_eq!(format_double(v), want, "{v:e}");
        }
    }

    #[test]
    fn floats_print_six_digits_as_mariadb() {
        for (v, want) in [
            (98.203_636_f32, "98.2036"),
            (1e15, "1e15"),
            (1.2345679e17, "1.23457e17"),
            (1.1754944e-38, "1.17549e-38"),
            (1e-45, "1.4013e-45"),
            (16777216.0, "16777200"),
            (3.4028235e38, "3.40282e38"),
            (1234567.0, "1234570"),
            (1e-4, "0.0001"),
            (123456.75, "123457"),
            (100.5, "100.5"),
            (1e-5, "0.00001"),
            (-0.0, "0"),
        ] {
            assert_eq!(format_float(v), want, "{v:e}");
        }
    }
}
