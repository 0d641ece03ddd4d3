//! A blocking connection to a primary, as MariaDB's replica I/O thread opens it
//! (`slave.cc`: `connect_to_master`, `get_master_version_and_clock`,
//! `register_slave_on_master`, `request_dump`).
//!
//! Wire format: packets of a 3-byte little-endian length, a sequence byte and the
//! payload. A payload of 0xFFFFFF bytes or more is split into 0xFFFFFF-byte packets
//! followed by a shorter one (possibly empty); [`PrimaryConn`] joins them on read and
//! splits on write. The sequence restarts at 0 with every command.
//!
//! Connecting: the server's handshake v10; the client answers with
//! `CLIENT_PROTOCOL_41 | SECURE_CONNECTION | PLUGIN_AUTH | LONG_PASSWORD |
//! TRANSACTIONS | MULTI_RESULTS` and a `mysql_native_password` response
//! (`SHA1(pw) XOR SHA1(scramble + SHA1(SHA1(pw)))`, empty for an empty password);
//! an auth switch request (0xFE) to `mysql_native_password` is answered with the new
//! scramble. Results: OK (0x00), ERR (0xFF: errno, `#` + SQLSTATE, message), or a
//! text result set (column count, column definitions, EOF, rows of length-encoded
//! strings or 0xFB for NULL, EOF).
//!
//! The dump: after COM_BINLOG_DUMP every packet is 0x00 + one event, 0xFE (shorter
//! than 9 bytes) at the end of a non-blocking dump, or an ERR ([`ClientError::Server`],
//! e.g. 1236 for a purged or unknown position). A read that times out (the caller's
//! `slave_net_timeout`, longer than the heartbeat period) is
//! [`ClientError::Timeout`]: the I/O thread reconnects.

use sha1::{Digest, Sha1};
use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;
use thiserror::Error;

const CLIENT_LONG_PASSWORD: u32 = 1;
const CLIENT_PROTOCOL_41: u32 = 0x200;
const CLIENT_TRANSACTIONS: u32 = 0x2000;
const CLIENT_SECURE_CONNECTION: u32 = 0x8000;
const CLIENT_MULTI_RESULTS: u32 = 0x2_0000;
const CLIENT_PLUGIN_AUTH: u32 = 0x8_0000;
/// What this client asks for.
pub const CLIENT_FLAGS: u32 = CLIENT_LONG_PASSWORD
    | CLIENT_PROTOCOL_41
    | CLIENT_TRANSACTIONS
    | CLIENT_SECURE_CONNECTION
    | CLIENT_MULTI_RESULTS
    | CLIENT_PLUGIN_AUTH;
const SERVER_MORE_RESULTS_EXISTS: u16 = 0x8;
const MAX_PAYLOAD: usize = 0xff_ffff;
const NATIVE_PASSWORD: &str = "mysql_native_password";
/// utf8mb4_general_ci.
const CHARSET_UTF8MB4: u8 = 45;

const COM_QUERY: u8 = 0x03;
const COM_BINLOG_DUMP: u8 = 0x12;
const COM_REGISTER_SLAVE: u8 = 0x15;

/// `BINLOG_DUMP_NON_BLOCK`: end the dump with EOF at the end of the log.
pub const DUMP_NON_BLOCK: u16 = 1;
/// MariaDB's `BINLOG_SEND_ANNOTATE_ROWS_EVENT`.
pub const DUMP_SEND_ANNOTATE_ROWS: u16 = 2;

/// MariaDB error codes a replica retries after (`is_network_error` in slave.cc, and
/// the server going away).
const RETRIABLE: [u16; 9] = [1053, 1158, 1159, 1160, 1161, 1927, 2003, 2006, 2013];

