//! Segment files (preallocated, recycled) and the control file.
//!
//! A segment file is a *slot* (`wal-NNNNNN.seg`, numbered in creation order) that
//! holds, at any time, one segment sequence number written in its header. Recycling
//! a slot rewrites its header with a new sequence number; the old frames stay on
//! disk but carry LSNs of the old sequence, so they never match a position of the
//! new one.

use super::format::{self, Control, BLOCK};
use super::Lsn;
use crate::error::StorageError;
use crate::io::{AlignedBuf, File, FileSystem, OpenOptions};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// Maps LSNs to segments and file offsets.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    pub segment_size: u64,
    /// Log bytes per segment: the file minus its header block.
    pub data: u64,
}

impl Geometry {
    pub fn new(segment_size: u64) -> Self {
        Geometry {
            segment_size,
            data: segment_size - BLOCK as u64,
        }
    }

    pub fn seq(&self, lsn: Lsn) -> u64 {
        lsn / self.data
    }

    pub fn start(&self, seq: u64) -> Lsn {
        seq * self.data
    }

    /// Offset of `lsn` inside its segment's data area.
    pub fn offset(&self, lsn: Lsn) -> u64 {
        lsn % self.data
    }

    /// Offset of `lsn` in its segment file.
    pub fn file_offset(&self, lsn: Lsn) -> u64 {
        BLOCK as u64 + self.offset(lsn)
    }
}

/// One segment file.
pub struct Slot {
    pub path: PathBuf,
    pub file: Arc<dyn File>,
}

/// Which slot holds which segment.
#[derive(Default)]
pub struct SlotMap {
    /// Segments with a valid header, by sequence number.
    pub by_seq: BTreeMap<u64, Arc<Slot>>,
    /// Slots whose content is no longer needed.
    pub free: Vec<Arc<Slot>>,
    pub next_slot: u32,
    /// Highest sequence number ever seen or written in this directory.
    pub max_seq: Option<u64>,
}

/// How preparing a segment failed.
pub enum PrepareError {
    /// No space for a new segment file: the log is full until space is freed.
    Full(io::Error),
    /// A write or fsync of a segment header failed: fatal.
    Fatal(io::Error),
    /// Anything else (the directory could not be read, ...).
    Other(io::Error),
}

impl From<PrepareError> for StorageError {
    fn from(e: PrepareError) -> Self {
        match e {
            PrepareError::Full(e) => {
                StorageError::DiskFull(format!("no space for a log segment: {e}"))
            }
            PrepareError::Fatal(e) | PrepareError::Other(e) => StorageError::Io(e),
        }
    }
}

pub struct Segments {
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    pub geo: Geometry,
    direct: bool,
    zero_fill: bool,
    pub map: Mutex<SlotMap>,
    /// Fsyncs issued preparing segments.
    pub syncs: AtomicU64,
    /// Serialises segment preparation (I/O happens under it, never under `map`).
    prepare_lock: Mutex<()>,
}

fn slot_path(dir: &Path, id: u32) -> PathBuf {
    dir.join(format!("wal-{id:06}.seg"))
}

fn slot_id(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?;
    name.strip_prefix("wal-")?
        .strip_suffix(".seg")?
        .parse()
        .ok()
}

fn is_enospc(e: &io::Error) -> bool {
    e.raw_os_error() == Some(libc::ENOSPC)
}

impl Segments {
    /// Opens every slot in `dir` and reads its header.
    pub fn open(
        fs: Arc<dyn FileSystem>,
        dir: &Path,
        geo: Geometry,
        direct: bool,
        zero_fill: bool,
    ) -> io::Result<Self> {
        let mut map = SlotMap::default();
        let mut paths: Vec<(u32, PathBuf)> = fs
            .list_dir(dir)?
            .into_iter()
            .filter_map(|p| slot_id(&p).map(|id| (id, p)))
            .collect();
        paths.sort();
        for (id, path) in paths {
            map.next_slot = map.next_slot.max(id + 1);
            let file = fs.open(
                &path,
                OpenOptions {
                    create: false,
                    direct,
                },
            )?;
            let slot = Arc::new(Slot { path, file });
            match read_header(&slot.file)? {
                Some((seq, size)) if size == geo.segment_size && !map.by_seq.contains_key(&seq) => {
                    map.max_seq = map.max_seq.max(Some(seq));
                    map.by_seq.insert(seq, slot);
                }
                _ => map.free.push(slot),
            }
        }
        Ok(Segments {
            fs,
            dir: dir.to_path_buf(),
            geo,
            direct,
            zero_fill,
            map: Mutex::new(map),
            syncs: AtomicU64::new(0),
            prepare_lock: Mutex::new(()),
        })
    }

