//! Row payload encoding: how a table row is stored in its clustered index entry.
//!
//! Layout (all multi-byte fixed-width fields little-endian):
//! ```text
//! varint  column count n (rows written before an in-place ADD COLUMN have
//!         fewer; a missing trailing column reads as `ColumnDef::absent`)
//! [u8]    null bitmap, ceil(n/8) bytes, bit i set = column i is NULL
//! then per non-NULL column, by type:
//!   signed integers     zigzag varint
//!   unsigned, YEAR      varint
//!   FLOAT               4 bytes (f32)
//!   DOUBLE              8 bytes (f64)
//!   DECIMAL             1 byte scale + 16 bytes i128 mantissa
//!   strings/blobs       varint length + bytes
//!   DATE                4 bytes: year u16, month u8, day u8
//!   DATETIME/TIMESTAMP  4 bytes date as above + hour, minute, second u8 + u32 micro (11 bytes)
//!   TIME                8 bytes i64 signed microseconds
//!   ENUM, SET           varint member position / bitmask
//! ```
//! Decoding can skip columns the caller does not need (`wanted`), which the point
//! select path uses to materialise only the selected columns.

use basalt_common::{enumset, fixedbin};
use basalt_common::{ColumnDef, DataType, Date, DateTime, Decimal, Time, Value};

pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub fn get_varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*pos)?;
        *pos += 1;
        v |= ((b & 0x7F) as u64) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Encodes a full row of `columns` into `out`.
pub fn encode_row(out: &mut Vec<u8>, columns: &[ColumnDef], row: &[Value]) {
    let n = columns.len();
    put_varint(out, n as u64);
    let bitmap_at = out.len();
    out.resize(bitmap_at + n.div_ceil(8), 0);
    for (i, (col, v)) in columns.iter().zip(row).enumerate() {
        if v.is_null() {
            out[bitmap_at + i / 8] |= 1 << (i % 8);
            continue;
        }
        encode_value(out, &col.data_type, v);
    }
}

fn encode_value(out: &mut Vec<u8>, ty: &DataType, v: &Value) {
    match ty {
        DataType::Int { unsigned: true, .. } | DataType::Year | DataType::Bit { .. } => {
            put_varint(out, num_u64(v))
        }
        DataType::Uuid | DataType::Inet6 => {
            let text = match v {
                Value::Bytes(b) => std::borrow::Cow::Borrowed(&b[..]),
                other => std::borrow::Cow::Owned(other.to_text(6).unwrap_or_default()),
            };
            let b = fixedbin::parse(*ty == DataType::Inet6, &text).unwrap_or([0; 16]);
            out.extend_from_slice(&b);
        }
        DataType::Int { .. } => put_varint(out, zigzag(num_i64(v))),
        DataType::Float => out.extend_from_slice(&(num_f64(v) as f32).to_le_bytes()),
        DataType::Double => out.extend_from_slice(&num_f64(v).to_le_bytes()),
        DataType::Decimal { .. } => {
            let d = match v {
                Value::Decimal(d) => *d,
                Value::Int(i) => Decimal::from_i64(*i),
                Value::UInt(u) => Decimal::from_u64(*u),
                other => Decimal::from_f64(num_f64(other)).unwrap_or(Decimal::ZERO),
            };
            out.push(d.scale);
            out.extend_from_slice(&d.mantissa.to_le_bytes());
        }
        DataType::Char { .. } | DataType::VarChar { .. } | DataType::Text { .. } => {
            let bytes = match v {
                Value::Bytes(b) => std::borrow::Cow::Borrowed(&b[..]),
                other => std::borrow::Cow::Owned(other.to_text(6).unwrap_or_default()),
            };
            put_varint(out, bytes.len() as u64);
            out.extend_from_slice(&bytes);
        }
        DataType::Date => put_date(out, as_datetime(v).date),
        DataType::DateTime { .. } | DataType::Timestamp { .. } => {
            let dt = as_datetime(v);
            put_date(out, dt.date);
            out.extend_from_slice(&[dt.hour, dt.minute, dt.second]);
            out.extend_from_slice(&dt.micro.to_le_bytes());
        }
        DataType::Time { .. } => {
            let micros = match v {
                Value::Time(t) => t.total_micros(),
                other => num_i64(other),
            };
            out.extend_from_slice(&micros.to_le_bytes());
        }
        DataType::Enum { .. } | DataType::Set { .. } => {
            put_varint(out, enumset::number_of(ty, v).unwrap_or(0))
        }
    }
}

