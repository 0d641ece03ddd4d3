//! MySQL's value semantics on [`Value`]s: conversions between numbers, strings and
//! temporal values, comparison, and arithmetic.
//!
//! Conversions that lose information report it (`clean == false`) so that the
//! caller can raise MariaDB's warning (`Truncated incorrect DOUBLE value: 'x'`) or,
//! when storing in strict mode, an error.

pub mod arith;
pub mod compare;
pub mod temporal;
pub mod zone;

use basalt_common::value::format_double;
use basalt_common::{Date, DateTime, Decimal, Time, Value};

/// A number in the representation arithmetic works on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Int(i64),
    UInt(u64),
    Dec(Decimal),
    Dbl(f64),
}

/// The longest prefix of `s` that reads as a number: (end offset, has point or
/// exponent). Leading spaces are skipped; `end == 0` means no digits at all.
fn numeric_prefix(s: &[u8]) -> (usize, usize, bool) {
    let mut i = 0;
    while i < s.len() && (s[i] == b' ' || s[i] == b'\t' || s[i] == b'\n' || s[i] == b'\r') {
        i += 1;
    }
    let start = i;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        i += 1;
    }
    let digits_start = i;
    while i < s.len() && s[i].is_ascii_digit() {
        i += 1;
    }
    let mut frac = false;
    let mut any = i > digits_start;
    if i < s.len() && s[i] == b'.' {
        let j = i + 1;
        let mut k = j;
        while k < s.len() && s[k].is_ascii_digit() {
            k += 1;
        }
        if k > j || any {
            frac = true;
            any = any || k > j;
            i = k;
        }
    }
    if !any {
        return (start, start, false);
    }
    if i < s.len() && (s[i] == b'e' || s[i] == b'E') {
        let mut k = i + 1;
        if k < s.len() && (s[k] == b'+' || s[k] == b'-') {
            k += 1;
        }
        let ds = k;
        while k < s.len() && s[k].is_ascii_digit() {
            k += 1;
        }
        if k > ds {
            frac = true;
            i = k;
        }
    }
    (start, i, frac)
}

fn trailing_clean(s: &[u8], end: usize) -> bool {
    s[end..].iter().all(|c| c.is_ascii_whitespace())
}

/// String to double, MySQL style: the numeric prefix, 0 if none.
pub fn str_to_f64(s: &[u8]) -> (f64, bool) {
    let (start, end, _) = numeric_prefix(s);
    if end == start {
        return (0.0, false);
    }
    let txt = std::str::from_utf8(&s[start..end]).unwrap_or("0");
    (txt.parse().unwrap_or(0.0), trailing_clean(s, end))
}

/// String to a number of the narrowest exact kind (integers stay integers).
pub fn str_to_num(s: &[u8]) -> (Num, bool) {
    let (start, end, frac) = numeric_prefix(s);
    if end == start {
        return (Num::Int(0), false);
    }
    let clean = trailing_clean(s, end);
    let txt = std::str::from_utf8(&s[start..end]).unwrap_or("0");
    if !frac {
        if let Ok(i) = txt.parse::<i64>() {
            return (Num::Int(i), clean);
        }
        if let Ok(u) = txt.trim_start_matches('+').parse::<u64>() {
            return (Num::UInt(u), clean);
        }
    }
    (Num::Dbl(txt.parse().unwrap_or(0.0)), clean)
}

/// A string's numeric prefix as an exact DECIMAL, as MySQL converts a string for a
/// DECIMAL column (not through a double, which loses digits past the 15th); `None`
/// when the prefix is not one a DECIMAL can hold.
pub fn str_to_decimal(s: &[u8]) -> Option<(Num, bool)> {
    let (start, end, _) = numeric_prefix(s);
    if end == start {
        return None;
    }
    let txt = std::str::from_utf8(&s[start..end]).ok()?;
    Some((Num::Dec(Decimal::parse(txt)?), trailing_clean(s, end)))
}

