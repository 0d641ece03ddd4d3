//! Result sinks that write statement responses to the client as they are produced.
//!
//! [`WireSink`] encodes each row into the connection's output buffer the moment
//! the executor hands it over and writes the buffer to the socket whenever it
//! holds 16 KiB (MariaDB's `net_buffer_length`): a small response still leaves in
//! the one write at the end of the command, a big one in chunks while the query
//! runs, and the server never holds more than a chunk of it. The column
//! definitions go out just before the first row (or the end marker), so a
//! statement that fails before producing anything answers with its ERR alone.
//!
//! Backpressure: the socket is blocking, so a client that stops reading blocks its
//! own connection thread in `write` once the kernel's buffers are full, and
//! nothing else. The socket's send timeout is `net_write_timeout`: when the client
//! takes nothing for that long the write fails, the statement ends with errno 1161
//! (1160 for other write errors) and the connection is closed, as MariaDB does.
//!
//! [`CursorSink`] serves COM_STMT_EXECUTE with a read-only cursor: rows go to a
//! [`RowSpool`] (memory up to 16 MiB, MariaDB's `tmp_table_size` default, then a
//! temporary file) that COM_STMT_FETCH reads from.

use crate::blocking;
use crate::connection::Conn;
use basalt_common::{ColumnMeta, MySqlError, Row};
use basalt_protocol::StateChange;
use basalt_protocol::{capability, status, OkPacket, ProtoError, RowFormat};
use basalt_sql::{Ending, ResultSink, RowSpool, Tracked};
use std::path::PathBuf;
use std::sync::Arc;

/// Rows of an open cursor kept in memory before they spill to disk.
pub const CURSOR_MEMORY: usize = 16 << 20;

/// The error a failed socket write ends the statement with.
fn write_error(e: &ProtoError) -> MySqlError {
    match e {
        ProtoError::Io(io)
            if matches!(
                io.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            MySqlError::net_write_interrupted()
        }
        _ => MySqlError::net_error_on_write(),
    }
}

/// Writes responses to the client, streaming result rows.
pub(crate) struct WireSink<'c> {
    conn: &'c mut Conn,
    format: RowFormat,
    columns: Option<Arc<[ColumnMeta]>>,
    header_status: u16,
    header_sent: bool,
    /// The socket failed: the statement fails with this and the connection closes.
    broken: Option<MySqlError>,
    /// Bytes written to the socket while streaming (the rest is flushed by the
    /// command loop).
    pub flushed: u64,
    /// Session state changes for the next OK packet (CLIENT_SESSION_TRACK).
    tracked: Vec<Tracked>,
}

impl<'c> WireSink<'c> {
    pub fn new(conn: &'c mut Conn, format: RowFormat) -> Self {
        WireSink {
            conn,
            format,
            columns: None,
            header_status: 0,
            header_sent: false,
            broken: None,
            flushed: 0,
            tracked: Vec::new(),
        }
    }

    /// The write error that must close the connection, if one happened.
    pub fn broken(&self) -> Option<&MySqlError> {
        self.broken.as_ref()
    }

    fn send_header(&mut self) {
        if !self.header_sent {
            if let Some(cols) = &self.columns {
                self.conn.write_result_header(cols, self.header_status);
            }
            self.header_sent = true;
        }
    }

    fn flush(&mut self) -> Result<(), MySqlError> {
        let n = self.conn.pending_output() as u64;
        match blocking::run(self.conn.flush()) {
            Ok(()) => {
                self.flushed += n;
                Ok(())
            }
            Err(e) => {
                let err = write_error(&e);
                tracing::info!("result not delivered: {e}; closing the connection");
                self.conn.discard_output();
                self.broken = Some(err.clone());
                Err(err)
            }
        }
    }
}

