//! Running CALL, DO and GET DIAGNOSTICS inside a stored function or trigger.
//! A CALL checks what MariaDB checks, in its order: the procedure exists
//! (1305), the recursion limit (1456), EXECUTE (1370), that the procedure can
//! run in a function or trigger (1336 / 1415 / 1445 / 1422), the argument
//! count (1318) and that each OUT / INOUT argument is a variable (1414); then
//! the procedure runs in the caller's transaction under its own sql_mode,
//! database and definer, and its OUT values go back to the caller's
//! variables.

use super::stored_fn::{assign, in_frame, require_execute, rows_of, value_of, Saved};
use crate::bind::stored_call::{bind_procedure, procedure_key};
use crate::expr::EvalCtx;
use crate::plan::SelectPlan;
use crate::session::ctx::Level;
use crate::sp::function::{BExpr, BoundFunction, BoundProcedure, FnCall, SetTo};
use crate::sp::Mode;
use basalt_common::{MySqlError, Value};
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// CALL from `f`'s body; tells whether the procedure uses tables.
pub(super) fn call(f: &BoundFunction, c: &FnCall, ctx: &mut EvalCtx) -> R<bool> {
    let p = c.bound.get_or_init(|| bind(c, ctx)).clone()?;
    let key = procedure_key(&p.body.db, &p.body.name);
    let depth = c.stack.iter().filter(|k| **k == key).count() as u64;
    let limit = ctx.cx.var_u64("max_sp_recursion_depth");
    if depth > limit {
        return Err(MySqlError::new(
            1456,
            "HY000",
            format!(
                "Recursive limit {limit} (as set by the max_sp_recursion_depth variable) was exceeded for routine {}",
                p.body.name
            ),
        ));
    }
    require_execute(&p.body, ctx)?;
    if let Some(e) = &p.refusal {
        return Err(e.clone());
    }
    check_args(&p, c)?;
    let mut values = vec![Value::Null; p.body.slots.len()];
    for (i, (mode, (arg, _))) in p.modes.iter().zip(&c.args).enumerate() {
        if *mode != Mode::Out {
            values[i] = value_of(arg, ctx)?;
        }
    }
    let saved = Saved::enter(&p.body, ctx);
    let r = crate::stack::grow(|| run(&p.body, values, ctx));
    saved.leave(ctx);
    let mut values = r?;
    for (i, (mode, (_, target))) in p.modes.iter().zip(&c.args).enumerate() {
        if let (true, Some(to)) = (*mode != Mode::In, target) {
            let v = std::mem::take(&mut values[i]);
            let fsp = p.body.slots[i].ty.decimals;
            assign_out(f, to, v, fsp, ctx)?;
        }
    }
    Ok(p.body.uses_tables)
}

/// The procedure's body run on `values` (parameters converted to their
/// types first); gives the values it left.
fn run(p: &BoundFunction, mut values: Vec<Value>, ctx: &mut EvalCtx) -> R<Vec<Value>> {
    for (i, v) in values.iter_mut().enumerate().take(p.params) {
        *v = super::stored_fn::convert(&p.slots[i], std::mem::take(v), ctx)?;
    }
    let (r, values) = in_frame(p, values, ctx);
    r.map(|_| values)
}

/// An OUT value into the caller's variable (a temporal value kept in a user
/// variable as its text, as a top-level CALL keeps it).
fn assign_out(f: &BoundFunction, to: &SetTo, v: Value, fsp: u8, ctx: &mut EvalCtx) -> R<()> {
    match to {
        SetTo::User(n, _) => assign(f, &SetTo::User(n.clone(), fsp), v, ctx),
        SetTo::Local(_) | SetTo::Sys { .. } => assign(f, to, v, ctx),
    }
}

fn bind(c: &FnCall, ctx: &EvalCtx) -> R<Arc<BoundProcedure>> {
    let storage = ctx.cx.engine.storage.clone();
    let def = storage
        .routine(&c.db, "PROCEDURE", &c.name)
        .ok_or_else(|| {
            MySqlError::new(
                1305,
                "42000",
                format!("PROCEDURE {}.{} does not exist", c.db, c.name),
            )
        })?;
    let mut stack = c.stack.clone();
    stack.push(procedure_key(&def.schema, &def.name));
    bind_procedure(
        &storage,
        ctx.cx,
        &def,
        (stack, c.in_use.clone()),
        c.in_trigger,
    )
    .map(Arc::new)
}

/// 1318 for a wrong argument count, 1414 for an OUT / INOUT argument that is
/// no variable.
fn check_args(p: &BoundProcedure, c: &FnCall) -> R<()> {
    if p.modes.len() != c.args.len() {
        return Err(MySqlError::new(
            1318,
            "42000",
            format!(
                "Incorrect number of arguments for PROCEDURE {}.{}; expected {}, got {}",
                p.body.db,
                p.body.name,
                p.modes.len(),
                c.args.len()
            ),
        ));
    }
    for (i, (mode, (_, target))) in p.modes.iter().zip(&c.args).enumerate() {
        if *mode != Mode::In && target.is_none() {
            return Err(crate::sp::out_not_variable(i + 1, &p.body.db, &p.body.name));
        }
    }
    Ok(())
}

/// DO: an error the expressions raise is listed and the statement goes on.
pub(super) fn do_exprs(plan: &SelectPlan, ctx: &mut EvalCtx) -> R<()> {
    ctx.cx.check_needs(&plan.needs)?;
    if let Err(e) = rows_of(plan, 0, ctx) {
        if e.code == MySqlError::query_interrupted().code {
            return Err(e);
        }
        ctx.cx.warn_state(Level::Error, e.code, e.state, e.message);
    }
    Ok(())
}

/// GET DIAGNOSTICS from the body's diagnostics list.
pub(super) fn get_diagnostics(
    f: &BoundFunction,
    condition: Option<&BExpr>,
    items: &[(SetTo, String)],
    ctx: &mut EvalCtx,
) -> R<()> {
    let n = match condition {
        Some(e) => Some(crate::session::diagnostics::condition_number(value_of(
            e, ctx,
        )?)),
        None => None,
    };
    let names: Vec<&str> = items.iter().map(|(_, item)| item.as_str()).collect();
    let Some(values) = crate::session::diagnostics::read_items(ctx.cx, n, &names) else {
        return Ok(());
    };
    for ((to, _), v) in items.iter().zip(values) {
        assign(f, to, v, ctx)?;
    }
    Ok(())
}
