//! Statement dispatch: native statements, the plan cache, full parses, and running
//! plans inside the session's transaction.

use super::ctx::Level;
use super::{Out, Session};
use crate::bind::Binder;
use crate::exec::scan::Flow;
use crate::exec::{insert, modify, select};
use crate::expr::EvalCtx;
use crate::front::bulk::BulkInsert;
use crate::front::native::{Native, PrepareSource, Show, UsingArg};
use crate::front::{Front, Stripped};
use crate::plan::cache::CacheEntry;
use crate::plan::Plan;
use crate::result::QueryResult;
use basalt_common::{MySqlError, Row, Value};
use basalt_storage::LockMode;
use sqlparser::ast::Statement;
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

impl Session {
    pub(super) fn run_statement(&mut self, text: &str, out: &mut Out<'_>) -> R<QueryResult> {
        self.clear_interrupt();
        self.extra_status = 0;
        if let Some(r) = self.run_memoized(text, out) {
            return r;
        }
        self.raw.clear();
        self.raw.push_str(text);
        let mode = self.cx.mode;
        let front = crate::front::analyze(text, !mode.no_backslash_escapes, mode.pipes_as_concat);
        let keeps_diagnostics = matches!(
            &front,
            Ok(Front::Native(Native::Show(Show::Warnings { .. })))
        );
        if !keeps_diagnostics {
            self.cx.clear_warnings();
        }
        self.cx.stmt_time = self.cx.clock();
        let r = match front {
            Ok(Front::Native(Native::SetStatement { items, body })) => {
                // Records its own errors; the statement after FOR runs (and is
                // timed) as a statement of its own.
                return self.set_statement(items, &body, out);
            }
            Ok(front) => self.timed(|me| me.run_front(front, out)),
            Err(e) => Err(e),
        };
        let mut r = r;
        match &mut r {
            Err(e) => {
                self.cx.warn(Level::Error, e.code, e.message.clone());
                for w in std::mem::take(&mut self.cx.trailing) {
                    self.cx.warn(w.level, w.code, w.message);
                }
            }
            // Notes and warnings of DDL, SET, DROP ... IF EXISTS reach the client.
            Ok(QueryResult::Ok { warnings, .. }) => *warnings = self.warning_count(),
            Ok(_) => self.cx.trailing.clear(),
        }
        r
    }

    fn run_front(&mut self, front: Front<'_>, out: &mut Out<'_>) -> R<QueryResult> {
        match front {
            Front::Native(n) => self.native(n, out),
            Front::Cached(s) => self.cached(s, out),
            Front::Bulk(b) => self.bulk(b, out),
            Front::Parse(t) => self.parse_run(&t, out),
        }
    }

    /// Runs a statement whose exact text was planned before, if it is memoized
    /// and its plan is current.
    fn run_memoized(&mut self, text: &str, out: &mut Out<'_>) -> Option<R<QueryResult>> {
        self.refresh_scope();
        let version = self.cx.engine.storage.schema_version();
        let (plan, params) = match self.memo.get(text) {
            Some(m) if m.schema_version == version => (m.plan.clone(), m.params.clone()),
            _ => return None,
        };
        self.cx.clear_warnings();
        self.cx.stmt_time = self.cx.clock();
        let r = self.timed(|me| me.run_plan(&plan, &params, out));
        if let Err(e) = &r {
            self.cx.warn(Level::Error, e.code, e.message.clone());
        }
        Some(r)
    }

    fn memoize(&mut self, text: &str, plan: &Arc<Plan>, params: &[Value], version: u64) {
        if self.memo.len() >= super::MEMO_CAP {
            self.memo.clear();
        }
        let m = super::Memo {
            plan: plan.clone(),
            params: params.into(),
            schema_version: version,
        };
        self.memo.insert(text.to_string(), m);
    }

