//! Common table expressions: `WITH [RECURSIVE] name [(cols)] AS (query), ...`.
//!
//! Name resolution: each WITH clause is a [`Frame`] on the binder's stack while
//! the query it belongs to is bound. An unqualified table name is looked up in the
//! frames from the innermost outwards before the catalog, so a CTE shadows a table
//! of the same name (`db.name` always means the table). Within one WITH clause a
//! definition sees the definitions before it; under RECURSIVE it sees all of them,
//! itself included.
//!
//! A non-recursive CTE is a derived table: every reference binds its query again
//! (in the scope of its definition) through the derived-table machinery, so each
//! reference is materialised before the statement runs, exactly like a subquery in
//! FROM. A recursive CTE (its query names itself) is bound once: the UNION
//! branches that do not name it are the anchors, the others the recursive steps,
//! whose self-references read a working table ([`Recursing`]). Its result table
//! is shared by every reference outside the definition; `exec::cte` fills it by
//! iterating the steps until they add no rows.
//!
//! MariaDB's rules and errors: duplicate names 4004, a column list of another
//! length than the select list 4002, a recursive definition without an anchor
//! (also mutual recursion) 4005, a self-reference inside a subquery, in an
//! aggregating step or on the NULL-complemented side of an outer join 4008,
//! ORDER BY / LIMIT on the whole recursive definition 1235. Definitions nobody
//! references are still bound, for their errors.

use super::from::{derived_column, From};
use super::Binder;
use crate::infoschema::VirtualTable;
use crate::plan::{Recursion, SelectPlan, SubKind, SubPlan};
use crate::ty::{aggregate, ExprType};
use basalt_common::MySqlError;
use sqlparser::ast::{self, SetExpr, SetOperator, SetQuantifier};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

type R<T> = Result<T, MySqlError>;

/// One WITH clause.
pub struct With {
    recursive: bool,
    defs: Vec<Def>,
}

/// One definition of a WITH clause.
pub struct Def {
    name: String,
    columns: Vec<String>,
    query: ast::Query,
    /// Under RECURSIVE, the query names the definition itself.
    self_ref: bool,
    /// Some reference has been bound.
    used: AtomicBool,
    /// Being bound now: a reference meanwhile is a cycle.
    binding: AtomicBool,
    /// A recursive definition's result table, once bound.
    result: Mutex<Option<Arc<VirtualTable>>>,
}

/// A WITH clause on the binder's stack, with how many of its definitions are
/// visible.
#[derive(Clone)]
pub struct Frame {
    with: Arc<With>,
    visible: usize,
}

/// A recursive definition whose steps are being bound: its name means `work`.
pub struct Recursing {
    name: String,
    work: Arc<VirtualTable>,
    /// `outer_scopes` depth of the steps: deeper is inside a subquery.
    outer_len: usize,
}

fn dup_query_name(n: &str) -> MySqlError {
    MySqlError::new(
        4004,
        "HY000",
        format!("Duplicate query name `{n}` in WITH clause"),
    )
}

fn wrong_col_list() -> MySqlError {
    MySqlError::new(
        4002,
        "HY000",
        "WITH column list and SELECT field list have different column counts",
    )
}

fn no_anchors(n: &str) -> MySqlError {
    MySqlError::new(
        4005,
        "HY000",
        format!("No anchors for recursive WITH element '{n}'"),
    )
}

pub(crate) fn restrictions_violated(n: &str) -> MySqlError {
    MySqlError::new(
        4008,
        "HY000",
        format!("Restrictions imposed on recursive definitions are violated for table '{n}'"),
    )
}

