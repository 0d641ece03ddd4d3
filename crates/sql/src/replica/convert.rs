//! Values of a primary's row image converted to the replica's own column types.
//!
//! Columns map by position: column `i` of the TABLE_MAP is column `i` of the local
//! table (MariaDB's rule). A column's primary type must be the local type's
//! (checked once per table map by [`check_column`]), otherwise the row fails with
//! 1677 `ER_SLAVE_CONVERSION_FAILED`, as MariaDB with `slave_type_conversions`
//! empty. The pairs accepted:
//!
//! | primary (TABLE_MAP)            | local `DataType`                         |
//! |--------------------------------|------------------------------------------|
//! | TINY/SHORT/INT24/LONG/LONGLONG | Int of the same size (either signedness) |
//! | FLOAT / DOUBLE                 | Float / Double                           |
//! | NEWDECIMAL(p,s)                | Decimal(p,s)                             |
//! | STRING (real STRING) n bytes   | Char of at least n bytes, Uuid/Inet6 (16)|
//! | VARCHAR n bytes                | VarChar of at least n bytes              |
//! | BLOB family, length bytes k    | Text whose length takes at least k bytes |
//! | ENUM / SET                     | Enum / Set                               |
//! | BIT(w)                         | Bit(w)                                   |
//! | DATE, YEAR                     | Date, Year                               |
//! | TIME / TIME2                   | Time (any fsp: the fraction is cut)      |
//! | DATETIME / DATETIME2           | DateTime                                 |
//! | TIMESTAMP / TIMESTAMP2         | Timestamp                                |
//! | NULL                           | any column                               |
//!
//! Value rules: an integer is reinterpreted by the local column's signedness when
//! the primary sent no SIGNEDNESS (`binlog_row_metadata=NO_LOG`: TINYINT UNSIGNED
//! 255 arrives as `Int(-1)`); strings arrive in the column's character set and are
//! held internally as UTF-8 (latin1 re-encoded), a BINARY(n) is padded back to n
//! zero bytes, a CHAR keeps no trailing spaces; an ENUM/SET number becomes the
//! local member (by the member's text when the primary sent the members, FULL
//! metadata); TIMESTAMP seconds since the epoch become the UTC DATETIME Basalt
//! holds (0 is the zero timestamp); BIT is an unsigned integer; YEAR an integer.

use super::ApplyError;
use basalt_common::{charset, enumset, fixedbin};
use basalt_common::{Collation, DataType, DateTime, Decimal, IntKind, LobKind, Time, Value};
use basalt_replication::replica::decode::{BlobKind, ColValue, Column, ColumnType};

/// Where a column sits, for error messages.
#[derive(Clone, Copy, Debug)]
pub struct ColumnAt<'a> {
    /// 0-based ordinal (MariaDB's messages count from 0).
    pub ordinal: usize,
    pub schema: &'a str,
    pub table: &'a str,
}

fn lob_len_bytes(kind: LobKind) -> u8 {
    match kind {
        LobKind::Tiny => 1,
        LobKind::Normal => 2,
        LobKind::Medium => 3,
        LobKind::Long => 4,
    }
}

/// Maximum bytes of a local CHAR/VARCHAR value.
fn max_bytes(len: u32, collation: Collation) -> u32 {
    len.saturating_mul(collation.charset().max_len())
}

