//! A minimal client for the binary protocol's statement commands over a raw socket:
//! what the `mysql` crate cannot express (cursors, long data, malformed packets).

use basalt_tests::{raw_login, read_packet, send_packet, Basalt};
use std::net::TcpStream;

pub const COM_QUERY: u8 = 0x03;
pub const COM_STMT_PREPARE: u8 = 0x16;
pub const COM_STMT_EXECUTE: u8 = 0x17;
pub const COM_STMT_SEND_LONG_DATA: u8 = 0x18;
pub const COM_STMT_CLOSE: u8 = 0x19;
pub const COM_STMT_RESET: u8 = 0x1a;
pub const COM_STMT_FETCH: u8 = 0x1c;

pub const T_DOUBLE: u8 = 0x05;
pub const T_NULL: u8 = 0x06;
pub const T_LONG: u8 = 0x03;
pub const T_LONGLONG: u8 = 0x08;
pub const T_DATETIME: u8 = 0x0c;
pub const T_VAR_STRING: u8 = 0xfd;
pub const T_STRING: u8 = 0xfe;
pub const T_BLOB: u8 = 0xfc;
pub const UNSIGNED: u8 = 0x80;

pub const STATUS_CURSOR_EXISTS: u16 = 0x0040;
pub const STATUS_LAST_ROW_SENT: u16 = 0x0080;

#[derive(Debug)]
pub struct Prepared {
    pub id: u32,
    pub params: usize,
    pub columns: usize,
}

#[derive(Debug)]
pub struct ColDef {
    pub column_type: u8,
}

#[derive(Debug)]
pub enum Reply {
    Ok {
        affected: u64,
    },
    Err(u16, String),
    Rows {
        cols: Vec<ColDef>,
        rows: Vec<Vec<u8>>,
        status: u16,
    },
}

pub fn lenenc(b: &[u8], pos: &mut usize) -> u64 {
    let first = b[*pos];
    *pos += 1;
    let n = match first {
        0xfc => 2,
        0xfd => 3,
        0xfe => 8,
        v => return v as u64,
    };
    let mut v = 0u64;
    for i in 0..n {
        v |= (b[*pos + i] as u64) << (8 * i);
    }
    *pos += n;
    v
}

pub fn put_lenenc(out: &mut Vec<u8>, v: &[u8]) {
    let n = v.len();
    if n < 251 {
        out.push(n as u8);
    } else if n < 1 << 16 {
        out.push(0xfc);
        out.extend_from_slice(&(n as u16).to_le_bytes());
    } else {
        out.push(0xfd);
        out.extend_from_slice(&(n as u32).to_le_bytes()[..3]);
    }
    out.extend_from_slice(v);
}

pub fn parse_err(p: &[u8]) -> Reply {
    let code = u16::from_le_bytes([p[1], p[2]]);
    let msg = String::from_utf8_lossy(&p[9.min(p.len())..]).into_owned();
    Reply::Err(code, msg)
}

pub fn parse_ok(p: &[u8]) -> Reply {
    let mut pos = 1;
    let affected = lenenc(p, &mut pos);
    Reply::Ok { affected }
}

pub fn is_eof(p: &[u8]) -> bool {
    p.first() == Some(&0xfe) && p.len() < 9
}

pub fn eof_status(p: &[u8]) -> u16 {
    u16::from_le_bytes([p[3], p[4]])
}

pub fn parse_coldef(p: &[u8]) -> ColDef {
    let mut pos = 0;
    for _ in 0..6 {
        let n = lenenc(p, &mut pos) as usize;
        pos += n;
    }
    let _fixed = lenenc(p, &mut pos);
    ColDef {
        column_type: p[pos + 6],
    }
}

/// Reads a result set's column definitions and end marker after the count packet.
pub fn read_columns(s: &mut TcpStream, n: usize) -> (Vec<ColDef>, u16) {
    let cols = (0..n)
        .map(|_| parse_coldef(&read_packet(s).expect("column definition")))
        .collect();
    let eof = read_packet(s).expect("metadata EOF");
    assert!(is_eof(&eof), "metadata EOF: {eof:?}");
    (cols, eof_status(&eof))
}

