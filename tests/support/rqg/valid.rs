//! Whether a query keeps the rules that make its result deterministic (see
//! [`super::gen`]): the generator builds only such queries, and the shrinker
//! keeps only the simplifications that still are.

use super::ast::*;
use super::gen::is_canonical;
use super::items::has_column;
use super::schema::Schema;
use super::walk;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Top,
    Derived,
    Branch,
    In,
    Scalar,
    Exists,
}

pub fn valid(top: &Top, schema: &Schema) -> bool {
    query_ok(&top.q, Role::Top, schema)
}

fn query_ok(q: &Query, role: Role, schema: &Schema) -> bool {
    match q {
        Query::Set { l, r, .. } => {
            !matches!(role, Role::Derived | Role::Scalar)
                && l.width() == r.width()
                && (role != Role::In || q.width() == 1)
                && query_ok(l, Role::Branch, schema)
                && query_ok(r, Role::Branch, schema)
        }
        Query::Select(s) => select_ok(s, role, schema),
    }
}

fn select_ok(s: &Select, role: Role, schema: &Schema) -> bool {
    shape_ok(s, role)
        && keys_ok(s)
        && (!s.grouped() || grouping_ok(s))
        && (!s.has_window() || windows_ok(s, schema))
        && clauses_ok(s)
        && walk::slots(s).iter().all(|e| subqueries_ok(e, schema))
        && walk::tables(s).iter().all(|t| match t {
            TableRef::Derived { q, .. } => query_ok(q, Role::Derived, schema),
            TableRef::Base { .. } => true,
        })
}

fn shape_ok(s: &Select, role: Role) -> bool {
    let one = s.items.len() == 1;
    match role {
        _ if s.items.is_empty() => false,
        Role::In => one,
        Role::Scalar => {
            one && matches!(s.items[0].expr, Expr::Agg(..))
                && s.group_by.is_empty()
                && s.having.is_empty()
                && !s.distinct
        }
        Role::Derived => s.items.iter().all(|i| i.alias.is_some()),
        Role::Top | Role::Branch | Role::Exists => true,
    }
}

/// GROUP BY keys: no literal (a column position), aggregate or window.
fn keys_ok(s: &Select) -> bool {
    s.group_by
        .iter()
        .all(|k| has_column(k) && !k.has_agg() && !has_window(k))
}

/// No aggregate or window in ON / WHERE / GROUP BY / HAVING (windows), and
/// MIN / MAX of a string only over its canonical form.
fn clauses_ok(s: &Select) -> bool {
    let conds = s.joins.iter().map(|j| &j.on).chain(&s.conds);
    let no_agg = conds.clone().all(|e| !e.has_agg() && !has_window(e));
    let no_win = s.having.iter().all(|e| !has_window(e));
    no_agg && no_win && walk::slots(s).iter().all(|e| min_max_ok(e))
}

fn min_max_ok(e: &Expr) -> bool {
    let mut ok = true;
    e.visit_shallow(&mut |x| {
        if let Expr::Agg(AggFn::Min | AggFn::Max, _, Some(a)) = x {
            ok &= a.ty() != Ty::Str || is_canonical(a);
        }
    });
    ok
}

fn has_window(e: &Expr) -> bool {
    let mut found = false;
    e.visit_shallow(&mut |x| found |= matches!(x, Expr::Win(_)));
    found
}

fn locals(s: &Select) -> Vec<&str> {
    walk::tables(s).iter().map(|t| t.alias()).collect()
}

/// Every item and HAVING condition is made of GROUP BY keys, aggregates and
/// values that do not depend on the row.
fn grouping_ok(s: &Select) -> bool {
    let local = locals(s);
    let items = s.items.iter().map(|i| &i.expr);
    items
        .chain(&s.having)
        .all(|e| grouped_ok(e, &s.group_by, &local))
}

fn grouped_ok(e: &Expr, keys: &[Expr], local: &[&str]) -> bool {
    if keys.contains(e) {
        return true;
    }
    match e {
        Expr::Agg(..) | Expr::Lit { .. } => true,
        Expr::Win(_) => false,
        Expr::Col { qual, .. } => !local.contains(&qual.as_str()),
        Expr::Scalar(q) | Expr::Exists(q, _) => !walk::refers_to(q, local),
        Expr::InSub(a, q, _) => grouped_ok(a, keys, local) && !walk::refers_to(q, local),
        // LIKE tells 'a' from 'a ', which the group does not.
        Expr::Like(a, ..) => !has_column(a) && !a.has_agg(),
        _ => e.children().iter().all(|c| grouped_ok(c, keys, local)),
    }
}

/// ROW_NUMBER only over one base table, ordered by its primary key last; no
/// window in a grouped select.
fn windows_ok(s: &Select, schema: &Schema) -> bool {
    if s.grouped() {
        return false;
    }
    let pk = match &s.from {
        TableRef::Base { table, alias } if s.joins.is_empty() => {
            let t = schema.table(table);
            t.pk.map(|i| (alias.clone(), t.cols[i].name.clone()))
        }
        _ => None,
    };
    let mut ok = true;
    for item in &s.items {
        item.expr.visit_shallow(&mut |x| {
            if let Expr::Win(w) = x {
                ok &= w_ok(w, pk.as_ref());
            }
        });
    }
    ok
}

fn w_ok(w: &Window, pk: Option<&(String, String)>) -> bool {
    let no_lit = w
        .partition
        .iter()
        .chain(w.order.iter().map(|(e, _)| e))
        .all(has_column);
    let tiebreak = match (&w.tiebreak, pk) {
        (Some(Expr::Col { qual, name, .. }), Some((a, n))) => qual == a && name == n,
        _ => false,
    };
    let ordered = !w.order.is_empty() || !matches!(w.f, WinFn::Rank | WinFn::DenseRank);
    no_lit && ordered && (w.f != WinFn::RowNumber || tiebreak)
}

fn subqueries_ok(e: &Expr, schema: &Schema) -> bool {
    let mut ok = true;
    e.visit_shallow(&mut |x| {
        ok &= match x {
            Expr::Scalar(q) => query_ok(q, Role::Scalar, schema),
            Expr::InSub(_, q, _) => query_ok(q, Role::In, schema),
            Expr::Exists(q, _) => query_ok(q, Role::Exists, schema),
            _ => true,
        };
    });
    ok
}
