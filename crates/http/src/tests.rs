use super::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};

fn start(opts: impl FnOnce(&mut Options)) -> (MetricsServer, Arc<AtomicU64>) {
    let renders = Arc::new(AtomicU64::new(0));
    let r = renders.clone();
    let mut o = Options::new("127.0.0.1:0".parse().expect("addr"));
    opts(&mut o);
    let render: Render = Arc::new(move || {
        let n = r.fetch_add(1, Ordering::SeqCst) + 1;
        format!("# TYPE renders counter\nrenders {n}\n")
    });
    (MetricsServer::start(o, render).expect("start"), renders)
}

/// Sends `request` and reads until the server closes.
fn exchange(addr: SocketAddr, request: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    s.write_all(request).expect("write");
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn get(addr: SocketAddr, method: &str, path: &str) -> String {
    exchange(
        addr,
        format!("{method} {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes(),
    )
}

#[test]
fn serves_the_page_and_nothing_else() {
    let (server, _) = start(|_| {});
    let addr = server.local_addr();
    assert!(addr.ip().is_loopback() && addr.port() != 0);
    let r = get(addr, "GET", "/metrics");
    assert!(r.starts_with("HTTP/1.1 200 OK\r\n"), "{r}");
    assert!(r.contains("content-type: text/plain; version=0.0.4"), "{r}");
    assert!(r.ends_with("renders 1\n"), "{r}");
    let r = get(addr, "GET", "/metrics?x=1");
    assert!(r.starts_with("HTTP/1.1 200 OK\r\n"), "{r}");
    let r = get(addr, "HEAD", "/metrics");
    assert!(r.starts_with("HTTP/1.1 200 OK\r\n"), "{r}");
    assert!(!r.contains("renders"), "HEAD has no body: {r}");
    let r = get(addr, "GET", "/");
    assert!(r.starts_with("HTTP/1.1 404 "), "{r}");
    let r = get(addr, "GET", "/metricsx");
    assert!(r.starts_with("HTTP/1.1 404 "), "{r}");
    let r = get(addr, "POST", "/metrics");
    assert!(r.starts_with("HTTP/1.1 405 "), "{r}");
    assert!(r.contains("allow: GET, HEAD"), "{r}");
    let r = get(addr, "DELETE", "/metrics");
    assert!(r.starts_with("HTTP/1.1 405 "), "{r}");
}

#[test]
fn a_page_is_rendered_at_most_once_per_interval() {
    let (server, renders) = start(|o| o.cache_for = Duration::from_secs(60));
    for _ in 0..5 {
        let r = get(server.local_addr(), "GET", "/metrics");
        assert!(r.ends_with("renders 1\n"), "{r}");
    }
    assert_eq!(renders.load(Ordering::SeqCst), 1);
    let (server, renders) = start(|o| o.cache_for = Duration::ZERO);
    for i in 1..=3 {
        let r = get(server.local_addr(), "GET", "/metrics");
        assert!(r.ends_with(&format!("renders {i}\n")), "{r}");
    }
    assert_eq!(renders.load(Ordering::SeqCst), 3);
}

#[test]
fn huge_heads_are_refused() {
    let (server, renders) = start(|_| {});
    let big = "a".repeat(64 * 1024);
    let req = format!("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: {big}\r\n\r\n");
    let r = exchange(server.local_addr(), req.as_bytes());
    assert!(r.is_empty() || r.starts_with("HTTP/1.1 431 "), "{r}");
    assert_eq!(renders.load(Ordering::SeqCst), 0);
    // A body is never read: the answer comes without it.
    let req = "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\nabc";
    let r = exchange(server.local_addr(), req.as_bytes());
    assert!(r.starts_with("HTTP/1.1 405 "), "{r}");
}

#[test]
fn slow_clients_time_out_and_do_not_block_others() {
    let (server, _) = start(|o| {
        o.timeout = Duration::from_millis(300);
        o.max_connections = 2;
    });
    let addr = server.local_addr();
    // Two clients that never finish their request hold both permits...
    let mut slow: Vec<TcpStream> = (0..2)
        .map(|_| {
            let mut s = TcpStream::connect(addr).expect("connect");
            s.write_all(b"GET /metr").expect("write");
            s
        })
        .collect();
    // ...until the timeout drops them, and then a third is served.
    let started = Instant::now();
    let r = get(addr, "GET", "/metrics");
    assert!(r.starts_with("HTTP/1.1 200 OK\r\n"), "{r}");
    assert!(started.elapsed() < Duration::from_secs(5));
    for s in &mut slow {
        s.set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        let mut buf = Vec::new();
        let _ = s.read_to_end(&mut buf);
        assert!(!String::from_utf8_lossy(&buf).contains("200 OK"));
    }
}

#[test]
fn stops_when_dropped() {
    let (server, _) = start(|_| {});
    let addr = server.local_addr();
    drop(server);
    assert!(TcpStream::connect(addr).is_err());
}
