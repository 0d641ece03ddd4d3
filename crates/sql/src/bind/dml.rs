//! INSERT / REPLACE, UPDATE and DELETE binding (single-table; several tables:
//! `multi_dml`).
//!
//! UPDATE and DELETE reuse the SELECT machinery for finding rows: their plan holds
//! a single-table [`SelectPlan`] (exclusive locks, ORDER BY keys as hidden
//! projections) plus the assignments.

use super::from::split_and;
use super::levels::{plan_levels, LevelInputs};
use super::returning::Target as ReturningTarget;
use super::{Binder, Clause, Scope};
use crate::expr::Expr;
use crate::plan::{InsertPlan, InsertSource, ModifyPlan, SelectPlan, SortKey, TableRef};
use crate::ty::{Class, ExprType};
use basalt_common::{Collation, ColumnDef, MySqlError, TableDef};
use basalt_storage::{LockMode, WaitPolicy};
use sqlparser::ast::{self, SetExpr};

type R<T> = Result<T, MySqlError>;

impl Binder<'_> {
    pub fn insert(&mut self, ins: &ast::Insert) -> R<InsertPlan> {
        let name = match &ins.table {
            ast::TableObject::TableName(n) => n,
            _ => return Err(MySqlError::not_supported("INSERT INTO TABLE FUNCTION")),
        };
        let (db, tname) = self.table_name(name)?;
        let mut privs = basalt_acl::Privs::INSERT;
        if ins.replace_into {
            privs |= basalt_acl::Privs::DELETE;
        }
        let mut column = None;
        if let Some(ast::OnInsert::DuplicateKeyUpdate(sets)) = &ins.on {
            // MariaDB asks SELECT on the columns the clause assigns.
            privs |= basalt_acl::Privs::UPDATE | basalt_acl::Privs::SELECT;
            column = sets.first().map(|a| a.target.to_string());
        }
        let before = self.needs.len();
        self.need(&db, &tname, privs);
        if self.needs.len() > before {
            self.needs[before].column = column;
        }
        if let Some(v) = self.view_of(&db, &tname) {
            let through = self.insert_through_view(ins, &v)?;
            self.unchecked += 1;
            let r = self.insert(&through);
            self.unchecked -= 1;
            return r;
        }
        let mut table = self.open_table(&db, &tname)?;
        crate::sequence::check_writable(&table.def())?;
        if let Some(parts) = &ins.partitioned {
            let names = parts
                .iter()
                .map(|e| match e {
                    ast::Expr::Identifier(i) => Ok(i.value.clone()),
                    other => Err(MySqlError::parse_error(&other.to_string(), 1)),
                })
                .collect::<Result<Vec<_>, _>>()?;
            table = super::part_select::select_partitions(table, &tname, &names)?;
        }
        if ins.insert_alias.is_some() {
            return Err(MySqlError::not_supported("INSERT ... AS row alias"));
        }
        if ins.priority == Some(ast::MysqlInsertPriority::Delayed) {
            // MariaDB runs DELAYED only for MyISAM, MEMORY, ARCHIVE and BLACKHOLE.
            return Err(MySqlError::new(
                1616,
                "HY000",
                format!("DELAYED option not supported for table '{tname}'"),
            ));
        }
        let def = table.def();
        let tref = TableRef {
            table,
            def: def.clone(),
            alias: tname.clone(),
            db,
            offset: 0,
            func: None,
        };
        self.clause = Clause::InsertInto;
        let mut columns = Vec::new();
        let targets: Vec<String> = if !ins.assignments.is_empty() {
            ins.assignments
                .iter()
                .map(|a| assignment_target(&a.target))
                .collect::<R<_>>()?
        } else {
            ins.columns
                .iter()
                .map(|c| super::object_parts(c).last().cloned().unwrap_or_default())
                .collect()
        };
        for n in &targets {
            let ci = def
                .column_index(n)
                .ok_or_else(|| MySqlError::bad_field(n, self.clause.name()))?;
            if columns.contains(&ci) {
                return Err(MySqlError::new(
                    1110,
                    "42000",
                    format!("Column '{}' specified twice", def.columns[ci].name),
                ));
            }
            columns.push(ci);
        }
        let explicit_columns = !columns.is_empty();
        if !explicit_columns {
            columns = (0..def.columns.len())
                .filter(|&ci| !def.columns[ci].invisible)
                .collect();
        }
        self.clause = Clause::FieldList;
        let source = if !ins.assignments.is_empty() {
            let empty = Scope::default();
            let row = ins
                .assignments
                .iter()
                .zip(&columns)
                .map(|(a, &ci)| self.value_or_default(&a.value, &empty, &def.columns[ci]))
                .collect::<R<Vec<_>>>()?;
            InsertSource::Values(vec![row])
        } else {
            let q = ins
                .source
                .as_ref()
                .ok_or_else(|| MySqlError::parse_error("", 1))?;
            self.insert_source(q, &def, &columns, explicit_columns)?
        };
        let on_dup = match &ins.on {
            Some(ast::OnInsert::DuplicateKeyUpdate(assigns)) => self.on_dup(assigns, &tref)?,
            Some(_) => return Err(MySqlError::not_supported("ON CONFLICT")),
            None => Vec::new(),
        };
        let checks = self.bind_checks(&tref)?;
        let returning = match &ins.returning {
            Some(items) => {
                let target = match source {
                    InsertSource::Select(_) => ReturningTarget::InsertSelect,
                    InsertSource::Values(_) => ReturningTarget::InsertValues,
                };
                Some(self.returning(items, &tref, None, target)?)
            }
            None => None,
        };
        Ok(InsertPlan {
            needs: Default::default(),
            table: tref,
            columns,
            source,
            on_dup,
            ignore: ins.ignore,
            replace: ins.replace_into,
            subs: Default::default(),
            checks,
            returning,
        })
    }

    fn insert_source(
        &mut self,
        q: &ast::Query,
        def: &TableDef,
        columns: &[usize],
        explicit: bool,
    ) -> R<InsertSource> {
        match q.body.as_ref() {
            SetExpr::Values(v) => {
                let empty = Scope::default();
                let mut rows = Vec::with_capacity(v.rows.len());
                for (i, r) in v.rows.iter().enumerate() {
                    let exprs = &r.content;
                    if exprs.is_empty() && !explicit {
                        rows.push(vec![None; columns.len()]);
                        continue;
                    }
                    if exprs.len() != columns.len() {
                        return Err(MySqlError::value_count_on_row(i as u64 + 1));
                    }
                    rows.push(
                        exprs
                            .iter()
                            .zip(columns)
                            .map(|(e, &ci)| self.value_or_default(e, &empty, &def.columns[ci]))
                            .collect::<R<Vec<_>>>()?,
                    );
                }
                Ok(InsertSource::Values(rows))
            }
            _ => {
                let plan = self.select(q)?;
                if plan.visible != columns.len() {
                    return Err(MySqlError::value_count_on_row(1));
                }
                Ok(InsertSource::Select(Box::new(plan)))
            }
        }
    }

    /// A VALUES item for column `col`: `None` for DEFAULT.
    fn value_or_default(
        &mut self,
        e: &ast::Expr,
        scope: &Scope,
        col: &ColumnDef,
    ) -> R<Option<Expr>> {
        if is_default_keyword(e) {
            return Ok(None);
        }
        Ok(Some(self.column_value(e, scope, col)?))
    }

    fn on_dup(&mut self, assigns: &[ast::Assignment], t: &TableRef) -> R<Vec<(usize, Expr)>> {
        let n = t.def.columns.len();
        let mut scope = Scope::default();
        scope.tables.push(super::ScopeTable {
            alias: t.alias.clone(),
            db: t.db.clone(),
            def: t.def.clone(),
            offset: 0,
            nullable: false,
            view: None,
            types: None,
        });
        for (i, c) in t.def.columns.iter().enumerate() {
            scope.named.push((
                format!("values.{}", c.name.to_ascii_lowercase()),
                n + i,
                ExprType::of_column(c),
            ));
        }
        let mut out = Vec::new();
        for a in assigns {
            self.clause = Clause::OnDupTarget;
            let target = assignment_target(&a.target)?;
            let ci = t
                .def
                .column_index(&target)
                .ok_or_else(|| MySqlError::bad_field(&target, self.clause.name()))?;
            self.clause = Clause::FieldList;
            if let Some(value) = self.assigned_value(&a.value, &scope, t, 0, ci)? {
                out.push((ci, value));
            }
        }
        Ok(out)
    }

    pub fn update(&mut self, u: &ast::Update) -> R<ModifyPlan> {
        if u.returning.is_some() {
            return Err(self.no_returning_here());
        }
        if !u.table.joins.is_empty() || u.from.is_some() {
            return self.multi_update(u);
        }
        if let ast::TableFactor::Derived { alias, .. } = &u.table.relation {
            let name = alias.as_ref().map(|a| a.name.value.as_str()).unwrap_or("");
            return Err(super::view::not_updatable(name, "UPDATE"));
        }
        self.merge_expressions = self.check_view_target(&u.table.relation, "UPDATE")?;
        let mark = self.needs.len();
        let from = self.bind_from(std::slice::from_ref(&u.table));
        self.merge_expressions = false;
        let from =
            from.inspect_err(|_| self.retarget_need(mark, basalt_acl::Privs::UPDATE, None))?;
        // The target's need, if it has one (a temporary table has none).
        let target_need = (self.needs.len() > mark).then_some(mark);
        if from.tables.len() != 1 {
            return Err(MySqlError::not_supported("multi-table UPDATE"));
        }
        let mut set = Vec::new();
        for a in &u.assignments {
            self.clause = Clause::Set;
            let target = assignment_target(&a.target)?;
            let t = &from.tables[0];
            let ci = match super::view::view_column(&from.scope.tables[0], &target)? {
                Some(ci) => ci,
                None => t
                    .def
                    .column_index(&target)
                    .ok_or_else(|| MySqlError::bad_field(&target, self.clause.name()))?,
            };
            if let Some(e) = self.assigned_value(&a.value, &from.scope, t, t.offset, ci)? {
                set.push((ci, e));
            }
        }
        let read = first_column(
            u.selection
                .iter()
                .chain(u.assignments.iter().map(|a| &a.value)),
        );
        if let Some(at) = target_need {
            self.retarget_need(at, basalt_acl::Privs::UPDATE, read);
        }
        let checks = self.bind_checks(&from.tables[0])?;
        let scan = self.modify_scan(
            from,
            u.selection.as_ref(),
            &u.order_by,
            u.limit.as_ref(),
            &set,
        )?;
        Ok(ModifyPlan {
            needs: Default::default(),
            scan,
            set,
            delete: false,
            subs: Default::default(),
            checks,
            returning: None,
            ignore: self.dml_ignore(),
            multi: None,
        })
    }

    pub fn delete(&mut self, d: &ast::Delete) -> R<ModifyPlan> {
        let list = match &d.from {
            ast::FromTable::WithFromKeyword(l) | ast::FromTable::WithoutKeyword(l) => l,
        };
        let multi_table = !d.tables.is_empty()
            || d.using.is_some()
            || list.len() != 1
            || !list[0].joins.is_empty();
        if multi_table && d.returning.is_some() {
            return Err(self.no_returning_here());
        }
        if multi_table {
            return self.multi_delete(d);
        }
        self.merge_expressions = self.check_view_target(&list[0].relation, "DELETE")?;
        let mark = self.needs.len();
        let from = self.bind_from(list);
        self.merge_expressions = false;
        let from =
            from.inspect_err(|_| self.retarget_need(mark, basalt_acl::Privs::DELETE, None))?;
        let read = first_column(d.selection.iter());
        self.retarget_need(mark, basalt_acl::Privs::DELETE, read);
        let returning = match &d.returning {
            Some(items) => {
                let table = from
                    .tables
                    .first()
                    .cloned()
                    .ok_or_else(|| MySqlError::internal("DELETE without a table"))?;
                let scope = from.scope.clone();
                Some(self.returning(items, &table, Some(&scope), ReturningTarget::Delete)?)
            }
            None => None,
        };
        let checks = match from.tables.first() {
            Some(t) => self.bind_delete_checks(t)?,
            None => Default::default(),
        };
        let scan = self.modify_scan(
            from,
            d.selection.as_ref(),
            &d.order_by,
            d.limit.as_ref(),
            &[],
        )?;
        Ok(ModifyPlan {
            needs: Default::default(),
            scan,
            set: Vec::new(),
            delete: true,
            subs: Default::default(),
            checks,
            returning,
            ignore: self.dml_ignore(),
            multi: None,
        })
    }

    pub(super) fn modify_scan(
        &mut self,
        from: super::from::From,
        selection: Option<&ast::Expr>,
        order_by: &[ast::OrderByExpr],
        limit: Option<&ast::Expr>,
        set: &[(usize, Expr)],
    ) -> R<SelectPlan> {
        for t in &from.tables {
            crate::sequence::check_writable(&t.def)?;
        }
        self.clause = Clause::Where;
        let filter = match selection {
            Some(w) => Some(self.condition(w, &from.scope, None)?.0),
            None => None,
        };
        // A merged view's WHERE (the only ON condition a one-table target has).
        let filter = super::view::and_filters(filter, &from.inner_on);
        self.clause = Clause::Order;
        let mut project = Vec::new();
        let mut order = Vec::new();
        let mut order_cols = Vec::new();
        for (i, o) in order_by.iter().enumerate() {
            let (e, t) = self.expr(&o.expr, &from.scope, None)?;
            let desc = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
            if let Some(c) = e.as_column() {
                order_cols.push((c, desc));
            }
            let coll = if t.class == Class::String {
                t.collation
            } else {
                Collation::Binary
            };
            project.push(e);
            order.push(SortKey {
                column: i,
                desc,
                coll,
                fixed: t.fixedbin,
            });
        }
        let limit = match limit {
            Some(l) => Some(self.expr(l, &Scope::default(), None)?.0),
            None => None,
        };
        let width = from.width;
        // Every column of every table: the rows are written back whole.
        let all_cols: Vec<Vec<usize>> = from
            .tables
            .iter()
            .map(|t| (0..t.width()).collect())
            .collect();
        let index_order =
            (order_cols.len() == order.len() && !order.is_empty()).then_some(order_cols);
        let limit_hint = match &limit {
            Some(Expr::Const(v)) => crate::value::to_num(v).0.to_i64().map(|x| x.max(0) as u64),
            Some(_) => Some(100),
            None => None,
        };
        let _ = set;
        let (engine, stripped) = (self.cx.engine.clone(), self.params.stripped);
        let constant = move |e: &Expr| crate::expr::fold::constant_value(&engine, e, stripped);
        let planned = plan_levels(LevelInputs {
            from: &from,
            conjuncts: filter.map(split_and).unwrap_or_default(),
            needed: all_cols,
            order: index_order,
            limit: limit_hint,
            planner: self.cx.planner,
            constant: &constant,
        });
        if planned.uses_values {
            self.reusable = false;
        }
        let order = if planned.order_satisfied {
            Vec::new()
        } else {
            order
        };
        Ok(SelectPlan {
            needs: Default::default(),
            reads_tables: true,
            calls_writer: false,
            types: Vec::new(),
            subs: Default::default(),
            union: Vec::new(),
            setop: None,
            window: None,
            pos: (0, 0, 0),
            tables: from.tables,
            levels: crate::plan::mark_constants(planned.levels),
            row_width: width,
            const_filter: planned.const_filter,
            agg: None,
            having: None,
            visible: 0,
            project,
            distinct: false,
            order,
            limit,
            offset: None,
            columns: Vec::new().into(),
            lock: LockMode::Exclusive,
            wait: WaitPolicy::Wait,
            calc_found_rows: false,
        })
    }
}

