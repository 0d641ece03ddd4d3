//! INSERT / REPLACE execution.
//!
//! Source rows are computed first (all of them, so `INSERT INTO t SELECT .. FROM t`
//! never reads its own new rows), then each row is completed with defaults,
//! converted to the column types, given an AUTO_INCREMENT value when its column is
//! NULL or 0, and inserted. A duplicate key is an error, a warning (IGNORE), an
//! update of the existing row (ON DUPLICATE KEY UPDATE) or a delete-and-retry
//! (REPLACE).
//!
//! RETURNING is evaluated on each row as it ends up in the table (with its
//! AUTO_INCREMENT value, or as ON DUPLICATE KEY UPDATE left the existing row);
//! rows INSERT IGNORE skipped return nothing.

use super::scan::R;
use super::store::{store, Target};
use super::{foreign_key, select, storage_err, Exec};
use crate::plan::{InsertPlan, InsertSource, TableRef};
use crate::session::ctx::Level;
use crate::sp::trigger::{Event, TableTriggers, Timing};
use basalt_common::error::code;
use basalt_common::{
    ColumnDef, DataType, Date, DateTime, DefaultValue, IndexKind, MySqlError, Row, Time, Value,
};
use basalt_storage::{KeyRange, LockMode, RowHandle, ScanRequest, StorageError, WaitPolicy};

pub struct InsertOutcome {
    pub affected: u64,
    /// First AUTO_INCREMENT value generated (what LAST_INSERT_ID() becomes).
    pub last_insert_id: u64,
    /// Last explicit positive value stored into the AUTO_INCREMENT column; the
    /// OK packet reports it when no value was generated (as MariaDB does).
    pub explicit_id: u64,
    pub records: u64,
    pub duplicates: u64,
    /// RETURNING rows, in insertion order.
    pub returned: Vec<Row>,
}

/// A row position: a value given by the statement, or DEFAULT.
pub type SourceRow = Vec<Option<Value>>;

/// AUTO_INCREMENT values reserved for one statement, as InnoDB's "consecutive"
/// lock mode hands them out: a statement whose row count is known reserves that
/// many at once; INSERT ... SELECT reserves 1, 2, 4, ... values at a time. Values
/// reserved but not used are lost, as in MariaDB (which is why ids after an
/// INSERT ... SELECT have gaps).
struct AutoIncRange {
    next: u64,
    end: u64,
    batches: u32,
    estimate: u64,
    /// `SET insert_id = n`: values come from n on (told to the counter as if
    /// given explicitly), as MariaDB does for the statement after the SET.
    forced: Option<u64>,
}

impl AutoIncRange {
    fn take(&mut self, t: &TableRef) -> R<u64> {
        if let Some(n) = self.forced {
            self.forced = Some(n.saturating_add(1));
            t.table.observe_auto_increment(n);
            return Ok(n);
        }
        if self.next >= self.end {
            let count = if self.batches == 0 && self.estimate > 0 {
                self.estimate
            } else {
                (1u64 << self.batches.min(16)).min(65_535)
            };
            self.batches += 1;
            let first = t.table.reserve_auto_increment(count).map_err(storage_err)?;
            self.next = first;
            self.end = first.saturating_add(count);
        }
        let id = self.next;
        self.next += 1;
        Ok(id)
    }
}

pub fn run(plan: &InsertPlan, ex: &mut Exec) -> R<InsertOutcome> {
    if plan.ignore {
        // What strict mode makes an error is a warning under IGNORE.
        ex.ctx.strict_dml = false;
    }
    if !plan.subs.is_empty() {
        super::sub::materialize(&plan.subs, ex)?;
    }
    if let Some(txn) = ex.ctx.txn.as_deref_mut().filter(|t| t.capturing()) {
        if let Some(w) = write_set(plan) {
            txn.capture_write_set(plan.table.def.id, w);
        }
    }
    let source = source_rows(plan, ex)?;
    let multi = source.len() > 1 || matches!(plan.source, InsertSource::Select(_));
    let estimate = match plan.source {
        InsertSource::Values(_) => source.len() as u64,
        InsertSource::Select(_) => 0,
    };
    let mut rows = RowInserter::new(estimate, multi, ex);
    for src in source {
        ex.check_interrupt()?;
        rows.push(plan, src, ex)?;
    }
    Ok(rows.out)
}

