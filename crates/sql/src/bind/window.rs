//! Binding of window functions (`f(...) OVER (...)`, `OVER w`, `WINDOW w AS`).
//!
//! A window call is allowed only in the select list and ORDER BY (4015); it binds
//! to the marker `Column(WIN_BASE + i)` and its call (arguments, specification,
//! frame) is collected in the select's [`WinCollector`]. Arguments, PARTITION BY
//! and ORDER BY are bound like select-list expressions, with the select's
//! aggregate collector, so `SUM(SUM(x)) OVER (ORDER BY SUM(y))` windows over the
//! groups. After aggregation is rewritten, the select binder turns the markers
//! into columns past the input row of the window stage ([`finish`]).
//!
//! Named windows follow MariaDB: a name is defined once (4010); a reference names
//! an earlier definition (4009) with no frame (4013); the referencing window adds
//! no PARTITION BY (4011) and no ORDER BY when the referenced one has one (4012).
//! Frames are checked as MariaDB checks them (4014, 4017..4021), before the
//! statement runs.

use super::call::agg_type;
use super::expr::AggCollector;
use super::{Binder, Clause, Scope};
use crate::expr::Expr;
use crate::plan::window::{Frame, FrameBound, FrameUnits, WinCall, WinFunc, WinSpec, WindowPlan};
use crate::plan::{AggCall, AggFunc};
use crate::ty::{Class, ExprType};
use basalt_common::{Collation, MySqlError, Value};
use sqlparser::ast;

type R<T> = Result<T, MySqlError>;

/// Window calls bind to `Column(WIN_BASE + i)` until [`finish`] places them.
pub const WIN_BASE: usize = 1 << 41;

/// The window calls of one SELECT and its named windows.
#[derive(Default)]
pub struct WinCollector {
    pub named: Vec<(String, ast::WindowSpec)>,
    pub specs: Vec<WinSpec>,
    pub calls: Vec<WinCall>,
    /// Binding a window call's arguments (`Some(true)`) or specification.
    inside: Option<bool>,
}

fn err(code: u16, msg: impl Into<String>) -> MySqlError {
    MySqlError::new(code, "HY000", msg)
}

fn frame_not_allowed(name: &str) -> MySqlError {
    err(4017, format!("Window frame is not allowed with '{name}'"))
}

fn bad_bounds() -> MySqlError {
    err(
        4014,
        "Unacceptable combination of window frame bound specifications",
    )
}

/// Checks the WINDOW clause and keeps its definitions for `OVER w`.
pub fn named_windows(defs: &[ast::NamedWindowDefinition], aggs: &mut AggCollector) -> R<()> {
    for ast::NamedWindowDefinition(name, expr) in defs {
        let spec = match expr {
            ast::NamedWindowExpr::WindowSpec(s) => s,
            ast::NamedWindowExpr::NamedWindow(n) => {
                return Err(MySqlError::parse_error(&n.value, 1))
            }
        };
        let seen = &aggs.win.named;
        if seen
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(&name.value))
        {
            return Err(err(
                4010,
                format!(
                    "Multiple window specifications with the same name '{}'",
                    name.value
                ),
            ));
        }
        let merged = merge(spec, seen)?;
        aggs.win.named.push((name.value.clone(), merged));
    }
    Ok(())
}

/// `spec` with the named window it references folded in.
fn merge(spec: &ast::WindowSpec, named: &[(String, ast::WindowSpec)]) -> R<ast::WindowSpec> {
    let Some(r) = &spec.window_name else {
        return Ok(spec.clone());
    };
    let base = lookup(&r.value, named)?;
    if base.window_frame.is_some() {
        return Err(err(
            4013,
            format!(
                "Referenced window specification '{}' cannot contain window frame",
                r.value
            ),
        ));
    }
    if !spec.partition_by.is_empty() {
        return Err(err(
            4011,
            format!(
                "Window specification referencing another one '{}' cannot contain partition list",
                r.value
            ),
        ));
    }
    if !spec.order_by.is_empty() && !base.order_by.is_empty() {
        return Err(err(
            4012,
            format!(
                "Referenced window specification '{}' already contains order list",
                r.value
            ),
        ));
    }
    Ok(ast::WindowSpec {
        window_name: None,
        partition_by: base.partition_by.clone(),
        order_by: if spec.order_by.is_empty() {
            base.order_by.clone()
        } else {
            spec.order_by.clone()
        },
        window_frame: spec.window_frame.clone(),
    })
}

