//! Binlog v4 event bytes as the dump side reads, checks, rewrites and invents them.
//!
//! Every event starts with the 19-byte common header (little-endian):
//!
//! | offset | size | field                                   |
//! |--------|------|-----------------------------------------|
//! | 0      | 4    | timestamp                               |
//! | 4      | 1    | event type                              |
//! | 5      | 4    | server id                               |
//! | 9      | 4    | event length (header + body + checksum) |
//! | 13     | 4    | log_pos: offset of the next event       |
//! | 17     | 2    | flags (`LOG_EVENT_*_F`)                 |
//!
//! With `binlog_checksum=CRC32` the last 4 bytes of every event are the CRC32 of
//! the bytes before them. The FORMAT_DESCRIPTION event's CRC is computed with
//! `LOG_EVENT_BINLOG_IN_USE_F` cleared (the flag is cleared in place when the file
//! is closed, so the CRC stays valid). The FD's last 5 bytes are its checksum
//! algorithm (`u8`: 0 off, 1 CRC32) and its CRC (present even when the algorithm
//! is off).
//!
//! Events a primary invents (fake ROTATE, HEARTBEAT, fake GTID_LIST) have
//! timestamp 0; ROTATE and GTID_LIST carry `LOG_EVENT_ARTIFICIAL_F`.

use crate::event::flags as header;
use crate::event::writer::event_crc;
pub use crate::event::{types, CHECKSUM_LEN, HEADER_LEN};

/// The 4-byte magic every binlog file starts with.
pub const MAGIC: &[u8; 4] = &crate::event::BINLOG_MAGIC;
/// Offset of the first event (the FORMAT_DESCRIPTION) in a file.
pub const FIRST_EVENT: u64 = 4;

pub const TYPE_OFFSET: usize = 4;
pub const SERVER_ID_OFFSET: usize = 5;
pub const LEN_OFFSET: usize = 9;
pub const LOG_POS_OFFSET: usize = 13;
pub const FLAGS_OFFSET: usize = 17;

/// FORMAT_DESCRIPTION body: binlog version u16 at 0, server version [u8; 50] at 2,
/// `created` timestamp u32 at 52.
pub const FD_CREATED_OFFSET: usize = HEADER_LEN + 52;
/// GTID body: seq_no u64 at 0, domain u32 at 8, flags2 u8 at 12; commit id u64 at 13
/// when `FL_GROUP_COMMIT_ID`, else 6 bytes of padding (19 bytes in all).
pub const GTID_BODY_LEN: usize = 19;
pub const GTID_FL_STANDALONE: u8 = 1;
/// QUERY body: thread id u32 at 0, exec time u32 at 4, db length u8 at 8, error code
/// u16 at 9, status-vars length u16 at 11; then status vars, db, NUL, query text.
pub const QUERY_HEADER_LEN: usize = 13;
const Q_TIME_ZONE_CODE: u8 = 5;

/// A checksum algorithm as MariaDB numbers it (`enum_binlog_checksum_alg`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChecksumAlg {
    Off,
    Crc32,
    /// Unknown: the replica did not say (`@master_binlog_checksum` unset).
    Undef,
}

impl ChecksumAlg {
    pub fn has_crc(self) -> bool {
        self == ChecksumAlg::Crc32
    }
    /// The trailing bytes an event carries under this algorithm.
    pub fn trailer(self) -> usize {
        if self.has_crc() {
            CHECKSUM_LEN
        } else {
            0
        }
    }
}

pub fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

pub fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

pub fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

pub fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

pub fn event_type(ev: &[u8]) -> u8 {
    ev[TYPE_OFFSET]
}

pub fn flags(ev: &[u8]) -> u16 {
    u16_at(ev, FLAGS_OFFSET)
}

fn set_flags(ev: &mut [u8], f: u16) {
    ev[FLAGS_OFFSET..FLAGS_OFFSET + 2].copy_from_slice(&f.to_le_bytes());
}

