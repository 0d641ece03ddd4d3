//! Binding of expressions: names to row positions, functions to [`Func`], static
//! types, comparison collations.

use super::chains::{item_cost, unnest};
use super::typing::{
    arith_bound, bit, decode_bits, decode_hex, hex_in_numeric_list, hex_operands, written_0x,
};
use super::{object_parts, Binder, Clause, Scope};
use crate::expr::{BitOp, CastTarget, CmpOp, Expr, Func};
use crate::plan::{AggCall, SubKind};
use crate::ty::{aggregate, Class, ExprType, Origin};
use crate::value::arith::ArithOp;
use crate::value::temporal::Unit;
use basalt_common::{Collation, MySqlError, Value};
use sqlparser::ast::{self, BinaryOperator as B, UnaryOperator as U};

/// Aggregate calls collected while binding post-aggregation expressions. An
/// aggregate binds to `Column(AGG_BASE + i)`; the select binder later rewrites
/// those (and group-by matches) into positions of the aggregate output row.
#[derive(Default)]
pub struct AggCollector {
    pub calls: Vec<AggCall>,
    /// Window calls (select list and ORDER BY only).
    pub win: super::window::WinCollector,
}

pub const AGG_BASE: usize = 1 << 40;

pub(super) type Bound = (Expr, ExprType);
type R<T> = Result<T, MySqlError>;

pub(super) fn syntax(text: &str) -> MySqlError {
    MySqlError::parse_error(text, 1)
}

/// Static type of a literal value.
pub fn literal_type(v: &Value, coll: Collation) -> ExprType {
    match v {
        Value::Null => ExprType::null(),
        Value::Int(i) => {
            let mut t = ExprType::int(i.to_string().len() as u32);
            t.sign_char = *i < 0;
            if t.len >= 10 {
                t.column_type = Some(basalt_common::ColumnType::LongLong);
            }
            t
        }
        Value::UInt(_) => ExprType::int(20).unsigned(),
        Value::Decimal(d) => {
            let digits = d.mantissa.unsigned_abs().to_string().len() as u32;
            ExprType::decimal(digits.max(d.scale as u32 + 1).max(1), d.scale)
        }
        Value::Double(_) => ExprType::double(),
        Value::Bytes(b) | Value::Enum(_, b) => {
            let n = String::from_utf8_lossy(b).chars().count() as u32;
            ExprType::string(n, coll)
        }
        Value::Date(_) => ExprType::date(),
        Value::DateTime(dt) => ExprType::datetime(if dt.micro > 0 { 6 } else { 0 }),
        Value::Time(_) => ExprType::time(0),
    }
}

/// The collation a comparison of `a` and `b` uses.
pub fn cmp_collation(a: &ExprType, b: &ExprType) -> Collation {
    if a.is_binary_string() || b.is_binary_string() {
        return Collation::Binary;
    }
    match (a.class, b.class) {
        (Class::String, _) if a.origin.is_some() => a.collation,
        (_, Class::String) if b.origin.is_some() => b.collation,
        (Class::String, _) => a.collation,
        (_, Class::String) => b.collation,
        _ => Collation::Binary,
    }
}

pub(super) fn is_comparison(op: &B) -> bool {
    matches!(
        op,
        B::Eq | B::NotEq | B::Lt | B::LtEq | B::Gt | B::GtEq | B::Spaceship
    )
}

pub(super) fn bool_type(nullable: bool) -> ExprType {
    ExprType::int(1).nullable(nullable)
}

