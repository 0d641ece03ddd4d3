//! The persistent catalog: databases, table definitions and views.
//!
//! Stored as `catalog.json` in the data directory and replaced atomically on every
//! DDL: written to `catalog.json.tmp`, synced, renamed over the old file, and the
//! directory synced. A crash leaves either the old or the new catalog, never a mix.
//! Table data files are named by table id, never by table name, so renames and
//! unusual names need no file operations.

use crate::api::Result;
use crate::error::StorageError;
use crate::io::{FileSystem, OpenOptions};
use basalt_common::{Collation, TableDef};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Format version of `catalog.json`. 2: string index keys are MariaDB collation
/// sort keys; a format 1 catalog is still read, and its tables with such keys are
/// rebuilt at start (`facade/collation_upgrade.rs`).
pub const FORMAT_VERSION: u32 = 2;
/// The oldest format [`load`] reads.
const OLDEST_FORMAT: u32 = 1;
const FILE: &str = "catalog.json";
const TMP: &str = "catalog.json.tmp";

#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct DatabaseDef {
    pub name: String,
    pub collation: Collation,
    /// `COMMENT 'text'` of CREATE / ALTER DATABASE (absent when empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub comment: String,
}

#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct CatalogImage {
    pub format: u32,
    pub next_table_id: u64,
    pub databases: Vec<DatabaseDef>,
    pub tables: Vec<TableDef>,
    /// Views (absent in catalogs written before views existed).
    #[serde(default)]
    pub views: Vec<ViewDef>,
    /// Stored procedures and functions (absent in catalogs written before them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routines: Vec<RoutineDef>,
    /// Triggers, in each table's firing order (absent in catalogs written before
    /// them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub triggers: Vec<TriggerDef>,
    /// Events (absent in catalogs written before them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventDef>,
    /// Accounts and grants, as the SQL layer encodes them (absent in catalogs
    /// written before accounts existed: the SQL layer then creates its defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accounts: Option<serde_json::Value>,
}

/// A view: its query as MariaDB prints it, and the clauses of its CREATE VIEW.
/// The storage layer keeps it as data; the SQL layer gives the text meaning.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ViewDef {
    pub schema: String,
    pub name: String,
    /// The query in MariaDB's normalised form, tables named relative to `schema`
    /// (what `SHOW CREATE VIEW` prints after `AS`).
    pub body: String,
    /// The same query with every table and column qualified by its database
    /// (`information_schema.VIEWS.VIEW_DEFINITION`).
    pub definition: String,
    /// The view's column names, in order.
    pub columns: Vec<String>,
    /// `UNDEFINED`, `MERGE` or `TEMPTABLE`.
    pub algorithm: String,
    pub definer_user: String,
    pub definer_host: String,
    /// `DEFINER` or `INVOKER`.
    pub security: String,
    /// `NONE`, `CASCADED` or `LOCAL`.
    pub check_option: String,
    /// Whether INSERT / UPDATE / DELETE may go through the view.
    pub updatable: bool,
    pub character_set_client: String,
    pub collation_connection: String,
}

/// A stored procedure or function: its CREATE statement's parts as written, and
/// the session settings it was created under. The storage layer keeps it as
/// data; the SQL layer parses and runs it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct RoutineDef {
    pub schema: String,
    pub name: String,
    /// `PROCEDURE` or `FUNCTION`.
    pub kind: String,
    /// The parameter list as written, without its parentheses.
    pub params: String,
    /// A function's RETURNS type as written (empty for a procedure).
    pub returns: String,
    /// The body as written (`ROUTINE_DEFINITION`).
    pub body: String,
    pub deterministic: bool,
    /// `CONTAINS SQL`, `NO SQL`, `READS SQL DATA` or `MODIFIES SQL DATA`.
    pub data_access: String,
    /// `DEFINER` or `INVOKER`.
    pub security: String,
    pub comment: String,
    pub definer_user: String,
    pub definer_host: String,
    /// The sql_mode in force at CREATE (the routine runs under it).
    pub sql_mode: String,
    pub character_set_client: String,
    pub collation_connection: String,
    pub database_collation: String,
    /// `YYYY-MM-DD hh:mm:ss` of CREATE and of the last ALTER.
    pub created: String,
    pub modified: String,
}

