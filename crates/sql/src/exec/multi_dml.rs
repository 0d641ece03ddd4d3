//! Multi-table UPDATE and DELETE execution.
//!
//! 1. The join runs once, as a SELECT would, with each table's own lock: target
//!    tables exclusive, the other tables shared (InnoDB takes S locks on the rows
//!    a multi-table UPDATE / DELETE reads to decide, also under READ COMMITTED);
//!    derived tables are read as materialised. Each
//!    joined row is kept with the handle of every target's row (none for a
//!    NULL-extended one), charged to the statement's memory budget.
//! 2. ORDER BY sorts and LIMIT cuts the joined rows (not the target rows).
//! 3. Each target row counts once, at the first joined row that has it; for
//!    UPDATE every assignment is evaluated on that joined row as it was read, so
//!    no assignment sees another's result, in the same table or another
//!    (MariaDB's order of evaluation). Every new row is computed before any is
//!    written: a changed row never feeds back into the values of another.
//! 4. Rows are written target by target through the per-row paths of
//!    single-table UPDATE / DELETE ([`super::modify::update_row`],
//!    [`super::modify::delete_row`]). A table that is a target under several
//!    aliases has each of its rows deleted once, and updated from its latest
//!    version.
//!
//! Counts follow MariaDB: "matched" counts target rows, "changed" the rows
//! written. Under UPDATE IGNORE a row skipped for a duplicate key counts as
//! changed except in the table the join reads first (MariaDB updates that table
//! while it scans and the others afterwards, and counts them differently).

use super::modify::{
    assigned_value, delete_row, eval_limit, order_cmp, touch_on_update, update_row, ModifyOutcome,
    Written,
};
use super::scan::{drive_tracking, Flow, R};
use super::Exec;
use crate::expr::EvalCtx;
use crate::plan::multi_dml::{DmlTarget, MultiDml};
use crate::plan::{ModifyPlan, TableRef};
use basalt_common::{Row, Value};
use basalt_storage::{LockMode, RowHandle};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// A joined row and the handle of each target's row in it.
struct Joined {
    row: Row,
    handles: Vec<Option<RowHandle>>,
    keys: Row,
}

/// One row of one target to change: its handle and the joined row it came from.
struct Hit {
    handle: RowHandle,
    joined: usize,
}

pub fn run(plan: &ModifyPlan, multi: &MultiDml, ex: &mut Exec) -> R<ModifyOutcome> {
    if !plan.subs.is_empty() {
        super::sub::materialize(&plan.subs, ex)?;
    }
    let joined = collect(plan, multi, ex)?;
    let hits = distinct_rows(multi, &joined);
    let mut out = ModifyOutcome {
        matched: hits.iter().map(|h| h.len() as u64).sum(),
        changed: 0,
        returned: Vec::new(),
    };
    if plan.delete {
        out.changed = delete_all(plan, multi, &joined, &hits, ex)?;
    } else {
        out.changed = update_all(plan, multi, &joined, &hits, ex)?;
    }
    Ok(out)
}

/// The lock mode of each table of the join.
fn lock_modes(plan: &ModifyPlan, multi: &MultiDml) -> Vec<LockMode> {
    plan.scan
        .tables
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if multi.targets.iter().any(|x| x.table == i) {
                LockMode::Exclusive
            } else if t.db.is_empty() {
                LockMode::Consistent
            } else {
                LockMode::Shared
            }
        })
        .collect()
}

/// Runs the join; the joined rows in ORDER BY order, cut by LIMIT.
fn collect(plan: &ModifyPlan, multi: &MultiDml, ex: &mut Exec) -> R<Vec<Joined>> {
    let scan = &plan.scan;
    let limit = eval_limit(plan, ex)?;
    if limit == Some(0) {
        return Ok(Vec::new());
    }
    let streaming_limit = if scan.order.is_empty() { limit } else { None };
    let locks = lock_modes(plan, multi);
    let handles = Rc::new(RefCell::new(vec![None; scan.tables.len()]));
    let mut out: Vec<Joined> = Vec::new();
    let mut taken = 0u64;
    let tracked = handles.clone();
    let mut sink = |row: &[Value], _: Option<&RowHandle>, ctx: &mut EvalCtx| -> R<Flow> {
        let current = tracked.borrow();
        let target_handles: Vec<Option<RowHandle>> = multi
            .targets
            .iter()
            .map(|t| current[t.table].clone())
            .collect();
        drop(current);
        taken += 1;
        let keys = scan
            .project
            .iter()
            .map(|e| e.eval(row, ctx))
            .collect::<R<Row>>()?;
        let row = row.to_vec();
        let bytes = super::mem::row_bytes(&row)
            + super::mem::row_bytes(&keys)
            + target_handles
                .iter()
                .map(|h| h.as_ref().map_or(8, |h| h.0.len() + 8))
                .sum::<usize>();
        ctx.mem.charge(std::mem::size_of::<Joined>() + bytes)?;
        out.push(Joined {
            row,
            handles: target_handles,
            keys,
        });
        if streaming_limit.is_some_and(|l| taken >= l) {
            return Ok(Flow::Stop);
        }
        Ok(Flow::Continue)
    };
    drive_tracking(scan, ex, locks, handles, &mut sink)?;
    if !scan.order.is_empty() {
        out.sort_by(|a, b| order_cmp(&scan.order, &a.keys, &b.keys));
        if let Some(l) = limit {
            out.truncate(l.min(usize::MAX as u64) as usize);
        }
    }
    Ok(out)
}

