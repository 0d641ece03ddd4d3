//! Order-preserving ("memcomparable") encoding of index keys.
//!
//! An index key is the concatenation of its key parts; comparing two encoded keys as
//! byte strings gives the same order as comparing the typed values part by part under
//! each column's collation. Each part is self-delimiting, so a key prefix encodes to a
//! byte prefix of the full key, and a secondary index entry can append the primary
//! key after its own parts.
//!
//! Part layout:
//! - NULL: `0x00` (sorts first, as in MySQL indexes); non-NULL: `0x01` then the value.
//! - Integers: 8 bytes big-endian, sign bit flipped for signed columns.
//! - FLOAT/DOUBLE: IEEE-754 bits big-endian, all bits flipped when negative, else the
//!   sign bit flipped; -0 is stored as +0.
//! - DECIMAL: the value rescaled to the column's scale, mantissa as 16 bytes
//!   big-endian with the sign bit flipped.
//! - Strings: the collation's sort key (a prefix of `prefix_len` characters for prefix
//!   indexes) with `0x00` escaped as `0x00 0xFF`, terminated by `0x00 0x00`.
//! - DATE: year (2 bytes), month, day. DATETIME/TIMESTAMP: a packed u64 of
//!   date, time and microseconds. TIME: signed microseconds, sign bit flipped.
//! - ENUM/SET: the member position / bitmask, 8 bytes big-endian (declaration order).
//! - Descending key parts have every byte of the part inverted.
//!
//! Values must already be of the column's type domain (the SQL layer converts
//! constants before building ranges); a mismatching value is encoded by a best-effort
//! conversion so that nothing panics.

use basalt_common::fixedbin;
use basalt_common::{ColumnDef, DataType, IndexDef, Value};

const NULL_TAG: u8 = 0x00;
const VALUE_TAG: u8 = 0x01;

/// Appends one encoded key part for `v` of column type `ty`.
pub fn encode_part(out: &mut Vec<u8>, v: &Value, ty: &DataType, prefix_len: Option<u32>) {
    if v.is_null() {
        out.push(NULL_TAG);
        return;
    }
    out.push(VALUE_TAG);
    match ty {
        DataType::Int { unsigned: true, .. } | DataType::Year | DataType::Bit { .. } => {
            out.extend_from_slice(&as_u64(v).to_be_bytes())
        }
        // The 16 bytes in MariaDB's order (a UUID's time parts swapped).
        DataType::Uuid | DataType::Inet6 => {
            out.extend_from_slice(&fixedbin::sort_key(*ty == DataType::Inet6, &as_bytes(v)))
        }
        DataType::Int { .. } => {
            out.extend_from_slice(&((as_i64(v) as u64) ^ (1 << 63)).to_be_bytes())
        }
        DataType::Float | DataType::Double => encode_f64(out, as_f64(v)),
        DataType::Decimal { scale, .. } => encode_decimal(out, v, *scale),
        DataType::Char { collation, .. }
        | DataType::VarChar { collation, .. }
        | DataType::Text { collation, .. } => {
            let bytes = as_bytes(v);
            let bytes = match prefix_len {
                Some(n) if !collation.is_binary() => char_prefix(&bytes, n as usize),
                Some(n) => &bytes[..bytes.len().min(n as usize)],
                None => &bytes[..],
            };
            let mut key = Vec::with_capacity(bytes.len());
            collation.sort_key(bytes, &mut key);
            escape(out, &key);
        }
        DataType::Date | DataType::DateTime { .. } | DataType::Timestamp { .. } => {
            out.extend_from_slice(&pack_datetime(v).to_be_bytes())
        }
        DataType::Time { .. } => {
            let micros = match v {
                Value::Time(t) => t.total_micros(),
                other => as_i64(other),
            };
            out.extend_from_slice(&((micros as u64) ^ (1 << 63)).to_be_bytes())
        }
        // By number, so an index on an ENUM is in declaration order.
        DataType::Enum { .. } | DataType::Set { .. } => {
            let n = basalt_common::enumset::number_of(ty, v).unwrap_or(0);
            out.extend_from_slice(&n.to_be_bytes())
        }
    }
}

