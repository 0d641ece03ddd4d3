//! The error log file (`--log-error`): the server's log lines go to this file
//! instead of stderr, opened for appending; FLUSH LOGS / FLUSH ERROR LOGS close
//! and reopen it, so a log rotated away is replaced by a new file. A failed write
//! (a full disk) loses that line only; the server goes on, and the next line
//! tries the file again. The file handling is the slow and general logs'
//! ([`basalt_sql::log_file::LogFile`]); lines are the formatter's, as they come.

use basalt_sql::log_file::{Appended, LogFile};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::LazyLock;

static LOG: LazyLock<LogFile> = LazyLock::new(|| LogFile::new(PathBuf::new(), String::new()));
/// Set once the log goes to a file: from then on lines never go to stderr.
static STARTED: AtomicBool = AtomicBool::new(false);

/// Sends the log to `path` from now on (creating its directory, which may be
/// a data directory the server has not created yet).
pub fn start(path: &Path) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    LOG.open(path)?;
    STARTED.store(true, Ordering::Relaxed);
    Ok(())
}

/// Whether the log goes to a file.
pub fn active() -> bool {
    STARTED.load(Ordering::Relaxed)
}

/// Closes and reopens the file (after a rotation). Nothing to do without one.
pub fn reopen() -> std::io::Result<()> {
    if !active() {
        return Ok(());
    }
    LOG.open(&LOG.path())
}

/// A writer for the log's formatter: each line goes to the file when there is
/// one, else to stderr.
pub struct Writer;

impl Write for Writer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if !active() {
            return std::io::stderr().write(buf);
        }
        // A line that cannot be written (disk full) is dropped; the failure
        // closed the file, so open it again for the next line.
        if !matches!(LOG.append_bytes(buf), Appended::Written) {
            let _ = LOG.open(&LOG.path());
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !active() {
            return std::io::stderr().flush();
        }
        Ok(())
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
        super::LOG.close();
        super::STARTED.store(false, std::sync::atomic::Ordering::Relaxed);
    }
}
