//! External sort of (key, value) entries within a memory budget.
//!
//! Entries collect in memory until their bytes pass the budget; then they are sorted
//! and written as a run to a file in the store's scratch directory, and collection
//! starts again. [`Sorter::finish`] sorts what is left in memory and merges it with
//! the runs (a k-way merge through a binary heap of each run's next entry), lending
//! the entries in ascending key order. Without a scratch directory everything stays
//! in memory.
//!
//! Run files are named `<prefix>-<n>.run` and are removed when the sorter or the
//! merge that owns them is dropped, whether the sort finished or failed; the durable
//! engine empties the scratch directory at start, which removes those a crash left.
//!
//! Run format: records back to back, `[data len u32][key len u32][aux u32][key][value]`
//! (little-endian; data is key and value), no header: a run is read only by the
//! process that wrote it.

use crate::api::Result;
use crate::error::StorageError;
use crate::io::{File, FileSystem, OpenOptions};
use crate::store::Scratch;
use std::cmp::Ordering as CmpOrdering;
use std::collections::BinaryHeap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Bytes a sort's entries may take in memory by default (index builds).
pub const DEFAULT_BUDGET: usize = 64 << 20;

/// Memory an entry takes besides its key and value bytes.
const ENTRY_OVERHEAD: usize = std::mem::size_of::<SortEntry>() + 16;
const RECORD_HEADER: usize = 12;
/// Bytes written to or read from a run per I/O.
const IO_CHUNK: usize = 256 << 10;

/// Numbers run files uniquely within the process.
static NEXT_RUN: AtomicU64 = AtomicU64::new(0);

/// One entry: key and value in one allocation, and a word the caller carries along.
pub struct SortEntry {
    data: Vec<u8>,
    klen: u32,
    pub aux: u32,
}

impl SortEntry {
    pub fn key(&self) -> &[u8] {
        &self.data[..self.klen as usize]
    }

    pub fn value(&self) -> &[u8] {
        &self.data[self.klen as usize..]
    }
}

/// A run file, removed when dropped.
struct Run {
    fs: Arc<dyn FileSystem>,
    path: PathBuf,
    file: Option<Arc<dyn File>>,
    len: u64,
}

impl Drop for Run {
    fn drop(&mut self) {
        self.file = None;
        if let Err(e) = self.fs.remove(&self.path) {
            tracing::warn!(path = %self.path.display(), "removing a sort run failed: {e}");
        }
    }
}

/// Collects entries; see the module docs.
pub struct Sorter {
    budget: usize,
    scratch: Option<Scratch>,
    prefix: String,
    mem: Vec<SortEntry>,
    mem_bytes: usize,
    runs: Vec<Run>,
}

impl Sorter {
    /// A sorter keeping at most about `budget` bytes of entries in memory, spilling
    /// runs named after `prefix` into `scratch` (None: never spills).
    pub fn new(budget: usize, scratch: Option<Scratch>, prefix: &str) -> Sorter {
        Sorter {
            budget,
            scratch,
            prefix: prefix.to_string(),
            mem: Vec::new(),
            mem_bytes: 0,
            runs: Vec::new(),
        }
    }

    /// Runs written so far.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    pub fn push(&mut self, key: &[u8], value: &[u8], aux: u32) -> Result<()> {
        let mut data = Vec::with_capacity(key.len() + value.len());
        data.extend_from_slice(key);
        data.extend_from_slice(value);
        self.mem_bytes += data.len() + ENTRY_OVERHEAD;
        self.mem.push(SortEntry {
            data,
            klen: key.len() as u32,
            aux,
        });
        if self.mem_bytes > self.budget && self.scratch.is_some() {
            self.spill()?;
        }
        Ok(())
    }

    /// Sorts the entries in memory and writes them as a new run.
    fn spill(&mut self) -> Result<()> {
        let scratch = self
            .scratch
            .as_ref()
            .expect("spill needs a scratch directory");
        sort(&mut self.mem);
        scratch.fs.create_dir_all(&scratch.dir)?;
        let n = NEXT_RUN.fetch_add(1, Ordering::Relaxed);
        let path = scratch.dir.join(format!("{}-{n}.run", self.prefix));
        let opts = OpenOptions {
            create: true,
            direct: false,
        };
        let file = scratch.fs.open(&path, opts)?;
        let mut run = Run {
            fs: scratch.fs.clone(),
            path,
            file: Some(file.clone()),
            len: 0,
        };
        file.set_len(0)?;
        let mut buf = Vec::with_capacity(IO_CHUNK + RECORD_HEADER);
        for e in self.mem.drain(..) {
            buf.extend_from_slice(&(e.data.len() as u32).to_le_bytes());
            buf.extend_from_slice(&e.klen.to_le_bytes());
            buf.extend_from_slice(&e.aux.to_le_bytes());
            buf.extend_from_slice(&e.data);
            if buf.len() >= IO_CHUNK {
                file.write_at(&buf, run.len)?;
                run.len += buf.len() as u64;
                buf.clear();
            }
        }
        if !buf.is_empty() {
            file.write_at(&buf, run.len)?;
            run.len += buf.len() as u64;
        }
        self.mem_bytes = 0;
        self.runs.push(run);
        Ok(())
    }

    /// The entries in ascending key order.
    pub fn finish(mut self) -> Result<Merge> {
        sort(&mut self.mem);
        let mut sources: Vec<Source> = Vec::with_capacity(self.runs.len() + 1);
        for run in &self.runs {
            let file = run.file.clone().expect("an open run has its file");
            sources.push(Source::File(RunReader::new(file, run.len)));
        }
        sources.push(Source::Mem(std::mem::take(&mut self.mem).into_iter()));
        let mut heap = BinaryHeap::with_capacity(sources.len());
        for (i, s) in sources.iter_mut().enumerate() {
            if let Some(e) = s.next()? {
                heap.push(Head { e, src: i });
            }
        }
        Ok(Merge {
            heap,
            sources,
            cur: None,
            _runs: std::mem::take(&mut self.runs),
        })
    }
}

