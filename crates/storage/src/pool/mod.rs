//! The buffer pool: a fixed set of 16 KiB frames shared by every table file, and the
//! table files themselves ([`PageFile`]: page map, shadow paging, checkpoints).
//!
//! # Frames
//! All frames are allocated at start in one aligned block (table files are opened with
//! O_DIRECT, which [`crate::io`] falls back from when the filesystem refuses it). Each
//! frame has 24 bytes of metadata: an 8-byte version latch ([`latch`]), the page id it
//! holds (`file id << 32 | logical page`, or none) and flag bits (dirty, pending for a
//! checkpoint cut, CLOCK reference). The page table ([`table`]) maps page ids to frames
//! with lock-free lookups. There is no pin count: readers are optimistic and validate
//! the frame version after reading, so a frame reused under a reader (evicted and
//! loaded with another page, which bumps the version) is detected, never served.
//!
//! Memory besides the frames ([`BufferPool::overhead_bytes`]): 24 bytes of frame
//! metadata, 8 of page table and 4 of free list per 16 KiB frame, 36 bytes (0.22%;
//! 36 MiB for a 16 GiB pool, where InnoDB spends about 625 MB). Each open table file
//! adds its page maps: 8 bytes per logical page of the file (current and durable map),
//! 12 while a checkpoint runs ([`PageFile::map_memory_bytes`]).
//!
//! # Access protocol
//! - `fix` returns a frame and version for an optimistic read, loading the page on a
//!   miss; callers read through [`crate::page::PageView`] and `validate`.
//! - Writers turn an optimistic read into an exclusive latch (`upgrade`, fails if the
//!   version moved) or latch a page directly (`lock_page`); both give an [`XGuard`],
//!   which releases on drop and bumps the version if the page was changed.
//! - The first change through an `XGuard` marks the frame dirty and, if the frame's
//!   image is still pending for a checkpoint cut, first copies it aside for the
//!   checkpointer (copy-on-write).
//!
//! # Eviction and write-back
//! Second-chance CLOCK: the hand clears reference bits and takes the first unreferenced
//! frame whose latch it can take exclusively (never waiting). A dirty victim is written
//! to a fresh physical slot of its file ([`PageFile`]) before the frame is reused. The
//! background flusher (`flush_dirty`) writes dirty frames under a shared latch, so
//! optimistic readers carry on and later evictions find clean victims.
//!
//! Invariants:
//! - a page is resident in at most one frame;
//! - a frame's page word changes only while it is exclusively latched and out of the
//!   page table, and the version is bumped before the latch is released;
//! - a dirty frame is written back before it is reused (unless its file was dropped);
//! - a frame whose PENDING flag is set holds exactly its page's image as of the cut.

mod checkpoint;
mod file;
mod gate;
mod latch;
mod open;
pub mod requests;
mod space;
mod table;

pub use checkpoint::{Cut, CutStats};
pub use file::{PageFile, TreeInfo};
pub use gate::{Gate, GateGuard};
pub use latch::Backoff;

use crate::api::Result;
use crate::error::StorageError;
use crate::io::AlignedBuf;
use crate::page::node::Node;
use crate::page::{PageNo, PageView, PAGE_SIZE};
use latch::VersionLatch;
use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use table::PageTable;

const DIRTY: u32 = 1;
const PENDING: u32 = 2;
const REF: u32 = 4;
const NO_PID: u64 = u64::MAX;

/// Per-frame metadata (24 bytes).
#[derive(Default)]
struct Frame {
    latch: VersionLatch,
    page: AtomicU64,
    flags: AtomicU32,
}

#[derive(Default)]
struct Counters {
    reads: AtomicU64,
    writes: AtomicU64,
    evictions: AtomicU64,
    fsyncs: AtomicU64,
    created: AtomicU64,
}

