//! The `mysql` database's log tables, `general_log` and `slow_log`, in MariaDB's
//! column layout. Tools read them by name (`mariadb-dump --all-databases` dumps
//! their structure, monitoring scripts select from them). Under
//! `log_output=TABLE` the logs append their entries to them (see
//! [`crate::log_tables`]); a SELECT reads the rows there at its start, TRUNCATE
//! TABLE empties them. Under `log_output=FILE` they stay as they are.
//!
//! The grant tables (`user`, `global_priv`, `db`, `tables_priv`, `roles_mapping`)
//! come from the accounts (see [`crate::account::tables`]).
//!
//! They are read-only virtual tables, not catalog entries: a data directory holds
//! only the user's tables. A real table of the same name in `mysql` (created by
//! loading a dump) takes precedence.

use crate::engine::Engine;
use crate::infoschema::{columns_def, VirtualTable};
use basalt_common::{
    Collation, ColumnDef, DataType, DefaultValue, EngineKind, IntKind, LobKind, TableDef,
};
use basalt_storage::Table;
use std::sync::Arc;

pub const DB: &str = "mysql";
pub const NAMES: [&str; 2] = ["general_log", "slow_log"];

/// The system table `db.name`, if that is one and no real table has its name.
pub fn open(engine: &Engine, db: &str, name: &str) -> Option<Arc<dyn Table>> {
    let storage = engine.storage();
    if !db.eq_ignore_ascii_case(DB) || storage.table(DB, name).is_some() {
        return None;
    }
    let name = name.to_ascii_lowercase();
    if let Some(columns) = crate::account::tables::columns(&name) {
        let mut def = columns_def(DB, &name, columns);
        def.engine = EngineKind::Basalt;
        let rows = crate::account::tables::rows(&name, &engine.acl.snapshot());
        return Some(Arc::new(VirtualTable::new(def, rows)));
    }
    let def = definition(&name)?;
    let rows = log_rows(engine, &name)?.snapshot();
    Some(Arc::new(VirtualTable::new(def, rows)))
}

fn log_rows<'a>(engine: &'a Engine, name: &str) -> Option<&'a crate::log_tables::LogRows> {
    match name {
        "general_log" => Some(engine.general_log.rows()),
        "slow_log" => Some(engine.slow_log.rows()),
        _ => None,
    }
}

/// TRUNCATE TABLE of a log table: true when `db.name` is one (and no real
/// table has its name).
pub fn truncate(engine: &Engine, db: &str, name: &str) -> bool {
    if !db.eq_ignore_ascii_case(DB) || engine.storage().table(DB, name).is_some() {
        return false;
    }
    match log_rows(engine, &name.to_ascii_lowercase()) {
        Some(rows) => {
            rows.clear();
            true
        }
        None => false,
    }
}

/// Every log table no real table shadows, as (database, handle). The grant
/// tables are left out of listings (SHOW TABLES, information_schema), so that
/// `mariadb-dump --all-databases` does not copy them as tables into a server
/// that keeps its accounts elsewhere; they are read by name.
pub fn all(engine: &Engine) -> Vec<(String, Arc<dyn Table>)> {
    if !engine.storage().database_exists(DB) {
        return Vec::new();
    }
    NAMES
        .iter()
        .filter_map(|n| open(engine, DB, n).map(|t| (DB.to_string(), t)))
        .collect()
}

fn col(name: &str, data_type: DataType) -> ColumnDef {
    let mut c = ColumnDef::new(name, data_type);
    c.nullable = false;
    c
}

fn text(name: &str) -> ColumnDef {
    col(
        name,
        DataType::Text {
            kind: LobKind::Medium,
            collation: Collation::Utf8mb3GeneralCi,
        },
    )
}

fn int(name: &str, kind: IntKind, unsigned: bool) -> ColumnDef {
    col(name, DataType::int(kind, unsigned))
}

fn time6(name: &str) -> ColumnDef {
    col(name, DataType::Time { fsp: 6 })
}

fn event_time(name: &str) -> ColumnDef {
    let mut c = col(name, DataType::Timestamp { fsp: 6 });
    c.default = Some(DefaultValue::CurrentTimestamp);
    c.on_update_current_timestamp = true;
    c
}

fn varchar(name: &str, len: u32) -> ColumnDef {
    col(
        name,
        DataType::VarChar {
            len,
            collation: Collation::Utf8mb3GeneralCi,
        },
    )
}

fn definition(name: &str) -> Option<TableDef> {
    let (columns, comment) = match name {
        "general_log" => (
            vec![
                event_time("event_time"),
                text("user_host"),
                int("thread_id", IntKind::Big, true),
                int("server_id", IntKind::Int, true),
                varchar("command_type", 64),
                text("argument"),
            ],
            "General log",
        ),
        "slow_log" => (
            vec![
                event_time("start_time"),
                text("user_host"),
                time6("query_time"),
                time6("lock_time"),
                int("rows_sent", IntKind::Big, true),
                int("rows_examined", IntKind::Big, true),
                varchar("db", 512),
                int("last_insert_id", IntKind::Int, false),
                int("insert_id", IntKind::Int, false),
                int("server_id", IntKind::Int, true),
                text("sql_text"),
                int("thread_id", IntKind::Big, true),
                int("rows_affected", IntKind::Big, true),
            ],
            "Slow log",
        ),
        _ => return None,
    };
    let mut def = columns_def(DB, name, columns);
    def.engine = EngineKind::Basalt;
    def.comment = comment.into();
    Some(def)
}
