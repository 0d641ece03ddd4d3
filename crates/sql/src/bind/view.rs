//! Views in queries, in INSERT / UPDATE / DELETE, and the analysis behind CREATE
//! VIEW.
//!
//! A view's stored query (its normalised text) is parsed again at each use, every
//! unqualified table name qualified by the view's own database (the text names
//! tables relative to it) and the parenthesised joins MariaDB prints unnested.
//!
//! Algorithms, as MariaDB chooses them:
//! - MERGE, for a view over one table whose items are plain columns, with an
//!   optional WHERE without subqueries and no aggregation, DISTINCT, GROUP BY,
//!   HAVING, ORDER BY, LIMIT or set operation (unless ALGORITHM=TEMPTABLE): the
//!   base table joins the query under the view's name, the view's columns resolve
//!   to the base columns (`ScopeTable::view`), and the view's WHERE is added as an
//!   ON condition of the view's level (a filter for an inner level, a join
//!   condition on the NULL-extended side of an outer join). Indexes of the base
//!   table serve the query: a point select through the view is a primary-key
//!   lookup. Views over merged views merge again.
//! - TEMPTABLE otherwise: the query is bound as a derived table named after the
//!   view, with the view's column names, and materialised before the statement
//!   reads it.
//!
//! Invariant: a merged view's items are plain columns, so a NULL-extended base
//! row gives NULL in every view column (an expression item could give a value).
//! Only the target of UPDATE / DELETE, which no outer join can NULL-extend, merges
//! with expression items, whose columns are then 1348 as SET targets.
//!
//! INSERT into a view is the INSERT into its base table with the view's columns
//! mapped to the base columns (1471 unless every view column is one). Views that
//! cannot be updated give 1288 / 1471; WITH CHECK OPTION views and views over
//! several tables are refused with 1235 as DML targets.
//!
//! An error binding the stored query that says a table or column is missing
//! becomes MariaDB's 1356 naming the view. CREATE VIEW binds the query once to
//! check it (unknown tables 1146, columns 1054, ...) and to learn its column
//! names; the view being replaced is invisible meanwhile, so a definition that
//! reaches itself through other views fails with 1146 as in MariaDB.

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

/// A view query simple enough to merge: one table, plain columns, an optional
/// WHERE without subqueries, nothing that needs the rows computed first.
struct Merge {
    relation: ast::TableFactor,
    items: Vec<ast::Expr>,
    filter: Option<ast::Expr>,
}

impl Merge {
    /// The parts of `q` to merge under the name `alias`, or `None` when it must be
    /// materialised. The table is renamed to `alias` and so are the qualifiers of
    /// the columns (the stored text qualifies every column).
    fn of(q: &ast::Query, alias: &str, expressions: bool) -> Option<Merge> {
        if q.order_by.is_some() || !mergeable(q) || has_subquery(q) {
            return None;
        }
        let SetExpr::Select(s) = &*q.body else {
            return None;
        };
        let [twj] = s.from.as_slice() else {
            return None;
        };
        if !twj.joins.is_empty() {
            return None;
        }
        let ast::TableFactor::Table {
            name,
            alias: inner_alias,
            args: None,
            ..
        } = &twj.relation
        else {
            return None;
        };
        let inner = match inner_alias {
            Some(a) => a.name.value.clone(),
            None => super::object_parts(name).last()?.clone(),
        };
        let mut items = Vec::new();
        for i in &s.projection {
            let e = match i {
                ast::SelectItem::UnnamedExpr(e)
                | ast::SelectItem::ExprWithAlias { expr: e, .. } => e,
                _ => return None,
            };
            match requalify(e, &inner, alias) {
                Some(r) => items.push(r),
                None if expressions => items.push(requalify_all(e, &inner, alias)),
                None => return None,
            }
        }
        let filter = s
            .selection
            .as_ref()
            .map(|w| requalify_all(w, &inner, alias));
        let mut relation = twj.relation.clone();
        if let ast::TableFactor::Table { alias: a, .. } = &mut relation {
            *a = Some(ast::TableAlias {
                explicit: true,
                name: ast::Ident::new(alias),
                columns: Vec::new(),
                at: None,
            });
        }
        Some(Merge {
            relation,
            items,
            filter,
        })
    }
}

