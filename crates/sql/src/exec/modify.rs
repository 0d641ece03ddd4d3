//! UPDATE and DELETE execution (single table).
//!
//! Matching rows are read with exclusive locks and collected first, so a change
//! never feeds back into the scan that finds rows (an UPDATE of an indexed column
//! does not see its own new entries); the collected rows are charged to the
//! statement's memory budget. Then rows are sorted and limited when the
//! statement has ORDER BY / LIMIT, and changed one by one. DELETE ... RETURNING
//! evaluates its list on each row as it was before the delete.

use super::mem::row_bytes;
use super::scan::{drive, Flow, R};
use super::store::{store, Target};
use super::{foreign_key, storage_err, Exec};
use crate::expr::EvalCtx;
use crate::plan::ModifyPlan;
use crate::session::ctx::Level;
use basalt_common::error::code;
use basalt_common::{MySqlError, Row, Value};
use basalt_storage::{RowHandle, StorageError};

pub struct ModifyOutcome {
    pub matched: u64,
    pub changed: u64,
    /// DELETE ... RETURNING rows, in deletion order.
    pub returned: Vec<Row>,
}

struct Found {
    handle: RowHandle,
    row: Row,
    keys: Row,
}

fn eval_limit(plan: &ModifyPlan, ex: &mut Exec) -> R<Option<u64>> {
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
        found.sort_by(|a, b| {
            for k in &scan.order {
                let o =
                    crate::value::compare::sort_cmp(&a.keys[k.column], &b.keys[k.column], k.coll);
                let o = if k.desc { o.reverse() } else { o };
                if o != std::cmp::Ordering::Equal {
                    return o;
                }
            }
            std::cmp::Ordering::Equal
        });
        if let Some(l) = limit {
            found.truncate(l.min(usize::MAX as u64) as usize);
        }
    }
    Ok(found)
}

pub fn run(plan: &ModifyPlan, ex: &mut Exec, ignore: bool) -> R<ModifyOutcome> {
    if !plan.subs.is_empty() {
        super::sub::materialize(&plan.subs, ex)?;
    }
    let rows = collect(plan, ex)?;
    let mut out = ModifyOutcome {
        matched: rows.len() as u64,
        changed: 0,
        returned: Vec::new(),
    };
    let t = &plan.scan.tables[0];
    let fk_target = foreign_key::Target {
        db: &t.db,
        table: &t.table,
        def: &t.def,
    };
    let mut cascaded = foreign_key::Cascaded::default();
    for (i, mut f) in rows.into_iter().enumerate() {
        ex.check_interrupt()?;
        if !cascaded.refresh(t.def.id, &mut f.handle, &mut f.row) {
            continue;
        }
        if plan.delete {
            foreign_key::delete_row(&fk_target, &f.handle, &f.row, &mut cascaded, ex)?;
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
        if new == f.row {
            continue;
        }
        match super::check::verify(&plan.checks, &new, &t.db, &t.def.name, ex) {
            Err(e) if ignore => {
                ex.ctx.cx.warn_err(&e);
                continue;
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
        foreign_key::before_update(&fk_target, &f.row, &new, ex)?;
        let kept = foreign_key::involved(&fk_target, ex).then(|| new.clone());
        match t.table.update(ex.txn()?, &f.handle, &f.row, new) {
            Ok(_) => {
                out.changed += 1;
                if let Some(new) = kept {
                    foreign_key::after_update(&fk_target, &f.row, &new, &mut cascaded, ex)?;
                }
            }
            Err(StorageError::DuplicateKey { entry, key }) if ignore => {
                ex.ctx.cx.warn(
                    Level::Warning,
                    code::ER_DUP_ENTRY,
                    MySqlError::dup_entry(&entry, &key).message,
                );
            }
            Err(e) => return Err(storage_err(e)),
        }
    }
    Ok(out)
}

/// Applies the assignments left to right: each sees the columns already changed.
fn new_row(plan: &ModifyPlan, old: &Row, row_no: u64, ex: &mut Exec, ignore: bool) -> R<Row> {
    let t = &plan.scan.tables[0];
    let strict = ex.ctx.cx.mode.strict && !ignore;
    let mut new = old.clone();
    let mut assigned = vec![false; new.len()];
    for (ci, e) in &plan.set {
        let v = e.eval(&new, ex.ctx)?;
        let col = &t.def.columns[*ci];
        let v = if v.is_null() {
            if col.nullable {
                Value::Null
            } else {
                let err = MySqlError::bad_null(&col.name);
                if strict {
                    return Err(err);
                }
                ex.ctx.cx.warn_err(&err);
                zero_of(&col.data_type)
            }
        } else {
            let target = Target {
                db: &t.db,
                table: &t.def.name,
                col,
                row: row_no,
                strict,
            };
            store(v, &target, ex.ctx.cx)?
        };
        new[*ci] = v;
        assigned[*ci] = true;
    }
    if new != *old {
        for (ci, col) in t.def.columns.iter().enumerate() {
            if col.on_update_current_timestamp && !assigned[ci] {
                new[ci] = Value::DateTime(crate::value::temporal::truncate_fsp(
                    ex.ctx.cx.stmt_time,
                    col.data_type.fsp(),
                ));
            }
        }
    }
    Ok(new)
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
