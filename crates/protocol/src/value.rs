//! Encoding one [`Value`] for a result column, in text or binary form, converting it
//! to the column's type first when the two differ.
//!
//! Binary forms by `MYSQL_TYPE_*` (little-endian):
//!
//! | column type                         | encoding                                   |
//! |-------------------------------------|--------------------------------------------|
//! | TINY                                | 1 byte                                     |
//! | SHORT, YEAR                         | 2 bytes                                    |
//! | LONG, INT24                         | 4 bytes                                    |
//! | LONGLONG                            | 8 bytes                                    |
//! | FLOAT / DOUBLE                      | IEEE-754, 4 / 8 bytes                      |
//! | DATE, DATETIME, TIMESTAMP           | length byte 0, 4, 7 or 11, then year `u16`, month, day, hour, minute, second, microseconds `u32` (trailing zero parts omitted) |
//! | TIME                                | length byte 0, 8 or 12, then negative flag, days `u32`, hour, minute, second, microseconds `u32` |
//! | DECIMAL, NEWDECIMAL, strings, BLOBs, BIT, ENUM, SET, GEOMETRY, JSON | `string<lenenc>` |
//!
//! Integers are written from the value's two's-complement bits, so signed and
//! unsigned columns share one path (the column's UNSIGNED flag tells the client how
//! to read them).

use crate::codec::{put_lenenc_bytes, put_lenenc_with, put_u16, put_u32};
use basalt_common::value::{format_double, format_float};
use basalt_common::{ColumnMeta, ColumnType, Date, DateTime, Time, Value};
use std::io::Write as _;

/// Appends the text form of a non-NULL value (without length prefix).
/// An integer column declared ZEROFILL (YEAR has the flag too but prints itself).
#[inline]
fn zerofill(col: &ColumnMeta) -> bool {
    col.flags & basalt_common::column::flags::ZEROFILL != 0 && col.column_type != ColumnType::Year
}

/// `u` in decimal, left-padded with zeros to `width` digits.
fn push_padded(out: &mut Vec<u8>, u: u64, width: u32) {
    let mut buf = itoa::Buffer::new();
    let digits = buf.format(u).as_bytes();
    let pad = (width as usize).saturating_sub(digits.len());
    out.resize(out.len() + pad, b'0');
    out.extend_from_slice(digits);
}

pub(crate) fn write_text_value(out: &mut Vec<u8>, v: &Value, col: &ColumnMeta) {
    let ct = col.column_type;
    if ct == ColumnType::Bit {
        if let Value::Int(_) | Value::UInt(_) = v {
            return write_bit(out, to_i64(v) as u64, col.length);
        }
    }
    if is_integer_type(ct) && matches!(v, Value::Double(_) | Value::Decimal(_)) {
        push_int(out, to_i64(v));
        return;
    }
    match v {
        Value::Null => {}
        Value::Bytes(b) => out.extend_from_slice(b),
        // An ENUM/SET value is its text, unless the column is a number.
        Value::Enum(n, _) if is_integer_type(ct) => {
            out.extend_from_slice(itoa::Buffer::new().format(*n).as_bytes())
        }
        Value::Enum(_, b) => out.extend_from_slice(b),
        // YEAR prints four digits (`0000`), as MariaDB's zero-filled YEAR(4).
        Value::Int(i) if ct == ColumnType::Year && (0..10_000).contains(i) => {
            push_digits(out, *i as u32, 4)
        }
        // A ZEROFILL column pads to its display width.
        Value::Int(i) if zerofill(col) && *i >= 0 => push_padded(out, *i as u64, col.length),
        Value::UInt(u) if zerofill(col) => push_padded(out, *u, col.length),
        Value::Int(i) => push_int(out, *i),
        Value::UInt(u) => out.extend_from_slice(itoa::Buffer::new().format(*u).as_bytes()),
        // A declared scale (FLOAT(M,D), DOUBLE(M,D), ROUND(x, D)) prints fixed digits;
        // 31 means "no scale": the shortest text that reads back the same value.
        Value::Double(d) if col.decimals < 31 && d.is_finite() => {
            let _ = write!(out, "{:.*}", col.decimals as usize, d);
        }
        Value::Double(d) if ct == ColumnType::Float => {
            out.extend_from_slice(format_float(*d as f32).as_bytes())
        }
        Value::Double(d) => out.extend_from_slice(format_double(*d).as_bytes()),
        Value::Decimal(d) => {
            let _ = write!(out, "{d}");
        }
        Value::Date(d) if is_datetime_type(ct) => {
            write_datetime(out, &DateTime::from_date(*d), fsp(col, 0))
        }
        Value::Date(d) => write_date(out, d),
        Value::DateTime(dt) if ct == ColumnType::Date => write_date(out, &dt.date),
        Value::DateTime(dt) => write_datetime(out, dt, fsp(col, dt.micro)),
        Value::Time(t) => write_time(out, t, fsp(col, t.micro)),
    }
}

