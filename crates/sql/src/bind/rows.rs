//! Row constructors in comparisons: `(a, b) = (1, 2)`, `ROW(a, b) < (c, d)`,
//! `(a, b) IN ((1, 2), (3, 4))`, rewritten into comparisons of their items
//! before binding, with MySQL's results: `=` is true when every pair is equal
//! (NULL when none differs and a pair is NULL), `<>` its negation, `<=>` every
//! pair null-safe equal, `<` `<=` `>` `>=` compare the pairs in order, and
//! `IN` is an OR of equalities. Rows of different sizes are 1241.

use basalt_common::MySqlError;
use sqlparser::ast::{self, BinaryOperator as B, UnaryOperator as U};

type R<T> = Result<T, MySqlError>;

/// The items of a row constructor (`(a, b)` or `ROW(a, b)`).
pub(super) fn items(e: &ast::Expr) -> Option<Vec<ast::Expr>> {
    match e {
        ast::Expr::Tuple(items) => Some(items.clone()),
        ast::Expr::Nested(inner) => items(inner),
        ast::Expr::Function(f)
            if f.name.to_string().eq_ignore_ascii_case("row") && f.over.is_none() =>
        {
            let ast::FunctionArguments::List(l) = &f.args else {
                return None;
            };
            l.args
                .iter()
                .map(|a| match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => Some(e.clone()),
                    _ => None,
                })
                .collect()
        }
        _ => None,
    }
}

fn both(left: &ast::Expr, right: &ast::Expr) -> R<Option<(Vec<ast::Expr>, Vec<ast::Expr>)>> {
    let sub = |e: &ast::Expr| matches!(e, ast::Expr::Subquery(_));
    match (items(left), items(right)) {
        (None, None) => Ok(None),
        // A row against a subquery binds as before (refused there).
        _ if sub(left) || sub(right) => Ok(None),
        (Some(l), Some(r)) if l.len() == r.len() => Ok(Some((l, r))),
        (Some(l), _) => Err(MySqlError::operand_columns(l.len())),
        (None, Some(_)) => Err(MySqlError::operand_columns(1)),
    }
}

fn bin(l: ast::Expr, op: B, r: ast::Expr) -> ast::Expr {
    ast::Expr::Nested(Box::new(ast::Expr::BinaryOp {
        left: Box::new(l),
        op,
        right: Box::new(r),
    }))
}

fn not(e: ast::Expr) -> ast::Expr {
    ast::Expr::Nested(Box::new(ast::Expr::UnaryOp {
        op: U::Not,
        expr: Box::new(e),
    }))
}

fn all(pairs: Vec<ast::Expr>, op: B) -> ast::Expr {
    let mut it = pairs.into_iter();
    let first = it.next().expect("a row has items");
    it.fold(first, |acc, e| bin(acc, op.clone(), e))
}

/// `left op right` as comparisons of items, when either side is a row.
pub(super) fn compare(left: &ast::Expr, op: &B, right: &ast::Expr) -> R<Option<ast::Expr>> {
    let Some((l, r)) = both(left, right)? else {
        return Ok(None);
    };
    let pairs = |op: B| -> Vec<ast::Expr> {
        l.iter()
            .zip(&r)
            .map(|(a, b)| bin(a.clone(), op.clone(), b.clone()))
            .collect()
    };
    Ok(Some(match op {
        B::Eq => all(pairs(B::Eq), B::And),
        B::NotEq => not(all(pairs(B::Eq), B::And)),
        B::Spaceship => all(pairs(B::Spaceship), B::And),
        B::Lt | B::LtEq | B::Gt | B::GtEq => ordered(&l, &r, op),
        _ => return Err(MySqlError::operand_columns(1)),
    }))
}

/// `a1 < b1 OR (a1 = b1 AND (a2 < b2 OR ...))`, the last pair compared with
/// `op` itself (so `<=` holds for equal rows).
fn ordered(l: &[ast::Expr], r: &[ast::Expr], op: &B) -> ast::Expr {
    let strict = match op {
        B::Lt | B::LtEq => B::Lt,
        _ => B::Gt,
    };
    let n = l.len();
    let mut acc = bin(l[n - 1].clone(), op.clone(), r[n - 1].clone());
    for i in (0..n - 1).rev() {
        let eq = bin(l[i].clone(), B::Eq, r[i].clone());
        let lt = bin(l[i].clone(), strict.clone(), r[i].clone());
        acc = bin(lt, B::Or, bin(eq, B::And, acc));
    }
    acc
}

/// `x [NOT] IN (r1, r2, ...)` with a row `x`, as an OR of row equalities.
pub(super) fn in_list(x: &ast::Expr, list: &[ast::Expr], negated: bool) -> R<Option<ast::Expr>> {
    if items(x).is_none() {
        return Ok(None);
    }
    let mut eqs = Vec::with_capacity(list.len());
    for e in list {
        match compare(x, &B::Eq, e)? {
            Some(eq) => eqs.push(eq),
            None => return Err(MySqlError::operand_columns(1)),
        }
    }
    if eqs.is_empty() {
        return Ok(None);
    }
    let any = all(eqs, B::Or);
    Ok(Some(if negated { not(any) } else { any }))
}
