//! System variables: their definitions (scope, type, default), the global values and
//! the validation `SET` applies.
//!
//! Values are kept as [`Value`]s of one canonical form per kind, which is what
//! `SELECT @@name` returns: booleans and integers as `Int`/`UInt`, strings as `Bytes`,
//! NULL where MariaDB shows NULL. The column type of `@@name` follows the kind
//! ([`VarDef::column`]): integers and booleans are LONGLONG, strings VARCHAR.
//!
//! Variables whose value is session state rather than a setting (`warning_count`,
//! `last_insert_id`, `in_transaction`, ...) are [`Kind::Dynamic`]: the session
//! computes them on read.

use crate::engine::GlobalConfig;
use basalt_common::{Charset, Collation, MySqlError, Value};
use parking_lot::RwLock;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Global,
    /// Session only (`SET GLOBAL` is refused).
    Session,
    Both,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Bool,
    UInt,
    Int,
    Double,
    Str,
    Enum(&'static [&'static str]),
    SqlMode,
    /// A character set name; `nullable` for `character_set_results`.
    Charset {
        nullable: bool,
    },
    Collation,
    Isolation,
    /// Computed by the session on read; read-only.
    Dynamic,
}

#[derive(Clone, Copy, Debug)]
pub enum Init {
    B(bool),
    U(u64),
    I(i64),
    D(f64),
    S(&'static str),
    Null,
    Config(fn(&GlobalConfig) -> Value),
}

#[derive(Debug)]
pub struct VarDef {
    pub name: &'static str,
    pub scope: Scope,
    pub kind: Kind,
    pub read_only: bool,
    pub init: Init,
}

impl PartialEq for VarDef {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl VarDef {
    pub fn initial(&self, cfg: &GlobalConfig) -> Value {
        match self.init {
            Init::B(b) => Value::Int(b as i64),
            Init::U(u) => Value::UInt(u),
            Init::I(i) => Value::Int(i),
            Init::D(d) => Value::Double(d),
            Init::S(s) => Value::str(s),
            Init::Null => Value::Null,
            Init::Config(f) => f(cfg),
        }
    }
}

const ISOLATIONS: &[&str] = &[
    "READ-UNCOMMITTED",
    "READ-COMMITTED",
    "REPEATABLE-READ",
    "SERIALIZABLE",
];

macro_rules! var {
    ($name:literal, $scope:ident, $kind:expr, $ro:literal, $init:expr) => {
        VarDef {
            name: $name,
            scope: Scope::$scope,
            kind: $kind,
            read_only: $ro,
            init: $init,
        }
    };
}

use Init::{Config, Null, B, D, I, S, U};
use Kind::{Bool, Double, Dynamic, Enum, Int, Isolation, SqlMode, Str, UInt};

static DEFS: &[VarDef] = &[
    var!("alter_algorithm", Both, Enum(&["DEFAULT", "COPY", "INPLACE", "NOCOPY", "INSTANT"]), false, S("DEFAULT")),
    var!("auto_increment_increment", Both, UInt, false, U(1)),
    var!("auto_increment_offset", Both, UInt, false, U(1)),
    var!("autocommit", Both, Bool, false, B(true)),
    // Basalt's: how long a connection's client may send nothing before the
    // connection leaves its thread (crates/server/src/park.rs). 5 ms, measured:
    // at 100 ms, 10,000 clients at one query per second each kept about 1,000
    // connections on threads at any time and the thread cache churned.
    var!("back_log", Global, UInt, true, Config(|c| Value::UInt(c.threads.back_log))),
    var!("basalt_idle_connection_park_ms", Global, UInt, false, U(5)),
    var!("basedir", Global, Str, true, Config(|c| Value::str(&c.basedir))),
    var!("big_tables", Both, Bool, false, B(false)),
    var!("bind_address", Global, Str, true, Config(|c| Value::str(&c.bind_address))),
    var!("binlog_annotate_row_events", Both, Bool, false, B(true)),
    var!("binlog_checksum", Global, Enum(&["NONE", "CRC32"]), false, Config(|c| Value::str(if c.binlog_checksum { "CRC32" } else { "NONE" }))),
    var!("binlog_do_db", Global, Str, false, Config(|c| Value::str(&c.binlog_do_db))),
    var!("binlog_expire_logs_seconds", Global, UInt, false, Config(|c| Value::UInt(c.binlog_expire_seconds))),
    var!("binlog_format", Both, Enum(&["MIXED", "STATEMENT", "ROW"]), false, S("ROW")),
    var!("binlog_ignore_db", Global, Str, false, Config(|c| Value::str(&c.binlog_ignore_db))),
    var!("binlog_row_image", Both, Enum(&["MINIMAL", "NOBLOB", "FULL", "FULL_NODUP"]), false, S("FULL")),
    var!("binlog_row_metadata", Global, Enum(&["NO_LOG", "MINIMAL", "FULL"]), false, S("FULL")),
    var!("character_set_client", Both, Kind::Charset { nullable: false }, false, S("utf8mb4")),
    var!("character_set_connection", Both, Kind::Charset { nullable: false }, false, S("utf8mb4")),
    var!("character_set_database", Both, Kind::Charset { nullable: false }, false, Config(|c| Value::str(c.collation_server.charset().name()))),
    var!("character_set_filesystem", Both, Kind::Charset { nullable: false }, false, S("binary")),
    var!("character_set_results", Both, Kind::Charset { nullable: true }, false, S("utf8mb4")),
    var!("character_set_server", Both, Kind::Charset { nullable: false }, false, Config(|c| Value::str(c.collation_server.charset().name()))),
    var!("character_set_system", Global, Str, true, S("utf8mb3")),
    var!("character_sets_dir", Global, Str, true, S("")),
    var!("check_constraint_checks", Both, Bool, false, B(true)),
    var!("collation_connection", Both, Kind::Collation, false, S("utf8mb4_general_ci")),
    var!("collation_database", Both, Kind::Collation, false, Config(|c| Value::str(c.collation_server.name()))),
    var!("collation_server", Both, Kind::Collation, false, Config(|c| Value::str(c.collation_server.name()))),
    var!("completion_type", Both, Enum(&["NO_CHAIN", "CHAIN", "RELEASE"]), false, S("NO_CHAIN")),
    var!("connect_timeout", Global, UInt, false, U(10)),
    var!("datadir", Global, Str, true, Config(|c| Value::str(&c.datadir))),
    var!("default_storage_engine", Both, Str, false, S("InnoDB")),
    var!("default_tmp_storage_engine", Both, Str, false, Null),
    var!("default_week_format", Both, UInt, false, U(0)),
    var!("div_precision_increment", Both, UInt, false, U(4)),
    var!("error_count", Session, Dynamic, true, Null),
    var!("event_scheduler", Global, Enum(&["OFF", "ON", "DISABLED", "ORIGINAL"]), false, Config(|c| Value::str(&c.event_scheduler))),
    var!("expire_logs_days", Global, Double, false, Config(|c| Value::Double(c.binlog_expire_seconds as f64 / 86400.0))),
    var!("explicit_defaults_for_timestamp", Both, Bool, false, B(true)),
    var!("external_user", Session, Str, true, Null),
    var!("extra_max_connections", Global, UInt, false, Config(|c| Value::UInt(c.threads.extra_max_connections))),
    var!("extra_port", Global, UInt, true, Config(|c| Value::UInt(c.threads.extra_port))),
    var!("foreign_key_checks", Both, Bool, false, B(true)),
    var!("general_log", Global, Bool, false, Config(|c| Value::Int(c.logs.general_log as i64))),
    var!("general_log_file", Global, Str, false, Config(|c| Value::str(&c.logs.general_log_file(&c.hostname)))),
    var!("group_concat_max_len", Both, UInt, false, U(1_048_576)),
    var!("gtid_binlog_pos", Global, Dynamic, true, Null),
    var!("gtid_binlog_state", Global, Dynamic, true, Null),
    var!("gtid_current_pos", Global, Dynamic, true, Null),
    var!("gtid_domain_id", Both, UInt, false, U(0)),
    var!("gtid_slave_pos", Global, Dynamic, false, Null),
    var!("gtid_strict_mode", Global, Bool, false, B(false)),
    var!("have_openssl", Global, Str, true, S("NO")),
    var!("have_query_cache", Global, Str, true, S("NO")),
    var!("have_ssl", Global, Str, true, Config(|c| Value::str(&c.have_ssl))),
    var!("hostname", Global, Str, true, Config(|c| Value::str(&c.hostname))),
    var!("identity", Session, Dynamic, false, Null),
    var!("in_transaction", Session, Dynamic, true, Null),
    var!("init_connect", Global, Str, false, S("")),
    var!("innodb_autoinc_lock_mode", Global, Int, true, I(1)),
    var!("innodb_buffer_pool_size", Global, UInt, false, Config(|c| Value::UInt(c.buffer_pool_size))),
    var!("innodb_deadlock_detect", Global, Bool, false, B(true)),
    var!("innodb_default_row_format", Global, Enum(&["redundant", "compact", "dynamic"]), false, S("dynamic")),
    var!("innodb_file_per_table", Global, Bool, false, B(true)),
    var!("innodb_flush_log_at_trx_commit", Global, UInt, false, Config(|c| Value::UInt(c.flush_log_at_trx_commit))),
    var!("innodb_lock_wait_timeout", Both, UInt, false, U(50)),
    var!("innodb_page_size", Global, UInt, true, U(16384)),
    var!("innodb_rollback_on_timeout", Global, Bool, true, Config(|c| Value::Int(c.rollback_on_timeout as i64))),
    var!("innodb_snapshot_isolation", Both, Bool, false, B(true)),
    // No statistics are stored: estimates come from the indexes as queries
    // plan (records-in-range dives).
    var!("innodb_stats_persistent", Global, Bool, true, B(false)),
    var!("innodb_strict_mode", Both, Bool, false, B(true)),
    var!("insert_id", Session, UInt, false, U(0)),
    var!("interactive_timeout", Both, UInt, false, U(28800)),
    var!("join_buffer_size", Both, UInt, false, U(262_144)),
    var!("join_buffer_space_limit", Both, UInt, false, U(2_097_152)),
    var!("join_cache_level", Both, UInt, false, U(2)),
    var!("key_buffer_size", Global, UInt, false, U(134_217_728)),
    var!("last_insert_id", Session, Dynamic, false, Null),
    var!("lc_messages", Both, Str, false, S("en_US")),
    var!("lc_time_names", Both, Str, false, S("en_US")),
    var!("license", Global, Str, true, S("Apache-2.0")),
    var!("local_infile", Global, Bool, false, B(true)),
    var!("lock_wait_timeout", Both, UInt, false, U(86400)),
    var!("log_bin", Global, Bool, false, Config(|c| Value::Int(c.log_bin as i64))),
    var!("log_bin_basename", Global, Str, true, Config(|c| match &c.log_bin_basename {
        Some(p) => Value::str(p),
        None => Value::Null,
    })),
    var!("log_bin_index", Global, Str, true, Config(|c| match &c.log_bin_basename {
        Some(p) => Value::str(&format!("{p}.index")),
        None => Value::Null,
    })),
    var!("log_bin_trust_function_creators", Global, Bool, false, B(false)),
    var!("log_error", Global, Str, true, Config(|c| Value::str(&c.log_error))),
    var!("log_output", Global, Str, false, Config(|c| Value::str(&c.logs.log_output))),
    var!("log_queries_not_using_indexes", Both, Bool, false, Config(|c| Value::Int(c.logs.not_using_indexes as i64))),
    var!("log_replica_updates", Global, Bool, false, Config(|c| Value::Int(c.log_slave_updates as i64))),
    var!("log_slave_updates", Global, Bool, false, Config(|c| Value::Int(c.log_slave_updates as i64))),
    var!("log_slow_admin_statements", Both, Bool, false, Config(|c| Value::Int(c.logs.slow_admin_statements as i64))),
    // MariaDB 10.11's other names of slow_query_log, slow_query_log_file,
    // long_query_time and min_examined_row_limit (see `alias_of`).
    var!("log_slow_min_examined_row_limit", Both, UInt, false, Config(|c| Value::UInt(c.logs.min_examined_row_limit))),
    var!("log_slow_query", Both, Bool, false, Config(|c| Value::Int(c.logs.slow_query_log as i64))),
    var!("log_slow_query_file", Global, Str, false, Config(|c| Value::str(&c.logs.slow_query_log_file(&c.hostname)))),
    var!("log_slow_query_time", Both, Double, false, Config(|c| Value::Double(c.logs.long_query_time))),
    var!("log_slow_verbosity", Both, Str, false, Config(|c| Value::str(&c.logs.slow_verbosity))),
    var!("log_warnings", Both, UInt, false, U(2)),
    var!("long_query_time", Both, Double, false, Config(|c| Value::Double(c.logs.long_query_time))),
    var!("lower_case_table_names", Global, UInt, true, U(0)),
    var!("max_allowed_packet", Both, UInt, false, Config(|c| Value::UInt(c.max_allowed_packet))),
    var!("max_binlog_size", Global, UInt, false, Config(|c| Value::UInt(c.max_binlog_size))),
    var!("max_connections", Global, UInt, false, Config(|c| Value::UInt(c.max_connections))),
    var!("max_heap_table_size", Both, UInt, false, U(16_777_216)),
    var!("max_join_size", Both, UInt, false, U(u64::MAX)),
    var!("max_prepared_stmt_count", Global, UInt, false, U(16382)),
    var!("max_recursive_iterations", Both, UInt, false, U(1000)),
    var!("max_session_mem_used", Both, UInt, false, Config(|c| Value::UInt(c.max_session_mem_used))),
    var!("max_sort_length", Both, UInt, false, U(1024)),
    var!("max_sp_recursion_depth", Both, UInt, false, U(0)),
    var!("max_statement_time", Both, Double, false, D(0.0)),
    var!("max_user_connections", Both, Int, false, I(0)),
    var!("min_examined_row_limit", Both, UInt, false, Config(|c| Value::UInt(c.logs.min_examined_row_limit))),
    var!("net_buffer_length", Both, UInt, false, U(16384)),
    var!("net_read_timeout", Both, UInt, false, U(30)),
    var!("net_retry_count", Both, UInt, false, U(10)),
    var!("net_write_timeout", Both, UInt, false, U(60)),
    var!("old_passwords", Both, Bool, false, B(false)),
    var!("open_files_limit", Global, UInt, true, Config(|c| Value::UInt(c.open_files_limit))),
    var!("optimizer_prune_level", Both, UInt, false, U(2)),
    var!("optimizer_search_depth", Both, UInt, false, U(62)),
    var!("optimizer_switch", Both, Str, false, S(crate::plan::switch::DEFAULT)),
    var!("optimizer_use_condition_selectivity", Both, UInt, false, U(4)),
    var!("performance_schema", Global, Bool, true, Config(|c| Value::Int(c.performance_schema as i64))),
    var!("pid_file", Global, Str, true, Config(|c| Value::str(&c.pid_file))),
    var!("port", Global, UInt, true, Config(|c| Value::UInt(c.port as u64))),
    var!("profiling", Both, Bool, false, B(false)),
    var!("protocol_version", Global, UInt, true, U(10)),
    var!("proxy_user", Session, Str, true, Null),
    var!("pseudo_thread_id", Session, UInt, false, U(0)),
    var!("query_cache_size", Global, UInt, false, Config(|c| Value::UInt(c.query_cache_size))),
    var!("query_cache_type", Both, Enum(&["OFF", "ON", "DEMAND"]), false, S("OFF")),
    var!("read_buffer_size", Both, UInt, false, U(131_072)),
    var!("read_only", Global, Bool, false, B(false)),
    var!("replicate_do_db", Global, Str, false, S("")),
    var!("replicate_do_table", Global, Str, false, S("")),
    var!("replicate_ignore_db", Global, Str, false, S("")),
    var!("replicate_ignore_table", Global, Str, false, S("")),
    var!("replicate_rewrite_db", Global, Str, false, S("")),
    var!("replicate_wild_do_table", Global, Str, false, S("")),
    var!("replicate_wild_ignore_table", Global, Str, false, S("")),
    var!("require_secure_transport", Global, Bool, false, B(false)),
    var!("rpl_semi_sync_master_enabled", Global, Bool, false, Config(|c| Value::Int(c.semisync.enabled as i64))),
    var!("rpl_semi_sync_master_timeout", Global, UInt, false, Config(|c| Value::UInt(c.semisync.timeout_ms))),
    var!("rpl_semi_sync_master_wait_no_slave", Global, Bool, false, Config(|c| Value::Int(c.semisync.wait_no_slave as i64))),
    var!("rpl_semi_sync_master_wait_point", Global, Enum(&["AFTER_SYNC", "AFTER_COMMIT"]), false, Config(|c| Value::str(c.semisync.wait_point.name()))),
    var!("secure_file_priv", Global, Str, true, Config(|c| match &c.secure_file_priv {
        Some(p) => Value::str(&format!("{}/", p.display())),
        None => Value::Null,
    })),
    var!("server_id", Both, UInt, false, Config(|c| Value::UInt(c.server_id))),
    var!("session_track_schema", Both, Bool, false, B(true)),
    var!("session_track_state_change", Both, Bool, false, B(false)),
    var!("session_track_system_variables", Both, Str, false, S("autocommit,character_set_client,character_set_connection,character_set_results,time_zone")),
    var!("session_track_transaction_info", Both, Enum(&["OFF", "STATE", "CHARACTERISTICS"]), false, S("OFF")),
    var!("skip_name_resolve", Global, Bool, true, B(true)),
    var!("skip_networking", Global, Bool, true, Config(|c| Value::Int(c.skip_networking as i64))),
    var!("skip_slave_start", Global, Bool, true, Config(|c| Value::Int(c.skip_slave_start as i64))),
    var!("slave_ddl_exec_mode", Global, Enum(&["STRICT", "IDEMPOTENT"]), false, S("IDEMPOTENT")),
    var!("slave_exec_mode", Global, Enum(&["STRICT", "IDEMPOTENT"]), false, S("STRICT")),
    var!("slave_net_timeout", Global, UInt, false, U(60)),
    var!("slave_skip_errors", Global, Str, true, Config(|c| Value::str(&c.slave_skip_errors))),
    var!("slow_query_log", Both, Bool, false, Config(|c| Value::Int(c.logs.slow_query_log as i64))),
    var!("slow_query_log_file", Global, Str, false, Config(|c| Value::str(&c.logs.slow_query_log_file(&c.hostname)))),
    var!("socket", Global, Str, true, Config(|c| Value::str(&c.socket))),
    var!("sort_buffer_size", Both, UInt, false, U(2_097_152)),
    var!("sql_auto_is_null", Both, Bool, false, B(false)),
    var!("sql_big_selects", Both, Bool, false, B(true)),
    var!("sql_buffer_result", Both, Bool, false, B(false)),
    var!("sql_log_bin", Both, Bool, false, B(true)),
    var!("sql_log_off", Both, Bool, false, B(false)),
    var!("sql_mode", Both, SqlMode, false, S("STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION")),
    var!("sql_notes", Both, Bool, false, B(true)),
    var!("sql_quote_show_create", Both, Bool, false, B(true)),
    var!("sql_safe_updates", Both, Bool, false, B(false)),
    var!("sql_select_limit", Both, UInt, false, U(u64::MAX)),
    var!("sql_warnings", Both, Bool, false, B(false)),
    var!("ssl_ca", Global, Str, true, Config(|c| Value::str(&c.tls.ca))),
    var!("ssl_capath", Global, Str, true, S("")),
    var!("ssl_cert", Global, Str, true, Config(|c| Value::str(&c.tls.cert))),
    var!("ssl_cipher", Global, Str, true, Config(|c| Value::str(&c.tls.cipher))),
    var!("ssl_crl", Global, Str, true, S("")),
    var!("ssl_crlpath", Global, Str, true, S("")),
    var!("ssl_key", Global, Str, true, Config(|c| Value::str(&c.tls.key))),
    var!("storage_engine", Both, Str, false, S("InnoDB")),
    var!("system_time_zone", Global, Str, true, Config(|c| Value::str(&c.system_time_zone))),
    var!("table_open_cache", Global, UInt, false, U(2000)),
    var!("thread_cache_size", Global, UInt, false, U(151)),
    var!("thread_handling", Global, Str, true, Config(|c| Value::str(c.threads.handling))),
    var!("thread_pool_idle_timeout", Global, UInt, false, Config(|c| Value::UInt(c.threads.pool_idle_timeout))),
    var!("thread_pool_max_threads", Global, UInt, false, Config(|c| Value::UInt(c.threads.pool_max_threads))),
    var!("thread_pool_oversubscribe", Global, UInt, false, Config(|c| Value::UInt(c.threads.pool_oversubscribe))),
    var!("thread_pool_size", Global, UInt, false, Config(|c| Value::UInt(c.threads.pool_size))),
    var!("thread_pool_stall_limit", Global, UInt, false, Config(|c| Value::UInt(c.threads.pool_stall_limit))),
    var!("thread_stack", Global, UInt, true, U(299_008)),
    var!("time_zone", Both, Str, false, Config(|c| Value::str(&c.default_time_zone))),
    var!("timestamp", Session, Dynamic, false, Null),
    var!("tls_version", Global, Str, true, Config(|c| Value::str(&c.tls.versions))),
    var!("tmp_table_size", Both, UInt, false, U(16_777_216)),
    var!("tmpdir", Global, Str, true, Config(|c| Value::str(&c.tmpdir))),
    var!("transaction_alloc_block_size", Both, UInt, false, U(8192)),
    var!("transaction_isolation", Both, Isolation, false, S("REPEATABLE-READ")),
    var!("transaction_read_only", Both, Bool, false, B(false)),
    var!("tx_isolation", Both, Isolation, false, S("REPEATABLE-READ")),
    var!("tx_read_only", Both, Bool, false, B(false)),
    var!("unique_checks", Both, Bool, false, B(true)),
    // The userstat tables are always collected (MariaDB's default is OFF).
    var!("userstat", Global, Bool, false, B(true)),
    var!("version", Global, Str, true, Config(|c| Value::str(&c.version))),
    var!("version_comment", Global, Str, true, Config(|c| Value::str(&c.version_comment))),
    var!("version_compile_machine", Global, Str, true, Config(|c| Value::str(&c.version_compile_machine))),
    var!("version_compile_os", Global, Str, true, Config(|c| Value::str(&c.version_compile_os))),
    var!("version_ssl_library", Global, Str, true, Config(|c| Value::str(&c.tls.library))),
    var!("wait_timeout", Both, UInt, false, U(28800)),
    var!("warning_count", Session, Dynamic, true, Null),
];

fn index() -> &'static HashMap<&'static str, &'static VarDef> {
    static INDEX: OnceLock<HashMap<&'static str, &'static VarDef>> = OnceLock::new();
    INDEX.get_or_init(|| DEFS.iter().map(|d| (d.name, d)).collect())
}

/// Every variable definition, sorted by name.
pub fn all() -> &'static [VarDef] {
    DEFS
}

