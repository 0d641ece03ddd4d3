//! A minimal binlog dump client over raw TCP, for the `binlog-dump` workload.
//!
//! Why not the `mysql` crate's `Conn::get_binlog_stream`: the workspace builds that
//! crate without its `binlog` feature (which would add `bitvec` and a zstd build),
//! and its stream parses every event into Rust values (row images included), a cost
//! paid 100 times over on a machine whose few cores also run the server being
//! measured. This client reads packet framing and the event header's type byte only.
//!
//! What it sends, in order (the MySQL client/server protocol, as a MariaDB replica
//! does it):
//! 1. HandshakeResponse41 to the server's greeting: user `root`, empty password
//!    (empty `mysql_native_password` scramble; an auth-switch request is answered
//!    with an empty response), `CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION |
//!    CLIENT_PLUGIN_AUTH | CLIENT_LONG_PASSWORD | CLIENT_TRANSACTIONS`, no
//!    `CLIENT_DEPRECATE_EOF`, so the dump ends with an EOF packet;
//! 2. `SET @master_binlog_checksum='ALL'` (as the `mysql` crate does before
//!    COM_REGISTER_SLAVE) and `SET @mariadb_slave_capability=4` (as a MariaDB 10.11
//!    replica: GTID events stay GTID events);
//! 3. COM_REGISTER_SLAVE (0x15): server id u32, host, user, password (u8 length +
//!    bytes each), port u16, rank u32, master id u32;
//! 4. COM_BINLOG_DUMP (0x12): position u32, flags u16 (0: blocking), server id u32,
//!    file name (rest of the packet).
//!
//! Then every packet is `0x00` + one event (19-byte v4 header: timestamp u32, type
//! u8, ...), an ERR packet (`0xFF`, code u16, `#` + SQLSTATE, message) or an EOF
//! packet (`0xFE`, shorter than 9 bytes). A payload of exactly 0xFFFFFF bytes is
//! continued by the next packet (events of 16 MiB and more).
//!
//! Invariant: bytes are consumed from the receive buffer only as whole packets, so a
//! read timeout (used to poll a stop flag) never loses framing.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Event type codes the workload looks at.
pub const XID_EVENT: u8 = 16;
pub const FORMAT_DESCRIPTION_EVENT: u8 = 15;

const CLIENT_LONG_PASSWORD: u32 = 1;
const CLIENT_PROTOCOL_41: u32 = 0x200;
const CLIENT_TRANSACTIONS: u32 = 0x2000;
const CLIENT_SECURE_CONNECTION: u32 = 0x8000;
const CLIENT_PLUGIN_AUTH: u32 = 0x8_0000;
const MAX_PAYLOAD: usize = 0xFF_FFFF;
const COM_QUERY: u8 = 0x03;
const COM_BINLOG_DUMP: u8 = 0x12;
const COM_REGISTER_SLAVE: u8 = 0x15;

/// One item of the dump stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// An event, by its type code.
    Event(u8),
    /// The server ended the stream (EOF packet).
    End,
}

/// A connection that has sent COM_BINLOG_DUMP.
pub struct DumpClient {
    stream: TcpStream,
    buf: Vec<u8>,
    /// Start of the unconsumed bytes in `buf`.
    start: usize,
    /// A payload of 0xFFFFFF bytes waiting for its continuation.
    pending: Vec<u8>,
    seq: u8,
}

/// Where a dump starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartAt {
    pub file: String,
    pub pos: u32,
}

