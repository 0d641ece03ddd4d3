//! Statement dispatch: native statements, the plan cache, full parses, and running
//! plans inside the session's transaction.

use super::{Out, Session};
use crate::bind::Binder;
use crate::exec::scan::Flow;
use crate::exec::{insert, modify, select};
use crate::expr::EvalCtx;
use crate::front::bulk::BulkInsert;
use crate::front::native::{Native, Show};
use crate::front::transcode::TextCharsets;
use crate::front::{Front, LitOpts, Stripped};
use crate::plan::cache::CacheEntry;
use crate::plan::Plan;
use crate::result::QueryResult;
use crate::stats::Stat;
use basalt_common::{MySqlError, Row, Value};
use basalt_storage::LockMode;
use sqlparser::ast::Statement;
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// The session settings a plan-cache scope key was made for.
#[derive(Clone, Debug)]
struct ScopeState {
    db: Option<String>,
    results: Option<basalt_common::Charset>,
    pipes: bool,
    charsets: TextCharsets,
    collation: basalt_common::Collation,
    planner: crate::plan::switch::Planner,
    /// The stored-program scope statements bind in (0: none).
    sp: u64,
}

/// The plan-cache scope of a session (see `Session::refresh_scope`).
#[derive(Default)]
pub(crate) struct PlanScope {
    state: Option<ScopeState>,
    key: String,
    key_transcoded: String,
}

impl Session {
    pub(super) fn run_statement(&mut self, text: &str, out: &mut Out<'_>) -> R<QueryResult> {
        if self.cx.privs.limits.counts_statements() {
            self.count_statement(text)?;
        }
        let com = crate::stats::com::classify(text);
        self.start_clock(out);
        self.digest = None;
        self.running_com = com;
        let counters = &self.cx.stats.counters;
        counters.bump(Stat::Queries);
        if let Some(c) = com {
            counters.bump(c);
        }
        let r = self.run_counted(text, out);
        // What does not parse counts in no Com_* (MariaDB counts after parsing).
        if let (Some(c), Err(e)) = (com, &r) {
            if e.code == basalt_common::error::code::ER_PARSE_ERROR {
                self.cx.stats.counters.unbump(c);
            }
        }
        r
    }

    /// Runs a statement without counting it (DO counts as itself, not as the
    /// SELECT it runs).
    pub(super) fn run_counted(&mut self, text: &str, out: &mut Out<'_>) -> R<QueryResult> {
        let mut attempts = 0;
        loop {
            let r = self.run_statement_once(text, out);
            // A write planned against a table that an ALTER TABLE replaced meanwhile
            // (1412) changed nothing; it is planned and run again on the new table,
            // as MariaDB reopens the table after its metadata lock wait. A 1412 for
            // a transaction's snapshot older than the new table is the client's to
            // retry (see `Session::replanable`).
            match &r {
                Err(e) if e.code == 1412 && attempts < 3 && self.replanable() => attempts += 1,
                _ => return r,
            }
        }
    }

    /// After a 1412: whether the statement may be planned and run again (in
    /// autocommit mode, or when it only met a table replaced while it waited).
    pub(super) fn replanable(&self) -> bool {
        self.txn
            .as_ref()
            .is_none_or(basalt_storage::Txn::met_replaced_table)
    }

    fn run_statement_once(&mut self, text: &str, out: &mut Out<'_>) -> R<QueryResult> {
        self.clear_interrupt();
        self.extra_status = 0;
        if let Some(r) = self.run_memoized(text, out) {
            return r;
        }
        // A long statement may parse into an AST as deep as it is long.
        crate::stack::for_text(text.len(), || self.run_text(text, out))
    }

    /// Starts the statement's diagnostics: the previous list is cleared, or kept
    /// when the statement reads no table (`reads_no_table`, only asked when
    /// there is a list to keep).
    fn begin_diagnostics(&mut self, reads_no_table: impl FnOnce() -> bool) {
        if self.cx.warning_total > 0 && reads_no_table() {
            self.cx.keep_warnings();
        } else {
            self.cx.clear_warnings();
        }
    }

