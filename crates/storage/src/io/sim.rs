//! A crash-simulating, fault-injecting in-memory [`FileSystem`] for tests.
//!
//! Modelled on SQLite's crash VFS and redb's `CrashBackend`: every file has a
//! *durable* image (what survives power loss) and a *volatile* image (what the page
//! cache shows). Writes change the volatile image; `sync_data` copies the sectors
//! written since the last sync (and the length) to the durable image.
//! [`SimFileSystem::crash`] throws every unsynced change away;
//! [`SimFileSystem::crash_torn`] keeps a random subset of the unsynced 512-byte
//! sectors instead (a torn write), chosen by a seeded RNG.
//!
//! The namespace is modelled the same way: creating, renaming and removing a file
//! change the volatile namespace; [`FileSystem::sync_dir`] on the parent directory
//! makes them durable. Directories themselves are durable as soon as they are
//! created (a simplification: nothing in Basalt creates directories on a hot path).
//!
//! Fault injection (all counted in calls made after the fault is armed):
//! - [`SimFileSystem::fail_nth_write`] / [`SimFileSystem::fail_nth_sync`]: that call
//!   fails with EIO. A failed sync also *loses* the file's unsynced sectors: the
//!   page cache still shows them but they never reach the durable image, as Linux
//!   does when it marks pages clean after a writeback error.
//!   [`SimFileSystem::fail_all_syncs`]: every sync fails until the crash.
//! - [`SimFileSystem::set_space_limit`]: growing the total size of all files past the
//!   budget fails with ENOSPC; raising the budget makes it work again.
//! - [`SimFileSystem::halt_after_ops`]: after that many more mutating operations
//!   (write, sync, set_len, create, rename, remove, sync_dir), every mutating
//!   operation fails with EIO and changes nothing: the machine is gone. A test that
//!   loops N over `0..=op_count()` of a workload crashes it at every I/O point.
//!
//! After a crash, handles opened before it fail every call (the process that held
//! them is dead). Everything is deterministic given the seed and the order of calls.
//!
//! Invariants:
//! - `durable.len()` and `volatile.len()` are independent; sectors in `dirty` are
//!   exactly those whose volatile content may differ from the durable one.
//! - A mutating call that returns an error changed nothing (except that a failed
//!   sync forgets the dirty sectors, see above).

use super::{File, FileSystem, OpenOptions, IO_ALIGN};
use parking_lot::Mutex;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Granularity of torn writes.
pub const SECTOR: u64 = 512;

type NodeId = u64;

/// SplitMix64: tiny, deterministic, good enough to choose torn sectors.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

#[derive(Default)]
struct Node {
    durable: Vec<u8>,
    volatile: Vec<u8>,
    /// Sector indexes written since the last sync.
    dirty: BTreeSet<u64>,
    /// The volatile length differs from the durable one.
    len_dirty: bool,
}

impl Node {
    fn copy_sector_to_durable(&mut self, sector: u64) {
        let start = (sector * SECTOR) as usize;
        if start >= self.volatile.len() {
            return;
        }
        let end = (start + SECTOR as usize).min(self.volatile.len());
        if self.durable.len() < end {
            self.durable.resize(end, 0);
        }
        self.durable[start..end].copy_from_slice(&self.volatile[start..end]);
    }
}

/// Counters of calls, for tests and for the "crash at every point" loops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimCounters {
    /// Mutating operations attempted (write, sync, set_len, create, rename, remove,
    /// sync_dir).
    pub ops: u64,
    pub writes: u64,
    /// `sync_data` and `sync_dir` calls.
    pub syncs: u64,
}

#[derive(Default)]
struct Faults {
    fail_write_at: Option<u64>,
    fail_sync_at: Option<u64>,
    /// Every sync fails until [`SimFileSystem::crash`].
    fail_all_syncs: bool,
    halt_after_op: Option<u64>,
    space_limit: Option<u64>,
}

struct State {
    generation: u64,
    names: BTreeMap<PathBuf, NodeId>,
    durable_names: BTreeMap<PathBuf, NodeId>,
    dirs: BTreeSet<PathBuf>,
    nodes: HashMap<NodeId, Node>,
    next_node: NodeId,
    rng: Rng,
    faults: Faults,
    counters: SimCounters,
    direct_supported: bool,
    sync_latency: Duration,
}

/// EIO keeps its errno (callers may test it); `what` only documents the call site.
fn eio(_what: &str) -> io::Error {
    io::Error::from_raw_os_error(libc::EIO)
}