/// A BIT(width) value as MariaDB sends it: big-endian, (width + 7) / 8 bytes.
fn write_bit(out: &mut Vec<u8>, n: u64, width: u32) {
    let bytes = (width as usize).div_ceil(8).clamp(1, 8);
    out.extend_from_slice(&n.to_be_bytes()[8 - bytes..]);
}

/// Fractional digits to print: the column's `decimals` for temporal columns, else
/// 6 when the value has a fraction.
fn fsp(col: &ColumnMeta, micro: u32) -> u8 {
    match col.column_type {
        ColumnType::DateTime | ColumnType::Timestamp | ColumnType::Time => col.decimals.min(6),
        _ if micro != 0 => 6,
        _ => 0,
    }
}

pub(crate) fn is_integer_type(ct: ColumnType) -> bool {
    matches!(
        ct,
        ColumnType::Tiny
            | ColumnType::Short
            | ColumnType::Long
            | ColumnType::LongLong
            | ColumnType::Int24
            | ColumnType::Year
    )
}

fn is_datetime_type(ct: ColumnType) -> bool {
    matches!(ct, ColumnType::DateTime | ColumnType::Timestamp)
}

#[inline]
fn push_int(out: &mut Vec<u8>, v: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
}

/// Appends `v` as exactly `width` decimal digits (zero-padded; wider values are
/// printed in full).
fn push_digits(out: &mut Vec<u8>, v: u32, width: usize) {
    let mut buf = itoa::Buffer::new();
    let s = buf.format(v).as_bytes();
    for _ in s.len()..width {
        out.push(b'0');
    }
    out.extend_from_slice(s);
}

fn write_date(out: &mut Vec<u8>, d: &Date) {
    push_digits(out, d.year as u32, 4);
    out.push(b'-');
    push_digits(out, d.month as u32, 2);
    out.push(b'-');
    push_digits(out, d.day as u32, 2);
}

fn write_hms(out: &mut Vec<u8>, h: u32, m: u8, s: u8) {
    push_digits(out, h, 2);
    out.push(b':');
    push_digits(out, m as u32, 2);
    out.push(b':');
    push_digits(out, s as u32, 2);
}

fn write_fraction(out: &mut Vec<u8>, micro: u32, fsp: u8) {
    if fsp == 0 {
        return;
    }
    let fsp = fsp.min(6);
    out.push(b'.');
    push_digits(
        out,
        micro.min(999_999) / 10u32.pow(6 - fsp as u32),
        fsp as usize,
    );
}

fn write_datetime(out: &mut Vec<u8>, dt: &DateTime, fsp: u8) {
    write_date(out, &dt.date);
    out.push(b' ');
    write_hms(out, dt.hour as u32, dt.minute, dt.second);
    write_fraction(out, dt.micro, fsp);
}

fn write_time(out: &mut Vec<u8>, t: &Time, fsp: u8) {
    if t.negative && t.total_micros() != 0 {
        out.push(b'-');
    }
    write_hms(out, t.hours as u32, t.minute, t.second);
    write_fraction(out, t.micro, fsp);
}

/// Appends the binary form of a non-NULL value for column `col`.
/// A string value as the client reads it: in the column's `text_as` character set
/// (values are held as UTF-8, see `basalt_common::charset`).
pub(crate) fn client_bytes<'a>(b: &'a [u8], col: &ColumnMeta) -> std::borrow::Cow<'a, [u8]> {
    match col.text_as {
        Some(cs) if !b.is_ascii() || !cs.ascii_compatible() => {
            basalt_common::charset::from_internal(b, cs)
        }
        _ => std::borrow::Cow::Borrowed(b),
    }
}