/// The checksum algorithm a FORMAT_DESCRIPTION declares (`Off` for servers before
/// checksums, whose FD has no algorithm byte; MariaDB 10.11 files always have it).
pub fn fd_checksum_alg(fd: &[u8]) -> ChecksumAlg {
    // body: version(2) server_version(50) created(4) header_len(1) post-header
    // lengths(n) alg(1) crc(4); the alg byte is 5 bytes from the end.
    if fd.len() < HEADER_LEN + 57 + 5 {
        return ChecksumAlg::Off;
    }
    match fd[fd.len() - 5] {
        1 => ChecksumAlg::Crc32,
        _ => ChecksumAlg::Off,
    }
}

/// Whether `ev`'s trailing CRC32 matches (the FD's with its in-use flag cleared).
pub fn crc_ok(ev: &[u8]) -> bool {
    if ev.len() < HEADER_LEN + CHECKSUM_LEN {
        return false;
    }
    let n = ev.len() - CHECKSUM_LEN;
    event_crc(&ev[..n]) == u32_at(ev, n)
}

/// Recomputes the trailing CRC32 after an in-place change.
pub fn fix_crc(ev: &mut [u8], alg: ChecksumAlg) {
    if !alg.has_crc() || ev.len() < HEADER_LEN + CHECKSUM_LEN {
        return;
    }
    let n = ev.len() - CHECKSUM_LEN;
    let crc = crc32fast::hash(&ev[..n]);
    put_u32(ev, n, crc);
}

/// The FORMAT_DESCRIPTION as a dump sends it: the in-use flag cleared; with
/// `clear_pos` log_pos 0 (the replica must not advance its position) and
/// `created` 0 (it must not drop its temporary tables); with `clear_created`
/// only the latter.
pub fn prepare_fd(fd: &mut [u8], alg: ChecksumAlg, clear_pos: bool, clear_created: bool) {
    let f = flags(fd) & !header::BINLOG_IN_USE;
    set_flags(fd, f);
    if clear_pos {
        put_u32(fd, LOG_POS_OFFSET, 0);
    }
    if (clear_pos || clear_created) && fd.len() >= FD_CREATED_OFFSET + 4 {
        put_u32(fd, FD_CREATED_OFFSET, 0);
        fix_crc(fd, alg);
    }
}

/// A GTID event's (domain, server, seq) and flags2; `None` when too short.
pub fn gtid_of(ev: &[u8]) -> Option<(crate::Gtid, u8)> {
    let (gtid, _) = crate::event::decode_gtid(ev)?;
    Some((gtid, *ev.get(HEADER_LEN + 12)?))
}

/// A GTID_LIST event's GTIDs; `None` when malformed.
pub fn gtid_list_of(ev: &[u8], alg: ChecksumAlg) -> Option<Vec<crate::Gtid>> {
    crate::event::decode_gtid_list(ev, alg.has_crc())
}

/// Whether a QUERY event is `COMMIT` or `ROLLBACK` (it ends an event group).
pub fn is_commit_or_rollback(ev: &[u8], alg: ChecksumAlg) -> bool {
    let Some(end) = ev.len().checked_sub(alg.trailer()) else {
        return false;
    };
    if end < HEADER_LEN + QUERY_HEADER_LEN {
        return false;
    }
    let q = &ev[HEADER_LEN..end];
    let db_len = q[8] as usize;
    let status_len = u16_at(q, 11) as usize;
    let start = QUERY_HEADER_LEN + status_len + db_len + 1;
    match q.get(start..) {
        Some(text) => text == b"COMMIT" || text == b"ROLLBACK",
        None => false,
    }
}

/// MariaDB's `Log_event::is_part_of_group`: events that never end a group.
pub fn is_part_of_group(ty: u8) -> bool {
    matches!(
        ty,
        types::GTID
            | types::INTVAR
            | types::RAND
            | types::USER_VAR
            | types::TABLE_MAP
            | types::ANNOTATE_ROWS
    )
}

