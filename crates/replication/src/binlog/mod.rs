//! The binary log: files derived from the WAL (see `basalt_storage::binlog` for how a
//! commit's events ride in its commit record and how the files are recovered).
//!
//! One mutex ([`Binlog::inner`]) orders everything that writes the files: a commit
//! takes it, assigns the GTID, encodes the events at the file position they will
//! occupy, appends them to the WAL through the closure storage passes, and writes
//! them into the file (no fsync). The WAL append inside the lock makes log order
//! equal binlog order. A dump client sees a group once its commit was acknowledged
//! ([`Binlog::acknowledged`] moves the visible end); checkpoints fsync the files
//! ([`Binlog::sync`]) and record the sync point recovery starts from.
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
//!    dump never sends a transaction that a crash could take back.
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

pub use files::Files;
pub use filter::DbFilter;
pub use recover::recover;

use crate::event::{EventWriter, GtidFlags, BINLOG_MAGIC};
use crate::gtid::{Gtid, GtidList};
use crate::semisync::{Coord, SemiSync};
use crate::source::{BinlogPos, DumpSource, LogFile};
use basalt_storage::binlog::{BinlogSession, BinlogSink, Capture, LogAppend};
use basalt_storage::StorageError;
use group::{Chunk, Group, RESET};
use parking_lot::{Condvar, Mutex};
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

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

/// A group written to the files whose commit is not acknowledged or not synced.
#[derive(Clone, Copy, Debug)]
struct Written {
    lsn: u64,
    file: u32,
    end: u64,
}

