//! Select lists of grouped selects and of selects with window functions.

use super::ast::*;
use super::avoidable;
use super::gen::{Col, Gen, MAX_DEPTH};

impl Gen<'_> {
    /// GROUP BY keys (columns or expressions over them), items that are keys or
    /// aggregates (sometimes inside arithmetic or COALESCE), and a HAVING.
    pub(super) fn grouped_items(&mut self, s: &mut Select, local: &[Col], types: &[Ty]) {
        let keys = match self.rng.below(5) {
            0 => 0,
            1 | 2 => 1,
            _ => 2,
        };
        for _ in 0..keys {
            let ty = self.any_ty();
            let key = match self.rng.chance(2, 3) {
                true => self.column(local, ty),
                false => Some(self.expr(local, ty, MAX_DEPTH, 1)),
            };
            // A key without a column (a literal) would be a column position.
            let key = key.filter(has_column);
            let key = key.unwrap_or_else(|| self.any_column(local));
            if !s.group_by.contains(&key) {
                s.group_by.push(key);
            }
        }
        for &ty in types {
            let item = self.grouped_item(s, local, ty);
            s.items.push(Item {
                expr: item,
                alias: None,
            });
        }
        if self.rng.chance(1, 3) {
            let h = self.having(s, local);
            s.having.push(h);
        }
    }

    fn any_column(&mut self, local: &[Col]) -> Expr {
        let c = self.rng.pick(local);
        Expr::Col {
            qual: c.qual.clone(),
            name: c.name.clone(),
            ty: c.ty,
        }
    }

    fn grouped_item(&mut self, s: &Select, local: &[Col], ty: Ty) -> Expr {
        let keys: Vec<&Expr> = s
            .group_by
            .iter()
            .filter(|k| k.ty().compatible(ty))
            .collect();
        let e = match !keys.is_empty() && self.rng.chance(1, 2) {
            true => (*self.rng.pick(&keys)).clone(),
            false => self.aggregate(local, ty, MAX_DEPTH),
        };
        match self.rng.below(8) {
            0 if ty.numeric() => {
                let lit = self.literal(Ty::Int);
                Expr::Arith("+", Box::new(e), Box::new(lit))
            }
            1 if !self.avoid.has(avoidable::BRANCH_TYPES) => {
                let lit = self.literal(e.ty());
                Expr::Func("COALESCE", vec![e, lit])
            }
            _ => e,
        }
    }

    fn having(&mut self, s: &Select, local: &[Col]) -> Expr {
        let on_key = !self.avoid.has(avoidable::HAVING_ON_GROUP_KEY);
        let lhs = match (s.group_by.is_empty(), on_key && self.rng.chance(1, 2)) {
            (false, true) => s.group_by[self.rng.below(s.group_by.len())].clone(),
            _ => {
                let ty = *self.rng.pick(&[Ty::Int, Ty::Dec]);
                self.aggregate(local, ty, MAX_DEPTH)
            }
        };
        if self.rng.chance(1, 5) {
            return Expr::IsNull(Box::new(lhs), self.rng.chance(1, 2));
        }
        let rhs = self.literal(lhs.ty());
        Expr::Cmp(self.cmp_op(), Box::new(lhs), Box::new(rhs))
    }

    /// Columns and ROW_NUMBER / RANK / DENSE_RANK / SUM / COUNT windows over the
    /// one table of `local` (which has a primary key).
    pub(super) fn window_items(&mut self, s: &mut Select, local: &[Col]) {
        let n = 1 + self.rng.below(3);
        let win_at = self.rng.below(n);
        for i in 0..n {
            let more = !self.avoid.has(avoidable::MULTIPLE_WINDOWS) && self.rng.chance(1, 2);
            let expr = match i == win_at || more {
                true => Expr::Win(Box::new(self.window(local))),
                false => self.any_column(local),
            };
            s.items.push(Item { expr, alias: None });
        }
    }

    fn window(&mut self, local: &[Col]) -> Window {
        let f = *self.rng.pick(&[
            WinFn::RowNumber,
            WinFn::Rank,
            WinFn::DenseRank,
            WinFn::Sum,
            WinFn::Count,
        ]);
        let arg = match f {
            WinFn::Sum => Some(self.column(local, Ty::Dec).expect("a primary key column")),
            WinFn::Count if self.rng.chance(1, 2) => Some(self.any_column(local)),
            _ => None,
        };
        let partition = (0..self.rng.below(3))
            .map(|_| self.any_column(local))
            .collect();
        // RANK and DENSE_RANK need an ORDER BY (MariaDB: 4018).
        let ranked = matches!(f, WinFn::Rank | WinFn::DenseRank) as usize;
        let order = (0..ranked + self.rng.below(3 - ranked))
            .map(|_| (self.any_column(local), self.rng.chance(1, 3)))
            .collect();
        let pk = local.iter().find(|c| c.pk).expect("a primary key");
        let tiebreak = (f == WinFn::RowNumber).then(|| Expr::Col {
            qual: pk.qual.clone(),
            name: pk.name.clone(),
            ty: pk.ty,
        });
        Window {
            f,
            arg,
            partition,
            order,
            tiebreak,
        }
    }
}

/// Whether `e` refers to a column (outside subqueries).
pub fn has_column(e: &Expr) -> bool {
    let mut found = false;
    e.visit_shallow(&mut |x| found |= matches!(x, Expr::Col { .. }));
    found
}