/// The definition of a variable (name compared case-insensitively).
pub fn lookup(name: &str) -> Option<&'static VarDef> {
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        index().get(name.to_ascii_lowercase().as_str()).copied()
    } else {
        index().get(name).copied()
    }
}

/// The name a variable's side effects are keyed by, for one of MariaDB 10.11's
/// `log_slow_*` names of the slow log's variables.
pub fn canonical(name: &'static str) -> &'static str {
    match name {
        "log_slow_query" => "slow_query_log",
        "log_slow_query_file" => "slow_query_log_file",
        "log_slow_query_time" => "long_query_time",
        "log_slow_min_examined_row_limit" => "min_examined_row_limit",
        _ => name,
    }
}

/// The other name of a variable that has two (`tx_isolation` and
/// `transaction_isolation`): setting one sets both.
pub fn alias_of(name: &str) -> Option<&'static str> {
    Some(match name {
        "tx_isolation" => "transaction_isolation",
        "transaction_isolation" => "tx_isolation",
        "tx_read_only" => "transaction_read_only",
        "transaction_read_only" => "tx_read_only",
        "storage_engine" => "default_storage_engine",
        "default_storage_engine" => "storage_engine",
        "log_slave_updates" => "log_replica_updates",
        "log_replica_updates" => "log_slave_updates",
        "slow_query_log" => "log_slow_query",
        "log_slow_query" => "slow_query_log",
        "slow_query_log_file" => "log_slow_query_file",
        "log_slow_query_file" => "slow_query_log_file",
        "long_query_time" => "log_slow_query_time",
        "log_slow_query_time" => "long_query_time",
        "min_examined_row_limit" => "log_slow_min_examined_row_limit",
        "log_slow_min_examined_row_limit" => "min_examined_row_limit",
        _ => return None,
    })
}

