//! Bound expressions and their evaluation.
//!
//! The binder turns sqlparser's AST into [`Expr`]: names resolved to row positions,
//! functions to [`Func`], collations chosen. Evaluation is a recursive walk (as deep
//! as the expression, which the binder bounds) over a row (`&[Value]`, the concatenation of the rows of the tables in the FROM clause,
//! or an aggregate's output row), with statement parameters and session state in
//! [`EvalCtx`].
//!
//! Invariant: an expression never refers past the end of the row it is evaluated
//! against (the binder computes positions from the same layout the executor builds).

pub mod cast;
pub mod fold;
pub mod func;
pub mod like;
pub mod once;

use crate::session::ctx::{Level, SessionCtx};
use crate::sysvars::VarDef;
use crate::value::arith::{arith, negate, ArithError, ArithOp};
use crate::value::compare::{compare, equal};
use crate::value::{to_bytes, truth};
use basalt_common::error::code;
use basalt_common::{Collation, MySqlError, Value};
pub use cast::CastTarget;
pub use func::Func;
use std::borrow::Cow;
use std::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn holds(self, o: Ordering) -> bool {
        match self {
            CmpOp::Eq => o == Ordering::Equal,
            CmpOp::Ne => o != Ordering::Equal,
            CmpOp::Lt => o == Ordering::Less,
            CmpOp::Le => o != Ordering::Greater,
            CmpOp::Gt => o == Ordering::Greater,
            CmpOp::Ge => o != Ordering::Less,
        }
    }

    /// The operator with operands swapped (`a < b` is `b > a`).
    pub fn flip(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            other => other,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitOp {
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Const(Value),
    /// Statement parameter: a `?` of a prepared statement or a literal stripped by
    /// the plan cache's key scan.
    Param(usize),
    /// Position in the row being evaluated.
    Column(usize),
    /// A stored program's variable: slot `n` of the running frame.
    Local(usize),
    UserVar(String),
    /// `@x := value`.
    /// `@v := e`: the value, kept in the variable as MariaDB keeps it (a
    /// temporal value as its text with these fractional digits).
    SetUserVar(String, Box<Expr>, u8),
    SysVar {
        def: &'static VarDef,
        global: bool,
    },
    Neg(Box<Expr>),
    Not(Box<Expr>),
    BitNot(Box<Expr>),
    Arith(ArithOp, Box<Expr>, Box<Expr>),
    Bit(BitOp, Box<Expr>, Box<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>, Collation),
    NullSafeEq(Box<Expr>, Box<Expr>, Collation),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Xor(Box<Expr>, Box<Expr>),
    IsNull(Box<Expr>, bool),
    /// `x IS [NOT] TRUE|FALSE`: (expr, value, negated).
    IsBool(Box<Expr>, bool, bool),
    In {
        arg: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
        coll: Collation,
    },
    Between {
        arg: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
        coll: Collation,
    },
    Like {
        arg: Box<Expr>,
        pattern: Box<Expr>,
        escape: Option<Box<Expr>>,
        negated: bool,
        coll: Collation,
    },
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
        coll: Collation,
    },
    Func(Func, Vec<Expr>),
    Cast(Box<Expr>, CastTarget),
    /// The result of subquery `id` (scalar value, or EXISTS truth). `outer` are
    /// the enclosing-row expressions a correlated subquery depends on (empty for
    /// an uncorrelated one); they are children, so the planner sees which tables
    /// the subquery's value depends on.
    Sub {
        id: usize,
        outer: Vec<Expr>,
    },
    /// Value `k` of the enclosing row, inside a correlated subquery.
    OuterRef(usize),
    /// A subexpression of constants and parameters (see [`once`]): evaluated at
    /// its first use in a statement and reused, unless that evaluation warned.
    /// The number tells the statement's cached values apart.
    Once(Box<Expr>, u64),
    /// A stored function's call with its arguments.
    StoredCall(crate::sp::function::StoredFn, Vec<Expr>),
    /// `arg [NOT] IN (subquery i)`.
    InSub {
        arg: Box<Expr>,
        sub: usize,
        outer: Vec<Expr>,
        negated: bool,
        coll: Collation,
    },
}

