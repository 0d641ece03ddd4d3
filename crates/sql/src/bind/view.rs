//! Views in queries and the analysis behind CREATE VIEW.
//!
//! A reference to a view binds the view's stored query (its normalised text,
//! parsed again, with every unqualified table name qualified by the view's own
//! database, since the text names tables relative to it) as a derived table whose
//! columns are the view's column names: the rows are computed when the statement
//! runs, before the tables that join it are read (MariaDB's TEMPTABLE
//! algorithm). An error while binding the stored query that says a table or
//! column is missing becomes MariaDB's 1356 naming the view.
//!
//! CREATE VIEW binds the query once to check it (unknown tables 1146, columns
//! 1054, ...) and to learn its column names; the view being replaced is invisible
//! meanwhile, so a definition that reaches itself through other views fails with
//! 1146 as in MariaDB.

use super::from::From;
use super::view_print::ViewPrinter;
use super::Binder;
use basalt_common::MySqlError;
use basalt_storage::ViewDef;
use sqlparser::ast::{self, ObjectNamePart, SetExpr, Statement};
use std::ops::ControlFlow;
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// 1356: the view's query no longer binds.
pub fn invalid_view(db: &str, name: &str) -> MySqlError {
    MySqlError::new(
        1356,
        "HY000",
        format!("View '{db}.{name}' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them"),
    )
}

/// Parses a view query's text (1064 as MariaDB for anything else than a query).
pub fn parse_query(text: &str) -> R<ast::Query> {
    match crate::front::parse::parse_statement(text)? {
        Statement::Query(q) => Ok(*q),
        _ => Err(MySqlError::parse_error(text, 1)),
    }
}

/// Qualifies every one-part table name of `q` with `db`.
fn qualify_tables(q: &mut ast::Query, db: &str) {
    let _ = ast::visit_relations_mut(q, |name| {
        if name.0.len() == 1 {
            name.0
                .insert(0, ObjectNamePart::Identifier(ast::Ident::new(db)));
        }
        ControlFlow::<()>::Continue(())
    });
}

/// Unnests the parenthesised joins MariaDB prints (`(a join b on ...)` first in
/// a FROM item) into the join chain the binder reads: `((a join b) join c)` is
/// `a join b join c`.
fn flatten_joins(q: &mut ast::Query) {
    struct Flatten;
    impl ast::VisitorMut for Flatten {
        type Break = ();
        fn pre_visit_query(&mut self, q: &mut ast::Query) -> ControlFlow<()> {
            if let SetExpr::Select(s) = &mut *q.body {
                for twj in &mut s.from {
                    flatten_item(twj);
                }
            }
            ControlFlow::Continue(())
        }
    }
    let _ = ast::VisitMut::visit(q, &mut Flatten);
}

fn flatten_item(twj: &mut ast::TableWithJoins) {
    while let ast::TableFactor::NestedJoin {
        table_with_joins,
        alias: None,
    } = &twj.relation
    {
        let mut inner = (**table_with_joins).clone();
        inner.joins.append(&mut twj.joins);
        *twj = inner;
    }
}

/// What CREATE VIEW learns from binding the query.
pub struct Analysis {
    pub columns: Vec<String>,
    pub body: String,
    pub definition: String,
    /// A single-table SELECT without aggregation, DISTINCT, LIMIT or set
    /// operations (what MariaDB can merge and update through).
    pub mergeable: bool,
}

