//! The live connections: what `SHOW PROCESSLIST` lists and `KILL` reaches, and the
//! admission rules that keep sockets which never log in from locking users out.
//!
//! Each connection owns an `Arc<ConnState>` and updates it without touching the
//! registry's lock; the registry only adds and removes entries.
//!
//! # Admission
//!
//! A connection is *pending* from accept until its login succeeds, then *logged in*.
//! Only logged-in connections count against `max_connections` (see
//! [`Registry::try_login`]): a socket that connects and sends nothing cannot take a
//! slot a user needs. Pending connections are bounded on their own: each waits at
//! most `connect_timeout` for every read and write of the handshake, and when more
//! than [`Registry::pending_limit`] are pending at once the oldest is closed
//! ([`Registry::admit`]), so a flood of idle sockets costs at most that many threads
//! and a real client's handshake, which takes a round trip or two, still completes.
//!
//! Invariants (kept under the registry's lock): `logged_in` (`extra_logged_in`)
//! equals the number of registered states of the main listeners (of the extra
//! port) whose `authenticated` flag is set; `pending` equals the number
//! of registered states neither authenticated nor `evicted`. An evicted state stays
//! registered until its thread notices the closed socket and removes it, but it no
//! longer counts, is never picked again, and can no longer log in.

use crate::stream::Stream;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
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
    pub socket: Option<Stream>,
    /// Logged in (counted against `max_connections`); clear while pending.
    authenticated: AtomicBool,
    /// Closed by [`Registry::admit`] to make room for newer handshakes.
    evicted: AtomicBool,
    /// Came in on the extra port: counted against `extra_max_connections`.
    pub extra: bool,
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
    pub fn new(id: u64, host: String, socket: Option<Stream>, extra: bool) -> Arc<ConnState> {
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
            authenticated: AtomicBool::new(false),
            evicted: AtomicBool::new(false),
            extra,
        })
    }

    pub fn is_authenticated(&self) -> bool {
        self.authenticated.load(Ordering::SeqCst)
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

    /// Shuts the socket both ways: a handshake blocked reading or writing fails at
    /// once.
    fn close_socket(&self) {
        if let Some(s) = &self.socket {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }

    /// Ends the connection after its statement: wakes it if it is blocked reading
    /// from the client (server shutdown, which lets a statement's last response
    /// still go out).
    pub fn kill(&self) {
        self.killed.store(true, Ordering::SeqCst);
        self.interrupt_query();
        if let Some(s) = &self.socket {
            let _ = s.shutdown(std::net::Shutdown::Read);
        }
    }

    /// `KILL [CONNECTION]`: ends the connection now, also when it is blocked
    /// writing a result the client does not take (the socket is shut down both
    /// ways, as MariaDB closes a killed connection's socket).
    pub fn kill_now(&self) {
        self.kill();
        self.close_socket();
    }
}

#[derive(Default)]
pub struct Registry {
    next_id: AtomicU64,
    conns: Mutex<BTreeMap<u64, Arc<ConnState>>>,
    /// Registered connections that have logged in (on the extra port: the
    /// second counter).
    logged_in: AtomicUsize,
    extra_logged_in: AtomicUsize,
    /// Registered connections still in the handshake.
    pending: AtomicUsize,
}

/// Why [`Registry::try_login`] refused a connection.
#[derive(Debug, PartialEq, Eq)]
pub struct TooManyConnections;

impl Registry {
    pub fn new() -> Self {
        Registry {
            next_id: AtomicU64::new(1),
            conns: Mutex::new(BTreeMap::new()),
            logged_in: AtomicUsize::new(0),
            extra_logged_in: AtomicUsize::new(0),
            pending: AtomicUsize::new(0),
        }
    }

    /// How many connections may be in the handshake at once: as many as may be
    /// logged in, and never fewer than 64 (a small `max_connections` must not make
    /// a burst of real clients evict each other).
    pub fn pending_limit(max_connections: usize) -> usize {
        max_connections.max(64)
    }

    /// Registers a new, pending connection. When that makes more than `limit`
    /// pending, the oldest other pending connection of the same listener (main or
    /// extra port) is closed (its thread sees the socket shut and ends the
    /// handshake).
    pub fn admit(&self, state: Arc<ConnState>, limit: usize) {
        let victim = {
            let mut conns = self.conns.lock();
            conns.insert(state.id, state.clone());
            let pending = self.pending.fetch_add(1, Ordering::SeqCst) + 1;
            let victim = (pending > limit)
                .then(|| {
                    conns.values().find(|c| {
                        c.id != state.id
                            && c.extra == state.extra
                            && !c.is_authenticated()
                            && !c.evicted.load(Ordering::SeqCst)
                    })
                })
                .flatten()
                .cloned();
            if let Some(v) = &victim {
                v.evicted.store(true, Ordering::SeqCst);
                self.pending.fetch_sub(1, Ordering::SeqCst);
            }
            victim
        };
        if let Some(v) = victim {
            tracing::debug!(
                id = v.id,
                "closing the oldest connection still in its handshake"
            );
            v.close_socket();
        }
    }

    /// Moves a pending connection to logged in, unless that would make more than
    /// `limit` logged in or the connection was evicted meanwhile. Under the
    /// registry's lock, so [`Registry::admit`] never picks a connection that is
    /// logging in at that moment.
    pub fn try_login(&self, state: &ConnState, limit: usize) -> Result<usize, TooManyConnections> {
        let _conns = self.conns.lock();
        let counter = self.counter(state);
        let now = counter.load(Ordering::SeqCst);
        if now >= limit || state.evicted.load(Ordering::SeqCst) {
            return Err(TooManyConnections);
        }
        counter.store(now + 1, Ordering::SeqCst);
        self.pending.fetch_sub(1, Ordering::SeqCst);
        state.authenticated.store(true, Ordering::SeqCst);
        Ok(now + 1)
    }

    fn counter(&self, state: &ConnState) -> &AtomicUsize {
        if state.extra {
            &self.extra_logged_in
        } else {
            &self.logged_in
        }
    }

    /// Connections logged in now (not counting the extra port's).
    pub fn logged_in(&self) -> usize {
        self.logged_in.load(Ordering::SeqCst)
    }

    pub fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    pub fn remove(&self, id: u64) {
        let mut conns = self.conns.lock();
        let Some(state) = conns.remove(&id) else {
            return;
        };
        if state.is_authenticated() {
            self.counter(&state).fetch_sub(1, Ordering::SeqCst);
        } else if !state.evicted.load(Ordering::SeqCst) {
            self.pending.fetch_sub(1, Ordering::SeqCst);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(r: &Registry) -> usize {
        r.pending.load(Ordering::SeqCst)
    }

    #[test]
    fn pending_handshakes_are_bounded_and_only_logins_count() {
        let r = Registry::new();
        let states: Vec<_> = (0..5)
            .map(|_| ConnState::new(r.next_id(), "h".into(), None, false))
            .collect();
        for s in &states {
            r.admit(s.clone(), 3);
        }
        let evicted: Vec<bool> = states
            .iter()
            .map(|s| s.evicted.load(Ordering::SeqCst))
            .collect();
        assert_eq!(
            evicted,
            vec![true, true, false, false, false],
            "oldest first"
        );
        assert_eq!(pending(&r), 3);
        assert_eq!(
            r.count(),
            5,
            "evicted ones stay listed until their thread ends"
        );
        assert!(
            r.try_login(&states[0], 10).is_err(),
            "an evicted one cannot log in"
        );
        assert_eq!(r.try_login(&states[2], 1), Ok(1));
        assert!(r.try_login(&states[3], 1).is_err(), "over the login limit");
        assert_eq!((r.logged_in(), pending(&r)), (1, 2));
        for s in &states {
            r.remove(s.id);
        }
        assert_eq!((r.logged_in(), pending(&r), r.count()), (0, 0, 0));
    }
}
