//! The binary log: files derived from the WAL (see `basalt_storage::binlog` for how a
//! commit's events ride in its commit record and how the files are recovered).
//!
//! One mutex ([`Binlog::inner`]) orders everything that goes into the log: a commit
//! takes it, assigns the GTID, encodes the events at the file position they will
//! occupy, appends them to the WAL through the closure storage passes, and pushes
//! them onto the in-memory [`tail`]. The WAL append inside the lock makes log order
//! equal binlog order. The files are written outside that lock: the first commit of
//! a group to be acknowledged ([`Binlog::acknowledged`], after the WAL fsync) writes
//! every chunk not yet in the files, one `pwrite` per run of adjacent chunks (no
//! fsync), then moves the visible end; the others find their events written. So a
//! commit returns with its events in the files and visible to dumps, and a group
//! commit of many transactions costs one file write. Checkpoints fsync the files
//! ([`Binlog::sync`]) and record the sync point recovery starts from.
//!
//! Locks, always taken in this order: `inner` (ordering), `writer` (file writes),
//! `tail`, `acks`; the visible end is an atomic that dumps read without a lock.
//!
//! Semi-sync ([`crate::semisync`]): a transaction or DDL group logged while
//! `rpl_semi_sync_master_enabled` is on is remembered by its end LSN with the
//! position its last event ends at (before any ROTATE the group carries);
//! [`Binlog::acknowledged`] makes it visible to dumps first and then waits there for
//! a replica's acknowledgement (both wait points wait here).
//!
//! # Invariants
//! 1. Every group with WAL end LSN at or below the sync point's `lsn` is durable in
//!    the files; every later committed group is in the WAL (the checkpoint that
//!    would release it syncs the files first).
//! 2. The visible end never passes a group whose commit is not acknowledged, so a
//!    dump never sends a transaction that a crash could take back, nor a group not
//!    yet written to the files.
//! 3. GTID sequence numbers of a domain only grow, across restarts and across
//!    `log_bin` toggles: the state is rebuilt from the files at start.

mod encode;
#[cfg(test)]
mod fault;
mod files;
mod filter;
mod group;
mod recover;
mod state;
mod tail;
mod writer;

pub use files::Files;
pub use filter::DbFilter;
pub use recover::recover;

use crate::event::{EventWriter, GtidFlags, RowMetadata, BINLOG_MAGIC};
use crate::gtid::{Gtid, GtidList};
use crate::semisync::{Coord, SemiSync};
use crate::source::{BinlogPos, DumpSource, LogFile};
use basalt_storage::binlog::{BinlogSession, BinlogSink, Capture, LogAppend};
use basalt_storage::StorageError;
use group::{Chunk, Group, RESET};
use parking_lot::{Condvar, Mutex, RwLock};
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tail::{Tail, TailChunk};
use writer::{Visible, Writer};

/// How the binary log is set up.
#[derive(Clone, Debug)]
pub struct BinlogConfig {
    pub dir: PathBuf,
    /// `basalt-bin` (`--log-bin[=basename]`).
    pub basename: String,
    pub server_id: u32,
    /// `max_binlog_size`: a file is rotated once it passes this.
    pub max_size: u64,
    /// `binlog_checksum=CRC32`.
    pub checksum: bool,
    /// `binlog_expire_logs_seconds`: files older than this go when the log moves to
    /// a new file (0: never).
    pub expire_seconds: u64,
    /// What FORMAT_DESCRIPTION events name as the server version.
    pub server_version: String,
}

/// Why the log moves to a new file.
#[derive(Clone, Copy, Debug)]
enum Rotation {
    /// The next number (FLUSH BINARY LOGS, `max_binlog_size`, `log_bin=ON`).
    Next,
    /// The next number, its events with CRC32s or not (`binlog_checksum`).
    Checksum(bool),
    /// Every file removed, the log starting again at this number (RESET MASTER).
    Reset(u32),
}