/// Reads one response: OK, ERR or a result set (all rows unless a cursor opened).
pub fn read_reply(s: &mut TcpStream) -> Reply {
    let first = read_packet(s).expect("reply");
    match first[0] {
        0x00 => parse_ok(&first),
        0xff => parse_err(&first),
        _ => {
            let mut pos = 0;
            let n = lenenc(&first, &mut pos) as usize;
            let (cols, status) = read_columns(s, n);
            if status & STATUS_CURSOR_EXISTS != 0 {
                return Reply::Rows {
                    cols,
                    rows: Vec::new(),
                    status,
                };
            }
            let (rows, status) = read_rows(s);
            Reply::Rows { cols, rows, status }
        }
    }
}

/// Rows up to the end marker; returns them and the marker's status.
pub fn read_rows(s: &mut TcpStream) -> (Vec<Vec<u8>>, u16) {
    let mut rows = Vec::new();
    loop {
        let p = read_packet(s).expect("row");
        if is_eof(&p) {
            return (rows, eof_status(&p));
        }
        assert_ne!(p[0], 0xff, "error inside a result set: {:?}", parse_err(&p));
        rows.push(p);
    }
}

pub fn query(s: &mut TcpStream, sql: &str) -> Reply {
    let mut p = vec![COM_QUERY];
    p.extend_from_slice(sql.as_bytes());
    send_packet(s, 0, &p);
    read_reply(s)
}

pub fn query_ok(s: &mut TcpStream, sql: &str) {
    if let Reply::Err(code, msg) = query(s, sql) {
        panic!("{sql}: error {code} {msg}");
    }
}

/// The text rows of a query, each field as an optional string.
pub fn query_rows(s: &mut TcpStream, sql: &str) -> Vec<Vec<Option<String>>> {
    let Reply::Rows { cols, rows, .. } = query(s, sql) else {
        panic!("{sql}: no result set")
    };
    rows.iter()
        .map(|r| {
            let mut pos = 0;
            (0..cols.len())
                .map(|_| {
                    if r[pos] == 0xfb {
                        pos += 1;
                        None
                    } else {
                        let n = lenenc(r, &mut pos) as usize;
                        pos += n;
                        Some(String::from_utf8_lossy(&r[pos - n..pos]).into_owned())
                    }
                })
                .collect()
        })
        .collect()
}

pub fn prepare(s: &mut TcpStream, sql: &str) -> Result<Prepared, (u16, String)> {
    let mut p = vec![COM_STMT_PREPARE];
    p.extend_from_slice(sql.as_bytes());
    send_packet(s, 0, &p);
    let first = read_packet(s).expect("prepare reply");
    if first[0] == 0xff {
        let Reply::Err(code, msg) = parse_err(&first) else {
            unreachable!()
        };
        return Err((code, msg));
    }
    assert_eq!(first[0], 0x00, "prepare OK");
    let id = u32::from_le_bytes(first[1..5].try_into().expect("id"));
    let columns = u16::from_le_bytes([first[5], first[6]]) as usize;
    let params = u16::from_le_bytes([first[7], first[8]]) as usize;
    if params > 0 {
        read_columns(s, params);
    }
    if columns > 0 {
        read_columns(s, columns);
    }
    Ok(Prepared {
        id,
        params,
        columns,
    })
}

/// One parameter as a driver binds it: type code, flag byte, value bytes (None = NULL).
pub struct Param {
    pub ty: u8,
    pub flag: u8,
    pub value: Option<Vec<u8>>,
}

pub fn p_long(v: i32) -> Param {
    Param {
        ty: T_LONG,
        flag: 0,
        value: Some(v.to_le_bytes().to_vec()),
    }
}

pub fn p_longlong(v: i64) -> Param {
    Param {
        ty: T_LONGLONG,
        flag: 0,
        value: Some(v.to_le_bytes().to_vec()),
    }
}

pub fn p_ulonglong(v: u64) -> Param {
    Param {
        ty: T_LONGLONG,
        flag: UNSIGNED,
        value: Some(v.to_le_bytes().to_vec()),
    }
}

pub fn p_str(ty: u8, v: &[u8]) -> Param {
    let mut b = Vec::new();
    put_lenenc(&mut b, v);
    Param {
        ty,
        flag: 0,
        value: Some(b),
    }
}

pub fn p_double(v: f64) -> Param {
    Param {
        ty: T_DOUBLE,
        flag: 0,
        value: Some(v.to_le_bytes().to_vec()),
    }
}

