//! Firing triggers for one row. Each trigger runs as a stored function's body
//! does (`stored_fn.rs`): in a frame of its own whose first variables are the
//! row's columns (NEW, then OLD), in the statement's transaction, under the
//! trigger's sql_mode and database and with its definer's privileges. What a
//! BEFORE trigger leaves in NEW is the row the statement writes; an error in
//! any trigger fails the statement (which then rolls back its changes).
//!
//! Order, as MariaDB fires them: INSERT runs BEFORE INSERT on the completed
//! row, then writes it and runs AFTER INSERT; UPDATE runs BEFORE UPDATE on the
//! assigned row, writes it when it changed and runs AFTER UPDATE either way;
//! DELETE runs BEFORE DELETE, deletes, runs AFTER DELETE. ON DUPLICATE KEY
//! UPDATE fires the update's triggers for a clashing row (no AFTER INSERT);
//! REPLACE fires the delete's triggers for each row it replaces. Foreign key
//! cascades fire no trigger.

use super::stored_fn::{in_frame, Saved};
use crate::expr::EvalCtx;
use crate::sp::function::BoundFunction;
use crate::sp::trigger::{Event, TableTriggers, Timing};
use basalt_common::{MySqlError, Row, Value};

/// Fires the triggers of `event` and `timing`, with the NEW row `new` (a
/// BEFORE trigger's changes are written back to it) and the OLD row `old`.
pub fn fire(
    trg: &TableTriggers,
    event: Event,
    timing: Timing,
    mut new: Option<&mut Row>,
    old: Option<&Row>,
    ctx: &mut EvalCtx,
) -> Result<(), MySqlError> {
    for f in trg.get(event, timing) {
        let row = new.as_deref_mut();
        fire_one(f, trg.width, event, timing, row, old, ctx)?;
    }
    Ok(())
}

fn fire_one(
    f: &BoundFunction,
    width: usize,
    event: Event,
    timing: Timing,
    new: Option<&mut Row>,
    old: Option<&Row>,
    ctx: &mut EvalCtx,
) -> Result<(), MySqlError> {
    let mut values = vec![Value::Null; f.slots.len()];
    if let Some(n) = &new {
        values[event.new_at()..width].clone_from_slice(&n[..width]);
    }
    if let Some(o) = old {
        let at = event.old_at(width);
        values[at..at + width].clone_from_slice(&o[..width]);
    }
    let saved = Saved::enter(f, ctx);
    let (r, values) = crate::stack::grow(|| in_frame(f, values, ctx));
    saved.leave(ctx);
    r?;
    if let (Some(n), Timing::Before) = (new, timing) {
        n[..width].clone_from_slice(&values[..width]);
    }
    Ok(())
}
