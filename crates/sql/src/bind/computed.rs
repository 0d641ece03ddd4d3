//! Computed column values: DEFAULT expressions and generated columns.
//!
//! Both are kept in the table definition as MariaDB's printed form of the
//! expression (what `SHOW CREATE TABLE` shows) and bound again, over the table's
//! row, for the plan of every statement that writes the table (with its CHECK
//! constraints, [`super::check::Checks`]).
//!
//! MariaDB's rules, which this follows:
//! - a DEFAULT expression may read any column, but not one defined after it that
//!   has a DEFAULT expression itself, nor its own column (4029); a generated
//!   column may not read itself or a generated column defined after it (4029);
//! - neither may contain a subquery or a stored function (1901 `select ...`); a
//!   STORED generated column, or an indexed VIRTUAL one, may not use a function
//!   whose value the row does not fix (1901);
//! - a row gets its values in three steps: the values given and the constant
//!   defaults, then DEFAULT expressions in column order, then generated columns
//!   in column order (after the AUTO_INCREMENT value);
//! - a value other than DEFAULT (or NULL) written into a generated column is
//!   1906: an error in strict mode, a warning otherwise, and the value is ignored.
//!
//! Basalt keeps the values of VIRTUAL columns in the row too, recomputed on each
//! write; so a VIRTUAL column whose expression the row does not fix (`now()`),
//! which MariaDB evaluates on each read, is 1235.

use super::check::table_scope;
use super::print::{print, reparse_text};
use super::{Binder, Clause, Scope, ScopeTable};
use crate::expr::func::Func;
use crate::expr::Expr;
use crate::ty::ExprType;
use basalt_common::{ColumnDef, DataType, DefaultValue, Generated, MySqlError, TableDef, Value};
use sqlparser::ast::{self, ColumnOption};
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// The DEFAULT expressions and generated columns of a table, bound over its row.
#[derive(Clone, Debug, Default)]
pub struct Computed {
    /// (column, DEFAULT expression), in column order.
    pub defaults: Vec<(usize, Expr)>,
    /// (column, generation expression), in column order.
    pub generated: Vec<(usize, Expr)>,
}

const NAME_MARK: &str = "\u{1}";

fn refused(what: &str) -> MySqlError {
    let _ = what;
    MySqlError::new(1901, "HY000", NAME_MARK)
}

/// 1901: `what` cannot be used in `clause` of column `col`.
pub fn not_allowed(what: &str, clause: Clause, col: &str) -> MySqlError {
    MySqlError::new(
        1901,
        "HY000",
        format!(
            "Function or expression '{what}' cannot be used in the {} clause of `{col}`",
            clause.name()
        ),
    )
}

fn printed(e: &ast::Expr, clause: Clause, col: &str) -> R<String> {
    print(e, refused).map_err(|err| {
        if err.message == NAME_MARK {
            not_allowed("select ...", clause, col)
        } else {
            err
        }
    })
}

/// The stored form of `DEFAULT (expr)` for column `col`.
/// `db` (the session's database) qualifies a sequence named alone in
/// `nextval(s)` / `lastval(s)`, as MariaDB stores it.
pub fn default_text(e: &ast::Expr, col: &str, db: Option<&str>) -> R<DefaultValue> {
    let text = printed(e, Clause::Default, col)?;
    let qualified = db.and_then(|db| {
        let open = text.find("(`")?;
        let name = &text[..open];
        let rest = &text[open + 1..];
        let lone = rest.strip_suffix(')')?;
        let plain = lone.len() > 2 && !lone[1..lone.len() - 1].contains('`');
        (matches!(name, "nextval" | "lastval") && plain)
            .then(|| format!("{name}(`{}`.{lone})", db.replace('`', "``")))
    });
    Ok(DefaultValue::Expr(qualified.unwrap_or(text)))
}

/// The stored form of `AS (expr) [VIRTUAL | STORED]`.
pub fn generated_def(e: &ast::Expr, stored: bool, col: &str) -> R<Generated> {
    let expr = printed(e, Clause::Generated, col)?;
    Ok(Generated { expr, stored })
}

/// Options MariaDB's grammar does not allow on a generated column (1064).
pub fn check_column_options(col: &ColumnDef, options: &[ast::ColumnOptionDef]) -> R<()> {
    let Some(g) = &col.generated else {
        return Ok(());
    };
    let _ = g;
    for o in options {
        let word = match &o.option {
            ColumnOption::Default(_) => "default",
            ColumnOption::NotNull => "not null",
            ColumnOption::OnUpdate(_) => "on update",
            _ if col.auto_increment => "auto_increment",
            _ => continue,
        };
        return Err(MySqlError::parse_error(word, 1));
    }
    Ok(())
}

