//! A small HTTP/1.1 listener that serves one page, `GET /metrics`, rendered by a
//! function the caller gives (the server's Prometheus page). It knows nothing of
//! SQL: [`Render`] is the whole interface.
//!
//! What a client can and cannot do, by design:
//! - only `GET` and `HEAD` of `/metrics` (a query string is ignored) are served;
//!   any other path answers 404, any other method on `/metrics` 405;
//! - a connection serves one request and closes (no keep-alive), and lives at
//!   most [`Options::timeout`] (a client that sends its request slowly, or reads
//!   the answer slowly, is dropped);
//! - request heads larger than 8 KiB are refused (431) and request bodies are
//!   never read;
//! - at most [`Options::max_connections`] connections are served at once; more
//!   wait in the kernel's listen queue;
//! - the page is rendered at most once per [`Options::cache_for`] (scrapes closer
//!   together get the same text), so a flood of scrapes costs HTTP work only;
//! - everything runs on one OS thread of its own (a single-threaded tokio
//!   runtime) at a lower CPU priority than the server's connection threads, so a
//!   scrape flood takes at most that thread's share of a core.

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, ALLOW, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tokio::sync::{oneshot, Semaphore};

/// Renders the page (called on the listener's thread; it must not block for
/// long).
pub type Render = Arc<dyn Fn() -> String + Send + Sync>;

/// The Prometheus text exposition format's content type.
pub const CONTENT_TYPE_0_0_4: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The path served.
pub const PATH: &str = "/metrics";

/// Listener settings.
#[derive(Clone, Debug)]
pub struct Options {
    pub addr: SocketAddr,
    /// Connections served at once.
    pub max_connections: usize,
    /// A connection's whole life: reading the request and writing the answer.
    pub timeout: Duration,
    /// How long a rendered page is reused.
    pub cache_for: Duration,
}

impl Options {
    /// The defaults for `addr`: 8 connections, 10 s, a page reused for 100 ms.
    pub fn new(addr: SocketAddr) -> Options {
        Options {
            addr,
            max_connections: 8,
            timeout: Duration::from_secs(10),
            cache_for: Duration::from_millis(100),
        }
    }
}

/// A running listener; dropping it stops the listener and joins its thread.
pub struct MetricsServer {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl MetricsServer {
    /// Binds `opts.addr` (an error if it cannot) and starts serving on a thread
    /// of its own.
    pub fn start(opts: Options, render: Render) -> std::io::Result<MetricsServer> {
        let listener = std::net::TcpListener::bind(opts.addr)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()?;
        let (stop, stopped) = oneshot::channel();
        let page = Arc::new(Page::new(render, opts.cache_for));
        let thread = std::thread::Builder::new()
            .name("basalt-metrics".into())
            .spawn(move || {
                lower_priority();
                runtime.block_on(async move {
                    match tokio::net::TcpListener::from_std(listener) {
                        Ok(l) => accept_loop(l, page, opts, stopped).await,
                        Err(e) => tracing::error!(error = %e, "metrics listener failed"),
                    }
                });
            })?;
        Ok(MetricsServer {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// The address listened on (with the port the OS picked for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for MetricsServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Nice 10 for the listener's thread (Linux's nice value is per thread), so
/// the connection threads win the CPU when both want it.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on the calling thread's own id.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 10);
    }
}

async fn accept_loop(
    listener: tokio::net::TcpListener,
    page: Arc<Page>,
    opts: Options,
    mut stop: oneshot::Receiver<()>,
) {
    let permits = Arc::new(Semaphore::new(opts.max_connections.max(1)));
    loop {
        let permit = tokio::select! {
            _ = &mut stop => return,
            p = permits.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => return,
            },
        };
        let stream = tokio::select! {
            _ = &mut stop => return,
            r = listener.accept() => match r {
                Ok((s, _)) => s,
                Err(e) => {
                    // Out of file descriptors, most likely: back off briefly.
                    tracing::warn!(error = %e, "metrics listener: accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let page = page.clone();
        let timeout = opts.timeout;
        tokio::spawn(async move {
            serve_connection(stream, page, timeout).await;
            drop(permit);
        });
    }
}

/// One request, then close; the whole exchange within `timeout`.
async fn serve_connection(stream: tokio::net::TcpStream, page: Arc<Page>, timeout: Duration) {
    let service = hyper::service::service_fn(move |req: Request<Incoming>| {
        let page = page.clone();
        async move { Ok::<_, Infallible>(respond(&req, &page)) }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .keep_alive(false)
        .max_buf_size(8192)
        .timer(TokioTimer::new())
        .header_read_timeout(timeout)
        .serve_connection(TokioIo::new(stream), service);
    let _ = tokio::time::timeout(timeout, conn).await;
}

fn respond<B>(req: &Request<B>, page: &Page) -> Response<Full<Bytes>> {
    if req.uri().path() != PATH {
        return plain(StatusCode::NOT_FOUND, "404 page not found\n");
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut r = plain(StatusCode::METHOD_NOT_ALLOWED, "405 method not allowed\n");
        r.headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    let mut r = Response::new(Full::new(page.get()));
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE_0_0_4));
    r
}

fn plain(status: StatusCode, text: &'static str) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *r.status_mut() = status;
    r.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

/// The rendered page, reused for `cache_for`.
struct Page {
    render: Render,
    cache_for: Duration,
    cached: Mutex<Option<(Instant, Bytes)>>,
}

impl Page {
    fn new(render: Render, cache_for: Duration) -> Page {
        Page {
            render,
            cache_for,
            cached: Mutex::new(None),
        }
    }

    /// The page, rendered again once the cached one is older than `cache_for`.
    /// Only the listener's one thread calls it, so the lock is never contended.
    fn get(&self) -> Bytes {
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, page)) = &*cached {
            if at.elapsed() < self.cache_for {
                return page.clone();
            }
        }
        let page = Bytes::from((self.render)());
        *cached = Some((Instant::now(), page.clone()));
        page
    }
}

#[cfg(test)]
mod tests;