/// The materialized result of an uncorrelated subquery, computed once per
/// statement before the main query runs.
#[derive(Clone, Debug, PartialEq)]
pub enum SubResult {
    Scalar(Value),
    Exists(bool),
    /// IN: the values (NULLs removed) and whether there was a NULL.
    Set(std::sync::Arc<Vec<Value>>, bool),
    /// A correlated subquery: computed per outer row (see `EvalCtx::sub_result`).
    Correlated,
}

/// What evaluation needs besides the row.
pub struct EvalCtx<'a> {
    pub params: &'a [Value],
    pub cx: &'a mut SessionCtx,
    /// Statement is a data change under a strict sql_mode (division by zero and bad
    /// conversions are errors rather than warnings).
    pub strict_dml: bool,
    /// UPDATE / DELETE IGNORE: a scalar subquery of more than one row is NULL
    /// with warning 1242 instead of an error.
    pub ignore_errors: bool,
    /// Results of the statement's subqueries, by index.
    pub subs: Vec<SubResult>,
    /// The statement's subqueries (correlated ones run from expressions).
    pub sub_plans: Option<std::sync::Arc<Vec<crate::plan::SubPlan>>>,
    /// Results of correlated subqueries by (index, outer values).
    pub sub_cache: std::collections::HashMap<(usize, Vec<u8>), SubResult>,
    /// Outer-row values of the correlated subqueries being run (innermost last).
    pub outer: Vec<Vec<Value>>,
    /// The transaction (None for statements that read no table).
    pub txn: Option<&'a mut basalt_storage::Txn>,
    /// KILL QUERY flag.
    pub interrupt: Option<&'a std::sync::atomic::AtomicBool>,
    /// The statement's memory budget (`max_session_mem_used`).
    pub mem: crate::exec::mem::MemBudget,
    /// Bytes of correlated subquery results held in `sub_cache`.
    sub_cache_bytes: usize,
    /// Nesting of [`Expr::eval`] calls (past [`crate::stack::EVAL_SHALLOW`], each
    /// level makes sure of real stack first).
    pub depth: u32,
    /// `ANALYZE <statement>`: what the join levels did.
    pub analyze: Option<std::sync::Arc<crate::exec::analyze::Tracker>>,
    /// Values of the statement's [`Expr::Once`] subexpressions, by number.
    pub once: Vec<(u64, Value)>,
}

/// Most bytes of correlated subquery results cached per statement; past it the
/// cache starts over (MariaDB's subquery cache is bounded the same way).
const SUB_CACHE_BYTES: usize = 16 << 20;

pub type R = Result<Value, MySqlError>;

impl<'a> EvalCtx<'a> {
    pub fn new(params: &'a [Value], cx: &'a mut SessionCtx) -> Self {
        let mem = crate::exec::mem::MemBudget::new(cx.max_mem_used);
        let analyze = cx.analyze.clone();
        EvalCtx {
            params,
            cx,
            strict_dml: false,
            ignore_errors: false,
            subs: Vec::new(),
            sub_plans: None,
            sub_cache: std::collections::HashMap::new(),
            outer: Vec::new(),
            txn: None,
            interrupt: None,
            mem,
            sub_cache_bytes: 0,
            depth: 0,
            analyze,
            once: Vec::new(),
        }
    }

