//! The listeners (TCP, the Unix socket, and the extra port), and their accept
//! loops.
//!
//! The accept loop does nothing but `accept()` and hand the socket over: no
//! syscalls on the socket, no allocation beyond the queue entry, no session set-up
//! (the seeds show MySQL's single accept thread doing all of that and becoming the
//! bottleneck of connection storms). Connection threads are kept for reuse
//! ([`crate::threads`]), so a new connection usually costs a condition-variable
//! wake-up, not a thread spawn.

use crate::config::Config;
use crate::stream::Stream;
use crate::threads::{self, Work};
use crate::{Server, ServerError};
use std::net::TcpListener;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// Where the server listens: a TCP socket (none with `--skip-networking`), a
/// Unix socket (none when the default path cannot be created), and the extra port
/// (`--extra-port`).
pub struct Listeners {
    pub tcp: Option<TcpListener>,
    pub unix: Option<UnixSocket>,
    pub extra: Option<TcpListener>,
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
    let backlog = c.threads.back_log as i32;
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
    let extra = match c.threads.extra_port {
        0 => None,
        _ if c.skip_networking => None,
        port => Some(bind_tcp(&c.bind_address, port)?),
    };
    if let Some(u) = &unix {
        set_backlog(&u.listener, backlog);
    }
    for l in tcp.iter().chain(extra.iter()) {
        set_backlog(l, backlog);
    }
    Ok(Listeners { tcp, unix, extra })
}

/// Sets the listen backlog (`back_log`; the standard library listens with 128,
/// which a storm of a few hundred clients overflows, and the kernel then drops
/// their SYNs: a second of retransmission for each). The kernel caps it at
/// `net.core.somaxconn`.
fn set_backlog(listener: &impl AsRawFd, backlog: i32) {
    // SAFETY: listen(2) on a socket that is already listening changes its backlog.
    if unsafe { libc::listen(listener.as_raw_fd(), backlog) } != 0 {
        tracing::warn!(
            "cannot set the listen backlog to {backlog}: {}",
            std::io::Error::last_os_error()
        );
    }
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
        fds.extend(listeners.extra.as_ref().map(|l| l.as_raw_fd()));
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

/// Accepts on every listener (the Unix socket and the extra port on threads of
/// their own) until the server stops.
pub fn accept_loops(server: &Arc<Server>, listeners: &Listeners) {
    let weak = Arc::downgrade(server);
    let parking = server.parker.start(Box::new(move |live, expired| {
        if let Some(server) = weak.upgrade() {
            threads::dispatch(&server, Work::Resumed(live, expired))
        }
    }));
    match parking {
        Ok(()) if server.threads.is_pool() => server.parker.set_direct(),
        Ok(()) => {}
        Err(e) => {
            tracing::error!(error = %e, "cannot start the idle connections' thread; idle connections keep their threads")
        }
    }
    if let Err(e) = threads::start_stall_check(server) {
        tracing::error!(error = %e, "cannot start the thread pool's stall check");
    }
    let main = |s: Stream| threads::dispatch(server, Work::Accepted(s));
    std::thread::scope(|scope| {
        if let Some(u) = &listeners.unix {
            let main = &main;
            let spawned = std::thread::Builder::new()
                .name("basalt-accept-unix".into())
                .spawn_scoped(scope, move || {
                    accept_loop(
                        server,
                        || u.listener.accept().map(|(s, _)| Stream::Unix(Arc::new(s))),
                        main,
                    )
                });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "cannot start the Unix socket's accept thread");
            }
        }
        if let Some(x) = &listeners.extra {
            let spawned = std::thread::Builder::new()
                .name("basalt-accept-extra".into())
                .spawn_scoped(scope, move || {
                    accept_loop(
                        server,
                        || x.accept().map(|(s, _)| Stream::Tcp(Arc::new(s))),
                        |s| threads::serve_extra(server, s),
                    )
                });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "cannot start the extra port's accept thread");
            }
        }
        if let Some(t) = &listeners.tcp {
            accept_loop(
                server,
                || t.accept().map(|(s, _)| Stream::Tcp(Arc::new(s))),
                main,
            );
        }
    });
    server.threads.close();
}

fn accept_loop(
    server: &Arc<Server>,
    mut accept: impl FnMut() -> std::io::Result<Stream>,
    hand_over: impl Fn(Stream),
) {
    loop {
        match accept() {
            Ok(stream) => {
                if server.shutting_down.load(Ordering::SeqCst) {
                    break;
                }
                hand_over(stream);
            }
            Err(e) => {
                if server.shutting_down.load(Ordering::SeqCst) {
                    break;
                }
                // EMFILE and friends: back off instead of spinning.
                server.stats.errors_accept.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(error = %e, "accept failed");
                std::thread::sleep(Duration::from_millis(50));
            }
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
