//! Which values of a settable system variable Basalt carries out.
//!
//! Every variable `SET` accepts either changes what MariaDB documents it changes,
//! or has no effect in MariaDB either for this server (InnoDB tables only, no
//! binary log, no replication, `root` the only account), or is listed here: for
//! these Basalt carries out only the default value, and `SET` to any other value
//! fails with 1235 naming the variable and the value, instead of an OK that
//! changes nothing. `tests/variables_walk.rs` walks `SHOW VARIABLES` and holds the
//! classification of every settable variable.

use crate::sysvars::{Kind, VarDef};
use basalt_common::{MySqlError, Value};

/// Variables whose non-default values are not carried out, with the values that
/// are (beyond the default): buffer sizes and caches of MariaDB's own algorithms
/// that Basalt does not have, logs and features not implemented yet.
const DEFAULT_ONLY: &[(&str, &[&str])] = &[
    ("auto_increment_increment", &[]),
    ("auto_increment_offset", &[]),
    ("big_tables", &[]),
    // Row-based logging only (STATEMENT and MIXED answer 1235 when the server
    // has a binary log; see `Session::assign_sysvar`).
    ("binlog_format", &[]),
    ("binlog_row_image", &["NOBLOB", "MINIMAL"]),
    // File names of LOAD DATA, INTO OUTFILE and LOAD_FILE() are taken as they
    // arrive (binary), not converted to another character set.
    ("character_set_filesystem", &[]),
    ("explicit_defaults_for_timestamp", &[]),
    ("innodb_buffer_pool_size", &[]),
    ("innodb_deadlock_detect", &[]),
    ("innodb_default_row_format", &[]),
    ("innodb_file_per_table", &[]),
    ("innodb_flush_log_at_trx_commit", &[]),
    ("innodb_strict_mode", &[]),
    ("join_buffer_size", &[]),
    ("join_buffer_space_limit", &[]),
    ("lc_messages", &[]),
    ("lc_time_names", &[]),
    ("log_warnings", &[]),
    ("max_heap_table_size", &[]),
    ("max_join_size", &[]),
    ("max_sort_length", &[]),
    ("net_buffer_length", &[]),
    ("net_read_timeout", &[]),
    ("net_retry_count", &[]),
    // PASSWORD() and IDENTIFIED BY make mysql_native_password hashes only.
    ("old_passwords", &[]),
    ("optimizer_prune_level", &[]),
    ("optimizer_use_condition_selectivity", &[]),
    ("profiling", &[]),
    ("query_cache_size", &[]),
    ("query_cache_type", &[]),
    ("read_buffer_size", &[]),
    ("session_track_transaction_info", &[]),
    ("sql_auto_is_null", &[]),
    ("sql_big_selects", &[]),
    ("sql_buffer_result", &[]),
    ("sql_quote_show_create", &[]),
    ("sql_safe_updates", &[]),
    ("sql_select_limit", &[]),
    ("sql_warnings", &[]),
    ("table_open_cache", &[]),
    ("thread_cache_size", &[]),
    ("tmp_table_size", &[]),
    ("transaction_alloc_block_size", &[]),
    // USER/CLIENT/TABLE/INDEX_STATISTICS are always collected.
    ("userstat", &[]),
];

/// SQL modes Basalt does not carry out (every other mode does what MariaDB
/// documents, or has no effect here either: NO_AUTO_CREATE_USER without GRANT,
/// IGNORE_SPACE where a
/// space after a function name is always allowed, STRICT_ALL_TABLES where every
/// table is transactional).
const UNSUPPORTED_MODES: &[&str] = &[
    "ANSI_QUOTES",
    "IGNORE_BAD_TABLE_OPTIONS",
    "NO_UNSIGNED_SUBTRACTION",
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
    "ALLOW_INVALID_DATES",
    "HIGH_NOT_PRECEDENCE",
    "PAD_CHAR_TO_FULL_LENGTH",
    "EMPTY_STRING_IS_NULL",
    "SIMULTANEOUS_ASSIGNMENT",
    "TIME_ROUND_FRACTIONAL",
];

/// 1235 unless `v` (already validated) is a value Basalt carries out for `def`.
pub fn check(def: &VarDef, v: &Value, default: &Value) -> Result<(), MySqlError> {
    if def.name == "sql_mode" {
        let text = v.display_lossy();
        return match text.split(',').find(|m| UNSUPPORTED_MODES.contains(m)) {
            Some(m) => Err(MySqlError::not_supported(&format!("sql_mode={m}"))),
            None => Ok(()),
        };
    }
    // As in a MariaDB started with max_user_connections=0 (the default): the
    // per-user connection count is not kept, so no limit can be set later.
    if def.name == "max_user_connections" && !same(v, default) {
        return Err(MySqlError::option_prevents_statement(
            "--max-user-connections=0",
        ));
    }
    let Some((_, extra)) = DEFAULT_ONLY.iter().find(|(n, _)| *n == def.name) else {
        return Ok(());
    };
    if same(v, default) {
        return Ok(());
    }
    let text = v.display_lossy();
    if extra.iter().any(|e| e.eq_ignore_ascii_case(&text)) {
        return Ok(());
    }
    Err(MySqlError::not_supported(&format!(
        "{}={}",
        def.name,
        shown(def, v)
    )))
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Bytes(x), Value::Bytes(y)) => x.eq_ignore_ascii_case(y),
        _ => a == b,
    }
}

/// The value as the error names it: booleans as ON / OFF.
fn shown(def: &VarDef, v: &Value) -> String {
    match (def.kind, v) {
        (Kind::Bool, Value::Int(1)) => "ON".into(),
        (Kind::Bool, Value::Int(0)) => "OFF".into(),
        _ => v.display_lossy(),
    }
}
