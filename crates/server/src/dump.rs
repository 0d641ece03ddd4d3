//! COM_BINLOG_DUMP and COM_REGISTER_SLAVE on a connection (the stream itself is
//! [`basalt_replication::dump`]).
//!
//! A dump runs on the connection's own thread until the replica goes, the
//! connection is killed, or (NON_BLOCK) the end of the log; then the connection
//! closes, as MariaDB closes it after COM_BINLOG_DUMP. A dump for a replica server
//! id that another connection is already dumping to kills that one first (the
//! replica reconnected; the old dump is a zombie).
//!
//! A semi-sync replica (`@rpl_semi_sync_slave`) answers on the same connection
//! while the dump writes: a reader thread of its own takes those ACK packets
//! (`len u24 | seq u8 | payload`, the payload as [`basalt_replication::semisync`]
//! describes it) from a clone of the socket until the dump ends.

use crate::blocking;
use crate::connection::{write_ok, Conn};
use crate::registry::ConnState;
use crate::stream::Stream;
use crate::Server;
use basalt_common::Value;
use basalt_protocol::ProtoError;
use basalt_replication::dump::{self as rdump, DumpError, DumpSink, DumpVars};
use basalt_replication::semisync::{DumpSession, FLAG_REPLY, SYNC_MAGIC};
use basalt_sql::Session;
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// COM_REGISTER_SLAVE: OK, or 1105 with MariaDB's text.
pub(crate) fn register_slave(
    server: &Server,
    conn: &mut Conn,
    state: &ConnState,
    session: &Session,
    body: &[u8],
) {
    let own_id = server.binlog().map_or(1, |b| b.server_id());
    match server.replicas.register(state.id, body, own_id) {
        Ok(_) => write_ok(conn, session, 0, 0, ""),
        Err(e) => match e.client_error() {
            Some(err) => conn.write_err(&err),
            None => conn.write_err(&basalt_common::MySqlError::unknown_command()),
        },
    }
}