    pub(super) fn run_text(&mut self, text: &str, out: &mut Out<'_>) -> R<QueryResult> {
        self.raw.clear();
        self.raw.push_str(text);
        let front = crate::front::analyze_with(text, self.lit_opts());
        let keeps_diagnostics = matches!(
            &front,
            Ok(Front::Native(Native::Show(Show::Warnings { .. })))
        );
        if !keeps_diagnostics {
            self.begin_diagnostics(|| match &front {
                Ok(Front::Native(n)) => reads_no_table(n),
                _ => selects_no_table(text),
            });
        }
        self.showing_diagnostics = keeps_diagnostics;
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
        if r.is_ok() {
            if let Err(e) = self.log_ddl_done() {
                r = Err(e);
            }
        } else {
            self.ddl_to_log = false;
        }
        let program_warnings = self.program_warnings.take();
        match &mut r {
            // An error of a stored program's statement is in the list already.
            Err(_) if std::mem::take(&mut self.sp_error_listed) => {}
            Err(e) => self.cx.list_error_and_trailing(e),
            // Notes and warnings of DDL, SET, DROP ... IF EXISTS reach the client.
            Ok(QueryResult::Ok { warnings, .. }) => {
                *warnings = match program_warnings {
                    Some(n) => n.min(u16::MAX as usize) as u16,
                    None => self.warning_count(),
                }
            }
            Ok(_) => self.cx.trailing.clear(),
        }
        r
    }

    fn run_front(&mut self, front: Front<'_>, out: &mut Out<'_>) -> R<QueryResult> {
        if self.cx.privs.password_expired {
            self.check_expired(match &front {
                Front::Native(n) => Some(n),
                _ => None,
            })?;
        }
        match front {
            Front::Native(n) => self.native(n, out),
            Front::Cached(s) => self.cached(s, out),
            Front::Bulk(b) => self.bulk(b, out),
            Front::Parse(t) => self.parse_run(&t, out),
        }
    }

    /// How the running statement's literals are read.
    pub(super) fn lit_opts(&self) -> LitOpts {
        LitOpts {
            backslash: !self.cx.mode.no_backslash_escapes,
            markers: self.cx.transcoded,
            pipes_as_concat: self.cx.mode.pipes_as_concat,
        }
    }

    /// Runs a statement whose exact text was planned before, if it is memoized
    /// and its plan is current.
    pub(super) fn run_memoized(&mut self, text: &str, out: &mut Out<'_>) -> Option<R<QueryResult>> {
        self.refresh_scope();
        if self.cx.transcoded {
            return None;
        }
        let version = self.cx.engine.storage.schema_version();
        let (plan, params) = match self.memo.get(text) {
            Some(m) if m.schema_version == version => {
                self.digest = Some(m.digest);
                (m.plan.clone(), m.params.clone())
            }
            _ => return None,
        };
        self.begin_diagnostics(|| selects_no_table(text));
        self.showing_diagnostics = false;
        self.cx.stmt_time = self.cx.clock();
        // The binary log annotates row changes with this statement's text.
        if self.cx.logs_to_binlog() {
            self.raw.clear();
            self.raw.push_str(text);
        }
        let r = self.timed(|me| me.run_plan(&plan, &params, out));
        if let Err(e) = &r {
            self.cx.list_error(e);
        }
        Some(r)
    }

    fn memoize(&mut self, text: &str, plan: &Arc<Plan>, params: &[Value], version: u64) {
        if self.cx.transcoded {
            return;
        }
        let digest = self.digest.unwrap_or(crate::stats::digests::LOST);
        self.memo.offer(text, plan, params, version, digest);
    }

