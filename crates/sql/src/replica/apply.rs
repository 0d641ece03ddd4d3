//! One rows event applied to the local table inside the caller's transaction.
//!
//! - WRITE: the image's columns converted ([`super::convert`]), the local columns
//!   the image lacks (a MINIMAL image, or a local table with more columns) take
//!   their DEFAULT (a literal, CURRENT_TIMESTAMP, NULL, else the type's implicit
//!   zero), then the row is inserted. A duplicate key is error 1062, or under
//!   [`ApplyOptions::idempotent`] the clashing row is deleted and the insert retried
//!   (the row ends as the primary sent it, as `slave_exec_mode=IDEMPOTENT`).
//! - UPDATE / DELETE: the row is found from the before image by the local primary
//!   key when the image carries all its columns (a point lookup), else by the first
//!   unique key whose columns it carries non-NULL, else by a scan for the first row
//!   equal on every column the image carries. UPDATE overwrites the after image's
//!   columns only (a MINIMAL after image holds the changed ones). A missing row is
//!   error 1032, or skipped when idempotent.
//!
//! Primary columns past the local table's width are ignored; every read locks the
//! row exclusively. An event applies whole or not at all: a failing row rolls the
//! transaction back to a savepoint taken at the event's start (the caller decides
//! about the transaction). Row changes go through [`basalt_storage::Table`], so no
//! trigger fires and no foreign key is checked; the transaction's binary-log
//! capture is paused while applying unless [`ApplyOptions::log_updates`] is set
//! (the caller then set the capture, with its own server id and GTID, on the
//! transaction).

use super::convert::{check_column, convert, ColumnAt};
use super::{key_not_found, ApplyError};
use basalt_common::{ColumnDef, DefaultValue, IndexKind, MySqlError, Row, TableDef};
use basalt_common::{DateTime, Value};
use basalt_replication::replica::decode::{Image, RowEvent, RowsEvent, RowsKind, TableMap};
use basalt_storage::{
    Fetched, KeyRange, LockMode, ScanRequest, Storage, StorageError, Table, Txn, WaitPolicy,
};
use std::sync::Arc;

/// How rows apply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ApplyOptions {
    /// `slave_exec_mode=IDEMPOTENT`: a row already there is overwritten, a missing
    /// one skipped.
    pub idempotent: bool,
    /// `log_slave_updates`: the changes go to the transaction's binary-log capture.
    pub log_updates: bool,
}

/// What the applier did (for status counters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ApplyCounts {
    pub inserted: u64,
    pub updated: u64,
    pub deleted: u64,
    /// Rows passed over in idempotent mode (already there, or missing).
    pub skipped: u64,
    pub events: u64,
}

/// The local table an event applies to, with its column checks done.
struct Target<'a> {
    map: &'a TableMap,
    table: Arc<dyn Table>,
    def: Arc<TableDef>,
    kind: RowsKind,
}

impl Target<'_> {
    fn at(&self, ordinal: usize) -> ColumnAt<'_> {
        ColumnAt {
            ordinal,
            schema: &self.map.schema,
            table: &self.map.table,
        }
    }

    fn row_err(&self, error: MySqlError, handler: Option<&'static str>) -> ApplyError {
        ApplyError::Row {
            kind: self.kind,
            schema: self.map.schema.clone(),
            table: self.map.table.clone(),
            error,
            handler,
        }
    }

    fn storage_err(&self, e: StorageError) -> ApplyError {
        let handler = match e {
            StorageError::DuplicateKey { .. } => Some("HA_ERR_FOUND_DUPP_KEY"),
            StorageError::LockWaitTimeout => Some("HA_ERR_LOCK_WAIT_TIMEOUT"),
            StorageError::Deadlock => Some("HA_ERR_LOCK_DEADLOCK"),
            _ => None,
        };
        self.row_err(e.into(), handler)
    }

    /// The local columns an image's values go to: (local ordinal, value).
    fn values(&self, image: &Image) -> Result<Vec<(usize, Value)>, ApplyError> {
        let mut out = Vec::new();
        for (i, (v, col)) in image.iter().zip(&self.def.columns).enumerate() {
            let Some(v) = v else { continue };
            let src = &self.map.columns[i];
            out.push((i, convert(self.at(i), src, v, &col.data_type)?));
        }
        Ok(out)
    }
}

/// Applies `ev` (decoded against `map`) inside `txn`, adding to `counts`.
pub fn apply_rows(
    storage: &Storage,
    txn: &mut Txn,
    map: &TableMap,
    ev: &RowsEvent,
    opts: ApplyOptions,
    counts: &mut ApplyCounts,
) -> Result<(), ApplyError> {
    apply_rows_skipping(storage, txn, map, ev, opts, counts, &|_| false).map(|_| ())
}

