//! What the replica's SQL thread needs of its session: one explicit transaction
//! that spans a primary's transaction (its row events applied through storage,
//! its statements run as text), committed or rolled back as the events say.

use super::Session;
use basalt_common::MySqlError;
use basalt_storage::Txn;

impl Session {
    /// This session is the replica's SQL thread.
    pub(crate) fn mark_replica_applier(&mut self) {
        self.cx.replica_applier = true;
    }

    /// Starts the transaction a primary's BEGIN opens (committing one left open).
    pub(crate) fn replica_begin(&mut self) -> Result<(), MySqlError> {
        if self.txn.is_some() {
            self.commit()?;
        }
        self.begin_txn(false, false);
        self.explicit = true;
        Ok(())
    }

    /// The open transaction, started when there is none.
    pub(crate) fn replica_txn(&mut self) -> &mut Txn {
        if self.txn.is_none() {
            self.begin_txn(false, false);
            self.explicit = true;
        }
        self.txn.as_mut().expect("a transaction was just started")
    }

    pub(crate) fn replica_commit(&mut self) -> Result<(), MySqlError> {
        self.commit()
    }

    pub(crate) fn replica_rollback(&mut self) {
        if self.txn.is_some() {
            self.rollback_quietly();
        }
    }
}

impl Session {
    /// Whether the transaction being applied goes to this server's binary log
    /// (`log_slave_updates`), and with which GTID of the primary's: its DDL is then
    /// logged (`sql_log_bin` on) and its row changes captured.
    pub(crate) fn replica_log_as(&mut self, gtid: Option<basalt_replication::gtid::Gtid>) {
        self.cx.replicated_gtid = gtid;
        let on = basalt_common::Value::Int(gtid.is_some() as i64);
        self.cx.vars.insert("sql_log_bin", on);
    }

    /// Captures the open transaction's row changes for the binary log when it is
    /// logged ([`Session::replica_log_as`]) and the binary log is on.
    pub(crate) fn replica_capture(&mut self) -> bool {
        if self.cx.replicated_gtid.is_none() || !self.cx.engine.binlog_on() {
            return false;
        }
        let session = self.cx.binlog_session();
        let txn = self.replica_txn();
        if !txn.capturing() {
            txn.set_capture(basalt_storage::binlog::Capture::new(session));
        }
        true
    }
}
