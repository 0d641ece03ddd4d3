//! A session's part in the binary log: which statements it logs and with what.
//!
//! Row changes are captured by storage (see `basalt_storage::binlog`) once a
//! writing statement starts with the binary log on and `sql_log_bin` set; the
//! statement's text goes with them for ANNOTATE_ROWS. DDL is logged as a QUERY event
//! of its own after it succeeded; statements on temporary tables are not logged
//! (row-based logging, as MariaDB does).

use super::ctx::SessionCtx;
use super::Session;
use basalt_common::MySqlError;
use basalt_replication::binlog::{Binlog, DbFilter};
use basalt_storage::binlog::{BinlogSession, Capture, RowImageMode};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

type R<T> = Result<T, MySqlError>;

/// Seconds since the epoch: the events' timestamp.
fn now() -> u32 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as u32)
}

impl Session {
    /// The binary log when this session's statements go to it.
    fn logging_binlog(&self) -> Option<Arc<Binlog>> {
        if !self.logs_to_binlog() {
            return None;
        }
        self.cx.engine.binlog()
    }

    /// Whether this session's changes go to the binary log now.
    pub(super) fn logs_to_binlog(&self) -> bool {
        self.cx.logs_to_binlog()
    }

    fn binlog_session(&self) -> BinlogSession {
        self.cx.binlog_session()
    }

    /// At the start of a statement run through [`Session::in_statement`]: keeps
    /// its text for the binary log while the session logs (a sequence reservation
    /// of a SELECT is logged with it), and captures its row changes when it may
    /// write.
    pub(super) fn start_logged_statement(&mut self, writes: bool) {
        if !self.logs_to_binlog() {
            self.cx.binlog_sql = None;
            return;
        }
        self.cx.binlog_sql = Some(self.raw.trim().into());
        if writes {
            self.capture_statement();
        }
    }

    /// Captures the running statement's row changes.
    fn capture_statement(&mut self) {
        if self.logging_binlog().is_none() {
            return;
        }
        let session = self.binlog_session();
        let sql: Arc<str> = match &self.cx.binlog_sql {
            Some(s) => s.clone(),
            None => self.raw.trim().into(),
        };
        let db: Arc<str> = self.cx.db.as_deref().unwrap_or("").into();
        if let Some(txn) = self.txn.as_mut() {
            if !txn.capturing() {
                txn.set_capture(Capture::new(session));
            }
            txn.capture_statement(sql, db, now());
        }
    }

    /// `SET GLOBAL` of a variable the binary log acts on: `log_bin` (at runtime,
    /// which MariaDB cannot), `server_id`, `max_binlog_size`.
    pub(super) fn binlog_setting(&mut self, name: &str, v: &basalt_common::Value) -> R<()> {
        if name.starts_with("rpl_semi_sync_master_") {
            self.semisync_setting(name, v);
            return Ok(());
        }
        if !matches!(
            name,
            "log_bin"
                | "binlog_checksum"
                | "binlog_row_metadata"
                | "server_id"
                | "max_binlog_size"
                | "binlog_expire_logs_seconds"
                | "expire_logs_days"
                | "binlog_do_db"
                | "binlog_ignore_db"
        ) {
            return Ok(());
        }
        let n = match v {
            basalt_common::Value::Int(i) => (*i).max(0) as u64,
            basalt_common::Value::UInt(u) => *u,
            basalt_common::Value::Double(d) => (d.max(0.0) * 86400.0) as u64,
            _ => 0,
        };
        let Some(b) = self.cx.engine.binlog() else {
            if name == "log_bin" {
                return Err(MySqlError::not_supported(
                    "log_bin without a binary log directory",
                ));
            }
            return Ok(());
        };
        match name {
            "binlog_do_db" | "binlog_ignore_db" => {
                let mut f = b.filter();
                let list = DbFilter::parse_list(&v.display_lossy());
                if name == "binlog_do_db" {
                    f.do_db = list;
                } else {
                    f.ignore_db = list;
                }
                b.set_filter(f);
            }
            "log_bin" => b.set_enabled(n != 0).map_err(MySqlError::from)?,
            "binlog_row_metadata" => {
                let name = v.display_lossy();
                if let Some(level) = basalt_replication::event::RowMetadata::from_name(&name) {
                    b.set_row_metadata(level);
                }
            }
            "binlog_checksum" => {
                let crc = v.display_lossy().eq_ignore_ascii_case("CRC32");
                b.set_checksum(crc).map_err(MySqlError::from)?;
            }
            "server_id" => b.set_server_id(n as u32),
            "max_binlog_size" => b.set_max_size(n),
            _ => {
                // Either one sets both, as in MariaDB.
                b.set_expire_seconds(n);
                self.set_global_twin(name, n);
            }
        }
        Ok(())
    }

