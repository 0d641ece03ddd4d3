//! What the replica's SQL thread needs of its session: one explicit transaction
//! that spans a primary's transaction (its row events applied through storage,
//! its statements run as text), committed or rolled back as the events say.

use super::Session;
use basalt_common::MySqlError;
use basalt_storage::Txn;

impl Session {
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