/// Global values, shared by every session.
pub struct GlobalVars {
    values: RwLock<HashMap<&'static str, Value>>,
    /// The values new sessions start from, built once per change of a global.
    defaults: RwLock<Option<Arc<Values>>>,
}

impl GlobalVars {
    pub fn new(cfg: &GlobalConfig) -> Self {
        let values = DEFS
            .iter()
            .filter(|d| d.scope != Scope::Session)
            .map(|d| (d.name, d.initial(cfg)))
            .collect();
        GlobalVars {
            values: RwLock::new(values),
            defaults: RwLock::new(None),
        }
    }

    pub fn get(&self, name: &str) -> Option<Value> {
        let def = lookup(name)?;
        self.values.read().get(def.name).cloned()
    }

    pub fn set(&self, def: &'static VarDef, value: Value) {
        let mut vals = self.values.write();
        if let Some(alias) = alias_of(def.name) {
            vals.insert(alias, value.clone());
        }
        vals.insert(def.name, value);
        *self.defaults.write() = None;
    }

    /// The values a new session starts with (variables of session or both
    /// scopes): shared by every session started since the last change of a global.
    pub fn session_defaults(&self, cfg: &GlobalConfig) -> VarMap {
        if let Some(base) = self.defaults.read().as_ref() {
            return VarMap::over(base.clone());
        }
        let mut cached = self.defaults.write();
        let base = cached.get_or_insert_with(|| {
            let vals = self.values.read();
            let map = DEFS
                .iter()
                .filter(|d| d.scope != Scope::Global)
                .map(|d| {
                    let v = vals.get(d.name).cloned().unwrap_or_else(|| d.initial(cfg));
                    (d.name, v)
                })
                .collect();
            Arc::new(map)
        });
        VarMap::over(base.clone())
    }
}

