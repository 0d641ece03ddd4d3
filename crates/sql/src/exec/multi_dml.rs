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
//! changed except in the table MariaDB would update while it scans (see
//! [`updated_on_the_fly`]). The "Warnings" of the info string count only the
//! warnings of the conversions into the columns, 1366 aside (MariaDB's "cut
//! fields").

use super::foreign_key::Cascaded;
use super::modify::{
    assigned_value, delete_row, eval_limit, order_cmp, touch_on_update, update_row, ModifyOutcome,
    Written,
};
use super::scan::{drive_tracking, Flow, R};
use super::Exec;
use crate::expr::EvalCtx;
use crate::plan::multi_dml::{DmlTarget, MultiDml};
use crate::plan::{ModifyPlan, TableRef};
use crate::sp::trigger::Event;
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
        info_warnings: None,
        no_info: false,
    };
    if plan.delete {
        out.changed = delete_all(plan, multi, &joined, &hits, ex)?;
    } else {
        let (changed, cut) = update_all(plan, multi, &joined, &hits, ex)?;
        out.changed = changed;
        out.info_warnings = Some(cut);
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
    let mut cas = Cascaded::default();
    let mut n = 0;
    for (target, rows) in multi.targets.iter().zip(hits) {
        let t = &plan.scan.tables[target.table];
        for hit in rows {
            ex.check_interrupt()?;
            if !deleted.insert((table_key(t), hit.handle.clone())) {
                continue;
            }
            let mut old = own_row(t, &joined[hit.joined].row);
            let mut handle = hit.handle.clone();
            // A cascade of an earlier row may have changed or deleted this one.
            if !cas.refresh(t.def.id, &mut handle, &mut old) {
                continue;
            }
            delete_row(t, &target.checks, &handle, &old, &mut cas, ex)?;
            n += 1;
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
) -> R<(u64, u64)> {
    let (changes, cut) = new_values(plan, multi, hits, joined, ex)?;
    let on_the_fly = updated_on_the_fly(plan, multi);
    let mut latest: HashMap<(usize, RowHandle), Row> = HashMap::new();
    let shared = shares_a_table(plan, multi);
    let mut cas = Cascaded::default();
    let mut changed = 0;
    for (target, rows) in multi.targets.iter().zip(changes) {
        let t = &plan.scan.tables[target.table];
        for c in rows {
            ex.check_interrupt()?;
            let mut handle = c.handle;
            let mut old = match shared.then(|| latest.get(&(table_key(t), handle.clone()))) {
                Some(Some(r)) => r.clone(),
                _ => c.old,
            };
            // A cascade of an earlier row may have changed or deleted this one.
            if !cas.refresh(t.def.id, &mut handle, &mut old) {
                continue;
            }
            let key = (table_key(t), handle);
            let mut new = old.clone();
            let mut assigned = vec![false; new.len()];
            for (ci, v) in c.values {
                new[ci] = v;
                assigned[ci] = true;
            }
            if new == old && target.checks.fires(Event::Update).is_none() {
                continue;
            }
            if new != old {
                touch_on_update(t, &mut new, &assigned, ex);
            }
            let kept = shared.then(|| new.clone());
            match update_row(
                t,
                &target.checks,
                &key.1,
                &old,
                new,
                ex,
                plan.ignore,
                &mut cas,
            )? {
                Written::Yes => changed += 1,
                Written::Duplicate if on_the_fly != Some(target.table) => changed += 1,
                Written::Duplicate | Written::Skipped | Written::Same => continue,
            }
            if let Some(r) = kept {
                latest.insert(key, r);
            }
        }
    }
    Ok((changed, cut))
}

/// The target MariaDB updates while it scans the join ("on the fly"), if any: the
/// table read first, when it is in the join once and read by a primary-key
/// lookup, or through an index none of whose columns (nor the primary key's) the
/// statement assigns. MariaDB updates the other targets afterwards and, under
/// IGNORE, counts their rows skipped for a duplicate key as changed; not this
/// one's.
fn updated_on_the_fly(plan: &ModifyPlan, multi: &MultiDml) -> Option<usize> {
    let level = plan.scan.levels.first()?;
    let target = multi.targets.iter().find(|t| t.table == level.table)?;
    let t = &plan.scan.tables[level.table];
    let once = plan
        .scan
        .tables
        .iter()
        .filter(|x| table_key(x) == table_key(t))
        .count()
        == 1;
    let index_id = match &level.access {
        crate::plan::Access::PkGet { .. } => return once.then_some(level.table),
        crate::plan::Access::Index { index_id, .. } => *index_id,
    };
    let key_columns: HashSet<usize> = t
        .def
        .indexes
        .iter()
        .filter(|ix| ix.id == index_id || ix.kind == basalt_common::IndexKind::Primary)
        .flat_map(|ix| ix.column_ordinals())
        .collect();
    let writes_key = target.set.iter().any(|(ci, _)| key_columns.contains(ci));
    (once && !writes_key).then_some(level.table)
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

/// The assignments of every target, evaluated joined row by joined row (the
/// order MariaDB raises their warnings in), each target row's on the first joined
/// row that has it. Under IGNORE a row whose values fail is skipped with a
/// warning. Also counts the warnings the conversions into the columns raised.
fn new_values(
    plan: &ModifyPlan,
    multi: &MultiDml,
    hits: &[Vec<Hit>],
    joined: &[Joined],
    ex: &mut Exec,
) -> R<(Vec<Vec<Change>>, u64)> {
    let mut order: Vec<(usize, usize, usize)> = hits
        .iter()
        .enumerate()
        .flat_map(|(k, rows)| rows.iter().enumerate().map(move |(i, h)| (h.joined, k, i)))
        .collect();
    order.sort_unstable();
    let mut out: Vec<Vec<Change>> = hits.iter().map(|r| Vec::with_capacity(r.len())).collect();
    let mut cut = 0;
    for (ji, k, i) in order {
        let target = &multi.targets[k];
        let row = &joined[ji].row;
        match target_values(plan, target, row, ji as u64 + 1, &mut cut, ex) {
            Ok(values) => out[k].push(Change {
                handle: hits[k][i].handle.clone(),
                old: own_row(&plan.scan.tables[target.table], row),
                values,
            }),
            Err(e) if plan.ignore => ex.ctx.cx.warn_err(&e),
            Err(e) => return Err(e),
        }
    }
    Ok((out, cut))
}

/// One target's assignments on joined row `row` (number `row_no`), converted for
/// their columns; `cut` counts the conversions' warnings other than 1366, as
/// MariaDB's count of "cut fields" does.
fn target_values(
    plan: &ModifyPlan,
    target: &DmlTarget,
    row: &Row,
    row_no: u64,
    cut: &mut u64,
    ex: &mut Exec,
) -> R<Vec<(usize, Value)>> {
    let t = &plan.scan.tables[target.table];
    let strict = ex.ctx.cx.mode.strict && !plan.ignore;
    let mut values = Vec::with_capacity(target.set.len());
    for (ci, e) in &target.set {
        let v = e.eval(row, ex.ctx)?;
        let before = ex.ctx.cx.warnings.len();
        let v = assigned_value(t, *ci, v, row_no, strict, ex)?;
        *cut += ex.ctx.cx.warnings[before..]
            .iter()
            .filter(|w| w.code != basalt_common::error::code::ER_TRUNCATED_WRONG_VALUE_FOR_FIELD)
            .count() as u64;
        values.push((*ci, v));
    }
    Ok(values)
}
