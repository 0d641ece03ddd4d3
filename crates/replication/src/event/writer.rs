//! [`EventWriter`]: appends events to a buffer that will sit at a known file offset,
//! and the bodies of the control events.
//!
//! Bodies (integers little-endian; offsets from the end of the common header):
//! - FORMAT_DESCRIPTION: 0 binlog version (2, = 4) | 2 server version (50, NUL padded)
//!   | 52 create timestamp (4) | 56 header length (1, = 19) | 57 post-header lengths
//!   of types 1..=171 (171) | 228 checksum algorithm (1) | CRC (always present).
//! - ROTATE: 0 position of the first event in the next file (8) | 8 file name.
//! - GTID_LIST: 0 count (4; the top 4 bits are flags, 0 here) | 4 count x (domain 4,
//!   server 4, seq 8); the empty list has 2 zero bytes after the count.
//! - BINLOG_CHECKPOINT: 0 name length (4) | 4 file name.
//! - GTID: 0 seq_no (8) | 8 domain (4) | 12 flags2 (1) | 13 commit id (8) when
//!   `FL_GROUP_COMMIT_ID`, else 6 zero bytes. The header's server_id is the GTID's.
//! - QUERY: 0 thread id (4) | 4 exec time (4) | 8 db length (1) | 9 error code (2) |
//!   11 status-variables length (2) | 13 status variables | db | NUL | statement.
//! - ANNOTATE_ROWS: the statement text. XID: the xid (8). STOP: empty.
//! - HEARTBEAT (never in a file): the current file name; log_pos is the position.
//!
//! Invariant: after every call, `bytes()` is a sequence of whole events and `pos()` is
//! `start + bytes().len()`, the log_pos of the last event.

use super::rows::{self, RowChange, RowImage};
use super::table_map::RowMetadata;
use super::{flags, table_map, types, CHECKSUM_LEN, HEADER_LEN};
use crate::gtid::Gtid;
use basalt_common::TableDef;

/// Post-header lengths MariaDB 10.11 announces for event types 1..=171, as (type,
/// length) for the non-zero entries.
const POST_HEADER_LENGTHS: [(u8, u8); 33] = [
    (1, 56),
    (2, 13),
    (4, 8),
    (6, 18),
    (8, 4),
    (9, 4),
    (10, 4),
    (11, 4),
    (12, 18),
    (15, 228),
    (17, 4),
    (18, 26),
    (19, 8),
    (23, 8),
    (24, 8),
    (25, 8),
    (26, 2),
    (30, 10),
    (31, 10),
    (32, 10),
    (39, 10),
    (40, 10),
    (41, 10),
    (161, 4),
    (162, 19),
    (163, 4),
    (165, 13),
    (166, 8),
    (167, 8),
    (168, 8),
    (169, 10),
    (170, 10),
    (171, 10),
];
/// Number of entries in the FORMAT_DESCRIPTION's post-header length array.
const NUM_EVENT_TYPES: usize = 171;
/// Width of the FORMAT_DESCRIPTION's server-version field.
const SERVER_VERSION_LEN: usize = 50;

/// GTID `flags2` bits.
const FL_STANDALONE: u8 = 1;
const FL_GROUP_COMMIT_ID: u8 = 2;
const FL_TRANSACTIONAL: u8 = 4;
const FL_ALLOW_PARALLEL: u8 = 8;
const FL_WAITED: u8 = 16;
const FL_DDL: u8 = 32;

/// Query status-variable codes (`Q_*`), in the order MariaDB writes them.
const Q_FLAGS2_CODE: u8 = 0;
const Q_SQL_MODE_CODE: u8 = 1;
const Q_CATALOG_NZ_CODE: u8 = 6;
const Q_AUTO_INCREMENT: u8 = 3;
const Q_CHARSET_CODE: u8 = 4;
const Q_TIME_ZONE_CODE: u8 = 5;
const Q_LC_TIME_NAMES_CODE: u8 = 7;
const Q_CHARSET_DATABASE_CODE: u8 = 8;
const Q_HRNOW: u8 = 128;
const Q_XID: u8 = 129;

