//! CHANGE MASTER, START / STOP / RESET SLAVE and `SET GLOBAL gtid_slave_pos`,
//! run against the engine's replica (see [`crate::replica::control`]). Each
//! commits an open transaction first, as MariaDB's do.

use super::Session;
use crate::front::native::replica::FilterRule;
use crate::front::native::replica::ReplicaStmt;
use crate::replica::filter::Rule;
use crate::result::QueryResult;
use basalt_common::{MySqlError, Value};

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
            ReplicaStmt::Filter(rules) => {
                self.change_replication_filter(rules)?;
                Vec::new()
            }
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

    /// `SET GLOBAL replicate_do_db = 'a,b'` and the other `replicate_*` lists: in
    /// force from the SQL thread's next transaction, kept across restarts.
    pub(super) fn set_replicate_rule(&mut self, name: &str, v: Value) -> Result<(), MySqlError> {
        let Some(rule) = Rule::from_variable(name) else {
            return Err(MySqlError::unknown_system_variable(name));
        };
        let text = match &v {
            Value::Null => String::new(),
            Value::Bytes(_) => v.display_lossy(),
            _ => return Err(MySqlError::wrong_type_for_var(name)),
        };
        let engine = self.cx.engine.clone();
        engine
            .replica()
            .change_filters(&engine, |f| f.set_text(rule, &text))
    }

    /// `CHANGE REPLICATION FILTER rule = (list), ...`: each named list replaced.
    fn change_replication_filter(&mut self, rules: &[FilterRule]) -> Result<(), MySqlError> {
        let engine = self.cx.engine.clone();
        engine.replica().change_filters(&engine, |f| {
            for r in rules {
                match &r.pairs {
                    Some(pairs) => f.rewrite_db = pairs.clone(),
                    None => f.set_list(r.rule, r.entries.clone())?,
                }
            }
            Ok(())
        })
    }

    /// `SET GLOBAL gtid_slave_pos = 'list'`.
    pub(super) fn set_gtid_slave_pos(&mut self, text: &str) -> Result<(), MySqlError> {
        let engine = self.cx.engine.clone();
        engine.replica().set_slave_pos(&engine, text)
    }
}