pub(crate) fn encode_binary_value(out: &mut Vec<u8>, v: &Value, col: &ColumnMeta) {
    match col.column_type {
        ColumnType::Tiny => out.push(to_i64(v) as u8),
        ColumnType::Short | ColumnType::Year => put_u16(out, to_i64(v) as u16),
        ColumnType::Long | ColumnType::Int24 => put_u32(out, to_i64(v) as u32),
        ColumnType::LongLong => out.extend_from_slice(&to_i64(v).to_le_bytes()),
        ColumnType::Float => out.extend_from_slice(&(to_f64(v) as f32).to_le_bytes()),
        ColumnType::Double => out.extend_from_slice(&to_f64(v).to_le_bytes()),
        ColumnType::Date => {
            let dt = to_datetime(v);
            encode_binary_datetime(out, &DateTime::from_date(dt.date));
        }
        ColumnType::DateTime | ColumnType::Timestamp => {
            encode_binary_datetime(out, &to_datetime(v))
        }
        ColumnType::Time => encode_binary_time(out, &to_time(v)),
        ColumnType::Null => {}
        _ => match v {
            Value::Bytes(b) | Value::Enum(_, b) => put_lenenc_bytes(out, &client_bytes(b, col)),
            _ => put_lenenc_with(out, |o| write_text_value(o, v, col)),
        },
    }
}

/// Binary DATE/DATETIME/TIMESTAMP: the shortest of the 0/4/7/11-byte forms.
pub fn encode_binary_datetime(out: &mut Vec<u8>, dt: &DateTime) {
    let d = &dt.date;
    let has_time = dt.hour != 0 || dt.minute != 0 || dt.second != 0;
    let len = if dt.micro != 0 {
        11
    } else if has_time {
        7
    } else if d.year != 0 || d.month != 0 || d.day != 0 {
        4
    } else {
        0
    };
    out.push(len);
    if len >= 4 {
        put_u16(out, d.year);
        out.extend_from_slice(&[d.month, d.day]);
    }
    if len >= 7 {
        out.extend_from_slice(&[dt.hour, dt.minute, dt.second]);
    }
    if len == 11 {
        put_u32(out, dt.micro);
    }
}

/// Binary TIME: the shortest of the 0/8/12-byte forms.
pub fn encode_binary_time(out: &mut Vec<u8>, t: &Time) {
    let zero = t.hours == 0 && t.minute == 0 && t.second == 0 && t.micro == 0;
    let len = if zero {
        0
    } else if t.micro != 0 {
        12
    } else {
        8
    };
    out.push(len);
    if len == 0 {
        return;
    }
    out.push(t.negative as u8);
    put_u32(out, t.hours as u32 / 24);
    out.extend_from_slice(&[(t.hours % 24) as u8, t.minute, t.second]);
    if len == 12 {
        put_u32(out, t.micro);
    }
}

/// Integer view of a value (two's complement for UInt; rounded for fractions;
/// leading number of a string; YYYYMMDD[hhmmss] for temporal values).
pub(crate) fn to_i64(v: &Value) -> i64 {
    match v {
        Value::Null => 0,
        Value::Int(i) => *i,
        Value::UInt(u) | Value::Enum(u, _) => *u as i64,
        Value::Double(d) => d.round() as i64,
        Value::Decimal(d) => {
            d.round_i64()
                .unwrap_or(if d.mantissa < 0 { i64::MIN } else { i64::MAX })
        }
        Value::Bytes(b) => parse_number(b).map_or(0, |(i, f)| i.unwrap_or(f.round() as i64)),
        Value::Date(_) | Value::DateTime(_) | Value::Time(_) => temporal_number(v) as i64,
    }
}

/// Floating view of a value.
pub(crate) fn to_f64(v: &Value) -> f64 {
    match v {
        Value::Null => 0.0,
        Value::Int(i) => *i as f64,
        Value::UInt(u) | Value::Enum(u, _) => *u as f64,
        // MariaDB never sends a negative zero.
        Value::Double(d) => *d + 0.0,
        Value::Decimal(d) => d.to_f64(),
        Value::Bytes(b) => parse_number(b).map_or(0.0, |(_, f)| f),
        Value::Date(_) | Value::DateTime(_) | Value::Time(_) => temporal_number(v),
    }
}

