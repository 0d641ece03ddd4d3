//! One-step simplifications of a query, for shrinking a query that shows a
//! difference: drop ORDER BY / LIMIT, a set operation's branch, a column, a
//! joined table, a WHERE / HAVING conjunct, GROUP BY, DISTINCT, a window's
//! PARTITION BY / ORDER BY; replace an expression by one of its operands or by a
//! literal. Candidates may break the rules of [`super::valid`]; the caller keeps
//! only the valid ones.

use super::ast::*;
use super::walk;

/// Every one-step simplification of `top`, roughly the biggest first.
pub fn candidates(top: &Top) -> Vec<Top> {
    let mut out = Vec::new();
    if let Some(o) = &top.order {
        out.push(Top {
            q: top.q.clone(),
            order: None,
        });
        for order in [
            Order {
                limit: None,
                ..o.clone()
            },
            Order {
                desc: 0,
                ..o.clone()
            },
        ] {
            if &order != o {
                out.push(Top {
                    q: top.q.clone(),
                    order: Some(order),
                });
            }
        }
    }
    for q in query(&top.q, false) {
        out.push(Top {
            q,
            order: top.order.clone(),
        });
    }
    out
}

/// `fixed`: the number of output columns must stay.
fn query(q: &Query, fixed: bool) -> Vec<Query> {
    match q {
        Query::Select(s) => select(s, fixed)
            .into_iter()
            .map(|s| Query::Select(Box::new(s)))
            .collect(),
        Query::Set { op, all, l, r } => {
            let mut out = vec![(**l).clone(), (**r).clone()];
            if !fixed && q.width() > 1 {
                out.extend((0..q.width()).filter_map(|i| without_column(q, i)));
            }
            if *all {
                out.push(Query::Set {
                    op: *op,
                    all: false,
                    l: l.clone(),
                    r: r.clone(),
                });
            }
            let set = |l: Query, r: Query| Query::Set {
                op: *op,
                all: *all,
                l: Box::new(l),
                r: Box::new(r),
            };
            out.extend(query(l, true).into_iter().map(|l2| set(l2, (**r).clone())));
            out.extend(query(r, true).into_iter().map(|r2| set((**l).clone(), r2)));
            out
        }
    }
}

fn without_column(q: &Query, i: usize) -> Option<Query> {
    match q {
        Query::Select(s) if s.items.len() > 1 => {
            let mut s = s.clone();
            s.items.remove(i);
            Some(Query::Select(s))
        }
        Query::Select(_) => None,
        Query::Set { op, all, l, r } => Some(Query::Set {
            op: *op,
            all: *all,
            l: Box::new(without_column(l, i)?),
            r: Box::new(without_column(r, i)?),
        }),
    }
}

fn select(s: &Select, fixed: bool) -> Vec<Select> {
    let mut out = Vec::new();
    drop_tables(s, &mut out);
    drop_clauses(s, fixed, &mut out);
    drop_derived_columns(s, &mut out);
    for (k, e) in walk::slots(s).into_iter().enumerate() {
        for e2 in expr(e) {
            let mut c = s.clone();
            *walk::slots_mut(&mut c)[k] = e2;
            out.push(c);
        }
    }
    for (k, t) in walk::tables(s).into_iter().enumerate() {
        if let TableRef::Derived { q, .. } = t {
            for q2 in query(q, true) {
                let mut c = s.clone();
                if let TableRef::Derived { q, .. } = &mut *walk::tables_mut(&mut c).remove(k) {
                    **q = q2;
                }
                out.push(c);
            }
        }
    }
    out
}

/// Without a joined table, or with the first joined table as FROM.
fn drop_tables(s: &Select, out: &mut Vec<Select>) {
    for j in 0..s.joins.len() {
        let mut c = s.clone();
        let gone = c.joins.remove(j);
        walk::forget(&mut c, gone.table.alias(), None);
        out.push(c);
    }
    if !s.joins.is_empty() {
        let mut c = s.clone();
        let first = c.joins.remove(0);
        let gone = std::mem::replace(&mut c.from, first.table);
        walk::forget(&mut c, gone.alias(), None);
        out.push(c);
    }
}

fn drop_clauses(s: &Select, fixed: bool, out: &mut Vec<Select>) {
    let mut push = |f: &dyn Fn(&mut Select)| {
        let mut c = s.clone();
        f(&mut c);
        out.push(c);
    };
    if s.distinct {
        push(&|c| c.distinct = false);
    }
    if !s.group_by.is_empty() {
        push(&|c| c.group_by.clear());
    }
    for i in 0..s.conds.len() {
        push(&|c| drop(c.conds.remove(i)));
    }
    for i in 0..s.group_by.len() {
        push(&|c| drop(c.group_by.remove(i)));
    }
    for i in 0..s.having.len() {
        push(&|c| drop(c.having.remove(i)));
    }
    if !fixed && s.items.len() > 1 {
        for i in 0..s.items.len() {
            push(&|c| drop(c.items.remove(i)));
        }
    }
    for j in 0..s.joins.len() {
        if s.joins[j].left {
            push(&|c| c.joins[j].left = false);
        }
        push(&|c| c.joins[j].on = Expr::lit("1", Ty::Bool));
    }
}

