//! Outer-join simplification: a LEFT (or RIGHT) JOIN whose NULL-extended rows a
//! filter rejects anyway is an inner join, as MariaDB rewrites it.
//!
//! A conjunct that filters the joined rows (WHERE, or the ON of an inner join)
//! *rejects NULLs* of table T when it cannot be TRUE while T's columns are all
//! NULL. That is judged conservatively: a comparison (`=`, `<`, `IN`, `BETWEEN`,
//! `LIKE`, not `<=>`) or `IS NOT NULL` whose operand is a column of T, possibly
//! inside arithmetic or a sign change (both NULL when the column is); AND
//! rejects when one operand does, OR when every operand does. Then every row the
//! outer join would NULL-extend for T fails the filter, so making T's level an
//! inner one (its ON conjuncts become filters) gives the same rows. Converting a
//! level makes its ON conjuncts filters, which may reject NULLs of another outer
//! table in turn, so the rewrite repeats until nothing changes.

use crate::expr::Expr;

/// Whether `e` is NULL whenever every column in `cols` is NULL.
fn strict(e: &Expr, cols: &std::ops::Range<usize>) -> bool {
    match e {
        Expr::Column(c) => cols.contains(c),
        Expr::Arith(_, l, r) => strict(l, cols) || strict(r, cols),
        Expr::Neg(x) => strict(x, cols),
        _ => false,
    }
}

/// Whether conjunct `e` cannot be TRUE when the columns `cols` are all NULL.
pub fn rejects_nulls(e: &Expr, cols: &std::ops::Range<usize>) -> bool {
    match e {
        Expr::Cmp(_, l, r, _) => strict(l, cols) || strict(r, cols),
        Expr::IsNull(x, true) => strict(x, cols),
        Expr::In { arg, .. } | Expr::Between { arg, .. } | Expr::Like { arg, .. } => {
            strict(arg, cols)
        }
        Expr::And(v) => v.iter().any(|x| rejects_nulls(x, cols)),
        Expr::Or(v) => !v.is_empty() && v.iter().all(|x| rejects_nulls(x, cols)),
        _ => false,
    }
}

/// One outer level as the rewrite sees it.
pub struct OuterLevel<'a> {
    /// The row positions of its table's columns.
    pub cols: std::ops::Range<usize>,
    pub on: &'a [Expr],
}

/// Which of `levels` become inner joins given the filtering conjuncts
/// `filters`; the ON conjuncts of each converted level count as filters for
/// the rest.
pub fn convertible(levels: &[OuterLevel], filters: &[Expr]) -> Vec<bool> {
    let mut inner = vec![false; levels.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..levels.len() {
            if inner[i] {
                continue;
            }
            let cols = &levels[i].cols;
            let by_filter = filters.iter().any(|f| rejects_nulls(f, cols));
            let by_on = || {
                levels
                    .iter()
                    .zip(&inner)
                    .filter(|(_, c)| **c)
                    .any(|(l, _)| l.on.iter().any(|f| rejects_nulls(f, cols)))
            };
            if by_filter || by_on() {
                inner[i] = true;
                changed = true;
            }
        }
    }
    inner
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::CmpOp;
    use crate::value::arith::ArithOp;
    use basalt_common::{Collation, Value};

    fn col(c: usize) -> Box<Expr> {
        Box::new(Expr::Column(c))
    }

    fn eq(l: Box<Expr>, r: Box<Expr>) -> Expr {
        Expr::Cmp(CmpOp::Eq, l, r, Collation::Binary)
    }

    #[test]
    fn comparisons_reject_nulls_but_null_safe_tests_do_not() {
        let t = 2..4;
        let one = Box::new(Expr::Const(Value::Int(1)));
        assert!(rejects_nulls(&eq(col(2), one.clone()), &t));
        let sum = Box::new(Expr::Arith(ArithOp::Add, col(3), one.clone()));
        assert!(rejects_nulls(&eq(sum, col(0)), &t));
        assert!(!rejects_nulls(&eq(col(0), one.clone()), &t));
        assert!(!rejects_nulls(
            &Expr::NullSafeEq(col(2), one.clone(), Collation::Binary),
            &t
        ));
        assert!(!rejects_nulls(&Expr::IsNull(col(2), false), &t));
        assert!(rejects_nulls(&Expr::IsNull(col(2), true), &t));
        let or = Expr::Or(vec![eq(col(2), one.clone()), eq(col(0), one.clone())]);
        assert!(!rejects_nulls(&or, &t));
        let coalesce = Expr::Func(crate::expr::Func::Coalesce, vec![Expr::Column(2)]);
        assert!(!rejects_nulls(&eq(Box::new(coalesce), one), &t));
    }

    #[test]
    fn conversion_propagates_through_on_conditions() {
        // a(0..2) LEFT JOIN b(2..4) ON a=b LEFT JOIN c(4..6) ON b=c WHERE c.x = 1
        let on_b = [eq(col(0), col(2))];
        let on_c = [eq(col(3), col(4))];
        let levels = [
            OuterLevel {
                cols: 2..4,
                on: &on_b,
            },
            OuterLevel {
                cols: 4..6,
                on: &on_c,
            },
        ];
        let w = [eq(col(5), Box::new(Expr::Const(Value::Int(1))))];
        assert_eq!(convertible(&levels, &w), vec![true, true]);
        assert_eq!(convertible(&levels, &[]), vec![false, false]);
    }
}