    /// `SET GLOBAL rpl_semi_sync_master_*` (validated already): applied to the
    /// binary log's semi-sync state. Without a binary log there is nothing to wait
    /// for, and the value is only kept.
    fn semisync_setting(&mut self, name: &str, v: &basalt_common::Value) {
        use basalt_replication::semisync::WaitPoint;
        let Some(b) = self.cx.engine.binlog() else {
            return;
        };
        let semi = b.semisync();
        let n = match v {
            basalt_common::Value::Int(i) => (*i).max(0) as u64,
            basalt_common::Value::UInt(u) => *u,
            _ => 0,
        };
        match name {
            "rpl_semi_sync_master_enabled" => semi.set_enabled(n != 0),
            "rpl_semi_sync_master_timeout" => semi.set_timeout_ms(n),
            "rpl_semi_sync_master_wait_no_slave" => semi.set_wait_no_slave(n != 0),
            "rpl_semi_sync_master_wait_point" => {
                if let Some(p) = WaitPoint::from_name(&v.display_lossy()) {
                    semi.set_wait_point(p);
                }
            }
            _ => {}
        }
    }

    /// `SET GLOBAL expire_logs_days` also sets `binlog_expire_logs_seconds`, and the
    /// other way round.
    fn set_global_twin(&mut self, name: &str, secs: u64) {
        let (twin, value) = if name == "expire_logs_days" {
            (
                "binlog_expire_logs_seconds",
                basalt_common::Value::UInt(secs),
            )
        } else {
            (
                "expire_logs_days",
                basalt_common::Value::Double(secs as f64 / 86400.0),
            )
        };
        if let Some(def) = crate::sysvars::lookup(twin) {
            self.cx.engine.globals.set(def, value);
        }
    }

    /// Evaluates `text` (PURGE ... BEFORE) as a point in time of the session zone;
    /// seconds since the epoch.
    pub(crate) fn eval_datetime(&mut self, text: &str) -> R<i64> {
        let v = self.eval_standalone(text)?;
        let dt = match &v {
            basalt_common::Value::DateTime(dt) => Some(*dt),
            basalt_common::Value::Bytes(b) => crate::value::parse_datetime(b),
            _ => None,
        };
        let dt = dt.ok_or_else(|| {
            MySqlError::new(1210, "HY000", "Incorrect arguments to PURGE LOGS BEFORE")
        })?;
        Ok(self.cx.to_utc(dt).unix_seconds())
    }

    /// Marks the running statement as DDL to log once it succeeds.
    pub(crate) fn note_ddl(&mut self) {
        self.ddl_to_log = true;
    }

    /// Logs the statement that just succeeded when it was DDL on durable objects.
    pub(super) fn log_ddl_done(&mut self) -> R<()> {
        if !std::mem::take(&mut self.ddl_to_log) || !logged_ddl(&self.raw) {
            return Ok(());
        }
        let sql = self.raw.trim().to_string();
        self.log_ddl_text(None, &sql)
    }

