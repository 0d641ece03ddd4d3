//! Binding of function calls: scalar functions, aggregates, CAST targets.

use super::expr::cmp_collation;
use super::expr::{AggCollector, AGG_BASE};
use super::{object_parts, Binder, Scope};
use crate::expr::{CastTarget, Expr, Func};
use crate::plan::{AggCall, AggFunc};
use crate::ty::{aggregate, Class, ExprType};
use crate::value::temporal::Unit;
use basalt_common::{Collation, MySqlError, Value};
use sqlparser::ast;

type Bound = (Expr, ExprType);
type R<T> = Result<T, MySqlError>;

fn syntax(text: &str) -> MySqlError {
    MySqlError::parse_error(text, 1)
}

impl Binder<'_> {
    /// Binds a call of `f` on AST arguments.
    pub fn call(
        &mut self,
        f: Func,
        args: &[&ast::Expr],
        scope: &Scope,
        mut aggs: Option<&mut AggCollector>,
    ) -> R<Bound> {
        let mut bound = Vec::with_capacity(args.len());
        let mut types = Vec::with_capacity(args.len());
        for a in args {
            let (b, t) = self.expr(a, scope, aggs.as_deref_mut())?;
            bound.push(b);
            types.push(t);
        }
        crate::expr::func::check_types(f, &types)?;
        super::strings::byte_args(f, &mut bound, &types);
        super::strings::temporal_args(f, &mut bound, &types);
        let hex_doubles = hex_args(f, &mut bound, &mut types);
        let f = crate::expr::func::refine(f, &types, &bound);
        let mut t = if crate::expr::func::uses_consts(f) {
            let consts: Vec<Option<Value>> = bound.iter().map(|e| self.const_value(e)).collect();
            check_precision(f, &consts)?;
            crate::expr::func::result_type_with(f, &types, &consts)
        } else {
            crate::expr::func::result_type(f, &types)
        };
        if hex_doubles {
            // The arguments' largest scale (a hex literal's is 0), as MariaDB.
            t.decimals = types.iter().map(|t| t.decimals).max().unwrap_or(0);
        }
        if let Some(v) = crate::expr::func::bind_time_value(f, &types) {
            return Ok((Expr::Const(v), t));
        }
        decimal_branches(f, &mut bound, &types, &t);
        Ok((Expr::Func(f, bound), t))
    }

    pub(super) fn function(
        &mut self,
        f: &ast::Function,
        scope: &Scope,
        mut aggs: Option<&mut AggCollector>,
    ) -> R<Bound> {
        let parts = object_parts(&f.name);
        let name = parts
            .last()
            .cloned()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if let Some(over) = &f.over {
            return self.window_call(f, &name, over, scope, aggs);
        }
        let (list, distinct, clauses): (&[_], _, &[_]) = match &f.args {
            ast::FunctionArguments::None => (&[], false, &[]),
            ast::FunctionArguments::List(l) => (
                &l.args,
                matches!(
                    l.duplicate_treatment,
                    Some(ast::DuplicateTreatment::Distinct)
                ),
                &l.clauses,
            ),
            ast::FunctionArguments::Subquery(_) => {
                return Err(MySqlError::not_supported("subqueries"))
            }
        };
        if name == "json_arrayagg" || name == "json_objectagg" {
            return self.json_agg(&name, list, distinct, clauses, scope, aggs);
        }
        if let Some(agg) = agg_func(&name) {
            return self.aggregate_call(agg, &name, list, distinct, clauses, scope, aggs);
        }
        let mut args = Vec::with_capacity(list.len());
        for a in list {
            match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => args.push(e),
                _ => return Err(syntax(&f.to_string())),
            }
        }
        if let Some(b) = self.sys_function(&parts, &name, &args, scope, aggs.as_deref_mut())? {
            return Ok(b);
        }
        if name == "char using" {
            return self.char_using_call(&args, scope, aggs);
        }
        if name == "default" && f.name.0.len() == 1 {
            return self.default_call(&args, scope);
        }
        if let Some(unit) = name.strip_prefix("extract:") {
            return self.extract_call(unit, &args, scope, aggs);
        }
        if name == "date_add" || name == "date_sub" || name == "adddate" || name == "subdate" {
            if let [base, ast::Expr::Interval(iv)] = args.as_slice() {
                return self.date_add(
                    base,
                    iv,
                    name.starts_with("date_sub") || name == "subdate",
                    scope,
                    aggs,
                );
            }
        }
        let unit;
        if name == "timestampdiff" || name == "timestampadd" || name == "get_format" {
            if let Some(ast::Expr::Identifier(u)) = args.first() {
                let v = ast::Value::SingleQuotedString(u.value.clone()).with_empty_span();
                unit = ast::Expr::Value(v);
                args[0] = &unit;
            }
        }
        if name == "values" {
            return self.values_ref(&args, scope);
        }
        let db = self.db();
        if let Some(b) = crate::expr::func::sequence::bind(&name, &args, self.storage, db)? {
            return Ok(b);
        }
        let builtin = crate::expr::func::lookup(&name).filter(|_| parts.len() == 1);
        let Some((func, min, max)) = builtin else {
            let fname = parts.last().map(String::as_str).unwrap_or_default();
            return self.stored_call(&parts, fname, &args, scope, aggs);
        };
        crate::expr::func::check_arity(&name, args.len(), min, max)?;
        crate::expr::func::check_shape(func, &name, args.len())?;
        self.call(func, &args, scope, aggs)
    }

    /// A call of one of the sys schema's functions (`sys.format_time(x)`, or
    /// unqualified with `sys` as the current database), bound as the
    /// built-in expression it stands for.
    fn sys_function(
        &mut self,
        parts: &[String],
        name: &str,
        args: &[&ast::Expr],
        scope: &Scope,
        aggs: Option<&mut AggCollector>,
    ) -> R<Option<Bound>> {
        let in_sys = match parts {
            [db, _] => crate::sysschema::is_schema(db),
            [_] => self.db().is_some_and(crate::sysschema::is_schema),
            _ => false,
        };
        if !in_sys {
            return Ok(None);
        }
        let texts: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let Some(text) = crate::sysschema::function(name, &texts) else {
            return Ok(None);
        };
        let e = crate::front::parse::parse_expr(&text)?;
        self.expr(&e, scope, aggs).map(Some)
    }

    /// `` `extract:unit`(x) ``, the front end's form of `EXTRACT(unit FROM x)`; an
    /// unknown unit is the syntax error MariaDB gives.
    fn extract_call(
        &mut self,
        unit: &str,
        args: &[&ast::Expr],
        scope: &Scope,
        aggs: Option<&mut AggCollector>,
    ) -> R<Bound> {
        let unit = Unit::from_name(unit).or_else(|| Unit::compound(unit));
        let (Some(unit), [x]) = (unit, args) else {
            return Err(syntax("EXTRACT"));
        };
        let (x, t) = self.expr(x, scope, aggs)?;
        let f = crate::expr::func::extract(unit);
        let ty = crate::expr::func::result_type(f, &[t]);
        Ok((Expr::Func(f, vec![x]), ty))
    }

    /// `` `char using`(n, ..., cs) ``, the front end's form of `CHAR(n, ... USING cs)`.
    fn char_using_call(
        &mut self,
        args: &[&ast::Expr],
        scope: &Scope,
        mut aggs: Option<&mut AggCollector>,
    ) -> R<Bound> {
        let Some((ast::Expr::Identifier(cs), values)) = args.split_last() else {
            return Err(syntax("CHAR"));
        };
        let charset = basalt_common::Charset::from_name(&cs.value)
            .ok_or_else(|| MySqlError::unknown_character_set(&cs.value))?;
        let mut bound = Vec::with_capacity(values.len());
        let mut types = Vec::with_capacity(values.len());
        for v in values {
            let (e, t) = self.expr(v, scope, aggs.as_deref_mut())?;
            // CHAR(0x61 USING cs) reads the hex literal as its number, as CHAR(0x61).
            let (e, t) = super::typing::hex_number(&e, &t).unwrap_or((e, t));
            bound.push(e);
            types.push(t);
        }
        let f = crate::expr::func::char_using(charset);
        let ty = crate::expr::func::result_type(f, &types);
        Ok((Expr::Func(f, bound), ty))
    }

    /// `VALUES(col)` in ON DUPLICATE KEY UPDATE: the named scope holds `values.col`.
    fn values_ref(&mut self, args: &[&ast::Expr], scope: &Scope) -> R<Bound> {
        let col = match args {
            [ast::Expr::Identifier(i)] => i.value.clone(),
            [ast::Expr::CompoundIdentifier(ids)] => {
                ids.last().map(|i| i.value.clone()).unwrap_or_default()
            }
            _ => return Err(syntax("VALUES")),
        };
        let key = format!("values.{}", col.to_ascii_lowercase());
        match scope.named.iter().find(|(n, _, _)| *n == key) {
            Some((_, pos, t)) => Ok((Expr::Column(*pos), t.clone())),
            None => Ok((Expr::Const(Value::Null), ExprType::null())),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn aggregate_call(
        &mut self,
        func: AggFunc,
        name: &str,
        list: &[ast::FunctionArg],
        distinct: bool,
        clauses: &[ast::FunctionArgumentClause],
        scope: &Scope,
        aggs: Option<&mut AggCollector>,
    ) -> R<Bound> {
        let Some(aggs) = aggs else {
            return Err(MySqlError::invalid_group_func_use());
        };
        let star = matches!(
            list,
            [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard)]
        );
        let func = if func == AggFunc::Count && star {
            AggFunc::CountStar
        } else {
            func
        };
        let mut args = Vec::new();
        if !star {
            for a in list {
                match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => args.push(e),
                    _ => return Err(syntax(name)),
                }
            }
        }
        let (arg, targ) = match (func, args.as_slice()) {
            (AggFunc::CountStar, []) => (None, ExprType::null()),
            (AggFunc::GroupConcat, [..]) if !args.is_empty() => {
                let (e, t) = self.call(Func::Concat, &args, scope, None)?;
                let e = if args.len() == 1 {
                    if let Expr::Func(_, mut v) = e {
                        v.remove(0)
                    } else {
                        e
                    }
                } else {
                    e
                };
                (Some(e), t)
            }
            (_, [one]) => {
                let (e, t) = self.expr(one, scope, None)?;
                let numeric = !matches!(
                    func,
                    AggFunc::Min | AggFunc::Max | AggFunc::Count | AggFunc::GroupConcat
                );
                // SUM(0x41) adds 65, as MariaDB's numeric aggregates read a hex literal.
                match super::typing::hex_number(&e, &t).filter(|_| numeric) {
                    Some((n, mut nt)) => {
                        nt.hex_number = true;
                        (Some(n), nt)
                    }
                    None => (Some(e), t),
                }
            }
            (AggFunc::Count, [_, ..]) if distinct => {
                let (e, t) = self.call(Func::Concat, &args, scope, None)?;
                (Some(e), t)
            }
            _ => return Err(MySqlError::wrong_paramcount_to_native_fct(name)),
        };
        let mut separator = b",".to_vec();
        for c in clauses {
            if let ast::FunctionArgumentClause::Separator(v) = c {
                separator = match self.value_of(v)? {
                    Value::Bytes(b) => b,
                    other => crate::value::to_bytes(&other),
                };
            }
        }
        let mut order = Vec::new();
        for c in clauses {
            if let ast::FunctionArgumentClause::OrderBy(list) = c {
                for o in list {
                    let (e, t) = self.expr(&o.expr, scope, None)?;
                    let desc = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
                    let c = if t.class == Class::String {
                        t.collation
                    } else {
                        Collation::Binary
                    };
                    order.push((e, desc, c));
                }
            }
        }
        let ty = agg_type(func, &targ);
        let coll = if targ.class == Class::String {
            targ.collation
        } else {
            Collation::Binary
        };
        aggs.calls.push(AggCall {
            func,
            arg,
            distinct,
            coll,
            separator,
            order,
        });
        Ok((Expr::Column(AGG_BASE + aggs.calls.len() - 1), ty))
    }

    /// The value of a constant argument whose value shapes a result type: a
    /// stripped literal is read only in the select list (whose literals already
    /// make the plan single-use); elsewhere the type is the general one.
    pub(super) fn const_value(&self, e: &Expr) -> Option<Value> {
        match e {
            Expr::Const(c) => Some(c.clone()),
            Expr::Param(i) if self.in_projection => {
                self.params.stripped.and_then(|p| p.get(*i)).cloned()
            }
            _ => None,
        }
    }

    /// The value of a literal that shapes the plan (a GROUP_CONCAT separator): a
    /// stripped literal's value makes the plan single-use.
    fn value_of(&mut self, v: &ast::ValueWithSpan) -> R<Value> {
        let (e, _) = self.expr(&ast::Expr::Value(v.clone()), &Scope::default(), None)?;
        match e {
            Expr::Const(c) => Ok(c),
            Expr::Param(i) => match self.params.stripped.and_then(|p| p.get(i)) {
                Some(val) => {
                    self.reusable = false;
                    Ok(val.clone())
                }
                None => Err(MySqlError::not_supported(
                    "a parameter as GROUP_CONCAT separator",
                )),
            },
            _ => Err(syntax("SEPARATOR")),
        }
    }

    pub(super) fn cast_target(&self, dt: &ast::DataType) -> R<CastTarget> {
        use ast::DataType as D;
        let conn = self.cx.connection_collation;
        Ok(match dt {
            D::Signed | D::SignedInteger | D::Int(_) | D::Integer(_) | D::BigInt(_) => {
                CastTarget::Signed
            }
            D::Unsigned | D::UnsignedInteger | D::IntUnsigned(_) | D::BigIntUnsigned(_) => {
                CastTarget::Unsigned
            }
            D::Char(n) | D::Character(n) | D::Varchar(n) | D::Nvarchar(n) => {
                CastTarget::Char(char_len(n), conn)
            }
            D::Text | D::String(_) | D::JSON => CastTarget::Char(None, conn),
            D::Binary(n) => CastTarget::Char(n.map(|x| x as u32), Collation::Binary),
            D::Varbinary(_) | D::Blob(_) => CastTarget::Char(None, Collation::Binary),
            D::Decimal(i) | D::Numeric(i) | D::Dec(i) => {
                let (p, s) = match i {
                    ast::ExactNumberInfo::None => (10, 0),
                    ast::ExactNumberInfo::Precision(p) => (*p, 0),
                    ast::ExactNumberInfo::PrecisionAndScale(p, s) => (*p, (*s).max(0) as u64),
                };
                if p > 65 {
                    return Err(MySqlError::too_big_precision(p as u32, "CAST", 65));
                }
                CastTarget::Decimal(p.min(38) as u8, s.min(30) as u8)
            }
            D::Double(_) | D::DoublePrecision | D::Float(_) | D::Real | D::Float8 | D::Float64 => {
                CastTarget::Double
            }
            D::Date => CastTarget::Date,
            D::Datetime(p) => CastTarget::DateTime(p.unwrap_or(0).min(6) as u8),
            D::Timestamp(p, _) => CastTarget::DateTime(p.unwrap_or(0).min(6) as u8),
            D::Time(p, _) => CastTarget::Time(p.unwrap_or(0).min(6) as u8),
            D::Uuid => CastTarget::Fixed(basalt_common::fixedbin::FixedBin::Uuid),
            D::Custom(name, args) if args.is_empty() => {
                match super::object_parts(name)
                    .join(".")
                    .to_ascii_lowercase()
                    .as_str()
                {
                    "uuid" => CastTarget::Fixed(basalt_common::fixedbin::FixedBin::Uuid),
                    "inet6" => CastTarget::Fixed(basalt_common::fixedbin::FixedBin::Inet6),
                    _ => return Err(MySqlError::parse_error(&dt.to_string(), 1)),
                }
            }
            other => return Err(MySqlError::parse_error(&other.to_string(), 1)),
        })
    }
}

