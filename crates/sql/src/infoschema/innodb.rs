//! information_schema's `INNODB_*` tables, in MariaDB 10.11's columns, from
//! Basalt's engine: active transactions and lock waits, the buffer pool, the
//! metrics Basalt keeps, and the compression tables (Basalt compresses no
//! pages, so they hold MariaDB's rows of zeros). Reading them needs PROCESS.

use super::{table_def, Col};
use crate::result::{opt_s, s};
use crate::session::ctx::SessionCtx;
use basalt_common::{DateTime, MySqlError, Row, TableDef, Value};
use basalt_storage::mvcc::trx_info::{LockWait, TrxInfo, WaitPlace};
use std::collections::HashMap;
use Col::*;

pub const NAMES: &[&str] = &[
    "INNODB_BUFFER_POOL_STATS",
    "INNODB_CMP",
    "INNODB_CMPMEM",
    "INNODB_CMPMEM_RESET",
    "INNODB_CMP_RESET",
    "INNODB_LOCKS",
    "INNODB_LOCK_WAITS",
    "INNODB_METRICS",
    "INNODB_TRX",
];

/// The table `name` (upper case), if it is one of these; 1227 without PROCESS.
pub fn build(name: &str, cx: &SessionCtx) -> Option<Result<(TableDef, Vec<Row>), MySqlError>> {
    if !NAMES.contains(&name) {
        return None;
    }
    if !cx.privs.has_process() {
        return Some(Err(MySqlError::new(
            1227,
            "42000",
            "Access denied; you need (at least one of) the PROCESS privilege(s) for this operation",
        )));
    }
    let def = |cols: &[(&str, Col)]| table_def(name, cols);
    Some(Ok(match name {
        "INNODB_CMP" | "INNODB_CMP_RESET" => (def(CMP_COLS), zeros(6, false)),
        "INNODB_CMPMEM" | "INNODB_CMPMEM_RESET" => (def(CMPMEM_COLS), zeros(6, true)),
        "INNODB_BUFFER_POOL_STATS" => (def(POOL_COLS), vec![pool_row(cx)]),
        "INNODB_METRICS" => (def(METRICS_COLS), super::innodb_metrics::rows(cx)),
        "INNODB_TRX" => (def(TRX_COLS), trx_rows(cx)),
        "INNODB_LOCKS" => (def(LOCKS_COLS), lock_rows(cx)),
        _ => (def(LOCK_WAITS_COLS), lock_wait_rows(cx)),
    }))
}

/// The tables' definitions (information_schema.COLUMNS lists their columns,
/// which tools check before they read them).
pub fn defs() -> Vec<(String, std::sync::Arc<TableDef>)> {
    let cols: [&[(&str, Col)]; 9] = [
        POOL_COLS,
        CMP_COLS,
        CMPMEM_COLS,
        CMPMEM_COLS,
        CMP_COLS,
        LOCKS_COLS,
        LOCK_WAITS_COLS,
        METRICS_COLS,
        TRX_COLS,
    ];
    NAMES
        .iter()
        .zip(cols)
        .map(|(n, c)| {
            (
                super::SCHEMA.to_string(),
                std::sync::Arc::new(table_def(n, c)),
            )
        })
        .collect()
}

const CMP_COLS: &[(&str, Col)] = &[
    ("page_size", Int32),
    ("compress_ops", Int32),
    ("compress_ops_ok", Int32),
    ("compress_time", Int32),
    ("uncompress_ops", Int32),
    ("uncompress_time", Int32),
];

const CMPMEM_COLS: &[(&str, Col)] = &[
    ("page_size", Int32),
    ("buffer_pool_instance", Int32),
    ("pages_used", Int32),
    ("pages_free", Int32),
    ("relocation_ops", Int),
    ("relocation_time", Int32),
];

/// One row per compressed page size, every count zero.
fn zeros(cols: usize, instance: bool) -> Vec<Row> {
    [1024i64, 2048, 4096, 8192, 16384]
        .iter()
        .map(|&size| {
            let mut row = vec![Value::Int(size)];
            row.extend((1..cols).map(|_| Value::Int(0)));
            if instance {
                row[1] = Value::Int(0);
            }
            row
        })
        .collect()
}

