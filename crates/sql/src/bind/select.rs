//! SELECT binding: projection, WHERE, GROUP BY / aggregates, HAVING, ORDER BY,
//! LIMIT, locking clause; then access paths for the join levels.
//!
//! Aggregation: projection, HAVING and ORDER BY are bound against the source row
//! with aggregate calls as `Column(AGG_BASE + i)`; afterwards every sub-expression
//! equal to a GROUP BY expression becomes a reference to the aggregate output row,
//! aggregate markers become references past the group columns, and remaining bare
//! columns become FIRST(col) aggregates (MariaDB without ONLY_FULL_GROUP_BY returns
//! a value from the group).

use super::expr::{AggCollector, AGG_BASE};
use super::from::{split_and, From};
use super::levels::{plan_levels, LevelInputs};
use super::names::select_item_texts;
use super::window;
use super::{Binder, Clause, Scope};
use crate::expr::Expr;
use crate::plan::{AggCall, AggFunc, AggPlan, SelectPlan, SortKey};
use crate::ty::{Class, ExprType};
use basalt_common::{Collation, ColumnMeta, MySqlError, Value};
use basalt_storage::{LockMode, WaitPolicy};
use sqlparser::ast::{self, SelectItem, SetExpr};

type R<T> = Result<T, MySqlError>;

struct Item {
    expr: Expr,
    ty: ExprType,
    name: String,
    alias: Option<String>,
}