/// The statement's write set for the binary log (it decides the MINIMAL and
/// NOBLOB images, as MariaDB's `write_set` does): the columns it gives values
/// (DEFAULT included), the AUTO_INCREMENT column, the columns whose default is
/// computed (CURRENT_TIMESTAMP, an expression) and the stored generated columns.
/// `None` when that is every column.
fn write_set(plan: &InsertPlan) -> Option<std::sync::Arc<[bool]>> {
    let def = &plan.table.def;
    let mut w: Vec<bool> = def
        .columns
        .iter()
        .map(|c| {
            c.auto_increment
                || c.generated.as_ref().is_some_and(|g| g.stored)
                || matches!(
                    c.default,
                    Some(DefaultValue::CurrentTimestamp | DefaultValue::Expr(_))
                )
        })
        .collect();
    for &c in &plan.columns {
        if let Some(f) = w.get_mut(c) {
            *f = true;
        }
    }
    (!w.iter().all(|f| *f)).then(|| w.into())
}

/// Inserts an INSERT plan's rows one at a time: completes, converts and inserts
/// each (LOAD DATA feeds it the rows of a file as they are read).
pub struct RowInserter {
    pub out: InsertOutcome,
    auto: AutoIncRange,
    multi: bool,
    row_no: u64,
}

impl RowInserter {
    /// `estimate`: how many rows the statement inserts, when known (AUTO_INCREMENT
    /// values are reserved for that many at once); `multi`: more than one row, so
    /// that a NULL for a NOT NULL column is a warning outside strict mode.
    pub fn new(estimate: u64, multi: bool, ex: &mut Exec) -> RowInserter {
        let forced = ex.ctx.cx.insert_id.take();
        if forced.is_some() {
            ex.ctx
                .cx
                .vars
                .insert("insert_id", basalt_common::Value::UInt(0));
        }
        RowInserter {
            out: InsertOutcome {
                affected: 0,
                last_insert_id: 0,
                explicit_id: 0,
                records: 0,
                duplicates: 0,
                returned: Vec::new(),
            },
            auto: AutoIncRange {
                next: 0,
                end: 0,
                batches: 0,
                estimate,
                forced,
            },
            multi,
            row_no: 0,
        }
    }

    /// The number of the row [`RowInserter::push`] takes next (1-based), as
    /// warnings name it.
    pub fn next_row_no(&self) -> u64 {
        self.row_no + 1
    }