/// The number MySQL gives a temporal value in numeric context.
fn temporal_number(v: &Value) -> f64 {
    let date = |d: &Date| d.year as f64 * 10000.0 + d.month as f64 * 100.0 + d.day as f64;
    let hms = |h: f64, m: u8, s: u8| h * 10000.0 + m as f64 * 100.0 + s as f64;
    match v {
        Value::Date(d) => date(d),
        Value::DateTime(dt) => date(&dt.date) * 1e6 + hms(dt.hour as f64, dt.minute, dt.second),
        Value::Time(t) => {
            let n = hms(t.hours as f64, t.minute, t.second);
            if t.negative {
                -n
            } else {
                n
            }
        }
        _ => 0.0,
    }
}

/// Parses a trimmed decimal number: the integer (if it is one) and the float value.
fn parse_number(b: &[u8]) -> Option<(Option<i64>, f64)> {
    let s = std::str::from_utf8(b).ok()?.trim();
    if let Ok(i) = s.parse::<i64>() {
        return Some((Some(i), i as f64));
    }
    s.parse::<f64>().ok().map(|f| (None, f))
}

fn text_of(v: &Value) -> String {
    match v {
        Value::Bytes(b) | Value::Enum(_, b) => String::from_utf8_lossy(b).into_owned(),
        other => other.display_lossy(),
    }
}

/// DATETIME view of a value (zero when it has none).
pub(crate) fn to_datetime(v: &Value) -> DateTime {
    match v {
        Value::Date(d) => DateTime::from_date(*d),
        Value::DateTime(dt) => *dt,
        Value::Null | Value::Time(_) => DateTime::default(),
        other => DateTime::parse(&text_of(other)).unwrap_or_default(),
    }
}

