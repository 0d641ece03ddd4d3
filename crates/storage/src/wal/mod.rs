//! The write-ahead log: opaque records, group commit, recycled segments.
//!
//! The table layer appends logical records (each an opaque payload plus a one-byte
//! kind) with [`Wal::append`], which only copies into memory and returns the
//! record's end LSN; [`Wal::commit_durable`] returns once the log up to that LSN is
//! durable as `flush_log_at_trx_commit` asks (1: fsynced; 2: written to the OS, and
//! fsynced by a background thread once a second; 0: both once a second). Recovery
//! reads records back with [`Wal::read_from`] from the last checkpoint.
//!
//! ```
//! # use basalt_storage::io::{sim::SimFileSystem, FileSystem};
//! # use basalt_storage::wal::{Wal, WalConfig};
//! # use std::{path::Path, sync::Arc};
//! # let fs: Arc<dyn FileSystem> = Arc::new(SimFileSystem::new(1));
//! let config = WalConfig { segment_size: 1 << 20, ..WalConfig::default() };
//! let (wal, recovery) = Wal::open(fs.clone(), Path::new("/data/log"), config.clone())?;
//! for record in wal.read_from(recovery.checkpoint_lsn) {
//!     let record = record?; // redo `record.payload` (kind `record.kind`)
//! }
//! wal.append(1, b"change: table 7, key, before, after")?;
//! let end = wal.append(2, b"commit txn 42")?;
//! wal.commit_durable(end)?; // acknowledged: survives a crash from here on
//! wal.checkpoint_done(end)?; // once data pages up to `end` are on disk
//! wal.shutdown()?;
//! # Ok::<(), basalt_storage::StorageError>(())
//! ```
//!
//! # LSNs and segments
//! An LSN is a byte position in the log stream. The stream is cut into segments of
//! `D = segment_size - 4096` bytes: segment number `seq` holds LSNs
//! `[seq * D, (seq + 1) * D)`, stored at file offset `4096 + (lsn - seq * D)` of the
//! segment file holding that `seq`. Segment files (`wal-NNNNNN.seg` in the log
//! directory, by convention `datadir/log/`) are preallocated to `segment_size`,
//! zero-filled once, and recycled once a checkpoint has passed them, so a commit's
//! fsync overwrites written blocks instead of growing a file or converting
//! unwritten extents. Blocks are 4 KiB; files use O_DIRECT where the filesystem
//! allows it, otherwise buffered I/O with finished segments dropped from the cache.
//!
//! # On-disk format (version [`FORMAT_VERSION`], little-endian)
//! - Segment file: block 0 is the header (magic `BSLTWALS`, version, seq, size,
//!   crc32c; see `format.rs` for offsets); the rest is log data.
//! - Frame (one record), 8-byte aligned: `crc32c u32 | len u32 | lsn u64 |
//!   synced u64 | kind u8 | 7 zero bytes | payload | zero padding to 8`. `lsn` is the
//!   frame's own position; `synced` is how far the log was durable when the frame
//!   was appended. Kind `0xFF` is a *jump*: "the log continues at LSN <payload>".
//! - `control` (in the log directory): two copies (blocks 0 and 1) of `magic BSLTWALC | version |
//!   generation | segment size | checkpoint LSN | crc32c`; the valid copy with the
//!   higher generation wins, and updates write the other copy.
//!
//! # Invariants
//! 1. A frame is valid only if its `lsn` field equals the position it is read from
//!    and its crc32c matches. Stale bytes of a recycled segment carry LSNs of its old
//!    sequence number and are never taken for live frames.
//! 2. Frames never straddle segments: a frame that does not fit is preceded by a
//!    jump to the next segment, and a segment never has between 1 and 39 bytes left
//!    after a frame, so a jump always fits.
//! 3. Bytes below the durable LSN are never changed: the partial last block is
//!    rewritten with identical bytes for its old part, so a torn rewrite cannot
//!    damage records that were already durable.
//! 4. Each open starts a new *run*: it writes (and fsyncs) a jump at the recovered
//!    end to a segment whose number is higher than any segment header ever written,
//!    so frames a crashed run left beyond the end (torn, never acknowledged) are
//!    unreachable and can never be mistaken for records of the new run.
//! 5. A segment's header is durable before any frame is written into it; a slot is
//!    recycled only after the control file durably records a checkpoint past it.
//! 6. A commit is acknowledged only after the log up to it is durable (policy 1).
//!    A failed log write or fsync poisons the log: every later append and commit
//!    fails with `StorageError::Halted`, and the fatal hook runs (the server logs and
//!    aborts, and restart recovers from the log, as PostgreSQL does).
//! 7. `append` fails with `StorageError::DiskFull`, appending nothing, when the next
//!    segment cannot be allocated; records already appended always have room, so a
//!    commit never fails for lack of space after its commit record was appended.
//!
//! # Recovery
//! `Wal::open` reads the chain from the checkpoint LSN, following jumps, until the
//! first invalid frame. It then scans past that point for valid frames:
//! - none, and the stop is unwritten space: the log simply ends ([`LogEnd::Clean`]);
//! - none, and the stop is a damaged frame: a torn unsynced write, or damage to the
//!   last record; either way nothing can be recovered, so the damaged range is
//!   logged at WARN and cut ([`LogEnd::DamagedTail`]);
//! - some: they would be lost with the cut, and acknowledged commits may be among
//!   them. A frame whose `synced` field is above the end proves the end had been
//!   durable ([`LogEnd::Corrupt`]); without that proof it may also be an unsynced
//!   write torn out of order by a power loss ([`LogEnd::TornTail`]). Both refuse to
//!   open, naming the range and the record count, unless
//!   `WalConfig::allow_corrupt_tail` accepts the loss.