fn char_len(n: &Option<ast::CharacterLength>) -> Option<u32> {
    match n {
        Some(ast::CharacterLength::IntegerLength { length, .. }) => Some(*length as u32),
        _ => None,
    }
}

pub fn agg_func(name: &str) -> Option<AggFunc> {
    Some(match name {
        "count" => AggFunc::Count,
        "sum" => AggFunc::Sum,
        "avg" => AggFunc::Avg,
        "min" => AggFunc::Min,
        "max" => AggFunc::Max,
        "group_concat" => AggFunc::GroupConcat,
        "bit_and" => AggFunc::BitAnd,
        "bit_or" => AggFunc::BitOr,
        "bit_xor" => AggFunc::BitXor,
        "std" | "stddev" | "stddev_pop" => AggFunc::StdDev,
        "variance" | "var_pop" => AggFunc::Variance,
        "stddev_samp" => AggFunc::StdDevSamp,
        "var_samp" => AggFunc::VarSamp,
        _ => return None,
    })
}

/// Result type of an aggregate, as MariaDB reports it.
pub fn agg_type(f: AggFunc, arg: &ExprType) -> ExprType {
    let numeric = arg.numeric_view();
    let arg = match f {
        AggFunc::Sum | AggFunc::Avg => &numeric,
        _ => arg,
    };
    match f {
        AggFunc::CountStar | AggFunc::Count => ExprType::bigint(),
        AggFunc::Sum => match arg.class {
            Class::Int | Class::Decimal => {
                ExprType::decimal(arg.precision() + 22, arg.decimals).nullable(true)
            }
            _ => {
                let mut t = ExprType::double().nullable(true);
                t.len = 23;
                t
            }
        },
        AggFunc::Avg => match arg.class {
            Class::Int | Class::Decimal => {
                ExprType::decimal(arg.precision() + 4, (arg.decimals + 4).min(30)).nullable(true)
            }
            _ => ExprType::double().nullable(true),
        },
        AggFunc::Min | AggFunc::Max | AggFunc::First => {
            let mut t = arg.clone().nullable(true);
            if f != AggFunc::First {
                t.origin = None;
                // MIN/MAX of an ENUM or SET is the text (compared as text).
                if t.is_enum_or_set() {
                    t.column_type = None;
                }
                // MIN/MAX of an integer expression (not a column) is BIGINT.
                if t.class == Class::Int && arg.origin.is_none() {
                    t.column_type = Some(basalt_common::ColumnType::LongLong);
                }
                t.col_flags = 0;
                // A hex or bit literal (a string typed unsigned) keeps its 0.
                if t.class == Class::String && !arg.unsigned {
                    t.decimals = 39;
                }
            }
            t
        }
        AggFunc::GroupConcat => {
            let mut t = ExprType::string(1_048_576, arg.collation).nullable(true);
            t.decimals = 0;
            t
        }
        AggFunc::BitAnd | AggFunc::BitOr | AggFunc::BitXor => ExprType::bigint().unsigned(),
        // MariaDB: DOUBLE with the argument's scale + 4 decimals (exact types); a
        // floating-point argument keeps DOUBLE's own metadata.
        AggFunc::StdDev | AggFunc::Variance | AggFunc::StdDevSamp | AggFunc::VarSamp => {
            let mut t = ExprType::double().nullable(true);
            match arg.class {
                Class::Int | Class::Decimal => {
                    // MariaDB: twice the argument's precision plus 4 digits, with
                    // sign and point; a hex literal's is fixed.
                    t.len = if arg.hex_number {
                        17
                    } else {
                        2 * arg.precision() + 6
                    };
                    t.decimals = (arg.decimals + 4).min(30);
                }
                _ => t.len = 23,
            }
            t
        }
    }
}

