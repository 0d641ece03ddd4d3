//! Triggers in `information_schema.TRIGGERS`, SHOW TRIGGERS and SHOW CREATE
//! TRIGGER. Each table's triggers are listed by event (INSERT, UPDATE,
//! DELETE), then timing (BEFORE, AFTER), then firing order, as MariaDB lists
//! them; `ACTION_ORDER` counts from 1 within a table, timing and event.

use crate::session::ctx::SessionCtx;
use basalt_common::{Row, Value};
use basalt_storage::TriggerDef;
use std::sync::Arc;

fn s(v: impl Into<String>) -> Value {
    Value::Bytes(v.into().into_bytes())
}

/// `CREATED`: a DATETIME(2).
pub fn created(t: &TriggerDef) -> Value {
    crate::value::parse_datetime(t.created.as_bytes()).map_or(Value::Null, Value::DateTime)
}

pub fn definer(t: &TriggerDef) -> String {
    format!("{}@{}", t.definer_user, t.definer_host)
}

fn rank(t: &TriggerDef) -> (u8, u8) {
    let event = match t.event.as_str() {
        "INSERT" => 0,
        "UPDATE" => 1,
        _ => 2,
    };
    (event, u8::from(t.timing != "BEFORE"))
}

/// The triggers the session may see, each with its ACTION_ORDER, in
/// MariaDB's listing order (database, table, event, timing, order).
pub fn visible(cx: &SessionCtx) -> Vec<(Arc<TriggerDef>, u64)> {
    let all: Vec<Arc<TriggerDef>> = cx
        .engine
        .storage
        .all_triggers()
        .into_iter()
        .filter(|t| cx.privs.sees_db(&t.schema))
        .collect();
    let mut out: Vec<(Arc<TriggerDef>, u64)> = Vec::with_capacity(all.len());
    for t in &all {
        let order = out
            .iter()
            .filter(|(o, _)| {
                o.schema == t.schema
                    && o.table == t.table
                    && o.timing == t.timing
                    && o.event == t.event
            })
            .count() as u64
            + 1;
        out.push((t.clone(), order));
    }
    out.sort_by(|(a, ao), (b, bo)| {
        (&a.schema, &a.table, rank(a), ao).cmp(&(&b.schema, &b.table, rank(b), bo))
    });
    out
}

/// The rows of `information_schema.TRIGGERS`.
pub fn rows(cx: &SessionCtx) -> Vec<Row> {
    visible(cx)
        .into_iter()
        .map(|(t, order)| {
            vec![
                s("def"),
                s(&t.schema),
                s(&t.name),
                s(&t.event),
                s("def"),
                s(&t.schema),
                s(&t.table),
                Value::Int(order as i64),
                Value::Null,
                s(&t.body),
                s("ROW"),
                s(&t.timing),
                Value::Null,
                Value::Null,
                s("OLD"),
                s("NEW"),
                created(&t),
                s(&t.sql_mode),
                s(definer(&t)),
                s(&t.character_set_client),
                s(&t.collation_connection),
                s(&t.database_collation),
            ]
        })
        .collect()
}

/// The rows of SHOW TRIGGERS for database `db`.
pub fn show_rows(cx: &SessionCtx, db: &str) -> Vec<Row> {
    visible(cx)
        .into_iter()
        .filter(|(t, _)| t.schema == db)
        .map(|(t, _)| {
            vec![
                s(&t.name),
                s(&t.event),
                s(&t.table),
                s(&t.body),
                s(&t.timing),
                created(&t),
                s(&t.sql_mode),
                s(definer(&t)),
                s(&t.character_set_client),
                s(&t.collation_connection),
                s(&t.database_collation),
            ]
        })
        .collect()
}

/// SHOW CREATE TRIGGER's statement: `CREATE DEFINER=`u`@`h` trigger ...` as
/// written from the TRIGGER keyword on.
pub fn create_statement(t: &TriggerDef) -> String {
    let q = |n: &str| format!("`{}`", n.replace('`', "``"));
    format!(
        "CREATE DEFINER={}@{} {}",
        q(&t.definer_user),
        q(&t.definer_host),
        t.statement
    )
}
