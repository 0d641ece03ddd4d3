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
//! - Each transaction takes, at its GTID, the filters ([`super::filter`]),
//!   `slave_exec_mode` and `log_slave_updates` in force then: a change made while
//!   the thread runs applies from the next transaction. A row event whose
//!   (rewritten) database or table the filters leave out is passed over, as is a
//!   DDL statement whose default database or tables they leave out; the
//!   transaction's GTID still commits into `mysql.gtid_slave_pos`.
//! - With `log_slave_updates` (and the binary log on) the transaction goes to this
//!   server's binary log with the primary's GTID and server id.
//! - An error `slave_skip_errors` names is passed over (a row event keeps the rows
//!   before the failing one, as MariaDB's), with a warning in the server log.
//! - Transactions the replica itself originated (its own server id, or one in
//!   `IGNORE_SERVER_IDS`) are passed over.
//! - A failing event stops the thread with MariaDB's `Last_SQL_Error` and rolls
//!   the transaction back; START SLAVE retries from the last applied position.

use super::ddl_tables::{database_named, ddl_tables};
use super::filter::Filters;
use super::gtid_pos;
use super::relay::Item;
use super::status::{now_secs, Shared, SQL_DELAYING, SQL_READING, SQL_WAITING};
use super::until::{GtidStep, UntilState};
use super::{apply_rows_skipping, ApplyCounts, ApplyOptions};
use crate::engine::Engine;
use crate::session::Session;
use basalt_common::MySqlError;
use basalt_replication::event::EventHeader;
use basalt_replication::gtid::Gtid;
use basalt_replication::replica::decode::{Event, Query, RowsEvent, TableMap};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// What the thread needs to know, fixed at START SLAVE.
#[derive(Clone, Debug)]
pub struct SqlConfig {
    pub server_id: u32,
    pub ignore_server_ids: Vec<u64>,
    pub delay: u64,
    pub ddl_idempotent: bool,
    pub use_gtid: bool,
    pub skip_errors: SkipErrors,
    /// START SLAVE UNTIL's condition ([`super::until`]).
    pub until: Option<UntilState>,
}

/// `slave_skip_errors`: the error numbers the thread passes over.
#[derive(Clone, Debug, Default)]
pub struct SkipErrors {
    all: bool,
    codes: Vec<u16>,
}

impl SkipErrors {
    /// From the variable's text: `OFF`, numbers separated by commas, or the list
    /// of `all` (every number, shown cut with `...`).
    pub fn parse(text: &str) -> SkipErrors {
        let text = text.trim();
        if text.ends_with("...") || text.eq_ignore_ascii_case("all") {
            return SkipErrors {
                all: true,
                codes: Vec::new(),
            };
        }
        let codes = text
            .split(',')
            .filter_map(|c| c.trim().parse().ok())
            .collect();
        SkipErrors { all: false, codes }
    }

    pub fn skips(&self, code: u16) -> bool {
        self.all || self.codes.contains(&code)
    }
}

/// The transaction being applied, with the settings taken at its start.
struct Group {
    gtid: Gtid,
    standalone: bool,
    skip: bool,
    filters: Arc<Filters>,
    idempotent: bool,
}

struct Applier {
    engine: Arc<Engine>,
    shared: Arc<Shared>,
    cfg: SqlConfig,
    session: Session,
    maps: HashMap<u64, TableMap>,
    group: Option<Group>,
    counts: ApplyCounts,
    /// The GTID condition was met by the transaction being applied.
    until_after_group: bool,
    /// The GTID condition before the transaction being applied, restored when the
    /// transaction is dropped unfinished (it comes again).
    until_snapshot: Option<UntilState>,
}