/// Hex and bit literal arguments read as numbers are numbers (`ABS(0x41)` is
/// 65, `LEFT(s, 0x02)` takes two characters), as MariaDB's hybrid literal
/// gives its integer to a function that reads the argument as one. True when
/// GREATEST / LEAST now compare a hex literal as a DOUBLE.
fn hex_args(f: Func, bound: &mut [Expr], types: &mut [ExprType]) -> bool {
    // GREATEST / LEAST compare as numbers when an argument is one.
    let numeric_list =
        matches!(f, Func::Greatest | Func::Least) && types.iter().any(|t| t.class.is_numeric());
    let mut doubles = false;
    for (i, (b, t)) in bound.iter_mut().zip(types.iter_mut()).enumerate() {
        if !numeric_list && !integer_arg(f, i) {
            continue;
        }
        if let Some((n, nt)) = super::typing::hex_number(b, t) {
            (*b, *t) = (n, nt);
            if numeric_list {
                // MariaDB compares a hex literal with numbers as DOUBLEs.
                if let Expr::Const(Value::UInt(u)) = b {
                    *b = Expr::Const(Value::Double(*u as f64));
                }
                t.class = Class::Double;
                t.unsigned = false;
                doubles = true;
            }
        }
    }
    doubles
}

/// Whether argument `i` of `f` is read as a number.
fn integer_arg(f: Func, i: usize) -> bool {
    use crate::expr::func::{ClockFn, TextFn};
    use Func::*;
    match f {
        Abs | Round | Truncate | Floor | Ceil | Mod | Sign | Sqrt | Pow | Exp | Ln | Log10
        | Log | Log2 | Trig(_) | Degrees | Radians | Rand => true,
        Space | Elt | FromDays | FromUnixtime => i == 0,
        Left | Right | Repeat | Lpad | Rpad | Format => i == 1,
        Locate | SubstringIndex => i == 2,
        Substring => i >= 1,
        Text(TextFn::Char | TextFn::Chr) => true,
        Text(TextFn::Insert) => i == 1 || i == 2,
        Text(TextFn::MakeSet) => i == 0,
        Text(TextFn::ExportSet) => i == 0 || i == 4,
        Clock(
            ClockFn::SecToTime
            | ClockFn::MakeDate
            | ClockFn::MakeTime
            | ClockFn::PeriodAdd
            | ClockFn::PeriodDiff,
        ) => true,
        Clock(ClockFn::TimestampAdd | ClockFn::Week | ClockFn::YearWeek) => i == 1,
        _ => false,
    }
}