/// Variable values by name. The keys are the static names of [`DEFS`], so a
/// fixed-seed fast hash is safe; SipHash made building the map for every new
/// connection and each lookup several times dearer.
type Values = HashMap<&'static str, Value, foldhash::fast::FixedState>;

/// A session's variables: the defaults it started from, shared with other
/// sessions, under the values it set itself (a new connection copies nothing).
#[derive(Clone, Debug, Default)]
pub struct VarMap {
    base: Arc<Values>,
    /// Values set by the session; `None` for a variable it removed.
    own: HashMap<&'static str, Option<Value>, foldhash::fast::FixedState>,
}

impl VarMap {
    fn over(base: Arc<Values>) -> Self {
        VarMap {
            base,
            own: HashMap::default(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        if !self.own.is_empty() {
            if let Some(v) = self.own.get(name) {
                return v.as_ref();
            }
        }
        self.base.get(name)
    }

    pub fn insert(&mut self, name: &'static str, value: Value) {
        self.own.insert(name, Some(value));
    }

    pub fn remove(&mut self, name: &'static str) {
        self.own.insert(name, None);
    }
}

/// SQL modes in MariaDB's bit order (which is the order `@@sql_mode` lists them).
pub const SQL_MODES: &[&str] = &[
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "IGNORE_BAD_TABLE_OPTIONS",
    "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_DIR_IN_CREATE",
    "POSTGRESQL",
    "ORACLE",
    "MSSQL",
    "DB2",
    "MAXDB",
    "NO_KEY_OPTIONS",
    "NO_TABLE_OPTIONS",
    "NO_FIELD_OPTIONS",
    "MYSQL323",
    "MYSQL40",
    "ANSI",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "NO_AUTO_CREATE_USER",
    "HIGH_NOT_PRECEDENCE",
    "NO_ENGINE_SUBSTITUTION",
    "PAD_CHAR_TO_FULL_LENGTH",
    "EMPTY_STRING_IS_NULL",
    "SIMULTANEOUS_ASSIGNMENT",
    "TIME_ROUND_FRACTIONAL",
];

fn mode_bit(name: &str) -> Option<u64> {
    SQL_MODES
        .iter()
        .position(|m| m.eq_ignore_ascii_case(name))
        .map(|p| 1u64 << p)
}

fn expand_mode(bits: u64) -> u64 {
    let b = |n: &str| mode_bit(n).unwrap_or(0);
    let mut out = bits;
    if bits & b("ANSI") != 0 {
        out |= b("REAL_AS_FLOAT") | b("PIPES_AS_CONCAT") | b("ANSI_QUOTES") | b("IGNORE_SPACE");
    }
    if bits & b("TRADITIONAL") != 0 {
        out |= b("STRICT_TRANS_TABLES")
            | b("STRICT_ALL_TABLES")
            | b("NO_ZERO_IN_DATE")
            | b("NO_ZERO_DATE")
            | b("ERROR_FOR_DIVISION_BY_ZERO")
            | b("NO_AUTO_CREATE_USER")
            | b("NO_ENGINE_SUBSTITUTION");
    }
    out
}

/// Parses a `sql_mode` value (comma-separated names, or a number) into its
/// canonical text.
pub fn parse_sql_mode(text: &str) -> Option<String> {
    let mut bits = 0u64;
    if let Ok(n) = text.trim().parse::<u64>() {
        bits = n;
    } else {
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            bits |= mode_bit(part)?;
        }
    }
    let bits = expand_mode(bits);
    let names: Vec<&str> = SQL_MODES
        .iter()
        .enumerate()
        .filter(|(i, _)| bits & (1u64 << i) != 0)
        .map(|(_, n)| *n)
        .collect();
    Some(names.join(","))
}

/// Session flags derived from `sql_mode`, checked on hot paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModeFlags {
    pub strict: bool,
    pub no_auto_value_on_zero: bool,
    pub error_for_division_by_zero: bool,
    pub pipes_as_concat: bool,
    pub ansi_quotes: bool,
    pub no_backslash_escapes: bool,
    pub no_engine_substitution: bool,
    pub no_zero_date: bool,
    pub no_zero_in_date: bool,
    pub only_full_group_by: bool,
    pub pad_char_to_full_length: bool,
    pub real_as_float: bool,
    pub no_dir_in_create: bool,
}