/// A plain column `inner.c` as `alias.c`; `None` for anything else.
fn requalify(e: &ast::Expr, inner: &str, alias: &str) -> Option<ast::Expr> {
    match e {
        ast::Expr::CompoundIdentifier(p) if p.len() == 2 && p[0].value == inner => {
            Some(ast::Expr::CompoundIdentifier(vec![
                ast::Ident::new(alias),
                p[1].clone(),
            ]))
        }
        _ => None,
    }
}

/// Every `inner.c` in `e` as `alias.c`.
fn requalify_all(e: &ast::Expr, inner: &str, alias: &str) -> ast::Expr {
    let mut e = e.clone();
    let _ = ast::visit_expressions_mut(&mut e, |x| {
        if let Some(r) = requalify(x, inner, alias) {
            *x = r;
        }
        ControlFlow::<()>::Continue(())
    });
    e
}

/// The column name of a plain column item.
fn item_column(e: &ast::Expr) -> Option<String> {
    match e {
        ast::Expr::CompoundIdentifier(p) => p.last().map(|i| i.value.clone()),
        ast::Expr::Identifier(i) => Some(i.value.clone()),
        _ => None,
    }
}

fn has_subquery(q: &ast::Query) -> bool {
    let SetExpr::Select(s) = &*q.body else {
        return true;
    };
    let mut found = false;
    let mut check = |e: &ast::Expr| {
        if matches!(
            e,
            ast::Expr::Subquery(_)
                | ast::Expr::Exists { .. }
                | ast::Expr::In {
                    target: ast::InTarget::Subquery(_),
                    ..
                }
        ) {
            found = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    };
    let _ = ast::visit_expressions(&s.projection, &mut check);
    let _ = ast::visit_expressions(&s.selection, &mut check);
    found
}

fn hint_name(d: &ast::TableIndexDirective) -> Option<String> {
    match d {
        ast::TableIndexDirective::MySql(h) => h.index_names.first().map(|i| i.value.clone()),
        _ => Some(String::new()),
    }
}

/// An error binding view `v`'s query as the user sees it: a missing table or
/// column is 1356; CREATE VIEW's own view reached again (`hidden`) stays 1146.
fn view_error(e: MySqlError, v: &ViewDef, hidden: Option<&String>) -> MySqlError {
    match e.code {
        1146 if hidden == Some(&e.message) => e,
        1146 | 1054 | 1356 | 1049 | 1305 => invalid_view(&v.schema, &v.name),
        _ => e,
    }
}

/// `filter` AND every condition of `more`.
pub fn and_filters(
    filter: Option<crate::expr::Expr>,
    more: &[crate::expr::Expr],
) -> Option<crate::expr::Expr> {
    if more.is_empty() {
        return filter;
    }
    let mut all: Vec<crate::expr::Expr> = more.to_vec();
    all.extend(filter);
    if all.len() == 1 {
        return all.pop();
    }
    Some(crate::expr::Expr::And(all))
}

/// The base column a SET target names in a merged view: `None` when the target
/// table is no view, 1348 for a column that is an expression.
pub fn view_column(st: &super::ScopeTable, name: &str) -> R<Option<usize>> {
    let Some(v) = &st.view else {
        return Ok(None);
    };
    let ci = st
        .def
        .column_index(name)
        .ok_or_else(|| MySqlError::bad_field(name, "field list"))?;
    match v[ci].0.as_column() {
        Some(c) => Ok(Some(c - st.offset)),
        None => Err(MySqlError::new(
            1348,
            "HY000",
            format!("Column '{name}' is not updatable"),
        )),
    }
}

/// 1288: the target of an UPDATE / DELETE cannot be changed.
pub(super) fn not_updatable(name: &str, what: &str) -> MySqlError {
    MySqlError::new(
        1288,
        "HY000",
        format!("The target table {name} of the {what} is not updatable"),
    )
}

fn not_insertable(name: &str) -> MySqlError {
    MySqlError::new(
        1471,
        "HY000",
        format!("The target table {name} of the INSERT is not insertable-into"),
    )
}

impl Binder<'_> {
    /// The view an UPDATE / DELETE / INSERT targets, if it names one, after the
    /// checks every such statement makes: 1288 when the view cannot be updated,
    /// 1235 for what Basalt does not carry out through a view yet (WITH CHECK
    /// OPTION, views it does not merge).
    fn target_view(
        &mut self,
        tf: &ast::TableFactor,
        what: &str,
    ) -> R<Option<(Arc<ViewDef>, ast::Query)>> {
        let ast::TableFactor::Table { name, .. } = tf else {
            return Ok(None);
        };
        let (db, t) = self.table_name(name)?;
        self.target_view_of(&db, &t, what)
    }

    fn target_view_of(
        &mut self,
        db: &str,
        t: &str,
        what: &str,
    ) -> R<Option<(Arc<ViewDef>, ast::Query)>> {
        let Some(v) = self.view_of(db, t) else {
            return Ok(None);
        };
        if !v.updatable {
            return Err(if what == "INSERT" {
                not_insertable(t)
            } else {
                not_updatable(t, what)
            });
        }
        if v.check_option != "NONE" {
            return Err(MySqlError::not_supported(&format!(
                "{what} through a view WITH CHECK OPTION"
            )));
        }
        let mut q = parse_query(&v.body).map_err(|_| invalid_view(&v.schema, &v.name))?;
        qualify_tables(&mut q, &v.schema);
        if Merge::of(&q, t, true).is_none() {
            return Err(MySqlError::not_supported(&format!(
                "{what} through a view of several tables"
            )));
        }
        // Every column of a view inserted into must be a column of its table.
        if what == "INSERT" && Merge::of(&q, t, false).is_none() {
            return Err(not_insertable(t));
        }
        Ok(Some((v, q)))
    }

    /// UPDATE / DELETE through a view: refused unless the view merges (it then
    /// binds as its base table, see `merge_view`).
    /// Returns whether the target is a view.
    pub(super) fn check_view_target(&mut self, tf: &ast::TableFactor, what: &str) -> R<bool> {
        self.target_view(tf, what).map(|v| v.is_some())
    }

    /// INSERT into a view as the INSERT into its base table: the view's columns
    /// mapped to the base columns they are (1471 when one is an expression).
    pub(super) fn insert_through_view(&mut self, ins: &ast::Insert, v: &ViewDef) -> R<ast::Insert> {
        let (_, q) = self
            .target_view_of(&v.schema, &v.name, "INSERT")?
            .ok_or_else(|| not_insertable(&v.name))?;
        let SetExpr::Select(s) = &*q.body else {
            return Err(not_insertable(&v.name));
        };
        let [twj] = s.from.as_slice() else {
            return Err(not_insertable(&v.name));
        };
        let ast::TableFactor::Table { name: base, .. } = &twj.relation else {
            return Err(not_insertable(&v.name));
        };
        let mut map = Vec::with_capacity(v.columns.len());
        for item in &s.projection {
            let e = match item {
                ast::SelectItem::UnnamedExpr(e)
                | ast::SelectItem::ExprWithAlias { expr: e, .. } => e,
                _ => return Err(not_insertable(&v.name)),
            };
            map.push(item_column(e).ok_or_else(|| not_insertable(&v.name))?);
        }
        let base_col = |n: &str| -> R<ast::Ident> {
            v.columns
                .iter()
                .position(|c| c.eq_ignore_ascii_case(n))
                .map(|i| ast::Ident::new(&map[i]))
                .ok_or_else(|| MySqlError::bad_field(n, "INSERT INTO"))
        };
        let one = |i: ast::Ident| ast::ObjectName(vec![ObjectNamePart::Identifier(i)]);
        let mut out = ins.clone();
        out.table = ast::TableObject::TableName(base.clone());
        out.columns = if ins.columns.is_empty() && ins.assignments.is_empty() {
            map.iter().map(|c| one(ast::Ident::new(c))).collect()
        } else {
            ins.columns
                .iter()
                .map(|c| {
                    let n = super::object_parts(c).last().cloned().unwrap_or_default();
                    base_col(&n).map(one)
                })
                .collect::<R<_>>()?
        };
        for a in &mut out.assignments {
            if let ast::AssignmentTarget::ColumnName(n) = &mut a.target {
                let col = super::object_parts(n).last().cloned().unwrap_or_default();
                *n = one(base_col(&col)?);
            }
        }
        if ins.on.is_some() {
            return Err(MySqlError::not_supported(
                "INSERT ... ON DUPLICATE KEY UPDATE through a view",
            ));
        }
        Ok(out)
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
        hints: &[ast::TableIndexDirective],
        out: &mut From,
    ) -> R<usize> {
        self.view_body += 1;
        self.texts += 1;
        let text_no = std::mem::replace(&mut self.text_no, self.texts);
        let r = self.view_reference_body(v, alias, hints, out);
        self.text_no = text_no;
        self.view_body -= 1;
        r
    }

    fn view_reference_body(
        &mut self,
        v: &Arc<ViewDef>,
        alias: &str,
        hints: &[ast::TableIndexDirective],
        out: &mut From,
    ) -> R<usize> {
        if let Some(first) = hints.iter().find_map(hint_name) {
            return Err(MySqlError::key_does_not_exist(&first, &v.name));
        }
        let mut q = parse_query(&v.body).map_err(|_| invalid_view(&v.schema, &v.name))?;
        qualify_tables(&mut q, &v.schema);
        flatten_joins(&mut q);
        let hidden = self
            .hidden_view
            .as_ref()
            .map(|(d, n)| MySqlError::no_such_table(d, n).message);
        if v.algorithm != "TEMPTABLE" {
            if let Some(m) = Merge::of(&q, alias, self.merge_expressions) {
                return self
                    .merge_view(m, v, alias, out)
                    .map_err(|e| view_error(e, v, hidden.as_ref()));
            }
        }
        self.derived_named(&q, alias, Some(&v.columns), false, out)
            .map_err(|e| view_error(e, v, hidden.as_ref()))
    }

    /// Merges a view into the FROM clause: its table joins under the view's
    /// name, its columns stand for its select items, its WHERE filters (or joins,
    /// on the inner side of an outer join) like an ON condition.
    fn merge_view(&mut self, m: Merge, v: &ViewDef, alias: &str, out: &mut From) -> R<usize> {
        let ti = match self.table_factor_of(&m.relation, out)? {
            Some(t) => t,
            None => return Err(invalid_view(&v.schema, &v.name)),
        };
        let sub = super::Scope {
            tables: vec![out.scope.tables[ti].clone()],
            ..Default::default()
        };
        let saved = self.clause;
        self.clause = super::Clause::FieldList;
        let mut bound = Vec::with_capacity(m.items.len());
        for e in &m.items {
            bound.push(self.expr(e, &sub, None)?);
        }
        self.clause = super::Clause::Where;
        let filter = match &m.filter {
            Some(w) => Some(self.expr(w, &sub, None)?.0),
            None => None,
        };
        self.clause = saved;
        let base = out.scope.tables[ti].def.clone();
        let mut columns = Vec::with_capacity(v.columns.len());
        for (name, e) in v.columns.iter().zip(&m.items) {
            let col = item_column(e).and_then(|c| base.column_index(&c));
            let mut cd = match col {
                Some(i) if matches!(e, ast::Expr::CompoundIdentifier(_)) => base.columns[i].clone(),
                _ => {
                    let k = columns.len();
                    super::from::derived_column(name, &bound[k].1)
                }
            };
            cd.name = name.clone();
            columns.push(cd);
        }
        let st = &mut out.scope.tables[ti];
        st.def = Arc::new(crate::infoschema::columns_def(&v.schema, alias, columns));
        st.view = Some(Arc::new(bound));
        if let Some(f) = filter {
            out.view_filters.push((ti, f));
        }
        Ok(ti)
    }

    /// Checks a view's query and prints it in MariaDB's form. `columns` is the
    /// view's column list, empty when not written.
    pub fn analyze_view(&mut self, db: &str, query_text: &str, columns: &[String]) -> R<Analysis> {
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
    let mut b = Binder::new(storage, cx, &v.body, None);
    b.view_body = 1;
    let plan = b.select(&q).map_err(|_| invalid_view(&v.schema, &v.name))?;
    Ok(v.columns
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
            matches!(
                e,
                ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_)
            )
        }
        _ => true,
    });
    !agg && plain
}