fn enospc() -> io::Error {
    io::Error::from_raw_os_error(libc::ENOSPC)
}

fn parent_of(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

impl State {
    /// Counts a mutating operation; fails once the machine has halted.
    fn tick(&mut self) -> io::Result<()> {
        self.counters.ops += 1;
        match self.faults.halt_after_op {
            Some(limit) if self.counters.ops > limit => Err(eio("machine halted")),
            _ => Ok(()),
        }
    }

    fn used_bytes(&self) -> u64 {
        let live: BTreeSet<NodeId> = self.names.values().copied().collect();
        live.iter()
            .filter_map(|id| self.nodes.get(id))
            .map(|n| n.volatile.len() as u64)
            .sum()
    }

    /// ENOSPC when growing `node` to `new_len` would exceed the space budget.
    fn check_space(&self, node: NodeId, new_len: u64) -> io::Result<()> {
        let Some(limit) = self.faults.space_limit else {
            return Ok(());
        };
        let cur = self.nodes.get(&node).map_or(0, |n| n.volatile.len() as u64);
        if new_len <= cur {
            return Ok(());
        }
        if self.used_bytes() + (new_len - cur) > limit {
            return Err(enospc());
        }
        Ok(())
    }

    fn node_mut(&mut self, id: NodeId) -> io::Result<&mut Node> {
        self.nodes
            .get_mut(&id)
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "simulated file vanished"))
    }

    fn write(&mut self, id: NodeId, buf: &[u8], offset: u64) -> io::Result<()> {
        self.tick()?;
        self.counters.writes += 1;
        if self.faults.fail_write_at == Some(self.counters.writes) {
            self.faults.fail_write_at = None;
            return Err(eio("injected write failure"));
        }
        let end = offset + buf.len() as u64;
        self.check_space(id, end)?;
        let node = self.node_mut(id)?;
        if end as usize > node.volatile.len() {
            node.volatile.resize(end as usize, 0);
            node.len_dirty = true;
        }
        node.volatile[offset as usize..end as usize].copy_from_slice(buf);
        if !buf.is_empty() {
            node.dirty.extend(offset / SECTOR..=(end - 1) / SECTOR);
        }
        Ok(())
    }

    /// First half of a sync: the sectors it will make durable (taken out of the
    /// dirty set), or the injected failure.
    fn begin_sync(&mut self, id: NodeId) -> io::Result<BTreeSet<u64>> {
        self.tick()?;
        self.counters.syncs += 1;
        let fail =
            self.faults.fail_all_syncs || self.faults.fail_sync_at == Some(self.counters.syncs);
        let node = self.node_mut(id)?;
        let dirty = std::mem::take(&mut node.dirty);
        if fail {
            // Linux marks the pages clean after a writeback error: the data stays in
            // the page cache but will never reach the disk.
            self.faults.fail_sync_at = None;
            return Err(eio("injected fsync failure"));
        }
        Ok(dirty)
    }

    fn finish_sync(&mut self, id: NodeId, sectors: BTreeSet<u64>) -> io::Result<()> {
        let node = self.node_mut(id)?;
        let len = node.volatile.len();
        node.durable.resize(len, 0);
        node.len_dirty = false;
        for s in sectors {
            node.copy_sector_to_durable(s);
        }
        Ok(())
    }

    fn set_len(&mut self, id: NodeId, len: u64) -> io::Result<()> {
        self.tick()?;
        self.check_space(id, len)?;
        let node = self.node_mut(id)?;
        node.volatile.resize(len as usize, 0);
        node.len_dirty = true;
        let first_gone = len.div_ceil(SECTOR);
        node.dirty.retain(|&s| s < first_gone);
        Ok(())
    }

    fn sync_dir(&mut self, dir: &Path) -> io::Result<()> {
        self.tick()?;
        self.counters.syncs += 1;
        if self.faults.fail_all_syncs || self.faults.fail_sync_at == Some(self.counters.syncs) {
            self.faults.fail_sync_at = None;
            return Err(eio("injected directory fsync failure"));
        }
        self.durable_names.retain(|p, _| parent_of(p) != dir);
        for (p, id) in &self.names {
            if parent_of(p) == dir {
                self.durable_names.insert(p.clone(), *id);
            }
        }
        Ok(())
    }

    fn crash(&mut self, tear: bool) {
        self.generation += 1;
        let mut ids: Vec<NodeId> = self.nodes.keys().copied().collect();
        ids.sort_unstable();
        for id in ids {
            let node = self.nodes.get_mut(&id).expect("id listed above");
            if tear {
                if node.len_dirty && self.rng.coin() {
                    let len = node.volatile.len();
                    node.durable.resize(len, 0);
                }
                let sectors: Vec<u64> = node.dirty.iter().copied().collect();
                for s in sectors {
                    if self.rng.coin() {
                        node.copy_sector_to_durable(s);
                    }
                }
            }
            node.volatile = node.durable.clone();
            node.dirty.clear();
            node.len_dirty = false;
        }
        self.names = self.durable_names.clone();
        let live: BTreeSet<NodeId> = self.names.values().copied().collect();
        self.nodes.retain(|id, _| live.contains(id));
        self.faults.fail_write_at = None;
        self.faults.fail_sync_at = None;
        self.faults.fail_all_syncs = false;
        self.faults.halt_after_op = None;
    }
}

