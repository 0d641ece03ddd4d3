//! The non-row events a replica acts on, decoded into structs. Body layouts are
//! those `event/writer.rs` documents (MariaDB 10.11's); QUERY's status variables are
//! read by code (`Q_*`) until the end or the first code this decoder does not know,
//! whose length it cannot tell (the rest is then kept raw in [`Query::status_vars`]).

use super::DecodeError;
use crate::event::GtidFlags;
use crate::gtid::Gtid;

/// Status-variable codes of a QUERY (`Q_*`; 128 and 129 are MariaDB's).
mod q {
    pub const FLAGS2: u8 = 0;
    pub const SQL_MODE: u8 = 1;
    pub const CATALOG: u8 = 2;
    pub const AUTO_INCREMENT: u8 = 3;
    pub const CHARSET: u8 = 4;
    pub const TIME_ZONE: u8 = 5;
    pub const CATALOG_NZ: u8 = 6;
    pub const LC_TIME_NAMES: u8 = 7;
    pub const CHARSET_DATABASE: u8 = 8;
    pub const TABLE_MAP_FOR_UPDATE: u8 = 9;
    pub const MASTER_DATA_WRITTEN: u8 = 10;
    pub const INVOKER: u8 = 11;
    pub const UPDATED_DB_NAMES: u8 = 12;
    pub const MICROSECONDS: u8 = 13;
    pub const EXPLICIT_DEFAULTS_FOR_TIMESTAMP: u8 = 15;
    pub const DDL_LOGGED_WITH_XID: u8 = 16;
    pub const DEFAULT_COLLATION_FOR_UTF8MB4: u8 = 17;
    pub const SQL_REQUIRE_PRIMARY_KEY: u8 = 18;
    pub const DEFAULT_TABLE_ENCRYPTION: u8 = 19;
    pub const HRNOW: u8 = 128;
    pub const XID: u8 = 129;
}

/// FORMAT_DESCRIPTION.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatDescription {
    pub binlog_version: u16,
    pub server_version: String,
    pub created: u32,
    pub header_len: u8,
    /// Post-header length of event type i + 1.
    pub post_header_lens: Vec<u8>,
    /// 0 none, 1 CRC32; None for a primary too old to say.
    pub checksum_alg: Option<u8>,
}

/// A QUERY event with its status variables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    pub thread_id: u32,
    pub exec_time: u32,
    pub error_code: u16,
    pub db: String,
    /// The statement bytes (in the client character set of `charset`).
    pub sql: Vec<u8>,
    pub flags2: Option<u32>,
    pub sql_mode: Option<u64>,
    pub catalog: Option<String>,
    /// (increment, offset).
    pub auto_increment: Option<(u16, u16)>,
    /// (character_set_client, collation_connection, collation_server).
    pub charset: Option<(u16, u16, u16)>,
    pub time_zone: Option<String>,
    pub lc_time_names: Option<u16>,
    pub charset_database: Option<u16>,
    /// (user, host) of a stored program's definer.
    pub invoker: Option<(String, String)>,
    pub updated_db_names: Vec<String>,
    /// Microseconds of the statement's start (`Q_HRNOW` or `Q_MICROSECONDS`).
    pub micros: Option<u32>,
    /// The DDL's xid (MariaDB's `Q_XID`, MySQL's `Q_DDL_LOGGED_WITH_XID`).
    pub xid: Option<u64>,
    /// The status-variable bytes from the first unknown code on (usually empty).
    pub status_vars: Vec<u8>,
}

/// A GTID event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GtidEvent {
    pub gtid: Gtid,
    pub flags: GtidFlags,
    /// The raw `flags2` byte (XA bits 0x40/0x80 included).
    pub flags2: u8,
}