mod buffer;
mod format;
mod reader;
mod recovery;
mod segments;
mod writer;

pub use format::{FIRST_RESERVED_KIND, FORMAT_VERSION};
pub use reader::{ReadStop, Record, StopReason, WalReader};

use crate::api::Result;
use crate::error::StorageError;
use crate::io::FileSystem;
use buffer::{Appended, FrameSpec, LogBuffer};
use parking_lot::{Condvar, Mutex};
use segments::{ControlFile, Geometry, Segments};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use writer::{FlushState, IoState};

/// A position in the log stream (bytes).
pub type Lsn = u64;

/// Called once when the log is poisoned, with the reason.
pub type FatalHook = Arc<dyn Fn(&str) + Send + Sync>;

#[derive(Clone, Debug)]
pub struct WalConfig {
    /// Size of each segment file, a multiple of 4096 (at least 16 KiB). An existing
    /// log keeps the size it was created with.
    pub segment_size: u64,
    /// 1: fsync before a commit returns; 2: write at commit, fsync once a second;
    /// 0: write and fsync once a second.
    pub flush_log_at_trx_commit: u8,
    /// Segments kept prepared past the one being written.
    pub segments_ahead: u64,
    /// Period of the background fsync for policies 0 and 2.
    pub flush_interval: Duration,
    /// Ask for O_DIRECT (falls back to buffered I/O where refused).
    pub direct_io: bool,
    /// Use a dedicated log-writer thread instead of leader/follower commit.
    pub writer_thread: bool,
    /// With policy 0, buffered bytes that wake the background writer early.
    pub write_threshold: u64,
    /// Write zeros over each new segment file, so that first writes into it are
    /// overwrites (see `segments::zero_fill`). Tests may turn it off to save I/O.
    pub zero_fill_segments: bool,
    /// Free segment files kept for reuse after a checkpoint; more are deleted.
    pub max_free_segments: usize,
    /// Open even when valid records follow damaged log ([`LogEnd::TornTail`],
    /// [`LogEnd::Corrupt`]): the log is cut at the damage, losing what follows. Off by
    /// default: `open` fails with `StorageError::Corrupt` and changes nothing, so an
    /// operator can look first.
    pub allow_corrupt_tail: bool,
}

impl Default for WalConfig {
    fn default() -> Self {
        WalConfig {
            segment_size: 64 << 20,
            flush_log_at_trx_commit: 1,
            segments_ahead: 1,
            flush_interval: Duration::from_secs(1),
            direct_io: true,
            writer_thread: false,
            write_threshold: 1 << 20,
            zero_fill_segments: true,
            max_free_segments: 8,
            allow_corrupt_tail: false,
        }
    }
}

