//! The binary log and the primary side of replication.
//!
//! Basalt writes a row-based binary log in MariaDB 10.11's format (binlog v4 with
//! MariaDB's GTID events), because it announces itself as MariaDB and replicas and
//! change-data-capture clients choose their code path from the version string.
//!
//! - [`event`]: binlog v4 events: the writer, the reader, SHOW BINLOG EVENTS' text.
//! - [`gtid`]: MariaDB global transaction ids (`domain-server-sequence`) and the
//!   `gtid_binlog_state` / `gtid_binlog_pos` lists.
//! - [`binlog`]: the files, derived from the WAL, and the commit path that writes them.
//! - [`source`]: what the dump side (COM_BINLOG_DUMP) needs from the log.
//! - [`dump`]: the primary side of the protocol (COM_BINLOG_DUMP, COM_REGISTER_SLAVE).
//! - [`semisync`]: semi-synchronous replication, the primary side (commit waits for
//!   a replica's acknowledgement).
//! - [`replica`]: the replica side: a connection to a primary and the decoding of
//!   the events it sends.

pub mod binlog;
pub mod dump;
pub mod event;
pub mod gtid;
pub mod replica;
pub mod semisync;
pub mod source;

pub use gtid::{Gtid, GtidList};
pub use source::{BinlogPos, DumpSource, LogFile};
