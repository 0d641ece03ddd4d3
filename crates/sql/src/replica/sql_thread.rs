//! The SQL thread: applies the queued events one transaction at a time, in the
//! primary's order, in a session of its own (`system user`, not binary-logged).
//!
//! - A transaction (GTID, BEGIN, TABLE_MAP / rows events, XID or COMMIT) applies
//!   in one storage transaction as its events arrive; at its end the GTID is
//!   written to `mysql.gtid_slave_pos` in the same transaction, then it commits.
//!   Rows and position are durable together or not at all.
//! - A DDL statement (a standalone GTID group) runs as text in the primary's
//!   default database with the primary's timestamp; its GTID commits right after.
//!   With `slave_ddl_exec_mode=IDEMPOTENT` (MariaDB's default) `CREATE TABLE`
//!   runs as `CREATE OR REPLACE TABLE`, `CREATE DATABASE` with IF NOT EXISTS and
//!   `DROP TABLE` / `DROP DATABASE` with IF EXISTS, so a DDL repeated after a crash
//!   between it and its GTID applies again.
//! - Transactions the replica itself originated (its own server id, or one in
//!   `IGNORE_SERVER_IDS`) are passed over.
//! - A failing event stops the thread with MariaDB's `Last_SQL_Error` and rolls
//!   the transaction back; START SLAVE retries from the last applied position.

use super::gtid_pos;
use super::relay::Item;
use super::status::{now_secs, Shared, SQL_DELAYING, SQL_READING, SQL_WAITING};
use super::{apply_rows, ApplyCounts, ApplyOptions};
use crate::engine::Engine;
use crate::session::Session;
use basalt_common::MySqlError;
use basalt_replication::event::EventHeader;
use basalt_replication::gtid::Gtid;
use basalt_replication::replica::decode::{Event, Query, TableMap};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// What the thread needs to know, fixed at START SLAVE.
#[derive(Clone, Debug)]
pub struct SqlConfig {
    pub server_id: u32,
    pub ignore_server_ids: Vec<u64>,
    pub delay: u64,
    pub idempotent: bool,
    pub ddl_idempotent: bool,
    pub use_gtid: bool,
}

/// The transaction being applied.
struct Group {
    gtid: Gtid,
    standalone: bool,
    skip: bool,
}

struct Applier {
    engine: Arc<Engine>,
    shared: Arc<Shared>,
    cfg: SqlConfig,
    session: Session,
    maps: HashMap<u64, TableMap>,
    group: Option<Group>,
    counts: ApplyCounts,
}

/// The thread's body; returns when stopped or after an error.
pub fn run(engine: Arc<Engine>, shared: Arc<Shared>, cfg: SqlConfig) {
    let mut session = engine.new_session(0, "system user", "");
    for r in session.execute("SET SESSION sql_log_bin = 0") {
        if let Err(e) = r {
            tracing::warn!("replica SQL thread set-up: {e}");
        }
    }
    let mut a = Applier {
        engine,
        shared,
        cfg,
        session,
        maps: HashMap::new(),
        group: None,
        counts: ApplyCounts::default(),
    };
    let failed = a.main();
    a.session.replica_rollback();
    a.session.close();
    // The error and the stop show together in SHOW SLAVE STATUS.
    let mut st = a.shared.state.lock();
    if let Some(e) = failed {
        st.last_sql = Some(e);
    }
    st.sql_running = false;
    st.applying_since = None;
    st.delay_until = None;
}

impl Applier {
    /// Applies events until stopped; the error (errno, Last_SQL_Error) that
    /// stopped it, if one did.
    fn main(&mut self) -> Option<(u16, String)> {
        // A transaction begun is finished (or dropped at the I/O thread's Restart)
        // before a stop is honoured: the queue must not resume mid-transaction.
        while !(self.shared.sql_stopping() && self.group.is_none()) {
            let Some(item) = self.shared.relay.pop(Duration::from_millis(200)) else {
                if self.group.is_none() {
                    self.shared.state.lock().sql_state = SQL_WAITING;
                }
                continue;
            };
            let (header, event, file) = match item {
                Item::Restart => {
                    self.abandon_group();
                    continue;
                }
                Item::Event {
                    header,
                    event,
                    file,
                    ..
                } => (header, event, file),
            };
            self.shared.state.lock().executed_entries += 1;
            if let Err(e) = self.event(&header, *event, &file) {
                self.abandon_group();
                self.shared.resync_from_applied(self.cfg.use_gtid);
                return Some(e);
            }
        }
        None
    }

    /// A transaction received in part is dropped (it comes again whole).
    fn abandon_group(&mut self) {
        self.session.replica_rollback();
        self.group = None;
        self.shared.state.lock().applying_since = None;
    }