    /// Logs `sql` as a DDL statement of its own now, instead of the running
    /// statement's text (CREATE TABLE ... SELECT logs the table's definition and
    /// then its rows), in `db` (default: the current database).
    pub(super) fn log_ddl_text(&mut self, db: Option<&str>, sql: &str) -> R<()> {
        self.ddl_to_log = false;
        let Some(b) = self.logging_binlog() else {
            return Ok(());
        };
        let session = self.binlog_session();
        let db = match db {
            Some(d) => d.to_string(),
            None => self.cx.db.clone().unwrap_or_default(),
        };
        b.log_statement(&session, &db, sql, now(), Some(&self.interrupt))
            .map_err(MySqlError::from)
    }
}

impl SessionCtx {
    /// Whether this session's changes go to the binary log now.
    pub fn logs_to_binlog(&self) -> bool {
        self.engine.binlog_on() && self.var_bool("sql_log_bin")
    }

    /// The session settings events are written with.
    pub fn binlog_session(&self) -> BinlogSession {
        let row_image = match self.var_text("binlog_row_image").as_str() {
            "MINIMAL" => RowImageMode::Minimal,
            "NOBLOB" => RowImageMode::NoBlob,
            _ => RowImageMode::Full,
        };
        let (server_id, domain_id, gtid_seq_no) = match self.replicated_gtid {
            Some(g) => (g.server, g.domain, g.seq),
            None => (
                self.var_u64("server_id") as u32,
                self.var_u64("gtid_domain_id") as u32,
                0,
            ),
        };
        BinlogSession {
            thread_id: self.conn_id as u32,
            server_id,
            domain_id,
            gtid_seq_no,
            row_image,
            annotate: self.var_bool("binlog_annotate_row_events"),
            charset_client: self.text_charsets.client.default_collation().id(),
            collation_connection: self.connection_collation.id(),
            collation_server: self.engine.config.collation_server.id(),
        }
    }

    /// How a sequence reservation made now goes to the binary log: `None` when
    /// the session does not log.
    pub fn sequence_log(&self) -> Option<crate::sequence::SeqLog> {
        if !self.logs_to_binlog() {
            return None;
        }
        Some(crate::sequence::SeqLog {
            session: self.binlog_session(),
            sql: self.binlog_sql.clone().unwrap_or_else(|| "".into()),
            db: self.db.as_deref().unwrap_or("").into(),
            when: now(),
        })
    }
}

/// Whether a statement that committed implicitly is DDL MariaDB writes to a
/// row-based binary log: CREATE / ALTER / DROP / RENAME / TRUNCATE and the table
/// maintenance statements, but not those on temporary tables, nor LOCK TABLES or
/// the NO_WRITE_TO_BINLOG / LOCAL forms.
fn logged_ddl(sql: &str) -> bool {
    let words: Vec<String> = sql
        .split_whitespace()
        .take(3)
        .map(|w| w.to_ascii_uppercase())
        .collect();
    let first = words.first().map(String::as_str).unwrap_or("");
    let second = words.get(1).map(String::as_str).unwrap_or("");
    match first {
        "CREATE" | "DROP" => second != "TEMPORARY",
        "ALTER" | "RENAME" | "TRUNCATE" | "GRANT" | "REVOKE" => true,
        "SET" => second.starts_with("PASSWORD"),
        "ANALYZE" | "OPTIMIZE" | "REPAIR" => !matches!(second, "NO_WRITE_TO_BINLOG" | "LOCAL"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::logged_ddl;

    #[test]
    fn which_ddl_is_logged() {
        assert!(logged_ddl("create table t (a int)"));
        assert!(!logged_ddl("CREATE TEMPORARY TABLE t (a int)"));
        assert!(logged_ddl("drop table t"));
        assert!(!logged_ddl("drop temporary table t"));
        assert!(logged_ddl("OPTIMIZE TABLE t"));
        assert!(!logged_ddl("optimize local table t"));
        assert!(!logged_ddl("lock tables t write"));
        assert!(!logged_ddl("begin"));
    }
}
