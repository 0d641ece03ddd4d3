//! Shared by the isolation tests: sessions that run statements on their own thread,
//! so a test can see one block on a lock while others go on, and scripts of steps
//! over several sessions whose traces can be compared between Basalt and MariaDB.
//!
//! A step that does not answer is recognised as blocked when the server says the
//! session waits for a row lock (Basalt: the process list state; MariaDB:
//! `information_schema.INNODB_TRX`), not by a guess at a time limit.

#![allow(dead_code, reason = "each test file uses a different part")]

use mysql::prelude::*;
use mysql::{Conn, Opts, Value};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// Result rows as text (`NULL` for NULL), or the error number.
pub type Res = Result<Vec<Vec<String>>, u16>;

/// Which server a session talks to (decides how lock waits are observed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    Basalt,
    MariaDb,
}

pub fn connect(url: &str) -> Conn {
    let mut last = None;
    for _ in 0..50 {
        match Conn::new(Opts::from_url(url).expect("url")) {
            Ok(c) => return c,
            Err(e) => last = Some(e),
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("connect {url}: {last:?}");
}

pub fn text(v: &Value) -> String {
    match v {
        Value::NULL => "NULL".into(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Double(d) => d.to_string(),
        other => format!("{other:?}"),
    }
}

pub fn run(conn: &mut Conn, sql: &str) -> Res {
    match conn.query_iter(sql) {
        Ok(mut result) => {
            let mut rows = Vec::new();
            while let Some(set) = result.iter() {
                for row in set {
                    let row = row.map_err(errno)?;
                    rows.push(row.unwrap().iter().map(text).collect());
                }
            }
            Ok(rows)
        }
        Err(e) => Err(errno(e)),
    }
}

/// The server's errno; 2013 (CR_SERVER_LOST) when the connection went away.
fn errno(e: mysql::Error) -> u16 {
    match e {
        mysql::Error::MySqlError(e) => e.code,
        _ => 2013,
    }
}

/// A connection on its own thread.
pub struct Session {
    pub id: u64,
    tx: Sender<String>,
    rx: Receiver<Res>,
    pending: Option<String>,
    monitor: Conn,
    flavor: Flavor,
}

/// How long a statement may take before the test gives up on it.
const PATIENCE: Duration = Duration::from_secs(60);

impl Session {
    pub fn open(url: &str, flavor: Flavor) -> Session {
        let mut conn = connect(url);
        let id: u64 = conn
            .query_first("SELECT CONNECTION_ID()")
            .expect("connection id")
            .expect("row");
        let (tx, cmd_rx) = channel::<String>();
        let (res_tx, rx) = channel::<Res>();
        std::thread::spawn(move || {
            for sql in cmd_rx {
                if res_tx.send(run(&mut conn, &sql)).is_err() {
                    break;
                }
            }
        });
        Session {
            id,
            tx,
            rx,
            pending: None,
            monitor: connect(url),
            flavor,
        }
    }

    /// Sends a statement without waiting for it.
    pub fn send(&mut self, sql: &str) {
        assert!(self.pending.is_none(), "session {} is busy", self.id);
        self.tx.send(sql.to_string()).expect("session thread");
        self.pending = Some(sql.to_string());
    }

    /// Waits for the statement sent last.
    pub fn wait(&mut self) -> Res {
        let sql = self.pending.take().expect("a statement was sent");
        self.rx
            .recv_timeout(PATIENCE)
            .unwrap_or_else(|_| panic!("no answer to {sql}"))
    }

    /// Runs a statement to completion.
    pub fn run(&mut self, sql: &str) -> Res {
        self.send(sql);
        self.wait()
    }

    /// Runs a statement that must succeed; returns its rows.
    pub fn q(&mut self, sql: &str) -> Vec<Vec<String>> {
        self.run(sql).unwrap_or_else(|e| panic!("{sql}: error {e}"))
    }

    /// The single value of a query.
    pub fn val(&mut self, sql: &str) -> String {
        let rows = self.q(sql);
        assert_eq!(rows.len(), 1, "{sql}: {rows:?}");
        rows[0][0].clone()
    }

    /// Runs a statement that must fail; returns the errno.
    pub fn err(&mut self, sql: &str) -> u16 {
        match self.run(sql) {
            Ok(rows) => panic!("{sql}: expected an error, got {rows:?}"),
            Err(e) => e,
        }
    }

    /// Sends a statement and returns once the server reports it waiting for a row
    /// lock; panics if it answers instead.
    pub fn send_blocked(&mut self, sql: &str) {
        self.send(sql);
        match self.poll_until_waiting() {
            None => {}
            Some(r) => panic!("{sql}: expected to wait for a lock, got {r:?}"),
        }
    }

    /// Waits for the pending statement to answer or to be seen waiting for a row
    /// lock; `Some(result)` if it answered.
    pub fn poll_until_waiting(&mut self) -> Option<Res> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            match self.rx.recv_timeout(Duration::from_millis(20)) {
                Ok(r) => {
                    self.pending = None;
                    return Some(r);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => panic!("session thread ended"),
            }
            if self.lock_waiting() {
                return None;
            }
            assert!(
                Instant::now() < deadline,
                "statement neither answered nor waited"
            );
        }
    }

    /// True while the server reports this session waiting for a row lock.
    pub fn lock_waiting(&mut self) -> bool {
        let sql = match self.flavor {
            Flavor::Basalt => format!(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST \
                 WHERE ID = {} AND STATE = 'Waiting for row lock'",
                self.id
            ),
            Flavor::MariaDb => format!(
                "SELECT COUNT(*) FROM information_schema.INNODB_TRX \
                 WHERE trx_mysql_thread_id = {} AND trx_state = 'LOCK WAIT'",
                self.id
            ),
        };
        let n: u64 = self
            .monitor
            .query_first(sql)
            .expect("lock wait query")
            .expect("row");
        n > 0
    }

    pub fn is_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// The answer of the pending statement if it came within `within`.
    pub fn try_wait(&mut self, within: Duration) -> Option<Res> {
        self.pending.as_ref()?;
        match self.rx.recv_timeout(within) {
            Ok(r) => {
                self.pending = None;
                Some(r)
            }
            Err(_) => None,
        }
    }
}

/// One step of a script: session index and statement.
pub type Step = (usize, &'static str);

/// Runs `steps` over `sessions` fresh sessions and returns a trace: each step's
/// answer (or `blocked`), and each blocked step's answer when it comes (in the order
/// they come). Statements of a session that is still blocked are not allowed.
pub fn trace(
    url: &str,
    flavor: Flavor,
    sessions: usize,
    setup: &[&str],
    steps: &[Step],
) -> Vec<String> {
    let mut admin = connect(url);
    for sql in setup {
        run(&mut admin, sql).unwrap_or_else(|e| panic!("setup {sql}: {e}"));
    }
    let db_url = basalt_tests::url_with_db(url, "test");
    let mut ss: Vec<Session> = (0..sessions)
        .map(|_| Session::open(&db_url, flavor))
        .collect();
    let mut out = Vec::new();
    for &(i, sql) in steps {
        ss[i].send(sql);
        match ss[i].poll_until_waiting() {
            Some(r) => out.push(format!("s{i} {sql} -> {}", show(&r))),
            None => out.push(format!("s{i} {sql} -> blocked")),
        }
        collect_unblocked(&mut ss, &mut out);
    }
    for (i, s) in ss.iter_mut().enumerate() {
        if s.is_pending() {
            let r = s.wait();
            out.push(format!("s{i} later -> {}", show(&r)));
        }
    }
    out
}

/// Records answers of earlier blocked statements that came in meanwhile.
fn collect_unblocked(ss: &mut [Session], out: &mut Vec<String>) {
    for (i, s) in ss.iter_mut().enumerate() {
        if !s.is_pending() {
            continue;
        }
        // Give a woken statement time to answer; one seen waiting twice in a row,
        // 100 ms apart, stays blocked.
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut seen_waiting = 0;
        loop {
            if let Some(r) = s.try_wait(Duration::from_millis(100)) {
                out.push(format!("s{i} unblocked -> {}", show(&r)));
                break;
            }
            seen_waiting = if s.lock_waiting() {
                seen_waiting + 1
            } else {
                0
            };
            if seen_waiting >= 2 || Instant::now() > deadline {
                break;
            }
        }
    }
}

pub fn show(r: &Res) -> String {
    match r {
        Ok(rows) => format!("{rows:?}"),
        Err(e) => format!("error {e}"),
    }
}