fn put_date(out: &mut Vec<u8>, d: Date) {
    out.extend_from_slice(&d.year.to_le_bytes());
    out.extend_from_slice(&[d.month, d.day]);
}

fn as_datetime(v: &Value) -> DateTime {
    match v {
        Value::DateTime(dt) => *dt,
        Value::Date(d) => DateTime::from_date(*d),
        _ => DateTime::default(),
    }
}

fn num_i64(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::UInt(u) => *u as i64,
        Value::Double(f) => *f as i64,
        Value::Decimal(d) => d.round_i64().unwrap_or(0),
        _ => 0,
    }
}

fn num_u64(v: &Value) -> u64 {
    match v {
        Value::UInt(u) => *u,
        other => num_i64(other) as u64,
    }
}

fn num_f64(v: &Value) -> f64 {
    match v {
        Value::Double(f) => *f,
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Decimal(d) => d.to_f64(),
        _ => 0.0,
    }
}

/// Why a stored row could not be decoded (a corrupt or foreign payload).
#[derive(Debug)]
pub struct DecodeError;

/// Decodes a row; columns not in `wanted` (when given) are left NULL without being
/// materialised. Columns absent from an older row take their default (NULL when none).
pub fn decode_row(
    buf: &[u8],
    columns: &[ColumnDef],
    wanted: Option<&[bool]>,
) -> Result<Vec<Value>, DecodeError> {
    // NULLs first, then each value in its place: pushing a NULL built on the
    // stack costs a store-forwarding stall per column (a narrow tag store read
    // back as a whole value), which dominated scans that read few columns.
    let mut row = Vec::with_capacity(columns.len());
    row.resize_with(columns.len(), || Value::Null);
    decode_each(buf, columns, wanted, |i, v| {
        if !matches!(v, Value::Null) {
            row[i] = v;
        }
    })?;
    Ok(row)
}

/// Decodes a row of `columns` and stores column `i` in `out[targets[i]]`.
pub fn decode_into(
    buf: &[u8],
    columns: &[ColumnDef],
    targets: &[usize],
    out: &mut [Value],
) -> Result<(), DecodeError> {
    let mut bad = false;
    decode_each(buf, columns, None, |i, v| {
        match targets.get(i).and_then(|&t| out.get_mut(t)) {
            Some(slot) => *slot = v,
            None => bad = true,
        }
    })?;
    if bad {
        return Err(DecodeError);
    }
    Ok(())
}

/// Hands each column's value (NULL for one not `wanted`) to `put`, in order;
/// with `wanted`, it stops after the last wanted column (the row's later
/// columns are not even skipped over).
fn decode_each(
    buf: &[u8],
    columns: &[ColumnDef],
    wanted: Option<&[bool]>,
    mut put: impl FnMut(usize, Value),
) -> Result<(), DecodeError> {
    let mut pos = 0;
    let n = get_varint(buf, &mut pos).ok_or(DecodeError)? as usize;
    let bitmap = buf.get(pos..pos + n.div_ceil(8)).ok_or(DecodeError)?;
    pos += n.div_ceil(8);
    let end = wanted.map_or(columns.len(), |w| {
        w.iter().rposition(|&b| b).map_or(0, |last| last + 1)
    });
    for (i, col) in columns.iter().enumerate().take(end) {
        if i >= n {
            put(i, missing_default(col));
            continue;
        }
        if bitmap[i / 8] & (1 << (i % 8)) != 0 {
            put(i, Value::Null);
            continue;
        }
        let want = wanted.is_none_or(|w| w.get(i).copied().unwrap_or(false));
        if want {
            // Signed integers, the commonest column, decode in place.
            let v = match &col.data_type {
                DataType::Int {
                    unsigned: false, ..
                } => Value::Int(unzigzag(get_varint(buf, &mut pos).ok_or(DecodeError)?)),
                ty => decode_value(buf, &mut pos, ty).ok_or(DecodeError)?,
            };
            put(i, v);
        } else {
            skip_value(buf, &mut pos, &col.data_type).ok_or(DecodeError)?;
            put(i, Value::Null);
        }
    }
    Ok(())
}

