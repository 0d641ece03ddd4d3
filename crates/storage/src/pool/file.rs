//! A table file: its page map, free space, tree catalog and the link to the pool.
//!
//! Pages are read from the physical slot the current map names and verified
//! (checksum, format version, page type, logical page number): a mismatch is
//! [`StorageError::Corrupt`] naming the file and the physical page. Pages are written
//! (eviction, flusher) to a fresh slot that no durable checkpoint refers to, and the
//! current map is updated; see [`super::space`] for the slot accounting and
//! [`super::checkpoint`] for how a checkpoint makes a cut of the maps durable.
//!
//! Opening a file reads both meta slots and uses the valid one with the higher
//! checkpoint sequence (the other may be torn by a crash during a checkpoint), then
//! reads that checkpoint's map ([`super::open`] says when that image may be used).
//! Nothing else needs reading: free slots are those the checkpoint does not refer to,
//! free logical pages are the unmapped ones.

use super::checkpoint::CutMeta;
use super::gate::Gate;
use super::space::{Space, FIRST_SLOT};
use super::{BufferPool, PENDING};
use crate::api::Result;
use crate::error::StorageError;
use crate::io::{AlignedBuf, File, FileSystem, OpenOptions};
use crate::page::meta::{Meta, TreeRoot, MAX_TREES};
use crate::page::{check, PageNo, PageType, NO_PAGE, PAGE_SIZE};
use parking_lot::Mutex;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

/// A tree of a file: its fixed root page and running statistics.
#[derive(Debug)]
pub struct TreeInfo {
    pub id: u32,
    /// The root's logical page; it never changes (root splits happen in place).
    pub root: PageNo,
    entries: AtomicI64,
    bytes: AtomicI64,
    dropped: AtomicBool,
}

impl TreeInfo {
    fn new(r: TreeRoot) -> TreeInfo {
        TreeInfo {
            id: r.id,
            root: r.root,
            entries: AtomicI64::new(r.entries as i64),
            bytes: AtomicI64::new(r.bytes as i64),
            dropped: AtomicBool::new(false),
        }
    }

    /// True once the tree was dropped; its handles then fail.
    pub fn is_dropped(&self) -> bool {
        self.dropped.load(Ordering::Acquire)
    }

    /// Estimated number of entries.
    pub fn entries(&self) -> u64 {
        self.entries.load(Ordering::Relaxed).max(0) as u64
    }