/// Encodes the key parts of `index` taken from a full table row.
pub fn encode_index_key(out: &mut Vec<u8>, index: &IndexDef, columns: &[ColumnDef], row: &[Value]) {
    for part in &index.columns {
        encode_key_value(
            out,
            index,
            columns,
            part_pos(index, part.column),
            &row[part.column],
        );
    }
}

fn part_pos(index: &IndexDef, column: usize) -> usize {
    index
        .columns
        .iter()
        .position(|p| p.column == column)
        .expect("column belongs to the index")
}

/// Encodes the `pos`-th key part of `index` with value `v`, honouring DESC.
pub fn encode_key_value(
    out: &mut Vec<u8>,
    index: &IndexDef,
    columns: &[ColumnDef],
    pos: usize,
    v: &Value,
) {
    let part = &index.columns[pos];
    let start = out.len();
    encode_part(out, v, &columns[part.column].data_type, part.prefix_len);
    if part.descending {
        for b in &mut out[start..] {
            *b = !*b;
        }
    }
}

/// Encodes a key prefix given as values for the first `values.len()` key parts.
pub fn encode_prefix(index: &IndexDef, columns: &[ColumnDef], values: &[Value]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 9);
    for (pos, v) in values.iter().enumerate().take(index.columns.len()) {
        encode_key_value(&mut out, index, columns, pos, v);
    }
    out
}

/// The smallest byte string greater than every string starting with `prefix`
/// (`None` when no such string exists, i.e. the prefix is all 0xFF).
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut s = prefix.to_vec();
    while let Some(last) = s.pop() {
        if last < 0xFF {
            s.push(last + 1);
            return Some(s);
        }
    }
    None
}

/// Length in bytes of the first `parts` encoded key parts at the start of `key`.
/// Used to split a secondary index entry into its own parts and the primary key.
pub fn parts_len(key: &[u8], index: &IndexDef, columns: &[ColumnDef], parts: usize) -> usize {
    let mut pos = 0;
    for part in index.columns.iter().take(parts) {
        pos += part_len(
            &key[pos..],
            &columns[part.column].data_type,
            part.descending,
        );
    }
    pos
}

fn part_len(key: &[u8], ty: &DataType, desc: bool) -> usize {
    let tag = if desc { !key[0] } else { key[0] };
    if tag == NULL_TAG {
        return 1;
    }
    1 + match ty {
        DataType::Decimal { .. } | DataType::Uuid | DataType::Inet6 => 16,
        DataType::Char { .. } | DataType::VarChar { .. } | DataType::Text { .. } => {
            escaped_len(&key[1..], desc)
        }
        _ => 8,
    }
}

fn escaped_len(s: &[u8], desc: bool) -> usize {
    let (zero, ff) = if desc { (0xFF, 0x00) } else { (0x00, 0xFF) };
    let mut i = 0;
    while i + 1 < s.len() {
        if s[i] == zero {
            if s[i + 1] == ff {
                i += 2;
                continue;
            }
            return i + 2;
        }
        i += 1;
    }
    s.len()
}

fn escape(out: &mut Vec<u8>, s: &[u8]) {
    for &b in s {
        out.push(b);
        if b == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0, 0]);
}

fn char_prefix(s: &[u8], n: usize) -> &[u8] {
    let mut count = 0;
    for (i, &b) in s.iter().enumerate() {
        if b & 0xC0 != 0x80 {
            if count == n {
                return &s[..i];
            }
            count += 1;
        }
    }
    s
}

fn encode_f64(out: &mut Vec<u8>, f: f64) {
    let f = if f == 0.0 { 0.0 } else { f };
    let bits = f.to_bits();
    let bits = if bits >> 63 == 1 {
        !bits
    } else {
        bits ^ (1 << 63)
    };
    out.extend_from_slice(&bits.to_be_bytes());
}