    fn native(&mut self, n: Native, out: &mut Out<'_>) -> R<QueryResult> {
        self.cx.row_count = 0;
        match n {
            Native::Show(s) => crate::show::run(self, s),
            Native::Prepare { name, source } => {
                let text = match source {
                    PrepareSource::Text(t) => String::from_utf8_lossy(&t).into_owned(),
                    PrepareSource::UserVar(v) => match self.cx.user_vars.get(&v) {
                        Some(Value::Null) | None => "NULL".to_string(),
                        Some(val) => val.display_lossy(),
                    },
                };
                if let Some(old) = self.sql_prepared.remove(&name) {
                    self.close_prepared(old);
                }
                let info = self.prepare(&text)?;
                self.sql_prepared.insert(name, info.id);
                let mut ok = QueryResult::ok(0);
                if let QueryResult::Ok { info: i, .. } = &mut ok {
                    *i = "Statement prepared".into();
                }
                Ok(ok)
            }
            Native::Execute { name, using } => {
                let id = *self
                    .sql_prepared
                    .get(&name)
                    .ok_or_else(|| MySqlError::unknown_stmt_handler(&name, "EXECUTE"))?;
                let backslash = !self.cx.mode.no_backslash_escapes;
                let params: Vec<Value> = using
                    .into_iter()
                    .map(|u| match u {
                        UsingArg::Var(v) => {
                            self.cx.user_vars.get(&v).cloned().unwrap_or(Value::Null)
                        }
                        UsingArg::Value(v) => v,
                        UsingArg::Str(s) => {
                            Value::Bytes(crate::front::lexer::unquote(&s, backslash))
                        }
                    })
                    .collect();
                self.execute_prepared_inner(id, &params, "EXECUTE", out)
            }
            Native::Deallocate { name } => {
                let id = self
                    .sql_prepared
                    .remove(&name)
                    .ok_or_else(|| MySqlError::unknown_stmt_handler(&name, "DEALLOCATE PREPARE"))?;
                self.close_prepared(id);
                Ok(QueryResult::ok(0))
            }
            Native::Begin {
                read_only,
                consistent_snapshot,
            } => {
                self.begin(read_only, consistent_snapshot)?;
                Ok(QueryResult::ok(0))
            }
            Native::Commit { chain, release } => self.end_transaction(true, chain, release),
            Native::Rollback { chain, release } => self.end_transaction(false, chain, release),
            Native::SetTransaction {
                scope,
                isolation,
                read_only,
            } => {
                self.set_transaction(scope, isolation, read_only)?;
                Ok(QueryResult::ok(0))
            }
            Native::SetCharset(cs) => self.set_charset(cs),
            Native::SetNames { charset, collation } => self.set_names(charset, collation),
            Native::Set(items) => self.run_set(items),
            Native::SetStatement { items, body } => self.set_statement(items, &body, out),
            Native::Use(db) => {
                self.use_database(&db)?;
                Ok(QueryResult::ok(0))
            }
            Native::Shutdown => {
                self.cx.engine.hooks().shutdown(self.cx.conn_id)?;
                Ok(QueryResult::ok(0))
            }
            Native::Unsupported(what) => Err(MySqlError::not_supported(what)),
        }
    }

    /// Brings the plan-cache scope (current database, result character set and
    /// the sql_mode flags that change how statements bind, all of which plans
    /// depend on) up to date.
    fn refresh_scope(&mut self) {
        let (db, cs, pipes, _) = &self.scope_cache;
        if db.as_deref() == self.cx.db.as_deref()
            && *cs == self.cx.results_charset
            && *pipes == self.cx.mode.pipes_as_concat
        {
            return;
        }
        self.memo.clear();
        let cs = self.cx.results_charset.map_or("", |c| c.name());
        let pipes = self.cx.mode.pipes_as_concat;
        let scope = format!(
            "{}\u{1}{}\u{1}{}",
            self.cx.db.as_deref().unwrap_or(""),
            cs,
            pipes as u8
        );
        self.scope_cache = (self.cx.db.clone(), self.cx.results_charset, pipes, scope);
    }

