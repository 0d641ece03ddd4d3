//! One connection's state and the statement loop.
//!
//! [`Session::execute`] splits a COM_QUERY text, runs each statement in order and
//! stops after the first error. Each statement:
//! 1. clears the previous diagnostics (except SHOW WARNINGS / ERRORS),
//! 2. fixes its start time (NOW()),
//! 3. goes through [`crate::front::analyze`] to a native handler, the plan cache,
//!    or a full parse,
//! 4. runs inside the session's transaction under a savepoint (see [`txn`]),
//!    under its `max_statement_time` deadline when it has one (see [`timer`]).

mod alter;
mod binlog;
mod call;
mod call_markers;
pub mod ctx;
mod database;
pub(crate) mod diagnostics;
mod do_stmt;
pub(crate) mod event;
mod explain;
mod load;
mod locks;
mod memo;
mod perf;
mod prepared;
mod program;
mod rename;
mod replica_apply;
mod replica_stmt;
mod respond;
mod routine;
pub mod routine_diag;
mod run;
mod select_into;
pub(crate) mod sequence;
mod set_statement;
mod slow;
mod sql_prepare;
mod stmt;
pub(crate) use stmt::source_column_type;
pub(crate) use vars::check_scope;
pub mod temp_tables;
pub mod timer;
mod track;
pub mod trigger;
mod txn;
mod var_store;
mod varpolicy;
mod vars;
pub mod view;

use crate::engine::Engine;
use crate::result::{QueryResult, ResultSink};
use crate::stats::Stat;
use basalt_common::{ColumnMeta, MySqlError, Value};
use basalt_storage::{IsolationLevel, Savepoint, Txn};
use ctx::SessionCtx;
use prepared::Prepared;
use respond::Out;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
pub use track::Tracked;

/// Characteristics set by `SET TRANSACTION` for the next transaction only.
#[derive(Clone, Copy, Debug, Default)]
struct NextTxn {
    isolation: Option<IsolationLevel>,
    read_only: Option<bool>,
}

