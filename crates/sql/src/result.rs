//! What a statement hands back to the server: a result set or an OK packet's content.

use basalt_common::column::flags;
use basalt_common::{ColumnMeta, ColumnType, Row, Value};
use std::sync::Arc;

/// The outcome of one statement.
#[derive(Clone, Debug, PartialEq)]
pub enum QueryResult {
    /// A result set (SELECT, SHOW, EXPLAIN, ...). Values follow `columns`.
    Rows {
        columns: Arc<[ColumnMeta]>,
        rows: Vec<Row>,
    },
    /// An OK packet. `info` is the human-readable text (`Rows matched: 1  Changed: 1
    /// Warnings: 0`, `Records: 3  Duplicates: 0  Warnings: 0`), empty when MariaDB
    /// sends none.
    Ok {
        affected_rows: u64,
        last_insert_id: u64,
        info: String,
        warnings: u16,
    },
}

impl QueryResult {
    /// A plain OK (no rows affected), for the server's own commands.
    pub fn ok_packet() -> Self {
        Self::ok(0)
    }

    pub(crate) fn ok(affected_rows: u64) -> Self {
        QueryResult::Ok {
            affected_rows,
            last_insert_id: 0,
            info: String::new(),
            warnings: 0,
        }
    }

    pub(crate) fn rows(columns: Vec<ColumnMeta>, rows: Vec<Row>) -> Self {
        QueryResult::Rows {
            columns: columns.into(),
            rows,
        }
    }
}

/// The response to COM_STMT_PREPARE.
#[derive(Clone, Debug, PartialEq)]
pub struct PreparedInfo {
    pub id: u32,
    /// One entry per `?`.
    pub params: Vec<ColumnMeta>,
    /// Result columns; empty for statements that return no rows.
    pub columns: Vec<ColumnMeta>,
}

/// A VARCHAR column of a SHOW-style result set (`len` characters, utf8).
pub(crate) fn text_col(name: &str, len: u32) -> ColumnMeta {
    let mut m = ColumnMeta::text(name, len * 3);
    m.charset = basalt_common::Collation::Utf8mb3GeneralCi.id();
    m.decimals = 39;
    m
}

/// A NOT NULL VARCHAR column of a SHOW-style result set.
pub(crate) fn text_col_nn(name: &str, len: u32) -> ColumnMeta {
    let mut m = text_col(name, len);
    m.flags |= flags::NOT_NULL;
    m
}

/// A BIGINT column of a SHOW-style result set.
pub(crate) fn int_col(name: &str, len: u32, unsigned: bool) -> ColumnMeta {
    let mut m = ColumnMeta::expr(name, ColumnType::LongLong, len);
    m.flags |= flags::NUM;
    if unsigned {
        m.flags |= flags::UNSIGNED;
    }
    m
}

/// Shorthand for a string cell.
pub(crate) fn s(v: impl AsRef<str>) -> Value {
    Value::Bytes(v.as_ref().as_bytes().to_vec())
}

/// Shorthand for an optional string cell (NULL when `None`).
pub(crate) fn opt_s(v: Option<impl AsRef<str>>) -> Value {
    v.map_or(Value::Null, s)
}
