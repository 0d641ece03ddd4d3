//! Column types, TABLE_MAP metadata and values in MariaDB's row format
//! (`Field::pack`, what rows events carry), per Basalt [`DataType`].
//!
//! | DataType            | binlog type        | metadata                  | value bytes                      |
//! |---------------------|--------------------|---------------------------|----------------------------------|
//! | Int tiny..big       | TINY/SHORT/INT24/LONG/LONGLONG | —             | 1/2/3/4/8 LE                     |
//! | Float / Double      | FLOAT / DOUBLE     | 4 / 8                     | IEEE LE                          |
//! | Decimal(p,s)        | NEWDECIMAL (0xf6)  | p, s                      | `decimal2bin`                    |
//! | Char / Binary       | STRING (0xfe)      | real type 0xfe, max bytes | 1 (2 if > 255) length + bytes, trailing pad stripped |
//! | VarChar / VarBinary | VARCHAR (0x0f)     | max bytes (2)             | 1 (2 if > 255) length + bytes    |
//! | Text / Blob         | BLOB (0xfc)        | length bytes 1..4         | length (1..4 LE) + bytes         |
//! | Date                | DATE (0x0a)        | —                         | 3 LE: day, month << 5, year << 9 |
//! | DateTime(fsp)       | DATETIME2 (0x12)   | fsp                       | 5 BE + fraction                  |
//! | Timestamp(fsp)      | TIMESTAMP2 (0x11)  | fsp                       | 4 BE seconds + fraction          |
//! | Time(fsp)           | TIME2 (0x13)       | fsp                       | 3 BE (6 BE for fsp 5, 6) + fraction |
//! | Year                | YEAR (0x0d)        | —                         | 1: year - 1900 (0 for 0)         |
//! | Enum / Set          | STRING (0xfe)      | real type 0xf7/0xf8, pack length | number, 1-2 / 1-4,8 LE    |
//! | Bit(w)              | BIT (0x10)         | w % 8, w / 8              | (w + 7) / 8 BE                   |
//! | Uuid / Inet6        | STRING (0xfe)      | 0xfe, 16                  | 1 length + the 16 bytes (UUID in text order), trailing zeros stripped |
//!
//! The fraction of temporal types is 1 byte (fsp 1-2: micro / 10000), 2 bytes BE
//! (fsp 3-4: micro / 100) or 3 bytes BE (fsp 5-6). A STRING's metadata folds lengths
//! above 255 into the type byte: `type ^ ((len & 0x300) >> 4), len & 0xff`.
//!
//! Values are converted as far as they can be; a value of the wrong kind for its
//! column (which the SQL layer never produces) packs as the type's zero.

use basalt_common::charset;
use basalt_common::fixedbin;
use basalt_common::{Charset, DataType, Decimal, IntKind, LobKind, Value};

pub(crate) const T_TINY: u8 = 0x01;
pub(crate) const T_SHORT: u8 = 0x02;
pub(crate) const T_LONG: u8 = 0x03;
pub(crate) const T_FLOAT: u8 = 0x04;
pub(crate) const T_DOUBLE: u8 = 0x05;
pub(crate) const T_LONGLONG: u8 = 0x08;
pub(crate) const T_INT24: u8 = 0x09;
pub(crate) const T_DATE: u8 = 0x0a;
pub(crate) const T_YEAR: u8 = 0x0d;
pub(crate) const T_VARCHAR: u8 = 0x0f;
pub(crate) const T_BIT: u8 = 0x10;
pub(crate) const T_TIMESTAMP2: u8 = 0x11;
pub(crate) const T_DATETIME2: u8 = 0x12;
pub(crate) const T_TIME2: u8 = 0x13;
pub(crate) const T_NEWDECIMAL: u8 = 0xf6;
pub(crate) const T_ENUM: u8 = 0xf7;
pub(crate) const T_SET: u8 = 0xf8;
pub(crate) const T_BLOB: u8 = 0xfc;
pub(crate) const T_STRING: u8 = 0xfe;

/// `DATETIMEF_INT_OFS`, `TIMEF_INT_OFS`, `TIMEF_OFS`.
const DATETIMEF_INT_OFS: i64 = 0x80_0000_0000;
const TIMEF_INT_OFS: i64 = 0x80_0000;
const TIMEF_OFS: i64 = 0x8000_0000_0000;

/// Bytes of a partial group of 0..=8 decimal digits (`dig2bytes`).
const DIG2BYTES: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
const DIG_PER_DEC: u32 = 9;

