//! The binary protocol's statement commands (COM_STMT_*) and COM_CHANGE_USER.
//!
//! The SQL session owns prepared statements (their plans, re-planned when the schema
//! changed); this side keeps what the wire needs per statement: the parameter count,
//! the types the client bound last, data sent ahead with COM_STMT_SEND_LONG_DATA, and
//! an open cursor.
//!
//! # Cursors
//!
//! A COM_STMT_EXECUTE with `CURSOR_TYPE_READ_ONLY` whose statement returns rows keeps
//! the rows on the server (in a [`RowSpool`]: memory up to 16 MiB, then a
//! temporary file in `tmpdir`): the response is the column count, the column
//! definitions and an end marker with `SERVER_STATUS_CURSOR_EXISTS`, and no rows.
//! Without a cursor the binary rows stream as the statement produces them. Each COM_STMT_FETCH sends up to the requested number of rows followed by an
//! end marker: `SERVER_STATUS_CURSOR_EXISTS` while rows remain, or
//! `SERVER_STATUS_LAST_ROW_SENT` once the last row has gone, which also closes the
//! cursor (a later fetch is errno 1421, as MariaDB answers). Executing the statement
//! again, COM_STMT_RESET and COM_STMT_CLOSE close its cursor; cursors of different
//! statements are independent.
//!
//! # Limits and bad input
//!
//! - At most `max_prepared_stmt_count` statements per connection (errno 1461): the
//!   session enforces it for COM_STMT_PREPARE and SQL PREPARE alike.
//! - Long data per parameter is bounded by `max_allowed_packet`; data for a parameter
//!   the statement does not have, or too much of it, makes the next execute fail
//!   (COM_STMT_SEND_LONG_DATA itself has no response), as in MariaDB.
//! - An unknown statement id is errno 1243; a truncated COM_STMT_EXECUTE, an unknown
//!   parameter type or missing parameter types is errno 1210. Each is an error for that
//!   command only: the connection keeps working.
//! - Statement id `0xFFFFFFFF` means "the statement prepared last" (MariaDB's
//!   `mariadb_stmt_execute_direct`).

use crate::blocking;
use crate::connection::{write_ok, Accounts, Conn};
use crate::registry::ConnState;
use crate::results::{CursorSink, WireSink};
use crate::Server;
use basalt_common::{charset, ColumnMeta, ColumnType, MySqlError, Value};
use basalt_protocol::consts::cursor::CURSOR_TYPE_READ_ONLY;
use basalt_protocol::{
    decode_stmt_execute, status, ChangeUser, Command, ConnInfo, OkPacket, ParamType, RowFormat,
};
use basalt_sql::stats::Stat;
use basalt_sql::{RowSpool, Session};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Statement id MariaDB clients use for "the statement prepared last".
const LAST_STATEMENT: u32 = u32::MAX;

/// errno of "The statement (%lu) has no open cursor".
const ER_STMT_HAS_NO_OPEN_CURSOR: u16 = 1421;

/// Wire-side state of one prepared statement.
struct Wire {
    params: usize,
    bound: Vec<ParamType>,
    long_data: Vec<Option<Vec<u8>>>,
    /// An error from COM_STMT_SEND_LONG_DATA, reported by the next execute.
    long_data_error: Option<MySqlError>,
    cursor: Option<Cursor>,
}

impl Wire {
    fn new(params: usize) -> Wire {
        Wire {
            params,
            bound: Vec::new(),
            long_data: vec![None; params],
            long_data_error: None,
            cursor: None,
        }
    }

    /// What COM_STMT_RESET forgets: long data, its error, the cursor.
    fn reset(&mut self) {
        self.long_data.iter_mut().for_each(|d| *d = None);
        self.long_data_error = None;
        self.cursor = None;
    }
}

/// An open read-only cursor: the rows not sent yet.
struct Cursor {
    columns: Arc<[ColumnMeta]>,
    rows: RowSpool,
}

/// Limits from the server's configuration.
pub struct Limits<'s> {
    pub max_long_data: usize,
    /// Where cursor rows spill.
    pub tmpdir: &'s Path,
}

impl<'s> Limits<'s> {
    pub fn of(server: &'s Server) -> Limits<'s> {
        Limits {
            max_long_data: crate::connection::max_allowed_packet(server),
            tmpdir: &server.config.tmpdir,
        }
    }
}

/// The connection's prepared statements, as the wire sees them.
#[derive(Default)]
pub struct Statements {
    wire: HashMap<u32, Wire>,
    last: Option<u32>,
}

impl Statements {
    /// Forgets every statement (COM_RESET_CONNECTION, COM_CHANGE_USER); the session
    /// drops its own side.
    pub fn clear(&mut self) {
        self.wire.clear();
        self.last = None;
    }

    fn resolve(&self, id: u32) -> u32 {
        if id == LAST_STATEMENT {
            self.last.unwrap_or(id)
        } else {
            id
        }
    }

