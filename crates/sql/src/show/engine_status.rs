//! SHOW ENGINE ... STATUS | MUTEX | LOGS. InnoDB's status is Basalt's engine
//! in InnoDB's monitor layout (the sections and line formats pt-mysql-summary
//! and innotop parse): transactions and their lock waits, file I/O, the log,
//! the buffer pool and row operations. Per-second figures are over the time
//! since the previous printout, as InnoDB's are.

use crate::result::{s, QueryResult};
use crate::session::Session;
use basalt_common::{DateTime, MySqlError};
use basalt_storage::mvcc::trx_info::{TrxInfo, WaitPlace};
use std::collections::HashMap;
use std::fmt::Write;
use std::time::Instant;

type R<T> = Result<T, MySqlError>;

/// Counters whose rates the monitor prints, as of the previous printout.
#[derive(Default)]
pub(crate) struct Monitor {
    last: parking_lot::Mutex<Option<(Instant, HashMap<String, u64>)>>,
}

/// The counters the monitor prints rates of.
const RATED: &[&str] = &[
    "Innodb_data_reads",
    "Innodb_data_read",
    "Innodb_data_writes",
    "Innodb_data_fsyncs",
    "Innodb_pages_read",
    "Innodb_pages_created",
    "Innodb_pages_written",
    "Innodb_buffer_pool_read_requests",
    "Innodb_buffer_pool_reads",
    "Innodb_rows_inserted",
    "Innodb_rows_updated",
    "Innodb_rows_deleted",
    "Innodb_rows_read",
];

pub(super) fn show_engine(session: &mut Session, name: &str, what: &str) -> R<QueryResult> {
    let lower = name.to_ascii_lowercase();
    let innodb = match lower.as_str() {
        "innodb" | "all" => true,
        "memory" | "heap" => false,
        _ => {
            return Err(MySqlError::new(
                1286,
                "42000",
                format!("Unknown storage engine '{name}'"),
            ))
        }
    };
    session.cx.privs.refresh(&session.cx.engine.acl);
    if !session.cx.privs.has_process() {
        return Err(MySqlError::new(
            1227,
            "42000",
            "Access denied; you need (at least one of) the PROCESS privilege(s) for this operation",
        ));
    }
    let cols = ["Type", "Name", "Status"]
        .iter()
        .map(|n| super::text_col_nn(n, 10))
        .collect();
    let rows = if innodb && what == "status" {
        vec![vec![s("InnoDB"), s(""), s(innodb_status(session))]]
    } else {
        // No mutex or log status: InnoDB's MUTEX and LOGS are empty in MariaDB 10.11.
        Vec::new()
    };
    super::result(cols, rows)
}

fn now_local(session: &Session) -> DateTime {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    session.cx.local(DateTime::from_unix_seconds(now as i64, 0))
}

