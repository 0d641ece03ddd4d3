//! The live connections: what `SHOW PROCESSLIST` lists and `KILL` reaches.
//!
//! Each connection owns an `Arc<ConnState>` and updates it without touching the
//! registry's lock; the registry only adds and removes entries.

use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// What a connection is doing, for the process list.
pub struct ConnState {
    pub id: u64,
    pub host: String,
    pub info: Mutex<ConnInfo>,
    /// The session's interrupt flag: set by `KILL QUERY`, the running statement
    /// ends with errno 1317.
    interrupt: Mutex<Arc<AtomicBool>>,
    /// The handshake scramble, kept for COM_CHANGE_USER.
    pub scramble: Mutex<[u8; 20]>,
    /// Set by `KILL [CONNECTION]`: the connection closes after the statement.
    pub killed: AtomicBool,
    /// A handle on the socket, to wake a connection blocked reading when killed or
    /// at shutdown.
    pub socket: Option<TcpStream>,
}

pub struct ConnInfo {
    pub user: String,
    pub db: Option<String>,
    pub command: &'static str,
    pub state: &'static str,
    pub query: Option<String>,
    pub since: Instant,
}

impl ConnState {
    pub fn new(id: u64, host: String, socket: Option<TcpStream>) -> Arc<ConnState> {
        Arc::new(ConnState {
            id,
            host,
            info: Mutex::new(ConnInfo {
                user: String::new(),
                db: None,
                command: "Connect",
                state: "login",
                query: None,
                since: Instant::now(),
            }),
            interrupt: Mutex::new(Arc::new(AtomicBool::new(false))),
            scramble: Mutex::new([0; 20]),
            killed: AtomicBool::new(false),
            socket,
        })
    }

    pub fn set_command(&self, command: &'static str, query: Option<&str>) {
        let mut info = self.info.lock();
        info.command = command;
        info.state = if command == "Sleep" { "" } else { "executing" };
        info.query = query.map(|q| {
            if q.len() <= 1024 {
                q.to_string()
            } else {
                q.chars().take(1024).collect()
            }
        });
        info.since = Instant::now();
    }

    /// Uses the session's interrupt flag from now on.
    pub fn set_interrupt(&self, flag: Arc<AtomicBool>) {
        *self.interrupt.lock() = flag;
    }

    /// The session's interrupt flag (its transaction's too: storage reports row
    /// lock waits by it).
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.interrupt.lock().clone()
    }

    /// `KILL QUERY`: the running statement stops with errno 1317.
    pub fn interrupt_query(&self) {
        self.interrupt.lock().store(true, Ordering::SeqCst);
    }

    /// Clears a KILL QUERY that arrived after the statement it was meant for.
    pub fn clear_interrupt(&self) {
        self.interrupt.lock().store(false, Ordering::SeqCst);
    }

    /// Ends the connection: wakes it if it is blocked reading from the client.
    pub fn kill(&self) {
        self.killed.store(true, Ordering::SeqCst);
        self.interrupt_query();
        if let Some(s) = &self.socket {
            let _ = s.shutdown(std::net::Shutdown::Read);
        }
    }
}

#[derive(Default)]
pub struct Registry {
    next_id: AtomicU64,
    conns: Mutex<BTreeMap<u64, Arc<ConnState>>>,
}

impl Registry {
    pub fn new() -> Self {
        Registry {
            next_id: AtomicU64::new(1),
            conns: Mutex::new(BTreeMap::new()),
        }
    }

    pub fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    pub fn add(&self, state: Arc<ConnState>) {
        self.conns.lock().insert(state.id, state);
    }

    pub fn remove(&self, id: u64) {
        self.conns.lock().remove(&id);
    }

    pub fn get(&self, id: u64) -> Option<Arc<ConnState>> {
        self.conns.lock().get(&id).cloned()
    }

    pub fn all(&self) -> Vec<Arc<ConnState>> {
        self.conns.lock().values().cloned().collect()
    }

    pub fn count(&self) -> usize {
        self.conns.lock().len()
    }
}