/// Whether a value of primary type `src` can be stored in `local` as is.
fn compatible(src: &ColumnType, local: &DataType) -> bool {
    use ColumnType as C;
    match (src, local) {
        (C::Null, _) => true,
        (C::Int { bytes }, DataType::Int { kind, .. }) => kind.bytes() == *bytes as u32,
        (C::Float, DataType::Float) | (C::Double, DataType::Double) => true,
        (
            C::Decimal { precision, scale },
            DataType::Decimal {
                precision: p,
                scale: s,
            },
        ) => precision == p && scale == s,
        (C::String { max_len }, DataType::Char { len, collation }) => {
            *max_len <= max_bytes(*len, *collation)
        }
        (C::String { max_len }, DataType::Uuid | DataType::Inet6) => *max_len == 16,
        (C::VarChar { max_len }, DataType::VarChar { len, collation }) => {
            *max_len <= max_bytes(*len, *collation)
        }
        (
            C::Blob {
                len_bytes,
                kind: BlobKind::Blob,
            },
            DataType::Text { kind, .. },
        ) => *len_bytes <= lob_len_bytes(*kind),
        (C::Enum { .. }, DataType::Enum { .. }) | (C::Set { .. }, DataType::Set { .. }) => true,
        (C::Bit { bits }, DataType::Bit { width }) => *bits == *width as u16,
        (C::Date, DataType::Date) | (C::Year, DataType::Year) => true,
        (C::Time2 { .. } | C::OldTime, DataType::Time { .. }) => true,
        (C::DateTime2 { .. } | C::OldDateTime, DataType::DateTime { .. }) => true,
        (C::Timestamp2 { .. } | C::OldTimestamp, DataType::Timestamp { .. }) => true,
        _ => false,
    }
}

/// The primary's column type as MariaDB's `show_sql_type` names it in 1677.
pub fn source_type_name(ty: &ColumnType) -> String {
    use ColumnType as C;
    match *ty {
        C::Int { bytes } => match bytes {
            1 => "tinyint",
            2 => "smallint",
            3 => "mediumint",
            4 => "int",
            _ => "bigint",
        }
        .into(),
        C::Float => "float".into(),
        C::Double => "double".into(),
        C::Decimal { precision, scale } => format!("decimal({precision},{scale})"),
        C::String { max_len } => format!("char({max_len})"),
        C::VarChar { max_len } => format!("varchar({max_len})"),
        C::Blob { kind, len_bytes } => match kind {
            BlobKind::Json => "json".into(),
            BlobKind::Geometry => "geometry".into(),
            BlobKind::Blob => match len_bytes {
                1 => "tinyblob",
                2 => "blob",
                3 => "mediumblob",
                _ => "longblob",
            }
            .into(),
        },
        C::Enum { .. } => "enum".into(),
        C::Set { .. } => "set".into(),
        C::Bit { bits } => format!("bit({bits})"),
        C::Date => "date".into(),
        C::Year => "year".into(),
        C::OldTime | C::Time2 { .. } => "time".into(),
        C::OldDateTime | C::DateTime2 { .. } => "datetime".into(),
        C::OldTimestamp | C::Timestamp2 { .. } => "timestamp".into(),
        C::Null => "null".into(),
    }
}

fn conversion_failed(at: ColumnAt<'_>, src: &ColumnType, local: &DataType) -> ApplyError {
    ApplyError::Conversion {
        ordinal: at.ordinal,
        schema: at.schema.into(),
        table: at.table.into(),
        from: source_type_name(src),
        to: local.sql_name(),
    }
}

/// Checks that column `at` of the primary (`src`) can be applied to `local`.
pub fn check_column(at: ColumnAt<'_>, src: &Column, local: &DataType) -> Result<(), ApplyError> {
    if compatible(&src.ty, local) {
        Ok(())
    } else {
        Err(conversion_failed(at, &src.ty, local))
    }
}