impl Binder<'_> {
    pub fn select(&mut self, q: &ast::Query) -> R<SelectPlan> {
        match &q.with {
            Some(w) => self.with_query(w, q),
            None => self.select_body(q),
        }
    }

    /// The query without its WITH clause.
    pub(super) fn select_body(&mut self, mut q: &ast::Query) -> R<SelectPlan> {
        loop {
            return match q.body.as_ref() {
                SetExpr::Select(s) => {
                    self.select_core(s, q.order_by.as_ref(), q.limit_clause.as_ref(), &q.locks)
                }
                // `((SELECT ...))`: parentheses unwrapped by the loop, however many.
                SetExpr::Query(inner) if q.order_by.is_none() && q.limit_clause.is_none() => {
                    if inner.with.is_some() {
                        return self.select(inner);
                    }
                    q = inner;
                    continue;
                }
                SetExpr::SetOperation { .. } => self.union(q),
                _ => Err(MySqlError::not_supported("this query form")),
            };
        }
    }

    /// One SELECT with the query-level ORDER BY / LIMIT / locking clause.
    pub fn select_core(
        &mut self,
        s: &ast::Select,
        order_by: Option<&ast::OrderBy>,
        limit_clause: Option<&ast::LimitClause>,
        lock_clauses: &[ast::LockClause],
    ) -> R<SelectPlan> {
        let start = s.select_token.0.span.start;
        let pos = (self.text_no, start.line, start.column);
        self.selects.push(pos);
        let plan = self.select_block(s, order_by, limit_clause, lock_clauses);
        self.selects.pop();
        let mut plan = plan?;
        plan.pos = pos;
        Ok(plan)
    }

    fn select_block(
        &mut self,
        s: &ast::Select,
        order_by: Option<&ast::OrderBy>,
        limit_clause: Option<&ast::LimitClause>,
        lock_clauses: &[ast::LockClause],
    ) -> R<SelectPlan> {
        if s.into.is_some() {
            return Err(MySqlError::not_supported("SELECT INTO"));
        }
        let mut from = self.bind_from(&s.from)?;
        from.straight = s.select_modifiers.as_ref().is_some_and(|m| m.straight_join);
        let mut aggs = AggCollector::default();
        super::window::named_windows(&s.named_window, &mut aggs)?;
        let items = self.projection(s, &from, &mut aggs)?;
        self.clause = Clause::Where;
        let filter = match &s.selection {
            Some(w) => Some(self.condition(w, &from.scope, None)?.0),
            None => None,
        };
        let alias_scope = alias_scope(&from.scope, &items, false);
        let (group, group_colls, rollup) = self.group_by(&s.group_by, &alias_scope, &items)?;
        self.clause = Clause::Having;
        let having_scope = alias_scope_first(&from.scope, &items);
        let having = match &s.having {
            Some(h) => Some(self.condition(h, &having_scope, Some(&mut aggs))?.0),
            None => None,
        };
        if rollup && order_by.is_some() {
            return Err(MySqlError::new(
                1221,
                "HY000",
                "Incorrect usage of CUBE/ROLLUP and ORDER BY",
            ));
        }
        window::reject_in(group.iter().chain(having.as_ref()))?;
        let (order, hidden) = self.order_by(order_by, &having_scope, &items, &mut aggs)?;
        let (limit, offset, limit_hint) = self.limit(limit_clause)?;
        let (lock, wait) = locks(lock_clauses);
        let is_agg = !group.is_empty() || !aggs.calls.is_empty();
        let mut items = items;
        if rollup {
            // Super-aggregate rows hold NULL for the rolled-up group columns.
            for it in items.iter_mut() {
                let mut grouped = false;
                it.expr.walk(&mut |e| grouped |= group.contains(e));
                it.ty.nullable |= grouped;
            }
        }
        if is_agg && group.is_empty() {
            // Implicit grouping: a bare column is NULL when there are no rows.
            for it in items.iter_mut() {
                let mut bare = false;
                it.expr
                    .walk(&mut |e| bare |= matches!(e, Expr::Column(c) if *c < AGG_BASE));
                it.ty.nullable |= bare;
            }
        }
        if !aggs.win.calls.is_empty() {
            for it in items.iter_mut() {
                window::temp_table_nullable(&it.expr, &from.tables, &mut it.ty);
            }
        }
        let distinct = matches!(s.distinct, Some(ast::Distinct::Distinct));
        if matches!(s.distinct, Some(ast::Distinct::On(_))) {
            return Err(MySqlError::not_supported("DISTINCT ON"));
        }
        let calc_found_rows = s
            .select_modifiers
            .as_ref()
            .is_some_and(|m| m.sql_calc_found_rows);
        let parts = Parts {
            items,
            hidden,
            filter,
            group,
            group_colls,
            having,
            order,
            aggs,
            is_agg,
            distinct,
            limit_hint,
            rollup,
        };
        let mut plan = self.assemble(from, parts)?;
        plan.limit = limit;
        plan.offset = offset;
        plan.lock = lock;
        plan.wait = wait;
        plan.calc_found_rows = calc_found_rows;
        Ok(plan)
    }

    fn projection(
        &mut self,
        s: &ast::Select,
        from: &From,
        aggs: &mut AggCollector,
    ) -> R<Vec<Item>> {
        self.clause = Clause::FieldList;
        let texts = if self.depth == 0 {
            // Cut once per statement: every branch of a UNION asks again.
            let raw = self.raw;
            self.item_texts
                .get_or_insert_with(|| select_item_texts(raw))
                .clone()
        } else {
            Vec::new()
        };
        let mut items = Vec::new();
        for (i, si) in s.projection.iter().enumerate() {
            match si {
                SelectItem::Wildcard(_) => self.wildcard(None, from, &mut items)?,
                SelectItem::QualifiedWildcard(kind, _) => {
                    let name = match kind {
                        ast::SelectItemQualifiedWildcardKind::ObjectName(n) => {
                            super::object_parts(n)
                        }
                        ast::SelectItemQualifiedWildcardKind::Expr(e) => vec![e.to_string()],
                    };
                    self.wildcard(name.last().cloned(), from, &mut items)?;
                }
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    self.in_projection = true;
                    let r = self.expr(e, &from.scope, Some(aggs));
                    self.in_projection = false;
                    let (expr, ty) = r?;
                    let alias = match si {
                        SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.clone()),
                        _ => None,
                    };
                    let name = match (&alias, e, texts.get(i)) {
                        (Some(a), _, _) => a.clone(),
                        (None, ast::Expr::Identifier(id), _) if ty.origin.is_some() => {
                            id.value.clone()
                        }
                        // A ROW variable's field is named as written (`r.a`).
                        (None, ast::Expr::CompoundIdentifier(ids), _)
                            if ty.origin.is_some() && !matches!(expr, Expr::Local(_)) =>
                        {
                            ids.last().map(|x| x.value.clone()).unwrap_or_default()
                        }
                        (None, ast::Expr::Value(v), t) => literal_name(&v.value)
                            .or_else(|| t.cloned())
                            .unwrap_or_else(|| v.to_string()),
                        (None, ast::Expr::Prefixed { prefix, value }, t) => {
                            prefixed_name(prefix, value, &expr)
                                .or_else(|| t.cloned())
                                .unwrap_or_else(|| e.to_string())
                        }
                        (None, _, Some(t)) => t.clone(),
                        (None, other, None) => other.to_string(),
                    };
                    let name = match alias {
                        Some(_) => name,
                        // MariaDB drops the leading spaces of a name from the text.
                        None => name
                            .trim_start_matches(|c: char| c.is_ascii_whitespace())
                            .into(),
                    };
                    let name = super::names::cut_column_name(name);
                    items.push(Item {
                        expr,
                        ty,
                        name,
                        alias,
                    });
                }
                SelectItem::ExprWithAliases { .. } => {
                    return Err(MySqlError::not_supported("multiple aliases"))
                }
            }
        }
        Ok(items)
    }

    fn wildcard(&mut self, table: Option<String>, from: &From, items: &mut Vec<Item>) -> R<()> {
        if from.tables.is_empty() {
            return Err(MySqlError::no_tables_used());
        }
        let mut any = false;
        let all: Vec<(usize, usize)>;
        let cols: &[(usize, usize)] = match &table {
            None => &from.star,
            Some(name) => {
                let t = from.scope.tables.iter().position(|st| st.alias == *name);
                all = t.map_or_else(Vec::new, |t| {
                    (0..from.scope.tables[t].def.columns.len())
                        .map(|c| (t, c))
                        .collect()
                });
                &all
            }
        };
        for &(t, c) in cols {
            let st = &from.scope.tables[t];
            any = true;
            if st.def.columns[c].invisible {
                continue;
            }
            let name = &st.def.columns[c].name;
            let (expr, ty) =
                self.column(Some(std::slice::from_ref(&st.alias)), name, &from.scope)?;
            items.push(Item {
                expr,
                ty,
                name: name.clone(),
                alias: None,
            });
        }
        if !any {
            return Err(MySqlError::unknown_table(
                &table.unwrap_or_default(),
                "field list",
            ));
        }
        Ok(())
    }

    /// The GROUP BY expressions, the collation each groups by, and WITH ROLLUP.
    fn group_by(
        &mut self,
        g: &ast::GroupByExpr,
        scope: &Scope,
        items: &[Item],
    ) -> R<(Vec<Expr>, Vec<Collation>, bool)> {
        self.clause = Clause::Group;
        let mut rollup = false;
        let list = match g {
            ast::GroupByExpr::Expressions(list, mods) => {
                for m in mods {
                    match m {
                        ast::GroupByWithModifier::Rollup if !list.is_empty() => rollup = true,
                        other => {
                            return Err(MySqlError::not_supported(&format!(
                                "GROUP BY modifier {other}"
                            )))
                        }
                    }
                }
                list
            }
            ast::GroupByExpr::All(_) => return Err(MySqlError::not_supported("GROUP BY ALL")),
        };
        let mut out = Vec::new();
        let mut colls = Vec::new();
        for e in list {
            if let Some(pos) = self.ordinal(e, items.len())? {
                out.push(items[pos].expr.clone());
                colls.push(items[pos].ty.key_collation());
                continue;
            }
            let (x, t) = self.expr(e, scope, None)?;
            out.push(x);
            colls.push(t.key_collation());
        }
        Ok((out, colls, rollup))
    }

    /// `Some(index)` when `e` is a position literal (`ORDER BY 2`).
    fn ordinal(&mut self, e: &ast::Expr, n: usize) -> R<Option<usize>> {
        let v = match e {
            ast::Expr::Value(v) => v,
            _ => return Ok(None),
        };
        let num = match &v.value {
            ast::Value::Number(s, _) => s.parse::<i64>().ok(),
            ast::Value::Placeholder(_) => {
                let (bound, _) = self.expr(e, &Scope::default(), None)?;
                match (bound, self.params.stripped) {
                    (Expr::Param(i), Some(vals)) => {
                        self.reusable = false;
                        match vals.get(i) {
                            Some(Value::Int(k)) => Some(*k),
                            _ => return Ok(None),
                        }
                    }
                    _ => return Ok(None),
                }
            }
            _ => return Ok(None),
        };
        match num {
            Some(k) if k >= 1 && (k as usize) <= n => Ok(Some(k as usize - 1)),
            Some(k) => Err(MySqlError::bad_field(&k.to_string(), self.clause.name())),
            None => Ok(None),
        }
    }

    fn order_by(
        &mut self,
        ob: Option<&ast::OrderBy>,
        scope: &Scope,
        items: &[Item],
        aggs: &mut AggCollector,
    ) -> R<OrderParts> {
        self.clause = Clause::Order;
        let mut keys = Vec::new();
        let mut hidden: Vec<(Expr, ExprType)> = Vec::new();
        let Some(ob) = ob else {
            return Ok((keys, hidden));
        };
        let list = match &ob.kind {
            ast::OrderByKind::Expressions(l) => l,
            ast::OrderByKind::All(_) => return Err(MySqlError::not_supported("ORDER BY ALL")),
        };
        for o in list {
            let desc = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
            if let Some(pos) = self.ordinal(&o.expr, items.len())? {
                keys.push((pos, desc));
                continue;
            }
            if let ast::Expr::Identifier(id) = &o.expr {
                if let Some(pos) = items.iter().position(|it| {
                    it.alias
                        .as_ref()
                        .is_some_and(|a| a.eq_ignore_ascii_case(&id.value))
                }) {
                    keys.push((pos, desc));
                    continue;
                }
            }
            let (e, t) = self.expr(&o.expr, scope, Some(aggs))?;
            if let Some(pos) = items.iter().position(|it| it.expr == e) {
                keys.push((pos, desc));
                continue;
            }
            hidden.push((e, t));
            keys.push((items.len() + hidden.len() - 1, desc));
        }
        Ok((keys, hidden))
    }

    #[allow(clippy::type_complexity)]
    pub fn limit(
        &mut self,
        lc: Option<&ast::LimitClause>,
    ) -> R<(Option<Expr>, Option<Expr>, Option<u64>)> {
        self.clause = Clause::Where;
        let (limit, offset) = match lc {
            None => return Ok((None, None, None)),
            Some(ast::LimitClause::LimitOffset { limit, offset, .. }) => {
                (limit.clone(), offset.as_ref().map(|o| o.value.clone()))
            }
            Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => {
                (Some(limit.clone()), Some(offset.clone()))
            }
        };
        let empty = Scope::default();
        let bind = |b: &mut Self, e: Option<ast::Expr>| -> R<Option<Expr>> {
            match e {
                Some(e) => {
                    let (x, t) = b.expr(&e, &empty, None)?;
                    if !matches!(t.class, Class::Int | Class::Null | Class::String)
                        || !x.is_row_independent()
                    {
                        return Err(MySqlError::parse_error(&e.to_string(), 1));
                    }
                    Ok(Some(x))
                }
                None => Ok(None),
            }
        };
        let l = bind(self, limit)?;
        let o = bind(self, offset)?;
        let known = |b: &Self, e: &Option<Expr>| -> Option<u64> {
            match e {
                None => Some(0),
                Some(Expr::Const(v)) => crate::value::to_num(v).0.to_i64().map(|x| x.max(0) as u64),
                Some(Expr::Param(i)) => b
                    .params
                    .stripped
                    .and_then(|p| p.get(*i))
                    .and_then(|v| crate::value::to_num(v).0.to_i64())
                    .map(|x| x.max(0) as u64),
                _ => None,
            }
        };
        let hint = match (&l, known(self, &l), known(self, &o)) {
            (Some(_), Some(a), Some(b)) => Some(a.saturating_add(b)),
            (Some(_), None, _) => Some(100),
            _ => None,
        };
        Ok((l, o, hint))
    }

    fn assemble(&mut self, from: From, p: Parts) -> R<SelectPlan> {
        let Parts {
            items,
            hidden,
            filter,
            group,
            group_colls,
            having,
            order,
            mut aggs,
            is_agg,
            distinct,
            limit_hint,
            rollup,
        } = p;
        let mut project: Vec<Expr> = items.iter().map(|i| i.expr.clone()).collect();
        let mut types: Vec<ExprType> = items.iter().map(|i| i.ty.clone()).collect();
        for (e, t) in hidden {
            project.push(e);
            types.push(t);
        }
        let mut win = std::mem::take(&mut aggs.win);
        let windowed = !win.calls.is_empty();
        let scanned = window::scanned(&project, &mut win);
        let needed = needed_columns(
            &from,
            &scanned,
            filter.as_ref(),
            &group,
            having.as_ref(),
            &aggs,
            &from.inner_on,
        );
        let sort_cols: Vec<(usize, bool)> = order.clone();
        let order_spec = if is_agg || windowed {
            None
        } else {
            index_order(&from, &project, &sort_cols)
        };
        let mut conjuncts = filter.map(split_and).unwrap_or_default();
        conjuncts.extend(from.inner_on.iter().cloned());
        let (engine, stripped) = (self.cx.engine.clone(), self.params.stripped);
        let constant = move |e: &Expr| crate::expr::fold::constant_value(&engine, e, stripped);
        let planned = plan_levels(LevelInputs {
            from: &from,
            conjuncts,
            needed,
            order: order_spec,
            limit: if is_agg || distinct || windowed {
                None
            } else {
                limit_hint
            },
            planner: self.cx.planner,
            constant: &constant,
        });
        if planned.uses_values {
            self.reusable = false;
        }
        let sort_needed = !planned.order_satisfied || is_agg || windowed;
        if is_agg && self.cx.mode.only_full_group_by {
            full_group_by(&from, &project[..items.len()], &group)?;
        }
        let (agg, having) = if is_agg {
            let ngroups = group.len();
            for e in project.iter_mut() {
                rewrite_agg(e, &group, ngroups, &mut aggs);
            }
            let mut having = having;
            if let Some(h) = having.as_mut() {
                rewrite_agg(h, &group, ngroups, &mut aggs);
            }
            for e in window::exprs_mut(&mut win) {
                rewrite_agg(e, &group, ngroups, &mut aggs);
            }
            (
                Some(AggPlan {
                    group_by: group,
                    group_colls,
                    calls: aggs.calls,
                    rollup,
                }),
                having,
            )
        } else {
            (None, having)
        };
        let width = match &agg {
            Some(a) => a.group_by.len() + a.calls.len(),
            None => from.width,
        };
        let window = window::finish(win, width, &mut project).map(Box::new);
        let sort = if sort_needed {
            order
                .iter()
                .map(|(c, d)| SortKey {
                    column: *c,
                    desc: *d,
                    coll: sort_coll(&types[*c]),
                    fixed: types[*c].fixedbin,
                })
                .collect()
        } else {
            Vec::new()
        };
        let columns: Vec<ColumnMeta> = items
            .iter()
            .map(|i| i.ty.meta(&i.name, self.cx.results_charset))
            .collect();
        Ok(SelectPlan {
            needs: Default::default(),
            reads_tables: !from.tables.is_empty(),
            calls_writer: false,
            types: items.iter().map(|i| i.ty.clone()).collect(),
            subs: Default::default(),
            union: Vec::new(),
            setop: None,
            window,
            pos: (0, 0, 0),
            tables: from.tables,
            levels: crate::plan::mark_constants(planned.levels),
            row_width: from.width,
            const_filter: planned.const_filter,
            agg,
            having,
            visible: items.len(),
            project,
            distinct,
            order: sort,
            limit: None,
            offset: None,
            columns: columns.into(),
            lock: LockMode::Consistent,
            wait: WaitPolicy::Wait,
            calc_found_rows: false,
        })
    }
}

