//! Runs the protocol crate's async I/O on a blocking socket, on the connection's own
//! thread.
//!
//! [`Blocking`] implements tokio's `AsyncRead`/`AsyncWrite` by performing the
//! blocking syscall inside `poll_*` and returning `Ready`, so every protocol future
//! completes in a single poll and [`run`] needs no reactor: one `read()` per command,
//! one `write()` per response, nothing else.
//!
//! A read that times out (the socket's `SO_RCVTIMEO`) is retried while the
//! connection is inside a packet, up to [`Patience::limit`], so that the short
//! timeout which detects an idle connection (see [`crate::park`]) never breaks a
//! packet that arrives slowly; only the first read of a command, with nothing
//! buffered, reports the timeout to the caller.

use std::future::Future;
use std::io::{self, Read, Write};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

pub struct Blocking<S>(pub S, pub Patience);

impl<S> Blocking<S> {
    pub fn new(io: S) -> Blocking<S> {
        Blocking(io, Patience::default())
    }
}

/// How a read that times out is treated.
#[derive(Clone, Copy, Debug, Default)]
pub struct Patience {
    /// The socket's receive timeout: the time one timed-out read waited.
    pub tick: Duration,
    /// Total time a read inside a packet may wait before it fails; zero fails at
    /// the first timeout (the handshake, under `connect_timeout`).
    pub limit: Duration,
    /// Set before the first read of a command: a timeout then means the client is
    /// idle and is returned at once. Any successful read clears it.
    pub at_command_start: bool,
}

pub fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

impl<S: Read + Unpin> AsyncRead for Blocking<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let mut waited = Duration::ZERO;
        loop {
            match self.0.read(buf.initialize_unfilled()) {
                Ok(n) => {
                    self.1.at_command_start = false;
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e)
                    if is_timeout(&e)
                        && !self.1.at_command_start
                        && waited + self.1.tick < self.1.limit =>
                {
                    waited += self.1.tick;
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl<S: Write + Unpin> AsyncWrite for Blocking<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            match self.0.write(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                r => return Poll::Ready(r),
            }
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.0.flush())
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// Drives a future whose I/O is all [`Blocking`] to completion on this thread.
pub fn run<F: Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        // Only reachable if a future awaits something other than Blocking I/O.
        std::thread::yield_now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[test]
    fn reads_and_writes_complete_in_one_poll() {
        let mut out = Blocking::new(Vec::new());
        run(async { out.write_all(b"hello").await }).expect("write");
        assert_eq!(out.0, b"hello");
        let mut input = Blocking::new(&b"abc"[..]);
        let mut buf = [0u8; 3];
        run(async { input.read_exact(&mut buf).await }).expect("read");
        assert_eq!(&buf, b"abc");
    }
}
