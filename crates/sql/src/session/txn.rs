//! Transactions as a session sees them.
//!
//! - Autocommit on, no BEGIN: every statement that touches tables runs in a
//!   transaction of its own, committed when the statement succeeds and rolled back
//!   when it fails.
//! - BEGIN / START TRANSACTION, or autocommit off: the transaction stays open across
//!   statements until COMMIT / ROLLBACK or an implicit commit (DDL, BEGIN, SET
//!   autocommit=1, LOCK TABLES).
//! - Every statement runs under a savepoint: when it fails, its changes alone are
//!   undone (a deadlock victim loses the whole transaction, as in InnoDB; so does a
//!   snapshot isolation conflict, errno 1020, as in MariaDB, and a lock wait
//!   timeout when `innodb_rollback_on_timeout` is on).

use super::{NextTxn, Session};
use crate::exec::Exec;
use crate::expr::EvalCtx;
use crate::stats::Stat;
use basalt_common::error::code;
use basalt_common::{MySqlError, Value};
use basalt_storage::{IsolationLevel, TxnOptions};
use std::time::Duration;

type R<T> = Result<T, MySqlError>;

impl Session {
    fn txn_options(&mut self, read_only_hint: bool, consistent_snapshot: bool) -> TxnOptions {
        let next = std::mem::take(&mut self.next_txn);
        let isolation = next.isolation.unwrap_or(self.cx.isolation);
        let read_only = next.read_only.unwrap_or(self.cx.tx_read_only);
        self.txn_read_only = read_only;
        TxnOptions {
            isolation,
            read_only: read_only || read_only_hint,
            snapshot_isolation: self.cx.snapshot_isolation,
            lock_wait_timeout: Duration::from_secs(self.cx.lock_wait_timeout),
            consistent_snapshot,
            metadata_lock_wait_timeout: Duration::from_secs(self.cx.mdl_wait_timeout),
        }
    }

    pub(super) fn begin_txn(&mut self, read_only_hint: bool, consistent_snapshot: bool) {
        let opts = self.txn_options(read_only_hint, consistent_snapshot);
        let mut txn = self.cx.engine.storage.begin(opts);
        txn.set_interrupt(self.interrupt.clone());
        txn.set_thread(self.cx.conn_id);
        self.txn = Some(txn);
        self.cx.in_transaction = true;
    }

    /// Commits the open transaction, if any.
    pub(super) fn commit(&mut self) -> R<()> {
        let entered = match &self.txn {
            Some(t) if t.has_writes() => Some(self.enter_commit()?),
            _ => None,
        };
        self.explicit = false;
        self.savepoints.clear();
        self.cx.in_transaction = false;
        self.txn_read_only = false;
        let r = match self.txn.take() {
            Some(t) => {
                self.cx.stats.counters.bump(Stat::HandlerCommit);
                t.commit().map_err(MySqlError::from)
            }
            None => Ok(()),
        };
        if let Some(e) = entered {
            self.leave(e);
        }
        r
    }

    pub(super) fn rollback(&mut self) -> R<()> {
        self.explicit = false;
        self.savepoints.clear();
        self.cx.in_transaction = false;
        self.txn_read_only = false;
        match self.txn.take() {
            Some(t) => {
                self.cx.stats.counters.bump(Stat::HandlerRollback);
                t.rollback().map_err(MySqlError::from)
            }
            None => Ok(()),
        }
    }

    pub(super) fn rollback_quietly(&mut self) {
        if let Err(e) = self.rollback() {
            tracing::warn!(conn = self.cx.conn_id, "rollback failed: {e}");
        }
    }

    /// COMMIT / ROLLBACK with their completion: AND CHAIN starts a new transaction
    /// with the same characteristics, RELEASE ends the connection after the OK;
    /// what the statement does not say comes from `completion_type`.
    pub(super) fn end_transaction(
        &mut self,
        commit: bool,
        chain: Option<bool>,
        release: Option<bool>,
    ) -> R<crate::result::QueryResult> {
        let default = self.cx.var_text("completion_type");
        let chain = chain.unwrap_or(release != Some(true) && default == "CHAIN");
        let release = release.unwrap_or(!chain && default == "RELEASE");
        let characteristics = (self.isolation_in_use(), self.txn_read_only);
        if commit {
            self.commit()?;
        } else {
            self.rollback()?;
        }
        if chain {
            self.next_txn = NextTxn {
                isolation: Some(characteristics.0),
                read_only: Some(characteristics.1),
            };
            self.begin_txn(false, false);
            self.explicit = true;
        }
        if release {
            self.close_requested = true;
        }
        Ok(crate::result::QueryResult::ok(0))
    }

    /// The isolation level of the open transaction (or the session's).
    fn isolation_in_use(&self) -> IsolationLevel {
        self.txn
            .as_ref()
            .map_or(self.cx.isolation, |t| t.options().isolation)
    }

    /// BEGIN / START TRANSACTION: commits the open transaction first.
    pub(super) fn begin(&mut self, read_only: Option<bool>, consistent_snapshot: bool) -> R<()> {
        self.commit()?;
        self.release_table_locks();
        if let Some(ro) = read_only {
            self.next_txn.read_only = Some(ro);
        }
        self.begin_txn(false, consistent_snapshot);
        self.explicit = true;
        Ok(())
    }