pub struct Session {
    pub(crate) cx: SessionCtx,
    txn: Option<Txn>,
    /// BEGIN / START TRANSACTION is in effect (until COMMIT / ROLLBACK).
    explicit: bool,
    txn_read_only: bool,
    next_txn: NextTxn,
    savepoints: Vec<(String, Savepoint)>,
    prepared: HashMap<u32, Prepared>,
    /// SQL-level `PREPARE name` → statement id.
    sql_prepared: HashMap<String, u32>,
    next_stmt_id: u32,
    multi_statements: bool,
    /// CLIENT_FOUND_ROWS: UPDATE reports matched rather than changed rows.
    found_rows: bool,
    /// The client's CLIENT_PS_MULTI_RESULTS capability: a prepared CALL sends
    /// its OUT parameters back as a result set.
    ps_multi_results: bool,
    /// The markers of the prepared CALL being executed.
    call_markers: Option<call_markers::CallMarkers>,
    /// The warning count of the CALL or compound statement that just ended.
    program_warnings: Option<usize>,
    /// The user variables of the running SQL `EXECUTE ... USING`, by marker.
    execute_using: Vec<Option<String>>,
    interrupt: Arc<AtomicBool>,
    /// The interrupt flag's link to the statement timer.
    watch: Arc<timer::Watch>,
    /// A statement deadline is armed (statements nested in EXECUTE or SET
    /// STATEMENT run under the deadline of the statement that contains them).
    armed: bool,
    /// NO_INDEX_USED / NO_GOOD_INDEX_USED of the last statement.
    extra_status: u16,
    /// The running statement is SHOW WARNINGS / SHOW ERRORS: its result reports
    /// no warnings of its own (the ones it lists belong to the statement before).
    showing_diagnostics: bool,
    /// The running statement's text as the client sent it.
    raw: String,
    /// The running statement committed implicitly (DDL): it goes to the binary log
    /// once it succeeds.
    ddl_to_log: bool,
    /// The `Com_*` counter of the statement running (or last run).
    running_com: Option<Stat>,
    /// The running client statement's start (see [`slow`]).
    clock: Option<slow::StmtClock>,
    /// `SET SESSION slow_query_log`: this session's own choice, which the
    /// global setting does not override.
    slow_log_choice: Option<bool>,
    /// Rows the last statement changed (`Rows_affected` of the slow log).
    last_affected: u64,
    /// The collation the client asked for at connect (or COM_CHANGE_USER).
    client_collation: Option<basalt_common::Collation>,
    /// The plan-cache scope of the session's current settings.
    scope_cache: run::PlanScope,
    /// Exact statement texts seen recently with their plan and literal values: a
    /// repeated identical text skips even the literal-stripping scan.
    memo: memo::StatementMemo,
    /// LOCK TABLES / FLUSH TABLES WITH READ LOCK held by this session.
    locks: locks::SessionLocks,
    /// COMMIT / ROLLBACK ... RELEASE: the server closes the connection after the
    /// statement's response.
    close_requested: bool,
    /// Session state changes for the next OK packet (see [`track`]).
    tracked: Vec<track::Tracked>,
    /// Another statement of the same command follows the running one
    /// (SERVER_MORE_RESULTS_EXISTS).
    more_results: bool,
    /// The connection's TLS version and cipher (`Ssl_version`, `Ssl_cipher`).
    tls: Option<(&'static str, &'static str)>,
    /// The running statement's digest id, when its plan carried it.
    digest: Option<u32>,
    /// Digest ids of recent statement texts without a cached plan.
    text_digests: perf::TextDigests,
    /// The last statement's error (errno, SQLSTATE, message).
    last_error: Option<(u16, &'static str, String)>,
    /// The current database before the running statement changed it (USE):
    /// the statement counts in the schema it started in.
    db_before: Option<Option<String>>,
    /// Routines this session compiled, by (database, lower-case name).
    sp_cache: HashMap<(String, String), call::Compiled>,
    /// The routines running, outermost first (recursion limits).
    sp_stack: Vec<(String, String)>,
    /// Programs running (nested CALLs and compound statements).
    sp_depth: usize,
    /// Rows the last statement of the running program changed.
    sp_affected: u64,
    /// The error ending the running statement came from a statement of a
    /// stored program, which listed it already.
    sp_error_listed: bool,
}

impl Session {
    pub(crate) fn new(engine: Arc<Engine>, connection_id: u64, user: &str, host: &str) -> Self {
        let interrupt = Arc::new(AtomicBool::new(false));
        Session {
            cx: SessionCtx::new(engine, connection_id, user, host),
            txn: None,
            explicit: false,
            txn_read_only: false,
            next_txn: NextTxn::default(),
            savepoints: Vec::new(),
            prepared: HashMap::new(),
            sql_prepared: HashMap::new(),
            next_stmt_id: 1,
            multi_statements: false,
            found_rows: false,
            ps_multi_results: false,
            call_markers: None,
            program_warnings: None,
            execute_using: Vec::new(),
            watch: timer::Watch::new(interrupt.clone()),
            interrupt,
            armed: false,
            extra_status: 0,
            showing_diagnostics: false,
            tls: None,
            raw: String::new(),
            ddl_to_log: false,
            client_collation: None,
            running_com: None,
            clock: None,
            slow_log_choice: None,
            last_affected: 0,
            scope_cache: run::PlanScope::default(),
            memo: Default::default(),
            locks: Default::default(),
            close_requested: false,
            tracked: Vec::new(),
            more_results: false,
            digest: None,
            text_digests: Default::default(),
            last_error: None,
            db_before: None,
            sp_cache: HashMap::new(),
            sp_stack: Vec::new(),
            sp_depth: 0,
            sp_affected: 0,
            sp_error_listed: false,
        }
    }

    /// Runs one COM_QUERY text: one statement, or several separated by `;` when
    /// multi-statements are on. Results come in order; execution stops after the
    /// first error (which is the last element). The text is read in
    /// `character_set_client` like any other bytes (see [`Session::execute_bytes`]).
    /// Collects every row in memory: the server uses [`Session::execute_bytes_into`].
    pub fn execute(&mut self, sql: &str) -> Vec<Result<QueryResult, MySqlError>> {
        let mut out = crate::result::Collected::default();
        self.execute_raw(sql.as_bytes(), Some(sql), &mut out);
        out.results
    }

