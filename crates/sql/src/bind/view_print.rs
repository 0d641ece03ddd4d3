//! A view's query printed in MariaDB's normalised form, the text `SHOW CREATE
//! VIEW` shows and the catalog stores:
//! `select `t`.`a` AS `a`,`t`.`b` + 1 AS `b + 1` from `t` where `t`.`a` > 1`.
//!
//! Every column reference is qualified by the FROM table it resolves to (the
//! innermost query block that has the column, so a correlated reference names the
//! outer table); expressions are printed by [`super::print`]; the select items of
//! the view's own query blocks and of derived tables get `AS `name``, those of
//! expression subqueries do not. Joins print as MariaDB nests them:
//! `(`a` join `b` on(...))`, `USING` as the equality it stands for. Tables of the
//! view's own database are named bare; with `qualify_db` (VIEW_DEFINITION) every
//! table and column carries its database.

use super::print::{print_in_view, Queries};
use basalt_common::MySqlError;
use basalt_storage::Storage;
use sqlparser::ast::{self, Expr as A, SetExpr, TableFactor, VisitMut, VisitorMut};
use std::cell::RefCell;
use std::ops::ControlFlow;

type R<T> = Result<T, MySqlError>;

/// A FROM table as name resolution sees it.
struct Entry {
    /// The name the query block calls it by (alias or table name).
    name: String,
    /// The database of a table named without alias.
    db: Option<String>,
    /// Qualifier printed before its columns (`t`, or `db`.`t` with `qualify_db`).
    qual: Vec<String>,
    columns: Vec<String>,
}

pub struct ViewPrinter<'a> {
    pub storage: &'a Storage,
    /// The database unqualified table names mean.
    pub db: String,
    pub qualify_db: bool,
    scopes: RefCell<Vec<Vec<Entry>>>,
    /// Names of the outermost query block's items (the view's columns).
    names: Vec<String>,
    /// EXPLAIN EXTENDED's Note 1003: each query block starts with
    /// `/* select#N */`, N its select number by (line, column) of its SELECT.
    pub select_numbers: Option<std::collections::HashMap<(u64, u64), u64>>,
    /// The statement as read (EXPLAIN EXTENDED) rather than a view: the later
    /// branches of a set operation are named by their own items.
    pub as_read: bool,
}

impl<'a> ViewPrinter<'a> {
    pub fn new(storage: &'a Storage, db: &str, qualify_db: bool, names: Vec<String>) -> Self {
        ViewPrinter {
            storage,
            db: db.to_string(),
            qualify_db,
            scopes: RefCell::new(Vec::new()),
            names,
            select_numbers: None,
            as_read: false,
        }
    }

    /// The view's query (its top-level blocks get the view's column names).
    pub fn print(&self, q: &ast::Query) -> R<String> {
        self.query_with(q, Naming::Top)
    }

    fn query_with(&self, q: &ast::Query, naming: Naming) -> R<String> {
        if q.with.is_some() {
            return Err(MySqlError::not_supported("WITH in a view"));
        }
        match &*q.body {
            // ORDER BY of one block sees its FROM tables.
            SetExpr::Select(sel) => self.select(sel, naming, Some(q)),
            other => {
                let mut out = self.set_expr(other, naming)?;
                out.push_str(&self.order_limit(q)?);
                Ok(out)
            }
        }
    }

    /// ` order by ... limit ...` of `q`.
    fn order_limit(&self, q: &ast::Query) -> R<String> {
        let mut out = String::new();
        if let Some(ob) = &q.order_by {
            if let ast::OrderByKind::Expressions(list) = &ob.kind {
                out.push_str(" order by ");
                let mut parts = Vec::new();
                for o in list {
                    let mut s = self.expr(&o.expr)?;
                    if matches!(o.options.sort, Some(ast::OrderBySort::Desc)) {
                        s.push_str(" desc");
                    }
                    parts.push(s);
                }
                out.push_str(&parts.join(","));
            }
        }
        match &q.limit_clause {
            Some(ast::LimitClause::LimitOffset {
                limit: Some(l),
                offset,
                ..
            }) => {
                out.push_str(" limit ");
                if let Some(o) = offset {
                    out.push_str(&self.expr(&o.value)?);
                    out.push(',');
                }
                out.push_str(&self.expr(l)?);
            }
            Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => {
                out.push_str(&format!(
                    " limit {},{}",
                    self.expr(offset)?,
                    self.expr(limit)?
                ));
            }
            _ => {}
        }
        Ok(out)
    }