/// IF / NVL2 / IFNULL / COALESCE of a DECIMAL type: the branches that are not
/// DECIMAL are converted to it, so an integer branch prints the type's scale
/// (`10.000`), as MariaDB's result field does.
fn decimal_branches(f: Func, bound: &mut [Expr], types: &[ExprType], t: &ExprType) {
    let first = match f {
        Func::If | Func::Nvl2 => 1,
        Func::IfNull | Func::Coalesce => 0,
        _ => return,
    };
    for (b, ty) in bound.iter_mut().zip(types).skip(first) {
        decimal_branch(b, ty, t);
    }
}

/// Converts branch `b` (of type `ty`) of an IF / CASE / COALESCE ... whose type
/// `t` is DECIMAL to `t`, unless it is NULL or a DECIMAL of `t`'s scale already.
pub(super) fn decimal_branch(b: &mut Expr, ty: &ExprType, t: &ExprType) {
    use crate::ty::Class;
    let same_scale = ty.class == Class::Decimal && ty.decimals == t.decimals;
    if t.class != Class::Decimal || ty.class == Class::Null || same_scale {
        return;
    }
    let target = CastTarget::Decimal(t.precision().clamp(1, 65) as u8, t.decimals.min(30));
    let inner = std::mem::replace(b, Expr::Const(Value::Null));
    *b = Expr::Cast(Box::new(inner), target);
}

