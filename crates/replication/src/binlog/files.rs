//! The binlog files on disk: `basename.NNNNNN`, the index `basename.index` (one
//! `./basename.NNNNNN` per line, oldest first, as MariaDB writes it), and the sync
//! point `basename.recovery`.
//!
//! # Sync point (little-endian)
//! ```text
//!  0  [u8; 8]  magic "BSLTBINS"
//!  8  u32      format version (1)
//! 12  u32      file number
//! 16  u64      end offset in that file
//! 24  u64      end LSN of the last WAL record whose events are in the files
//! 32  u32      crc32 of bytes 0..32
//! ```
//! Everything the log held up to `lsn` is durable in the files, which end at
//! (`file`, `end`). Written to a temporary file, fsynced, then renamed over the old
//! one, so a crash leaves the old or the new point, never a torn one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

const SYNC_MAGIC: &[u8; 8] = b"BSLTBINS";
const SYNC_VERSION: u32 = 1;
const SYNC_LEN: usize = 36;

/// Where the files were last made durable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SyncPoint {
    pub file: u32,
    pub end: u64,
    pub lsn: u64,
}

/// The binlog directory.
#[derive(Clone, Debug)]
pub struct Files {
    dir: PathBuf,
    basename: String,
}

impl Files {
    pub fn new(dir: impl Into<PathBuf>, basename: &str) -> Files {
        Files {
            dir: dir.into(),
            basename: basename.to_string(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn basename(&self) -> &str {
        &self.basename
    }

    /// `basename.000001`.
    pub fn name(&self, n: u32) -> String {
        format!("{}.{n:06}", self.basename)
    }

    /// The file number of a name this directory uses.
    pub fn number(&self, name: &str) -> Option<u32> {
        let name = name.rsplit('/').next()?;
        let digits = name.strip_prefix(&self.basename)?.strip_prefix('.')?;
        if digits.len() < 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok()
    }

    /// The path of a file named `name` in the directory.
    pub fn path_of(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    pub fn path(&self, n: u32) -> PathBuf {
        self.dir.join(self.name(n))
    }

    pub fn index_path(&self) -> PathBuf {
        self.dir.join(format!("{}.index", self.basename))
    }

    fn sync_path(&self) -> PathBuf {
        self.dir.join(format!("{}.recovery", self.basename))
    }

    /// File numbers the index lists, oldest first (empty when there is no index).
    pub fn read_index(&self) -> io::Result<Vec<u32>> {
        let text = match fs::read_to_string(self.index_path()) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        Ok(text.lines().filter_map(|l| self.number(l.trim())).collect())
    }

    /// Replaces the index (atomically).
    pub fn write_index(&self, files: &[u32]) -> io::Result<()> {
        let mut text = String::new();
        for n in files {
            text.push_str(&format!("./{}\n", self.name(*n)));
        }
        self.replace(&self.index_path(), text.as_bytes())
    }

    /// Writes `bytes` at `offset` of file `n`, creating it.
    pub fn write_at(&self, n: u32, offset: u64, bytes: &[u8]) -> io::Result<()> {
        let f = self.open(n)?;
        f.write_all_at(bytes, offset)
    }

    pub fn open(&self, n: u32) -> io::Result<File> {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(self.path(n))
    }

    /// Cuts file `n` to `len` bytes (when it is longer).
    pub fn truncate(&self, n: u32, len: u64) -> io::Result<()> {
        let f = self.open(n)?;
        if f.metadata()?.len() > len {
            f.set_len(len)?;
            f.sync_all()?;
        }
        Ok(())
    }

    pub fn size(&self, n: u32) -> u64 {
        fs::metadata(self.path(n)).map_or(0, |m| m.len())
    }

    pub fn remove(&self, n: u32) -> io::Result<()> {
        match fs::remove_file(self.path(n)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// Every `basename.NNNNNN` in the directory, index or not.
    pub fn present(&self) -> io::Result<Vec<u32>> {
        let mut out = Vec::new();
        match fs::read_dir(&self.dir) {
            Ok(entries) => {
                for e in entries {
                    let name = e?.file_name();
                    if let Some(n) = name.to_str().and_then(|s| self.number(s)) {
                        out.push(n);
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        out.sort_unstable();
        Ok(out)
    }

    pub fn read_sync(&self) -> io::Result<Option<SyncPoint>> {
        let b = match fs::read(self.sync_path()) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let bad = || io::Error::new(io::ErrorKind::InvalidData, "damaged binlog sync point");
        if b.len() != SYNC_LEN || &b[0..8] != SYNC_MAGIC {
            return Err(bad());
        }
        let crc = u32::from_le_bytes(b[32..36].try_into().map_err(|_| bad())?);
        if crc32fast::hash(&b[..32]) != crc {
            return Err(bad());
        }
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let u64_at = |i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[i..i + 8]);
            u64::from_le_bytes(a)
        };
        if u32_at(8) != SYNC_VERSION {
            return Err(bad());
        }
        Ok(Some(SyncPoint {
            file: u32_at(12),
            end: u64_at(16),
            lsn: u64_at(24),
        }))
    }

    pub fn write_sync(&self, p: SyncPoint) -> io::Result<()> {
        let mut b = Vec::with_capacity(SYNC_LEN);
        b.extend_from_slice(SYNC_MAGIC);
        b.extend_from_slice(&SYNC_VERSION.to_le_bytes());
        b.extend_from_slice(&p.file.to_le_bytes());
        b.extend_from_slice(&p.end.to_le_bytes());
        b.extend_from_slice(&p.lsn.to_le_bytes());
        let crc = crc32fast::hash(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        self.replace(&self.sync_path(), &b)
    }

    /// Writes `path` atomically: a temporary file, fsynced, renamed over it.
    fn replace(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let tmp = path.with_extension("tmp");
        {
            let mut f = File::create(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
        }
        fs::rename(&tmp, path)?;
        sync_dir(&self.dir)
    }

    pub fn sync_dir(&self) -> io::Result<()> {
        sync_dir(&self.dir)
    }
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Drops a written, synced range of a binlog file from the page cache (seed 000:
/// logs must not push the buffer pool out of memory).
pub fn drop_cache(f: &File, offset: u64, len: u64) {
    use std::os::fd::AsRawFd;
    // SAFETY: posix_fadvise only reads its arguments; the descriptor is open.
    unsafe {
        libc::posix_fadvise(
            f.as_raw_fd(),
            offset as libc::off_t,
            len as libc::off_t,
            libc::POSIX_FADV_DONTNEED,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_index_and_sync_point() {
        let dir = tempfile::tempdir().expect("temp dir");
        let f = Files::new(dir.path(), "basalt-bin");
        assert_eq!(f.name(7), "basalt-bin.000007");
        assert_eq!(f.number("./basalt-bin.000012"), Some(12));
        assert_eq!(f.number("basalt-bin.index"), None);
        assert_eq!(f.read_index().expect("no index"), Vec::<u32>::new());
        f.write_index(&[1, 2]).expect("index written");
        assert_eq!(f.read_index().expect("index"), vec![1, 2]);
        assert_eq!(f.read_sync().expect("no point"), None);
        let p = SyncPoint {
            file: 2,
            end: 400,
            lsn: 99,
        };
        f.write_sync(p).expect("sync point written");
        assert_eq!(f.read_sync().expect("point"), Some(p));
        f.write_at(2, 4, b"abc").expect("written");
        assert_eq!(f.size(2), 7);
        assert_eq!(f.present().expect("listed"), vec![2]);
    }
}
