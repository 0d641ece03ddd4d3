//! Running ALTER TABLE: bind the clauses (`bind::alter`), then let storage change
//! the definition in place or copy the table (`basalt_storage::AlterSpec`), with
//! each row converted here to the new columns by the session's sql_mode (as an
//! INSERT would store it: strict modes fail on the first bad value, 1264/1265,
//! and nothing changes; other modes warn and store the adjusted value) and checked
//! against new CHECK constraints (4025).

use super::Session;
use crate::bind::alter::AlterPlan;
use crate::bind::check::Checks;
use crate::exec::store::{store, Target};
use crate::expr::EvalCtx;
use crate::front::native::alter::AlterTable;
use crate::result::QueryResult;
use basalt_common::{ColumnDef, DefaultValue, MySqlError, Row, TableDef, Value};
use basalt_storage::AlterSpec;
use std::sync::Arc;
use std::time::Duration;

type R<T> = Result<T, MySqlError>;

impl Session {
    pub(crate) fn alter_table_native(&mut self, a: AlterTable) -> R<QueryResult> {
        self.implicit_commit()?;
        let db = match &a.db {
            Some(d) => d.clone(),
            None => self.cx.db.clone().ok_or_else(MySqlError::no_db)?,
        };
        if self.cx.temp.contains(&db, &a.table) {
            return self.alter_temp(&db, &a);
        }
        let entered = self.enter_ddl(&[(db.clone(), a.table.clone())])?;
        let r = self.alter_entered(&db, &a);
        self.leave(entered);
        r
    }

    fn alter_entered(&mut self, db: &str, a: &AlterTable) -> R<QueryResult> {
        let storage = self.cx.engine.storage.clone();
        let Some(table) = storage.table(db, &a.table) else {
            if a.if_exists {
                // MariaDB leaves the error in the diagnostics area, at level Error.
                let e = MySqlError::no_such_table(db, &a.table);
                self.cx
                    .warn(crate::session::ctx::Level::Error, e.code, e.message);
                return Ok(QueryResult::ok(0));
            }
            return Err(MySqlError::no_such_table(db, &a.table));
        };
        let mut clear = Vec::new();
        let (_, res) = self.alter_run(
            table.def(),
            a,
            Some(&table),
            |_, plan| {
                clear = plan.clear_partitions.clone();
                Ok(())
            },
            |spec, convert| storage.alter_table(db, &a.table, spec, convert),
        )?;
        if !clear.is_empty() {
            // Named as the ALTER left it (RENAME cannot go with partition clauses).
            storage.delete_partition_rows(db, &a.table, &clear)?;
        }
        Ok(res)
    }

    /// ALTER TABLE of a temporary table: the same binding and row conversion, run
    /// on the session's table (no table locks, nothing written to the catalog).
    fn alter_temp(&mut self, db: &str, a: &AlterTable) -> R<QueryResult> {
        let t = self
            .take_temp_for_alter(db, &a.table)
            .expect("the caller found the temporary table");
        let storage = self.cx.engine.storage.clone();
        let r = self.alter_run(
            t.def(),
            a,
            None,
            |cx, plan| {
                let def = &plan.def;
                if def.partitioning.is_some() {
                    return Err(MySqlError::new(
                        1562,
                        "HY000",
                        "Cannot create temporary table with partitions",
                    ));
                }
                if !def.foreign_keys.is_empty() {
                    return Err(crate::bind::foreign_key::incorrectly_formed(db, &a.table));
                }
                let renamed = def.schema != db || def.name != a.table;
                if renamed && cx.temp.contains(&def.schema, &def.name) {
                    return Err(MySqlError::table_exists(&def.name));
                }
                Ok(())
            },
            |spec, convert| storage.alter_temp(&t, spec, convert),
        );
        match r {
            Ok((Some(new), res)) => {
                drop(t);
                self.restore_temp(new);
                Ok(res)
            }
            Ok((None, res)) => {
                self.restore_temp(t);
                Ok(res)
            }
            Err(e) => {
                self.restore_temp(t);
                Err(e)
            }
        }
    }

