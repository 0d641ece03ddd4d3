//! FOREIGN KEY enforcement in the per-row write path, as InnoDB does it.
//!
//! Every statement that writes rows (INSERT, REPLACE, INSERT ... ON DUPLICATE KEY
//! UPDATE, LOAD DATA, UPDATE, DELETE, single- or multi-table) calls these hooks
//! around each storage write of a row:
//!
//! - [`after_insert`] / the child half of [`after_update`]: each constraint of the
//!   written (child) table whose columns are all non-NULL must find its parent row.
//!   The parent row is read with a shared lock, as InnoDB does, so no concurrent
//!   transaction can delete it or change its key before this one ends; a missing
//!   parent is 1452. The check runs after the write, so a row may reference itself.
//! - [`delete_row`] / [`before_update`] + [`after_update`] on a parent: before the
//!   write, children of a RESTRICT / NO ACTION constraint that match the old key
//!   make it 1451 (the scan takes shared locks on them, and waits for a concurrent
//!   transaction that inserted one); after the write, CASCADE deletes or updates the
//!   matching children and SET NULL clears their columns, each with exclusive row
//!   locks and recursively through the children's own constraints.
//!
//! All locks are ordinary row locks of the transaction, so FK checks wait, time out
//! (1205) and take part in deadlock detection like any other locking read.
//!
//! Limits, as InnoDB's: a cascade 15 levels deep fails with 1296 (error 193); a
//! cascaded update (CASCADE or SET NULL) of a table that an enclosing level of the
//! same chain updates fails with 1451 (InnoDB refuses cyclic cascaded updates).
//! `foreign_key_checks=0` turns every check and action off.
//!
//! Cost: a table without constraints, that no constraint references, pays one test
//! of `foreign_keys.is_empty()` per insert and two atomic loads per update or delete
//! while the catalog has no foreign keys at all.
//!
//! Invariant: rows a statement collected before writing may have been changed or
//! deleted by its own cascades (a self-referencing table); [`Cascaded::refresh`]
//! gives the caller their current state before it writes them.

use super::mem::MemBudget;
use super::scan::R;
use super::{storage_err, Exec};
use basalt_common::{FkAction, ForeignKeyDef, MySqlError, Row, TableDef, TableId, Value};
use basalt_storage::{
    ChildRef, Fetched, ForeignKeyIndex, KeyRange, LockMode, RowHandle, ScanRequest, Table, Txn,
    WaitPolicy,
};
use std::collections::HashMap;
use std::sync::Arc;

/// InnoDB's `FK_MAX_CASCADE_DEL`.
const MAX_CASCADE: u32 = 15;

/// A table a statement or a cascade writes.
#[derive(Clone, Copy)]
pub struct Target<'a> {
    pub db: &'a str,
    pub table: &'a Arc<dyn Table>,
    pub def: &'a TableDef,
}

/// Rows a statement's cascades changed (new handle and values) or deleted (None).
#[derive(Default)]
pub struct Cascaded {
    rows: HashMap<(TableId, RowHandle), Option<(RowHandle, Row)>>,
}

impl Cascaded {
    /// Brings a row the statement collected before writing up to date with what
    /// its cascades did; false when a cascade deleted it.
    pub fn refresh(&self, table: TableId, handle: &mut RowHandle, row: &mut Row) -> bool {
        if self.rows.is_empty() {
            return true;
        }
        match self.rows.get(&(table, handle.clone())) {
            None => true,
            Some(None) => false,
            Some(Some((h, r))) => {
                *handle = h.clone();
                *row = r.clone();
                true
            }
        }
    }

    fn note(&mut self, table: TableId, old: &RowHandle, now: Option<(RowHandle, Row)>) {
        self.rows.insert((table, old.clone()), now);
    }
}

/// The cascade chain a write happens in.
#[derive(Clone, Default)]
struct Chain {
    depth: u32,
    /// Tables an enclosing level updates.
    updating: Vec<TableId>,
}

fn checks_on(ex: &Exec) -> bool {
    ex.ctx.cx.var_bool("foreign_key_checks")
}

/// The constraints that reference `t`, when any do and checks are on.
fn children_of(t: &Target, ex: &Exec) -> Option<Arc<ForeignKeyIndex>> {
    let index = ex.ctx.cx.engine.storage.foreign_keys()?;
    if index.children(t.db, &t.def.name).is_empty() || !checks_on(ex) {
        return None;
    }
    Some(index)
}