/// Why talking to the primary failed. [`ClientError::is_retriable`] tells a
/// network failure (reconnect after `MASTER_CONNECT_RETRY`) from a fatal one (stop
/// the I/O thread with the error in SHOW SLAVE STATUS).
#[derive(Debug, Error)]
pub enum ClientError {
    #[error("error connecting to or talking with the primary: {0}")]
    Io(#[from] io::Error),
    #[error("no packet from the primary within the read timeout")]
    Timeout,
    #[error("the primary closed the connection")]
    Closed,
    #[error("primary error {code} ({state}): {message}")]
    Server {
        code: u16,
        state: String,
        message: String,
    },
    #[error("malformed packet from the primary: {0}")]
    Protocol(&'static str),
    #[error("the primary asks for authentication plugin {0}, which this replica does not speak")]
    UnsupportedAuth(String),
}

impl ClientError {
    /// Whether reconnecting may help (the network, a restart of the primary).
    pub fn is_retriable(&self) -> bool {
        match self {
            ClientError::Io(_) | ClientError::Timeout | ClientError::Closed => true,
            ClientError::Server { code, .. } => RETRIABLE.contains(code),
            ClientError::Protocol(_) | ClientError::UnsupportedAuth(_) => false,
        }
    }

    /// The primary's error number, for a server error.
    pub fn errno(&self) -> Option<u16> {
        match self {
            ClientError::Server { code, .. } => Some(*code),
            _ => None,
        }
    }
}

fn io_error(e: io::Error) -> ClientError {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => ClientError::Timeout,
        io::ErrorKind::UnexpectedEof => ClientError::Closed,
        _ => ClientError::Io(e),
    }
}

/// Where and how to connect.
#[derive(Clone, Debug)]
pub struct ConnectOptions {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    pub connect_timeout: Duration,
    /// Read timeout of every packet (`slave_net_timeout`); None waits forever.
    pub read_timeout: Option<Duration>,
}

impl ConnectOptions {
    pub fn new(host: &str, port: u16, user: &str, password: &str) -> ConnectOptions {
        ConnectOptions {
            host: host.into(),
            port,
            user: user.into(),
            password: password.into(),
            connect_timeout: Duration::from_secs(60),
            read_timeout: Some(Duration::from_secs(60)),
        }
    }
}

/// A text result set (or the OK of a statement without one: no columns, no rows).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResultSet {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Option<String>>>,
    pub affected_rows: u64,
}

/// COM_BINLOG_DUMP's arguments. For a GTID dump MariaDB takes an empty file name,
/// position 4 and the position from `@slave_connect_state`
/// ([`PrimaryConn::dump_gtid`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpRequest {
    pub server_id: u32,
    pub file: String,
    pub pos: u32,
    pub flags: u16,
}

/// The handshake's facts about the primary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerInfo {
    pub version: String,
    pub connection_id: u32,
    pub capabilities: u32,
}

/// An authenticated connection to a primary.
#[derive(Debug)]
pub struct PrimaryConn {
    stream: TcpStream,
    seq: u8,
    info: ServerInfo,
}

/// A little-endian field reader over one packet.
struct Fields<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Fields<'a> {
    fn new(b: &'a [u8]) -> Fields<'a> {
        Fields { b, at: 0 }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], ClientError> {
        let s = self
            .b
            .get(self.at..self.at + n)
            .ok_or(ClientError::Protocol("packet too short"))?;
        self.at += n;
        Ok(s)
    }

    fn int(&mut self, n: usize) -> Result<u64, ClientError> {
        let mut v = [0u8; 8];
        v[..n].copy_from_slice(self.take(n)?);
        Ok(u64::from_le_bytes(v))
    }

    fn nul_str(&mut self) -> Result<&'a [u8], ClientError> {
        let rest = self.b.get(self.at..).unwrap_or_default();
        let n = rest.iter().position(|c| *c == 0).unwrap_or(rest.len());
        self.at += (n + 1).min(rest.len());
        Ok(&rest[..n])
    }

    /// A length-encoded integer; None for 0xFB (NULL).
    fn lenenc(&mut self) -> Result<Option<u64>, ClientError> {
        Ok(match self.int(1)? as u8 {
            0xfb => None,
            0xfc => Some(self.int(2)?),
            0xfd => Some(self.int(3)?),
            0xfe => Some(self.int(8)?),
            v => Some(v as u64),
        })
    }

    fn lenenc_str(&mut self) -> Result<Option<&'a [u8]>, ClientError> {
        match self.lenenc()? {
            None => Ok(None),
            Some(n) => Ok(Some(self.take(n as usize)?)),
        }
    }

    fn rest(&self) -> &'a [u8] {
        self.b.get(self.at..).unwrap_or_default()
    }
}

