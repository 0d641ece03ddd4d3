//! `RETURNING` of INSERT / REPLACE / DELETE (MariaDB 10.5+): a select list over
//! the target table's row, bound like a SELECT's projection.
//!
//! Rules, as MariaDB applies them:
//! - names resolve against the target table only (`Unknown column 'x' in
//!   'RETURNING'`, `t.*` of another table is 1051);
//! - `*` may only be the first item (a syntax error elsewhere, as in its grammar);
//! - aggregates are 1111; subqueries are allowed, correlated ones see the row;
//! - for INSERT ... VALUES / SET, a subquery reading the target table is 1093
//!   (INSERT ... SELECT buffers its source, so there it is allowed);
//! - UPDATE has no RETURNING in 10.11: the keyword is a syntax error there.
//!
//! Unaliased items are named by their text as written, like select items.

use super::names::{returning_item_spans, returning_offset};
use super::{Binder, Clause, Scope, ScopeTable};
use crate::expr::Expr;
use crate::front::parse::near_offset;
use crate::plan::{Returning, TableRef};
use crate::ty::ExprType;
use basalt_common::{ColumnMeta, MySqlError};
use sqlparser::ast::{self, SelectItem};

type R<T> = Result<T, MySqlError>;

/// Which statement the list belongs to (for the 1093 rule and its message).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Target {
    InsertValues,
    InsertSelect,
    Delete,
}

impl Binder<'_> {
    /// Binds `items` against `table`'s row; `scope` is the statement's scope for
    /// that table (its alias), or the table under its own name for INSERT.
    pub fn returning(
        &mut self,
        items: &[SelectItem],
        table: &TableRef,
        scope: Option<&Scope>,
        target: Target,
    ) -> R<Returning> {
        let own;
        let scope = match scope {
            Some(s) => s,
            None => {
                own = table_scope(table);
                &own
            }
        };
        let spans = returning_item_spans(self.raw);
        let first_sub = self.subplans.len();
        self.clause = Clause::Returning;
        let mut exprs = Vec::with_capacity(items.len());
        let mut columns: Vec<ColumnMeta> = Vec::with_capacity(items.len());
        for (i, si) in items.iter().enumerate() {
            let text = spans.get(i).map(|&(a, b)| &self.raw[a..b]);
            match si {
                SelectItem::Wildcard(_) if i > 0 => {
                    let at = spans.get(i).map_or(self.raw.len(), |s| s.0);
                    return Err(near_offset(self.raw, at));
                }
                SelectItem::Wildcard(_) => {
                    self.all_columns(table, scope, &mut exprs, &mut columns)?
                }
                SelectItem::QualifiedWildcard(kind, _) => {
                    let name = match kind {
                        ast::SelectItemQualifiedWildcardKind::ObjectName(n) => {
                            super::object_parts(n).last().cloned().unwrap_or_default()
                        }
                        ast::SelectItemQualifiedWildcardKind::Expr(e) => e.to_string(),
                    };
                    if !scope.tables.iter().any(|t| t.alias == name) {
                        return Err(unknown_table(&table.db, &name));
                    }
                    self.all_columns(table, scope, &mut exprs, &mut columns)?;
                }
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    self.in_projection = true;
                    let r = self.expr(e, scope, None);
                    self.in_projection = false;
                    let (expr, ty) = r?;
                    let name = match si {
                        SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
                        _ => item_name(e, &ty, text),
                    };
                    columns.push(ty.meta(&name, self.cx.results_charset));
                    exprs.push(expr);
                }
                SelectItem::ExprWithAliases { .. } => {
                    return Err(MySqlError::not_supported("multiple aliases"))
                }
            }
        }
        if target == Target::InsertValues
            && self.subplans[first_sub..]
                .iter()
                .any(|s| reads(&s.plan, table))
        {
            return Err(MySqlError::update_table_used(&table.def.name, "INSERT"));
        }
        Ok(Returning {
            exprs,
            columns: columns.into(),
        })
    }

    fn all_columns(
        &mut self,
        table: &TableRef,
        scope: &Scope,
        exprs: &mut Vec<Expr>,
        columns: &mut Vec<ColumnMeta>,
    ) -> R<()> {
        let alias = scope
            .tables
            .first()
            .map_or_else(|| table.alias.clone(), |t| t.alias.clone());
        for c in &table.def.columns {
            let (e, ty) = self.column(Some(std::slice::from_ref(&alias)), &c.name, scope)?;
            columns.push(ty.meta(&c.name, self.cx.results_charset));
            exprs.push(e);
        }
        Ok(())
    }

    /// 1064 at the RETURNING keyword: UPDATE, and multi-table DELETE, have none.
    pub fn no_returning_here(&self) -> MySqlError {
        near_offset(
            self.raw,
            returning_offset(self.raw).unwrap_or(self.raw.len()),
        )
    }
}

/// The target table under its own name, at offset 0 of the row.
fn table_scope(table: &TableRef) -> Scope {
    Scope {
        tables: vec![ScopeTable {
            alias: table.alias.clone(),
            db: table.db.clone(),
            def: table.def.clone(),
            offset: 0,
            nullable: false,
            view: None,
            types: None,
        }],
        ..Scope::default()
    }
}

/// MariaDB's name for an unaliased item: a column by its name, anything else by
/// its text as written.
fn item_name(e: &ast::Expr, ty: &ExprType, text: Option<&str>) -> String {
    match (e, text) {
        (ast::Expr::Identifier(id), _) if ty.origin.is_some() => id.value.clone(),
        (ast::Expr::CompoundIdentifier(ids), _) if ty.origin.is_some() => {
            ids.last().map(|x| x.value.clone()).unwrap_or_default()
        }
        (ast::Expr::Value(v), _) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
            ast::Value::Null => "NULL".into(),
            _ => text.map_or_else(|| e.to_string(), str::to_string),
        },
        (_, Some(t)) => t.to_string(),
        (other, None) => other.to_string(),
    }
}

/// The subquery plan reads `table` (in its FROM clause or a UNION branch).
fn reads(plan: &crate::plan::SelectPlan, table: &TableRef) -> bool {
    plan.tables
        .iter()
        .any(|t| t.db == table.db && t.def.name == table.def.name)
        || plan.operands().any(|b| reads(b, table))
}

/// 1051 for `other.*` in RETURNING.
fn unknown_table(db: &str, name: &str) -> MySqlError {
    MySqlError::bad_table(&format!("{db}.{name}"))
}
