//! Visiting every expression of a query, subqueries and derived tables included.

use super::ast::*;

/// Calls `f` on every expression of `q` (before its subexpressions).
pub fn query(q: &Query, f: &mut dyn FnMut(&Expr)) {
    match q {
        Query::Select(s) => select(s, f),
        Query::Set { l, r, .. } => {
            query(l, f);
            query(r, f);
        }
    }
}

pub fn select(s: &Select, f: &mut dyn FnMut(&Expr)) {
    for e in slots(s) {
        expr(e, f);
    }
    for t in tables(s) {
        if let TableRef::Derived { q, .. } = t {
            query(q, f);
        }
    }
}

pub fn expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    if let Some(q) = e.subquery() {
        query(q, f);
    }
    for c in e.children() {
        expr(c, f);
    }
}

/// As [`query`], mutable: `f` may replace an expression (its replacement is
/// then visited).
pub fn query_mut(q: &mut Query, f: &mut dyn FnMut(&mut Expr)) {
    match q {
        Query::Select(s) => select_mut(s, f),
        Query::Set { l, r, .. } => {
            query_mut(l, f);
            query_mut(r, f);
        }
    }
}

pub fn select_mut(s: &mut Select, f: &mut dyn FnMut(&mut Expr)) {
    for e in slots_mut(s) {
        expr_mut(e, f);
    }
    for t in tables_mut(s) {
        if let TableRef::Derived { q, .. } = t {
            query_mut(q, f);
        }
    }
}

pub fn expr_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    f(e);
    if let Some(q) = e.subquery_mut() {
        query_mut(q, f);
    }
    for c in e.children_mut() {
        expr_mut(c, f);
    }
}

/// The top-level expressions of a select: items, ON conditions, WHERE, GROUP BY
/// and HAVING, in that order.
pub fn slots(s: &Select) -> Vec<&Expr> {
    let items = s.items.iter().map(|i| &i.expr);
    let ons = s.joins.iter().map(|j| &j.on);
    items
        .chain(ons)
        .chain(&s.conds)
        .chain(&s.group_by)
        .chain(&s.having)
        .collect()
}

/// As [`slots`], mutable and in the same order.
pub fn slots_mut(s: &mut Select) -> Vec<&mut Expr> {
    let items = s.items.iter_mut().map(|i| &mut i.expr);
    let ons = s.joins.iter_mut().map(|j| &mut j.on);
    items
        .chain(ons)
        .chain(&mut s.conds)
        .chain(&mut s.group_by)
        .chain(&mut s.having)
        .collect()
}

/// FROM and the joined tables.
pub fn tables(s: &Select) -> Vec<&TableRef> {
    std::iter::once(&s.from)
        .chain(s.joins.iter().map(|j| &j.table))
        .collect()
}

pub fn tables_mut(s: &mut Select) -> Vec<&mut TableRef> {
    std::iter::once(&mut s.from)
        .chain(s.joins.iter_mut().map(|j| &mut j.table))
        .collect()
}

/// Replaces each reference to `qual` (to its column `name` only, when given) in
/// `s` by a NULL of the column's type: for a table or column taken away.
pub fn forget(s: &mut Select, qual: &str, name: Option<&str>) {
    select_mut(s, &mut |e| {
        if let Expr::Col {
            qual: q,
            name: n,
            ty,
        } = e
        {
            if *q == qual && name.is_none_or(|x| *n == x) {
                *e = Expr::lit("NULL", *ty);
            }
        }
    });
}

/// Whether `q` refers to a column of one of `quals`.
pub fn refers_to(q: &Query, quals: &[&str]) -> bool {
    let mut found = false;
    query(q, &mut |e| {
        if let Expr::Col { qual, .. } = e {
            found |= quals.contains(&qual.as_str());
        }
    });
    found
}

/// The names of the base tables `q` reads.
pub fn base_tables(q: &Query) -> Vec<String> {
    let mut out = Vec::new();
    collect_tables(q, &mut out);
    out.sort();
    out.dedup();
    out
}

fn collect_tables(q: &Query, out: &mut Vec<String>) {
    match q {
        Query::Set { l, r, .. } => {
            collect_tables(l, out);
            collect_tables(r, out);
        }
        Query::Select(s) => {
            for t in tables(s) {
                match t {
                    TableRef::Base { table, .. } => out.push(table.clone()),
                    TableRef::Derived { q, .. } => collect_tables(q, out),
                }
            }
            for e in slots(s) {
                expr(e, &mut |x| {
                    if let Some(sub) = x.subquery() {
                        collect_tables(sub, out);
                    }
                });
            }
        }
    }
}
