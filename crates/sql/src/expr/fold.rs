//! Constant expressions evaluated while planning: the bounds of a range
//! (`l_shipdate <= date '1998-12-01' - interval 90 day`) must be values for the
//! histogram to estimate how many rows the range holds.
//!
//! Only expressions that read no row, variable or table and call only functions
//! whose value is fixed within a statement are evaluated, on a scratch session
//! context (the session's own cannot be borrowed mutably while its statement is
//! bound). Warnings and errors are dropped: the value only informs an estimate,
//! and the statement evaluates the expression again when it runs.

use super::{EvalCtx, Expr};
use crate::engine::Engine;
use crate::session::ctx::SessionCtx;
use basalt_common::Value;
use std::sync::Arc;

/// The value of `e` if it is such a constant (`params`: the values of the
/// statement's parameters, when known).
pub fn constant_value(engine: &Arc<Engine>, e: &Expr, params: Option<&[Value]>) -> Option<Value> {
    match e {
        Expr::Const(v) => return Some(v.clone()),
        Expr::Param(i) => return params?.get(*i).cloned(),
        _ => {}
    }
    let mut constant = true;
    e.walk(&mut |x| {
        constant &= match x {
            Expr::Const(_) | Expr::Arith(..) | Expr::Neg(_) | Expr::Cast(..) => true,
            Expr::Param(_) => params.is_some(),
            Expr::Func(f, _) => f.is_deterministic_per_statement(),
            _ => false,
        }
    });
    if !constant {
        return None;
    }
    let mut cx = SessionCtx::new(engine.clone(), 0, "", "");
    let mut ctx = EvalCtx::new(params.unwrap_or(&[]), &mut cx);
    e.eval(&[], &mut ctx).ok()
}