    fn set_expr(&self, s: &SetExpr, naming: Naming) -> R<String> {
        match s {
            SetExpr::Select(sel) => self.select(sel, naming, None),
            SetExpr::Query(q) => Ok(format!("({})", self.query_with(q, naming)?)),
            SetExpr::SetOperation {
                op,
                set_quantifier,
                left,
                right,
            } => {
                let op = match op {
                    ast::SetOperator::Union => "union",
                    ast::SetOperator::Intersect => "intersect",
                    ast::SetOperator::Except | ast::SetOperator::Minus => "except",
                };
                let q = match set_quantifier {
                    ast::SetQuantifier::All => " all",
                    _ => "",
                };
                Ok(format!(
                    "{} {op}{q} {}",
                    self.set_expr(left, naming)?,
                    self.set_expr(right, self.branch_naming(naming))?
                ))
            }
            other => Err(MySqlError::not_supported(&format!("{other} in a view"))),
        }
    }

    /// How the second and later branches of a set operation name their items.
    fn branch_naming(&self, naming: Naming) -> Naming {
        match naming {
            Naming::Top if self.as_read => Naming::Named,
            other => other.inner_branch(),
        }
    }

    /// One query block; `q` when the block is the whole query (its ORDER BY and
    /// LIMIT are printed in the block's scope).
    fn select(&self, s: &ast::Select, naming: Naming, q: Option<&ast::Query>) -> R<String> {
        let (from, entries) = self.from(&s.from)?;
        self.scopes.borrow_mut().push(entries);
        let mut r = self.select_body(s, naming, from);
        if let (Ok(text), Some(q)) = (&mut r, q) {
            match self.order_limit(q) {
                Ok(tail) => text.push_str(&tail),
                Err(e) => r = Err(e),
            }
        }
        self.scopes.borrow_mut().pop();
        r
    }