impl DumpClient {
    /// Connects to 127.0.0.1:`port` as root, registers as replica `server_id` and
    /// asks for a blocking dump from `at`.
    pub fn start(port: u16, server_id: u32, at: &StartAt) -> Result<DumpClient, String> {
        let stream =
            TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("connect: {e}"))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .map_err(|e| e.to_string())?;
        let mut c = DumpClient {
            stream,
            buf: Vec::with_capacity(64 * 1024),
            start: 0,
            pending: Vec::new(),
            seq: 0,
        };
        c.handshake()?;
        c.query("SET @master_binlog_checksum='ALL'")?;
        c.query("SET @mariadb_slave_capability=4")?;
        c.command(&register_slave_packet(server_id, port))?;
        c.expect_ok("COM_REGISTER_SLAVE")?;
        c.seq = 0;
        c.send(&binlog_dump_packet(at, server_id, 0))?;
        Ok(c)
    }

    /// How long `poll` waits for bytes before answering `None`.
    pub fn set_poll(&mut self, d: Duration) -> Result<(), String> {
        self.stream
            .set_read_timeout(Some(d))
            .map_err(|e| e.to_string())
    }

    /// The next stream item, or `None` when nothing arrived within the poll time.
    pub fn poll(&mut self) -> Result<Option<Item>, String> {
        loop {
            if let Some(p) = self.take_payload()? {
                return classify(&p).map(Some);
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    fn handshake(&mut self) -> Result<(), String> {
        let greeting = self.read_blocking()?;
        if greeting.first() == Some(&0xFF) {
            return Err(err_text(&greeting));
        }
        let server_caps = greeting_capabilities(&greeting)?;
        self.send(&handshake_response(server_caps, "root"))?;
        let reply = self.read_blocking()?;
        match reply.first() {
            Some(0x00) => Ok(()),
            // Auth switch: an empty password answers every plugin with nothing.
            Some(0xFE) => {
                self.send(&[])?;
                self.expect_ok("authentication")
            }
            Some(0xFF) => Err(format!("authentication: {}", err_text(&reply))),
            other => Err(format!("authentication: unexpected reply {other:?}")),
        }
    }

    fn query(&mut self, sql: &str) -> Result<(), String> {
        let mut p = vec![COM_QUERY];
        p.extend_from_slice(sql.as_bytes());
        self.command(&p)?;
        self.expect_ok(sql)
    }

    fn command(&mut self, payload: &[u8]) -> Result<(), String> {
        self.seq = 0;
        self.send(payload)
    }

    fn expect_ok(&mut self, what: &str) -> Result<(), String> {
        let p = self.read_blocking()?;
        match p.first() {
            Some(0x00) => Ok(()),
            Some(0xFF) => Err(format!("{what}: {}", err_text(&p))),
            other => Err(format!("{what}: unexpected reply {other:?}")),
        }
    }

    fn send(&mut self, payload: &[u8]) -> Result<(), String> {
        let mut out = Vec::with_capacity(payload.len() + 4);
        let len = payload.len() as u32;
        out.extend_from_slice(&len.to_le_bytes()[..3]);
        out.push(self.seq);
        out.extend_from_slice(payload);
        self.seq = self.seq.wrapping_add(1);
        self.stream
            .write_all(&out)
            .map_err(|e| format!("send: {e}"))
    }

    /// One whole payload, waiting up to the read timeout (30 s during set-up).
    fn read_blocking(&mut self) -> Result<Vec<u8>, String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(p) = self.take_payload()? {
                return Ok(p);
            }
            if !self.fill()? && Instant::now() > deadline {
                return Err("no reply from the server within 30 s".into());
            }
        }
    }

    /// Reads what the socket has; false on a read timeout.
    fn fill(&mut self) -> Result<bool, String> {
        if self.start > 0 && self.start * 2 >= self.buf.len() {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        let mut chunk = [0u8; 64 * 1024];
        match self.stream.read(&mut chunk) {
            Ok(0) => Err("the server closed the connection".into()),
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(true)
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                Ok(false)
            }
            Err(e) => Err(format!("read: {e}")),
        }
    }

    /// The next complete logical payload from the buffer, continuation packets
    /// joined.
    fn take_payload(&mut self) -> Result<Option<Vec<u8>>, String> {
        loop {
            let Some((len, seq)) = frame(&self.buf[self.start..]) else {
                return Ok(None);
            };
            let body = self.start + 4;
            self.pending.extend_from_slice(&self.buf[body..body + len]);
            self.start = body + len;
            self.seq = seq.wrapping_add(1);
            if len < MAX_PAYLOAD {
                return Ok(Some(std::mem::take(&mut self.pending)));
            }
        }
    }
}

