//! CHECKSUM TABLE with MariaDB's row checksum, so the numbers match a MariaDB
//! table holding the same rows.
//!
//! MariaDB (`handler::calculate_checksum`) sums, over the rows, a per-row CRC-32
//! (zlib polynomial) of: the record's NULL bitmap (with its unused bits set, and
//! bit 0 set when the table has no VARCHAR/BLOB column, where that bit is the
//! record's delete flag), then each non-NULL column in order — VARCHAR, TEXT and
//! BLOB by their bytes, every other type by its fixed-size storage image
//! (integers little-endian, DECIMAL in its binary format, temporal types in the
//! MySQL 5.6 formats, CHAR space-padded to its full byte width). Strings are
//! checksummed in the column's character set (Basalt holds latin1 and ascii as
//! UTF-8 and converts them back here).

use basalt_common::{charset, Charset, Collation, ColumnDef, DataType, IntKind, Row, Value};

/// The row checksum of one row of a table with `columns`.
pub fn row_checksum(columns: &[ColumnDef], row: &Row) -> u32 {
    let mut crc = crc32fast::Hasher::new();
    let bitmap = null_bitmap(columns, row);
    crc.update(&bitmap);
    let mut buf = Vec::with_capacity(16);
    for (c, v) in columns.iter().zip(row) {
        if v.is_null() {
            continue;
        }
        buf.clear();
        field_image(&c.data_type, v, &mut buf);
        crc.update(&buf);
    }
    crc.finalize()
}

/// The table checksum: the wrapping sum of the row checksums.
pub fn add(sum: u32, row: u32) -> u32 {
    sum.wrapping_add(row)
}

/// A record whose row format is "packed" (any VARCHAR or BLOB column) has no
/// delete-flag bit at the start of its NULL bitmap.
fn packed(columns: &[ColumnDef]) -> bool {
    columns.iter().any(|c| {
        matches!(
            c.data_type,
            DataType::VarChar { .. } | DataType::Text { .. }
        )
    })
}

fn null_bitmap(columns: &[ColumnDef], row: &Row) -> Vec<u8> {
    let first = usize::from(!packed(columns));
    let nullable = columns.iter().filter(|c| c.nullable).count();
    let bits = first + nullable;
    if bits == 0 {
        return Vec::new();
    }
    let mut map = vec![0u8; bits.div_ceil(8)];
    if first == 1 {
        map[0] |= 1;
    }
    let mut bit = first;
    for (c, v) in columns.iter().zip(row) {
        if !c.nullable {
            continue;
        }
        if v.is_null() {
            map[bit / 8] |= 1 << (bit % 8);
        }
        bit += 1;
    }
    let last = bits % 8;
    if last != 0 {
        let n = map.len();
        map[n - 1] |= (256 - (1u32 << last)) as u8;
    }
    map
}

fn int_of(v: &Value) -> i128 {
    match v {
        Value::Int(i) => *i as i128,
        Value::UInt(u) => *u as i128,
        Value::Double(d) => *d as i128,
        Value::Decimal(d) => d.mantissa / 10i128.pow(d.scale as u32),
        _ => 0,
    }
}

fn string_bytes(v: &Value, collation: Collation) -> Vec<u8> {
    let b = match v {
        Value::Bytes(b) => b.clone(),
        other => other.to_text(6).unwrap_or_default(),
    };
    let cs = collation.charset();
    if cs != Charset::Utf8mb4 {
        charset::from_internal(&b, cs).into_owned()
    } else {
        b
    }
}