impl ModeFlags {
    /// The flags of a `sql_mode` text, in one pass over its names.
    pub fn from_text(text: &str) -> Self {
        let mut f = ModeFlags::default();
        for name in text.split(',') {
            let flag = match name.to_ascii_uppercase().as_str() {
                "STRICT_TRANS_TABLES" | "STRICT_ALL_TABLES" => &mut f.strict,
                "NO_AUTO_VALUE_ON_ZERO" => &mut f.no_auto_value_on_zero,
                "ERROR_FOR_DIVISION_BY_ZERO" => &mut f.error_for_division_by_zero,
                "PIPES_AS_CONCAT" => &mut f.pipes_as_concat,
                "ANSI_QUOTES" => &mut f.ansi_quotes,
                "NO_BACKSLASH_ESCAPES" => &mut f.no_backslash_escapes,
                "NO_ENGINE_SUBSTITUTION" => &mut f.no_engine_substitution,
                "NO_ZERO_DATE" => &mut f.no_zero_date,
                "NO_ZERO_IN_DATE" => &mut f.no_zero_in_date,
                "ONLY_FULL_GROUP_BY" => &mut f.only_full_group_by,
                "PAD_CHAR_TO_FULL_LENGTH" => &mut f.pad_char_to_full_length,
                "REAL_AS_FLOAT" => &mut f.real_as_float,
                "NO_DIR_IN_CREATE" => &mut f.no_dir_in_create,
                _ => continue,
            };
            *flag = true;
        }
        f
    }
}

