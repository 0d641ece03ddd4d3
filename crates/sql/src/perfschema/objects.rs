//! Tables, files, locks, transactions and memory: the I/O counts per table
//! and index (from the always-on table statistics), the engine's row-lock
//! waits (`data_locks`, `data_lock_waits`), the active transactions, the data
//! and log files' I/O and the buffer pool's memory.
//!
//! Per-table and per-file timers are not collected (their `*_TIMER_*`
//! columns are 0); counts are.

use super::rows::{timer, RowBuilder};
use crate::session::ctx::SessionCtx;
use crate::stats::objects::Counts;
use basalt_common::{Row, TableDef};
use std::collections::HashMap;

pub(super) fn build(name: &str, def: &TableDef, cx: &SessionCtx) -> Option<Vec<Row>> {
    Some(match name {
        "table_io_waits_summary_by_table" => io_by_table(def, cx),
        "table_io_waits_summary_by_index_usage" => io_by_index(def, cx),
        "data_locks" => data_locks(def, cx),
        "data_lock_waits" => data_lock_waits(def, cx),
        "events_transactions_current" => transactions(def, cx),
        "file_summary_by_instance" => files(def, cx),
        "memory_summary_global_by_event_name" => memory(def, cx),
        _ => return None,
    })
}

/// Table statistics the session may see (every table but the system schemas).
fn table_counts(cx: &SessionCtx) -> Vec<Counts> {
    cx.engine
        .stats
        .objects
        .snapshot()
        .into_iter()
        .filter(|c| cx.privs.sees_table(&c.schema, &c.table))
        .collect()
}

fn io_row<'a>(
    def: &'a TableDef,
    schema: &str,
    table: &str,
    read: u64,
    kinds: [u64; 3],
) -> RowBuilder<'a> {
    let write: u64 = kinds.iter().sum();
    let mut b = RowBuilder::new(def);
    b.s("OBJECT_TYPE", "TABLE")
        .s("OBJECT_SCHEMA", schema)
        .s("OBJECT_NAME", table)
        .n("COUNT_STAR", read + write)
        .n("COUNT_READ", read)
        .n("COUNT_FETCH", read)
        .n("COUNT_WRITE", write)
        .n("COUNT_INSERT", kinds[0])
        .n("COUNT_UPDATE", kinds[1])
        .n("COUNT_DELETE", kinds[2]);
    b
}

fn io_by_table(def: &TableDef, cx: &SessionCtx) -> Vec<Row> {
    let mut by: std::collections::BTreeMap<(String, String), (u64, [u64; 3])> = Default::default();
    for c in table_counts(cx) {
        let e = by.entry((c.schema, c.table)).or_default();
        e.0 += c.read;
        for (a, b) in e.1.iter_mut().zip(c.kinds) {
            *a += b;
        }
    }
    by.into_iter()
        .map(|((s, t), (read, kinds))| io_row(def, &s, &t, read, kinds).done())
        .collect()
}

/// One row per index read (the clustered index is PRIMARY) plus one with a
/// NULL index for the rows written, as MySQL reports a table's writes.
fn io_by_index(def: &TableDef, cx: &SessionCtx) -> Vec<Row> {
    let counts = table_counts(cx);
    let mut rows = Vec::new();
    let st = &cx.engine.storage;
    let mut seen = std::collections::BTreeSet::new();
    for c in &counts {
        if c.index.is_empty() {
            rows.push(io_row(def, &c.schema, &c.table, 0, c.kinds).done());
            continue;
        }
        seen.insert((c.schema.clone(), c.table.clone(), c.index.clone()));
        let mut b = io_row(def, &c.schema, &c.table, c.read, [0; 3]);
        b.s("INDEX_NAME", &c.index);
        rows.push(b.done());
    }
    // Indexes never read have a row of zeros, so unused indexes show.
    for db in st.databases() {
        if !cx.privs.sees_db(&db) {
            continue;
        }
        for name in st.tables(&db).unwrap_or_default() {
            let Some(t) = st.table(&db, &name) else {
                continue;
            };
            for ix in &t.def().indexes {
                if ix.columns.is_empty()
                    || seen.contains(&(db.clone(), name.clone(), ix.name.clone()))
                {
                    continue;
                }
                let mut b = io_row(def, &db, &name, 0, [0; 3]);
                b.s("INDEX_NAME", &ix.name);
                rows.push(b.done());
            }
        }
    }
    rows
}