/// An ERR packet's fields.
fn server_error(p: &[u8]) -> ClientError {
    let mut f = Fields::new(p);
    let parsed = (|| {
        f.take(1)?;
        let code = f.int(2)? as u16;
        let mut state = String::new();
        if f.rest().first() == Some(&b'#') {
            f.take(1)?;
            state = String::from_utf8_lossy(f.take(5)?).into_owned();
        }
        let message = String::from_utf8_lossy(f.rest()).into_owned();
        Ok::<_, ClientError>(ClientError::Server {
            code,
            state,
            message,
        })
    })();
    parsed.unwrap_or(ClientError::Protocol("malformed ERR packet"))
}

/// `mysql_native_password`'s answer to `scramble`.
pub fn native_password_response(password: &[u8], scramble: &[u8]) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    let stage1 = Sha1::digest(password);
    let stage2 = Sha1::digest(stage1);
    let mut h = Sha1::new();
    h.update(scramble);
    h.update(stage2);
    let mask = h.finalize();
    stage1.iter().zip(mask.iter()).map(|(a, b)| a ^ b).collect()
}

fn is_eof(p: &[u8]) -> bool {
    p.first() == Some(&0xfe) && p.len() < 9
}

/// The status flags of an EOF or OK packet.
fn status_of(p: &[u8]) -> u16 {
    let mut f = Fields::new(p);
    let r = (|| {
        if f.int(1)? == 0xfe {
            f.int(2)?;
            return Ok::<_, ClientError>(f.int(2)? as u16);
        }
        f.lenenc()?;
        f.lenenc()?;
        Ok(f.int(2)? as u16)
    })();
    r.unwrap_or(0)
}