/// True when the expression's value is not fixed by the row (what MariaDB's
/// 1901 names), with that name.
fn unfixed(e: &Expr) -> Option<String> {
    let mut bad: Option<String> = None;
    e.walk(&mut |x| {
        if bad.is_some() {
            return;
        }
        bad = match x {
            Expr::Func(f, args) => super::check::not_allowed(*f, args.len()).map(str::to_string),
            Expr::UserVar(v) | Expr::SetUserVar(v, _, _) => Some(format!("@{v}")),
            Expr::SysVar { def, .. } => Some(format!("@@{}", def.name)),
            Expr::StoredCall(f, _) => Some(format!("`{}`()", f.0.name)),
            _ => None,
        };
    });
    bad
}

fn columns_read(e: &Expr) -> Vec<usize> {
    let mut out = Vec::new();
    e.walk(&mut |x| {
        if let Expr::Column(i) = x {
            out.push(*i);
        }
    });
    out
}

fn uninit(col: &str, other: &str) -> MySqlError {
    MySqlError::new(
        4029,
        "01000",
        format!("Expression for field `{col}` is referring to uninitialized field `{other}`"),
    )
}

fn has_expr_default(c: &ColumnDef) -> bool {
    matches!(c.default, Some(DefaultValue::Expr(_)))
}

impl Binder<'_> {
    /// Binds one stored expression of column `ci` of `def`.
    fn bind_stored(&mut self, text: &str, clause: Clause, scope: &Scope, col: &str) -> R<Expr> {
        let saved = (self.clause, self.reusable, self.subplans.len());
        self.clause = clause;
        let ast = crate::front::parse::parse_expr(&reparse_text(text))?;
        let bound = self.expr(&ast, scope, None);
        let subqueries = self.subplans.len() != saved.2;
        self.clause = saved.0;
        self.reusable = saved.1;
        let (expr, _) = bound?;
        if subqueries {
            return Err(not_allowed("select ...", clause, col));
        }
        Ok(expr)
    }

    /// The DEFAULT expressions and generated columns of `def`, bound over its row.
    pub fn bind_computed(&mut self, db: &str, def: &Arc<TableDef>) -> R<Computed> {
        let mut out = Computed::default();
        if !def
            .columns
            .iter()
            .any(|c| c.generated.is_some() || has_expr_default(c))
        {
            return Ok(out);
        }
        let scope = table_scope(db, def);
        for (ci, c) in def.columns.iter().enumerate() {
            if let Some(DefaultValue::Expr(text)) = &c.default {
                let e = self.bind_stored(text, Clause::Default, &scope, &c.name)?;
                out.defaults.push((ci, e));
            }
            if let Some(g) = &c.generated {
                let e = self.bind_stored(&g.expr, Clause::Generated, &scope, &c.name)?;
                out.generated.push((ci, e));
            }
        }
        Ok(out)
    }

    /// The checks of a new or altered table's computed columns, with MariaDB's
    /// errors; on failure also the expression text MariaDB's follow-up 4027
    /// names (for one that does not bind).
    pub fn validate_computed(
        &mut self,
        db: &str,
        def: &Arc<TableDef>,
    ) -> Result<(), (MySqlError, Option<String>)> {
        let scope = table_scope(db, def);
        let indexed = |ci: usize| {
            def.indexes
                .iter()
                .any(|i| i.columns.iter().any(|k| k.column == ci))
        };
        if !def.columns.iter().any(|c| !c.invisible) {
            return Err((
                MySqlError::new(1113, "42000", "A table must have at least 1 column"),
                None,
            ));
        }
        for (ci, c) in def.columns.iter().enumerate() {
            if c.invisible && !c.nullable && c.default.is_none() && c.generated.is_none() {
                return Err((
                    MySqlError::new(
                        4108,
                        "HY000",
                        format!("Invisible column `{}` must have a default value", c.name),
                    ),
                    None,
                ));
            }
            if let Some(DefaultValue::Expr(text)) = &c.default {
                let e = self
                    .bind_stored(text, Clause::Default, &scope, &c.name)
                    .map_err(|e| with_follow(e, text))?;
                for r in columns_read(&e) {
                    if r == ci || (r > ci && has_expr_default(&def.columns[r])) {
                        return Err((uninit(&c.name, &def.columns[r].name), None));
                    }
                }
            }
            let Some(g) = &c.generated else {
                continue;
            };
            let e = self
                .bind_stored(&g.expr, Clause::Generated, &scope, &c.name)
                .map_err(|e| with_follow(e, &g.expr))?;
            for r in columns_read(&e) {
                if r == ci || (r > ci && def.columns[r].generated.is_some()) {
                    return Err((uninit(&c.name, &def.columns[r].name), None));
                }
            }
            if let Some(what) = unfixed(&e) {
                // A stored function is never allowed (MariaDB).
                let stored_fn = what.starts_with('`');
                if g.stored || indexed(ci) || stored_fn {
                    return Err((not_allowed(&what, Clause::Generated, &c.name), None));
                }
                return Err((
                    MySqlError::not_supported(
                        "VIRTUAL columns whose expression the row does not determine",
                    ),
                    None,
                ));
            }
        }
        Ok(())
    }
}