    pub fn file(&self, seq: u64) -> Option<Arc<dyn File>> {
        self.map.lock().by_seq.get(&seq).map(|s| s.file.clone())
    }

    pub fn snapshot(&self) -> BTreeMap<u64, Arc<dyn File>> {
        self.map
            .lock()
            .by_seq
            .iter()
            .map(|(&s, slot)| (s, slot.file.clone()))
            .collect()
    }

    pub fn max_seq(&self) -> Option<u64> {
        self.map.lock().max_seq
    }

    /// Frees every segment not in `keep` (after recovery: only the chain read from
    /// the checkpoint to the end of the log is needed).
    pub fn free_all_but(&self, keep: &[u64]) {
        let mut map = self.map.lock();
        let drop: Vec<u64> = map
            .by_seq
            .keys()
            .copied()
            .filter(|s| !keep.contains(s))
            .collect();
        for seq in drop {
            let slot = map.by_seq.remove(&seq).expect("key listed above");
            map.free.push(slot);
        }
    }

    /// Frees every segment below `seq` (a checkpoint moved past them).
    pub fn recycle_below(&self, seq: u64) -> usize {
        let mut map = self.map.lock();
        let keep = map.by_seq.split_off(&seq);
        let old = std::mem::replace(&mut map.by_seq, keep);
        let n = old.len();
        for (_, slot) in old {
            if !self.direct {
                slot.file.drop_cache(0, self.geo.segment_size);
            }
            map.free.push(slot);
        }
        n
    }

    /// Deletes free slots beyond `keep` (a burst without checkpoints created many).
    /// Free slots hold nothing needed, so a crash half-way through is harmless.
    pub fn trim_free(&self, keep: usize) {
        let extra: Vec<Arc<Slot>> = {
            let mut map = self.map.lock();
            let n = map.free.len().saturating_sub(keep);
            map.free.drain(..n).collect()
        };
        if extra.is_empty() {
            return;
        }
        for slot in &extra {
            if let Err(e) = self.fs.remove(&slot.path) {
                tracing::warn!(path = %slot.path.display(), error = %e, "could not remove a log segment");
            }
        }
        if let Err(e) = self.fs.sync_dir(&self.dir) {
            tracing::warn!(error = %e, "could not sync the log directory");
        }
        self.syncs.fetch_add(1, Relaxed);
    }

    /// Gives `seq` a slot and makes its header durable. Must not already exist.
    pub fn prepare(&self, seq: u64) -> Result<(), PrepareError> {
        let _guard = self.prepare_lock.lock();
        if self.map.lock().by_seq.contains_key(&seq) {
            return Ok(());
        }
        let recycled = self.map.lock().free.pop();
        let slot = match recycled {
            Some(slot) => slot,
            None => self.create_slot()?,
        };
        if let Err(e) = self.ensure_len(&slot) {
            self.map.lock().free.push(slot);
            return Err(e);
        }
        let mut block = AlignedBuf::zeroed(BLOCK);
        format::encode_segment_header(&mut block, seq, self.geo.segment_size);
        slot.file.write_at(&block, 0).map_err(PrepareError::Fatal)?;
        slot.file.sync_data().map_err(PrepareError::Fatal)?;
        self.syncs.fetch_add(1, Relaxed);
        let mut map = self.map.lock();
        map.max_seq = map.max_seq.max(Some(seq));
        map.by_seq.insert(seq, slot);
        Ok(())
    }

    /// A slot whose file might be short (its creation was cut by a crash).
    fn ensure_len(&self, slot: &Slot) -> Result<(), PrepareError> {
        let len = slot.file.len().map_err(PrepareError::Other)?;
        if len >= self.geo.segment_size {
            return Ok(());
        }
        slot.file.set_len(self.geo.segment_size).map_err(|e| {
            if is_enospc(&e) {
                PrepareError::Full(e)
            } else {
                PrepareError::Other(e)
            }
        })?;
        if self.zero_fill {
            zero_fill(&slot.file, self.geo.segment_size)?;
        }
        slot.file.sync_data().map_err(PrepareError::Fatal)?;
        self.syncs.fetch_add(1, Relaxed);
        Ok(())
    }

    /// Creates and preallocates a new slot file, durable in the directory.
    fn create_slot(&self) -> Result<Arc<Slot>, PrepareError> {
        let id = {
            let mut map = self.map.lock();
            map.next_slot += 1;
            map.next_slot - 1
        };
        let path = slot_path(&self.dir, id);
        let opts = OpenOptions {
            create: true,
            direct: self.direct,
        };
        let file = self.fs.open(&path, opts).map_err(PrepareError::Other)?;
        if let Err(e) = file.set_len(self.geo.segment_size) {
            // Give the space back; a stray short file would be reused as a free slot.
            let _ = self.fs.remove(&path);
            return Err(if is_enospc(&e) {
                PrepareError::Full(e)
            } else {
                PrepareError::Other(e)
            });
        }
        if self.zero_fill {
            zero_fill(&file, self.geo.segment_size)?;
        }
        file.sync_data().map_err(PrepareError::Fatal)?;
        self.fs.sync_dir(&self.dir).map_err(PrepareError::Fatal)?;
        self.syncs.fetch_add(2, Relaxed);
        Ok(Arc::new(Slot { path, file }))
    }

