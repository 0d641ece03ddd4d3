//! Triggers of the table a statement changes, bound with the statement: each
//! trigger's body is compiled with the row's columns as its first variables
//! (`new.col`, then `old.col`, as the event has them) and bound as a stored
//! function's body is (`stored_fn.rs`). `NEW.col` / `OLD.col` in expressions
//! resolve to those variables; a statement of a trigger that would change a
//! table the firing statements change is 1442 when it runs.

use super::stored_fn::{FnBinder, TriggerRows};
use super::Binder;
use crate::expr::Expr;
use crate::plan::TableRef;
use crate::session::ctx::SessionCtx;
use crate::sp::trigger::{Event, TableTriggers, Timing};
use crate::sp::{Mode, ParamDef, SlotDef};
use crate::ty::ExprType;
use basalt_common::{MySqlError, TableDef};
use basalt_storage::{Storage, TriggerDef};
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

impl Binder<'_> {
    /// The triggers of the table `t` a statement changes (None when it has
    /// none). 1442 when a trigger being bound would change `t`.
    pub fn bind_triggers(&mut self, t: &TableRef) -> R<Option<Arc<TableTriggers>>> {
        let key = (t.db.clone(), t.def.name.clone());
        let in_use = self.routine.as_ref().map_or(&[][..], |r| &r.in_use[..]);
        if in_use.contains(&key) {
            return Err(table_in_use(&t.def.name));
        }
        if basalt_storage::is_temp_id(t.def.id) {
            return Ok(None);
        }
        let defs = self.storage.triggers_of(&t.db, &t.def.name);
        if defs.is_empty() {
            return Ok(None);
        }
        let mut in_use = self.tables_in_use();
        if !in_use.contains(&key) {
            in_use.push(key);
        }
        let stack = self
            .routine
            .as_ref()
            .map(|r| r.stack.clone())
            .unwrap_or_default();
        let mut out = TableTriggers::new(t.def.columns.len());
        for d in &defs {
            let (event, timing) = kind(d);
            let f = bind_trigger(
                self.storage,
                self.cx,
                d,
                &t.def,
                in_use.clone(),
                stack.clone(),
            )?;
            out.push(event, timing, f);
        }
        Ok(Some(Arc::new(out)))
    }

    /// `NEW.col` / `OLD.col` in a trigger's body (None when `ids` names
    /// neither row): its variable, 1363 when the event has no such row, 1054
    /// for a column the table lacks.
    pub(super) fn trigger_row(&self, first: &str, col: &str) -> R<Option<(Expr, ExprType)>> {
        let Some(rows) = self.routine.as_ref().and_then(|r| r.trigger.as_ref()) else {
            return Ok(None);
        };
        let Some(new) = row_word(first) else {
            return Ok(None);
        };
        check_row(rows, new)?;
        let name = format!("{}.{}", if new { "new" } else { "old" }, col);
        match self.local(&name) {
            Some((slot, t)) => Ok(Some((Expr::Local(slot), t))),
            None => Err(unknown_column(col, new)),
        }
    }
}

fn row_word(w: &str) -> Option<bool> {
    if w.eq_ignore_ascii_case("new") {
        Some(true)
    } else if w.eq_ignore_ascii_case("old") {
        Some(false)
    } else {
        None
    }
}

fn check_row(rows: &TriggerRows, new: bool) -> R<()> {
    let has = if new {
        rows.event.has_new()
    } else {
        rows.event.has_old()
    };
    if has {
        return Ok(());
    }
    Err(MySqlError::new(
        1363,
        "HY000",
        format!(
            "There is no {} row in on {} trigger",
            if new { "NEW" } else { "OLD" },
            rows.event.name()
        ),
    ))
}

fn unknown_column(col: &str, new: bool) -> MySqlError {
    MySqlError::new(
        1054,
        "42S22",
        format!(
            "Unknown column '{col}' in '{}'",
            if new { "NEW" } else { "OLD" }
        ),
    )
}

/// 1442: a trigger's (or function's) statement changes a table the statement
/// that fired it uses.
impl Binder<'_> {
    /// The tables a function or trigger bound now must not change: those the
    /// statements calling it change (the routine binding's chain) and those
    /// this statement names so far (MariaDB refuses a change to any table
    /// the invoking statement uses, 1442).
    pub(super) fn tables_in_use(&self) -> Vec<(String, String)> {
        let mut out = self
            .routine
            .as_ref()
            .map(|r| r.in_use.clone())
            .unwrap_or_default();
        for n in &self.needs {
            let key = (n.db.clone(), n.table.clone());
            if !out.contains(&key) {
                out.push(key);
            }
        }
        out
    }
}

pub fn table_in_use(table: &str) -> MySqlError {
    MySqlError::new(
        1442,
        "HY000",
        format!("Can't update table '{table}' in stored function/trigger because it is already used by statement which invoked this stored function/trigger"),
    )
}

