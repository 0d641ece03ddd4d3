//! Rows events decoded into rows of [`ColValue`]s with the table's TABLE_MAP.
//!
//! Body: 0 table id (6) | 6 flags (2) | v2 only (types 30/31/32, MySQL): extra-data
//! length (2, counting itself) and the extra data | column count (packed) |
//! columns-present bitmap (the before image's for UPDATE and DELETE, the after
//! image's for WRITE) | UPDATE only: the after image's bitmap | rows until the end.
//! A row image is a NULL bitmap over the present columns (bit k = the k-th present
//! column is NULL) then each present non-NULL value; an UPDATE row is the before
//! image then the after image.
//!
//! An image is a `Vec<Option<ColValue>>` over all the table's columns: `None` for a
//! column the image does not carry (MINIMAL / NOBLOB images), `Some(ColValue::Null)`
//! for a NULL.

use super::table_map::TableMap;
use super::value::{self, ColValue, Cursor};
use super::DecodeError;
use crate::event::{get_packed, types};

/// `STMT_END_F`: the statement's last rows event.
pub const STMT_END_F: u16 = 1;

/// The kind of a rows event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowsKind {
    Write,
    Update,
    Delete,
}

/// One row image over all the table's columns (`None`: not in the image).
pub type Image = Vec<Option<ColValue>>;

/// One row of a rows event.
#[derive(Clone, Debug, PartialEq)]
pub enum RowEvent {
    Insert(Image),
    Update { before: Image, after: Image },
    Delete(Image),
}

/// A decoded WRITE/UPDATE/DELETE_ROWS event (v1 or v2).
#[derive(Clone, Debug, PartialEq)]
pub struct RowsEvent {
    pub kind: RowsKind,
    pub table_id: u64,
    pub flags: u16,
    /// Columns in the before image (UPDATE, DELETE) or the inserted one (WRITE).
    pub present: Vec<bool>,
    /// UPDATE only: columns in the after image.
    pub present_after: Option<Vec<bool>>,
    pub rows: Vec<RowEvent>,
}

impl RowsEvent {
    pub fn stmt_end(&self) -> bool {
        self.flags & STMT_END_F != 0
    }
}

/// The kind and version (true for v2) of a rows event type code.
pub fn rows_kind(type_code: u8) -> Option<(RowsKind, bool)> {
    Some(match type_code {
        types::WRITE_ROWS_V1 => (RowsKind::Write, false),
        types::UPDATE_ROWS_V1 => (RowsKind::Update, false),
        types::DELETE_ROWS_V1 => (RowsKind::Delete, false),
        types::WRITE_ROWS => (RowsKind::Write, true),
        types::UPDATE_ROWS => (RowsKind::Update, true),
        types::DELETE_ROWS => (RowsKind::Delete, true),
        _ => return None,
    })
}

/// The table id a rows event body names.
pub fn rows_table_id(body: &[u8]) -> Option<u64> {
    let mut id = [0u8; 8];
    id[..6].copy_from_slice(body.get(..6)?);
    Some(u64::from_le_bytes(id))
}

fn bits(b: &[u8], n: usize) -> Vec<bool> {
    (0..n).map(|i| b[i / 8] & (1 << (i % 8)) != 0).collect()
}

/// Decodes a rows event body of type `type_code` against `map`.
pub fn decode_rows(type_code: u8, body: &[u8], map: &TableMap) -> Result<RowsEvent, DecodeError> {
    let (kind, v2) = rows_kind(type_code).ok_or(DecodeError::NotRows(type_code))?;
    let mut c = Cursor::new(body);
    let table_id = c.le(6)?;
    let flags = c.le(2)? as u16;
    if v2 {
        let extra = c.le(2)? as usize;
        c.take(extra.saturating_sub(2))?;
    }
    let rest = body.get(c.at..).unwrap_or_default();
    let (width, used) = get_packed(rest).ok_or(DecodeError::Truncated("column count"))?;
    c.at += used;
    let width = width as usize;
    if width != map.columns.len() {
        return Err(DecodeError::ColumnCount {
            table_id,
            map: map.columns.len(),
            rows: width,
        });
    }
    let present = bits(c.take(width.div_ceil(8))?, width);
    let present_after = match kind {
        RowsKind::Update => Some(bits(c.take(width.div_ceil(8))?, width)),
        _ => None,
    };
    let mut rows = Vec::new();
    while !c.done() {
        let first = image(&mut c, map, &present)?;
        rows.push(match (kind, &present_after) {
            (RowsKind::Write, _) => RowEvent::Insert(first),
            (RowsKind::Delete, _) => RowEvent::Delete(first),
            (RowsKind::Update, after) => RowEvent::Update {
                before: first,
                after: image(&mut c, map, after.as_deref().unwrap_or(&present))?,
            },
        });
    }
    Ok(RowsEvent {
        kind,
        table_id,
        flags,
        present,
        present_after,
        rows,
    })
}

/// One row image: the NULL bitmap over the present columns, then their values.
fn image(c: &mut Cursor<'_>, map: &TableMap, present: &[bool]) -> Result<Image, DecodeError> {
    let count = present.iter().filter(|p| **p).count();
    let nulls = c.take(count.div_ceil(8))?;
    let mut out = Vec::with_capacity(present.len());
    let mut k = 0;
    for (i, col) in map.columns.iter().enumerate() {
        if !present[i] {
            out.push(None);
            continue;
        }
        let is_null = nulls[k / 8] & (1 << (k % 8)) != 0;
        k += 1;
        out.push(Some(if is_null {
            ColValue::Null
        } else {
            value::unpack(&col.ty, col.unsigned == Some(true), c)?
        }));
    }
    Ok(out)
}
