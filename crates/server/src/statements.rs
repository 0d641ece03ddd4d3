//! The binary protocol's statement commands (COM_STMT_*) and COM_CHANGE_USER.
//!
//! The SQL session owns prepared statements (their plans); this side keeps what the
//! wire needs per statement: the parameter count, the types the client bound last,
//! and data sent ahead with COM_STMT_SEND_LONG_DATA. A malformed COM_STMT_EXECUTE is an
//! error for that statement only.

use crate::blocking;
use crate::connection::{write_ok, Accounts, Conn};
use crate::registry::ConnState;
use crate::Server;
use basalt_common::MySqlError;
use basalt_protocol::{
    decode_stmt_execute, ChangeUser, Command, ConnInfo, OkPacket, ParamType, ResultSet, RowFormat,
};
use basalt_sql::{QueryResult, Session};
use std::collections::HashMap;
use std::sync::Arc;

/// Statement id MariaDB clients use for "the statement prepared last".
const LAST_STATEMENT: u32 = u32::MAX;

struct Wire {
    params: usize,
    bound: Vec<ParamType>,
    long_data: Vec<Option<Vec<u8>>>,
}

#[derive(Default)]
pub struct Statements {
    wire: HashMap<u32, Wire>,
    last: Option<u32>,
}

impl Statements {
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

    pub fn dispatch(
        &mut self,
        conn: &mut Conn,
        state: &ConnState,
        session: &mut Session,
        cmd: Command<'_>,
    ) {
        match cmd {
            Command::StmtPrepare(sql) => {
                let text = String::from_utf8_lossy(sql);
                state.set_command("Prepare", Some(&text));
                self.prepare(conn, session, &text);
            }
            Command::StmtExecute { stmt_id, payload } => {
                state.set_command("Execute", None);
                self.execute(conn, session, self.resolve(stmt_id), payload);
            }
            Command::StmtSendLongData {
                stmt_id,
                param,
                data,
            } => {
                let id = self.resolve(stmt_id);
                if let Some(w) = self.wire.get_mut(&id) {
                    if let Some(slot) = w.long_data.get_mut(param as usize) {
                        slot.get_or_insert_with(Vec::new).extend_from_slice(data);
                    }
                }
            }
            Command::StmtClose(id) => {
                let id = self.resolve(id);
                self.wire.remove(&id);
                session.close_prepared(id);
            }
            Command::StmtReset(id) => {
                let id = self.resolve(id);
                match self.wire.get_mut(&id) {
                    Some(w) => {
                        w.long_data.iter_mut().for_each(|d| *d = None);
                        write_ok(conn, session, 0, 0, "");
                    }
                    None => conn.write_err(&MySqlError::unknown_stmt_handler(
                        &id.to_string(),
                        "mysqld_stmt_reset",
                    )),
                }
            }
            Command::StmtFetch { stmt_id, .. } => {
                conn.write_err(&MySqlError::unknown_stmt_handler(
                    &self.resolve(stmt_id).to_string(),
                    "mysqld_stmt_fetch",
                ));
            }
            _ => conn.write_err(&MySqlError::unknown_command()),
        }
    }

    fn prepare(&mut self, conn: &mut Conn, session: &mut Session, sql: &str) {
        match session.prepare(sql) {
            Ok(info) => {
                self.wire.insert(
                    info.id,
                    Wire {
                        params: info.params.len(),
                        bound: Vec::new(),
                        long_data: vec![None; info.params.len()],
                    },
                );
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

    fn execute(&mut self, conn: &mut Conn, session: &mut Session, id: u32, payload: &[u8]) {
        let Some(w) = self.wire.get_mut(&id) else {
            conn.write_err(&MySqlError::unknown_stmt_handler(
                &id.to_string(),
                "mysqld_stmt_execute",
            ));
            return;
        };
        let exec = match decode_stmt_execute(payload, w.params, &mut w.bound, &mut w.long_data) {
            Ok(e) => e,
            Err(e) => {
                let err = e
                    .client_error()
                    .unwrap_or_else(|| MySqlError::wrong_arguments("mysqld_stmt_execute"));
                conn.write_err(&err);
                return;
            }
        };
        match session.execute_prepared(id, &exec.params) {
            Ok(QueryResult::Rows { columns, rows }) => {
                let rs = ResultSet {
                    columns: &columns,
                    rows: &rows,
                    status: session.status_flags(),
                    warnings: session.warning_count(),
                };
                conn.write_result_set(&rs, RowFormat::Binary);
            }
            Ok(QueryResult::Ok {
                affected_rows,
                last_insert_id,
                info,
                ..
            }) => write_ok(conn, session, affected_rows, last_insert_id, &info),
            Err(e) => conn.write_err(&e),
        }
    }
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
    let info = ConnInfo {
        connection_id: state.id as u32,
        client_host: &state.host,
        secure_transport: false,
        status: session.status_flags(),
    };
    let scramble = *state.scramble.lock();
    let cfg = crate::connection::handshake_config();
    if let Err(e) = blocking::run(basalt_protocol::change_user(
        conn, &cfg, &info, &Accounts, &req, &scramble,
    )) {
        if let Some(err) = e.client_error() {
            conn.write_err(&err);
        }
        return false;
    }
    session.close();
    stmts.clear();
    *session = server.engine.new_session(state.id, &req.user, &state.host);
    crate::connection::adopt_interrupt(state, session);
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
