//! Running a stored function inside the statement that calls it. The body's
//! instructions run in a frame of their own (parameters, then variables), in
//! the caller's transaction and session, under the function's sql_mode and
//! database and (SQL SECURITY DEFINER) its definer's privileges. Each
//! statement and expression of the body runs in a fresh evaluation context, as
//! a statement of its own would; handlers, cursors and SIGNAL behave as in a
//! procedure.

use crate::expr::{EvalCtx, R};
use crate::plan::{Plan, SelectPlan};
use crate::session::ctx::Level;
use crate::session::routine_diag::BodyEnd;
use crate::sp::conditions::{catchable, find, no_data, warning_state};
use crate::sp::function::{BExpr, BoundFunction, FInstr, SetTo};
use crate::sp::{Frame, SlotDef, SpScope};
use basalt_common::{MySqlError, Row, Value};
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

use super::scan::Flow;
use super::Exec;

/// Calls `f` with the values of `args` (evaluated in the caller's row).
pub fn call(f: &BoundFunction, args: &[crate::expr::Expr], row: &[Value], ctx: &mut EvalCtx) -> R {
    require_execute(f, ctx)?;
    let mut values = vec![Value::Null; f.slots.len()];
    for (i, a) in args.iter().enumerate() {
        values[i] = a.eval(row, ctx)?;
    }
    let saved = Saved::enter(f, ctx);
    // The value converts to the RETURNS type under the function's sql_mode
    // (its warnings are the caller's; its error is the RETURN's).
    let r = crate::stack::grow(|| run_frame(f, values, ctx)).and_then(|v| match (v, &f.ret) {
        (Some((v, at)), Some(ret)) => convert(ret, v, ctx).inspect_err(|_| note_line(f, at, ctx)),
        (Some((v, _)), None) => Ok(v),
        _ => Err(MySqlError::new(
            1321,
            "2F005",
            format!("FUNCTION {} ended without RETURN", f.name),
        )),
    });
    saved.leave(ctx);
    r
}

/// EXECUTE on the function's database (1370).
pub(super) fn require_execute(f: &BoundFunction, ctx: &mut EvalCtx) -> Result<(), MySqlError> {
    if ctx.cx.privs.unrestricted() {
        return Ok(());
    }
    ctx.cx
        .require_db(&f.db, basalt_acl::Privs::EXECUTE)
        .map_err(|_| {
            let (user, host) = ctx.cx.privs.account.clone().unwrap_or_default();
            MySqlError::new(
                1370,
                "42000",
                format!(
                    "execute command denied to user '{user}'@'{host}' for routine '{}.{}'",
                    f.db, f.name
                ),
            )
        })
}

/// What a call changes in the session and restores.
pub(super) struct Saved {
    mode: crate::sysvars::ModeFlags,
    db: Option<Option<String>>,
    privs: Option<crate::account::SessionPrivs>,
}

impl Saved {
    pub(super) fn enter(f: &BoundFunction, ctx: &mut EvalCtx) -> Saved {
        let cx = &mut *ctx.cx;
        let mode = std::mem::replace(&mut cx.mode, f.mode);
        let db = (cx.db.as_deref() != Some(f.db.as_str())).then(|| cx.db.replace(f.db.clone()));
        let privs = match (&f.definer, &cx.privs.account) {
            (Some((u, h)), Some(acc)) if (&acc.0, &acc.1) != (u, h) => Some(std::mem::replace(
                &mut cx.privs,
                crate::account::SessionPrivs::for_account(u, h),
            )),
            _ => None,
        };
        Saved { mode, db, privs }
    }

    pub(super) fn leave(self, ctx: &mut EvalCtx) {
        ctx.cx.mode = self.mode;
        if let Some(db) = self.db {
            ctx.cx.db = db;
        }
        if let Some(p) = self.privs {
            ctx.cx.privs = p;
        }
    }
}