    fn cached(&mut self, s: Stripped<'_>, out: &mut Out<'_>) -> R<QueryResult> {
        let engine = self.cx.engine.clone();
        let version = engine.storage.schema_version();
        self.refresh_scope();
        if let Some(entry) = engine.plan_cache.get(&self.scope_cache.3, &s.key, version) {
            return match &entry.plan {
                Some(p) => {
                    self.memoize(s.text(), p, &s.params, version);
                    self.run_plan(p, &s.params, out)
                }
                None => self.parse_run(&s.original(), out),
            };
        }
        let scope = self.scope_cache.3.clone();
        match self.build_stripped(&s) {
            Ok(Some(plan)) => {
                let plan = Arc::new(plan);
                engine.plan_cache.insert(
                    &scope,
                    &s.key,
                    CacheEntry {
                        plan: Some(plan.clone()),
                        schema_version: version,
                    },
                );
                self.memoize(s.text(), &plan, &s.params, version);
                self.run_plan(&plan, &s.params, out)
            }
            Ok(None) => {
                engine.plan_cache.insert(
                    &scope,
                    &s.key,
                    CacheEntry {
                        plan: None,
                        schema_version: version,
                    },
                );
                self.parse_run(&s.original(), out)
            }
            Err(_) => self.parse_run(&s.original(), out),
        }
    }

    /// Runs a bulk insert through the cached plan of its one-row form, repeated
    /// for every row; the full parse when that plan cannot be repeated.
    fn bulk(&mut self, b: BulkInsert<'_>, out: &mut Out<'_>) -> R<QueryResult> {
        let engine = self.cx.engine.clone();
        let version = engine.storage.schema_version();
        self.refresh_scope();
        let plan = match engine.plan_cache.get(&self.scope_cache.3, &b.key, version) {
            Some(entry) => entry.plan.clone(),
            None => {
                let backslash = !self.cx.mode.no_backslash_escapes;
                let plan = match b.template(backslash) {
                    Some(t) => self.build_stripped(&t).ok().flatten().map(Arc::new),
                    None => None,
                };
                let scope = self.scope_cache.3.clone();
                engine.plan_cache.insert(
                    &scope,
                    &b.key,
                    CacheEntry {
                        plan: plan.clone(),
                        schema_version: version,
                    },
                );
                plan
            }
        };
        match plan.and_then(|p| crate::plan::repeat_insert_row(&p, b.width, b.rows)) {
            Some(p) => self.run_plan(&p, &b.params, out),
            None => self.parse_run(&b.original(), out),
        }
    }

    /// Plans the literal-stripped text; `Ok(None)` when the plan would depend on the
    /// literal values.
    fn build_stripped(&mut self, s: &Stripped<'_>) -> R<Option<Plan>> {
        let parse_text = s.parse_text();
        let stmt = self.parse(&parse_text)?;
        let storage = self.cx.engine.storage.clone();
        let raw = self.raw.clone();
        let mut b = Binder::new(&storage, &self.cx, &parse_text, Some(&s.params)).with_raw(&raw);
        let plan = match &stmt {
            Statement::Query(q) => Plan::Select(b.select(q)?),
            Statement::Insert(i) => Plan::Insert(b.insert(i)?),
            Statement::Update(u) => Plan::Modify(b.update(u)?),
            Statement::Delete(d) => Plan::Modify(b.delete(d)?),
            _ => return Ok(None),
        };
        let mut plan = plan;
        b.attach_subqueries(&mut plan);
        Ok(b.reusable.then_some(plan))
    }

    pub(super) fn parse_run(&mut self, text: &str, out: &mut Out<'_>) -> R<QueryResult> {
        let stmt = self.parse(text)?;
        match self.plan_statement(&stmt, text, false)? {
            Some(plan) => self.run_plan(&plan, &[], out),
            None => self.utility(stmt, text),
        }
    }

    /// Binds a DML statement to a plan (`None` for other statements).
    pub(super) fn plan_statement(
        &mut self,
        stmt: &Statement,
        text: &str,
        prepared: bool,
    ) -> R<Option<Plan>> {
        Ok(self.plan_statement_with(stmt, text, prepared, None)?.0)
    }

    /// [`Session::plan_statement`], with the values of a prepared statement's
    /// parameters when they are known (they type the `?`s as literals would); also
    /// tells whether a `?` stands in the select list.
    pub(super) fn plan_statement_with(
        &mut self,
        stmt: &Statement,
        text: &str,
        prepared: bool,
        values: Option<&[Value]>,
    ) -> R<(Option<Plan>, bool)> {
        let storage = self.cx.engine.storage.clone();
        let raw = if self.raw.is_empty() {
            text.to_string()
        } else {
            self.raw.clone()
        };
        let mut b = Binder::new(&storage, &self.cx, text, values).with_raw(&raw);
        if prepared {
            b = b.prepared();
        }
        let mut plan = match stmt {
            Statement::Query(q) => Plan::Select(b.select(q)?),
            Statement::Insert(i) => Plan::Insert(b.insert(i)?),
            Statement::Update(u) => Plan::Modify(b.update(u)?),
            Statement::Delete(d) => Plan::Modify(b.delete(d)?),
            _ => return Ok((None, false)),
        };
        b.attach_subqueries(&mut plan);
        Ok((Some(plan), b.param_in_projection))
    }