/// The in-memory file system. Cheap to clone; clones share the same state.
#[derive(Clone)]
pub struct SimFileSystem {
    state: Arc<Mutex<State>>,
}

impl SimFileSystem {
    /// An empty file system whose torn writes are chosen by `seed`.
    pub fn new(seed: u64) -> Self {
        let state = State {
            generation: 0,
            names: BTreeMap::new(),
            durable_names: BTreeMap::new(),
            dirs: BTreeSet::from([PathBuf::from("/")]),
            nodes: HashMap::new(),
            next_node: 1,
            rng: Rng(seed),
            faults: Faults::default(),
            counters: SimCounters::default(),
            direct_supported: true,
            sync_latency: Duration::ZERO,
        };
        SimFileSystem {
            state: Arc::new(Mutex::new(state)),
        }
    }

    /// Power loss: every change not made durable by a sync is lost.
    pub fn crash(&self) {
        self.state.lock().crash(false);
    }

    /// Power loss in the middle of writeback: each unsynced 512-byte sector (and an
    /// unsynced length change) survives with probability 1/2.
    pub fn crash_torn(&self) {
        self.state.lock().crash(true);
    }

    /// The `n`-th `write_at` from now (1 = the next one) fails with EIO.
    pub fn fail_nth_write(&self, n: u64) {
        let mut st = self.state.lock();
        st.faults.fail_write_at = Some(st.counters.writes + n);
    }

    /// The `n`-th sync (`sync_data` or `sync_dir`) from now fails with EIO.
    pub fn fail_nth_sync(&self, n: u64) {
        let mut st = self.state.lock();
        st.faults.fail_sync_at = Some(st.counters.syncs + n);
    }

    /// Every sync from now on fails with EIO (and loses the file's unsynced
    /// sectors) until [`Self::crash`]: whichever thread syncs first, a commit's own
    /// log sync fails too.
    pub fn fail_all_syncs(&self) {
        self.state.lock().faults.fail_all_syncs = true;
    }

    /// After `n` more mutating operations succeed, every later one fails with EIO
    /// until [`Self::crash`]. `None` disarms.
    pub fn halt_after_ops(&self, n: Option<u64>) {
        let mut st = self.state.lock();
        st.faults.halt_after_op = n.map(|n| st.counters.ops + n);
    }

    /// Total bytes all files may occupy; `None` is unlimited.
    pub fn set_space_limit(&self, limit: Option<u64>) {
        self.state.lock().faults.space_limit = limit;
    }

    /// Bytes currently occupied by all files (volatile sizes).
    pub fn used_bytes(&self) -> u64 {
        self.state.lock().used_bytes()
    }

    /// Whether files asked for O_DIRECT get it (default true). Direct files check
    /// the alignment of buffers, offsets and lengths.
    pub fn set_direct_supported(&self, yes: bool) {
        self.state.lock().direct_supported = yes;
    }

    /// Makes each `sync_data` take this long (outside the lock), so that concurrent
    /// callers pile up as they do on a real disk.
    pub fn set_sync_latency(&self, latency: Duration) {
        self.state.lock().sync_latency = latency;
    }

    pub fn counters(&self) -> SimCounters {
        self.state.lock().counters
    }

    /// The durable content of a file, if its name is durable.
    pub fn durable_image(&self, path: &Path) -> Option<Vec<u8>> {
        let st = self.state.lock();
        let id = st.durable_names.get(path)?;
        st.nodes.get(id).map(|n| n.durable.clone())
    }

    /// Flips one bit in both images, as media corruption would.
    pub fn flip_bit(&self, path: &Path, offset: u64, bit: u8) -> io::Result<()> {
        self.corrupt(path, offset, 1, |b| {
            b.iter_mut().for_each(|x| *x ^= 1 << bit)
        })
    }

