//! CHANGE MASTER, START / STOP / RESET SLAVE and `SET GLOBAL gtid_slave_pos`,
//! run against the engine's replica (see [`crate::replica::control`]). Each
//! commits an open transaction first, as MariaDB's do.

use super::Session;
use crate::front::native::replica::ReplicaStmt;
use crate::result::QueryResult;
use basalt_common::MySqlError;

impl Session {
    pub(super) fn replica_statement(&mut self, st: ReplicaStmt) -> Result<QueryResult, MySqlError> {
        self.commit()?;
        let engine = self.cx.engine.clone();
        let replica = engine.replica();
        let notes = match &st {
            ReplicaStmt::Change(opts) => replica.change(&engine, opts)?,
            ReplicaStmt::Start { threads, until } => {
                replica.start(&engine, *threads, until.as_ref())?
            }
            ReplicaStmt::Stop { threads } => replica.stop(&engine, *threads)?,
            ReplicaStmt::Reset { all } => {
                replica.reset(&engine, *all)?;
                Vec::new()
            }
        };
        for n in notes {
            self.cx.note(n.code, n.message);
        }
        Ok(QueryResult::ok(0))
    }

    /// `SET GLOBAL gtid_slave_pos = 'list'`.
    pub(super) fn set_gtid_slave_pos(&mut self, text: &str) -> Result<(), MySqlError> {
        let engine = self.cx.engine.clone();
        engine.replica().set_slave_pos(&engine, text)
    }
}