fn sort(entries: &mut [SortEntry]) {
    entries.sort_unstable_by(|a, b| a.key().cmp(b.key()));
}

/// Where the merge reads a sorted run from.
enum Source {
    Mem(std::vec::IntoIter<SortEntry>),
    File(RunReader),
}

impl Source {
    fn next(&mut self) -> Result<Option<SortEntry>> {
        match self {
            Source::Mem(it) => Ok(it.next()),
            Source::File(r) => r.next(),
        }
    }
}

/// A source's next entry, ordered for a min-heap on the key.
struct Head {
    e: SortEntry,
    src: usize,
}

impl Ord for Head {
    fn cmp(&self, other: &Self) -> CmpOrdering {
        other
            .e
            .key()
            .cmp(self.e.key())
            .then(other.src.cmp(&self.src))
    }
}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == CmpOrdering::Equal
    }
}

impl Eq for Head {}

/// The merged, sorted entries of a [`Sorter`]; owns its run files.
pub struct Merge {
    heap: BinaryHeap<Head>,
    sources: Vec<Source>,
    cur: Option<SortEntry>,
    _runs: Vec<Run>,
}

impl Merge {
    /// The next entry in key order (equal keys in no particular order).
    pub fn next_entry(&mut self) -> Result<Option<&SortEntry>> {
        let Some(Head { e, src }) = self.heap.pop() else {
            self.cur = None;
            return Ok(None);
        };
        if let Some(n) = self.sources[src].next()? {
            self.heap.push(Head { e: n, src });
        }
        self.cur = Some(e);
        Ok(self.cur.as_ref())
    }
}

/// Reads a run file's records in order, a chunk at a time.
struct RunReader {
    file: Arc<dyn File>,
    len: u64,
    pos: u64,
    buf: Vec<u8>,
    at: usize,
}

impl RunReader {
    fn new(file: Arc<dyn File>, len: u64) -> RunReader {
        RunReader {
            file,
            len,
            pos: 0,
            buf: Vec::new(),
            at: 0,
        }
    }

    fn next(&mut self) -> Result<Option<SortEntry>> {
        if !self.fill(RECORD_HEADER)? {
            return Ok(None);
        }
        let h = &self.buf[self.at..self.at + RECORD_HEADER];
        let word = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().expect("4 bytes"));
        let (dlen, klen, aux) = (word(0) as usize, word(4), word(8));
        if klen as usize > dlen {
            return Err(StorageError::Invalid("sort run record damaged".into()));
        }
        self.at += RECORD_HEADER;
        if dlen > 0 && !self.fill(dlen)? {
            return Err(StorageError::Invalid(
                "sort run ends inside a record".into(),
            ));
        }
        let data = self.buf[self.at..self.at + dlen].to_vec();
        self.at += dlen;
        Ok(Some(SortEntry { data, klen, aux }))
    }

    /// Makes `n` unread bytes available; false when the run has no more bytes at
    /// all, an error when it ends with fewer than `n`.
    fn fill(&mut self, n: usize) -> Result<bool> {
        while self.buf.len() - self.at < n {
            if self.pos == self.len {
                if self.buf.len() == self.at {
                    return Ok(false);
                }
                return Err(StorageError::Invalid(
                    "sort run ends inside a record".into(),
                ));
            }
            self.buf.drain(..self.at);
            self.at = 0;
            let want = IO_CHUNK.max(n - self.buf.len()) as u64;
            let chunk = want.min(self.len - self.pos) as usize;
            let old = self.buf.len();
            self.buf.resize(old + chunk, 0);
            self.file.read_at(&mut self.buf[old..], self.pos)?;
            self.pos += chunk as u64;
        }
        Ok(true)
    }
}