type OrderParts = (Vec<(usize, bool)>, Vec<(Expr, ExprType)>);

struct Parts {
    items: Vec<Item>,
    hidden: Vec<(Expr, ExprType)>,
    filter: Option<Expr>,
    group: Vec<Expr>,
    /// The collation each GROUP BY expression groups by.
    group_colls: Vec<Collation>,
    having: Option<Expr>,
    order: Vec<(usize, bool)>,
    aggs: AggCollector,
    is_agg: bool,
    distinct: bool,
    limit_hint: Option<u64>,
    rollup: bool,
}

/// The name of an introduced string (its value; a hex string with an introducer
/// is named by its text) or of a literal marker (its value).
fn prefixed_name(prefix: &ast::Ident, value: &ast::Expr, bound: &Expr) -> Option<String> {
    let hex =
        matches!(value, ast::Expr::Value(v) if matches!(v.value, ast::Value::HexStringLiteral(_)));
    match bound {
        Expr::Const(basalt_common::Value::Bytes(b)) if prefix.quote_style.is_some() || !hex => {
            Some(super::strings::display_name(b))
        }
        _ => None,
    }
}

/// MariaDB names a bare string literal column by its value, NULL as `NULL`.
fn literal_name(v: &ast::Value) -> Option<String> {
    match v {
        ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => Some(s.clone()),
        ast::Value::Null => Some("NULL".into()),
        ast::Value::Boolean(b) => Some(if *b { "TRUE" } else { "FALSE" }.into()),
        _ => None,
    }
}

