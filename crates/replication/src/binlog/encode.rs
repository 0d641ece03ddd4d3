//! A transaction's captured changes as MariaDB's event group:
//! GTID, then per statement ANNOTATE_ROWS (when asked), the TABLE_MAPs of every table
//! the statement changed, and its rows events (the last one flagged STMT_END_F); then
//! XID for a transaction that changed durable tables, or `COMMIT` as a QUERY for one
//! that changed only MEMORY tables or is a sequence's reservation (as MariaDB logs
//! non-transactional engines). An insert's write set, when captured, decides its
//! MINIMAL / NOBLOB image; rows with different write sets go in different events.

use super::filter::DbFilter;
use crate::event::{EventWriter, GtidFlags, Query, RowChange};
use crate::gtid::Gtid;
use basalt_common::{Row, TableDef};
use basalt_storage::binlog::{BinlogSession, Capture, Captured, RowImageMode};
use std::sync::Arc;

/// The rows one statement changed, in order, with the tables they belong to.
struct Statement<'a> {
    sql: &'a str,
    db: &'a str,
    when: u32,
    rows: Vec<Logged<'a>>,
}

/// One row change with its table and, for an insert, its write set.
struct Logged<'a> {
    table: &'a Arc<TableDef>,
    change: RowChange<'a>,
    written: Option<&'a [bool]>,
}

/// Splits the capture into statements. Rows captured before any announced
/// statement belong to one without text.
fn statements<'a>(capture: &'a Capture, now: u32, filter: &DbFilter) -> Vec<Statement<'a>> {
    let mut out: Vec<Statement<'_>> = Vec::new();
    for e in &capture.entries {
        match e {
            Captured::Statement { sql, db, when } => out.push(Statement {
                sql,
                db,
                when: *when,
                rows: Vec::new(),
            }),
            Captured::Row {
                table,
                before,
                after,
                written,
            } => {
                let Some(change) = change(before.as_ref(), after.as_ref()) else {
                    continue;
                };
                if !filter.logs(&table.schema) {
                    continue;
                }
                if out.is_empty() {
                    out.push(Statement {
                        sql: "",
                        db: "",
                        when: now,
                        rows: Vec::new(),
                    });
                }
                if let Some(last) = out.last_mut() {
                    last.rows.push(Logged {
                        table,
                        change,
                        written: written.as_deref(),
                    });
                }
            }
        }
    }
    out.retain(|s| !s.rows.is_empty());
    out
}

fn change<'a>(before: Option<&'a Row>, after: Option<&'a Row>) -> Option<RowChange<'a>> {
    Some(match (before, after) {
        (None, Some(a)) => RowChange::Insert(a),
        (Some(b), Some(a)) => RowChange::Update(b, a),
        (Some(b), None) => RowChange::Delete(b),
        (None, None) => return None,
    })
}

/// Whether `b` goes in the same rows event as `a`: one table, one kind of
/// change, one write set.
fn same_event(a: &Logged<'_>, b: &Logged<'_>) -> bool {
    a.table.id == b.table.id
        && std::mem::discriminant(&a.change) == std::mem::discriminant(&b.change)
        && a.written == b.written
}

pub fn row_image(mode: RowImageMode) -> crate::event::RowImage {
    match mode {
        RowImageMode::Full => crate::event::RowImage::Full,
        RowImageMode::NoBlob => crate::event::RowImage::NoBlob,
        RowImageMode::Minimal => crate::event::RowImage::Minimal,
    }
}

/// Whether the capture has a row change `filter` lets into the log.
pub fn logs_any(capture: &Capture, filter: &DbFilter) -> bool {
    capture.entries.iter().any(|e| match e {
        Captured::Row { table, .. } => filter.logs(&table.schema),
        Captured::Statement { .. } => false,
    })
}

/// Appends the transaction's events to `w` (the rows `filter` lets in; the
/// caller checked [`logs_any`]).
pub fn transaction(
    w: &mut EventWriter,
    capture: &Capture,
    (gtid, xid): (Gtid, u64),
    now: u32,
    filter: &DbFilter,
) {
    let stmts = statements(capture, now, filter);
    let ts = stmts.first().map_or(now, |s| s.when);
    let flags = if capture.transactional() {
        GtidFlags::transactional()
    } else {
        GtidFlags::non_transactional()
    };
    w.gtid(ts, gtid, flags);
    let image = row_image(capture.session.row_image);
    for s in &stmts {
        statement(w, capture, s, image);
    }
    if capture.transactional() {
        w.xid(ts, xid);
    } else {
        let db = stmts.last().map_or("", |s| s.db);
        w.query(ts, &commit_query(capture, db));
    }
}

fn statement(
    w: &mut EventWriter,
    capture: &Capture,
    s: &Statement<'_>,
    image: crate::event::RowImage,
) {
    if capture.session.annotate && !s.sql.is_empty() {
        w.annotate_rows(s.when, s.sql);
    }
    let mut mapped: Vec<u64> = Vec::new();
    for r in &s.rows {
        if !mapped.contains(&r.table.id) {
            mapped.push(r.table.id);
            w.table_map(s.when, r.table.id, r.table);
        }
    }
    // Consecutive changes of one kind on one table share a rows event.
    let mut i = 0;
    while i < s.rows.len() {
        let first = &s.rows[i];
        let mut j = i + 1;
        while j < s.rows.len() && same_event(first, &s.rows[j]) {
            j += 1;
        }
        let changes: Vec<RowChange<'_>> = s.rows[i..j].iter().map(|r| r.change).collect();
        let (t, last) = (first.table, j == s.rows.len());
        w.rows_with_write_set(s.when, t.id, t, image, &changes, first.written, last);
        i = j;
    }
}

/// A QUERY event as MariaDB writes statements of the session.
pub fn query<'a>(session: &BinlogSession, db: &'a str, sql: &'a str) -> Query<'a> {
    let mut q = Query::new(db, sql);
    q.thread_id = session.thread_id;
    if session.charset_client != 0 {
        q.charset_client = session.charset_client;
        q.collation_connection = session.collation_connection;
        q.collation_server = session.collation_server;
    }
    let (suppress_use, thread_specific) = ddl_flags(sql);
    if suppress_use {
        q.header_flags |= crate::event::flags::SUPPRESS_USE;
    }
    if thread_specific {
        q.header_flags |= crate::event::flags::THREAD_SPECIFIC;
    }
    q
}

/// The header flags MariaDB gives a DDL statement: SUPPRESS_USE for CREATE /
/// DROP / ALTER DATABASE (logged without a default database), THREAD_SPECIFIC for
/// DROP DATABASE and DROP TABLE.
fn ddl_flags(sql: &str) -> (bool, bool) {
    let mut w = sql.split_whitespace().map(|w| w.to_ascii_uppercase());
    let first = w.next().unwrap_or_default();
    let second = w.next().unwrap_or_default();
    let database = matches!(first.as_str(), "CREATE" | "DROP" | "ALTER")
        && matches!(second.as_str(), "DATABASE" | "SCHEMA");
    let drop = first == "DROP" && matches!(second.as_str(), "DATABASE" | "SCHEMA" | "TABLE");
    (database, drop)
}

fn commit_query<'a>(capture: &Capture, db: &'a str) -> Query<'a> {
    let mut q = Query::commit(db);
    q.thread_id = capture.session.thread_id;
    q
}
