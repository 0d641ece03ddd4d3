//! SELECT execution: drives the join levels, then projection, DISTINCT,
//! aggregation, HAVING, ORDER BY and LIMIT/OFFSET, and hands each output row to
//! an [`Emit`] callback as soon as it is final.
//!
//! - Without aggregation or ORDER BY rows stream: each joined row that passes is
//!   projected and emitted at once, and LIMIT stops the scan as soon as enough rows
//!   passed (unless SQL_CALC_FOUND_ROWS needs the full count).
//! - ORDER BY goes through a [`Sorter`] (a top-N heap for small LIMITs, an
//!   external merge sort beyond `sort_buffer_size`); rows are emitted from it.
//! - GROUP BY collects groups ([`Aggregator`], charged to the statement's memory
//!   budget), then emits them in order.
//! - UNION streams its branches; UNION DISTINCT keeps a set of the keys seen.
//!   INTERSECT / EXCEPT are in [`super::setop`].
//!
//! The top-level SELECT emits to the client's result sink; subqueries, derived
//! tables and INSERT ... SELECT collect with [`run`], which charges the collected
//! rows to the statement's memory budget.

use super::agg::{Aggregator, Seen};
use super::mem::row_bytes;
use super::scan::{drive, drive_expecting, Flow, R};
use super::sort::{sort_rows, Sorter};
use super::Exec;
use crate::expr::{EvalCtx, Expr};
use crate::plan::SelectPlan;
use crate::stats::Stat;
use crate::ty::ExprType;
use crate::value::compare::group_key;
use basalt_common::{Collation, Row, Value};

/// Receives the output rows (visible columns only), in order; `Flow::Stop` ends
/// the query early (EXISTS needs one row). The receiver may take the row
/// (`std::mem::take`) or leave it, and then its allocation is reused for the next
/// row.
pub type Emit<'e> = dyn FnMut(&mut Row, &mut EvalCtx) -> R<Flow> + 'e;

/// Collected result rows (visible columns only); `bytes` of them are charged to
/// the statement's memory budget.
pub struct Output {
    pub rows: Vec<Row>,
    pub bytes: usize,
}

fn eval_count(e: Option<&Expr>, ctx: &mut EvalCtx) -> R<Option<u64>> {
    match e {
        None => Ok(None),
        Some(e) => {
            let v = e.eval(&[], ctx)?;
            Ok(Some(
                crate::value::to_num(&v)
                    .0
                    .to_i128()
                    .unwrap_or(0)
                    .clamp(0, u64::MAX as i128) as u64,
            ))
        }
    }
}

/// Runs the SELECT and collects its rows.
pub fn run(plan: &SelectPlan, ex: &mut Exec) -> R<Output> {
    let mut rows = Vec::new();
    let mut bytes = 0;
    run_into(plan, ex, &mut |r: &mut Row, ctx: &mut EvalCtx| {
        let n = row_bytes(r);
        ctx.mem.charge(n)?;
        bytes += n;
        rows.push(std::mem::take(r));
        Ok(Flow::Continue)
    })?;
    Ok(Output { rows, bytes })
}

/// Runs the SELECT, emitting its rows; returns what FOUND_ROWS() reports.
pub fn run_into(plan: &SelectPlan, ex: &mut Exec, emit: &mut Emit) -> R<u64> {
    if !plan.subs.is_empty() {
        super::sub::materialize(&plan.subs, ex)?;
    }
    count_tmp_tables(plan, ex.ctx);
    let limit = eval_count(plan.limit.as_ref(), ex.ctx)?;
    let offset = eval_count(plan.offset.as_ref(), ex.ctx)?.unwrap_or(0);
    let win = Window::new(offset, limit, plan.visible);
    if plan.setop.is_some() || !plan.union.is_empty() {
        let sent = match &plan.setop {
            Some(so) => super::setop::run(plan, so, ex, win, emit)?,
            None => run_union(plan, ex, win, emit)?,
        };
        if let Some(t) = &ex.ctx.analyze {
            t.record_unit(plan, sent);
        }
        return Ok(sent);
    }
    if let Some(w) = &plan.window {
        return super::window::run(plan, w, ex, win, emit);
    }
    if plan.agg.is_some() {
        return run_agg(plan, ex, win, emit);
    }
    if plan.order.is_empty() {
        run_streaming(plan, ex, win, emit)
    } else {
        run_sorted(plan, ex, win, emit)
    }
}

