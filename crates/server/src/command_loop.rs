//! A logged-in connection: the command loop, and everything it keeps between
//! commands ([`Live`]), so that an idle connection can leave its thread.
//!
//! The loop reads a command, runs it and writes the response, on whichever thread
//! serves the connection. When the client sends nothing for
//! `basalt_idle_connection_park_ms`, the read times out (the socket's receive
//! timeout, set once per connection: no syscall is added to a busy connection's
//! command) and the connection is handed to [`crate::park::Parker`], which waits
//! for its next command with one `epoll` set for all idle connections. The thread
//! goes back to the thread cache; an idle connection then costs its session and
//! nothing else (no thread, no stack, no I/O buffers). With the thread pool a
//! connection is parked after every command that leaves no further input read
//! ahead, so its next command queues for the pool.

use crate::blocking::{self, is_timeout};
use crate::connection::{dispatch, expects_no_reply, is_disconnect, send_fatal, Conn};
use crate::registry::ConnState;
use crate::statements::Statements;
use crate::Server;
use basalt_common::MySqlError;
use basalt_protocol::{parse_command, ProtoError};
use basalt_sql::stats::Stat;
use basalt_sql::Session;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// The shortest receive timeout used to notice an idle client.
const MIN_PARK_DELAY: Duration = Duration::from_millis(1);

/// When a connection leaves its thread to wait for its next command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Parking {
    /// Never: it keeps its thread until it ends.
    Never,
    /// Once its client has been silent this long.
    After(Duration),
    /// After every command (the thread pool).
    AfterEachCommand,
}

/// A logged-in connection between two commands.
pub(crate) struct Live {
    pub conn: Conn,
    pub session: Session,
    pub state: Arc<ConnState>,
    /// The last command's payload (its allocation is reused).
    buf: Vec<u8>,
    stmts: Statements,
    write_timeout: Option<Duration>,
    reads: ReadTimeouts,
    /// Whether the socket is in the parker's epoll set (re-armed, not re-added).
    pub registered: bool,
    /// Woken by its socket: the next command is there to read.
    ready: bool,
}

/// Why [`command_loop`] returned.
pub(crate) enum Ended {
    /// The connection is over (quit, killed, broken, or idle past `wait_timeout`).
    Closed,
    /// Idle for the park delay: park it; `wait_timeout` ends it after `remaining`.
    Idle { remaining: Option<Duration> },
}

impl Live {
    pub fn new(conn: Conn, session: Session, state: Arc<ConnState>, parking: Parking) -> Live {
        let park_after = match parking {
            Parking::After(d) => Some(d.max(MIN_PARK_DELAY)),
            Parking::Never | Parking::AfterEachCommand => None,
        };
        Live {
            conn,
            session,
            state,
            buf: Vec::with_capacity(256),
            stmts: Statements::default(),
            write_timeout: None,
            reads: ReadTimeouts {
                park_after,
                each_command: parking == Parking::AfterEachCommand,
                applied: None,
            },
            registered: false,
            ready: false,
        }
    }

    pub fn id(&self) -> u64 {
        self.state.id
    }

    /// Frees what an idle connection does not need (I/O buffers, a grown command
    /// buffer).
    pub fn shrink_for_idle(&mut self) {
        self.conn.release_buffers();
        if self.buf.capacity() > 256 {
            self.buf = Vec::new();
        }
    }

    /// Stops parking this connection (when the parker cannot take it).
    pub fn never_park(&mut self) {
        self.reads.park_after = None;
        self.reads.each_command = false;
        self.reads.applied = None;
    }
}

/// Serves a connection on this thread until it ends or goes idle; an idle one is
/// handed to the parker, and this returns.
pub(crate) fn run(server: &Arc<Server>, mut live: Box<Live>) {
    loop {
        match command_loop(server, &mut live) {
            Ended::Closed => return finish(server, live),
            Ended::Idle { remaining } => match server.parker.park(live, remaining) {
                Ok(()) => return,
                Err(back) => {
                    live = back;
                    live.never_park();
                }
            },
        }
    }
}

/// Continues a parked connection on this thread: its client sent something (or
/// closed), or it stayed idle past `wait_timeout`.
pub(crate) fn resume(server: &Arc<Server>, mut live: Box<Live>, expired: bool) {
    if expired {
        if !live.state.killed.load(Ordering::SeqCst) {
            server.stats.aborted_clients.fetch_add(1, Ordering::Relaxed);
        }
        return finish(server, live);
    }
    live.conn.restore_buffers();
    live.ready = true;
    run(server, live)
}

/// Ends the session (rolling back what it left open) and forgets the connection.
fn finish(server: &Arc<Server>, mut live: Box<Live>) {
    live.session.close();
    let id = live.id();
    drop(live);
    server.replicas.unregister(id);
    server.registry.remove(id);
}