    /// [`Session::execute`] of the statement bytes as the client sent them, in
    /// `character_set_client`: string literals keep their exact bytes (see
    /// [`crate::front::transcode`]).
    pub fn execute_bytes(&mut self, sql: &[u8]) -> Vec<Result<QueryResult, MySqlError>> {
        let mut out = crate::result::Collected::default();
        self.execute_raw(sql, None, &mut out);
        out.results
    }

    /// [`Session::execute`], delivering each statement's response to `out` as it
    /// is produced (rows stream while the statement runs).
    pub fn execute_into(&mut self, sql: &str, out: &mut dyn ResultSink) {
        self.execute_raw(sql.as_bytes(), Some(sql), out)
    }

    /// [`Session::execute_bytes`], delivering each statement's response to `out`
    /// as it is produced.
    pub fn execute_bytes_into(&mut self, sql: &[u8], out: &mut dyn ResultSink) {
        self.execute_raw(sql, None, out)
    }

    fn execute_raw(&mut self, raw: &[u8], valid: Option<&str>, out: &mut dyn ResultSink) {
        let unwrapped = crate::front::unwrap_exec_comments_bytes(raw);
        let valid = valid.filter(|_| matches!(unwrapped, Cow::Borrowed(_)));
        let text = match self.decode_text(&unwrapped, valid) {
            Ok(t) => t,
            Err(e) => {
                self.cx.clear_warnings();
                self.cx
                    .warn_state(ctx::Level::Error, e.code, e.state, e.message.clone());
                return self.respond(Err(e), &mut Out::new(out));
            }
        };
        self.cx.transcoded = matches!(text, Cow::Owned(_));
        self.execute_text(&text, out);
        self.cx.transcoded = false;
    }