/// Counts in `Created_tmp_tables` the internal temporary tables MariaDB
/// creates for this query block: one to group rows (GROUP BY without ROLLUP;
/// Basalt groups in a hash table, MariaDB in a temporary table unless an index
/// delivers the groups in order, which Basalt does not tell apart), one for
/// COUNT(DISTINCT ...) and the like, one for DISTINCT, one for a UNION that
/// removes duplicates and one for INTERSECT / EXCEPT. A derived table that is
/// materialised counts one more (see `sub::run_uncorrelated`).
///
/// `Created_tmp_disk_tables` stays 0: these tables are Basalt's in-memory hash
/// tables, charged to `max_session_mem_used` and never written to a file (a
/// sort that spills counts in `Created_tmp_files`, as MariaDB's filesort does).
fn count_tmp_tables(plan: &SelectPlan, ctx: &EvalCtx) {
    let grouped = plan
        .agg
        .as_ref()
        .map_or(0, |a| u64::from(!a.group_by.is_empty() && !a.rollup));
    let distinct_calls = plan
        .agg
        .as_ref()
        .map_or(0, |a| u64::from(a.calls.iter().any(|c| c.distinct)));
    let dedupe = plan.union.iter().skip(1).any(|(_, all)| !all);
    let n = grouped
        + distinct_calls
        + u64::from(plan.distinct)
        + u64::from(dedupe)
        + u64::from(plan.setop.is_some());
    if n > 0 {
        ctx.cx.stats.counters.add(Stat::CreatedTmpTables, n);
    }
}

/// Whether MariaDB materialises this derived table in a temporary table rather
/// than merging it into the outer query (it merges a plain SELECT).
pub(super) fn materialised(plan: &SelectPlan) -> bool {
    plan.agg.is_some()
        || plan.distinct
        || plan.limit.is_some()
        || !plan.union.is_empty()
        || plan.setop.is_some()
        || plan.window.is_some()
}

/// OFFSET / LIMIT over rows in output order.
pub(super) struct Window {
    offset: u64,
    /// `offset + limit`: the row count after which nothing more is emitted.
    stop_at: Option<u64>,
    visible: usize,
    /// Rows offered.
    passed: u64,
    /// Rows emitted.
    pub(super) sent: u64,
}

impl Window {
    fn new(offset: u64, limit: Option<u64>, visible: usize) -> Window {
        Window {
            offset,
            stop_at: limit.map(|l| l.saturating_add(offset)),
            visible,
            passed: 0,
            sent: 0,
        }
    }

    /// Emits the row if it falls inside the window; `Stop` once the window is
    /// complete (or the receiver wants no more).
    pub(super) fn offer(&mut self, row: &mut Row, ctx: &mut EvalCtx, emit: &mut Emit) -> R<Flow> {
        self.passed += 1;
        if self.stop_at.is_some_and(|s| self.passed > s) {
            return Ok(Flow::Stop);
        }
        if self.passed > self.offset {
            row.truncate(self.visible);
            self.sent += 1;
            if emit(row, ctx)? == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
        Ok(if self.stop_at.is_some_and(|s| self.passed >= s) {
            Flow::Stop
        } else {
            Flow::Continue
        })
    }

    /// Whether nothing at all can be emitted (`LIMIT 0`).
    pub(super) fn closed(&self) -> bool {
        self.stop_at == Some(0)
    }
}

/// HAVING without GROUP BY, projection (into `out`) and DISTINCT for one joined
/// row; false when the row is filtered out.
fn output_row(
    plan: &SelectPlan,
    row: &[Value],
    seen: &mut Seen,
    out: &mut Row,
    ctx: &mut EvalCtx,
) -> R<bool> {
    if let Some(h) = &plan.having {
        if h.eval_bool(row, ctx)? != Some(true) {
            return Ok(false);
        }
    }
    project_into(&plan.project, row, out, ctx)?;
    Ok(!plan.distinct || seen.first(row_key(&out[..plan.visible], &plan.types), &mut ctx.mem)?)
}

fn run_streaming(plan: &SelectPlan, ex: &mut Exec, mut win: Window, emit: &mut Emit) -> R<u64> {
    let calc = plan.calc_found_rows;
    let mut seen = Seen::default();
    if win.closed() && !calc {
        return Ok(0);
    }
    let expect = win
        .stop_at
        .filter(|_| !calc && !plan.distinct && plan.having.is_none());
    let mut buf = Row::new();
    let mut sink =
        |row: &[Value], _: Option<&basalt_storage::RowHandle>, ctx: &mut EvalCtx| -> R<Flow> {
            if !output_row(plan, row, &mut seen, &mut buf, ctx)? {
                return Ok(Flow::Continue);
            }
            if win.offer(&mut buf, ctx, emit)? == Flow::Stop && !calc {
                return Ok(Flow::Stop);
            }
            Ok(Flow::Continue)
        };
    drive_expecting(plan, ex, &mut sink, expect)?;
    Ok(if calc { win.passed } else { win.sent })
}

/// The directory for temporary files (`@@tmpdir`).
fn tmp_dir(ctx: &EvalCtx) -> std::path::PathBuf {
    match ctx.cx.engine.global_variable("tmpdir") {
        Some(Value::Bytes(b)) if !b.is_empty() => {
            std::path::PathBuf::from(String::from_utf8_lossy(&b).into_owned())
        }
        _ => std::env::temp_dir(),
    }
}

/// A sorter for `plan`'s ORDER BY, sized by `sort_buffer_size`.
pub(super) fn sorter<'p>(plan: &'p SelectPlan, ctx: &EvalCtx, win: &Window) -> Sorter<'p> {
    let run_limit = ctx.cx.var_u64("sort_buffer_size").min(usize::MAX as u64) as usize;
    Sorter::new(&plan.order, win.stop_at, run_limit, tmp_dir(ctx))
}

