//! A network-level fuzzer for `basaltd` (used by `tests/network_fuzz.rs`, which owns
//! the server and the checks between batches): a raw MySQL protocol client that logs
//! in as an account without a password and sends generated, then mutated, packets of
//! every command, plus malformed framing (bad sequence ids, length headers that
//! promise more than is sent or more than `max_allowed_packet`) and mangled
//! handshake responses before login.
//!
//! Keeping in step with the server without a full client: after each step (one
//! packet, sometimes a few pipelined) the fuzzer sends `SELECT <marker>`, a number
//! no generated statement contains, and reads packets until the text row holding
//! exactly that number and the end-of-result packet after it. A step that makes the
//! server close the connection (COM_QUIT, COM_BINLOG_DUMP, a fatal framing error, a
//! killed session) ends in EOF; one whose marker is not answered in time (the
//! server is waiting for more client packets, e.g. an authentication exchange) is a
//! desync. Either way the fuzzer reconnects. Steps that are sure to end the
//! connection half-close the socket and read to EOF instead of sending a marker.
//!
//! Everything random comes from one seeded [`Rng`] (xorshift64*), so a seed
//! reproduces the packets sent (the server's replies may still differ in timing).

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

mod generate;
use generate as gen;

/// xorshift64* (Vigna): small, fast, and good enough to drive a fuzzer.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // Any seed but 0 works; mix it so that small seeds differ from the start.
        Rng((seed ^ 0x9e37_79b9_7f4a_7c15).max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.next_u64() % n as u64) as usize
    }

    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }

    /// Random bytes, `min` to `min + spread - 1` of them.
    pub fn bytes_between(&mut self, min: usize, spread: usize) -> Vec<u8> {
        let n = min + self.below(spread);
        self.bytes(n)
    }
}

/// What the fuzzer is pointed at.
#[derive(Clone, Debug)]
pub struct Target {
    pub port: u16,
    /// The fuzzing account (logs in with an empty password).
    pub user: String,
    /// The database the account may change.
    pub db: String,
    /// Connection ids of sessions the fuzzing account must not be able to hurt
    /// (COM_PROCESS_KILL and KILL aim at them too).
    pub protected_ids: Vec<u32>,
    /// The server's current binary log file (COM_BINLOG_DUMP asks for it).
    pub binlog_file: String,
    /// The server's `max_allowed_packet`: oversized length headers exceed it.
    pub max_allowed_packet: usize,
}

/// Counters of one fuzzer, for the test's summary and its checks that something
/// was actually exercised.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Fuzz packets written (markers and login packets not counted).
    pub packets_sent: u64,
    /// Packets read back, marker rows and login replies not counted.
    pub responses: u64,
    /// Of those, in a step that stayed in step: OK packets (0x00 first, so also
    /// PREPARE_OK and some rows) and ERR packets.
    pub oks: u64,
    pub errs: u64,
    /// ERR packets by error code.
    pub err_codes: BTreeMap<u16, u64>,
    pub steps: u64,
    /// Steps whose marker came back: the connection was still in step.
    pub synced: u64,
    /// Steps after which the connection was closed (by the server or on purpose).
    pub closed: u64,
    /// Steps whose marker did not come back in time.
    pub desyncs: u64,
    pub logins: u64,
    pub login_failures: u64,
    /// Connections that sent a mangled handshake response instead of logging in.
    pub handshake_fuzz: u64,
    /// Fuzz packets sent per command byte (after mutation).
    pub commands: BTreeMap<u8, u64>,
}

/// How long to wait for one packet of a reply before calling the step a desync:
/// above the `max_statement_time` the test sets, so a slow statement is not one.
const READ_TIMEOUT: Duration = Duration::from_secs(6);
/// Replies of one step larger than this are not read to the end (desync).
const MAX_STEP_BYTES: usize = 64 << 20;

/// The session the fuzzer is logged in on.
struct Session {
    s: TcpStream,
    /// Its connection id (from the greeting).
    id: u32,
    /// Statement ids the server handed out on this connection, newest last, with
    /// their parameter counts (kept after COM_STMT_CLOSE: stale ids are good input).
    stmts: Vec<(u32, u16)>,
}

/// What a step sends, kept for the report when a check fails.
#[derive(Clone, Debug)]
pub struct Sent {
    pub step: u64,
    pub wire: Vec<u8>,
}

pub struct Fuzzer {
    rng: Rng,
    target: Target,
    session: Option<Session>,
    marker: u64,
    consecutive_login_failures: u32,
    /// A login was refused because the fuzzing database is gone.
    db_dropped: bool,
    pub stats: Stats,
    /// The last steps' bytes, oldest first.
    pub recent: Vec<Sent>,
}

