//! The durable engine: table files of B+trees in a shared buffer pool, one WAL for
//! every change, checkpoints and crash recovery.
//!
//! # Logging and recovery (ARIES-lite, logical records)
//! Every change to a tree made by a transaction is logged as a CHANGE record with its
//! before- and after-image (`record`); a transaction's COMMIT record is made durable
//! (group commit) before the commit is acknowledged or becomes visible. Table files
//! are shadow-paged (`pool`): a checkpoint of a file writes its dirty pages to fresh
//! slots and then its meta page, so the file on disk is always exactly its image at
//! its last checkpoint cut LSN, and a torn page write can only hit a slot that no
//! checkpoint refers to (torn-page protection by construction: no doublewrite buffer
//! and no full-page images).
//!
//! Recovery: open every table file at its last checkpoint; read the log from the
//! retention point; redo each CHANGE whose record starts at or after its file's cut;
//! then undo, newest first, every change of transactions that have neither COMMIT nor
//! ABORT (their before-images), whatever file cut they fall on; checkpoint everything.
//!
//! # Checkpoints and log retention
//! The checkpointer (a background thread) writes a CHECKPOINT record (the next
//! transaction id), checkpoints each table file, and lets the log recycle everything
//! before the oldest of: that record, and the first record of every transaction still
//! active (their changes may have to be undone by a later recovery). It runs every
//! few seconds, and as soon as enough log has accumulated since the last one, which
//! bounds recovery time.

pub mod record;
mod recovery;
mod store;

use crate::api::Result;
use crate::binlog::{BinlogSink, Capture, LogAppend};
use crate::btree::TableFile;
use crate::engine::TableEngine;
use crate::error::StorageError;
use crate::io::FileSystem;
use crate::mvcc::TxnManager;
use crate::pool::BufferPool;
use crate::store::Store;
use crate::txn::CommitLog;
use crate::wal::{Wal, WalConfig};
use crate::StorageConfig;
use basalt_common::TableDef;
use parking_lot::{Condvar, Mutex, RwLock};
use record::{
    KIND_ABORT, KIND_BINLOG, KIND_CHECKPOINT, KIND_CLEAN, KIND_COMMIT, KIND_COMMIT_BINLOG,
};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};
pub use store::{BrokenStore, DurableStore};

/// State shared by the engine, its stores and its background thread.
pub struct Shared {
    pub(crate) wal: Wal,
    pool: Arc<BufferPool>,
    fs: Arc<dyn FileSystem>,
    tables_dir: PathBuf,
    /// Where index builds spill sorted runs ([`crate::extsort`]); emptied at start.
    pub(crate) sort_dir: PathBuf,
    files: RwLock<HashMap<u64, TableFile>>,
    /// First-record LSN (at most) of every transaction with logged changes.
    active: Mutex<BTreeMap<u64, u64>>,
    mgr: Mutex<Weak<TxnManager>>,
    stop: AtomicBool,
    wake: Condvar,
    wake_lock: Mutex<()>,
    checkpoints: AtomicU64,
    last_recovery_ms: AtomicU64,
    /// Serialises checkpoints (the background one and those DDL asks for).
    ckpt_lock: Mutex<()>,
    checkpoint_interval: Duration,
    checkpoint_log_bytes: u64,
    /// Tables whose file could not be opened, and why (they answer with the error).
    broken: Mutex<HashMap<u64, StorageError>>,
    /// The binary log, when on (see `crate::binlog`).
    binlog: RwLock<Option<Arc<dyn BinlogSink>>>,
}

impl Shared {
    /// Notes that `txn` is about to log its first change.
    pub(crate) fn txn_started(&self, txn: u64) {
        let lsn = self.wal.end_lsn();
        self.active.lock().entry(txn).or_insert(lsn);
    }

    fn txn_ended(&self, txn: u64) {
        self.active.lock().remove(&txn);
    }

    fn path(&self, table: u64) -> PathBuf {
        self.tables_dir.join(format!("{table}.bdt"))
    }
}