/// `db` and table of a lock place named "`db`.`table`".
fn split_place(table: &str) -> (String, String) {
    let t = table.trim_matches('`');
    match t.split_once("`.`") {
        Some((d, n)) => (d.to_string(), n.to_string()),
        None => (String::new(), t.to_string()),
    }
}

fn lock_id(trx: u64, table: u64, tree: u32) -> String {
    format!("{trx}:{table}:{tree}")
}

fn threads_of(cx: &SessionCtx) -> HashMap<u64, u64> {
    cx.engine
        .storage
        .transactions()
        .into_iter()
        .map(|t| (t.id, t.thread))
        .collect()
}

/// The row locks that take part in waits: each waiter's requested lock and
/// the holders' granted ones.
fn data_locks(def: &TableDef, cx: &SessionCtx) -> Vec<Row> {
    let waits = cx.engine.storage.lock_wait_list();
    let names = crate::infoschema::innodb::place_names(cx, &waits);
    let threads = threads_of(cx);
    let mut seen = std::collections::BTreeSet::new();
    let mut rows = Vec::new();
    for w in &waits {
        let (table, index) = names.get(&w.place).cloned().unwrap_or_default();
        let (db, table) = split_place(&table);
        let holders = w.holders.iter().map(|h| (*h, "GRANTED"));
        for (trx, status) in std::iter::once((w.waiter, "WAITING")).chain(holders) {
            let id = lock_id(trx, w.place.table, w.place.tree);
            if !seen.insert(id.clone()) {
                continue;
            }
            let mut b = RowBuilder::new(def);
            b.s("ENGINE", "INNODB")
                .s("ENGINE_LOCK_ID", &id)
                .n("ENGINE_TRANSACTION_ID", trx)
                .s("OBJECT_SCHEMA", &db)
                .s("OBJECT_NAME", &table)
                .s("INDEX_NAME", &index)
                .n("OBJECT_INSTANCE_BEGIN", w.place.table)
                .s("LOCK_TYPE", "RECORD")
                .s("LOCK_MODE", "X")
                .s("LOCK_STATUS", status);
            if let Some(t) = threads.get(&trx) {
                b.n("THREAD_ID", *t);
            }
            rows.push(b.done());
        }
    }
    rows
}

fn data_lock_waits(def: &TableDef, cx: &SessionCtx) -> Vec<Row> {
    let threads = threads_of(cx);
    let mut rows = Vec::new();
    for w in cx.engine.storage.lock_wait_list() {
        for h in &w.holders {
            let mut b = RowBuilder::new(def);
            b.s("ENGINE", "INNODB")
                .s(
                    "REQUESTING_ENGINE_LOCK_ID",
                    &lock_id(w.waiter, w.place.table, w.place.tree),
                )
                .n("REQUESTING_ENGINE_TRANSACTION_ID", w.waiter)
                .n("REQUESTING_OBJECT_INSTANCE_BEGIN", w.place.table)
                .s(
                    "BLOCKING_ENGINE_LOCK_ID",
                    &lock_id(*h, w.place.table, w.place.tree),
                )
                .n("BLOCKING_ENGINE_TRANSACTION_ID", *h)
                .n("BLOCKING_OBJECT_INSTANCE_BEGIN", w.place.table);
            if let Some(t) = threads.get(&w.waiter) {
                b.n("REQUESTING_THREAD_ID", *t);
            }
            if let Some(t) = threads.get(h) {
                b.n("BLOCKING_THREAD_ID", *t);
            }
            rows.push(b.done());
        }
    }
    rows
}

