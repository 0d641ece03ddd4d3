//! Multi-table UPDATE and DELETE binding.
//!
//! The FROM part (`UPDATE <tables> SET`, `DELETE <targets> FROM <tables>`,
//! `DELETE FROM <targets> USING <tables>`) binds as the FROM clause of a SELECT
//! and, with the WHERE clause (and UPDATE's ORDER BY / LIMIT), plans as one with
//! the join planner; the plan then lists the target tables and, for UPDATE, the
//! assignments of each, as expressions over the joined row.
//!
//! MariaDB 10.11's rules, which this follows:
//! - an UPDATE target is the table a SET column names (qualified, or the one
//!   table that has the column: 1054 / 1052 otherwise); a DELETE target names a
//!   table of the FROM part by its alias (1109 otherwise), once (1066);
//! - a target must be a base table or a view that merges into one (1288 for a
//!   derived table or a view that does not; 1348 for a view column that is an
//!   expression);
//! - multi-table UPDATE takes ORDER BY and LIMIT (over the joined rows);
//!   multi-table DELETE takes neither (1064 at the keyword);
//! - a subquery of a multi-table DELETE may not read a table being deleted from
//!   (1093); a derived table may, and so may any part of a multi-table UPDATE.

use super::{Binder, Clause, Scope};
use crate::front::lexer::{lex, TokKind};
use crate::front::parse::near_offset;
use crate::plan::multi_dml::{DmlTarget, MultiDml};
use crate::plan::ModifyPlan;
use basalt_common::MySqlError;
use sqlparser::ast::{self, TableFactor, TableWithJoins, Visit, Visitor};
use std::ops::ControlFlow;

type R<T> = Result<T, MySqlError>;