/// The binlog column type of a Basalt type.
pub(crate) fn column_type(dt: &DataType) -> u8 {
    match dt {
        DataType::Int { kind, .. } => match kind {
            IntKind::Tiny => T_TINY,
            IntKind::Small => T_SHORT,
            IntKind::Medium => T_INT24,
            IntKind::Int => T_LONG,
            IntKind::Big => T_LONGLONG,
        },
        DataType::Float => T_FLOAT,
        DataType::Double => T_DOUBLE,
        DataType::Decimal { .. } => T_NEWDECIMAL,
        DataType::Char { .. }
        | DataType::Enum { .. }
        | DataType::Set { .. }
        | DataType::Uuid
        | DataType::Inet6 => T_STRING,
        DataType::VarChar { .. } => T_VARCHAR,
        DataType::Text { .. } => T_BLOB,
        DataType::Date => T_DATE,
        DataType::DateTime { .. } => T_DATETIME2,
        DataType::Timestamp { .. } => T_TIMESTAMP2,
        DataType::Time { .. } => T_TIME2,
        DataType::Year => T_YEAR,
        DataType::Bit { .. } => T_BIT,
    }
}

/// Maximum bytes of a CHAR/VARCHAR value (`field_length`).
pub(crate) fn max_bytes(dt: &DataType) -> u32 {
    match dt {
        DataType::Char { len, collation } | DataType::VarChar { len, collation } => {
            len.saturating_mul(collation.charset().max_len())
        }
        DataType::Uuid | DataType::Inet6 => 16,
        _ => 0,
    }
}

fn blob_len_bytes(kind: LobKind) -> usize {
    match kind {
        LobKind::Tiny => 1,
        LobKind::Normal => 2,
        LobKind::Medium => 3,
        LobKind::Long => 4,
    }
}

fn enum_pack_len(n: usize) -> usize {
    if n < 256 {
        1
    } else {
        2
    }
}

fn set_pack_len(n: usize) -> usize {
    match n.div_ceil(8) {
        l if l > 4 => 8,
        l => l.max(1),
    }
}

fn string_meta(out: &mut Vec<u8>, real_type: u8, len: u32) {
    out.push(real_type ^ (((len & 0x300) >> 4) as u8));
    out.push((len & 0xff) as u8);
}

/// Appends the column's TABLE_MAP metadata.
pub(crate) fn column_meta(dt: &DataType, out: &mut Vec<u8>) {
    match dt {
        DataType::Float => out.push(4),
        DataType::Double => out.push(8),
        DataType::Decimal { precision, scale } => out.extend_from_slice(&[*precision, *scale]),
        DataType::Char { .. } | DataType::Uuid | DataType::Inet6 => {
            string_meta(out, T_STRING, max_bytes(dt))
        }
        DataType::VarChar { .. } => {
            out.extend_from_slice(&(max_bytes(dt).min(65_535) as u16).to_le_bytes())
        }
        DataType::Text { kind, .. } => out.push(blob_len_bytes(*kind) as u8),
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } | DataType::Time { fsp } => {
            out.push(*fsp)
        }
        DataType::Enum { values, .. } => {
            string_meta(out, T_ENUM, enum_pack_len(values.len()) as u32)
        }
        DataType::Set { values, .. } => string_meta(out, T_SET, set_pack_len(values.len()) as u32),
        DataType::Bit { width } => out.extend_from_slice(&[width % 8, width / 8]),
        DataType::Int { .. } | DataType::Date | DataType::Year => {}
    }
}

fn as_i64(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::UInt(u) => *u as i64,
        Value::Double(d) => *d as i64,
        Value::Decimal(d) => d.trunc_i64().unwrap_or(0),
        Value::Enum(n, _) => *n as i64,
        Value::Bytes(b) => std::str::from_utf8(b)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0),
        _ => 0,
    }
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Double(d) => *d,
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Decimal(d) => d.to_f64(),
        _ => 0.0,
    }
}

fn be_tail(out: &mut Vec<u8>, v: u64, n: usize) {
    out.extend_from_slice(&v.to_be_bytes()[8 - n..]);
}