/// Emits sorted rows through the window, checking for KILL QUERY as it goes.
pub(super) fn emit_sorted(
    sorter: Sorter<'_>,
    win: &mut Window,
    ex: &mut Exec,
    emit: &mut Emit,
) -> R<()> {
    sorter.count(
        &ex.ctx.cx.stats.counters,
        ex.ctx.cx.stats.counters.ranged_read(),
    );
    let mut rows = sorter.finish()?;
    let mut n = 0u32;
    while let Some(mut r) = rows.next_row()? {
        n = n.wrapping_add(1);
        if n.is_multiple_of(256) {
            ex.check_interrupt()?;
        }
        if win.offer(&mut r, ex.ctx, emit)? == Flow::Stop {
            break;
        }
    }
    Ok(())
}

fn run_sorted(plan: &SelectPlan, ex: &mut Exec, mut win: Window, emit: &mut Emit) -> R<u64> {
    let mut sorter = sorter(plan, ex.ctx, &win);
    let mut seen = Seen::default();
    let mut total = 0u64;
    let mut sink =
        |row: &[Value], _: Option<&basalt_storage::RowHandle>, ctx: &mut EvalCtx| -> R<Flow> {
            let mut out = Row::new();
            if output_row(plan, row, &mut seen, &mut out, ctx)? {
                total += 1;
                sorter.push(out, &mut ctx.mem)?;
            }
            Ok(Flow::Continue)
        };
    drive(plan, ex, &mut sink)?;
    emit_sorted(sorter, &mut win, ex, emit)?;
    Ok(if plan.calc_found_rows {
        total
    } else {
        win.sent
    })
}

/// The output expressions over one row, into `out` (cleared first; a fresh row
/// gets exactly their number of cells).
pub(super) fn project_into(
    exprs: &[Expr],
    row: &[Value],
    out: &mut Row,
    ctx: &mut EvalCtx,
) -> R<()> {
    out.clear();
    out.reserve_exact(exprs.len());
    for e in exprs {
        // A bare column (most select items) is a copy, without the evaluator.
        let v = match e {
            Expr::Column(i) => row.get(*i).cloned().unwrap_or(Value::Null),
            _ => e.eval(row, ctx)?,
        };
        out.push(v);
    }
    Ok(())
}

fn project(exprs: &[Expr], row: &[Value], ctx: &mut EvalCtx) -> R<Row> {
    let mut out = Row::new();
    project_into(exprs, row, &mut out, ctx)?;
    Ok(out)
}

/// The DISTINCT / UNION key of a row: equal for rows equal under each column's
/// collation (strings) or value (numbers).
pub(crate) fn row_key(vals: &[Value], types: &[ExprType]) -> Vec<u8> {
    let mut k = Vec::new();
    for (i, v) in vals.iter().enumerate() {
        let coll = types
            .get(i)
            .map_or(Collation::Binary, ExprType::key_collation);
        group_key(v, coll, &mut k);
    }
    k
}