fn at<const N: usize>(b: &[u8], i: usize, what: &'static str) -> Result<[u8; N], DecodeError> {
    b.get(i..i + N)
        .and_then(|s| s.try_into().ok())
        .ok_or(DecodeError::Truncated(what))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// FORMAT_DESCRIPTION body (up to the checksum-algorithm byte; without the CRC).
pub fn decode_format_description(body: &[u8]) -> Result<FormatDescription, DecodeError> {
    let binlog_version = u16::from_le_bytes(at(body, 0, "format description")?);
    let ver: [u8; 50] = at(body, 2, "format description")?;
    let end = ver.iter().position(|c| *c == 0).unwrap_or(ver.len());
    let created = u32::from_le_bytes(at(body, 52, "format description")?);
    let header_len = at::<1>(body, 56, "format description")?[0];
    // The body ends with the post-header lengths then the checksum-algorithm byte
    // (MariaDB 10.11: 171 lengths); `body` has already dropped the CRC that always
    // follows it.
    let rest = body.get(57..).unwrap_or_default();
    let (lens, alg) = match rest.split_last() {
        Some((alg, lens)) if lens.len() >= 160 => (lens, Some(*alg)),
        _ => (rest, None),
    };
    Ok(FormatDescription {
        binlog_version,
        server_version: text(&ver[..end]),
        created,
        header_len,
        post_header_lens: lens.to_vec(),
        checksum_alg: alg,
    })
}

/// QUERY body.
pub fn decode_query(body: &[u8]) -> Result<Query, DecodeError> {
    let thread_id = u32::from_le_bytes(at(body, 0, "query")?);
    let exec_time = u32::from_le_bytes(at(body, 4, "query")?);
    let db_len = at::<1>(body, 8, "query")?[0] as usize;
    let error_code = u16::from_le_bytes(at(body, 9, "query")?);
    let vars_len = u16::from_le_bytes(at(body, 11, "query")?) as usize;
    let vars = body
        .get(13..13 + vars_len)
        .ok_or(DecodeError::Truncated("query status variables"))?;
    let db_at = 13 + vars_len;
    let db = body
        .get(db_at..db_at + db_len)
        .ok_or(DecodeError::Truncated("query db"))?;
    let sql = body.get(db_at + db_len + 1..).unwrap_or_default();
    let mut query = Query {
        thread_id,
        exec_time,
        error_code,
        db: text(db),
        sql: sql.to_vec(),
        ..Query::default()
    };
    status_vars(&mut query, vars)?;
    Ok(query)
}

fn short_str(v: &[u8], i: usize) -> Result<(String, usize), DecodeError> {
    let n = at::<1>(v, i, "query status variable")?[0] as usize;
    let s = v
        .get(i + 1..i + 1 + n)
        .ok_or(DecodeError::Truncated("query status variable"))?;
    Ok((text(s), 1 + n))
}

fn status_vars(q: &mut Query, v: &[u8]) -> Result<(), DecodeError> {
    let mut i = 0;
    while i < v.len() {
        let code = v[i];
        i += 1;
        let le = |n: usize| -> Result<u64, DecodeError> {
            let s = v
                .get(i..i + n)
                .ok_or(DecodeError::Truncated("query status variable"))?;
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(s);
            Ok(u64::from_le_bytes(b))
        };
        let used = match code {
            q::FLAGS2 => {
                q.flags2 = Some(le(4)? as u32);
                4
            }
            q::SQL_MODE => {
                q.sql_mode = Some(le(8)?);
                8
            }
            q::CATALOG_NZ | q::CATALOG => {
                let (s, n) = short_str(v, i)?;
                q.catalog = Some(s);
                n + usize::from(code == q::CATALOG)
            }
            q::AUTO_INCREMENT => {
                let b = le(4)?;
                q.auto_increment = Some((b as u16, (b >> 16) as u16));
                4
            }
            q::CHARSET => {
                let b = le(6)?;
                q.charset = Some((b as u16, (b >> 16) as u16, (b >> 32) as u16));
                6
            }
            q::TIME_ZONE => {
                let (s, n) = short_str(v, i)?;
                q.time_zone = Some(s);
                n
            }
            q::LC_TIME_NAMES => {
                q.lc_time_names = Some(le(2)? as u16);
                2
            }
            q::CHARSET_DATABASE => {
                q.charset_database = Some(le(2)? as u16);
                2
            }
            q::XID | q::DDL_LOGGED_WITH_XID => {
                q.xid = Some(le(8)?);
                8
            }
            q::TABLE_MAP_FOR_UPDATE => 8,
            q::MASTER_DATA_WRITTEN => 4,
            q::INVOKER => {
                let (user, n) = short_str(v, i)?;
                let (host, m) = short_str(v, i + n)?;
                q.invoker = Some((user, host));
                n + m
            }
            q::UPDATED_DB_NAMES => updated_dbs(q, v, i)?,
            q::MICROSECONDS | q::HRNOW => {
                q.micros = Some(le(3)? as u32);
                3
            }
            q::EXPLICIT_DEFAULTS_FOR_TIMESTAMP
            | q::SQL_REQUIRE_PRIMARY_KEY
            | q::DEFAULT_TABLE_ENCRYPTION => 1,
            q::DEFAULT_COLLATION_FOR_UTF8MB4 => 2,
            _ => {
                q.status_vars = v[i - 1..].to_vec();
                return Ok(());
            }
        };
        i += used;
    }
    Ok(())
}

/// `Q_UPDATED_DB_NAMES`: a count (254 = too many to list) then NUL-terminated names.
fn updated_dbs(q: &mut Query, v: &[u8], start: usize) -> Result<usize, DecodeError> {
    let count = at::<1>(v, start, "updated db names")?[0];
    let mut i = start + 1;
    if count == 254 {
        return Ok(1);
    }
    for _ in 0..count {
        let rest = v.get(i..).unwrap_or_default();
        let n = rest
            .iter()
            .position(|c| *c == 0)
            .ok_or(DecodeError::Truncated("updated db names"))?;
        q.updated_db_names.push(text(&rest[..n]));
        i += n + 1;
    }
    Ok(i - start)
}

/// XID body: the xid.
pub fn decode_xid(body: &[u8]) -> Result<u64, DecodeError> {
    Ok(u64::from_le_bytes(at(body, 0, "xid")?))
}