    fn event(&mut self, h: &EventHeader, event: Event, file: &str) -> Result<(), (u16, String)> {
        match event {
            Event::Gtid(g) => self.begin_group(h, g.gtid, g.flags.standalone),
            Event::Query(q) => self.query(h, q, file),
            Event::TableMap(m) => {
                self.maps.insert(m.table_id, m);
                Ok(())
            }
            Event::Rows(ev) => {
                if self.group.as_ref().is_some_and(|g| g.skip) {
                    return Ok(());
                }
                let map = self.maps.get(&ev.table_id).ok_or_else(|| {
                    (
                        1105,
                        format!("rows event for unknown table id {}", ev.table_id),
                    )
                })?;
                let opts = ApplyOptions {
                    idempotent: self.cfg.idempotent,
                    log_updates: false,
                };
                let storage = self.engine.storage().clone();
                let txn = self.session.replica_txn();
                apply_rows(&storage, txn, map, &ev, opts, &mut self.counts)
                    .map_err(|e| (e.code(), e.last_sql_error(file, h.log_pos as u64)))
            }
            Event::Xid(_) => self.end_group(h, file, true),
            Event::Rotate { file, pos } => {
                if self.group.is_none() {
                    let mut st = self.shared.state.lock();
                    st.exec_file = file;
                    st.exec_pos = pos;
                }
                Ok(())
            }
            _ => {
                self.advance(h, file);
                Ok(())
            }
        }
    }

    /// Outside a transaction, the executed position moves past every event.
    fn advance(&self, h: &EventHeader, file: &str) {
        if self.group.is_none() && h.log_pos != 0 {
            let mut st = self.shared.state.lock();
            st.exec_file = file.to_string();
            st.exec_pos = h.log_pos as u64;
        }
    }

    fn begin_group(
        &mut self,
        h: &EventHeader,
        gtid: Gtid,
        standalone: bool,
    ) -> Result<(), (u16, String)> {
        self.abandon_group();
        let skip = h.server_id == self.cfg.server_id
            || self.cfg.ignore_server_ids.contains(&(h.server_id as u64));
        self.delay(h);
        {
            let mut st = self.shared.state.lock();
            st.applying_since = Some(h.timestamp);
            st.sql_state = SQL_READING;
        }
        self.group = Some(Group {
            gtid,
            standalone,
            skip,
        });
        Ok(())
    }

    /// MASTER_DELAY: waits until the primary's commit is `delay` seconds old.
    fn delay(&self, h: &EventHeader) {
        if self.cfg.delay == 0 {
            return;
        }
        let clock_diff = self.shared.state.lock().clock_diff;
        let due = (h.timestamp as i64 - clock_diff + self.cfg.delay as i64).max(0) as u64;
        if now_secs() >= due {
            return;
        }
        {
            let mut st = self.shared.state.lock();
            st.delay_until = Some(due);
            st.sql_state = SQL_DELAYING;
        }
        while !self.shared.sql_stopping() && now_secs() < due {
            std::thread::sleep(Duration::from_millis(100));
        }
        self.shared.state.lock().delay_until = None;
    }

    fn query(&mut self, h: &EventHeader, q: Query, file: &str) -> Result<(), (u16, String)> {
        let sql = String::from_utf8_lossy(&q.sql).into_owned();
        let word = sql.trim().to_ascii_uppercase();
        let skip = self.group.as_ref().is_some_and(|g| g.skip);
        match word.as_str() {
            "BEGIN" => {
                if !skip {
                    self.session
                        .replica_begin()
                        .map_err(|e| (e.code, e.message))?;
                }
                Ok(())
            }
            "COMMIT" => self.end_group(h, file, false),
            "ROLLBACK" => {
                self.abandon_group();
                self.advance(h, file);
                Ok(())
            }
            _ if skip => self.finish_if_standalone(h, file),
            _ => {
                let standalone = self.group.as_ref().is_none_or(|g| g.standalone);
                let text = if standalone && self.cfg.ddl_idempotent {
                    idempotent_ddl(&sql)
                } else {
                    sql.clone()
                };
                self.run_statement(h, &q, &text).map_err(|e| {
                    let msg = format!(
                        "Error '{}' on query. Default database: '{}'. Query: '{}'",
                        e.message, q.db, sql
                    );
                    (e.code, msg)
                })?;
                self.finish_if_standalone(h, file)
            }
        }
    }

    fn finish_if_standalone(&mut self, h: &EventHeader, file: &str) -> Result<(), (u16, String)> {
        if self.group.as_ref().is_none_or(|g| g.standalone) {
            self.end_group(h, file, false)
        } else {
            Ok(())
        }
    }