impl PrimaryConn {
    /// Connects and authenticates.
    pub fn connect(opts: &ConnectOptions) -> Result<PrimaryConn, ClientError> {
        let addr = (opts.host.as_str(), opts.port)
            .to_socket_addrs()?
            .next()
            .ok_or(ClientError::Protocol("the primary's host has no address"))?;
        let stream = TcpStream::connect_timeout(&addr, opts.connect_timeout)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(opts.connect_timeout))?;
        let mut conn = PrimaryConn {
            stream,
            seq: 0,
            info: ServerInfo {
                version: String::new(),
                connection_id: 0,
                capabilities: 0,
            },
        };
        conn.handshake(&opts.user, &opts.password)?;
        conn.stream.set_read_timeout(opts.read_timeout)?;
        Ok(conn)
    }

    pub fn server(&self) -> &ServerInfo {
        &self.info
    }

    /// Sets the read timeout of every later packet (None: wait forever).
    pub fn set_read_timeout(&mut self, t: Option<Duration>) -> Result<(), ClientError> {
        Ok(self.stream.set_read_timeout(t)?)
    }

    /// Reads one logical packet (joining 0xFFFFFF-byte pieces).
    fn read_packet(&mut self) -> Result<Vec<u8>, ClientError> {
        let mut out = Vec::new();
        loop {
            let mut head = [0u8; 4];
            self.stream.read_exact(&mut head).map_err(io_error)?;
            let len = u32::from_le_bytes([head[0], head[1], head[2], 0]) as usize;
            self.seq = head[3].wrapping_add(1);
            let start = out.len();
            out.resize(start + len, 0);
            self.stream
                .read_exact(&mut out[start..])
                .map_err(io_error)?;
            if len < MAX_PAYLOAD {
                return Ok(out);
            }
        }
    }

    /// Writes one logical packet (split into 0xFFFFFF-byte pieces).
    fn write_packet(&mut self, payload: &[u8]) -> Result<(), ClientError> {
        let mut buf = Vec::with_capacity(payload.len() + 8);
        let mut chunks = payload.chunks(MAX_PAYLOAD).peekable();
        let mut last_len = 0;
        while let Some(c) = chunks.next() {
            buf.extend_from_slice(&(c.len() as u32).to_le_bytes()[..3]);
            buf.push(self.seq);
            self.seq = self.seq.wrapping_add(1);
            buf.extend_from_slice(c);
            last_len = c.len();
            if chunks.peek().is_none() && last_len < MAX_PAYLOAD {
                break;
            }
        }
        if payload.is_empty() || last_len == MAX_PAYLOAD {
            buf.extend_from_slice(&[0, 0, 0, self.seq]);
            self.seq = self.seq.wrapping_add(1);
        }
        self.stream.write_all(&buf).map_err(io_error)
    }

    fn command(&mut self, payload: &[u8]) -> Result<(), ClientError> {
        self.seq = 0;
        self.write_packet(payload)
    }

    fn handshake(&mut self, user: &str, password: &str) -> Result<(), ClientError> {
        let p = self.read_packet()?;
        if p.first() == Some(&0xff) {
            return Err(server_error(&p));
        }
        let mut f = Fields::new(&p);
        if f.int(1)? != 10 {
            return Err(ClientError::Protocol("not a handshake v10"));
        }
        self.info.version = String::from_utf8_lossy(f.nul_str()?).into_owned();
        self.info.connection_id = f.int(4)? as u32;
        let mut scramble = f.take(8)?.to_vec();
        f.take(1)?;
        let cap_low = f.int(2)? as u32;
        f.take(3)?; // charset, status
        let cap_high = f.int(2)? as u32;
        let auth_len = f.int(1)? as usize;
        f.take(10)?;
        self.info.capabilities = cap_low | cap_high << 16;
        if self.info.capabilities & CLIENT_SECURE_CONNECTION != 0 {
            let n = auth_len.saturating_sub(8).max(13);
            let part2 = f.take(n.min(f.rest().len()))?;
            let end = part2.iter().position(|c| *c == 0).unwrap_or(part2.len());
            scramble.extend_from_slice(&part2[..end]);
        }
        let plugin = String::from_utf8_lossy(f.nul_str()?).into_owned();
        let response = if plugin.is_empty() || plugin == NATIVE_PASSWORD {
            native_password_response(password.as_bytes(), &scramble)
        } else {
            // Answer with a native response anyway; the server switches us.
            Vec::new()
        };
        self.send_handshake_response(user, &response)?;
        self.finish_auth(password)
    }

    fn send_handshake_response(&mut self, user: &str, response: &[u8]) -> Result<(), ClientError> {
        let mut out = Vec::with_capacity(64 + user.len());
        out.extend_from_slice(&CLIENT_FLAGS.to_le_bytes());
        out.extend_from_slice(&(MAX_PAYLOAD as u32).to_le_bytes());
        out.push(CHARSET_UTF8MB4);
        out.extend_from_slice(&[0; 23]);
        out.extend_from_slice(user.as_bytes());
        out.push(0);
        out.push(response.len() as u8);
        out.extend_from_slice(response);
        out.extend_from_slice(NATIVE_PASSWORD.as_bytes());
        out.push(0);
        self.write_packet(&out)
    }

    /// Reads the authentication result, answering auth switch requests.
    fn finish_auth(&mut self, password: &str) -> Result<(), ClientError> {
        loop {
            let p = self.read_packet()?;
            match p.first() {
                Some(0x00) => return Ok(()),
                Some(0xff) => return Err(server_error(&p)),
                Some(0xfe) => {
                    let mut f = Fields::new(&p[1..]);
                    let plugin = String::from_utf8_lossy(f.nul_str()?).into_owned();
                    if plugin != NATIVE_PASSWORD {
                        return Err(ClientError::UnsupportedAuth(plugin));
                    }
                    let data = f.rest();
                    let end = data.iter().position(|c| *c == 0).unwrap_or(data.len());
                    let resp = native_password_response(password.as_bytes(), &data[..end]);
                    self.write_packet(&resp)?;
                }
                _ => return Err(ClientError::Protocol("unexpected authentication packet")),
            }
        }
    }

    /// Runs a statement and reads its result (every result set of a multi-result
    /// answer; the last one is returned).
    pub fn query(&mut self, sql: &str) -> Result<ResultSet, ClientError> {
        let mut out = Vec::with_capacity(sql.len() + 1);
        out.push(COM_QUERY);
        out.extend_from_slice(sql.as_bytes());
        self.command(&out)?;
        loop {
            let (rs, more) = self.read_result()?;
            if !more {
                return Ok(rs);
            }
        }
    }

    /// The first column of the first row (None for NULL or no row).
    pub fn query_value(&mut self, sql: &str) -> Result<Option<String>, ClientError> {
        let rs = self.query(sql)?;
        Ok(rs
            .rows
            .into_iter()
            .next()
            .and_then(|r| r.into_iter().next().flatten()))
    }

    /// One result: (result set, more results follow).
    fn read_result(&mut self) -> Result<(ResultSet, bool), ClientError> {
        let p = self.read_packet()?;
        match p.first() {
            Some(0x00) => {
                let mut f = Fields::new(&p[1..]);
                let affected_rows = f.lenenc()?.unwrap_or(0);
                let more = status_of(&p) & SERVER_MORE_RESULTS_EXISTS != 0;
                let rs = ResultSet {
                    affected_rows,
                    ..ResultSet::default()
                };
                return Ok((rs, more));
            }
            Some(0xff) => return Err(server_error(&p)),
            _ => {}
        }
        let count = Fields::new(&p)
            .lenenc()?
            .ok_or(ClientError::Protocol("NULL column count"))?;
        let mut rs = ResultSet::default();
        for _ in 0..count {
            let def = self.read_packet()?;
            let mut f = Fields::new(&def);
            for _ in 0..4 {
                f.lenenc_str()?; // catalog, schema, table, org_table
            }
            let name = f.lenenc_str()?.unwrap_or_default();
            rs.columns.push(String::from_utf8_lossy(name).into_owned());
        }
        let eof = self.read_packet()?;
        if !is_eof(&eof) {
            return Err(ClientError::Protocol("no EOF after the column definitions"));
        }
        loop {
            let p = self.read_packet()?;
            if is_eof(&p) {
                let more = status_of(&p) & SERVER_MORE_RESULTS_EXISTS != 0;
                return Ok((rs, more));
            }
            if p.first() == Some(&0xff) {
                return Err(server_error(&p));
            }
            let mut f = Fields::new(&p);
            let mut row = Vec::with_capacity(rs.columns.len());
            for _ in 0..rs.columns.len() {
                row.push(
                    f.lenenc_str()?
                        .map(|v| String::from_utf8_lossy(v).into_owned()),
                );
            }
            rs.rows.push(row);
        }
    }

    /// Expects an OK (or fails with the ERR).
    fn read_ok(&mut self) -> Result<(), ClientError> {
        let p = self.read_packet()?;
        match p.first() {
            Some(0x00) => Ok(()),
            Some(0xff) => Err(server_error(&p)),
            _ => Err(ClientError::Protocol("expected OK")),
        }
    }

    /// COM_REGISTER_SLAVE: server_id (4) | host, user, password (1-byte length +
    /// bytes each) | port (2) | replication rank (4, 0) | master id (4, 0).
    pub fn register_slave(
        &mut self,
        server_id: u32,
        report_host: &str,
        report_port: u16,
    ) -> Result<(), ClientError> {
        let mut out = vec![COM_REGISTER_SLAVE];
        out.extend_from_slice(&server_id.to_le_bytes());
        for s in [report_host, "", ""] {
            let b = &s.as_bytes()[..s.len().min(255)];
            out.push(b.len() as u8);
            out.extend_from_slice(b);
        }
        out.extend_from_slice(&report_port.to_le_bytes());
        out.extend_from_slice(&[0; 8]);
        self.command(&out)?;
        self.read_ok()
    }

    /// COM_BINLOG_DUMP: pos (4) | flags (2) | server_id (4) | file name; then the
    /// connection carries the event stream.
    pub fn dump(mut self, req: &DumpRequest) -> Result<EventStream, ClientError> {
        let mut out = vec![COM_BINLOG_DUMP];
        out.extend_from_slice(&req.pos.to_le_bytes());
        out.extend_from_slice(&req.flags.to_le_bytes());
        out.extend_from_slice(&req.server_id.to_le_bytes());
        out.extend_from_slice(req.file.as_bytes());
        self.command(&out)?;
        Ok(EventStream { conn: self })
    }

    /// A GTID dump as MariaDB's replica asks for it: `SET @slave_connect_state` to
    /// `state` (a `gtid_slave_pos` list, possibly empty), `@slave_gtid_strict_mode`,
    /// `@slave_gtid_ignore_duplicates`, then COM_BINLOG_DUMP with no file and
    /// position 4.
    pub fn dump_gtid(
        mut self,
        server_id: u32,
        state: &str,
        strict: bool,
        flags: u16,
    ) -> Result<EventStream, ClientError> {
        let quoted = state.replace('\\', "\\\\").replace('\'', "\\'");
        self.query(&format!("SET @slave_connect_state='{quoted}'"))?;
        self.query(&format!("SET @slave_gtid_strict_mode={}", u8::from(strict)))?;
        self.query("SET @slave_gtid_ignore_duplicates=0")?;
        self.dump(&DumpRequest {
            server_id,
            file: String::new(),
            pos: 4,
            flags,
        })
    }

    /// The preparation MariaDB's I/O thread does before a dump: the primary's clock
    /// (`SELECT UNIX_TIMESTAMP()`), server id and GTID domain, then CRC32 checksums,
    /// the replica capability (4 = GTID aware) and the heartbeat period (seconds,
    /// sent in nanoseconds; 0 leaves heartbeats off).
    pub fn prepare_replica(&mut self, heartbeat: Duration) -> Result<PrimaryFacts, ClientError> {
        let clock = self.query_value("SELECT UNIX_TIMESTAMP()")?;
        let server_id = self.query_value("SELECT @@server_id")?;
        let domain = self.query_value("SELECT @@gtid_domain_id")?;
        self.query("SET @master_binlog_checksum='CRC32'")?;
        self.query("SET @mariadb_slave_capability=4")?;
        self.query(&format!(
            "SET @master_heartbeat_period={}",
            heartbeat.as_nanos()
        ))?;
        let num = |v: Option<String>| v.and_then(|s| s.split('.').next()?.parse().ok());
        Ok(PrimaryFacts {
            unix_time: num(clock),
            server_id: num(server_id).map(|v: u64| v as u32),
            gtid_domain_id: num(domain).map(|v: u64| v as u32),
            checksum: true,
        })
    }
}