/// A temporal value as MySQL's numeric context sees it (`20240102`,
/// `20240102030405`, `30405`).
pub fn temporal_to_num(v: &Value) -> Num {
    match v {
        Value::Date(d) => Num::Int(d.year as i64 * 10000 + d.month as i64 * 100 + d.day as i64),
        Value::DateTime(dt) => {
            let date =
                dt.date.year as i64 * 10000 + dt.date.month as i64 * 100 + dt.date.day as i64;
            let n = date * 1_000_000
                + dt.hour as i64 * 10000
                + dt.minute as i64 * 100
                + dt.second as i64;
            if dt.micro == 0 {
                Num::Int(n)
            } else {
                Num::Dec(Decimal::new(n as i128 * 1_000_000 + dt.micro as i128, 6))
            }
        }
        Value::Time(t) => {
            let n = t.hours as i64 * 10000 + t.minute as i64 * 100 + t.second as i64;
            let n = if t.negative { -n } else { n };
            Num::Int(n)
        }
        _ => Num::Int(0),
    }
}

/// Any non-NULL value as a number; `clean == false` when a string had junk.
pub fn to_num(v: &Value) -> (Num, bool) {
    match v {
        Value::Int(i) => (Num::Int(*i), true),
        Value::UInt(u) => (Num::UInt(*u), true),
        Value::Double(d) => (Num::Dbl(*d), true),
        Value::Decimal(d) => (Num::Dec(*d), true),
        Value::Enum(n, _) => match i64::try_from(*n) {
            Ok(i) => (Num::Int(i), true),
            Err(_) => (Num::UInt(*n), true),
        },
        Value::Bytes(b) => match str_to_num(b) {
            (Num::Int(i), c) if has_point(b) => (Num::Dbl(i as f64), c),
            other => other,
        },
        Value::Null => (Num::Int(0), true),
        other => (temporal_to_num(other), true),
    }
}

fn has_point(b: &[u8]) -> bool {
    b.iter().any(|&c| c == b'.' || c == b'e' || c == b'E')
}

impl Num {
    pub fn to_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::UInt(u) => u as f64,
            Num::Dec(d) => d.to_f64(),
            Num::Dbl(d) => d,
        }
    }

    pub fn to_decimal(self) -> Decimal {
        match self {
            Num::Int(i) => Decimal::from_i64(i),
            Num::UInt(u) => Decimal::from_u64(u),
            Num::Dec(d) => d,
            Num::Dbl(d) => Decimal::from_f64(d).unwrap_or(Decimal::ZERO),
        }
    }

    /// Rounded to an integer (half away from zero), saturating; `None` when out of
    /// i64 range.
    pub fn to_i64(self) -> Option<i64> {
        match self {
            Num::Int(i) => Some(i),
            Num::UInt(u) => i64::try_from(u).ok(),
            Num::Dec(d) => d.round_i64(),
            Num::Dbl(d) => {
                let r = d.round();
                (-9.223_372_036_854_776e18..9.223_372_036_854_776e18)
                    .contains(&r)
                    .then_some(r as i64)
            }
        }
    }

    /// As i128 after rounding (covers both i64 and u64 ranges).
    pub fn to_i128(self) -> Option<i128> {
        match self {
            Num::Int(i) => Some(i as i128),
            Num::UInt(u) => Some(u as i128),
            Num::Dec(d) => d.rescale(0).map(|x| x.mantissa),
            Num::Dbl(d) => {
                let r = d.round();
                (r.is_finite() && r.abs() < 1.8e19).then_some(r as i128)
            }
        }
    }

    pub fn into_value(self) -> Value {
        match self {
            Num::Int(i) => Value::Int(i),
            Num::UInt(u) => Value::UInt(u),
            Num::Dec(d) => Value::Decimal(d),
            Num::Dbl(d) => Value::Double(d),
        }
    }

    pub fn is_zero(self) -> bool {
        match self {
            Num::Int(i) => i == 0,
            Num::UInt(u) => u == 0,
            Num::Dec(d) => d.is_zero(),
            Num::Dbl(d) => d == 0.0,
        }
    }
}

/// The double value of a non-NULL value (strings by their numeric prefix).
pub fn to_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Double(d) => *d,
        Value::Decimal(d) => d.to_f64(),
        Value::Bytes(b) => str_to_f64(b).0,
        Value::Enum(n, _) => *n as f64,
        other => to_num(other).0.to_f64(),
    }
}