/// The payload length and sequence id of the packet at the start of `buf`, if the
/// whole packet is there.
pub fn frame(buf: &[u8]) -> Option<(usize, u8)> {
    if buf.len() < 4 {
        return None;
    }
    let len = usize::from(buf[0]) | usize::from(buf[1]) << 8 | usize::from(buf[2]) << 16;
    (buf.len() >= 4 + len).then_some((len, buf[3]))
}

/// What a dump-stream payload is.
pub fn classify(p: &[u8]) -> Result<Item, String> {
    match p.first() {
        // 0x00 + 19-byte header; the type is the header's fifth byte.
        Some(0x00) if p.len() >= 20 => Ok(Item::Event(p[5])),
        Some(0x00) => Err(format!("event packet of {} bytes", p.len())),
        Some(0xFE) if p.len() < 9 => Ok(Item::End),
        Some(0xFF) => Err(err_text(p)),
        other => Err(format!("unexpected dump packet starting {other:?}")),
    }
}

/// `code: message` of an ERR packet.
pub fn err_text(p: &[u8]) -> String {
    if p.len() < 3 {
        return "malformed ERR packet".into();
    }
    let code = u16::from_le_bytes([p[1], p[2]]);
    let rest = &p[3..];
    let msg = match rest.first() {
        Some(b'#') if rest.len() >= 6 => &rest[6..],
        _ => rest,
    };
    format!("error {code}: {}", String::from_utf8_lossy(msg))
}

/// The capability flags of a v10 greeting.
pub fn greeting_capabilities(g: &[u8]) -> Result<u32, String> {
    if g.first() != Some(&10) {
        return Err(format!("unsupported protocol version {:?}", g.first()));
    }
    let nul = g[1..]
        .iter()
        .position(|&b| b == 0)
        .ok_or("greeting without server version")?;
    // version, NUL, thread id (4), scramble part 1 (8), filler (1).
    let at = 1 + nul + 1 + 4 + 8 + 1;
    let lo = g.get(at..at + 2).ok_or("short greeting")?;
    let hi = g.get(at + 5..at + 7).ok_or("short greeting")?;
    Ok(u32::from(u16::from_le_bytes([lo[0], lo[1]]))
        | u32::from(u16::from_le_bytes([hi[0], hi[1]])) << 16)
}

/// HandshakeResponse41 for `user` with an empty password.
pub fn handshake_response(server_caps: u32, user: &str) -> Vec<u8> {
    let want = CLIENT_LONG_PASSWORD
        | CLIENT_PROTOCOL_41
        | CLIENT_TRANSACTIONS
        | CLIENT_SECURE_CONNECTION
        | CLIENT_PLUGIN_AUTH;
    let caps = want & (server_caps | CLIENT_PROTOCOL_41);
    let mut p = Vec::new();
    p.extend_from_slice(&caps.to_le_bytes());
    p.extend_from_slice(&(16u32 << 20).to_le_bytes());
    p.push(45); // utf8mb4_general_ci
    p.extend_from_slice(&[0u8; 23]);
    p.extend_from_slice(user.as_bytes());
    p.push(0);
    p.push(0); // auth response: length 0
    if caps & CLIENT_PLUGIN_AUTH != 0 {
        p.extend_from_slice(b"mysql_native_password\0");
    }
    p
}

/// COM_REGISTER_SLAVE for replica `server_id` (host 127.0.0.1, user root).
pub fn register_slave_packet(server_id: u32, port: u16) -> Vec<u8> {
    let mut p = vec![COM_REGISTER_SLAVE];
    p.extend_from_slice(&server_id.to_le_bytes());
    for s in ["127.0.0.1", "root", ""] {
        p.push(s.len() as u8);
        p.extend_from_slice(s.as_bytes());
    }
    p.extend_from_slice(&port.to_le_bytes());
    p.extend_from_slice(&0u32.to_le_bytes()); // rank
    p.extend_from_slice(&0u32.to_le_bytes()); // master id
    p
}

