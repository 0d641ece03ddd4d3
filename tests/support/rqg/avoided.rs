//! Whether a query uses a construct of [`Avoid`] (see [`super::avoidable`]): the
//! generator draws again, the shrinker skips the simplification.

use super::ast::*;
use super::avoidable as a;
use super::items::has_column;
use super::walk;
use super::Avoid;

pub fn top(t: &Top, avoid: &Avoid) -> bool {
    let ordered = t.order.is_some() && t.q.out_types().contains(&Ty::Str);
    let temp = string_through_temp_table(&t.q) || ordered;
    let min_max = t.order.is_some() && distinct_count_and_int_min_max(&t.q);
    (avoid.has(a::STRING_THROUGH_TEMP_TABLE) && temp)
        || (avoid.has(a::ORDERED_INT_MIN_MAX) && min_max)
        || query(&t.q, avoid)
}

/// A select with a DISTINCT aggregate (in its items or HAVING) and MIN / MAX of
/// an integer expression that is not a column.
fn distinct_count_and_int_min_max(q: &Query) -> bool {
    let Query::Select(s) = q else { return false };
    let (mut distinct, mut min_max) = (false, false);
    for e in s.items.iter().map(|i| &i.expr).chain(&s.having) {
        e.visit_shallow(&mut |e| match e {
            Expr::Agg(_, true, _) => distinct = true,
            Expr::Agg(AggFn::Min | AggFn::Max, _, Some(arg)) => {
                min_max |= arg.ty() == Ty::Int && !matches!(**arg, Expr::Col { .. });
            }
            _ => {}
        });
    }
    distinct && min_max
}

/// A string column of a DISTINCT or grouped select or of a set operation.
pub fn string_through_temp_table(q: &Query) -> bool {
    let temp = match q {
        Query::Set { .. } => true,
        Query::Select(s) => s.distinct || s.grouped(),
    };
    temp && q.out_types().contains(&Ty::Str)
}

pub fn query(q: &Query, avoid: &Avoid) -> bool {
    match q {
        Query::Set { l, r, .. } => {
            let mixed = avoid.has(a::NESTED_SET_INT_DECIMAL)
                && (int_against_decimal(l, r) || int_against_decimal(r, l));
            let quotients = avoid.has(a::NESTED_DIVISION) && quotient_items(q);
            let all = avoid.has(a::NESTED_ALL_SET_OP) && (all_set_op(l) || all_set_op(r));
            mixed || quotients || all || query(l, avoid) || query(r, avoid)
        }
        Query::Select(s) => select(s, avoid),
    }
}

/// Whether set operation `inner` has an integer column where `other` has a
/// DECIMAL.
fn int_against_decimal(inner: &Query, other: &Query) -> bool {
    inner.has_set_op()
        && inner
            .out_types()
            .iter()
            .zip(other.out_types())
            .any(|(a, b)| *a == Ty::Int && b == Ty::Dec)
}

fn select(s: &Select, avoid: &Avoid) -> bool {
    let having_key =
        avoid.has(a::HAVING_ON_GROUP_KEY) && s.having.iter().any(column_outside_aggregate);
    let nulls = avoid.has(a::NULL_VALUE) && null_values(s);
    let derived = walk::tables(s).into_iter().any(|t| match t {
        TableRef::Derived { q, .. } => derived_query(q, avoid),
        TableRef::Base { .. } => false,
    });
    let exprs = walk::slots(s).into_iter().any(|e| expr(e, avoid));
    let divisions = avoid.has(a::NESTED_DIVISION) && nested_divisions(s);
    let windows = avoid.has(a::MULTIPLE_WINDOWS) && window_count(s) > 1;
    let forward = avoid.has(a::FORWARD_REFERENCE) && forward_reference(s);
    let implicit = avoid.has(a::HAVING_IMPLICIT_GROUP) && having_after_subquery(s);
    let names = avoid.has(a::SAME_NAMED_DERIVED_COLUMNS) && same_named_derived_columns(s);
    let like = avoid.has(a::GROUPED_LIKE) && grouped_like(s);
    having_key
        || nulls
        || derived
        || exprs
        || divisions
        || windows
        || forward
        || implicit
        || names
        || like
}

/// A LIKE among the WHERE conditions of a select with GROUP BY.
fn grouped_like(s: &Select) -> bool {
    let mut found = false;
    for c in &s.conds {
        c.visit_shallow(&mut |e| found |= matches!(e, Expr::Like(..)));
    }
    found && !s.group_by.is_empty()
}

fn same_named_derived_columns(s: &Select) -> bool {
    let mut names = Vec::new();
    for t in walk::tables(s) {
        if let TableRef::Derived { q, .. } = t {
            if let Query::Select(d) = &**q {
                names.extend(d.items.iter().filter_map(|i| i.alias.clone()));
            }
        }
    }
    let all = names.len();
    names.sort();
    names.dedup();
    names.len() != all
}