impl Binder<'_> {
    /// Binds a reference to view `v` under the name `alias` into `out`.
    pub(super) fn view_reference(
        &mut self,
        v: &Arc<ViewDef>,
        alias: &str,
        out: &mut From,
    ) -> R<usize> {
        let mut q = parse_query(&v.body).map_err(|_| invalid_view(&v.schema, &v.name))?;
        qualify_tables(&mut q, &v.schema);
        flatten_joins(&mut q);
        let hidden = self
            .hidden_view
            .as_ref()
            .map(|(d, n)| MySqlError::no_such_table(d, n).message);
        self.derived_named(&q, alias, Some(&v.columns), false, out)
            .map_err(|e| match e.code {
                // CREATE VIEW's own view, reached again: MariaDB's 1146 for it.
                1146 if hidden.as_ref() == Some(&e.message) => e,
                1146 | 1054 | 1356 | 1049 => invalid_view(&v.schema, &v.name),
                _ => e,
            })
    }

    /// Checks a view's query and prints it in MariaDB's form. `columns` is the
    /// view's column list, empty when not written.
    pub fn analyze_view(
        &mut self,
        db: &str,
        query_text: &str,
        columns: &[String],
    ) -> R<Analysis> {
        let lexed = crate::front::lexer::lex(query_text);
        if lexed.tokens.iter().any(|t| {
            matches!(
                t.kind,
                crate::front::lexer::TokKind::Var | crate::front::lexer::TokKind::Param
            )
        }) {
            return Err(MySqlError::new(
                1351,
                "HY000",
                "View's SELECT contains a variable or parameter",
            ));
        }
        let q = parse_query(query_text)?;
        if q.with.is_some() {
            return Err(MySqlError::not_supported("WITH in a view"));
        }
        let mut bound = q.clone();
        qualify_tables(&mut bound, db);
        let plan = self.select(&bound)?;
        let names: Vec<String> = if columns.is_empty() {
            plan.columns[..plan.visible]
                .iter()
                .map(|c| c.name.clone())
                .collect()
        } else {
            if columns.len() != plan.visible {
                return Err(MySqlError::new(
                    1353,
                    "HY000",
                    "View's SELECT and view's field list have different column counts",
                ));
            }
            columns.to_vec()
        };
        super::from::check_dup_names(&names)?;
        let body = ViewPrinter::new(self.storage, db, false, names.clone()).print(&q)?;
        let definition = ViewPrinter::new(self.storage, db, true, names.clone()).print(&q)?;
        Ok(Analysis {
            columns: names,
            body,
            definition,
            mergeable: mergeable(&q),
        })
    }
}

/// The columns of view `v`, typed by binding its query.
pub fn view_columns(
    storage: &std::sync::Arc<basalt_storage::Storage>,
    cx: &crate::session::ctx::SessionCtx,
    v: &ViewDef,
) -> R<Vec<basalt_common::ColumnDef>> {
    let mut q = parse_query(&v.body).map_err(|_| invalid_view(&v.schema, &v.name))?;
    qualify_tables(&mut q, &v.schema);
    flatten_joins(&mut q);
    let plan = Binder::new(storage, cx, &v.body, None)
        .select(&q)
        .map_err(|_| invalid_view(&v.schema, &v.name))?;
    Ok(v
        .columns
        .iter()
        .zip(&plan.types)
        .map(|(n, t)| super::from::derived_column(n, t))
        .collect())
}

/// Whether MariaDB would merge the view (and so update through it).
fn mergeable(q: &ast::Query) -> bool {
    if q.limit_clause.is_some() {
        return false;
    }
    let SetExpr::Select(s) = &*q.body else {
        return false;
    };
    let grouped = !matches!(&s.group_by, ast::GroupByExpr::Expressions(l, _) if l.is_empty());
    if s.distinct.is_some() || grouped || s.having.is_some() || s.from.is_empty() {
        return false;
    }
    let mut agg = false;
    let _ = ast::visit_expressions(&s.projection, |e| {
        if let ast::Expr::Function(f) = e {
            let n = f.name.to_string().to_ascii_lowercase();
            if f.over.is_some() || super::call::agg_func(&n).is_some() {
                agg = true;
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    // Some column must be a plain column of a table to update.
    let plain = s.projection.iter().any(|i| match i {
        ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
            matches!(e, ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_))
        }
        _ => true,
    });
    !agg && plain
}