fn constraint_text(db: &str, table: &str, fk: &ForeignKeyDef) -> String {
    format!(
        "`{db}`.`{table}`, CONSTRAINT `{}` {}",
        fk.name.replace('`', "``"),
        fk.clause(db)
    )
}

/// 1452 for the child `db`.`table`.
fn no_parent(db: &str, table: &str, fk: &ForeignKeyDef) -> MySqlError {
    MySqlError::new(
        1452,
        "23000",
        format!(
            "Cannot add or update a child row: a foreign key constraint fails ({})",
            constraint_text(db, table, fk)
        ),
    )
}

/// 1451 naming the child's constraint.
fn has_children(c: &ChildRef) -> MySqlError {
    MySqlError::new(
        1451,
        "23000",
        format!(
            "Cannot delete or update a parent row: a foreign key constraint fails ({})",
            constraint_text(&c.def.schema, &c.def.name, c.foreign_key())
        ),
    )
}

fn too_deep(c: &ChildRef) -> MySqlError {
    MySqlError::new(
        1296,
        "HY000",
        format!(
            "Got error 193 '{}' from InnoDB",
            constraint_text(&c.def.schema, &c.def.name, c.foreign_key())
        ),
    )
}

fn values(row: &Row, cols: &[usize]) -> Vec<Value> {
    cols.iter().map(|&c| row[c].clone()).collect()
}

fn ordinals(names: &[String], def: &TableDef) -> Option<Vec<usize>> {
    crate::bind::foreign_key::ordinals(names, def)
}

/// The index whose leading columns are `cols` (the clustered one first).
fn index_on(def: &TableDef, cols: &[usize]) -> Option<u32> {
    def.indexes
        .iter()
        .find(|i| {
            i.columns.len() >= cols.len()
                && i.columns
                    .iter()
                    .zip(cols)
                    .all(|(k, c)| k.column == *c && k.prefix_len.is_none())
        })
        .map(|i| i.id)
}

/// True when writes of `t` may need these hooks' work after the write (the
/// caller then keeps the new row for [`after_update`]).
pub fn involved(t: &Target, ex: &Exec) -> bool {
    !t.def.foreign_keys.is_empty() || ex.ctx.cx.engine.storage.foreign_keys().is_some()
}

/// After a row was inserted into `t`: every constraint of `t` finds its parent.
pub fn after_insert(t: &Target, row: &Row, ex: &mut Exec) -> R<()> {
    if t.def.foreign_keys.is_empty() || !checks_on(ex) {
        return Ok(());
    }
    for fk in &t.def.foreign_keys {
        check_parent(t, fk, row, ex)?;
    }
    Ok(())
}

/// 1452 unless the parent row of `fk` for `row` exists (read with a shared lock).
fn check_parent(t: &Target, fk: &ForeignKeyDef, row: &Row, ex: &mut Exec) -> R<()> {
    let cols = ordinals(&fk.columns, t.def)
        .ok_or_else(|| MySqlError::internal("foreign key column missing"))?;
    let key = values(row, &cols);
    if key.iter().any(Value::is_null) {
        return Ok(());
    }
    let storage = ex.ctx.cx.engine.storage.clone();
    let Some(parent) = storage.table(&fk.parent_schema, &fk.parent_table) else {
        return Err(no_parent(t.db, &t.def.name, fk));
    };
    let pdef = parent.def();
    let found = match ordinals(&fk.parent_columns, &pdef) {
        Some(pcols) => first_match(&parent, &pdef, &pcols, key, LockMode::Shared, ex)?.is_some(),
        None => false,
    };
    if found {
        Ok(())
    } else {
        Err(no_parent(t.db, &t.def.name, fk))
    }
}

/// The transaction and memory budget of the statement.
fn parts<'e>(ex: &'e mut Exec) -> R<(&'e mut Txn, &'e mut MemBudget)> {
    let ctx = &mut *ex.ctx;
    let txn = ctx
        .txn
        .as_deref_mut()
        .ok_or_else(|| MySqlError::internal("statement needs a transaction"))?;
    Ok((txn, &mut ctx.mem))
}

/// The first row of `table` whose columns `cols` equal `key`, locked in `lock`.
fn first_match(
    table: &Arc<dyn Table>,
    def: &TableDef,
    cols: &[usize],
    key: Vec<Value>,
    lock: LockMode,
    ex: &mut Exec,
) -> R<Option<Fetched>> {
    let (txn, mem) = parts(ex)?;
    first_in(table, def, cols, key, lock, txn, mem)
}