impl Binder<'_> {
    /// The value an assignment gives column `ci` of table `t` (whose row starts
    /// at `offset`): `col = DEFAULT` is the column's default; `None` for DEFAULT
    /// into a generated column, whose value is computed anyway.
    pub(super) fn assigned_value(
        &mut self,
        value: &ast::Expr,
        scope: &Scope,
        t: &TableRef,
        offset: usize,
        ci: usize,
    ) -> R<Option<Expr>> {
        let col = &t.def.columns[ci];
        if !is_default_keyword(value) {
            return self.column_value(value, scope, col).map(Some);
        }
        if col.generated.is_some() {
            return Ok(None);
        }
        let st = super::ScopeTable {
            alias: t.alias.clone(),
            db: t.db.clone(),
            def: t.def.clone(),
            offset,
            nullable: false,
            view: None,
            types: None,
        };
        let (e, ty) = self.column_default(&st, col)?;
        Ok(Some(super::strings::into_column(e, &ty, col)))
    }
}

/// The bare word DEFAULT as a value (VALUES item, SET assignment).
pub(super) fn is_default_keyword(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Identifier(id)
        if id.quote_style.is_none() && id.value.eq_ignore_ascii_case("default"))
}

fn assignment_target(t: &ast::AssignmentTarget) -> R<String> {
    match t {
        ast::AssignmentTarget::ColumnName(n) => {
            Ok(super::object_parts(n).last().cloned().unwrap_or_default())
        }
        ast::AssignmentTarget::Tuple(_) => Err(MySqlError::not_supported("tuple assignment")),
    }
}

/// The first column an expression of `exprs` reads (for the SELECT privilege an
/// UPDATE or DELETE needs when it reads its table).
pub(super) fn first_column<'e>(exprs: impl Iterator<Item = &'e ast::Expr>) -> Option<String> {
    use std::ops::ControlFlow;
    for e in exprs {
        let mut found = None;
        let _ = ast::visit_expressions(e, |x| {
            match x {
                ast::Expr::Identifier(i) => found = Some(i.value.clone()),
                ast::Expr::CompoundIdentifier(parts) => {
                    found = parts.last().map(|i| i.value.clone())
                }
                _ => return ControlFlow::Continue(()),
            }
            ControlFlow::Break(())
        });
        if found.is_some() {
            return found;
        }
    }
    None
}