/// A snapshot of the pool's state and counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    pub frames: usize,
    pub free_frames: usize,
    pub dirty_frames: usize,
    /// Pages read from disk.
    pub reads: u64,
    /// Pages written back (eviction, flusher, checkpoint).
    pub writes: u64,
    pub evictions: u64,
    /// Fsyncs of table files (checkpoints).
    pub fsyncs: u64,
    /// Pages created (new pages of a file).
    pub created: u64,
    /// Memory the pool uses besides the frames themselves.
    pub overhead_bytes: usize,
}

pub struct BufferPool {
    /// Owns the frame memory; accessed only through `base`.
    _mem: AlignedBuf,
    base: *mut u8,
    frames: Box<[Frame]>,
    table: PageTable,
    free: Mutex<Vec<u32>>,
    hand: AtomicUsize,
    flush_hand: AtomicUsize,
    files: RwLock<HashMap<u32, Weak<PageFile>>>,
    next_file: AtomicU32,
    stats: Counters,
}

// SAFETY: `base` points into `_mem`, which the pool owns for its whole life. Frame
// bytes are accessed under the latch protocol described in the module docs; all other
// state is atomics or locks.
unsafe impl Send for BufferPool {}
// SAFETY: as above.
unsafe impl Sync for BufferPool {}

impl BufferPool {
    /// A pool of `size_bytes / PAGE_SIZE` frames (at least 16), e.g. from
    /// `--buffer-pool-size`.
    pub fn new(size_bytes: u64) -> Arc<BufferPool> {
        Self::with_frames((size_bytes / PAGE_SIZE as u64).max(16) as usize)
    }

    pub fn with_frames(frames: usize) -> Arc<BufferPool> {
        let frames = frames.max(16);
        let mut mem = AlignedBuf::zeroed(frames * PAGE_SIZE);
        mem.advise_huge_pages();
        let base = mem.as_mut_ptr();
        Arc::new(BufferPool {
            _mem: mem,
            base,
            frames: (0..frames)
                .map(|_| Frame {
                    page: AtomicU64::new(NO_PID),
                    ..Frame::default()
                })
                .collect(),
            table: PageTable::new(frames),
            free: Mutex::new((0..frames as u32).rev().collect()),
            hand: AtomicUsize::new(0),
            flush_hand: AtomicUsize::new(0),
            files: RwLock::new(HashMap::new()),
            next_file: AtomicU32::new(1),
            stats: Counters::default(),
        })
    }

    pub fn frames(&self) -> usize {
        self.frames.len()
    }

    /// Bytes of memory the pool uses besides the frames: frame metadata, page table and
    /// free list.
    pub fn overhead_bytes(&self) -> usize {
        self.frames.len() * std::mem::size_of::<Frame>()
            + self.table.bytes()
            + self.free.lock().capacity() * 4
            + std::mem::size_of::<BufferPool>()
    }

    pub fn stats(&self) -> PoolStats {
        let dirty = self
            .frames
            .iter()
            .filter(|f| f.flags.load(Ordering::Relaxed) & DIRTY != 0)
            .count();
        let free_frames = self.free.lock().len();
        PoolStats {
            frames: self.frames.len(),
            free_frames,
            dirty_frames: dirty,
            reads: self.stats.reads.load(Ordering::Relaxed),
            writes: self.stats.writes.load(Ordering::Relaxed),
            evictions: self.stats.evictions.load(Ordering::Relaxed),
            fsyncs: self.stats.fsyncs.load(Ordering::Relaxed),
            created: self.stats.created.load(Ordering::Relaxed),
            overhead_bytes: self.overhead_bytes(),
        }
    }

    fn register(&self, file: Weak<PageFile>) -> u32 {
        let id = self.next_file.fetch_add(1, Ordering::Relaxed);
        self.files.write().insert(id, file);
        id
    }

    fn file(&self, id: u32) -> Option<Arc<PageFile>> {
        self.files.read().get(&id).and_then(Weak::upgrade)
    }