    /// Completes and inserts one row given for the plan's columns.
    pub fn push(&mut self, plan: &InsertPlan, src: SourceRow, ex: &mut Exec) -> R<()> {
        self.row_no += 1;
        let row = match complete_row(plan, src, self.row_no, self.multi, ex) {
            Ok(r) => r,
            Err(e) if plan.ignore => {
                ex.ctx.cx.warn_err(&e);
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        self.out.records += 1;
        let row = match plan.checks.fires(Event::Insert) {
            Some(trg) => match before_insert(plan, trg, row, self.row_no, self.multi, ex) {
                Ok(r) => r,
                Err(e) if plan.ignore && e.code == code::ER_BAD_NULL_ERROR => {
                    ex.ctx.cx.warn_err(&e);
                    return Ok(());
                }
                Err(e) => return Err(e),
            },
            None => row,
        };
        let stored = insert_one(plan, self.row_no, row, &mut self.out, &mut self.auto, ex)?;
        if let (Some(ret), Some(row)) = (&plan.returning, stored) {
            let values = ret
                .exprs
                .iter()
                .map(|e| e.eval(&row, ex.ctx))
                .collect::<R<Row>>()?;
            self.out.returned.push(values);
        }
        Ok(())
    }
}

fn source_rows(plan: &InsertPlan, ex: &mut Exec) -> R<Vec<SourceRow>> {
    match &plan.source {
        InsertSource::Values(rows) => {
            let mut out = Vec::with_capacity(rows.len());
            for r in rows {
                let mut vals = Vec::with_capacity(r.len());
                for e in r {
                    vals.push(match e {
                        Some(e) => Some(e.eval(&[], ex.ctx)?),
                        None => None,
                    });
                }
                out.push(vals);
            }
            Ok(out)
        }
        InsertSource::Select(sel) => {
            // Conversions by the selected columns' types (as VALUES get them bound).
            let def = &plan.table.def;
            let conv: Vec<(usize, crate::expr::CastTarget)> = sel
                .types
                .iter()
                .zip(&plan.columns)
                .enumerate()
                .filter_map(|(j, (t, &ci))| {
                    crate::bind::strings::column_conversion(t, &def.columns[ci]).map(|c| (j, c))
                })
                .collect();
            let rows = select::run(sel, ex)?.rows;
            let mut out = Vec::with_capacity(rows.len());
            for mut r in rows {
                for (j, c) in &conv {
                    if let Some(v) = r.get_mut(*j) {
                        *v = crate::expr::cast::cast(std::mem::take(v), c, ex.ctx)?;
                    }
                }
                out.push(r.into_iter().map(Some).collect());
            }
            Ok(out)
        }
    }
}

/// Runs the BEFORE INSERT triggers on a completed row: they see its generated
/// columns and 0 for an AUTO_INCREMENT value still to come; a NULL they leave
/// in a NOT NULL column is 1048 (strict, or a single row) or the type's zero
/// with a warning.
fn before_insert(
    plan: &InsertPlan,
    trg: &TableTriggers,
    mut row: Row,
    row_no: u64,
    multi: bool,
    ex: &mut Exec,
) -> R<Row> {
    generate(plan, &mut row, row_no, ex)?;
    let ai = plan
        .table
        .def
        .auto_increment_column()
        .filter(|&i| row[i].is_null());
    if let Some(i) = ai {
        row[i] = Value::Int(0);
    }
    super::trigger::fire(
        trg,
        Event::Insert,
        Timing::Before,
        Some(&mut row),
        None,
        ex.ctx,
    )?;
    if let Some(i) = ai.filter(|&i| matches!(row[i], Value::Int(0))) {
        row[i] = Value::Null;
    }
    let strict = (ex.ctx.cx.mode.strict || !multi) && !plan.ignore;
    super::modify::fill_not_null(&plan.table, &mut row, strict, ex)?;
    Ok(row)
}

/// The zero value MySQL uses for a NOT NULL column without a default in
/// non-strict mode.
pub(crate) fn implicit_default(col: &ColumnDef) -> Value {
    match &col.data_type {
        DataType::Int { unsigned: true, .. } => Value::UInt(0),
        DataType::Int { .. } | DataType::Year => Value::Int(0),
        DataType::Decimal { scale, .. } => Value::Decimal(basalt_common::Decimal::new(0, *scale)),
        DataType::Float | DataType::Double => Value::Double(0.0),
        DataType::Date => Value::Date(Date::default()),
        DataType::DateTime { .. } | DataType::Timestamp { .. } => {
            Value::DateTime(DateTime::default())
        }
        DataType::Time { .. } => Value::Time(Time::default()),
        // An ENUM's first member (as MariaDB fills an added NOT NULL ENUM column);
        // the empty SET.
        DataType::Enum { .. } => crate::exec::store::first_member(&col.data_type)
            .unwrap_or_else(|| basalt_common::enumset::value_of(&col.data_type, 0)),
        DataType::Set { .. } => basalt_common::enumset::value_of(&col.data_type, 0),
        _ => Value::Bytes(Vec::new()),
    }
}

fn default_value(col: &ColumnDef, ex: &mut Exec, strict: bool) -> R<Value> {
    match &col.default {
        Some(DefaultValue::Literal(v)) => Ok(v.clone()),
        Some(DefaultValue::CurrentTimestamp) => {
            Ok(crate::exec::store::current_timestamp(col, ex.ctx.cx))
        }
        // Evaluated once the row's other values are in (`computed::fill_defaults`).
        Some(DefaultValue::Expr(_)) => Ok(Value::Null),
        None if col.nullable || col.auto_increment => Ok(Value::Null),
        None => {
            if let Some(first) = crate::exec::store::first_member(&col.data_type) {
                return Ok(first);
            }
            let e = MySqlError::no_default_for_field(&col.name);
            if strict {
                return Err(e);
            }
            ex.ctx.cx.warn_err(&e);
            Ok(implicit_default(col))
        }
    }
}

fn complete_row(
    plan: &InsertPlan,
    src: SourceRow,
    row_no: u64,
    multi: bool,
    ex: &mut Exec,
) -> R<Row> {
    let def = plan.table.def.clone();
    let strict = ex.ctx.cx.mode.strict && !plan.ignore;
    let mut given: Vec<Option<Option<Value>>> = vec![None; def.columns.len()];
    for (pos, v) in plan.columns.iter().zip(src) {
        given[*pos] = Some(v);
    }
    let mut row = Vec::with_capacity(def.columns.len());
    let mut pending = vec![false; def.columns.len()];
    for (ci, col) in def.columns.iter().enumerate() {
        if col.generated.is_some() {
            if let Some(Some(v)) = given[ci].take() {
                if !v.is_null() {
                    super::computed::written_generated(&def, ci, strict, ex.ctx)?;
                }
            }
            row.push(Value::Null);
            continue;
        }
        let v = match given[ci].take() {
            Some(Some(v)) => v,
            Some(None) | None if matches!(col.default, Some(DefaultValue::Expr(_))) => {
                pending[ci] = true;
                row.push(Value::Null);
                continue;
            }
            // A TIMESTAMP's default is kept as stored (in UTC).
            Some(None) | None if matches!(col.data_type, DataType::Timestamp { .. }) => {
                let v = default_value(col, ex, strict)?;
                if !v.is_null() {
                    row.push(v);
                    continue;
                }
                v
            }
            Some(None) | None => default_value(col, ex, strict)?,
        };
        if v.is_null() {
            if !col.nullable && !col.auto_increment {
                let e = MySqlError::bad_null(&col.name);
                if strict || !multi {
                    return Err(e);
                }
                ex.ctx.cx.warn_err(&e);
                row.push(implicit_default(col));
            } else {
                row.push(Value::Null);
            }
            continue;
        }
        let target = Target {
            db: &plan.table.db,
            table: &def.name,
            col,
            row: row_no,
            strict,
        };
        row.push(store(v, &target, ex.ctx.cx)?);
    }
    if pending.contains(&true) {
        let place = super::computed::Place {
            db: &plan.table.db,
            def: &def,
            row_no,
            strict,
        };
        let computed = plan.checks.computed.clone();
        super::computed::fill_defaults(&computed, &mut row, &pending, &place, ex.ctx)?;
    }
    Ok(row)
}

fn is_auto_zero(v: &Value, no_auto_on_zero: bool) -> bool {
    match v {
        Value::Null => true,
        Value::Int(0) | Value::UInt(0) => !no_auto_on_zero,
        Value::Decimal(d) => d.is_zero() && !no_auto_on_zero,
        Value::Double(d) => *d == 0.0 && !no_auto_on_zero,
        _ => false,
    }
}

fn assign_auto_increment(
    t: &TableRef,
    row: &mut Row,
    out: &mut InsertOutcome,
    auto: &mut AutoIncRange,
    ex: &mut Exec,
) -> R<()> {
    let Some(ai) = t.def.auto_increment_column() else {
        return Ok(());
    };
    if is_auto_zero(&row[ai], ex.ctx.cx.mode.no_auto_value_on_zero) {
        let id = auto.take(t)?;
        let (lo, hi) = match &t.def.columns[ai].data_type {
            DataType::Int { kind, unsigned, .. } => kind.range(*unsigned),
            _ => (i64::MIN as i128, u64::MAX as i128),
        };
        if (id as i128) > hi || (id as i128) < lo {
            return Err(MySqlError::new(
                code::ER_DUP_ENTRY,
                "23000",
                format!("Duplicate entry '{}' for key 'PRIMARY'", hi),
            ));
        }
        row[ai] = if t.def.columns[ai].data_type.is_unsigned() {
            Value::UInt(id)
        } else {
            Value::Int(id as i64)
        };
        if out.last_insert_id == 0 {
            out.last_insert_id = id;
        }
    } else {
        let n = crate::value::to_num(&row[ai]).0.to_i128().unwrap_or(0);
        if n > 0 {
            t.table.observe_auto_increment(n as u64);
            out.explicit_id = u64::try_from(n).unwrap_or(u64::MAX);
        }
    }
    Ok(())
}

/// Inserts one complete row; returns the row the table now holds for it (None
/// when IGNORE skipped it).
/// The generated columns of a row of `plan`'s table.
fn generate(plan: &InsertPlan, row: &mut Row, row_no: u64, ex: &mut Exec) -> R<()> {
    if plan.checks.computed.generated.is_empty() {
        return Ok(());
    }
    let place = super::computed::Place {
        db: &plan.table.db,
        def: &plan.table.def,
        row_no,
        strict: ex.ctx.cx.mode.strict && !plan.ignore,
    };
    super::computed::fill_generated(&plan.checks.computed, row, &place, ex.ctx)
}

fn insert_one(
    plan: &InsertPlan,
    row_no: u64,
    mut row: Row,
    out: &mut InsertOutcome,
    auto: &mut AutoIncRange,
    ex: &mut Exec,
) -> R<Option<Row>> {
    let t = &plan.table;
    assign_auto_increment(t, &mut row, out, auto, ex)?;
    generate(plan, &mut row, row_no, ex)?;
    super::check::verify(&plan.checks, &row, &t.db, &t.def.name, ex)?;
    for _attempt in 0..=t.def.indexes.len() {
        let res = t.table.insert(ex.txn()?, row.clone());
        let (entry, key) = match res {
            Ok(_) => {
                ex.count_change(&t.def, super::Change::Write);
                foreign_key::after_insert(&fk_target(t), &row, ex)?;
                out.affected += 1;
                if let Some(trg) = plan.checks.fires(Event::Insert) {
                    super::trigger::fire(
                        trg,
                        Event::Insert,
                        Timing::After,
                        Some(&mut row),
                        None,
                        ex.ctx,
                    )?;
                }
                return Ok(Some(row));
            }
            Err(StorageError::DuplicateKey { entry, key }) => (entry, key),
            Err(e) => return Err(storage_err(e)),
        };
        if plan.ignore && plan.on_dup.is_empty() && !plan.replace {
            ex.ctx.cx.warn(
                Level::Warning,
                code::ER_DUP_ENTRY,
                MySqlError::dup_entry(&entry, &key).message,
            );
            out.duplicates += 1;
            return Ok(None);
        }
        if !plan.replace && plan.on_dup.is_empty() {
            return Err(MySqlError::dup_entry(&entry, &key));
        }
        let Some((handle, old)) = find_conflict(t, &key, &row, ex)? else {
            return Err(MySqlError::dup_entry(&entry, &key));
        };
        if plan.replace {
            let mut cascaded = foreign_key::Cascaded::default();
            let trg = plan.checks.fires(Event::Delete);
            if let Some(trg) = trg {
                super::trigger::fire(trg, Event::Delete, Timing::Before, None, Some(&old), ex.ctx)?;
            }
            foreign_key::delete_row(&fk_target(t), &handle, &old, &mut cascaded, ex)?;
            if let Some(trg) = trg {
                super::trigger::fire(trg, Event::Delete, Timing::After, None, Some(&old), ex.ctx)?;
            }
            out.affected += 1;
            out.duplicates += 1;
            continue;
        }
        out.duplicates += 1;
        return on_duplicate(plan, handle, old, &row, out, ex);
    }
    Err(MySqlError::internal("REPLACE did not converge"))
}

fn fk_target(t: &TableRef) -> foreign_key::Target<'_> {
    foreign_key::Target {
        db: &t.db,
        table: &t.table,
        def: &t.def,
    }
}

/// The existing row that clashes with `row` on index `key`.
fn find_conflict(t: &TableRef, key: &str, row: &Row, ex: &mut Exec) -> R<Option<(RowHandle, Row)>> {
    let idx = t
        .def
        .indexes
        .iter()
        .find(|i| i.name.eq_ignore_ascii_case(key) && !i.columns.is_empty())
        .ok_or_else(|| MySqlError::internal(format!("unknown key {key}")))?;
    let vals: Vec<Value> = idx.columns.iter().map(|c| row[c.column].clone()).collect();
    let txn = ex.txn()?;
    if idx.kind == IndexKind::Primary {
        let got = t
            .table
            .get(txn, &vals, LockMode::Exclusive, WaitPolicy::Wait)
            .map_err(storage_err)?;
        return Ok(got.map(|f| (f.handle, f.row)));
    }
    let req = ScanRequest {
        index_id: idx.id,
        range: KeyRange::eq(vals),
        reverse: false,
        columns: (0..t.def.columns.len()).collect(),
        lock: LockMode::Exclusive,
        wait: WaitPolicy::Wait,
    };
    let mut cur = t.table.scan(txn, req).map_err(storage_err)?;
    let got = cur.next(txn).map_err(storage_err)?;
    Ok(got.map(|f| (f.handle, f.row)))
}

/// ON DUPLICATE KEY UPDATE of the existing row `old`; returns the row as it is
/// afterwards (unchanged when the assignments change nothing).
fn on_duplicate(
    plan: &InsertPlan,
    handle: RowHandle,
    old: Row,
    inserted: &Row,
    out: &mut InsertOutcome,
    ex: &mut Exec,
) -> R<Option<Row>> {
    let t = &plan.table;
    let n = t.def.columns.len();
    let mut layout: Vec<Value> = Vec::with_capacity(2 * n);
    layout.extend(old.iter().cloned());
    layout.extend(inserted.iter().cloned());
    let strict = ex.ctx.cx.mode.strict && !plan.ignore;
    for (ci, e) in &plan.on_dup {
        let v = e.eval(&layout, ex.ctx)?;
        let col = &t.def.columns[*ci];
        if col.generated.is_some() {
            if !v.is_null() {
                super::computed::written_generated(&t.def, *ci, strict, ex.ctx)?;
            }
            continue;
        }
        let v = if v.is_null() {
            if !col.nullable {
                return Err(MySqlError::bad_null(&col.name));
            }
            Value::Null
        } else {
            let target = Target {
                db: &t.db,
                table: &t.def.name,
                col,
                row: 1,
                strict,
            };
            store(v, &target, ex.ctx.cx)?
        };
        layout[*ci] = v;
    }
    let mut new: Row = layout[..n].to_vec();
    generate(plan, &mut new, 1, ex)?;
    let trg = plan.checks.fires(Event::Update);
    if let Some(trg) = trg {
        super::trigger::fire(
            trg,
            Event::Update,
            Timing::Before,
            Some(&mut new),
            Some(&old),
            ex.ctx,
        )?;
        super::modify::fill_not_null(t, &mut new, strict, ex)?;
        generate(plan, &mut new, 1, ex)?;
    }
    if new == old {
        if let Some(trg) = trg {
            let mut same = old.clone();
            super::trigger::fire(
                trg,
                Event::Update,
                Timing::After,
                Some(&mut same),
                Some(&old),
                ex.ctx,
            )?;
        }
        return Ok(Some(old));
    }
    super::check::verify(&plan.checks, &new, &t.db, &t.def.name, ex)?;
    if let Some(ai) = t.def.auto_increment_column() {
        if let Some(x) = crate::value::to_num(&new[ai])
            .0
            .to_i128()
            .filter(|x| *x > 0)
        {
            t.table.observe_auto_increment(x as u64);
        }
    }
    foreign_key::before_update(&fk_target(t), &old, &new, ex)?;
    let fk = foreign_key::involved(&fk_target(t), ex);
    let kept = (plan.returning.is_some() || fk || trg.is_some()).then(|| new.clone());
    match t.table.update(ex.txn()?, &handle, &old, new) {
        Ok(_) => {
            ex.count_change(&t.def, super::Change::Update);
            if let (true, Some(written)) = (fk, &kept) {
                let mut cascaded = foreign_key::Cascaded::default();
                foreign_key::after_update(&fk_target(t), &old, written, &mut cascaded, ex)?;
            }
            if let (Some(trg), Some(written)) = (trg, &kept) {
                let mut written = written.clone();
                super::trigger::fire(
                    trg,
                    Event::Update,
                    Timing::After,
                    Some(&mut written),
                    Some(&old),
                    ex.ctx,
                )?;
            }
            out.affected += 2;
            Ok(kept.filter(|_| plan.returning.is_some()))
        }
        Err(StorageError::DuplicateKey { entry, key }) if plan.ignore => {
            ex.ctx.cx.warn(
                Level::Warning,
                code::ER_DUP_ENTRY,
                MySqlError::dup_entry(&entry, &key).message,
            );
            Ok(None)
        }
        Err(e) => Err(storage_err(e)),
    }
}