impl Binder<'_> {
    /// Binds an expression. `aggs` is `Some` where aggregate functions are allowed.
    ///
    /// Each item is charged on the virtual stack (1436 past MariaDB's depth);
    /// parentheses, AND/OR lists and unary chains are unwrapped by loops, so the
    /// recursion here follows only the items that count. Past a shallow depth each
    /// level makes sure of real stack first.
    pub fn expr(
        &mut self,
        e: &ast::Expr,
        scope: &Scope,
        aggs: Option<&mut AggCollector>,
    ) -> R<Bound> {
        let e = unnest(e);
        let cost = item_cost(e, self.cx.mode.pipes_as_concat);
        self.stack.enter(cost)?;
        let r = if self.stack.deep() {
            crate::stack::grow(|| self.item(e, scope, aggs))
        } else {
            self.item(e, scope, aggs)
        };
        self.stack.leave(cost);
        r
    }

    fn item(
        &mut self,
        e: &ast::Expr,
        scope: &Scope,
        mut aggs: Option<&mut AggCollector>,
    ) -> R<Bound> {
        use ast::Expr as A;
        Ok(match e {
            A::Identifier(id) => self.identifier(id, scope)?,
            A::CompoundIdentifier(ids) => self.compound(ids, scope)?,
            A::Value(v) => self.value(v)?,
            A::Prefixed { prefix, value } => self.introduced(prefix, value)?,
            A::Nested(inner) => self.expr(inner, scope, aggs)?,
            A::UnaryOp { .. } => self.unary_chain(e, scope, aggs)?,
            A::BinaryOp { op, .. } if self.logic_op(op).is_some() => self.logic(e, scope, aggs)?,
            A::BinaryOp { left, op, right }
                if self.row_tuple(left).is_some() || self.row_tuple(right).is_some() =>
            {
                return self.expr(&self.row_comparison(left, op, right), scope, aggs);
            }
            A::BinaryOp { left, op, right }
                if matches!(**left, A::Tuple(_) | A::Function(_) | A::Nested(_))
                    && super::rows::compare(left, op, right)?.is_some() =>
            {
                let rewritten = super::rows::compare(left, op, right)?.expect("a row comparison");
                return self.expr(&rewritten, scope, aggs);
            }
            A::BinaryOp { left, op, right } => self.binary(left, op, right, scope, aggs)?,
            A::IsNull(x) | A::IsNotNull(x) => {
                let (b, _) = self.expr(x, scope, aggs)?;
                (
                    Expr::IsNull(b.boxed(), matches!(e, A::IsNotNull(_))),
                    bool_type(false),
                )
            }
            A::IsTrue(x) | A::IsNotTrue(x) | A::IsFalse(x) | A::IsNotFalse(x) => {
                let (b, _) = self.expr(x, scope, aggs)?;
                let want = matches!(e, A::IsTrue(_) | A::IsNotTrue(_));
                let neg = matches!(e, A::IsNotTrue(_) | A::IsNotFalse(_));
                (Expr::IsBool(b.boxed(), want, neg), bool_type(false))
            }
            A::IsUnknown(x) | A::IsNotUnknown(x) => {
                let (b, _) = self.expr(x, scope, aggs)?;
                (
                    Expr::IsNull(b.boxed(), matches!(e, A::IsNotUnknown(_))),
                    bool_type(false),
                )
            }
            A::IsDistinctFrom(a, b) | A::IsNotDistinctFrom(a, b) => {
                let (x, tx) = self.expr(a, scope, aggs.as_deref_mut())?;
                let (y, ty) = self.expr(b, scope, aggs)?;
                let eq = Expr::NullSafeEq(x.boxed(), y.boxed(), cmp_collation(&tx, &ty));
                let out = if matches!(e, A::IsDistinctFrom(..)) {
                    Expr::Not(eq.boxed())
                } else {
                    eq
                };
                (out, bool_type(false))
            }
            A::In {
                expr,
                target,
                negated,
                ..
            } => self.in_list(expr, target, *negated, scope, aggs)?,
            A::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let x = self.expr(expr, scope, aggs.as_deref_mut())?;
                let lo = self.expr(low, scope, aggs.as_deref_mut())?;
                let hi = self.expr(high, scope, aggs)?;
                let mut all = [x, lo, hi];
                hex_in_numeric_list(&mut all);
                let [(x, tx), (lo, tl), (hi, th)] = all;
                let coll = cmp_collation(&tx, &aggregate(&tl, &th));
                let nullable = tx.nullable || tl.nullable || th.nullable;
                let b = Expr::Between {
                    arg: x.boxed(),
                    low: lo.boxed(),
                    high: hi.boxed(),
                    negated: *negated,
                    coll,
                };
                (b, bool_type(nullable))
            }
            A::Like {
                negated,
                expr,
                pattern,
                escape_char,
                any: false,
            } => self.like(expr, pattern, escape_char.as_deref(), *negated, scope, aggs)?,
            A::SimilarTo {
                negated: false,
                expr,
                pattern,
                escape_char: None,
            } => self.sounds_like(expr, pattern, scope, aggs)?,
            A::Case {
                operand,
                conditions,
                else_result,
                ..
            } => self.case(
                operand.as_deref(),
                conditions,
                else_result.as_deref(),
                scope,
                aggs,
            )?,
            A::Function(f) => self.function(f, scope, aggs)?,
            A::Cast {
                expr, data_type, ..
            } => {
                let (x, tx) = self.expr(expr, scope, aggs)?;
                let target = self.cast_target(data_type)?;
                let numeric = matches!(
                    target,
                    CastTarget::Signed
                        | CastTarget::Unsigned
                        | CastTarget::Decimal(..)
                        | CastTarget::Double
                );
                let (x, tx) = match super::typing::hex_number(&x, &tx) {
                    Some(n) if numeric => n,
                    _ => (x, tx),
                };
                let target = super::strings::cast_from(target, &tx);
                let mut t = target.result_type(&tx);
                let x = super::strings::text_cast(x, &tx, &target);
                if let CastTarget::Fixed(kind) = target {
                    // MariaDB: a constant that converts makes a NOT NULL result.
                    if let Some(Value::Bytes(b)) = self.const_value(&x) {
                        let inet6 = kind == basalt_common::fixedbin::FixedBin::Inet6;
                        t.nullable = basalt_common::fixedbin::parse(inet6, &b).is_none();
                    }
                }
                (Expr::Cast(x.boxed(), target), t)
            }
            A::Convert {
                expr,
                data_type,
                charset,
                ..
            } => {
                let (x, tx) = self.expr(expr, scope, aggs)?;
                let target = self.convert_target(data_type.as_ref(), charset.as_ref())?;
                let target = super::strings::cast_from(target, &tx);
                let x = super::strings::text_cast(x, &tx, &target);
                let t = target.result_type(&tx);
                (Expr::Cast(x.boxed(), target), t)
            }
            A::Collate { expr, collation } => {
                let (x, mut tx) = self.expr(expr, scope, aggs)?;
                let name = object_parts(collation).join(".");
                let coll = Collation::from_name(&name)
                    .ok_or_else(|| MySqlError::unknown_collation(&name))?;
                // A string column or literal keeps its character set: only its
                // own collations apply (1253, as MariaDB).
                let plain = matches!(x, Expr::Const(_) | Expr::Param(_) | Expr::Column(_));
                if plain && tx.class == Class::String && tx.collation.charset() != coll.charset() {
                    return Err(MySqlError::collation_charset_mismatch(
                        coll.name(),
                        tx.collation.charset().name(),
                    ));
                }
                tx.collation = coll;
                tx.origin = Some(Origin {
                    schema: String::new(),
                    table: String::new(),
                    org_table: String::new(),
                    org_name: String::new(),
                });
                (x, tx)
            }
            A::Ceil { expr, .. } | A::Floor { expr, .. } => {
                let f = if matches!(e, A::Ceil { .. }) {
                    Func::Ceil
                } else {
                    Func::Floor
                };
                let (x, tx) = self.expr(expr, scope, aggs)?;
                let t = crate::expr::func::result_type(f, std::slice::from_ref(&tx));
                (Expr::Func(f, vec![x]), t)
            }
            A::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                // MariaDB's grammar has no one-argument SUBSTRING.
                if substring_from.is_none() {
                    let end = sqlparser::ast::Spanned::span(expr.as_ref()).end;
                    let at = super::json_table::byte_offset(self.text, end.line, end.column);
                    let near = self.text.get(at..).unwrap_or(")").trim_start();
                    return Err(MySqlError::parse_error(near, end.line.max(1) as u32));
                }
                let mut args = vec![expr.as_ref()];
                args.extend(substring_from.as_deref());
                args.extend(substring_for.as_deref());
                self.call(Func::Substring, &args, scope, aggs)?
            }
            A::Trim {
                expr,
                trim_where,
                trim_what,
                ..
            } => {
                use crate::expr::func::TrimSide;
                let side = match trim_where {
                    Some(ast::TrimWhereField::Leading) => TrimSide::Leading,
                    Some(ast::TrimWhereField::Trailing) => TrimSide::Trailing,
                    _ => TrimSide::Both,
                };
                let mut args = vec![expr.as_ref()];
                args.extend(trim_what.as_deref());
                self.call(Func::Trim(side), &args, scope, aggs)?
            }
            A::Position { expr, r#in } => {
                self.call(Func::Locate, &[expr.as_ref(), r#in.as_ref()], scope, aggs)?
            }
            A::TypedString(ts) => {
                let (v, _) = self.value(&ts.value)?;
                let target = super::strings::literal_fsp(self.cast_target(&ts.data_type)?, &v);
                let t = target.result_type(&ExprType::string(10, Collation::Utf8mb4GeneralCi));
                (Expr::Cast(v.boxed(), target), t)
            }
            A::Tuple(_) => return Err(MySqlError::operand_columns(1)),
            A::Interval(_) => return Err(syntax("INTERVAL")),
            A::Subquery(q) => {
                let (id, outer, t) = self.subquery(q, SubKind::Scalar, scope)?;
                (Expr::Sub { id, outer }, t)
            }
            A::Exists { subquery, negated } => {
                let (id, outer, _) = self.subquery(subquery, SubKind::Exists, scope)?;
                let sub = Expr::Sub { id, outer };
                let e = if *negated {
                    Expr::Not(sub.boxed())
                } else {
                    sub
                };
                (e, bool_type(false))
            }
            A::RLike {
                negated,
                expr,
                pattern,
                ..
            } => {
                use crate::expr::func::regexp::{Kind, RegexpFn};
                let f = Func::Regexp(RegexpFn {
                    kind: Kind::Like,
                    ci: true,
                });
                let (x, t) = self.call(f, &[expr.as_ref(), pattern.as_ref()], scope, aggs)?;
                if *negated {
                    (Expr::Not(x.boxed()), t)
                } else {
                    (x, t)
                }
            }
            other => return Err(MySqlError::not_supported(&format!("expression '{other}'"))),
        })
    }

    fn value(&mut self, v: &ast::ValueWithSpan) -> R<Bound> {
        use ast::Value as V;
        let coll = self.cx.connection_collation;
        let val = match &v.value {
            V::Placeholder(_) => return self.placeholder(v),
            V::Number(s, _) => {
                let l = crate::front::lexer::lex(s);
                match l.tokens.first() {
                    Some(t) => match t.kind {
                        crate::front::lexer::TokKind::Num(k) => crate::front::number(s, k).1,
                        _ => Value::Double(s.parse().unwrap_or(0.0)),
                    },
                    None => Value::Int(0),
                }
            }
            V::SingleQuotedString(s) | V::DoubleQuotedString(s) | V::NationalStringLiteral(s) => {
                Value::str(s)
            }
            V::HexStringLiteral(h) => Value::Bytes(decode_hex(h).ok_or_else(|| syntax(h))?),
            V::SingleQuotedByteStringLiteral(b) | V::DoubleQuotedByteStringLiteral(b) => {
                Value::Bytes(decode_bits(b).ok_or_else(|| syntax(b))?)
            }
            V::Boolean(b) => Value::Int(*b as i64),
            V::Null => Value::Null,
            other => return Err(MySqlError::not_supported(&format!("literal {other}"))),
        };
        let mut t = literal_type(&val, coll);
        if let (V::Number(text, _), Value::Double(d)) = (&v.value, &val) {
            if !d.is_finite() {
                return Err(MySqlError::new(
                    1367,
                    "22007",
                    format!("Illegal double '{text}' value found during parsing"),
                ));
            }
            t.len = text.len() as u32;
        }
        if matches!(
            &v.value,
            V::HexStringLiteral(_) | V::SingleQuotedByteStringLiteral(_)
        ) {
            // MariaDB's hex / bit literals describe themselves as unsigned, with
            // no decimals.
            t.collation = Collation::Binary;
            t.decimals = 0;
            t.unsigned = true;
            t.hex_number = matches!(v.value, V::SingleQuotedByteStringLiteral(_))
                || written_0x(self.text, v.span.start);
        }
        Ok((Expr::Const(val), t))
    }

    fn placeholder(&mut self, v: &ast::ValueWithSpan) -> R<Bound> {
        let loc = v.span.start;
        let idx = self
            .params
            .map
            .index(loc.line, loc.column)
            .ok_or_else(|| MySqlError::internal("placeholder position not found"))?;
        let t = match self.params.stripped {
            Some(vals) => {
                if self.in_projection || matches!(self.clause, Clause::Order | Clause::Group) {
                    self.reusable = false;
                }
                literal_type(
                    vals.get(idx).unwrap_or(&Value::Null),
                    self.cx.connection_collation,
                )
            }
            None if self.params.prepared => {
                if self.in_projection {
                    self.param_in_projection = true;
                }
                ExprType::string(0, self.cx.connection_collation).nullable(true)
            }
            None => return Err(MySqlError::parse_error("?", 1)),
        };
        Ok((Expr::Param(idx), t))
    }

    /// Resolves a column of the enclosing query (a correlated reference): the
    /// outer expression is recorded and `Expr::OuterRef` stands for its value.
    pub(super) fn outer_column(&mut self, qual: Option<&[String]>, name: &str) -> R<Option<Bound>> {
        let Some(outer) = self.outer_scopes.pop() else {
            return Ok(None);
        };
        let refs = self.outer_refs.pop();
        let r = self.column(qual, name, &outer);
        self.outer_scopes.push(outer);
        let mut refs = refs.unwrap_or_default();
        let r = match r {
            Ok((e, t)) => {
                let k = refs.iter().position(|x| *x == e).unwrap_or_else(|| {
                    refs.push(e);
                    refs.len() - 1
                });
                Some((Expr::OuterRef(k), t))
            }
            Err(_) => None,
        };
        self.outer_refs.push(refs);
        Ok(r)
    }

    /// Applies one unary operator to a bound operand.
    pub(super) fn unary(&mut self, op: U, (b, t): Bound) -> R<Bound> {
        let (b, t) = match super::typing::hex_number(&b, &t) {
            Some(n) if matches!(op, U::Minus | U::BitwiseNot) => n,
            _ => (b, t),
        };
        Ok(match op {
            U::Minus => match b {
                Expr::Const(v) if !v.is_null() => {
                    let n = crate::value::arith::negate(&v)
                        .map_err(|e| crate::expr::arith_error(e, "-", &v, &Value::Null))?;
                    let mut nt = literal_type(&n, self.cx.connection_collation);
                    if matches!(n, Value::Decimal(_)) && t.class == Class::Int {
                        nt = ExprType::decimal(20, 0);
                    }
                    (Expr::Const(n), nt)
                }
                other => {
                    let mut nt = t.numeric_view();
                    nt.origin = None;
                    nt.column_type = None;
                    nt.col_flags = 0;
                    nt.unsigned = false;
                    if nt.class == Class::String {
                        nt = ExprType::double().nullable(t.nullable);
                    }
                    nt.len += 1;
                    (Expr::Neg(other.boxed()), nt)
                }
            },
            U::Plus => (b, t),
            U::Not | U::BangNot => (Expr::Not(b.boxed()), bool_type(t.nullable)),
            U::BitwiseNot => (
                Expr::BitNot(b.boxed()),
                ExprType::int(21).unsigned().nullable(t.nullable),
            ),
            other => return Err(MySqlError::not_supported(&format!("operator {other}"))),
        })
    }

    fn binary(
        &mut self,
        l: &ast::Expr,
        op: &B,
        r: &ast::Expr,
        scope: &Scope,
        mut aggs: Option<&mut AggCollector>,
    ) -> R<Bound> {
        if matches!(op, B::Plus | B::Minus) {
            if let ast::Expr::Interval(iv) = r {
                return self.date_add(l, iv, *op == B::Minus, scope, aggs);
            }
            if let (ast::Expr::Interval(iv), B::Plus) = (l, op) {
                return self.date_add(r, iv, false, scope, aggs);
            }
        }
        if matches!(op, B::Assignment) {
            let name = match l {
                ast::Expr::Identifier(i) if i.value.starts_with('@') => {
                    i.value[1..].to_ascii_lowercase()
                }
                _ => return Err(syntax(":=")),
            };
            let (v, t) = self.expr(r, scope, aggs)?;
            self.reusable = false;
            let fsp = t.decimals;
            return Ok((Expr::SetUserVar(name, v.boxed(), fsp), t.nullable(true)));
        }
        let (x, tx) = self.expr(l, scope, aggs.as_deref_mut())?;
        let (y, ty) = self.expr(r, scope, aggs)?;
        let ((x, tx), (y, ty)) = hex_operands(op, (x, tx), (y, ty));
        let nullable = tx.nullable || ty.nullable;
        let coll = cmp_collation(&tx, &ty);
        let (x, y) = if is_comparison(op) {
            super::fixed_cmp::adapt(x, &tx, y, &ty)
        } else {
            (x, y)
        };
        let cmp = |c: CmpOp, x: Expr, y: Expr| {
            (
                Expr::Cmp(c, x.boxed(), y.boxed(), coll),
                bool_type(nullable),
            )
        };
        Ok(match op {
            B::Eq => cmp(CmpOp::Eq, x, y),
            B::NotEq => cmp(CmpOp::Ne, x, y),
            B::Lt => cmp(CmpOp::Lt, x, y),
            B::LtEq => cmp(CmpOp::Le, x, y),
            B::Gt => cmp(CmpOp::Gt, x, y),
            B::GtEq => cmp(CmpOp::Ge, x, y),
            B::Spaceship => (
                Expr::NullSafeEq(x.boxed(), y.boxed(), coll),
                bool_type(false),
            ),
            B::StringConcat => {
                let t = crate::expr::func::result_type(Func::Concat, &[tx.clone(), ty.clone()]);
                (Expr::Func(Func::Concat, vec![x, y]), t)
            }
            B::Xor => (Expr::Xor(x.boxed(), y.boxed()), bool_type(nullable)),
            B::Plus => arith_bound(ArithOp::Add, x, y, &tx, &ty),
            B::Minus => arith_bound(ArithOp::Sub, x, y, &tx, &ty),
            B::Multiply => arith_bound(ArithOp::Mul, x, y, &tx, &ty),
            B::Divide => arith_bound(ArithOp::Div, x, y, &tx, &ty),
            B::Modulo => arith_bound(ArithOp::Mod, x, y, &tx, &ty),
            B::MyIntegerDivide | B::DuckIntegerDivide => {
                arith_bound(ArithOp::IntDiv, x, y, &tx, &ty)
            }
            B::BitwiseAnd => bit(BitOp::And, x, y, nullable),
            B::BitwiseOr => bit(BitOp::Or, x, y, nullable),
            B::BitwiseXor => bit(BitOp::Xor, x, y, nullable),
            B::PGBitwiseShiftLeft => bit(BitOp::Shl, x, y, nullable),
            B::PGBitwiseShiftRight => bit(BitOp::Shr, x, y, nullable),
            B::Regexp => return Err(MySqlError::not_supported("REGEXP")),
            other => return Err(MySqlError::not_supported(&format!("operator {other}"))),
        })
    }

    pub(super) fn date_add(
        &mut self,
        base: &ast::Expr,
        iv: &ast::Interval,
        sub: bool,
        scope: &Scope,
        mut aggs: Option<&mut AggCollector>,
    ) -> R<Bound> {
        let (unit, value) = match compound_interval(&iv.value) {
            Some(c) => c,
            None => {
                let unit_name = iv
                    .leading_field
                    .as_ref()
                    .map_or("DAY".to_string(), |f| f.to_string());
                let unit = Unit::from_name(unit_name.trim_end_matches('S')).ok_or_else(|| {
                    MySqlError::not_supported(&format!("INTERVAL unit {unit_name}"))
                })?;
                (unit, &*iv.value)
            }
        };
        let (b, tb) = self.expr(base, scope, aggs.as_deref_mut())?;
        let (n, tn) = self.expr(value, scope, aggs)?;
        // `INTERVAL 0x10 DAY` is 16 days.
        let (n, tn) = super::typing::hex_number(&n, &tn).unwrap_or((n, tn));
        let f = if sub {
            Func::DateSub(unit)
        } else {
            Func::DateAdd(unit)
        };
        Ok((
            Expr::Func(f, vec![b, n]),
            crate::expr::func::result_type(f, &[tb, tn]),
        ))
    }

    fn in_list(
        &mut self,
        x: &ast::Expr,
        target: &ast::InTarget,
        negated: bool,
        scope: &Scope,
        mut aggs: Option<&mut AggCollector>,
    ) -> R<Bound> {
        if let ast::InTarget::List(l) = target {
            if let Some(e) = super::rows::in_list(x, l, negated)? {
                return self.expr(&e, scope, aggs);
            }
        }
        let (arg, ta) = self.expr(x, scope, aggs.as_deref_mut())?;
        let list = match target {
            ast::InTarget::List(l) => l,
            ast::InTarget::Subquery(q) => {
                let (i, outer, t) = self.subquery(q, SubKind::In, scope)?;
                let coll = cmp_collation(&ta, &t);
                let e = Expr::InSub {
                    arg: arg.boxed(),
                    sub: i,
                    outer,
                    negated,
                    coll,
                };
                return Ok((e, bool_type(true)));
            }
            _ => return Err(MySqlError::not_supported("this IN form")),
        };
        let mut all = vec![(arg, ta)];
        for e in list {
            all.push(self.expr(e, scope, aggs.as_deref_mut())?);
        }
        hex_in_numeric_list(&mut all);
        let mut all = all.into_iter();
        let (arg, ta) = all.next().expect("IN has its value");
        let mut items = Vec::with_capacity(list.len());
        let mut nullable = ta.nullable;
        let mut coll = None;
        for (b, t) in all {
            nullable |= t.nullable;
            coll.get_or_insert_with(|| cmp_collation(&ta, &t));
            items.push(b);
        }
        let coll = coll.unwrap_or(Collation::Binary);
        Ok((
            Expr::In {
                arg: arg.boxed(),
                list: items,
                negated,
                coll,
            },
            bool_type(nullable),
        ))
    }

    fn like(
        &mut self,
        x: &ast::Expr,
        p: &ast::Expr,
        esc: Option<&ast::Expr>,
        negated: bool,
        scope: &Scope,
        mut aggs: Option<&mut AggCollector>,
    ) -> R<Bound> {
        let (a, ta) = self.expr(x, scope, aggs.as_deref_mut())?;
        let (b, tb) = self.expr(p, scope, aggs.as_deref_mut())?;
        let escape = match esc {
            Some(e) => Some(self.expr(e, scope, aggs)?.0.boxed()),
            None => None,
        };
        let mut coll = cmp_collation(&ta, &tb);
        if ta.class != Class::String && tb.class != Class::String {
            coll = self.cx.connection_collation;
        }
        let nullable = ta.nullable || tb.nullable;
        Ok((
            Expr::Like {
                arg: a.boxed(),
                pattern: b.boxed(),
                escape,
                negated,
                coll,
            },
            bool_type(nullable),
        ))
    }
}

/// The front end's `` `interval:DAY_HOUR`(v) `` (see `front::units`): the
/// compound unit and the value expression.
fn compound_interval(e: &ast::Expr) -> Option<(Unit, &ast::Expr)> {
    let ast::Expr::Function(f) = e else {
        return None;
    };
    let name = super::object_parts(&f.name).pop()?;
    let unit = Unit::compound(name.strip_prefix("interval:")?)?;
    let ast::FunctionArguments::List(list) = &f.args else {
        return None;
    };
    match list.args.as_slice() {
        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(v))] => Some((unit, v)),
        _ => None,
    }
}