/// Removes every file in the scratch directory `dir` (left by a crash).
pub fn clear_scratch(fs: &dyn FileSystem, dir: &std::path::Path) -> Result<usize> {
    if !fs.exists(dir) {
        return Ok(0);
    }
    let files = fs.list_dir(dir)?;
    for f in &files {
        fs.remove(f)?;
    }
    Ok(files.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::os::OsFileSystem;
    use rand::{Rng, SeedableRng};

    fn scratch(dir: &std::path::Path) -> Scratch {
        Scratch {
            fs: Arc::new(OsFileSystem),
            dir: dir.join("sort"),
        }
    }

    fn files(dir: &std::path::Path) -> usize {
        std::fs::read_dir(dir.join("sort")).map_or(0, |d| d.count())
    }

    type Entries = Vec<(Vec<u8>, Vec<u8>, u32)>;

    fn random_entries(seed: u64, n: usize) -> Entries {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        (0..n)
            .map(|i| {
                let klen = rng.gen_range(0..30);
                let mut k: Vec<u8> = (0..klen).map(|_| rng.gen_range(0..3u8)).collect();
                k.extend_from_slice(&(i as u32).to_be_bytes());
                let v = vec![rng.gen::<u8>(); rng.gen_range(0..2000)];
                (k, v, i as u32)
            })
            .collect()
    }

    fn sorted_through(
        entries: &Entries,
        budget: usize,
        scratch: Option<Scratch>,
    ) -> (usize, Entries) {
        let mut s = Sorter::new(budget, scratch, "test");
        for (k, v, a) in entries {
            s.push(k, v, *a).expect("sorter I/O in a temp dir");
        }
        let runs = s.runs();
        let mut m = s.finish().expect("sorter I/O in a temp dir");
        let mut out = Vec::new();
        while let Some(e) = m.next_entry().expect("sorter I/O in a temp dir") {
            out.push((e.key().to_vec(), e.value().to_vec(), e.aux));
        }
        (runs, out)
    }

    #[test]
    fn spilled_sort_matches_in_memory_sort_and_cleans_up() {
        let dir = tempfile::tempdir().expect("temp dir");
        let entries = random_entries(1, 5000);
        let mut want = entries.clone();
        want.sort();
        let (runs, got) = sorted_through(&entries, 64 << 10, Some(scratch(dir.path())));
        assert!(runs > 20, "{runs} runs");
        assert_eq!(got, want);
        assert_eq!(files(dir.path()), 0, "runs removed after the merge");
        let (runs, got) = sorted_through(&entries, 1 << 40, Some(scratch(dir.path())));
        assert_eq!((runs, got), (0, want.clone()));
        let (runs, got) = sorted_through(&entries, 1, None);
        assert_eq!((runs, got), (0, want));
        let none = Entries::new();
        assert_eq!(sorted_through(&none, 1, Some(scratch(dir.path()))).1, none);
    }

    #[test]
    fn runs_go_when_a_sort_is_abandoned() {
        let dir = tempfile::tempdir().expect("temp dir");
        let entries = random_entries(2, 3000);
        let mut s = Sorter::new(16 << 10, Some(scratch(dir.path())), "abandoned");
        for (k, v, a) in &entries {
            s.push(k, v, *a).expect("sorter I/O in a temp dir");
        }
        assert!(s.runs() > 2);
        assert_eq!(files(dir.path()), s.runs());
        drop(s);
        assert_eq!(files(dir.path()), 0);

        let mut s = Sorter::new(16 << 10, Some(scratch(dir.path())), "half-merged");
        for (k, v, a) in &entries {
            s.push(k, v, *a).expect("sorter I/O in a temp dir");
        }
        let mut m = s.finish().expect("sorter I/O in a temp dir");
        m.next_entry()
            .expect("sorter I/O in a temp dir")
            .expect("an entry");
        assert!(files(dir.path()) > 2);
        drop(m);
        assert_eq!(files(dir.path()), 0);
    }

    #[test]
    fn a_damaged_run_is_an_error() {
        let dir = tempfile::tempdir().expect("temp dir");
        let entries = random_entries(3, 2000);
        let mut s = Sorter::new(16 << 10, Some(scratch(dir.path())), "damaged");
        for (k, v, a) in &entries {
            s.push(k, v, *a).expect("sorter I/O in a temp dir");
        }
        let run = std::fs::read_dir(dir.path().join("sort"))
            .expect("the sort directory")
            .next()
            .expect("a spilled run")
            .expect("its directory entry")
            .path();
        let len = std::fs::metadata(&run).expect("run file").len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&run)
            .expect("sorter I/O in a temp dir")
            .set_len(len - 3)
            .expect("sorter I/O in a temp dir");
        let mut s = s;
        for r in s.runs.iter_mut() {
            if r.path == run {
                r.len = len - 3;
            }
        }
        let mut m = s.finish().expect("sorter I/O in a temp dir");
        let mut res = Ok(());
        loop {
            match m.next_entry() {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => {
                    res = Err(e);
                    break;
                }
            }
        }
        assert!(
            res.is_err(),
            "a truncated run must not end the merge quietly"
        );
        drop(m);
        assert_eq!(files(dir.path()), 0);
    }
}
