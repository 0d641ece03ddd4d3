//! UPDATE and DELETE execution (single table), and the per-row write paths that
//! multi-table UPDATE / DELETE (`multi_dml`) share.
//!
//! Matching rows are read with exclusive locks and collected first, so a change
//! never feeds back into the scan that finds rows (an UPDATE of an indexed column
//! does not see its own new entries); the collected rows are charged to the
//! statement's memory budget. Then rows are sorted and limited when the
//! statement has ORDER BY / LIMIT, and changed one by one. DELETE ... RETURNING
//! evaluates its list on each row as it was before the delete.

use super::foreign_key::{self, Cascaded};
use super::mem::row_bytes;
use super::scan::{drive, Flow, R};
use super::store::{store, Target};
use super::{storage_err, trigger, Exec};
use crate::bind::check::Checks;
use crate::expr::EvalCtx;
use crate::plan::{ModifyPlan, SortKey, TableRef};
use crate::sp::trigger::{Event, Timing};
use basalt_common::{MySqlError, Row, Value};
use basalt_storage::{RowHandle, StorageError};

pub struct ModifyOutcome {
    pub matched: u64,
    pub changed: u64,
    /// DELETE ... RETURNING rows, in deletion order.
    pub returned: Vec<Row>,
    /// The "Warnings" of UPDATE's info string when it is not the statement's
    /// warning count (multi-table UPDATE).
    pub info_warnings: Option<u64>,
    /// UPDATE found nothing before reading (an impossible WHERE, LIMIT 0):
    /// MariaDB then sends no info string.
    pub no_info: bool,
}

struct Found {
    handle: RowHandle,
    row: Row,
    keys: Row,
}

pub(super) fn eval_limit(plan: &ModifyPlan, ex: &mut Exec) -> R<Option<u64>> {
    match &plan.scan.limit {
        None => Ok(None),
        Some(e) => {
            let v = e.eval(&[], ex.ctx)?;
            Ok(Some(
                crate::value::to_num(&v).0.to_i128().unwrap_or(0).max(0) as u64,
            ))
        }
    }
}

fn collect(plan: &ModifyPlan, ex: &mut Exec) -> R<Vec<Found>> {
    let scan = &plan.scan;
    let limit = eval_limit(plan, ex)?;
    let streaming_limit = if scan.order.is_empty() { limit } else { None };
    let mut found: Vec<Found> = Vec::new();
    let mut sink = |row: &[Value], handle: Option<&RowHandle>, ctx: &mut EvalCtx| -> R<Flow> {
        let Some(h) = handle else {
            return Ok(Flow::Continue);
        };
        let keys = scan
            .project
            .iter()
            .map(|e| e.eval(row, ctx))
            .collect::<R<Row>>()?;
        let row = row.to_vec();
        ctx.mem.charge(
            std::mem::size_of::<Found>() + h.0.len() + row_bytes(&row) + row_bytes(&keys),
        )?;
        found.push(Found {
            handle: h.clone(),
            row,
            keys,
        });
        if streaming_limit.is_some_and(|l| found.len() as u64 >= l) {
            return Ok(Flow::Stop);
        }
        Ok(Flow::Continue)
    };
    if limit != Some(0) {
        drive(scan, ex, &mut sink)?;
    }
    if !scan.order.is_empty() {
        found.sort_by(|a, b| order_cmp(&scan.order, &a.keys, &b.keys));
        if let Some(l) = limit {
            found.truncate(l.min(usize::MAX as u64) as usize);
        }
    }
    Ok(found)
}

/// The ORDER BY order of two rows' sort keys.
pub(super) fn order_cmp(order: &[SortKey], a: &[Value], b: &[Value]) -> std::cmp::Ordering {
    for k in order {
        let o = crate::value::compare::sort_cmp(&a[k.column], &b[k.column], k.coll);
        let o = if k.desc { o.reverse() } else { o };
        if o != std::cmp::Ordering::Equal {
            return o;
        }
    }
    std::cmp::Ordering::Equal
}