impl ResultSink for WireSink<'_> {
    fn session_changes(&mut self, changes: &[Tracked]) {
        self.tracked.extend_from_slice(changes);
    }

    fn bytes_out(&self) -> u64 {
        self.flushed + self.conn.pending_output() as u64
    }

    fn columns(&mut self, columns: &Arc<[ColumnMeta]>, status: u16) {
        self.columns = Some(columns.clone());
        self.header_status = status;
        self.header_sent = false;
    }

    #[inline]
    fn row(&mut self, row: &mut Row) -> Result<(), MySqlError> {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        self.send_header();
        if let Some(cols) = &self.columns {
            self.conn.write_row(self.format, cols, row);
        }
        if self.conn.should_flush() {
            self.flush()?;
        }
        Ok(())
    }

    fn end(&mut self, ending: Ending<'_>, status: u16) {
        if self.broken.is_some() {
            return;
        }
        match ending {
            Ending::Rows { warnings } => {
                self.send_header();
                self.conn.write_end_marker(warnings, status);
            }
            Ending::Ok {
                affected_rows,
                last_insert_id,
                info,
                warnings,
            } => {
                let tracked = std::mem::take(&mut self.tracked);
                let changes = state_changes(&tracked);
                self.conn.write_ok(&OkPacket {
                    affected_rows,
                    last_insert_id,
                    status,
                    warnings,
                    info,
                    state_changes: &changes,
                })
            }
            Ending::Err(e) => self.conn.write_err(e),
        }
        self.columns = None;
        self.header_sent = false;
    }

    /// Sends the LOCAL INFILE request (0xFB and the name) and reads the file's
    /// packets up to the empty one that ends it.
    fn local_infile(
        &mut self,
        name: &[u8],
        each: &mut dyn FnMut(&[u8]) -> Result<(), MySqlError>,
    ) -> Result<(), MySqlError> {
        if !self.conn.has_capability(capability::CLIENT_LOCAL_FILES) {
            return Err(MySqlError::local_infile_disabled());
        }
        self.conn.push_packet(|b| {
            b.push(0xFB);
            b.extend_from_slice(name);
        });
        self.flush()?;
        let mut buf = Vec::new();
        let mut failed = None;
        loop {
            if let Err(e) = blocking::run(self.conn.read_packet(&mut buf)) {
                tracing::info!(
                    "LOAD DATA LOCAL: reading the file failed: {e}; closing the connection"
                );
                let err = MySqlError::net_read_error();
                self.broken = Some(err.clone());
                return Err(err);
            }
            if buf.is_empty() {
                break;
            }
            if failed.is_none() {
                failed = each(&buf).err();
            }
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Runs a COM_STMT_EXECUTE that asked for a read-only cursor: keeps its rows for
/// COM_STMT_FETCH and answers with the metadata alone.
pub(crate) struct CursorSink<'c> {
    conn: &'c mut Conn,
    dir: PathBuf,
    columns: Option<Arc<[ColumnMeta]>>,
    spool: Option<RowSpool>,
    /// The open cursor (columns, rows) once the statement produced a result set.
    pub cursor: Option<(Arc<[ColumnMeta]>, RowSpool)>,
}

impl<'c> CursorSink<'c> {
    pub fn new(conn: &'c mut Conn, dir: PathBuf) -> Self {
        CursorSink {
            conn,
            dir,
            columns: None,
            spool: None,
            cursor: None,
        }
    }
}

impl ResultSink for CursorSink<'_> {
    fn columns(&mut self, columns: &Arc<[ColumnMeta]>, _status: u16) {
        self.columns = Some(columns.clone());
        self.spool = Some(RowSpool::new(self.dir.clone(), CURSOR_MEMORY));
    }

    fn row(&mut self, row: &mut Row) -> Result<(), MySqlError> {
        match &mut self.spool {
            Some(s) => s.push(std::mem::take(row)),
            None => Err(MySqlError::internal("row outside a result set")),
        }
    }

    fn end(&mut self, ending: Ending<'_>, status: u16) {
        let spool = self.spool.take();
        match ending {
            Ending::Rows { warnings } => {
                let columns = self.columns.take().unwrap_or_else(|| Arc::from(Vec::new()));
                open_cursor(self.conn, &columns, warnings, status);
                let spool = spool.unwrap_or_else(|| RowSpool::new(self.dir.clone(), 0));
                self.cursor = Some((columns, spool));
            }
            Ending::Ok {
                affected_rows,
                last_insert_id,
                info,
                warnings,
            } => self.conn.write_ok(&OkPacket {
                affected_rows,
                last_insert_id,
                status,
                warnings,
                info,
                ..OkPacket::with_status(0)
            }),
            Ending::Err(e) => self.conn.write_err(e),
        }
    }
}

/// The response to an execute that opened a cursor: metadata only, then the end
/// marker with SERVER_STATUS_CURSOR_EXISTS (an EOF, or an OK under DEPRECATE_EOF).
fn open_cursor(conn: &mut Conn, columns: &[ColumnMeta], warnings: u16, status: u16) {
    conn.push_packet(|out| basalt_protocol::codec::put_lenenc_int(out, columns.len() as u64));
    for col in columns {
        conn.write_column_definition(col);
    }
    conn.write_end_marker(warnings, status | status::SERVER_STATUS_CURSOR_EXISTS);
}

/// The protocol's form of tracked session changes.
pub(crate) fn state_changes(tracked: &[Tracked]) -> Vec<StateChange<'_>> {
    tracked
        .iter()
        .map(|t| match t {
            Tracked::Schema(db) => StateChange::Schema(db),
            Tracked::Variable { name, value } => StateChange::SystemVariable { name, value },
            Tracked::StateChanged => StateChange::StateChanged,
        })
        .collect()
}
