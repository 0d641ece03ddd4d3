//! Pluggable file I/O, so crash and I/O-error tests run in-process.
//!
//! Every byte the durable engine reads or writes goes through [`FileSystem`] and
//! [`File`]. [`os::OsFileSystem`] is the real thing (O_DIRECT where the filesystem
//! allows it); the simulator in `sim` keeps a "durable" and a "page cache" image of
//! each file apart, so a test can crash at any point, tear writes and fail the Nth
//! I/O.
//!
//! Contract: `write_at` is not durable until a later `sync_data` on the same file
//! returns `Ok`. A failed `sync_data` leaves the file in an unknown state (Linux may
//! have dropped the dirty pages), so callers treat it as fatal.

pub mod os;
pub mod sim;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Alignment of buffers and offsets for O_DIRECT I/O.
pub const IO_ALIGN: usize = 4096;

#[derive(Clone, Copy, Debug, Default)]
pub struct OpenOptions {
    /// Create the file if it does not exist.
    pub create: bool,
    /// Ask for O_DIRECT; backends fall back to buffered I/O when refused
    /// (check [`File::is_direct`]).
    pub direct: bool,
}

#[allow(clippy::len_without_is_empty)]
pub trait File: Send + Sync {
    /// Reads exactly `buf.len()` bytes at `offset`; reading past the end is an
    /// `UnexpectedEof` error. With O_DIRECT, `buf`, `offset` and the length must be
    /// [`IO_ALIGN`]-aligned.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// Writes all of `buf` at `offset` (same alignment rules).
    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()>;
    /// Makes every completed write durable (fdatasync).
    fn sync_data(&self) -> io::Result<()>;
    fn len(&self) -> io::Result<u64>;
    /// Grows (allocating blocks, so later overwrites need no metadata change) or
    /// shrinks the file.
    fn set_len(&self, len: u64) -> io::Result<()>;
    /// True when O_DIRECT is in effect.
    fn is_direct(&self) -> bool;
    /// Hints that the given range will not be read again (posix_fadvise DONTNEED).
    fn drop_cache(&self, offset: u64, len: u64);
}

pub trait FileSystem: Send + Sync {
    fn open(&self, path: &Path, opts: OpenOptions) -> io::Result<Arc<dyn File>>;
    fn remove(&self, path: &Path) -> io::Result<()>;
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    fn exists(&self, path: &Path) -> bool;
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// Entries of a directory (full paths), in no particular order.
    fn list_dir(&self, path: &Path) -> io::Result<Vec<PathBuf>>;
    /// Makes creations, renames and removals in `dir` durable (fsync of the directory).
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
}

/// Replaces `dir/name` with `bytes` atomically and durably: written to `dir/tmp`,
/// synced, renamed over `name`, and the directory synced (the catalog,
/// `master.info`, the replication filters).
pub fn replace_file(
    fs: &dyn FileSystem,
    dir: &Path,
    name: &str,
    tmp: &str,
    bytes: &[u8],
) -> io::Result<()> {
    let tmp = dir.join(tmp);
    if fs.exists(&tmp) {
        fs.remove(&tmp)?;
    }
    let file = fs.open(
        &tmp,
        OpenOptions {
            create: true,
            direct: false,
        },
    )?;
    file.set_len(0)?;
    file.write_at(bytes, 0)?;
    file.sync_data()?;
    drop(file);
    fs.rename(&tmp, &dir.join(name))?;
    fs.sync_dir(dir)
}

/// A heap buffer aligned to [`IO_ALIGN`], for O_DIRECT reads and writes.
pub struct AlignedBuf {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
}

// SAFETY: AlignedBuf owns its allocation exclusively, like Vec<u8>.
unsafe impl Send for AlignedBuf {}
// SAFETY: shared access only hands out &[u8].
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes (`len` > 0, rounded up to a multiple of IO_ALIGN).
    pub fn zeroed(len: usize) -> Self {
        let len = len.max(1).div_ceil(IO_ALIGN) * IO_ALIGN;
        let layout = std::alloc::Layout::from_size_align(len, IO_ALIGN)
            .expect("IO_ALIGN is a power of two and len is small");
        // SAFETY: layout has non-zero size.
        let raw = unsafe { std::alloc::alloc_zeroed(layout) };
        let ptr =
            std::ptr::NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        AlignedBuf { ptr, len }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Asks the kernel to back the buffer with transparent huge pages where it
    /// can (fewer TLB misses over a large buffer pool). The allocator itself does
    /// not ask for them: a huge page under each thread's small heap would cost
    /// every connection thread 2 MiB of resident memory.
    pub fn advise_huge_pages(&mut self) {
        #[cfg(target_os = "linux")]
        {
            let start = self.ptr.as_ptr() as usize;
            let first = start.next_multiple_of(IO_ALIGN);
            let end = (start + self.len) / IO_ALIGN * IO_ALIGN;
            if end > first {
                // SAFETY: the range lies inside this buffer's allocation, and
                // MADV_HUGEPAGE changes only how its pages are backed.
                unsafe {
                    libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
                }
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl std::ops::Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: ptr is valid for len bytes for the lifetime of self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl std::ops::DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: ptr is valid for len bytes and uniquely borrowed.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        let layout = std::alloc::Layout::from_size_align(self.len, IO_ALIGN)
            .expect("same layout as at allocation");
        // SAFETY: allocated in `zeroed` with this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) }
    }
}