    fn select_body(&self, s: &ast::Select, naming: Naming, from: String) -> R<String> {
        let mut out = String::new();
        if let Some(numbers) = &self.select_numbers {
            let at = s.select_token.0.span.start;
            if let Some(n) = numbers.get(&(at.line, at.column)) {
                out.push_str(&format!("/* select#{n} */ "));
            }
        }
        out.push_str("select ");
        if matches!(s.distinct, Some(ast::Distinct::Distinct)) {
            out.push_str("distinct ");
        }
        let mut items = Vec::new();
        let mut i = 0;
        for item in s.projection.iter() {
            let (e, alias) = match item {
                ast::SelectItem::UnnamedExpr(e) => (e, None),
                ast::SelectItem::ExprWithAlias { expr, alias } => (expr, Some(&alias.value)),
                ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                    self.star(item, naming, &mut i, &mut items)?;
                    continue;
                }
                _ => return Err(MySqlError::not_supported("this select item in a view")),
            };
            let mut text = self.expr(e)?;
            i += 1;
            let name = match naming {
                Naming::Top => self.names.get(i - 1).cloned(),
                Naming::Named => Some(alias.cloned().unwrap_or_else(|| item_name(e))),
                Naming::Bare => None,
            };
            if let Some(n) = name {
                text.push_str(&format!(" AS `{}`", n.replace('`', "``")));
            }
            items.push(text);
        }
        out.push_str(&items.join(","));
        if !from.is_empty() {
            out.push_str(" from ");
            out.push_str(&from);
        }
        if let Some(w) = &s.selection {
            out.push_str(" where ");
            out.push_str(&self.expr(w)?);
        }
        if let ast::GroupByExpr::Expressions(list, _) = &s.group_by {
            if !list.is_empty() {
                let g: Vec<String> = list.iter().map(|e| self.expr(e)).collect::<R<_>>()?;
                out.push_str(" group by ");
                out.push_str(&g.join(","));
            }
        }
        if let Some(h) = &s.having {
            out.push_str(" having ");
            out.push_str(&self.expr(h)?);
        }
        Ok(out)
    }

    /// `*` or `t.*` expanded to the columns of the current block's FROM tables.
    fn star(
        &self,
        item: &ast::SelectItem,
        naming: Naming,
        i: &mut usize,
        items: &mut Vec<String>,
    ) -> R<()> {
        let only = match item {
            ast::SelectItem::QualifiedWildcard(
                ast::SelectItemQualifiedWildcardKind::ObjectName(n),
                _,
            ) => super::object_parts(n).last().cloned(),
            _ => None,
        };
        let scopes = self.scopes.borrow();
        let Some(entries) = scopes.last() else {
            return Err(MySqlError::no_tables_used());
        };
        for e in entries {
            if only.as_ref().is_some_and(|t| e.qual.last() != Some(t)) {
                continue;
            }
            for c in &e.columns {
                *i += 1;
                let mut text = column_text(&e.qual, c);
                let name = match naming {
                    Naming::Top => self.names.get(*i - 1).cloned(),
                    Naming::Named => Some(c.clone()),
                    Naming::Bare => None,
                };
                if let Some(n) = name {
                    text.push_str(&format!(" AS `{}`", n.replace('`', "``")));
                }
                items.push(text);
            }
        }
        Ok(())
    }

    /// The FROM clause's text and the tables it makes visible.
    fn from(&self, from: &[ast::TableWithJoins]) -> R<(String, Vec<Entry>)> {
        let mut entries = Vec::new();
        let mut acc: Option<String> = None;
        let count: usize = from.iter().map(|t| 1 + t.joins.len()).sum();
        for twj in from {
            let (first, e) = self.factor(&twj.relation)?;
            entries.extend(e);
            acc = Some(match acc {
                None => first,
                // MariaDB's VIEW_DEFINITION leaves a comma join unparenthesised.
                Some(a) if self.qualify_db => format!("{a} join {first}"),
                Some(a) => format!("({a} join {first})"),
            });
            for j in &twj.joins {
                let (right, e) = self.factor(&j.relation)?;
                entries.extend(e);
                let (kw, c) = match &j.join_operator {
                    ast::JoinOperator::Join(c)
                    | ast::JoinOperator::Inner(c)
                    | ast::JoinOperator::CrossJoin(c) => ("join", c),
                    ast::JoinOperator::StraightJoin(c) => ("straight_join", c),
                    ast::JoinOperator::Left(c) | ast::JoinOperator::LeftOuter(c) => {
                        ("left join", c)
                    }
                    ast::JoinOperator::Right(c) | ast::JoinOperator::RightOuter(c) => {
                        ("left join", c)
                    }
                    _ => return Err(MySqlError::not_supported("this join in a view")),
                };
                let right_join = matches!(
                    j.join_operator,
                    ast::JoinOperator::Right(_) | ast::JoinOperator::RightOuter(_)
                );
                let on = self.join_condition(c, &entries)?;
                let a = acc.take().unwrap_or_default();
                // MariaDB turns `a RIGHT JOIN b` into `b LEFT JOIN a`.
                let (l, r) = if right_join { (right, a) } else { (a, right) };
                acc = Some(match on {
                    Some(on) => format!("({l} {kw} {r} on({on}))"),
                    None => format!("({l} {kw} {r})"),
                });
            }
        }
        let mut text = acc.unwrap_or_default();
        if count == 1 && text.starts_with('(') && text.ends_with(')') && !text.contains(' ') {
            text = text[1..text.len() - 1].to_string();
        }
        Ok((text, entries))
    }

    fn join_condition(&self, c: &ast::JoinConstraint, entries: &[Entry]) -> R<Option<String>> {
        match c {
            ast::JoinConstraint::On(e) => {
                self.scopes.borrow_mut().push(Vec::new());
                // ON sees the tables joined so far.
                let visible: Vec<Entry> = entries
                    .iter()
                    .map(|e| Entry {
                        name: e.name.clone(),
                        db: e.db.clone(),
                        qual: e.qual.clone(),
                        columns: e.columns.clone(),
                    })
                    .collect();
                if let Some(top) = self.scopes.borrow_mut().last_mut() {
                    *top = visible;
                }
                let r = self.expr(e);
                self.scopes.borrow_mut().pop();
                r.map(Some)
            }
            ast::JoinConstraint::Using(cols) => {
                let (right, left) = entries.split_last().expect("a join has a right table");
                let mut parts = Vec::new();
                for c in cols {
                    let n = super::object_parts(c).last().cloned().unwrap_or_default();
                    let l = left
                        .iter()
                        .find(|e| e.columns.iter().any(|x| x.eq_ignore_ascii_case(&n)))
                        .ok_or_else(|| MySqlError::bad_field(&n, "from clause"))?;
                    parts.push(format!(
                        "{} = {}",
                        column_text(&l.qual, &n),
                        column_text(&right.qual, &n)
                    ));
                }
                Ok(Some(parts.join(" and ")))
            }
            ast::JoinConstraint::None => Ok(None),
            _ => Err(MySqlError::not_supported("this join condition in a view")),
        }
    }

    fn factor(&self, tf: &TableFactor) -> R<(String, Vec<Entry>)> {
        match tf {
            TableFactor::Table { name, alias, .. } => {
                let parts = super::object_parts(name);
                let (db, t) = match parts.as_slice() {
                    [t] => (self.db.clone(), t.clone()),
                    [d, t] => (d.clone(), t.clone()),
                    _ => return Err(MySqlError::parse_error(&name.to_string(), 1)),
                };
                let is_view = self.storage.view(&db, &t).is_some();
                let columns = self.columns_of(&db, &t);
                let mut text = if self.qualify_db || db != self.db {
                    format!("{}.{}", q(&db), q(&t))
                } else {
                    q(&t)
                };
                let (qual, entry_db) = match alias {
                    Some(a) => {
                        text.push(' ');
                        text.push_str(&q(&a.name.value));
                        (vec![a.name.value.clone()], None)
                    }
                    None if self.qualify_db && !is_view => (vec![db.clone(), t.clone()], Some(db)),
                    None => (vec![t.clone()], Some(db)),
                };
                let name = qual.last().cloned().unwrap_or_default();
                Ok((
                    text,
                    vec![Entry {
                        name,
                        db: entry_db,
                        qual,
                        columns,
                    }],
                ))
            }
            TableFactor::Derived {
                subquery, alias, ..
            } => {
                let a = alias
                    .as_ref()
                    .ok_or_else(|| MySqlError::parse_error("", 1))?;
                let body = self.query_with(subquery, Naming::Named)?;
                let columns = if a.columns.is_empty() {
                    first_block_names(subquery)
                } else {
                    a.columns.iter().map(|c| c.name.value.clone()).collect()
                };
                let text = format!("({body}) {}", q(&a.name.value));
                Ok((
                    text,
                    vec![Entry {
                        name: a.name.value.clone(),
                        db: None,
                        qual: vec![a.name.value.clone()],
                        columns,
                    }],
                ))
            }
            TableFactor::NestedJoin {
                table_with_joins, ..
            } => self.from(std::slice::from_ref(table_with_joins)),
            TableFactor::JsonTable {
                json_expr,
                json_path,
                columns,
                alias: Some(a),
            } => {
                let doc = self.expr(json_expr)?;
                let mut names = Vec::new();
                let cols = super::json_table_print::columns(columns, &mut names)?;
                let path = super::json_table_print::literal(json_path);
                let text = format!(
                    "JSON_TABLE({doc}, {path} COLUMNS ({cols})) {}",
                    q(&a.name.value)
                );
                Ok((
                    text,
                    vec![Entry {
                        name: a.name.value.clone(),
                        db: None,
                        qual: vec![a.name.value.clone()],
                        columns: names,
                    }],
                ))
            }
            _ => Err(MySqlError::not_supported("this table reference in a view")),
        }
    }

    fn columns_of(&self, db: &str, t: &str) -> Vec<String> {
        if let Some(v) = self.storage.view(db, t) {
            return v.columns.clone();
        }
        let table = match self.storage.table(db, t) {
            Some(tab) => Some(tab),
            None => crate::seq_engine::open(db, t, basalt_common::Collation::Binary)
                .and_then(Result::ok),
        };
        table.map_or_else(Vec::new, |tab| {
            tab.def().columns.iter().map(|c| c.name.clone()).collect()
        })
    }

    /// An expression of the current query block, its columns qualified.
    fn expr(&self, e: &A) -> R<String> {
        let mut e = e.clone();
        {
            let scopes = self.scopes.borrow();
            let mut q = Qualify {
                scopes: &scopes,
                depth: 0,
            };
            let _ = e.visit(&mut q);
        }
        print_in_view(&e, self)
    }
}