    /// Statement bytes as the front end's text (see [`crate::front::transcode`]);
    /// owned when transcoded.
    pub(crate) fn decode_text<'a>(
        &self,
        raw: &'a [u8],
        valid: Option<&'a str>,
    ) -> Result<Cow<'a, str>, MySqlError> {
        let backslash = !self.cx.mode.no_backslash_escapes;
        self.cx.text_charsets.decode(raw, valid, backslash)
    }

    fn execute_text(&mut self, sql: &str, out: &mut dyn ResultSink) {
        if !sql.as_bytes().contains(&b';') {
            let text = sql.trim();
            if text.is_empty() {
                return self.respond(Err(MySqlError::empty_query()), &mut Out::new(out));
            }
            let mut o = Out::new(out);
            let r = self.run_statement(text, &mut o);
            self.respond(r, &mut o);
            self.finish_statement(slow::Text::Plain(text), &o);
            return;
        }
        let pieces = crate::front::split(sql);
        if pieces.is_empty() {
            return self.respond(Err(MySqlError::empty_query()), &mut Out::new(out));
        }
        if pieces.len() > 1 && !self.multi_statements {
            let second = pieces[1].text;
            let offset = second.as_ptr() as usize - sql.as_ptr() as usize;
            let start = sql[..offset].rfind(';').map_or(offset, |p| p + 1);
            let near = sql[start..].trim_start();
            let e = crate::front::parse::near_offset(sql, sql.len() - near.len());
            return self.respond(Err(e), &mut Out::new(out));
        }
        let last = pieces.len() - 1;
        for (i, p) in pieces.into_iter().enumerate() {
            self.more_results = i < last;
            let mut o = Out::new(out);
            let r = self.run_statement(p.text, &mut o);
            let failed = r.is_err();
            self.respond(r, &mut o);
            self.finish_statement(slow::Text::Plain(p.text), &o);
            if failed {
                break;
            }
        }
        self.more_results = false;
    }

    /// The collation id of the client's handshake (or COM_CHANGE_USER): the
    /// connection's character sets become its set, as `SET NAMES` would make them
    /// (MariaDB's `thd_init_client_charset`). An id Basalt does not know leaves
    /// the server's defaults.
    pub fn set_client_collation(&mut self, id: u16) {
        self.client_collation = basalt_common::Collation::from_id(id);
        self.apply_client_collation();
    }

    fn apply_client_collation(&mut self) {
        // Most clients ask for the server's own collation: nothing to change.
        let current = self.cx.connection_collation;
        let same = |c: basalt_common::Collation| {
            c == current
                && self.cx.text_charsets.client == c.charset()
                && self.cx.results_charset == Some(c.charset())
        };
        if let Some(c) = self.client_collation.filter(|&c| !same(c)) {
            // A known collation and its own character set: SET NAMES accepts them.
            let _ = self.set_names(
                Some(c.charset().name().to_string()),
                Some(c.name().to_string()),
            );
        }
    }

    /// `character_set_client`.
    pub fn client_charset(&self) -> basalt_common::Charset {
        self.cx.text_charsets.client
    }

    /// A name a command sent in `character_set_client` (COM_INIT_DB, COM_FIELD_LIST)
    /// as UTF-8; bytes that are no characters of that set become U+FFFD, which no
    /// existing name contains.
    pub fn client_name(&self, b: &[u8]) -> String {
        let internal = basalt_common::charset::to_internal(b, self.client_charset());
        String::from_utf8_lossy(&internal).into_owned()
    }

    pub fn set_multi_statements(&mut self, on: bool) {
        self.multi_statements = on;
    }

    /// The client's CLIENT_FOUND_ROWS capability: UPDATE's affected-row count is
    /// then the number of rows matched, not changed.
    pub fn set_client_found_rows(&mut self, on: bool) {
        self.found_rows = on;
    }

    /// The client's CLIENT_PS_MULTI_RESULTS capability.
    pub fn set_client_ps_multi_results(&mut self, on: bool) {
        self.ps_multi_results = on;
    }

    /// One of `any_of` held globally by the session's account, or 1227 naming
    /// `names` (the server's checks of protocol commands).
    pub fn require_global_privilege(
        &mut self,
        any_of: basalt_acl::Privs,
        names: &str,
    ) -> Result<(), MySqlError> {
        self.cx.require_global(any_of, names)
    }

    /// COM_PROCESS_KILL: KILL CONNECTION `id`, with the statement's privilege check.
    pub fn kill_connection(&mut self, id: u64) -> Result<(), MySqlError> {
        self.check_kill(id)?;
        if self.cx.engine.events.kill(id) {
            return Ok(());
        }
        self.cx.engine.hooks().kill(id, false)
    }

    /// USE and COM_INIT_DB.
    pub fn use_database(&mut self, db: &str) -> Result<(), MySqlError> {
        // A USE statement counts in the schema it started in (COM_INIT_DB is
        // no statement: the next one counts in the new schema).
        if self.clock.is_some() && self.db_before.is_none() {
            self.db_before = Some(self.cx.db.clone());
        }
        if crate::infoschema::is_schema(db) {
            self.cx.db = Some(crate::infoschema::SCHEMA.to_string());
            self.track_schema(crate::infoschema::SCHEMA);
            return Ok(());
        }
        for schema in [crate::perfschema::SCHEMA, crate::sysschema::SCHEMA] {
            if db.eq_ignore_ascii_case(schema) {
                self.check_use(schema)?;
                self.cx.db = Some(schema.to_string());
                self.track_schema(schema);
                return Ok(());
            }
        }
        self.check_use(db)?;
        if !self.cx.engine.storage.database_exists(db) {
            return Err(MySqlError::bad_db(db));
        }
        self.cx.db = Some(db.to_string());
        self.track_schema(db);
        if let Some(c) = self.cx.engine.storage.database_collation(db) {
            self.cx
                .vars
                .insert("collation_database", basalt_common::Value::str(c.name()));
            self.cx.vars.insert(
                "character_set_database",
                basalt_common::Value::str(c.charset().name()),
            );
        }
        Ok(())
    }

    /// COM_FIELD_LIST: the column definitions of a table (optionally filtered by a
    /// LIKE pattern on the column name).
    pub fn field_list(
        &mut self,
        table: &str,
        wildcard: Option<&str>,
    ) -> Result<Vec<ColumnMeta>, MySqlError> {
        let db = self.cx.db.clone().ok_or_else(MySqlError::no_db)?;
        let t = self
            .cx
            .table(&db, table)
            .ok_or_else(|| MySqlError::no_such_table(&db, table))?;
        let def = t.def();
        let mut out = Vec::new();
        for (i, c) in def.columns.iter().enumerate() {
            if let Some(w) = wildcard.filter(|w| !w.is_empty()) {
                if !crate::expr::like::matches(
                    c.name.as_bytes(),
                    w.as_bytes(),
                    Some(b'\\'),
                    basalt_common::Collation::Utf8mb4GeneralCi,
                ) {
                    continue;
                }
            }
            let mut ty = crate::ty::ExprType::of_column(c);
            ty.origin = Some(crate::ty::Origin {
                schema: db.clone(),
                table: def.name.clone(),
                org_table: def.name.clone(),
                org_name: c.name.clone(),
            });
            ty.col_flags = crate::bind::typing::column_flags(&def, i);
            out.push(ty.meta(&c.name, self.cx.results_charset));
        }
        Ok(out)
    }

    /// COM_RESET_CONNECTION: rolls back, restores session variables from the globals,
    /// drops prepared statements, user variables and temporary tables.
    pub fn reset(&mut self) {
        self.rollback_quietly();
        self.release_all_locks();
        self.release_user_locks();
        let engine = self.cx.engine.clone();
        self.cx.vars = engine.globals.session_defaults(&engine.config);
        self.cx.vars.insert(
            "pseudo_thread_id",
            basalt_common::Value::UInt(self.cx.conn_id),
        );
        self.cx.fixed_time = None;
        self.cx.insert_id = None;
        self.cx.refresh_derived();
        self.apply_client_collation();
        self.memo.clear();
        self.cx.user_vars.clear();
        self.cx.clear_warnings();
        self.cx.last_insert_id = 0;
        self.prepared.clear();
        self.sql_prepared.clear();
        self.next_txn = NextTxn::default();
        self.sp_cache.clear();
        self.drop_all_temp();
    }

    /// GET_LOCK's locks go with the connection (and with COM_RESET_CONNECTION).
    fn release_user_locks(&mut self) {
        if std::mem::take(&mut self.cx.holds_user_locks) {
            self.cx.engine.user_locks.release_all(self.cx.conn_id);
        }
    }

    /// The connection is gone: rolls back the open transaction and drops the
    /// temporary tables.
    pub fn close(&mut self) {
        self.rollback_quietly();
        self.release_all_locks();
        self.release_user_locks();
        self.prepared.clear();
        self.drop_all_temp();
    }

    /// The user variable `@name` (names are case-insensitive: pass it lowercase),
    /// or `None` when it was never set. The binlog dump reads the variables a
    /// replica sets before COM_BINLOG_DUMP (`@master_binlog_checksum`, ...).
    pub fn user_variable(&self, name: &str) -> Option<&Value> {
        self.cx.user_vars.get(name)
    }

    pub fn current_database(&self) -> Option<&str> {
        self.cx.db.as_deref()
    }

    /// `SERVER_STATUS_*` bits for OK / EOF packets.
    pub fn status_flags(&self) -> u16 {
        use crate::status::*;
        let mut s = self.extra_status;
        if self.more_results {
            s |= MORE_RESULTS_EXISTS;
        }
        if self.cx.autocommit {
            s |= AUTOCOMMIT;
        }
        if self.in_transaction() {
            s |= IN_TRANS;
            if self.txn_read_only {
                s |= IN_TRANS_READONLY;
            }
        }
        if self.cx.mode.no_backslash_escapes {
            s |= NO_BACKSLASH_ESCAPES;
        }
        s
    }

    pub fn warning_count(&self) -> u16 {
        self.cx.statement_warnings().min(u16::MAX as usize) as u16
    }

    pub fn last_insert_id(&self) -> u64 {
        self.cx.last_insert_id
    }

    /// `net_write_timeout`: how long sending a result may wait for the client.
    pub fn net_write_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.cx.net_write_timeout)
    }

    /// The flag KILL QUERY sets; checked by running statements and lock waits.
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    pub fn connection_id(&self) -> u64 {
        self.cx.conn_id
    }

    /// True once a COMMIT / ROLLBACK ... RELEASE asked for the connection to end
    /// (after its response is sent).
    #[inline]
    pub fn close_requested(&self) -> bool {
        self.close_requested
    }

    /// Writes a command to the general query log, when it is on and the session
    /// did not turn it off (`sql_log_off`).
    #[inline]
    pub fn log_command(&self, command: &str, argument: &str) {
        let log = &self.cx.engine.general_log;
        if log.enabled() && !self.cx.var_bool("sql_log_off") {
            // MariaDB's Connect entry names no user yet, only the account.
            let user = if command == "Connect" {
                ""
            } else {
                &self.cx.user
            };
            let who = || (self.user_host_of(user), self.server_id());
            if !log.write(self.cx.conn_id, command, argument, &who) {
                self.cx.engine.log_stopped("general_log");
            }
        }
    }

    /// Seconds the connection may stay idle between commands (`wait_timeout`).
    #[inline]
    pub fn idle_timeout(&self) -> u64 {
        self.cx.wait_timeout
    }

    /// A client that logged in with CLIENT_INTERACTIVE: its `wait_timeout` starts
    /// as the global `interactive_timeout`, as in MariaDB.
    /// The connection runs over TLS with this version and cipher (OpenSSL names).
    pub fn set_tls(&mut self, version: &'static str, cipher: &'static str) {
        self.tls = Some((version, cipher));
        self.cx.stats.mark_ssl();
    }

    /// `Ssl_version` and `Ssl_cipher`: empty without TLS.
    pub fn tls(&self) -> (&'static str, &'static str) {
        self.tls.unwrap_or(("", ""))
    }

    pub fn set_interactive(&mut self) {
        if let Some(v) = self.cx.engine.globals.get("interactive_timeout") {
            self.cx.vars.insert("wait_timeout", v);
            self.cx.refresh_derived();
        }
    }

    pub(crate) fn prepared_count(&self) -> usize {
        self.prepared.len()
    }

    fn in_transaction(&self) -> bool {
        self.txn.is_some() && (self.explicit || !self.cx.autocommit)
    }

    fn clear_interrupt(&self) {
        self.interrupt.store(false, Ordering::Relaxed);
    }

    /// FLUSH STATUS: this session's counters, the ended sessions' totals and
    /// the server's resettable counters start again from zero.
    pub(crate) fn flush_status(&self) {
        self.cx.engine.stats.flush(&self.cx.stats.counters);
        self.cx.engine.hooks().flush_status();
    }

    /// This session's status counters (the server counts bytes, commands and
    /// prepared-statement calls in them).
    pub fn stats(&self) -> &crate::stats::Counters {
        &self.cx.stats.counters
    }

    /// Runs one statement under its `max_statement_time` deadline (none when the
    /// limit is 0, or when a containing statement already armed one). A statement
    /// the deadline interrupted fails with errno 1969 and is counted in
    /// `Max_statement_time_exceeded`; one that finished in spite of it keeps its
    /// result, as in MariaDB.
    pub(super) fn timed<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, MySqlError>,
    ) -> Result<T, MySqlError> {
        let limit = match self.cx.max_statement_time {
            Some(l) if !self.armed => l,
            _ => return f(self),
        };
        let engine = self.cx.engine.clone();
        let key = engine.timer.arm(&self.watch, limit);
        self.armed = true;
        let r = f(self);
        self.armed = false;
        let fired = engine.timer.disarm(key, &self.watch);
        match r {
            Err(e) if fired && e.code == basalt_common::error::code::ER_QUERY_INTERRUPTED => {
                self.cx.stats.counters.bump(Stat::MaxStatementTimeExceeded);
                Err(MySqlError::statement_timeout())
            }
            r => r,
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.merge_notes();
        if let (true, Some((u, h))) = (self.cx.privs.tracked, &self.cx.privs.account) {
            self.cx.engine.resources.logout((u, h));
        }
        self.rollback_quietly();
        self.release_all_locks();
        self.release_user_locks();
    }
}