/// Builds an event from its type, body and log_pos, with timestamp 0 (invented by
/// the primary) and a CRC when `alg` has one.
pub fn build(
    ty: u8,
    server_id: u32,
    log_pos: u32,
    flags: u16,
    body: &[u8],
    alg: ChecksumAlg,
) -> Vec<u8> {
    let len = HEADER_LEN + body.len() + alg.trailer();
    let mut ev = Vec::with_capacity(len);
    ev.extend_from_slice(&0u32.to_le_bytes());
    ev.push(ty);
    ev.extend_from_slice(&server_id.to_le_bytes());
    ev.extend_from_slice(&(len as u32).to_le_bytes());
    ev.extend_from_slice(&log_pos.to_le_bytes());
    ev.extend_from_slice(&flags.to_le_bytes());
    ev.extend_from_slice(body);
    if alg.has_crc() {
        let crc = crc32fast::hash(&ev);
        ev.extend_from_slice(&crc.to_le_bytes());
    }
    ev
}

/// The fake ROTATE a dump starts each file with: position u64, then the file name.
pub fn fake_rotate(server_id: u32, file: &str, pos: u64, alg: ChecksumAlg) -> Vec<u8> {
    let mut body = pos.to_le_bytes().to_vec();
    body.extend_from_slice(file.as_bytes());
    build(types::ROTATE, server_id, 0, header::ARTIFICIAL, &body, alg)
}

/// HEARTBEAT_LOG_EVENT: the body is the current file name; log_pos is the current
/// position (0 and an 8-byte position before the name past 4 GiB).
pub fn heartbeat(server_id: u32, file: &str, pos: u64, alg: ChecksumAlg) -> Vec<u8> {
    let mut body = Vec::with_capacity(8 + file.len());
    let log_pos = match u32::try_from(pos) {
        Ok(p) => p,
        Err(_) => {
            body.extend_from_slice(&pos.to_le_bytes());
            0
        }
    };
    body.extend_from_slice(file.as_bytes());
    build(types::HEARTBEAT, server_id, log_pos, 0, &body, alg)
}

/// A fake GTID_LIST (sent once a GTID replica's start position is reached, so it
/// can update its position): count with flags 0, then the GTIDs.
pub fn fake_gtid_list(
    server_id: u32,
    gtids: &[crate::Gtid],
    log_pos: u32,
    alg: ChecksumAlg,
) -> Vec<u8> {
    let mut body = (gtids.len() as u32).to_le_bytes().to_vec();
    for g in gtids {
        body.extend_from_slice(&g.domain.to_le_bytes());
        body.extend_from_slice(&g.server.to_le_bytes());
        body.extend_from_slice(&g.seq.to_le_bytes());
    }
    build(
        types::GTID_LIST,
        server_id,
        log_pos,
        header::ARTIFICIAL,
        &body,
        alg,
    )
}

/// MariaDB's `Query_log_event::dummy_event`: replaces an event a replica cannot
/// handle by a no-op of the same length (a comment QUERY, or for events shorter
/// than 34 bytes a NULL user variable `@!dummyvar`). `None` when shorter than 25.
pub fn make_dummy(ev: &mut [u8], alg: ChecksumAlg) -> Option<()> {
    const MIN_USER_VAR: usize = HEADER_LEN + 4 + 1 + 1;
    const MIN_QUERY: usize = HEADER_LEN + QUERY_HEADER_LEN + 1 + 1;
    let data_len = ev.len().checked_sub(alg.trailer())?;
    if data_len < MIN_USER_VAR {
        return None;
    }
    let f = (flags(ev) & !header::THREAD_SPECIFIC) | header::SUPPRESS_USE;
    set_flags(ev, f);
    if data_len < MIN_QUERY {
        let name = b"!dummyvar";
        let name_len = data_len - (MIN_USER_VAR - 1);
        ev[TYPE_OFFSET] = types::USER_VAR;
        put_u32(ev, HEADER_LEN, name_len as u32);
        for i in 0..name_len {
            ev[HEADER_LEN + 4 + i] = name.get(i).copied().unwrap_or(0);
        }
        ev[HEADER_LEN + 4 + name_len] = 1;
    } else {
        let old_type = ev[TYPE_OFFSET];
        ev[TYPE_OFFSET] = types::QUERY;
        blank_query_header(ev, 0);
        ev[HEADER_LEN + QUERY_HEADER_LEN] = 0;
        let text =
            format!("# Dummy event replacing event type {old_type} that slave cannot handle.");
        let start = HEADER_LEN + QUERY_HEADER_LEN + 1;
        for (i, b) in ev[start..data_len].iter_mut().enumerate() {
            *b = text.as_bytes().get(i).copied().unwrap_or(b' ');
        }
    }
    fix_crc(ev, alg);
    Some(())
}