/// A logged group whose commit is not acknowledged or not synced: its WAL end
/// LSN, where it ends in the files, and the tail sequence number after its chunks.
#[derive(Clone, Copy, Debug)]
struct Written {
    lsn: u64,
    file: u32,
    end: u64,
    seq: u64,
}

struct Inner {
    enabled: bool,
    /// Current file number (0: none yet) and the offset after its last event.
    file: u32,
    pos: u64,
    index: Vec<u32>,
    gtids: GtidList,
    unsynced: VecDeque<Written>,
    next_xid: u64,
}

/// Groups not yet visible, and the semi-sync waits their committers will do.
#[derive(Default)]
struct Acks {
    unacked: VecDeque<Written>,
    /// Group end LSN -> where its last event ends.
    semisync_waits: HashMap<u64, Coord>,
}

pub struct Binlog {
    files: Files,
    /// `log_bin` (mirrors `Inner::enabled`, read without the lock).
    on: AtomicBool,
    /// A file was opened in this run.
    opened_one: AtomicBool,
    server_version: String,
    server_id: AtomicU32,
    max_size: AtomicU64,
    expire_seconds: AtomicU64,
    checksum: AtomicBool,
    /// `binlog_row_metadata` ([`RowMetadata`] as 0, 1, 2).
    row_metadata: AtomicU8,
    appender: Arc<dyn LogAppend>,
    /// `binlog_do_db` / `binlog_ignore_db`.
    filter: RwLock<DbFilter>,
    inner: Mutex<Inner>,
    writer: Mutex<Writer>,
    tail: RwLock<Tail>,
    /// Mirrors `Tail::written_seq` (read without a lock).
    written: AtomicU64,
    acks: Mutex<Acks>,
    /// Set when a file write failed: the WAL keeps the events, a restart rewrites
    /// them; until then commits that would log fail.
    broken: Mutex<Option<String>>,
    is_broken: AtomicBool,
    visible: Visible,
    /// Dumps waiting for the visible end to move, and how they are woken.
    wait_lock: Mutex<()>,
    waiters: AtomicUsize,
    moved: Condvar,
    semisync: Arc<SemiSync>,
}

fn now() -> u32 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as u32)
}

fn io_err(what: &str, e: std::io::Error) -> StorageError {
    StorageError::Invalid(format!("binary log {what}: {e}"))
}

impl Binlog {
    /// Opens the binlog directory (after storage recovery ran [`recover`] on it);
    /// when `enabled`, starts a new file as MariaDB does at every start.
    pub fn open(
        config: BinlogConfig,
        appender: Arc<dyn LogAppend>,
        enabled: bool,
    ) -> Result<Arc<Binlog>, StorageError> {
        let files = Files::new(&config.dir, &config.basename);
        let index = files.read_index().map_err(|e| io_err("index", e))?;
        let file = index.last().copied().unwrap_or(0);
        let pos = if file > 0 { files.size(file) } else { 0 };
        let gtids = state::scan(&files, &index)?;
        let log = Arc::new(Binlog {
            on: AtomicBool::new(false),
            opened_one: AtomicBool::new(false),
            server_version: config.server_version.clone(),
            server_id: AtomicU32::new(config.server_id),
            max_size: AtomicU64::new(config.max_size),
            expire_seconds: AtomicU64::new(config.expire_seconds),
            checksum: AtomicBool::new(config.checksum),
            row_metadata: AtomicU8::new(RowMetadata::Full as u8),
            appender,
            filter: RwLock::new(DbFilter::default()),
            inner: Mutex::new(Inner {
                enabled: false,
                file,
                pos,
                index,
                gtids,
                unsynced: VecDeque::new(),
                next_xid: 1,
            }),
            writer: Mutex::new(Writer::default()),
            tail: RwLock::new(Tail::default()),
            written: AtomicU64::new(0),
            acks: Mutex::new(Acks::default()),
            broken: Mutex::new(None),
            is_broken: AtomicBool::new(false),
            visible: Visible::new(file, pos),
            wait_lock: Mutex::new(()),
            waiters: AtomicUsize::new(0),
            moved: Condvar::new(),
            semisync: SemiSync::new(),
            files,
        });
        if enabled {
            log.set_enabled(true)?;
        }
        Ok(log)
    }