    /// The implicit commit before DDL and similar statements.
    pub(crate) fn implicit_commit(&mut self) -> R<()> {
        self.note_ddl();
        self.commit()
    }

    /// `SET [SESSION|GLOBAL] TRANSACTION ...`.
    pub(super) fn set_transaction(
        &mut self,
        scope: crate::front::native::TxScope,
        isolation: Option<IsolationLevel>,
        read_only: Option<bool>,
    ) -> R<()> {
        use crate::front::native::TxScope;
        match scope {
            TxScope::Next => {
                if self.in_transaction() && self.explicit {
                    return Err(MySqlError::cant_change_tx_characteristics());
                }
                self.next_txn = NextTxn {
                    isolation: isolation.or(self.next_txn.isolation),
                    read_only: read_only.or(self.next_txn.read_only),
                };
            }
            TxScope::Session | TxScope::Global => {
                let global = scope == TxScope::Global;
                if let Some(i) = isolation {
                    self.assign_sysvar("transaction_isolation", Value::str(i.name()), global)?;
                }
                if let Some(ro) = read_only {
                    self.assign_sysvar("transaction_read_only", Value::Int(ro as i64), global)?;
                }
            }
        }
        Ok(())
    }

    /// Runs `f` as one statement inside the session's transaction (see module docs).
    pub(super) fn in_statement<T>(
        &mut self,
        params: &[Value],
        read_only: bool,
        f: impl FnOnce(&mut Exec) -> R<T>,
    ) -> R<T> {
        let own = self.txn.is_none();
        if own {
            self.begin_txn(read_only && self.cx.autocommit, false);
        }
        self.start_logged_statement(!read_only);
        let Some(txn) = self.txn.as_mut() else {
            return Err(MySqlError::internal("no transaction"));
        };
        if own && self.cx.autocommit && !self.explicit {
            txn.set_single_statement();
        }
        txn.new_statement();
        let sp = (!read_only).then(|| txn.savepoint());
        let mut ctx = EvalCtx::new(params, &mut self.cx);
        ctx.strict_dml = !read_only;
        ctx.txn = Some(txn);
        ctx.interrupt = Some(&self.interrupt);
        let mut ex = Exec { ctx: &mut ctx };
        let r = f(&mut ex);
        self.cx.binlog_sql = None;
        let end_now = own && self.cx.autocommit && !self.explicit;
        match r {
            Ok(v) => {
                if end_now {
                    self.commit()?;
                }
                Ok(v)
            }
            Err(e) => {
                if end_now || self.loses_transaction(e.code) {
                    self.rollback_quietly();
                } else if let (Some(t), Some(sp)) = (self.txn.as_mut(), sp) {
                    if let Err(re) = t.rollback_to(&sp) {
                        tracing::warn!("statement rollback failed: {re}");
                        self.rollback_quietly();
                    }
                }
                Err(e)
            }
        }
    }

    /// Errors after which the whole transaction is rolled back, not the statement.
    fn loses_transaction(&self, code: u16) -> bool {
        match code {
            code::ER_LOCK_DEADLOCK | code::ER_CHECKREAD => true,
            code::ER_LOCK_WAIT_TIMEOUT => self.cx.engine.config.rollback_on_timeout,
            _ => false,
        }
    }

    /// Runs `f` for a statement that reads no table (no transaction needed).
    pub(super) fn without_txn<T>(
        &mut self,
        params: &[Value],
        f: impl FnOnce(&mut Exec) -> R<T>,
    ) -> R<T> {
        self.start_logged_statement(false);
        let mut ctx = EvalCtx::new(params, &mut self.cx);
        ctx.interrupt = Some(&self.interrupt);
        let mut ex = Exec { ctx: &mut ctx };
        let r = f(&mut ex);
        self.cx.binlog_sql = None;
        r
    }

    pub(super) fn savepoint(&mut self, name: &str) -> R<()> {
        if self.txn.is_none() {
            if self.cx.autocommit {
                return Ok(());
            }
            self.begin_txn(false, false);
        }
        let Some(t) = self.txn.as_ref() else {
            return Ok(());
        };
        let sp = t.savepoint();
        self.cx.stats.counters.bump(Stat::HandlerSavepoint);
        self.savepoints
            .retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.savepoints.push((name.to_string(), sp));
        Ok(())
    }

    pub(super) fn rollback_to_savepoint(&mut self, name: &str) -> R<()> {
        let pos = self
            .savepoints
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(name))
            .ok_or_else(|| MySqlError::savepoint_does_not_exist(name))?;
        self.savepoints.truncate(pos + 1);
        let (_, sp) = &self.savepoints[pos];
        if let Some(t) = self.txn.as_mut() {
            self.cx.stats.counters.bump(Stat::HandlerSavepointRollback);
            t.rollback_to(sp).map_err(MySqlError::from)?;
        }
        Ok(())
    }

    pub(super) fn release_savepoint(&mut self, name: &str) -> R<()> {
        let pos = self
            .savepoints
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(name))
            .ok_or_else(|| MySqlError::savepoint_does_not_exist(name))?;
        self.savepoints.truncate(pos);
        Ok(())
    }
}
