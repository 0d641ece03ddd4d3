//! The replica side of replication, its lowest layers.
//!
//! - [`client`]: a blocking connection to a primary (MariaDB 10.11, MySQL or Basalt):
//!   handshake and `mysql_native_password`, the queries MariaDB's I/O thread asks
//!   before a dump, COM_REGISTER_SLAVE, COM_BINLOG_DUMP by file/position or by GTID
//!   connect state, then the stream of raw events.
//! - [`decode`]: the events of that stream decoded into structs, and rows events into
//!   rows of typed values ([`decode::ColValue`]) using the TABLE_MAP that precedes them.
//!
//! Neither layer knows Basalt's engine: the applier maps decoded values onto the
//! replica's own table definitions.

pub mod client;
pub mod decode;

pub use client::{ClientError, ConnectOptions, DumpRequest, EventStream, PrimaryConn, ResultSet};
pub use decode::{ColValue, DecodeError, Decoder, Event};
