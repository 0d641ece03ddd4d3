//! The storage side of the binary log: capturing row changes, and carrying the
//! binlog events of a transaction in its WAL commit record.
//!
//! One log, one fsync: a transaction's binlog events (encoded by the replication
//! layer, opaque here) are part of its commit record, so the group commit that makes
//! it durable for the engine makes it durable for replication too. The binlog files
//! are derived from the log: the [`BinlogSink`] writes each group into them as it is
//! committed (without an fsync), makes them durable before a checkpoint releases the
//! log that holds their copy ([`BinlogSink::sync`]), and after a crash rewrites from
//! the log every group the files may lack ([`BinlogRecovery`]), cutting what the log
//! does not hold. So the files end up with exactly the committed transactions.
//!
//! # Capture
//! A transaction gets a [`Capture`] (when the binary log is on and the session logs)
//! with [`crate::Txn::set_capture`]. Every row the SQL layer inserts, updates or deletes
//! through [`crate::Table`] is appended to it, after the statement text the SQL layer
//! announced ([`crate::Txn::capture_statement`]); rows of temporary tables are not
//! captured, and neither are changes made while capture is paused (foreign key
//! cascades, which a replica's own engine repeats). Rolling back to a savepoint drops
//! what was captured after it.
//!
//! An INSERT that names its columns tells the capture its write set
//! ([`crate::Txn::capture_write_set`]): the columns it gives values, with those the
//! engine fills in itself (AUTO_INCREMENT, default expressions, stored generated
//! columns). Its rows carry it, so that `binlog_row_image=MINIMAL` logs only those
//! columns, as MariaDB's `write_set` does. The set lasts until the next statement.
//!
//! A sequence's reservation (NEXTVAL past the cache, SETVAL) is captured as MariaDB
//! logs it ([`Capture::for_sequence`]): the sequence table's whole row as a write
//! (never an update), with the write set `next_not_cached_value` and `cycle_count`,
//! in a group of its own logged as a non-transactional change (no XID).
//!
//! # Log records (see `durable::record`)
//! `COMMIT_BINLOG` = `txn u64 | group`: the commit of a transaction with durable
//! changes and its events. `BINLOG` = `group`: events of their own (DDL, a rotation,
//! a transaction that changed only MEMORY tables).

use crate::api::Result;
use basalt_common::{Row, TableDef};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// What `binlog_row_image` asks rows events to carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RowImageMode {
    #[default]
    Full,
    NoBlob,
    Minimal,
}

/// The session settings a transaction's events are written with.
#[derive(Clone, Debug, Default)]
pub struct BinlogSession {
    /// Connection id (QUERY events' thread id).
    pub thread_id: u32,
    /// `@@server_id` and `@@gtid_domain_id` of the session.
    pub server_id: u32,
    pub domain_id: u32,
    pub row_image: RowImageMode,
    /// `binlog_annotate_row_events`: an ANNOTATE_ROWS event with each statement's text.
    pub annotate: bool,
    /// Collation ids of `character_set_client`, `collation_connection` and
    /// `collation_server` (QUERY events carry them).
    pub charset_client: u16,
    pub collation_connection: u16,
    pub collation_server: u16,
    /// A replicated transaction logged by a replica (`log_slave_updates`): the
    /// primary's GTID sequence number, kept (0: the next one of the domain).
    /// `server_id` is then the primary's, in the GTID and the event headers.
    pub gtid_seq_no: u64,
}

/// One captured entry.
#[derive(Clone, Debug)]
pub enum Captured {
    /// A statement that changed rows: its text, default database, and start time
    /// (seconds since the epoch, the events' timestamp).
    Statement {
        sql: Arc<str>,
        db: Arc<str>,
        when: u32,
    },
    /// A row change; `before` is absent for an insert, `after` for a delete.
    /// `written`: an insert's write set (one flag per column) when the statement
    /// gave values to some columns only; `None` means every column.
    Row {
        table: Arc<TableDef>,
        before: Option<Row>,
        after: Option<Row>,
        written: Option<Arc<[bool]>>,
    },
}

/// A transaction's captured changes.
#[derive(Debug, Default)]
pub struct Capture {
    pub session: BinlogSession,
    pub entries: Vec<Captured>,
    /// The statement announced but not yet written (it is, before its first row).
    pending: Option<Captured>,
    /// Changes are not captured while this is above 0.
    paused: u32,
    /// Whether any durable (non-MEMORY) table changed.
    pub durable: bool,
    /// The running statement's write set, for its inserts into that table.
    write_set: Option<(u64, Arc<[bool]>)>,
    /// The capture of a sequence's reservation (see the module docs).
    sequence: bool,
}

impl Capture {
    pub fn new(session: BinlogSession) -> Capture {
        Capture {
            session,
            ..Capture::default()
        }
    }

