//! The listeners (TCP and the Unix socket), their accept loops and the connection
//! thread cache.
//!
//! The accept loop does nothing but `accept()` and hand the socket over: no
//! syscalls on the socket, no allocation beyond the queue entry, no session set-up
//! (the seeds show MySQL's single accept thread doing all of that and becoming the
//! bottleneck of connection storms). Idle connection threads are kept for reuse, so a
//! new connection usually costs a condition-variable wake-up, not a thread spawn.

use crate::command_loop::{self, Live};
use crate::config::Config;
use crate::stream::Stream;
use crate::{connection, Server, ServerError};
use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::net::TcpListener;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
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

/// Where the server listens: a TCP socket (none with `--skip-networking`) and a
/// Unix socket (none when the default path cannot be created).
pub struct Listeners {
    pub tcp: Option<TcpListener>,
    pub unix: Option<UnixSocket>,
}

/// The listening Unix socket; its file is removed when this is dropped (the clean
/// stop), unless another file has taken its path meanwhile.
pub struct UnixSocket {
    pub listener: UnixListener,
    pub path: PathBuf,
    inode: (u64, u64),
}

impl Drop for UnixSocket {
    fn drop(&mut self) {
        if file_id(&self.path).ok() == Some(self.inode) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

fn file_id(path: &Path) -> std::io::Result<(u64, u64)> {
    let m = std::fs::symlink_metadata(path)?;
    Ok((m.dev(), m.ino()))
}

/// Opens the listeners the configuration asks for.
pub fn bind(c: &Config) -> Result<Listeners, ServerError> {
    let tcp = if c.skip_networking {
        None
    } else {
        Some(bind_tcp(&c.bind_address, c.port)?)
    };
    let unix = match bind_unix(&c.socket) {
        Ok(u) => Some(u),
        Err(e @ ServerError::SocketInUse { .. }) => return Err(e),
        Err(e) if c.socket_required || tcp.is_none() => return Err(e),
        Err(e) => {
            tracing::warn!("{e}; serving TCP only");
            None
        }
    };
    Ok(Listeners { tcp, unix })
}

/// `--bind-address` as mysqld takes it: an IPv4 or IPv6 address (`::` listens on
/// every address of both families where the system allows dual-stack sockets),
/// `*` as `::` (`0.0.0.0` where IPv6 is unavailable), or a host name.
fn bind_tcp(address: &str, port: u16) -> Result<TcpListener, ServerError> {
    let listen = |host: &str| {
        let display = match host.parse::<std::net::IpAddr>() {
            Ok(std::net::IpAddr::V6(_)) => format!("[{host}]:{port}"),
            _ => format!("{host}:{port}"),
        };
        TcpListener::bind((host, port)).map_err(|source| ServerError::Listen {
            addr: display,
            source,
        })
    };
    if address == "*" {
        return listen("::").or_else(|_| listen("0.0.0.0"));
    }
    listen(address)
}

/// Listens on the Unix socket at `path`: creates its directory if missing, refuses
/// a path a live server answers on, and replaces a stale socket file (left by a
/// server that was killed). Anything else at the path is left alone (an error).
fn bind_unix(path: &Path) -> Result<UnixSocket, ServerError> {
    let err = |source: std::io::Error| ServerError::Socket {
        path: path.display().to_string(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_socket() => {
            if UnixStream::connect(path).is_ok() {
                return Err(ServerError::SocketInUse {
                    path: path.display().to_string(),
                });
            }
            tracing::info!("removing the stale socket file {}", path.display());
            std::fs::remove_file(path).map_err(err)?;
        }
        Ok(_) => {
            return Err(err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "a file that is not a socket is in the way",
            )))
        }
        Err(_) => {}
    }
    let listener = UnixListener::bind(path).map_err(err)?;
    // Any local user may connect, as with mysqld's socket; accounts decide the rest.
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o777)).map_err(err)?;
    let inode = file_id(path).map_err(err)?;
    Ok(UnixSocket {
        listener,
        path: path.to_path_buf(),
        inode,
    })
}

/// Wakes the accept loops from another thread (shutdown).
pub struct StopHandle {
    fds: Vec<i32>,
}

impl StopHandle {
    pub fn new(listeners: &Listeners) -> StopHandle {
        let mut fds = Vec::new();
        fds.extend(listeners.tcp.as_ref().map(|l| l.as_raw_fd()));
        fds.extend(listeners.unix.as_ref().map(|u| u.listener.as_raw_fd()));
        StopHandle { fds }
    }

