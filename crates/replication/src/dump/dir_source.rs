//! A [`DumpSource`] over a directory of binlog files and their index, as MariaDB
//! leaves them (`basename.index` lists one file per line, oldest first, each
//! `./name` or a path). For tests, and for serving binlog files copied from
//! elsewhere.
//!
//! The durable end is settable ([`DirSource::set_end`]): files listed after the
//! end file are not served, and the end file only up to the end offset, so a test
//! can let a dump catch up and then "commit" more by moving the end.
//! Invariant: the end only moves forward; waiters are woken when it does.

use crate::{BinlogPos, DumpSource, LogFile};
use parking_lot::{Condvar, Mutex};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub struct DirSource {
    dir: PathBuf,
    server_id: u32,
    checksum: bool,
    /// Every file in the index, in order.
    names: Vec<String>,
    end: Mutex<BinlogPos>,
    moved: Condvar,
}

impl DirSource {
    /// Opens the files listed in `dir/index`; the durable end starts at the end of
    /// the last file. `checksum` reports whether the newest file has CRC32.
    pub fn open(dir: &Path, index: &str, server_id: u32) -> io::Result<DirSource> {
        let text = std::fs::read_to_string(dir.join(index))?;
        let names: Vec<String> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| {
                Path::new(l)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| l.to_string())
            })
            .collect();
        let last = names
            .last()
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "empty binlog index"))?;
        let size = std::fs::metadata(dir.join(&last))?.len();
        let checksum = newest_has_crc(&dir.join(&last));
        Ok(DirSource {
            dir: dir.to_path_buf(),
            server_id,
            checksum,
            names,
            end: Mutex::new(BinlogPos {
                file: last,
                offset: size,
            }),
            moved: Condvar::new(),
        })
    }

    /// Moves the durable end (forward) and wakes waiting dumps.
    pub fn set_end(&self, file: &str, offset: u64) {
        *self.end.lock() = BinlogPos {
            file: file.to_string(),
            offset,
        };
        self.moved.notify_all();
    }

    fn size(&self, name: &str) -> u64 {
        std::fs::metadata(self.dir.join(name)).map_or(0, |m| m.len())
    }
}

fn newest_has_crc(path: &Path) -> bool {
    let Ok(r) = super::reader::LogReader::open(path) else {
        return false;
    };
    r.read_at(super::event::FIRST_EVENT, u64::MAX, None)
        .map(|fd| super::event::fd_checksum_alg(&fd).has_crc())
        .unwrap_or(false)
}

impl DumpSource for DirSource {
    fn dir(&self) -> PathBuf {
        self.dir.clone()
    }

    fn files(&self) -> Vec<LogFile> {
        let end = self.end.lock().clone();
        let mut out = Vec::new();
        for n in &self.names {
            if *n == end.file {
                out.push(LogFile {
                    name: n.clone(),
                    size: end.offset,
                });
                break;
            }
            out.push(LogFile {
                name: n.clone(),
                size: self.size(n),
            });
        }
        out
    }

    fn end(&self) -> BinlogPos {
        self.end.lock().clone()
    }

    fn wait_past(&self, seen: &BinlogPos, timeout: Duration) -> BinlogPos {
        let deadline = Instant::now() + timeout;
        let mut end = self.end.lock();
        while *end == *seen {
            if self.moved.wait_until(&mut end, deadline).timed_out() {
                break;
            }
        }
        end.clone()
    }

    fn server_id(&self) -> u32 {
        self.server_id
    }

    fn checksum(&self) -> bool {
        self.checksum
    }
}
