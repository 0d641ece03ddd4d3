//! A client connection's socket: TCP or Unix domain, behind one type so the
//! connection code does not care which listener accepted it.
//!
//! A connection over the Unix socket is `localhost` to the server (its process-list
//! host and the host part of `USER()`), as MariaDB names it; a TCP connection is
//! named by the peer's IP address, an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`,
//! from a dual-stack `::` listener) by its IPv4 form, as MariaDB prints it.

use std::io::{self, Read, Write};
use std::net::{IpAddr, Shutdown, TcpStream};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::Duration;

/// The socket is shared (`Arc`), not duplicated: the second handle that KILL and
/// the replication acknowledgement reader use costs no file descriptor, so
/// 10,000 connections need 10,000 descriptors, as in MariaDB.
pub enum Stream {
    Tcp(Arc<TcpStream>),
    Unix(Arc<UnixStream>),
    /// TLS over either, after the client's SSLRequest (see [`crate::tls`]).
    Tls(Box<rustls::StreamOwned<rustls::ServerConnection, Stream>>),
}

impl Stream {
    /// The host the connection comes from, as the process list shows it.
    pub fn peer_host(&self) -> String {
        match self {
            Stream::Tcp(s) => match s.peer_addr() {
                Ok(a) => match a.ip() {
                    IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                        Some(v4) => v4.to_string(),
                        None => v6.to_string(),
                    },
                    ip => ip.to_string(),
                },
                Err(_) => "unknown".into(),
            },
            Stream::Unix(_) => "localhost".into(),
            Stream::Tls(t) => t.sock.peer_host(),
        }
    }

    /// The socket under any TLS layer.
    fn socket(&self) -> &Stream {
        match self {
            Stream::Tls(t) => t.sock.socket(),
            s => s,
        }
    }

    /// Whether the connection came through the Unix socket.
    pub fn is_local_socket(&self) -> bool {
        matches!(self.socket(), Stream::Unix(_))
    }

    /// The TLS session, once the connection has one.
    pub fn tls(&self) -> Option<&rustls::ServerConnection> {
        match self {
            Stream::Tls(t) => Some(&t.conn),
            _ => None,
        }
    }

    /// How the general log names the transport (`... using TCP/IP` / `Socket`).
    pub fn transport(&self) -> &'static str {
        match self {
            Stream::Tcp(_) => "TCP/IP",
            Stream::Unix(_) => "Socket",
            Stream::Tls(t) => t.sock.transport(),
        }
    }

    pub fn set_nodelay(&self) {
        if let Stream::Tcp(s) = self.socket() {
            let _ = s.set_nodelay(true);
        }
    }

    pub fn set_read_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_read_timeout(t),
            Stream::Unix(s) => s.set_read_timeout(t),
            Stream::Tls(s) => s.sock.set_read_timeout(t),
        }
    }

    pub fn set_write_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_write_timeout(t),
            Stream::Unix(s) => s.set_write_timeout(t),
            Stream::Tls(s) => s.sock.set_write_timeout(t),
        }
    }

    /// A second handle on the same socket (no new descriptor). A TLS session's state cannot be shared, so
    /// for a TLS connection this is the raw socket under it: good for
    /// [`Stream::shutdown`] (what KILL uses), not for reading or writing.
    pub fn try_clone(&self) -> io::Result<Stream> {
        Ok(match self {
            Stream::Tcp(s) => Stream::Tcp(s.clone()),
            Stream::Unix(s) => Stream::Unix(s.clone()),
            Stream::Tls(t) => t.sock.try_clone()?,
        })
    }

    /// Whether the TLS layer holds input the server has not read: records
    /// already taken from the socket, which a poll of the socket would not show
    /// (an error counts as input: the next read reports it).
    pub fn tls_input_pending(&mut self) -> bool {
        match self {
            Stream::Tls(t) => t
                .conn
                .process_new_packets()
                .map_or(true, |s| s.plaintext_bytes_to_read() > 0),
            _ => false,
        }
    }

    /// The socket's file descriptor (under any TLS layer).
    pub fn raw_fd(&self) -> RawFd {
        match self {
            Stream::Tcp(s) => s.as_raw_fd(),
            Stream::Unix(s) => s.as_raw_fd(),
            Stream::Tls(t) => t.sock.raw_fd(),
        }
    }

    pub fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.shutdown(how),
            Stream::Unix(s) => s.shutdown(how),
            Stream::Tls(t) => t.sock.shutdown(how),
        }
    }
}

impl Read for Stream {
    #[inline]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => (&**s).read(buf),
            Stream::Unix(s) => (&**s).read(buf),
            Stream::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => (&**s).write(buf),
            Stream::Unix(s) => (&**s).write(buf),
            Stream::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => (&**s).flush(),
            Stream::Unix(s) => (&**s).flush(),
            Stream::Tls(s) => s.flush(),
        }
    }
}