    /// Runs a plan with parameter values, after the table-lock checks. A SELECT's
    /// rows go to `out` as they are produced; the returned result set holds none
    /// of them.
    pub(super) fn run_plan(
        &mut self,
        plan: &Plan,
        params: &[Value],
        out: &mut Out<'_>,
    ) -> R<QueryResult> {
        let entered = self.enter_plan(plan)?;
        let r = self.run_plan_unlocked(plan, params, out);
        self.leave(entered);
        r
    }

    fn run_plan_unlocked(
        &mut self,
        plan: &Plan,
        params: &[Value],
        out: &mut Out<'_>,
    ) -> R<QueryResult> {
        match plan {
            Plan::Select(p) => {
                if p.levels.iter().any(|l| l.explain.access_type == "ALL") {
                    self.extra_status |= crate::status::NO_INDEX_USED;
                }
                out.columns(&p.columns, self.status_flags());
                let mut emit = |row: &mut Row, _: &mut EvalCtx| -> R<Flow> {
                    out.row(row)?;
                    Ok(Flow::Continue)
                };
                let found = if p.reads_tables {
                    self.in_statement(params, p.lock == LockMode::Consistent, |ex| {
                        select::run_into(p, ex, &mut emit)
                    })?
                } else {
                    self.without_txn(params, |ex| select::run_into(p, ex, &mut emit))?
                };
                self.cx.found_rows = found;
                self.cx.row_count = -1;
                Ok(QueryResult::Rows {
                    columns: p.columns.clone(),
                    rows: Vec::new(),
                })
            }
            Plan::Insert(p) => {
                let o = self.in_statement(params, false, |ex| insert::run(p, ex))?;
                if o.last_insert_id != 0 {
                    self.cx.last_insert_id = o.last_insert_id;
                }
                if let Some(ret) = &p.returning {
                    return Ok(self.returned(ret, o.returned));
                }
                self.cx.row_count = o.affected as i64;
                let multi = matches!(&p.source, crate::plan::InsertSource::Select(_))
                    || matches!(&p.source, crate::plan::InsertSource::Values(v) if v.len() > 1);
                let info = if multi {
                    format!(
                        "Records: {}  Duplicates: {}  Warnings: {}",
                        o.records, o.duplicates, self.cx.warning_total
                    )
                } else {
                    String::new()
                };
                Ok(QueryResult::Ok {
                    affected_rows: o.affected,
                    last_insert_id: if o.last_insert_id != 0 {
                        o.last_insert_id
                    } else {
                        o.explicit_id
                    },
                    info,
                    warnings: self.warning_count(),
                })
            }
            Plan::Modify(p) => {
                let o = self.in_statement(params, false, |ex| modify::run(p, ex, false))?;
                if let Some(ret) = &p.returning {
                    return Ok(self.returned(ret, o.returned));
                }
                let affected = if self.found_rows && !p.delete {
                    o.matched
                } else {
                    o.changed
                };
                self.cx.row_count = affected as i64;
                let info = if p.delete {
                    String::new()
                } else {
                    format!(
                        "Rows matched: {}  Changed: {}  Warnings: {}",
                        o.matched, o.changed, self.cx.warning_total
                    )
                };
                Ok(QueryResult::Ok {
                    affected_rows: affected,
                    last_insert_id: 0,
                    info,
                    warnings: self.warning_count(),
                })
            }
        }
    }
}

impl Session {
    /// The result set of a RETURNING clause; ROW_COUNT() is then -1, as after a
    /// SELECT (MariaDB).
    fn returned(
        &mut self,
        ret: &crate::plan::Returning,
        rows: Vec<basalt_common::Row>,
    ) -> QueryResult {
        self.cx.row_count = -1;
        QueryResult::Rows {
            columns: ret.columns.clone(),
            rows,
        }
    }
}