/// How the log ended at recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogEnd {
    /// The log ends where nothing was written; no valid frame beyond.
    Clean,
    /// The last frame is damaged and no valid frame follows: a torn unsynced write,
    /// or damage to the last record. `[end_lsn, discarded_to)` is cut (logged at WARN).
    DamagedTail { discarded_to: Lsn },
    /// Valid frames follow the damage, none proving the end was durable: an unsynced
    /// write torn out of order by a power loss, or damage followed by acknowledged
    /// commits; the two cannot be told apart, so `open` refuses unless
    /// [`WalConfig::allow_corrupt_tail`]. `records` valid records end at `last_end`.
    TornTail {
        next_valid: Lsn,
        records: u64,
        last_end: Lsn,
    },
    /// A frame beyond the end was appended when the log was durable past the end:
    /// durable log was damaged, and records after the end (acknowledged commits
    /// among them) are lost. `open` refuses unless [`WalConfig::allow_corrupt_tail`].
    Corrupt {
        next_valid: Lsn,
        durable_at_least: Lsn,
        records: u64,
        last_end: Lsn,
    },
}

/// What `Wal::open` found.
#[derive(Clone, Debug)]
pub struct Recovery {
    /// A new, empty log was created.
    pub created: bool,
    /// The last checkpoint recorded with [`Wal::checkpoint_done`]: recovery reads
    /// from here.
    pub checkpoint_lsn: Lsn,
    /// End of the valid log.
    pub end_lsn: Lsn,
    /// Records between the checkpoint and the end.
    pub records: u64,
    /// Why reading stopped at `end_lsn`.
    pub stop: StopReason,
    pub end: LogEnd,
    /// Where new records go (after the jump that starts this run).
    pub start_lsn: Lsn,
    /// O_DIRECT is in effect.
    pub direct_io: bool,
}

/// Counters for `SHOW GLOBAL STATUS`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalStats {
    /// Every fsync of a log file or directory (data, segment headers, control).
    pub fsyncs: u64,
    /// Fsyncs of log data by flushes.
    pub flush_fsyncs: u64,
    /// Flushes that made log durable (group-commit batches).
    pub batches: u64,
    /// Calls of `commit_durable`.
    pub commits: u64,
    pub writes: u64,
    pub bytes_written: u64,
    pub end_lsn: Lsn,
    pub durable_lsn: Lsn,
    pub checkpoint_lsn: Lsn,
    pub segments_in_use: usize,
    pub segments_free: usize,
}

#[derive(Default)]
struct Stats {
    fsyncs: AtomicU64,
    flush_fsyncs: AtomicU64,
    batches: AtomicU64,
    commits: AtomicU64,
    writes: AtomicU64,
    bytes_written: AtomicU64,
}

#[derive(Default)]
struct BgState {
    stop: bool,
    kicked: bool,
}

pub(crate) struct Inner {
    cfg: WalConfig,
    geo: Geometry,
    segs: Segments,
    /// O_DIRECT is in effect for the log files.
    direct: bool,
    policy: AtomicU8,
    buf: Mutex<LogBuffer>,
    flush: Mutex<FlushState>,
    flush_cv: Condvar,
    writer_cv: Condvar,
    io: Mutex<IoState>,
    /// Mirror of `FlushState::durable`, stamped into frames without a lock.
    durable_mirror: AtomicU64,
    halted: AtomicBool,
    /// The dedicated writer thread is running (committers hand flushes to it).
    writer_running: AtomicBool,
    control: Mutex<ControlFile>,
    checkpoint: AtomicU64,
    bg: Mutex<BgState>,
    bg_cv: Condvar,
    stats: Stats,
    fatal_hook: Mutex<Option<FatalHook>>,
}

impl Inner {
    fn policy(&self) -> u8 {
        self.policy.load(Relaxed)
    }

    fn halted_error(&self) -> StorageError {
        let msg = self.flush.lock().halted.clone();
        StorageError::Halted(msg.unwrap_or_else(|| "log halted".into()))
    }
}

/// The write-ahead log. All methods may be called from many threads.
pub struct Wal {
    inner: Arc<Inner>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    dir: PathBuf,
}

fn check_config(cfg: &WalConfig) -> Result<()> {
    let block = format::BLOCK as u64;
    if cfg.segment_size < 4 * block || cfg.segment_size & (block - 1) != 0 {
        return Err(StorageError::Invalid(format!(
            "log segment size {} must be a multiple of 4096 and at least 16 KiB",
            cfg.segment_size
        )));
    }
    if cfg.flush_log_at_trx_commit > 2 {
        return Err(StorageError::Invalid(
            "flush_log_at_trx_commit must be 0, 1 or 2".into(),
        ));
    }
    Ok(())
}

