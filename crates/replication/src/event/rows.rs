//! Rows events (WRITE/UPDATE/DELETE_ROWS_EVENT_V1, types 23/24/25, which MariaDB
//! 10.11 writes) and the row images of `binlog_row_image`.
//!
//! Body: 0 table id (6) | 6 flags (2; `STMT_END_F` = 1 on the statement's last event)
//! | 8 column count (packed) | columns-present bitmap (before image for UPDATE and
//! DELETE, after image for WRITE) | UPDATE only: after-image bitmap | rows. A row is a
//! NULL bitmap over the present columns (bit set = NULL; bits past the last column
//! are set, as MariaDB's `pack_row` leaves them) then each present non-NULL value
//! ([`super::pack`]). An UPDATE row is the before image then the after image.
//!
//! Images, as MariaDB's `mark_columns_per_binlog_row_image`, with the statement's
//! write set W (the columns it assigns, stored generated columns it recomputes
//! included; virtual columns never):
//! - a table without a primary key (nor a UNIQUE NOT NULL key standing in,
//!   [`super::table_map::primary_key`]): every column, before and after, whatever
//!   the setting;
//! - FULL: every column (virtual ones too);
//! - NOBLOB: before = the non-BLOB/TEXT columns and the key columns; after (and an
//!   INSERT's image) = the non-BLOB/TEXT columns and W;
//! - MINIMAL: before = the key columns; after (and an INSERT's image) = W. A
//!   sequence's table (option `SEQUENCE=1`, no key) logs W too, as MariaDB's
//!   sequence engine does (W = `next_not_cached_value`, `cycle_count`).
//!
//! W is given by the caller ([`super::EventWriter::rows_with_write_set`]); without
//! it an INSERT's W is every column and an UPDATE's is the union over the
//! statement's rows of the non-virtual columns whose value differs.
//!
//! A statement's rows are split as MariaDB splits them: a row goes to a new event
//! when the current one holds rows and its data size (8 + packed width + bitmaps +
//! rows) plus the row would pass [`super::ROWS_EVENT_MAX_SIZE`].

use super::table_map::{bitmap, primary_key};
use super::{pack, put_packed, types, ROWS_EVENT_MAX_SIZE};
use basalt_common::{Row, TableDef, Value};

/// `STMT_END_F`.
pub(crate) const STMT_END_F: u16 = 1;
/// The fixed part of a V1 rows event body: table id and flags.
const ROWS_HEADER_LEN: usize = 8;

/// `binlog_row_image`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RowImage {
    #[default]
    Full,
    NoBlob,
    Minimal,
}

/// One row change of a statement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RowChange<'a> {
    Insert(&'a Row),
    /// Before, after.
    Update(&'a Row, &'a Row),
    Delete(&'a Row),
}

impl RowChange<'_> {
    fn type_code(&self) -> u8 {
        match self {
            RowChange::Insert(_) => types::WRITE_ROWS_V1,
            RowChange::Update(..) => types::UPDATE_ROWS_V1,
            RowChange::Delete(_) => types::DELETE_ROWS_V1,
        }
    }
}

/// One encoded rows event body.
pub(crate) struct RowsEvent {
    pub type_code: u8,
    pub body: Vec<u8>,
}

/// The columns of each image.
struct Images {
    before: Vec<bool>,
    after: Vec<bool>,
}

