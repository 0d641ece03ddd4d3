//! INTERSECT and EXCEPT [ALL | DISTINCT].
//!
//! The right operand runs first and is kept as a multiset of row keys (the keys
//! UNION DISTINCT compares, so NULLs are equal and strings compare under their
//! collation), charged to the statement's memory budget. The left operand then
//! streams, each row decided against the multiset:
//!
//! | operation | a left row is kept when |
//! |---|---|
//! | INTERSECT | its key is in the right operand and not emitted yet |
//! | INTERSECT ALL | the right operand has an unmatched copy left (one is used up) |
//! | EXCEPT | its key is not in the right operand and not emitted yet |
//! | EXCEPT ALL | the right operand has no unmatched copy left (else one is used up) |
//!
//! so INTERSECT ALL keeps min(m, n) copies of a row and EXCEPT ALL max(m - n, 0),
//! in the order of the left operand. ORDER BY / LIMIT of the whole apply as for
//! UNION.

use super::agg::Seen;
use super::mem::{HASH_ENTRY, VEC};
use super::scan::{Flow, R};
use super::select::{coerce, emit_sorted, row_key, run_into, sorter, Emit, Window};
use super::Exec;
use crate::expr::EvalCtx;
use crate::plan::{SelectPlan, SetOpKind, SetOpPlan};
use basalt_common::Row;
use std::collections::HashMap;

type Counts = HashMap<Vec<u8>, u64, foldhash::fast::RandomState>;

pub(super) fn run(
    plan: &SelectPlan,
    so: &SetOpPlan,
    ex: &mut Exec,
    mut win: Window,
    emit: &mut Emit,
) -> R<u64> {
    let mut counts = Counts::default();
    run_into(&so.right, ex, &mut |r: &mut Row, ctx: &mut EvalCtx| {
        coerce_row(r, plan);
        let key = row_key(r, &plan.types);
        let n = key.capacity() + VEC + HASH_ENTRY;
        let c = counts.entry(key).or_insert(0);
        if *c == 0 {
            ctx.mem.charge(n)?;
        }
        *c += 1;
        Ok(Flow::Continue)
    })?;
    let mut sorter = (!plan.order.is_empty()).then(|| sorter(plan, ex.ctx, &win));
    let mut emitted = Seen::default();
    let mut done = false;
    run_into(&so.left, ex, &mut |r: &mut Row, ctx: &mut EvalCtx| {
        coerce_row(r, plan);
        let key = row_key(r, &plan.types);
        let keep = match (so.kind, so.all) {
            (SetOpKind::Intersect, false) => {
                counts.contains_key(&key) && emitted.first(key, &mut ctx.mem)?
            }
            (SetOpKind::Except, false) => {
                !counts.contains_key(&key) && emitted.first(key, &mut ctx.mem)?
            }
            (kind, true) => {
                let matched = match counts.get_mut(&key) {
                    Some(c) if *c > 0 => {
                        *c -= 1;
                        true
                    }
                    _ => false,
                };
                matched == (kind == SetOpKind::Intersect)
            }
        };
        if !keep {
            return Ok(Flow::Continue);
        }
        if let Some(s) = &mut sorter {
            s.push(std::mem::take(r), &mut ctx.mem)?;
            return Ok(Flow::Continue);
        }
        if win.offer(r, ctx, emit)? == Flow::Stop {
            done = true;
            return Ok(Flow::Stop);
        }
        Ok(Flow::Continue)
    })?;
    if let Some(s) = sorter {
        if !done {
            emit_sorted(s, &mut win, ex, emit)?;
        }
    }
    Ok(win.sent)
}

fn coerce_row(r: &mut Row, plan: &SelectPlan) {
    for (v, t) in r.iter_mut().zip(&plan.types) {
        coerce(v, t);
    }
}