fn first_in(
    table: &Arc<dyn Table>,
    def: &TableDef,
    cols: &[usize],
    key: Vec<Value>,
    lock: LockMode,
    txn: &mut Txn,
    mem: &mut MemBudget,
) -> R<Option<Fetched>> {
    let primary: Vec<usize> = def.primary().column_ordinals().collect();
    if primary == cols {
        return table
            .get(txn, &key, lock, WaitPolicy::Wait)
            .map_err(storage_err);
    }
    let mut all = scan_eq(table, def, cols, key, lock, true, txn, mem)?;
    Ok(all.pop())
}

/// Rows of `table` whose columns `cols` equal `key`, locked in `lock`.
fn matching(
    table: &Arc<dyn Table>,
    def: &TableDef,
    cols: &[usize],
    key: Vec<Value>,
    lock: LockMode,
    ex: &mut Exec,
) -> R<Vec<Fetched>> {
    let (txn, mem) = parts(ex)?;
    scan_eq(table, def, cols, key, lock, false, txn, mem)
}

/// Rows of `table` whose columns `cols` equal `key` (at most one when `one`),
/// through an index that starts with them, else by a filtered full scan.
#[allow(clippy::too_many_arguments)]
fn scan_eq(
    table: &Arc<dyn Table>,
    def: &TableDef,
    cols: &[usize],
    key: Vec<Value>,
    lock: LockMode,
    one: bool,
    txn: &mut Txn,
    mem: &mut MemBudget,
) -> R<Vec<Fetched>> {
    let (index_id, range, filter) = match index_on(def, cols) {
        Some(id) => (id, KeyRange::eq(key.clone()), false),
        None => (def.indexes[0].id, KeyRange::all(), true),
    };
    let req = ScanRequest {
        index_id,
        range,
        reverse: false,
        columns: (0..def.columns.len()).collect(),
        lock,
        wait: WaitPolicy::Wait,
    };
    let mut cur = table.scan(txn, req).map_err(storage_err)?;
    let mut out = Vec::new();
    while let Some(f) = cur.next(txn).map_err(storage_err)? {
        if filter && values(&f.row, cols) != key {
            continue;
        }
        if one {
            out.push(f);
            break;
        }
        mem.charge(super::mem::row_bytes(&f.row) + f.handle.0.len())?;
        out.push(f);
    }
    Ok(out)
}

/// For ALTER TABLE ... ADD FOREIGN KEY: 1452 unless the existing row `row` of the
/// child `child` finds its parent (a consistent read in `txn`). A self-reference
/// is checked against the rows as stored before the ALTER.
pub fn check_existing_row(
    storage: &basalt_storage::Storage,
    child: &TableDef,
    fk: &ForeignKeyDef,
    row: &Row,
    txn: &mut Txn,
    mem: &mut MemBudget,
) -> R<()> {
    let cols = ordinals(&fk.columns, child)
        .ok_or_else(|| MySqlError::internal("foreign key column missing"))?;
    let key = values(row, &cols);
    if key.iter().any(Value::is_null) {
        return Ok(());
    }
    let missing = || no_parent(&child.schema, &child.name, fk);
    let parent = storage
        .table(&fk.parent_schema, &fk.parent_table)
        .ok_or_else(missing)?;
    let pdef = parent.def();
    let pcols = ordinals(&fk.parent_columns, &pdef).ok_or_else(missing)?;
    match first_in(&parent, &pdef, &pcols, key, LockMode::Consistent, txn, mem)? {
        Some(_) => Ok(()),
        None => Err(missing()),
    }
}

/// The children of `c` that reference `parent_row` of `parent`: None when the
/// parent key has a NULL (nothing can match it).
fn child_key(
    c: &ChildRef,
    parent: &TableDef,
    parent_row: &Row,
) -> Option<(Vec<usize>, Vec<Value>)> {
    let fk = c.foreign_key();
    let pcols = ordinals(&fk.parent_columns, parent)?;
    let key = values(parent_row, &pcols);
    if key.iter().any(Value::is_null) {
        return None;
    }
    let cols = ordinals(&fk.columns, &c.def)?;
    Some((cols, key))
}