/// Appends a non-NULL value of a column of type `dt`.
pub(crate) fn pack(dt: &DataType, v: &Value, out: &mut Vec<u8>) {
    match dt {
        DataType::Int { kind, .. } => {
            let n = kind.bytes() as usize;
            out.extend_from_slice(&as_i64(v).to_le_bytes()[..n]);
        }
        DataType::Float => out.extend_from_slice(&(as_f64(v) as f32).to_le_bytes()),
        DataType::Double => out.extend_from_slice(&as_f64(v).to_le_bytes()),
        DataType::Decimal { precision, scale } => pack_decimal(v, *precision, *scale, out),
        DataType::Char { collation, .. } => {
            let b = text_bytes(v, collation.charset());
            let pad = if collation.is_binary() { 0 } else { b' ' };
            let end = b.iter().rposition(|c| *c != pad).map_or(0, |i| i + 1);
            length_prefixed(out, &b[..end], max_bytes(dt) > 255);
        }
        DataType::VarChar { collation, .. } => {
            let b = text_bytes(v, collation.charset());
            length_prefixed(out, &b, max_bytes(dt) > 255);
        }
        DataType::Text { kind, collation } => {
            let b = text_bytes(v, collation.charset());
            let n = blob_len_bytes(*kind);
            out.extend_from_slice(&(b.len() as u32).to_le_bytes()[..n]);
            out.extend_from_slice(&b);
        }
        DataType::Date => pack_date(v, out),
        DataType::DateTime { fsp } => pack_datetime(v, *fsp, out),
        DataType::Timestamp { fsp } => pack_timestamp(v, *fsp, out),
        DataType::Time { fsp } => pack_time(v, *fsp, out),
        DataType::Year => {
            let y = as_i64(v);
            out.push(if y == 0 { 0 } else { (y - 1900) as u8 });
        }
        DataType::Enum { values, .. } => {
            let n = enum_pack_len(values.len());
            out.extend_from_slice(&(as_i64(v) as u64).to_le_bytes()[..n]);
        }
        DataType::Set { values, .. } => {
            let n = set_pack_len(values.len());
            out.extend_from_slice(&(as_i64(v) as u64).to_le_bytes()[..n]);
        }
        DataType::Bit { width } => be_tail(out, as_i64(v) as u64, (*width as usize).div_ceil(8)),
        DataType::Uuid | DataType::Inet6 => {
            let text = match v {
                Value::Bytes(b) => b.as_slice(),
                _ => &[],
            };
            let bin = fixedbin::parse(matches!(dt, DataType::Inet6), text).unwrap_or([0; 16]);
            let end = bin.iter().rposition(|c| *c != 0).map_or(0, |i| i + 1);
            length_prefixed(out, &bin[..end], false);
        }
    }
}

/// The bytes of a string value in the column's character set.
fn text_bytes(v: &Value, cs: Charset) -> Vec<u8> {
    match v {
        Value::Bytes(b) | Value::Enum(_, b) => charset::from_internal(b, cs).into_owned(),
        other => other.to_text(6).unwrap_or_default(),
    }
}

fn length_prefixed(out: &mut Vec<u8>, b: &[u8], two: bool) {
    if two {
        out.extend_from_slice(&(b.len() as u16).to_le_bytes());
    } else {
        out.push(b.len() as u8);
    }
    out.extend_from_slice(b);
}

/// `decimal2bin`: the integer digits in groups of 9 from the point (the leading
/// partial group in `DIG2BYTES` bytes), then the fraction's; big-endian; negative
/// values have every bit inverted; then the top bit of the first byte flips.
fn pack_decimal(v: &Value, precision: u8, scale: u8, out: &mut Vec<u8>) {
    let d = match v {
        Value::Decimal(d) => *d,
        Value::Int(i) => Decimal::from_i64(*i),
        Value::UInt(u) => Decimal::from_u64(*u),
        Value::Double(f) => Decimal::from_f64(*f).unwrap_or(Decimal::ZERO),
        _ => Decimal::ZERO,
    };
    let d = d.rescale(scale).unwrap_or(Decimal::ZERO);
    let neg = d.mantissa < 0;
    let abs = d.mantissa.unsigned_abs();
    let unit = 10u128.pow(scale as u32);
    let (int, frac) = (abs / unit, abs % unit);
    let intg = precision.saturating_sub(scale) as u32;
    let begin = out.len();
    let (full, part) = (intg / DIG_PER_DEC, intg % DIG_PER_DEC);
    let group = 10u128.pow(DIG_PER_DEC);
    if part > 0 {
        let lead = (int / group.pow(full)) % 10u128.pow(part);
        be_tail(out, lead as u64, DIG2BYTES[part as usize]);
    }
    for i in (0..full).rev() {
        be_tail(out, ((int / group.pow(i)) % group) as u64, 4);
    }
    let (ffull, fpart) = (scale as u32 / DIG_PER_DEC, scale as u32 % DIG_PER_DEC);
    for i in 0..ffull {
        let shift = scale as u32 - DIG_PER_DEC * (i + 1);
        be_tail(out, ((frac / 10u128.pow(shift)) % group) as u64, 4);
    }
    if fpart > 0 {
        let last = frac % 10u128.pow(fpart);
        be_tail(out, last as u64, DIG2BYTES[fpart as usize]);
    }
    if neg {
        for b in &mut out[begin..] {
            *b = !*b;
        }
    }
    if let Some(first) = out.get_mut(begin) {
        *first ^= 0x80;
    }
}