    /// Slots in use and free (for stats and tests).
    pub fn counts(&self) -> (usize, usize) {
        let map = self.map.lock();
        (map.by_seq.len(), map.free.len())
    }
}

/// Writes zeros over a new segment file. `set_len` allocates blocks but leaves them
/// *unwritten* (ext4, XFS): the first write into one converts it, a metadata change
/// that makes that commit's fsync as slow as growing the file. Writing the zeros
/// once, off the commit path, makes every later log write a true overwrite (as
/// PostgreSQL's `wal_init_zero` and InnoDB do).
fn zero_fill(file: &Arc<dyn File>, len: u64) -> Result<(), PrepareError> {
    const CHUNK: u64 = 1 << 20;
    let zeros = AlignedBuf::zeroed(CHUNK.min(len) as usize);
    let mut at = 0;
    while at < len {
        let n = CHUNK.min(len - at) as usize;
        file.write_at(&zeros[..n], at)
            .map_err(PrepareError::Fatal)?;
        at += n as u64;
    }
    Ok(())
}

fn read_header(file: &Arc<dyn File>) -> io::Result<Option<(u64, u64)>> {
    if file.len()? < BLOCK as u64 {
        return Ok(None);
    }
    let mut block = AlignedBuf::zeroed(BLOCK);
    file.read_at(&mut block, 0)?;
    Ok(format::decode_segment_header(&block))
}

/// The control file: two copies of the control block, written alternately.
pub struct ControlFile {
    file: Arc<dyn File>,
    pub current: Control,
}

impl ControlFile {
    const NAME: &'static str = "control";

    /// Reads the control file, or creates it (durably) for a new log.
    /// Returns the control file and whether it was created.
    pub fn open_or_create(
        fs: &Arc<dyn FileSystem>,
        dir: &Path,
        segment_size: u64,
        direct: bool,
    ) -> io::Result<(ControlFile, bool)> {
        let path = dir.join(Self::NAME);
        if fs.exists(&path) {
            let file = fs.open(
                &path,
                OpenOptions {
                    create: false,
                    direct,
                },
            )?;
            if let Some(current) = Self::read(&file)? {
                return Ok((ControlFile { file, current }, false));
            }
            // No valid copy: a creation cut short by a crash, unless the log has
            // segments (then the checkpoint is unknown and guessing could lose data).
            if fs.list_dir(dir)?.iter().any(|p| slot_id(p).is_some()) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "log control file is unreadable (both copies damaged)",
                ));
            }
        }
        let file = fs.open(
            &path,
            OpenOptions {
                create: true,
                direct,
            },
        )?;
        file.set_len(2 * BLOCK as u64)?;
        let mut ctl = ControlFile {
            file,
            current: Control {
                generation: 0,
                segment_size,
                checkpoint: 0,
            },
        };
        ctl.store(0)?;
        fs.sync_dir(dir)?;
        Ok((ctl, true))
    }

    pub fn is_direct(&self) -> bool {
        self.file.is_direct()
    }

    fn read(file: &Arc<dyn File>) -> io::Result<Option<Control>> {
        if file.len()? < 2 * BLOCK as u64 {
            return Ok(None);
        }
        let mut buf = AlignedBuf::zeroed(2 * BLOCK);
        file.read_at(&mut buf, 0)?;
        let a = format::decode_control(&buf[..BLOCK]);
        let b = format::decode_control(&buf[BLOCK..]);
        Ok(match (a, b) {
            (Some(a), Some(b)) => Some(if a.generation >= b.generation { a } else { b }),
            (a, b) => a.or(b),
        })
    }

    /// Durably records a new checkpoint LSN (write the other copy, then fsync).
    pub fn store(&mut self, checkpoint: Lsn) -> io::Result<()> {
        let next = Control {
            generation: self.current.generation + 1,
            segment_size: self.current.segment_size,
            checkpoint,
        };
        let mut block = AlignedBuf::zeroed(BLOCK);
        format::encode_control(&mut block, &next);
        let offset = (next.generation % 2) * BLOCK as u64;
        self.file.write_at(&block, offset)?;
        self.file.sync_data()?;
        self.current = next;
        Ok(())
    }
}