    /// The result of subquery `i` for the current row: the materialized result of
    /// an uncorrelated subquery, or a correlated one run for the outer values of
    /// `row` (cached per distinct outer values, as MariaDB's subquery cache).
    pub fn sub_result(
        &mut self,
        i: usize,
        outer: &[Expr],
        row: &[Value],
    ) -> Result<SubResult, MySqlError> {
        match self.subs.get(i) {
            Some(SubResult::Correlated) => {}
            Some(r) => return Ok(r.clone()),
            None => return Ok(SubResult::Scalar(Value::Null)),
        }
        let Some(plans) = self.sub_plans.clone() else {
            return Ok(SubResult::Scalar(Value::Null));
        };
        let sp = &plans[i];
        let args = outer
            .iter()
            .map(|e| e.eval(row, self))
            .collect::<Result<Vec<_>, _>>()?;
        let mut key = Vec::new();
        for a in &args {
            crate::value::compare::group_key(a, Collation::Binary, &mut key);
        }
        let cached = self.sub_cache.get(&(i, key.clone())).cloned();
        if let Some(t) = &self.analyze {
            t.record_cache(i, cached.is_some());
        }
        if let Some(r) = cached {
            return Ok(r);
        }
        self.outer.push(args);
        let r = crate::exec::sub::run_one(sp, &mut crate::exec::Exec { ctx: self });
        self.outer.pop();
        let (r, bytes) = r?;
        let entry = bytes + key.capacity() + crate::exec::mem::HASH_ENTRY;
        if self.sub_cache_bytes + entry > SUB_CACHE_BYTES {
            self.clear_sub_cache();
        }
        self.mem.charge(entry - bytes)?;
        self.sub_cache_bytes += entry;
        self.sub_cache.insert((i, key), r.clone());
        Ok(r)
    }

    /// Forgets the cached correlated subquery results (and their charge).
    pub fn clear_sub_cache(&mut self) {
        self.sub_cache.clear();
        self.mem.release(self.sub_cache_bytes);
        self.sub_cache_bytes = 0;
    }

    pub fn txn(&mut self) -> Result<&mut basalt_storage::Txn, MySqlError> {
        self.txn
            .as_deref_mut()
            .ok_or_else(|| MySqlError::internal("statement needs a transaction"))
    }

    pub fn warn(&mut self, code: u16, message: impl Into<String>) {
        self.cx.warn(Level::Warning, code, message);
    }

    /// Division by zero: NULL, with a warning under ERROR_FOR_DIVISION_BY_ZERO,
    /// which strict mode makes errno 1365 in a data change.
    fn division_by_zero(&mut self) -> R {
        if self.strict_dml && self.cx.mode.strict && self.cx.mode.error_for_division_by_zero {
            return Err(MySqlError::division_by_zero());
        }
        if self.cx.mode.error_for_division_by_zero {
            self.warn(code::ER_DIVISION_BY_ZERO, "Division by 0");
        }
        Ok(Value::Null)
    }

    pub fn truncated_double(&mut self, v: &Value) {
        let text = String::from_utf8_lossy(&to_bytes(v)).into_owned();
        self.warn(
            code::ER_TRUNCATED_WRONG_VALUE,
            format!("Truncated incorrect DOUBLE value: '{text}'"),
        );
    }
}

/// Whether an expression holds a subquery (it then needs a statement around
/// it to run).
pub fn has_subquery(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if matches!(x, Expr::Sub { .. } | Expr::InSub { .. }) {
            found = true;
        }
    });
    found
}

/// Whether an expression calls a stored function that reads tables or
/// changes rows (it then needs a transaction around it).
pub fn calls_stored_data(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if let Expr::StoredCall(f, _) = x {
            found |= f.0.reads || f.0.writes;
        }
    });
    found
}

impl Expr {
    pub fn boxed(self) -> Box<Expr> {
        Box::new(self)
    }

    /// The row position a plain column reference reads (through the session-zone
    /// view of a TIMESTAMP column).
    pub fn as_column(&self) -> Option<usize> {
        match self {
            Expr::Column(c) => Some(*c),
            Expr::Func(Func::TimestampLocal, a) => match a.as_slice() {
                [Expr::Column(c)] => Some(*c),
                _ => None,
            },
            _ => None,
        }
    }

    /// True when the value does not depend on the row (constants, parameters,
    /// variables and functions of them).
    pub fn is_row_independent(&self) -> bool {
        let mut ok = true;
        self.walk(&mut |e| {
            if matches!(
                e,
                Expr::Column(_) | Expr::SetUserVar(..) | Expr::StoredCall(..)
            ) {
                ok = false;
            }
            if let Expr::Func(f, _) = e {
                if !f.is_deterministic_per_statement() {
                    ok = false;
                }
            }
        });
        ok
    }