/// The value of a column a stored row lacks: the one fixed when the column was
/// added in place (see `ColumnDef::absent`), else its literal default.
fn missing_default(col: &ColumnDef) -> Value {
    if let Some(v) = &col.absent {
        return v.clone();
    }
    match &col.default {
        Some(basalt_common::DefaultValue::Literal(v)) => v.clone(),
        _ => Value::Null,
    }
}

fn take<'a>(buf: &'a [u8], pos: &mut usize, n: usize) -> Option<&'a [u8]> {
    let s = buf.get(*pos..*pos + n)?;
    *pos += n;
    Some(s)
}

fn fixed<const N: usize>(buf: &[u8], pos: &mut usize) -> Option<[u8; N]> {
    take(buf, pos, N)?.try_into().ok()
}

#[inline(always)]
fn decode_value(buf: &[u8], pos: &mut usize, ty: &DataType) -> Option<Value> {
    Some(match ty {
        DataType::Int { unsigned: true, .. } => Value::UInt(get_varint(buf, pos)?),
        DataType::Year => Value::Int(get_varint(buf, pos)? as i64),
        DataType::Bit { .. } => Value::UInt(get_varint(buf, pos)?),
        DataType::Uuid | DataType::Inet6 => {
            let b: [u8; 16] = fixed(buf, pos)?;
            Value::Bytes(fixedbin::format(*ty == DataType::Inet6, &b).into_bytes())
        }
        DataType::Int { .. } => Value::Int(unzigzag(get_varint(buf, pos)?)),
        DataType::Float => Value::Double(f32::from_le_bytes(fixed(buf, pos)?) as f64),
        DataType::Double => Value::Double(f64::from_le_bytes(fixed(buf, pos)?)),
        DataType::Decimal { .. } => {
            let scale = take(buf, pos, 1)?[0];
            Value::Decimal(Decimal::new(i128::from_le_bytes(fixed(buf, pos)?), scale))
        }
        DataType::Char { .. } | DataType::VarChar { .. } | DataType::Text { .. } => {
            let len = get_varint(buf, pos)? as usize;
            Value::Bytes(take(buf, pos, len)?.to_vec())
        }
        DataType::Date => Value::Date(get_date(buf, pos)?),
        DataType::DateTime { .. } | DataType::Timestamp { .. } => {
            let date = get_date(buf, pos)?;
            let [hour, minute, second] = fixed(buf, pos)?;
            let micro = u32::from_le_bytes(fixed(buf, pos)?);
            Value::DateTime(DateTime {
                date,
                hour,
                minute,
                second,
                micro,
            })
        }
        DataType::Time { .. } => {
            let micros = i64::from_le_bytes(fixed(buf, pos)?);
            Value::Time(time_from_micros(micros))
        }
        DataType::Enum { .. } | DataType::Set { .. } => {
            enumset::value_of(ty, get_varint(buf, pos)?)
        }
    })
}

fn skip_value(buf: &[u8], pos: &mut usize, ty: &DataType) -> Option<()> {
    let n = match ty {
        DataType::Int { .. }
        | DataType::Year
        | DataType::Bit { .. }
        | DataType::Enum { .. }
        | DataType::Set { .. } => return get_varint(buf, pos).map(|_| ()),
        DataType::Uuid | DataType::Inet6 => 16,
        DataType::Char { .. } | DataType::VarChar { .. } | DataType::Text { .. } => {
            get_varint(buf, pos)? as usize
        }
        DataType::Float | DataType::Date => 4,
        DataType::Double | DataType::Time { .. } => 8,
        DataType::Decimal { .. } => 17,
        DataType::DateTime { .. } | DataType::Timestamp { .. } => 11,
    };
    take(buf, pos, n).map(|_| ())
}

fn get_date(buf: &[u8], pos: &mut usize) -> Option<Date> {
    let year = u16::from_le_bytes(fixed(buf, pos)?);
    let [month, day] = fixed(buf, pos)?;
    Some(Date { year, month, day })
}