fn field_image(dt: &DataType, v: &Value, out: &mut Vec<u8>) {
    match dt {
        DataType::Int { kind, .. } => {
            let n = int_of(v) as i64;
            let width = match kind {
                IntKind::Tiny => 1,
                IntKind::Small => 2,
                IntKind::Medium => 3,
                IntKind::Int => 4,
                IntKind::Big => 8,
            };
            out.extend_from_slice(&n.to_le_bytes()[..width]);
        }
        DataType::Float => out.extend_from_slice(&(double_of(v) as f32).to_le_bytes()),
        DataType::Double => out.extend_from_slice(&double_of(v).to_le_bytes()),
        DataType::Decimal { precision, scale } => decimal_image(v, *precision, *scale, out),
        DataType::Char { len, collation } => {
            let mut b = string_bytes(v, *collation);
            let width = *len as usize * collation.charset().max_len() as usize;
            let pad = if *collation == Collation::Binary {
                0
            } else {
                b' '
            };
            b.resize(width.max(b.len()), pad);
            out.extend_from_slice(&b);
        }
        // MariaDB's packed ENUM (1 or 2 bytes) and SET (1, 2, 3, 4 or 8 bytes) fields.
        DataType::Enum { values, .. } => {
            let n = basalt_common::enumset::number_of(dt, v).unwrap_or(0);
            let width = if values.len() < 256 { 1 } else { 2 };
            out.extend_from_slice(&n.to_le_bytes()[..width]);
        }
        DataType::Set { values, .. } => {
            let n = basalt_common::enumset::number_of(dt, v).unwrap_or(0);
            let width = match values.len().div_ceil(8) {
                w if w > 4 => 8,
                w => w,
            };
            out.extend_from_slice(&n.to_le_bytes()[..width]);
        }
        DataType::VarChar { collation, .. } | DataType::Text { collation, .. } => {
            out.extend_from_slice(&string_bytes(v, *collation));
        }
        DataType::Date => {
            if let Value::Date(d) | Value::DateTime(basalt_common::DateTime { date: d, .. }) = v {
                let n = d.day as u32 + d.month as u32 * 32 + d.year as u32 * 16 * 32;
                out.extend_from_slice(&n.to_le_bytes()[..3]);
            }
        }
        DataType::DateTime { fsp } => {
            let dt = datetime_of(v);
            let ymd = ((dt.date.year as u64 * 13 + dt.date.month as u64) << 5) | dt.date.day as u64;
            let hms = ((dt.hour as u64) << 12) | ((dt.minute as u64) << 6) | dt.second as u64;
            let int = ((ymd << 17) | hms) + 0x80_0000_0000;
            out.extend_from_slice(&int.to_be_bytes()[3..]);
            frac_image(dt.micro, *fsp, out);
        }
        DataType::Timestamp { fsp } => {
            let dt = datetime_of(v);
            let secs = if dt.date.year == 0 {
                0
            } else {
                dt.unix_seconds() as u32
            };
            out.extend_from_slice(&secs.to_be_bytes());
            frac_image(dt.micro, *fsp, out);
        }
        DataType::Time { fsp } => time_image(v, *fsp, out),
        // MariaDB's BIT field: big-endian, (width + 7) / 8 bytes.
        DataType::Bit { width } => {
            let n = int_of(v) as u64;
            out.extend_from_slice(&n.to_be_bytes()[8 - (*width as usize).div_ceil(8)..]);
        }
        // The 16-byte record form.
        DataType::Uuid | DataType::Inet6 => {
            let inet6 = *dt == DataType::Inet6;
            out.extend_from_slice(&basalt_common::fixedbin::sort_key(
                inet6,
                &crate::value::to_bytes(v),
            ));
        }
        DataType::Year => {
            let y = int_of(v);
            out.push(if y == 0 { 0 } else { (y - 1900) as u8 });
        }
    }
}

fn double_of(v: &Value) -> f64 {
    match v {
        Value::Double(d) => *d,
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Decimal(d) => d.mantissa as f64 / 10f64.powi(d.scale as i32),
        _ => 0.0,
    }
}

fn datetime_of(v: &Value) -> basalt_common::DateTime {
    match v {
        Value::DateTime(d) => *d,
        Value::Date(d) => basalt_common::DateTime::from_date(*d),
        _ => basalt_common::DateTime::default(),
    }
}

/// The fractional seconds of DATETIME/TIMESTAMP(fsp): 1, 2 or 3 big-endian bytes.
fn frac_image(micro: u32, fsp: u8, out: &mut Vec<u8>) {
    match fsp {
        1 | 2 => out.push((micro / 10_000) as u8),
        3 | 4 => out.extend_from_slice(&((micro / 100) as u16).to_be_bytes()),
        5 | 6 => out.extend_from_slice(&micro.to_be_bytes()[1..]),
        _ => {}
    }
}

/// TIME(fsp) in MySQL 5.6's format (`my_time_packed_to_binary`).
fn time_image(v: &Value, fsp: u8, out: &mut Vec<u8>) {
    let Value::Time(t) = v else {
        return;
    };
    let hms = ((t.hours as i64) << 12) | ((t.minute as i64) << 6) | t.second as i64;
    let mut packed = (hms << 24) + t.micro as i64;
    if t.negative {
        packed = -packed;
    }
    let int = (packed >> 24) + 0x80_0000;
    let frac = packed % (1 << 24);
    match fsp {
        0 => out.extend_from_slice(&(int as u32).to_be_bytes()[1..]),
        1 | 2 => {
            out.extend_from_slice(&(int as u32).to_be_bytes()[1..]);
            out.push((frac / 10_000) as i8 as u8);
        }
        3 | 4 => {
            out.extend_from_slice(&(int as u32).to_be_bytes()[1..]);
            out.extend_from_slice(&((frac / 100) as i16).to_be_bytes());
        }
        _ => out.extend_from_slice(&((packed + 0x8000_0000_0000) as u64).to_be_bytes()[2..]),
    }
}

/// Bytes of a group of `n` decimal digits (`dig2bytes`).
const DIG2BYTES: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];

