//! CHECK constraint evaluation on a row about to be written (see
//! [`crate::bind::check`] for the rules).

use super::Exec;
use crate::bind::check::{constraint_failed, BoundCheck};
use basalt_common::{MySqlError, Value};

/// 4025 for the first constraint the row fails (a NULL result passes), unless
/// `check_constraint_checks` is off for the session.
pub fn verify(
    checks: &[BoundCheck],
    row: &[Value],
    db: &str,
    table: &str,
    ex: &mut Exec,
) -> Result<(), MySqlError> {
    if checks.is_empty() || !ex.ctx.cx.var_bool("check_constraint_checks") {
        return Ok(());
    }
    for c in checks {
        if c.expr.eval_bool(row, ex.ctx)? == Some(false) {
            return Err(constraint_failed(&c.label, db, table));
        }
    }
    Ok(())
}
