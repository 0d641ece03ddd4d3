//! Parenthesised join trees in FROM, rewritten to the flat join chains the binder
//! reads. MariaDB prints every view with joins this way (`from ((t join u on(...))
//! left join w on(...))`), so SHOW CREATE VIEW and mariadb-dump output need it.
//!
//! Two rewrites keep the meaning exactly:
//! - a nested join that starts a chain: `(a J1 b) J2 c` is `a J1 b J2 c`, since a
//!   chain is read left to right whatever the join kinds;
//! - a nested join of inner joins on the right of an inner join: `a JOIN (b JOIN
//!   c ON x) ON y` is `a JOIN b JOIN c ON (x AND y)` (inner-join conditions may be
//!   checked anywhere once their tables are joined).
//!
//! Anything else (an outer join inside a nested right operand, an alias on the
//! nested join) is left as is and refused by the binder.

use sqlparser::ast::{self, BinaryOperator, Expr, JoinConstraint, JoinOperator, TableFactor};

/// The FROM list with nested joins flattened; `None` when there is none.
pub fn flatten(from: &[ast::TableWithJoins]) -> Option<Vec<ast::TableWithJoins>> {
    if !from.iter().any(has_nested) {
        return None;
    }
    Some(from.iter().map(flatten_one).collect())
}

fn nested(tf: &TableFactor) -> Option<&ast::TableWithJoins> {
    match tf {
        TableFactor::NestedJoin {
            table_with_joins,
            alias: None,
        } => Some(table_with_joins),
        _ => None,
    }
}

fn has_nested(twj: &ast::TableWithJoins) -> bool {
    nested(&twj.relation).is_some() || twj.joins.iter().any(|j| nested(&j.relation).is_some())
}

fn inner_constraint(op: &JoinOperator) -> Option<&JoinConstraint> {
    match op {
        JoinOperator::Join(c) | JoinOperator::Inner(c) | JoinOperator::CrossJoin(c) => Some(c),
        _ => None,
    }
}

fn flatten_one(twj: &ast::TableWithJoins) -> ast::TableWithJoins {
    let mut out = match nested(&twj.relation) {
        Some(inner) => flatten_one(inner),
        None => ast::TableWithJoins {
            relation: twj.relation.clone(),
            joins: Vec::new(),
        },
    };
    for j in &twj.joins {
        let spliced = nested(&j.relation).and_then(|inner| {
            let inner = flatten_one(inner);
            splice_inner(&j.join_operator, &inner)
        });
        match spliced {
            Some(joins) => out.joins.extend(joins),
            None => out.joins.push(j.clone()),
        }
    }
    out
}

/// `JOIN (b JOIN c ON x) ON y` as `JOIN b JOIN c ON (x AND y)`, when every join
/// involved is an inner join with ON (or none).
fn splice_inner(op: &JoinOperator, inner: &ast::TableWithJoins) -> Option<Vec<ast::Join>> {
    let outer_on = on_expr(inner_constraint(op)?)?;
    let mut conds: Vec<Option<Expr>> = Vec::new();
    for j in &inner.joins {
        conds.push(on_expr(inner_constraint(&j.join_operator)?)?);
    }
    let mut joins = vec![ast::Join {
        relation: inner.relation.clone(),
        global: false,
        join_operator: JoinOperator::Join(JoinConstraint::None),
    }];
    for (j, c) in inner.joins.iter().zip(conds) {
        joins.push(ast::Join {
            relation: j.relation.clone(),
            global: false,
            join_operator: JoinOperator::Join(JoinConstraint::None),
        });
        if let (Some(c), Some(last)) = (c, joins.last_mut()) {
            last.join_operator = JoinOperator::Join(JoinConstraint::On(c));
        }
    }
    if let Some(y) = outer_on {
        let last = joins.last_mut()?;
        let both = match &last.join_operator {
            JoinOperator::Join(JoinConstraint::On(x)) => Expr::BinaryOp {
                left: Box::new(Expr::Nested(Box::new(x.clone()))),
                op: BinaryOperator::And,
                right: Box::new(Expr::Nested(Box::new(y))),
            },
            _ => y,
        };
        last.join_operator = JoinOperator::Join(JoinConstraint::On(both));
    }
    Some(joins)
}

/// The condition of an ON constraint (`Some(None)`: no condition); `None` for
/// USING / NATURAL, which are left to the binder.
fn on_expr(c: &JoinConstraint) -> Option<Option<Expr>> {
    match c {
        JoinConstraint::On(e) => Some(Some(e.clone())),
        JoinConstraint::None => Some(None),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_of(sql: &str) -> Vec<ast::TableWithJoins> {
        match crate::front::parse::parse_statement(sql).expect("parse") {
            ast::Statement::Query(q) => match *q.body {
                ast::SetExpr::Select(s) => s.from,
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    fn flat_text(sql: &str) -> String {
        let from = flatten(&from_of(sql)).expect("nested");
        from.iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    #[test]
    fn leading_nests_and_inner_right_operands_flatten() {
        assert_eq!(
            flat_text("select 1 from ((t join u on t.a = u.a) left join w on w.b = u.b)"),
            "t JOIN u ON t.a = u.a LEFT JOIN w ON w.b = u.b"
        );
        assert_eq!(
            flat_text("select 1 from a join (b join c on b.x = c.x) on a.y = b.y"),
            "a JOIN b JOIN c ON (b.x = c.x) AND (a.y = b.y)"
        );
        // An outer join inside a right operand is not rewritten.
        assert_eq!(
            flat_text("select 1 from a left join (b join c on b.x = c.x) on a.y = b.y"),
            "a LEFT JOIN (b JOIN c ON b.x = c.x) ON a.y = b.y"
        );
        assert!(flatten(&from_of("select 1 from t join u on t.a = u.a")).is_none());
    }
}