    /// Calls `f` on this expression and every sub-expression.
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        for c in self.children() {
            c.walk(f);
        }
    }

    pub(crate) fn children(&self) -> Vec<&Expr> {
        use Expr::*;
        match self {
            Const(_)
            | Param(_)
            | Column(_)
            | Local(_)
            | UserVar(_)
            | SysVar { .. }
            | OuterRef(_) => {
                vec![]
            }
            SetUserVar(_, e, _)
            | Neg(e)
            | Not(e)
            | BitNot(e)
            | IsNull(e, _)
            | IsBool(e, _, _)
            | Cast(e, _)
            | Once(e, _) => {
                vec![e]
            }
            Sub { outer, .. } => outer.iter().collect(),
            InSub { arg, outer, .. } => std::iter::once(arg.as_ref()).chain(outer.iter()).collect(),
            Arith(_, a, b) | Bit(_, a, b) | Cmp(_, a, b, _) | NullSafeEq(a, b, _) | Xor(a, b) => {
                vec![a, b]
            }
            And(v) | Or(v) | Func(_, v) | StoredCall(_, v) => v.iter().collect(),
            In { arg, list, .. } => std::iter::once(arg.as_ref()).chain(list.iter()).collect(),
            Between { arg, low, high, .. } => vec![arg, low, high],
            Like {
                arg,
                pattern,
                escape,
                ..
            } => {
                let mut v = vec![arg.as_ref(), pattern.as_ref()];
                v.extend(escape.as_deref());
                v
            }
            Case {
                operand,
                whens,
                otherwise,
                ..
            } => {
                let mut v: Vec<&Expr> = operand.as_deref().into_iter().collect();
                for (w, t) in whens {
                    v.push(w);
                    v.push(t);
                }
                v.extend(otherwise.as_deref());
                v
            }
        }
    }

    fn children_mut(&mut self) -> Vec<&mut Expr> {
        use Expr::*;
        match self {
            Const(_)
            | Param(_)
            | Column(_)
            | Local(_)
            | UserVar(_)
            | SysVar { .. }
            | OuterRef(_) => {
                vec![]
            }
            SetUserVar(_, e, _)
            | Neg(e)
            | Not(e)
            | BitNot(e)
            | IsNull(e, _)
            | IsBool(e, _, _)
            | Cast(e, _)
            | Once(e, _) => {
                vec![e]
            }
            Sub { outer, .. } => outer.iter_mut().collect(),
            InSub { arg, outer, .. } => std::iter::once(arg.as_mut())
                .chain(outer.iter_mut())
                .collect(),
            Arith(_, a, b) | Bit(_, a, b) | Cmp(_, a, b, _) | NullSafeEq(a, b, _) | Xor(a, b) => {
                vec![a, b]
            }
            And(v) | Or(v) | Func(_, v) | StoredCall(_, v) => v.iter_mut().collect(),
            In { arg, list, .. } => std::iter::once(arg.as_mut())
                .chain(list.iter_mut())
                .collect(),
            Between { arg, low, high, .. } => vec![arg, low, high],
            Like {
                arg,
                pattern,
                escape,
                ..
            } => {
                let mut v = vec![arg.as_mut(), pattern.as_mut()];
                v.extend(escape.as_deref_mut());
                v
            }
            Case {
                operand,
                whens,
                otherwise,
                ..
            } => {
                let mut v: Vec<&mut Expr> = operand.as_deref_mut().into_iter().collect();
                for (w, t) in whens {
                    v.push(w);
                    v.push(t);
                }
                v.extend(otherwise.as_deref_mut());
                v
            }
        }
    }

    /// Calls `f` on each direct sub-expression.
    pub fn walk_children_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        for c in self.children_mut() {
            f(c);
        }
    }

    /// Evaluates to a truth value (NULL is `None`).
    pub fn eval_bool(&self, row: &[Value], ctx: &mut EvalCtx) -> Result<Option<bool>, MySqlError> {
        match self {
            Expr::Cmp(op, a, b, coll) => {
                let x = a.eval(row, ctx)?;
                let y = b.eval(row, ctx)?;
                Ok(compare(&x, &y, *coll).map(|o| op.holds(o)))
            }
            Expr::And(list) => {
                let mut unknown = false;
                for e in list {
                    match e.eval_bool(row, ctx)? {
                        Some(false) => return Ok(Some(false)),
                        None => unknown = true,
                        Some(true) => {}
                    }
                }
                Ok(if unknown { None } else { Some(true) })
            }
            other => Ok(truth(&other.eval(row, ctx)?)),
        }
    }

    /// Evaluates against `row`. The recursion is as deep as the expression, which
    /// the binder bounds (see [`crate::stack`]); past a shallow depth each level
    /// makes sure of real stack first.
    #[inline]
    pub fn eval(&self, row: &[Value], ctx: &mut EvalCtx) -> R {
        ctx.depth += 1;
        let r = if ctx.depth <= crate::stack::EVAL_SHALLOW {
            self.eval_node(row, ctx)
        } else {
            crate::stack::grow(|| self.eval_node(row, ctx))
        };
        ctx.depth -= 1;
        r
    }

    /// The value of an operand, borrowed when it is a column or a constant (an
    /// operator reading it needs no copy).
    fn operand<'a>(
        &'a self,
        row: &'a [Value],
        ctx: &mut EvalCtx,
    ) -> Result<Cow<'a, Value>, MySqlError> {
        static NULL: Value = Value::Null;
        Ok(match self {
            Expr::Column(i) => Cow::Borrowed(row.get(*i).unwrap_or(&NULL)),
            Expr::Const(v) => Cow::Borrowed(v),
            _ => Cow::Owned(self.eval(row, ctx)?),
        })
    }

    fn eval_node(&self, row: &[Value], ctx: &mut EvalCtx) -> R {
        match self {
            Expr::Const(v) => Ok(v.clone()),
            Expr::Param(i) => Ok(ctx.params.get(*i).cloned().unwrap_or(Value::Null)),
            Expr::Column(i) => Ok(row.get(*i).cloned().unwrap_or(Value::Null)),
            Expr::Once(e, id) => once::eval(e, *id, row, ctx),
            Expr::Local(i) => Ok(ctx
                .cx
                .sp
                .as_ref()
                .and_then(|f| f.values.get(*i).cloned())
                .unwrap_or(Value::Null)),
            Expr::UserVar(n) => Ok(ctx.cx.user_vars.get(n).cloned().unwrap_or(Value::Null)),
            Expr::StoredCall(f, args) => crate::exec::stored_fn::call(&f.0, args, row, ctx),
            Expr::SetUserVar(n, e, fsp) => {
                let v = e.eval(row, ctx)?;
                let kept = crate::value::user_var_value(v.clone(), *fsp);
                ctx.cx.user_vars.insert(n.clone(), kept);
                Ok(v)
            }
            Expr::SysVar { def, global } => Ok(ctx.cx.sysvar(def, *global)),
            Expr::Neg(e) => {
                let v = e.eval(row, ctx)?;
                if let (Value::Bytes(_), false) = (&v, quiet(e)) {
                    if !crate::value::to_num(&v).1 {
                        ctx.truncated_double(&v);
                    }
                }
                negate(&v).map_err(|err| arith_error(err, "-", &v, &Value::Null))
            }
            Expr::Not(e) => Ok(bool_value(e.eval_bool(row, ctx)?.map(|b| !b))),
            Expr::BitNot(e) => {
                let v = e.eval(row, ctx)?;
                Ok(if v.is_null() {
                    Value::Null
                } else {
                    Value::UInt(!to_u64_bits(&v))
                })
            }
            Expr::Arith(op, a, b) => self.eval_arith(*op, a, b, row, ctx),
            Expr::Bit(op, a, b) => eval_bit(*op, a.eval(row, ctx)?, b.eval(row, ctx)?),
            Expr::Cmp(..) | Expr::And(_) => Ok(bool_value(self.eval_bool(row, ctx)?)),
            Expr::NullSafeEq(a, b, coll) => {
                let x = a.eval(row, ctx)?;
                let y = b.eval(row, ctx)?;
                Ok(Value::Int(match (x.is_null(), y.is_null()) {
                    (true, true) => 1,
                    (true, false) | (false, true) => 0,
                    _ => equal(&x, &y, *coll).unwrap_or(false) as i64,
                }))
            }
            Expr::Or(list) => {
                let mut unknown = false;
                for e in list {
                    match e.eval_bool(row, ctx)? {
                        Some(true) => return Ok(Value::Int(1)),
                        None => unknown = true,
                        Some(false) => {}
                    }
                }
                Ok(if unknown { Value::Null } else { Value::Int(0) })
            }
            Expr::Xor(a, b) => {
                let x = a.eval_bool(row, ctx)?;
                let y = b.eval_bool(row, ctx)?;
                Ok(bool_value(x.zip(y).map(|(p, q)| p != q)))
            }
            Expr::IsNull(e, negated) => {
                Ok(Value::Int((e.eval(row, ctx)?.is_null() != *negated) as i64))
            }
            Expr::IsBool(e, want, negated) => {
                let t = e.eval_bool(row, ctx)?;
                Ok(Value::Int(((t == Some(*want)) != *negated) as i64))
            }
            Expr::In {
                arg,
                list,
                negated,
                coll,
            } => eval_in(arg, list, *negated, *coll, row, ctx),
            Expr::Between {
                arg,
                low,
                high,
                negated,
                coll,
            } => {
                let v = arg.eval(row, ctx)?;
                let lo = low.eval(row, ctx)?;
                let hi = high.eval(row, ctx)?;
                let a = compare(&v, &lo, *coll).map(|o| o != Ordering::Less);
                let b = compare(&v, &hi, *coll).map(|o| o != Ordering::Greater);
                let r = match (a, b) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                };
                Ok(bool_value(r.map(|x| x != *negated)))
            }
            Expr::Like {
                arg,
                pattern,
                escape,
                negated,
                coll,
            } => {
                let v = arg.eval(row, ctx)?;
                let p = pattern.eval(row, ctx)?;
                let esc = match escape {
                    Some(e) => e.eval(row, ctx)?,
                    None => Value::str("\\"),
                };
                if v.is_null() || p.is_null() {
                    return Ok(Value::Null);
                }
                let esc_char = to_bytes(&esc).first().copied();
                let m = like::matches(&to_bytes(&v), &to_bytes(&p), esc_char, *coll);
                Ok(Value::Int((m != *negated) as i64))
            }
            Expr::Case {
                operand,
                whens,
                otherwise,
                coll,
            } => eval_case(
                operand.as_deref(),
                whens,
                otherwise.as_deref(),
                *coll,
                row,
                ctx,
            ),
            Expr::Func(f, args) => func::eval(*f, args, row, ctx),
            Expr::Cast(e, target) => {
                let v = e.eval(row, ctx)?;
                if let (Expr::UserVar(_), CastTarget::Double, Value::Bytes(_)) = (&**e, target, &v)
                {
                    // A user variable reads as a number without warnings
                    // (MariaDB's Item_func_get_user_var::val_real).
                    return Ok(Value::Double(crate::value::to_num(&v).0.to_f64()));
                }
                cast::cast(v, target, ctx)
            }
            Expr::OuterRef(k) => Ok(ctx
                .outer
                .last()
                .and_then(|o| o.get(*k))
                .cloned()
                .unwrap_or(Value::Null)),
            Expr::Sub { id, outer } => Ok(match ctx.sub_result(*id, outer, row)? {
                SubResult::Scalar(v) => v,
                SubResult::Exists(b) => Value::Int(b as i64),
                _ => Value::Null,
            }),
            Expr::InSub {
                arg,
                sub,
                outer,
                negated,
                coll,
            } => {
                let v = arg.eval(row, ctx)?;
                let SubResult::Set(vals, has_null) = ctx.sub_result(*sub, outer, row)? else {
                    return Ok(Value::Null);
                };
                // NULL IN (no rows) is false (NOT IN: true); NULL IN (rows) is NULL.
                if v.is_null() {
                    let empty = vals.is_empty() && !has_null;
                    return Ok(match empty {
                        true => Value::Int(*negated as i64),
                        false => Value::Null,
                    });
                }
                if vals.iter().any(|x| equal(&v, x, *coll) == Some(true)) {
                    return Ok(Value::Int(!negated as i64));
                }
                Ok(if has_null {
                    Value::Null
                } else {
                    Value::Int(*negated as i64)
                })
            }
        }
    }

    fn eval_arith(&self, op: ArithOp, a: &Expr, b: &Expr, row: &[Value], ctx: &mut EvalCtx) -> R {
        let x = a.operand(row, ctx)?;
        let y = b.operand(row, ctx)?;
        if x.is_null() || y.is_null() {
            return Ok(Value::Null);
        }
        let mut bad: Vec<Value> = Vec::new();
        let r = arith(op, &x, &y, ctx.cx.div_precision_increment, &mut |v| {
            bad.push(v.clone())
        });
        for v in &bad {
            if !((quiet(a) && *v == *x) || (quiet(b) && *v == *y)) {
                ctx.truncated_double(v);
            }
        }
        match r {
            Ok(v) => Ok(v),
            Err(ArithError::DivisionByZero) => ctx.division_by_zero(),
            Err(e) => Err(arith_error(e, op.symbol(), &x, &y)),
        }
    }
}