    pub fn files_dir(&self) -> &Files {
        &self.files
    }

    /// The primary's semi-sync state (`rpl_semi_sync_master_*`).
    pub fn semisync(&self) -> &Arc<SemiSync> {
        &self.semisync
    }

    /// Remembers a semi-sync wait for the group ending at `lsn` whose last event
    /// ends at `end` of the current file (called under the lock, in log order).
    fn note_semisync(&self, lsn: u64, file: u32, end: u64) {
        if !self.semisync.enabled() {
            return;
        }
        let at = Coord::new(&self.files.name(file), end);
        if self.semisync.logged(&at) {
            self.acks.lock().semisync_waits.insert(lsn, at);
        }
    }

    /// Whether commits are logged (`@@log_bin`).
    pub fn is_on(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    /// `SET GLOBAL log_bin = ON|OFF`. Turning it on starts a new file; GTIDs go on
    /// from the last one logged.
    pub fn set_enabled(&self, on: bool) -> Result<(), StorageError> {
        let mut g = self.inner.lock();
        if g.enabled == on {
            return Ok(());
        }
        if !on {
            g.enabled = false;
            self.on.store(false, Ordering::Relaxed);
            return Ok(());
        }
        let lsn = self.rotate_locked(&mut g)?;
        g.enabled = true;
        self.on.store(true, Ordering::Relaxed);
        drop(g);
        self.finish_standalone(lsn)?;
        self.expire_logs()
    }

    pub fn set_server_id(&self, id: u32) {
        self.server_id.store(id, Ordering::Relaxed);
    }

    pub fn server_id_now(&self) -> u32 {
        self.server_id.load(Ordering::Relaxed)
    }

    pub fn set_max_size(&self, bytes: u64) {
        self.max_size.store(bytes, Ordering::Relaxed);
    }

    /// `binlog_do_db` / `binlog_ignore_db`, for transactions that commit from now on.
    pub fn set_filter(&self, filter: DbFilter) {
        *self.filter.write() = filter;
    }

    pub fn filter(&self) -> DbFilter {
        self.filter.read().clone()
    }

    /// `binlog_expire_logs_seconds` (0: files are never removed by age).
    pub fn set_expire_seconds(&self, secs: u64) {
        self.expire_seconds.store(secs, Ordering::Relaxed);
    }

    /// Removes files last written more than `binlog_expire_logs_seconds` ago (never
    /// the current one), as MariaDB does when it opens a new file.
    pub fn expire_logs(&self) -> Result<(), StorageError> {
        let secs = self.expire_seconds.load(Ordering::Relaxed);
        if secs == 0 {
            return Ok(());
        }
        let cutoff = SystemTime::now()
            .checked_sub(Duration::from_secs(secs))
            .unwrap_or(UNIX_EPOCH);
        let keep_from = self.first_modified_since(cutoff);
        self.purge_before_file(keep_from).map(|_| ())
    }

    /// The first file (of the index) written at or after `t`; the current file when
    /// every older one is older.
    pub fn first_modified_since(&self, t: SystemTime) -> u32 {
        let index = self.file_numbers();
        for n in &index {
            let modified = std::fs::metadata(self.files.path(*n)).and_then(|m| m.modified());
            if modified.map_or(true, |m| m >= t) {
                return *n;
            }
        }
        index.last().copied().unwrap_or(0)
    }

    /// `@@gtid_binlog_state`.
    pub fn gtid_state(&self) -> Vec<Gtid> {
        self.inner.lock().gtids.state().to_vec()
    }

    /// `@@gtid_binlog_pos`.
    pub fn gtid_pos(&self) -> Vec<Gtid> {
        self.inner.lock().gtids.positions()
    }

    /// `BINLOG_GTID_POS(file, pos)`: the last GTID of each domain logged before
    /// offset `pos` of `file`; `None` when the log has no such file or `pos` is not
    /// where an event starts.
    pub fn gtid_pos_at(&self, file: &str, pos: u64) -> Option<Vec<Gtid>> {
        let n = self.file_number(file)?;
        let list = state::scan_file(&self.files, n, Some(pos)).ok()??;
        Some(list.positions())
    }

    /// The current file and the visible end (SHOW MASTER STATUS).
    pub fn status(&self) -> Option<BinlogPos> {
        let v = self.visible_pos();
        (!v.file.is_empty()).then_some(v)
    }

    fn visible_pos(&self) -> BinlogPos {
        let (file, offset) = self.visible.get();
        BinlogPos {
            file: if file > 0 {
                self.files.name(file)
            } else {
                String::new()
            },
            offset,
        }
    }

    /// Starts a new file (FLUSH BINARY LOGS).
    pub fn flush_logs(&self) -> Result<(), StorageError> {
        let mut g = self.inner.lock();
        if !g.enabled {
            return Ok(());
        }
        let lsn = self.rotate_locked(&mut g)?;
        drop(g);
        self.finish_standalone(lsn)?;
        self.expire_logs()
    }

    /// `SET GLOBAL binlog_checksum`: the log moves to a new file whose events carry
    /// CRC32s or not (always a new file, as in MariaDB, also for the same value).
    pub fn set_checksum(&self, on: bool) -> Result<(), StorageError> {
        let mut g = self.inner.lock();
        if !g.enabled {
            self.checksum.store(on, Ordering::Relaxed);
            return Ok(());
        }
        let lsn = self.rotate_with(&mut g, Rotation::Checksum(on))?;
        drop(g);
        self.finish_standalone(lsn)?;
        self.expire_logs()
    }

    /// RESET MASTER [TO first]: removes every file and starts again at
    /// `basename.<first>` (1 by default) with an empty GTID state.
    pub fn reset(&self, first: u32) -> Result<(), StorageError> {
        let first = first.max(1);
        let mut g = self.inner.lock();
        g.gtids = GtidList::default();
        let lsn = self.rotate_with(&mut g, Rotation::Reset(first))?;
        self.visible.reset(first, 0);
        drop(g);
        self.semisync.reset_master();
        self.finish_standalone(lsn)
    }

    /// Logs a statement of its own (DDL) as GTID + QUERY; returns once durable (and,
    /// under semi-sync, acknowledged, or `killed` set: the session's interrupt flag).
    pub fn log_statement(
        &self,
        session: &BinlogSession,
        db: &str,
        sql: &str,
        when: u32,
        killed: Option<&AtomicBool>,
    ) -> Result<(), StorageError> {
        if !self.filter.read().logs(db) {
            return Ok(());
        }
        let mut g = self.inner.lock();
        if !g.enabled {
            return Ok(());
        }
        self.check_broken()?;
        let gtid = next_gtid(&g, session);
        let mut w = self.writer_for(g.pos, session);
        w.gtid(when, gtid, GtidFlags::ddl());
        w.query(when, &encode::query(session, db, sql));
        let (file, end) = (g.file, w.pos());
        let appender = self.appender.clone();
        let lsn = self.write_group(&mut g, w, gtid, &mut |b| appender.append(b))?;
        self.note_semisync(lsn, file, end);
        drop(g);
        self.appender.wait_durable(lsn)?;
        self.ack(lsn, killed)
    }

    /// Waits for a group of its own to be durable, then makes it visible.
    fn finish_standalone(&self, lsn: u64) -> Result<(), StorageError> {
        self.appender.wait_durable(lsn)?;
        self.ack(lsn, None)
    }

    /// The writer of a session's group: a replicated transaction's events carry
    /// the primary's server id, as MariaDB's `log_slave_updates` writes them.
    fn writer_for(&self, start: u64, session: &BinlogSession) -> EventWriter {
        let mut w = self.writer(start);
        if session.gtid_seq_no != 0 {
            w.set_server_id(session.server_id);
        }
        w
    }

    fn writer(&self, start: u64) -> EventWriter {
        let mut w = EventWriter::new(
            start,
            self.server_id.load(Ordering::Relaxed),
            self.checksum.load(Ordering::Relaxed),
        );
        w.set_row_metadata(match self.row_metadata.load(Ordering::Relaxed) {
            0 => RowMetadata::NoLog,
            1 => RowMetadata::Minimal,
            _ => RowMetadata::Full,
        });
        w
    }

    /// `SET GLOBAL binlog_row_metadata`: for TABLE_MAP events logged from now on.
    pub fn set_row_metadata(&self, level: RowMetadata) {
        self.row_metadata.store(level as u8, Ordering::Relaxed);
    }

    /// The events that open file `n`: magic, FORMAT_DESCRIPTION, GTID_LIST,
    /// BINLOG_CHECKPOINT.
    fn header_chunk(&self, n: u32, gtids: &GtidList) -> Chunk {
        let ts = now();
        let mut w = self.writer(4);
        // The first file of a run carries its creation time: a replica that sees
        // it knows the primary restarted.
        let first = !self.opened_one.swap(true, Ordering::Relaxed);
        let created = if first { ts } else { 0 };
        w.format_description_with(ts, &self.server_version, created, false);
        w.gtid_list(ts, gtids.state());
        w.binlog_checkpoint(ts, &self.files.name(n));
        let mut bytes = BINLOG_MAGIC.to_vec();
        bytes.extend_from_slice(w.bytes());
        Chunk {
            file: n,
            offset: 0,
            bytes,
        }
    }

    /// Closes the current file with a ROTATE and opens the next one; returns the end
    /// LSN of the group that logged it.
    fn rotate_locked(&self, g: &mut Inner) -> Result<u64, StorageError> {
        self.rotate_with(g, Rotation::Next)
    }

    fn rotate_with(&self, g: &mut Inner, how: Rotation) -> Result<u64, StorageError> {
        self.check_broken()?;
        let reset = matches!(how, Rotation::Reset(_));
        let next = match how {
            Rotation::Reset(first) => first,
            _ => g.file + 1,
        };
        let mut group = Group {
            flags: if reset { RESET } else { 0 },
            chunks: Vec::new(),
        };
        if !reset && g.file > 0 && g.pos > 4 {
            // The ROTATE is the old file's last event: in its checksum setting.
            let mut w = self.writer(g.pos);
            w.rotate(now(), &self.files.name(next), 4);
            group.chunks.push(Chunk {
                file: g.file,
                offset: g.pos,
                bytes: w.into_bytes(),
            });
        }
        let old_checksum = self.checksum.load(Ordering::Relaxed);
        if let Rotation::Checksum(on) = how {
            self.checksum.store(on, Ordering::Relaxed);
        }
        group.chunks.push(self.header_chunk(next, &g.gtids));
        let lsn = match self.appender.append(&group.encode()) {
            Ok(lsn) => lsn,
            Err(e) => {
                self.checksum.store(old_checksum, Ordering::Relaxed);
                return Err(e);
            }
        };
        if reset {
            // The old files go only once the reset is in the log: a crash before
            // that leaves them, and recovery never sees a reset it cannot redo.
            self.appender.wait_durable(lsn)?;
            self.remove_all(g)?;
        }
        self.push_group(g, group, lsn)?;
        Ok(lsn)
    }

    /// Removes every file and forgets what was to be written to them; groups not
    /// yet visible never will be (their files are gone).
    fn remove_all(&self, g: &mut Inner) -> Result<(), StorageError> {
        let mut w = self.writer.lock();
        w.forget();
        self.tail.write().clear();
        self.written
            .store(self.tail.read().written_seq(), Ordering::Release);
        self.acks.lock().unacked.clear();
        g.unsynced.clear();
        let present = self.files.present().map_err(|e| io_err("list", e))?;
        for n in present.iter().chain(g.index.iter()) {
            self.files.remove(*n).map_err(|e| io_err("remove", e))?;
        }
        g.index.clear();
        g.file = 0;
        g.pos = 0;
        self.files.write_index(&[]).map_err(|e| io_err("index", e))
    }

    /// Queues a logged group's chunks for the files (see [`tail`]) and records
    /// where it ends; a chunk for a new file enters that file in the index first.
    fn push_group(&self, g: &mut Inner, group: Group, lsn: u64) -> Result<(), StorageError> {
        let mut seq = 0;
        for c in group.chunks {
            if c.file != g.file {
                self.enter_file(g, c.file)?;
            }
            g.pos = c.offset + c.bytes.len() as u64;
            seq = self.tail.write().push(TailChunk {
                file: c.file,
                offset: c.offset,
                bytes: c.bytes.into(),
            });
        }
        let w = Written {
            lsn,
            file: g.file,
            end: g.pos,
            seq,
        };
        self.acks.lock().unacked.push_back(w);
        g.unsynced.push_back(w);
        Ok(())
    }

    /// Makes file `n` the current one, listing it in the index.
    fn enter_file(&self, g: &mut Inner, n: u32) -> Result<(), StorageError> {
        g.file = n;
        if !g.index.contains(&n) {
            g.index.push(n);
            if let Err(e) = self.files.write_index(&g.index) {
                return Err(self.fail(e));
            }
        }
        Ok(())
    }

    fn fail(&self, e: std::io::Error) -> StorageError {
        let msg = format!("binary log write failed: {e}");
        tracing::error!("{msg}; the log keeps the events, a restart writes them");
        *self.broken.lock() = Some(msg.clone());
        self.is_broken.store(true, Ordering::Release);
        StorageError::Invalid(msg)
    }

    fn check_broken(&self) -> Result<(), StorageError> {
        if !self.is_broken.load(Ordering::Acquire) {
            return Ok(());
        }
        let msg = self.broken.lock().clone().unwrap_or_default();
        Err(StorageError::Invalid(msg))
    }

    /// Logs the events in `w` (a GTID's group) through `append`, writes them, and
    /// rotates when the file grew past `max_binlog_size`.
    fn write_group(
        &self,
        g: &mut Inner,
        mut w: EventWriter,
        gtid: Gtid,
        append: &mut dyn FnMut(&[u8]) -> Result<u64, StorageError>,
    ) -> Result<u64, StorageError> {
        let mut gtids = g.gtids.clone();
        gtids.record(gtid);
        let mut group = Group::default();
        let rotate = w.pos() >= self.max_size.load(Ordering::Relaxed);
        let next = g.file + 1;
        if rotate {
            w.rotate(now(), &self.files.name(next), 4);
        }
        group.chunks.push(Chunk {
            file: g.file,
            offset: g.pos,
            bytes: w.into_bytes(),
        });
        if rotate {
            group.chunks.push(self.header_chunk(next, &gtids));
        }
        let lsn = append(&group.encode())?;
        g.gtids = gtids;
        // The commit is in the log: a failed index write only stops later commits.
        if let Err(e) = self.push_group(g, group, lsn) {
            tracing::warn!(error = %e, "binlog index write failed after the commit was logged");
        }
        Ok(lsn)
    }

    /// Purges files before `n` (PURGE BINARY LOGS TO): the active file stays.
    pub fn purge_before_file(&self, n: u32) -> Result<Vec<String>, StorageError> {
        let mut g = self.inner.lock();
        // Nothing still queued may go to a file removed here.
        self.write_all()?;
        let keep_from = n.min(g.file);
        let gone: Vec<u32> = g.index.iter().copied().filter(|f| *f < keep_from).collect();
        g.index.retain(|f| *f >= keep_from);
        let index = g.index.clone();
        self.files
            .write_index(&index)
            .map_err(|e| io_err("index", e))?;
        for f in &gone {
            self.files.remove(*f).map_err(|e| io_err("remove", e))?;
        }
        Ok(gone.iter().map(|f| self.files.name(*f)).collect())
    }

    /// The file number of a file name this log uses and still has.
    pub fn file_number(&self, name: &str) -> Option<u32> {
        let n = self.files.number(name)?;
        self.inner.lock().index.contains(&n).then_some(n)
    }

    /// The file numbers the index lists, oldest first.
    pub fn file_numbers(&self) -> Vec<u32> {
        self.inner.lock().index.clone()
    }
}

fn next_gtid(g: &Inner, session: &BinlogSession) -> Gtid {
    let seq = match session.gtid_seq_no {
        0 => g.gtids.last_seq(session.domain_id) + 1,
        kept => kept,
    };
    Gtid {
        domain: session.domain_id,
        server: session.server_id,
        seq,
    }
}

impl BinlogSink for Binlog {
    fn commit(
        &self,
        capture: &Capture,
        append: &mut dyn FnMut(&[u8]) -> Result<u64, StorageError>,
    ) -> Result<u64, StorageError> {
        let filter = self.filter.read().clone();
        let mut g = self.inner.lock();
        if !g.enabled || !encode::logs_any(capture, &filter) {
            return append(&[]);
        }
        self.check_broken()?;
        let gtid = next_gtid(&g, &capture.session);
        let xid = g.next_xid;
        g.next_xid += 1;
        let mut w = self.writer_for(g.pos, &capture.session);
        encode::transaction(&mut w, capture, (gtid, xid), now(), &filter);
        let (file, end) = (g.file, w.pos());
        let lsn = self.write_group(&mut g, w, gtid, append)?;
        self.note_semisync(lsn, file, end);
        let rotated = g.file != file;
        drop(g);
        if rotated {
            if let Err(e) = self.expire_logs() {
                tracing::warn!(error = %e, "removing expired binlog files failed");
            }
        }
        Ok(lsn)
    }

