//! SHOW MASTER STATUS, SHOW BINARY LOGS, SHOW BINLOG EVENTS, and the statements that
//! change the set of binlog files (FLUSH BINARY LOGS, RESET MASTER, PURGE BINARY
//! LOGS), in MariaDB's layout and with its errors.

use crate::front::native::binlog::{BinlogEvents, BinlogStmt};
use crate::result::{int_col, s, text_col_nn, QueryResult};
use crate::session::Session;
use basalt_common::{MySqlError, Row, Value};
use basalt_replication::binlog::{Binlog, DbFilter};
use basalt_replication::event::{describe, parse_header, EventReader};
use basalt_replication::DumpSource;
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

fn not_logging() -> MySqlError {
    MySqlError::new(1381, "HY000", "You are not using binary logging")
}

/// The binary log when it is on; 1381 otherwise.
fn binlog_on(session: &Session) -> R<Arc<Binlog>> {
    session
        .cx
        .engine
        .binlog()
        .filter(|b| b.is_on())
        .ok_or_else(not_logging)
}

pub fn master_status(session: &Session) -> R<QueryResult> {
    let cols = vec![
        text_col_nn("File", 512),
        int_col("Position", 20, true),
        text_col_nn("Binlog_Do_DB", 255),
        text_col_nn("Binlog_Ignore_DB", 255),
    ];
    let rows = match session.cx.engine.binlog().filter(|b| b.is_on()) {
        Some(b) => {
            let f = b.filter();
            let (do_db, ignore) = (DbFilter::show(&f.do_db), DbFilter::show(&f.ignore_db));
            b.status()
                .map(|p| vec![s(&p.file), Value::UInt(p.offset), s(do_db), s(ignore)])
                .into_iter()
                .collect()
        }
        None => Vec::new(),
    };
    Ok(QueryResult::rows(cols, rows))
}

pub fn binary_logs(session: &Session) -> R<QueryResult> {
    let b = binlog_on(session)?;
    let cols = vec![text_col_nn("Log_name", 255), int_col("File_size", 20, true)];
    let rows = DumpSource::files(&*b)
        .into_iter()
        .map(|f| vec![s(&f.name), Value::UInt(f.size)])
        .collect();
    Ok(QueryResult::rows(cols, rows))
}

fn events_error(what: &str) -> MySqlError {
    MySqlError::new(
        1220,
        "HY000",
        format!("Error when executing command SHOW BINLOG EVENTS: {what}"),
    )
}

pub fn binlog_events(session: &Session, opts: &BinlogEvents) -> R<QueryResult> {
    let cols = vec![
        text_col_nn("Log_name", 20),
        int_col("Pos", 20, true),
        text_col_nn("Event_type", 20),
        int_col("Server_id", 10, true),
        int_col("End_log_pos", 20, true),
        text_col_nn("Info", 255),
    ];
    let Some(b) = session.cx.engine.binlog() else {
        return Ok(QueryResult::rows(cols, Vec::new()));
    };
    let files = DumpSource::files(&*b);
    let file = match &opts.file {
        Some(name) => files.iter().find(|f| f.name == *name),
        None => files.first(),
    };
    let Some(file) = file else {
        if opts.file.is_none() {
            return Ok(QueryResult::rows(cols, Vec::new()));
        }
        return Err(events_error("Could not find target log"));
    };
    let bytes = std::fs::read(b.files_dir().path_of(&file.name))
        .map_err(|e| events_error(&format!("I/O error reading log: {e}")))?;
    let len = (file.size as usize).min(bytes.len());
    let rows = event_rows(&file.name, &bytes[..len], opts)?;
    Ok(QueryResult::rows(cols, rows))
}