/// The active transactions (those with an id: from their first write or
/// lock, as InnoDB assigns ids).
fn transactions(def: &TableDef, cx: &SessionCtx) -> Vec<Row> {
    let hub = &cx.engine.stats.digests;
    if !hub.collects(crate::stats::digests::CONSUMER_TRANSACTIONS) {
        return Vec::new();
    }
    let now_secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let now = std::time::Instant::now();
    cx.engine
        .storage
        .transactions()
        .into_iter()
        .map(|t| {
            let age = std::time::Duration::from_secs(now_secs.saturating_sub(t.started));
            let start = timer(cx, now.checked_sub(age).unwrap_or(now));
            let mut b = RowBuilder::new(def);
            b.n("THREAD_ID", t.thread)
                .n("EVENT_ID", t.id)
                .s("EVENT_NAME", "transaction")
                .s("STATE", "ACTIVE")
                .n("TRX_ID", t.id)
                .n("TIMER_START", start)
                .n("TIMER_WAIT", timer(cx, now).saturating_sub(start))
                .s("ACCESS_MODE", "READ WRITE")
                .s(
                    "ISOLATION_LEVEL",
                    crate::infoschema::innodb::isolation_name(&t),
                )
                .s("AUTOCOMMIT", "NO");
            b.done()
        })
        .collect()
}

use crate::show::status_numbers;

/// The data files and the write-ahead log, with the engine's I/O counts.
fn files(def: &TableDef, cx: &SessionCtx) -> Vec<Row> {
    let st = status_numbers(cx);
    let get = |k: &str| st.get(k).copied().unwrap_or(0);
    let dir = std::path::PathBuf::from(&cx.engine.config.datadir);
    let file =
        |name: &str, event: &str, reads: u64, read: u64, writes: u64, written: u64, misc: u64| {
            let mut b = RowBuilder::new(def);
            b.s("FILE_NAME", &dir.join(name).display().to_string())
                .s("EVENT_NAME", event)
                .n("COUNT_STAR", reads + writes + misc)
                .n("COUNT_READ", reads)
                .n("SUM_NUMBER_OF_BYTES_READ", read)
                .n("COUNT_WRITE", writes)
                .n("SUM_NUMBER_OF_BYTES_WRITE", written)
                .n("COUNT_MISC", misc);
            b.done()
        };
    vec![
        file(
            "tables",
            "wait/io/file/innodb/innodb_data_file",
            get("Innodb_data_reads"),
            get("Innodb_data_read"),
            get("Innodb_data_writes"),
            get("Innodb_data_written"),
            get("Innodb_data_fsyncs"),
        ),
        file(
            "log",
            "wait/io/file/innodb/innodb_log_file",
            0,
            0,
            get("Innodb_log_writes"),
            get("Innodb_os_log_written"),
            get("Innodb_os_log_fsyncs"),
        ),
    ]
}

/// The buffer pool, the one large fixed allocation.
fn memory(def: &TableDef, cx: &SessionCtx) -> Vec<Row> {
    let st = status_numbers(cx);
    let bytes = st
        .get("Innodb_buffer_pool_pages_total")
        .copied()
        .unwrap_or(0)
        * st.get("Innodb_page_size").copied().unwrap_or(16384);
    vec![RowBuilder::new(def)
        .s("EVENT_NAME", "memory/innodb/buf_buf_pool")
        .n("COUNT_ALLOC", 1)
        .n("SUM_NUMBER_OF_BYTES_ALLOC", bytes)
        .n("LOW_COUNT_USED", 1)
        .n("CURRENT_COUNT_USED", 1)
        .n("HIGH_COUNT_USED", 1)
        .n("LOW_NUMBER_OF_BYTES_USED", bytes)
        .n("CURRENT_NUMBER_OF_BYTES_USED", bytes)
        .n("HIGH_NUMBER_OF_BYTES_USED", bytes)
        .done()]
}