    /// Drops every frame of a file being closed. Frames another thread holds right
    /// now are left; they hold a page id no one asks for and are evicted in time.
    fn purge(&self, file_id: u32) {
        for (i, fr) in self.frames.iter().enumerate() {
            if fr.page.load(Ordering::Relaxed) >> 32 != file_id as u64 {
                continue;
            }
            if fr.latch.try_lock_x().is_none() {
                continue;
            }
            let pid = fr.page.load(Ordering::Acquire);
            if pid >> 32 == file_id as u64 {
                self.discard(i as u32, pid);
            } else {
                fr.latch.unlock_x(false);
            }
        }
        self.files.write().remove(&file_id);
    }

    fn page_of(&self, f: u32) -> u64 {
        self.frames[f as usize].page.load(Ordering::Acquire)
    }

    /// A view of frame `f` for optimistic reads.
    pub(crate) fn view(&self, f: u32) -> PageView<'_> {
        assert!((f as usize) < self.frames.len());
        // SAFETY: frame f lies inside the pool's block, valid for the pool's life;
        // PageView tolerates concurrent writers (bounds-checked, validated reads).
        unsafe { PageView::from_raw(self.base.add(f as usize * PAGE_SIZE)) }
    }

    /// The bytes of frame `f`.
    ///
    /// # Safety
    /// The caller holds frame `f`'s latch exclusively and has no other reference to
    /// its bytes.
    #[allow(clippy::mut_from_ref)]
    unsafe fn frame_mut(&self, f: u32) -> &mut [u8] {
        assert!((f as usize) < self.frames.len());
        // SAFETY: in bounds; exclusivity is the caller's obligation (X latch).
        unsafe { std::slice::from_raw_parts_mut(self.base.add(f as usize * PAGE_SIZE), PAGE_SIZE) }
    }

    /// Copies frame `f` (held S or X, so stable) into `dst`.
    fn copy_frame(&self, f: u32, dst: &mut [u8]) {
        assert!((f as usize) < self.frames.len() && dst.len() >= PAGE_SIZE);
        // SAFETY: source in bounds and not written while the caller holds S or X;
        // dst is a distinct buffer of at least PAGE_SIZE bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.base.add(f as usize * PAGE_SIZE),
                dst.as_mut_ptr(),
                PAGE_SIZE,
            )
        }
    }

    /// Optimistic access to logical page `lpn` of `file`: (frame, version), loading
    /// the page on a miss. None when the page is not allocated (a stale pointer:
    /// callers restart).
    pub(crate) fn fix(&self, file: &PageFile, lpn: PageNo) -> Result<Option<(u32, u64)>> {
        requests::count();
        let pid = file.pid(lpn);
        let mut backoff = Backoff::new();
        loop {
            if let Some(f) = self.table.get(pid, |f| self.page_of(f)) {
                let fr = &self.frames[f as usize];
                let Some(v) = fr.latch.read_begin() else {
                    backoff.snooze();
                    continue;
                };
                if fr.page.load(Ordering::Acquire) != pid {
                    continue;
                }
                if fr.flags.load(Ordering::Relaxed) & REF == 0 {
                    fr.flags.fetch_or(REF, Ordering::Relaxed);
                }
                return Ok(Some((f, v)));
            }
            if !self.load(file, lpn, pid)? {
                return Ok(None);
            }
        }
    }

    /// True when nothing changed in frame `f` since `fix` returned `version`.
    #[inline]
    pub(crate) fn validate(&self, f: u32, version: u64) -> bool {
        self.frames[f as usize].latch.validate(version)
    }

    /// Loads a page into a frame; false when it is not allocated.
    fn load(&self, file: &PageFile, lpn: PageNo, pid: u64) -> Result<bool> {
        let f = self.get_frame()?;
        {
            let mut t = self.table.lock(pid);
            if t.get(pid, |f| self.page_of(f)).is_some() {
                drop(t);
                self.release_frame(f);
                return Ok(true);
            }
            self.frames[f as usize].page.store(pid, Ordering::Release);
            if !t.insert(f) {
                self.frames[f as usize]
                    .page
                    .store(NO_PID, Ordering::Release);
                drop(t);
                self.release_frame(f);
                return Err(StorageError::Invalid("buffer pool page table full".into()));
            }
        }
        // SAFETY: we hold frame f exclusively (get_frame) and keep no other reference.
        let res = file.read_page(lpn, unsafe { self.frame_mut(f) });
        match res {
            Ok(true) => {
                let fr = &self.frames[f as usize];
                fr.flags.store(REF, Ordering::Relaxed);
                fr.latch.unlock_x(true);
                self.stats.reads.fetch_add(1, Ordering::Relaxed);
                Ok(true)
            }
            Ok(false) => {
                self.discard(f, pid);
                Ok(false)
            }
            Err(e) => {
                self.discard(f, pid);
                Err(e)
            }
        }
    }

    /// Removes the page of exclusively latched frame `f` and frees the frame.
    fn discard(&self, f: u32, pid: u64) {
        self.table.lock(pid).remove(pid, |f| self.page_of(f));
        let fr = &self.frames[f as usize];
        fr.page.store(NO_PID, Ordering::Release);
        fr.flags.store(0, Ordering::Relaxed);
        fr.latch.unlock_x(true);
        self.free.lock().push(f);
    }

    /// Frees an exclusively latched frame that holds no page.
    fn release_frame(&self, f: u32) {
        self.frames[f as usize].latch.unlock_x(true);
        self.free.lock().push(f);
    }

    /// A frame holding no page, exclusively latched and out of the page table.
    fn get_frame(&self) -> Result<u32> {
        let free = self.free.lock().pop();
        if let Some(f) = free {
            self.frames[f as usize].latch.lock_x();
            return Ok(f);
        }
        self.evict()
    }

    /// Second-chance CLOCK; writes a dirty victim back first.
    fn evict(&self) -> Result<u32> {
        let n = self.frames.len();
        for _ in 0..4 * n {
            let i = self.hand.fetch_add(1, Ordering::Relaxed) % n;
            let fr = &self.frames[i];
            if fr.page.load(Ordering::Relaxed) == NO_PID {
                continue;
            }
            if fr.flags.load(Ordering::Relaxed) & REF != 0 {
                fr.flags.fetch_and(!REF, Ordering::Relaxed);
                continue;
            }
            if fr.latch.try_lock_x().is_none() {
                continue;
            }
            let pid = fr.page.load(Ordering::Acquire);
            if pid == NO_PID {
                fr.latch.unlock_x(false);
                continue;
            }
            if let Err(e) = self.write_if_dirty(i as u32, pid) {
                fr.latch.unlock_x(false);
                return Err(e);
            }
            self.table.lock(pid).remove(pid, |f| self.page_of(f));
            fr.page.store(NO_PID, Ordering::Release);
            fr.flags.store(0, Ordering::Relaxed);
            self.stats.evictions.fetch_add(1, Ordering::Relaxed);
            return Ok(i as u32);
        }
        Err(StorageError::Invalid(format!(
            "buffer pool exhausted: all {n} frames are latched"
        )))
    }

    /// Writes frame `f` (held S or X) back if dirty.
    fn write_if_dirty(&self, f: u32, pid: u64) -> Result<()> {
        if self.frames[f as usize].flags.load(Ordering::Acquire) & DIRTY == 0 {
            return Ok(());
        }
        match self.file((pid >> 32) as u32) {
            Some(file) => file.write_back(f, pid as u32),
            // The file was closed: its unsaved changes are dropped with it.
            None => Ok(()),
        }
    }

    /// Writes back up to `max` dirty frames (background flushing), so that eviction
    /// finds clean victims. Returns how many were written.
    pub fn flush_dirty(&self, max: usize) -> Result<usize> {
        let n = self.frames.len();
        let mut written = 0;
        for _ in 0..n {
            if written >= max {
                break;
            }
            let i = (self.flush_hand.fetch_add(1, Ordering::Relaxed) % n) as u32;
            let fr = &self.frames[i as usize];
            let pid = fr.page.load(Ordering::Acquire);
            if pid == NO_PID || fr.flags.load(Ordering::Relaxed) & DIRTY == 0 {
                continue;
            }
            fr.latch.lock_s();
            let res = if fr.page.load(Ordering::Acquire) == pid {
                self.write_if_dirty(i, pid)
            } else {
                Ok(())
            };
            fr.latch.unlock_s();
            res?;
            written += 1;
        }
        Ok(written)
    }

    /// Exclusive access to a page read optimistically at `version`; None if it
    /// changed since.
    pub(crate) fn upgrade<'a>(
        &'a self,
        file: &'a PageFile,
        lpn: PageNo,
        f: u32,
        version: u64,
    ) -> Option<XGuard<'a>> {
        self.frames[f as usize]
            .latch
            .try_upgrade(version)
            .then(|| XGuard::new(self, file, f, lpn))
    }

    /// Exclusive access to a page, waiting for other holders. None when the page is
    /// not allocated.
    pub(crate) fn lock_page<'a>(
        &'a self,
        file: &'a PageFile,
        lpn: PageNo,
    ) -> Result<Option<XGuard<'a>>> {
        self.latch_page(file, lpn)
    }

    /// Exclusive access to a page if no one else holds it; None when it is latched
    /// (or being loaded) by another thread, or not allocated. Never waits for another
    /// thread's latch, so a thread holding latches out of order may use it.
    pub(crate) fn try_lock_page<'a>(
        &'a self,
        file: &'a PageFile,
        lpn: PageNo,
    ) -> Result<Option<XGuard<'a>>> {
        requests::count();
        let pid = file.pid(lpn);
        for _ in 0..2 {
            if let Some(f) = self.table.get(pid, |f| self.page_of(f)) {
                let fr = &self.frames[f as usize];
                if fr.latch.try_lock_x().is_none() {
                    return Ok(None);
                }
                if fr.page.load(Ordering::Acquire) == pid {
                    fr.flags.fetch_or(REF, Ordering::Relaxed);
                    return Ok(Some(XGuard::new(self, file, f, lpn)));
                }
                fr.latch.unlock_x(false);
                return Ok(None);
            }
            if !self.load(file, lpn, pid)? {
                return Ok(None);
            }
        }
        Ok(None)
    }

    /// Exclusive access to a page, waiting for other holders. None when the page is
    /// not allocated.
    fn latch_page<'a>(&'a self, file: &'a PageFile, lpn: PageNo) -> Result<Option<XGuard<'a>>> {
        let pid = file.pid(lpn);
        loop {
            let Some((f, _)) = self.fix(file, lpn)? else {
                return Ok(None);
            };
            let fr = &self.frames[f as usize];
            fr.latch.lock_x();
            if fr.page.load(Ordering::Acquire) == pid {
                return Ok(Some(XGuard::new(self, file, f, lpn)));
            }
            fr.latch.unlock_x(false);
        }
    }

    /// A new logical page of `file` in a zeroed frame, exclusively latched and dirty.
    pub(crate) fn alloc_page<'a>(&'a self, file: &'a PageFile) -> Result<XGuard<'a>> {
        let f = self.get_frame()?;
        let lpn = file.alloc_lpn();
        self.install_new(file, lpn, f)
            .inspect_err(|_| file.free_lpn(lpn))
    }

    /// A zeroed frame for logical page `lpn`, which the caller allocated with
    /// [`PageFile::alloc_lpn`] and which has no frame yet.
    pub(crate) fn new_page<'a>(&'a self, file: &'a PageFile, lpn: PageNo) -> Result<XGuard<'a>> {
        let f = self.get_frame()?;
        self.install_new(file, lpn, f)
    }

    fn install_new<'a>(&'a self, file: &'a PageFile, lpn: PageNo, f: u32) -> Result<XGuard<'a>> {
        self.stats.created.fetch_add(1, Ordering::Relaxed);
        let pid = file.pid(lpn);
        let mut backoff = Backoff::new();
        loop {
            let mut t = self.table.lock(pid);
            // A stale loader may briefly hold a frame for this page id; it finds the
            // page unwritten and drops it.
            if t.get(pid, |f| self.page_of(f)).is_none() {
                self.frames[f as usize].page.store(pid, Ordering::Release);
                if !t.insert(f) {
                    self.frames[f as usize]
                        .page
                        .store(NO_PID, Ordering::Release);
                    drop(t);
                    self.release_frame(f);
                    return Err(StorageError::Invalid("buffer pool page table full".into()));
                }
                break;
            }
            drop(t);
            backoff.snooze();
        }
        // SAFETY: frame f is exclusively latched by us.
        unsafe { self.frame_mut(f) }.fill(0);
        self.frames[f as usize]
            .flags
            .store(DIRTY | REF, Ordering::Relaxed);
        let mut g = XGuard::new(self, file, f, lpn);
        g.changed = true;
        Ok(g)
    }

    /// Frees logical page `lpn`, which nothing refers to any more (a detached node, a
    /// replaced overflow chain), without reading it if it is not resident.
    pub(crate) fn free_page(&self, file: &PageFile, lpn: PageNo) -> Result<()> {
        let pid = file.pid(lpn);
        loop {
            if self.table.get(pid, |f| self.page_of(f)).is_some() {
                match self.lock_page(file, lpn)? {
                    Some(g) => g.free(),
                    None => debug_assert!(false, "freeing free page {lpn}"),
                }
                return Ok(());
            }
            // Holding the shard lock keeps a loader from installing the page while
            // the map entry goes; a loader that comes later finds it free.
            let t = self.table.lock(pid);
            if t.get(pid, |f| self.page_of(f)).is_some() {
                continue;
            }
            file.free_lpn(lpn);
            return Ok(());
        }
    }
}