/// Builds a TIME value from signed microseconds.
pub fn time_from_micros(micros: i64) -> Time {
    let negative = micros < 0;
    let m = micros.unsigned_abs();
    let secs = m / 1_000_000;
    Time {
        negative,
        hours: (secs / 3600).min(u16::MAX as u64) as u16,
        minute: (secs / 60 % 60) as u8,
        second: (secs % 60) as u8,
        micro: (m % 1_000_000) as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_common::{Collation, IntKind, LobKind};

    fn cols() -> Vec<ColumnDef> {
        vec![
            ColumnDef::new(
                "a",
                DataType::Int {
                    kind: IntKind::Int,
                    unsigned: false,
                    width: 0,
                    zerofill: false,
                },
            ),
            ColumnDef::new(
                "b",
                DataType::Int {
                    kind: IntKind::Big,
                    unsigned: true,
                    width: 0,
                    zerofill: false,
                },
            ),
            ColumnDef::new(
                "c",
                DataType::VarChar {
                    len: 10,
                    collation: Collation::Utf8mb4GeneralCi,
                },
            ),
            ColumnDef::new(
                "d",
                DataType::Decimal {
                    precision: 10,
                    scale: 2,
                },
            ),
            ColumnDef::new("e", DataType::Double),
            ColumnDef::new("f", DataType::DateTime { fsp: 6 }),
            ColumnDef::new("g", DataType::Time { fsp: 0 }),
            ColumnDef::new(
                "h",
                DataType::Text {
                    kind: LobKind::Normal,
                    collation: Collation::Binary,
                },
            ),
            ColumnDef::new("i", DataType::Date),
        ]
    }

    #[test]
    fn round_trip() {
        let row = vec![
            Value::Int(-42),
            Value::UInt(u64::MAX),
            Value::str("héllo"),
            Value::Decimal(Decimal::parse("-12.34").expect("literal")),
            Value::Double(1.5),
            Value::DateTime(DateTime::parse("2024-05-06 07:08:09.123456").expect("literal")),
            Value::Time(Time::parse("-12:00:01").expect("literal")),
            Value::Null,
            Value::Date(Date::new(2024, 2, 29)),
        ];
        let mut buf = Vec::new();
        encode_row(&mut buf, &cols(), &row);
        assert_eq!(decode_row(&buf, &cols(), None).expect("decodes"), row);
        let wanted = [false, false, true, false, false, false, false, false, true];
        let partial = decode_row(&buf, &cols(), Some(&wanted)).expect("decodes");
        assert_eq!(partial[2], row[2]);
        assert_eq!(partial[8], row[8]);
        assert_eq!(partial[0], Value::Null);
        // Decoding stops after the last wanted column: the rest are NULL, and
        // bytes after it are not read.
        let wanted = [false, false, true, false, false, false, false, false, false];
        let first = decode_row(&buf, &cols(), Some(&wanted)).expect("decodes");
        assert_eq!(first[2], row[2]);
        assert!(first[3..].iter().all(Value::is_null));
        let cut = buf.len() - 3;
        assert!(decode_row(&buf[..cut], &cols(), Some(&wanted)).is_ok());
        assert!(decode_row(&buf[..cut], &cols(), None).is_err());
    }

    #[test]
    fn a_row_stored_before_add_column_reads_the_fixed_value() {
        let all = cols();
        let mut buf = Vec::new();
        encode_row(&mut buf, &all[..2], &[Value::Int(1), Value::UInt(2)]);
        let mut added = all[..3].to_vec();
        added[2].default = Some(basalt_common::DefaultValue::Literal(Value::str("now")));
        added[2].absent = Some(Value::str("then"));
        let row = decode_row(&buf, &added, None).expect("decodes");
        assert_eq!(row, vec![Value::Int(1), Value::UInt(2), Value::str("then")]);
        added[2].absent = None;
        let row = decode_row(&buf, &added, None).expect("decodes");
        assert_eq!(row[2], Value::str("now"));
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for len in 0..20 {
            let buf = vec![0xFFu8; len];
            let _ = decode_row(&buf, &cols(), None);
        }
    }
}