fn alias_scope(base: &Scope, items: &[Item], first: bool) -> Scope {
    let mut s = base.clone();
    s.aliases = items
        .iter()
        .filter_map(|i| {
            i.alias
                .as_ref()
                .map(|a| (a.clone(), i.expr.clone(), i.ty.clone()))
        })
        .collect();
    s.alias_first = first;
    s
}

fn alias_scope_first(base: &Scope, items: &[Item]) -> Scope {
    alias_scope(base, items, true)
}

fn sort_coll(t: &ExprType) -> Collation {
    t.key_collation()
}

/// ORDER BY as columns of the first level's table, when every sort key is a plain
/// column of that table.
fn index_order(
    from: &From,
    project: &[Expr],
    keys: &[(usize, bool)],
) -> Option<Vec<(usize, bool)>> {
    if keys.is_empty() {
        return None;
    }
    let first = from.levels.first()?;
    let t = &from.tables[first.table];
    keys.iter()
        .map(
            |(pos, desc)| match project.get(*pos).and_then(Expr::as_column) {
                Some(c) if c >= t.offset && c < t.offset + t.width() => Some((c - t.offset, *desc)),
                _ => None,
            },
        )
        .collect()
}

fn needed_columns(
    from: &From,
    project: &[Expr],
    filter: Option<&Expr>,
    group: &[Expr],
    having: Option<&Expr>,
    aggs: &AggCollector,
    on: &[Expr],
) -> Vec<Vec<usize>> {
    let mut needed = vec![Vec::new(); from.tables.len()];
    let mut add = |e: &Expr| {
        e.walk(&mut |x| {
            if let Expr::Column(c) = x {
                if *c >= AGG_BASE {
                    return;
                }
                if let Some(ti) = from
                    .tables
                    .iter()
                    .position(|t| *c >= t.offset && *c < t.offset + t.width())
                {
                    let col = *c - from.tables[ti].offset;
                    if !needed[ti].contains(&col) {
                        needed[ti].push(col);
                    }
                }
            }
        })
    };
    project.iter().for_each(&mut add);
    filter.into_iter().for_each(&mut add);
    group.iter().for_each(&mut add);
    having.into_iter().for_each(&mut add);
    on.iter().for_each(&mut add);
    for l in &from.levels {
        l.on.iter().for_each(&mut add);
    }
    for c in &aggs.calls {
        c.arg.iter().for_each(&mut add);
        c.order.iter().for_each(|(e, _, _)| add(e));
    }
    // A JSON_TABLE's document reads columns of the tables to its left.
    for t in &from.tables {
        if let Some(f) = &t.func {
            add(&f.doc);
        }
    }
    needed
}

