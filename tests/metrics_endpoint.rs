//! The Prometheus endpoint (`--metrics-port`): off by default, loopback by
//! default, `GET /metrics` in the text format 0.0.4 with mysqld_exporter's
//! names, histograms whose buckets are consistent, 404 and 405 for the rest.

use basalt_tests::{eventually, Basalt};
use mysql::prelude::*;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// The metrics address the server logged at start.
fn metrics_addr(b: &Basalt) -> Option<SocketAddr> {
    let log = b.log();
    let rest = log.split("metrics on http://").nth(1)?;
    rest.split('/').next()?.parse().ok()
}

/// (status line, head, body) of one request.
fn request(addr: SocketAddr, method: &str, path: &str) -> (String, String, String) {
    let mut s = TcpStream::connect(addr).expect("connect to the metrics port");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).expect("send");
    let mut raw = String::new();
    s.read_to_string(&mut raw).expect("read the answer");
    let (head, body) = raw.split_once("\r\n\r\n").expect("a head");
    let status = head.lines().next().unwrap_or_default().to_string();
    (status, head.to_ascii_lowercase(), body.to_string())
}

fn scrape(addr: SocketAddr) -> String {
    let (status, head, body) = request(addr, "GET", "/metrics");
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(
        head.contains("content-type: text/plain; version=0.0.4"),
        "{head}"
    );
    body
}

/// A sample's value (`name{labels}` exactly as written).
fn sample(page: &str, series: &str) -> Option<f64> {
    page.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// Checks one histogram series: buckets cumulative, `+Inf` equal to `_count`;
/// returns the count.
fn check_histogram(page: &str, name: &str, labels: &str) -> u64 {
    let prefix = format!("{name}_bucket{{{labels}");
    let buckets: Vec<(String, u64)> = page
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(|rest| {
            let le = rest.split("le=\"").nth(1).expect("le").split('"').next();
            let n = rest.rsplit(' ').next().expect("value").parse().expect("n");
            (le.expect("le value").to_string(), n)
        })
        .collect();
    assert!(buckets.len() > 2, "{name}{{{labels}}} has buckets:\n{page}");
    assert!(buckets.windows(2).all(|w| w[0].1 <= w[1].1), "{buckets:?}");
    let bounds: Vec<f64> = buckets[..buckets.len() - 1]
        .iter()
        .map(|(le, _)| le.parse().expect("numeric le"))
        .collect();
    assert!(bounds.windows(2).all(|w| w[0] < w[1]), "{bounds:?}");
    let (last_le, inf) = buckets.last().expect("buckets").clone();
    assert_eq!(last_le, "+Inf");
    let plain = labels.trim_end_matches(',');
    let braces = if plain.is_empty() {
        String::new()
    } else {
        format!("{{{plain}}}")
    };
    let count = sample(page, &format!("{name}_count{braces}")).expect("_count");
    assert_eq!(inf as f64, count, "+Inf bucket equals _count for {name}");
    assert!(sample(page, &format!("{name}_sum{braces}")).is_some());
    inf
}

/// Every sample belongs to a family announced by HELP and TYPE before it.
fn check_format(page: &str) {
    let mut family = String::new();
    let mut kind = String::new();
    for line in page.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (f, k) = rest.split_once(' ').expect("TYPE name kind");
            family = f.to_string();
            kind = k.to_string();
            continue;
        }
        if line.starts_with("# HELP ") {
            continue;
        }
        let name = line.split(['{', ' ']).next().unwrap_or_default();
        let base = match kind.as_str() {
            "histogram" => ["_bucket", "_sum", "_count"]
                .iter()
                .find_map(|s| name.strip_suffix(s))
                .unwrap_or(name),
            _ => name,
        };
        assert_eq!(base, family, "sample outside its family: {line}");
        let value = line.rsplit(' ').next().unwrap_or_default();
        assert!(
            value.parse::<f64>().is_ok() || value == "+Inf",
            "value of {line}"
        );
    }
}

#[test]
fn off_by_default() {
    let b = Basalt::start();
    assert_eq!(metrics_addr(&b), None, "{}", b.log());
}

