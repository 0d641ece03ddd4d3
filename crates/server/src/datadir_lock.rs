//! The data-directory lock: one server per data directory.
//!
//! Two servers on one data directory would each replay and checkpoint the same log
//! and table files with their own idea of what is durable, and one would silently
//! undo the other's commits. So before anything in the directory is read or written,
//! the server takes an exclusive `flock(2)` on `<datadir>/basaltd.lock` (as InnoDB
//! locks `ibdata1`) and holds it for the life of the process; a second server finds
//! it held and refuses to start. The lock belongs to the open file, so the kernel
//! drops it when the process ends however it ends (a `kill -9` leaves no stale lock to
//! clean up); the pid written into the file only serves the error message.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// Name of the lock file inside the data directory.
pub const LOCK_FILE: &str = "basaltd.lock";

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "the data directory {dir} is in use by another server{holder}: cannot lock {path} \
         ({source}); check that no other basaltd or mariadbd process uses this data directory"
    )]
    InUse {
        dir: PathBuf,
        path: PathBuf,
        holder: String,
        source: std::io::Error,
    },
    #[error("cannot create the data directory lock {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The held lock; dropping it (or the process ending) releases it.
#[derive(Debug)]
pub struct DatadirLock {
    _file: File,
    path: PathBuf,
}

impl DatadirLock {
    /// Creates `dir` if needed and locks it, failing at once if another process holds
    /// the lock.
    pub fn acquire(dir: &Path) -> Result<DatadirLock, LockError> {
        let path = dir.join(LOCK_FILE);
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(io)?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        // SAFETY: flock(2) on a file descriptor we own; no memory is involved.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let source = std::io::Error::last_os_error();
            if source.raw_os_error() != Some(libc::EWOULDBLOCK) {
                return Err(io(source));
            }
            return Err(LockError::InUse {
                dir: dir.to_path_buf(),
                holder: holder(&mut file),
                path,
                source,
            });
        }
        file.set_len(0).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        writeln!(file, "{}", std::process::id()).map_err(io)?;
        Ok(DatadirLock { _file: file, path })
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// " (pid N)" from the lock file's contents, or nothing if it holds no pid.
fn holder(file: &mut File) -> String {
    let mut text = String::new();
    let _ = file.read_to_string(&mut text);
    match text.trim().parse::<u32>() {
        Ok(pid) => format!(" (pid {pid})"),
        Err(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_lock_fails_and_release_frees_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = dir.path().join("data");
        let first = DatadirLock::acquire(&data).expect("first lock");
        // A second open file description conflicts even within one process.
        let err = DatadirLock::acquire(&data).expect_err("second lock");
        let msg = err.to_string();
        assert!(msg.contains("in use by another server"), "{msg}");
        assert!(
            msg.contains(&format!("pid {}", std::process::id())),
            "{msg}"
        );
        drop(first);
        DatadirLock::acquire(&data).expect("lock after release");
    }
}