fn run_frame(
    f: &BoundFunction,
    values: Vec<Value>,
    ctx: &mut EvalCtx,
) -> Result<Returned, MySqlError> {
    let mut values = values;
    for (i, v) in values.iter_mut().enumerate().take(f.params) {
        *v = convert(&f.slots[i], std::mem::take(v), ctx)?;
    }
    in_frame(f, values, ctx).0
}

/// Runs `f`'s body in a frame holding `values`; gives its RETURN value and
/// the frame's values as the body left them.
pub(super) fn in_frame(
    f: &BoundFunction,
    values: Vec<Value>,
    ctx: &mut EvalCtx,
) -> (Result<Returned, MySqlError>, Vec<Value>) {
    static ROOT: OnceLock<Arc<SpScope>> = OnceLock::new();
    let frame = Frame {
        values,
        slots: f.slots.clone(),
        scope: ROOT.get_or_init(|| SpScope::new(Vec::new())).clone(),
    };
    let caller = ctx.cx.sp.replace(Box::new(frame));
    let r = run(f, ctx);
    let frame = std::mem::replace(&mut ctx.cx.sp, caller);
    (r, frame.map(|f| f.values).unwrap_or_default())
}

/// A value stored as the slot's type would store it (under the function's
/// sql_mode: an error when strict, else a warning).
pub(super) fn convert(def: &SlotDef, v: Value, ctx: &mut EvalCtx) -> R {
    convert_in(def, ("", ""), v, ctx)
}

/// [`convert`] naming the column `names.0`.`names.1`.`col` in messages (a
/// trigger's NEW row).
fn convert_in(def: &SlotDef, names: (&str, &str), v: Value, ctx: &mut EvalCtx) -> R {
    let target = crate::exec::store::Target {
        db: names.0,
        table: names.1,
        col: &def.col,
        // MariaDB reports a variable's conversions "at row 0".
        row: 0,
        strict: ctx.cx.mode.strict,
    };
    crate::exec::store::store(v, &target, ctx.cx)
}

struct Activation {
    handler: usize,
    resume: usize,
    caught: MySqlError,
}

struct Runtime {
    cursors: Vec<Option<VecDeque<Row>>>,
    active: Vec<Activation>,
    /// A statement of the body, or of a procedure it called, uses tables.
    uses_tables: bool,
}

enum Step {
    Next(usize),
    Return(Value),
}

/// Runs the body on a diagnostics list of its own (see
/// `session/routine_diag.rs`).
/// A RETURN's value and the instruction that gave it.
pub(super) type Returned = Option<(Value, usize)>;

fn run(f: &BoundFunction, ctx: &mut EvalCtx) -> Result<Returned, MySqlError> {
    let caller = ctx.cx.enter_body_diagnostics(f.reads_diagnostics);
    let mut rt = Runtime {
        cursors: vec![None; f.cursors],
        active: Vec::new(),
        uses_tables: f.uses_tables,
    };
    let r = run_body(f, &mut rt, ctx);
    let end = match &r {
        _ if f.procedure => {
            if r.is_err() && ctx.cx.kept_warnings {
                // The error is the failing instruction's first condition.
                ctx.cx.clear_warnings();
            }
            BodyEnd::Procedure
        }
        Ok(_) => BodyEnd::Returned,
        Err(_) => BodyEnd::Failed,
    };
    ctx.cx.leave_body_diagnostics(caller, end, rt.uses_tables);
    r
}