/// Deletes the row `handle` (values `row`) of `t` with its constraints enforced:
/// 1451 when RESTRICT children exist, else the delete and its cascades.
pub fn delete_row(
    t: &Target,
    handle: &RowHandle,
    row: &Row,
    cas: &mut Cascaded,
    ex: &mut Exec,
) -> R<()> {
    delete_in(t, handle, row, cas, &Chain::default(), ex)
}

fn delete_in(
    t: &Target,
    handle: &RowHandle,
    row: &Row,
    cas: &mut Cascaded,
    chain: &Chain,
    ex: &mut Exec,
) -> R<()> {
    let index = children_of(t, ex);
    if let Some(index) = &index {
        restrict(t, index, row, None, ex, |fk| fk.on_delete)?;
    }
    // A replica's engine repeats cascades itself: they stay out of the binary log.
    let cascaded = chain.depth > 0;
    let txn = ex.txn()?;
    if cascaded {
        txn.pause_capture(true);
    }
    let r = t.table.delete(txn, handle, row);
    if cascaded {
        txn.pause_capture(false);
    }
    r.map_err(storage_err)?;
    ex.count_change(t.def, super::Change::Delete);
    if chain.depth > 0 {
        cas.note(t.def.id, handle, None);
    }
    if let Some(index) = index {
        for c in index.children(t.db, &t.def.name) {
            let action = c.foreign_key().on_delete;
            if matches!(action, FkAction::Cascade | FkAction::SetNull) {
                cascade(t, c, row, None, action, cas, chain, ex)?;
            }
        }
    }
    Ok(())
}

/// 1451 when a child whose constraint's action (`which`) is RESTRICT / NO ACTION
/// references the key `old` has; for an update (`new`), only constraints whose
/// parent columns change.
fn restrict(
    t: &Target,
    index: &ForeignKeyIndex,
    old: &Row,
    new: Option<&Row>,
    ex: &mut Exec,
    which: impl Fn(&ForeignKeyDef) -> FkAction,
) -> R<()> {
    for c in index.children(t.db, &t.def.name) {
        let fk = c.foreign_key();
        if !matches!(which(fk), FkAction::Restrict | FkAction::NoAction) {
            continue;
        }
        if new.is_some_and(|n| !key_changed(fk, t.def, old, n)) {
            continue;
        }
        let Some((cols, key)) = child_key(c, t.def, old) else {
            continue;
        };
        if first_match(&c.table, &c.def, &cols, key, LockMode::Shared, ex)?.is_some() {
            return Err(has_children(c));
        }
    }
    Ok(())
}

fn key_changed(fk: &ForeignKeyDef, parent: &TableDef, old: &Row, new: &Row) -> bool {
    match ordinals(&fk.parent_columns, parent) {
        Some(cols) => cols.iter().any(|&c| old[c] != new[c]),
        None => false,
    }
}

/// Before the row `old` of `t` becomes `new`: 1451 when a RESTRICT child references
/// a key the update changes.
pub fn before_update(t: &Target, old: &Row, new: &Row, ex: &mut Exec) -> R<()> {
    if let Some(index) = children_of(t, ex) {
        restrict(t, &index, old, Some(new), ex, |fk| fk.on_update)?;
    }
    Ok(())
}

/// After the row `old` of `t` became `new`: the constraints of `t` whose columns
/// changed find their parents, and children of changed keys cascade.
pub fn after_update(t: &Target, old: &Row, new: &Row, cas: &mut Cascaded, ex: &mut Exec) -> R<()> {
    let chain = Chain {
        depth: 0,
        updating: vec![t.def.id],
    };
    after_update_in(t, old, new, true, cas, &chain, ex)
}

#[allow(clippy::too_many_arguments)]
fn after_update_in(
    t: &Target,
    old: &Row,
    new: &Row,
    check_own: bool,
    cas: &mut Cascaded,
    chain: &Chain,
    ex: &mut Exec,
) -> R<()> {
    if check_own && !t.def.foreign_keys.is_empty() && checks_on(ex) {
        for fk in &t.def.foreign_keys {
            let changed = ordinals(&fk.columns, t.def)
                .is_some_and(|cols| cols.iter().any(|&c| old[c] != new[c]));
            if changed {
                check_parent(t, fk, new, ex)?;
            }
        }
    }
    let Some(index) = children_of(t, ex) else {
        return Ok(());
    };
    for c in index.children(t.db, &t.def.name) {
        let fk = c.foreign_key();
        let action = fk.on_update;
        if matches!(action, FkAction::Cascade | FkAction::SetNull)
            && key_changed(fk, t.def, old, new)
        {
            cascade(t, c, old, Some(new), action, cas, chain, ex)?;
        }
    }
    Ok(())
}

