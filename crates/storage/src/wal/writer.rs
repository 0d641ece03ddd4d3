//! Flushing: leader/follower group commit (or a dedicated writer thread), the
//! background thread, poisoning on I/O failure.
//!
//! One flush runs at a time (`FlushState::in_progress`). A committer whose LSN is
//! not yet durable either waits for the running flush or, if none runs, becomes the
//! leader: it takes everything appended so far, writes it, issues one fsync per
//! segment written (one, except when the batch crosses into a new segment) and
//! releases every follower whose LSN is now durable.

use super::buffer::Piece;
use super::Inner;
use super::Lsn;
use crate::api::Result;
use crate::error::StorageError;
use parking_lot::MutexGuard;
use std::collections::BTreeSet;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::Arc;
use std::time::Instant;

/// Shared flush progress, under `Inner::flush`.
#[derive(Default)]
pub struct FlushState {
    pub in_progress: bool,
    /// Log below this has been written to the files.
    pub written: Lsn,
    /// Log below this is durable.
    pub durable: Lsn,
    /// Set once a write or fsync failed; every later commit fails with it.
    pub halted: Option<String>,
    /// Highest LSN a committer asked the writer thread to make durable.
    pub requested: Lsn,
    /// Tells the writer thread to exit.
    pub stop: bool,
}

/// State only the flusher touches (held for the whole flush).
#[derive(Default)]
pub struct IoState {
    /// Segments written since their last fsync.
    unsynced: BTreeSet<u64>,
    /// `Stats::commits` at the last durable flush (for the group-commit size).
    commits_at_sync: u64,
}

/// What a flush achieved.
struct Round {
    written: Lsn,
    synced: bool,
}

/// Why a flush failed; it poisons the log.
struct RoundError(String);

impl Inner {
    /// Returns once the log below `lsn` is durable (`sync`) or written.
    pub(crate) fn wait_for(&self, lsn: Lsn, sync: bool) -> Result<()> {
        let end = self.buf.lock().next;
        if lsn > end {
            return Err(StorageError::Invalid(format!(
                "LSN {lsn} is past the end of the log ({end})"
            )));
        }
        let mut st = self.flush.lock();
        loop {
            if let Some(msg) = &st.halted {
                return Err(StorageError::Halted(msg.clone()));
            }
            if (if sync { st.durable } else { st.written }) >= lsn {
                return Ok(());
            }
            if sync && self.writer_running.load(Relaxed) {
                if st.requested < lsn {
                    st.requested = lsn;
                    self.writer_cv.notify_one();
                }
                basalt_common::wait::waiting(|| self.flush_cv.wait(&mut st));
            } else if st.in_progress {
                basalt_common::wait::waiting(|| self.flush_cv.wait(&mut st));
            } else {
                self.lead(&mut st, sync);
            }
        }
    }

    /// Runs one flush as leader; `st` is unlocked during the I/O.
    fn lead(&self, st: &mut MutexGuard<'_, FlushState>, sync: bool) {
        st.in_progress = true;
        let written = st.written;
        let result = MutexGuard::unlocked(st, || self.flush_round(written, sync));
        st.in_progress = false;
        match result {
            Ok(round) => {
                st.written = st.written.max(round.written);
                if round.synced {
                    st.durable = st.durable.max(round.written);
                    self.durable_mirror.store(st.durable, Relaxed);
                }
            }
            Err(RoundError(msg)) => {
                st.halted.get_or_insert_with(|| msg.clone());
                MutexGuard::unlocked(st, || self.run_fatal_hook(&msg));
            }
        }
        self.flush_cv.notify_all();
        self.writer_cv.notify_one();
    }

    /// Writes everything appended so far; with `sync`, makes it durable.
    fn flush_round(&self, written: Lsn, sync: bool) -> std::result::Result<Round, RoundError> {
        let mut io = self.io.lock();
        let taken = self.buf.lock().take();
        let mut end = written;
        if let Some((mut pieces, target)) = taken {
            self.write_pieces(&mut io, &mut pieces)?;
            self.buf.lock().recycle(pieces);
            end = target;
        }
        if sync && !io.unsynced.is_empty() {
            self.sync_segments(&mut io, end)?;
            self.stats.batches.fetch_add(1, Relaxed);
            record_group(&mut io, self.stats.commits.load(Relaxed));
        }
        Ok(Round {
            written: end,
            synced: sync,
        })
    }

    fn write_pieces(
        &self,
        io: &mut IoState,
        pieces: &mut [Piece],
    ) -> std::result::Result<(), RoundError> {
        for p in pieces.iter_mut() {
            let file = self
                .segs
                .file(p.seq)
                .ok_or_else(|| RoundError(format!("log segment {} vanished", p.seq)))?;
            let bytes = p.data.padded();
            file.write_at(bytes, self.geo.file_offset(p.base))
                .map_err(|e| RoundError(format!("log write failed: {e}")))?;
            self.stats.writes.fetch_add(1, Relaxed);
            self.stats
                .bytes_written
                .fetch_add(bytes.len() as u64, Relaxed);
            io.unsynced.insert(p.seq);
        }
        Ok(())
    }