/// `SET NEW.col = ...` / `SET OLD.col = ...` that did not compile to an
/// assignment of a row variable: the row is missing (1363) or lacks the
/// column (1054).
pub fn check_row_set(rows: &TriggerRows, text: &str) -> R<()> {
    let rest = text.trim_start();
    let Some(target) = rest
        .get(..4)
        .filter(|h| h.eq_ignore_ascii_case("set "))
        .and_then(|_| rest.get(4..))
    else {
        return Ok(());
    };
    let target = target.trim_start();
    let Some((word, col)) = target.split_once('.') else {
        return Ok(());
    };
    let Some(new) = row_word(word.trim_matches('`')) else {
        return Ok(());
    };
    check_row(rows, new)?;
    let col = col
        .split(|c: char| c == '=' || c.is_whitespace() || c == ':')
        .next()
        .unwrap_or_default()
        .trim_matches('`');
    Err(unknown_column(col, new))
}

/// The event and timing of a trigger.
pub fn kind(d: &TriggerDef) -> (Event, Timing) {
    let timing = if d.timing == "BEFORE" {
        Timing::Before
    } else {
        Timing::After
    };
    (Event::from_name(&d.event), timing)
}

/// The row variables of a trigger on `table` for `event`: `new.col` for each
/// column, then `old.col` (as the event has them).
pub fn row_params(table: &TableDef, event: Event) -> Vec<ParamDef> {
    let mut out = Vec::new();
    for (has, word) in [(event.has_new(), "new"), (event.has_old(), "old")] {
        if has {
            out.extend(table.columns.iter().map(|c| ParamDef {
                mode: Mode::In,
                name: format!("{word}.{}", c.name),
                type_text: String::new(),
            }));
        }
    }
    out
}

/// A column's variable: the column's type, NULL allowed (a BEFORE trigger may
/// leave NULL in a NOT NULL column; the row's write checks it).
fn row_slot(col: &basalt_common::ColumnDef) -> SlotDef {
    let mut col = col.clone();
    col.nullable = true;
    col.auto_increment = false;
    col.generated = None;
    col.default = None;
    let ty = ExprType::of_column(&col);
    SlotDef { col, ty }
}

/// Binds one trigger of `table` for a statement.
pub fn bind_trigger(
    storage: &Arc<Storage>,
    cx: &SessionCtx,
    def: &TriggerDef,
    table: &TableDef,
    in_use: Vec<(String, String)>,
    stack: Vec<(String, String)>,
) -> R<crate::sp::function::BoundFunction> {
    let (event, timing) = kind(def);
    let params = row_params(table, event);
    let tree = crate::sp::parse::parse_body(&def.body)?;
    let coll = super::stored_fn::routine_collation(storage, &def.database_collation, &def.schema);
    let width = table.columns.len();
    let mut catalog =
        super::row_type::Catalog::new(storage, cx, (&def.schema, &def.sql_mode), coll);
    catalog.fixed = (0..params.len())
        .map(|i| row_slot(&table.columns[i % width]))
        .collect();
    catalog.trigger = Some(super::stored_fn::TriggerRows {
        event,
        before: timing == crate::sp::trigger::Timing::Before,
    });
    let program = crate::sp::compile::compile(&tree, &params, &mut catalog)?;
    let mut slots = Vec::with_capacity(program.slot_types.len());
    for (i, (name, ty)) in program.slot_types.iter().enumerate() {
        slots.push(if i < params.len() {
            row_slot(&table.columns[i % width])
        } else {
            crate::sp::slot_def(name, ty, coll, cx)?
        });
    }
    let mut fb = FnBinder::new(
        storage,
        cx,
        (&def.schema, &def.sql_mode),
        slots,
        (stack, in_use),
    );
    fb.trigger = Some(TriggerRows {
        event,
        before: timing == crate::sp::trigger::Timing::Before,
    });
    fb.in_trigger = true;
    let instrs = fb.instrs(&program.instrs);
    Ok(crate::sp::function::BoundFunction {
        db: def.schema.clone(),
        name: def.name.clone(),
        slots: fb.slots,
        params: params.len(),
        ret: None,
        table: Some((def.schema.clone(), def.table.clone())),
        instrs,
        lines: crate::sp::statement_lines(
            &program,
            &crate::infoschema::triggers::create_statement(def),
            &def.body,
        ),
        handlers: program.handlers,
        cursors: program.cursors,
        mode: crate::sysvars::ModeFlags::from_text(&def.sql_mode),
        definer: Some((def.definer_user.clone(), def.definer_host.clone())),
        reads: fb.reads || fb.calls,
        writes: fb.writes || fb.calls,
        uses_tables: fb.reads || fb.writes,
        reads_diagnostics: fb.diagnostics,
        procedure: false,
    })
}