fn run_body(
    f: &BoundFunction,
    rt: &mut Runtime,
    ctx: &mut EvalCtx,
) -> Result<Returned, MySqlError> {
    let mut pc = 0;
    while pc < f.instrs.len() {
        if ctx.interrupt.is_some_and(|i| i.load(Ordering::Relaxed)) {
            return Err(MySqlError::query_interrupted());
        }
        // Each instruction's first condition replaces what earlier ones left.
        ctx.cx.kept_warnings = true;
        pc = match step(f, pc, rt, ctx) {
            Ok(Step::Return(v)) => return Ok(Some((v, pc))),
            Ok(Step::Next(next)) => match raised_warning(f, pc, ctx) {
                Some((h, w)) => activate(f, rt, h, next, w, ctx),
                None => next,
            },
            Err(e) => match catchable(&e)
                .then(|| find(&f.handlers, pc, e.code, e.state, false))
                .flatten()
            {
                Some(h) => {
                    let resume = match &f.instrs[pc] {
                        FInstr::JumpUnless { to, .. } => *to,
                        _ => pc + 1,
                    };
                    activate(f, rt, h, resume, e, ctx)
                }
                None => {
                    note_line(f, pc, ctx);
                    return Err(e);
                }
            },
        };
    }
    Ok(None)
}

/// Note 4094 naming the line an error leaves the body at (listed after the
/// error by the statement that lists it).
fn note_line(f: &BoundFunction, pc: usize, ctx: &mut EvalCtx) {
    let line = f.lines.get(pc).copied().unwrap_or(0);
    let (code, text) = crate::sp::line_note(line, &f.db, &f.name);
    ctx.cx.trailing_note(code, text);
}

/// Starts handler `h` for condition `caught`; returns where to go. The
/// handler sees the condition it handles, and only it, in the diagnostics.
fn activate(
    f: &BoundFunction,
    rt: &mut Runtime,
    h: usize,
    resume: usize,
    caught: MySqlError,
    ctx: &mut EvalCtx,
) -> usize {
    let at = resume.saturating_sub(1);
    let handlers = &f.handlers;
    rt.active
        .retain(|a| (handlers[a.handler].body..handlers[a.handler].body_end).contains(&at));
    let level = match caught.state.get(..2) {
        Some("01") | Some("02") => Level::Warning,
        _ => Level::Error,
    };
    ctx.cx.clear_warnings();
    ctx.cx.trailing.clear();
    ctx.cx
        .warn_state(level, caught.code, caught.state, caught.message.clone());
    rt.active.push(Activation {
        handler: h,
        resume,
        caught,
    });
    handlers[h].body
}

/// The handler for a warning the statement at `pc` raised, if one matches.
fn raised_warning(f: &BoundFunction, pc: usize, ctx: &EvalCtx) -> Option<(usize, MySqlError)> {
    if f.handlers.is_empty()
        || ctx.cx.kept_warnings
        || !matches!(
            f.instrs[pc],
            FInstr::Set(_) | FInstr::SelectInto { .. } | FInstr::Change(_) | FInstr::Call(_)
        )
    {
        return None;
    }
    let w = ctx
        .cx
        .warnings
        .iter()
        .rev()
        .find(|w| w.level == Level::Warning)?;
    let state = warning_state(w.code);
    let h = find(&f.handlers, pc, w.code, state, true)?;
    Some((h, MySqlError::new(w.code, state, w.message.clone())))
}