pub fn run(plan: &ModifyPlan, ex: &mut Exec) -> R<ModifyOutcome> {
    if plan.ignore {
        // Errors a row's expressions raise become warnings (MariaDB's IGNORE).
        ex.ctx.strict_dml = false;
        ex.ctx.ignore_errors = true;
    }
    if let Some(multi) = &plan.multi {
        return super::multi_dml::run(plan, multi, ex);
    }
    let ignore = plan.ignore;
    if !plan.subs.is_empty() {
        super::sub::materialize(&plan.subs, ex)?;
    }
    let no_info = !plan.delete
        && (eval_limit(plan, ex)? == Some(0) || super::scan::finds_nothing(&plan.scan, ex)?);
    let rows = if no_info {
        Vec::new()
    } else {
        collect(plan, ex)?
    };
    let mut out = ModifyOutcome {
        matched: rows.len() as u64,
        changed: 0,
        returned: Vec::new(),
        info_warnings: None,
        no_info,
    };
    let t = &plan.scan.tables[0];
    let mut cascaded = Cascaded::default();
    for (i, mut f) in rows.into_iter().enumerate() {
        ex.check_interrupt()?;
        if !cascaded.refresh(t.def.id, &mut f.handle, &mut f.row) {
            continue;
        }
        if plan.delete {
            delete_row(t, &plan.checks, &f.handle, &f.row, &mut cascaded, ex)?;
            out.changed += 1;
            if let Some(ret) = &plan.returning {
                let values = ret
                    .exprs
                    .iter()
                    .map(|e| e.eval(&f.row, ex.ctx))
                    .collect::<R<Row>>()?;
                out.returned.push(values);
            }
            continue;
        }
        let new = match new_row(plan, &f.row, i as u64 + 1, ex, ignore) {
            Ok(n) => n,
            Err(e) if ignore => {
                ex.ctx.cx.warn_err(&e);
                continue;
            }
            Err(e) => return Err(e),
        };
        if new == f.row && plan.checks.fires(Event::Update).is_none() {
            continue;
        }
        let written = update_row(
            t,
            &plan.checks,
            &f.handle,
            &f.row,
            new,
            ex,
            ignore,
            &mut cascaded,
        )?;
        if written == Written::Yes {
            out.changed += 1;
        }
    }
    Ok(out)
}

/// What [`update_row`] did with a changed row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    Yes,
    /// UPDATE IGNORE: an ignorable error skipped the row, with a warning.
    Skipped,
    /// UPDATE IGNORE: the new row had a duplicate key and was skipped without a
    /// warning (as MariaDB does).
    Duplicate,
    /// The row's values did not change (after its BEFORE UPDATE triggers).
    Same,
}

/// Writes the new version `new` of the row `handle` (values `old`, read with an
/// exclusive lock) of `t`, after its CHECK constraints and with its FOREIGN KEY
/// checks and cascades (noted in `cas`): the one per-row write path of UPDATE,
/// single- and multi-table.
#[allow(clippy::too_many_arguments)]
pub fn update_row(
    t: &TableRef,
    checks: &Checks,
    handle: &RowHandle,
    old: &Row,
    mut new: Row,
    ex: &mut Exec,
    ignore: bool,
    cas: &mut Cascaded,
) -> R<Written> {
    let trg = checks.fires(Event::Update);
    if let Some(trg) = trg {
        let strict = ex.ctx.cx.mode.strict && !ignore;
        generated(t, checks, &mut new, strict, ex)?;
        trigger::fire(
            trg,
            Event::Update,
            Timing::Before,
            Some(&mut new),
            Some(old),
            ex.ctx,
        )?;
        fill_not_null(t, &mut new, strict, ex)?;
        if new == *old {
            let mut same = new;
            trigger::fire(
                trg,
                Event::Update,
                Timing::After,
                Some(&mut same),
                Some(old),
                ex.ctx,
            )?;
            return Ok(Written::Same);
        }
    }
    if !checks.computed.generated.is_empty() {
        let place = super::computed::Place {
            db: &t.db,
            def: &t.def,
            row_no: 1,
            strict: ex.ctx.cx.mode.strict && !ignore,
        };
        let computed = &checks.computed;
        match super::computed::fill_generated(computed, &mut new, &place, ex.ctx) {
            Err(e) if ignore => {
                ex.ctx.cx.warn_err(&e);
                return Ok(Written::Skipped);
            }
            other => other?,
        }
        if new == *old {
            return Ok(Written::Skipped);
        }
    }
    match super::check::verify(checks, &new, &t.db, &t.def.name, ex) {
        Err(e) if ignore => {
            ex.ctx.cx.warn_err(&e);
            return Ok(Written::Skipped);
        }
        other => other?,
    }
    if let Some(ai) = t.def.auto_increment_column() {
        if let Some(x) = crate::value::to_num(&new[ai])
            .0
            .to_i128()
            .filter(|x| *x > 0)
        {
            t.table.observe_auto_increment(x as u64);
        }
    }
    let fk = fk_target(t);
    foreign_key::before_update(&fk, old, &new, ex)?;
    let involved = foreign_key::involved(&fk, ex);
    let kept = (involved || trg.is_some()).then(|| new.clone());
    match t.table.update(ex.txn()?, handle, old, new) {
        Ok(_) => {
            ex.count_change(&t.def, super::Change::Update);
            if let (true, Some(new)) = (involved, &kept) {
                foreign_key::after_update(&fk, old, new, cas, ex)?;
            }
            if let (Some(trg), Some(mut new)) = (trg, kept) {
                trigger::fire(
                    trg,
                    Event::Update,
                    Timing::After,
                    Some(&mut new),
                    Some(old),
                    ex.ctx,
                )?;
            }
            Ok(Written::Yes)
        }
        // MariaDB skips the row without a warning.
        Err(StorageError::DuplicateKey { .. }) if ignore => Ok(Written::Duplicate),
        Err(e) => Err(storage_err(e)),
    }
}