/// COM_BINLOG_DUMP from `at` with `flags`.
pub fn binlog_dump_packet(at: &StartAt, server_id: u32, flags: u16) -> Vec<u8> {
    let mut p = vec![COM_BINLOG_DUMP];
    p.extend_from_slice(&at.pos.to_le_bytes());
    p.extend_from_slice(&flags.to_le_bytes());
    p.extend_from_slice(&server_id.to_le_bytes());
    p.extend_from_slice(at.file.as_bytes());
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_need_the_whole_packet() {
        assert_eq!(frame(&[3, 0, 0, 7, 1, 2]), None);
        assert_eq!(frame(&[3, 0, 0, 7, 1, 2, 3]), Some((3, 7)));
        assert_eq!(frame(&[0, 0, 0, 1]), Some((0, 1)));
        assert_eq!(frame(&[1, 0]), None);
    }

    #[test]
    fn classifies_events_eof_and_errors() {
        let mut ev = vec![0u8; 20];
        ev[5] = XID_EVENT;
        assert_eq!(classify(&ev), Ok(Item::Event(XID_EVENT)));
        assert_eq!(classify(&[0xFE, 0, 0, 2, 0]), Ok(Item::End));
        let mut err = vec![0xFF, 0xD4, 0x04, b'#'];
        err.extend_from_slice(b"HY000Could not find first log");
        assert_eq!(
            classify(&err),
            Err("error 1236: Could not find first log".into())
        );
        assert!(classify(&[0u8; 5]).is_err());
    }

    #[test]
    fn greeting_caps_and_response() {
        // protocol 10, "5.5.5-x\0", thread id, scramble 8, filler, caps lo,
        // charset, status (2), caps hi.
        let mut g = vec![10];
        g.extend_from_slice(b"5.5.5-x\0");
        g.extend_from_slice(&[1, 0, 0, 0]);
        g.extend_from_slice(&[b'a'; 8]);
        g.push(0);
        g.extend_from_slice(&0xF7FFu16.to_le_bytes());
        g.push(45);
        g.extend_from_slice(&[2, 0]);
        g.extend_from_slice(&0x0008u16.to_le_bytes());
        let caps = greeting_capabilities(&g).expect("caps");
        assert_eq!(caps, 0x0008_F7FF);
        let r = handshake_response(caps, "root");
        let sent = u32::from_le_bytes([r[0], r[1], r[2], r[3]]);
        assert_ne!(sent & CLIENT_PLUGIN_AUTH, 0);
        assert_eq!(&r[32..37], b"root\0");
        assert_eq!(r[37], 0);
        assert!(r.ends_with(b"mysql_native_password\0"));
        assert!(greeting_capabilities(&[9]).is_err());
    }

    #[test]
    fn dump_and_register_layouts() {
        let at = StartAt {
            file: "basalt-bin.000001".into(),
            pos: 0x0102,
        };
        let d = binlog_dump_packet(&at, 7, 0);
        assert_eq!(&d[..11], &[0x12, 2, 1, 0, 0, 0, 0, 7, 0, 0, 0]);
        assert_eq!(&d[11..], b"basalt-bin.000001");
        let r = register_slave_packet(9, 3306);
        assert_eq!(&r[..5], &[0x15, 9, 0, 0, 0]);
        assert_eq!(r[5], 9);
        assert_eq!(&r[6..15], b"127.0.0.1");
        assert_eq!(r.len(), 1 + 4 + 10 + 5 + 1 + 2 + 4 + 4);
    }

    #[test]
    fn continuation_packets_are_joined() {
        let mut c_buf = Vec::new();
        let big = vec![0u8; MAX_PAYLOAD];
        c_buf.extend_from_slice(&[0xFF, 0xFF, 0xFF, 1]);
        c_buf.extend_from_slice(&big);
        c_buf.extend_from_slice(&[2, 0, 0, 2, 9, 9]);
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let stream = TcpStream::connect(listener.local_addr().expect("addr")).expect("connect");
        let mut c = DumpClient {
            stream,
            buf: c_buf,
            start: 0,
            pending: Vec::new(),
            seq: 0,
        };
        let p = c.take_payload().expect("payload").expect("complete");
        assert_eq!(p.len(), MAX_PAYLOAD + 2);
        assert_eq!(c.seq, 3);
        assert_eq!(c.take_payload().expect("nothing"), None);
    }
}
