//! What a statement hands back to the server: a result set or an OK packet's
//! content, delivered to a [`ResultSink`] as it is produced.
//!
//! A statement's response reaches the sink as: for a result set, [`ResultSink::columns`],
//! then [`ResultSink::row`] for each row as soon as the executor has it (a SELECT
//! without ORDER BY or GROUP BY sends its first rows before it reads its last), then
//! [`ResultSink::end`] with [`Ending::Rows`]; otherwise only `end`, with the OK's
//! content or the error. An error after rows were sent ends the result set with
//! `end(Ending::Err)` (an ERR packet in place of the end marker). A sink whose
//! `row` fails (the client went away, `net_write_timeout` passed) fails the
//! statement with that error.

use basalt_common::column::flags;
use basalt_common::{ColumnMeta, ColumnType, MySqlError, Row, Value};
use std::sync::Arc;

/// Where the responses of a command go: the client connection, or [`Collected`].
pub trait ResultSink {
    /// A result set begins. `status` is for the packet that ends its metadata;
    /// nothing has to be sent before the first row.
    fn columns(&mut self, columns: &Arc<[ColumnMeta]>, status: u16);
    /// The next row of the result set (visible columns, in column order). The
    /// sink may take the row (`std::mem::take`); a row it leaves is reused by
    /// the executor for the next one.
    fn row(&mut self, row: &mut Row) -> Result<(), MySqlError>;
    /// The statement ended. `status` carries SERVER_MORE_RESULTS_EXISTS when
    /// another statement of the same command follows.
    fn end(&mut self, ending: Ending<'_>, status: u16);
    /// Session state the statement changed (CLIENT_SESSION_TRACK), given before
    /// the `end` of a statement that ends with an OK; a sink that does not
    /// speak the protocol ignores it.
    fn session_changes(&mut self, _changes: &[crate::session::Tracked]) {}
    /// Bytes of responses this sink has sent or holds to send (`Bytes_sent`
    /// of the slow log); 0 for a sink that does not speak the protocol.
    fn bytes_out(&self) -> u64 {
        0
    }
    /// LOAD DATA LOCAL: asks the client for the file `name` and hands its bytes
    /// to `each` as they arrive. After `each` fails the rest of the file is still
    /// read (the protocol has the client send all of it) and the first error is
    /// returned. A sink without a client refuses with 4166.
    fn local_infile(
        &mut self,
        _name: &[u8],
        _each: &mut dyn FnMut(&[u8]) -> Result<(), MySqlError>,
    ) -> Result<(), MySqlError> {
        Err(MySqlError::local_infile_disabled())
    }
}

/// How a statement ended: what the packet closing its response says.
#[derive(Clone, Copy, Debug)]
pub enum Ending<'a> {
    /// The result set begun with [`ResultSink::columns`] is complete.
    Rows { warnings: u16 },
    /// An OK packet (no result set).
    Ok {
        affected_rows: u64,
        last_insert_id: u64,
        info: &'a str,
        warnings: u16,
    },
    /// The statement failed (after its rows, if it had sent some).
    Err(&'a MySqlError),
}

/// A sink that keeps every response in memory (tests, embedded use).
#[derive(Default)]
pub struct Collected {
    pub results: Vec<Result<QueryResult, MySqlError>>,
    open: Option<(Arc<[ColumnMeta]>, Vec<Row>)>,
}

impl ResultSink for Collected {
    fn columns(&mut self, columns: &Arc<[ColumnMeta]>, _status: u16) {
        self.open = Some((columns.clone(), Vec::new()));
    }

    fn row(&mut self, row: &mut Row) -> Result<(), MySqlError> {
        match &mut self.open {
            Some((_, rows)) => rows.push(std::mem::take(row)),
            None => return Err(MySqlError::internal("row outside a result set")),
        }
        Ok(())
    }

    fn end(&mut self, ending: Ending<'_>, _status: u16) {
        let open = self.open.take();
        self.results.push(match ending {
            Ending::Rows { .. } => {
                let (columns, rows) = open.unwrap_or_else(|| (Arc::from(Vec::new()), Vec::new()));
                Ok(QueryResult::Rows { columns, rows })
            }
            Ending::Ok {
                affected_rows,
                last_insert_id,
                info,
                warnings,
            } => Ok(QueryResult::Ok {
                affected_rows,
                last_insert_id,
                info: info.to_string(),
                warnings,
            }),
            Ending::Err(e) => Err(e.clone()),
        });
    }
}

/// The outcome of one statement.
#[derive(Clone, Debug, PartialEq)]
pub enum QueryResult {
    /// A result set (SELECT, SHOW, EXPLAIN, ...). Values follow `columns`. Inside
    /// the session, `rows` are those not yet given to the sink (none for a SELECT,
    /// whose rows stream).
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
    if unsigned {
        m.flags |= flags::UNSIGNED;
    }
    m
}

/// A DATETIME(`fsp`) column of a SHOW-style result set.
pub(crate) fn datetime_col(name: &str, fsp: u8) -> ColumnMeta {
    let mut m = ColumnMeta::expr(name, ColumnType::DateTime, 20 + u32::from(fsp) + 2);
    m.decimals = fsp;
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