/// Applies `action` (CASCADE or SET NULL) to the children of `c` that reference
/// the parent row `old` (deleted, or updated to `new`).
#[allow(clippy::too_many_arguments)]
fn cascade(
    parent: &Target,
    c: &ChildRef,
    old: &Row,
    new: Option<&Row>,
    action: FkAction,
    cas: &mut Cascaded,
    chain: &Chain,
    ex: &mut Exec,
) -> R<()> {
    let Some((cols, key)) = child_key(c, parent.def, old) else {
        return Ok(());
    };
    let rows = matching(&c.table, &c.def, &cols, key, LockMode::Exclusive, ex)?;
    if rows.is_empty() {
        return Ok(());
    }
    if chain.depth + 1 >= MAX_CASCADE {
        return Err(too_deep(c));
    }
    let child = Target {
        db: &c.def.schema,
        table: &c.table,
        def: &c.def,
    };
    let deletes = new.is_none() && action == FkAction::Cascade;
    if !deletes && chain.updating.contains(&c.def.id) {
        return Err(has_children(c));
    }
    let mut next = chain.clone();
    next.depth += 1;
    if !deletes {
        next.updating.push(c.def.id);
    }
    let pcols = ordinals(&c.foreign_key().parent_columns, parent.def).unwrap_or_default();
    for f in rows {
        ex.check_interrupt()?;
        if deletes {
            delete_in(&child, &f.handle, &f.row, cas, &next, ex)?;
            continue;
        }
        let mut changed = f.row.clone();
        for (i, &cc) in cols.iter().enumerate() {
            changed[cc] = match new {
                Some(n) if action == FkAction::Cascade => n[pcols[i]].clone(),
                _ => Value::Null,
            };
        }
        update_in(&child, &f, changed, cas, &next, ex)?;
    }
    Ok(())
}

/// A cascaded update of one child row.
fn update_in(
    t: &Target,
    f: &Fetched,
    new: Row,
    cas: &mut Cascaded,
    chain: &Chain,
    ex: &mut Exec,
) -> R<()> {
    if let Some(index) = children_of(t, ex) {
        restrict(t, &index, &f.row, Some(&new), ex, |fk| fk.on_update)?;
    }
    let txn = ex.txn()?;
    txn.pause_capture(true);
    let r = t.table.update(txn, &f.handle, &f.row, new.clone());
    txn.pause_capture(false);
    let handle = r.map_err(storage_err)?;
    ex.count_change(t.def, super::Change::Update);
    cas.note(t.def.id, &f.handle, Some((handle, new.clone())));
    after_update_in(t, &f.row, &new, false, cas, chain, ex)
}

/// ALTER TABLE ... ADD FOREIGN KEY with checks on: every stored row of `table`
/// must satisfy each of `added` (1452 otherwise). Reads a consistent snapshot
/// before the ALTER starts; columns the same ALTER adds are not checked.
pub fn check_existing_rows(
    storage: &Arc<basalt_storage::Storage>,
    table: &Arc<dyn Table>,
    added: &[ForeignKeyDef],
    mem: &mut MemBudget,
) -> R<()> {
    if added.is_empty() {
        return Ok(());
    }
    let def = table.def();
    let checkable: Vec<&ForeignKeyDef> = added
        .iter()
        .filter(|fk| ordinals(&fk.columns, &def).is_some())
        .collect();
    let mut txn = storage.begin(basalt_storage::TxnOptions {
        read_only: true,
        ..Default::default()
    });
    let req = ScanRequest {
        index_id: def.indexes[0].id,
        range: KeyRange::all(),
        reverse: false,
        columns: (0..def.columns.len()).collect(),
        lock: LockMode::Consistent,
        wait: WaitPolicy::Wait,
    };
    let r = (|| {
        let mut cur = table.scan(&mut txn, req).map_err(storage_err)?;
        while let Some(f) = cur.next(&mut txn).map_err(storage_err)? {
            for fk in &checkable {
                check_existing_row(storage, &def, fk, &f.row, &mut txn, mem)?;
            }
        }
        Ok(())
    })();
    txn.rollback().map_err(storage_err)?;
    r
}
