//! Decoding: the common header, iteration over a file's events with checksum
//! verification, the control events the dump side needs, and SHOW BINLOG EVENTS'
//! `Event_type` / `Info` columns.
//!
//! Invariant of [`EventReader`]: it yields whole events in file order, each exactly
//! `event_length` bytes from the offset it names, and stops after the first error.

use super::writer::event_crc;
use super::{flags, get_packed, types, CHECKSUM_LEN, HEADER_LEN};
use crate::event::{query_flags2, GtidFlags};
use crate::gtid::{format_list, Gtid};
use thiserror::Error;

/// Offset of the checksum-algorithm byte from the end of a FORMAT_DESCRIPTION
/// (it precedes the 4-byte CRC).
const FD_ALG_FROM_END: usize = CHECKSUM_LEN + 1;
/// Offsets in a FORMAT_DESCRIPTION body.
const FD_SERVER_VERSION: usize = 2;
const FD_SERVER_VERSION_LEN: usize = 50;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum EventError {
    #[error("binlog truncated: event at offset {offset} needs {needed} bytes, {available} left")]
    Truncated {
        offset: u64,
        needed: u64,
        available: u64,
    },
    #[error("binlog event at offset {offset} has a bad length {len}")]
    BadLength { offset: u64, len: u32 },
    #[error("binlog event at offset {offset} has a bad checksum (stored {stored:#010x}, computed {computed:#010x})")]
    BadChecksum {
        offset: u64,
        stored: u32,
        computed: u32,
    },
}

/// The 19-byte common header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventHeader {
    pub timestamp: u32,
    pub type_code: u8,
    pub server_id: u32,
    pub event_len: u32,
    pub log_pos: u32,
    pub flags: u16,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

pub fn parse_header(b: &[u8]) -> Option<EventHeader> {
    Some(EventHeader {
        timestamp: u32_at(b, 0)?,
        type_code: *b.get(4)?,
        server_id: u32_at(b, 5)?,
        event_len: u32_at(b, 9)?,
        log_pos: u32_at(b, 13)?,
        flags: u16_at(b, 17)?,
    })
}

/// Whether a FORMAT_DESCRIPTION event announces CRC32 checksums.
pub fn fd_has_checksum(fd: &[u8]) -> bool {
    fd.len() >= HEADER_LEN + FD_ALG_FROM_END && fd[fd.len() - FD_ALG_FROM_END] == 1
}

/// Iterates the events of a binlog file's bytes (after the magic), checking each
/// CRC32 when the file's FORMAT_DESCRIPTION says the file has checksums; a bad
/// checksum or a truncated event is an error naming the offset.
pub struct EventReader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// File offset of `bytes[0]` (4 after the magic).
    start: u64,
    checksum: Option<bool>,
    failed: bool,
}