/// The monitor text.
fn innodb_status(session: &Session) -> String {
    let cx = &session.cx;
    let status = crate::show::status_numbers(cx);
    let uptime = cx.engine.started.elapsed().as_secs_f64();
    let (secs, delta) = rates(&cx.engine.monitor, &status, uptime);
    let get = |k: &str| status.get(k).copied().unwrap_or(0);
    let per_sec = |k: &str| delta.get(k).copied().unwrap_or(0) as f64 / secs;
    let mut o = String::new();
    let _ = write!(
        o,
        "\n=====================================\n{} 0x{:x} INNODB MONITOR OUTPUT\n=====================================\nPer second averages calculated from the last {} seconds\n",
        now_local(session).display(0),
        cx.conn_id,
        secs.round() as u64
    );
    section(&mut o, "BACKGROUND THREAD");
    let _ = writeln!(
        o,
        "Basalt checkpoints: {}, log bytes since the last one: {}",
        get("Basalt_checkpoints"),
        get("Basalt_log_bytes_since_checkpoint")
    );
    section(&mut o, "SEMAPHORES");
    transactions(&mut o, session, get("Innodb_history_list_length"));
    section(&mut o, "FILE I/O");
    let reads = get("Innodb_data_reads");
    let _ = writeln!(o, "Pending flushes (fsync): 0");
    let _ = writeln!(
        o,
        "{reads} OS file reads, {} OS file writes, {} OS fsyncs",
        get("Innodb_data_writes"),
        get("Innodb_data_fsyncs")
    );
    let read_rate = per_sec("Innodb_data_reads");
    let avg_read = if delta.get("Innodb_data_reads").copied().unwrap_or(0) > 0 {
        delta["Innodb_data_read"] / delta["Innodb_data_reads"]
    } else {
        0
    };
    let _ = writeln!(
        o,
        "{read_rate:.2} reads/s, {avg_read} avg bytes/read, {:.2} writes/s, {:.2} fsyncs/s",
        per_sec("Innodb_data_writes"),
        per_sec("Innodb_data_fsyncs")
    );
    section(&mut o, "LOG");
    let _ = writeln!(o, "Log sequence number {}", get("Innodb_lsn_current"));
    let _ = writeln!(o, "Log flushed up to   {}", get("Innodb_lsn_flushed"));
    let _ = writeln!(
        o,
        "Pages flushed up to {}",
        get("Innodb_lsn_last_checkpoint")
    );
    let _ = writeln!(
        o,
        "Last checkpoint at  {}",
        get("Innodb_lsn_last_checkpoint")
    );
    let _ = writeln!(
        o,
        "{} log i/o's done, {:.2} log i/o's/second",
        get("Innodb_log_writes"),
        0.0
    );
    buffer_pool(&mut o, &get, &per_sec, &delta);
    section(&mut o, "ROW OPERATIONS");
    let views = cx.engine.storage.trx_counters().views;
    let _ = writeln!(o, "{views} read views open inside InnoDB");
    let _ = writeln!(o, "state: sleeping");
    let _ = writeln!(
        o,
        "Number of rows inserted {}, updated {}, deleted {}, read {}",
        get("Innodb_rows_inserted"),
        get("Innodb_rows_updated"),
        get("Innodb_rows_deleted"),
        get("Innodb_rows_read")
    );
    let _ = writeln!(
        o,
        "{:.2} inserts/s, {:.2} updates/s, {:.2} deletes/s, {:.2} reads/s",
        per_sec("Innodb_rows_inserted"),
        per_sec("Innodb_rows_updated"),
        per_sec("Innodb_rows_deleted"),
        per_sec("Innodb_rows_read")
    );
    o.push_str("----------------------------\nEND OF INNODB MONITOR OUTPUT\n============================\n");
    o
}

fn section(o: &mut String, title: &str) {
    let bar = "-".repeat(title.len());
    let _ = write!(o, "{bar}\n{title}\n{bar}\n");
}

/// Seconds since the previous printout (at least 1) and the counters' changes
/// since then (since the server started, `uptime` ago, for the first printout).
fn rates(
    monitor: &Monitor,
    status: &HashMap<String, u64>,
    uptime: f64,
) -> (f64, HashMap<&'static str, u64>) {
    let now = Instant::now();
    let current: HashMap<String, u64> = RATED
        .iter()
        .map(|k| (k.to_string(), status.get(*k).copied().unwrap_or(0)))
        .collect();
    let mut last = monitor.last.lock();
    let (secs, before) = match last.take() {
        Some((at, before)) => (now.duration_since(at).as_secs_f64(), before),
        None => (uptime, HashMap::new()),
    };
    let delta = RATED
        .iter()
        .map(|k| {
            let was = before.get(*k).copied().unwrap_or(0);
            (*k, current[*k].saturating_sub(was))
        })
        .collect();
    *last = Some((now, current));
    (secs.max(1.0), delta)
}

