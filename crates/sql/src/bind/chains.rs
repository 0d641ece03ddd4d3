//! The parts of expression binding that keep recursion to the items MariaDB
//! counts: parentheses, AND/OR lists and unary chains are unwrapped by loops, and
//! each item's virtual stack cost (see [`crate::stack`]) is decided here.

use super::expr::{AggCollector, Bound};
use super::{Binder, Scope};
use crate::expr::Expr;
use basalt_common::MySqlError;
use sqlparser::ast::{self, BinaryOperator as B, UnaryOperator as U};

type R<T> = Result<T, MySqlError>;

fn bool_type(nullable: bool) -> crate::ty::ExprType {
    crate::ty::ExprType::int(1).nullable(nullable)
}

impl Binder<'_> {
    /// Binds a WHERE or HAVING condition: MariaDB resolves those one frame
    /// shallower than select-list items.
    pub fn condition(
        &mut self,
        e: &ast::Expr,
        scope: &Scope,
        aggs: Option<&mut AggCollector>,
    ) -> R<Bound> {
        let lift = crate::stack::cost::FUNC;
        self.stack.lift(lift);
        let r = self.expr(e, scope, aggs);
        self.stack.unlift(lift);
        r
    }

    /// A chain of unary operators (`- - x`, `NOT NOT x`, `~x`), applied from the
    /// innermost out by a loop. As in MariaDB, `-` folds into a numeric literal and
    /// a run of NOTs keeps its parity only (`NOT NOT x` is the truth of `x`); each
    /// operator node left is charged on the virtual stack.
    pub(super) fn unary_chain(
        &mut self,
        e: &ast::Expr,
        scope: &Scope,
        aggs: Option<&mut AggCollector>,
    ) -> R<Bound> {
        let mut ops = Vec::new();
        let mut x = e;
        while let ast::Expr::UnaryOp { op, expr } = unnest(x) {
            ops.push(*op);
            x = expr;
        }
        let x = unnest(x);
        let numeral = matches!(x, ast::Expr::Value(v) if matches!(v.value, ast::Value::Number(..)));
        let ops = unary_steps(&ops);
        let nodes = folded_nodes(&ops, numeral);
        let cost = crate::stack::cost::FUNC * nodes;
        self.stack.enter(cost)?;
        let r = self.expr(x, scope, aggs).and_then(|mut b| {
            for op in ops {
                b = self.unary(op, b)?;
            }
            Ok(b)
        });
        self.stack.leave(cost);
        r
    }

    /// AND (`Some(true)`) or OR (`Some(false)`, also `||` unless PIPES_AS_CONCAT).
    pub(super) fn logic_op(&self, op: &B) -> Option<bool> {
        match op {
            B::And => Some(true),
            B::Or => Some(false),
            B::StringConcat if !self.cx.mode.pipes_as_concat => Some(false),
            _ => None,
        }
    }

    /// An AND or OR list: the operands of the whole chain (however long, through
    /// parentheses) are collected by a loop and bound one by one at the same level,
    /// as MariaDB flattens them into one item.
    pub(super) fn logic(
        &mut self,
        e: &ast::Expr,
        scope: &Scope,
        mut aggs: Option<&mut AggCollector>,
    ) -> R<Bound> {
        let and = match e {
            ast::Expr::BinaryOp { op, .. } => self.logic_op(op),
            _ => None,
        };
        let mut operands = Vec::new();
        let mut todo = vec![e];
        while let Some(x) = todo.pop() {
            match unnest(x) {
                ast::Expr::BinaryOp { left, op, right } if self.logic_op(op) == and => {
                    todo.push(right);
                    todo.push(left);
                }
                other => operands.push(other),
            }
        }
        let mut list = Vec::with_capacity(operands.len());
        let mut nullable = false;
        for o in operands {
            let (b, t) = self.expr(o, scope, aggs.as_deref_mut())?;
            nullable |= t.nullable;
            match (b, and) {
                (Expr::And(v), Some(true)) | (Expr::Or(v), Some(false)) => list.extend(v),
                (other, _) => list.push(other),
            }
        }
        let e = if and == Some(true) {
            Expr::And(list)
        } else {
            Expr::Or(list)
        };
        Ok((e, bool_type(nullable)))
    }
}

/// `e` without the parentheses around it (they are no item in MariaDB either).
pub fn unnest(mut e: &ast::Expr) -> &ast::Expr {
    while let ast::Expr::Nested(inner) = e {
        e = inner;
    }
    e
}

/// The unary operators of a chain (outermost first) that leave a node, innermost
/// first: unary plus dropped, each run of NOTs reduced to its parity (one NOT, or
/// two for the truth value).
fn unary_steps(ops: &[U]) -> Vec<U> {
    let mut out = Vec::with_capacity(ops.len().min(8));
    let mut i = ops.len();
    while i > 0 {
        let op = ops[i - 1];
        if matches!(op, U::Not | U::BangNot) {
            let mut run = 0;
            while i > 0 && matches!(ops[i - 1], U::Not | U::BangNot) {
                run += 1;
                i -= 1;
            }
            let keep = if run % 2 == 1 { 1 } else { 2 };
            out.extend(std::iter::repeat_n(U::Not, keep));
            continue;
        }
        if op != U::Plus {
            out.push(op);
        }
        i -= 1;
    }
    out
}

