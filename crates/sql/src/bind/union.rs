//! UNION [ALL | DISTINCT]: each branch is bound as its own SELECT; the combined
//! result takes the first branch's column names, types aggregated over all
//! branches, and the query-level ORDER BY (by position or result column name)
//! and LIMIT.

use super::{Binder, Clause};
use crate::plan::{SelectPlan, SortKey};
use crate::ty::{aggregate, Class};
use basalt_common::{Collation, MySqlError};
use basalt_storage::{LockMode, WaitPolicy};
use sqlparser::ast::{self, SetExpr, SetOperator, SetQuantifier};

type R<T> = Result<T, MySqlError>;

/// The branches of a UNION chain in order, each with whether it is joined by
/// UNION ALL. The parser builds the chain left-deep, as long as the statement; it is
/// walked down its left spine by a loop.
fn flatten<'q>(mut e: &'q SetExpr, out: &mut Vec<(&'q SetExpr, bool)>) -> R<()> {
    loop {
        match e {
            SetExpr::SetOperation {
                left,
                op: SetOperator::Union,
                set_quantifier,
                right,
            } => {
                let all = matches!(set_quantifier, SetQuantifier::All);
                out.push((right, all));
                e = left;
            }
            SetExpr::SetOperation { op, .. } => {
                return Err(MySqlError::not_supported(&op.to_string()))
            }
            other => {
                out.push((other, true));
                out.reverse();
                return Ok(());
            }
        }
    }
}

impl Binder<'_> {
    pub fn union(&mut self, q: &ast::Query) -> R<SelectPlan> {
        let mut leaves = Vec::new();
        flatten(&q.body, &mut leaves)?;
        let mut branches = Vec::with_capacity(leaves.len());
        for (body, all) in leaves {
            let plan = match body {
                SetExpr::Select(s) => self.select_core(s, None, None, &[])?,
                SetExpr::Query(inner) => self.select(inner)?,
                _ => return Err(MySqlError::not_supported("this UNION branch")),
            };
            if let Some((first, _)) = branches.first() {
                let first: &SelectPlan = first;
                if first.visible != plan.visible {
                    return Err(MySqlError::new(
                        1222,
                        "21000",
                        "The used SELECT statements have a different number of columns",
                    ));
                }
            }
            branches.push((plan, all));
        }
        let first = &branches[0].0;
        let mut types = first.types.clone();
        for (b, _) in &branches[1..] {
            for (t, bt) in types.iter_mut().zip(&b.types) {
                *t = aggregate(t, bt);
            }
        }
        let names: Vec<String> = first.columns.iter().map(|c| c.name.clone()).collect();
        let columns = types
            .iter()
            .zip(&names)
            .map(|(t, n)| t.meta(n, self.cx.results_charset))
            .collect::<Vec<_>>();
        let order = self.union_order(q.order_by.as_ref(), &names, &types)?;
        let (limit, offset, _) = self.limit(q.limit_clause.as_ref())?;
        let visible = first.visible;
        let reads_tables = branches.iter().any(|(b, _)| b.reads_tables);
        Ok(SelectPlan {
            tables: Vec::new(),
            levels: Vec::new(),
            row_width: 0,
            const_filter: None,
            agg: None,
            having: None,
            project: Vec::new(),
            visible,
            distinct: false,
            order,
            limit,
            offset,
            columns: columns.into(),
            lock: LockMode::Consistent,
            wait: WaitPolicy::Wait,
            calc_found_rows: false,
            reads_tables,
            types,
            subs: Default::default(),
            union: branches,
        })
    }

    fn union_order(
        &mut self,
        ob: Option<&ast::OrderBy>,
        names: &[String],
        types: &[crate::ty::ExprType],
    ) -> R<Vec<SortKey>> {
        self.clause = Clause::Order;
        let Some(ob) = ob else { return Ok(Vec::new()) };
        let ast::OrderByKind::Expressions(list) = &ob.kind else {
            return Err(MySqlError::not_supported("ORDER BY ALL"));
        };
        let mut keys = Vec::new();
        for o in list {
            let desc = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
            let pos = match &o.expr {
                ast::Expr::Value(v) => match &v.value {
                    ast::Value::Number(n, _) => n
                        .parse::<usize>()
                        .ok()
                        .filter(|k| *k >= 1 && *k <= names.len())
                        .map(|k| k - 1),
                    _ => None,
                },
                ast::Expr::Identifier(id) => {
                    names.iter().position(|n| n.eq_ignore_ascii_case(&id.value))
                }
                ast::Expr::CompoundIdentifier(ids) => ids
                    .last()
                    .and_then(|id| names.iter().position(|n| n.eq_ignore_ascii_case(&id.value))),
                _ => None,
            };
            let Some(pos) = pos else {
                return Err(MySqlError::bad_field(
                    &o.expr.to_string(),
                    self.clause.name(),
                ));
            };
            let t = &types[pos];
            let coll = if t.class == Class::String {
                t.collation
            } else {
                Collation::Binary
            };
            keys.push(SortKey {
                column: pos,
                desc,
                coll,
            });
        }
        Ok(keys)
    }
}