impl<'a> EventReader<'a> {
    /// `bytes` begins at file offset `start` (4 for a whole file after the magic).
    /// Checksums are taken from the first FORMAT_DESCRIPTION seen.
    pub fn new(bytes: &'a [u8], start: u64) -> EventReader<'a> {
        EventReader {
            bytes,
            at: 0,
            start,
            checksum: None,
            failed: false,
        }
    }

    /// Reads from the middle of a file whose checksum setting is known.
    pub fn with_checksum(bytes: &'a [u8], start: u64, checksum: bool) -> EventReader<'a> {
        EventReader {
            checksum: Some(checksum),
            ..EventReader::new(bytes, start)
        }
    }

    /// Whether events carry CRC32s (known once a FORMAT_DESCRIPTION was read).
    pub fn checksum(&self) -> Option<bool> {
        self.checksum
    }

    /// File offset of the next event.
    pub fn pos(&self) -> u64 {
        self.start + self.at as u64
    }

    fn next_event(&mut self) -> Result<(u64, &'a [u8]), EventError> {
        let offset = self.pos();
        let rest = &self.bytes[self.at..];
        let truncated = |needed: u64| EventError::Truncated {
            offset,
            needed,
            available: rest.len() as u64,
        };
        let head = parse_header(rest).ok_or(truncated(HEADER_LEN as u64))?;
        let len = head.event_len as usize;
        if len < HEADER_LEN {
            return Err(EventError::BadLength {
                offset,
                len: head.event_len,
            });
        }
        let ev = rest.get(..len).ok_or(truncated(len as u64))?;
        let is_fd = head.type_code == types::FORMAT_DESCRIPTION;
        if is_fd && self.checksum.is_none() {
            self.checksum = Some(fd_has_checksum(ev));
        }
        if self.checksum == Some(true) || (is_fd && fd_has_checksum(ev)) {
            verify(ev, offset)?;
        }
        self.at += len;
        Ok((offset, ev))
    }
}

fn verify(ev: &[u8], offset: u64) -> Result<(), EventError> {
    let n = ev
        .len()
        .checked_sub(CHECKSUM_LEN)
        .ok_or(EventError::BadLength {
            offset,
            len: ev.len() as u32,
        })?;
    let stored = u32_at(ev, n).unwrap_or(0);
    let computed = event_crc(&ev[..n]);
    if stored != computed {
        return Err(EventError::BadChecksum {
            offset,
            stored,
            computed,
        });
    }
    Ok(())
}

impl<'a> Iterator for EventReader<'a> {
    type Item = Result<(u64, &'a [u8]), EventError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.at >= self.bytes.len() {
            return None;
        }
        let r = self.next_event();
        self.failed = r.is_err();
        Some(r)
    }
}

/// The body of an event: after the header, without the CRC (a FORMAT_DESCRIPTION
/// always has one).
pub fn body(event: &[u8], checksum: bool) -> &[u8] {
    let is_fd = event.get(4) == Some(&types::FORMAT_DESCRIPTION);
    let tail = if checksum || is_fd { CHECKSUM_LEN } else { 0 };
    event
        .get(HEADER_LEN..event.len().saturating_sub(tail))
        .unwrap_or_default()
}

pub fn decode_gtid(event: &[u8]) -> Option<(Gtid, GtidFlags)> {
    let head = parse_header(event)?;
    if head.type_code != types::GTID {
        return None;
    }
    let b = event.get(HEADER_LEN..)?;
    let seq = u64_at(b, 0)?;
    let domain = u32_at(b, 8)?;
    let bits = *b.get(12)?;
    let gtid = Gtid {
        domain,
        server: head.server_id,
        seq,
    };
    Some((gtid, GtidFlags::from_bits(bits, u64_at(b, 13))))
}

pub fn decode_gtid_list(event: &[u8], checksum: bool) -> Option<Vec<Gtid>> {
    if parse_header(event)?.type_code != types::GTID_LIST {
        return None;
    }
    let b = body(event, checksum);
    let count = u32_at(b, 0)? & 0x0fff_ffff;
    (0..count as usize)
        .map(|i| {
            let at = 4 + 16 * i;
            Some(Gtid {
                domain: u32_at(b, at)?,
                server: u32_at(b, at + 4)?,
                seq: u64_at(b, at + 8)?,
            })
        })
        .collect()
}

pub fn decode_rotate(event: &[u8], checksum: bool) -> Option<(String, u64)> {
    if parse_header(event)?.type_code != types::ROTATE {
        return None;
    }
    let b = body(event, checksum);
    let pos = u64_at(b, 0)?;
    Some((String::from_utf8_lossy(b.get(8..)?).into_owned(), pos))
}

/// The event type's name as SHOW BINLOG EVENTS prints it.
pub fn type_name(code: u8) -> &'static str {
    match code {
        1 => "Start_v3",
        types::QUERY => "Query",
        types::STOP => "Stop",
        types::ROTATE => "Rotate",
        types::INTVAR => "Intvar",
        13 => "RAND",
        14 => "User var",
        types::FORMAT_DESCRIPTION => "Format_desc",
        types::XID => "Xid",
        types::TABLE_MAP => "Table_map",
        types::WRITE_ROWS_V1 => "Write_rows_v1",
        types::UPDATE_ROWS_V1 => "Update_rows_v1",
        types::DELETE_ROWS_V1 => "Delete_rows_v1",
        26 => "Incident",
        types::HEARTBEAT => "Heartbeat",
        types::WRITE_ROWS => "Write_rows",
        types::UPDATE_ROWS => "Update_rows",
        types::DELETE_ROWS => "Delete_rows",
        types::ANNOTATE_ROWS => "Annotate_rows",
        types::BINLOG_CHECKPOINT => "Binlog_checkpoint",
        types::GTID => "Gtid",
        types::GTID_LIST => "Gtid_list",
        _ => "Unknown",
    }
}

