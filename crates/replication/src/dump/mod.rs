//! The primary side of replication: COM_BINLOG_DUMP and COM_REGISTER_SLAVE, as
//! MariaDB 10.11's sql/sql_repl.cc and repl_failsafe.cc answer them.
//!
//! # The stream
//!
//! Each packet is `0x00` followed by one event's bytes. For each file, starting
//! with the requested one:
//!
//! 1. a fake ROTATE (timestamp 0, log_pos 0, `LOG_EVENT_ARTIFICIAL_F`) naming the
//!    file and the start position (4 for every file after the first);
//! 2. the file's FORMAT_DESCRIPTION, with `LOG_EVENT_BINLOG_IN_USE_F` cleared, and
//!    log_pos and `created` zeroed when the dump starts past it;
//! 3. the events from the position to the file's end. At the end of a file that is
//!    not the last, the dump goes on with the next (the file's own ROTATE was the
//!    last event sent). At the durable end of the last file: with
//!    `BINLOG_DUMP_NON_BLOCK` (or replica server id 0, as `mariadb-binlog` sends)
//!    the dump ends and the caller sends EOF; otherwise it waits, sending a
//!    HEARTBEAT (file name, log_pos = current position) every
//!    `@master_heartbeat_period` nanoseconds.
//!
//! # What the replica said in user variables (set before the dump)
//!
//! - `@master_binlog_checksum`: whether it understands checksums. Unset, it does
//!   not, and a file with CRC32 ends the dump with MariaDB's 1236 ("Slave can not
//!   handle replication events with the checksum that master is configured to
//!   log"): MariaDB never strips checksums. Its value only decides whether the
//!   first fake ROTATE carries a CRC (not for `NONE`; for `CRC32` and, as in
//!   MariaDB, any other value); after that invented events follow the algorithm of
//!   the file being sent.
//! - `@mariadb_slave_capability` (0 when unset): below 4 GTID events become `BEGIN`
//!   queries (standalone ones are dropped, or become dummies below 2), GTID_LIST
//!   and BINLOG_CHECKPOINT events are dropped (from 2 on) or replaced by a dummy
//!   query of the same length (below 2, so positions still add up); ANNOTATE_ROWS
//!   is sent only with `BINLOG_SEND_ANNOTATE_ROWS_EVENT`, else dropped (from 2 on),
//!   kept (1) or a dummy (0).
//! - `@rpl_semi_sync_slave`: a semi-sync replica; every packet then carries the
//!   semi-sync header and some ask for an ACK ([`crate::semisync`]).
//! - `@slave_connect_state`: a MariaDB GTID dump ([`gtid_pos`]); the file and
//!   position in the request are then ignored. With `@slave_gtid_strict_mode` a
//!   missing GTID between two present ones is an error; with
//!   `@slave_gtid_ignore_duplicates` a replica ahead in a domain is accepted.
//!   `@slave_until_gtid` (START SLAVE UNTIL master_gtid_pos) is refused.
//!
//! # Errors
//!
//! Errors end the dump with an ERR packet, as MariaDB sends it: 1236
//! (ER_MASTER_FATAL_ERROR_READING_BINLOG) for everything about the log, with the
//! coordinates appended once a file was opened ("...; the first event 'f' at N,
//! the last event read from 'f' at N, the last byte read from 'f' at N."). Every
//! event is checked (length, log_pos, CRC32) before it is sent, so a damaged file
//! is reported and never served. A client that goes away is noticed at the next
//! write (an event or a heartbeat), and the dump returns.

pub mod dir_source;
pub mod event;
pub mod gtid_pos;
pub mod reader;
pub mod registry;
pub mod stream;
#[cfg(test)]
mod tests;

pub use dir_source::DirSource;
pub use registry::{ReplicaInfo, ReplicaRegistry};
pub use stream::{dump, dump_with, DumpSink};

use basalt_common::MySqlError;

/// COM_BINLOG_DUMP flag: end at the end of the log instead of waiting.
pub const BINLOG_DUMP_NON_BLOCK: u16 = 1;
/// COM_BINLOG_DUMP flag (MariaDB): send ANNOTATE_ROWS events.
pub const BINLOG_SEND_ANNOTATE_ROWS_EVENT: u16 = 2;

/// `ER_MASTER_FATAL_ERROR_READING_BINLOG`.
pub const ER_MASTER_FATAL_ERROR_READING_BINLOG: u16 = 1236;
/// `ER_UNKNOWN_ERROR`.
pub const ER_UNKNOWN_ERROR: u16 = 1105;

/// COM_BINLOG_DUMP's arguments: position u32, flags u16, replica server id u32,
/// file name (rest of the packet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpRequest {
    pub pos: u64,
    pub flags: u16,
    pub server_id: u32,
    pub file: String,
}

/// The user variables of the dump connection's session that shape the dump
/// (MariaDB reads exactly these names).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DumpVars {
    /// `@master_binlog_checksum`; `None` when the replica did not set it.
    pub master_binlog_checksum: Option<String>,
    /// `@master_heartbeat_period` in nanoseconds (0: no heartbeats).
    pub heartbeat_period_ns: u64,
    /// `@mariadb_slave_capability` (0 when unset).
    pub mariadb_slave_capability: i64,
    /// `@slave_connect_state`, when set and not NULL.
    pub slave_connect_state: Option<String>,
    pub slave_gtid_strict_mode: bool,
    pub slave_gtid_ignore_duplicates: bool,
    /// `@slave_until_gtid`, when set and not NULL.
    pub slave_until_gtid: Option<String>,
    /// `@rpl_semi_sync_slave` is set and not 0: the replica does semi-sync.
    pub semi_sync_slave: bool,
}

/// Why a dump ended other than at the end of the log under NON_BLOCK.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    /// MariaDB's 1236 with this text.
    #[error("{0}")]
    Fatal(String),
    /// 1105 (malformed requests, as MariaDB answers them).
    #[error("{0}")]
    Unknown(String),
    /// The client went away; nothing more can be sent.
    #[error("client connection lost: {0}")]
    Disconnected(#[source] std::io::Error),
    /// The connection was killed (KILL, server shutdown).
    #[error("dump killed")]
    Killed,
}

impl DumpError {
    /// The ERR packet to send, if the client can still get one.
    pub fn client_error(&self) -> Option<MySqlError> {
        match self {
            DumpError::Fatal(m) => Some(MySqlError::new(
                ER_MASTER_FATAL_ERROR_READING_BINLOG,
                "HY000",
                m.clone(),
            )),
            DumpError::Unknown(m) => Some(MySqlError::new(ER_UNKNOWN_ERROR, "HY000", m.clone())),
            DumpError::Disconnected(_) | DumpError::Killed => None,
        }
    }
}

/// Parses COM_BINLOG_DUMP's argument (the payload after the command byte).
pub fn parse_dump_request(body: &[u8]) -> Option<DumpRequest> {
    if body.len() < 10 {
        return None;
    }
    let name = &body[10..];
    let name = name.split(|&b| b == 0).next().unwrap_or(name);
    Some(DumpRequest {
        pos: u64::from(event::u32_at(body, 0)),
        flags: event::u16_at(body, 4),
        server_id: event::u32_at(body, 6),
        file: String::from_utf8_lossy(name).into_owned(),
    })
}
