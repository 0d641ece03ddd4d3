//! CHECK constraints: collected and validated at CREATE TABLE, bound again for
//! the plan of every statement that writes the table, evaluated on each new row.
//!
//! MariaDB's rules, which this follows:
//! - a CHECK in a column definition is named after the column (its errors say
//!   `` `table.column` ``); a table-level one takes its CONSTRAINT name or the
//!   first free `CONSTRAINT_<n>`; names are unique per table (1826);
//! - a JSON column is LONGTEXT with an implicit column-level
//!   `CHECK (json_valid(col))`;
//! - the condition may read any column of the row but no subquery (1970) and no
//!   function whose value is not fixed by the row (1901: `rand()`, `now()`, ...);
//! - a row passes unless the condition is false: NULL passes;
//! - column-level checks run first, in column order, then table-level ones in
//!   declaration order; the first that fails is reported (4025, SQLSTATE 23000),
//!   also under INSERT IGNORE;
//! - `SET check_constraint_checks = 0` turns the evaluation off for the session.

use super::print::{print, reparse_text};
use super::{Binder, Clause, Scope, ScopeTable};
use crate::expr::func::Func;
use crate::expr::Expr;
use crate::plan::TableRef;
use basalt_common::{CheckDef, ColumnDef, MySqlError, TableDef};
use sqlparser::ast::{self, ColumnOption, TableConstraint};
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// A bound CHECK constraint: the name its failure reports and the condition over
/// the table's row.
#[derive(Clone, Debug)]
pub struct BoundCheck {
    pub label: String,
    pub expr: Expr,
}

/// What a statement that writes a table must do to each new row, bound for one
/// plan (nothing for most tables): its CHECK constraints (the slice this
/// dereferences to) and its computed columns.
#[derive(Clone, Debug)]
pub struct Checks {
    pub list: Arc<[BoundCheck]>,
    pub computed: Arc<super::computed::Computed>,
    /// The table's triggers (None when it has none).
    pub triggers: Option<Arc<crate::sp::trigger::TableTriggers>>,
}

impl Checks {
    /// The table's triggers when some fire on `event`.
    pub fn fires(
        &self,
        event: crate::sp::trigger::Event,
    ) -> Option<&crate::sp::trigger::TableTriggers> {
        self.triggers.as_deref().filter(|t| t.has(event))
    }
}

impl Default for Checks {
    fn default() -> Self {
        Checks {
            list: Arc::from(Vec::new()),
            computed: Arc::default(),
            triggers: None,
        }
    }
}

impl std::ops::Deref for Checks {
    type Target = [BoundCheck];
    fn deref(&self) -> &[BoundCheck] {
        &self.list
    }
}

/// 4025: the row does not satisfy constraint `label` of `db`.`table`.
pub fn constraint_failed(label: &str, db: &str, table: &str) -> MySqlError {
    MySqlError::new(
        4025,
        "23000",
        format!("CONSTRAINT `{label}` failed for `{db}`.`{table}`"),
    )
}

fn subqueries_not_supported(what: &str) -> MySqlError {
    let _ = what;
    MySqlError::new(
        1970,
        "42000",
        "CHECK does not support subqueries or stored functions",
    )
}

fn duplicate_name(name: &str) -> MySqlError {
    MySqlError::new(
        1826,
        "HY000",
        format!("Duplicate CHECK constraint name '{name}'"),
    )
}

/// The name MariaDB's 1901 gives a function whose value is not fixed by the row
/// (MariaDB refuses these in a CHECK); `None` for the others.
pub(crate) fn not_allowed(f: Func, args: usize) -> Option<&'static str> {
    use Func::*;
    Some(match f {
        Rand => "rand()",
        Now | SysDate | UtcTimestamp => "current_timestamp()",
        CurDate | UtcDate => "curdate()",
        CurTime | UtcTime => "curtime()",
        UnixTimestamp if args == 0 => "unix_timestamp()",
        Uuid => "uuid()",
        User => "user()",
        CurrentUser => "current_user()",
        CurrentRole => "current_role()",
        Database => "database()",
        ConnectionId => "connection_id()",
        LastInsertId => "last_insert_id()",
        FoundRows => "found_rows()",
        RowCount => "row_count()",
        Version => "version()",
        _ => return None,
    })
}