/// Converts one value of column `at` (primary metadata `src`) to the local type.
pub fn convert(
    at: ColumnAt<'_>,
    src: &Column,
    v: &ColValue,
    local: &DataType,
) -> Result<Value, ApplyError> {
    let fail = || conversion_failed(at, &src.ty, local);
    Ok(match (v, local) {
        (ColValue::Null, _) => Value::Null,
        (ColValue::Int(i), DataType::Int { kind, unsigned, .. }) => int_value(*i, *kind, *unsigned),
        (ColValue::UInt(u), DataType::Int { unsigned: true, .. }) => Value::UInt(*u),
        (ColValue::UInt(u), DataType::Int { .. }) => Value::Int(*u as i64),
        (ColValue::Float(f), DataType::Float) => Value::Double(*f as f64 + 0.0),
        (ColValue::Double(d), DataType::Double) => Value::Double(*d + 0.0),
        (ColValue::Decimal(text), DataType::Decimal { scale, .. }) => {
            let d = Decimal::parse(text).and_then(|d| d.rescale(*scale));
            Value::Decimal(d.ok_or_else(fail)?)
        }
        (ColValue::Bytes(b), DataType::Char { len, collation }) => char_value(b, *len, *collation),
        (ColValue::Bytes(b), DataType::VarChar { collation, .. })
        | (ColValue::Bytes(b), DataType::Text { collation, .. }) => {
            Value::Bytes(charset::to_internal(b, collation.charset()).into_owned())
        }
        (ColValue::Bytes(b), DataType::Uuid | DataType::Inet6) => {
            let mut bin = [0u8; 16];
            let n = b.len().min(16);
            bin[..n].copy_from_slice(&b[..n]);
            let text = fixedbin::format(matches!(local, DataType::Inet6), &bin);
            Value::Bytes(text.into_bytes())
        }
        (ColValue::Enum(n), DataType::Enum { values, collation }) => {
            let n = member_by_text(src, *n as u64, values, *collation, false);
            enumset::value_of(local, n)
        }
        (ColValue::Set(mask), DataType::Set { values, collation }) => {
            let n = member_by_text(src, *mask, values, *collation, true);
            enumset::value_of(local, n)
        }
        (ColValue::Bit(b), DataType::Bit { .. }) => Value::UInt(*b),
        (ColValue::Year(y), DataType::Year) => Value::Int(*y as i64),
        (ColValue::Date(d), DataType::Date) => Value::Date(*d),
        (ColValue::DateTime(dt), DataType::DateTime { fsp }) => {
            let mut dt = *dt;
            dt.micro = cut_micro(dt.micro, *fsp);
            Value::DateTime(dt)
        }
        (ColValue::Timestamp { seconds, micro }, DataType::Timestamp { fsp }) => {
            if *seconds == 0 {
                Value::DateTime(DateTime::default())
            } else {
                let micro = cut_micro(*micro, *fsp);
                Value::DateTime(DateTime::from_unix_seconds(*seconds as i64, micro))
            }
        }
        (ColValue::Time(t), DataType::Time { fsp }) => Value::Time(Time {
            micro: cut_micro(t.micro, *fsp),
            ..*t
        }),
        _ => return Err(fail()),
    })
}

/// An integer sent without SIGNEDNESS (always as signed) or with it signed, read
/// by the local column's signedness.
fn int_value(i: i64, kind: IntKind, unsigned: bool) -> Value {
    if !unsigned {
        return Value::Int(i);
    }
    let bits = kind.bytes() * 8;
    let u = if bits == 64 {
        i as u64
    } else {
        (i as u64) & ((1u64 << bits) - 1)
    };
    Value::UInt(u)
}

fn char_value(b: &[u8], len: u32, collation: Collation) -> Value {
    if collation.is_binary() {
        let mut v = b.to_vec();
        if v.len() < len as usize {
            v.resize(len as usize, 0);
        }
        return Value::Bytes(v);
    }
    let mut v = charset::to_internal(b, collation.charset()).into_owned();
    let end = v.iter().rposition(|c| *c != b' ').map_or(0, |p| p + 1);
    v.truncate(end);
    Value::Bytes(v)
}

fn cut_micro(micro: u32, fsp: u8) -> u32 {
    let unit = 10u32.pow(6 - fsp.min(6) as u32);
    micro - micro % unit
}

/// The local number of an ENUM member / SET mask: by text when the primary sent
/// its members (FULL metadata), else the number as sent.
fn member_by_text(src: &Column, n: u64, local: &[String], coll: Collation, set: bool) -> u64 {
    let Some(members) = &src.members else {
        return n;
    };
    if !set {
        let Some(text) = (n as usize).checked_sub(1).and_then(|i| members.get(i)) else {
            return n;
        };
        let text = charset::to_internal(text, coll.charset());
        return enumset::enum_position(local, coll, &text).unwrap_or(n);
    }
    let mut mask = 0u64;
    for (i, m) in members.iter().enumerate().take(64) {
        if n & (1 << i) == 0 {
            continue;
        }
        let text = charset::to_internal(m, coll.charset());
        match enumset::enum_position(local, coll, &text) {
            Some(p) if (1..=64).contains(&p) => mask |= 1 << (p - 1),
            _ => return n,
        }
    }
    mask
}