    fn acknowledged(&self, lsn: u64) {
        self.acknowledged_killable(lsn, None);
    }

    fn acknowledged_killable(&self, lsn: u64, killed: Option<&AtomicBool>) {
        if let Err(e) = self.ack(lsn, killed) {
            tracing::warn!(error = %e, "binlog events of a durable commit not written to the files");
        }
    }

    fn sync(&self, durable_lsn: u64) -> Result<(), StorageError> {
        self.sync_files(durable_lsn)
    }
}

impl DumpSource for Binlog {
    fn dir(&self) -> PathBuf {
        self.files.dir().to_path_buf()
    }

    fn files(&self) -> Vec<LogFile> {
        let index = self.inner.lock().index.clone();
        let end = self.visible_pos();
        let last = self.files.number(&end.file);
        index
            .into_iter()
            .filter(|n| last.is_none_or(|l| *n <= l))
            .map(|n| LogFile {
                name: self.files.name(n),
                size: if Some(n) == last {
                    end.offset
                } else {
                    self.files.size(n)
                },
            })
            .collect()
    }

    fn end(&self) -> BinlogPos {
        self.visible_pos()
    }

    fn wait_past(&self, seen: &BinlogPos, timeout: Duration) -> BinlogPos {
        if self.visible_pos() == *seen {
            let mut g = self.wait_lock.lock();
            self.waiters.fetch_add(1, Ordering::SeqCst);
            // Checked again under the lock: a publish in between notifies after it.
            if self.visible_pos() == *seen {
                self.moved.wait_for(&mut g, timeout);
            }
            self.waiters.fetch_sub(1, Ordering::SeqCst);
        }
        self.visible_pos()
    }

    fn cached(&self, file: &str, pos: u64) -> Option<(u64, Arc<[u8]>)> {
        let n = self.files.number(file)?;
        self.tail.read().find(n, pos)
    }

    fn server_id(&self) -> u32 {
        self.server_id.load(Ordering::Relaxed)
    }

    fn checksum(&self) -> bool {
        self.checksum.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests;