/// Deletes the row `handle` (values `old`, read with an exclusive lock) of `t`,
/// with its FOREIGN KEY checks and cascades (noted in `cas`): the one per-row
/// delete path of DELETE, single- and multi-table.
pub fn delete_row(
    t: &TableRef,
    checks: &Checks,
    handle: &RowHandle,
    old: &Row,
    cas: &mut Cascaded,
    ex: &mut Exec,
) -> R<()> {
    let trg = checks.fires(Event::Delete);
    if let Some(trg) = trg {
        trigger::fire(trg, Event::Delete, Timing::Before, None, Some(old), ex.ctx)?;
    }
    foreign_key::delete_row(&fk_target(t), handle, old, cas, ex)?;
    if let Some(trg) = trg {
        trigger::fire(trg, Event::Delete, Timing::After, None, Some(old), ex.ctx)?;
    }
    Ok(())
}

/// The generated columns of a row about to be written, as a BEFORE UPDATE
/// trigger sees them.
fn generated(t: &TableRef, checks: &Checks, row: &mut Row, strict: bool, ex: &mut Exec) -> R<()> {
    if checks.computed.generated.is_empty() {
        return Ok(());
    }
    let place = super::computed::Place {
        db: &t.db,
        def: &t.def,
        row_no: 1,
        strict,
    };
    super::computed::fill_generated(&checks.computed, row, &place, ex.ctx)
}

/// A NULL a BEFORE trigger left in a NOT NULL column: 1048 when `strict`,
/// else the type's zero with a warning.
pub fn fill_not_null(t: &TableRef, row: &mut Row, strict: bool, ex: &mut Exec) -> R<()> {
    for (ci, col) in t.def.columns.iter().enumerate() {
        if col.nullable || col.auto_increment || col.generated.is_some() || !row[ci].is_null() {
            continue;
        }
        let err = MySqlError::bad_null(&col.name);
        if strict {
            return Err(err);
        }
        ex.ctx.cx.warn_err(&err);
        row[ci] = zero_of(&col.data_type);
    }
    Ok(())
}

fn fk_target(t: &TableRef) -> foreign_key::Target<'_> {
    foreign_key::Target {
        db: &t.db,
        table: &t.table,
        def: &t.def,
    }
}

/// Applies the assignments left to right: each sees the columns already changed.
fn new_row(plan: &ModifyPlan, old: &Row, row_no: u64, ex: &mut Exec, ignore: bool) -> R<Row> {
    let t = &plan.scan.tables[0];
    let strict = ex.ctx.cx.mode.strict && !ignore;
    let mut new = old.clone();
    let mut assigned = vec![false; new.len()];
    for (ci, e) in &plan.set {
        let v = e.eval(&new, ex.ctx)?;
        if t.def.columns[*ci].generated.is_some() {
            if !v.is_null() {
                super::computed::written_generated(&t.def, *ci, strict, ex.ctx)?;
            }
            continue;
        }
        new[*ci] = assigned_value(t, *ci, v, row_no, strict, ex)?;
        assigned[*ci] = true;
    }
    if new != *old {
        touch_on_update(t, &mut new, &assigned, ex);
    }
    Ok(new)
}

/// `v` as stored into column `ci` of `t` by an assignment: NULL into a NOT NULL
/// column is 1048 (strict) or the type's zero with a warning; other values are
/// converted as the column's type stores them.
pub fn assigned_value(
    t: &TableRef,
    ci: usize,
    v: Value,
    row_no: u64,
    strict: bool,
    ex: &mut Exec,
) -> R<Value> {
    let col = &t.def.columns[ci];
    if v.is_null() {
        if col.nullable {
            return Ok(Value::Null);
        }
        let err = MySqlError::bad_null(&col.name);
        if strict {
            return Err(err);
        }
        ex.ctx.cx.warn_err(&err);
        return Ok(zero_of(&col.data_type));
    }
    let target = Target {
        db: &t.db,
        table: &t.def.name,
        col,
        row: row_no,
        strict,
    };
    store(v, &target, ex.ctx.cx)
}

/// Sets the `ON UPDATE CURRENT_TIMESTAMP` columns not assigned explicitly, for a
/// row that changes.
pub fn touch_on_update(t: &TableRef, new: &mut Row, assigned: &[bool], ex: &mut Exec) {
    for (ci, col) in t.def.columns.iter().enumerate() {
        if col.on_update_current_timestamp && !assigned[ci] {
            new[ci] = crate::exec::store::current_timestamp(col, ex.ctx.cx);
        }
    }
}

fn zero_of(dt: &basalt_common::DataType) -> Value {
    use basalt_common::DataType as D;
    match dt {
        D::Int { unsigned: true, .. } => Value::UInt(0),
        D::Int { .. } | D::Year => Value::Int(0),
        D::Decimal { scale, .. } => Value::Decimal(basalt_common::Decimal::new(0, *scale)),
        D::Float | D::Double => Value::Double(0.0),
        D::Date => Value::Date(Default::default()),
        D::DateTime { .. } | D::Timestamp { .. } => Value::DateTime(Default::default()),
        D::Time { .. } => Value::Time(Default::default()),
        _ => Value::Bytes(Vec::new()),
    }
}