    /// Makes the blocked `accept()` calls return.
    pub fn stop(&self) {
        for &fd in &self.fds {
            // SAFETY: shutdown(2) on a listening socket's fd, which outlives this
            // call (the listeners are dropped only after the accept loops return).
            unsafe {
                libc::shutdown(fd, libc::SHUT_RDWR);
            }
        }
    }
}

/// Accepts on every listener (the Unix socket on a thread of its own) until the
/// server stops; connections of both go to one thread cache.
pub fn accept_loops(server: &Arc<Server>, listeners: &Listeners) {
    let cache = Arc::new(ThreadCache::new(server.clone()));
    let resumer = cache.clone();
    let parking = server.parker.start(Box::new(move |live, expired| {
        resumer.dispatch(Work::Resumed(live, expired))
    }));
    if let Err(e) = parking {
        tracing::error!(error = %e, "cannot start the idle connections' thread; idle connections keep their threads");
    }
    std::thread::scope(|scope| {
        if let Some(u) = &listeners.unix {
            let cache = &cache;
            let spawned = std::thread::Builder::new()
                .name("basalt-accept-unix".into())
                .spawn_scoped(scope, move || {
                    accept_loop(
                        server,
                        || u.listener.accept().map(|(s, _)| Stream::Unix(Arc::new(s))),
                        cache,
                    )
                });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "cannot start the Unix socket's accept thread");
            }
        }
        if let Some(t) = &listeners.tcp {
            accept_loop(
                server,
                || t.accept().map(|(s, _)| Stream::Tcp(Arc::new(s))),
                &cache,
            );
        }
    });
    cache.close();
}

fn accept_loop(
    server: &Arc<Server>,
    mut accept: impl FnMut() -> std::io::Result<Stream>,
    cache: &ThreadCache,
) {
    loop {
        match accept() {
            Ok(stream) => {
                if server.shutting_down.load(Ordering::SeqCst) {
                    break;
                }
                cache.dispatch(Work::Accepted(stream));
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
}

/// What a connection thread is given.
pub(crate) enum Work {
    /// A new connection: handshake, then commands.
    Accepted(Stream),
    /// A parked connection woken by its client (`false`) or by `wait_timeout`.
    Resumed(Box<Live>, bool),
}

struct Queue {
    streams: VecDeque<Work>,
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

    fn dispatch(&self, work: Work) {
        let (lock, cond) = &*self.queue;
        let mut q = lock.lock();
        q.streams.push_back(work);
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
            Some(Work::Accepted(s)) => connection::serve(&server, s),
            Some(Work::Resumed(live, expired)) => command_loop::resume(&server, live, expired),
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Args;

    fn config(socket: &Path, required: bool, skip_networking: bool) -> Config {
        let mut c = Config::resolve(Args {
            port: Some(0),
            socket: Some(socket.to_path_buf()),
            skip_networking,
            ..Default::default()
        })
        .expect("resolve");
        c.socket_required = required;
        c
    }

    #[test]
    fn an_unusable_default_socket_leaves_tcp_only_and_a_named_one_stops_the_start() {
        // /proc refuses new directories, as /run/mysqld does to a non-root user.
        let bad = Path::new("/proc/basalt-no-such-dir/mysqld.sock");
        let l = bind(&config(bad, false, false)).expect("TCP only");
        assert!(l.tcp.is_some() && l.unix.is_none());
        assert!(matches!(
            bind(&config(bad, true, false)),
            Err(ServerError::Socket { .. })
        ));
        assert!(
            bind(&config(bad, false, true)).is_err(),
            "nothing to listen on"
        );
    }

    #[test]
    fn a_live_socket_is_refused_and_a_stale_one_replaced() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("sub").join("s.sock");
        let first = bind(&config(&path, true, true)).expect("bind");
        assert!(matches!(
            bind(&config(&path, false, false)),
            Err(ServerError::SocketInUse { .. })
        ));
        drop(first);
        assert!(!path.exists(), "removed at the clean stop");
        // A killed server leaves its file: the listener is gone, the file stays.
        drop(UnixListener::bind(&path).expect("bind"));
        assert!(path.exists());
        let second = bind(&config(&path, true, true)).expect("stale socket replaced");
        assert!(path.exists());
        drop(second);
        assert!(!path.exists(), "removed at the clean stop");
    }
}
