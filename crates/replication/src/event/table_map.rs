//! TABLE_MAP events, their optional metadata as `binlog_row_metadata` asks:
//! NO_LOG writes none, MINIMAL fields 1 and 2 below, FULL all of them (MariaDB's
//! `Table_map_log_event::init_metadata_fields`).
//!
//! Body: 0 table id (6) | 6 flags (2, = 1 `TM_BIT_LEN_EXACT_F`) | 8 schema length (1),
//! schema, NUL | table length (1), table, NUL | column count (packed) | one type byte
//! per column ([`pack::column_type`]) | metadata length (packed), metadata per column
//! ([`pack::column_meta`]) | NULL-able bitmap (bit i = column i nullable) | optional
//! metadata: fields of (type 1, length packed, data), in MariaDB's order:
//!
//! 1. `SIGNEDNESS` (1): one bit per numeric column (integers, FLOAT, DOUBLE,
//!    DECIMAL, YEAR), most significant first, 1 = unsigned.
//! 2. `DEFAULT_CHARSET` (2) or `COLUMN_CHARSET` (3) over the character columns
//!    (CHAR, VARCHAR, TEXT/BLOB, UUID, INET6; collation ids, binary = 63): the
//!    default form is the most used collation then (index among the character
//!    columns, collation) for the others; the column form lists every column's. The
//!    shorter is written, the default form on a tie.
//! 3. `COLUMN_NAME` (4): length-prefixed names.
//! 4. `ENUM_AND_SET_DEFAULT_CHARSET` (10) / `ENUM_AND_SET_COLUMN_CHARSET` (11): as 2.
//!    over ENUM and SET columns.
//! 5. `SET_STR_VALUE` (5), then `ENUM_STR_VALUE` (6): per column, the member count
//!    then the members, in the column's character set.
//! 6. `SIMPLE_PRIMARY_KEY` (8): the key's column ordinals; or
//!    `PRIMARY_KEY_WITH_PREFIX` (9) when a key part is a prefix: (ordinal, prefix
//!    length in characters, 0 for whole) pairs. Without a declared primary key, the
//!    first UNIQUE key of NOT NULL whole columns stands in ([`primary_key`]); absent
//!    when there is none.
//!
//! A field with nothing to list is left out.

use super::pack;
use super::put_packed;
use basalt_common::charset;
use basalt_common::{Collation, DataType, IndexDef, TableDef};
use std::collections::BTreeMap;

/// `TM_BIT_LEN_EXACT_F`.
const TM_BIT_LEN_EXACT_F: u16 = 1;

const SIGNEDNESS: u8 = 1;
const DEFAULT_CHARSET: u8 = 2;
const COLUMN_CHARSET: u8 = 3;
const COLUMN_NAME: u8 = 4;
const SET_STR_VALUE: u8 = 5;
const ENUM_STR_VALUE: u8 = 6;
const SIMPLE_PRIMARY_KEY: u8 = 8;
const PRIMARY_KEY_WITH_PREFIX: u8 = 9;
const ENUM_AND_SET_DEFAULT_CHARSET: u8 = 10;
const ENUM_AND_SET_COLUMN_CHARSET: u8 = 11;

/// `binlog_row_metadata`: how much optional metadata a TABLE_MAP carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RowMetadata {
    NoLog,
    Minimal,
    #[default]
    Full,
}

impl RowMetadata {
    /// The variable's value (`NO_LOG`, `MINIMAL`, `FULL`), any case.
    pub fn from_name(s: &str) -> Option<RowMetadata> {
        match s.to_ascii_uppercase().as_str() {
            "NO_LOG" => Some(RowMetadata::NoLog),
            "MINIMAL" => Some(RowMetadata::Minimal),
            "FULL" => Some(RowMetadata::Full),
            _ => None,
        }
    }
}

/// Appends the body of a TABLE_MAP event for `def` under `table_id`.
pub(crate) fn encode(out: &mut Vec<u8>, table_id: u64, def: &TableDef, level: RowMetadata) {
    out.extend_from_slice(&table_id.to_le_bytes()[..6]);
    out.extend_from_slice(&TM_BIT_LEN_EXACT_F.to_le_bytes());
    for name in [&def.schema, &def.name] {
        let b = &name.as_bytes()[..name.len().min(255)];
        out.push(b.len() as u8);
        out.extend_from_slice(b);
        out.push(0);
    }
    put_packed(out, def.columns.len() as u64);
    out.extend(def.columns.iter().map(|c| pack::column_type(&c.data_type)));
    let mut meta = Vec::new();
    for c in &def.columns {
        pack::column_meta(&c.data_type, &mut meta);
    }
    put_packed(out, meta.len() as u64);
    out.extend_from_slice(&meta);
    out.extend_from_slice(&bitmap(def.columns.iter().map(|c| c.nullable)));
    if level != RowMetadata::NoLog {
        optional_metadata(out, def, level == RowMetadata::Full);
    }
}

/// Bits LSB first, as the NULL-able and column bitmaps are.
pub(crate) fn bitmap(bits: impl Iterator<Item = bool>) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, on) in bits.enumerate() {
        if i % 8 == 0 {
            out.push(0);
        }
        if on {
            if let Some(last) = out.last_mut() {
                *last |= 1 << (i % 8);
            }
        }
    }
    out
}