/// [`apply_rows`], passing over the errors `skips` accepts
/// (`slave_skip_errors`): as MariaDB, the rows before the failing one stay, the
/// rest of the event is left out, and the error is returned as `Ok(Some(..))`.
pub fn apply_rows_skipping(
    storage: &Storage,
    txn: &mut Txn,
    map: &TableMap,
    ev: &RowsEvent,
    opts: ApplyOptions,
    counts: &mut ApplyCounts,
    skips: &dyn Fn(u16) -> bool,
) -> Result<Option<ApplyError>, ApplyError> {
    let t = match target(storage, map, ev.kind) {
        Ok(t) => t,
        Err(e) if skips(e.code()) => return Ok(Some(e)),
        Err(e) => return Err(e),
    };
    let pause = !opts.log_updates;
    if pause {
        txn.pause_capture(true);
    }
    let sp = txn.savepoint();
    let mut local = ApplyCounts::default();
    let res = ev
        .rows
        .iter()
        .try_for_each(|row| apply_row(&t, txn, row, opts, &mut local));
    let out = match res {
        Err(e) if !skips(e.code()) => {
            // The event's partial changes go; the caller's error is the one to report.
            let _ = txn.rollback_to(&sp);
            Err(e)
        }
        res => {
            counts.inserted += local.inserted;
            counts.updated += local.updated;
            counts.deleted += local.deleted;
            counts.skipped += local.skipped;
            counts.events += 1;
            Ok(res.err())
        }
    };
    if pause {
        txn.pause_capture(false);
    }
    out
}

/// Opens the event's table and checks each column's type.
fn target<'a>(
    storage: &Storage,
    map: &'a TableMap,
    kind: RowsKind,
) -> Result<Target<'a>, ApplyError> {
    let Some(table) = storage.table(&map.schema, &map.table) else {
        return Err(ApplyError::Row {
            kind,
            schema: map.schema.clone(),
            table: map.table.clone(),
            error: MySqlError::no_such_table(&map.schema, &map.table),
            handler: None,
        });
    };
    let def = table.def();
    let t = Target {
        map,
        table,
        def,
        kind,
    };
    for (i, (src, col)) in map.columns.iter().zip(&t.def.columns).enumerate() {
        check_column(t.at(i), src, &col.data_type)?;
    }
    Ok(t)
}

fn apply_row(
    t: &Target<'_>,
    txn: &mut Txn,
    row: &RowEvent,
    opts: ApplyOptions,
    counts: &mut ApplyCounts,
) -> Result<(), ApplyError> {
    match row {
        RowEvent::Insert(image) => insert(t, txn, image, opts, counts),
        RowEvent::Update { before, after } => {
            let Some(found) = find(t, txn, before)? else {
                return missing(t, opts, counts);
            };
            let mut new = found.row.clone();
            for (i, v) in t.values(after)? {
                new[i] = v;
            }
            match t.table.update(txn, &found.handle, &found.row, new) {
                Ok(_) => counts.updated += 1,
                Err(StorageError::DuplicateKey { .. }) if opts.idempotent => counts.skipped += 1,
                Err(e) => return Err(t.storage_err(e)),
            }
            Ok(())
        }
        RowEvent::Delete(before) => {
            let Some(found) = find(t, txn, before)? else {
                return missing(t, opts, counts);
            };
            t.table
                .delete(txn, &found.handle, &found.row)
                .map_err(|e| t.storage_err(e))?;
            counts.deleted += 1;
            Ok(())
        }
    }
}

/// A row of UPDATE/DELETE that is not there: 1032, or skipped when idempotent.
fn missing(t: &Target<'_>, opts: ApplyOptions, counts: &mut ApplyCounts) -> Result<(), ApplyError> {
    if opts.idempotent {
        counts.skipped += 1;
        return Ok(());
    }
    let handler = if t.def.has_hidden_pk() {
        "HA_ERR_END_OF_FILE"
    } else {
        "HA_ERR_KEY_NOT_FOUND"
    };
    Err(t.row_err(key_not_found(&t.map.table), Some(handler)))
}

fn insert(
    t: &Target<'_>,
    txn: &mut Txn,
    image: &Image,
    opts: ApplyOptions,
    counts: &mut ApplyCounts,
) -> Result<(), ApplyError> {
    let row = full_row(t, image)?;
    if let Some(ai) = t.def.auto_increment_column() {
        match &row[ai] {
            Value::Int(i) if *i > 0 => t.table.observe_auto_increment(*i as u64),
            Value::UInt(u) => t.table.observe_auto_increment(*u),
            _ => {}
        }
    }
    for _attempt in 0..=t.def.indexes.len() {
        let key = match t.table.insert(txn, row.clone()) {
            Ok(_) => {
                counts.inserted += 1;
                return Ok(());
            }
            Err(StorageError::DuplicateKey { key, .. }) if opts.idempotent => key,
            Err(e) => return Err(t.storage_err(e)),
        };
        let Some(old) = conflict(t, txn, &key, &row)? else {
            return Err(t.row_err(MySqlError::internal(format!("unknown key {key}")), None));
        };
        t.table
            .delete(txn, &old.handle, &old.row)
            .map_err(|e| t.storage_err(e))?;
        counts.skipped += 1;
    }
    Err(t.row_err(
        MySqlError::internal("idempotent insert did not converge"),
        None,
    ))
}