/// The thread's body; returns when stopped or after an error.
pub fn run(engine: Arc<Engine>, shared: Arc<Shared>, cfg: SqlConfig) {
    let mut session = engine.new_session(0, "system user", "");
    session.mark_replica_applier();
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
        until_after_group: false,
        until_snapshot: None,
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
            if self.until_before(&header, &event, &file) {
                self.stop_at_until();
                return None;
            }
            self.shared.state.lock().executed_entries += 1;
            if let Err(e) = self.event(&header, *event, &file) {
                self.abandon_group();
                self.shared.resync_from_applied(self.cfg.use_gtid);
                return Some(e);
            }
            if self.until_after_group && self.group.is_none() {
                self.stop_at_until();
                return None;
            }
        }
        None
    }

    /// Whether a file-position condition stops the thread before `event`: the
    /// event starts at or past it, outside a transaction (see [`super::until`]).
    fn until_before(&self, h: &EventHeader, event: &Event, file: &str) -> bool {
        let Some(until) = &self.cfg.until else {
            return false;
        };
        if self.group.is_some() || h.log_pos == 0 || matches!(event, Event::Rotate { .. }) {
            return false;
        }
        until.master_reached(file, h.log_pos.saturating_sub(h.event_len) as u64)
    }

    /// The condition is met: the queue is dropped (fetched again from the applied
    /// position at the next start), and a GTID condition stops the I/O thread too.
    fn stop_at_until(&mut self) {
        self.abandon_group();
        let gtid = matches!(self.cfg.until, Some(UntilState::Gtid { .. }));
        if gtid {
            super::io_thread::request_stop(&self.shared);
        }
        self.shared.resync_from_applied(self.cfg.use_gtid);
        let st = self.shared.state.lock();
        tracing::info!(
            "Slave SQL thread stopped because it reached its UNTIL position {} '{}' {} \
             (executed up to '{}' {}, @@gtid_slave_pos '{}')",
            st.until.as_ref().map_or("", |u| u.0),
            st.until.as_ref().map_or("", |u| u.1.as_str()),
            st.until.as_ref().map_or(0, |u| u.2),
            st.exec_file,
            st.exec_pos,
            self.shared.slave_pos.lock().text()
        );
    }

    /// A transaction received in part is dropped (it comes again whole).
    fn abandon_group(&mut self) {
        if let Some(saved) = self.until_snapshot.take() {
            self.cfg.until = Some(saved);
            self.until_after_group = false;
        }
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
                let mut map = self.maps.remove(&ev.table_id).ok_or_else(|| {
                    (
                        1105,
                        format!("rows event for unknown table id {}", ev.table_id),
                    )
                })?;
                let res = self.rows(h, &mut map, &ev, file);
                self.maps.insert(ev.table_id, map);
                res
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

    /// The filters and exec mode of the transaction being applied (those in
    /// force now outside one).
    fn settings(&self) -> (Arc<Filters>, bool) {
        match &self.group {
            Some(g) => (g.filters.clone(), g.idempotent),
            None => (self.shared.filters.read().clone(), self.exec_idempotent()),
        }
    }

    fn exec_idempotent(&self) -> bool {
        super::control::global_text(&self.engine, "slave_exec_mode")
            .eq_ignore_ascii_case("IDEMPOTENT")
    }

    /// A rows event on `map`'s table: passed over when filtered out, else applied
    /// (in the rewritten database).
    fn rows(
        &mut self,
        h: &EventHeader,
        map: &mut TableMap,
        ev: &RowsEvent,
        file: &str,
    ) -> Result<(), (u16, String)> {
        let (filters, idempotent) = self.settings();
        let db = filters.rewrite(&map.schema).to_string();
        if !filters.row_event_ok(&db, &map.table) {
            return Ok(());
        }
        let log_updates = self.session.replica_capture();
        let opts = ApplyOptions {
            idempotent,
            log_updates,
        };
        let original = std::mem::replace(&mut map.schema, db);
        let storage = self.engine.storage().clone();
        let txn = self.session.replica_txn();
        let skip = &self.cfg.skip_errors;
        let res = apply_rows_skipping(&storage, txn, map, ev, opts, &mut self.counts, &|c| {
            skip.skips(c)
        });
        let res = match res {
            Ok(Some(e)) => {
                let text = e.last_sql_error(file, h.log_pos as u64);
                tracing::warn!("replica: slave_skip_errors passes over: {text}");
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(e) => Err((e.code(), e.last_sql_error(file, h.log_pos as u64))),
        };
        map.schema = original;
        res
    }

    /// Whether the filters let a DDL statement run: its (rewritten) default
    /// database, then, with table rules, the tables it changes.
    fn ddl_passes(filters: &Filters, db: &str, sql: &str) -> bool {
        if let Some(named) = database_named(sql) {
            return filters.db_ok(db)
                && filters.db_ok(&named)
                && filters.db_ok_with_wild_table(&named);
        }
        filters.db_ok(db)
            && (!filters.table_rules_on()
                || ddl_tables(sql, db).is_none_or(|t| filters.tables_ok(&t)))
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
        self.until_snapshot = self.cfg.until.clone();
        let step = self
            .cfg
            .until
            .as_mut()
            .map_or_else(GtidStep::default, |u| u.at_gtid(gtid));
        self.until_after_group = step.stop_after;
        let skip = step.skip
            || h.server_id == self.cfg.server_id
            || self.cfg.ignore_server_ids.contains(&(h.server_id as u64));
        self.delay(h);
        {
            let mut st = self.shared.state.lock();
            st.applying_since = Some(h.timestamp);
            st.sql_state = SQL_READING;
        }
        let log = !skip
            && self.engine.binlog_on()
            && super::control::global_text(&self.engine, "log_slave_updates") == "1";
        self.session.replica_log_as(log.then_some(gtid));
        self.group = Some(Group {
            gtid,
            standalone,
            skip,
            filters: self.shared.filters.read().clone(),
            idempotent: self.exec_idempotent(),
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
                let (filters, _) = self.settings();
                let db = filters.rewrite(&q.db).to_string();
                if !Self::ddl_passes(&filters, &db, &sql) {
                    return self.finish_if_standalone(h, file);
                }
                let standalone = self.group.as_ref().is_none_or(|g| g.standalone);
                let text = if standalone && self.cfg.ddl_idempotent {
                    idempotent_ddl(&sql)
                } else {
                    sql.clone()
                };
                match self.run_statement(h, &db, &text) {
                    Err(e) if self.cfg.skip_errors.skips(e.code) => tracing::warn!(
                        "replica: slave_skip_errors passes over error {} of '{sql}': {}",
                        e.code,
                        e.message
                    ),
                    Err(e) => {
                        let msg = format!(
                            "Error '{}' on query. Default database: '{}'. Query: '{}'",
                            e.message, q.db, sql
                        );
                        return Err((e.code, msg));
                    }
                    Ok(()) => {}
                }
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
    fn run_statement(&mut self, h: &EventHeader, db: &str, sql: &str) -> Result<(), MySqlError> {
        if !db.is_empty() && self.session.use_database(db).is_err() {
            tracing::debug!(db = %db, "replicated statement's database does not exist here");
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
        self.until_snapshot = None;
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
        // The position table is the replica's own: never in its binary log.
        txn.pause_capture(true);
        let recorded = gtid_pos::record(&storage, txn, gtid, old, sub);
        txn.pause_capture(false);
        recorded?;
        self.session.replica_commit()?;
        self.session.replica_log_as(None);
        self.shared.slave_pos.lock().committed(gtid, sub);
        self.shared.pos_changed.notify_all();
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