impl Fuzzer {
    pub fn new(seed: u64, target: Target) -> Fuzzer {
        Fuzzer {
            rng: Rng::new(seed),
            target,
            session: None,
            marker: 7_391_000_000_000,
            consecutive_login_failures: 0,
            db_dropped: false,
            stats: Stats::default(),
            recent: Vec::new(),
        }
    }

    /// Sends `n` more fuzz packets (stopping early at `deadline`), logging in again
    /// whenever the connection is gone. Fails when the account cannot log in 20
    /// times in a row.
    pub fn run(&mut self, n: u64, deadline: Instant) -> Result<(), String> {
        let goal = self.stats.packets_sent + n;
        while self.stats.packets_sent < goal && Instant::now() < deadline {
            if self.session.is_none() {
                if self.rng.one_in(12) {
                    self.handshake_fuzz();
                    continue;
                }
                self.login()?;
                continue;
            }
            self.step();
        }
        Ok(())
    }

    /// Closes the fuzzing connection (between batches).
    pub fn disconnect(&mut self) {
        if let Some(sess) = self.session.take() {
            let _ = sess.s.shutdown(Shutdown::Both);
        }
    }

    /// The last steps' bytes in hex, for a failure report.
    pub fn recent_hex(&self) -> String {
        let mut out = String::new();
        for s in &self.recent {
            let shown = &s.wire[..s.wire.len().min(256)];
            let hex: Vec<String> = shown.iter().map(|b| format!("{b:02x}")).collect();
            let more = if s.wire.len() > shown.len() {
                format!(" ... ({} bytes)", s.wire.len())
            } else {
                String::new()
            };
            out.push_str(&format!("  step {}: {}{more}\n", s.step, hex.join(" ")));
        }
        out
    }

    fn remember(&mut self, wire: &[u8]) {
        if self.recent.len() == 8 {
            self.recent.remove(0);
        }
        self.recent.push(Sent {
            step: self.stats.steps,
            wire: wire.to_vec(),
        });
    }

    fn connect(&self) -> io::Result<TcpStream> {
        let s = TcpStream::connect(("127.0.0.1", self.target.port))?;
        s.set_read_timeout(Some(READ_TIMEOUT))?;
        s.set_write_timeout(Some(READ_TIMEOUT))?;
        s.set_nodelay(true)?;
        Ok(s)
    }