/// The rows of one file's events; whether they carry CRC32s is the file's own
/// FORMAT_DESCRIPTION's say.
fn event_rows(name: &str, bytes: &[u8], opts: &BinlogEvents) -> R<Vec<Row>> {
    let from = opts.from.unwrap_or(4);
    let (skip, count) = opts.limit.unwrap_or((0, u64::MAX));
    let mut rows = Vec::new();
    let mut seen = 0u64;
    let body = bytes.get(4..).unwrap_or_default();
    let mut events = EventReader::new(body, 4);
    while let Some(ev) = events.next() {
        let (pos, ev) = ev.map_err(|e| events_error(&e.to_string()))?;
        let checksum = events.checksum().unwrap_or(true);
        if pos < from {
            continue;
        }
        if rows.len() as u64 >= count {
            break;
        }
        seen += 1;
        if seen <= skip {
            continue;
        }
        let h = parse_header(ev).ok_or_else(|| events_error("Wrong offset or I/O error"))?;
        let (kind, info) = describe(ev, checksum);
        rows.push(vec![
            s(name),
            Value::UInt(pos),
            s(kind),
            Value::UInt(h.server_id as u64),
            Value::UInt(h.log_pos as u64),
            s(info),
        ]);
    }
    Ok(rows)
}

/// SHOW SLAVE HOSTS: the replicas that registered (COM_REGISTER_SLAVE).
pub fn slave_hosts(session: &Session) -> R<QueryResult> {
    let cols = vec![
        int_col("Server_id", 10, true),
        text_col_nn("Host", 60),
        int_col("Port", 7, true),
        int_col("Master_id", 10, true),
    ];
    let rows = session
        .cx
        .engine
        .hooks()
        .replicas()
        .into_iter()
        .map(|r| {
            vec![
                Value::UInt(r.server_id as u64),
                s(&r.host),
                Value::UInt(r.port as u64),
                Value::UInt(r.master_id as u64),
            ]
        })
        .collect();
    Ok(QueryResult::rows(cols, rows))
}

/// FLUSH BINARY LOGS.
pub fn flush(session: &Session) -> R<QueryResult> {
    if let Some(b) = session.cx.engine.binlog().filter(|b| b.is_on()) {
        b.flush_logs().map_err(MySqlError::from)?;
    }
    Ok(QueryResult::ok(0))
}

/// RESET MASTER and PURGE BINARY LOGS.
pub fn statement(session: &mut Session, st: BinlogStmt) -> R<QueryResult> {
    let b = binlog_on(session)?;
    match st {
        BinlogStmt::Reset { to } => {
            let first = to.unwrap_or(1);
            // MariaDB's MAX_LOG_UNIQUE_FN_EXT; past it MariaDB also closes its log.
            if first > i32::MAX as u64 {
                let name = b.files_dir().basename();
                return Err(MySqlError::new(
                    1098,
                    "HY000",
                    format!("Can't generate a unique log-filename {name}.(1-999)"),
                ));
            }
            b.reset(first as u32).map_err(MySqlError::from)?;
            Ok(QueryResult::ok(0))
        }
        BinlogStmt::PurgeTo(file) => {
            let n = b.file_number(&file).ok_or_else(|| {
                MySqlError::new(1373, "HY000", "Target log not found in binlog index")
            })?;
            b.purge_before_file(n).map_err(MySqlError::from)?;
            Ok(QueryResult::ok(0))
        }
        BinlogStmt::PurgeBefore(text) => {
            let when = session.eval_datetime(&text)?;
            let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(when.max(0) as u64);
            let n = b.first_modified_since(t);
            b.purge_before_file(n).map_err(MySqlError::from)?;
            Ok(QueryResult::ok(0))
        }
    }
}

/// `SHOW SLAVE STATUS` / `SHOW ALL SLAVES STATUS`: one row when a primary is
/// configured, none otherwise (MariaDB's columns either way).
pub fn slave_status(session: &Session, all: bool) -> R<QueryResult> {
    use crate::replica::control::status_columns;
    let cols = status_columns(all)
        .into_iter()
        .map(|(name, numeric)| {
            if numeric {
                int_col(name, 20, true)
            } else {
                crate::result::text_col(name, 512)
            }
        })
        .collect();
    let rows = session
        .cx
        .engine
        .replica()
        .status_row(all)
        .into_iter()
        .collect();
    Ok(QueryResult::rows(cols, rows))
}