#[test]
fn serves_metrics_on_loopback() {
    let b = Basalt::start_with(&["--metrics-port", "0"]);
    let addr = metrics_addr(&b).expect("the metrics address is logged");
    assert_eq!(addr.ip().to_string(), "127.0.0.1");
    assert_ne!(addr.port(), 0);

    let page = scrape(addr);
    check_format(&page);
    assert!(
        page.contains("# TYPE mysql_up gauge\nmysql_up 1\n"),
        "{page}"
    );
    assert!(
        page.contains("mysql_version_info{innodb_version="),
        "{page}"
    );
    assert!(sample(&page, "mysql_global_variables_max_connections").is_some());
    assert!(sample(&page, "mysql_global_status_uptime").is_some());
    assert!(sample(
        &page,
        "mysql_global_status_handlers_total{handler=\"read_key\"}"
    )
    .is_some());
    assert!(page.contains("mysql_global_status_innodb_row_ops_total{operation=\"read\"}"));
    let select = "mysql_global_status_commands_total{command=\"select\"}";
    let before = sample(&page, select).expect("Com_select");

    let mut c = b.conn();
    c.query_drop("create database m").expect("create database");
    c.query_drop("create table m.t (a int primary key, b int)")
        .expect("create table");
    for i in 0..5 {
        c.query_drop(format!("insert into m.t values ({i}, {i})"))
            .expect("insert");
        let _: Vec<(i64, i64)> = c.query("select * from m.t").expect("select");
    }
    // A row-lock wait (timed out after a second) counts in its histogram.
    let mut holder = b.conn();
    holder.query_drop("begin").expect("begin");
    holder
        .query_drop("update m.t set b = 9 where a = 1")
        .expect("lock");
    c.query_drop("set innodb_lock_wait_timeout = 1")
        .expect("timeout");
    assert!(c.query_drop("update m.t set b = 8 where a = 1").is_err());
    holder.query_drop("rollback").expect("rollback");
    // A page is reused for a moment: ask until it shows the selects.
    let waits = "basalt_row_lock_wait_seconds_count";
    let mut page = String::new();
    assert!(eventually(Duration::from_secs(5), || {
        page = scrape(addr);
        sample(&page, select).unwrap_or(0.0) >= before + 5.0
            && sample(&page, waits).unwrap_or(0.0) >= 1.0
    }));
    check_format(&page);
    let stmt = "basalt_statement_duration_seconds";
    assert!(check_histogram(&page, stmt, "command=\"select\",") >= 5);
    assert!(check_histogram(&page, stmt, "command=\"insert\",") >= 5);
    check_histogram(&page, stmt, "command=\"other\",");
    assert!(check_histogram(&page, "basalt_commit_duration_seconds", "") >= 5);
    assert!(check_histogram(&page, "basalt_wal_fsync_duration_seconds", "") >= 1);
    assert!(check_histogram(&page, "basalt_group_commit_size", "") >= 1);
    assert_eq!(
        check_histogram(&page, "basalt_row_lock_wait_seconds", ""),
        1
    );

    let (status, _, _) = request(addr, "GET", "/");
    assert!(status.starts_with("HTTP/1.1 404"), "{status}");
    let (status, _, _) = request(addr, "GET", "/metrics/x");
    assert!(status.starts_with("HTTP/1.1 404"), "{status}");
    let (status, head, _) = request(addr, "POST", "/metrics");
    assert!(status.starts_with("HTTP/1.1 405"), "{status}");
    assert!(head.contains("allow: get, head"), "{head}");
    let (status, _, body) = request(addr, "HEAD", "/metrics");
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    assert!(body.is_empty());
    scrape_while_queries_wait(&b, addr);
}

/// A scrape answers at once while one session holds a row lock, another
/// waits for it and a third sleeps in a statement.
fn scrape_while_queries_wait(b: &Basalt, addr: SocketAddr) {
    let mut holder = b.conn();
    holder.query_drop("begin").expect("begin");
    holder
        .query_drop("update m.t set b = b + 1 where a = 1")
        .expect("take the row lock");
    let url = b.url();
    let spawn = move |sql: &'static str| {
        let url = url.clone();
        std::thread::spawn(move || {
            let mut c = mysql::Conn::new(mysql::Opts::from_url(&url).expect("url")).expect("conn");
            let _ = c.query_drop(sql);
        })
    };
    let waiter = spawn("update m.t set b = 0 where a = 1");
    let sleeper = spawn("select sleep(2)");
    let running = "mysql_global_status_threads_running";
    let mut page = String::new();
    assert!(eventually(Duration::from_secs(2), || {
        let started = std::time::Instant::now();
        page = scrape(addr);
        assert!(
            started.elapsed() < Duration::from_millis(500),
            "slow scrape"
        );
        sample(&page, running).unwrap_or(0.0) >= 2.0
    }));
    holder.query_drop("rollback").expect("rollback");
    waiter.join().expect("waiter");
    sleeper.join().expect("sleeper");
}

#[test]
fn bind_address_is_configurable() {
    let b = Basalt::start_with(&["--metrics-port", "0", "--metrics-bind-address", "127.0.0.2"]);
    let addr = metrics_addr(&b).expect("the metrics address is logged");
    assert_eq!(addr.ip().to_string(), "127.0.0.2");
    assert!(scrape(addr).contains("mysql_up 1"));
}
