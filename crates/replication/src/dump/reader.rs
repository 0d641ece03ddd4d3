//! Reads events from one binlog file, never past the durable end it is given, and
//! checks each before it is served: a sane length, `log_pos` equal to the offset
//! of the next event (so a start position inside an event is caught), and the
//! CRC32 when the file has checksums.
//!
//! Invariant: an event that fails a check is never returned; the error says what
//! failed in MariaDB's words (`set_read_error` in sql/sql_repl.cc), and where.

use super::event::{self, ChecksumAlg, HEADER_LEN};
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

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
pub struct LogReader {
    file: File,
}

impl LogReader {
    /// Opens `path` and checks the magic number; errors in MariaDB's words.
    pub fn open(path: &Path) -> Result<LogReader, &'static str> {
        let file = File::open(path).map_err(|_| "Could not open log file")?;
        let mut magic = [0u8; 4];
        file.read_exact_at(&mut magic, 0)
            .map_err(|_| "I/O error reading the header from the binary log")?;
        if &magic != event::MAGIC {
            return Err("Binlog has bad magic number;  It's not a binary log file that can be used by this version of MySQL");
        }
        Ok(LogReader { file })
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
        let mut head = [0u8; HEADER_LEN];
        self.file
            .read_exact_at(&mut head, pos)
            .map_err(|e| fail(ReadError::Io(e), pos))?;
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
        let mut ev = vec![0u8; len as usize];
        ev[..HEADER_LEN].copy_from_slice(&head);
        self.file
            .read_exact_at(&mut ev[HEADER_LEN..], head_end)
            .map_err(|e| fail(ReadError::Io(e), head_end))?;
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