fn field(out: &mut Vec<u8>, code: u8, data: &[u8]) {
    out.push(code);
    put_packed(out, data.len() as u64);
    out.extend_from_slice(data);
}

fn optional_metadata(out: &mut Vec<u8>, def: &TableDef, full: bool) {
    let types: Vec<&DataType> = def.columns.iter().map(|c| &c.data_type).collect();
    let signed: Vec<bool> = types
        .iter()
        .filter(|t| t.is_numeric() || matches!(t, DataType::Year))
        .map(|t| t.is_unsigned() || matches!(t, DataType::Year))
        .collect();
    if !signed.is_empty() {
        field(out, SIGNEDNESS, &msb_bitmap(&signed));
    }
    let chars: Vec<u16> = types.iter().filter_map(|t| char_collation(t)).collect();
    charset_field(out, &chars, DEFAULT_CHARSET, COLUMN_CHARSET);
    if !full {
        return;
    }
    let mut names = Vec::new();
    for c in &def.columns {
        put_packed(&mut names, c.name.len() as u64);
        names.extend_from_slice(c.name.as_bytes());
    }
    field(out, COLUMN_NAME, &names);
    let enum_set: Vec<u16> = types
        .iter()
        .filter(|t| t.is_enum_or_set())
        .filter_map(|t| t.collation().map(Collation::id))
        .collect();
    charset_field(
        out,
        &enum_set,
        ENUM_AND_SET_DEFAULT_CHARSET,
        ENUM_AND_SET_COLUMN_CHARSET,
    );
    members_field(out, &types, SET_STR_VALUE, true);
    members_field(out, &types, ENUM_STR_VALUE, false);
    primary_key_field(out, def);
}

/// Bits most significant first (SIGNEDNESS).
fn msb_bitmap(bits: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    for (i, on) in bits.iter().enumerate() {
        if *on {
            out[i / 8] |= 0x80 >> (i % 8);
        }
    }
    out
}

/// The collation of a character column (`is_character_type`), None for others.
fn char_collation(t: &DataType) -> Option<u16> {
    match t {
        DataType::Char { collation, .. }
        | DataType::VarChar { collation, .. }
        | DataType::Text { collation, .. } => Some(collation.id()),
        DataType::Uuid | DataType::Inet6 => Some(Collation::Binary.id()),
        _ => None,
    }
}

fn charset_field(out: &mut Vec<u8>, colls: &[u16], default_code: u8, column_code: u8) {
    if colls.is_empty() {
        return;
    }
    let mut counts: BTreeMap<u16, usize> = BTreeMap::new();
    for c in colls {
        *counts.entry(*c).or_default() += 1;
    }
    // The first (lowest id) of the most used, as MariaDB's ordered map scan keeps it.
    let mut most = (0u16, 0usize);
    for (id, n) in counts {
        if n > most.1 {
            most = (id, n);
        }
    }
    let mut dflt = Vec::new();
    put_packed(&mut dflt, most.0 as u64);
    for (i, c) in colls.iter().enumerate().filter(|(_, c)| **c != most.0) {
        put_packed(&mut dflt, i as u64);
        put_packed(&mut dflt, *c as u64);
    }
    let mut column = Vec::new();
    for c in colls {
        put_packed(&mut column, *c as u64);
    }
    if dflt.len() <= column.len() {
        field(out, default_code, &dflt);
    } else {
        field(out, column_code, &column);
    }
}

fn members_field(out: &mut Vec<u8>, types: &[&DataType], code: u8, set: bool) {
    let mut data = Vec::new();
    let mut any = false;
    for t in types {
        let (values, coll) = match (t, set) {
            (DataType::Set { values, collation }, true)
            | (DataType::Enum { values, collation }, false) => (values, collation),
            _ => continue,
        };
        any = true;
        put_packed(&mut data, values.len() as u64);
        for v in values {
            let b = charset::from_internal(v.as_bytes(), coll.charset());
            put_packed(&mut data, b.len() as u64);
            data.extend_from_slice(&b);
        }
    }
    if any {
        field(out, code, &data);
    }
}

/// The key MariaDB treats as the primary key: the declared one, else the first
/// UNIQUE key whose columns are all NOT NULL and whole (no prefix), as MariaDB
/// promotes it when it opens the table.
pub(crate) fn primary_key(def: &TableDef) -> Option<&IndexDef> {
    let first = def.indexes.first()?;
    if !def.has_hidden_pk() {
        return Some(first);
    }
    def.indexes.iter().skip(1).find(|ix| {
        ix.is_unique()
            && !ix.columns.is_empty()
            && ix.columns.iter().all(|p| {
                p.prefix_len.is_none() && def.columns.get(p.column).is_some_and(|c| !c.nullable)
            })
    })
}

fn primary_key_field(out: &mut Vec<u8>, def: &TableDef) {
    let Some(pk) = primary_key(def) else {
        return;
    };
    let parts = &pk.columns;
    let mut data = Vec::new();
    if parts.iter().any(|p| p.prefix_len.is_some()) {
        for p in parts {
            put_packed(&mut data, p.column as u64);
            put_packed(&mut data, p.prefix_len.unwrap_or(0) as u64);
        }
        field(out, PRIMARY_KEY_WITH_PREFIX, &data);
    } else {
        for p in parts {
            put_packed(&mut data, p.column as u64);
        }
        field(out, SIMPLE_PRIMARY_KEY, &data);
    }
}
