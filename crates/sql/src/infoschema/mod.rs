//! `information_schema`: read-only virtual tables built from the catalog when a
//! query opens them.
//!
//! Each table is a [`VirtualTable`] implementing the storage `Table` trait over
//! rows materialized at bind time, so the binder, planner and executor treat it
//! like any other table (it has no index: every read is a full scan). Plans that
//! read one are never cached: their rows are a snapshot.

mod builtin;
pub mod events;
pub mod foreign_keys;
pub mod innodb;
pub mod innodb_metrics;
pub mod layouts;
pub mod partitions;
pub mod plugins;
pub mod privileges;
pub mod routines;
pub mod system_variables;
pub mod tables;
pub mod triggers;
pub mod userstat;
pub mod views;

use crate::session::ctx::SessionCtx;
use basalt_common::{
    Charset, Collation, ColumnDef, DataType, EngineKind, IndexDef, IndexKind, IntKind, LobKind,
    MySqlError, Row, TableDef, Value,
};
use basalt_storage::{
    Cursor, Fetched, LockMode, RowHandle, ScanRequest, StorageError, Table, TableStats, Txn,
    WaitPolicy,
};
use std::sync::Arc;

pub const SCHEMA: &str = "information_schema";

/// True for the name of the `information_schema` database.
pub fn is_schema(db: &str) -> bool {
    db.eq_ignore_ascii_case(SCHEMA)
}

/// Column kinds of virtual tables.
#[derive(Clone, Copy)]
pub enum Col {
    /// VARCHAR(n) utf8mb3, NOT NULL.
    Str(u32),
    /// VARCHAR(n) utf8mb3, nullable.
    OptStr(u32),
    /// BIGINT UNSIGNED, nullable.
    UInt,
    /// BIGINT, nullable.
    Int,
    DateTime,
    /// DATETIME(2), nullable (a trigger's CREATED).
    DateTime2,
    LongText,
    /// DOUBLE, nullable.
    Double,
    /// INT(11), NOT NULL.
    Int32,
    /// FLOAT, nullable.
    Float,
}

fn column(name: &str, c: Col) -> ColumnDef {
    let coll = Collation::Utf8mb3GeneralCi;
    let (dt, nullable) = match c {
        Col::Str(n) => (
            DataType::VarChar {
                len: n,
                collation: coll,
            },
            false,
        ),
        Col::OptStr(n) => (
            DataType::VarChar {
                len: n,
                collation: coll,
            },
            true,
        ),
        Col::UInt => (
            DataType::Int {
                kind: IntKind::Big,
                unsigned: true,
                width: 0,
                zerofill: false,
            },
            true,
        ),
        Col::Int => (
            DataType::Int {
                kind: IntKind::Big,
                unsigned: false,
                width: 0,
                zerofill: false,
            },
            true,
        ),
        Col::DateTime => (DataType::DateTime { fsp: 0 }, true),
        Col::DateTime2 => (DataType::DateTime { fsp: 2 }, true),
        Col::Double => (DataType::Double, true),
        Col::Float => (DataType::Float, true),
        Col::Int32 => (
            DataType::Int {
                kind: IntKind::Int,
                unsigned: false,
                width: 11,
                zerofill: false,
            },
            false,
        ),
        Col::LongText => (
            DataType::Text {
                kind: LobKind::Long,
                collation: coll,
            },
            true,
        ),
    };
    let mut d = ColumnDef::new(name, dt);
    d.nullable = nullable;
    d
}

/// Builds the definition of a virtual table.
pub fn table_def(name: &str, cols: &[(&str, Col)]) -> TableDef {
    columns_def(
        SCHEMA,
        name,
        cols.iter().map(|(n, c)| column(n, *c)).collect(),
    )
}

/// A table definition with the given columns and no index.
pub fn columns_def(schema: &str, name: &str, columns: Vec<ColumnDef>) -> TableDef {
    TableDef {
        id: 0,
        schema: schema.into(),
        name: name.into(),
        columns,
        indexes: vec![IndexDef {
            id: 0,
            name: "PRIMARY".into(),
            kind: IndexKind::Primary,
            columns: Vec::new(),
            comment: String::new(),
        }],
        engine: EngineKind::Memory,
        charset: Charset::Utf8mb3,
        collation: Collation::Utf8mb3GeneralCi,
        comment: String::new(),
        auto_increment_start: 1,
        next_index_id: 1,
        checks: Vec::new(),
        options: Vec::new(),
        foreign_keys: Vec::new(),
        partitioning: None,
    }
}