fn encode_decimal(out: &mut Vec<u8>, v: &Value, scale: u8) {
    let d = match v {
        Value::Decimal(d) => *d,
        Value::Int(i) => basalt_common::Decimal::from_i64(*i),
        Value::UInt(u) => basalt_common::Decimal::from_u64(*u),
        other => {
            basalt_common::Decimal::from_f64(as_f64(other)).unwrap_or(basalt_common::Decimal::ZERO)
        }
    };
    let m = d.rescale(scale).map_or(d.mantissa, |d| d.mantissa);
    out.extend_from_slice(&((m as u128) ^ (1 << 127)).to_be_bytes());
}

fn pack_datetime(v: &Value) -> u64 {
    let dt = match v {
        Value::DateTime(dt) => *dt,
        Value::Date(d) => basalt_common::DateTime::from_date(*d),
        _ => basalt_common::DateTime::default(),
    };
    let d = dt.date;
    let date = (d.year as u64) << 9 | (d.month as u64) << 5 | d.day as u64;
    let time = (dt.hour as u64) << 12 | (dt.minute as u64) << 6 | dt.second as u64;
    date << 41 | time << 24 | dt.micro as u64
}

fn as_i64(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::UInt(u) => (*u).min(i64::MAX as u64) as i64,
        Value::Double(f) => *f as i64,
        Value::Decimal(d) => d.round_i64().unwrap_or(0),
        Value::Bytes(b) => std::str::from_utf8(b)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0),
        _ => 0,
    }
}

fn as_u64(v: &Value) -> u64 {
    match v {
        Value::UInt(u) => *u,
        Value::Int(i) => (*i).max(0) as u64,
        other => as_i64(other).max(0) as u64,
    }
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Double(f) => *f,
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Decimal(d) => d.to_f64(),
        Value::Bytes(b) => std::str::from_utf8(b)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0.0),
        _ => 0.0,
    }
}

fn as_bytes(v: &Value) -> std::borrow::Cow<'_, [u8]> {
    match v {
        Value::Bytes(b) => std::borrow::Cow::Borrowed(b),
        other => std::borrow::Cow::Owned(other.to_text(6).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_common::{Collation, IntKind};
    use proptest::prelude::*;

    fn enc(v: &Value, ty: &DataType) -> Vec<u8> {
        let mut out = Vec::new();
        encode_part(&mut out, v, ty, None);
        out
    }

    const INT: DataType = DataType::Int {
        kind: IntKind::Big,
        unsigned: false,
        width: 0,
        zerofill: false,
    };

    proptest! {
        #[test]
        fn ints_order(a: i64, b: i64) {
            prop_assert_eq!(enc(&Value::Int(a), &INT).cmp(&enc(&Value::Int(b), &INT)), a.cmp(&b));
        }

        #[test]
        fn doubles_order(a in -1e300f64..1e300, b in -1e300f64..1e300) {
            let o = a.partial_cmp(&b).expect("finite");
            prop_assert_eq!(enc(&Value::Double(a), &DataType::Double).cmp(&enc(&Value::Double(b), &DataType::Double)), o);
        }

        #[test]
        fn strings_order_and_prefix(a in "[a-c\\x00 ]{0,6}", b in "[a-c\\x00 ]{0,6}") {
            let ty = DataType::VarChar { len: 10, collation: Collation::Utf8mb4Bin };
            let (ea, eb) = (enc(&Value::str(&a), &ty), enc(&Value::str(&b), &ty));
            let o = Collation::Utf8mb4Bin.compare(a.as_bytes(), b.as_bytes());
            prop_assert_eq!(ea.cmp(&eb), o);
            // Self-delimiting: the part length is the whole encoding.
            prop_assert_eq!(1 + escaped_len(&ea[1..], false), ea.len());
        }
    }

    #[test]
    fn null_sorts_first() {
        assert!(enc(&Value::Null, &INT) < enc(&Value::Int(i64::MIN), &INT));
    }

    #[test]
    fn successor() {
        assert_eq!(prefix_successor(&[1, 2]), Some(vec![1, 3]));
        assert_eq!(prefix_successor(&[1, 0xFF]), Some(vec![2]));
        assert_eq!(prefix_successor(&[0xFF]), None);
    }
}
