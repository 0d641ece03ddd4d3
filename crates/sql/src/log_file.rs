//! One log file, shared by the slow query log, the general query log and the
//! error log: opened for appending (created if missing), a header written each
//! time it is opened, closed and reopened by FLUSH LOGS (so a file rotated away
//! is replaced), one `write` per entry under a mutex.
//!
//! Each log keeps only its entry format: [`LogFile::append`] hands the
//! formatter the log's own state (`S`: the slow log's previous `# Time:` and
//! schema, the general log's previous time column) and the buffer to fill,
//! under the same lock as the write, so entries never interleave.
//!
//! Invariant: a failed write closes the file (no later entry is attempted) and
//! is returned once to the caller, which decides what a failure means (the slow
//! and general logs stop with one error-log line; the error log drops the line).

use parking_lot::Mutex;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Where entries go: a file, or (in tests) any writer.
type Sink = Box<dyn Write + Send>;

pub struct LogFile<S = ()> {
    inner: Mutex<Inner<S>>,
}

struct Inner<S> {
    out: Option<Sink>,
    path: PathBuf,
    /// Written each time the file is opened (may be empty).
    header: String,
    state: S,
}

/// What [`LogFile::append`] did.
#[derive(Debug)]
pub enum Appended {
    Written,
    /// No file is open: nothing was formatted or written.
    Closed,
    /// The write failed; the file is now closed.
    Failed(io::Error),
}

impl<S: Default> LogFile<S> {
    /// A closed log that will open `path`, writing `header` first.
    pub fn new(path: PathBuf, header: String) -> Self {
        LogFile {
            inner: Mutex::new(Inner {
                out: None,
                path,
                header,
                state: S::default(),
            }),
        }
    }

    /// Opens `path` (closing the file open before, if any). On failure nothing
    /// changes.
    pub fn open(&self, path: &Path) -> io::Result<()> {
        let mut inner = self.inner.lock();
        let out = open_file(path, &inner.header)?;
        inner.out = Some(out);
        inner.path = path.to_path_buf();
        inner.state = S::default();
        Ok(())
    }

    /// Opens `path` unless it is the file already open.
    pub fn ensure_open(&self, path: &Path) -> io::Result<()> {
        if self.is_open() && self.path() == path {
            return Ok(());
        }
        self.open(path)
    }

    pub fn close(&self) {
        self.inner.lock().out = None;
    }

    pub fn is_open(&self) -> bool {
        self.inner.lock().out.is_some()
    }

    pub fn path(&self) -> PathBuf {
        self.inner.lock().path.clone()
    }

    /// Closes and reopens the file (FLUSH LOGS). Nothing to do when closed.
    pub fn reopen(&self) -> io::Result<()> {
        let mut inner = self.inner.lock();
        if inner.out.is_some() {
            let out = open_file(&inner.path, &inner.header)?;
            inner.out = Some(out);
            inner.state = S::default();
        }
        Ok(())
    }

    /// Formats one entry with the log's state and writes it in one `write`.
    pub fn append(&self, format: impl FnOnce(&mut S, &mut String)) -> Appended {
        self.append_with(|state, sink| {
            let mut text = String::with_capacity(256);
            format(state, &mut text);
            sink.write_all(text.as_bytes())
        })
    }

    /// Writes `bytes` as they are (the error log's formatted lines).
    pub fn append_bytes(&self, bytes: &[u8]) -> Appended {
        self.append_with(|_, sink| sink.write_all(bytes))
    }

    fn append_with(&self, f: impl FnOnce(&mut S, &mut Sink) -> io::Result<()>) -> Appended {
        let mut inner = self.inner.lock();
        let Inner { out, state, .. } = &mut *inner;
        let Some(sink) = out.as_mut() else {
            return Appended::Closed;
        };
        match f(state, sink) {
            Ok(()) => Appended::Written,
            Err(e) => {
                *out = None;
                Appended::Failed(e)
            }
        }
    }

    /// Replaces the file by `sink` (tests: a writer that fails like a full disk).
    #[cfg(test)]
    pub(crate) fn inject(&self, sink: Sink) {
        self.inner.lock().out = Some(sink);
    }
}

fn open_file(path: &Path, header: &str) -> io::Result<Sink> {
    let mut f = OpenOptions::new().create(true).append(true).open(path)?;
    if !header.is_empty() {
        f.write_all(header.as_bytes())?;
    }
    Ok(Box::new(f))
}

/// A writer that fails every write with ENOSPC, as a full disk does.
#[cfg(test)]
pub(crate) struct FullDisk;

#[cfg(test)]
impl Write for FullDisk {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::from_raw_os_error(ENOSPC))
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Linux's "No space left on device".
#[cfg(test)]
pub(crate) const ENOSPC: i32 = 28;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_on_each_open_state_reset_and_a_failure_closes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("x.log");
        let log: LogFile<u32> = LogFile::new(path.clone(), "HEADER\n".into());
        assert!(matches!(log.append(|_, t| t.push('x')), Appended::Closed));
        log.open(&path).expect("open");
        let entry = |n: &mut u32, t: &mut String| {
            *n += 1;
            t.push_str(&format!("entry {n}\n"));
        };
        assert!(matches!(log.append(entry), Appended::Written));
        assert!(matches!(log.append(entry), Appended::Written));
        std::fs::rename(&path, dir.path().join("x.log.1")).expect("rotate");
        log.reopen().expect("reopen");
        assert!(matches!(log.append(entry), Appended::Written));
        let old = std::fs::read_to_string(dir.path().join("x.log.1")).expect("old");
        assert_eq!(old, "HEADER\nentry 1\nentry 2\n");
        let new = std::fs::read_to_string(&path).expect("new");
        assert_eq!(new, "HEADER\nentry 1\n");
        log.inject(Box::new(FullDisk));
        match log.append(entry) {
            Appended::Failed(e) => assert_eq!(e.raw_os_error(), Some(28)),
            other => panic!("{other:?}"),
        }
        assert!(!log.is_open());
        assert!(matches!(log.append(entry), Appended::Closed));
    }
}