    /// Logs in as the fuzzing account with a random capability set.
    /// Logs in, into the fuzzing database mostly. A fuzzed statement may have
    /// dropped that database: then the next login goes without one and creates
    /// the database and its tables again (these statements are not counted).
    fn login(&mut self) -> Result<(), String> {
        let with_db = !self.db_dropped && !self.rng.one_in(10);
        match self.try_login(with_db) {
            Ok(mut sess) => {
                self.stats.logins += 1;
                self.consecutive_login_failures = 0;
                if self.db_dropped {
                    for sql in gen::restore_db(&self.target) {
                        let mut p = vec![0x03];
                        p.extend_from_slice(sql.as_bytes());
                        if sess.s.write_all(&frame(0, &p)).is_err() {
                            return Ok(());
                        }
                        if !matches!(self.sync(&mut sess, false), Synced::Yes) {
                            return Ok(());
                        }
                    }
                    self.db_dropped = false;
                }
                self.session = Some(sess);
            }
            Err(e) => {
                self.stats.login_failures += 1;
                self.consecutive_login_failures += 1;
                if e.to_string().contains("Unknown database") {
                    self.db_dropped = true;
                } else if self.consecutive_login_failures >= 20 {
                    return Err(format!("the fuzzing account cannot log in any more: {e}"));
                } else {
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        }
        Ok(())
    }

    fn try_login(&mut self, with_db: bool) -> io::Result<Session> {
        let mut s = self.connect()?;
        let (_, greeting) = read_packet(&mut s)?;
        let id = greeting_conn_id(&greeting).ok_or_else(|| bad_data("greeting"))?;
        let caps = gen::client_caps(&mut self.rng) | if with_db { 0x8 } else { 0 };
        let hello = gen::handshake_response(&mut self.rng, &self.target, caps);
        s.write_all(&frame(1, &hello))?;
        let (_, mut reply) = read_packet(&mut s)?;
        if reply.first() == Some(&0xfe) {
            // Authentication switch: the empty password is an empty answer.
            s.write_all(&frame(3, &[]))?;
            reply = read_packet(&mut s)?.1;
        }
        match reply.first() {
            Some(0x00) => Ok(Session {
                s,
                id,
                stmts: Vec::new(),
            }),
            _ => Err(bad_data(&format!(
                "login refused: {}",
                String::from_utf8_lossy(&reply)
            ))),
        }
    }

    /// A connection that sends something other than a good handshake response,
    /// then half-closes and reads whatever the server answers until it closes.
    fn handshake_fuzz(&mut self) {
        self.stats.handshake_fuzz += 1;
        let Ok(mut s) = self.connect() else {
            return;
        };
        let variant = self.rng.below(8);
        let mut wire = Vec::new();
        if variant == 0 {
            // Bytes before the greeting was even read.
            wire = self.rng.bytes_between(1, 64);
        } else if let Ok((_, _greeting)) = read_packet(&mut s) {
            let caps = gen::client_caps(&mut self.rng);
            let mut hello = gen::handshake_response(&mut self.rng, &self.target, caps);
            match variant {
                1 | 2 => {
                    gen::mutate(&mut self.rng, &mut hello);
                    wire = frame(1, &hello);
                }
                3 => wire = frame(1, &self.rng.bytes_between(0, 200)),
                4 => {
                    // An SSL request (TLS is not configured) followed by junk.
                    let mut ssl = hello[..32.min(hello.len())].to_vec();
                    ssl[1] |= 0x08;
                    wire = frame(1, &ssl);
                    wire.extend(self.rng.bytes_between(1, 100));
                }
                5 => wire = frame(*self.rng.pick(&[0u8, 2, 7, 255]), &hello),
                6 => {
                    let claimed = hello.len() + 1 + self.rng.below(1000);
                    wire = header(claimed, 1);
                    wire.extend_from_slice(&hello);
                }
                _ => {
                    wire = header(0xff_ffff, 1);
                    wire.extend_from_slice(&hello);
                }
            }
        }
        self.stats.steps += 1;
        self.remember(&wire);
        if s.write_all(&wire).is_ok() {
            self.stats.packets_sent += 1;
        }
        let _ = s.shutdown(Shutdown::Write);
        self.stats.responses += drain(&mut s, READ_TIMEOUT);
    }

    /// One step: a few fuzz packets, then the marker (or a half-close).
    fn step(&mut self) {
        let Some(mut sess) = self.session.take() else {
            return;
        };
        self.stats.steps += 1;
        // A session without statements mostly prepares one first, so that the
        // statement commands reach real statements.
        let prepare_first = sess.stmts.is_empty() && !self.rng.one_in(3);
        let count = if !prepare_first && self.rng.one_in(8) {
            2 + self.rng.below(3)
        } else {
            1
        };
        let mut payloads = Vec::with_capacity(count);
        if prepare_first {
            let p = gen::clean_prepare(&mut self.rng, &self.target, sess.id);
            *self.stats.commands.entry(p[0]).or_default() += 1;
            payloads.push(p);
        }
        while payloads.len() < count {
            let mut p = gen::command(&mut self.rng, &self.target, sess.id, &sess.stmts);
            if self.rng.one_in(4) {
                gen::mutate(&mut self.rng, &mut p);
            }
            *self
                .stats
                .commands
                .entry(*p.first().unwrap_or(&0))
                .or_default() += 1;
            payloads.push(p);
        }
        let mut wire = Vec::new();
        for p in &payloads[..count - 1] {
            wire.extend(frame(0, p));
        }
        let last = &payloads[count - 1];
        let framing = self.rng.below(100);
        let broken_frame = framing < 3;
        match framing {
            0 => wire.extend(frame(1 + self.rng.below(255) as u8, last)),
            1 => {
                wire.extend(header(last.len() + 1 + self.rng.below(2000), 0));
                wire.extend_from_slice(last);
            }
            2 => {
                let over = self.target.max_allowed_packet + 1;
                let claimed = over + self.rng.below(0xff_ffff_usize.saturating_sub(over));
                wire.extend(header(claimed, 0));
                wire.extend_from_slice(last);
            }
            _ => wire.extend(frame(0, last)),
        }
        self.remember(&wire);
        // Slow senders: sometimes the bytes arrive in pieces.
        let written = if self.rng.one_in(25) && wire.len() > 2 {
            let cut = 1 + self.rng.below(wire.len() - 1);
            sess.s
                .write_all(&wire[..cut])
                .and_then(|_| {
                    std::thread::sleep(Duration::from_millis(2));
                    sess.s.write_all(&wire[cut..])
                })
                .is_ok()
        } else {
            sess.s.write_all(&wire).is_ok()
        };
        self.stats.packets_sent += count as u64;
        let ends_connection = broken_frame
            || payloads
                .iter()
                .any(|p| matches!(p.first(), Some(0x01 | 0x12)));
        if !written || ends_connection {
            let _ = sess.s.shutdown(Shutdown::Write);
            self.stats.responses += drain(&mut sess.s, READ_TIMEOUT);
            self.stats.closed += 1;
            return;
        }
        let prepared = count == 1 && last.first() == Some(&0x16);
        match self.sync(&mut sess, prepared) {
            Synced::Yes => {
                self.stats.synced += 1;
                self.session = Some(sess);
            }
            Synced::Closed => self.stats.closed += 1,
            Synced::Late => {
                self.stats.desyncs += 1;
                let _ = sess.s.shutdown(Shutdown::Both);
            }
        }
    }

    /// Sends the marker query and reads up to its row and the end packet after it.
    /// `prepared`: the step was one COM_STMT_PREPARE, whose PREPARE_OK is the first
    /// packet back.
    fn sync(&mut self, sess: &mut Session, prepared: bool) -> Synced {
        self.marker += 1;
        let text = self.marker.to_string();
        let mut query = b"\x03SELECT ".to_vec();
        query.extend_from_slice(text.as_bytes());
        let mut row = vec![text.len() as u8];
        row.extend_from_slice(text.as_bytes());
        if sess.s.write_all(&frame(0, &query)).is_err() {
            return Synced::Closed;
        }
        let started = Instant::now();
        let mut first = true;
        let mut bytes = 0usize;
        loop {
            let p = match read_packet(&mut sess.s) {
                Ok((_, p)) => p,
                Err(e) if is_timeout(&e) => return Synced::Late,
                Err(_) => return Synced::Closed,
            };
            if p == row {
                return match read_packet(&mut sess.s) {
                    Ok(_) => Synced::Yes,
                    Err(e) if is_timeout(&e) => Synced::Late,
                    Err(_) => Synced::Closed,
                };
            }
            if first && prepared && p.len() == 12 && p[0] == 0 {
                let id = u32::from_le_bytes([p[1], p[2], p[3], p[4]]);
                let params = u16::from_le_bytes([p[7], p[8]]);
                if sess.stmts.len() == 16 {
                    sess.stmts.remove(0);
                }
                sess.stmts.push((id, params));
            }
            first = false;
            self.stats.responses += 1;
            match p.first() {
                Some(0x00) => self.stats.oks += 1,
                Some(0xff) => {
                    self.stats.errs += 1;
                    let code = u16::from_le_bytes([
                        p.get(1).copied().unwrap_or(0),
                        p.get(2).copied().unwrap_or(0),
                    ]);
                    *self.stats.err_codes.entry(code).or_default() += 1;
                }
                _ => {}
            }
            bytes += p.len();
            if bytes > MAX_STEP_BYTES || started.elapsed() > 4 * READ_TIMEOUT {
                return Synced::Late;
            }
        }
    }
}

enum Synced {
    Yes,
    Closed,
    Late,
}

fn bad_data(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// A packet header claiming `len` bytes (only the low 24 bits fit).
fn header(len: usize, seq: u8) -> Vec<u8> {
    let l = (len.min(0xff_ffff) as u32).to_le_bytes();
    vec![l[0], l[1], l[2], seq]
}

/// One packet (payloads here are far below 16 MiB: no splitting).
pub fn frame(seq: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = header(payload.len(), seq);
    out.extend_from_slice(payload);
    out
}

/// Reads one packet: (sequence id, payload).
pub fn read_packet(s: &mut TcpStream) -> io::Result<(u8, Vec<u8>)> {
    let mut h = [0u8; 4];
    s.read_exact(&mut h)?;
    let len = u32::from_le_bytes([h[0], h[1], h[2], 0]) as usize;
    let mut body = vec![0u8; len];
    s.read_exact(&mut body)?;
    Ok((h[3], body))
}

/// Reads packets until EOF, an error or `limit`; returns how many.
fn drain(s: &mut TcpStream, limit: Duration) -> u64 {
    let deadline = Instant::now() + limit;
    let mut n = 0;
    while Instant::now() < deadline {
        match read_packet(s) {
            Ok(_) => n += 1,
            Err(_) => break,
        }
    }
    n
}

/// The connection id in a HandshakeV10 greeting.
fn greeting_conn_id(g: &[u8]) -> Option<u32> {
    let end = 1 + g.get(1..)?.iter().position(|&b| b == 0)?;
    let id = g.get(end + 1..end + 5)?;
    Some(u32::from_le_bytes([id[0], id[1], id[2], id[3]]))
}
