//! Events from a primary decoded into structs, and rows events into rows of typed
//! values.
//!
//! A [`Decoder`] follows one event stream (a dump connection or a file): it learns
//! from the FORMAT_DESCRIPTION whether events carry a CRC32 (and then checks every
//! CRC with `event::reader`'s [`EventReader`]), keeps the TABLE_MAPs it has seen by
//! table id, and decodes each rows event with the map its table id names.
//!
//! Invariants: a rows event decodes only against a TABLE_MAP seen earlier on the same
//! stream (MariaDB sends the maps of a statement before its rows events); a map is
//! replaced when the same table id is mapped again; the checksum setting changes only
//! at a FORMAT_DESCRIPTION (each binlog file starts with one, and a dump sends it
//! after every ROTATE to a new file).

mod events;
mod rows;
mod table_map;
mod value;

#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod tests;

pub use events::{
    decode_format_description, decode_query, decode_xid, FormatDescription, GtidEvent, Query,
};
pub use rows::{decode_rows, rows_kind, Image, RowEvent, RowsEvent, RowsKind, STMT_END_F};
pub use table_map::{decode_table_map, Column, TableMap};
pub use value::{BlobKind, ColValue, ColumnType};

use crate::event::reader::{body, fd_has_checksum};
use crate::event::{
    decode_gtid, decode_gtid_list, decode_rotate, parse_header, types, EventError, EventHeader,
    EventReader,
};
use crate::gtid::Gtid;
use std::collections::HashMap;
use thiserror::Error;

/// Why an event could not be decoded.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum DecodeError {
    #[error("binlog event too short: {0}")]
    Truncated(&'static str),
    #[error(transparent)]
    Event(#[from] EventError),
    #[error("unknown column type {0} in a TABLE_MAP")]
    UnknownColumnType(u8),
    #[error("bad TABLE_MAP metadata: {0}")]
    BadMetadata(&'static str),
    #[error("event type {0} is not a rows event")]
    NotRows(u8),
    #[error("rows event for table id {0} without a TABLE_MAP")]
    NoTableMap(u64),
    #[error("rows event for table id {table_id} has {rows} columns, its TABLE_MAP {map}")]
    ColumnCount {
        table_id: u64,
        map: usize,
        rows: usize,
    },
}

/// One decoded event.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    FormatDescription(FormatDescription),
    Query(Query),
    Gtid(GtidEvent),
    Xid(u64),
    /// The next file and the position in it.
    Rotate {
        file: String,
        pos: u64,
    },
    GtidList(Vec<Gtid>),
    /// The primary's current file (the header's log_pos is its position).
    Heartbeat {
        file: String,
    },
    TableMap(TableMap),
    Rows(RowsEvent),
    AnnotateRows(Vec<u8>),
    BinlogCheckpoint(String),
    Stop,
    /// An event this decoder passes through undecoded (its type code).
    Other(u8),
}

/// Decodes one stream's events in order (see the module doc).
#[derive(Debug, Default)]
pub struct Decoder {
    checksum: Option<bool>,
    tables: HashMap<u64, TableMap>,
}

impl Decoder {
    /// A decoder that learns the checksum setting from the first FORMAT_DESCRIPTION.
    pub fn new() -> Decoder {
        Decoder::default()
    }

    /// A decoder for a stream whose checksum setting is known (a dump that starts
    /// without a FORMAT_DESCRIPTION never happens with MariaDB, but files read from
    /// the middle do).
    pub fn with_checksum(checksum: bool) -> Decoder {
        Decoder {
            checksum: Some(checksum),
            ..Decoder::default()
        }
    }

    /// Whether events carry a CRC32, once known.
    pub fn checksum(&self) -> Option<bool> {
        self.checksum
    }

    /// The TABLE_MAP last seen for `table_id`.
    pub fn table(&self, table_id: u64) -> Option<&TableMap> {
        self.tables.get(&table_id)
    }

    /// Decodes one whole event (header, body, CRC when on), checking its CRC.
    pub fn decode(&mut self, event: &[u8]) -> Result<(EventHeader, Event), DecodeError> {
        let head = parse_header(event).ok_or(DecodeError::Truncated("event header"))?;
        let is_fd = head.type_code == types::FORMAT_DESCRIPTION;
        if is_fd {
            self.checksum = Some(fd_has_checksum(event));
        }
        // Before any FORMAT_DESCRIPTION (a dump's artificial ROTATE comes first), an
        // event carries a CRC when its last four bytes are one.
        let checksum = self.checksum.unwrap_or_else(|| ends_with_crc(event));
        let mut one = EventReader::with_checksum(event, 0, checksum);
        if let Some(Err(e)) = one.next() {
            return Err(e.into());
        }
        let b = body(event, checksum);
        let ev = self.decode_body(&head, event, b, checksum)?;
        Ok((head, ev))
    }

    fn decode_body(
        &mut self,
        head: &EventHeader,
        event: &[u8],
        b: &[u8],
        checksum: bool,
    ) -> Result<Event, DecodeError> {
        let short = |what| DecodeError::Truncated(what);
        Ok(match head.type_code {
            types::FORMAT_DESCRIPTION => Event::FormatDescription(decode_format_description(b)?),
            types::QUERY => Event::Query(decode_query(b)?),
            types::GTID => {
                let (gtid, flags) = decode_gtid(event).ok_or(short("gtid"))?;
                let flags2 = *b.get(12).ok_or(short("gtid"))?;
                Event::Gtid(GtidEvent {
                    gtid,
                    flags,
                    flags2,
                })
            }
            types::XID => Event::Xid(decode_xid(b)?),
            types::ROTATE => {
                let (file, pos) = decode_rotate(event, checksum).ok_or(short("rotate"))?;
                Event::Rotate { file, pos }
            }
            types::GTID_LIST => {
                Event::GtidList(decode_gtid_list(event, checksum).ok_or(short("gtid list"))?)
            }
            types::HEARTBEAT => Event::Heartbeat {
                file: String::from_utf8_lossy(b).into_owned(),
            },
            types::TABLE_MAP => {
                let map = decode_table_map(b)?;
                self.tables.insert(map.table_id, map.clone());
                Event::TableMap(map)
            }
            code if rows_kind(code).is_some() => {
                let id = rows::rows_table_id(b).ok_or(short("rows event"))?;
                let map = self.tables.get(&id).ok_or(DecodeError::NoTableMap(id))?;
                Event::Rows(decode_rows(code, b, map)?)
            }
            types::ANNOTATE_ROWS => Event::AnnotateRows(b.to_vec()),
            types::BINLOG_CHECKPOINT => {
                let n = b.get(..4).ok_or(short("binlog checkpoint"))?;
                let n = u32::from_le_bytes([n[0], n[1], n[2], n[3]]) as usize;
                let name = b.get(4..4 + n).ok_or(short("binlog checkpoint"))?;
                Event::BinlogCheckpoint(String::from_utf8_lossy(name).into_owned())
            }
            types::STOP => Event::Stop,
            other => Event::Other(other),
        })
    }
}

fn ends_with_crc(event: &[u8]) -> bool {
    EventReader::with_checksum(event, 0, true)
        .next()
        .is_some_and(|r| r.is_ok())
}