const POOL_COLS: &[(&str, Col)] = &[
    ("POOL_ID", UInt),
    ("POOL_SIZE", UInt),
    ("FREE_BUFFERS", UInt),
    ("DATABASE_PAGES", UInt),
    ("OLD_DATABASE_PAGES", UInt),
    ("MODIFIED_DATABASE_PAGES", UInt),
    ("PENDING_DECOMPRESS", UInt),
    ("PENDING_READS", UInt),
    ("PENDING_FLUSH_LRU", UInt),
    ("PENDING_FLUSH_LIST", UInt),
    ("PAGES_MADE_YOUNG", UInt),
    ("PAGES_NOT_MADE_YOUNG", UInt),
    ("PAGES_MADE_YOUNG_RATE", Float),
    ("PAGES_MADE_NOT_YOUNG_RATE", Float),
    ("NUMBER_PAGES_READ", UInt),
    ("NUMBER_PAGES_CREATED", UInt),
    ("NUMBER_PAGES_WRITTEN", UInt),
    ("PAGES_READ_RATE", Float),
    ("PAGES_CREATE_RATE", Float),
    ("PAGES_WRITTEN_RATE", Float),
    ("NUMBER_PAGES_GET", UInt),
    ("HIT_RATE", UInt),
    ("YOUNG_MAKE_PER_THOUSAND_GETS", UInt),
    ("NOT_YOUNG_MAKE_PER_THOUSAND_GETS", UInt),
    ("NUMBER_PAGES_READ_AHEAD", UInt),
    ("NUMBER_READ_AHEAD_EVICTED", UInt),
    ("READ_AHEAD_RATE", Float),
    ("READ_AHEAD_EVICTED_RATE", Float),
    ("LRU_IO_TOTAL", UInt),
    ("LRU_IO_CURRENT", UInt),
    ("UNCOMPRESS_TOTAL", UInt),
    ("UNCOMPRESS_CURRENT", UInt),
];

/// The engine's status values by name.
pub(crate) fn engine_status(cx: &SessionCtx) -> HashMap<&'static str, u64> {
    cx.engine.storage.status().into_iter().collect()
}

/// The single pool's row. Basalt's pool has no young/old sublists, read-ahead
/// or compressed pages, and reads pages synchronously (nothing pending), so
/// those columns are 0; rates are 0 as MariaDB's right after a printout.
fn pool_row(cx: &SessionCtx) -> Row {
    let st = engine_status(cx);
    let get = |k: &str| Value::UInt(st.get(k).copied().unwrap_or(0));
    let gets = st
        .get("Innodb_buffer_pool_read_requests")
        .copied()
        .unwrap_or(0);
    let reads = st.get("Innodb_buffer_pool_reads").copied().unwrap_or(0);
    // InnoDB's hit rate: per thousand page requests, the ones found in memory.
    let hit = (1000 * gets.saturating_sub(reads))
        .checked_div(gets)
        .unwrap_or(0);
    let zero = || Value::UInt(0);
    let rate = || Value::Double(0.0);
    vec![
        Value::UInt(0),
        get("Innodb_buffer_pool_pages_total"),
        get("Innodb_buffer_pool_pages_free"),
        get("Innodb_buffer_pool_pages_data"),
        zero(),
        get("Innodb_buffer_pool_pages_dirty"),
        zero(),
        zero(),
        zero(),
        zero(),
        zero(),
        zero(),
        rate(),
        rate(),
        get("Innodb_buffer_pool_reads"),
        get("Innodb_pages_created"),
        get("Innodb_buffer_pool_pages_flushed"),
        rate(),
        rate(),
        rate(),
        Value::UInt(gets),
        Value::UInt(hit),
        zero(),
        zero(),
        zero(),
        zero(),
        rate(),
        rate(),
        zero(),
        zero(),
        zero(),
        zero(),
    ]
}

const METRICS_COLS: &[(&str, Col)] = &[
    ("NAME", Str(193)),
    ("SUBSYSTEM", Str(193)),
    ("COUNT", Int),
    ("MAX_COUNT", Int),
    ("MIN_COUNT", Int),
    ("AVG_COUNT", Float),
    ("COUNT_RESET", Int),
    ("MAX_COUNT_RESET", Int),
    ("MIN_COUNT_RESET", Int),
    ("AVG_COUNT_RESET", Float),
    ("TIME_ENABLED", DateTime),
    ("TIME_DISABLED", DateTime),
    ("TIME_ELAPSED", Int),
    ("TIME_RESET", DateTime),
    ("ENABLED", Int32),
    ("TYPE", Str(16)),
    ("COMMENT", Str(193)),
];

const TRX_COLS: &[(&str, Col)] = &[
    ("trx_id", UInt),
    ("trx_state", Str(13)),
    ("trx_started", DateTime),
    ("trx_requested_lock_id", OptStr(81)),
    ("trx_wait_started", DateTime),
    ("trx_weight", UInt),
    ("trx_mysql_thread_id", UInt),
    ("trx_query", OptStr(1024)),
    ("trx_operation_state", OptStr(64)),
    ("trx_tables_in_use", UInt),
    ("trx_tables_locked", UInt),
    ("trx_lock_structs", UInt),
    ("trx_lock_memory_bytes", UInt),
    ("trx_rows_locked", UInt),
    ("trx_rows_modified", UInt),
    ("trx_concurrency_tickets", UInt),
    ("trx_isolation_level", Str(16)),
    ("trx_unique_checks", Int32),
    ("trx_foreign_key_checks", Int32),
    ("trx_last_foreign_key_error", OptStr(256)),
    ("trx_is_read_only", Int32),
    ("trx_autocommit_non_locking", Int32),
];

