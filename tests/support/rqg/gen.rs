//! Random queries over a [`Schema`]: selects with joins, WHERE, GROUP BY / HAVING,
//! DISTINCT, window functions, derived tables, scalar / IN / EXISTS subqueries
//! (correlated or not) and set operations, built so that their result does not
//! depend on choices the SQL standard leaves to the server:
//!
//! - a grouped select shows only its GROUP BY expressions and aggregates (and
//!   expressions over them), never a column of an arbitrary row of the group;
//! - a scalar subquery is one aggregate without GROUP BY (exactly one row);
//! - ROW_NUMBER orders by the table's primary key last, and window functions
//!   appear only over one base table with a primary key (no join repeats a key);
//! - ORDER BY names every output column, and LIMIT comes only with it;
//! - set operations appear at the top and in IN / EXISTS subqueries, not in
//!   derived tables (README: their integer columns are BIGINT in Basalt where
//!   MariaDB says INT; the test compares them without integer types).

use super::ast::*;
use super::items::has_column;
use super::schema::{pool, Schema};
use super::{avoidable, avoided, Avoid, Rng};

/// A column in scope.
#[derive(Clone, Debug)]
pub struct Col {
    pub qual: String,
    pub name: String,
    pub ty: Ty,
    pub pk: bool,
}

impl Col {
    fn expr(&self) -> Expr {
        Expr::Col {
            qual: self.qual.clone(),
            name: self.name.clone(),
            ty: self.ty,
        }
    }
}

/// `UPPER(RTRIM(e))`: one string for all the values equal to `e`'s under
/// utf8mb4_general_ci (the data is ASCII), so MIN / MAX over it is deterministic.
pub fn canonical(e: Expr) -> Expr {
    Expr::Func("UPPER", vec![Expr::Func("RTRIM", vec![e])])
}

/// Whether `e` is in the form [`canonical`] gives.
pub fn is_canonical(e: &Expr) -> bool {
    matches!(e, Expr::Func("UPPER", a) if matches!(&a[0], Expr::Func("RTRIM", _)))
}

static CMP_OPS: [&str; 8] = ["=", "=", "<>", "<", "<=", ">", ">=", "<=>"];

pub(super) const MAX_DEPTH: usize = 2;
pub(super) const FAMILIES: &[Ty] = &[Ty::Int, Ty::Int, Ty::Dec, Ty::Str, Ty::Date];

pub struct Gen<'a> {
    pub rng: Rng,
    pub(super) schema: &'a Schema,
    pub(super) avoid: &'a Avoid,
    aliases: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Plain,
    Distinct,
    Grouped,
    Window,
}

