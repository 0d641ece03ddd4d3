//! The accept loop and the connection thread cache.
//!
//! The accept loop does nothing but `accept()` and hand the socket over: no
//! syscalls on the socket, no allocation beyond the queue entry, no session set-up
//! (the seeds show MySQL's single accept thread doing all of that and becoming the
//! bottleneck of connection storms). Idle connection threads are kept for reuse, so a
//! new connection usually costs a condition-variable wake-up, not a thread spawn.

use crate::{connection, Server, ServerError};
use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// Idle threads kept at most; beyond this, threads exit after their connection.
const MAX_IDLE_THREADS: usize = 64;
/// Stack of a connection thread (address space; pages are committed as touched).
/// Statements up to about 100 KiB run on it whatever their nesting; longer ones,
/// and recursion past it, continue on stack segments of their own (`basalt_sql`'s
/// recursion guards), which are freed after the statement.
const CONNECTION_STACK: usize = 8 << 20;
/// An idle cached thread exits after this long without work.
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

pub fn bind(server: &Server) -> Result<TcpListener, ServerError> {
    let addr = format!("{}:{}", server.config.bind_address, server.config.port);
    TcpListener::bind(&addr).map_err(|source| ServerError::Listen { addr, source })
}

/// Wakes the accept loop from another thread (shutdown).
pub struct StopHandle {
    fd: i32,
}

impl StopHandle {
    pub fn new(listener: &TcpListener) -> std::io::Result<StopHandle> {
        Ok(StopHandle {
            fd: listener.as_raw_fd(),
        })
    }

    /// Makes the blocked `accept()` return.
    pub fn stop(&self) {
        // SAFETY: shutdown(2) on the listening socket's fd, which outlives this call
        // (the listener is dropped only after the accept loop has returned).
        unsafe {
            libc::shutdown(self.fd, libc::SHUT_RDWR);
        }
    }
}

pub fn accept_loop(server: &Arc<Server>, listener: TcpListener) {
    let cache = ThreadCache::new(server.clone());
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                if server.shutting_down.load(Ordering::SeqCst) {
                    break;
                }
                cache.dispatch(stream);
            }
            Err(e) => {
                if server.shutting_down.load(Ordering::SeqCst) {
                    break;
                }
                // EMFILE and friends: back off instead of spinning.
                tracing::warn!(error = %e, "accept failed");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
    cache.close();
}

struct Queue {
    streams: VecDeque<TcpStream>,
    idle: usize,
    closed: bool,
}

/// Connection threads waiting for work.
pub struct ThreadCache {
    server: Arc<Server>,
    queue: Arc<(Mutex<Queue>, Condvar)>,
}

impl ThreadCache {
    fn new(server: Arc<Server>) -> Self {
        ThreadCache {
            server,
            queue: Arc::new((
                Mutex::new(Queue {
                    streams: VecDeque::new(),
                    idle: 0,
                    closed: false,
                }),
                Condvar::new(),
            )),
        }
    }

    fn dispatch(&self, stream: TcpStream) {
        let (lock, cond) = &*self.queue;
        let mut q = lock.lock();
        q.streams.push_back(stream);
        if q.idle > q.streams.len() - 1 {
            cond.notify_one();
            return;
        }
        drop(q);
        let server = self.server.clone();
        let queue = self.queue.clone();
        let spawned = std::thread::Builder::new()
            .name("basalt-conn".into())
            .stack_size(CONNECTION_STACK)
            .spawn(move || worker(server, queue));
        if let Err(e) = spawned {
            tracing::error!(error = %e, "cannot start a connection thread");
        }
    }

    fn close(&self) {
        let (lock, cond) = &*self.queue;
        lock.lock().closed = true;
        cond.notify_all();
    }
}

fn worker(server: Arc<Server>, queue: Arc<(Mutex<Queue>, Condvar)>) {
    let (lock, cond) = &*queue;
    loop {
        let stream = {
            let mut q = lock.lock();
            loop {
                if let Some(s) = q.streams.pop_front() {
                    break Some(s);
                }
                if q.closed || q.idle >= MAX_IDLE_THREADS {
                    break None;
                }
                q.idle += 1;
                let timed_out = cond.wait_for(&mut q, IDLE_TIMEOUT).timed_out();
                q.idle -= 1;
                if timed_out && q.streams.is_empty() {
                    break None;
                }
            }
        };
        match stream {
            Some(s) => connection::serve(&server, s),
            None => return,
        }
    }
}