/// The truth value of a condition: NULL is `None`.
pub fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i != 0),
        Value::UInt(u) => Some(*u != 0),
        Value::Double(d) => Some(*d != 0.0),
        Value::Decimal(d) => Some(!d.is_zero()),
        Value::Bytes(b) => Some(str_to_f64(b).0 != 0.0),
        Value::Enum(n, _) => Some(*n != 0),
        other => Some(!to_num(other).0.is_zero()),
    }
}

/// A value as a user variable keeps it: a temporal value becomes its text
/// with `fsp` fractional digits (MariaDB's user variables hold strings,
/// numbers and decimals only).
pub fn user_var_value(v: Value, fsp: u8) -> Value {
    match v {
        Value::Date(_) | Value::DateTime(_) | Value::Time(_) => {
            Value::Bytes(v.to_text(fsp.min(6)).unwrap_or_default())
        }
        v => v,
    }
}

/// The text of a value in string context (`CONCAT`, storing into CHAR columns).
pub fn to_bytes(v: &Value) -> Vec<u8> {
    match v {
        Value::Bytes(b) | Value::Enum(_, b) => b.clone(),
        Value::Double(d) => format_double(*d).into_bytes(),
        Value::Null => Vec::new(),
        Value::DateTime(dt) => {
            let fsp = if dt.micro == 0 { 0 } else { 6 };
            dt.display(fsp).to_string().into_bytes()
        }
        Value::Time(t) => {
            let fsp = if t.micro == 0 { 0 } else { 6 };
            t.display(fsp).to_string().into_bytes()
        }
        other => other.to_text(0).unwrap_or_default(),
    }
}

/// Parses a string as DATETIME (accepting a bare date).
pub fn parse_datetime(s: &[u8]) -> Option<DateTime> {
    DateTime::parse(std::str::from_utf8(s).ok()?)
}

pub fn parse_date(s: &[u8]) -> Option<Date> {
    let txt = std::str::from_utf8(s).ok()?;
    match DateTime::parse(txt) {
        Some(dt) => Some(dt.date),
        None => Date::parse(txt),
    }
}

pub fn parse_time(s: &[u8]) -> Option<Time> {
    let txt = std::str::from_utf8(s).ok()?.trim();
    if let Some(dt) = DateTime::parse(txt).filter(|_| txt.len() > 10 && txt.contains('-')) {
        return Some(Time {
            negative: false,
            hours: dt.hour as u16,
            minute: dt.minute,
            second: dt.second,
            micro: dt.micro,
        });
    }
    Time::parse(txt)
}

/// A number read as a date (`20240102` or `240102`).
pub fn num_to_datetime(n: i64) -> Option<DateTime> {
    if n <= 0 {
        return (n == 0).then(DateTime::default);
    }
    let s = n.to_string();
    match s.len() {
        6 | 8 => Date::parse(&s).map(DateTime::from_date),
        12 | 14 => {
            let full = if s.len() == 12 {
                let yy: u32 = s[0..2].parse().ok()?;
                format!("{}{}", if yy < 70 { 20 } else { 19 }, s)
            } else {
                s
            };
            DateTime::parse(&full)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_numbers() {
        assert_eq!(str_to_f64(b"12abc"), (12.0, false));
        assert_eq!(str_to_f64(b" 1.5e2 "), (150.0, true));
        assert_eq!(str_to_f64(b"abc"), (0.0, false));
        assert_eq!(str_to_num(b"42"), (Num::Int(42), true));
        assert_eq!(
            str_to_num(b"18446744073709551615"),
            (Num::UInt(u64::MAX), true)
        );
    }

    #[test]
    fn truthiness() {
        assert_eq!(truth(&Value::Null), None);
        assert_eq!(truth(&Value::str("0.0")), Some(false));
        assert_eq!(truth(&Value::str("1abc")), Some(true));
        assert_eq!(
            truth(&Value::Decimal(Decimal::parse("0.01").expect("dec"))),
            Some(true)
        );
    }

    #[test]
    fn temporal_numbers() {
        let d = Value::Date(Date::new(2024, 1, 2));
        assert_eq!(temporal_to_num(&d), Num::Int(20240102));
        assert_eq!(
            num_to_datetime(20240102).map(|d| d.date),
            Some(Date::new(2024, 1, 2))
        );
    }
}