    /// Binds the ALTER TABLE of a table defined by `old`, lets `check` refuse the
    /// new definition, and runs it through `run` (given the storage-level spec and
    /// the row converter); returns what `run` returned and the statement's result.
    /// The rows of `table` must satisfy the FOREIGN KEYs the statement adds.
    fn alter_run<T>(
        &mut self,
        old: Arc<TableDef>,
        a: &AlterTable,
        table: Option<&Arc<dyn basalt_storage::Table>>,
        check: impl FnOnce(&crate::session::ctx::SessionCtx, &AlterPlan) -> R<()>,
        run: impl FnOnce(AlterSpec, &mut dyn FnMut(Row, u64) -> R<Row>) -> R<T>,
    ) -> R<(T, QueryResult)> {
        let plan = crate::bind::alter::bind(&old, a, &mut self.cx)?;
        check(&self.cx, &plan)?;
        let new_def = Arc::new(plan.def.clone());
        let checks = self.alter_checks(&plan, &new_def)?;
        if let Some(table) = table {
            let storage = self.cx.engine.storage.clone();
            crate::exec::foreign_key::check_existing_rows(
                &storage,
                table,
                &plan.new_foreign_keys,
                &mut EvalCtx::new(&[], &mut self.cx).mem,
            )?;
        }
        let timeout = Duration::from_secs(self.cx.mdl_wait_timeout);
        let spec = AlterSpec {
            def: plan.def.clone(),
            copy: plan.copy,
            online: plan.online,
            add_index: plan.add_index,
            auto_increment: plan.auto_increment,
            timeout,
            // An IGNORE that may meet clashing rows copies with writers held out
            // (the binder then plans no online work); others have nothing to drop.
            duplicates: (plan.ignore && !plan.online && !plan.add_index).then(Default::default),
        };
        let duplicates = spec.duplicates.clone();
        let mut copied = 0u64;
        let strict = self.cx.mode.strict && !plan.ignore;
        let out = {
            let mut ctx = EvalCtx::new(&[], &mut self.cx);
            let mut convert = |row: Row, n: u64| -> R<Row> {
                copied = n;
                let mut new = convert_row(&old, &new_def, &plan, row, n, strict, &mut ctx)?;
                computed_values(&checks, &plan, &mut new, n, strict, &mut ctx)?;
                verify_checks(&checks, &new, &new_def, &mut ctx)?;
                Ok(new)
            };
            run(spec, &mut convert)?
        };
        let warnings = self.warning_count();
        let records = if plan.counts_rows { copied } else { 0 };
        let dups = duplicates.map_or(0, |d| d.load(std::sync::atomic::Ordering::Relaxed));
        Ok((
            out,
            QueryResult::Ok {
                affected_rows: records,
                last_insert_id: 0,
                info: format!("Records: {records}  Duplicates: {dups}  Warnings: {warnings}"),
                warnings,
            },
        ))
    }

    /// Binds the new definition's CHECK constraints (MariaDB's refusals for ones
    /// that do not bind); returns them when existing rows must pass them.
    fn alter_checks(&mut self, plan: &AlterPlan, def: &Arc<TableDef>) -> R<Checks> {
        let storage = self.cx.engine.storage.clone();
        let mut binder = crate::bind::Binder::new(&storage, &self.cx, "", None);
        binder
            .validate_checks(&def.schema, def)
            .and_then(|_| binder.validate_computed(&def.schema, def))
            .map_err(|(e, _)| e)?;
        let mut binder = crate::bind::Binder::new(&storage, &self.cx, "", None);
        let mut checks = binder.bind_checks_of(&def.schema, def)?;
        if !plan.new_checks {
            checks.list = Arc::from(Vec::new());
        }
        Ok(checks)
    }
}

/// One old row as a row of the new definition.
#[allow(clippy::too_many_arguments)]
fn convert_row(
    old: &TableDef,
    new: &TableDef,
    plan: &AlterPlan,
    mut row: Row,
    n: u64,
    strict: bool,
    ctx: &mut EvalCtx,
) -> R<Row> {
    let mut out = Vec::with_capacity(new.columns.len());
    for (col, src) in new.columns.iter().zip(&plan.sources) {
        let target = Target {
            db: &new.schema,
            table: &new.name,
            col,
            row: n,
            strict,
        };
        let v = match src {
            Some(j) => {
                let was = &old.columns[*j];
                let v = recode(std::mem::take(&mut row[*j]), was, col);
                if was.data_type.same_storage(&col.data_type) && (col.nullable || !was.nullable) {
                    v
                } else if matches!(was.data_type, basalt_common::DataType::Timestamp { .. }) {
                    // Stored in UTC: converted as the session sees it.
                    let v = match v {
                        Value::DateTime(d) if d.date.year != 0 => Value::DateTime(ctx.cx.local(d)),
                        v => v,
                    };
                    stored(v, &target, ctx)?
                } else {
                    stored(v, &target, ctx)?
                }
            }
            None if col.auto_increment => {
                if matches!(
                    col.data_type,
                    basalt_common::DataType::Int { unsigned: true, .. }
                ) {
                    Value::UInt(n)
                } else {
                    Value::Int(n as i64)
                }
            }
            None => added_value(col, ctx.cx),
        };
        out.push(v);
    }
    Ok(out)
}

/// Text moving between a binary string column and one of an 8-bit or wide set:
/// the bytes are that set's encoding (held internally as UTF-8), as MariaDB's
/// copy gives them.
fn recode(v: Value, was: &ColumnDef, col: &ColumnDef) -> Value {
    use basalt_common::{charset, Charset};
    let (Value::Bytes(b), Some(from), Some(to)) =
        (&v, was.data_type.collation(), col.data_type.collation())
    else {
        return v;
    };
    let b = match (from.charset(), to.charset()) {
        (cs, Charset::Binary) if !cs.is_internal_bytes() => charset::from_internal(b, cs),
        (Charset::Binary, cs) if !cs.is_internal_bytes() => charset::to_internal(b, cs),
        _ => return v,
    };
    Value::Bytes(b.into_owned())
}