/// The inserted row over every local column.
fn full_row(t: &Target<'_>, image: &Image) -> Result<Row, ApplyError> {
    let mut row: Vec<Option<Value>> = vec![None; t.def.columns.len()];
    for (i, v) in t.values(image)? {
        row[i] = Some(v);
    }
    Ok(row
        .into_iter()
        .zip(&t.def.columns)
        .map(|(v, col)| v.unwrap_or_else(|| default_of(col)))
        .collect())
}

/// A column's value when the image does not carry it.
fn default_of(col: &ColumnDef) -> Value {
    match &col.default {
        Some(DefaultValue::Literal(v)) => v.clone(),
        Some(DefaultValue::CurrentTimestamp) => now_utc(col.data_type.fsp()),
        _ if col.nullable => Value::Null,
        _ => crate::exec::insert::implicit_default(col),
    }
}

fn now_utc(fsp: u8) -> Value {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let unit = 10u32.pow(6 - fsp.min(6) as u32);
    let micro = d.subsec_micros();
    Value::DateTime(DateTime::from_unix_seconds(
        d.as_secs() as i64,
        micro - micro % unit,
    ))
}

/// The existing row that clashes with `row` on index `key`.
fn conflict(
    t: &Target<'_>,
    txn: &mut Txn,
    key: &str,
    row: &Row,
) -> Result<Option<Fetched>, ApplyError> {
    let Some(idx) = t
        .def
        .indexes
        .iter()
        .find(|i| i.name.eq_ignore_ascii_case(key) && !i.columns.is_empty())
    else {
        return Ok(None);
    };
    let vals: Vec<Value> = idx.columns.iter().map(|c| row[c.column].clone()).collect();
    if idx.kind == IndexKind::Primary {
        return get(t, txn, &vals);
    }
    first_in(t, txn, idx.id, KeyRange::eq(vals), &[])
}

fn get(t: &Target<'_>, txn: &mut Txn, pk: &[Value]) -> Result<Option<Fetched>, ApplyError> {
    t.table
        .get(txn, pk, LockMode::Exclusive, WaitPolicy::Wait)
        .map_err(|e| t.storage_err(e))
}

/// The first row of `range` on index `index_id` equal to `want` on its columns.
fn first_in(
    t: &Target<'_>,
    txn: &mut Txn,
    index_id: u32,
    range: KeyRange,
    want: &[(usize, Value)],
) -> Result<Option<Fetched>, ApplyError> {
    let req = ScanRequest {
        index_id,
        range,
        reverse: false,
        columns: (0..t.def.columns.len()).collect(),
        lock: LockMode::Exclusive,
        wait: WaitPolicy::Wait,
    };
    let mut cur = t.table.scan(txn, req).map_err(|e| t.storage_err(e))?;
    while let Some(f) = cur.next(txn).map_err(|e| t.storage_err(e))? {
        if want.iter().all(|(i, v)| same(&f.row[*i], v)) {
            return Ok(Some(f));
        }
    }
    Ok(None)
}

/// Record equality as MariaDB's `record_compare`: the stored forms alike.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Double(x), Value::Double(y)) => x.to_bits() == y.to_bits() || x == y,
        _ => a == b,
    }
}

/// The row a before image names (see the module doc for the order of tries).
fn find(t: &Target<'_>, txn: &mut Txn, before: &Image) -> Result<Option<Fetched>, ApplyError> {
    let want = t.values(before)?;
    let value_of = |c: usize| want.iter().find(|(i, _)| *i == c).map(|(_, v)| v.clone());
    for idx in t
        .def
        .indexes
        .iter()
        .filter(|i| i.is_unique() && !i.columns.is_empty())
    {
        let key: Option<Vec<Value>> = idx.columns.iter().map(|c| value_of(c.column)).collect();
        let Some(key) = key else { continue };
        if idx.kind == IndexKind::Primary {
            return get(t, txn, &key);
        }
        if key.iter().any(Value::is_null) || idx.columns.iter().any(|c| c.prefix_len.is_some()) {
            continue;
        }
        return first_in(t, txn, idx.id, KeyRange::eq(key), &want);
    }
    let clustered = t.def.primary().id;
    first_in(t, txn, clustered, KeyRange::all(), &want)
}