/// 1901 for the first part of a bound condition that the row does not determine.
fn check_deterministic(e: &Expr, name: &str) -> R<()> {
    let mut bad: Option<String> = None;
    e.walk(&mut |x| {
        if bad.is_some() {
            return;
        }
        bad = match x {
            Expr::Func(f, args) => not_allowed(*f, args.len()).map(str::to_string),
            Expr::UserVar(v) | Expr::SetUserVar(v, _, _) => Some(format!("@{v}")),
            Expr::SysVar { def, .. } => Some(format!("@@{}", def.name)),
            Expr::StoredCall(f, _) => Some(format!("`{}`()", f.0.name)),
            _ => None,
        };
    });
    match bad {
        Some(what) => Err(MySqlError::new(
            1901,
            "HY000",
            format!(
                "Function or expression '{what}' cannot be used in the CHECK clause of `{name}`"
            ),
        )),
        None => Ok(()),
    }
}

/// The CHECK constraints of a CREATE TABLE, in evaluation order.
pub fn collect(ct: &ast::CreateTable, columns: &[ColumnDef]) -> R<Vec<CheckDef>> {
    let mut out: Vec<CheckDef> = Vec::new();
    for (c, col) in ct.columns.iter().zip(columns) {
        let explicit = c.options.iter().find_map(|o| match &o.option {
            ColumnOption::Check(chk) => Some((o.name.is_some(), chk)),
            _ => None,
        });
        let expr = match explicit {
            Some((true, _)) => return Err(MySqlError::parse_error("CHECK", 1)),
            Some((false, chk)) => Some(condition_text(&chk.expr, chk.enforced)?),
            None if matches!(c.data_type, ast::DataType::JSON) => {
                Some(format!("json_valid(`{}`)", col.name.replace('`', "``")))
            }
            None => None,
        };
        if let Some(expr) = expr {
            out.push(CheckDef {
                name: col.name.clone(),
                column_level: true,
                expr,
            });
        }
    }
    let mut unnamed = Vec::new();
    for tc in &ct.constraints {
        let TableConstraint::Check(chk) = tc else {
            continue;
        };
        let label = chk.name.as_ref().map(|n| n.value.clone());
        let expr = condition_text(&chk.expr, chk.enforced)?;
        match label {
            Some(name) => {
                if out.iter().any(|d| d.name.eq_ignore_ascii_case(&name)) {
                    return Err(duplicate_name(&name));
                }
                out.push(CheckDef {
                    name,
                    column_level: false,
                    expr,
                });
            }
            None => {
                unnamed.push(out.len());
                out.push(CheckDef {
                    name: String::new(),
                    column_level: false,
                    expr,
                });
            }
        }
    }
    let mut n = 0;
    for i in unnamed {
        let name = loop {
            n += 1;
            let candidate = format!("CONSTRAINT_{n}");
            if !out.iter().any(|d| d.name.eq_ignore_ascii_case(&candidate)) {
                break candidate;
            }
        };
        out[i].name = name;
    }
    Ok(out)
}

/// The condition's stored text (MariaDB's printed form).
fn condition_text(e: &ast::Expr, enforced: Option<bool>) -> R<String> {
    if enforced == Some(false) {
        return Err(MySqlError::not_supported("NOT ENFORCED"));
    }
    print(e, subqueries_not_supported)
}

/// The label a failure of `c` reports: `table.column` for a column-level check.
fn label(def: &TableDef, c: &CheckDef) -> String {
    if c.column_level {
        format!("{}.{}", def.name, c.name)
    } else {
        c.name.clone()
    }
}

