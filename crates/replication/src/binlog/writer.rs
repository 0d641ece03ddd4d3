//! Writing the tail into the files, making groups visible, and syncing (see the
//! module docs of [`super`] for when each happens).
//!
//! The visible end is one `AtomicU64`: the file number in the top 31 bits (file
//! numbers go up to 2^31 - 1, as MariaDB's), the offset in the low 33 (events name
//! their end in 32 bits, so no file grows past 4 GiB), so `(file, offset)` order is
//! integer order and moving it forward is a `fetch_max`.

use super::tail::TailChunk;
use super::{files, io_err, Binlog, Written};
use basalt_storage::StorageError;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

const OFFSET_BITS: u32 = 33;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;

/// The end of what dumps may read: file number and offset.
pub struct Visible(AtomicU64);

impl Visible {
    pub fn new(file: u32, offset: u64) -> Visible {
        Visible(AtomicU64::new(pack(file, offset)))
    }

    pub fn get(&self) -> (u32, u64) {
        let v = self.0.load(Ordering::SeqCst);
        ((v >> OFFSET_BITS) as u32, v & OFFSET_MASK)
    }

    /// Moves the end forward to `(file, offset)` (never back).
    fn advance(&self, file: u32, offset: u64) {
        self.0.fetch_max(pack(file, offset), Ordering::SeqCst);
    }

    /// Sets the end, also backwards (RESET MASTER).
    pub fn reset(&self, file: u32, offset: u64) {
        self.0.store(pack(file, offset), Ordering::SeqCst);
    }
}

fn pack(file: u32, offset: u64) -> u64 {
    (u64::from(file) << OFFSET_BITS) | (offset & OFFSET_MASK)
}

/// The file being written and the files written since the last sync.
#[derive(Default)]
pub struct Writer {
    handle: Option<(u32, File)>,
    dirty: Vec<u32>,
}

impl Writer {
    /// Drops the open file and the dirty list (the files are being removed).
    pub fn forget(&mut self) {
        self.handle = None;
        self.dirty.clear();
    }

    /// Writes `chunks` (in log order), one write per run of adjacent chunks.
    fn write(&mut self, files: &files::Files, chunks: &[TailChunk]) -> io::Result<()> {
        let mut i = 0;
        while i < chunks.len() {
            let first = &chunks[i];
            let mut end = first.offset + first.bytes.len() as u64;
            let mut j = i + 1;
            while j < chunks.len() && chunks[j].file == first.file && chunks[j].offset == end {
                end += chunks[j].bytes.len() as u64;
                j += 1;
            }
            let f = self.file(files, first.file)?;
            if j == i + 1 {
                write_at(f, &first.bytes, first.offset)?;
            } else {
                let mut run = Vec::with_capacity((end - first.offset) as usize);
                for c in &chunks[i..j] {
                    run.extend_from_slice(&c.bytes);
                }
                write_at(f, &run, first.offset)?;
            }
            i = j;
        }
        Ok(())
    }

    fn file(&mut self, files: &files::Files, n: u32) -> io::Result<&File> {
        if self.handle.as_ref().is_none_or(|(m, _)| *m != n) {
            self.handle = Some((n, files.open(n)?));
        }
        if !self.dirty.contains(&n) {
            self.dirty.push(n);
        }
        Ok(&self.handle.as_ref().expect("opened above").1)
    }
}

/// Writes `bytes` at `offset` of `f`. Tests make it fail as a full disk does
/// ([`super::fault::fail_next_write`]); outside tests it is the write alone.
fn write_at(f: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    #[cfg(test)]
    if let Some(n) = super::fault::take_write_fault() {
        f.write_all_at(&bytes[..n.min(bytes.len())], offset)?;
        return Err(io::Error::from_raw_os_error(libc::ENOSPC));
    }
    f.write_all_at(bytes, offset)
}

impl Binlog {
    /// Makes the groups up to the one ending at WAL position `lsn` visible, writing
    /// them into the files first; then does the semi-sync wait of that group, if it
    /// has one (which `killed`, the session's interrupt flag, can end). On return the group's events are in the files (or the log is
    /// broken and the error says why).
    pub(super) fn ack(&self, lsn: u64, killed: Option<&AtomicBool>) -> Result<(), StorageError> {
        let target = {
            let a = self.acks.lock();
            a.unacked
                .iter()
                .take_while(|w| w.lsn <= lsn)
                .last()
                .copied()
        };
        // None: a later group's committer made everything up to `lsn` visible.
        if let Some(w) = target {
            self.write_out(w.seq)?;
            self.publish(w);
        }
        let wait = self.acks.lock().semisync_waits.remove(&lsn);
        // Visible first, so a dump can send what the wait is for.
        if let Some(at) = wait {
            self.semisync.commit_wait_killable(&at, killed);
        }
        Ok(())
    }

    /// Moves the visible end to the end of `w` and forgets the groups up to it.
    fn publish(&self, w: Written) {
        self.visible.advance(w.file, w.end);
        {
            let mut a = self.acks.lock();
            while a.unacked.front().is_some_and(|u| u.lsn <= w.lsn) {
                a.unacked.pop_front();
            }
        }
        if self.waiters.load(Ordering::SeqCst) > 0 {
            let _g = self.wait_lock.lock();
            self.moved.notify_all();
        }
    }

    /// Writes every queued chunk when those below `upto` are not all written yet.
    fn write_out(&self, upto: u64) -> Result<(), StorageError> {
        if self.written.load(Ordering::Acquire) >= upto {
            return Ok(());
        }
        let mut w = self.writer.lock();
        if self.written.load(Ordering::Acquire) >= upto {
            return Ok(());
        }
        self.write_locked(&mut w)
    }

    /// Writes every queued chunk (before files are removed).
    pub(super) fn write_all(&self) -> Result<(), StorageError> {
        let mut w = self.writer.lock();
        self.write_locked(&mut w)
    }

    fn write_locked(&self, w: &mut Writer) -> Result<(), StorageError> {
        self.check_broken()?;
        let (chunks, upto) = self.tail.read().unwritten();
        if chunks.is_empty() {
            return Ok(());
        }
        if let Err(e) = w.write(&self.files, &chunks) {
            return Err(self.fail(e));
        }
        self.tail.write().mark_written(upto);
        self.written.store(upto, Ordering::Release);
        Ok(())
    }

    /// A checkpoint is about to release the WAL up to `durable_lsn`: makes every
    /// group up to it durable in the files and records the sync point.
    pub(super) fn sync_files(&self, durable_lsn: u64) -> Result<(), StorageError> {
        let point = {
            let mut g = self.inner.lock();
            let mut point = None;
            while g.unsynced.front().is_some_and(|w| w.lsn <= durable_lsn) {
                point = g.unsynced.pop_front();
            }
            point
        };
        let Some(p) = point else {
            return Ok(());
        };
        self.write_out(p.seq)?;
        let dirty = std::mem::take(&mut self.writer.lock().dirty);
        for n in dirty {
            let f = match File::options().write(true).open(self.files.path(n)) {
                Ok(f) => f,
                // Purged since it was written: nothing to keep.
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io_err("open", e)),
            };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_end_orders_by_file_then_offset() {
        let v = Visible::new(3, 900);
        v.advance(3, 100);
        assert_eq!(v.get(), (3, 900), "never back");
        v.advance(4, 4);
        assert_eq!(v.get(), (4, 4));
        v.reset(1, 0);
        assert_eq!(v.get(), (1, 0));
        v.advance(i32::MAX as u32, u32::MAX as u64);
        assert_eq!(v.get(), (i32::MAX as u32, u32::MAX as u64));
    }
}
