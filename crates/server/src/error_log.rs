//! The error log file (`--log-error`): the server's log lines go to this file
//! instead of stderr, opened for appending; FLUSH LOGS / FLUSH ERROR LOGS close
//! and reopen it, so a log rotated away is replaced by a new file. A failed write
//! (a full disk) loses that line only; the server goes on.

use parking_lot::Mutex;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

static LOG: Mutex<Option<(PathBuf, File)>> = Mutex::new(None);

fn open(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().create(true).append(true).open(path)
}

/// Sends the log to `path` from now on (creating its directory, which may be
/// a data directory the server has not created yet).
pub fn start(path: &Path) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let file = open(path)?;
    *LOG.lock() = Some((path.to_path_buf(), file));
    Ok(())
}

/// Whether the log goes to a file.
pub fn active() -> bool {
    LOG.lock().is_some()
}

/// Closes and reopens the file (after a rotation). Nothing to do without one.
pub fn reopen() -> std::io::Result<()> {
    let mut log = LOG.lock();
    if let Some((path, file)) = log.as_mut() {
        *file = open(path)?;
    }
    Ok(())
}

/// A writer for the log's formatter: each line goes to the file when there is
/// one, else to stderr.
pub struct Writer;

impl Write for Writer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match LOG.lock().as_mut() {
            // A line that cannot be written (disk full) is dropped.
            Some((_, f)) => Ok(f.write(buf).unwrap_or(buf.len())),
            None => std::io::stderr().write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match LOG.lock().as_mut() {
            Some((_, f)) => f.flush(),
            None => std::io::stderr().flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn lines_go_to_the_file_and_reopen_replaces_a_moved_one() {
        use std::io::Write;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("e.err");
        super::start(&path).expect("start");
        writeln!(super::Writer, "first").expect("write");
        std::fs::rename(&path, dir.path().join("e.err.1")).expect("rename");
        super::reopen().expect("reopen");
        writeln!(super::Writer, "second").expect("write");
        assert_eq!(
            std::fs::read_to_string(&path).expect("the new file"),
            "second\n"
        );
        let old = std::fs::read_to_string(dir.path().join("e.err.1")).expect("the moved file");
        assert_eq!(old, "first\n");
        *super::LOG.lock() = None;
    }
}