impl Queries for ViewPrinter<'_> {
    fn query(&self, q: &ast::Query) -> R<String> {
        self.query_with(q, Naming::Bare)
    }
}

/// How a query block's select items are named.
#[derive(Clone, Copy)]
enum Naming {
    /// The view's own blocks: the view's column names.
    Top,
    /// Derived tables: their alias or written name.
    Named,
    /// Expression subqueries: no names.
    Bare,
}

impl Naming {
    /// The second and later branches of a set operation.
    fn inner_branch(self) -> Naming {
        match self {
            Naming::Top => Naming::Top,
            other => other,
        }
    }
}

/// Qualifies the column names of one query block (not of the subqueries in it,
/// which are qualified when they are printed, with their own FROM tables first).
struct Qualify<'s> {
    scopes: &'s [Vec<Entry>],
    depth: usize,
}

impl VisitorMut for Qualify<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, _q: &mut ast::Query) -> ControlFlow<()> {
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _q: &mut ast::Query) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &mut A) -> ControlFlow<()> {
        if self.depth > 0 {
            return ControlFlow::Continue(());
        }
        let found = match e {
            A::Identifier(id) => {
                resolve(self.scopes, &id.value).map(|qual| (qual.to_vec(), id.clone()))
            }
            // `t.c` / `db.t.c`: printed with the table's qualifier.
            A::CompoundIdentifier(ids) if ids.len() == 2 || ids.len() == 3 => {
                let (db, t, c) = match ids.as_slice() {
                    [t, c] => (None, t, c),
                    [d, t, c] => (Some(&d.value), t, c),
                    _ => unreachable!("two or three parts"),
                };
                self.scopes
                    .iter()
                    .rev()
                    .flat_map(|s| s.iter())
                    .find(|en| en.name == t.value && db.is_none_or(|d| en.db.as_ref() == Some(d)))
                    .map(|en| (en.qual.clone(), c.clone()))
            }
            _ => None,
        };
        if let Some((qual, col)) = found {
            let mut parts: Vec<ast::Ident> = qual.iter().map(ast::Ident::new).collect();
            parts.push(col);
            *e = A::CompoundIdentifier(parts);
        }
        ControlFlow::Continue(())
    }
}