/// ONLY_FULL_GROUP_BY: a select-list column must be grouped or aggregated (1055;
/// 1140 when there is no GROUP BY), as MariaDB checks it (no functional
/// dependencies; ORDER BY is not checked).
fn full_group_by(from: &From, visible: &[Expr], group: &[Expr]) -> R<()> {
    fn ungrouped(e: &Expr, group: &[Expr]) -> Option<usize> {
        if group.contains(e) {
            return None;
        }
        match e {
            Expr::Column(c) if *c >= AGG_BASE => None,
            Expr::Column(c) => Some(*c),
            Expr::Sub { .. } | Expr::InSub { .. } => None,
            other => other
                .children()
                .into_iter()
                .find_map(|c| ungrouped(c, group)),
        }
    }
    let Some(c) = visible.iter().find_map(|e| ungrouped(e, group)) else {
        return Ok(());
    };
    if group.is_empty() {
        return Err(MySqlError::new(
            1140,
            "42000",
            "Mixing of GROUP columns (MIN(),MAX(),COUNT(),...) with no GROUP columns is illegal if there is no GROUP BY clause",
        ));
    }
    let name = from
        .tables
        .iter()
        .find(|t| c >= t.offset && c < t.offset + t.width())
        .map(|t| format!("{}.{}.{}", t.db, t.alias, t.def.columns[c - t.offset].name))
        .unwrap_or_default();
    Err(MySqlError::new(
        1055,
        "42000",
        format!("'{name}' isn't in GROUP BY"),
    ))
}