fn step(
    f: &BoundFunction,
    pc: usize,
    rt: &mut Runtime,
    ctx: &mut EvalCtx,
) -> Result<Step, MySqlError> {
    match &f.instrs[pc] {
        FInstr::Fail(e) => return Err(e.clone()),
        FInstr::Set(items) => {
            for (to, value) in items {
                let v = value_of(value, ctx)?;
                assign(f, to, v, ctx)?;
            }
        }
        FInstr::Null(slot) => {
            if let Some(fr) = ctx.cx.sp.as_mut() {
                fr.values[*slot] = Value::Null;
            }
        }
        FInstr::JumpUnless { cond, to } => {
            let v = value_of(cond, ctx)?;
            if crate::value::truth(&v) != Some(true) {
                return Ok(Step::Next(*to));
            }
        }
        FInstr::Jump(to) => return Ok(Step::Next(*to)),
        FInstr::CaseNotFound => {
            return Err(MySqlError::new(
                1339,
                "20000",
                "Case not found for CASE statement",
            ))
        }
        FInstr::Change(plan) => {
            ctx.cx.check_needs(plan.needs())?;
            change(plan, ctx)?;
        }
        FInstr::SelectInto { plan, into } => select_into(f, plan, into, ctx)?,
        FInstr::Open {
            cursor,
            plan,
            reopen,
        } => {
            if rt.cursors[*cursor].is_some() && !reopen {
                return Err(MySqlError::new(1325, "24000", "Cursor is already open"));
            }
            ctx.cx.check_needs(&plan.needs)?;
            rt.cursors[*cursor] = Some(rows_of(plan, usize::MAX, ctx)?.0.into());
        }
        FInstr::Fetch {
            cursor,
            slots,
            done,
        } => {
            let rows = rt.cursors[*cursor]
                .as_mut()
                .ok_or_else(|| MySqlError::new(1326, "24000", "Cursor is not open"))?;
            let row = match (rows.pop_front(), done) {
                (Some(row), _) => row,
                (None, Some(to)) => return Ok(Step::Next(*to)),
                (None, None) => return Err(no_data()),
            };
            if row.len() != slots.len() {
                return Err(MySqlError::new(
                    1328,
                    "HY000",
                    "Incorrect number of FETCH variables",
                ));
            }
            for (slot, v) in slots.iter().zip(row) {
                assign(f, &SetTo::Local(*slot), v, ctx)?;
            }
        }
        FInstr::Close(cursor) => {
            if rt.cursors[*cursor].take().is_none() {
                return Err(MySqlError::new(1326, "24000", "Cursor is not open"));
            }
        }
        FInstr::Signal {
            resignal,
            cond,
            items,
        } => {
            let caught = rt.active.last().map(|a| &a.caught);
            let mut e = crate::sp::conditions::signal_base(*resignal, cond.as_ref(), caught)?;
            for (item, value) in items {
                let v = value_of(value, ctx)?;
                crate::sp::conditions::signal_item(&mut e, item, v)?;
            }
            if !e.state.starts_with("01") {
                return Err(e);
            }
            // A warning: listed, and the function goes on unless handled.
            if let Some(h) = find(&f.handlers, pc, e.code, e.state, true) {
                return Ok(Step::Next(activate(f, rt, h, pc + 1, e, ctx)));
            }
            ctx.cx.warn(Level::Warning, e.code, e.message);
        }
        FInstr::HandlerEnd(id) => {
            while let Some(a) = rt.active.pop() {
                if a.handler == *id {
                    // The handled condition does not outlive its handler.
                    let only_it = matches!(ctx.cx.warnings.as_slice(),
                        [w] if w.code == a.caught.code && w.message == a.caught.message);
                    if only_it {
                        ctx.cx.clear_warnings();
                    }
                    return Ok(Step::Next(f.handlers[*id].exit_to.unwrap_or(a.resume)));
                }
            }
            return Err(MySqlError::internal("handler end without its activation"));
        }
        FInstr::Return(value) => return Ok(Step::Return(value_of(value, ctx)?)),
        FInstr::Do(plan) => super::stored_call::do_exprs(plan, ctx)?,
        FInstr::GetDiagnostics { condition, items } => {
            super::stored_call::get_diagnostics(f, condition.as_ref(), items, ctx)?
        }
        FInstr::Call(c) => rt.uses_tables |= super::stored_call::call(f, c, ctx)?,
    }
    Ok(Step::Next(pc + 1))
}