/// The durable engine.
pub struct DurableEngine {
    shared: Arc<Shared>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    previous_stop_clean: bool,
}

impl DurableEngine {
    /// Opens the log and the table files of `tables` (durable ones), recovers, and
    /// returns the engine and the first transaction id to hand out.
    pub fn open(config: &StorageConfig, tables: &[TableDef]) -> Result<(DurableEngine, u64)> {
        let fs = config.fs.clone();
        let tables_dir = config.datadir.join("tables");
        fs.create_dir_all(&tables_dir)?;
        let sort_dir = config.datadir.join("sort");
        let stale = crate::extsort::clear_scratch(&*fs, &sort_dir)?;
        if stale > 0 {
            tracing::info!(
                files = stale,
                "removed sort runs an interrupted index build left"
            );
        }
        let wal_config = WalConfig {
            flush_log_at_trx_commit: config.flush_log_at_trx_commit,
            segment_size: config.log_segment_size,
            allow_corrupt_tail: config.discard_damaged_log_tail,
            ..WalConfig::default()
        };
        let (wal, info) = Wal::open(fs.clone(), &config.datadir.join("log"), wal_config)?;
        if let Some(hook) = &config.on_fatal {
            wal.set_fatal_hook(hook.clone());
        }
        let shared = Arc::new(Shared {
            wal,
            pool: BufferPool::new(config.buffer_pool_size),
            fs,
            tables_dir,
            sort_dir,
            files: RwLock::new(HashMap::new()),
            active: Mutex::new(BTreeMap::new()),
            mgr: Mutex::new(Weak::new()),
            stop: AtomicBool::new(false),
            wake: Condvar::new(),
            wake_lock: Mutex::new(()),
            checkpoints: AtomicU64::new(0),
            last_recovery_ms: AtomicU64::new(0),
            ckpt_lock: Mutex::new(()),
            broken: Mutex::new(HashMap::new()),
            checkpoint_interval: config.checkpoint_interval,
            checkpoint_log_bytes: config.checkpoint_log_bytes,
            binlog: RwLock::new(None),
        });
        let started = Instant::now();
        let found = recovery::recover(
            &shared,
            tables,
            info.checkpoint_lsn,
            config.binlog_recovery.as_ref(),
        )?;
        let ms = started.elapsed().as_millis() as u64;
        shared.last_recovery_ms.store(ms, Ordering::Relaxed);
        tracing::info!(recovery_ms = ms, "durable engine opened");
        Ok((
            DurableEngine {
                shared,
                thread: Mutex::new(None),
                previous_stop_clean: found.clean,
            },
            found.first_trx,
        ))
    }

    /// Whether the previous run stopped cleanly with purge finished; if not, trees may
    /// hold delete-marked entries no purge queue knows of (see `table::sweep`).
    pub fn previous_stop_clean(&self) -> bool {
        self.previous_stop_clean
    }

    /// Starts the checkpointer (it reads the next transaction id from `mgr`).
    pub fn start(&self, mgr: &Arc<TxnManager>) -> Result<()> {
        *self.shared.mgr.lock() = Arc::downgrade(mgr);
        let shared = self.shared.clone();
        let h = std::thread::Builder::new()
            .name("basalt-checkpoint".into())
            .spawn(move || checkpoint_loop(&shared))?;
        *self.thread.lock() = Some(h);
        Ok(())
    }

    /// Installs (or removes) the binary log that commits with captured changes write.
    pub fn set_binlog(&self, sink: Option<Arc<dyn BinlogSink>>) {
        *self.shared.binlog.write() = sink;
    }

    /// Appends binlog groups of their own to the log.
    pub fn log_appender(&self) -> Arc<dyn LogAppend> {
        Arc::new(Appender(self.shared.clone()))
    }

    pub fn commit_log(&self) -> Arc<dyn CommitLog> {
        Arc::new(Committer(self.shared.clone()))
    }

    /// Runs a checkpoint of every table file now.
    pub fn checkpoint(&self) -> Result<()> {
        checkpoint(&self.shared).map(|_| ())
    }