/// The scope of one table's row, as stored expressions (CHECK, DEFAULT,
/// generated columns) are bound over it.
pub(crate) fn table_scope(db: &str, def: &Arc<TableDef>) -> Scope {
    let mut scope = Scope::default();
    scope.tables.push(ScopeTable {
        alias: def.name.clone(),
        db: db.to_string(),
        def: def.clone(),
        offset: 0,
        nullable: false,
        view: None,
        types: None,
    });
    scope
}

impl Binder<'_> {
    /// Binds every CHECK of `def` over the table's row layout.
    pub fn bind_checks_of(&mut self, db: &str, def: &Arc<TableDef>) -> R<Checks> {
        let computed = Arc::new(self.bind_computed(db, def)?);
        Ok(Checks {
            list: self.bind_conditions(db, def)?,
            computed,
            triggers: None,
        })
    }

    fn bind_conditions(&mut self, db: &str, def: &Arc<TableDef>) -> R<Arc<[BoundCheck]>> {
        if def.checks.is_empty() {
            return Ok(Arc::from(Vec::new()));
        }
        let scope = table_scope(db, def);
        let saved = (self.clause, self.reusable, self.subplans.len());
        self.clause = Clause::Check;
        let mut out = Vec::with_capacity(def.checks.len());
        for c in &def.checks {
            let text = reparse_text(&c.expr);
            let ast = crate::front::parse::parse_expr(&text)?;
            let (expr, _) = self.expr(&ast, &scope, None)?;
            if self.subplans.len() != saved.2 {
                return Err(subqueries_not_supported(""));
            }
            out.push(BoundCheck {
                label: label(def, c),
                expr,
            });
        }
        self.clause = saved.0;
        self.reusable = saved.1;
        Ok(Arc::from(out))
    }

    /// Binds the checks of a table being created, with MariaDB's refusals: unknown
    /// columns (1054 in 'CHECK'), subqueries (1970), functions the row does not
    /// determine (1901).
    /// On failure, also the condition MariaDB names in its follow-up 4027 (for a
    /// condition that does not bind).
    pub fn validate_checks(
        &mut self,
        db: &str,
        def: &Arc<TableDef>,
    ) -> Result<(), (MySqlError, Option<String>)> {
        for c in &def.checks {
            let one = Arc::new(TableDef {
                checks: vec![c.clone()],
                ..(**def).clone()
            });
            let bound = self.bind_conditions(db, &one).map_err(|e| {
                let follow = (e.code == 1054).then(|| c.expr.clone());
                (e, follow)
            })?;
            for b in bound.iter() {
                check_deterministic(&b.expr, &c.name).map_err(|e| (e, None))?;
            }
        }
        Ok(())
    }

    /// [`Binder::bind_checks_of`] for the table an INSERT or UPDATE writes,
    /// with its triggers.
    pub fn bind_checks(&mut self, t: &TableRef) -> R<Checks> {
        let mut c = self.bind_checks_of(&t.db, &t.def)?;
        c.triggers = self.bind_triggers(t)?;
        Ok(c)
    }

    /// What a DELETE of `t` checks: its triggers only.
    pub fn bind_delete_checks(&mut self, t: &TableRef) -> R<Checks> {
        Ok(Checks {
            triggers: self.bind_triggers(t)?,
            ..Checks::default()
        })
    }
}

impl Binder<'_> {
    /// Binds a stored partitioning expression over a table's row (refused
    /// subqueries as in a CHECK).
    pub fn expr_for_partition(
        &mut self,
        e: &ast::Expr,
        scope: &Scope,
    ) -> R<(Expr, crate::ty::ExprType)> {
        self.clause = Clause::Check;
        let before = self.subplans.len();
        let r = self.expr(e, scope, None)?;
        if self.subplans.len() != before {
            return Err(subqueries_not_supported(""));
        }
        Ok(r)
    }
}