    /// Runs one COM_STMT_* command; false when the connection must close (the
    /// client stopped taking a streamed result).
    pub fn dispatch(
        &mut self,
        server: &Server,
        conn: &mut Conn,
        state: &ConnState,
        session: &mut Session,
        cmd: Command<'_>,
    ) -> bool {
        let limits = &Limits::of(server);
        match cmd {
            Command::StmtPrepare(sql) => {
                let text = String::from_utf8_lossy(sql);
                state.set_command("Prepare", Some(&text));
                session.log_command("Prepare", &text);
                self.prepare(conn, session, sql);
            }
            Command::StmtExecute { stmt_id, payload } => {
                let id = self.resolve(stmt_id);
                state.set_command("Execute", session.prepared_text(id));
                let flushed = self.execute(conn, session, limits, id, payload);
                session.stats().add(Stat::BytesSent, flushed.unwrap_or(0));
                if flushed.is_none() {
                    server.stats.aborted_clients.fetch_add(1, Ordering::Relaxed);
                    return false;
                }
            }
            Command::StmtSendLongData {
                stmt_id,
                param,
                data,
            } => self.long_data(self.resolve(stmt_id), param as usize, data, limits),
            Command::StmtClose(id) => {
                let id = self.resolve(id);
                session.log_command("Close stmt", "");
                self.wire.remove(&id);
                session.close_prepared(id);
            }
            Command::StmtReset(id) => {
                session.log_command("Reset stmt", "");
                self.reset(conn, session, self.resolve(id))
            }
            Command::StmtFetch { stmt_id, rows } => {
                state.set_command("Fetch", None);
                return self.fetch(conn, session, self.resolve(stmt_id), rows as usize);
            }
            _ => conn.write_err(&MySqlError::unknown_command()),
        }
        true
    }

    fn prepare(&mut self, conn: &mut Conn, session: &mut Session, sql: &[u8]) {
        match session.prepare_bytes(sql) {
            Ok(info) => {
                self.wire.insert(info.id, Wire::new(info.params.len()));
                self.last = Some(info.id);
                conn.write_prepare_ok(
                    info.id,
                    &info.params,
                    &info.columns,
                    session.warning_count(),
                    session.status_flags(),
                );
            }
            Err(e) => conn.write_err(&e),
        }
    }

    /// Runs the statement; returns the bytes streamed to the socket, `None` when
    /// the client stopped taking them (the connection must close).
    fn execute(
        &mut self,
        conn: &mut Conn,
        session: &mut Session,
        limits: &Limits<'_>,
        id: u32,
        payload: &[u8],
    ) -> Option<u64> {
        let Some(w) = self.wire.get_mut(&id) else {
            conn.write_err(&unknown(id, "mysqld_stmt_execute"));
            return Some(0);
        };
        w.cursor = None;
        if let Some(e) = w.long_data_error.take() {
            w.reset();
            conn.write_err(&e);
            return Some(0);
        }
        let exec = match decode_stmt_execute(payload, w.params, &mut w.bound, &mut w.long_data) {
            Ok(e) => e,
            Err(e) => {
                w.reset();
                let err = e
                    .client_error()
                    .unwrap_or_else(|| MySqlError::wrong_arguments("mysqld_stmt_execute"));
                conn.write_err(&err);
                return Some(0);
            }
        };
        let mut params = exec.params;
        client_strings(session, &mut params, &w.bound);
        if let Some(text) = session.expanded_text(id, &params) {
            session.log_command("Execute", &text);
        }
        if exec.flags & CURSOR_TYPE_READ_ONLY != 0 {
            let mut sink = CursorSink::new(conn, limits.tmpdir.to_path_buf());
            session.execute_prepared_into(id, &params, &mut sink);
            w.cursor = sink
                .cursor
                .take()
                .map(|(columns, rows)| Cursor { columns, rows });
            return Some(0);
        }
        let mut sink = WireSink::new(conn, RowFormat::Binary);
        session.execute_prepared_into(id, &params, &mut sink);
        sink.broken().is_none().then_some(sink.flushed)
    }

    /// Sends up to `count` rows of the cursor; false when the client stopped
    /// taking them (the connection must close).
    fn fetch(&mut self, conn: &mut Conn, session: &Session, id: u32, count: usize) -> bool {
        let Some(w) = self.wire.get_mut(&id) else {
            conn.write_err(&unknown(id, "mysqld_stmt_fetch"));
            return true;
        };
        let Some(c) = w.cursor.as_mut() else {
            conn.write_err(&MySqlError::new(
                ER_STMT_HAS_NO_OPEN_CURSOR,
                "HY000",
                format!("The statement ({id}) has no open cursor"),
            ));
            return true;
        };
        for _ in 0..count {
            match c.rows.next_row() {
                Ok(Some(row)) => conn.write_binary_row(&c.columns, &row),
                Ok(None) => break,
                Err(e) => {
                    w.cursor = None;
                    conn.write_err(&e);
                    return true;
                }
            }
            if conn.should_flush() && blocking::run(conn.flush()).is_err() {
                return false;
            }
        }
        let flag = if c.rows.is_empty() {
            w.cursor = None;
            status::SERVER_STATUS_LAST_ROW_SENT
        } else {
            status::SERVER_STATUS_CURSOR_EXISTS
        };
        conn.write_end_marker(session.warning_count(), session.status_flags() | flag);
        true
    }