/// The events for `changes`: runs of one kind each, split by size.
pub(crate) fn encode(
    table_id: u64,
    def: &TableDef,
    image: RowImage,
    changes: &[RowChange<'_>],
    write_set: Option<&[bool]>,
    stmt_end: bool,
) -> Vec<RowsEvent> {
    let mut events = Vec::new();
    let mut start = 0;
    while start < changes.len() {
        let code = changes[start].type_code();
        let len = changes[start..]
            .iter()
            .take_while(|c| c.type_code() == code)
            .count();
        let run = &changes[start..start + len];
        let images = images(def, image, run, write_set);
        encode_run(&mut events, table_id, def, &images, run);
        start += len;
    }
    if stmt_end {
        if let Some(last) = events.last_mut() {
            last.body[6..8].copy_from_slice(&STMT_END_F.to_le_bytes());
        }
    }
    events
}

/// The statement's write set: as given, else every column for an INSERT, the
/// changed non-virtual columns for an UPDATE.
fn write_set(def: &TableDef, run: &[RowChange<'_>], given: Option<&[bool]>) -> Vec<bool> {
    let n = def.columns.len();
    if let Some(w) = given {
        return (0..n).map(|i| w.get(i).copied().unwrap_or(false)).collect();
    }
    if matches!(run.first(), Some(RowChange::Insert(_))) {
        return vec![true; n];
    }
    let mut changed = vec![false; n];
    for ch in run {
        if let RowChange::Update(old, new) = ch {
            for (i, flag) in changed.iter_mut().enumerate() {
                *flag |= old.get(i) != new.get(i);
            }
        }
    }
    for (flag, c) in changed.iter_mut().zip(&def.columns) {
        *flag &= c.generated.as_ref().is_none_or(|g| g.stored);
    }
    changed
}

fn images(
    def: &TableDef,
    image: RowImage,
    run: &[RowChange<'_>],
    given: Option<&[bool]>,
) -> Images {
    let n = def.columns.len();
    let all = vec![true; n];
    if image == RowImage::Minimal && is_sequence(def) {
        return Images {
            before: all,
            after: write_set(def, run, given),
        };
    }
    let pk = primary_key(def);
    let Some(pk) = pk.filter(|_| image != RowImage::Full) else {
        return Images {
            before: all.clone(),
            after: all,
        };
    };
    let mut key = vec![false; n];
    for c in pk.column_ordinals().filter(|c| *c < n) {
        key[c] = true;
    }
    let written = write_set(def, run, given);
    let not_lob = |i: usize| !def.columns[i].data_type.is_lob();
    match image {
        RowImage::NoBlob => Images {
            before: (0..n).map(|i| key[i] || not_lob(i)).collect(),
            after: (0..n).map(|i| written[i] || not_lob(i)).collect(),
        },
        _ => Images {
            before: key,
            after: written,
        },
    }
}

/// Whether `def` is a sequence's table (table option `SEQUENCE=1`): MariaDB's
/// sequence engine has MINIMAL log W though the table has no primary key.
fn is_sequence(def: &TableDef) -> bool {
    def.options.iter().any(|(k, v)| k == "SEQUENCE" && v == "1")
}

/// Appends the events of one run of changes of one kind.
fn encode_run(
    events: &mut Vec<RowsEvent>,
    table_id: u64,
    def: &TableDef,
    images: &Images,
    run: &[RowChange<'_>],
) {
    let Some(first) = run.first() else {
        return;
    };
    let code = first.type_code();
    let mut head = Vec::with_capacity(32);
    head.extend_from_slice(&table_id.to_le_bytes()[..6]);
    head.extend_from_slice(&0u16.to_le_bytes());
    put_packed(&mut head, def.columns.len() as u64);
    match first {
        RowChange::Insert(_) => head.extend(bitmap(images.after.iter().copied())),
        RowChange::Delete(_) => head.extend(bitmap(images.before.iter().copied())),
        RowChange::Update(..) => {
            head.extend(bitmap(images.before.iter().copied()));
            head.extend(bitmap(images.after.iter().copied()));
        }
    }
    debug_assert!(head.len() >= ROWS_HEADER_LEN);
    let mut body = head.clone();
    let mut has_rows = false;
    let mut row = Vec::new();
    for ch in run {
        row.clear();
        match ch {
            RowChange::Insert(r) => pack_row(def, &images.after, r, &mut row),
            RowChange::Delete(r) => pack_row(def, &images.before, r, &mut row),
            RowChange::Update(old, new) => {
                pack_row(def, &images.before, old, &mut row);
                pack_row(def, &images.after, new, &mut row);
            }
        }
        if has_rows && body.len() + row.len() > ROWS_EVENT_MAX_SIZE {
            let full = std::mem::replace(&mut body, head.clone());
            events.push(RowsEvent {
                type_code: code,
                body: full,
            });
        }
        body.extend_from_slice(&row);
        has_rows = true;
    }
    events.push(RowsEvent {
        type_code: code,
        body,
    });
}

/// Appends one image of `row`: the NULL bitmap of the present columns, then their
/// non-NULL values.
fn pack_row(def: &TableDef, cols: &[bool], row: &Row, out: &mut Vec<u8>) {
    let present: Vec<usize> = (0..def.columns.len()).filter(|i| cols[*i]).collect();
    let nulls_at = out.len();
    out.extend(std::iter::repeat_n(0xffu8, present.len().div_ceil(8)));
    for (k, &i) in present.iter().enumerate() {
        let v = row.get(i).unwrap_or(&Value::Null);
        if v.is_null() {
            continue;
        }
        out[nulls_at + k / 8] &= !(1 << (k % 8));
        pack::pack(&def.columns[i].data_type, v, out);
    }
}