    fn native(&mut self, n: Native, out: &mut Out<'_>) -> R<QueryResult> {
        // GET DIAGNOSTICS reads the previous statement's count.
        if !matches!(n, Native::GetDiagnostics(_)) {
            self.cx.row_count = 0;
        }
        self.check_native(&n)?;
        match n {
            Native::Show(s) => {
                let r = crate::show::run(self, s);
                if matches!(r, Ok(QueryResult::Rows { .. })) {
                    // As after any statement that sends rows.
                    self.cx.row_count = -1;
                }
                r
            }
            Native::Binlog(st) => crate::show::binlog::statement(self, st),
            Native::Replica(st) => self.replica_statement(st),
            Native::Prepare { name, source } => self.sql_prepare(name, source),
            Native::Execute { name, using } => self.sql_execute(&name, using, out),
            Native::Deallocate { name } => self.sql_deallocate(&name),
            Native::ExecuteImmediate { source, using } => {
                self.execute_immediate(&source, using, out)
            }
            Native::Kill { query_only, id } => self.kill_statement(query_only, &id),
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
            Native::SetNames {
                charset,
                collation,
                then,
            } => {
                let r = self.set_names(charset, collation)?;
                if then.is_empty() {
                    return Ok(r);
                }
                self.run_set(then)
            }
            Native::Set(items) => self.run_set(items),
            Native::SetStatement { items, body } => self.set_statement(items, &body, out),
            Native::Use(db) => {
                self.use_database(&db)?;
                Ok(QueryResult::ok(0))
            }
            Native::AlterKeys { db, table, disable } => {
                self.implicit_commit()?;
                let db = match db {
                    Some(d) => d,
                    None => self.cx.db.clone().ok_or_else(MySqlError::no_db)?,
                };
                let t = self
                    .cx
                    .engine
                    .storage
                    .table(&db, &table)
                    .ok_or_else(|| MySqlError::no_such_table(&db, &table))?;
                // Indexes are always maintained, as InnoDB's are: MariaDB answers
                // ENABLE KEYS, and DISABLE KEYS on a table with a non-unique index
                // (there is nothing to disable otherwise), with this note.
                let def = t.def();
                let non_unique = def
                    .indexes
                    .iter()
                    .any(|i| i.kind == basalt_common::IndexKind::NonUnique);
                if !disable || non_unique {
                    let engine = def.engine.name();
                    let name = &def.name;
                    self.cx.note(
                        1031,
                        format!("Storage engine {engine} of the table `{db}`.`{name}` doesn't have this option"),
                    );
                }
                Ok(QueryResult::Ok {
                    affected_rows: 0,
                    last_insert_id: 0,
                    info: String::new(),
                    warnings: self.warning_count(),
                })
            }
            Native::Shutdown => {
                self.cx.engine.hooks().shutdown(self.cx.conn_id)?;
                Ok(QueryResult::ok(0))
            }
            Native::Maintenance(m) => {
                if !matches!(m.op, crate::front::native::MaintOp::Checksum { .. }) {
                    self.implicit_commit()?;
                }
                crate::show::maintenance::run(self, m)
            }
            Native::FlushStatistics {
                status,
                statistics,
                ssl,
            } => {
                let [table, index, user, client] = statistics;
                if table || index {
                    self.cx.engine.stats.objects.flush();
                }
                use crate::stats::userstat::Kind;
                for (on, kind) in [(user, Kind::User), (client, Kind::Client)] {
                    if on {
                        self.cx.engine.stats.flush_accounts(kind);
                    }
                }
                if ssl {
                    self.cx.engine.hooks().reload_tls()?;
                }
                if status {
                    self.flush_status();
                }
                Ok(QueryResult::ok(0))
            }
            Native::CreateDatabase {
                or_replace,
                if_not_exists,
                name,
                opts,
            } => self.create_database(or_replace, if_not_exists, &name, opts),
            Native::AlterDatabase { name, opts } => self.alter_database(name, opts),
            Native::AlterTable(a) => self.alter_table_native(a),
            Native::View(v) => self.view_statement(v),
            Native::Sequence(st) => self.sequence_statement(st),
            Native::Do(exprs) => self.do_statement(&exprs),
            Native::Explain { opts, body } => self.explain_statement(opts, &body),
            Native::LoadData(d) => self.load_data(*d, out),
            Native::SelectInto(s) => self.select_into(*s),
            Native::Unsupported(what) => Err(MySqlError::not_supported(what)),
            Native::Account(st) => self.account_statement(st),
            Native::Role(st) => self.role_statement(st),
            Native::Routine(st) => self.routine_statement(st, out),
            Native::Event(st) => self.event_statement(st),
            Native::GetDiagnostics(g) => self.get_diagnostics(g),
        }
    }

