//! The generated queries as a tree, and their SQL text.
//!
//! Every table reference has an alias unique in the whole query, so a column is
//! always written qualified and a subquery's references to outer columns need no
//! scoping rules. Rendering adds what keeps a query's result deterministic: a
//! string output of a select whose rows are grouped, deduplicated, combined by a
//! set operation or ordered is written `UPPER(RTRIM(x))`, since which of the
//! equal strings 'a', 'A', 'a ' (utf8mb4_general_ci, PAD SPACE) such a row shows
//! is left to the server.

use std::fmt::Write;

/// The type family of an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Int,
    Dec,
    Str,
    Date,
    /// A condition (an integer 0 / 1 / NULL in MariaDB).
    Bool,
}

impl Ty {
    pub fn numeric(self) -> bool {
        matches!(self, Ty::Int | Ty::Dec | Ty::Bool)
    }

    /// The same type, or integers and conditions.
    pub fn same_family(self, other: Ty) -> bool {
        let int = |t: Ty| matches!(t, Ty::Int | Ty::Bool);
        self == other || (int(self) && int(other))
    }

    /// Whether values of `self` and `other` compare without conversions.
    pub fn compatible(self, other: Ty) -> bool {
        self == other || (self.numeric() && other.numeric())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggFn {
    Count,
    Sum,
    Avg,
    Min,
    Max,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinFn {
    RowNumber,
    Rank,
    DenseRank,
    Sum,
    Count,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    pub f: WinFn,
    pub arg: Option<Expr>,
    pub partition: Vec<Expr>,
    pub order: Vec<(Expr, bool)>,
    /// The unique key ending the order of ROW_NUMBER (ties broken by it).
    pub tiebreak: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Col {
        qual: String,
        name: String,
        ty: Ty,
    },
    Lit {
        text: String,
        ty: Ty,
    },
    /// `+ - * / DIV MOD` (a divisor is a non-zero literal).
    Arith(&'static str, Box<Expr>, Box<Expr>),
    /// `= <> < <= > >= <=>`
    Cmp(&'static str, Box<Expr>, Box<Expr>),
    /// AND (true) / OR (false).
    Logic(bool, Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    IsNull(Box<Expr>, bool),
    InList(Box<Expr>, Vec<Expr>, bool),
    Between(Box<Expr>, Box<Expr>, Box<Expr>, bool),
    Like(Box<Expr>, String, bool),
    Case(Vec<(Expr, Expr)>, Option<Box<Expr>>),
    /// COALESCE / IFNULL / ABS.
    Func(&'static str, Vec<Expr>),
    Agg(AggFn, bool, Option<Box<Expr>>),
    Win(Box<Window>),
    Scalar(Box<Query>),
    InSub(Box<Expr>, Box<Query>, bool),
    Exists(Box<Query>, bool),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub expr: Expr,
    pub alias: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TableRef {
    Base { table: String, alias: String },
    Derived { q: Box<Query>, alias: String },
}

impl TableRef {
    pub fn alias(&self) -> &str {
        match self {
            TableRef::Base { alias, .. } | TableRef::Derived { alias, .. } => alias,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Join {
    pub left: bool,
    pub table: TableRef,
    pub on: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Select {
    pub distinct: bool,
    pub items: Vec<Item>,
    pub from: TableRef,
    pub joins: Vec<Join>,
    /// WHERE, as conjuncts.
    pub conds: Vec<Expr>,
    pub group_by: Vec<Expr>,
    /// HAVING, as conjuncts.
    pub having: Vec<Expr>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetOp {
    Union,
    Intersect,
    Except,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Query {
    Select(Box<Select>),
    Set {
        op: SetOp,
        all: bool,
        l: Box<Query>,
        r: Box<Query>,
    },
}

/// ORDER BY every output column (directions from the bits of `desc`), so the
/// order is total, with an optional LIMIT.
#[derive(Clone, Debug, PartialEq)]
pub struct Order {
    pub desc: u64,
    pub limit: Option<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Top {
    pub q: Query,
    pub order: Option<Order>,
}

impl Expr {
    pub fn lit(text: impl Into<String>, ty: Ty) -> Expr {
        Expr::Lit {
            text: text.into(),
            ty,
        }
    }

    pub fn ty(&self) -> Ty {
        match self {
            Expr::Col { ty, .. } | Expr::Lit { ty, .. } => *ty,
            Expr::Arith(op, a, b) => arith_ty(op, a.ty(), b.ty()),
            Expr::Case(whens, otherwise) => {
                let branches = whens.iter().map(|(_, t)| t).chain(otherwise.as_deref());
                branch_ty(branches)
            }
            Expr::Func("COALESCE" | "IFNULL", args) => branch_ty(args.iter()),
            Expr::Func(_, args) => args[0].ty(),
            Expr::Agg(f, _, arg) => match (f, arg) {
                (AggFn::Count, _) => Ty::Int,
                (AggFn::Sum | AggFn::Avg, _) => Ty::Dec,
                (_, Some(a)) => a.ty(),
                (_, None) => Ty::Int,
            },
            Expr::Win(w) => match w.f {
                WinFn::Sum => Ty::Dec,
                _ => Ty::Int,
            },
            Expr::Scalar(q) => q.out_types()[0],
            _ => Ty::Bool,
        }
    }

    /// Whether an aggregate occurs outside any subquery.
    pub fn has_agg(&self) -> bool {
        let mut found = false;
        self.visit_shallow(&mut |e| found |= matches!(e, Expr::Agg(..)));
        found
    }

    /// Calls `f` on `self` and every subexpression outside subqueries, aggregates
    /// and windows included.
    pub fn visit_shallow(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        for c in self.children() {
            c.visit_shallow(f);
        }
    }

    /// The direct subexpressions (not those inside subqueries).
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Col { .. } | Expr::Lit { .. } | Expr::Scalar(_) | Expr::Exists(..) => vec![],
            Expr::Arith(_, a, b) | Expr::Cmp(_, a, b) | Expr::Logic(_, a, b) => vec![a, b],
            Expr::Not(a) | Expr::IsNull(a, _) | Expr::Like(a, _, _) | Expr::InSub(a, _, _) => {
                vec![a]
            }
            Expr::InList(a, list, _) => std::iter::once(&**a).chain(list).collect(),
            Expr::Between(a, b, c, _) => vec![a, b, c],
            Expr::Case(whens, els) => whens
                .iter()
                .flat_map(|(w, t)| [w, t])
                .chain(els.as_deref())
                .collect(),
            Expr::Func(_, args) => args.iter().collect(),
            Expr::Agg(_, _, arg) => arg.iter().map(|a| &**a).collect(),
            Expr::Win(w) => w
                .arg
                .iter()
                .chain(&w.partition)
                .chain(w.order.iter().map(|(e, _)| e))
                .chain(&w.tiebreak)
                .collect(),
        }
    }
}

impl Expr {
    /// The direct subexpressions, mutable, in the order of [`Expr::children`].
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Col { .. } | Expr::Lit { .. } | Expr::Scalar(_) | Expr::Exists(..) => vec![],
            Expr::Arith(_, a, b) | Expr::Cmp(_, a, b) | Expr::Logic(_, a, b) => vec![a, b],
            Expr::Not(a) | Expr::IsNull(a, _) | Expr::Like(a, _, _) | Expr::InSub(a, _, _) => {
                vec![a]
            }
            Expr::InList(a, list, _) => std::iter::once(&mut **a).chain(list).collect(),
            Expr::Between(a, b, c, _) => vec![a, b, c],
            Expr::Case(whens, els) => whens
                .iter_mut()
                .flat_map(|(w, t)| [w, t])
                .chain(els.as_deref_mut())
                .collect(),
            Expr::Func(_, args) => args.iter_mut().collect(),
            Expr::Agg(_, _, arg) => arg.iter_mut().map(|a| &mut **a).collect(),
            Expr::Win(w) => {
                let w = &mut **w;
                w.arg
                    .iter_mut()
                    .chain(&mut w.partition)
                    .chain(w.order.iter_mut().map(|(e, _)| e))
                    .chain(&mut w.tiebreak)
                    .collect()
            }
        }
    }

    /// The subquery of a scalar subquery, IN or EXISTS.
    pub fn subquery(&self) -> Option<&Query> {
        match self {
            Expr::Scalar(q) | Expr::InSub(_, q, _) | Expr::Exists(q, _) => Some(q),
            _ => None,
        }
    }

    pub fn subquery_mut(&mut self) -> Option<&mut Query> {
        match self {
            Expr::Scalar(q) | Expr::InSub(_, q, _) | Expr::Exists(q, _) => Some(q),
            _ => None,
        }
    }
}

/// The type of branches that must agree: DECIMAL when integers meet DECIMALs
/// (a DIV asked for as a DECIMAL is an integer), else the first branch's.
fn branch_ty<'a>(mut branches: impl Iterator<Item = &'a Expr>) -> Ty {
    let first = branches.next().map_or(Ty::Int, Expr::ty);
    branches.fold(first, |t, b| match (t, b.ty()) {
        (Ty::Int, Ty::Dec) => Ty::Dec,
        _ => t,
    })
}

fn arith_ty(op: &str, a: Ty, b: Ty) -> Ty {
    match op {
        "/" => Ty::Dec,
        "DIV" => Ty::Int,
        _ if a == Ty::Dec || b == Ty::Dec => Ty::Dec,
        _ => Ty::Int,
    }
}

impl Select {
    /// Grouped: GROUP BY, or an aggregate in the select list or HAVING.
    pub fn grouped(&self) -> bool {
        !self.group_by.is_empty()
            || !self.having.is_empty()
            || self.items.iter().any(|i| i.expr.has_agg())
    }

    pub fn has_window(&self) -> bool {
        let mut found = false;
        for i in &self.items {
            i.expr
                .visit_shallow(&mut |e| found |= matches!(e, Expr::Win(_)));
        }
        found
    }
}

impl Query {
    pub fn out_types(&self) -> Vec<Ty> {
        match self {
            Query::Select(s) => s.items.iter().map(|i| i.expr.ty()).collect(),
            // A DECIMAL and an integer make a DECIMAL.
            Query::Set { l, r, .. } => l
                .out_types()
                .into_iter()
                .zip(r.out_types())
                .map(|(a, b)| if b == Ty::Dec { b } else { a })
                .collect(),
        }
    }

    pub fn width(&self) -> usize {
        match self {
            Query::Select(s) => s.items.len(),
            Query::Set { l, .. } => l.width(),
        }
    }

    pub fn has_set_op(&self) -> bool {
        matches!(self, Query::Set { .. })
    }
}

/// SQL text.
impl Top {
    pub fn sql(&self) -> String {
        let mut out = String::new();
        render_query(&mut out, &self.q, self.order.is_some());
        if let Some(o) = &self.order {
            out.push_str(" ORDER BY ");
            for i in 0..self.q.width() {
                let dir = if (o.desc >> (i % 64)) & 1 == 1 {
                    " DESC"
                } else {
                    ""
                };
                let sep = if i > 0 { ", " } else { "" };
                let _ = write!(out, "{sep}{}{dir}", i + 1);
            }
            if let Some(n) = o.limit {
                let _ = write!(out, " LIMIT {n}");
            }
        }
        out
    }
}

/// `canon`: string outputs are written in their canonical form.
fn render_query(out: &mut String, q: &Query, canon: bool) {
    match q {
        Query::Select(s) => render_select(out, s, canon),
        Query::Set { op, all, l, r } => {
            render_branch(out, l);
            let op = match op {
                SetOp::Union => "UNION",
                SetOp::Intersect => "INTERSECT",
                SetOp::Except => "EXCEPT",
            };
            let _ = write!(out, " {op} {}", if *all { "ALL " } else { "" });
            render_branch(out, r);
        }
    }
}

fn render_branch(out: &mut String, q: &Query) {
    if q.has_set_op() {
        out.push('(');
        render_query(out, q, true);
        out.push(')');
    } else {
        render_query(out, q, true);
    }
}

fn render_select(out: &mut String, s: &Select, canon: bool) {
    let canon = canon || s.distinct || s.grouped();
    out.push_str(if s.distinct {
        "SELECT DISTINCT "
    } else {
        "SELECT "
    });
    for (i, item) in s.items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if canon && item.expr.ty() == Ty::Str {
            out.push_str("UPPER(RTRIM(");
            render_expr(out, &item.expr);
            out.push_str("))");
        } else {
            render_expr(out, &item.expr);
        }
        if let Some(a) = &item.alias {
            let _ = write!(out, " AS {a}");
        }
    }
    out.push_str(" FROM ");
    render_table(out, &s.from);
    for j in &s.joins {
        out.push_str(if j.left { " LEFT JOIN " } else { " JOIN " });
        render_table(out, &j.table);
        out.push_str(" ON ");
        render_expr(out, &j.on);
    }
    render_list(out, " WHERE ", " AND ", &s.conds);
    render_list(out, " GROUP BY ", ", ", &s.group_by);
    render_list(out, " HAVING ", " AND ", &s.having);
}

fn render_list(out: &mut String, head: &str, sep: &str, list: &[Expr]) {
    for (i, e) in list.iter().enumerate() {
        out.push_str(if i == 0 { head } else { sep });
        render_expr(out, e);
    }
}

fn render_table(out: &mut String, t: &TableRef) {
    match t {
        TableRef::Base { table, alias } => {
            let _ = write!(out, "{table} AS {alias}");
        }
        TableRef::Derived { q, alias } => {
            out.push('(');
            render_query(out, q, false);
            let _ = write!(out, ") AS {alias}");
        }
    }
}

fn render_sub(out: &mut String, q: &Query) {
    out.push('(');
    render_query(out, q, false);
    out.push(')');
}

pub fn render_expr(out: &mut String, e: &Expr) {
    match e {
        Expr::Col { qual, name, .. } => {
            let _ = write!(out, "{qual}.{name}");
        }
        Expr::Lit { text, .. } => out.push_str(text),
        Expr::Arith(op, a, b) | Expr::Cmp(op, a, b) => render_binary(out, op, a, b),
        Expr::Logic(and, a, b) => render_binary(out, if *and { "AND" } else { "OR" }, a, b),
        Expr::Not(a) => {
            out.push_str("NOT (");
            render_expr(out, a);
            out.push(')');
        }
        Expr::IsNull(a, neg) => {
            render_operand(out, a);
            out.push_str(if *neg { " IS NOT NULL" } else { " IS NULL" });
        }
        Expr::InList(a, list, neg) => {
            render_operand(out, a);
            out.push_str(if *neg { " NOT IN (" } else { " IN (" });
            render_comma(out, list);
            out.push(')');
        }
        Expr::Between(a, lo, hi, neg) => {
            render_operand(out, a);
            out.push_str(if *neg { " NOT BETWEEN " } else { " BETWEEN " });
            render_operand(out, lo);
            out.push_str(" AND ");
            render_operand(out, hi);
        }
        Expr::Like(a, pat, neg) => {
            render_operand(out, a);
            let _ = write!(out, "{} '{pat}'", if *neg { " NOT LIKE" } else { " LIKE" });
        }
        _ => render_compound(out, e),
    }
}

fn render_compound(out: &mut String, e: &Expr) {
    match e {
        Expr::Case(whens, els) => {
            out.push_str("CASE");
            for (w, t) in whens {
                out.push_str(" WHEN ");
                render_expr(out, w);
                out.push_str(" THEN ");
                render_expr(out, t);
            }
            if let Some(e) = els {
                out.push_str(" ELSE ");
                render_expr(out, e);
            }
            out.push_str(" END");
        }
        Expr::Func(name, args) => {
            let _ = write!(out, "{name}(");
            render_comma(out, args);
            out.push(')');
        }
        Expr::Agg(f, distinct, arg) => render_agg(out, *f, *distinct, arg.as_deref()),
        Expr::Win(w) => render_window(out, w),
        Expr::Scalar(q) => render_sub(out, q),
        Expr::InSub(a, q, neg) => {
            render_operand(out, a);
            out.push_str(if *neg { " NOT IN " } else { " IN " });
            render_sub(out, q);
        }
        Expr::Exists(q, neg) => {
            out.push_str(if *neg { "NOT EXISTS " } else { "EXISTS " });
            render_sub(out, q);
        }
        _ => unreachable!("simple expressions are rendered by render_expr"),
    }
}

fn render_binary(out: &mut String, op: &str, a: &Expr, b: &Expr) {
    render_operand(out, a);
    let _ = write!(out, " {op} ");
    render_operand(out, b);
}

/// An operand: parenthesised unless it is a column, literal or call.
fn render_operand(out: &mut String, e: &Expr) {
    let atomic = matches!(
        e,
        Expr::Col { .. } | Expr::Func(..) | Expr::Agg(..) | Expr::Scalar(_) | Expr::Win(_)
    ) || matches!(e, Expr::Lit { text, .. } if !text.starts_with('-'));
    if atomic {
        render_expr(out, e);
    } else {
        out.push('(');
        render_expr(out, e);
        out.push(')');
    }
}

fn render_comma(out: &mut String, list: &[Expr]) {
    for (i, e) in list.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        render_expr(out, e);
    }
}

fn render_agg(out: &mut String, f: AggFn, distinct: bool, arg: Option<&Expr>) {
    let name = match f {
        AggFn::Count => "COUNT",
        AggFn::Sum => "SUM",
        AggFn::Avg => "AVG",
        AggFn::Min => "MIN",
        AggFn::Max => "MAX",
    };
    let _ = write!(out, "{name}({}", if distinct { "DISTINCT " } else { "" });
    match arg {
        Some(a) => render_expr(out, a),
        None => out.push('*'),
    }
    out.push(')');
}

fn render_window(out: &mut String, w: &Window) {
    let name = match w.f {
        WinFn::RowNumber => "ROW_NUMBER(",
        WinFn::Rank => "RANK(",
        WinFn::DenseRank => "DENSE_RANK(",
        WinFn::Sum => "SUM(",
        WinFn::Count => "COUNT(",
    };
    out.push_str(name);
    match (&w.arg, w.f) {
        (Some(a), _) => render_expr(out, a),
        (None, WinFn::Count) => out.push('*'),
        _ => {}
    }
    out.push_str(") OVER (");
    if !w.partition.is_empty() {
        out.push_str("PARTITION BY ");
        render_comma(out, &w.partition);
    }
    let order: Vec<(&Expr, bool)> = w
        .order
        .iter()
        .map(|(e, d)| (e, *d))
        .chain(w.tiebreak.iter().map(|e| (e, false)))
        .collect();
    for (i, (e, desc)) in order.iter().enumerate() {
        let head = if i > 0 {
            ", "
        } else if w.partition.is_empty() {
            "ORDER BY "
        } else {
            " ORDER BY "
        };
        out.push_str(head);
        render_expr(out, e);
        if *desc {
            out.push_str(" DESC");
        }
    }
    out.push(')');
}