struct Inner {
    enabled: bool,
    /// Current file number (0: none yet) and the offset after its last event.
    file: u32,
    pos: u64,
    handle: Option<File>,
    index: Vec<u32>,
    gtids: GtidList,
    unacked: VecDeque<Written>,
    unsynced: VecDeque<Written>,
    /// Files written since the last sync.
    dirty: Vec<u32>,
    /// Set when a file write failed: the WAL keeps the events, a restart rewrites
    /// them; until then commits that would log fail.
    broken: Option<String>,
    next_xid: u64,
    /// Semi-sync waits to do once acknowledged: group end LSN -> where its last
    /// event ends.
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
    appender: Arc<dyn LogAppend>,
    /// `binlog_do_db` / `binlog_ignore_db`.
    filter: parking_lot::RwLock<DbFilter>,
    inner: Mutex<Inner>,
    visible: Mutex<BinlogPos>,
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
        let gtids = state::scan(&files, &index, config.checksum)?;
        let log = Arc::new(Binlog {
            on: AtomicBool::new(false),
            opened_one: AtomicBool::new(false),
            server_version: config.server_version.clone(),
            server_id: AtomicU32::new(config.server_id),
            max_size: AtomicU64::new(config.max_size),
            expire_seconds: AtomicU64::new(config.expire_seconds),
            checksum: AtomicBool::new(config.checksum),
            appender,
            filter: parking_lot::RwLock::new(DbFilter::default()),
            inner: Mutex::new(Inner {
                enabled: false,
                file,
                pos,
                handle: None,
                index,
                gtids,
                unacked: VecDeque::new(),
                unsynced: VecDeque::new(),
                dirty: Vec::new(),
                broken: None,
                next_xid: 1,
                semisync_waits: HashMap::new(),
            }),
            visible: Mutex::new(BinlogPos {
                file: if file > 0 {
                    files.name(file)
                } else {
                    String::new()
                },
                offset: pos,
            }),
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
    fn note_semisync(&self, g: &mut Inner, lsn: u64, file: u32, end: u64) {
        if !self.semisync.enabled() {
            return;
        }
        let at = Coord::new(&self.files.name(file), end);
        if self.semisync.logged(&at) {
            g.semisync_waits.insert(lsn, at);
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
        let lsn = self.rotate_locked(&mut g, false)?;
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
        let checksum = self.checksum.load(Ordering::Relaxed);
        let list = state::scan_file(&self.files, n, checksum, Some(pos)).ok()??;
        Some(list.positions())
    }

    /// The current file and the visible end (SHOW MASTER STATUS).
    pub fn status(&self) -> Option<BinlogPos> {
        let v = self.visible.lock().clone();
        (!v.file.is_empty()).then_some(v)
    }

    /// Starts a new file (FLUSH BINARY LOGS).
    pub fn flush_logs(&self) -> Result<(), StorageError> {
        let mut g = self.inner.lock();
        if !g.enabled {
            return Ok(());
        }
        let lsn = self.rotate_locked(&mut g, false)?;
        drop(g);
        self.finish_standalone(lsn)?;
        self.expire_logs()
    }

    /// RESET MASTER: removes every file and starts again at `basename.000001` with an
    /// empty GTID state.
    pub fn reset(&self) -> Result<(), StorageError> {
        let mut g = self.inner.lock();
        g.gtids = GtidList::default();
        let lsn = self.rotate_locked(&mut g, true)?;
        *self.visible.lock() = BinlogPos {
            file: self.files.name(1),
            offset: 0,
        };
        drop(g);
        self.semisync.reset_master();
        self.finish_standalone(lsn)
    }

    /// Logs a statement of its own (DDL) as GTID + QUERY; returns once durable.
    pub fn log_statement(
        &self,
        session: &BinlogSession,
        db: &str,
        sql: &str,
        when: u32,
    ) -> Result<(), StorageError> {
        if !self.filter.read().logs(db) {
            return Ok(());
        }
        let mut g = self.inner.lock();
        if !g.enabled {
            return Ok(());
        }
        check_broken(&g)?;
        let gtid = next_gtid(&g, session);
        let mut w = self.writer(g.pos);
        w.gtid(when, gtid, GtidFlags::ddl());
        w.query(when, &encode::query(session, db, sql));
        let (file, end) = (g.file, w.pos());
        let appender = self.appender.clone();
        let lsn = self.write_group(&mut g, w, gtid, &mut |b| appender.append(b))?;
        self.note_semisync(&mut g, lsn, file, end);
        drop(g);
        self.finish_standalone(lsn)
    }

    /// Waits for a group of its own to be durable, then makes it visible.
    fn finish_standalone(&self, lsn: u64) -> Result<(), StorageError> {
        self.appender.wait_durable(lsn)?;
        self.acknowledged(lsn);
        Ok(())
    }

    fn writer(&self, start: u64) -> EventWriter {
        EventWriter::new(
            start,
            self.server_id.load(Ordering::Relaxed),
            self.checksum.load(Ordering::Relaxed),
        )
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

    /// Closes the current file with a ROTATE (unless `reset`) and opens the next one;
    /// returns the end LSN of the group that logged it.
    fn rotate_locked(&self, g: &mut Inner, reset: bool) -> Result<u64, StorageError> {
        check_broken(g)?;
        let next = if reset { 1 } else { g.file + 1 };
        let mut group = Group {
            flags: if reset { RESET } else { 0 },
            chunks: Vec::new(),
        };
        if !reset && g.file > 0 && g.pos > 4 {
            let mut w = self.writer(g.pos);
            w.rotate(now(), &self.files.name(next), 4);
            group.chunks.push(Chunk {
                file: g.file,
                offset: g.pos,
                bytes: w.into_bytes(),
            });
        }
        group.chunks.push(self.header_chunk(next, &g.gtids));
        let lsn = self.appender.append(&group.encode())?;
        if reset {
            // The old files go only once the reset is in the log: a crash before
            // that leaves them, and recovery never sees a reset it cannot redo.
            self.appender.wait_durable(lsn)?;
            self.remove_all(g)?;
        }
        self.apply(g, &group, lsn)?;
        Ok(lsn)
    }

    fn remove_all(&self, g: &mut Inner) -> Result<(), StorageError> {
        let present = self.files.present().map_err(|e| io_err("list", e))?;
        for n in present.iter().chain(g.index.iter()) {
            self.files.remove(*n).map_err(|e| io_err("remove", e))?;
        }
        g.index.clear();
        g.dirty.clear();
        g.handle = None;
        g.file = 0;
        g.pos = 0;
        self.files.write_index(&[]).map_err(|e| io_err("index", e))
    }

    /// Writes a logged group's chunks into the files and records where it ends.
    fn apply(&self, g: &mut Inner, group: &Group, lsn: u64) -> Result<(), StorageError> {
        for c in &group.chunks {
            if c.file != g.file || g.handle.is_none() {
                g.handle = Some(self.files.open(c.file).map_err(|e| self.fail(g, e))?);
                g.file = c.file;
                if !g.index.contains(&c.file) {
                    g.index.push(c.file);
                    let index = g.index.clone();
                    self.files
                        .write_index(&index)
                        .map_err(|e| self.fail(g, e))?;
                }
            }
            let f = g.handle.as_ref().expect("opened above");
            write_chunk(f, c).map_err(|e| self.fail(g, e))?;
            g.pos = c.offset + c.bytes.len() as u64;
            if !g.dirty.contains(&c.file) {
                g.dirty.push(c.file);
            }
        }
        let w = Written {
            lsn,
            file: g.file,
            end: g.pos,
        };
        g.unacked.push_back(w);
        g.unsynced.push_back(w);
        Ok(())
    }

    fn fail(&self, g: &mut Inner, e: std::io::Error) -> StorageError {
        let msg = format!("binary log write failed: {e}");
        tracing::error!("{msg}; the log keeps the events, a restart writes them");
        g.broken = Some(msg.clone());
        StorageError::Invalid(msg)
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
        // The commit is in the log: a failed file write only stops later commits.
        if let Err(e) = self.apply(g, &group, lsn) {
            tracing::warn!(error = %e, "binlog file write failed after the commit was logged");
        }
        Ok(lsn)
    }

    /// Purges files before `n` (PURGE BINARY LOGS TO): the active file stays.
    pub fn purge_before_file(&self, n: u32) -> Result<Vec<String>, StorageError> {
        let mut g = self.inner.lock();
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

/// Writes one chunk at its place in its (open) file. Tests make it fail as a full
/// disk does ([`fault::fail_next_write`]); outside tests it is the write alone.
fn write_chunk(f: &File, c: &Chunk) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    #[cfg(test)]
    if let Some(n) = fault::take_write_fault() {
        f.write_all_at(&c.bytes[..n.min(c.bytes.len())], c.offset)?;
        return Err(std::io::Error::from_raw_os_error(28)); // ENOSPC
    }
    f.write_all_at(&c.bytes, c.offset)
}

fn check_broken(g: &Inner) -> Result<(), StorageError> {
    match &g.broken {
        Some(msg) => Err(StorageError::Invalid(msg.clone())),
        None => Ok(()),
    }
}

fn next_gtid(g: &Inner, session: &BinlogSession) -> Gtid {
    Gtid {
        domain: session.domain_id,
        server: session.server_id,
        seq: g.gtids.last_seq(session.domain_id) + 1,
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
        check_broken(&g)?;
        let gtid = next_gtid(&g, &capture.session);
        let xid = g.next_xid;
        g.next_xid += 1;
        let mut w = self.writer(g.pos);
        encode::transaction(&mut w, capture, (gtid, xid), now(), &filter);
        let (file, end) = (g.file, w.pos());
        let lsn = self.write_group(&mut g, w, gtid, append)?;
        self.note_semisync(&mut g, lsn, file, end);
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
        let mut last = None;
        let semisync_wait;
        {
            let mut g = self.inner.lock();
            while g.unacked.front().is_some_and(|w| w.lsn <= lsn) {
                last = g.unacked.pop_front();
            }
            semisync_wait = g.semisync_waits.remove(&lsn);
        }
        if let Some(w) = last {
            let mut v = self.visible.lock();
            let name = self.files.name(w.file);
            if (self.files.number(&v.file).unwrap_or(0), v.offset) < (w.file, w.end) {
                *v = BinlogPos {
                    file: name,
                    offset: w.end,
                };
            }
            drop(v);
            self.moved.notify_all();
        }
        // Visible first, so a dump can send what the wait is for.
        if let Some(at) = semisync_wait {
            self.semisync.commit_wait_killable(&at, killed);
        }
    }

    fn sync(&self, durable_lsn: u64) -> Result<(), StorageError> {
        let mut g = self.inner.lock();
        let mut point = None;
        while g.unsynced.front().is_some_and(|w| w.lsn <= durable_lsn) {
            point = g.unsynced.pop_front();
        }
        let Some(p) = point else {
            return Ok(());
        };
        for n in std::mem::take(&mut g.dirty) {
            let f = self.files.open(n).map_err(|e| io_err("open", e))?;
            f.sync_data().map_err(|e| io_err("fsync", e))?;
            files::drop_cache(&f, 0, 0);
        }
        self.files
            .write_sync(files::SyncPoint {
                file: p.file,
                end: p.end,
                lsn: p.lsn,
            })
            .map_err(|e| io_err("sync point", e))
    }
}

impl DumpSource for Binlog {
    fn dir(&self) -> PathBuf {
        self.files.dir().to_path_buf()
    }

    fn files(&self) -> Vec<LogFile> {
        let index = self.inner.lock().index.clone();
        let end = self.visible.lock().clone();
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
        self.visible.lock().clone()
    }

    fn wait_past(&self, seen: &BinlogPos, timeout: Duration) -> BinlogPos {
        let mut v = self.visible.lock();
        if *v == *seen {
            self.moved.wait_for(&mut v, timeout);
        }
        v.clone()
    }

    fn server_id(&self) -> u32 {
        self.server_id.load(Ordering::Relaxed)
    }

    fn checksum(&self) -> bool {
        self.checksum.load(Ordering::Relaxed)
    }
}