/// Rewrites a post-aggregation expression onto the aggregate output row.
fn rewrite_agg(e: &mut Expr, group: &[Expr], ngroups: usize, aggs: &mut AggCollector) {
    if let Some(i) = group.iter().position(|g| g == e) {
        *e = Expr::Column(i);
        return;
    }
    match e {
        Expr::Column(c) if *c >= window::WIN_BASE => {}
        Expr::Column(c) if *c >= AGG_BASE => *e = Expr::Column(ngroups + (*c - AGG_BASE)),
        Expr::Column(c) => {
            let arg = Expr::Column(*c);
            let pos = aggs
                .calls
                .iter()
                .position(|a| a.func == AggFunc::First && a.arg.as_ref() == Some(&arg));
            let pos = pos.unwrap_or_else(|| {
                aggs.calls.push(AggCall {
                    func: AggFunc::First,
                    arg: Some(arg),
                    distinct: false,
                    coll: Collation::Binary,
                    separator: Vec::new(),
                    order: Vec::new(),
                });
                aggs.calls.len() - 1
            });
            *e = Expr::Column(ngroups + pos);
        }
        other => {
            other.walk_children_mut(&mut |child| rewrite_agg(child, group, ngroups, aggs));
        }
    }
}

fn locks(locks: &[ast::LockClause]) -> (LockMode, WaitPolicy) {
    let Some(l) = locks.first() else {
        return (LockMode::Consistent, WaitPolicy::Wait);
    };
    let mode = match l.lock_type {
        ast::LockType::Update => LockMode::Exclusive,
        ast::LockType::Share => LockMode::Shared,
    };
    let wait = match l.nonblock {
        Some(ast::NonBlock::Nowait) => WaitPolicy::NoWait,
        Some(ast::NonBlock::SkipLocked) => WaitPolicy::SkipLocked,
        None => WaitPolicy::Wait,
    };
    (mode, wait)
}