fn resolve<'s>(scopes: &'s [Vec<Entry>], name: &str) -> Option<&'s [String]> {
    scopes.iter().rev().find_map(|entries| {
        entries
            .iter()
            .find(|e| e.columns.iter().any(|c| c.eq_ignore_ascii_case(name)))
            .map(|e| e.qual.as_slice())
    })
}

fn q(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

fn column_text(qual: &[String], c: &str) -> String {
    let mut parts: Vec<String> = qual.iter().map(|p| q(p)).collect();
    parts.push(q(c));
    parts.join(".")
}

/// The name MariaDB gives an unaliased select item of a derived table.
fn item_name(e: &A) -> String {
    match e {
        A::Identifier(i) => i.value.clone(),
        A::CompoundIdentifier(p) => p.last().map(|i| i.value.clone()).unwrap_or_default(),
        other => other.to_string(),
    }
}

/// The column names of a query's first block (a derived table's columns).
fn first_block_names(q: &ast::Query) -> Vec<String> {
    let mut body = &*q.body;
    loop {
        match body {
            SetExpr::Select(s) => {
                return s
                    .projection
                    .iter()
                    .map(|i| match i {
                        ast::SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
                        ast::SelectItem::UnnamedExpr(e) => item_name(e),
                        other => other.to_string(),
                    })
                    .collect()
            }
            SetExpr::SetOperation { left, .. } => body = left,
            SetExpr::Query(inner) => body = &inner.body,
            _ => return Vec::new(),
        }
    }
}