    /// Brings the plan-cache scope (current database, result character set, the
    /// character sets statement text is read in, the literals' collation and the
    /// sql_mode flags that change how statements bind, all of which plans depend
    /// on) up to date.
    fn refresh_scope(&mut self) {
        let cx = &self.cx;
        if let Some(s) = &self.scope_cache.state {
            if s.db.as_deref() == cx.db.as_deref()
                && s.results == cx.results_charset
                && s.pipes == cx.mode.pipes_as_concat
                && s.charsets == cx.text_charsets
                && s.collation == cx.connection_collation
                && s.planner == cx.planner
                && s.sp == cx.sp.as_ref().map_or(0, |f| f.scope.id)
            {
                return;
            }
        }
        let now = ScopeState {
            db: cx.db.clone(),
            results: cx.results_charset,
            pipes: cx.mode.pipes_as_concat,
            charsets: cx.text_charsets,
            collation: cx.connection_collation,
            planner: cx.planner,
            sp: cx.sp.as_ref().map_or(0, |f| f.scope.id),
        };
        self.memo.clear();
        let p = now.planner;
        let key = format!(
            "{}\u{1}{}\u{1}{}\u{1}{}.{}\u{1}{}{}\u{1}{}",
            now.db.as_deref().unwrap_or(""),
            now.results.map_or("", |c| c.name()),
            now.pipes as u8,
            now.charsets.client.default_collation().id(),
            now.collation.id(),
            p.hash_join as u8,
            p.search_depth,
            now.sp,
        );
        self.scope_cache = PlanScope {
            key_transcoded: format!("{key}\u{1}t"),
            key,
            state: Some(now),
        };
    }

    /// The plan-cache scope key of the running statement (texts with literal
    /// markers have their own, so that no client text can reach their plans).
    fn scope_key(&self) -> &str {
        if self.cx.transcoded {
            &self.scope_cache.key_transcoded
        } else {
            &self.scope_cache.key
        }
    }