pub(super) fn assign(
    f: &BoundFunction,
    to: &SetTo,
    v: Value,
    ctx: &mut EvalCtx,
) -> Result<(), MySqlError> {
    match to {
        SetTo::User(n, fsp) => {
            let v = crate::value::user_var_value(v, *fsp);
            ctx.cx.user_vars.insert(n.clone(), v);
        }
        SetTo::Sys { def, default } => ctx.cx.set_in_function(def, v, *default)?,
        SetTo::Local(slot) => {
            let def = &f.slots[*slot];
            let names = match &f.table {
                Some((db, t)) if *slot < f.params => (db.as_str(), t.as_str()),
                _ => ("", ""),
            };
            let v = convert_in(def, names, v, ctx)?;
            if let Some(fr) = ctx.cx.sp.as_mut() {
                fr.values[*slot] = v;
            }
        }
    }
    Ok(())
}

/// A context for one statement or expression of the body, in the caller's
/// session and transaction.
fn nested<'c>(ctx: &'c mut EvalCtx<'_>, dml: bool) -> EvalCtx<'c> {
    let mut inner = EvalCtx::new(&[], &mut *ctx.cx);
    inner.txn = ctx.txn.as_deref_mut();
    inner.interrupt = ctx.interrupt;
    inner.depth = ctx.depth;
    inner.strict_dml = dml;
    inner
}

pub(super) fn value_of(e: &BExpr, ctx: &mut EvalCtx) -> R {
    match e {
        BExpr::Plain(e) => e.eval(&[], &mut nested(ctx, false)),
        BExpr::Query(p) => {
            ctx.cx.check_needs(&p.needs)?;
            let (rows, _) = rows_of(p, 1, ctx)?;
            Ok(rows
                .into_iter()
                .next()
                .and_then(|r| r.into_iter().next())
                .unwrap_or(Value::Null))
        }
    }
}

/// Runs a query: up to `keep` of its rows, and how many it gave.
pub(super) fn rows_of(
    p: &SelectPlan,
    keep: usize,
    ctx: &mut EvalCtx,
) -> Result<(Vec<Row>, usize), MySqlError> {
    let mut inner = nested(ctx, false);
    let mut ex = Exec { ctx: &mut inner };
    let mut rows = Vec::new();
    let mut count = 0usize;
    let mut emit = |row: &mut Row, _: &mut EvalCtx| -> Result<Flow, MySqlError> {
        count += 1;
        if rows.len() < keep {
            rows.push(std::mem::take(row));
        }
        Ok(Flow::Continue)
    };
    super::select::run_into(p, &mut ex, &mut emit)?;
    Ok((rows, count))
}

fn select_into(
    f: &BoundFunction,
    plan: &SelectPlan,
    into: &[SetTo],
    ctx: &mut EvalCtx,
) -> Result<(), MySqlError> {
    ctx.cx.check_needs(&plan.needs)?;
    if plan.visible != into.len() {
        return Err(MySqlError::new(
            1222,
            "21000",
            "The used SELECT statements have a different number of columns",
        ));
    }
    let (rows, count) = rows_of(plan, 1, ctx)?;
    if count > 1 {
        return Err(MySqlError::new(
            1172,
            "42000",
            "Result consisted of more than one row",
        ));
    }
    let Some(row) = rows.into_iter().next() else {
        let e = no_data();
        ctx.cx.warn(Level::Warning, e.code, e.message);
        return Ok(());
    };
    for (to, v) in into.iter().zip(row) {
        assign(f, to, v, ctx)?;
    }
    Ok(())
}

fn change(plan: &Plan, ctx: &mut EvalCtx) -> Result<(), MySqlError> {
    let mut inner = nested(ctx, true);
    let mut ex = Exec { ctx: &mut inner };
    match plan {
        Plan::Insert(p) => {
            let o = super::insert::run(p, &mut ex)?;
            if o.last_insert_id != 0 {
                inner.cx.last_insert_id = o.last_insert_id;
            }
            inner.cx.row_count = o.affected as i64;
            Ok(())
        }
        Plan::Modify(p) => {
            let o = super::modify::run(p, &mut ex)?;
            inner.cx.row_count = o.changed as i64;
            Ok(())
        }
        Plan::Select(_) => Err(crate::bind::stored_fn::no_result_set()),
    }
}