/// A value converted to a column as an INSERT stores it; NULL into NOT NULL is
/// 1265 in strict mode, otherwise a warning and the type's implicit default.
fn stored(v: Value, t: &Target, ctx: &mut EvalCtx) -> R<Value> {
    if v.is_null() && !t.col.nullable {
        let e = MySqlError::new(
            1265,
            "01000",
            format!(
                "Data truncated for column '{}' at row {}",
                t.col.name, t.row
            ),
        );
        if t.strict {
            return Err(e);
        }
        ctx.cx
            .warn(crate::session::ctx::Level::Warning, e.code, e.message);
        return Ok(crate::exec::insert::implicit_default(t.col));
    }
    let source = v.clone();
    let before = ctx.cx.warnings.len();
    match store(v, t, ctx.cx) {
        Ok(stored) => {
            for w in ctx.cx.warnings[before..].iter_mut() {
                if let Some((code, message)) = as_copy_reports(w.code, &w.message, &source, t) {
                    w.code = code;
                    w.message = message;
                }
            }
            Ok(stored)
        }
        Err(e) => Err(match as_copy_reports(e.code, &e.message, &source, t) {
            Some((code, message)) => MySqlError::new(code, e.state, message),
            None => e,
        }),
    }
}

/// MariaDB's ALTER copies field to field, which words some conversion problems
/// differently from an INSERT: a string too long is 1265 (not 1406), a string
/// that is not a number is 1292 "Truncated incorrect INTEGER value" (not 1366 /
/// 1265), and a bad date is an "Incorrect datetime value" whatever the type.
fn as_copy_reports(code: u16, message: &str, source: &Value, t: &Target) -> Option<(u16, String)> {
    use basalt_common::DataType as D;
    let text = matches!(source, Value::Bytes(_)).then(|| source.display_lossy());
    match (code, &t.col.data_type, text) {
        (1406, _, _) => Some((
            1265,
            format!(
                "Data truncated for column '{}' at row {}",
                t.col.name, t.row
            ),
        )),
        (1366 | 1265, D::Int { .. }, Some(s)) => {
            Some((1292, format!("Truncated incorrect INTEGER value: '{s}'")))
        }
        (1366 | 1265, D::Decimal { .. }, Some(s)) => {
            Some((1292, format!("Truncated incorrect DECIMAL value: '{s}'")))
        }
        (1366 | 1265, D::Float | D::Double, Some(s)) => {
            Some((1292, format!("Truncated incorrect DOUBLE value: '{s}'")))
        }
        (1292, D::Date | D::DateTime { .. } | D::Timestamp { .. }, Some(_)) => Some((
            1292,
            message
                .replacen("Incorrect date value", "Incorrect datetime value", 1)
                .replacen("Incorrect timestamp value", "Incorrect datetime value", 1),
        )),
        _ => None,
    }
}

/// The value an added column takes in existing rows: its default, or for a NOT
/// NULL column without one the type's implicit default (as MariaDB fills it).
fn added_value(col: &ColumnDef, cx: &crate::session::ctx::SessionCtx) -> Value {
    match &col.default {
        Some(DefaultValue::Literal(v)) => v.clone(),
        Some(DefaultValue::CurrentTimestamp) => crate::exec::store::current_timestamp(col, cx),
        // Evaluated on the converted row (`computed_values`).
        Some(DefaultValue::Expr(_)) => Value::Null,
        None if col.nullable => Value::Null,
        None => crate::exec::insert::implicit_default(col),
    }
}

/// The DEFAULT expressions of added columns and every generated column of a
/// copied row.
fn computed_values(
    checks: &Checks,
    plan: &AlterPlan,
    row: &mut Row,
    n: u64,
    strict: bool,
    ctx: &mut EvalCtx,
) -> R<()> {
    let c = &checks.computed;
    if c.defaults.is_empty() && c.generated.is_empty() {
        return Ok(());
    }
    let place = crate::exec::computed::Place {
        db: &plan.def.schema,
        def: &plan.def,
        row_no: n,
        strict,
    };
    let added: Vec<bool> = plan.sources.iter().map(Option::is_none).collect();
    crate::exec::computed::fill_defaults(c, row, &added, &place, ctx)?;
    crate::exec::computed::fill_generated(c, row, &place, ctx)
}

fn verify_checks(checks: &Checks, row: &[Value], def: &TableDef, ctx: &mut EvalCtx) -> R<()> {
    for c in checks.iter() {
        if c.expr.eval_bool(row, ctx)? == Some(false) {
            return Err(crate::bind::check::constraint_failed(
                &c.label,
                &def.schema,
                &def.name,
            ));
        }
    }
    Ok(())
}
