//! TABLE_MAP events decoded: the table's name, each column's type, metadata and
//! NULL-ability, and the optional metadata a primary adds.
//!
//! Body (as `event/table_map.rs` writes it): 0 table id (6) | 6 flags (2) | schema
//! length (1), schema, NUL | table length (1), table, NUL | column count (packed) |
//! type bytes | metadata length (packed), metadata | NULL-able bitmap (LSB first) |
//! optional metadata: (field type 1, length packed, data) until the end.
//!
//! What the optional metadata holds depends on the primary's `binlog_row_metadata`:
//! NO_LOG (MariaDB's default) none, MINIMAL the SIGNEDNESS, character sets and
//! geometry types, FULL also names, ENUM/SET members and the primary key. Fields
//! this decoder does not know are skipped (their length is given). Per-column
//! fields cover a subset of the columns, in column order: SIGNEDNESS the numeric
//! ones (integers, FLOAT, DOUBLE, NEWDECIMAL, YEAR; bit set = unsigned, most
//! significant first), the charset fields the character ones (STRING of real type
//! STRING, VARCHAR, VAR_STRING, BLOB), the ENUM/SET fields those columns, and
//! GEOMETRY_TYPE the GEOMETRY columns.

use super::value::{self, ColumnType};
use super::DecodeError;
use crate::event::get_packed;

const SIGNEDNESS: u8 = 1;
const DEFAULT_CHARSET: u8 = 2;
const COLUMN_CHARSET: u8 = 3;
const COLUMN_NAME: u8 = 4;
const SET_STR_VALUE: u8 = 5;
const ENUM_STR_VALUE: u8 = 6;
const GEOMETRY_TYPE: u8 = 7;
const SIMPLE_PRIMARY_KEY: u8 = 8;
const PRIMARY_KEY_WITH_PREFIX: u8 = 9;
const ENUM_AND_SET_DEFAULT_CHARSET: u8 = 10;
const ENUM_AND_SET_COLUMN_CHARSET: u8 = 11;

/// One column of a TABLE_MAP.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// The type byte as sent (STRING for CHAR, ENUM and SET alike).
    pub type_code: u8,
    pub ty: ColumnType,
    pub nullable: bool,
    /// From SIGNEDNESS; None when the primary did not send it or the column is not numeric.
    pub unsigned: Option<bool>,
    /// Collation id of a character, ENUM or SET column, when sent.
    pub collation: Option<u16>,
    /// From COLUMN_NAME (FULL only).
    pub name: Option<String>,
    /// ENUM or SET members in the column's character set (FULL only).
    pub members: Option<Vec<Vec<u8>>>,
    /// GEOMETRY_TYPE's code for a GEOMETRY column.
    pub geometry_type: Option<u32>,
}