fn lookup<'n>(name: &str, named: &'n [(String, ast::WindowSpec)]) -> R<&'n ast::WindowSpec> {
    named
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, s)| s)
        .ok_or_else(|| {
            err(
                4009,
                format!("Window specification with name '{name}' is not defined"),
            )
        })
}

/// Places the window calls: markers become columns `width + i` in `exprs`.
pub fn finish(win: WinCollector, width: usize, exprs: &mut [Expr]) -> Option<WindowPlan> {
    if win.calls.is_empty() {
        return None;
    }
    for e in exprs.iter_mut() {
        place(e, width);
    }
    Some(WindowPlan {
        width,
        specs: win.specs,
        calls: win.calls,
    })
}

fn place(e: &mut Expr, width: usize) {
    match e {
        Expr::Column(c) if *c >= WIN_BASE => *c = width + (*c - WIN_BASE),
        other => other.walk_children_mut(&mut |child| place(child, width)),
    }
}

/// Every expression of the window calls, for a rewrite (aggregation) or a walk.
pub fn exprs_mut(win: &mut WinCollector) -> impl Iterator<Item = &mut Expr> {
    let specs = win.specs.iter_mut().flat_map(|s| {
        s.partition
            .iter_mut()
            .map(|(e, _)| e)
            .chain(s.order.iter_mut().map(|(e, _, _)| e))
    });
    let calls = win.calls.iter_mut().flat_map(|c| {
        let agg = match &mut c.func {
            WinFunc::Agg(a) => a.arg.as_mut(),
            _ => None,
        };
        c.args.iter_mut().chain(agg)
    });
    specs.chain(calls)
}

/// Which functions take which arguments, frames and ORDER BY.
struct Shape {
    func: WinFunc,
    min: usize,
    max: usize,
    /// Ignores any frame and rejects one (4017).
    no_frame: bool,
    needs_order: bool,
}

fn shape(name: &str) -> Option<Shape> {
    let s = |func, min, max, no_frame, needs_order| Shape {
        func,
        min,
        max,
        no_frame,
        needs_order,
    };
    Some(match name {
        "row_number" => s(WinFunc::RowNumber, 0, 0, true, false),
        "rank" => s(WinFunc::Rank, 0, 0, true, true),
        "dense_rank" => s(WinFunc::DenseRank, 0, 0, true, true),
        "percent_rank" => s(WinFunc::PercentRank, 0, 0, true, true),
        "cume_dist" => s(WinFunc::CumeDist, 0, 0, true, true),
        "ntile" => s(WinFunc::Ntile, 1, 1, true, false),
        "lag" => s(WinFunc::Lag { lead: false }, 1, 2, false, true),
        "lead" => s(WinFunc::Lag { lead: true }, 1, 2, false, true),
        "first_value" => s(WinFunc::FirstValue, 1, 1, false, false),
        "last_value" => s(WinFunc::LastValue, 1, 1, false, false),
        "nth_value" => s(WinFunc::NthValue, 2, 2, false, false),
        _ => return None,
    })
}