impl Wal {
    /// Opens (or creates) the log in `dir`, finds the end of the valid log and starts
    /// a new run after it. Read the records to redo with [`Wal::read_from`]
    /// (`recovery.checkpoint_lsn`) before appending.
    pub fn open(fs: Arc<dyn FileSystem>, dir: &Path, config: WalConfig) -> Result<(Wal, Recovery)> {
        check_config(&config)?;
        let (inner, recovery) = recovery::open(fs, dir, config)?;
        let inner = Arc::new(inner);
        let threads = writer::spawn_threads(&inner)?;
        // Prepare the next segment now rather than at the first segment switch.
        inner.kick_background();
        let wal = Wal {
            inner,
            threads: Mutex::new(threads),
            dir: dir.to_path_buf(),
        };
        Ok((wal, recovery))
    }

    /// Appends a record; returns its end LSN (pass it to [`Wal::commit_durable`]).
    /// Never waits for I/O, except when the next segment is not prepared yet.
    /// Fails with `DiskFull` (nothing appended) when no segment can be allocated.
    pub fn append(&self, kind: u8, payload: &[u8]) -> Result<Lsn> {
        self.append_parts(kind, &[payload])
    }

    /// Appends a record whose payload is the concatenation of `parts`.
    pub fn append_parts(&self, kind: u8, parts: &[&[u8]]) -> Result<Lsn> {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        if kind >= FIRST_RESERVED_KIND {
            return Err(StorageError::Invalid(format!(
                "log record kind {kind:#x} is reserved"
            )));
        }
        if len > self.max_record_len() {
            return Err(StorageError::Invalid(format!(
                "log record of {len} bytes is too large"
            )));
        }
        let crc = parts.iter().fold(0, |c, p| crc32c::crc32c_append(c, p));
        let spec = FrameSpec {
            kind,
            parts,
            len,
            crc,
        };
        let inner = &self.inner;
        loop {
            if inner.halted.load(Relaxed) {
                return Err(inner.halted_error());
            }
            let synced = inner.durable_mirror.load(Relaxed);
            let (res, pending) = {
                let mut b = inner.buf.lock();
                if b.closed {
                    return Err(StorageError::Halted("log is shut down".into()));
                }
                let res = b.append(&inner.geo, synced, &spec);
                (res, b.pending())
            };
            match res {
                Appended::Done { end, new_segment } => {
                    let flood = inner.policy() == 0 && pending >= inner.cfg.write_threshold;
                    if new_segment || flood {
                        inner.kick_background();
                    }
                    return Ok(end);
                }
                Appended::NeedSegment(seq) => inner.ensure_capacity(seq)?,
            }
        }
    }

    /// Counts a commit and returns once the log below `lsn` is as durable as the
    /// flush policy requires. An error means the commit was not acknowledged.
    pub fn commit_durable(&self, lsn: Lsn) -> Result<()> {
        self.inner.stats.commits.fetch_add(1, Relaxed);
        match self.inner.policy() {
            1 => self.inner.wait_for(lsn, true),
            2 => self.inner.wait_for(lsn, false),
            _ if self.inner.halted.load(Relaxed) => Err(self.inner.halted_error()),
            _ => Ok(()),
        }
    }

    /// Returns once the log below `lsn` is fsynced, whatever the policy (for
    /// write-ahead of data pages, DDL, checkpoints).
    pub fn wait_durable(&self, lsn: Lsn) -> Result<()> {
        self.inner.wait_for(lsn, true)
    }

    /// Makes everything appended so far durable; returns the durable LSN.
    pub fn flush(&self) -> Result<Lsn> {
        let end = self.end_lsn();
        self.inner.wait_for(end, true)?;
        Ok(end)
    }

    /// Reads records from `lsn` (a checkpoint LSN, or an LSN returned by `append`)
    /// up to what has been written. Segments recycled by a checkpoint cannot be read.
    pub fn read_from(&self, lsn: Lsn) -> WalReader {
        let limit = self.inner.flush.lock().written;
        WalReader::new(self.inner.geo, self.inner.segs.snapshot(), lsn, limit)
    }

