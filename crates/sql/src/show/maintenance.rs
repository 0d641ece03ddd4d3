//! CHECK / CHECKSUM / OPTIMIZE / REPAIR / ANALYZE TABLE, answered per table in
//! MariaDB's `Table | Op | Msg_type | Msg_text` form (CHECKSUM: `Table |
//! Checksum`), with InnoDB's messages for Basalt's durable tables and MEMORY's
//! for in-memory ones.
//!
//! What each does here:
//! - CHECK verifies the table's pages (checksums, page numbers), its trees'
//!   structure, and that every secondary index agrees with the clustered index
//!   (an entry per live row, under the row's key, and no more), holding the
//!   table's metadata lock exclusively while it reads (`lock_wait_timeout`).
//!   Problems come as `Warning` rows followed by `error | Corrupt`.
//! - ANALYZE recomputes the index statistics the planner uses.
//! - OPTIMIZE: Basalt does not rebuild tables (deleted rows' space is reclaimed
//!   by purge as they go), so it answers with the note MariaDB gives for an engine
//!   without OPTIMIZE, and refreshes the statistics (`status | OK`).
//! - REPAIR: InnoDB's answer (the engine does not support it).
//! - CHECKSUM: MariaDB's row checksum (see [`super::checksum`]) over a consistent
//!   snapshot; `QUICK` is NULL, as for InnoDB, which keeps no live checksum.

use super::checksum;
use crate::front::native::{MaintOp, Maintenance};
use crate::result::{int_col, s, text_col_nn, QueryResult};
use crate::session::ctx::Level;
use crate::session::Session;
use basalt_common::{EngineKind, MySqlError, Row, Value};
use basalt_storage::{KeyRange, LockMode, ScanRequest, TxnOptions, WaitPolicy};
use std::sync::Arc;
use std::time::Duration;

type R<T> = Result<T, MySqlError>;

pub fn run(session: &mut Session, m: Maintenance) -> R<QueryResult> {
    if let MaintOp::Checksum { quick } = m.op {
        return checksum_tables(session, &m.tables, quick);
    }
    let mut rows = Vec::new();
    for (db, table) in &m.tables {
        let db = match db {
            Some(d) => d.clone(),
            None => session.cx.db.clone().ok_or_else(MySqlError::no_db)?,
        };
        one_table(session, m.op, &db, table, &mut rows);
    }
    let cols = vec![
        text_col_nn("Table", 129),
        text_col_nn("Op", 10),
        text_col_nn("Msg_type", 10),
        text_col_nn("Msg_text", 1024),
    ];
    super::result(cols, rows)
}

/// `ALTER TABLE db.table FORCE`.
fn rebuild(session: &mut Session, db: &str, table: &str) -> Result<(), MySqlError> {
    use crate::front::native::alter::{AlterTable, Clause};
    let force = AlterTable {
        db: Some(db.to_string()),
        table: table.to_string(),
        if_exists: false,
        ignore: false,
        clauses: vec![Clause::Force],
        partition: None,
    };
    session.alter_table_native(force).map(|_| ())
}

fn one_table(session: &mut Session, op: MaintOp, db: &str, table: &str, rows: &mut Vec<Row>) {
    let name = format!("{db}.{table}");
    let mut push = |kind: &str, text: String| {
        rows.push(vec![s(&name), s(op.name()), s(kind), s(text)]);
    };
    if session.cx.temp.contains(db, table) {
        let e = MySqlError::not_supported(&format!(
            "{} TABLE of a temporary table",
            op.name().to_ascii_uppercase()
        ));
        push("Error", e.message);
        push("status", "Operation failed".into());
        return;
    }
    let storage = session.cx.engine.storage.clone();
    let Some(t) = storage.table(db, table) else {
        push("Error", MySqlError::no_such_table(db, table).message);
        push("status", "Operation failed".into());
        return;
    };
    let memory = t.def().engine == EngineKind::Memory;
    let unsupported =
        |what: &str| format!("The storage engine for the table doesn't support {what}");
    match op {
        MaintOp::Repair => push("note", unsupported("repair")),
        MaintOp::Check if memory => push("note", unsupported("check")),
        MaintOp::Optimize if memory => push("note", unsupported("optimize")),
        MaintOp::Check => {
            let wait = Duration::from_secs(session.cx.var_u64("lock_wait_timeout").max(1));
            match storage.check_table(db, table, wait) {
                Ok(r) if r.problems.is_empty() => push("status", "OK".into()),
                Ok(r) => {
                    for p in r.problems {
                        push("Warning", format!("InnoDB: {p}"));
                    }
                    push("error", "Corrupt".into());
                }
                Err(e) => {
                    let e = MySqlError::from(e);
                    push("Error", e.message);
                    push("error", "Corrupt".into());
                }
            }
        }
        MaintOp::Optimize | MaintOp::Analyze => {
            if op == MaintOp::Optimize {
                // InnoDB's answer, and what it does: ALTER TABLE ... FORCE (a
                // rebuild by table copy, giving back the space of deleted rows),
                // then ANALYZE.
                push(
                    "note",
                    "Table does not support optimize, doing recreate + analyze instead".into(),
                );
                if let Err(e) = rebuild(session, db, table) {
                    push("error", e.message);
                    push("status", "Operation failed".into());
                    return;
                }
            }
            match storage.analyze_table(db, table) {
                Ok(()) => push("status", "OK".into()),
                Err(e) => {
                    push("Error", MySqlError::from(e).message);
                    push("status", "Operation failed".into());
                }
            }
        }
        MaintOp::Checksum { .. } => {}
    }
}

fn checksum_tables(
    session: &mut Session,
    tables: &[(Option<String>, String)],
    quick: bool,
) -> R<QueryResult> {
    let mut rows = Vec::new();
    for (db, table) in tables {
        let db = match db {
            Some(d) => d.clone(),
            None => session.cx.db.clone().ok_or_else(MySqlError::no_db)?,
        };
        let name = format!("{db}.{table}");
        let value = match session.cx.table(&db, table) {
            None => {
                let e = MySqlError::no_such_table(&db, table);
                session.cx.warn(Level::Error, e.code, e.message);
                Value::Null
            }
            Some(_) if quick => Value::Null,
            Some(t) => Value::UInt(table_checksum(session, &t)? as u64),
        };
        rows.push(vec![s(name), value]);
    }
    let cols = vec![text_col_nn("Table", 129), int_col("Checksum", 21, true)];
    super::result(cols, rows)
}

/// The sum of the row checksums of every row a fresh consistent read sees.
fn table_checksum(session: &mut Session, t: &Arc<dyn basalt_storage::Table>) -> R<u32> {
    let def = t.def();
    let mut txn = session.cx.engine.storage.begin(TxnOptions {
        read_only: true,
        ..TxnOptions::default()
    });
    let req = ScanRequest {
        index_id: def.indexes[0].id,
        range: KeyRange::all(),
        reverse: false,
        columns: (0..def.columns.len()).collect(),
        lock: LockMode::Consistent,
        wait: WaitPolicy::Wait,
    };
    let mut cursor = t.scan(&mut txn, req).map_err(MySqlError::from)?;
    let mut sum = 0u32;
    while let Some(f) = cursor.next(&mut txn).map_err(MySqlError::from)? {
        sum = checksum::add(sum, checksum::row_checksum(&def.columns, &f.row));
    }
    drop(cursor);
    txn.commit().map_err(MySqlError::from)?;
    Ok(sum)
}