fn with_follow(e: MySqlError, text: &str) -> (MySqlError, Option<String>) {
    let follow = (e.code == 1054).then(|| text.to_string());
    (e, follow)
}

impl Binder<'_> {
    /// The default of column `col` of the table `st` (a table of the scope being
    /// bound), as `UPDATE ... SET col = DEFAULT` and `DEFAULT(col)` read it: its
    /// literal, the statement's time for CURRENT_TIMESTAMP, its DEFAULT
    /// expression over the row, NULL for a nullable column without one; 1364 for
    /// a NOT NULL column without one (MariaDB, whatever the sql_mode).
    pub fn column_default(&mut self, st: &ScopeTable, col: &ColumnDef) -> R<(Expr, ExprType)> {
        let mut t = ExprType::of_column(col);
        let e = match &col.default {
            Some(DefaultValue::Literal(v)) => {
                let e = Expr::Const(v.clone());
                if matches!(col.data_type, DataType::Timestamp { .. }) {
                    // Kept in UTC, as the column's values are.
                    Expr::Func(Func::TimestampLocal, vec![e])
                } else {
                    e
                }
            }
            Some(DefaultValue::CurrentTimestamp) => {
                let text = format!("current_timestamp({})", col.data_type.fsp());
                let ast = crate::front::parse::parse_expr(&text)?;
                self.expr(&ast, &Scope::default(), None)?.0
            }
            Some(DefaultValue::Expr(text)) => {
                let scope = Scope {
                    tables: vec![st.clone()],
                    ..Default::default()
                };
                self.bind_stored(text, Clause::Default, &scope, &col.name)?
            }
            None if col.nullable => {
                t.nullable = true;
                Expr::Const(Value::Null)
            }
            None => return Err(MySqlError::no_default_for_field(&col.name)),
        };
        Ok((e, t))
    }
}

impl Binder<'_> {
    /// `DEFAULT(col)`: the default of a table column of the scope.
    pub fn default_call(&mut self, args: &[&ast::Expr], scope: &Scope) -> R<(Expr, ExprType)> {
        let parts: Vec<String> = match args {
            [ast::Expr::Identifier(id)] => vec![id.value.clone()],
            [ast::Expr::CompoundIdentifier(ids)] => ids.iter().map(|i| i.value.clone()).collect(),
            _ => return Err(MySqlError::parse_error("DEFAULT(", 1)),
        };
        let (name, qual) = parts.split_last().expect("a name");
        let mut found = None;
        for st in &scope.tables {
            let table_ok = match qual {
                [] => true,
                [t] => st.alias.eq_ignore_ascii_case(t),
                [d, t] => st.alias.eq_ignore_ascii_case(t) && st.db == *d,
                _ => false,
            };
            let Some(ci) = st.def.column_index(name).filter(|_| table_ok) else {
                continue;
            };
            if found.is_some() {
                return Err(MySqlError::ambiguous_field(name, self.clause.name()));
            }
            found = Some((st, ci));
        }
        let Some((st, ci)) = found else {
            return Err(MySqlError::bad_field(&parts.join("."), self.clause.name()));
        };
        if st.view.is_some() {
            return Err(MySqlError::not_supported("DEFAULT() of a view's column"));
        }
        let st = st.clone();
        let col = st.def.columns[ci].clone();
        self.column_default(&st, &col)
    }
}
