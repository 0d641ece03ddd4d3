//! Subqueries. Uncorrelated ones run once, before the statement that contains
//! them, and their result is kept in the evaluation context for `Expr::Sub` /
//! `Expr::InSub`; subqueries are listed inner before outer, so a subquery's own
//! subqueries are ready when it runs. Correlated ones run per distinct outer
//! value (see `EvalCtx::sub_result`).
//!
//! Memory: an IN subquery's values and a derived table's rows stay charged to the
//! statement's budget while it runs. EXISTS stops at its first row and a scalar
//! subquery at its second (errno 1242), so neither collects anything.

use super::scan::{Flow, R};
use super::{select, Exec};
use crate::expr::{EvalCtx, SubResult};
use crate::plan::{SubKind, SubPlan};
use basalt_common::{MySqlError, Row, Value};
use std::sync::Arc;

pub fn materialize(subs: &Arc<Vec<SubPlan>>, ex: &mut Exec) -> R<()> {
    ex.ctx.subs.clear();
    ex.ctx.clear_sub_cache();
    ex.ctx.sub_plans = Some(subs.clone());
    for sp in subs.iter() {
        if !sp.outer.is_empty() {
            ex.ctx.subs.push(SubResult::Correlated);
            continue;
        }
        let r = run_uncorrelated(sp, ex)?;
        ex.ctx.subs.push(r);
    }
    Ok(())
}

/// Runs an uncorrelated subquery: fills a derived table's rows (a recursive
/// CTE's by iterating, see [`super::cte`]), or returns the subquery's result.
fn run_uncorrelated(sp: &SubPlan, ex: &mut Exec) -> R<SubResult> {
    let Some(t) = &sp.target else {
        return Ok(run_one(sp, ex)?.0);
    };
    if sp.recursive.is_some() || select::materialised(&sp.plan) {
        let c = &ex.ctx.cx.stats.counters;
        c.bump(crate::stats::Stat::CreatedTmpTables);
    }
    match &sp.recursive {
        Some(rec) => super::cte::materialize(sp, rec, t, ex)?,
        None => {
            let out = select::run(&sp.plan, ex)?;
            t.fill(out.rows);
        }
    }
    Ok(SubResult::Scalar(Value::Null))
}

/// Runs the statement's uncorrelated subqueries `range` again (those inside a
/// recursive CTE's steps, before each round), replacing their results.
pub fn rerun(range: std::ops::Range<usize>, ex: &mut Exec) -> R<()> {
    let Some(subs) = ex.ctx.sub_plans.clone() else {
        return Ok(());
    };
    for i in range {
        let Some(sp) = subs.get(i) else { break };
        if !sp.outer.is_empty() {
            continue;
        }
        let r = run_uncorrelated(sp, ex)?;
        if let Some(slot) = ex.ctx.subs.get_mut(i) {
            *slot = r;
        }
    }
    Ok(())
}

/// Runs one subquery and shapes its result by kind; also returns the bytes of
/// the result charged to the memory budget (an IN subquery's values). A
/// correlated subquery runs from inside the evaluation of its outer query, up to
/// 63 levels deep: each level makes sure of real stack first.
pub fn run_one(sp: &SubPlan, ex: &mut Exec) -> R<(SubResult, usize)> {
    crate::stack::grow(|| run_shaped(sp, ex))
}

fn run_shaped(sp: &SubPlan, ex: &mut Exec) -> R<(SubResult, usize)> {
    match sp.kind {
        SubKind::Exists => {
            let mut any = false;
            select::run_into(&sp.plan, ex, &mut |_: &mut Row, _: &mut EvalCtx| {
                any = true;
                Ok(Flow::Stop)
            })?;
            Ok((SubResult::Exists(any), 0))
        }
        SubKind::Scalar => {
            let mut first: Option<Value> = None;
            let mut seen = false;
            let mut too_many = false;
            let ignore = ex.ctx.ignore_errors;
            select::run_into(&sp.plan, ex, &mut |r: &mut Row, _: &mut EvalCtx| {
                if seen && ignore {
                    too_many = true;
                    return Ok(Flow::Stop);
                }
                if seen {
                    return Err(MySqlError::subquery_no_1_row());
                }
                seen = true;
                first = r.first_mut().map(std::mem::take);
                Ok(Flow::Continue)
            })?;
            if too_many {
                // UPDATE / DELETE IGNORE: NULL, with the error as a warning.
                ex.ctx.cx.warn_err(&MySqlError::subquery_no_1_row());
                return Ok((SubResult::Scalar(Value::Null), 0));
            }
            Ok((SubResult::Scalar(first.unwrap_or_default()), 0))
        }
        SubKind::In => {
            let out = select::run(&sp.plan, ex)?;
            let mut has_null = false;
            let mut vals = Vec::with_capacity(out.rows.len());
            for r in out.rows {
                match r.into_iter().next() {
                    Some(v) if !v.is_null() => vals.push(v),
                    _ => has_null = true,
                }
            }
            Ok((SubResult::Set(Arc::new(vals), has_null), out.bytes))
        }
    }
}