impl<'a> Gen<'a> {
    pub fn new(rng: Rng, schema: &'a Schema, avoid: &'a Avoid) -> Gen<'a> {
        Gen {
            rng,
            schema,
            avoid,
            aliases: 0,
        }
    }

    pub fn top(&mut self) -> Top {
        self.aliases = 0;
        for _ in 0..500 {
            let top = self.draw();
            if !avoided::top(&top, self.avoid) {
                return top;
            }
        }
        panic!("no query without the avoided constructs in 500 draws");
    }

    fn draw(&mut self) -> Top {
        self.aliases = 0;
        let q = self.query(0, None, &[], true);
        let order = self.rng.chance(1, 3).then(|| Order {
            desc: self.rng.next_u64(),
            limit: self.rng.chance(1, 2).then(|| self.rng.below(6) as u32),
        });
        Top { q, order }
    }

    fn alias(&mut self, prefix: &str) -> String {
        self.aliases += 1;
        format!("{prefix}_{}", self.aliases)
    }

    /// A query; `want` fixes its output types, `outer` is what it may correlate to.
    fn query(&mut self, depth: usize, want: Option<&[Ty]>, outer: &[Col], sets: bool) -> Query {
        if sets && depth < MAX_DEPTH && self.rng.chance(1, 5) {
            let l = self.query(depth + 1, want, outer, true);
            let types = l.out_types();
            let nested = self.rng.chance(1, 3);
            let r = self.query(depth + 1, Some(&types), outer, nested);
            let op = *self
                .rng
                .pick(&[SetOp::Union, SetOp::Union, SetOp::Intersect, SetOp::Except]);
            return Query::Set {
                op,
                all: self.rng.chance(1, 2),
                l: Box::new(l),
                r: Box::new(r),
            };
        }
        Query::Select(Box::new(self.select(depth, want, outer)))
    }

    fn kind(&mut self, want: Option<&[Ty]>) -> Kind {
        let window_ok = want.is_none() && self.schema.tables.iter().any(|t| t.pk.is_some());
        match self.rng.below(20) {
            0..=9 => Kind::Plain,
            10..=11 => Kind::Distinct,
            12..=16 => Kind::Grouped,
            _ if window_ok && !self.avoid.has(avoidable::WINDOW) => Kind::Window,
            _ => Kind::Plain,
        }
    }

    fn select(&mut self, depth: usize, want: Option<&[Ty]>, outer: &[Col]) -> Select {
        let kind = self.kind(want);
        let (from, joins, local) = self.tables_clause(depth, outer, kind == Kind::Window);
        let visible: Vec<Col> = local.iter().chain(outer).cloned().collect();
        let conds = (0..self.rng.below(3))
            .map(|_| self.cond(&visible, depth, 0))
            .collect();
        let mut s = Select {
            distinct: kind == Kind::Distinct,
            items: Vec::new(),
            from,
            joins,
            conds,
            group_by: Vec::new(),
            having: Vec::new(),
        };
        let types: Vec<Ty> = match want {
            Some(w) => w.to_vec(),
            None => (0..1 + self.rng.below(3))
                .map(|_| *self.rng.pick(FAMILIES))
                .collect(),
        };
        match kind {
            Kind::Grouped => self.grouped_items(&mut s, &local, &types),
            Kind::Window => self.window_items(&mut s, &local),
            _ => {
                for ty in types {
                    let expr = self.expr(&visible, ty, depth, 0);
                    s.items.push(Item { expr, alias: None });
                }
            }
        }
        let named = depth > 0 || self.rng.chance(2, 3);
        for (i, item) in s.items.iter_mut().enumerate() {
            item.alias = named.then(|| format!("c{i}"));
        }
        s
    }

    /// FROM and its joins, with the columns they bring into scope.
    fn tables_clause(
        &mut self,
        depth: usize,
        outer: &[Col],
        window: bool,
    ) -> (TableRef, Vec<Join>, Vec<Col>) {
        if window {
            let keyed: Vec<usize> = (0..self.schema.tables.len())
                .filter(|&i| self.schema.tables[i].pk.is_some())
                .collect();
            let t = *self.rng.pick(&keyed);
            let (r, cols) = self.base(t);
            return (r, Vec::new(), cols);
        }
        let (from, mut scope) = self.table_ref(depth);
        let mut joins = Vec::new();
        for _ in 0..self.join_count(depth) {
            let (table, cols) = self.table_ref(depth);
            let on = self.join_on(&scope, &cols, outer, depth);
            scope.extend(cols);
            joins.push(Join {
                left: self.rng.chance(1, 2),
                table,
                on,
            });
        }
        (from, joins, scope)
    }

    fn join_count(&mut self, depth: usize) -> usize {
        match (depth, self.rng.below(10)) {
            (_, 0..=4) => 0,
            (0, 5..=7) | (1, 5..=6) => 1,
            (0, _) => 2,
            _ => 0,
        }
    }

    fn base(&mut self, t: usize) -> (TableRef, Vec<Col>) {
        let table = &self.schema.tables[t];
        let alias = self.alias(&table.name);
        let cols = table
            .cols
            .iter()
            .enumerate()
            .map(|(i, c)| Col {
                qual: alias.clone(),
                name: c.name.clone(),
                ty: c.ty,
                pk: table.pk == Some(i),
            })
            .collect();
        let name = table.name.clone();
        (TableRef::Base { table: name, alias }, cols)
    }

    fn table_ref(&mut self, depth: usize) -> (TableRef, Vec<Col>) {
        if depth < MAX_DEPTH && self.rng.chance(1, 6) {
            let mut s = self.select(depth + 1, None, &[]);
            for _ in 0..50 {
                let q = Query::Select(Box::new(s.clone()));
                let temp = self.avoid.has(avoidable::STRING_THROUGH_TEMP_TABLE)
                    && avoided::string_through_temp_table(&q);
                let computed = self.avoid.has(avoidable::DERIVED_COMPUTED_COLUMN)
                    && avoided::computed_columns(&q);
                if !temp && !computed {
                    break;
                }
                s = self.select(depth + 1, None, &[]);
            }
            let alias = self.alias("d");
            let cols = s
                .items
                .iter()
                .enumerate()
                .map(|(i, it)| Col {
                    qual: alias.clone(),
                    name: format!("c{i}"),
                    ty: it.expr.ty(),
                    pk: false,
                })
                .collect();
            let q = Box::new(Query::Select(Box::new(s)));
            return (TableRef::Derived { q, alias }, cols);
        }
        let t = self.rng.below(self.schema.tables.len());
        self.base(t)
    }

    /// An ON condition: mostly an equality between the new table and the others.
    fn join_on(&mut self, left: &[Col], right: &[Col], outer: &[Col], depth: usize) -> Expr {
        let pairs: Vec<(&Col, &Col)> = left
            .iter()
            .flat_map(|l| right.iter().map(move |r| (l, r)))
            .filter(|(l, r)| l.ty.same_family(r.ty))
            .collect();
        let visible: Vec<Col> = left.iter().chain(right).chain(outer).cloned().collect();
        let mut on = match pairs.is_empty() || self.rng.chance(1, 6) {
            true => self.cond(&visible, depth, 1),
            false => {
                let (l, r) = *self.rng.pick(&pairs);
                Expr::Cmp("=", Box::new(l.expr()), Box::new(r.expr()))
            }
        };
        if self.rng.chance(1, 4) {
            let extra = self.cond(&visible, depth, 1);
            on = Expr::Logic(true, Box::new(on), Box::new(extra));
        }
        on
    }

    pub fn literal(&mut self, ty: Ty) -> Expr {
        if self.rng.chance(1, 12) {
            return Expr::lit("NULL", ty);
        }
        let ty = if ty == Ty::Bool { Ty::Int } else { ty };
        let text = self.rng.pick(pool(ty)).to_string();
        match ty {
            // DATE '...', not a string that compares as a date.
            Ty::Date => Expr::lit(format!("DATE {text}"), ty),
            _ => Expr::lit(text, ty),
        }
    }

    pub(super) fn column(&mut self, visible: &[Col], ty: Ty) -> Option<Expr> {
        let fits: Vec<&Col> = visible.iter().filter(|c| c.ty.compatible(ty)).collect();
        (!fits.is_empty()).then(|| self.rng.pick(&fits).expr())
    }

    fn leaf(&mut self, visible: &[Col], ty: Ty) -> Expr {
        match self.rng.chance(3, 4) {
            true => self
                .column(visible, ty)
                .unwrap_or_else(|| self.value_literal(ty)),
            false => self.value_literal(ty),
        }
    }

    /// A literal used as a value: not NULL when NULL values are avoided.
    fn value_literal(&mut self, ty: Ty) -> Expr {
        let e = self.literal(ty);
        let null = matches!(&e, Expr::Lit { text, .. } if text == "NULL");
        match null && self.avoid.has(avoidable::NULL_VALUE) {
            true => self.value_literal(ty),
            false => e,
        }
    }

    /// A value expression of type family `ty`; `level` is its nesting so far.
    pub fn expr(&mut self, visible: &[Col], ty: Ty, depth: usize, level: usize) -> Expr {
        if level >= 2 || self.rng.chance(1, 2) {
            return self.leaf(visible, ty);
        }
        let sub = |g: &mut Self| g.expr(visible, ty, depth, level + 1);
        match self.rng.below(10) {
            0..=3 if ty.numeric() => self.arith(visible, ty, depth, level),
            4 => {
                let w = self.cond(visible, depth, level + 1);
                let t = sub(self);
                let e = self.rng.chance(2, 3).then(|| Box::new(sub(self)));
                Expr::Case(vec![(w, t)], e)
            }
            5 | 6 => {
                let f = *self.rng.pick(&["COALESCE", "IFNULL"]);
                let args = vec![sub(self), sub(self)];
                let literal = args
                    .iter()
                    .any(|a| matches!(a, Expr::Lit { .. }) && a.ty() != Ty::Int);
                let typed = ty == Ty::Str;
                match (literal || typed) && self.avoid.has(avoidable::BRANCH_TYPES) {
                    true => self.leaf(visible, ty),
                    false => Expr::Func(f, args),
                }
            }
            7 if ty.numeric() => Expr::Func("ABS", vec![sub(self)]),
            8 if depth < MAX_DEPTH => Expr::Scalar(Box::new(self.scalar_sub(visible, ty, depth))),
            _ => self.leaf(visible, ty),
        }
    }

    fn arith(&mut self, visible: &[Col], ty: Ty, depth: usize, level: usize) -> Expr {
        let a = self.operand(visible, ty, depth, level);
        let mut ops = vec!["+", "-", "*", "+", "-"];
        if level == 0 || !self.avoid.has(avoidable::NESTED_DIVISION) {
            ops.push("/");
        }
        ops.push("DIV");
        let decimal = a.ty() == Ty::Dec && self.avoid.has(avoidable::MOD_OF_DECIMAL);
        if !decimal {
            ops.push("MOD");
        }
        let op = *self.rng.pick(&ops);
        let b = match op {
            "MOD" if self.avoid.has(avoidable::MOD_OF_DECIMAL) => {
                Expr::lit(*self.rng.pick(&["2", "3", "-4"]), Ty::Int)
            }
            "/" | "DIV" | "MOD" => Expr::lit(*self.rng.pick(&["2", "3", "-4", "1.5"]), Ty::Dec),
            _ => self.operand(visible, ty, depth, level),
        };
        Expr::Arith(op, Box::new(a), Box::new(b))
    }

    /// An operand of arithmetic: not NULL when NULL arithmetic is avoided.
    fn operand(&mut self, visible: &[Col], ty: Ty, depth: usize, level: usize) -> Expr {
        let e = self.expr(visible, ty, depth, level + 1);
        let null = matches!(&e, Expr::Lit { text, .. } if text == "NULL");
        match null && self.avoid.has(avoidable::NULL_VALUE) {
            true => self.value_literal(ty),
            false => e,
        }
    }

    /// `(SELECT agg(...) FROM t WHERE ...)`, possibly correlated to `outer`.
    fn scalar_sub(&mut self, outer: &[Col], ty: Ty, depth: usize) -> Query {
        let t = self.rng.below(self.schema.tables.len());
        let (from, local) = self.base(t);
        let visible: Vec<Col> = local.iter().chain(outer).cloned().collect();
        let conds = (0..self.rng.below(3))
            .map(|_| self.cond(&visible, depth + 1, 1))
            .collect();
        let expr = self.aggregate(&local, ty, depth + 1);
        Query::Select(Box::new(Select {
            distinct: false,
            items: vec![Item { expr, alias: None }],
            from,
            joins: Vec::new(),
            conds,
            group_by: Vec::new(),
            having: Vec::new(),
        }))
    }

    /// An aggregate of type family `ty` over `local`'s columns.
    pub(super) fn aggregate(&mut self, local: &[Col], ty: Ty, depth: usize) -> Expr {
        let arg = |g: &mut Self, t: Ty| Some(Box::new(g.agg_arg(local, t, depth)));
        match ty {
            Ty::Int | Ty::Bool => match self.rng.below(4) {
                0 => Expr::Agg(AggFn::Count, false, None),
                1 => {
                    let (distinct, t) = (self.rng.chance(1, 2), self.any_ty());
                    Expr::Agg(AggFn::Count, distinct, arg(self, t))
                }
                _ => Expr::Agg(self.min_max(), false, arg(self, Ty::Int)),
            },
            Ty::Dec => {
                let f = *self
                    .rng
                    .pick(&[AggFn::Sum, AggFn::Avg, AggFn::Min, AggFn::Max]);
                let t = *self.rng.pick(&[Ty::Int, Ty::Dec]);
                let distinct = f != AggFn::Min && self.rng.chance(1, 4);
                Expr::Agg(f, distinct, arg(self, t))
            }
            Ty::Str => {
                let a = canonical(self.agg_arg(local, ty, depth));
                Expr::Agg(self.min_max(), false, Some(Box::new(a)))
            }
            Ty::Date => Expr::Agg(self.min_max(), false, arg(self, ty)),
        }
    }

    /// An aggregate's argument: with a column when aggregates of literals are
    /// avoided (and `local` has a column of type `ty`).
    fn agg_arg(&mut self, local: &[Col], ty: Ty, depth: usize) -> Expr {
        let e = self.expr(local, ty, depth, 1);
        if has_column(&e) || !self.avoid.has(avoidable::AGGREGATE_OF_LITERAL) {
            return e;
        }
        self.column(local, ty).unwrap_or(e)
    }

    pub(super) fn min_max(&mut self) -> AggFn {
        *self.rng.pick(&[AggFn::Min, AggFn::Max])
    }

    pub(super) fn any_ty(&mut self) -> Ty {
        *self.rng.pick(FAMILIES)
    }

    /// A condition; `level` is its nesting so far.
    pub fn cond(&mut self, visible: &[Col], depth: usize, level: usize) -> Expr {
        let bx = Box::new;
        match self.rng.below(if level >= 2 { 6 } else { 12 }) {
            0..=1 => self.compare(visible, depth, level),
            2 => {
                let ty = self.any_ty();
                Expr::IsNull(
                    bx(self.expr(visible, ty, depth, level)),
                    self.rng.chance(1, 2),
                )
            }
            3 => self.in_list(visible, depth, level),
            4 => self.between(visible, depth, level),
            5 => self.like(visible, depth, level),
            6 | 7 => {
                let a = self.cond(visible, depth, level + 1);
                let b = self.cond(visible, depth, level + 1);
                Expr::Logic(self.rng.chance(1, 2), bx(a), bx(b))
            }
            8 => Expr::Not(bx(self.cond(visible, depth, level + 1))),
            _ if depth >= MAX_DEPTH => self.compare(visible, depth, level),
            9 => self.in_sub(visible, depth, level),
            10 => {
                let q = self.exists_sub(visible, depth);
                Expr::Exists(Box::new(q), self.rng.chance(1, 3))
            }
            _ => {
                let ty = *self.rng.pick(&[Ty::Int, Ty::Dec, Ty::Date]);
                let a = self.expr(visible, ty, depth, level + 1);
                let q = self.scalar_sub(visible, ty, depth);
                Expr::Cmp(self.cmp_op(), bx(a), bx(Expr::Scalar(Box::new(q))))
            }
        }
    }

    pub(super) fn cmp_op(&mut self) -> &'static str {
        let op: &&'static str = self.rng.pick(&CMP_OPS);
        op
    }

    fn compare(&mut self, visible: &[Col], depth: usize, level: usize) -> Expr {
        let ty = self.any_ty();
        let a = self.expr(visible, ty, depth, level + 1);
        let b = match self.rng.chance(1, 2) {
            true => self.literal(a.ty()),
            false => self.expr(visible, ty, depth, level + 1),
        };
        Expr::Cmp(self.cmp_op(), Box::new(a), Box::new(b))
    }

    fn in_list(&mut self, visible: &[Col], depth: usize, level: usize) -> Expr {
        let ty = self.any_ty();
        let a = self.expr(visible, ty, depth, level + 1);
        let list = (0..1 + self.rng.below(4))
            .map(|_| self.literal(a.ty()))
            .collect();
        Expr::InList(Box::new(a), list, self.rng.chance(1, 3))
    }

    fn between(&mut self, visible: &[Col], depth: usize, level: usize) -> Expr {
        let ty = self.any_ty();
        let a = self.expr(visible, ty, depth, level + 1);
        let lo = self.literal(a.ty());
        let hi = self.literal(a.ty());
        Expr::Between(
            Box::new(a),
            Box::new(lo),
            Box::new(hi),
            self.rng.chance(1, 4),
        )
    }

    fn like(&mut self, visible: &[Col], depth: usize, level: usize) -> Expr {
        let a = self.expr(visible, Ty::Str, depth, level + 1);
        let pat = *self.rng.pick(&[
            "a%", "%b", "_", "%", "a_", "%a%", "A", "a ", "", "b\\%", "x\\_y",
        ]);
        Expr::Like(Box::new(a), pat.to_string(), self.rng.chance(1, 4))
    }

    fn in_sub(&mut self, visible: &[Col], depth: usize, level: usize) -> Expr {
        let ty = self.any_ty();
        let a = self.expr(visible, ty, depth, level + 1);
        let q = self.query(depth + 1, Some(&[a.ty()]), visible, true);
        Expr::InSub(Box::new(a), Box::new(q), self.rng.chance(1, 3))
    }

    fn exists_sub(&mut self, visible: &[Col], depth: usize) -> Query {
        let mut q = self.query(depth + 1, None, visible, true);
        // Mostly correlated: an equality with an outer column.
        if let (Query::Select(s), true) = (&mut q, self.rng.chance(2, 3)) {
            let local: Vec<Col> = self.scope_of(&s.from);
            if let Some(c) = self.correlation(&local, visible) {
                s.conds.push(c);
            }
        }
        q
    }

    fn scope_of(&self, t: &TableRef) -> Vec<Col> {
        match t {
            TableRef::Base { table, alias } => {
                let t = self.schema.table(table);
                t.cols
                    .iter()
                    .map(|c| Col {
                        qual: alias.clone(),
                        name: c.name.clone(),
                        ty: c.ty,
                        pk: false,
                    })
                    .collect()
            }
            TableRef::Derived { .. } => Vec::new(),
        }
    }

    fn correlation(&mut self, local: &[Col], outer: &[Col]) -> Option<Expr> {
        let pairs: Vec<(&Col, &Col)> = local
            .iter()
            .flat_map(|l| outer.iter().map(move |o| (l, o)))
            .filter(|(l, o)| l.ty.same_family(o.ty))
            .collect();
        if pairs.is_empty() {
            return None;
        }
        let (l, o) = *self.rng.pick(&pairs);
        Some(Expr::Cmp("=", Box::new(l.expr()), Box::new(o.expr())))
    }
}