fn blank_query_header(ev: &mut [u8], status_len: u16) {
    let q = HEADER_LEN;
    put_u32(ev, q, 0);
    put_u32(ev, q + 4, 0);
    ev[q + 8] = 0;
    ev[q + 9..q + 11].copy_from_slice(&0u16.to_le_bytes());
    ev[q + 11..q + 13].copy_from_slice(&status_len.to_le_bytes());
}

/// MariaDB's `Query_log_event::begin_event`: rewrites a GTID event (19-byte body,
/// or 21 with a commit id) as a `BEGIN` QUERY of the same length, for replicas
/// that do not know GTIDs. `None` for any other length.
pub fn make_begin(ev: &mut [u8], alg: ChecksumAlg) -> Option<()> {
    let data_len = ev.len().checked_sub(alg.trailer())?;
    let short = HEADER_LEN + GTID_BODY_LEN;
    if data_len != short && data_len != short + 2 {
        return None;
    }
    let f = (flags(ev) & !header::THREAD_SPECIFIC) | header::SUPPRESS_USE;
    set_flags(ev, f);
    ev[TYPE_OFFSET] = types::QUERY;
    let d = HEADER_LEN + QUERY_HEADER_LEN;
    let text_at = if data_len == short {
        blank_query_header(ev, 0);
        ev[d] = 0;
        d + 1
    } else {
        // An empty time_zone status variable takes up the 2 extra bytes.
        blank_query_header(ev, 2);
        ev[d] = Q_TIME_ZONE_CODE;
        ev[d + 1] = 0;
        ev[d + 2] = 0;
        d + 3
    };
    ev[text_at..text_at + 5].copy_from_slice(b"BEGIN");
    fix_crc(ev, alg);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heartbeat_matches_mariadb() {
        // Captured from MariaDB 10.11 (server_id 1, file 4 at 588, CRC32 file 3
        // before it so no CRC here: file 4 is binlog_checksum=NONE).
        let hb = heartbeat(1, "mariadb-bin.000004", 588, ChecksumAlg::Off);
        let want = "00000000001b01000000250000004c02000000006d6172696164622d62696e2e303030303034";
        let mut got = vec![0u8];
        got.extend_from_slice(&hb);
        let hex: String = got.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, want);
    }

    #[test]
    fn begin_and_dummy_keep_length_and_crc() {
        let mut body = vec![0u8; GTID_BODY_LEN];
        body[0] = 7;
        let mut ev = build(types::GTID, 1, 100, 0x8, &body, ChecksumAlg::Crc32);
        let n = ev.len();
        make_begin(&mut ev, ChecksumAlg::Crc32).expect("gtid length");
        assert_eq!((ev.len(), event_type(&ev)), (n, types::QUERY));
        assert!(crc_ok(&ev));
        assert!(!is_commit_or_rollback(&ev, ChecksumAlg::Crc32));
        let mut short = build(types::XID, 1, 100, 0, &[0u8; 8], ChecksumAlg::Crc32);
        make_dummy(&mut short, ChecksumAlg::Crc32).expect("27 data bytes fit a user var");
        assert_eq!(event_type(&short), types::USER_VAR);
        assert!(crc_ok(&short));
        let mut tiny = build(types::XID, 1, 100, 0, &[0u8; 2], ChecksumAlg::Off);
        assert!(make_dummy(&mut tiny, ChecksumAlg::Off).is_none());
    }
}