fn value_text(v: &Value) -> String {
    v.display_lossy()
}

/// Checks and converts a value assigned with `SET` to the variable's canonical form.
/// `DEFAULT` is resolved by the caller before this.
pub fn validate(def: &VarDef, v: Value) -> Result<Value, MySqlError> {
    let wrong = |v: &Value| MySqlError::wrong_value_for_var(def.name, &value_text(v));
    let wrong_type = || MySqlError::wrong_type_for_var(def.name);
    match def.kind {
        Kind::Bool => match &v {
            Value::Int(0) | Value::UInt(0) => Ok(Value::Int(0)),
            Value::Int(1) | Value::UInt(1) => Ok(Value::Int(1)),
            Value::Bytes(b) => match String::from_utf8_lossy(b).to_ascii_uppercase().as_str() {
                "ON" | "TRUE" | "YES" | "1" => Ok(Value::Int(1)),
                "OFF" | "FALSE" | "NO" | "0" => Ok(Value::Int(0)),
                _ => Err(wrong(&v)),
            },
            Value::Double(_) | Value::Decimal(_) => Err(wrong_type()),
            _ => Err(wrong(&v)),
        },
        Kind::UInt => match v {
            Value::Int(i) => Ok(Value::UInt(i.max(0) as u64)),
            Value::UInt(u) => Ok(Value::UInt(u)),
            Value::Null if matches!(def.init, Init::Null) => Ok(Value::Null),
            _ => Err(wrong_type()),
        },
        Kind::Int => match v {
            Value::Int(i) => Ok(Value::Int(i)),
            Value::UInt(u) => Ok(Value::Int(u.min(i64::MAX as u64) as i64)),
            _ => Err(wrong_type()),
        },
        Kind::Double => match v {
            Value::Int(i) => Ok(Value::Double(i as f64)),
            Value::UInt(u) => Ok(Value::Double(u as f64)),
            Value::Double(d) => Ok(Value::Double(d)),
            Value::Decimal(d) => Ok(Value::Double(d.to_f64())),
            _ => Err(wrong_type()),
        },
        Kind::Str => match v {
            Value::Null if matches!(def.init, Init::Null) => Ok(Value::Null),
            Value::Null => Err(wrong(&Value::str("NULL"))),
            other if def.name == "time_zone" => {
                crate::value::zone::canonical_name(&value_text(&other)).map(|n| Value::str(&n))
            }
            other => Ok(Value::str(&value_text(&other))),
        },
        Kind::Enum(names) => enum_value(names, &v).ok_or_else(|| wrong(&v)),
        Kind::Isolation => enum_value(ISOLATIONS, &v).ok_or_else(|| wrong(&v)),
        Kind::SqlMode => match &v {
            Value::Null => Err(wrong(&Value::str("NULL"))),
            Value::Double(_) | Value::Decimal(_) => Err(wrong_type()),
            other => parse_sql_mode(&value_text(other))
                .map(|s| Value::str(&s))
                .ok_or_else(|| wrong(&v)),
        },
        Kind::Charset { nullable } => charset_value(&v, nullable, def.name),
        Kind::Collation => match &v {
            Value::Bytes(b) => {
                let name = String::from_utf8_lossy(b);
                Collation::from_name(&name)
                    .map(|c| Value::str(c.name()))
                    .ok_or_else(|| MySqlError::unknown_collation(&name))
            }
            Value::Int(_) | Value::UInt(_) => {
                let id = match v {
                    Value::Int(i) => i as u16,
                    Value::UInt(u) => u as u16,
                    _ => 0,
                };
                Collation::from_id(id)
                    .map(|c| Value::str(c.name()))
                    .ok_or_else(|| MySqlError::unknown_collation(&id.to_string()))
            }
            _ => Err(wrong(&v)),
        },
        Kind::Dynamic => Err(MySqlError::read_only_variable(def.name)),
    }
}

