//! Set operations: UNION, INTERSECT and EXCEPT [ALL | DISTINCT]. Each operand is
//! bound as its own SELECT (or parenthesised query, with its own ORDER BY /
//! LIMIT); the combined result takes the first operand's column names, types
//! aggregated over all operands, and the query-level ORDER BY (by position or
//! result column name) and LIMIT. A UNION chain is one plan with its branches;
//! INTERSECT / EXCEPT are binary plans ([`SetOpPlan`]) that can be branches of
//! a UNION and operands of one another, as the parser's precedence nests them.

use super::{Binder, Clause};
use crate::plan::{SelectPlan, SetOpKind, SetOpPlan, SortKey};
use crate::ty::{aggregate, Class};
use basalt_common::{Collation, MySqlError};
use basalt_storage::{LockMode, WaitPolicy};
use sqlparser::ast::{self, SetExpr, SetOperator, SetQuantifier};

type R<T> = Result<T, MySqlError>;

/// The branches of a UNION chain in order, each with whether it is joined by
/// UNION ALL. The parser builds the chain left-deep, as long as the statement; it is
/// walked down its left spine by a loop. INTERSECT and EXCEPT nodes are branches
/// of their own (INTERSECT binds tighter than UNION; EXCEPT, as tight as UNION,
/// heads the chain when it comes last).
fn flatten<'q>(mut e: &'q SetExpr, out: &mut Vec<(&'q SetExpr, bool)>) {
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
            other => {
                out.push((other, true));
                out.reverse();
                return;
            }
        }
    }
}

impl Binder<'_> {
    pub fn union(&mut self, q: &ast::Query) -> R<SelectPlan> {
        self.set_expr(&q.body, q.order_by.as_ref(), q.limit_clause.as_ref())
    }

    /// A set operation with the ORDER BY / LIMIT that apply to its result.
    fn set_expr(
        &mut self,
        body: &SetExpr,
        order_by: Option<&ast::OrderBy>,
        limit_clause: Option<&ast::LimitClause>,
    ) -> R<SelectPlan> {
        let (branches, setop) = match body {
            SetExpr::SetOperation {
                left,
                op: op @ (SetOperator::Intersect | SetOperator::Except | SetOperator::Minus),
                set_quantifier,
                right,
            } => {
                let l = self.branch_plan(left)?;
                let r = self.branch_plan(right)?;
                let kind = match op {
                    SetOperator::Intersect => SetOpKind::Intersect,
                    _ => SetOpKind::Except,
                };
                let all = match set_quantifier {
                    SetQuantifier::All => true,
                    SetQuantifier::Distinct | SetQuantifier::None => false,
                    other => return Err(MySqlError::not_supported(&format!("{op} {other}"))),
                };
                (vec![(l, true), (r, true)], Some((kind, all)))
            }
            _ => {
                let mut leaves = Vec::new();
                flatten(body, &mut leaves);
                let mut branches = Vec::with_capacity(leaves.len());
                for (b, all) in leaves {
                    branches.push((self.branch_plan(b)?, all));
                }
                (branches, None)
            }
        };
        self.combine(branches, setop, order_by, limit_clause)
    }

    /// One operand of a set operation.
    fn branch_plan(&mut self, body: &SetExpr) -> R<SelectPlan> {
        let mut plan = match body {
            SetExpr::Select(s) => return self.select_core(s, None, None, &[]),
            SetExpr::Query(inner) if !matches!(*inner.body, SetExpr::SetOperation { .. }) => {
                return self.select(inner)
            }
            SetExpr::Query(inner) => self.select(inner)?,
            SetExpr::SetOperation { .. } => self.set_expr(body, None, None)?,
            _ => return Err(MySqlError::not_supported("this UNION branch")),
        };
        // A nested set operation's result is a temporary table: its integer
        // columns count as their types' full width.
        for t in &mut plan.types {
            *t = t.as_field();
        }
        Ok(plan)
    }

    /// The plan of a set operation over bound operands: column names from the
    /// first, types aggregated over all of them.
    fn combine(
        &mut self,
        mut branches: Vec<(SelectPlan, bool)>,
        setop: Option<(SetOpKind, bool)>,
        order_by: Option<&ast::OrderBy>,
        limit_clause: Option<&ast::LimitClause>,
    ) -> R<SelectPlan> {
        let width = branches[0].0.visible;
        if branches.iter().any(|(b, _)| b.visible != width) {
            return Err(MySqlError::new(
                1222,
                "21000",
                "The used SELECT statements have a different number of columns",
            ));
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
        let order = self.union_order(order_by, &names, &types)?;
        let (limit, offset, _) = self.limit(limit_clause)?;
        let visible = first.visible;
        let pos = first.pos;
        let reads_tables = branches.iter().any(|(b, _)| b.reads_tables);
        let setop = match setop {
            Some((kind, all)) => {
                let right = branches.pop().expect("two operands").0;
                let left = branches.pop().expect("two operands").0;
                Some(Box::new(SetOpPlan {
                    kind,
                    all,
                    left,
                    right,
                }))
            }
            None => None,
        };
        Ok(SelectPlan {
            needs: Default::default(),
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
            calls_writer: false,
            types,
            subs: Default::default(),
            union: branches,
            setop,
            window: None,
            pos,
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
                fixed: t.fixedbin,
            });
        }
        Ok(keys)
    }
}