/// Whether `e` names table `name` (unqualified) anywhere, subqueries included.
fn names_table<V: ast::Visit>(e: &V, name: &str) -> bool {
    let r = ast::visit_relations(e, |rel| {
        let parts = super::object_parts(rel);
        if parts.len() == 1 && parts[0].eq_ignore_ascii_case(name) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    r.is_break()
}

/// The branches of a left-deep UNION chain, each with whether it is joined by
/// UNION ALL (the first counts as ALL).
fn union_leaves(mut e: &SetExpr) -> R<Vec<(&SetExpr, bool)>> {
    let mut out = Vec::new();
    loop {
        match e {
            SetExpr::SetOperation {
                left,
                op: SetOperator::Union,
                set_quantifier,
                right,
            } => {
                out.push((right.as_ref(), !is_distinct(set_quantifier)));
                e = left;
            }
            SetExpr::SetOperation { op, .. } => {
                return Err(MySqlError::not_supported(&format!(
                    "{op} in a recursive CTE"
                )))
            }
            other => {
                out.push((other, true));
                out.reverse();
                return Ok(out);
            }
        }
    }
}

fn is_distinct(q: &SetQuantifier) -> bool {
    !matches!(q, SetQuantifier::All)
}

impl Binder<'_> {
    /// A query with a WITH clause: its definitions are visible while the query is
    /// bound.
    pub(super) fn with_query(&mut self, w: &ast::With, q: &ast::Query) -> R<SelectPlan> {
        if matches!(
            q.body.as_ref(),
            SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Insert(_) | SetExpr::Merge(_)
        ) {
            // MariaDB's grammar has WITH only before SELECT.
            let near = super::names::after_with(self.raw);
            return Err(MySqlError::parse_error(near.trim_end_matches(';'), 1));
        }
        let mut defs: Vec<Def> = Vec::with_capacity(w.cte_tables.len());
        for c in &w.cte_tables {
            let name = c.alias.name.value.clone();
            if defs.iter().any(|d| d.name.eq_ignore_ascii_case(&name)) {
                return Err(dup_query_name(&name));
            }
            let self_ref = w.recursive && names_table(c.query.as_ref(), &name);
            defs.push(Def {
                columns: c
                    .alias
                    .columns
                    .iter()
                    .map(|x| x.name.value.clone())
                    .collect(),
                query: c.query.as_ref().clone(),
                self_ref,
                used: AtomicBool::new(false),
                binding: AtomicBool::new(false),
                result: Mutex::new(None),
                name,
            });
        }
        let with = Arc::new(With {
            recursive: w.recursive,
            defs,
        });
        let n = with.defs.len();
        self.ctes.push(Frame {
            with: with.clone(),
            visible: n,
        });
        let plan = self.select_body(q);
        let frame = self.ctes.len() - 1;
        let checked = plan.and_then(|p| self.check_unused(frame, &with).map(|()| p));
        self.ctes.pop();
        checked
    }

    /// Binds the definitions no reference reached, for their errors.
    fn check_unused(&mut self, frame: usize, with: &Arc<With>) -> R<()> {
        for (i, d) in with.defs.iter().enumerate() {
            if d.used.load(Ordering::Relaxed) {
                continue;
            }
            let subs = self.subplans.len();
            let mut scratch = From::empty();
            let r = self.bind_reference(frame, i, &d.name, &mut scratch);
            self.subplans.truncate(subs);
            r?;
        }
        Ok(())
    }

    /// The table a reference to an unqualified `name` means if it names a CTE:
    /// its index in `out`, or `None` for a catalog table.
    pub(super) fn cte_reference(
        &mut self,
        name: &str,
        alias: &str,
        out: &mut From,
    ) -> R<Option<usize>> {
        if self.ctes.is_empty() {
            return Ok(None);
        }
        if let Some(r) = self
            .recursing
            .iter()
            .rev()
            .find(|r| r.name.eq_ignore_ascii_case(name))
        {
            if self.outer_scopes.len() > r.outer_len {
                return Err(restrictions_violated(name));
            }
            let work = r.work.clone();
            return self.add_virtual(work, alias, out).map(Some);
        }
        for f in (0..self.ctes.len()).rev() {
            let frame = &self.ctes[f];
            if let Some(i) = frame.with.defs[..frame.visible]
                .iter()
                .position(|d| d.name.eq_ignore_ascii_case(name))
            {
                return self.bind_reference(f, i, alias, out).map(Some);
            }
        }
        Ok(None)
    }

    /// Binds definition `i` of frame `f` as a table of `out` named `alias`, in the
    /// scope of the definition.
    fn bind_reference(&mut self, f: usize, i: usize, alias: &str, out: &mut From) -> R<usize> {
        let with = self.ctes[f].with.clone();
        let def = &with.defs[i];
        def.used.store(true, Ordering::Relaxed);
        if def.binding.load(Ordering::Relaxed) {
            return Err(no_anchors(&def.name));
        }
        let mut scope: Vec<Frame> = self.ctes[..=f].to_vec();
        if !with.recursive {
            scope[f].visible = i;
        }
        let saved = std::mem::replace(&mut self.ctes, scope);
        def.binding.store(true, Ordering::Relaxed);
        let r = if def.self_ref {
            self.recursive_table(def)
                .and_then(|t| self.add_virtual(t, alias, out))
        } else {
            let cols = (!def.columns.is_empty()).then_some(def.columns.as_slice());
            self.derived_named(&def.query, alias, cols, true, out)
        };
        def.binding.store(false, Ordering::Relaxed);
        self.ctes = saved;
        r
    }

    /// The result table of a recursive definition, binding it the first time.
    fn recursive_table(&mut self, def: &Def) -> R<Arc<VirtualTable>> {
        if let Some(t) = def.result.lock().expect("cte result lock").clone() {
            return Ok(t);
        }
        let saved = std::mem::take(&mut self.outer_scopes);
        let cost = crate::stack::cost::derived(self.derived_depth);
        self.derived_depth += 1;
        let r = self.stack.enter(cost).and_then(|()| {
            self.depth += 1;
            let r = crate::stack::grow(|| self.bind_recursive(def));
            self.depth -= 1;
            self.stack.leave(cost);
            r
        });
        self.derived_depth -= 1;
        self.outer_scopes = saved;
        let t = r?;
        *def.result.lock().expect("cte result lock") = Some(t.clone());
        Ok(t)
    }

    fn bind_recursive(&mut self, def: &Def) -> R<Arc<VirtualTable>> {
        let q = &def.query;
        if q.order_by.is_some() || q.limit_clause.is_some() {
            return Err(MySqlError::not_supported(
                "global ORDER_BY/LIMIT in recursive CTE spec",
            ));
        }
        if q.with.is_some() {
            return Err(MySqlError::not_supported("WITH inside a recursive CTE"));
        }
        let leaves = union_leaves(&q.body)?;
        let distinct = leaves.iter().any(|(_, all)| !all);
        let (steps, anchors): (Vec<_>, Vec<_>) = leaves
            .into_iter()
            .map(|(b, _)| b)
            .partition(|b| names_table(*b, &def.name));
        if anchors.is_empty() {
            return Err(no_anchors(&def.name));
        }
        let mut anchor_plans = Vec::with_capacity(anchors.len());
        for a in anchors {
            let p = self.branch(a)?;
            check_width(&anchor_plans, &p)?;
            anchor_plans.push(p);
        }
        let mut types: Vec<ExprType> = anchor_plans[0].types.clone();
        for p in &anchor_plans[1..] {
            for (t, bt) in types.iter_mut().zip(&p.types) {
                *t = aggregate(t, bt);
            }
        }
        let names: Vec<String> = if def.columns.is_empty() {
            anchor_plans[0]
                .columns
                .iter()
                .map(|c| c.name.clone())
                .collect()
        } else {
            def.columns.clone()
        };
        if names.len() != types.len() {
            return Err(wrong_col_list());
        }
        super::from::check_dup_names(&names)?;
        let cols: Vec<_> = names
            .iter()
            .zip(&types)
            .map(|(n, t)| derived_column(n, &t.clone().nullable(true)))
            .collect();
        let table_def = crate::infoschema::columns_def("", &def.name, cols.clone());
        let work = Arc::new(VirtualTable::new(table_def.clone(), Vec::new()));
        let result = Arc::new(VirtualTable::new(table_def, Vec::new()));
        self.recursing.push(Recursing {
            name: def.name.clone(),
            work: work.clone(),
            outer_len: self.outer_scopes.len(),
        });
        let subs_start = self.subplans.len();
        let steps = self.bind_steps(&steps, &anchor_plans, &work, &def.name);
        self.recursing.pop();
        let steps = steps?;
        let subs = subs_start..self.subplans.len();
        let mut anchor_plans = anchor_plans.into_iter();
        let first = anchor_plans.next().expect("at least one anchor");
        self.subplans.push(SubPlan {
            plan: first,
            kind: SubKind::Scalar,
            target: Some(result.clone()),
            outer: Vec::new(),
            recursive: Some(Box::new(Recursion {
                anchors: anchor_plans.collect(),
                steps,
                work,
                distinct,
                columns: cols,
                types,
                subs,
            })),
            parent: self.current_select(),
        });
        self.reusable = false;
        Ok(result)
    }

    fn bind_steps(
        &mut self,
        steps: &[&SetExpr],
        anchors: &[SelectPlan],
        work: &Arc<VirtualTable>,
        name: &str,
    ) -> R<Vec<SelectPlan>> {
        let mut out = Vec::with_capacity(steps.len());
        for s in steps {
            let p = self.branch(s)?;
            check_width(anchors, &p)?;
            let work_dyn: Arc<dyn basalt_storage::Table> = work.clone();
            let outer_work = p
                .levels
                .iter()
                .any(|l| l.outer && Arc::ptr_eq(&p.tables[l.table].table, &work_dyn));
            if p.agg.is_some() || outer_work || p.operands().next().is_some() {
                return Err(restrictions_violated(name));
            }
            out.push(p);
        }
        Ok(out)
    }

    /// One UNION branch of a recursive definition.
    fn branch(&mut self, b: &SetExpr) -> R<SelectPlan> {
        match b {
            SetExpr::Select(s) => self.select_core(s, None, None, &[]),
            SetExpr::Query(inner) => self.select(inner),
            _ => Err(MySqlError::not_supported("this UNION branch")),
        }
    }
}

fn check_width(first: &[SelectPlan], p: &SelectPlan) -> R<()> {
    match first.first() {
        Some(f) if f.visible != p.visible => Err(MySqlError::new(
            1222,
            "21000",
            "The used SELECT statements have a different number of columns",
        )),
        _ => Ok(()),
    }
}
