//! The part of a session's state that expressions and executors read and write:
//! variables, warnings, the values behind LAST_INSERT_ID() and friends.
//!
//! It is kept apart from the transaction so that an executor can hold the
//! transaction and this context mutably at the same time.

use crate::engine::Engine;
use crate::front::transcode::TextCharsets;
use crate::sysvars::{self, ModeFlags, VarDef};
use basalt_common::{Charset, Collation, DateTime, MySqlError, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// Most diagnostics kept per statement (MariaDB's `max_error_count` default).
pub const MAX_WARNINGS: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Note,
    Warning,
    Error,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Note => "Note",
            Level::Warning => "Warning",
            Level::Error => "Error",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Warning {
    pub level: Level,
    pub code: u16,
    /// Its SQLSTATE (the errno's, or what SIGNAL gave it).
    pub state: &'static str,
    pub message: String,
}

/// The session's slow-log settings, read from its variables.
#[derive(Clone, Copy, Debug, Default)]
pub struct SlowSettings {
    pub long_query_time: std::time::Duration,
    pub not_using_indexes: bool,
    pub min_examined: u64,
    pub admin: bool,
    pub query_plan: bool,
}

pub struct SessionCtx {
    pub engine: Arc<Engine>,
    /// The variables of the stored program running, if one is.
    pub sp: Option<Box<crate::sp::Frame>>,
    /// This session's status counters.
    pub stats: crate::stats::Slot,
    /// The running statement's per-table and per-index counts, merged into
    /// the session's when it ends.
    pub notes: crate::stats::objects::StatementNotes,
    /// `ANALYZE <statement>` is running: every evaluation context of the
    /// statement reports its join levels here.
    pub analyze: Option<Arc<crate::exec::analyze::Tracker>>,
    pub conn_id: u64,
    /// GET_LOCK granted a lock since the session last released them all.
    pub holds_user_locks: bool,
    pub user: String,
    pub host: String,
    /// Whose rights the session has (CURRENT_USER()).
    pub privs: crate::account::SessionPrivs,
    pub db: Option<String>,
    /// Session values of every variable with session scope.
    pub vars: crate::sysvars::VarMap,
    pub mode: ModeFlags,
    pub autocommit: bool,
    /// `character_set_results` (None when NULL).
    pub results_charset: Option<Charset>,
    /// `collation_connection`: the collation of string literals.
    pub connection_collation: Collation,
    /// `character_set_client` and `character_set_connection`: how statement text
    /// and its literals are read.
    pub text_charsets: TextCharsets,
    /// The running statement's text was transcoded from the client's bytes, so its
    /// literal markers are literals (see [`crate::front::transcode`]).
    pub transcoded: bool,
    pub div_precision_increment: u8,
    /// Transaction characteristics from the session variables.
    pub isolation: basalt_storage::IsolationLevel,
    pub tx_read_only: bool,
    pub snapshot_isolation: bool,
    pub lock_wait_timeout: u64,
    /// `lock_wait_timeout` (metadata lock waits).
    pub mdl_wait_timeout: u64,
    /// `wait_timeout` (read by the server before every command).
    pub wait_timeout: u64,
    /// `max_session_mem_used`: the memory budget of each statement.
    pub max_mem_used: u64,
    /// `net_write_timeout` in seconds.
    pub net_write_timeout: u64,
    /// `long_query_time`, `log_queries_not_using_indexes`, ...: which
    /// statements are slow and logged (see [`crate::slow_log`]).
    pub slow: SlowSettings,
    /// `max_statement_time` (None when 0: no limit).
    pub max_statement_time: Option<std::time::Duration>,
    /// `optimizer_switch`, `join_cache_level`, `optimizer_search_depth`.
    pub planner: crate::plan::switch::Planner,
    pub user_vars: HashMap<String, Value>,
    /// Diagnostics of the last statement (capped at [`MAX_WARNINGS`]).
    pub warnings: Vec<Warning>,
    /// All diagnostics raised, including those beyond the cap.
    pub warning_total: usize,
    /// The diagnostics listed are the previous statement's (see
    /// [`SessionCtx::keep_warnings`]).
    pub kept_warnings: bool,
    /// Times the list was cleared (a program tells its own conditions from
    /// those it kept).
    pub clears: u64,
    /// Diagnostics MariaDB lists after a statement's error (a storage engine's
    /// 1030 after 1005, 4027 after a CHECK that does not bind); added when the
    /// statement fails.
    pub trailing: Vec<Warning>,
    pub error_total: usize,
    /// `LAST_INSERT_ID()`: the first automatic id of the last INSERT that made one.
    pub last_insert_id: u64,
    /// `ROW_COUNT()`.
    pub row_count: i64,
    /// `FOUND_ROWS()`.
    pub found_rows: u64,
    pub in_transaction: bool,
    /// Start time of the current statement (`NOW()` is constant within it).
    pub stmt_time: DateTime,
    /// `SET timestamp = t`: the time statements see instead of the clock.
    pub fixed_time: Option<DateTime>,
    /// The session's `time_zone`; `None` when it is UTC, so that nothing converts.
    pub zone: Option<Arc<crate::value::zone::Zone>>,
    /// The `time_zone` text [`Self::zone`] was made from.
    zone_name: String,
    /// `SET insert_id = n`: the first AUTO_INCREMENT value of the next INSERT.
    pub insert_id: Option<u64>,
    /// System variables a stored function or trigger set, for the session to
    /// finish (session tracking, statement memo) after the statement.
    pub changed_vars: Vec<&'static str>,
    pub rand_state: u64,
    /// The session's temporary tables (see [`super::temp_tables`]).
    pub temp: super::temp_tables::TempTables,
    /// LASTVAL() of each sequence this session took a value from: by (db, name),
    /// the table id it was taken from and the value.
    pub seq_last: HashMap<(String, String), (u64, i64)>,
    /// The running statement's text for the binary log (set only while the
    /// session logs): ANNOTATE_ROWS of its row changes and sequence reservations.
    pub binlog_sql: Option<Arc<str>>,
    /// The replica's SQL thread applying with `log_slave_updates`: the primary's
    /// GTID its statements are logged with.
    pub replicated_gtid: Option<basalt_replication::gtid::Gtid>,
    /// This is the replica's SQL thread: events it creates or enables are
    /// SLAVESIDE_DISABLED, as on a MariaDB replica (they run on the primary).
    pub replica_applier: bool,
}

/// The deadline `max_statement_time` (seconds, as a double) sets: MariaDB keeps it
/// in whole microseconds, truncated, and 0 means none.
fn statement_limit(v: Option<&Value>) -> Option<std::time::Duration> {
    let secs = match v {
        Some(Value::Double(d)) => *d,
        Some(Value::UInt(u)) => *u as f64,
        Some(Value::Int(i)) => *i as f64,
        _ => 0.0,
    };
    let micros = (secs * 1e6) as u64;
    (micros > 0).then(|| std::time::Duration::from_micros(micros))
}

impl SessionCtx {
    pub fn new(engine: Arc<Engine>, conn_id: u64, user: &str, host: &str) -> Self {
        let vars = engine.globals.session_defaults(&engine.config);
        let mut cx = SessionCtx {
            stats: engine.stats.join(conn_id),
            notes: Default::default(),
            engine,
            sp: None,
            analyze: None,
            conn_id,
            holds_user_locks: false,
            user: user.to_string(),
            host: host.to_string(),
            privs: Default::default(),
            db: None,
            vars,
            mode: ModeFlags::default(),
            autocommit: true,
            results_charset: Some(Charset::Utf8mb4),
            connection_collation: Collation::Utf8mb4GeneralCi,
            text_charsets: TextCharsets::default(),
            transcoded: false,
            div_precision_increment: 4,
            isolation: basalt_storage::IsolationLevel::RepeatableRead,
            tx_read_only: false,
            snapshot_isolation: true,
            lock_wait_timeout: 50,
            mdl_wait_timeout: 86400,
            wait_timeout: 28800,
            max_mem_used: u64::MAX,
            net_write_timeout: 60,
            slow: SlowSettings::default(),
            max_statement_time: None,
            planner: Default::default(),
            user_vars: HashMap::new(),
            warnings: Vec::new(),
            warning_total: 0,
            kept_warnings: false,
            clears: 0,
            trailing: Vec::new(),
            error_total: 0,
            last_insert_id: 0,
            row_count: -1,
            found_rows: 0,
            in_transaction: false,
            stmt_time: DateTime::default(),
            fixed_time: None,
            zone: None,
            zone_name: String::new(),
            insert_id: None,
            changed_vars: Vec::new(),
            rand_state: conn_id.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5DEE_CE66,
            temp: Default::default(),
            seq_last: HashMap::new(),
            binlog_sql: None,
            replicated_gtid: None,
            replica_applier: false,
        };
        cx.vars.insert("pseudo_thread_id", Value::UInt(conn_id));
        cx.refresh_derived();
        cx
    }

    /// The time a statement starting now sees: the clock, or `SET timestamp`.
    pub fn clock(&self) -> DateTime {
        self.fixed_time
            .unwrap_or_else(super::super::value::temporal::now)
    }

    /// Local time in the session zone of `utc`, a UTC wall-clock time.
    pub fn local(&self, utc: DateTime) -> DateTime {
        match &self.zone {
            None => utc,
            Some(z) => z.local_of(&utc),
        }
    }

    /// The UTC wall-clock time of `local`, a time in the session zone.
    pub fn to_utc(&self, local: DateTime) -> DateTime {
        match &self.zone {
            None => local,
            Some(z) => z.to_utc_datetime(&local),
        }
    }

    /// Recomputes the cached flags after a session variable changed.
    pub fn refresh_derived(&mut self) {
        let text = |cx: &SessionCtx, n: &str| -> Option<String> {
            match cx.vars.get(n) {
                Some(Value::Bytes(b)) => Some(String::from_utf8_lossy(b).into_owned()),
                _ => None,
            }
        };
        self.mode = ModeFlags::from_text(&text(self, "sql_mode").unwrap_or_default());
        self.autocommit = matches!(self.vars.get("autocommit"), Some(Value::Int(1)));
        self.results_charset =
            text(self, "character_set_results").and_then(|c| Charset::from_name(&c));
        self.connection_collation = text(self, "collation_connection")
            .and_then(|c| Collation::from_name(&c))
            .unwrap_or(Collation::Utf8mb4GeneralCi);
        self.text_charsets = TextCharsets {
            client: text(self, "character_set_client")
                .and_then(|c| Charset::from_name(&c))
                .unwrap_or(Charset::Utf8mb4),
            connection: self.connection_collation.charset(),
        };
        self.div_precision_increment = match self.vars.get("div_precision_increment") {
            Some(Value::UInt(u)) => (*u).min(30) as u8,
            _ => 4,
        };
        self.isolation = text(self, "transaction_isolation")
            .and_then(|n| basalt_storage::IsolationLevel::from_name(&n))
            .unwrap_or_default();
        let zone = text(self, "time_zone").unwrap_or_default();
        if zone != self.zone_name {
            self.zone = crate::value::zone::session_zone(&zone);
            self.zone_name = zone;
        }
        self.tx_read_only = self.var_bool("transaction_read_only");
        self.snapshot_isolation = self.var_bool("innodb_snapshot_isolation");
        self.lock_wait_timeout = self.var_u64("innodb_lock_wait_timeout").max(1);
        self.mdl_wait_timeout = self.var_u64("lock_wait_timeout").max(1);
        self.wait_timeout = self.var_u64("wait_timeout");
        self.max_mem_used = self
            .var_u64("max_session_mem_used")
            .max(crate::exec::mem::MIN_LIMIT);
        self.net_write_timeout = self.var_u64("net_write_timeout").max(1);
        self.slow = SlowSettings {
            long_query_time: match self.vars.get("long_query_time") {
                Some(Value::Double(d)) if d.is_finite() && *d > 0.0 => {
                    std::time::Duration::from_secs_f64(*d)
                }
                _ => std::time::Duration::ZERO,
            },
            not_using_indexes: self.var_bool("log_queries_not_using_indexes"),
            min_examined: self.var_u64("min_examined_row_limit"),
            admin: self.var_bool("log_slow_admin_statements"),
            query_plan: self
                .var_text("log_slow_verbosity")
                .eq_ignore_ascii_case("query_plan"),
        };
        self.max_statement_time = statement_limit(self.vars.get("max_statement_time"));
        self.planner = crate::plan::switch::Planner::from_vars(
            &self.var_text("optimizer_switch"),
            self.var_u64("join_cache_level"),
            self.var_u64("optimizer_search_depth"),
        );
    }

    pub fn var_u64(&self, name: &str) -> u64 {
        match self.vars.get(name) {
            Some(Value::UInt(u)) => *u,
            Some(Value::Int(i)) => (*i).max(0) as u64,
            _ => 0,
        }
    }

    pub fn var_bool(&self, name: &str) -> bool {
        matches!(self.vars.get(name), Some(Value::Int(1)))
    }

    pub fn var_text(&self, name: &str) -> String {
        match self.vars.get(name) {
            Some(v) => v.display_lossy(),
            None => String::new(),
        }
    }

    /// Adds a diagnostic to the current statement's list.
    pub fn warn(&mut self, level: Level, code: u16, message: impl Into<String>) {
        let state = basalt_common::sqlstate::sqlstate(code);
        self.warn_state(level, code, state, message);
    }

    /// [`SessionCtx::warn`] with the condition's own SQLSTATE.
    pub fn warn_state(
        &mut self,
        level: Level,
        code: u16,
        state: &'static str,
        message: impl Into<String>,
    ) {
        if self.kept_warnings {
            self.clear_warnings();
        }
        if level == Level::Error {
            self.error_total += 1;
        }
        self.warning_total += 1;
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(Warning {
                level,
                code,
                state,
                message: message.into(),
            });
        }
    }

    /// Lists the error that ends a statement, once: a statement run inside
    /// this one (EXECUTE's, a CALL's) may have listed it already.
    pub fn list_error(&mut self, e: &MySqlError) {
        // (Its notes naming the program lines it left may follow it.)
        let listed = !self.kept_warnings
            && self
                .warnings
                .iter()
                .rev()
                .find(|w| !(w.level == Level::Note && w.code == 4094))
                .is_some_and(|w| {
                    w.level == Level::Error && w.code == e.code && w.message == e.message
                });
        if !listed {
            self.warn_state(Level::Error, e.code, e.state, e.message.clone());
        }
    }

    /// Lists the error that ends a statement (see [`Self::list_error`]) and
    /// the notes that follow it.
    pub fn list_error_and_trailing(&mut self, e: &MySqlError) {
        self.list_error(e);
        for w in std::mem::take(&mut self.trailing) {
            self.warn(w.level, w.code, w.message);
        }
    }

    /// A note to list after the error the running statement fails with.
    pub fn trailing_note(&mut self, code: u16, message: String) {
        if self.var_bool("sql_notes") {
            self.trailing.push(Warning {
                level: Level::Note,
                code,
                state: "HY000",
                message,
            });
        }
    }

    /// Turns an error into a warning (INSERT IGNORE, non-strict conversions).
    pub fn warn_err(&mut self, e: &MySqlError) {
        self.warn(Level::Warning, e.code, e.message.clone());
    }

    pub fn note(&mut self, code: u16, message: impl Into<String>) {
        if self.var_bool("sql_notes") {
            self.warn(Level::Note, code, message);
        }
    }

    /// Forgets the diagnostics of the previous statement.
    pub fn clear_warnings(&mut self) {
        self.clears += 1;
        self.warnings.clear();
        self.warning_total = 0;
        self.error_total = 0;
        self.kept_warnings = false;
    }

    /// A statement that reads no table keeps the previous statement's
    /// diagnostics for SHOW WARNINGS until it raises one of its own (MariaDB
    /// clears the list only for statements that use tables).
    pub fn keep_warnings(&mut self) {
        self.kept_warnings = true;
    }

    /// Diagnostics the running statement raised (the count its OK or EOF
    /// packet carries).
    pub fn statement_warnings(&self) -> usize {
        if self.kept_warnings {
            0
        } else {
            self.warning_total
        }
    }

    /// Reads `@@[session.|global.]name`.
    pub fn sysvar(&self, def: &'static VarDef, global: bool) -> Value {
        if def.kind == sysvars::Kind::Dynamic {
            return self.dynamic_var(def.name);
        }
        if global || def.scope == sysvars::Scope::Global {
            return self.engine.globals.get(def.name).unwrap_or(Value::Null);
        }
        self.vars.get(def.name).cloned().unwrap_or(Value::Null)
    }

    fn dynamic_var(&self, name: &str) -> Value {
        match name {
            "warning_count" => Value::UInt(self.warning_total as u64),
            "error_count" => Value::UInt(self.error_total as u64),
            "last_insert_id" | "identity" => Value::UInt(self.last_insert_id),
            "in_transaction" => Value::UInt(self.in_transaction as u64),
            "gtid_slave_pos" => {
                let pos = self.engine.replica().slave_pos();
                Value::str(&basalt_replication::gtid::format_list(&pos.positions()))
            }
            "gtid_current_pos" => {
                let slave = self.engine.replica().slave_pos();
                let pos = crate::replica::control::current_pos(&self.engine, &slave);
                Value::str(&basalt_replication::gtid::format_list(&pos.positions()))
            }
            "gtid_binlog_pos" | "gtid_binlog_state" => {
                let Some(b) = self.engine.binlog() else {
                    return Value::str("");
                };
                let list = if name == "gtid_binlog_state" {
                    b.gtid_state()
                } else {
                    b.gtid_pos()
                };
                Value::str(&basalt_replication::gtid::format_list(&list))
            }
            "timestamp" => {
                let t = self.clock();
                Value::Double(t.unix_seconds() as f64 + t.micro as f64 / 1e6)
            }
            _ => Value::Null,
        }
    }

    /// A pseudo-random double in [0, 1) (xorshift; RAND() without a seed).
    pub fn next_rand(&mut self) -> f64 {
        let mut x = self.rand_state;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rand_state = x;
        (x >> 11) as f64 / (1u64 << 53) as f64
    }
}