/// A decoded TABLE_MAP.
#[derive(Clone, Debug, PartialEq)]
pub struct TableMap {
    pub table_id: u64,
    pub flags: u16,
    pub schema: String,
    pub table: String,
    pub columns: Vec<Column>,
    /// The primary key (or the UNIQUE NOT NULL key standing in) as (column ordinal,
    /// prefix length in characters, 0 for whole); empty when not sent.
    pub primary_key: Vec<(usize, u32)>,
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], DecodeError> {
        let s = self
            .b
            .get(self.at..self.at + n)
            .ok_or(DecodeError::Truncated(what))?;
        self.at += n;
        Ok(s)
    }

    fn packed(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        let rest = self.b.get(self.at..).unwrap_or_default();
        let (v, n) = get_packed(rest).ok_or(DecodeError::Truncated(what))?;
        self.at += n;
        Ok(v)
    }

    fn lenenc(&mut self, what: &'static str) -> Result<&'a [u8], DecodeError> {
        let n = self.packed(what)? as usize;
        self.take(n, what)
    }

    fn done(&self) -> bool {
        self.at >= self.b.len()
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Decodes a TABLE_MAP body (after the common header, without the CRC).
pub fn decode_table_map(body: &[u8]) -> Result<TableMap, DecodeError> {
    let mut r = Reader { b: body, at: 0 };
    let mut id = [0u8; 8];
    id[..6].copy_from_slice(r.take(6, "table id")?);
    let fl = r.take(2, "flags")?;
    let flags = u16::from_le_bytes([fl[0], fl[1]]);
    let mut names = Vec::new();
    for what in ["schema", "table"] {
        let n = r.take(1, what)?[0] as usize;
        names.push(text(r.take(n, what)?));
        r.take(1, what)?;
    }
    let count = r.packed("column count")? as usize;
    let types = r.take(count, "column types")?.to_vec();
    let meta = r.lenenc("column metadata")?;
    let nulls = r.take(count.div_ceil(8), "NULL bitmap")?;
    let columns = columns(&types, meta, nulls)?;
    let table = names.pop().unwrap_or_default();
    let schema = names.pop().unwrap_or_default();
    let mut map = TableMap {
        table_id: u64::from_le_bytes(id),
        flags,
        schema,
        table,
        columns,
        primary_key: Vec::new(),
    };
    while !r.done() {
        let code = r.take(1, "optional metadata")?[0];
        let data = r.lenenc("optional metadata")?;
        optional_field(&mut map, code, data)?;
    }
    Ok(map)
}

fn columns(types: &[u8], meta: &[u8], nulls: &[u8]) -> Result<Vec<Column>, DecodeError> {
    let mut at = 0;
    let mut out = Vec::with_capacity(types.len());
    for (i, t) in types.iter().enumerate() {
        let n = value::meta_len(*t);
        let m = meta
            .get(at..at + n)
            .ok_or(DecodeError::Truncated("column metadata"))?;
        at += n;
        out.push(Column {
            type_code: *t,
            ty: value::column_type(*t, m)?,
            nullable: nulls.get(i / 8).is_some_and(|b| b & (1 << (i % 8)) != 0),
            unsigned: None,
            collation: None,
            name: None,
            members: None,
            geometry_type: None,
        });
    }
    Ok(out)
}

fn is_numeric(c: &Column) -> bool {
    matches!(
        c.ty,
        ColumnType::Int { .. }
            | ColumnType::Float
            | ColumnType::Double
            | ColumnType::Decimal { .. }
            | ColumnType::Year
    )
}

fn is_character(c: &Column) -> bool {
    matches!(
        c.ty,
        ColumnType::String { .. }
            | ColumnType::VarChar { .. }
            | ColumnType::Blob {
                kind: value::BlobKind::Blob,
                ..
            }
    )
}

fn is_enum_or_set(c: &Column) -> bool {
    matches!(c.ty, ColumnType::Enum { .. } | ColumnType::Set { .. })
}

fn optional_field(map: &mut TableMap, code: u8, data: &[u8]) -> Result<(), DecodeError> {
    let cols = &mut map.columns;
    match code {
        SIGNEDNESS => {
            for (k, c) in cols.iter_mut().filter(|c| is_numeric(c)).enumerate() {
                let byte = data.get(k / 8).copied().unwrap_or(0);
                c.unsigned = Some(byte & (0x80 >> (k % 8)) != 0);
            }
        }
        DEFAULT_CHARSET => default_charset(cols, data, is_character)?,
        COLUMN_CHARSET => column_charset(cols, data, is_character)?,
        ENUM_AND_SET_DEFAULT_CHARSET => default_charset(cols, data, is_enum_or_set)?,
        ENUM_AND_SET_COLUMN_CHARSET => column_charset(cols, data, is_enum_or_set)?,
        COLUMN_NAME => {
            let mut r = Reader { b: data, at: 0 };
            for c in cols.iter_mut() {
                c.name = Some(text(r.lenenc("column name")?));
            }
        }
        SET_STR_VALUE | ENUM_STR_VALUE => members(cols, data, code == SET_STR_VALUE)?,
        GEOMETRY_TYPE => {
            let mut r = Reader { b: data, at: 0 };
            let geo = |c: &&mut Column| {
                matches!(
                    c.ty,
                    ColumnType::Blob {
                        kind: value::BlobKind::Geometry,
                        ..
                    }
                )
            };
            for c in cols.iter_mut().filter(geo) {
                c.geometry_type = Some(r.packed("geometry type")? as u32);
            }
        }
        SIMPLE_PRIMARY_KEY | PRIMARY_KEY_WITH_PREFIX => {
            let mut r = Reader { b: data, at: 0 };
            while !r.done() {
                let col = r.packed("primary key")? as usize;
                let prefix = if code == PRIMARY_KEY_WITH_PREFIX {
                    r.packed("primary key prefix")? as u32
                } else {
                    0
                };
                map.primary_key.push((col, prefix));
            }
        }
        _ => {}
    }
    Ok(())
}

/// DEFAULT_CHARSET form: the default collation, then (index among the selected
/// columns, collation) for the others.
fn default_charset(
    cols: &mut [Column],
    data: &[u8],
    pick: fn(&Column) -> bool,
) -> Result<(), DecodeError> {
    let mut r = Reader { b: data, at: 0 };
    let default = r.packed("default charset")? as u16;
    let mut chosen: Vec<&mut Column> = cols.iter_mut().filter(|c| pick(c)).collect();
    for c in chosen.iter_mut() {
        c.collation = Some(default);
    }
    while !r.done() {
        let i = r.packed("charset index")? as usize;
        let coll = r.packed("charset")? as u16;
        if let Some(c) = chosen.get_mut(i) {
            c.collation = Some(coll);
        }
    }
    Ok(())
}

fn column_charset(
    cols: &mut [Column],
    data: &[u8],
    pick: fn(&Column) -> bool,
) -> Result<(), DecodeError> {
    let mut r = Reader { b: data, at: 0 };
    for c in cols.iter_mut().filter(|c| pick(c)) {
        c.collation = Some(r.packed("column charset")? as u16);
    }
    Ok(())
}

fn members(cols: &mut [Column], data: &[u8], set: bool) -> Result<(), DecodeError> {
    let mut r = Reader { b: data, at: 0 };
    let wanted = |c: &&mut Column| match c.ty {
        ColumnType::Set { .. } => set,
        ColumnType::Enum { .. } => !set,
        _ => false,
    };
    for c in cols.iter_mut().filter(wanted) {
        let n = r.packed("member count")? as usize;
        let mut list = Vec::with_capacity(n);
        for _ in 0..n {
            list.push(r.lenenc("member")?.to_vec());
        }
        c.members = Some(list);
    }
    Ok(())
}