/// HAVING without GROUP BY, and a subquery in WHERE.
fn having_after_subquery(s: &Select) -> bool {
    let mut sub = false;
    for c in &s.conds {
        c.visit_shallow(&mut |e| sub |= e.subquery().is_some());
    }
    !s.having.is_empty() && s.group_by.is_empty() && sub
}

/// An item with a subquery that reads a column a later item is.
fn forward_reference(s: &Select) -> bool {
    s.items.iter().enumerate().any(|(i, item)| {
        s.items[i + 1..].iter().any(|later| match &later.expr {
            Expr::Col { qual, name, .. } => reads_in_subquery(&item.expr, qual, name),
            _ => false,
        })
    })
}

fn reads_in_subquery(e: &Expr, qual: &str, name: &str) -> bool {
    let mut found = false;
    e.visit_shallow(&mut |x| {
        if let Some(q) = x.subquery() {
            walk::query(q, &mut |y| {
                found |= matches!(y, Expr::Col { qual: q, name: n, .. } if q == qual && n == name);
            });
        }
    });
    found
}

/// A LIKE in subquery `q` on a column of an enclosing query.
fn like_on_outer_column(q: &Query) -> bool {
    let mut own = Vec::new();
    aliases(q, &mut own);
    let mut found = false;
    walk::query(q, &mut |e| {
        if let Expr::Like(x, ..) = e {
            x.visit_shallow(&mut |c| {
                found |= matches!(c, Expr::Col { qual, .. } if !own.contains(qual));
            });
        }
    });
    found
}

/// The table aliases of `q` and of the queries inside it.
fn aliases(q: &Query, out: &mut Vec<String>) {
    match q {
        Query::Set { l, r, .. } => {
            aliases(l, out);
            aliases(r, out);
        }
        Query::Select(s) => {
            for t in walk::tables(s) {
                out.push(t.alias().to_string());
                if let TableRef::Derived { q, .. } = t {
                    aliases(q, out);
                }
            }
            for e in walk::slots(s) {
                walk::expr(e, &mut |x| {
                    if let Some(sub) = x.subquery() {
                        aliases(sub, out);
                    }
                });
            }
        }
    }
}

fn window_count(s: &Select) -> usize {
    let mut n = 0;
    for i in &s.items {
        i.expr
            .visit_shallow(&mut |e| n += matches!(e, Expr::Win(_)) as usize);
    }
    n
}

/// A quotient (a division, AVG, a scalar subquery of one) that is not a select
/// item (but an operand, an argument, compared ...).
fn nested_divisions(s: &Select) -> bool {
    let items = s.items.iter().any(|i| nested_division(&i.expr, true));
    let slots = walk::slots(s);
    items
        || slots[s.items.len()..]
            .iter()
            .any(|e| nested_division(e, false))
}

fn nested_division(e: &Expr, root: bool) -> bool {
    (!root && quotient(e)) || e.children().into_iter().any(|c| nested_division(c, false))
}

/// A quotient among the columns of a set operation's operands.
fn quotient_items(q: &Query) -> bool {
    match q {
        Query::Set { l, r, .. } => quotient_items(l) || quotient_items(r),
        Query::Select(s) => s.items.iter().any(|i| quotient(&i.expr)),
    }
}

fn quotient(e: &Expr) -> bool {
    match e {
        Expr::Arith("/", ..) | Expr::Agg(AggFn::Avg, ..) => true,
        Expr::Scalar(q) => matches!(&**q, Query::Select(s) if quotient(&s.items[0].expr)),
        _ => false,
    }
}

fn derived_query(q: &Query, avoid: &Avoid) -> bool {
    (avoid.has(a::STRING_THROUGH_TEMP_TABLE) && string_through_temp_table(q))
        || (avoid.has(a::DERIVED_COMPUTED_COLUMN) && computed_columns(q))
        || query(q, avoid)
}

/// Whether a column of `q` is not a column of its tables.
pub fn computed_columns(q: &Query) -> bool {
    match q {
        Query::Select(s) => s.items.iter().any(|i| !matches!(i.expr, Expr::Col { .. })),
        Query::Set { .. } => true,
    }
}

fn column_outside_aggregate(e: &Expr) -> bool {
    match e {
        Expr::Agg(..) => false,
        Expr::Col { .. } => true,
        _ => e.children().into_iter().any(column_outside_aggregate),
    }
}

/// A NULL literal anywhere but as an operand of a comparison, IN, BETWEEN, IS
/// NULL or LIKE, or as a whole condition.
fn null_values(s: &Select) -> bool {
    let items = s.items.iter().any(|i| null_value(&i.expr, false));
    let keys = s.group_by.iter().any(|e| null_value(e, false));
    let conds = s
        .joins
        .iter()
        .map(|j| &j.on)
        .chain(&s.conds)
        .chain(&s.having);
    items || keys || conds.into_iter().any(|e| null_value(e, true))
}