    /// The capture of a sequence's reservation: its rows are logged as writes of
    /// the whole row, its group as a non-transactional change.
    pub fn for_sequence(session: BinlogSession) -> Capture {
        Capture {
            session,
            sequence: true,
            ..Capture::default()
        }
    }

    /// Whether the group is logged as a transaction (GTID flagged transactional,
    /// ended by XID) rather than as a non-transactional change (ended by `COMMIT`):
    /// a durable table changed, and it is no sequence's reservation.
    pub fn transactional(&self) -> bool {
        self.durable && !self.sequence
    }

    /// Whether there is any row to log.
    pub fn has_rows(&self) -> bool {
        self.entries
            .iter()
            .any(|e| matches!(e, Captured::Row { .. }))
    }

    pub(crate) fn statement(&mut self, sql: Arc<str>, db: Arc<str>, when: u32) {
        self.pending = Some(Captured::Statement { sql, db, when });
        self.write_set = None;
    }

    /// The running statement's inserts into table `table_id` give values to the
    /// columns flagged in `written` only. Ignored under `binlog_row_image=FULL`,
    /// where every column is logged anyway.
    pub(crate) fn write_set(&mut self, table_id: u64, written: Arc<[bool]>) {
        if self.session.row_image != RowImageMode::Full {
            self.write_set = Some((table_id, written));
        }
    }

    pub(crate) fn row(&mut self, table: Arc<TableDef>, before: Option<Row>, after: Option<Row>) {
        if self.paused > 0 || crate::is_temp_id(table.id) {
            return;
        }
        if let Some(stmt) = self.pending.take() {
            self.entries.push(stmt);
        }
        self.durable |= table.engine != basalt_common::EngineKind::Memory;
        let (before, written) = if self.sequence {
            (None, Some(sequence_write_set(table.columns.len())))
        } else {
            let written = match &self.write_set {
                Some((id, w)) if before.is_none() && *id == table.id => Some(w.clone()),
                _ => None,
            };
            (before, written)
        };
        self.entries.push(Captured::Row {
            table,
            before,
            after,
            written,
        });
    }

    pub(crate) fn pause(&mut self, on: bool) {
        if on {
            self.paused += 1;
        } else {
            self.paused = self.paused.saturating_sub(1);
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Drops what was captured after `len` entries (a savepoint rollback). A
    /// statement entry left with no rows after it is dropped too.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.entries.truncate(len);
        while matches!(self.entries.last(), Some(Captured::Statement { .. })) {
            self.entries.pop();
        }
    }
}

/// What MariaDB's sequence engine writes of a sequence's row:
/// `next_not_cached_value` (the first column) and `cycle_count` (the last).
fn sequence_write_set(columns: usize) -> Arc<[bool]> {
    (0..columns).map(|i| i == 0 || i + 1 == columns).collect()
}

/// Appends an event group to the log on its own (`BINLOG` record); implemented by
/// the durable engine.
pub trait LogAppend: Send + Sync {
    /// Appends `group`; returns its end LSN.
    fn append(&self, group: &[u8]) -> Result<u64>;
    /// Returns once the log up to `lsn` is durable.
    fn wait_durable(&self, lsn: u64) -> Result<()>;
    /// How far the log is durable now.
    fn durable_lsn(&self) -> u64;
}

/// The binary log as the engine drives it (implemented by the replication layer).
pub trait BinlogSink: Send + Sync {
    /// Encodes the transaction's captured changes as one event group and has
    /// `append` put it in the log, exactly once, in the sink's commit order; returns
    /// what `append` returned. An error means nothing was appended.
    fn commit(
        &self,
        capture: &Capture,
        append: &mut dyn FnMut(&[u8]) -> Result<u64>,
    ) -> Result<u64>;
    /// The commit whose group ended at `lsn` was acknowledged (its record is as
    /// durable as the flush policy asks): dump clients may now see it.
    fn acknowledged(&self, lsn: u64);
    /// [`BinlogSink::acknowledged`] for a commit whose session can be killed: a
    /// wait for the commit (semi-sync) ends early once `killed` is set.
    fn acknowledged_killable(&self, lsn: u64, killed: Option<&AtomicBool>) {
        let _ = killed;
        self.acknowledged(lsn);
    }
    /// Makes every group whose record lies below `durable_lsn` durable in the binlog
    /// files. A checkpoint calls it before the log below that point is released.
    fn sync(&self, durable_lsn: u64) -> Result<()>;
}

/// Called once at start-up, before the recovered log is released, with every
/// binlog group of committed transactions found in it (record end LSN, group), in
/// log order.
pub type BinlogRecovery = Arc<dyn Fn(&[(u64, Vec<u8>)]) -> Result<()> + Send + Sync>;