    /// Zeroes a range in both images.
    pub fn zero_range(&self, path: &Path, offset: u64, len: u64) -> io::Result<()> {
        self.corrupt(path, offset, len, |b| b.fill(0))
    }

    fn corrupt(&self, path: &Path, offset: u64, len: u64, f: impl Fn(&mut [u8])) -> io::Result<()> {
        let mut st = self.state.lock();
        let id = *st
            .names
            .get(path)
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such simulated file"))?;
        let node = st.node_mut(id)?;
        let range = offset as usize..(offset + len) as usize;
        for image in [&mut node.durable, &mut node.volatile] {
            if range.end <= image.len() {
                f(&mut image[range.clone()]);
            }
        }
        Ok(())
    }

    fn handle(&self, id: NodeId, generation: u64, direct: bool) -> Arc<dyn File> {
        Arc::new(SimFile {
            state: self.state.clone(),
            id,
            generation,
            direct,
        })
    }
}

impl FileSystem for SimFileSystem {
    fn open(&self, path: &Path, opts: OpenOptions) -> io::Result<Arc<dyn File>> {
        let mut st = self.state.lock();
        let direct = opts.direct && st.direct_supported;
        let generation = st.generation;
        if let Some(&id) = st.names.get(path) {
            return Ok(self.handle(id, generation, direct));
        }
        if !opts.create {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "no such simulated file",
            ));
        }
        if !st.dirs.contains(&parent_of(path)) {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "no such simulated directory",
            ));
        }
        st.tick()?;
        let id = st.next_node;
        st.next_node += 1;
        st.nodes.insert(id, Node::default());
        st.names.insert(path.to_path_buf(), id);
        Ok(self.handle(id, generation, direct))
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        let mut st = self.state.lock();
        if !st.names.contains_key(path) {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "no such simulated file",
            ));
        }
        st.tick()?;
        st.names.remove(path);
        Ok(())
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut st = self.state.lock();
        let Some(&id) = st.names.get(from) else {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "no such simulated file",
            ));
        };
        st.tick()?;
        st.names.remove(from);
        st.names.insert(to.to_path_buf(), id);
        Ok(())
    }

    fn exists(&self, path: &Path) -> bool {
        let st = self.state.lock();
        st.names.contains_key(path) || st.dirs.contains(path)
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        let mut st = self.state.lock();
        for dir in path.ancestors() {
            if !dir.as_os_str().is_empty() {
                st.dirs.insert(dir.to_path_buf());
            }
        }
        Ok(())
    }

    fn list_dir(&self, path: &Path) -> io::Result<Vec<PathBuf>> {
        let st = self.state.lock();
        if !st.dirs.contains(path) {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "no such simulated directory",
            ));
        }
        let files = st.names.keys().filter(|p| parent_of(p) == path);
        let dirs = st
            .dirs
            .iter()
            .filter(|p| p.as_path() != path && parent_of(p) == path);
        Ok(files.chain(dirs).cloned().collect())
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.state.lock().sync_dir(dir)
    }
}

struct SimFile {
    state: Arc<Mutex<State>>,
    id: NodeId,
    generation: u64,
    direct: bool,
}

impl SimFile {
    fn lock(&self) -> io::Result<parking_lot::MutexGuard<'_, State>> {
        let st = self.state.lock();
        if st.generation != self.generation {
            return Err(io::Error::other("handle opened before a simulated crash"));
        }
        Ok(st)
    }

    fn check_align(&self, ptr: *const u8, len: usize, offset: u64) -> io::Result<()> {
        let misaligned = (ptr as usize | len | offset as usize) & (IO_ALIGN - 1) != 0;
        if self.direct && misaligned {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        Ok(())
    }
}

