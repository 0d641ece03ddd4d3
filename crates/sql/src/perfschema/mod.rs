//! `performance_schema`: MariaDB 10.11's tables (plus MySQL 8's
//! `events_statements_histogram_by_digest`, `data_locks` and
//! `data_lock_waits`), filled from what Basalt always collects.
//!
//! Like information_schema's, each table is a [`VirtualTable`] over rows made
//! when a query opens it, so reading one never blocks the statements it
//! observes beyond the short copies of per-session maps. Tables for
//! instruments Basalt does not have (waits on mutexes, stages, files per event
//! name, sockets, ...) exist with MariaDB's columns and no rows, and
//! `setup_instruments` lists only what Basalt measures.
//!
//! `--performance-schema=OFF` (a start-up option) stops the statement path
//! from recording digests and statement events; the tables stay readable.

pub mod defs;
pub mod digest;
mod keywords;
mod objects;
mod rows;
mod setup;
mod statements;
mod threads;

use crate::infoschema::VirtualTable;
use crate::session::ctx::SessionCtx;
use crate::stats::Stat;
use basalt_common::{MySqlError, Row};
use basalt_storage::Table;
use std::sync::{Arc, OnceLock};

pub const SCHEMA: &str = "performance_schema";

/// True for the name of the `performance_schema` database.
pub fn is_schema(db: &str) -> bool {
    db.eq_ignore_ascii_case(SCHEMA)
}

/// The names of the tables, sorted.
pub fn table_names() -> Vec<String> {
    defs::all().keys().cloned().collect()
}

/// Opens `performance_schema.name` for a query in session `cx`.
pub fn open(name: &str, cx: &SessionCtx) -> Result<Arc<dyn Table>, MySqlError> {
    let lower = name.to_ascii_lowercase();
    let Some(def) = defs::all().get(&lower) else {
        return Err(MySqlError::no_such_table(SCHEMA, name));
    };
    let rows = build(&lower, def, cx);
    if lower == "setup_consumers" {
        return Ok(Arc::new(setup::Consumers::new(
            def.clone(),
            rows,
            cx.engine.clone(),
        )));
    }
    Ok(Arc::new(VirtualTable::new(def.clone(), rows)))
}

fn build(name: &str, def: &basalt_common::TableDef, cx: &SessionCtx) -> Vec<Row> {
    if let Some(rows) = statements::build(name, def, cx) {
        return rows;
    }
    if let Some(rows) = setup::build(name, def, cx) {
        return rows;
    }
    if let Some(rows) = threads::build(name, def, cx) {
        return rows;
    }
    objects::build(name, def, cx).unwrap_or_default()
}

/// TRUNCATE TABLE of a performance_schema table: the statement digests (and
/// their histograms) and the statement histories start again; the setup and
/// instance tables are 1683, as in MariaDB; the other summaries, which come
/// from counters other tables also show, are 1235.
pub fn truncate(cx: &SessionCtx, name: &str) -> Result<(), MySqlError> {
    let lower = name.to_ascii_lowercase();
    if !defs::all().contains_key(&lower) {
        return Err(MySqlError::no_such_table(SCHEMA, name));
    }
    let hub = &cx.engine.stats.digests;
    match lower.as_str() {
        "events_statements_summary_by_digest" | "events_statements_histogram_by_digest" => {
            hub.truncate();
            Ok(())
        }
        "events_statements_history" | "events_statements_history_long" => {
            hub.truncate_history();
            Ok(())
        }
        n if n.starts_with("setup_") || n.ends_with("_instances") || n == "threads" => Err(
            MySqlError::new(1683, "HY000", "Invalid performance_schema usage"),
        ),
        n if n.contains("summary") || n.starts_with("events_") => Err(MySqlError::not_supported(
            &format!("TRUNCATE TABLE performance_schema.{n}"),
        )),
        _ => Err(MySqlError::new(
            1683,
            "HY000",
            "Invalid performance_schema usage",
        )),
    }
}

/// The event name of a statement counted in `s`: `statement/sql/select` for
/// `Com_select`, `statement/com/...` for the commands MariaDB names so.
pub fn event_name(s: Stat) -> &'static str {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        crate::stats::ALL
            .iter()
            .map(|s| {
                let n = s.name();
                let name = match n.strip_prefix("Com_") {
                    Some("admin_commands") => "statement/com/Admin".to_string(),
                    Some(rest) if rest.starts_with("stmt_") => {
                        format!("statement/com/{}", com_name(&rest[5..]))
                    }
                    Some(rest) => format!("statement/sql/{rest}"),
                    None => "statement/com/Query".to_string(),
                };
                &*Box::leak(name.into_boxed_str())
            })
            .collect()
    });
    names[s as usize]
}

/// `Execute`, `Prepare`, `Close stmt`, ... as MariaDB names COM_STMT_* events.
fn com_name(rest: &str) -> String {
    match rest {
        "close" => "Close stmt".into(),
        "reset" => "Reset stmt".into(),
        "send_long_data" => "Long Data".into(),
        "fetch" => "Fetch".into(),
        other => {
            let mut c = other.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        }
    }
}

/// Picoseconds of a duration, as performance_schema's timers count.
pub(crate) fn pico(ns: u64) -> u64 {
    ns.saturating_mul(1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_names_follow_mariadbs() {
        assert_eq!(event_name(Stat::ComSelect), "statement/sql/select");
        assert_eq!(
            event_name(Stat::ComInsertSelect),
            "statement/sql/insert_select"
        );
        assert_eq!(event_name(Stat::ComStmtExecute), "statement/com/Execute");
        assert!(table_names().contains(&"events_statements_summary_by_digest".to_string()));
    }
}
