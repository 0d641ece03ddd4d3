//! Events in `information_schema.EVENTS`, SHOW EVENTS and SHOW CREATE EVENT.
//! EXECUTE_AT, STARTS and ENDS are shown in the event's time zone, CREATED,
//! LAST_ALTERED and LAST_EXECUTED in the session's; a session sees the events
//! of the databases it holds the EVENT privilege on.

use crate::event::schedule::{interval_text, zone_of, Field};
use crate::session::ctx::SessionCtx;
use basalt_acl::Privs;
use basalt_common::{DateTime, Row, Value};
use basalt_storage::EventDef;
use std::sync::Arc;

fn s(v: impl Into<String>) -> Value {
    Value::Bytes(v.into().into_bytes())
}

/// The events the session may see, by database and name.
pub fn visible(cx: &SessionCtx) -> Vec<Arc<EventDef>> {
    cx.engine
        .storage
        .all_events()
        .into_iter()
        .filter(|e| {
            cx.privs.account.is_none() || cx.privs.grants().on_db(&e.schema).contains(Privs::EVENT)
        })
        .collect()
}

/// A schedule time in the event's zone.
fn event_time(e: &EventDef, t: Option<i64>) -> Value {
    match t {
        Some(secs) => Value::DateTime(zone_of(e).local_time(secs, 0)),
        None => Value::Null,
    }
}

/// A bookkeeping time in the session's zone.
fn session_time(cx: &SessionCtx, t: Option<i64>) -> Value {
    match t {
        Some(secs) => Value::DateTime(cx.local(DateTime::from_unix_seconds(secs, 0))),
        None => Value::Null,
    }
}

fn event_type(e: &EventDef) -> &'static str {
    if e.execute_at.is_some() {
        "ONE TIME"
    } else {
        "RECURRING"
    }
}

/// `Interval value` and `Interval field` (NULL for a one-time event).
fn interval(e: &EventDef) -> (Value, Value) {
    match (e.interval_value, e.interval_field.as_deref()) {
        (Some(v), Some(f)) => match Field::from_name(f) {
            Ok(field) => (s(interval_text(v, field)), s(f)),
            Err(_) => (Value::Null, Value::Null),
        },
        _ => (Value::Null, Value::Null),
    }
}

fn definer(e: &EventDef) -> String {
    format!("{}@{}", e.definer_user, e.definer_host)
}

/// The rows of `information_schema.EVENTS`.
pub fn rows(cx: &SessionCtx) -> Vec<Row> {
    visible(cx)
        .into_iter()
        .map(|e| {
            let (iv, field) = interval(&e);
            vec![
                s("def"),
                s(&e.schema),
                s(&e.name),
                s(definer(&e)),
                s(&e.time_zone),
                s("SQL"),
                s(&e.body),
                s(event_type(&e)),
                event_time(&e, e.execute_at),
                iv,
                field,
                s(&e.sql_mode),
                event_time(&e, e.starts),
                event_time(&e, e.ends),
                s(&e.status),
                s(if e.preserve {
                    "PRESERVE"
                } else {
                    "NOT PRESERVE"
                }),
                session_time(cx, Some(e.created)),
                session_time(cx, Some(e.last_altered)),
                session_time(cx, e.last_executed),
                s(&e.comment),
                Value::Int(e.originator as i64),
                s(&e.character_set_client),
                s(&e.collation_connection),
                s(&e.database_collation),
            ]
        })
        .collect()
}

/// The rows of SHOW EVENTS for database `db`.
pub fn show_rows(cx: &SessionCtx, db: &str) -> Vec<Row> {
    visible(cx)
        .into_iter()
        .filter(|e| e.schema == db)
        .map(|e| {
            let (iv, field) = interval(&e);
            vec![
                s(&e.schema),
                s(&e.name),
                s(definer(&e)),
                s(&e.time_zone),
                s(event_type(&e)),
                event_time(&e, e.execute_at),
                iv,
                field,
                event_time(&e, e.starts),
                event_time(&e, e.ends),
                s(&e.status),
                Value::Int(e.originator as i64),
                s(&e.character_set_client),
                s(&e.collation_connection),
                s(&e.database_collation),
            ]
        })
        .collect()
}

/// SHOW CREATE EVENT's statement, as MariaDB rebuilds it from its parts.
pub fn create_statement(e: &EventDef) -> String {
    let q = |n: &str| format!("`{}`", n.replace('`', "``"));
    let when = |t: Option<i64>| match event_time(e, t) {
        Value::DateTime(dt) => format!("'{}'", dt.display(0)),
        _ => String::new(),
    };
    let schedule = match interval(e) {
        (Value::Bytes(v), Value::Bytes(f)) => {
            let mut out = format!(
                "EVERY {} {} STARTS {}",
                String::from_utf8_lossy(&v),
                String::from_utf8_lossy(&f),
                when(e.starts)
            );
            if e.ends.is_some() {
                out.push_str(&format!(" ENDS {}", when(e.ends)));
            }
            out
        }
        _ => format!("AT {}", when(e.execute_at)),
    };
    let status = match e.status.as_str() {
        "ENABLED" => "ENABLE",
        "SLAVESIDE_DISABLED" => "DISABLE ON SLAVE",
        _ => "DISABLE",
    };
    let comment = if e.comment.is_empty() {
        String::new()
    } else {
        format!(" COMMENT '{}'", e.comment.replace('\'', "''"))
    };
    format!(
        "CREATE DEFINER={}@{} EVENT {} ON SCHEDULE {schedule} ON COMPLETION {}PRESERVE {status}{comment} DO {}",
        q(&e.definer_user),
        q(&e.definer_host),
        q(&e.name),
        if e.preserve { "" } else { "NOT " },
        e.body
    )
}