    /// Runs a statement of the primary's in its default database at its time.
    fn run_statement(&mut self, h: &EventHeader, q: &Query, sql: &str) -> Result<(), MySqlError> {
        if !q.db.is_empty() && self.session.use_database(&q.db).is_err() {
            tracing::debug!(db = %q.db, "replicated statement's database does not exist here");
        }
        let set_time = format!("SET timestamp = {}", h.timestamp);
        for r in self.session.execute(&set_time) {
            r?;
        }
        let mut out = Ok(());
        for r in self.session.execute(sql) {
            if let Err(e) = r {
                out = Err(e);
                break;
            }
        }
        for r in self.session.execute("SET timestamp = DEFAULT") {
            r?;
        }
        out
    }

    /// The end of a transaction (XID, COMMIT, or a standalone statement): the
    /// GTID goes into `mysql.gtid_slave_pos` in the same transaction, which then
    /// commits.
    fn end_group(&mut self, h: &EventHeader, file: &str, xid: bool) -> Result<(), (u16, String)> {
        let Some(group) = self.group.take() else {
            self.session
                .replica_commit()
                .map_err(|e| (e.code, e.message))?;
            self.advance(h, file);
            return Ok(());
        };
        if !group.skip {
            self.commit_with_gtid(group.gtid)
                .map_err(|e| (e.code, e.message))?;
        } else {
            self.session.replica_rollback();
        }
        let mut st = self.shared.state.lock();
        st.exec_file = file.to_string();
        st.exec_pos = h.log_pos as u64;
        st.applying_since = None;
        if group.standalone {
            st.ddl_groups += 1;
        } else if xid {
            st.transactional_groups += 1;
        } else {
            st.non_transactional_groups += 1;
        }
        Ok(())
    }

    fn commit_with_gtid(&mut self, gtid: Gtid) -> Result<(), MySqlError> {
        let (old, sub) = self.shared.slave_pos.lock().reserve(gtid);
        let storage = self.engine.storage().clone();
        let txn = self.session.replica_txn();
        gtid_pos::record(&storage, txn, gtid, old, sub)?;
        self.session.replica_commit()?;
        self.shared.slave_pos.lock().committed(gtid, sub);
        Ok(())
    }
}

/// `slave_ddl_exec_mode=IDEMPOTENT`'s rewriting: `CREATE TABLE` without IF NOT
/// EXISTS becomes `CREATE OR REPLACE TABLE`, `DROP TABLE` without IF EXISTS gets it.
fn idempotent_ddl(sql: &str) -> String {
    let words: Vec<&str> = sql.split_whitespace().take(5).collect();
    let is = |i: usize, w: &str| words.get(i).is_some_and(|x| x.eq_ignore_ascii_case(w));
    let start = sql.len() - sql.trim_start().len();
    let after = |n: usize| -> usize {
        let mut at = start;
        for _ in 0..n {
            let rest = &sql[at..];
            let skip_ws = rest.len() - rest.trim_start().len();
            let word_len = rest[skip_ws..]
                .find(char::is_whitespace)
                .unwrap_or(rest.len() - skip_ws);
            at += skip_ws + word_len;
        }
        at
    };
    if is(0, "CREATE") && is(1, "TABLE") && !(is(2, "IF") && is(3, "NOT")) {
        let at = after(1);
        return format!("{} OR REPLACE{}", &sql[..at], &sql[at..]);
    }
    let database = is(1, "DATABASE") || is(1, "SCHEMA");
    if is(0, "CREATE") && database && !is(2, "IF") {
        let at = after(2);
        return format!("{} IF NOT EXISTS{}", &sql[..at], &sql[at..]);
    }
    if is(0, "DROP") && (is(1, "TABLE") || database) && !(is(2, "IF") && is(3, "EXISTS")) {
        let at = after(2);
        return format!("{} IF EXISTS{}", &sql[..at], &sql[at..]);
    }
    sql.to_string()
}

#[cfg(test)]
mod tests {
    use super::idempotent_ddl;

    #[test]
    fn ddl_made_repeatable() {
        assert_eq!(
            idempotent_ddl("create table t (a int)"),
            "create OR REPLACE table t (a int)"
        );
        assert_eq!(
            idempotent_ddl("  DROP TABLE `t`,u /* generated by server */"),
            "  DROP TABLE IF EXISTS `t`,u /* generated by server */"
        );
        assert_eq!(
            idempotent_ddl("CREATE TABLE IF NOT EXISTS t (a int)"),
            "CREATE TABLE IF NOT EXISTS t (a int)"
        );
        assert_eq!(
            idempotent_ddl("DROP TABLE IF EXISTS t"),
            "DROP TABLE IF EXISTS t"
        );
        assert_eq!(
            idempotent_ddl("ALTER TABLE t ADD b int"),
            "ALTER TABLE t ADD b int"
        );
        assert_eq!(
            idempotent_ddl("CREATE DATABASE d"),
            "CREATE DATABASE IF NOT EXISTS d"
        );
        assert_eq!(idempotent_ddl("drop schema d"), "drop schema IF EXISTS d");
    }
}