/// `utc` seconds since the epoch in the session's time zone.
fn local_time(cx: &SessionCtx, utc: u64) -> Value {
    Value::DateTime(cx.local(DateTime::from_unix_seconds(utc as i64, 0)))
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// InnoDB's lock id for a lock of `trx` in `place`: `trx:table:index`.
fn lock_id(trx: u64, place: WaitPlace) -> String {
    format!("{trx}:{}:{}", place.table, place.tree)
}

pub(crate) fn isolation_name(t: &TrxInfo) -> &'static str {
    use basalt_storage::IsolationLevel::*;
    match t.isolation {
        ReadUncommitted => "READ UNCOMMITTED",
        ReadCommitted => "READ COMMITTED",
        RepeatableRead => "REPEATABLE READ",
        Serializable => "SERIALIZABLE",
    }
}

fn trx_rows(cx: &SessionCtx) -> Vec<Row> {
    let queries: HashMap<u64, Option<String>> = cx
        .engine
        .processlist()
        .into_iter()
        .map(|p| (p.id, p.info))
        .collect();
    let now = now_secs();
    cx.engine
        .storage
        .transactions()
        .into_iter()
        .map(|t| {
            let (state, requested, wait_started) = match &t.wait {
                Some(w) => (
                    "LOCK WAIT",
                    s(lock_id(t.id, w.place)),
                    local_time(cx, now.saturating_sub(w.waited.as_secs())),
                ),
                None => ("RUNNING", Value::Null, Value::Null),
            };
            let query = queries.get(&t.thread).cloned().flatten();
            vec![
                Value::UInt(t.id),
                s(state),
                local_time(cx, t.started),
                requested,
                wait_started,
                Value::UInt(t.rows_modified + t.locks),
                Value::UInt(t.thread),
                opt_s(query.map(|q| q.chars().take(1024).collect::<String>())),
                Value::Null,
                Value::UInt(0),
                Value::UInt(0),
                Value::UInt(t.locks),
                Value::UInt(0),
                Value::UInt(t.locks),
                Value::UInt(t.rows_modified),
                Value::UInt(0),
                s(isolation_name(&t)),
                Value::Int(1),
                Value::Int(1),
                Value::Null,
                Value::Int(0),
                Value::Int(0),
            ]
        })
        .collect()
}

const LOCKS_COLS: &[(&str, Col)] = &[
    ("lock_id", Str(81)),
    ("lock_trx_id", UInt),
    ("lock_mode", Str(8)),
    ("lock_type", Str(6)),
    ("lock_table", Str(1024)),
    ("lock_index", OptStr(1024)),
    ("lock_space", UInt),
    ("lock_page", UInt),
    ("lock_rec", UInt),
    ("lock_data", OptStr(8192)),
];

const LOCK_WAITS_COLS: &[(&str, Col)] = &[
    ("requesting_trx_id", UInt),
    ("requested_lock_id", Str(81)),
    ("blocking_trx_id", UInt),
    ("blocking_lock_id", Str(81)),
];

/// Table and index names by (table id, index id), for the tables in waits.
pub(crate) fn place_names(
    cx: &SessionCtx,
    waits: &[LockWait],
) -> HashMap<WaitPlace, (String, String)> {
    let mut out = HashMap::new();
    if waits.is_empty() {
        return out;
    }
    let st = &cx.engine.storage;
    for db in st.databases() {
        for name in st.tables(&db).unwrap_or_default() {
            let Some(t) = st.table(&db, &name) else {
                continue;
            };
            let def = t.def();
            for w in waits.iter().filter(|w| w.place.table == def.id) {
                let index = def
                    .index_by_id(w.place.tree)
                    .map(|i| i.name.clone())
                    .unwrap_or_default();
                let table = format!("`{db}`.`{}`", def.name);
                out.insert(w.place, (table, index));
            }
        }
    }
    out
}

/// The locks that take part in waits (as INNODB_LOCKS shows only those): each
/// waiter's requested lock and the lock of every transaction it waits for.
/// Basalt does not keep the mode of a wait's lock; both show as `X`.
fn lock_rows(cx: &SessionCtx) -> Vec<Row> {
    let waits = cx.engine.storage.lock_wait_list();
    let names = place_names(cx, &waits);
    let mut seen = std::collections::BTreeSet::new();
    let mut rows = Vec::new();
    for w in &waits {
        let (table, index) = names.get(&w.place).cloned().unwrap_or_default();
        for trx in std::iter::once(w.waiter).chain(w.holders.iter().copied()) {
            let id = lock_id(trx, w.place);
            if !seen.insert(id.clone()) {
                continue;
            }
            rows.push(vec![
                s(id),
                Value::UInt(trx),
                s("X"),
                s("RECORD"),
                s(&table),
                s(&index),
                Value::UInt(w.place.table),
                Value::Null,
                Value::Null,
                Value::Null,
            ]);
        }
    }
    rows
}

fn lock_wait_rows(cx: &SessionCtx) -> Vec<Row> {
    cx.engine
        .storage
        .lock_wait_list()
        .into_iter()
        .flat_map(|w| {
            let requested = lock_id(w.waiter, w.place);
            w.holders
                .iter()
                .map(|&h| {
                    vec![
                        Value::UInt(w.waiter),
                        s(&requested),
                        Value::UInt(h),
                        s(lock_id(h, w.place)),
                    ]
                })
                .collect::<Vec<_>>()
        })
        .collect()
}