    /// One fsync per segment written since the last sync.
    fn sync_segments(&self, io: &mut IoState, end: Lsn) -> std::result::Result<(), RoundError> {
        // Segments below the one `end` falls in are complete: drop them from the cache.
        let current = self.geo.seq(end);
        for &seq in &io.unsynced {
            let file = self
                .segs
                .file(seq)
                .ok_or_else(|| RoundError(format!("log segment {seq} vanished")))?;
            let started = Instant::now();
            file.sync_data()
                .map_err(|e| RoundError(format!("log fsync failed: {e}")))?;
            crate::metrics::record_micros(&crate::metrics::FSYNC_LATENCY, started.elapsed());
            self.stats.fsyncs.fetch_add(1, Relaxed);
            self.stats.flush_fsyncs.fetch_add(1, Relaxed);
            if seq < current && !file.is_direct() {
                file.drop_cache(0, self.geo.segment_size);
            }
        }
        io.unsynced.clear();
        Ok(())
    }

    /// Marks the log halted; the first caller logs and runs the fatal hook.
    pub(crate) fn run_fatal_hook(&self, msg: &str) {
        if self.halted.swap(true, SeqCst) {
            return;
        }
        tracing::error!(error = msg, "write-ahead log halted");
        let hook = self.fatal_hook.lock().clone();
        if let Some(hook) = hook {
            hook(msg);
        }
    }

    /// Poisons the log from outside a flush (control file or header fsync failed).
    pub(crate) fn poison(&self, msg: String) -> StorageError {
        {
            let mut st = self.flush.lock();
            st.halted.get_or_insert_with(|| msg.clone());
            self.flush_cv.notify_all();
        }
        self.run_fatal_hook(&msg);
        StorageError::Halted(msg)
    }

    /// The dedicated log-writer thread (when `WalConfig::writer_thread`).
    pub(crate) fn writer_loop(&self) {
        let mut st = self.flush.lock();
        loop {
            if st.stop {
                self.writer_running.store(false, Relaxed);
                // Waiters that asked the writer fall back to leading themselves.
                self.flush_cv.notify_all();
                return;
            }
            if st.halted.is_none() && st.requested > st.durable && !st.in_progress {
                self.lead(&mut st, true);
                continue;
            }
            self.writer_cv.wait(&mut st);
        }
    }

    /// The background thread: timed flushes for policies 0 and 2, flushes of a
    /// large unwritten buffer, preparing segments ahead.
    pub(crate) fn background_loop(&self) {
        let mut last_sync = Instant::now();
        loop {
            {
                let mut bg = self.bg.lock();
                if !bg.stop && !bg.kicked {
                    let wait = self.cfg.flush_interval.saturating_sub(last_sync.elapsed());
                    self.bg_cv.wait_for(&mut bg, wait);
                }
                if bg.stop {
                    return;
                }
                bg.kicked = false;
            }
            if self.halted.load(SeqCst) {
                // Nothing to do until shutdown; don't spin on an elapsed interval.
                last_sync = Instant::now();
                continue;
            }
            if last_sync.elapsed() >= self.cfg.flush_interval {
                last_sync = Instant::now();
                self.timed_sync();
            } else if self.policy() == 0 && self.buf.lock().pending() >= self.cfg.write_threshold {
                let end = self.buf.lock().next;
                let _ = self.wait_for(end, false);
            }
            self.prepare_ahead();
        }
    }

    /// Once a second: fsync what policy 2 wrote, write and fsync what policy 0
    /// buffered.
    fn timed_sync(&self) {
        let target = if self.policy() == 0 {
            self.buf.lock().next
        } else {
            self.flush.lock().written
        };
        if self.flush.lock().durable < target {
            let _ = self.wait_for(target, true);
        }
    }

    /// Keeps `segments_ahead` segments prepared past the one being written.
    fn prepare_ahead(&self) {
        let next = self.buf.lock().next;
        let want = self.geo.seq(next) + self.cfg.segments_ahead;
        if let Err(e) = self.ensure_capacity(want) {
            tracing::warn!(error = %e, "could not prepare a log segment ahead");
        }
    }

    /// Prepares segments until `seq` is prepared.
    pub(crate) fn ensure_capacity(&self, seq: u64) -> Result<()> {
        loop {
            let first_missing = self.geo.seq(self.buf.lock().capacity_end);
            if first_missing > seq {
                return Ok(());
            }
            match self.segs.prepare(first_missing) {
                Ok(()) => {
                    let mut b = self.buf.lock();
                    b.capacity_end = b.capacity_end.max(self.geo.start(first_missing + 1));
                }
                Err(super::segments::PrepareError::Fatal(e)) => {
                    return Err(self.poison(format!("log segment header write failed: {e}")));
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    pub(crate) fn kick_background(&self) {
        self.bg.lock().kicked = true;
        self.bg_cv.notify_one();
    }
}

/// Counts the commits made durable by a flush in the group-commit size: those
/// counted since the previous durable flush (a commit is counted just after its
/// record is appended, so one whose record the flush took a moment before it was
/// counted goes to the next flush; a flush with none, for a checkpoint or DDL,
/// is not a group commit).
fn record_group(io: &mut IoState, commits: u64) {
    let n = commits.saturating_sub(io.commits_at_sync);
    io.commits_at_sync = commits;
    if n > 0 {
        crate::metrics::GROUP_COMMIT_SIZE.record(n);
    }
}

/// Spawns the background thread (and the writer thread if configured).
pub(crate) fn spawn_threads(inner: &Arc<Inner>) -> Result<Vec<std::thread::JoinHandle<()>>> {
    let mut handles = Vec::new();
    let bg = inner.clone();
    handles.push(
        std::thread::Builder::new()
            .name("wal-background".into())
            .spawn(move || bg.background_loop())?,
    );
    if inner.cfg.writer_thread {
        inner.writer_running.store(true, Relaxed);
        let w = inner.clone();
        handles.push(
            std::thread::Builder::new()
                .name("wal-writer".into())
                .spawn(move || w.writer_loop())?,
        );
    }
    Ok(handles)
}
