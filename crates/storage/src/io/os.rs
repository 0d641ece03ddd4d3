//! The real filesystem, through positional reads and writes on file descriptors.
//! Files asked for O_DIRECT get it where the filesystem accepts the flag; otherwise
//! they fall back to buffered I/O and the fallback is logged once per process.

use super::{File, FileSystem, OpenOptions};
use std::fs;
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Default)]
pub struct OsFileSystem;

struct OsFile {
    file: fs::File,
    direct: bool,
}

static WARNED_NO_DIRECT: AtomicBool = AtomicBool::new(false);

fn open_std(path: &Path, opts: OpenOptions, flags: i32) -> io::Result<fs::File> {
    fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(opts.create)
        .truncate(false)
        .custom_flags(flags)
        .open(path)
}

impl FileSystem for OsFileSystem {
    fn open(&self, path: &Path, opts: OpenOptions) -> io::Result<Arc<dyn File>> {
        if opts.direct {
            match open_std(path, opts, libc::O_DIRECT) {
                Ok(file) => return Ok(Arc::new(OsFile { file, direct: true })),
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                    if !WARNED_NO_DIRECT.swap(true, Ordering::Relaxed) {
                        tracing::warn!(
                            path = %path.display(),
                            "filesystem refuses O_DIRECT; using buffered I/O for data files"
                        );
                    }
                }
                Err(e) => return Err(e),
            }
        }
        let file = open_std(path, opts, 0)?;
        Ok(Arc::new(OsFile {
            file,
            direct: false,
        }))
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        fs::rename(from, to)
    }

    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        fs::create_dir_all(path)
    }

    fn list_dir(&self, path: &Path) -> io::Result<Vec<PathBuf>> {
        fs::read_dir(path)?.map(|e| e.map(|e| e.path())).collect()
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        fs::File::open(dir)?.sync_all()
    }
}

impl File for OsFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.file.read_exact_at(buf, offset)
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.file.write_all_at(buf, offset)
    }

    fn sync_data(&self) -> io::Result<()> {
        self.file.sync_data()
    }

    fn len(&self) -> io::Result<u64> {
        Ok(self.file.metadata()?.len())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let cur = self.len()?;
        if len > cur {
            // Allocate the blocks now so later overwrites do not change metadata.
            // SAFETY: plain syscall on an fd we own.
            let rc = unsafe {
                libc::fallocate(self.file.as_raw_fd(), 0, cur as i64, (len - cur) as i64)
            };
            if rc == 0 {
                return Ok(());
            }
            let err = io::Error::last_os_error();
            if err.raw_os_error() != Some(libc::EOPNOTSUPP) {
                return Err(err);
            }
        }
        self.file.set_len(len)
    }

    fn is_direct(&self) -> bool {
        self.direct
    }

    fn drop_cache(&self, offset: u64, len: u64) {
        use std::os::fd::AsRawFd;
        // SAFETY: advisory syscall on an fd we own; failure is harmless.
        unsafe {
            libc::posix_fadvise(
                self.file.as_raw_fd(),
                offset as i64,
                len as i64,
                libc::POSIX_FADV_DONTNEED,
            );
        }
    }
}
