//! Computed column values of a row about to be written: DEFAULT expressions and
//! generated columns (rules in [`crate::bind::computed`]).

use super::store::{store, Target};
use crate::bind::computed::Computed;
use crate::expr::{EvalCtx, Expr};
use crate::session::ctx::Level;
use basalt_common::{MySqlError, Row, TableDef, Value};

type R<T> = Result<T, MySqlError>;

/// Where the computed values go: the table and how conversions report.
pub struct Place<'a> {
    pub db: &'a str,
    pub def: &'a TableDef,
    pub row_no: u64,
    pub strict: bool,
}

fn computed_value(e: &Expr, ci: usize, row: &Row, p: &Place, ctx: &mut EvalCtx) -> R<Value> {
    let v = e.eval(row, ctx)?;
    let col = &p.def.columns[ci];
    if v.is_null() {
        if col.nullable {
            return Ok(Value::Null);
        }
        let err = MySqlError::bad_null(&col.name);
        if p.strict {
            return Err(err);
        }
        ctx.cx.warn_err(&err);
        return Ok(super::insert::implicit_default(col));
    }
    let target = Target {
        db: p.db,
        table: &p.def.name,
        col,
        row: p.row_no,
        strict: p.strict,
    };
    store(v, &target, ctx.cx)
}

/// Evaluates the DEFAULT expression of each column `pending` marks (a column
/// the statement gave no value), in column order, each over the row so far.
pub fn fill_defaults(
    c: &Computed,
    row: &mut Row,
    pending: &[bool],
    p: &Place,
    ctx: &mut EvalCtx,
) -> R<()> {
    for (ci, e) in &c.defaults {
        if pending.get(*ci).copied().unwrap_or(false) {
            row[*ci] = computed_value(e, *ci, row, p, ctx)?;
        }
    }
    Ok(())
}

/// Recomputes every generated column of the row, in column order.
pub fn fill_generated(c: &Computed, row: &mut Row, p: &Place, ctx: &mut EvalCtx) -> R<()> {
    for (ci, e) in &c.generated {
        row[*ci] = computed_value(e, *ci, row, p, ctx)?;
    }
    Ok(())
}

/// 1906 for a value written into generated column `ci`: an error in strict
/// mode, otherwise a warning (the value is ignored either way).
pub fn written_generated(def: &TableDef, ci: usize, strict: bool, ctx: &mut EvalCtx) -> R<()> {
    let err = MySqlError::new(
        1906,
        "HY000",
        format!(
            "The value specified for generated column '{}' in table '{}' has been ignored",
            def.columns[ci].name, def.name
        ),
    );
    if strict {
        return Err(err);
    }
    ctx.cx.warn(Level::Warning, err.code, err.message);
    Ok(())
}