impl File for SimFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.check_align(buf.as_ptr(), buf.len(), offset)?;
        let mut st = self.lock()?;
        let node = st.node_mut(self.id)?;
        let end = offset as usize + buf.len();
        if end > node.volatile.len() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "read past end",
            ));
        }
        buf.copy_from_slice(&node.volatile[offset as usize..end]);
        Ok(())
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.check_align(buf.as_ptr(), buf.len(), offset)?;
        self.lock()?.write(self.id, buf, offset)
    }

    fn sync_data(&self) -> io::Result<()> {
        let (sectors, latency) = {
            let mut st = self.lock()?;
            (st.begin_sync(self.id)?, st.sync_latency)
        };
        if !latency.is_zero() {
            std::thread::sleep(latency);
        }
        self.lock()?.finish_sync(self.id, sectors)
    }

    fn len(&self) -> io::Result<u64> {
        let mut st = self.lock()?;
        Ok(st.node_mut(self.id)?.volatile.len() as u64)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.lock()?.set_len(self.id, len)
    }

    fn is_direct(&self) -> bool {
        self.direct
    }

    fn drop_cache(&self, _offset: u64, _len: u64) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::AlignedBuf;

    fn setup() -> (SimFileSystem, Arc<dyn File>, PathBuf) {
        let fs = SimFileSystem::new(7);
        fs.create_dir_all(Path::new("/d"))
            .expect("no fault is armed for this call");
        let p = PathBuf::from("/d/f");
        let f = fs
            .open(
                &p,
                OpenOptions {
                    create: true,
                    direct: false,
                },
            )
            .expect("no fault is armed for this call");
        fs.sync_dir(Path::new("/d"))
            .expect("no fault is armed for this call");
        (fs, f, p)
    }

    fn reopen(fs: &SimFileSystem, p: &Path) -> Arc<dyn File> {
        fs.open(p, OpenOptions::default())
            .expect("no fault is armed for this call")
    }

    fn read_all(f: &Arc<dyn File>) -> Vec<u8> {
        let mut v = vec![0; f.len().expect("no fault is armed for this call") as usize];
        f.read_at(&mut v, 0)
            .expect("no fault is armed for this call");
        v
    }

    #[test]
    fn unsynced_writes_are_lost_synced_ones_kept() {
        let (fs, f, p) = setup();
        f.write_at(b"hello", 0)
            .expect("no fault is armed for this call");
        f.sync_data().expect("no fault is armed for this call");
        f.write_at(b"world", 5)
            .expect("no fault is armed for this call");
        assert_eq!(read_all(&f), b"helloworld");
        fs.crash();
        assert!(f.len().is_err(), "old handles die with the crash");
        assert_eq!(read_all(&reopen(&fs, &p)), b"hello");
    }

    #[test]
    fn torn_crash_keeps_a_subset_of_sectors() {
        let (fs, f, p) = setup();
        f.write_at(&vec![1u8; 64 * 512], 0)
            .expect("no fault is armed for this call");
        f.sync_data().expect("no fault is armed for this call");
        f.write_at(&vec![2u8; 64 * 512], 0)
            .expect("no fault is armed for this call");
        fs.crash_torn();
        let img = read_all(&reopen(&fs, &p));
        let new = img
            .chunks(512)
            .filter(|s| s.iter().all(|&b| b == 2))
            .count();
        let old = img
            .chunks(512)
            .filter(|s| s.iter().all(|&b| b == 1))
            .count();
        assert_eq!(new + old, 64, "every sector is wholly old or wholly new");
        assert!(new > 0 && old > 0, "a 50% coin over 64 sectors gives a mix");
    }

    #[test]
    fn tearing_is_deterministic_for_a_seed() {
        let run = || {
            let (fs, f, p) = setup();
            f.write_at(&vec![9u8; 32 * 512], 0)
                .expect("no fault is armed for this call");
            fs.crash_torn();
            fs.durable_image(&p)
                .expect("no fault is armed for this call")
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn directory_entries_need_sync_dir() {
        let fs = SimFileSystem::new(1);
        fs.create_dir_all(Path::new("/d"))
            .expect("no fault is armed for this call");
        let a = Path::new("/d/a");
        let f = fs
            .open(
                a,
                OpenOptions {
                    create: true,
                    direct: false,
                },
            )
            .expect("no fault is armed for this call");
        f.write_at(b"x", 0)
            .expect("no fault is armed for this call");
        f.sync_data().expect("no fault is armed for this call");
        fs.crash();
        assert!(!fs.exists(a), "creation was not durable");

        let f = fs
            .open(
                a,
                OpenOptions {
                    create: true,
                    direct: false,
                },
            )
            .expect("no fault is armed for this call");
        f.write_at(b"x", 0)
            .expect("no fault is armed for this call");
        f.sync_data().expect("no fault is armed for this call");
        fs.sync_dir(Path::new("/d"))
            .expect("no fault is armed for this call");
        fs.rename(a, Path::new("/d/b"))
            .expect("no fault is armed for this call");
        fs.crash();
        assert!(
            fs.exists(a) && !fs.exists(Path::new("/d/b")),
            "rename not durable"
        );
        fs.rename(a, Path::new("/d/b"))
            .expect("no fault is armed for this call");
        fs.sync_dir(Path::new("/d"))
            .expect("no fault is armed for this call");
        fs.remove(Path::new("/d/b"))
            .expect("no fault is armed for this call");
        assert_eq!(
            fs.list_dir(Path::new("/d"))
                .expect("no fault is armed for this call")
                .len(),
            0
        );
        fs.crash();
        assert_eq!(
            fs.list_dir(Path::new("/d"))
                .expect("no fault is armed for this call"),
            vec![PathBuf::from("/d/b")]
        );
    }

    #[test]
    fn nth_write_and_sync_fail_once() {
        let (fs, f, p) = setup();
        fs.fail_nth_write(2);
        f.write_at(b"a", 0)
            .expect("no fault is armed for this call");
        assert_eq!(
            f.write_at(b"b", 1).unwrap_err().raw_os_error(),
            Some(libc::EIO)
        );
        f.write_at(b"c", 1)
            .expect("no fault is armed for this call");
        fs.fail_nth_sync(1);
        assert!(f.sync_data().is_err());
        // The failed sync forgot the dirty sectors: a later "successful" sync does not
        // make them durable (fsyncgate).
        f.sync_data().expect("no fault is armed for this call");
        assert_eq!(read_all(&f), b"ac");
        fs.crash();
        // The length reached the disk with the later sync; the data never did.
        assert_eq!(read_all(&reopen(&fs, &p)), vec![0, 0]);
    }

    #[test]
    fn space_limit_gives_enospc_until_raised() {
        let (fs, f, _) = setup();
        fs.set_space_limit(Some(8192));
        f.set_len(8192).expect("no fault is armed for this call");
        f.write_at(&[1; 100], 8000)
            .expect("no fault is armed for this call");
        let err = f.write_at(&[1; 100], 8150).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOSPC));
        assert_eq!(
            f.set_len(9000).unwrap_err().raw_os_error(),
            Some(libc::ENOSPC)
        );
        fs.set_space_limit(Some(16384));
        f.set_len(9000).expect("no fault is armed for this call");
        assert_eq!(fs.used_bytes(), 9000);
    }

    #[test]
    fn halt_after_ops_stops_every_mutation() {
        let (fs, f, p) = setup();
        fs.halt_after_ops(Some(2));
        f.write_at(b"ab", 0)
            .expect("no fault is armed for this call");
        f.sync_data().expect("no fault is armed for this call");
        assert!(f.write_at(b"cd", 2).is_err());
        assert!(f.sync_data().is_err());
        assert!(fs
            .open(
                Path::new("/d/g"),
                OpenOptions {
                    create: true,
                    direct: false
                }
            )
            .is_err());
        assert_eq!(read_all(&f), b"ab");
        fs.crash();
        let f = reopen(&fs, &p);
        f.write_at(b"cd", 2)
            .expect("no fault is armed for this call");
        assert_eq!(read_all(&f), b"abcd");
    }

    #[test]
    fn direct_files_check_alignment() {
        let fs = SimFileSystem::new(1);
        fs.create_dir_all(Path::new("/d"))
            .expect("no fault is armed for this call");
        let f = fs
            .open(
                Path::new("/d/f"),
                OpenOptions {
                    create: true,
                    direct: true,
                },
            )
            .expect("no fault is armed for this call");
        assert!(f.is_direct());
        let buf = AlignedBuf::zeroed(4096);
        f.write_at(&buf, 4096)
            .expect("no fault is armed for this call");
        assert!(f.write_at(&buf[..512], 0).is_err());
        assert!(f.write_at(&buf, 512).is_err());
        fs.set_direct_supported(false);
        let g = fs
            .open(
                Path::new("/d/g"),
                OpenOptions {
                    create: true,
                    direct: true,
                },
            )
            .expect("no fault is armed for this call");
        assert!(!g.is_direct());
        g.write_at(b"unaligned is fine", 3)
            .expect("no fault is armed for this call");
    }

    #[test]
    fn sync_makes_length_durable_and_set_len_shrinks() {
        let (fs, f, p) = setup();
        f.set_len(4096).expect("no fault is armed for this call");
        f.sync_data().expect("no fault is armed for this call");
        f.set_len(100).expect("no fault is armed for this call");
        fs.crash();
        assert_eq!(
            reopen(&fs, &p)
                .len()
                .expect("no fault is armed for this call"),
            4096
        );
        let counters = fs.counters();
        assert!(counters.ops >= 4 && counters.syncs >= 2);
    }
}