impl Binder<'_> {
    /// Binds `f(...) OVER ...` to its marker.
    pub(super) fn window_call(
        &mut self,
        f: &ast::Function,
        name: &str,
        over: &ast::WindowType,
        scope: &Scope,
        aggs: Option<&mut AggCollector>,
    ) -> R<(Expr, ExprType)> {
        let in_list = matches!(self.clause, Clause::FieldList | Clause::Order);
        let aggs = match aggs {
            Some(a) if in_list && a.win.inside.is_none() => a,
            Some(a) if in_list && a.win.inside == Some(true) => return Err(in_group_func()),
            None if in_list => return Err(in_group_func()),
            _ => return Err(not_here()),
        };
        let spec = match over {
            ast::WindowType::NamedWindow(n) => lookup(&n.value, &aggs.win.named)?.clone(),
            ast::WindowType::WindowSpec(s) => merge(s, &aggs.win.named)?,
        };
        let (list, distinct) = match &f.args {
            ast::FunctionArguments::None => (&[][..], false),
            ast::FunctionArguments::List(l) => (
                &l.args[..],
                matches!(
                    l.duplicate_treatment,
                    Some(ast::DuplicateTreatment::Distinct)
                ),
            ),
            ast::FunctionArguments::Subquery(_) => {
                return Err(MySqlError::parse_error(&f.to_string(), 1))
            }
        };
        aggs.win.inside = Some(true);
        let r = self.window_func(name, list, distinct, scope, aggs);
        aggs.win.inside = None;
        let (func, args, mut ty, no_frame, needs_order) = match r {
            Err(Stop::At(at)) => return Err(self.call_syntax(f, at)),
            Err(Stop::Error(e)) => return Err(e),
            Ok(x) => x,
        };
        if ty.class == Class::Double && ty.decimals >= 31 {
            // A window's floating-point result is a DOUBLE of 23 characters
            // (FLOAT arguments too).
            ty.len = 23;
            ty.column_type = None;
        }
        aggs.win.inside = Some(false);
        let clause = self.clause;
        let r = self.window_spec(&spec, scope, aggs);
        self.clause = clause;
        aggs.win.inside = None;
        let (bound, key_types) = r?;
        if needs_order && bound.order.is_empty() {
            return Err(err(
                4018,
                format!("No order list in window specification for '{name}'"),
            ));
        }
        let frame = match &spec.window_frame {
            Some(_) if no_frame => return Err(frame_not_allowed(name)),
            Some(fr) => self.frame(fr, &bound, &key_types)?,
            None => Frame::default(),
        };
        let spec_ix = match aggs.win.specs.iter().position(|s| *s == bound) {
            Some(i) => i,
            None => {
                aggs.win.specs.push(bound);
                aggs.win.specs.len() - 1
            }
        };
        aggs.win.calls.push(WinCall {
            func,
            args,
            spec: spec_ix,
            frame,
        });
        Ok((Expr::Column(WIN_BASE + aggs.win.calls.len() - 1), ty))
    }

    #[allow(clippy::type_complexity)]
    fn window_func(
        &mut self,
        name: &str,
        list: &[ast::FunctionArg],
        distinct: bool,
        scope: &Scope,
        aggs: &mut AggCollector,
    ) -> Result<(WinFunc, Vec<Expr>, ExprType, bool, bool), Stop> {
        let star = matches!(
            list,
            [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard)]
        );
        let mut exprs = Vec::new();
        if !star {
            for a in list {
                match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => exprs.push(e),
                    _ => return Err(Stop::At(Near::TooMany(0))),
                }
            }
        }
        if let Some(agg) = super::call::agg_func(name) {
            if exprs.len() > 1 {
                return Err(Stop::At(Near::TooMany(1)));
            }
            if star && agg != AggFunc::Count {
                return Err(Stop::At(Near::TooMany(0)));
            }
            if exprs.is_empty() && !star {
                return Err(Stop::At(Near::Close));
            }
            let call = self.window_agg(agg, name, &exprs, star, distinct, scope, aggs)?;
            return Ok((WinFunc::Agg(call.0), Vec::new(), call.1, false, false));
        }
        if name == "group_concat" || name == "json_arrayagg" || name == "json_objectagg" {
            return Err(Stop::Error(MySqlError::not_supported(&format!(
                "{}() aggregate as window function",
                name.to_ascii_uppercase()
            ))));
        }
        let Some(sh) = shape(name) else {
            return Err(Stop::At(Near::Over));
        };
        if star || exprs.len() > sh.max {
            return Err(Stop::At(Near::TooMany(sh.max)));
        }
        if exprs.len() < sh.min {
            return Err(Stop::At(Near::Close));
        }
        let mut args = Vec::new();
        let mut types = Vec::new();
        for e in &exprs {
            let (b, t) = self.expr(e, scope, Some(aggs))?;
            args.push(b);
            types.push(t);
        }
        let ty = match sh.func {
            WinFunc::RowNumber | WinFunc::Rank | WinFunc::DenseRank | WinFunc::Ntile => {
                ExprType::bigint()
            }
            WinFunc::PercentRank | WinFunc::CumeDist => {
                // MariaDB: DOUBLE shown with 10 decimals.
                let mut t = ExprType::double();
                t.len = 17;
                t.decimals = 10;
                t.nullable = true;
                t
            }
            _ => agg_type(AggFunc::Min, &types[0]),
        };
        Ok((sh.func, args, ty, sh.no_frame, sh.needs_order))
    }

    #[allow(clippy::too_many_arguments)]
    fn window_agg(
        &mut self,
        func: AggFunc,
        name: &str,
        exprs: &[&ast::Expr],
        star: bool,
        distinct: bool,
        scope: &Scope,
        aggs: &mut AggCollector,
    ) -> R<(AggCall, ExprType)> {
        if func == AggFunc::GroupConcat {
            return Err(MySqlError::not_supported(
                "GROUP_CONCAT() aggregate as window function",
            ));
        }
        if distinct {
            return Err(MySqlError::not_supported(&format!(
                "{}(DISTINCT) aggregate as window function",
                name.to_ascii_uppercase()
            )));
        }
        let (func, arg, targ) = match (func, exprs) {
            (AggFunc::Count, []) if star => (AggFunc::CountStar, None, ExprType::null()),
            (_, [one]) if !star => {
                let (e, t) = self.expr(one, scope, Some(aggs))?;
                (func, Some(e), t)
            }
            _ => return Err(MySqlError::wrong_paramcount_to_native_fct(name)),
        };
        let coll = if targ.class == Class::String {
            targ.collation
        } else {
            Collation::Binary
        };
        let ty = agg_type(func, &targ);
        let call = AggCall {
            func,
            arg,
            distinct: false,
            coll,
            separator: Vec::new(),
            order: Vec::new(),
        };
        Ok((call, ty))
    }

    fn window_spec(
        &mut self,
        spec: &ast::WindowSpec,
        scope: &Scope,
        aggs: &mut AggCollector,
    ) -> R<(WinSpec, Vec<ExprType>)> {
        let mut types = Vec::new();
        let mut out = WinSpec {
            partition: Vec::new(),
            order: Vec::new(),
        };
        self.clause = Clause::Group;
        for e in &spec.partition_by {
            let (b, t) = self.expr(e, scope, Some(aggs))?;
            out.partition.push((b, t.key_collation()));
        }
        self.clause = Clause::Order;
        for o in &spec.order_by {
            let (b, t) = self.expr(&o.expr, scope, Some(aggs))?;
            let desc = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
            out.order.push((b, desc, t.key_collation()));
            types.push(t);
        }
        Ok((out, types))
    }

    /// The frame clause, checked as MariaDB checks it.
    fn frame(&mut self, fr: &ast::WindowFrame, spec: &WinSpec, key_types: &[ExprType]) -> R<Frame> {
        let units = match fr.units {
            ast::WindowFrameUnits::Rows => FrameUnits::Rows,
            ast::WindowFrameUnits::Range => FrameUnits::Range,
            ast::WindowFrameUnits::Groups => return Err(MySqlError::parse_error("groups", 1)),
        };
        let start = self.bound(&fr.start_bound, units, spec, key_types)?;
        let end = match &fr.end_bound {
            Some(b) => self.bound(b, units, spec, key_types)?,
            None => FrameBound::CurrentRow,
        };
        use FrameBound as B;
        let bad = matches!(start, B::UnboundedFollowing)
            || matches!(end, B::UnboundedPreceding)
            || (start == B::CurrentRow && matches!(end, B::Preceding(_)))
            || (end == B::CurrentRow && matches!(start, B::Following(_)));
        if bad {
            return Err(bad_bounds());
        }
        Ok(Frame { units, start, end })
    }

    fn bound(
        &mut self,
        b: &ast::WindowFrameBound,
        units: FrameUnits,
        spec: &WinSpec,
        key_types: &[ExprType],
    ) -> R<FrameBound> {
        let (offset, preceding) = match b {
            ast::WindowFrameBound::CurrentRow => return Ok(FrameBound::CurrentRow),
            ast::WindowFrameBound::Preceding(None) => return Ok(FrameBound::UnboundedPreceding),
            ast::WindowFrameBound::Following(None) => return Ok(FrameBound::UnboundedFollowing),
            ast::WindowFrameBound::Preceding(Some(e)) => (e, true),
            ast::WindowFrameBound::Following(Some(e)) => (e, false),
        };
        let v = self.frame_offset(offset)?;
        let v = match units {
            FrameUnits::Rows => match v {
                Value::Int(i) if i >= 0 => v,
                Value::UInt(_) => v,
                _ => return Err(err(4020, "Integer is required for ROWS-type frame")),
            },
            FrameUnits::Range => {
                if spec.order.len() != 1 {
                    return Err(err(
                        4019,
                        "RANGE-type frame requires ORDER BY clause with single sort key",
                    ));
                }
                let numeric_key = key_types.first().is_some_and(|t| {
                    matches!(t.class, Class::Int | Class::Decimal | Class::Double)
                });
                let numeric = matches!(
                    v,
                    Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_)
                );
                if !numeric_key || !numeric {
                    return Err(err(
                        4021,
                        "Numeric datatype is required for RANGE-type frame",
                    ));
                }
                v
            }
        };
        Ok(if preceding {
            FrameBound::Preceding(v)
        } else {
            FrameBound::Following(v)
        })
    }

    /// A frame offset: a literal (a stripped one makes the plan single-use).
    fn frame_offset(&mut self, e: &ast::Expr) -> R<Value> {
        if !matches!(e, ast::Expr::Value(_)) {
            return Err(MySqlError::parse_error(&e.to_string(), 1));
        }
        let (b, _) = self.expr(e, &Scope::default(), None)?;
        match b {
            Expr::Const(v) => Ok(v),
            Expr::Param(i) => match self.params.stripped.and_then(|p| p.get(i)) {
                Some(v) => {
                    self.reusable = false;
                    Ok(v.clone())
                }
                None => Err(MySqlError::parse_error(&e.to_string(), 1)),
            },
            _ => Err(MySqlError::parse_error(&e.to_string(), 1)),
        }
    }
}