/// TIME view of a value (zero when it has none).
pub(crate) fn to_time(v: &Value) -> Time {
    match v {
        Value::Time(t) => *t,
        Value::DateTime(dt) => Time {
            negative: false,
            hours: dt.hour as u16,
            minute: dt.minute,
            second: dt.second,
            micro: dt.micro,
        },
        Value::Null | Value::Date(_) => Time::default(),
        other => Time::parse(&text_of(other)).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_common::Decimal;

    fn bin(v: Value, t: ColumnType) -> Vec<u8> {
        let mut out = Vec::new();
        encode_binary_value(&mut out, &v, &ColumnMeta::expr("c", t, 0));
        out
    }

    fn text(v: Value, t: ColumnType, decimals: u8) -> String {
        let mut c = ColumnMeta::expr("c", t, 0);
        c.decimals = decimals;
        let mut out = Vec::new();
        write_text_value(&mut out, &v, &c);
        String::from_utf8(out).expect("utf8")
    }

    #[test]
    fn binary_integers_and_floats_match_protocol_doc() {
        // MySQL docs, Binary Protocol Value examples.
        assert_eq!(
            bin(Value::Int(1), ColumnType::LongLong),
            [1, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(bin(Value::Int(1), ColumnType::Long), [1, 0, 0, 0]);
        assert_eq!(bin(Value::Int(1), ColumnType::Short), [1, 0]);
        assert_eq!(bin(Value::Int(1), ColumnType::Tiny), [1]);
        assert_eq!(
            bin(Value::Double(35.5), ColumnType::Double),
            [0, 0, 0, 0, 0, 0xc0, 0x41, 0x40]
        );
        assert_eq!(
            bin(Value::Double(35.5), ColumnType::Float),
            [0, 0, 0x0e, 0x42]
        );
        assert_eq!(bin(Value::Int(2024), ColumnType::Year), [0xe8, 0x07]);
        assert_eq!(bin(Value::UInt(u64::MAX), ColumnType::LongLong), [0xff; 8]);
        assert_eq!(bin(Value::Int(-1), ColumnType::Int24), [0xff; 4]);
    }

    #[test]
    fn binary_conversions_follow_column_type() {
        assert_eq!(bin(Value::Int(35), ColumnType::Double), 35f64.to_le_bytes());
        assert_eq!(bin(Value::str("12"), ColumnType::Long), [12, 0, 0, 0]);
        assert_eq!(
            bin(Value::Double(2.5), ColumnType::LongLong),
            3i64.to_le_bytes()
        );
        assert_eq!(bin(Value::Int(5), ColumnType::VarString), [1, b'5']);
        assert_eq!(
            bin(
                Value::Decimal(Decimal::new(1050, 2)),
                ColumnType::NewDecimal
            ),
            b"\x0510.50"
        );
        assert_eq!(
            bin(Value::str("2010-10-17"), ColumnType::Date),
            [4, 0xda, 0x07, 10, 17]
        );
        assert_eq!(bin(Value::str("x"), ColumnType::Blob), [1, b'x']);
    }

    #[test]
    fn binary_temporal_match_protocol_doc() {
        let dt = |s: &str| Value::DateTime(DateTime::parse(s).expect("datetime"));
        assert_eq!(
            bin(dt("2010-10-17 19:27:30.000001"), ColumnType::DateTime),
            [0x0b, 0xda, 0x07, 0x0a, 0x11, 0x13, 0x1b, 0x1e, 0x01, 0x00, 0x00, 0x00]
        );
        assert_eq!(
            bin(dt("2010-10-17 19:27:30"), ColumnType::Timestamp),
            [0x07, 0xda, 0x07, 0x0a, 0x11, 0x13, 0x1b, 0x1e]
        );
        assert_eq!(
            bin(dt("2010-10-17"), ColumnType::DateTime),
            [0x04, 0xda, 0x07, 0x0a, 0x11]
        );
        assert_eq!(
            bin(Value::DateTime(DateTime::default()), ColumnType::DateTime),
            [0]
        );
        assert_eq!(
            bin(dt("2010-10-17 19:27:30"), ColumnType::Date),
            [0x04, 0xda, 0x07, 0x0a, 0x11]
        );
        let t = Time {
            negative: true,
            hours: 120 * 24 + 19,
            minute: 27,
            second: 30,
            micro: 1,
        };
        assert_eq!(
            bin(Value::Time(t), ColumnType::Time),
            [0x0c, 0x01, 0x78, 0x00, 0x00, 0x00, 0x13, 0x1b, 0x1e, 0x01, 0x00, 0x00, 0x00]
        );
        let t = Time { micro: 0, ..t };
        assert_eq!(
            bin(Value::Time(t), ColumnType::Time),
            [0x08, 0x01, 0x78, 0x00, 0x00, 0x00, 0x13, 0x1b, 0x1e]
        );
        assert_eq!(bin(Value::Time(Time::default()), ColumnType::Time), [0]);
    }

    #[test]
    fn text_forms() {
        assert_eq!(
            text(Value::Int(i64::MIN), ColumnType::LongLong, 0),
            "-9223372036854775808"
        );
        assert_eq!(
            text(Value::UInt(u64::MAX), ColumnType::LongLong, 0),
            "18446744073709551615"
        );
        assert_eq!(text(Value::Double(1e20), ColumnType::Double, 31), "1e20");
        assert_eq!(
            text(Value::Double(0.1f32 as f64), ColumnType::Float, 31),
            "0.1"
        );
        assert_eq!(text(Value::Double(2.5), ColumnType::LongLong, 0), "3");
        assert_eq!(
            text(Value::Date(Date::new(5, 1, 2)), ColumnType::Date, 0),
            "0005-01-02"
        );
        assert_eq!(
            text(Value::Date(Date::new(2024, 1, 2)), ColumnType::DateTime, 2),
            "2024-01-02 00:00:00.00"
        );
        let dt = DateTime::parse("2024-01-02 03:04:05.000123").expect("dt");
        assert_eq!(
            text(Value::DateTime(dt), ColumnType::Timestamp, 6),
            "2024-01-02 03:04:05.000123"
        );
        assert_eq!(
            text(Value::DateTime(dt), ColumnType::DateTime, 0),
            "2024-01-02 03:04:05"
        );
        assert_eq!(
            text(Value::DateTime(dt), ColumnType::VarString, 0),
            "2024-01-02 03:04:05.000123"
        );
        let t = Time::parse("-00:00:01.5").expect("time");
        assert_eq!(text(Value::Time(t), ColumnType::Time, 1), "-00:00:01.5");
        assert_eq!(
            text(Value::Time(Time::default()), ColumnType::Time, 0),
            "00:00:00"
        );
    }
}