/// DECIMAL(p, s) in MariaDB's binary format (`decimal2bin`): the integer part's
/// digits then the fraction's, in big-endian groups of nine digits (four bytes)
/// with the leftover digits in fewer bytes; negative numbers are the one's
/// complement; the first bit is flipped so the bytes sort as the numbers do.
fn decimal_image(v: &Value, precision: u8, scale: u8, out: &mut Vec<u8>) {
    let (mantissa, vscale) = match v {
        Value::Decimal(d) => (d.mantissa, d.scale),
        Value::Int(i) => (*i as i128, 0),
        Value::UInt(u) => (*u as i128, 0),
        Value::Double(d) => ((*d * 10f64.powi(scale as i32)).round() as i128, scale),
        _ => (0, 0),
    };
    let m = if vscale <= scale {
        mantissa * 10i128.pow((scale - vscale) as u32)
    } else {
        mantissa / 10i128.pow((vscale - scale) as u32)
    };
    let negative = m < 0;
    let abs = m.unsigned_abs();
    let pow = 10u128.pow(scale as u32);
    let (int_part, frac_part) = (abs / pow, abs % pow);
    let intg = precision.saturating_sub(scale) as usize;
    let start = out.len();
    // Integer part: leftover digits first, then full groups.
    let (full, left) = (intg / 9, intg % 9);
    let mut groups = Vec::with_capacity(full + 1);
    let mut rest = int_part;
    for _ in 0..full {
        groups.push((rest % 1_000_000_000) as u32);
        rest /= 1_000_000_000;
    }
    if left > 0 {
        put_be(
            out,
            (rest % 10u128.pow(left as u32)) as u32,
            DIG2BYTES[left],
        );
    }
    for g in groups.iter().rev() {
        put_be(out, *g, 4);
    }
    // Fraction: full groups from the left, then the leftover digits.
    let (ffull, fleft) = (scale as usize / 9, scale as usize % 9);
    let mut digits = frac_part;
    let mut fgroups = Vec::with_capacity(ffull + 1);
    if fleft > 0 {
        fgroups.push(((digits % 10u128.pow(fleft as u32)) as u32, DIG2BYTES[fleft]));
        digits /= 10u128.pow(fleft as u32);
    }
    for _ in 0..ffull {
        fgroups.push(((digits % 1_000_000_000) as u32, 4));
        digits /= 1_000_000_000;
    }
    for (g, bytes) in fgroups.iter().rev() {
        put_be(out, *g, *bytes);
    }
    if negative {
        for b in &mut out[start..] {
            *b = !*b;
        }
    }
    if out.len() > start {
        out[start] ^= 0x80;
    }
}

fn put_be(out: &mut Vec<u8>, v: u32, bytes: usize) {
    out.extend_from_slice(&v.to_be_bytes()[4 - bytes..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_common::Decimal;

    fn col(name: &str, dt: DataType, nullable: bool) -> ColumnDef {
        let mut c = ColumnDef::new(name, dt);
        c.nullable = nullable;
        c
    }

    /// CHECKSUM TABLE of MariaDB 10.11 on `create table t (id int primary key,
    /// v varchar(20), k int)` holding (1,'a',1), (2,'b''x',2), (3,NULL,3).
    #[test]
    fn matches_mariadb_on_int_and_varchar_rows() {
        let cols = vec![
            col(
                "id",
                DataType::Int {
                    kind: IntKind::Int,
                    unsigned: false,
                    width: 0,
                    zerofill: false,
                },
                false,
            ),
            col(
                "v",
                DataType::VarChar {
                    len: 20,
                    collation: Collation::Latin1SwedishCi,
                },
                true,
            ),
            col(
                "k",
                DataType::Int {
                    kind: IntKind::Int,
                    unsigned: false,
                    width: 0,
                    zerofill: false,
                },
                true,
            ),
        ];
        let rows = [
            vec![Value::Int(1), Value::str("a"), Value::Int(1)],
            vec![Value::Int(2), Value::str("b'x"), Value::Int(2)],
            vec![Value::Int(3), Value::Null, Value::Int(3)],
        ];
        let sum = rows.iter().fold(0, |s, r| add(s, row_checksum(&cols, r)));
        assert_eq!(sum, 118463012);
    }

    #[test]
    fn decimal_binary_format() {
        // decimal2bin of 1234567890.1234 as DECIMAL(14,4): MariaDB's doc example
        // bytes 81 0D FB 38 D2 04 D2.
        let mut out = Vec::new();
        decimal_image(
            &Value::Decimal(Decimal::new(12345678901234, 4)),
            14,
            4,
            &mut out,
        );
        assert_eq!(out, [0x81, 0x0D, 0xFB, 0x38, 0xD2, 0x04, 0xD2]);
        out.clear();
        decimal_image(
            &Value::Decimal(Decimal::new(-12345678901234, 4)),
            14,
            4,
            &mut out,
        );
        assert_eq!(out, [0x7E, 0xF2, 0x04, 0xC7, 0x2D, 0xFB, 0x2D]);
    }
}
