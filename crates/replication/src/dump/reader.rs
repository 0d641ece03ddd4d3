//! Reads events from one binlog file, never past the durable end it is given, and
//! checks each before it is served: a sane length, `log_pos` equal to the offset
//! of the next event (so a start position inside an event is caught), and the
//! CRC32 when the file has checksums.
//!
//! Recent events come from the log's in-memory tail ([`DumpSource::cached`]) when
//! it has them, older ones from the file; the checks are the same for both.
//!
//! Invariant: an event that fails a check is never returned; the error says what
//! failed in MariaDB's words (`set_read_error` in sql/sql_repl.cc), and where.

use super::event::{self, ChecksumAlg, HEADER_LEN};
use crate::DumpSource;
use std::cell::RefCell;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

/// Events larger than this are refused (MariaDB's MAX_MAX_ALLOWED_PACKET, which a
/// dump thread reads with).
pub const MAX_EVENT_LEN: u64 = 1 << 30;

/// Why an event could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("bogus data in log event")]
    Bogus,
    #[error("log event entry exceeded max_allowed_packet; Increase max_allowed_packet on master")]
    TooLarge,
    #[error("I/O error reading log event")]
    Io(#[source] io::Error),
    #[error("binlog truncated in the middle of event; consider out of disk space on master")]
    Truncated,
    #[error("event read from binlog did not pass crc check")]
    Checksum,
}

/// A failed read: what went wrong, and the offset just past the bytes read.
#[derive(Debug)]
pub struct ReadFailure {
    pub error: ReadError,
    pub read_end: u64,
}

/// One open binlog file.
pub struct LogReader<'a> {
    file: File,
    /// The log's tail and this file's name in it.
    cache: Option<(&'a dyn DumpSource, String)>,
    /// The tail chunk the last event came from (its offset and bytes): the next
    /// events of a transaction are in it too, found without a lookup.
    chunk: RefCell<Option<(u64, Arc<[u8]>)>>,
}

impl<'a> LogReader<'a> {
    /// Opens `name` of `src` and checks the magic number; events are read from
    /// `src`'s tail when it has them.
    pub fn open_in(src: &'a dyn DumpSource, name: &str) -> Result<LogReader<'a>, &'static str> {
        let mut r = LogReader::open(&src.dir().join(name))?;
        r.cache = Some((src, name.to_string()));
        Ok(r)
    }

    /// Opens `path` and checks the magic number; errors in MariaDB's words.
    pub fn open(path: &Path) -> Result<LogReader<'a>, &'static str> {
        let file = File::open(path).map_err(|_| "Could not open log file")?;
        let mut magic = [0u8; 4];
        file.read_exact_at(&mut magic, 0)
            .map_err(|_| "I/O error reading the header from the binary log")?;
        if &magic != event::MAGIC {
            return Err("Binlog has bad magic number;  It's not a binary log file that can be used by this version of MySQL");
        }
        Ok(LogReader {
            file,
            cache: None,
            chunk: RefCell::new(None),
        })
    }

    /// The event at `pos` from the tail, when the tail holds all of it.
    fn cached_event(&self, pos: u64) -> Option<Vec<u8>> {
        let (src, name) = self.cache.as_ref()?;
        let held = self.chunk.borrow().clone();
        let (start, bytes) = match held {
            Some((start, bytes)) if start <= pos && pos < start + bytes.len() as u64 => {
                (start, bytes)
            }
            _ => {
                let found = src.cached(name, pos)?;
                *self.chunk.borrow_mut() = Some(found.clone());
                found
            }
        };
        let at = usize::try_from(pos - start).ok()?;
        let head = bytes.get(at..at + HEADER_LEN)?;
        let len = event::u32_at(head, event::LEN_OFFSET) as usize;
        bytes.get(at..at.checked_add(len)?).map(<[u8]>::to_vec)
    }

    /// Reads the `len`-byte event at `pos` whose header is `head`.
    fn read_event(
        &self,
        head: &[u8; HEADER_LEN],
        pos: u64,
        len: u64,
    ) -> Result<Vec<u8>, ReadFailure> {
        let mut ev = vec![0u8; len as usize];
        ev[..HEADER_LEN].copy_from_slice(head);
        self.file
            .read_exact_at(&mut ev[HEADER_LEN..], pos + HEADER_LEN as u64)
            .map_err(|e| ReadFailure {
                error: ReadError::Io(e),
                read_end: pos + HEADER_LEN as u64,
            })?;
        Ok(ev)
    }

    /// Reads the event at `pos`, which must end at or before `end`. `alg` is the
    /// file's checksum algorithm (for the FD at offset 4 pass `None`: its own
    /// algorithm byte decides).
    pub fn read_at(
        &self,
        pos: u64,
        end: u64,
        alg: Option<ChecksumAlg>,
    ) -> Result<Vec<u8>, ReadFailure> {
        let fail = |error, read_end| ReadFailure { error, read_end };
        let head_end = pos + HEADER_LEN as u64;
        if head_end > end {
            return Err(fail(ReadError::Truncated, end));
        }
        let cached = self.cached_event(pos);
        let mut head = [0u8; HEADER_LEN];
        match &cached {
            Some(ev) if ev.len() >= HEADER_LEN => head.copy_from_slice(&ev[..HEADER_LEN]),
            _ => self
                .file
                .read_exact_at(&mut head, pos)
                .map_err(|e| fail(ReadError::Io(e), pos))?,
        }
        let len = u64::from(event::u32_at(&head, event::LEN_OFFSET));
        if len > MAX_EVENT_LEN {
            return Err(fail(ReadError::TooLarge, head_end));
        }
        if len < HEADER_LEN as u64 {
            return Err(fail(ReadError::Bogus, head_end));
        }
        if pos + len > end {
            return Err(fail(ReadError::Truncated, head_end));
        }
        let ev = match cached {
            Some(ev) if ev.len() as u64 == len => ev,
            _ => self.read_event(&head, pos, len)?,
        };
        let read_end = pos + len;
        let log_pos = event::u32_at(&ev, event::LOG_POS_OFFSET);
        if log_pos != 0 && log_pos != read_end as u32 {
            return Err(fail(ReadError::Bogus, read_end));
        }
        let alg = alg.unwrap_or_else(|| event::fd_checksum_alg(&ev));
        if alg.has_crc() && !event::crc_ok(&ev) {
            return Err(fail(ReadError::Checksum, read_end));
        }
        Ok(ev)
    }
}