/// SHOW BINLOG EVENTS' Event_type and Info columns for one event, as MariaDB prints
/// them. A malformed event gets an empty Info.
pub fn describe(event: &[u8], checksum: bool) -> (String, String) {
    let Some(head) = parse_header(event) else {
        return ("Unknown".into(), String::new());
    };
    let info = info(event, &head, checksum).unwrap_or_default();
    (type_name(head.type_code).into(), info)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn info(event: &[u8], head: &EventHeader, checksum: bool) -> Option<String> {
    let b = body(event, checksum);
    Some(match head.type_code {
        types::FORMAT_DESCRIPTION => {
            let ver = b.get(FD_SERVER_VERSION..FD_SERVER_VERSION + FD_SERVER_VERSION_LEN)?;
            let end = ver.iter().position(|c| *c == 0).unwrap_or(ver.len());
            format!(
                "Server ver: {}, Binlog ver: {}",
                text(&ver[..end]),
                u16_at(b, 0)?
            )
        }
        types::GTID_LIST => format!("[{}]", format_list(&decode_gtid_list(event, checksum)?)),
        types::BINLOG_CHECKPOINT => {
            let n = u32_at(b, 0)? as usize;
            text(b.get(4..4 + n)?)
        }
        types::GTID => gtid_info(event)?,
        types::QUERY => query_info(b, head.flags)?,
        types::ANNOTATE_ROWS => text(b),
        types::TABLE_MAP => table_map_info(b)?,
        types::WRITE_ROWS_V1..=types::DELETE_ROWS_V1 | types::WRITE_ROWS..=types::DELETE_ROWS => {
            rows_info(b)?
        }
        types::XID => format!("COMMIT /* xid={} */", u64_at(b, 0)?),
        types::ROTATE => {
            let (file, pos) = decode_rotate(event, checksum)?;
            format!("{file};pos={pos}")
        }
        _ => String::new(),
    })
}

fn gtid_info(event: &[u8]) -> Option<String> {
    let (gtid, fl) = decode_gtid(event)?;
    let mut s = if fl.standalone {
        format!("GTID {gtid}")
    } else {
        format!("BEGIN GTID {gtid}")
    };
    if let Some(cid) = fl.commit_id {
        s.push_str(&format!(" cid={cid}"));
    }
    Some(s)
}

/// `use `db`; ` (unless SUPPRESS_USE or no database), then `set ...; ` for the
/// non-default settings in flags2, then the statement.
fn query_info(b: &[u8], head_flags: u16) -> Option<String> {
    let db_len = *b.get(8)? as usize;
    let vars_len = u16_at(b, 11)? as usize;
    let db_at = 13 + vars_len;
    let db = b.get(db_at..db_at + db_len)?;
    let sql = b.get(db_at + db_len + 1..)?;
    let mut s = String::new();
    if head_flags & flags::SUPPRESS_USE == 0 && !db.is_empty() {
        s.push_str(&format!("use `{}`; ", text(db).replace('`', "``")));
    }
    let vars = b.get(13..db_at)?;
    let flags2 = match vars.first() {
        Some(0) => u32_at(vars, 1)?,
        _ => 0,
    };
    let set: Vec<&str> = QUERY_SETTINGS
        .iter()
        .filter(|(bit, _)| flags2 & bit != 0)
        .map(|(_, text)| *text)
        .collect();
    if !set.is_empty() {
        s.push_str(&format!("set {}; ", set.join(", ")));
    }
    s.push_str(&text(sql));
    Some(s)
}

/// The session settings a QUERY's Info names before the statement, in MariaDB's order.
const QUERY_SETTINGS: [(u32, &str); 5] = [
    (query_flags2::NO_FOREIGN_KEY_CHECKS, "foreign_key_checks=0"),
    (query_flags2::AUTO_IS_NULL, "sql_auto_is_null=1"),
    (query_flags2::RELAXED_UNIQUE_CHECKS, "unique_checks=0"),
    (
        query_flags2::NO_CHECK_CONSTRAINT_CHECKS,
        "check_constraint_checks=0",
    ),
    (query_flags2::IF_EXISTS, "@@sql_if_exists=1"),
];

fn table_map_info(b: &[u8]) -> Option<String> {
    let id = table_id(b)?;
    let db_len = *b.get(8)? as usize;
    let db = b.get(9..9 + db_len)?;
    let t_at = 9 + db_len + 1;
    let t_len = *b.get(t_at)? as usize;
    let table = b.get(t_at + 1..t_at + 1 + t_len)?;
    Some(format!("table_id: {id} ({}.{})", text(db), text(table)))
}

fn table_id(b: &[u8]) -> Option<u64> {
    let mut id = [0u8; 8];
    id[..6].copy_from_slice(b.get(..6)?);
    Some(u64::from_le_bytes(id))
}

fn rows_info(b: &[u8]) -> Option<String> {
    let id = table_id(b)?;
    let fl = u16_at(b, 6)?;
    let _ = get_packed(b.get(8..)?)?;
    Some(if fl & super::rows::STMT_END_F != 0 {
        format!("table_id: {id} flags: STMT_END_F")
    } else {
        format!("table_id: {id}")
    })
}