fn enum_value(names: &[&str], v: &Value) -> Option<Value> {
    match v {
        Value::Bytes(b) => {
            let s = String::from_utf8_lossy(b).replace(' ', "-");
            names
                .iter()
                .find(|n| n.eq_ignore_ascii_case(&s))
                .map(|n| Value::str(n))
        }
        Value::Int(i) => names.get(usize::try_from(*i).ok()?).map(|n| Value::str(n)),
        Value::UInt(u) => names.get(usize::try_from(*u).ok()?).map(|n| Value::str(n)),
        _ => None,
    }
}

fn charset_value(v: &Value, nullable: bool, name: &str) -> Result<Value, MySqlError> {
    match v {
        Value::Null if nullable => Ok(Value::Null),
        Value::Null => Err(MySqlError::wrong_value_for_var(name, "NULL")),
        Value::Bytes(b) => {
            let n = String::from_utf8_lossy(b);
            let cs = Charset::from_name(&n).ok_or_else(|| MySqlError::unknown_character_set(&n))?;
            client_charset(name, cs)?;
            Ok(Value::str(cs.name()))
        }
        Value::Int(_) | Value::UInt(_) => {
            let id = match v {
                Value::Int(i) => *i as u16,
                Value::UInt(u) => *u as u16,
                _ => 0,
            };
            let cs = Collation::from_id(id)
                .map(|c| c.charset())
                .ok_or_else(|| MySqlError::unknown_character_set(&id.to_string()))?;
            client_charset(name, cs)?;
            Ok(Value::str(cs.name()))
        }
        _ => Err(MySqlError::wrong_type_for_var(name)),
    }
}