/// A derived table without one of its columns (references to it become NULL).
fn drop_derived_columns(s: &Select, out: &mut Vec<Select>) {
    for (k, t) in walk::tables(s).into_iter().enumerate() {
        let TableRef::Derived { q, alias } = t else {
            continue;
        };
        let Query::Select(inner) = &**q else {
            continue;
        };
        for i in (0..inner.items.len()).filter(|_| inner.items.len() > 1) {
            let mut c = s.clone();
            let name = inner.items[i].alias.clone().unwrap_or_default();
            if let TableRef::Derived { q, .. } = &mut *walk::tables_mut(&mut c).remove(k) {
                if let Query::Select(inner) = &mut **q {
                    inner.items.remove(i);
                }
            }
            walk::forget(&mut c, alias, Some(&name));
            out.push(c);
        }
    }
}

/// Literals an expression of type `ty` may become.
fn literals(ty: Ty) -> &'static [&'static str] {
    match ty {
        Ty::Int => &["0", "1", "NULL"],
        Ty::Dec => &["1.50", "NULL"],
        Ty::Str => &["'a'", "NULL"],
        Ty::Date => &["DATE '2020-01-01'", "NULL"],
        Ty::Bool => &["1", "0", "NULL"],
    }
}

/// One-step simplifications of an expression.
pub fn expr(e: &Expr) -> Vec<Expr> {
    let ty = e.ty();
    let mut out: Vec<Expr> = literals(ty)
        .iter()
        .filter(|l| !matches!(e, Expr::Lit { text, .. } if text == *l))
        .map(|l| Expr::lit(*l, ty))
        .collect();
    for c in e.children() {
        let fits = match ty {
            Ty::Bool => c.ty() == Ty::Bool,
            _ => c.ty().compatible(ty),
        };
        if fits && !matches!(e, Expr::Win(_)) {
            out.push(c.clone());
        }
    }
    special(e, &mut out);
    for (k, child) in e.children().into_iter().enumerate() {
        for c2 in expr(child) {
            let mut e2 = e.clone();
            *e2.children_mut()[k] = c2;
            out.push(e2);
        }
    }
    if let Some(q) = e.subquery() {
        let fixed = !matches!(e, Expr::Exists(..));
        for q2 in query(q, fixed) {
            let mut e2 = e.clone();
            *e2.subquery_mut().expect("a subquery") = q2;
            out.push(e2);
        }
    }
    out
}

/// Simplifications particular to a kind of expression.
fn special(e: &Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::Agg(f, distinct, arg) => {
            if *distinct {
                out.push(Expr::Agg(*f, false, arg.clone()));
            }
            if *f == AggFn::Count && arg.is_some() {
                out.push(Expr::Agg(AggFn::Count, false, None));
            }
        }
        Expr::Win(w) => window(w, out),
        Expr::InList(a, list, neg) if list.len() > 1 => {
            for i in 0..list.len() {
                let mut l = list.clone();
                l.remove(i);
                out.push(Expr::InList(a.clone(), l, *neg));
            }
        }
        Expr::Case(whens, els) => {
            if els.is_some() {
                out.push(Expr::Case(whens.clone(), None));
            }
            for i in (0..whens.len()).filter(|_| whens.len() > 1) {
                let mut w = whens.clone();
                w.remove(i);
                out.push(Expr::Case(w, els.clone()));
            }
        }
        _ => {}
    }
    if let Some(plain) = unnegated(e) {
        out.push(plain);
    }
}

fn unnegated(e: &Expr) -> Option<Expr> {
    let mut e = e.clone();
    let neg = match &mut e {
        Expr::IsNull(_, n)
        | Expr::InList(_, _, n)
        | Expr::Between(_, _, _, n)
        | Expr::Like(_, _, n)
        | Expr::InSub(_, _, n)
        | Expr::Exists(_, n) => n,
        _ => return None,
    };
    std::mem::replace(neg, false).then_some(e)
}

fn window(w: &Window, out: &mut Vec<Expr>) {
    for i in 0..w.partition.len() {
        let mut w2 = w.clone();
        w2.partition.remove(i);
        out.push(Expr::Win(Box::new(w2)));
    }
    for i in 0..w.order.len() {
        let mut w2 = w.clone();
        w2.order.remove(i);
        out.push(Expr::Win(Box::new(w2)));
    }
    if w.order.iter().any(|(_, d)| *d) {
        let mut w2 = w.clone();
        w2.order.iter_mut().for_each(|(_, d)| *d = false);
        out.push(Expr::Win(Box::new(w2)));
    }
}