    /// Records that everything needed for recovery is at or after `lsn` (the start
    /// of the last complete checkpoint). Makes the log durable to `lsn`, records it
    /// in the control file, and frees the segments entirely before it.
    pub fn checkpoint_done(&self, lsn: Lsn) -> Result<()> {
        if lsn > self.end_lsn() {
            return Err(StorageError::Invalid(format!(
                "checkpoint LSN {lsn} is past the end of the log"
            )));
        }
        self.inner.wait_for(lsn, true)?;
        self.check_boundary(lsn)?;
        let mut ctl = self.inner.control.lock();
        if lsn <= ctl.current.checkpoint {
            return Ok(());
        }
        if let Err(e) = ctl.store(lsn) {
            drop(ctl);
            return Err(self
                .inner
                .poison(format!("log control file write failed: {e}")));
        }
        self.inner.stats.fsyncs.fetch_add(1, Relaxed);
        self.inner.checkpoint.store(lsn, Relaxed);
        drop(ctl);
        self.inner.segs.recycle_below(self.inner.geo.seq(lsn));
        self.inner.segs.trim_free(self.inner.cfg.max_free_segments);
        Ok(())
    }

    /// Recovery will start reading at a checkpoint LSN: a frame must start there
    /// (or the log must end there).
    fn check_boundary(&self, lsn: Lsn) -> Result<()> {
        if lsn == self.inner.flush.lock().written {
            return Ok(());
        }
        if self.read_from(lsn).frame_starts_at(lsn)? {
            return Ok(());
        }
        Err(StorageError::Invalid(format!(
            "checkpoint LSN {lsn} is not the start of a log record"
        )))
    }

    /// Where the next record goes.
    pub fn end_lsn(&self) -> Lsn {
        self.inner.buf.lock().next
    }

    pub fn durable_lsn(&self) -> Lsn {
        self.inner.durable_mirror.load(Relaxed)
    }

    pub fn checkpoint_lsn(&self) -> Lsn {
        self.inner.checkpoint.load(Relaxed)
    }

    /// Log appended since the last checkpoint (for the integrator's checkpoint
    /// trigger; counts the bytes a jump skips, so it slightly overestimates).
    pub fn bytes_since_checkpoint(&self) -> u64 {
        self.end_lsn().saturating_sub(self.checkpoint_lsn())
    }

    /// Changes `flush_log_at_trx_commit` at runtime.
    pub fn set_flush_policy(&self, policy: u8) -> Result<()> {
        if policy > 2 {
            return Err(StorageError::Invalid(
                "flush_log_at_trx_commit must be 0, 1 or 2".into(),
            ));
        }
        self.inner.policy.store(policy, Relaxed);
        Ok(())
    }

    pub fn flush_policy(&self) -> u8 {
        self.inner.policy()
    }

    /// Sets the callback run once when the log is poisoned (log and abort).
    pub fn set_fatal_hook(&self, hook: FatalHook) {
        *self.inner.fatal_hook.lock() = Some(hook);
    }

    pub fn stats(&self) -> WalStats {
        let s = &self.inner.stats;
        let (in_use, free) = self.inner.segs.counts();
        WalStats {
            fsyncs: s.fsyncs.load(Relaxed) + self.inner.segs.syncs.load(Relaxed),
            flush_fsyncs: s.flush_fsyncs.load(Relaxed),
            batches: s.batches.load(Relaxed),
            commits: s.commits.load(Relaxed),
            writes: s.writes.load(Relaxed),
            bytes_written: s.bytes_written.load(Relaxed),
            end_lsn: self.end_lsn(),
            durable_lsn: self.durable_lsn(),
            checkpoint_lsn: self.checkpoint_lsn(),
            segments_in_use: in_use,
            segments_free: free,
        }
    }

    /// True when the log files use O_DIRECT.
    pub fn is_direct(&self) -> bool {
        self.inner.direct
    }

    /// Largest payload `append` accepts.
    pub fn max_record_len(&self) -> usize {
        buffer::max_payload(&self.inner.geo)
    }

    /// The directory the log lives in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Makes everything appended durable, refuses further appends and stops the
    /// background threads.
    pub fn shutdown(&self) -> Result<()> {
        let end = {
            let mut b = self.inner.buf.lock();
            b.closed = true;
            b.next
        };
        let res = self.inner.wait_for(end, true);
        self.stop_threads();
        res
    }

    fn stop_threads(&self) {
        self.inner.bg.lock().stop = true;
        self.inner.bg_cv.notify_all();
        self.inner.flush.lock().stop = true;
        self.inner.writer_cv.notify_all();
        for t in self.threads.lock().drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for Wal {
    /// Stops the threads without flushing (a crash, as far as the log is
    /// concerned); call [`Wal::shutdown`] for a clean stop.
    fn drop(&mut self) {
        self.stop_threads();
    }
}
