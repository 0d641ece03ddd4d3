//! MariaDB 10.11 binlog v4 events: encoding byte-exact with what MariaDB writes, and the
//! decoding that SHOW BINLOG EVENTS, the file reader and the dump side need.
//!
//! A binlog file is [`BINLOG_MAGIC`] followed by events. Every event starts with a
//! 19-byte common header (all integers little-endian):
//!
//! | offset | size | field                                                  |
//! |-------:|-----:|--------------------------------------------------------|
//! | 0      | 4    | timestamp (seconds since the epoch)                    |
//! | 4      | 1    | type code ([`types`])                                  |
//! | 5      | 4    | server_id                                              |
//! | 9      | 4    | event_length (header + body + checksum)                |
//! | 13     | 4    | log_pos: file offset of the end of this event          |
//! | 17     | 2    | flags ([`flags`])                                      |
//!
//! then the body, then (when the file's FORMAT_DESCRIPTION says CRC32) a CRC32 of header
//! and body, little-endian. The FORMAT_DESCRIPTION event itself always carries the CRC
//! (MariaDB writes it regardless of `binlog_checksum`); its checksum-algorithm byte
//! (0 off, 1 CRC32) sits just before it. The CRC of a FORMAT_DESCRIPTION is computed
//! with [`flags::BINLOG_IN_USE`] cleared, so that flag can be cleared in place when
//! a file is closed (byte [`FD_FLAGS_OFFSET`] of the file) without rewriting the CRC.
//!
//! Module map: [`writer`] (the [`EventWriter`] and the control events), `table_map`
//! (TABLE_MAP with `binlog_row_metadata=FULL`), `rows` (row images and rows events),
//! `pack` (column values in MariaDB's row format), [`reader`] (iteration, checksums,
//! decoding and SHOW BINLOG EVENTS' text).

mod pack;
pub mod reader;
mod rows;
mod table_map;
pub mod writer;

pub use reader::{
    decode_gtid, decode_gtid_list, decode_rotate, describe, parse_header, EventError, EventHeader,
    EventReader,
};
pub use rows::{RowChange, RowImage};
pub use table_map::RowMetadata;
pub use writer::{query_flags2, EventWriter, GtidFlags, Query};

/// The first four bytes of every binlog file.
pub const BINLOG_MAGIC: [u8; 4] = *b"\xfebin";
/// Size of the common event header.
pub const HEADER_LEN: usize = 19;
/// Size of the CRC32 trailer.
pub const CHECKSUM_LEN: usize = 4;
/// File offset of the FORMAT_DESCRIPTION's flags (magic 4 + header offset 17).
pub const FD_FLAGS_OFFSET: u64 = 21;
/// Largest data size of one rows event before MariaDB starts another
/// (`binlog_row_event_max_size`, default 8192).
pub const ROWS_EVENT_MAX_SIZE: usize = 8192;

/// Event type codes (`Log_event_type`).
pub mod types {
    pub const QUERY: u8 = 2;
    pub const STOP: u8 = 3;
    pub const ROTATE: u8 = 4;
    pub const INTVAR: u8 = 5;
    pub const RAND: u8 = 13;
    pub const USER_VAR: u8 = 14;
    pub const FORMAT_DESCRIPTION: u8 = 15;
    pub const XID: u8 = 16;
    pub const TABLE_MAP: u8 = 19;
    pub const WRITE_ROWS_V1: u8 = 23;
    pub const UPDATE_ROWS_V1: u8 = 24;
    pub const DELETE_ROWS_V1: u8 = 25;
    pub const HEARTBEAT: u8 = 27;
    pub const WRITE_ROWS: u8 = 30;
    pub const UPDATE_ROWS: u8 = 31;
    pub const DELETE_ROWS: u8 = 32;
    pub const ANNOTATE_ROWS: u8 = 160;
    pub const BINLOG_CHECKPOINT: u8 = 161;
    pub const GTID: u8 = 162;
    pub const GTID_LIST: u8 = 163;
    pub const START_ENCRYPTION: u8 = 164;
}

/// Common-header flags (`LOG_EVENT_*_F`).
pub mod flags {
    /// On the FORMAT_DESCRIPTION of a file the server still writes to.
    pub const BINLOG_IN_USE: u16 = 0x1;
    /// The statement uses temporary tables of its thread.
    pub const THREAD_SPECIFIC: u16 = 0x4;
    /// A QUERY whose `db` must not become the default database (`use` is not printed).
    pub const SUPPRESS_USE: u16 = 0x8;
    /// Made up by the server (fake ROTATE at the start of a dump), not from a file.
    pub const ARTIFICIAL: u16 = 0x20;
}

/// Appends MariaDB's packed integer (`net_store_length`): one byte below 251, else
/// 0xfc + 2 bytes, 0xfd + 3 bytes or 0xfe + 8 bytes.
pub(crate) fn put_packed(out: &mut Vec<u8>, v: u64) {
    if v < 251 {
        out.push(v as u8);
    } else if v < 1 << 16 {
        out.push(0xfc);
        out.extend_from_slice(&(v as u16).to_le_bytes());
    } else if v < 1 << 24 {
        out.push(0xfd);
        out.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
    } else {
        out.push(0xfe);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// Reads a packed integer at the start of `b`: (value, bytes used).
pub(crate) fn get_packed(b: &[u8]) -> Option<(u64, usize)> {
    let first = *b.first()?;
    let n = match first {
        0..=250 => return Some((first as u64, 1)),
        0xfc => 2,
        0xfd => 3,
        0xfe => 8,
        _ => return None,
    };
    let bytes = b.get(1..1 + n)?;
    let mut buf = [0u8; 8];
    buf[..n].copy_from_slice(bytes);
    Some((u64::from_le_bytes(buf), 1 + n))
}

#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod tests;