/// An exclusive latch on a resident page. Dropping it releases the latch, bumping the
/// frame version if the page was changed through `bytes_mut`.
pub(crate) struct XGuard<'a> {
    pool: &'a BufferPool,
    file: &'a PageFile,
    frame: u32,
    lpn: PageNo,
    changed: bool,
}

impl<'a> XGuard<'a> {
    fn new(pool: &'a BufferPool, file: &'a PageFile, frame: u32, lpn: PageNo) -> XGuard<'a> {
        XGuard {
            pool,
            file,
            frame,
            lpn,
            changed: false,
        }
    }

    pub fn lpn(&self) -> PageNo {
        self.lpn
    }

    /// The page as it is now. The view borrows the pool, not the guard, so it can
    /// be held across `bytes_mut`; callers must not read it after changing the page.
    pub fn view(&self) -> PageView<'a> {
        self.pool.view(self.frame)
    }

    pub fn node(&self) -> Node<'a> {
        Node::new(self.view())
    }

    /// The page bytes for changing. The first call marks the frame dirty, after
    /// copying a checkpoint-pending image aside.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        if !self.changed {
            self.before_change();
            self.changed = true;
        }
        // SAFETY: we hold the frame's X latch, and `&mut self` makes this the only
        // reference handed out.
        unsafe { self.pool.frame_mut(self.frame) }
    }

    fn before_change(&self) {
        let fr = &self.pool.frames[self.frame as usize];
        if fr.flags.load(Ordering::Acquire) & PENDING != 0 {
            self.file.copy_aside(self.frame, self.lpn);
        }
        fr.flags.fetch_or(DIRTY, Ordering::Release);
    }

    /// Frees the page: its logical number returns to the file's free list and the
    /// frame to the pool.
    pub fn free(self) {
        let this = std::mem::ManuallyDrop::new(self);
        this.before_change();
        this.file.free_lpn(this.lpn);
        this.pool.discard(this.frame, this.file.pid(this.lpn));
    }
}

impl Drop for XGuard<'_> {
    fn drop(&mut self) {
        self.pool.frames[self.frame as usize]
            .latch
            .unlock_x(self.changed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overhead_per_frame_is_small() {
        let pool = BufferPool::with_frames(65536);
        let per = pool.overhead_bytes() as f64 / pool.frames() as f64;
        assert_eq!(std::mem::size_of::<Frame>(), 24);
        // 24 (frame) + 8 (page table) + 4 (free list), plus a constant.
        assert!(per < 40.0, "{per} bytes per frame");
    }
}