pub fn p_null() -> Param {
    Param {
        ty: T_NULL,
        flag: 0,
        value: None,
    }
}

pub fn execute_payload(id: u32, flags: u8, params: &[Param], bind: bool) -> Vec<u8> {
    let mut p = vec![COM_STMT_EXECUTE];
    p.extend_from_slice(&id.to_le_bytes());
    p.push(flags);
    p.extend_from_slice(&1u32.to_le_bytes());
    if !params.is_empty() {
        let mut bitmap = vec![0u8; params.len().div_ceil(8)];
        for (i, prm) in params.iter().enumerate() {
            if prm.value.is_none() {
                bitmap[i / 8] |= 1 << (i % 8);
            }
        }
        p.extend_from_slice(&bitmap);
        p.push(bind as u8);
        if bind {
            for prm in params {
                p.push(prm.ty);
                p.push(prm.flag);
            }
        }
        for prm in params {
            if let Some(v) = &prm.value {
                p.extend_from_slice(v);
            }
        }
    }
    p
}

pub fn execute(s: &mut TcpStream, id: u32, flags: u8, params: &[Param]) -> Reply {
    send_packet(s, 0, &execute_payload(id, flags, params, true));
    read_reply(s)
}

pub fn send_long_data(s: &mut TcpStream, id: u32, param: u16, data: &[u8]) {
    let mut p = vec![COM_STMT_SEND_LONG_DATA];
    p.extend_from_slice(&id.to_le_bytes());
    p.extend_from_slice(&param.to_le_bytes());
    p.extend_from_slice(data);
    send_packet(s, 0, &p);
}

pub fn stmt_close(s: &mut TcpStream, id: u32) {
    let mut p = vec![COM_STMT_CLOSE];
    p.extend_from_slice(&id.to_le_bytes());
    send_packet(s, 0, &p);
}

pub fn stmt_reset(s: &mut TcpStream, id: u32) -> Reply {
    let mut p = vec![COM_STMT_RESET];
    p.extend_from_slice(&id.to_le_bytes());
    send_packet(s, 0, &p);
    read_reply(s)
}

/// COM_STMT_FETCH: the rows sent and the end marker's status, or an error.
/// Rows and the end marker's status of a fetch, or the error code and message.
pub type Fetched = Result<(Vec<Vec<u8>>, u16), (u16, String)>;

pub fn fetch(s: &mut TcpStream, id: u32, n: u32) -> Fetched {
    let mut p = vec![COM_STMT_FETCH];
    p.extend_from_slice(&id.to_le_bytes());
    p.extend_from_slice(&n.to_le_bytes());
    send_packet(s, 0, &p);
    let first = read_packet(s).expect("fetch reply");
    if first[0] == 0xff {
        let Reply::Err(code, msg) = parse_err(&first) else {
            unreachable!()
        };
        return Err((code, msg));
    }
    let mut rows = Vec::new();
    let mut p = first;
    loop {
        if is_eof(&p) {
            return Ok((rows, eof_status(&p)));
        }
        rows.push(p);
        p = read_packet(s).expect("fetched row");
    }
}

pub fn expect_err(r: Reply, code: u16, what: &str) -> String {
    match r {
        Reply::Err(c, msg) => {
            assert_eq!(c, code, "{what}: {msg}");
            msg
        }
        other => panic!("{what}: expected error {code}, got {other:?}"),
    }
}

/// The connection still answers a query.
pub fn still_works(s: &mut TcpStream) {
    assert_eq!(query_rows(s, "select 1 + 1"), [[Some("2".to_string())]]);
}

/// Decodes the single LONGLONG of a one-column binary row.
pub fn row_i64(row: &[u8]) -> Option<i64> {
    if row[1] & 0x04 != 0 {
        return None;
    }
    Some(i64::from_le_bytes(row[2..10].try_into().expect("8 bytes")))
}

/// Decodes the single string of a one-column binary row.
pub fn row_bytes(row: &[u8]) -> Option<Vec<u8>> {
    if row[1] & 0x04 != 0 {
        return None;
    }
    let mut pos = 2;
    let n = lenenc(row, &mut pos) as usize;
    Some(row[pos..pos + n].to_vec())
}

pub fn raw_setup(b: &Basalt) -> TcpStream {
    let mut s = raw_login(b.port);
    query_ok(&mut s, "create database if not exists p");
    query_ok(&mut s, "use p");
    s
}