    /// A handle that runs a checkpoint, for background work that wants its result
    /// durable (it does not keep the engine alive beyond its shared state).
    pub fn checkpointer(&self) -> Arc<dyn Fn() -> Result<()> + Send + Sync> {
        let shared = self.shared.clone();
        Arc::new(move || checkpoint(&shared).map(|_| ()))
    }

    pub fn status(&self) -> Vec<(&'static str, u64)> {
        let w = self.shared.wal.stats();
        let p = self.shared.pool.stats();
        let page = crate::page::PAGE_SIZE as u64;
        let data_pages = (p.frames - p.free_frames) as u64;
        vec![
            ("Innodb_os_log_fsyncs", w.fsyncs),
            ("Innodb_log_writes", w.writes),
            // Waits for room in the log buffer: InnoDB's buffer has a fixed size
            // (innodb_log_buffer_size) and a writer waits when it is full. The
            // WAL's buffer (wal/buffer.rs) is a list of pieces that grows: an
            // append only copies into it and never waits for space (it may wait
            // for the next segment to be prepared, which InnoDB counts elsewhere),
            // so this stays 0.
            ("Innodb_log_waits", 0),
            ("Innodb_os_log_written", w.bytes_written),
            ("Basalt_log_commits", w.commits),
            ("Basalt_group_commit_batches", w.batches),
            ("Innodb_buffer_pool_pages_total", p.frames as u64),
            ("Innodb_buffer_pool_pages_free", p.free_frames as u64),
            ("Innodb_buffer_pool_pages_data", data_pages),
            ("Innodb_buffer_pool_pages_dirty", p.dirty_frames as u64),
            ("Innodb_buffer_pool_bytes_data", data_pages * page),
            (
                "Innodb_buffer_pool_bytes_dirty",
                p.dirty_frames as u64 * page,
            ),
            ("Innodb_buffer_pool_reads", p.reads),
            (
                "Innodb_buffer_pool_read_requests",
                crate::pool::requests::total(),
            ),
            ("Innodb_pages_created", p.created),
            ("Innodb_pages_read", p.reads),
            ("Innodb_pages_written", p.writes),
            ("Innodb_buffer_pool_pages_flushed", p.writes),
            ("Innodb_page_size", page),
            ("Innodb_data_reads", p.reads),
            ("Innodb_data_read", p.reads * page),
            ("Innodb_data_writes", p.writes + w.writes),
            ("Innodb_data_written", p.writes * page + w.bytes_written),
            ("Innodb_data_fsyncs", p.fsyncs + w.fsyncs),
            ("Innodb_lsn_current", w.end_lsn),
            ("Innodb_lsn_flushed", w.durable_lsn),
            ("Innodb_lsn_last_checkpoint", w.checkpoint_lsn),
            (
                "Innodb_checkpoint_age",
                w.end_lsn.saturating_sub(w.checkpoint_lsn),
            ),
            ("Basalt_buffer_pool_evictions", p.evictions),
            ("Basalt_buffer_pool_overhead_bytes", p.overhead_bytes as u64),
            (
                "Basalt_checkpoints",
                self.shared.checkpoints.load(Ordering::Relaxed),
            ),
            (
                "Basalt_last_recovery_ms",
                self.shared.last_recovery_ms.load(Ordering::Relaxed),
            ),
            (
                "Basalt_log_bytes_since_checkpoint",
                self.shared.wal.bytes_since_checkpoint(),
            ),
        ]
    }

    /// Final checkpoint and log shutdown; `purge_complete` (no delete-marked garbage
    /// is left) is recorded for the next start, which then need not sweep.
    pub fn shutdown(&self, purge_complete: bool) -> Result<()> {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.wake.notify_all();
        if let Some(h) = self.thread.lock().take() {
            let _ = h.join();
        }
        let mut moved = checkpoint(&self.shared)?;
        // Leave the files compact: pages the checkpoint moved out of a mostly free
        // tail are written by the next one, which then gives the tail back.
        for _ in 0..COMPACT_PASSES {
            if moved == 0 {
                break;
            }
            moved = checkpoint(&self.shared)?;
        }
        if purge_complete {
            self.shared.wal.append(KIND_CLEAN, &[])?;
        }
        self.shared.wal.shutdown()
    }
}