fn null_value(e: &Expr, allowed: bool) -> bool {
    if matches!(e, Expr::Lit { text, .. } if text == "NULL") {
        return !allowed;
    }
    let operand = matches!(
        e,
        Expr::Cmp(..) | Expr::InList(..) | Expr::Between(..) | Expr::IsNull(..) | Expr::Like(..)
    );
    let logic = matches!(e, Expr::Logic(..) | Expr::Not(_));
    e.children()
        .into_iter()
        .any(|c| null_value(c, operand || (logic && allowed)))
}

/// The constructs of one expression (its subqueries included).
fn expr(e: &Expr, avoid: &Avoid) -> bool {
    if let Some(q) = e.subquery() {
        if query(q, avoid) {
            return true;
        }
    }
    own(e, avoid) || e.children().into_iter().any(|c| expr(c, avoid))
}

fn own(e: &Expr, avoid: &Avoid) -> bool {
    let is_lit = |x: &Expr| matches!(x, Expr::Lit { .. });
    if let Some(q) = e.subquery() {
        if avoid.has(a::LIKE_ON_OUTER_COLUMN) && like_on_outer_column(q) {
            return true;
        }
    }
    match e {
        Expr::Exists(q, _) => avoid.has(a::IN_EXCEPT) && has_except(q),
        Expr::Cmp("<=>", x, y) if has_column(x) && has_column(y) => {
            avoid.has(a::NULL_SAFE_EQUAL_COLUMNS)
        }
        Expr::Cmp(_, x, y) => avoid.has(a::INT_VS_DECIMAL) && int_vs_decimal(&[x, y]),
        Expr::InList(_, list, _) if list.iter().all(is_null) && avoid.has(a::IN_LIST_OF_NULLS) => {
            true
        }
        Expr::InList(x, list, _) => {
            let all: Vec<&Expr> = std::iter::once(&**x).chain(list).collect();
            avoid.has(a::INT_VS_DECIMAL) && int_vs_decimal(&all)
        }
        Expr::Between(x, lo, hi, _) => avoid.has(a::INT_VS_DECIMAL) && int_vs_decimal(&[x, lo, hi]),
        Expr::InSub(x, q, _) => {
            let (p, r) = (x.ty(), q.out_types()[0]);
            let mixed = (p == Ty::Int && r == Ty::Dec) || (p == Ty::Dec && r == Ty::Int);
            (mixed && avoid.has(a::INT_VS_DECIMAL))
                || (avoid.has(a::IN_AGGREGATE_SUBQUERY) && in_aggregates(x, q))
                || (avoid.has(a::IN_EXCEPT) && has_except(q))
        }
        Expr::Agg(_, _, Some(arg)) => avoid.has(a::AGGREGATE_OF_LITERAL) && !has_column(arg),
        Expr::Func("COALESCE" | "IFNULL", args) => {
            let literal = args.iter().any(|x| is_lit(x) && x.ty() != Ty::Int);
            avoid.has(a::BRANCH_TYPES) && (e.ty() == Ty::Str || literal)
        }
        Expr::Case(..) => avoid.has(a::BRANCH_TYPES) && e.ty() == Ty::Str,
        Expr::Arith(op, x, y) => arith(op, x, y, avoid),
        _ => false,
    }
}

/// An integer operand next to a DECIMAL one.
fn int_vs_decimal(operands: &[&Expr]) -> bool {
    let int = operands.iter().any(|e| e.ty() == Ty::Int);
    int && operands.iter().any(|e| e.ty() == Ty::Dec)
}

fn is_null(e: &Expr) -> bool {
    matches!(e, Expr::Lit { text, .. } if text == "NULL")
}

/// INTERSECT ALL or EXCEPT ALL.
fn all_set_op(q: &Query) -> bool {
    matches!(q, Query::Set { op, all: true, .. } if *op != SetOp::Union)
}

fn has_except(q: &Query) -> bool {
    match q {
        Query::Set { op, l, r, .. } => *op != SetOp::Union || has_except(l) || has_except(r),
        Query::Select(_) => false,
    }
}

/// `x IN (q)` where `q` aggregates without GROUP BY, or with GROUP BY when `x` is
/// a subquery or `q` reads a column of an enclosing query.
fn in_aggregates(x: &Expr, q: &Query) -> bool {
    match q {
        Query::Select(s) if s.group_by.is_empty() => s.grouped(),
        Query::Select(s) => s.grouped() && (x.subquery().is_some() || reads_outer(q)),
        Query::Set { l, r, .. } => in_aggregates(x, l) || in_aggregates(x, r),
    }
}

/// Whether `q` reads a column of an enclosing query.
fn reads_outer(q: &Query) -> bool {
    let mut own = Vec::new();
    aliases(q, &mut own);
    let mut found = false;
    walk::query(q, &mut |e| {
        found |= matches!(e, Expr::Col { qual, .. } if !own.contains(qual));
    });
    found
}

fn arith(op: &str, x: &Expr, y: &Expr, avoid: &Avoid) -> bool {
    let decimal = x.ty() == Ty::Dec || y.ty() == Ty::Dec;
    op == "MOD" && decimal && avoid.has(a::MOD_OF_DECIMAL)
}