/// The `Q_FLAGS2_CODE` bits of a QUERY event (MariaDB's `OPTION_*`, as checked
/// against MariaDB 10.11's binlog).
pub mod query_flags2 {
    /// `sql_auto_is_null=1`.
    pub const AUTO_IS_NULL: u32 = 1 << 14;
    /// `check_constraint_checks=0`.
    pub const NO_CHECK_CONSTRAINT_CHECKS: u32 = 1 << 15;
    /// `explicit_defaults_for_timestamp=1` (the default).
    pub const EXPLICIT_DEF_TIMESTAMP: u32 = 1 << 24;
    /// `foreign_key_checks=0`.
    pub const NO_FOREIGN_KEY_CHECKS: u32 = 1 << 26;
    /// `unique_checks=0`.
    pub const RELAXED_UNIQUE_CHECKS: u32 = 1 << 27;
    /// `sql_if_exists=1`.
    pub const IF_EXISTS: u32 = 1 << 28;
}

/// The flags of a GTID event (`flags2`). MariaDB writes `ddl()` for DDL,
/// `transactional()` for a transaction on transactional tables and
/// `non_transactional()` for one on MEMORY tables (ended by a QUERY `COMMIT`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GtidFlags {
    /// Not a transaction: the group is one statement (DDL), no BEGIN/COMMIT.
    pub standalone: bool,
    pub transactional: bool,
    pub ddl: bool,
    pub allow_parallel: bool,
    /// The transaction waited for a row lock held by another (a parallel-apply hint).
    pub waited: bool,
    /// The group-commit id, when the transaction was group-committed with others.
    pub commit_id: Option<u64>,
}

impl GtidFlags {
    /// DDL: standalone, allow-parallel, ddl (`0x29`).
    pub fn ddl() -> GtidFlags {
        GtidFlags {
            standalone: true,
            ddl: true,
            allow_parallel: true,
            ..GtidFlags::default()
        }
    }

    /// A transaction on transactional tables (`0x0c`).
    pub fn transactional() -> GtidFlags {
        GtidFlags {
            transactional: true,
            allow_parallel: true,
            ..GtidFlags::default()
        }
    }

    /// A transaction on non-transactional (MEMORY) tables (`0x08`).
    pub fn non_transactional() -> GtidFlags {
        GtidFlags {
            allow_parallel: true,
            ..GtidFlags::default()
        }
    }

    pub fn bits(&self) -> u8 {
        let mut b = 0;
        for (on, bit) in [
            (self.standalone, FL_STANDALONE),
            (self.commit_id.is_some(), FL_GROUP_COMMIT_ID),
            (self.transactional, FL_TRANSACTIONAL),
            (self.allow_parallel, FL_ALLOW_PARALLEL),
            (self.waited, FL_WAITED),
            (self.ddl, FL_DDL),
        ] {
            if on {
                b |= bit;
            }
        }
        b
    }

    /// Flags from `flags2` and the commit id that follows it when present.
    pub fn from_bits(b: u8, commit_id: Option<u64>) -> GtidFlags {
        GtidFlags {
            standalone: b & FL_STANDALONE != 0,
            transactional: b & FL_TRANSACTIONAL != 0,
            ddl: b & FL_DDL != 0,
            allow_parallel: b & FL_ALLOW_PARALLEL != 0,
            waited: b & FL_WAITED != 0,
            commit_id: if b & FL_GROUP_COMMIT_ID != 0 {
                commit_id
            } else {
                None
            },
        }
    }
}

/// A QUERY event: a DDL statement, or the `COMMIT` ending a transaction on
/// non-transactional tables. Status variables are written as MariaDB writes them:
/// flags2, sql_mode, catalog `std`, auto_increment (only when not 1/1), charsets,
/// time zone (when given), lc_time_names (when not 0 = en_US), charset_database
/// (when given), the statement's microseconds (when given) and the DDL's xid (when
/// given).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query<'a> {
    pub thread_id: u32,
    pub exec_time: u32,
    /// The default database (`""` for none).
    pub db: &'a str,
    pub sql: &'a str,
    pub error_code: u16,
    /// `OPTION_*` bits MariaDB logs (`Q_FLAGS2_CODE`, [`query_flags2`]):
    /// [`query_flags2::EXPLICIT_DEF_TIMESTAMP`] alone with the default session.
    pub flags2: u32,
    pub sql_mode: u64,
    pub charset_client: u16,
    pub collation_connection: u16,
    pub collation_server: u16,
    pub auto_increment_increment: u16,
    pub auto_increment_offset: u16,
    pub time_zone: Option<&'a str>,
    pub lc_time_names: u16,
    /// `collation_database` when it differs from the default database's.
    pub charset_database: Option<u16>,
    /// Microseconds of the statement's start time (`Q_HRNOW`).
    pub hrnow: Option<u32>,
    /// The DDL's xid (`Q_XID`), as MariaDB 10.11 logs it for DDL on tables.
    pub xid: Option<u64>,
    /// Header flags: MariaDB sets [`flags::SUPPRESS_USE`] on CREATE/DROP DATABASE
    /// and the non-transactional `COMMIT`, and [`flags::THREAD_SPECIFIC`] too on a
    /// DROP DATABASE / DROP TABLE that may touch temporary tables.
    pub header_flags: u16,
}