impl Binder<'_> {
    /// CASE [operand] WHEN ... THEN ... [ELSE ...] END.
    pub(super) fn case(
        &mut self,
        operand: Option<&ast::Expr>,
        conds: &[ast::CaseWhen],
        otherwise: Option<&ast::Expr>,
        scope: &Scope,
        mut aggs: Option<&mut AggCollector>,
    ) -> R<Bound> {
        let op = match operand {
            Some(o) => Some(self.expr(o, scope, aggs.as_deref_mut())?),
            None => None,
        };
        let mut whens = Vec::new();
        let mut ty: Option<ExprType> = None;
        let mut branch_types = Vec::new();
        let mut coll = Collation::Binary;
        for cw in conds {
            let (w, tw) = self.expr(&cw.condition, scope, aggs.as_deref_mut())?;
            if let Some((_, to)) = &op {
                coll = cmp_collation(to, &tw);
            }
            let (t, tt) = self.expr(&cw.result, scope, aggs.as_deref_mut())?;
            ty = Some(match ty {
                None => tt.clone(),
                Some(prev) => aggregate(&prev, &tt),
            });
            branch_types.push(tt);
            whens.push((w, t));
        }
        let mut otherwise = match otherwise {
            Some(e) => {
                let (b, tb) = self.expr(e, scope, aggs)?;
                ty = Some(match ty {
                    None => tb.clone(),
                    Some(prev) => aggregate(&prev, &tb),
                });
                branch_types.push(tb);
                Some(b)
            }
            None => None,
        };
        let mut t = ty.unwrap_or_else(ExprType::null);
        if otherwise.is_none() {
            // The missing ELSE is a NULL branch of the aggregated type.
            t = aggregate(&t, &ExprType::null());
        }
        // A DECIMAL CASE shows its scale in every branch (`0.00`), as MariaDB does.
        let results = whens.iter_mut().map(|(_, r)| r).chain(otherwise.as_mut());
        for (r, rt) in results.zip(&branch_types) {
            super::call::decimal_branch(r, rt, &t);
        }
        let otherwise = otherwise.map(|b| b.boxed());
        if otherwise.is_none() {
            t.nullable = true;
        }
        Ok((
            Expr::Case {
                operand: op.map(|(e, _)| e.boxed()),
                whens,
                otherwise,
                coll,
            },
            t,
        ))
    }
}

/// MariaDB's 1426 for a clock function's precision above 6 (`NOW(7)`).
fn check_precision(f: Func, consts: &[Option<Value>]) -> R<()> {
    let (Some(name), Some(Some(v))) = (crate::expr::func::precision_name(f), consts.first()) else {
        return Ok(());
    };
    match crate::value::to_num(v).0.to_i64() {
        Some(n) if n > 6 => Err(MySqlError::too_big_precision(
            n.min(u32::MAX as i64) as u32,
            name,
            6,
        )),
        _ => Ok(()),
    }
}
