//! Constant subexpressions evaluated once per statement.
//!
//! A plan is cached with its literals turned into parameters, so
//! `l_shipdate <= date '1998-12-01' - interval 90 day` reaches the executor as
//! `Column <= Arith(Cast(Param), Param)`: without help the cast parses the date
//! text again for every row. [`mark`] wraps each largest subexpression built
//! only from constants and parameters with functions whose value is fixed within
//! a statement in [`Expr::Once`]; [`eval`] computes it at its first use and keeps
//! the value in the statement's [`EvalCtx`]. Its warnings come once, as
//! MariaDB's (which evaluates constant parts of a condition while optimizing:
//! `WHERE a > 1/0` warns once, not once per row); an evaluation that fails
//! returns its error, as every row's would.

use super::{EvalCtx, Expr, R};
use basalt_common::Value;
use std::sync::atomic::{AtomicU64, Ordering};

/// Numbers the marked subexpressions of all plans (a plan's copies share theirs:
/// they compute the same value).
static NEXT: AtomicU64 = AtomicU64::new(1);

/// Wraps the largest constant subexpressions of `e` (those worth keeping: not a
/// bare constant or parameter) in [`Expr::Once`].
pub fn mark(e: &mut Expr) {
    if worth_keeping(e) {
        let inner = std::mem::replace(e, Expr::Const(Value::Null));
        *e = Expr::Once(Box::new(inner), NEXT.fetch_add(1, Ordering::Relaxed));
        return;
    }
    e.walk_children_mut(&mut mark);
}

/// [`mark`] on an optional expression.
pub fn mark_opt(e: &mut Option<Expr>) {
    if let Some(e) = e {
        mark(e);
    }
}

fn worth_keeping(e: &Expr) -> bool {
    !matches!(e, Expr::Const(_) | Expr::Param(_) | Expr::Once(..)) && constant(e)
}

/// Built from constants and parameters only, with operators and functions whose
/// value is fixed within a statement.
fn constant(e: &Expr) -> bool {
    let node = match e {
        Expr::Const(_) | Expr::Param(_) => return true,
        Expr::Arith(..) | Expr::Neg(_) | Expr::Cast(..) => true,
        Expr::Func(f, _) => f.is_deterministic_per_statement(),
        _ => false,
    };
    node && e.children().into_iter().all(constant)
}

/// The value of the marked subexpression `e` number `id`.
pub fn eval(e: &Expr, id: u64, row: &[Value], ctx: &mut EvalCtx) -> R {
    if let Some((_, v)) = ctx.once.iter().find(|(k, _)| *k == id) {
        return Ok(v.clone());
    }
    let v = e.eval(row, ctx)?;
    ctx.once.push((id, v.clone()));
    Ok(v)
}