/// A read-only table over materialized rows: `information_schema` tables, and
/// derived tables (subqueries in FROM), whose rows are filled when the statement
/// runs.
pub struct VirtualTable {
    def: Arc<TableDef>,
    rows: parking_lot::RwLock<Arc<Vec<Row>>>,
}

impl VirtualTable {
    pub fn new(def: TableDef, rows: Vec<Row>) -> Self {
        VirtualTable {
            def: Arc::new(def),
            rows: parking_lot::RwLock::new(Arc::new(rows)),
        }
    }

    /// Replaces the rows (a derived table, before each execution).
    pub fn fill(&self, rows: Vec<Row>) {
        *self.rows.write() = Arc::new(rows);
    }
}

impl std::fmt::Debug for VirtualTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VirtualTable({})", self.def.name)
    }
}

fn read_only(t: &VirtualTable) -> StorageError {
    StorageError::ReadOnlyTable(t.def.name.clone())
}

struct VirtualCursor {
    rows: Arc<Vec<Row>>,
    next: usize,
    reverse: bool,
}

impl Cursor for VirtualCursor {
    fn next(&mut self, _txn: &mut Txn) -> basalt_storage::Result<Option<Fetched>> {
        if self.next >= self.rows.len() {
            return Ok(None);
        }
        let i = if self.reverse {
            self.rows.len() - 1 - self.next
        } else {
            self.next
        };
        self.next += 1;
        Ok(Some(Fetched {
            handle: RowHandle((i as u64).to_be_bytes().to_vec()),
            row: self.rows[i].clone(),
        }))
    }
}

impl Table for VirtualTable {
    fn def(&self) -> Arc<TableDef> {
        self.def.clone()
    }

    fn stats(&self) -> TableStats {
        TableStats {
            rows: self.rows.read().len() as u64,
            indexes: Vec::new(),
            data_bytes: 0,
        }
    }

    fn insert(&self, _txn: &mut Txn, _row: Row) -> basalt_storage::Result<RowHandle> {
        Err(read_only(self))
    }

    fn get(
        &self,
        _txn: &mut Txn,
        _pk: &[Value],
        _lock: LockMode,
        _wait: WaitPolicy,
    ) -> basalt_storage::Result<Option<Fetched>> {
        Ok(None)
    }

    fn get_columns(
        &self,
        _txn: &mut Txn,
        _pk: &[Value],
        _columns: &[usize],
    ) -> basalt_storage::Result<Option<Fetched>> {
        Ok(None)
    }

    fn scan(&self, _txn: &mut Txn, req: ScanRequest) -> basalt_storage::Result<Box<dyn Cursor>> {
        Ok(Box::new(VirtualCursor {
            rows: self.rows.read().clone(),
            next: 0,
            reverse: req.reverse,
        }))
    }

    fn update(
        &self,
        _txn: &mut Txn,
        _h: &RowHandle,
        _old: &Row,
        _new: Row,
    ) -> basalt_storage::Result<RowHandle> {
        Err(read_only(self))
    }

    fn delete(&self, _txn: &mut Txn, _h: &RowHandle, _old: &Row) -> basalt_storage::Result<()> {
        Err(read_only(self))
    }

    fn reserve_auto_increment(&self, _count: u64) -> basalt_storage::Result<u64> {
        Err(read_only(self))
    }

    fn observe_auto_increment(&self, _value: u64) {}

    fn peek_auto_increment(&self) -> u64 {
        1
    }
}

/// Opens `information_schema.name` for a query in session `cx`.
pub fn open(name: &str, cx: &SessionCtx) -> Result<Arc<dyn Table>, MySqlError> {
    let upper = name.to_ascii_uppercase();
    if let Some(built) = innodb::build(&upper, cx) {
        let (def, rows) = built?;
        return Ok(Arc::new(VirtualTable::new(def, rows)));
    }
    match tables::build(&upper, cx) {
        Some((def, rows)) => Ok(Arc::new(VirtualTable::new(def, rows))),
        None => Err(MySqlError::no_such_table(SCHEMA, name)),
    }
}

/// The names of the virtual tables, sorted.
pub fn table_names() -> Vec<String> {
    let mut v: Vec<String> = tables::NAMES
        .iter()
        .chain(layouts::LAYOUTS.iter().map(|(n, _)| n))
        .chain(innodb::NAMES)
        .map(|s| s.to_string())
        .collect();
    v.sort();
    v.dedup();
    v
}