    fn cached(&mut self, s: Stripped<'_>, out: &mut Out<'_>) -> R<QueryResult> {
        if !self.cx.temp.is_empty() {
            return self.run_uncached(&s.original(), out);
        }
        let engine = self.cx.engine.clone();
        let version = engine.storage.schema_version();
        self.refresh_scope();
        if let Some(entry) = engine.plan_cache.get(self.scope_key(), &s.key, version) {
            self.note_digest(entry.digest);
            return match &entry.plan {
                Some(p) => {
                    self.memoize(s.text(), p, &s.params, version);
                    self.run_plan(p, &s.params, out)
                }
                None => self.parse_run(&s.original(), out),
            };
        }
        let scope = self.scope_key().to_string();
        let digest = self.register_digest(&s.original());
        match self.build_stripped(&s) {
            Ok(Some(plan)) => {
                let plan = Arc::new(plan);
                engine.plan_cache.insert(
                    &scope,
                    &s.key,
                    CacheEntry {
                        plan: Some(plan.clone()),
                        schema_version: version,
                        digest,
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
                        digest,
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
        if !self.cx.temp.is_empty() {
            return self.run_uncached(&b.original(), out);
        }
        let engine = self.cx.engine.clone();
        let version = engine.storage.schema_version();
        self.refresh_scope();
        let plan = match engine.plan_cache.get(self.scope_key(), &b.key, version) {
            Some(entry) => {
                self.note_digest(entry.digest);
                entry.plan.clone()
            }
            None => {
                let digest = self.register_digest(&b.original());
                let plan = match b.template(self.lit_opts()) {
                    Some(t) => self.build_stripped(&t).ok().flatten().map(Arc::new),
                    None => None,
                };
                let scope = self.scope_key().to_string();
                engine.plan_cache.insert(
                    &scope,
                    &b.key,
                    CacheEntry {
                        plan: plan.clone(),
                        schema_version: version,
                        digest,
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
        let mut b = Binder::new(&storage, &self.cx, &parse_text, Some(&s.params))
            .with_raw(&raw)
            .with_stack_base(crate::stack::base::of(&stmt));
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

    /// Runs a query through the plan cache when its form allows (the query of
    /// SELECT ... INTO, which stored programs run in loops).
    pub(super) fn run_query(&mut self, text: &str, out: &mut Out<'_>) -> R<QueryResult> {
        match crate::front::analyze_with(text, self.lit_opts())? {
            Front::Cached(s) => self.cached(s, out),
            _ => self.parse_run(text, out),
        }
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
        Ok(self.plan_statement_with(stmt, text, prepared, None, 0)?.0)
    }

    /// [`Session::plan_statement`], with the values of a prepared statement's
    /// parameters when they are known (they type the `?`s as literals would); also
    /// tells whether a `?` stands in the select list. `stack_extra` is what the way
    /// the statement came in adds to its virtual stack (see [`crate::stack::base`]).
    pub(super) fn plan_statement_with(
        &mut self,
        stmt: &Statement,
        text: &str,
        prepared: bool,
        values: Option<&[Value]>,
        stack_extra: u32,
    ) -> R<(Option<Plan>, bool)> {
        if !matches!(
            stmt,
            Statement::Query(_)
                | Statement::Insert(_)
                | Statement::Update(_)
                | Statement::Delete(_)
        ) {
            return Ok((None, false));
        }
        let base = crate::stack::base::of(stmt) + stack_extra;
        let (plan, param) = self.bind_plan(text, prepared, values, base, |b| {
            Ok(match stmt {
                Statement::Query(q) => Plan::Select(b.select(q)?),
                Statement::Insert(i) => Plan::Insert(b.insert(i)?),
                Statement::Update(u) => Plan::Modify(b.update(u)?),
                Statement::Delete(d) => Plan::Modify(b.delete(d)?),
                _ => return Err(MySqlError::internal("not a DML statement")),
            })
        })?;
        Ok((Some(plan), param))
    }

    /// Binds a query on its own (CREATE TABLE ... SELECT).
    pub(super) fn plan_query(
        &mut self,
        q: &sqlparser::ast::Query,
        text: &str,
    ) -> R<crate::plan::SelectPlan> {
        let base = crate::stack::base::SELECT;
        let (plan, _) =
            self.bind_plan(text, false, None, base, |b| Ok(Plan::Select(b.select(q)?)))?;
        self.cx.check_needs(plan.needs())?;
        match plan {
            Plan::Select(p) => Ok(p),
            _ => Err(MySqlError::internal("a query binds to a SELECT plan")),
        }
    }

    /// Runs `bind` with a binder for `text` whose virtual stack starts at `base`,
    /// then attaches the bound subqueries; also tells whether a prepared statement
    /// must bind again at each execution (a `?` in the select list, or rows read
    /// at bind time).
    fn bind_plan(
        &mut self,
        text: &str,
        prepared: bool,
        values: Option<&[Value]>,
        base: u32,
        bind: impl FnOnce(&mut Binder<'_>) -> R<Plan>,
    ) -> R<(Plan, bool)> {
        let storage = self.cx.engine.storage.clone();
        let raw = if self.raw.is_empty() {
            text.to_string()
        } else {
            self.raw.clone()
        };
        let mut b = Binder::new(&storage, &self.cx, text, values)
            .with_raw(&raw)
            .with_stack_base(base);
        if prepared {
            b = b.prepared();
        }
        let mut plan = match bind(&mut b) {
            Ok(plan) => plan,
            Err(e) if matches!(e.code, 1146 | 1049) => {
                // As MariaDB, privileges are checked before tables are opened: an
                // account without them on a missing table gets 1142, not 1146.
                let needs = std::mem::take(&mut b.needs);
                drop(b);
                self.cx.check_needs(&needs)?;
                return Err(e);
            }
            Err(e) => return Err(e),
        };
        b.attach_subqueries(&mut plan);
        Ok((plan, b.param_in_projection || b.reads_live_rows))
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
        self.cx.check_needs(plan.needs())?;
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
                    let read_only = p.lock == LockMode::Consistent && !p.calls_writer;
                    self.in_statement(params, read_only, |ex| {
                        // A SELECT is no data change, whatever its functions
                        // or locks do (1/0 warns under strict mode).
                        ex.ctx.strict_dml = false;
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
                        o.records,
                        o.duplicates,
                        self.cx.statement_warnings()
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
                let o = self.in_statement(params, false, |ex| modify::run(p, ex))?;
                if let Some(ret) = &p.returning {
                    return Ok(self.returned(ret, o.returned));
                }
                let affected = if self.found_rows && !p.delete {
                    o.matched
                } else {
                    o.changed
                };
                self.cx.row_count = affected as i64;
                let info = if p.delete || o.no_info {
                    String::new()
                } else {
                    format!(
                        "Rows matched: {}  Changed: {}  Warnings: {}",
                        o.matched,
                        o.changed,
                        o.info_warnings
                            .unwrap_or(self.cx.statement_warnings() as u64)
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

/// Statements that read no table (and so keep the previous statement's
/// diagnostics): SET without a subquery, SET NAMES / CHARACTER SET / TRANSACTION,
/// USE and the transaction statements.
fn reads_no_table(n: &Native) -> bool {
    match n {
        Native::Set(items) => !items
            .iter()
            .any(|i| i.value.to_ascii_lowercase().contains("select")),
        Native::SetNames { then, .. } => !then
            .iter()
            .any(|i| i.value.to_ascii_lowercase().contains("select")),
        Native::SetCharset(_)
        | Native::SetTransaction { .. }
        | Native::Use(_)
        | Native::Begin { .. }
        | Native::Commit { .. }
        | Native::Rollback { .. }
        | Native::GetDiagnostics(_)
        | Native::Event(_)
        | Native::Show(crate::front::native::Show::CreateEvent { .. }) => true,
        // Routine DDL reads no table; a program's own statements decide for
        // themselves as they run. CREATE TRIGGER opens its table, and MariaDB
        // counts the tables a routine's body names as the CREATE's own.
        Native::Routine(r) => match r {
            crate::front::native::routine::RoutineStmt::CreateTrigger(_) => false,
            crate::front::native::routine::RoutineStmt::Create(c) => !names_tables(&c.body),
            _ => true,
        },
        _ => false,
    }
}

/// Whether a routine's body has a statement that changes a table (INSERT,
/// UPDATE, DELETE, REPLACE): MariaDB's CREATE then clears the diagnostics
/// (one whose statements only read keeps them).
fn names_tables(body: &str) -> bool {
    let l = crate::front::lexer::lex(body);
    l.tokens.iter().any(|t| {
        ["insert", "update", "delete", "replace"]
            .iter()
            .any(|k| t.is_kw(body, k))
    })
}

/// A SELECT or DO without FROM anywhere in its text (`SELECT @@warning_count`,
/// `SELECT 1 + 1`): it reads no table.
fn selects_no_table(text: &str) -> bool {
    let t = text.trim_start().as_bytes();
    let starts = |w: &[u8]| t.len() > w.len() && t[..w.len()].eq_ignore_ascii_case(w);
    if !(starts(b"select") || starts(b"do ")) {
        return false;
    }
    // No FROM anywhere (a cheap scan: this runs for every SELECT).
    !t.windows(4).any(|w| {
        w[0] | 0x20 == b'f' && w[1] | 0x20 == b'r' && w[2] | 0x20 == b'o' && w[3] | 0x20 == b'm'
    })
}