impl TableEngine for DurableEngine {
    fn create_store(&self, def: &TableDef) -> Result<Arc<dyn Store>> {
        let path = self.shared.path(def.id);
        if self.shared.fs.exists(&path) {
            self.shared.fs.remove(&path)?;
        }
        let file = TableFile::create(&self.shared.pool, &*self.shared.fs, &path)?;
        for ix in &def.indexes {
            file.create_tree(ix.id)?;
        }
        {
            let _one = self.shared.ckpt_lock.lock();
            checkpoint_file(&self.shared, &file)?;
        }
        self.shared.fs.sync_dir(&self.shared.tables_dir)?;
        self.shared.files.write().insert(def.id, file.clone());
        Ok(Arc::new(DurableStore::new(
            def.id,
            file,
            self.shared.clone(),
        )))
    }

    fn open_store(&self, def: &TableDef) -> Result<Arc<dyn Store>> {
        if let Some(e) = self.shared.broken.lock().get(&def.id) {
            return Ok(Arc::new(store::BrokenStore::new(e)));
        }
        let file = self
            .shared
            .files
            .read()
            .get(&def.id)
            .cloned()
            .ok_or_else(|| StorageError::Invalid(format!("table file {} not open", def.id)))?;
        Ok(Arc::new(DurableStore::new(
            def.id,
            file,
            self.shared.clone(),
        )))
    }

    fn drop_store(&self, def: &TableDef) -> Result<()> {
        self.shared.files.write().remove(&def.id);
        self.shared.broken.lock().remove(&def.id);
        let path = self.shared.path(def.id);
        if self.shared.fs.exists(&path) {
            self.shared.fs.remove(&path)?;
            self.shared.fs.sync_dir(&self.shared.tables_dir)?;
        }
        Ok(())
    }

    fn truncate_store(&self, def: &TableDef, store: &Arc<dyn Store>) -> Result<()> {
        store.clear()?;
        self.after_ddl(def, store)
    }

    fn after_ddl(&self, def: &TableDef, _store: &Arc<dyn Store>) -> Result<()> {
        let file = self.shared.files.read().get(&def.id).cloned();
        if let Some(file) = file {
            let _one = self.shared.ckpt_lock.lock();
            checkpoint_file(&self.shared, &file)?;
        }
        Ok(())
    }
}

impl Drop for DurableEngine {
    /// Stops the checkpointer without a final checkpoint (a clean stop goes through
    /// [`DurableEngine::shutdown`] first).
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.wake.notify_all();
        if let Some(h) = self.thread.lock().take() {
            let _ = h.join();
        }
    }
}

struct Committer(Arc<Shared>);

impl CommitLog for Committer {
    fn commit(&self, txn_id: u64) -> Result<u64> {
        // On failure the transaction rolls back, logging more of its records, and
        // stays active for the checkpointer until its abort record.
        let lsn = self.0.wal.append(KIND_COMMIT, &txn_id.to_le_bytes())?;
        self.0.txn_ended(txn_id);
        Ok(lsn)
    }

    fn wait_commit(&self, lsn: u64) -> Result<()> {
        self.0.wal.commit_durable(lsn)
    }

    fn abort(&self, txn_id: u64) -> Result<()> {
        let r = self
            .0
            .wal
            .append(KIND_ABORT, &txn_id.to_le_bytes())
            .map(|_| ());
        self.0.txn_ended(txn_id);
        r
    }

    fn commit_binlog(&self, txn_id: u64, logged: bool, capture: &Capture) -> Result<u64> {
        let sink = self.0.binlog.read().clone();
        let Some(sink) = sink else {
            return if logged { self.commit(txn_id) } else { Ok(0) };
        };
        let wal = &self.0.wal;
        let id = txn_id.to_le_bytes();
        let lsn = sink.commit(capture, &mut |group| {
            if logged {
                wal.append_parts(KIND_COMMIT_BINLOG, &[&id, group])
            } else {
                wal.append(KIND_BINLOG, group)
            }
        })?;
        if logged {
            self.0.txn_ended(txn_id);
        }
        Ok(lsn)
    }