/// COM_BINLOG_DUMP; always ends the connection (returns false).
pub(crate) fn binlog_dump(
    server: &Arc<Server>,
    conn: &mut Conn,
    state: &Arc<ConnState>,
    session: &Session,
    body: &[u8],
) -> bool {
    state.set_command("Binlog Dump", None);
    let Some(req) = rdump::parse_dump_request(body) else {
        if let Some(err) = ProtoError::Malformed("COM_BINLOG_DUMP").client_error() {
            conn.write_err(&err);
        }
        return false;
    };
    session.log_command(
        "Binlog Dump",
        &format!("Log: '{}'  Pos: {}", req.file, req.pos),
    );
    let Some(src) = server.binlog() else {
        let e = DumpError::Fatal("Binary log is not open".into());
        if let Some(err) = e.client_error() {
            conn.write_err(&err);
        }
        return false;
    };
    if let Some(zombie) = server.replicas.start_dump(req.server_id, state.id) {
        if let Some(c) = server.registry.get(zombie) {
            c.kill();
        }
    }
    let vars = dump_vars(session);
    let semi = vars
        .semi_sync_slave
        .then(|| server.engine.binlog())
        .flatten()
        .map(|b| b.semisync().dump_session(req.server_id));
    let acks = semi
        .as_ref()
        .and_then(|s| AckReader::start(conn, s.clone()));
    let result = {
        let mut sink = ConnSink { conn: &mut *conn };
        rdump::dump_with(
            &*src,
            &req,
            &vars,
            &mut sink,
            &state.killed,
            semi.as_deref(),
        )
    };
    if let Some(a) = acks {
        a.stop();
    }
    drop(semi);
    server.replicas.end_dump(state.id);
    match result {
        Ok(()) => conn.write_end_marker(0, 0),
        Err(e) => {
            if let Some(err) = e.client_error() {
                conn.write_err(&err);
            } else if !state.killed.load(Ordering::SeqCst) {
                server.stats.aborted_clients.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    false
}

/// The connection's output as the dump writes it: staged, sent when large and
/// whenever the dump waits.
struct ConnSink<'a> {
    conn: &'a mut Conn,
}

fn io_error(e: ProtoError) -> io::Error {
    match e {
        ProtoError::Io(e) => e,
        other => io::Error::other(other.to_string()),
    }
}

impl DumpSink for ConnSink<'_> {
    fn event(&mut self, ev: &[u8]) -> io::Result<()> {
        self.conn.push_packet(|out| {
            out.push(0);
            out.extend_from_slice(ev);
        });
        if self.conn.should_flush() {
            blocking::run(self.conn.flush()).map_err(io_error)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        blocking::run(self.conn.flush()).map_err(io_error)
    }

    fn semisync_event(&mut self, reply: bool, ev: &[u8]) -> io::Result<()> {
        self.conn.push_packet(|out| {
            out.extend_from_slice(&[0, SYNC_MAGIC, if reply { FLAG_REPLY } else { 0 }]);
            out.extend_from_slice(ev);
        });
        if reply || self.conn.should_flush() {
            blocking::run(self.conn.flush()).map_err(io_error)?;
        }
        if reply {
            self.restart_sequence();
        }
        Ok(())
    }

    fn restart_sequence(&mut self) {
        self.conn.set_sequence_id(1);
    }
}

/// How often the ACK reader looks at its stop flag.
const ACK_POLL: Duration = Duration::from_millis(200);
/// An ACK is 9 bytes and a file name; anything longer than this is not one.
const MAX_ACK_PACKET: usize = 64 * 1024;

/// Takes a semi-sync replica's ACKs off its dump connection.
struct AckReader {
    stop: Arc<AtomicBool>,
    socket: Stream,
    thread: std::thread::JoinHandle<()>,
}

impl AckReader {
    /// `None` when the socket cannot be cloned or carries TLS (the dump then goes
    /// on without ACKs, and commits that wait time out).
    fn start(conn: &Conn, session: Arc<DumpSession>) -> Option<AckReader> {
        // A TLS session cannot be read from a second thread.
        if conn.get_ref().0.tls().is_some() {
            return None;
        }
        let socket = conn.get_ref().0.try_clone().ok()?;
        let reader = socket.try_clone().ok()?;
        // The dump thread never reads, so the shared receive timeout is ours.
        reader.set_read_timeout(Some(ACK_POLL)).ok()?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("semisync-ack".into())
            .spawn(move || read_acks(reader, &session, &flag))
            .ok()?;
        Some(AckReader {
            stop,
            socket,
            thread,
        })
    }

    fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.socket.shutdown(std::net::Shutdown::Read);
        let _ = self.thread.join();
    }
}

/// Reads packets until the connection ends, the replica quits, or `stop`.
fn read_acks(mut s: Stream, session: &DumpSession, stop: &AtomicBool) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    while !stop.load(Ordering::SeqCst) {
        match s.read(&mut chunk) {
            Ok(0) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) =>
            {
                continue
            }
            Err(_) => return,
        }
        while let Some(len) = whole_packet(&buf) {
            if len > MAX_ACK_PACKET {
                tracing::error!("semi-sync replica sent a {len}-byte packet; ignoring its ACKs");
                return;
            }
            let go_on = session.packet(&buf[4..4 + len]);
            buf.drain(..4 + len);
            if !go_on {
                return;
            }
        }
    }
}

/// The payload length of the first packet in `buf` once all of it is there (or
/// once its header says it is too long to wait for).
fn whole_packet(buf: &[u8]) -> Option<usize> {
    let h = buf.get(..4)?;
    let len = u32::from_le_bytes([h[0], h[1], h[2], 0]) as usize;
    (len > MAX_ACK_PACKET || buf.len() >= 4 + len).then_some(len)
}

