//! Uncorrelated subqueries: each runs once, before the statement that contains
//! it, and its result is kept in the evaluation context for `Expr::Sub` /
//! `Expr::InSub`. Subqueries are listed inner before outer, so a subquery's own
//! subqueries are ready when it runs.

use super::scan::R;
use super::{select, Exec};
use crate::expr::SubResult;
use crate::plan::{SubKind, SubPlan};
use basalt_common::MySqlError;

pub fn materialize(subs: &std::sync::Arc<Vec<SubPlan>>, ex: &mut Exec) -> R<()> {
    ex.ctx.subs.clear();
    ex.ctx.sub_cache.clear();
    ex.ctx.sub_plans = Some(subs.clone());
    for sp in subs.iter() {
        if !sp.outer.is_empty() {
            ex.ctx.subs.push(SubResult::Correlated);
            continue;
        }
        if let Some(t) = &sp.target {
            let out = select::run(&sp.plan, ex)?;
            t.fill(out.rows);
            ex.ctx
                .subs
                .push(SubResult::Scalar(basalt_common::Value::Null));
            continue;
        }
        let r = run_one(sp, ex)?;
        ex.ctx.subs.push(r);
    }
    Ok(())
}

/// Runs one subquery and shapes its result by kind. A correlated subquery runs
/// from inside the evaluation of its outer query, up to 63 levels deep: each level
/// makes sure of real stack first.
pub fn run_one(sp: &SubPlan, ex: &mut Exec) -> R<SubResult> {
    let out = crate::stack::grow(|| select::run(&sp.plan, ex))?;
    Ok(match sp.kind {
        SubKind::Exists => SubResult::Exists(!out.rows.is_empty()),
        SubKind::Scalar => match out.rows.len() {
            0 => SubResult::Scalar(basalt_common::Value::Null),
            1 => SubResult::Scalar(
                out.rows
                    .into_iter()
                    .next()
                    .and_then(|r| r.into_iter().next())
                    .unwrap_or_default(),
            ),
            _ => return Err(MySqlError::subquery_no_1_row()),
        },
        SubKind::In => {
            let mut has_null = false;
            let mut vals = Vec::with_capacity(out.rows.len());
            for r in out.rows {
                match r.into_iter().next() {
                    Some(v) if !v.is_null() => vals.push(v),
                    _ => has_null = true,
                }
            }
            SubResult::Set(vals, has_null)
        }
    })
}
