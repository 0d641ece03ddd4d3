//! What the dump side of replication reads: the binlog files, and how far each is
//! durable.
//!
//! The files are MariaDB binlog v4 files (`basename.000001`, ... listed in
//! `basename.index`) in one directory. Bytes past the durable end of the last file
//! may belong to transactions whose commit is not yet durable; a dump never sends
//! them.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// One binlog file and its durable size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogFile {
    /// File name without directory (`basalt-bin.000001`).
    pub name: String,
    /// Bytes that are durable and may be served.
    pub size: u64,
}

/// A position in the binary log: a file name and a byte offset in it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct BinlogPos {
    pub file: String,
    pub offset: u64,
}

/// The binary log as a dump reads it. Implementations are shared by every dump
/// connection; all methods are safe to call concurrently.
pub trait DumpSource: Send + Sync {
    /// The directory holding the files.
    fn dir(&self) -> PathBuf;
    /// The files in log order, oldest first, with their durable sizes.
    fn files(&self) -> Vec<LogFile>;
    /// The durable end of the log: the last file and its durable size.
    fn end(&self) -> BinlogPos;
    /// Waits until the durable end moves past `seen` (new events, or a new file),
    /// or `timeout` passes; returns the end as it is then.
    fn wait_past(&self, seen: &BinlogPos, timeout: Duration) -> BinlogPos;
    /// `@@server_id` of this server.
    fn server_id(&self) -> u32;
    /// Whether the files carry CRC32 checksums (`binlog_checksum=CRC32`).
    fn checksum(&self) -> bool;
    /// Recent bytes of the log held in memory: a run of whole events of `file` that
    /// holds the byte at `pos`, as its start offset and bytes. They are the same
    /// bytes as the file's; `None` when that part is not in memory.
    fn cached(&self, _file: &str, _pos: u64) -> Option<(u64, Arc<[u8]>)> {
        None
    }
}