/// What [`PrimaryConn::prepare_replica`] learned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrimaryFacts {
    /// The primary's clock, for Seconds_Behind_Master's clock difference.
    pub unix_time: Option<u64>,
    pub server_id: Option<u32>,
    pub gtid_domain_id: Option<u32>,
    /// The primary accepted `@master_binlog_checksum='CRC32'`: events carry a CRC
    /// whenever its `binlog_checksum` is CRC32 (each file's FORMAT_DESCRIPTION says).
    pub checksum: bool,
}

/// The event stream of a dump.
#[derive(Debug)]
pub struct EventStream {
    conn: PrimaryConn,
}

impl EventStream {
    /// The next event's bytes (header, body, CRC when on); None at the EOF that
    /// ends a non-blocking dump.
    pub fn next_event(&mut self) -> Result<Option<Vec<u8>>, ClientError> {
        let mut p = self.conn.read_packet()?;
        match p.first() {
            Some(0x00) => {
                p.remove(0);
                Ok(Some(p))
            }
            Some(0xfe) if p.len() < 9 => Ok(None),
            Some(0xff) => Err(server_error(&p)),
            _ => Err(ClientError::Protocol(
                "unexpected packet in the event stream",
            )),
        }
    }

    /// Sets the read timeout (the I/O thread's `slave_net_timeout`).
    pub fn set_read_timeout(&mut self, t: Option<Duration>) -> Result<(), ClientError> {
        self.conn.set_read_timeout(t)
    }

    /// The stream's socket, e.g. to shut it down from another thread (STOP SLAVE).
    pub fn try_clone_socket(&self) -> Result<TcpStream, ClientError> {
        Ok(self.conn.stream.try_clone()?)
    }
}

#[cfg(test)]
#[path = "client_tests.rs"]
mod tests;