/// For each target, its distinct rows in the order the joined rows first have
/// them.
fn distinct_rows(multi: &MultiDml, joined: &[Joined]) -> Vec<Vec<Hit>> {
    let mut out: Vec<Vec<Hit>> = multi.targets.iter().map(|_| Vec::new()).collect();
    let mut seen: Vec<HashSet<&RowHandle>> = multi.targets.iter().map(|_| HashSet::new()).collect();
    for (ji, j) in joined.iter().enumerate() {
        for (k, h) in j.handles.iter().enumerate() {
            if let Some(h) = h {
                if seen[k].insert(h) {
                    out[k].push(Hit {
                        handle: h.clone(),
                        joined: ji,
                    });
                }
            }
        }
    }
    out
}

/// The table's row, as read, in a joined row.
fn own_row(t: &TableRef, joined: &Row) -> Row {
    joined[t.offset..t.offset + t.width()].to_vec()
}

/// Identifies the stored table behind a join table (the same one under two
/// aliases compares equal).
fn table_key(t: &TableRef) -> usize {
    std::sync::Arc::as_ptr(&t.table) as *const u8 as usize
}

fn delete_all(
    plan: &ModifyPlan,
    multi: &MultiDml,
    joined: &[Joined],
    hits: &[Vec<Hit>],
    ex: &mut Exec,
) -> R<u64> {
    let mut deleted: HashSet<(usize, RowHandle)> = HashSet::new();
    let mut n = 0;
    for (target, rows) in multi.targets.iter().zip(hits) {
        let t = &plan.scan.tables[target.table];
        for hit in rows {
            ex.check_interrupt()?;
            if !deleted.insert((table_key(t), hit.handle.clone())) {
                continue;
            }
            let old = own_row(t, &joined[hit.joined].row);
            if delete_row(t, &hit.handle, &old, ex, plan.ignore)? {
                n += 1;
            }
        }
    }
    Ok(n)
}

/// A target row's new version, computed before anything is written.
struct Change {
    handle: RowHandle,
    old: Row,
    /// (column, value) of each assignment, converted for the column.
    values: Vec<(usize, Value)>,
}

fn update_all(
    plan: &ModifyPlan,
    multi: &MultiDml,
    joined: &[Joined],
    hits: &[Vec<Hit>],
    ex: &mut Exec,
) -> R<u64> {
    let mut changes: Vec<Vec<Change>> = Vec::with_capacity(multi.targets.len());
    for (target, rows) in multi.targets.iter().zip(hits) {
        changes.push(new_values(plan, target, rows, joined, ex)?);
    }
    let first = plan.scan.levels.first().map(|l| l.table);
    let mut latest: HashMap<(usize, RowHandle), Row> = HashMap::new();
    let shared = shares_a_table(plan, multi);
    let mut changed = 0;
    for (target, rows) in multi.targets.iter().zip(changes) {
        let t = &plan.scan.tables[target.table];
        for c in rows {
            ex.check_interrupt()?;
            let key = (table_key(t), c.handle);
            let old = match shared.then(|| latest.get(&key)).flatten() {
                Some(r) => r.clone(),
                None => c.old,
            };
            let mut new = old.clone();
            let mut assigned = vec![false; new.len()];
            for (ci, v) in c.values {
                new[ci] = v;
                assigned[ci] = true;
            }
            if new == old {
                continue;
            }
            touch_on_update(t, &mut new, &assigned, ex);
            let kept = shared.then(|| new.clone());
            match update_row(t, &target.checks, &key.1, &old, new, ex, plan.ignore)? {
                Written::Yes => changed += 1,
                Written::Duplicate if first != Some(target.table) => changed += 1,
                Written::Duplicate | Written::Skipped => continue,
            }
            if let Some(r) = kept {
                latest.insert(key, r);
            }
        }
    }
    Ok(changed)
}

/// Whether two targets are the same stored table under different aliases.
fn shares_a_table(plan: &ModifyPlan, multi: &MultiDml) -> bool {
    let keys: HashSet<usize> = multi
        .targets
        .iter()
        .map(|t| table_key(&plan.scan.tables[t.table]))
        .collect();
    keys.len() != multi.targets.len()
}

/// The assignments of `target` evaluated on the joined row of each of its rows.
/// Under IGNORE a row whose values fail is skipped with a warning.
fn new_values(
    plan: &ModifyPlan,
    target: &DmlTarget,
    rows: &[Hit],
    joined: &[Joined],
    ex: &mut Exec,
) -> R<Vec<Change>> {
    let t = &plan.scan.tables[target.table];
    let strict = ex.ctx.cx.mode.strict && !plan.ignore;
    let mut out = Vec::with_capacity(rows.len());
    for (i, hit) in rows.iter().enumerate() {
        let row = &joined[hit.joined].row;
        let mut values = Vec::with_capacity(target.set.len());
        let mut failed = None;
        for (ci, e) in &target.set {
            let v = e
                .eval(row, ex.ctx)
                .and_then(|v| assigned_value(t, *ci, v, i as u64 + 1, strict, ex));
            match v {
                Ok(v) => values.push((*ci, v)),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        match failed {
            Some(e) if plan.ignore => {
                ex.ctx.cx.warn_err(&e);
                continue;
            }
            Some(e) => return Err(e),
            None => {}
        }
        out.push(Change {
            handle: hit.handle.clone(),
            old: own_row(t, row),
            values,
        });
    }
    Ok(out)
}