    fn binlog_acknowledged(&self, pos: u64, killed: Option<&AtomicBool>) {
        if let Some(sink) = self.0.binlog.read().as_ref() {
            sink.acknowledged_killable(pos, killed);
        }
    }
}

/// Appends binlog groups of their own.
struct Appender(Arc<Shared>);

impl LogAppend for Appender {
    fn append(&self, group: &[u8]) -> Result<u64> {
        self.0.wal.append(KIND_BINLOG, group)
    }

    fn wait_durable(&self, lsn: u64) -> Result<()> {
        self.0.wal.wait_durable(lsn)
    }

    fn durable_lsn(&self) -> u64 {
        self.0.wal.durable_lsn()
    }
}

/// Checkpoints a clean stop (and recovery) runs at most to give a file's free tail
/// back: each writes the pages the previous one moved out of the tail.
const COMPACT_PASSES: usize = 4;

/// Checkpoints every table file and releases the log before the retention point;
/// returns how many pages were marked for moving out of free file tails.
fn checkpoint(shared: &Shared) -> Result<usize> {
    let _one = shared.ckpt_lock.lock();
    let start = shared.wal.end_lsn();
    let next_id = shared.mgr.lock().upgrade().map_or(0, |m| m.next_id());
    shared.wal.append(KIND_CHECKPOINT, &next_id.to_le_bytes())?;
    let files: Vec<TableFile> = shared.files.read().values().cloned().collect();
    let mut moved = 0;
    for f in files {
        moved += checkpoint_file(shared, &f)?;
    }
    let oldest_active = shared.active.lock().values().copied().min();
    let retain = oldest_active.map_or(start, |a| a.min(start));
    let sink = shared.binlog.read().clone();
    if let Some(sink) = sink {
        // The binlog files must hold every group the released log had.
        shared.wal.wait_durable(start)?;
        sink.sync(shared.wal.durable_lsn())?;
    }
    shared.wal.checkpoint_done(retain)?;
    shared.checkpoints.fetch_add(1, Ordering::Relaxed);
    Ok(moved)
}

/// Checkpoints one file. The log up to the cut is made durable before the file's new
/// image can become current (write-ahead rule: no durable page may hold a change whose
/// record could still be lost). Returns how many pages it marked for moving out of
/// the file's free tail (the next checkpoint writes them low and shrinks the file).
pub(crate) fn checkpoint_file(shared: &Shared, file: &TableFile) -> Result<usize> {
    let cut = file.begin_cut(|| shared.wal.end_lsn())?;
    shared.wal.wait_durable(cut.lsn())?;
    file.flush_cut(cut)?;
    file.pages().relocate_tail()
}

fn checkpoint_loop(shared: &Shared) {
    let mut last = Instant::now();
    while !shared.stop.load(Ordering::SeqCst) {
        {
            let mut g = shared.wake_lock.lock();
            shared.wake.wait_for(&mut g, Duration::from_millis(200));
        }
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let st = shared.pool.stats();
        if st.dirty_frames * 4 > st.frames {
            if let Err(e) = shared.pool.flush_dirty(256) {
                tracing::warn!(error = %e, "background page flush failed");
            }
        }
        let due = last.elapsed() >= shared.checkpoint_interval
            || shared.wal.bytes_since_checkpoint() >= shared.checkpoint_log_bytes;
        if due {
            match checkpoint(shared) {
                Ok(_) => last = Instant::now(),
                Err(e) => tracing::warn!(error = %e, "checkpoint failed; will retry"),
            }
        }
    }
}

/// Table ids of the table files present in `dir`.
fn table_files(fs: &dyn FileSystem, dir: &Path) -> Result<Vec<(u64, PathBuf)>> {
    Ok(fs
        .list_dir(dir)?
        .into_iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            let id = name.strip_suffix(".bdt")?.parse().ok()?;
            Some((id, p))
        })
        .collect())
}