/// The user variables MariaDB's dump thread reads.
fn dump_vars(session: &Session) -> DumpVars {
    let text = |name: &str| {
        session
            .user_variable(name)
            .and_then(|v| v.to_text(6))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let int = |name: &str| session.user_variable(name).map_or(0, value_int);
    DumpVars {
        // Set at all (even to NULL) means "checksum aware", as in MariaDB.
        master_binlog_checksum: session
            .user_variable("master_binlog_checksum")
            .map(|_| text("master_binlog_checksum").unwrap_or_default()),
        heartbeat_period_ns: int("master_heartbeat_period").max(0) as u64,
        mariadb_slave_capability: int("mariadb_slave_capability"),
        slave_connect_state: text("slave_connect_state"),
        slave_gtid_strict_mode: int("slave_gtid_strict_mode") != 0,
        slave_gtid_ignore_duplicates: int("slave_gtid_ignore_duplicates") != 0,
        slave_until_gtid: text("slave_until_gtid"),
        semi_sync_slave: int("rpl_semi_sync_slave") != 0,
    }
}

/// A user variable in integer context (MariaDB's `val_int`): numbers as they are
/// (doubles rounded), strings by their leading integer, NULL as 0.
fn value_int(v: &Value) -> i64 {
    match v {
        Value::Int(n) => *n,
        Value::UInt(n) => i64::try_from(*n).unwrap_or(i64::MAX),
        Value::Double(d) => d.round() as i64,
        other => {
            let text = other.to_text(6).unwrap_or_default();
            let s = String::from_utf8_lossy(&text);
            let s = s.trim_start();
            let end = s
                .char_indices()
                .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
                .map_or(s.len(), |(i, _)| i);
            s[..end].parse().unwrap_or(0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Args, Config};
    use basalt_replication::dump::DirSource;
    use std::io::{Read, Write};
    use std::net::TcpStream;

    /// A server on an ephemeral port serving MariaDB's golden binlog files; the
    /// accept loops run on a thread until the test ends.
    fn serve_golden(data: &std::path::Path) -> (Arc<Server>, u16) {
        let cfg = Config::resolve(Args {
            port: Some(0),
            datadir: Some(data.join("db")),
            socket: Some(data.join("s.sock")),
            ..Default::default()
        })
        .expect("config");
        std::fs::create_dir_all(&cfg.datadir).expect("datadir");
        let lock = crate::datadir_lock::DatadirLock::acquire(&cfg.datadir).expect("lock");
        let listeners = crate::listener::bind(&cfg).expect("listen");
        let port = listeners
            .tcp
            .as_ref()
            .and_then(|t| t.local_addr().ok())
            .map(|a| a.port())
            .expect("tcp port");
        let server = crate::start(cfg, lock, String::new()).expect("start");
        let golden =
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../replication/tests/data");
        let src = DirSource::open(&golden, "mariadb-bin.index", 1).expect("golden binlog");
        src.set_end("mariadb-bin.000004", 588);
        server.set_binlog(Some(Arc::new(src)));
        let s2 = server.clone();
        std::thread::spawn(move || crate::listener::accept_loops(&s2, &listeners));
        (server, port)
    }

    /// A bare client: enough of the protocol to log in as root without a
    /// password, run statements and send a command.
    struct Client {
        s: TcpStream,
        seq: u8,
    }

    impl Client {
        fn connect(port: u16) -> Client {
            let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
            s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
                .expect("timeout");
            let mut c = Client { s, seq: 0 };
            let _greeting = c.read();
            // PROTOCOL_41 | SECURE_CONNECTION | PLUGIN_AUTH; max packet; utf8mb4.
            let caps: u32 = 0x200 | 0x8000 | 0x80000;
            let mut p = caps.to_le_bytes().to_vec();
            p.extend_from_slice(&(1u32 << 24).to_le_bytes());
            p.push(45);
            p.extend_from_slice(&[0u8; 23]);
            p.extend_from_slice(b"root\0\0mysql_native_password\0");
            c.write(&p);
            let ok = c.read();
            assert_eq!(ok[0], 0, "login OK: {ok:?}");
            c
        }

        fn write(&mut self, payload: &[u8]) {
            let n = (payload.len() as u32).to_le_bytes();
            let mut p = vec![n[0], n[1], n[2], self.seq];
            p.extend_from_slice(payload);
            self.s.write_all(&p).expect("write");
            self.seq = self.seq.wrapping_add(1);
        }

        /// One packet's payload; empty when the server closed the connection.
        fn read(&mut self) -> Vec<u8> {
            let mut h = [0u8; 4];
            if self.s.read_exact(&mut h).is_err() {
                return Vec::new();
            }
            self.seq = h[3].wrapping_add(1);
            let n = u32::from_le_bytes([h[0], h[1], h[2], 0]) as usize;
            let mut p = vec![0u8; n];
            self.s.read_exact(&mut p).expect("payload");
            p
        }

        fn command(&mut self, payload: &[u8]) {
            self.seq = 0;
            self.write(payload);
        }

        fn query(&mut self, sql: &str) {
            let mut p = vec![3u8];
            p.extend_from_slice(sql.as_bytes());
            self.command(&p);
            let r = self.read();
            assert_eq!(r.first(), Some(&0), "{sql}: {r:?}");
        }

        /// Sends COM_BINLOG_DUMP and returns every packet up to EOF or ERR, as hex.
        fn dump(&mut self, pos: u32, flags: u16, server_id: u32, file: &str) -> Vec<String> {
            let mut p = vec![0x12u8];
            p.extend_from_slice(&pos.to_le_bytes());
            p.extend_from_slice(&flags.to_le_bytes());
            p.extend_from_slice(&server_id.to_le_bytes());
            p.extend_from_slice(file.as_bytes());
            self.command(&p);
            let mut out = Vec::new();
            loop {
                let r = self.read();
                out.push(r.iter().map(|b| format!("{b:02x}")).collect::<String>());
                if r.is_empty() || r[0] == 0xff || (r[0] == 0xfe && r.len() < 9) {
                    return out;
                }
            }
        }
    }

    fn golden(name: &str) -> Vec<String> {
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../replication/tests/data/mariadb_dump")
            .join(format!("{name}.txt"));
        std::fs::read_to_string(path)
            .expect("capture")
            .lines()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn dumps_over_the_wire_match_mariadb() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (server, port) = serve_golden(dir.path());
        let mut c = Client::connect(port);
        c.query("SET @master_binlog_checksum='NONE'");
        assert_eq!(c.dump(4, 1, 77, "mariadb-bin.000003"), golden("f3_none"));
        // The connection closes after a dump, as MariaDB closes it.
        assert!(c.read().is_empty());

        let mut c = Client::connect(port);
        c.query("SET @master_binlog_checksum='CRC32'");
        c.query("SET @slave_connect_state='0-1-5'");
        c.query("SET @mariadb_slave_capability=4");
        // COM_REGISTER_SLAVE, as MariaDB captured it: OK.
        let mut reg = vec![0x15u8];
        reg.extend_from_slice(&55u32.to_le_bytes());
        reg.extend_from_slice(b"\x05rhost\x02ru\x02rp");
        reg.extend_from_slice(&3307u16.to_le_bytes());
        reg.extend_from_slice(&[0u8; 8]);
        c.command(&reg);
        assert_eq!(c.read()[0], 0);
        let hosts = server.replicas.replicas();
        assert_eq!(
            (
                hosts.len(),
                hosts[0].server_id,
                hosts[0].host.as_str(),
                hosts[0].port,
                hosts[0].master_id
            ),
            (1, 55, "rhost", 3307, 1)
        );
        assert_eq!(c.dump(4, 1, 55, ""), golden("gtid_0-1-5"));
        assert!(c.read().is_empty());
        // The registration went with its connection.
        for _ in 0..100 {
            if server.replicas.replicas().is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(server.replicas.replicas().is_empty());

        let mut c = Client::connect(port);
        c.command(b"\x1e\0\0\0\0\0\0\0\0\0\0");
        let err = c
            .read()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>();
        assert_eq!(vec![err], golden("com1e"));
    }

    #[test]
    fn dump_without_a_binlog_is_1236() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (server, port) = serve_golden(dir.path());
        server.set_binlog(None);
        let mut c = Client::connect(port);
        let got = c.dump(4, 1, 78, "");
        let want: String = b"\xff\xd4\x04#HY000Binary log is not open"
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(got, vec![want]);
    }

    #[test]
    fn ack_packets_are_taken_whole() {
        assert_eq!(whole_packet(&[3, 0]), None);
        assert_eq!(whole_packet(&[3, 0, 0, 0, 0xef, 1]), None);
        assert_eq!(whole_packet(&[3, 0, 0, 0, 0xef, 1, 2, 9]), Some(3));
        // A header announcing more than an ACK can be is not waited for.
        assert_eq!(whole_packet(&[0xff, 0xff, 0xff, 0]), Some(0xff_ffff));
    }

    #[test]
    fn integer_context_of_user_variables() {
        assert_eq!(value_int(&Value::Int(4)), 4);
        assert_eq!(value_int(&Value::UInt(30_000_000_000)), 30_000_000_000);
        assert_eq!(value_int(&Value::Double(2.6)), 3);
        assert_eq!(value_int(&Value::str(" 12abc")), 12);
        assert_eq!(value_int(&Value::str("x")), 0);
        assert_eq!(value_int(&Value::Null), 0);
    }
}