/// A trigger: its CREATE TRIGGER statement's parts as written, and the session
/// settings it was created under. The storage layer keeps it with its table
/// (renamed with it, dropped with it); the SQL layer parses and runs it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct TriggerDef {
    pub schema: String,
    pub name: String,
    /// The table it belongs to (in `schema`).
    pub table: String,
    /// `BEFORE` or `AFTER`.
    pub timing: String,
    /// `INSERT`, `UPDATE` or `DELETE`.
    pub event: String,
    /// The body as written (`ACTION_STATEMENT`).
    pub body: String,
    /// The statement from its TRIGGER keyword on, as written (SHOW CREATE
    /// TRIGGER prints it after `CREATE DEFINER=...`).
    pub statement: String,
    pub definer_user: String,
    pub definer_host: String,
    /// The sql_mode in force at CREATE (the trigger runs under it).
    pub sql_mode: String,
    pub character_set_client: String,
    pub collation_connection: String,
    pub database_collation: String,
    /// `YYYY-MM-DD hh:mm:ss.cc` of CREATE.
    pub created: String,
}

/// An event: its schedule, body and the session settings it was created
/// under, plus when it last ran. Times are seconds since the epoch (UTC); the
/// SQL layer shows them in the event's `time_zone`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct EventDef {
    pub schema: String,
    pub name: String,
    pub definer_user: String,
    pub definer_host: String,
    /// The DO statement as written (`EVENT_DEFINITION`).
    pub body: String,
    /// `AT`: the one time it runs.
    pub execute_at: Option<i64>,
    /// `EVERY`: the quantity in MariaDB's stored form (a compound unit's
    /// value in its smallest part, WEEK in days, QUARTER in months) and the
    /// unit's name (`HOUR`, `HOUR_MINUTE`, ...).
    pub interval_value: Option<i64>,
    pub interval_field: Option<String>,
    pub starts: Option<i64>,
    pub ends: Option<i64>,
    /// The session `time_zone` at CREATE (the schedule's local times are in it).
    pub time_zone: String,
    /// ON COMPLETION PRESERVE.
    pub preserve: bool,
    /// `ENABLED`, `DISABLED` or `SLAVESIDE_DISABLED`.
    pub status: String,
    pub comment: String,
    /// The sql_mode in force at CREATE (the body runs under it).
    pub sql_mode: String,
    pub character_set_client: String,
    pub collation_connection: String,
    pub database_collation: String,
    pub created: i64,
    pub last_altered: i64,
    pub last_executed: Option<i64>,
    /// `@@server_id` of the server that created it.
    pub originator: u64,
}

impl CatalogImage {
    pub fn empty() -> Self {
        CatalogImage {
            format: FORMAT_VERSION,
            next_table_id: 1,
            databases: Vec::new(),
            tables: Vec::new(),
            views: Vec::new(),
            routines: Vec::new(),
            triggers: Vec::new(),
            events: Vec::new(),
            accounts: None,
        }
    }
}

/// Reads the catalog, or `None` for a new data directory.
pub fn load(fs: &dyn FileSystem, dir: &Path) -> Result<Option<CatalogImage>> {
    let path = dir.join(FILE);
    if !fs.exists(&path) {
        return Ok(None);
    }
    let file = fs.open(&path, OpenOptions::default())?;
    let len = file.len()? as usize;
    let mut buf = vec![0u8; len];
    file.read_at(&mut buf, 0)?;
    let image: CatalogImage = serde_json::from_slice(&buf).map_err(|e| StorageError::Corrupt {
        file: path.display().to_string(),
        page: 0,
        detail: format!("catalog unreadable: {e}"),
    })?;
    if !(OLDEST_FORMAT..=FORMAT_VERSION).contains(&image.format) {
        return Err(StorageError::Invalid(format!(
            "catalog format {} not supported (expected {OLDEST_FORMAT} to {FORMAT_VERSION})",
            image.format
        )));
    }
    Ok(Some(image))
}

/// Writes the catalog atomically and durably.
pub fn store(fs: &dyn FileSystem, dir: &Path, image: &CatalogImage) -> Result<()> {
    let bytes = serde_json::to_vec_pretty(image)
        .map_err(|e| StorageError::Invalid(format!("catalog encoding failed: {e}")))?;
    crate::io::replace_file(fs, dir, FILE, TMP, &bytes)?;
    Ok(())
}