impl<'a> Query<'a> {
    /// A statement in `db` with MariaDB 10.11's default session settings
    /// (sql_mode `STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,
    /// NO_ENGINE_SUBSTITUTION`, utf8mb4 client, latin1 server).
    pub fn new(db: &'a str, sql: &'a str) -> Query<'a> {
        Query {
            db,
            sql,
            flags2: query_flags2::EXPLICIT_DEF_TIMESTAMP,
            sql_mode: 1_411_383_296,
            charset_client: 45,
            collation_connection: 45,
            collation_server: 8,
            auto_increment_increment: 1,
            auto_increment_offset: 1,
            ..Query::default()
        }
    }

    /// The `COMMIT` that ends a transaction on non-transactional (MEMORY) tables,
    /// whose GTID has [`GtidFlags::non_transactional`]: `SUPPRESS_USE`, no xid.
    pub fn commit(db: &'a str) -> Query<'a> {
        Query {
            header_flags: flags::SUPPRESS_USE,
            ..Query::new(db, "COMMIT")
        }
    }

    fn status_vars(&self, out: &mut Vec<u8>) {
        out.push(Q_FLAGS2_CODE);
        out.extend_from_slice(&self.flags2.to_le_bytes());
        out.push(Q_SQL_MODE_CODE);
        out.extend_from_slice(&self.sql_mode.to_le_bytes());
        out.push(Q_CATALOG_NZ_CODE);
        out.push(3);
        out.extend_from_slice(b"std");
        if self.auto_increment_increment != 1 || self.auto_increment_offset != 1 {
            out.push(Q_AUTO_INCREMENT);
            out.extend_from_slice(&self.auto_increment_increment.to_le_bytes());
            out.extend_from_slice(&self.auto_increment_offset.to_le_bytes());
        }
        out.push(Q_CHARSET_CODE);
        for v in [
            self.charset_client,
            self.collation_connection,
            self.collation_server,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        if let Some(tz) = self.time_zone.filter(|t| !t.is_empty()) {
            out.push(Q_TIME_ZONE_CODE);
            out.push(tz.len().min(255) as u8);
            out.extend_from_slice(&tz.as_bytes()[..tz.len().min(255)]);
        }
        if self.lc_time_names != 0 {
            out.push(Q_LC_TIME_NAMES_CODE);
            out.extend_from_slice(&self.lc_time_names.to_le_bytes());
        }
        if let Some(cs) = self.charset_database {
            out.push(Q_CHARSET_DATABASE_CODE);
            out.extend_from_slice(&cs.to_le_bytes());
        }
        if let Some(us) = self.hrnow {
            out.push(Q_HRNOW);
            out.extend_from_slice(&us.to_le_bytes()[..3]);
        }
        if let Some(xid) = self.xid.filter(|x| *x != 0) {
            out.push(Q_XID);
            out.extend_from_slice(&xid.to_le_bytes());
        }
    }

    fn body(&self, out: &mut Vec<u8>) {
        let db = &self.db.as_bytes()[..self.db.len().min(255)];
        let mut vars = Vec::with_capacity(48);
        self.status_vars(&mut vars);
        out.extend_from_slice(&self.thread_id.to_le_bytes());
        out.extend_from_slice(&self.exec_time.to_le_bytes());
        out.push(db.len() as u8);
        out.extend_from_slice(&self.error_code.to_le_bytes());
        out.extend_from_slice(&(vars.len() as u16).to_le_bytes());
        out.extend_from_slice(&vars);
        out.extend_from_slice(db);
        out.push(0);
        out.extend_from_slice(self.sql.as_bytes());
    }
}

/// Appends events to a buffer whose first byte will sit at file offset `start`;
/// fills event_length, log_pos (end offset) and the CRC32 (when `checksum`).
#[derive(Clone, Debug)]
pub struct EventWriter {
    buf: Vec<u8>,
    start: u64,
    server_id: u32,
    checksum: bool,
    row_metadata: RowMetadata,
}

/// What one event's header says besides its length and position.
struct Head {
    timestamp: u32,
    type_code: u8,
    server_id: u32,
    flags: u16,
}

impl EventWriter {
    pub fn new(start: u64, server_id: u32, checksum: bool) -> EventWriter {
        EventWriter {
            buf: Vec::new(),
            row_metadata: RowMetadata::Full,
            start,
            server_id,
            checksum,
        }
    }

    /// The server id the following events' headers carry.
    pub fn set_server_id(&mut self, server_id: u32) {
        self.server_id = server_id;
    }

    /// File offset after the last event.
    pub fn pos(&self) -> u64 {
        self.start + self.buf.len() as u64
    }

    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// Appends one event: the header, what `body` writes, the CRC when on.
    fn event(&mut self, head: Head, body: impl FnOnce(&mut Vec<u8>)) {
        let begin = self.buf.len();
        self.buf.extend_from_slice(&head.timestamp.to_le_bytes());
        self.buf.push(head.type_code);
        self.buf.extend_from_slice(&head.server_id.to_le_bytes());
        self.buf.extend_from_slice(&[0; 8]);
        self.buf.extend_from_slice(&head.flags.to_le_bytes());
        body(&mut self.buf);
        let crc = self.checksum || head.type_code == types::FORMAT_DESCRIPTION;
        let len = self.buf.len() - begin + if crc { CHECKSUM_LEN } else { 0 };
        let end = self.start + (begin + len) as u64;
        self.buf[begin + 9..begin + 13].copy_from_slice(&(len as u32).to_le_bytes());
        self.buf[begin + 13..begin + 17].copy_from_slice(&(end as u32).to_le_bytes());
        if crc {
            let sum = event_crc(&self.buf[begin..]);
            self.buf.extend_from_slice(&sum.to_le_bytes());
        }
    }

    fn head(&self, timestamp: u32, type_code: u8, flags: u16) -> Head {
        Head {
            timestamp,
            type_code,
            server_id: self.server_id,
            flags,
        }
    }

    /// The FORMAT_DESCRIPTION of a file that is closed, with create timestamp 0 (as
    /// MariaDB writes it for every file but the first after start-up).
    pub fn format_description(&mut self, timestamp: u32, server_version: &str) {
        self.format_description_with(timestamp, server_version, 0, false);
    }

    /// The FORMAT_DESCRIPTION with a create timestamp (non-zero: the first file
    /// after start-up, where `mariadb-binlog` prints `at startup` and a `ROLLBACK`)
    /// and [`flags::BINLOG_IN_USE`] when `in_use`.
    pub fn format_description_with(
        &mut self,
        timestamp: u32,
        server_version: &str,
        created: u32,
        in_use: bool,
    ) {
        let fl = if in_use { flags::BINLOG_IN_USE } else { 0 };
        let alg = u8::from(self.checksum);
        let head = self.head(timestamp, types::FORMAT_DESCRIPTION, fl);
        self.event(head, |out| {
            out.extend_from_slice(&4u16.to_le_bytes());
            let mut ver = [0u8; SERVER_VERSION_LEN];
            let v = server_version.as_bytes();
            let n = v.len().min(SERVER_VERSION_LEN - 1);
            ver[..n].copy_from_slice(&v[..n]);
            out.extend_from_slice(&ver);
            out.extend_from_slice(&created.to_le_bytes());
            out.push(HEADER_LEN as u8);
            let mut lens = [0u8; NUM_EVENT_TYPES];
            for (t, l) in POST_HEADER_LENGTHS {
                lens[t as usize - 1] = l;
            }
            out.extend_from_slice(&lens);
            out.push(alg);
        });
    }

    pub fn rotate(&mut self, timestamp: u32, next_file: &str, next_pos: u64) {
        let head = self.head(timestamp, types::ROTATE, 0);
        self.event(head, |out| rotate_body(out, next_file, next_pos));
    }

    pub fn gtid_list(&mut self, timestamp: u32, gtids: &[Gtid]) {
        let head = self.head(timestamp, types::GTID_LIST, 0);
        self.event(head, |out| {
            out.extend_from_slice(&(gtids.len() as u32).to_le_bytes());
            for g in gtids {
                out.extend_from_slice(&g.domain.to_le_bytes());
                out.extend_from_slice(&g.server.to_le_bytes());
                out.extend_from_slice(&g.seq.to_le_bytes());
            }
            if gtids.is_empty() {
                // MariaDB pads the empty list to 6 bytes.
                out.extend_from_slice(&[0; 2]);
            }
        });
    }

    pub fn binlog_checkpoint(&mut self, timestamp: u32, file: &str) {
        let head = self.head(timestamp, types::BINLOG_CHECKPOINT, 0);
        self.event(head, |out| {
            out.extend_from_slice(&(file.len() as u32).to_le_bytes());
            out.extend_from_slice(file.as_bytes());
        });
    }

    /// A GTID event; the header's server_id is `gtid.server`.
    pub fn gtid(&mut self, timestamp: u32, gtid: Gtid, flags: GtidFlags) {
        let head = Head {
            timestamp,
            type_code: types::GTID,
            server_id: gtid.server,
            flags: flags::SUPPRESS_USE,
        };
        self.event(head, |out| {
            out.extend_from_slice(&gtid.seq.to_le_bytes());
            out.extend_from_slice(&gtid.domain.to_le_bytes());
            out.push(flags.bits());
            match flags.commit_id {
                Some(cid) => out.extend_from_slice(&cid.to_le_bytes()),
                None => out.extend_from_slice(&[0; 6]),
            }
        });
    }

    pub fn query(&mut self, timestamp: u32, q: &Query<'_>) {
        let head = self.head(timestamp, types::QUERY, q.header_flags);
        self.event(head, |out| q.body(out));
    }

    pub fn annotate_rows(&mut self, timestamp: u32, sql: &str) {
        let head = self.head(timestamp, types::ANNOTATE_ROWS, 0);
        self.event(head, |out| out.extend_from_slice(sql.as_bytes()));
    }

    /// A TABLE_MAP with `binlog_row_metadata=FULL`.
    pub fn table_map(&mut self, timestamp: u32, table_id: u64, def: &TableDef) {
        let head = self.head(timestamp, types::TABLE_MAP, 0);
        let level = self.row_metadata;
        self.event(head, |out| table_map::encode(out, table_id, def, level));
    }

    /// `binlog_row_metadata` for the TABLE_MAP events written from now on (FULL
    /// unless set).
    pub fn set_row_metadata(&mut self, level: RowMetadata) {
        self.row_metadata = level;
    }

    /// One statement's row changes on one table: splits into several events of at
    /// most ~8 KiB of rows each (binlog_row_event_max_size 8192), STMT_END_F on the
    /// last when `stmt_end`. All changes must be of one kind (insert, update or
    /// delete); the kind of the first decides the event type.
    pub fn rows(
        &mut self,
        timestamp: u32,
        table_id: u64,
        def: &TableDef,
        image: RowImage,
        changes: &[RowChange<'_>],
        stmt_end: bool,
    ) {
        self.rows_with_write_set(timestamp, table_id, def, image, changes, None, stmt_end);
    }

    /// As [`EventWriter::rows`], with the statement's write set (`write_set[i]`:
    /// the statement assigns column `i`, or recomputes it as a stored generated
    /// column), which decides the MINIMAL and NOBLOB images as MariaDB's
    /// `write_set` does: an INSERT naming some columns only logs those under
    /// MINIMAL. `None` reads as [`EventWriter::rows`] does: every column for an
    /// INSERT, the changed non-virtual ones for an UPDATE.
    #[allow(clippy::too_many_arguments)]
    pub fn rows_with_write_set(
        &mut self,
        timestamp: u32,
        table_id: u64,
        def: &TableDef,
        image: RowImage,
        changes: &[RowChange<'_>],
        write_set: Option<&[bool]>,
        stmt_end: bool,
    ) {
        for ev in rows::encode(table_id, def, image, changes, write_set, stmt_end) {
            let head = self.head(timestamp, ev.type_code, 0);
            self.event(head, |out| out.extend_from_slice(&ev.body));
        }
    }

    pub fn xid(&mut self, timestamp: u32, xid: u64) {
        let head = self.head(timestamp, types::XID, 0);
        self.event(head, |out| out.extend_from_slice(&xid.to_le_bytes()));
    }

    pub fn stop(&mut self, timestamp: u32) {
        let head = self.head(timestamp, types::STOP, 0);
        self.event(head, |_| {});
    }
}

fn rotate_body(out: &mut Vec<u8>, file: &str, pos: u64) {
    out.extend_from_slice(&pos.to_le_bytes());
    out.extend_from_slice(file.as_bytes());
}

/// The CRC32 of an event's header and body, with the FORMAT_DESCRIPTION's
/// in-use flag masked out as MariaDB computes it.
pub(crate) fn event_crc(event_without_crc: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    if event_without_crc.len() >= HEADER_LEN && event_without_crc[4] == types::FORMAT_DESCRIPTION {
        h.update(&event_without_crc[..17]);
        h.update(&[event_without_crc[17] & !(flags::BINLOG_IN_USE as u8)]);
        h.update(&event_without_crc[18..]);
    } else {
        h.update(event_without_crc);
    }
    h.finalize()
}