/// A user variable converts to a number without warnings, as MariaDB's
/// Item_func_get_user_var does.
fn quiet(e: &Expr) -> bool {
    matches!(e, Expr::UserVar(_))
}

/// 1690 for an arithmetic overflow, quoting the operation as MariaDB does.
pub fn arith_error(e: ArithError, op: &str, x: &Value, y: &Value) -> MySqlError {
    let ty = match e {
        ArithError::IntOverflow { unsigned: true } => "BIGINT UNSIGNED",
        ArithError::IntOverflow { unsigned: false } => "BIGINT",
        ArithError::DecimalOverflow => "DECIMAL",
        _ => "DOUBLE",
    };
    let expr = if y.is_null() {
        format!("{op}{}", x.display_lossy())
    } else {
        format!("{} {op} {}", x.display_lossy(), y.display_lossy())
    };
    MySqlError::data_out_of_range(ty, &expr)
}

pub fn bool_value(b: Option<bool>) -> Value {
    match b {
        None => Value::Null,
        Some(b) => Value::Int(b as i64),
    }
}

fn to_u64_bits(v: &Value) -> u64 {
    match v {
        Value::UInt(u) => *u,
        Value::Int(i) => *i as u64,
        other => crate::value::to_num(other).0.to_i128().unwrap_or(0) as u64,
    }
}