/// Serves commands until the connection ends or goes idle.
pub(crate) fn command_loop(server: &Arc<Server>, live: &mut Live) -> Ended {
    let Live {
        conn,
        session,
        state,
        buf,
        stmts,
        write_timeout,
        reads,
        ready,
        ..
    } = live;
    loop {
        let wait_secs = session.idle_timeout();
        reads.apply(state, conn, wait_secs);
        if reads.each_command
            && !std::mem::take(ready)
            && !conn.has_buffered_input()
            && !conn.get_mut().0.tls_input_pending()
        {
            let remaining = (wait_secs > 0).then(|| Duration::from_secs(wait_secs));
            return Ended::Idle { remaining };
        }
        if !conn.has_buffered_input() {
            conn.get_mut().1.at_command_start = true;
        }
        if let Err(e) = blocking::run(conn.read_command(buf)) {
            if let Some(remaining) = reads.idle(&e, conn) {
                return Ended::Idle { remaining };
            }
            if e.client_error().is_some() && !is_disconnect(&e) {
                send_fatal(conn, &e);
            }
            if !state.killed.load(Ordering::SeqCst) {
                server.stats.aborted_clients.fetch_add(1, Ordering::Relaxed);
            }
            return Ended::Closed;
        }
        session
            .stats()
            .add(Stat::BytesReceived, buf.len() as u64 + 4);
        state.clear_interrupt();
        apply_write_timeout(conn, session, write_timeout);
        let keep_going = match parse_command(buf, conn.capabilities()) {
            Ok(cmd) => dispatch(server, conn, state, session, stmts, cmd),
            Err(e) if expects_no_reply(buf) => !e.is_fatal(),
            Err(e) => {
                match e.client_error() {
                    Some(err) => conn.write_err(&err),
                    None => conn.write_err(&MySqlError::unknown_command()),
                }
                !e.is_fatal()
            }
        };
        state.set_command("Sleep", None);
        session
            .stats()
            .add(Stat::BytesSent, conn.pending_output() as u64);
        if blocking::run(conn.flush()).is_err()
            || !keep_going
            || state.killed.load(Ordering::SeqCst)
        {
            return Ended::Closed;
        }
    }
}

/// Keeps the socket's send timeout at the session's `net_write_timeout` (one
/// syscall when it changes).
fn apply_write_timeout(conn: &Conn, session: &Session, current: &mut Option<Duration>) {
    let t = session.net_write_timeout();
    if *current != Some(t) {
        if let Err(e) = conn.get_ref().0.set_write_timeout(Some(t)) {
            tracing::warn!("cannot set the socket send timeout: {e}");
        }
        *current = Some(t);
    }
}

/// The socket's receive timeout between commands: the park delay when it is
/// shorter than `wait_timeout`, else `wait_timeout` itself (a client idle longer
/// than that is disconnected, as MariaDB closes it). Inside a packet a read waits
/// up to `wait_timeout` in all (see [`crate::blocking::Patience`]).
struct ReadTimeouts {
    park_after: Option<Duration>,
    /// Parked after every command, without waiting (the thread pool).
    each_command: bool,
    /// The `wait_timeout` (seconds) the socket was last set up for.
    applied: Option<u64>,
}

impl ReadTimeouts {
    fn apply(&mut self, state: &ConnState, conn: &mut Conn, wait_secs: u64) {
        if self.applied == Some(wait_secs) {
            return;
        }
        self.applied = Some(wait_secs);
        let wait = (wait_secs > 0).then(|| Duration::from_secs(wait_secs));
        let tick = match (self.park_after, wait) {
            (Some(p), Some(w)) => Some(p.min(w)),
            (p, w) => p.or(w),
        };
        let patience = &mut conn.get_mut().1;
        patience.tick = tick.unwrap_or_default();
        patience.limit = wait.unwrap_or(Duration::MAX);
        if let Some(s) = state.socket.as_ref() {
            if let Err(e) = s.set_read_timeout(tick) {
                tracing::warn!("connection {}: cannot set wait_timeout: {e}", state.id);
            }
        }
    }

    /// For a read error at the start of a command: `Some(time left before
    /// wait_timeout)` when it is the park delay running out; `None` when the
    /// connection must close.
    fn idle(&self, e: &ProtoError, conn: &Conn) -> Option<Option<Duration>> {
        let ProtoError::Io(io) = e else { return None };
        let patience = &conn.get_ref().1;
        if !is_timeout(io) || !patience.at_command_start || self.park_after.is_none() {
            return None;
        }
        if patience.limit == Duration::MAX {
            return Some(None);
        }
        let left = patience.limit.saturating_sub(patience.tick);
        (!left.is_zero()).then_some(Some(left))
    }
}