/// Why a window call did not bind: an error, or where MariaDB's grammar stops.
enum Stop {
    Error(MySqlError),
    At(Near),
}

impl From<MySqlError> for Stop {
    fn from(e: MySqlError) -> Self {
        Stop::Error(e)
    }
}

/// Where in `f(args) OVER` a syntax error is reported.
#[derive(Clone, Copy)]
enum Near {
    /// At OVER (a function that is no window function).
    Over,
    /// At the argument past the first `n` (after `(` and any spaces, or just
    /// after the n-th comma).
    TooMany(usize),
    /// At the closing parenthesis (an argument missing).
    Close,
}

impl Binder<'_> {
    /// 1064 quoting the statement from where MariaDB's grammar stops in `f`.
    fn call_syntax(&self, f: &ast::Function, at: Near) -> MySqlError {
        let fallback = || MySqlError::parse_error(&f.to_string(), 1);
        let Some(ast::ObjectNamePart::Identifier(id)) = f.name.0.last() else {
            return fallback();
        };
        let raw = self.raw;
        let loc = id.span.start;
        let Some(start) = crate::front::parse::offset_of(raw, loc.line, loc.column) else {
            return fallback();
        };
        match call_stop(raw, start, at) {
            Some(pos) => crate::front::parse::near_offset(raw, pos),
            None => fallback(),
        }
    }
}