    fn long_data(&mut self, id: u32, param: usize, data: &[u8], limits: &Limits) {
        // No response either way; an unknown statement is silently ignored.
        let Some(w) = self.wire.get_mut(&id) else {
            return;
        };
        if w.long_data_error.is_some() {
            return;
        }
        let Some(slot) = w.long_data.get_mut(param) else {
            w.long_data_error = Some(MySqlError::wrong_arguments("mysqld_stmt_send_long_data"));
            return;
        };
        let buf = slot.get_or_insert_with(Vec::new);
        if buf.len() + data.len() > limits.max_long_data {
            *slot = None;
            w.long_data_error = Some(long_data_too_large());
            return;
        }
        buf.extend_from_slice(data);
    }

    fn reset(&mut self, conn: &mut Conn, session: &Session, id: u32) {
        match self.wire.get_mut(&id) {
            Some(w) => {
                w.reset();
                write_ok(conn, session, 0, 0, "");
            }
            None => conn.write_err(&unknown(id, "mysqld_stmt_reset")),
        }
    }
}

/// String parameters are text in `character_set_client`: their internal form (see
/// `basalt_common::charset`; only the 8-bit sets' differs from the bytes sent). BLOB-typed ones too: a statement's `?` is typed by
/// the connection's character set, so a latin1 client's BLOB parameter reaches a
/// BLOB column as its exact bytes (and a text column as latin1 text).
fn client_strings(session: &Session, params: &mut [Value], types: &[ParamType]) {
    let cs = session.client_charset();
    if cs.is_internal_bytes() {
        return;
    }
    for (v, t) in params.iter_mut().zip(types) {
        let text = matches!(
            t.column_type,
            ColumnType::VarChar
                | ColumnType::VarString
                | ColumnType::String
                | ColumnType::TinyBlob
                | ColumnType::MediumBlob
                | ColumnType::LongBlob
                | ColumnType::Blob
        );
        if let (true, Value::Bytes(b)) = (text, &mut *v) {
            if let std::borrow::Cow::Owned(o) = charset::to_internal(b, cs) {
                *b = o;
            }
        }
    }
}

fn unknown(id: u32, command: &str) -> MySqlError {
    MySqlError::unknown_stmt_handler(&id.to_string(), command)
}

fn long_data_too_large() -> MySqlError {
    MySqlError::new(
        basalt_common::error::code::ER_UNKNOWN_ERROR,
        "HY000",
        "Parameter of prepared statement which is set through mysql_send_long_data() is \
         longer than 'max_allowed_packet' bytes",
    )
}

/// COM_CHANGE_USER: re-authenticates and starts a fresh session. Returns false (close)
/// when authentication fails, as MySQL does.
pub fn change_user(
    server: &Arc<Server>,
    conn: &mut Conn,
    state: &Arc<ConnState>,
    session: &mut Session,
    stmts: &mut Statements,
    req: ChangeUser,
) -> bool {
    let transport = crate::connection::Transport::of(conn);
    let info = ConnInfo {
        connection_id: state.id as u32,
        client_host: &state.host,
        secure_transport: transport.secure(),
        status: session.status_flags(),
    };
    let scramble = *state.scramble.lock();
    let plugin = match blocking::run(basalt_protocol::change_user(
        conn,
        &server.handshake,
        &info,
        &Accounts::of(server),
        &req,
        &scramble,
    )) {
        Ok(p) => p,
        Err(e) => {
            if let Some(err) = e.client_error() {
                conn.write_err(&err);
            }
            return false;
        }
    };
    let checked = crate::connection::login_account(
        server,
        &req.user,
        &state.host,
        conn.capabilities(),
        &transport,
        !req.auth_response.is_empty() || plugin == basalt_protocol::AuthPlugin::Ed25519,
    );
    let account = match checked {
        Ok(a) => a,
        Err(e) => {
            conn.write_err(&e);
            return false;
        }
    };
    session.close();
    stmts.clear();
    let next = server
        .engine
        .client_session(state.id, &req.user, &state.host, &account);
    *session = match next {
        Ok(s) => s,
        Err(e) => {
            conn.write_err(&e);
            return false;
        }
    };
    crate::connection::adopt_interrupt(state, session);
    if let Some(t) = &transport.tls {
        session.set_tls(t.version, t.cipher);
    }
    if let Some(c) = req.collation {
        session.set_client_collation(c);
    }
    if let Some(db) = req.database.as_deref().filter(|d| !d.is_empty()) {
        if let Err(e) = session.use_database(db) {
            conn.write_err(&e);
            return false;
        }
    }
    state.info.lock().user = req.user.clone();
    conn.write_ok(&OkPacket::with_status(session.status_flags()));
    true
}