/// How many of `steps` (innermost first) stay operator nodes: minus signs fold
/// into a numeric literal until another operator is applied.
fn folded_nodes(steps: &[U], numeral: bool) -> u32 {
    let mut constant = numeral;
    let mut nodes = 0;
    for op in steps {
        if *op == U::Minus && constant {
            continue;
        }
        constant = false;
        nodes += 1;
    }
    nodes
}

/// Virtual stack bytes of the item `e` (see [`crate::stack::cost`]): nothing for
/// names, literals and parentheses, and nothing here for unary chains and
/// subqueries, which charge their own.
pub(super) fn item_cost(e: &ast::Expr, pipes_as_concat: bool) -> u32 {
    use crate::stack::cost;
    use ast::Expr as A;
    match e {
        A::Identifier(_)
        | A::CompoundIdentifier(_)
        | A::Value(_)
        | A::TypedString(_)
        | A::Nested(_)
        | A::UnaryOp { .. }
        | A::Subquery(_)
        | A::Exists { .. } => 0,
        A::In {
            target: ast::InTarget::Subquery(_),
            ..
        } => 0,
        A::BinaryOp {
            op: B::StringConcat,
            ..
        } if pipes_as_concat => cost::STR_FUNC,
        A::BinaryOp {
            op: B::And | B::Or | B::StringConcat,
            ..
        } => cost::COND,
        A::Like { .. } | A::ILike { .. } | A::RLike { .. } | A::SimilarTo { .. } => cost::LIKE,
        A::Case { .. } | A::Substring { .. } | A::Trim { .. } | A::Collate { .. } => cost::STR_FUNC,
        A::Function(f) => function_cost(f),
        _ => cost::FUNC,
    }
}

/// Aggregates take no depth of their own; string functions take more than others.
fn function_cost(f: &ast::Function) -> u32 {
    use crate::stack::cost;
    let name = match f.name.0.last() {
        Some(ast::ObjectNamePart::Identifier(i)) => i.value.as_str(),
        _ => "",
    };
    let is = |list: &[&str]| list.iter().any(|n| name.eq_ignore_ascii_case(n));
    if is(AGGREGATES) {
        return 0;
    }
    if is(STRING_FUNCTIONS) {
        cost::STR_FUNC
    } else {
        cost::FUNC
    }
}

/// The names [`super::call::agg_func`] knows.
const AGGREGATES: &[&str] = &[
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "group_concat",
    "bit_and",
    "bit_or",
    "bit_xor",
    "std",
    "stddev",
    "stddev_pop",
    "variance",
    "var_pop",
];

/// Functions with a string result (MariaDB's `Item_str_func`s).
const STRING_FUNCTIONS: &[&str] = &[
    "concat",
    "concat_ws",
    "upper",
    "ucase",
    "lower",
    "lcase",
    "substring",
    "substr",
    "mid",
    "trim",
    "ltrim",
    "rtrim",
    "replace",
    "left",
    "right",
    "repeat",
    "reverse",
    "lpad",
    "rpad",
    "space",
    "hex",
    "unhex",
    "md5",
    "sha",
    "sha1",
    "sha2",
    "substring_index",
    "elt",
    "uuid",
    "format",
    "quote",
    "bin",
    "oct",
    "dayname",
    "monthname",
    "date_format",
    "time_format",
    "insert",
    "char",
    "database",
    "schema",
    "user",
    "current_user",
    "current_role",
    "session_user",
    "system_user",
    "version",
    "to_base64",
    "from_base64",
    "soundex",
    "make_set",
    "export_set",
    "conv",
    "inet_ntoa",
    "password",
    "encode",
    "decode",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unary_chains_keep_what_mariadb_keeps() {
        use U::{BitwiseNot as Tilde, Minus, Not, Plus};
        // Outermost first in, innermost first out.
        assert_eq!(unary_steps(&[Not, Not, Not]), vec![Not]);
        assert_eq!(unary_steps(&[Not, Not]), vec![Not, Not]);
        assert_eq!(unary_steps(&[Minus, Plus, Minus]), vec![Minus, Minus]);
        assert_eq!(
            unary_steps(&[Minus, Not, Not, Not, Tilde]),
            vec![Tilde, Not, Minus]
        );
        // Minus signs fold into a numeral until another operator comes.
        assert_eq!(folded_nodes(&[Minus, Minus, Minus], true), 0);
        assert_eq!(folded_nodes(&[Minus, Minus, Minus], false), 3);
        assert_eq!(folded_nodes(&[Minus, Tilde, Minus], true), 2);
    }

    #[test]
    fn aggregate_names_are_the_binders() {
        for n in AGGREGATES {
            assert!(super::super::call::agg_func(n).is_some(), "{n}");
        }
    }
}