impl Binder<'_> {
    /// Whether the statement had the IGNORE modifier (see
    /// [`crate::front::dml_rewrite`]).
    pub(super) fn dml_ignore(&self) -> bool {
        if !self.text.contains(crate::front::dml_rewrite::IGNORE_MARKER) {
            return false;
        }
        let lexed = lex(self.text);
        crate::front::dml_rewrite::has_ignore(self.text, &lexed.tokens)
    }

    pub(super) fn multi_update(&mut self, u: &ast::Update) -> R<ModifyPlan> {
        if u.from.is_some() {
            return Err(self.near_keyword(&["from"]));
        }
        let sources = std::slice::from_ref(&u.table);
        let from = self.bind_sources(sources)?;
        // Targets in the order their first assignment names them.
        let mut targets: Vec<DmlTarget> = Vec::new();
        for a in &u.assignments {
            self.clause = Clause::Set;
            let (ti, ci) = set_column(&from.scope, &a.target)?;
            self.clause = Clause::FieldList;
            let t = &from.tables[ti];
            let Some(value) = self.assigned_value(&a.value, &from.scope, t, t.offset, ci)? else {
                continue;
            };
            match targets.iter_mut().find(|t| t.table == ti) {
                Some(t) => t.set.push((ci, value)),
                None => targets.push(DmlTarget {
                    table: ti,
                    set: vec![(ci, value)],
                    checks: Default::default(),
                }),
            }
        }
        for t in &mut targets {
            self.check_target(sources, &from, t.table, "UPDATE")?;
            let r = &from.tables[t.table];
            self.need(
                &r.db.clone(),
                &r.def.name.clone(),
                basalt_acl::Privs::UPDATE,
            );
            t.checks = self.bind_checks(&from.tables[t.table])?;
        }
        let scan = self.modify_scan(
            from,
            u.selection.as_ref(),
            &u.order_by,
            u.limit.as_ref(),
            &[],
        )?;
        Ok(multi_plan(scan, targets, false, self.dml_ignore()))
    }

    pub(super) fn multi_delete(&mut self, d: &ast::Delete) -> R<ModifyPlan> {
        if !d.order_by.is_empty() || d.limit.is_some() {
            return Err(self.near_keyword(&["order", "limit"]));
        }
        let list = match &d.from {
            ast::FromTable::WithFromKeyword(l) | ast::FromTable::WithoutKeyword(l) => l,
        };
        // `DELETE t1, t2 FROM <sources>` or `DELETE FROM t1, t2 USING <sources>`.
        let (names, sources): (Vec<ast::ObjectName>, &[TableWithJoins]) = match &d.using {
            Some(using) => (list.iter().map(target_name).collect::<R<_>>()?, using),
            None => (d.tables.clone(), list),
        };
        let from = self.bind_sources(sources)?;
        let mut targets: Vec<DmlTarget> = Vec::new();
        for name in &names {
            let ti = self.delete_target(&from, name)?;
            if targets.iter().any(|t| t.table == ti) {
                return Err(MySqlError::nonunique_table(&from.tables[ti].alias));
            }
            self.check_target(sources, &from, ti, "DELETE")?;
            let r = &from.tables[ti];
            self.need(
                &r.db.clone(),
                &r.def.name.clone(),
                basalt_acl::Privs::DELETE,
            );
            let checks = self.bind_delete_checks(&from.tables[ti])?;
            targets.push(DmlTarget {
                table: ti,
                set: Vec::new(),
                checks,
            });
        }
        let current = self.current_db().unwrap_or_default();
        if let Some(name) = subquery_reads_target(d, sources, &from, &targets, &current) {
            return Err(MySqlError::new(
                1093,
                "HY000",
                format!(
                    "Table '{name}' is specified twice, both as a target for 'DELETE' \
                     and as a separate source for data"
                ),
            ));
        }
        let scan = self.modify_scan(from, d.selection.as_ref(), &[], None, &[])?;
        Ok(multi_plan(scan, targets, true, self.dml_ignore()))
    }

    /// Binds the tables of the FROM part. Views merge where they can (so that
    /// one can be a target), except in an outer join, where a merged view's
    /// expression columns would not turn NULL with its row.
    fn bind_sources(&mut self, sources: &[TableWithJoins]) -> R<super::from::From> {
        let outer = sources.iter().any(|t| {
            t.joins.iter().any(|j| {
                matches!(
                    j.join_operator,
                    ast::JoinOperator::Left(_)
                        | ast::JoinOperator::LeftOuter(_)
                        | ast::JoinOperator::Right(_)
                        | ast::JoinOperator::RightOuter(_)
                )
            })
        });
        self.merge_expressions = !outer;
        let from = self.bind_from(sources);
        self.merge_expressions = false;
        from
    }

    /// The table of the FROM part a DELETE target names: by alias, and by
    /// database when the name has one.
    fn delete_target(&self, from: &super::from::From, name: &ast::ObjectName) -> R<usize> {
        let parts = super::object_parts(name);
        let (db, alias) = match parts.as_slice() {
            [a] => (None, a.as_str()),
            [d, a] => (Some(d.as_str()), a.as_str()),
            _ => return Err(MySqlError::parse_error(&name.to_string(), 1)),
        };
        from.tables
            .iter()
            .position(|t| t.alias == alias && db.is_none_or(|d| d == t.db))
            .ok_or_else(|| MySqlError::unknown_table(alias, "MULTI DELETE"))
    }

    /// 1288 unless table `ti` can be changed: a base table, or a view merged into
    /// one (with the checks of a view target).
    fn check_target(
        &mut self,
        sources: &[TableWithJoins],
        from: &super::from::From,
        ti: usize,
        what: &str,
    ) -> R<()> {
        let t = &from.tables[ti];
        if let Some(tf) = factor_named(sources, &t.alias) {
            if matches!(tf, TableFactor::Table { .. }) {
                self.check_view_target(tf, what)?;
            }
        }
        if t.db.is_empty() {
            return Err(super::view::not_updatable(&t.alias, what));
        }
        Ok(())
    }

    /// 1064 at the first of `words` at the top level of the statement.
    fn near_keyword(&self, words: &[&str]) -> MySqlError {
        let lexed = lex(self.raw);
        let mut depth = 0i32;
        for t in &lexed.tokens {
            match (t.kind, t.text(self.raw)) {
                (TokKind::Punct, "(") => depth += 1,
                (TokKind::Punct, ")") => depth -= 1,
                _ if depth == 0 && words.iter().any(|w| t.is_kw(self.raw, w)) => {
                    return near_offset(self.raw, t.start);
                }
                _ => {}
            }
        }
        near_offset(self.raw, self.raw.len())
    }
}

fn multi_plan(
    scan: crate::plan::SelectPlan,
    targets: Vec<DmlTarget>,
    delete: bool,
    ignore: bool,
) -> ModifyPlan {
    ModifyPlan {
        needs: Default::default(),
        scan,
        set: Vec::new(),
        delete,
        subs: Default::default(),
        checks: Default::default(),
        returning: None,
        ignore,
        multi: Some(Box::new(MultiDml { targets })),
    }
}

/// The table and column a SET target names: qualified by a table alias (and
/// database), or unqualified and found in exactly one table.
fn set_column(scope: &Scope, target: &ast::AssignmentTarget) -> R<(usize, usize)> {
    let ast::AssignmentTarget::ColumnName(name) = target else {
        return Err(MySqlError::not_supported("tuple assignment"));
    };
    let parts = super::object_parts(name);
    let full = parts.join(".");
    let (db, table, column) = match parts.as_slice() {
        [c] => (None, None, c.as_str()),
        [t, c] => (None, Some(t.as_str()), c.as_str()),
        [d, t, c] => (Some(d.as_str()), Some(t.as_str()), c.as_str()),
        _ => return Err(MySqlError::bad_field(&full, "SET")),
    };
    let mut found = None;
    for (ti, st) in scope.tables.iter().enumerate() {
        if table.is_some_and(|t| t != st.alias) || db.is_some_and(|d| d != st.db) {
            continue;
        }
        let ci = match super::view::view_column(st, column) {
            Ok(Some(ci)) => Some(ci),
            Ok(None) => st.def.column_index(column),
            // An expression column of a merged view: 1348 if it is the one named.
            Err(e) if table.is_some() => return Err(e),
            Err(_) => None,
        };
        if let Some(ci) = ci {
            if found.is_some() {
                return Err(MySqlError::ambiguous_field(column, "SET"));
            }
            found = Some((ti, ci));
        }
    }
    found.ok_or_else(|| MySqlError::bad_field(&full, "SET"))
}