fn buffer_pool(
    o: &mut String,
    get: &dyn Fn(&str) -> u64,
    per_sec: &dyn Fn(&str) -> f64,
    delta: &HashMap<&'static str, u64>,
) {
    section(o, "BUFFER POOL AND MEMORY");
    let total = get("Innodb_buffer_pool_pages_total");
    let page = get("Innodb_page_size");
    let dirty = get("Innodb_buffer_pool_pages_dirty");
    let data = get("Innodb_buffer_pool_pages_data");
    let _ = writeln!(
        o,
        "Total large memory allocated {}",
        total * page + get("Basalt_buffer_pool_overhead_bytes")
    );
    let _ = writeln!(o, "Buffer pool size   {total}");
    let _ = writeln!(
        o,
        "Free buffers       {}",
        get("Innodb_buffer_pool_pages_free")
    );
    let _ = writeln!(o, "Database pages     {data}");
    let _ = writeln!(o, "Old database pages 0");
    let _ = writeln!(o, "Modified db pages  {dirty}");
    let pct = if total > 0 {
        100.0 * dirty as f64 / total as f64
    } else {
        0.0
    };
    let _ = writeln!(o, "Percent of dirty pages(LRU & free pages): {pct:.3}");
    let _ = writeln!(o, "Pending reads 0");
    let _ = writeln!(o, "Pending writes: LRU 0, flush list 0");
    let _ = writeln!(o, "Pages made young 0, not young 0");
    let _ = writeln!(o, "0.00 youngs/s, 0.00 non-youngs/s");
    let _ = writeln!(
        o,
        "Pages read {}, created {}, written {}",
        get("Innodb_pages_read"),
        get("Innodb_pages_created"),
        get("Innodb_pages_written")
    );
    let _ = writeln!(
        o,
        "{:.2} reads/s, {:.2} creates/s, {:.2} writes/s",
        per_sec("Innodb_pages_read"),
        per_sec("Innodb_pages_created"),
        per_sec("Innodb_pages_written")
    );
    let gets = delta["Innodb_buffer_pool_read_requests"];
    if gets == 0 {
        let _ = writeln!(o, "No buffer pool page gets since the last printout");
    } else {
        let misses = delta["Innodb_buffer_pool_reads"].min(gets);
        let _ = writeln!(
            o,
            "Buffer pool hit rate {} / 1000, young-making rate 0 / 1000 not 0 / 1000",
            1000 * (gets - misses) / gets
        );
    }
    let _ = writeln!(
        o,
        "Pages read ahead 0.00/s, evicted without access 0.00/s, Random read ahead 0.00/s"
    );
    let _ = writeln!(o, "LRU len: {data}, unzip_LRU len: 0");
    let _ = writeln!(o, "I/O sum[0]:cur[0], unzip sum[0]:cur[0]");
}

fn transactions(o: &mut String, session: &Session, history: u64) {
    let cx = &session.cx;
    section(o, "TRANSACTIONS");
    let c = cx.engine.storage.trx_counters();
    let _ = writeln!(o, "Trx id counter {}", c.next_id);
    let _ = writeln!(
        o,
        "Purge done for trx's n:o < {} undo n:o < 0 state: running but idle",
        c.min_active
    );
    let _ = writeln!(o, "History list length {history}");
    let _ = writeln!(o, "LIST OF TRANSACTIONS FOR EACH SESSION:");
    let procs = crate::show::processes_by_id(cx);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let list = cx.engine.storage.transactions();
    let waits: Vec<_> = list.iter().filter_map(|t| t.wait.clone()).collect();
    let names = crate::infoschema::innodb::place_names(cx, &waits);
    for t in &list {
        transaction(o, t, procs.get(&t.thread), now, &names);
    }
}

fn transaction(
    o: &mut String,
    t: &TrxInfo,
    p: Option<&crate::ProcessInfo>,
    now: u64,
    names: &HashMap<WaitPlace, (String, String)>,
) {
    let _ = writeln!(
        o,
        "---TRANSACTION {}, ACTIVE {} sec",
        t.id,
        now.saturating_sub(t.started)
    );
    let wait = if t.wait.is_some() { "LOCK WAIT " } else { "" };
    let _ = write!(
        o,
        "{wait}{} lock struct(s), heap size 0, {} row lock(s)",
        t.locks, t.locks
    );
    if t.rows_modified > 0 {
        let _ = write!(o, ", undo log entries {}", t.rows_modified);
    }
    o.push('\n');
    if let Some(p) = p {
        let _ = writeln!(
            o,
            "MariaDB thread id {}, OS thread handle 0, query id 0 {} {} {}",
            p.id, p.host, p.user, p.state
        );
        if let Some(q) = &p.info {
            let _ = writeln!(o, "{q}");
        }
    }
    if let Some(w) = &t.wait {
        let _ = writeln!(
            o,
            "------- TRX HAS BEEN WAITING {} us FOR THIS LOCK TO BE GRANTED:",
            w.waited.as_micros()
        );
        let (table, index) = names.get(&w.place).cloned().unwrap_or_default();
        let _ = writeln!(
            o,
            "RECORD LOCKS space id {} page no 0 n bits 0 index {index} of table {table} trx id {} lock_mode X waiting",
            w.place.table, t.id
        );
        let _ = writeln!(o, "------------------");
    }
}