/// MariaDB's 1231 for a client character set no client can send text in (ucs2,
/// utf16, utf16le, utf32); `name` is the variable being set.
pub(crate) fn client_charset(name: &str, cs: Charset) -> Result<(), MySqlError> {
    if name == "character_set_client" && cs.is_wide() {
        return Err(MySqlError::wrong_value_for_var(name, cs.name()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defs_are_sorted_and_unique() {
        for w in DEFS.windows(2) {
            assert!(w[0].name < w[1].name, "{} before {}", w[0].name, w[1].name);
        }
    }

    #[test]
    fn sql_mode_canonical() {
        assert_eq!(
            parse_sql_mode("no_engine_substitution,strict_trans_tables").as_deref(),
            Some("STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION")
        );
        assert_eq!(parse_sql_mode("").as_deref(), Some(""));
        assert!(parse_sql_mode("BOGUS").is_none());
        assert_eq!(
            parse_sql_mode("ANSI").as_deref(),
            Some("REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ANSI")
        );
    }

    #[test]
    fn bool_validation() {
        let def = lookup("AUTOCOMMIT").expect("known");
        assert_eq!(validate(def, Value::str("off")), Ok(Value::Int(0)));
        assert_eq!(validate(def, Value::Int(1)), Ok(Value::Int(1)));
        let e = validate(def, Value::str("maybe")).expect_err("invalid");
        assert_eq!(e.code, 1231);
        assert_eq!(
            e.message,
            "Variable 'autocommit' can't be set to the value of 'maybe'"
        );
    }

    #[test]
    fn charset_results_may_be_null() {
        let def = lookup("character_set_results").expect("known");
        assert_eq!(validate(def, Value::Null), Ok(Value::Null));
        let def = lookup("character_set_client").expect("known");
        assert!(validate(def, Value::Null).is_err());
    }
}