/// The byte offset in `raw` of `at` for the call whose name starts at `start`.
fn call_stop(raw: &str, start: usize, at: Near) -> Option<usize> {
    let open = start + raw.get(start..)?.find('(')?;
    let skip_ws = |p: usize| {
        p + raw[p..]
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(raw.len() - p)
    };
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut commas = Vec::new();
    for (i, c) in raw[open + 1..].char_indices() {
        let pos = open + 1 + i;
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') if depth > 0 => depth -= 1,
            (None, ')') => {
                return Some(match at {
                    Near::Over => skip_ws(pos + 1),
                    Near::Close => pos,
                    Near::TooMany(0) => skip_ws(open + 1),
                    Near::TooMany(n) => *commas.get(n - 1)? + 1,
                })
            }
            (None, ',') if depth == 0 => commas.push(pos),
            _ => {}
        }
    }
    None
}

fn not_here() -> MySqlError {
    err(
        4015,
        "Window function is allowed only in SELECT list and ORDER BY clause",
    )
}

fn in_group_func() -> MySqlError {
    err(
        4074,
        "Window functions can not be used as arguments to group functions.",
    )
}

/// The expressions whose columns the scan must read: `project`, and those of the
/// window calls when there are any.
pub fn scanned<'p>(project: &'p [Expr], win: &mut WinCollector) -> std::borrow::Cow<'p, [Expr]> {
    if win.calls.is_empty() {
        return std::borrow::Cow::Borrowed(project);
    }
    let mut all = project.to_vec();
    all.extend(exprs_mut(win).map(|e| e.clone()));
    std::borrow::Cow::Owned(all)
}

/// GROUP BY and HAVING may not name a window call through a select alias (4015).
pub fn reject_in<'e>(exprs: impl Iterator<Item = &'e Expr>) -> R<()> {
    for e in exprs {
        let mut found = false;
        e.walk(&mut |x| found |= matches!(x, Expr::Column(c) if *c >= WIN_BASE));
        if found {
            return Err(not_here());
        }
    }
    Ok(())
}

/// In a SELECT with window functions MariaDB reads the select list back from a
/// temporary table: an item that reads a column of a stored table (not of a
/// derived table) is reported nullable.
pub fn temp_table_nullable(e: &Expr, tables: &[crate::plan::TableRef], ty: &mut ExprType) {
    let mut reads = false;
    e.walk(&mut |x| {
        if let Expr::Column(c) = x {
            reads |= tables
                .iter()
                .any(|t| !t.db.is_empty() && *c >= t.offset && *c < t.offset + t.width());
        }
    });
    ty.nullable |= reads;
}