    /// Estimated bytes of keys and values.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed).max(0) as u64
    }

    /// Records a change of `entries` entries and `bytes` bytes.
    pub fn account(&self, entries: i64, bytes: i64) {
        self.entries.fetch_add(entries, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    pub(crate) fn reset_stats(&self) {
        self.entries.store(0, Ordering::Relaxed);
        self.bytes.store(0, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> TreeRoot {
        TreeRoot {
            id: self.id,
            root: self.root,
            entries: self.entries(),
            bytes: self.bytes(),
        }
    }
}

pub struct PageFile {
    pub(super) pool: Arc<BufferPool>,
    pub(super) id: u32,
    pub(super) file: Arc<dyn File>,
    name: String,
    pub(super) space: Mutex<Space>,
    pub(super) gate: Gate,
    trees: Mutex<BTreeMap<u32, Arc<TreeInfo>>>,
    pub(super) next_chain: AtomicU64,
    pub(super) durable_seq: AtomicU64,
    pub(super) durable_lsn: AtomicU64,
    pub(super) cut: Mutex<Option<CutMeta>>,
    pub(super) cut_active: AtomicBool,
}

impl Drop for PageFile {
    fn drop(&mut self) {
        self.pool.purge(self.id);
    }
}

thread_local! {
    static SCRATCH: RefCell<Option<AlignedBuf>> = const { RefCell::new(None) };
}

/// Runs `f` with a page-sized aligned buffer reused per thread.
pub(super) fn with_scratch<R>(f: impl FnOnce(&mut [u8]) -> R) -> R {
    let mut buf = SCRATCH
        .with(|s| s.borrow_mut().take())
        .unwrap_or_else(|| AlignedBuf::zeroed(PAGE_SIZE));
    let r = f(&mut buf);
    SCRATCH.with(|s| *s.borrow_mut() = Some(buf));
    r
}

fn file_name(path: &Path) -> String {
    path.display().to_string()
}

impl PageFile {
    /// Creates a new, empty table file (failing if it exists) and makes it durable.
    pub fn create(
        pool: &Arc<BufferPool>,
        fs: &dyn FileSystem,
        path: &Path,
    ) -> Result<Arc<PageFile>> {
        if fs.exists(path) {
            return Err(StorageError::Invalid(format!(
                "{} already exists",
                path.display()
            )));
        }
        let file = fs.open(
            path,
            OpenOptions {
                create: true,
                direct: true,
            },
        )?;
        let initial = FIRST_SLOT + 6;
        file.set_len(initial as u64 * PAGE_SIZE as u64)?;
        let meta = Meta {
            seq: 1,
            cut_lsn: 0,
            logical_pages: 0,
            slots: initial,
            dir_first: NO_PAGE,
            map_pages: 0,
            next_chain: 1,
            trees: Vec::new(),
        };
        write_meta(file.as_ref(), &meta)?;
        file.sync_data()
            .map_err(|e| StorageError::Halted(format!("fsync of {}: {e}", path.display())))?;
        if let Some(dir) = path.parent() {
            fs.sync_dir(dir)?;
        }
        let space = Space::open(Vec::new(), Vec::new(), Vec::new(), initial);
        Ok(Self::build(pool, file, file_name(path), space, &meta))
    }

    /// Opens a table file at its last complete checkpoint. A file must be open at most
    /// once at a time. The caller holds every change since the checkpoint it is opened
    /// at (see [`PageFile::open_at`] for a caller that replays a log).
    pub fn open(pool: &Arc<BufferPool>, fs: &dyn FileSystem, path: &Path) -> Result<Arc<PageFile>> {
        Self::open_at(pool, fs, path, 0)
    }

    /// Opens a table file for a caller that will replay its log from `log_start`: a
    /// checkpoint image older than that is refused, and an image used because the other
    /// meta slot is damaged is checked page by page first (see [`super::open`]).
    pub fn open_at(
        pool: &Arc<BufferPool>,
        fs: &dyn FileSystem,
        path: &Path,
        log_start: u64,
    ) -> Result<Arc<PageFile>> {
        let name = file_name(path);
        let file = fs.open(
            path,
            OpenOptions {
                create: false,
                direct: true,
            },
        )?;
        let super::open::Image {
            meta,
            map,
            map_slots,
            dir_slots,
        } = super::open::read_image(file.as_ref(), &name, log_start)?;
        let n_slots = (file.len()? / PAGE_SIZE as u64) as u32;
        let beyond = map
            .iter()
            .copied()
            .filter(|&e| super::space::is_slot(e))
            .chain(map_slots.iter().copied())
            .find(|&s| s >= n_slots);
        if let Some(slot) = beyond {
            return Err(corrupt(
                &name,
                slot as u64,
                format!("the checkpoint refers to page {slot} but the file has {n_slots} pages"),
            ));
        }
        let space = Space::open(map, map_slots, dir_slots, n_slots);
        Ok(Self::build(pool, file, name, space, &meta))
    }

    fn build(
        pool: &Arc<BufferPool>,
        file: Arc<dyn File>,
        name: String,
        space: Space,
        meta: &Meta,
    ) -> Arc<PageFile> {
        let trees = meta
            .trees
            .iter()
            .map(|t| (t.id, Arc::new(TreeInfo::new(*t))))
            .collect();
        Arc::new_cyclic(|me| PageFile {
            pool: pool.clone(),
            id: pool.register(me.clone()),
            file,
            name,
            space: Mutex::new(space),
            gate: Gate::new(),
            trees: Mutex::new(trees),
            next_chain: AtomicU64::new(meta.next_chain),
            durable_seq: AtomicU64::new(meta.seq),
            durable_lsn: AtomicU64::new(meta.cut_lsn),
            cut: Mutex::new(None),
            cut_active: AtomicBool::new(false),
        })
    }

    /// The file's path, as errors name it.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn pool(&self) -> &Arc<BufferPool> {
        &self.pool
    }

    /// The gate tree write operations hold shared (see [`Gate`]).
    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    /// Sequence number of the last durable checkpoint.
    pub fn checkpoint_seq(&self) -> u64 {
        self.durable_seq.load(Ordering::Acquire)
    }

    /// The cut LSN of the last durable checkpoint: recovery replays the log from here.
    pub fn checkpoint_lsn(&self) -> u64 {
        self.durable_lsn.load(Ordering::Acquire)
    }

    pub(crate) fn pid(&self, lpn: PageNo) -> u64 {
        ((self.id as u64) << 32) | lpn as u64
    }

    pub(crate) fn corrupt(&self, page: u64, detail: String) -> StorageError {
        corrupt(&self.name, page, detail)
    }

    pub fn trees(&self) -> Vec<Arc<TreeInfo>> {
        self.trees.lock().values().cloned().collect()
    }

    pub fn tree(&self, id: u32) -> Option<Arc<TreeInfo>> {
        self.trees.lock().get(&id).cloned()
    }

    /// Registers a tree whose root page exists.
    pub(crate) fn add_tree(&self, id: u32, root: PageNo) -> Result<Arc<TreeInfo>> {
        let mut trees = self.trees.lock();
        if trees.contains_key(&id) {
            return Err(StorageError::Invalid(format!(
                "tree {id} exists in {}",
                self.name
            )));
        }
        if trees.len() >= MAX_TREES {
            return Err(StorageError::Invalid(format!(
                "{} holds {MAX_TREES} trees already",
                self.name
            )));
        }
        let info = Arc::new(TreeInfo::new(TreeRoot {
            id,
            root,
            entries: 0,
            bytes: 0,
        }));
        trees.insert(id, info.clone());
        Ok(info)
    }

    pub(crate) fn remove_tree(&self, id: u32) -> Option<Arc<TreeInfo>> {
        let info = self.trees.lock().remove(&id)?;
        info.dropped.store(true, Ordering::Release);
        Some(info)
    }

    pub(crate) fn next_chain_id(&self) -> u64 {
        self.next_chain.fetch_add(1, Ordering::Relaxed)
    }

    pub(crate) fn alloc_lpn(&self) -> PageNo {
        self.space.lock().alloc_lpn()
    }

    pub(crate) fn free_lpn(&self, lpn: PageNo) {
        self.space.lock().free_lpn(lpn)
    }

    /// Bytes the file takes on disk.
    pub fn size_bytes(&self) -> u64 {
        self.space.lock().n_slots as u64 * PAGE_SIZE as u64
    }

    /// Bytes of memory the page maps of this file take.
    pub fn map_memory_bytes(&self) -> usize {
        self.space.lock().memory_bytes()
    }

    /// (free physical slots, free logical pages), for tests and status output.
    pub fn free_counts(&self) -> (usize, usize) {
        let sp = self.space.lock();
        (sp.free_slot_count(), sp.free_lpn_count())
    }

    /// Logical pages allocated (not free), for tests of space accounting.
    pub fn lpns_in_use(&self) -> usize {
        let sp = self.space.lock();
        sp.lpn_count() - sp.free_lpn_count()
    }

    /// Reads logical page `lpn` into `buf`; false when it has no image on disk.
    pub(super) fn read_page(&self, lpn: PageNo, buf: &mut [u8]) -> Result<bool> {
        let Some(slot) = self.space.lock().slot_of(lpn) else {
            return Ok(false);
        };
        self.file
            .read_at(&mut buf[..PAGE_SIZE], slot as u64 * PAGE_SIZE as u64)?;
        let expect = [PageType::Leaf, PageType::Inner, PageType::Overflow];
        check(buf, &expect, lpn)
            .map_err(|d| self.corrupt(slot as u64, format!("logical page {lpn}: {d}")))?;
        Ok(true)
    }

    /// Takes a free slot, growing the file when there is none.
    pub(super) fn take_slot(&self, sp: &mut Space, for_cut: bool) -> Result<u32> {
        if let Some(s) = sp.take_slot(for_cut) {
            return Ok(s);
        }
        let new_len = sp.n_slots + (sp.n_slots / 8).max(8);
        self.file.set_len(new_len as u64 * PAGE_SIZE as u64)?;
        sp.grow(new_len);
        Ok(sp.take_slot(for_cut).expect("the file just grew"))
    }

    pub(super) fn write_slot(&self, buf: &[u8], slot: u32) -> Result<()> {
        Ok(self
            .file
            .write_at(&buf[..PAGE_SIZE], slot as u64 * PAGE_SIZE as u64)?)
    }

    /// Writes `buf` (sealed) to a fresh slot taken for the current image or the cut;
    /// returns the slot, already marked.
    pub(super) fn write_fresh(&self, buf: &[u8], for_cut: bool) -> Result<u32> {
        let slot = self.take_slot(&mut self.space.lock(), for_cut)?;
        if let Err(e) = self.write_slot(buf, slot) {
            self.space.lock().untake_slot(slot, for_cut);
            return Err(e);
        }
        self.pool.stats.writes.fetch_add(1, Ordering::Relaxed);
        Ok(slot)
    }

    /// Writes back dirty frame `f` (held S or X) holding logical page `lpn` to a fresh
    /// slot; if its image is pending for the cut, the cut takes that slot too.
    pub(super) fn write_back(&self, f: u32, lpn: PageNo) -> Result<()> {
        let seq = self.checkpoint_seq() + 1;
        let slot = with_scratch(|buf| {
            self.pool.copy_frame(f, buf);
            seal_node(buf, seq, lpn)?;
            self.write_fresh(buf, false)
        })?;
        let mut sp = self.space.lock();
        sp.set_current(lpn, slot);
        let flags = &self.pool.frames[f as usize].flags;
        if flags.load(Ordering::Acquire) & PENDING != 0 {
            sp.set_cut(lpn, slot);
        }
        flags.fetch_and(!(super::DIRTY | PENDING), Ordering::Release);
        Ok(())
    }

    /// Copy-on-write for the checkpointer: frame `f` (held X) is about to change while
    /// its image is still pending for the cut.
    pub(super) fn copy_aside(&self, f: u32, lpn: PageNo) {
        let mut buf = AlignedBuf::zeroed(PAGE_SIZE);
        self.pool.copy_frame(f, &mut buf);
        let mut sp = self.space.lock();
        if let Some(cut) = sp.cut.as_mut() {
            if let Some(p) = cut.pending.get_mut(&lpn) {
                if matches!(p, super::space::Pending::InFrame(g) if *g == f) {
                    *p = super::space::Pending::Aside(buf);
                }
            }
        }
        self.pool.frames[f as usize]
            .flags
            .fetch_and(!PENDING, Ordering::Release);
    }

    /// Reads every page of the last durable checkpoint and checks it (CHECK TABLE).
    pub fn verify(&self) -> Result<usize> {
        let _no_checkpoint = self.cut.lock();
        let (slots, map) = {
            let sp = self.space.lock();
            let mut s: Vec<u32> = sp.durable_map_slots.clone();
            s.extend(&sp.durable_dir_slots);
            (s, sp.durable.clone())
        };
        let mut buf = AlignedBuf::zeroed(PAGE_SIZE);
        let mut checked = 0;
        for (lpn, &slot) in map.iter().enumerate() {
            if super::space::is_slot(slot) {
                self.file
                    .read_at(&mut buf, slot as u64 * PAGE_SIZE as u64)?;
                let expect = [PageType::Leaf, PageType::Inner, PageType::Overflow];
                check(&buf, &expect, lpn as u32)
                    .map_err(|d| self.corrupt(slot as u64, format!("logical page {lpn}: {d}")))?;
                checked += 1;
            }
        }
        checked += slots.len();
        Ok(checked)
    }
}

/// Seals a node or overflow page image for writing.
pub(super) fn seal_node(buf: &mut [u8], seq: u64, lpn: PageNo) -> Result<()> {
    let ty = PageType::from_u8(buf[crate::page::H_TYPE])
        .filter(|t| matches!(t, PageType::Leaf | PageType::Inner | PageType::Overflow))
        .ok_or_else(|| StorageError::Invalid(format!("frame of page {lpn} holds no page type")))?;
    crate::page::seal(buf, ty, seq, lpn);
    Ok(())
}

pub(super) fn corrupt(file: &str, page: u64, detail: String) -> StorageError {
    StorageError::Corrupt {
        file: file.to_string(),
        page,
        detail,
    }
}

/// Writes `meta` to its slot (sequence parity).
pub(super) fn write_meta(file: &dyn File, meta: &Meta) -> Result<()> {
    let slot = (meta.seq % 2) as u32;
    let mut buf = AlignedBuf::zeroed(PAGE_SIZE);
    meta.encode(&mut buf);
    crate::page::seal(&mut buf, PageType::Meta, meta.seq, slot);
    file.write_at(&buf, slot as u64 * PAGE_SIZE as u64)?;
    Ok(())
}