/// The aggregate output rows (before HAVING), in group order.
pub(super) fn groups(plan: &SelectPlan, ex: &mut Exec) -> R<Vec<Row>> {
    let agg = plan
        .agg
        .as_ref()
        .ok_or_else(|| basalt_common::MySqlError::internal("no aggregate plan"))?;
    if agg.rollup {
        return super::rollup::groups(plan, agg, ex);
    }
    let mut aggregator = Aggregator::new(agg, ex.ctx);
    let mut sink =
        |row: &[Value], _: Option<&basalt_storage::RowHandle>, ctx: &mut EvalCtx| -> R<Flow> {
            aggregator.add(row, ctx)?;
            Ok(Flow::Continue)
        };
    drive(plan, ex, &mut sink)?;
    aggregator.finish(ex.ctx)
}

fn run_agg(plan: &SelectPlan, ex: &mut Exec, mut win: Window, emit: &mut Emit) -> R<u64> {
    let groups = groups(plan, ex)?;
    let mut rows = Vec::with_capacity(groups.len());
    let mut seen = Seen::default();
    for g in groups {
        if let Some(h) = &plan.having {
            if h.eval_bool(&g, ex.ctx)? != Some(true) {
                continue;
            }
        }
        let out = project(&plan.project, &g, ex.ctx)?;
        if plan.distinct
            && !seen.first(row_key(&out[..plan.visible], &plan.types), &mut ex.ctx.mem)?
        {
            continue;
        }
        rows.push(out);
    }
    sort_rows(&mut rows, &plan.order);
    let total = rows.len() as u64;
    for (i, mut r) in rows.into_iter().enumerate() {
        if i % 256 == 255 {
            ex.check_interrupt()?;
        }
        if win.offer(&mut r, ex.ctx, emit)? == Flow::Stop {
            break;
        }
    }
    Ok(if plan.calc_found_rows {
        total
    } else {
        win.sent
    })
}

/// UNION: the rows of the branches up to the last UNION DISTINCT without
/// duplicates (the first occurrence stays, in order), then those of the UNION ALL
/// branches after it; ORDER BY / LIMIT apply to the combined rows.
fn run_union(plan: &SelectPlan, ex: &mut Exec, mut win: Window, emit: &mut Emit) -> R<u64> {
    let last_distinct = plan
        .union
        .iter()
        .enumerate()
        .skip(1)
        .rev()
        .find(|(_, (_, all))| !all)
        .map(|(i, _)| i);
    let calc = plan.calc_found_rows;
    let mut sorter = (!plan.order.is_empty()).then(|| sorter(plan, ex.ctx, &win));
    let mut seen = Seen::default();
    let mut total = 0u64;
    let mut done = false;
    for (i, (branch, _)) in plan.union.iter().enumerate() {
        let dedupe = last_distinct.is_some_and(|k| i <= k);
        let mut branch_emit = |r: &mut Row, ctx: &mut EvalCtx| -> R<Flow> {
            for (v, t) in r.iter_mut().zip(&plan.types) {
                coerce(v, t);
            }
            if dedupe && !seen.first(row_key(r, &plan.types), &mut ctx.mem)? {
                return Ok(Flow::Continue);
            }
            total += 1;
            if let Some(s) = &mut sorter {
                s.push(std::mem::take(r), &mut ctx.mem)?;
                return Ok(Flow::Continue);
            }
            if win.offer(r, ctx, emit)? == Flow::Stop && !calc {
                done = true;
                return Ok(Flow::Stop);
            }
            Ok(Flow::Continue)
        };
        run_into(branch, ex, &mut branch_emit)?;
        if done {
            break;
        }
    }
    if let Some(s) = sorter {
        emit_sorted(s, &mut win, ex, emit)?;
    }
    Ok(if calc { total } else { win.sent })
}

/// Converts a branch value to the union's column type (strings stay strings,
/// numbers to the common numeric kind), as MariaDB does for UNION results.
pub(super) fn coerce(v: &mut Value, t: &crate::ty::ExprType) {
    use crate::ty::Class;
    if v.is_null() {
        return;
    }
    match t.class {
        Class::String if !matches!(v, Value::Bytes(_)) => {
            *v = Value::Bytes(crate::value::to_bytes(v))
        }
        Class::Decimal if !matches!(v, Value::Decimal(_)) => {
            let d = crate::value::to_num(v).0.to_decimal();
            *v = Value::Decimal(d.rescale(t.decimals).unwrap_or(d));
        }
        Class::Decimal => {
            if let Value::Decimal(d) = v {
                *d = d.rescale(t.decimals).unwrap_or(*d);
            }
        }
        Class::Double if !matches!(v, Value::Double(_)) => {
            *v = Value::Double(crate::value::to_f64(v))
        }
        _ => {}
    }
}