fn eval_bit(op: BitOp, x: Value, y: Value) -> R {
    if x.is_null() || y.is_null() {
        return Ok(Value::Null);
    }
    let a = to_u64_bits(&x);
    let b = to_u64_bits(&y);
    Ok(Value::UInt(match op {
        BitOp::And => a & b,
        BitOp::Or => a | b,
        BitOp::Xor => a ^ b,
        BitOp::Shl => a.checked_shl(b.min(64) as u32).unwrap_or(0),
        BitOp::Shr => a.checked_shr(b.min(64) as u32).unwrap_or(0),
    }))
}

fn eval_in(
    arg: &Expr,
    list: &[Expr],
    negated: bool,
    coll: Collation,
    row: &[Value],
    ctx: &mut EvalCtx,
) -> R {
    let v = arg.eval(row, ctx)?;
    if v.is_null() {
        return Ok(Value::Null);
    }
    let mut unknown = false;
    for e in list {
        let item = e.eval(row, ctx)?;
        match equal(&v, &item, coll) {
            Some(true) => return Ok(Value::Int(!negated as i64)),
            None => unknown = true,
            Some(false) => {}
        }
    }
    Ok(if unknown {
        Value::Null
    } else {
        Value::Int(negated as i64)
    })
}

fn eval_case(
    operand: Option<&Expr>,
    whens: &[(Expr, Expr)],
    otherwise: Option<&Expr>,
    coll: Collation,
    row: &[Value],
    ctx: &mut EvalCtx,
) -> R {
    let base = match operand {
        Some(o) => Some(o.eval(row, ctx)?),
        None => None,
    };
    for (w, then) in whens {
        let hit = match &base {
            Some(b) => {
                let wv = w.eval(row, ctx)?;
                equal(b, &wv, coll) == Some(true)
            }
            None => w.eval_bool(row, ctx)? == Some(true),
        };
        if hit {
            return then.eval(row, ctx);
        }
    }
    match otherwise {
        Some(e) => e.eval(row, ctx),
        None => Ok(Value::Null),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::{Engine, GlobalConfig};

    pub(crate) fn test_ctx() -> SessionCtx {
        let storage = crate::exec::test_support::scratch_storage();
        let engine = Engine::new(storage, GlobalConfig::default());
        SessionCtx::new(engine, 1, "root", "localhost")
    }

    fn c(v: i64) -> Box<Expr> {
        Expr::Const(Value::Int(v)).boxed()
    }

    #[test]
    fn three_valued_logic() {
        let mut cx = test_ctx();
        let mut ctx = EvalCtx::new(&[], &mut cx);
        let null = Expr::Const(Value::Null);
        let t = Expr::Cmp(CmpOp::Eq, c(1), c(1), Collation::Binary);
        let f = Expr::Cmp(CmpOp::Eq, c(1), c(2), Collation::Binary);
        let and = Expr::And(vec![null.clone(), f.clone()]);
        assert_eq!(and.eval(&[], &mut ctx), Ok(Value::Int(0)));
        let or = Expr::Or(vec![null.clone(), t.clone()]);
        assert_eq!(or.eval(&[], &mut ctx), Ok(Value::Int(1)));
        let or = Expr::Or(vec![null.clone(), f]);
        assert_eq!(or.eval(&[], &mut ctx), Ok(Value::Null));
        let inl = Expr::In {
            arg: c(3),
            list: vec![Expr::Const(Value::Int(1)), null],
            negated: false,
            coll: Collation::Binary,
        };
        assert_eq!(inl.eval(&[], &mut ctx), Ok(Value::Null));
    }

    #[test]
    fn division_by_zero_warns() {
        let mut cx = test_ctx();
        cx.mode.error_for_division_by_zero = true;
        let mut ctx = EvalCtx::new(&[], &mut cx);
        let e = Expr::Arith(ArithOp::Div, c(1), c(0));
        assert_eq!(e.eval(&[], &mut ctx), Ok(Value::Null));
        assert_eq!(cx.warnings.len(), 1);
        assert_eq!(cx.warnings[0].code, 1365);
    }

    #[test]
    fn division_by_zero_fails_only_strict_dml() {
        let mut cx = test_ctx();
        cx.mode.error_for_division_by_zero = true;
        cx.mode.strict = false;
        let e = Expr::Arith(ArithOp::Div, c(1), c(0));
        let mut ctx = EvalCtx::new(&[], &mut cx);
        ctx.strict_dml = true;
        assert_eq!(e.eval(&[], &mut ctx), Ok(Value::Null));
        assert_eq!(cx.warnings.len(), 1);
        cx.mode.strict = true;
        let mut ctx = EvalCtx::new(&[], &mut cx);
        ctx.strict_dml = true;
        assert_eq!(e.eval(&[], &mut ctx).map_err(|e| e.code), Err(1365));
    }

    #[test]
    fn columns_and_params() {
        let mut cx = test_ctx();
        let params = [Value::Int(100)];
        let mut ctx = EvalCtx::new(&params, &mut cx);
        let e = Expr::Cmp(
            CmpOp::Ge,
            Expr::Column(1).boxed(),
            Expr::Param(0).boxed(),
            Collation::Binary,
        );
        assert_eq!(
            e.eval(&[Value::Int(0), Value::Int(150)], &mut ctx),
            Ok(Value::Int(1))
        );
        assert_eq!(
            e.eval(&[Value::Int(0), Value::Int(50)], &mut ctx),
            Ok(Value::Int(0))
        );
    }
}