/// A `DELETE FROM t1, t2 USING ...` target, as a name.
fn target_name(t: &TableWithJoins) -> R<ast::ObjectName> {
    match &t.relation {
        TableFactor::Table {
            name, alias: None, ..
        } if t.joins.is_empty() => Ok(name.clone()),
        _ => Err(MySqlError::parse_error("", 1)),
    }
}

/// The table factor of the FROM part that binds under `alias`.
fn factor_named<'a>(sources: &'a [TableWithJoins], alias: &str) -> Option<&'a TableFactor> {
    fn find<'a>(tf: &'a TableFactor, alias: &str) -> Option<&'a TableFactor> {
        match tf {
            TableFactor::Table { name, alias: a, .. } => {
                let own = match a {
                    Some(a) => a.name.value.clone(),
                    None => super::object_parts(name)
                        .last()
                        .cloned()
                        .unwrap_or_default(),
                };
                (own == alias).then_some(tf)
            }
            TableFactor::Derived { alias: Some(a), .. } => (a.name.value == alias).then_some(tf),
            TableFactor::NestedJoin {
                table_with_joins, ..
            } => in_list(std::slice::from_ref(table_with_joins), alias),
            _ => None,
        }
    }
    fn in_list<'a>(list: &'a [TableWithJoins], alias: &str) -> Option<&'a TableFactor> {
        list.iter().find_map(|t| {
            find(&t.relation, alias)
                .or_else(|| t.joins.iter().find_map(|j| find(&j.relation, alias)))
        })
    }
    in_list(sources, alias)
}

/// The name of a target table that a subquery of the DELETE (in WHERE or an ON
/// condition; derived tables aside) reads, if any.
fn subquery_reads_target(
    d: &ast::Delete,
    sources: &[TableWithJoins],
    from: &super::from::From,
    targets: &[DmlTarget],
    current: &str,
) -> Option<String> {
    let mut exprs: Vec<&ast::Expr> = d.selection.iter().collect();
    for t in sources {
        for j in &t.joins {
            if let Some(ast::JoinConstraint::On(e)) = join_constraint(&j.join_operator) {
                exprs.push(e);
            }
        }
    }
    let mut v = TargetReads {
        from,
        targets,
        current,
        derived: 0,
    };
    // Outside a subquery an expression names no table.
    exprs.iter().find_map(|e| match e.visit(&mut v) {
        ControlFlow::Break(name) => Some(name),
        ControlFlow::Continue(()) => None,
    })
}

/// Finds a target table that an expression's subqueries read outside derived
/// tables (those are materialised first, as MariaDB does).
struct TargetReads<'a> {
    from: &'a super::from::From,
    targets: &'a [DmlTarget],
    current: &'a str,
    derived: usize,
}

impl Visitor for TargetReads<'_> {
    type Break = String;

    fn pre_visit_table_factor(&mut self, tf: &TableFactor) -> ControlFlow<String> {
        if matches!(tf, TableFactor::Derived { .. }) {
            self.derived += 1;
        }
        ControlFlow::Continue(())
    }

    fn post_visit_table_factor(&mut self, tf: &TableFactor) -> ControlFlow<String> {
        if matches!(tf, TableFactor::Derived { .. }) {
            self.derived -= 1;
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_relation(&mut self, rel: &ast::ObjectName) -> ControlFlow<String> {
        if self.derived > 0 {
            return ControlFlow::Continue(());
        }
        let parts = super::object_parts(rel);
        let (db, name) = match parts.as_slice() {
            [n] => (self.current, n.as_str()),
            [d, n] => (d.as_str(), n.as_str()),
            _ => return ControlFlow::Continue(()),
        };
        let hit = self
            .targets
            .iter()
            .map(|t| &self.from.tables[t.table])
            .find(|t| t.db == db && t.def.name == name);
        match hit {
            Some(t) => ControlFlow::Break(t.def.name.clone()),
            None => ControlFlow::Continue(()),
        }
    }
}

fn join_constraint(op: &ast::JoinOperator) -> Option<&ast::JoinConstraint> {
    use ast::JoinOperator as J;
    match op {
        J::Join(c)
        | J::Inner(c)
        | J::Left(c)
        | J::LeftOuter(c)
        | J::Right(c)
        | J::RightOuter(c)
        | J::StraightJoin(c) => Some(c),
        _ => None,
    }
}