fn pack_date(v: &Value, out: &mut Vec<u8>) {
    let d = match v {
        Value::Date(d) => *d,
        Value::DateTime(dt) => dt.date,
        _ => Default::default(),
    };
    let n = d.day as u32 | (d.month as u32) << 5 | (d.year as u32) << 9;
    out.extend_from_slice(&n.to_le_bytes()[..3]);
}

/// Microseconds kept by `fsp` digits.
fn trunc_micro(micro: u32, fsp: u8) -> u32 {
    let unit = 10u32.pow(6 - fsp.min(6) as u32);
    micro - micro % unit
}

/// The fraction of DATETIME2 / TIMESTAMP2 (non-negative).
fn pack_frac(out: &mut Vec<u8>, micro: u32, fsp: u8) {
    match fsp {
        1 | 2 => out.push((micro / 10_000) as u8),
        3 | 4 => out.extend_from_slice(&((micro / 100) as u16).to_be_bytes()),
        5 | 6 => be_tail(out, micro as u64, 3),
        _ => {}
    }
}

fn as_datetime(v: &Value) -> basalt_common::DateTime {
    match v {
        Value::DateTime(dt) => *dt,
        Value::Date(d) => basalt_common::DateTime::from_date(*d),
        _ => Default::default(),
    }
}

fn pack_datetime(v: &Value, fsp: u8, out: &mut Vec<u8>) {
    let dt = as_datetime(v);
    let ym = dt.date.year as i64 * 13 + dt.date.month as i64;
    let ymd = ym << 5 | dt.date.day as i64;
    let hms = (dt.hour as i64) << 12 | (dt.minute as i64) << 6 | dt.second as i64;
    be_tail(out, ((ymd << 17 | hms) + DATETIMEF_INT_OFS) as u64, 5);
    pack_frac(out, trunc_micro(dt.micro, fsp), fsp);
}

/// TIMESTAMP2: seconds since the epoch (the value is UTC); the zero timestamp is 0.
fn pack_timestamp(v: &Value, fsp: u8, out: &mut Vec<u8>) {
    let dt = as_datetime(v);
    let secs = if dt.date.year == 0 {
        0
    } else {
        dt.unix_seconds().max(0)
    };
    out.extend_from_slice(&(secs as u32).to_be_bytes());
    pack_frac(out, trunc_micro(dt.micro, fsp), fsp);
}

/// TIME2 (`my_time_packed_to_binary`): the packed value is
/// `±((hours << 12 | minute << 6 | second) << 24 | micro)`; its integer part is taken
/// with an arithmetic shift and its fraction with a truncating remainder, so a
/// negative time with a fraction stores int - 1 and a negative fraction, as MariaDB.
fn pack_time(v: &Value, fsp: u8, out: &mut Vec<u8>) {
    let t = match v {
        Value::Time(t) => *t,
        _ => Default::default(),
    };
    let hms = (t.hours as i64) << 12 | (t.minute as i64) << 6 | t.second as i64;
    let mut nr = hms << 24 | trunc_micro(t.micro, fsp) as i64;
    if t.negative {
        nr = -nr;
    }
    let int_part = nr >> 24;
    let frac_part = nr % (1 << 24);
    match fsp {
        1 | 2 => {
            be_tail(out, (int_part + TIMEF_INT_OFS) as u64, 3);
            out.push((frac_part / 10_000) as i8 as u8);
        }
        3 | 4 => {
            be_tail(out, (int_part + TIMEF_INT_OFS) as u64, 3);
            out.extend_from_slice(&((frac_part / 100) as i16).to_be_bytes());
        }
        5 | 6 => be_tail(out, (nr + TIMEF_OFS) as u64, 6),
        _ => be_tail(out, (int_part + TIMEF_INT_OFS) as u64, 3),
    }
}
