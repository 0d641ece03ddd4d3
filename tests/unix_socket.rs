//! Listening options: the Unix socket (`--socket`), `--skip-networking` and IPv6
//! `--bind-address`, through the `mariadb` client and the `mysql` crate. Every
//! server here has its own socket in its temporary directory.

use basalt_tests::{which, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts, OptsBuilder};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn over_socket(path: &Path) -> Conn {
    let opts = OptsBuilder::new()
        .user(Some("root"))
        .socket(Some(path.display().to_string()));
    Conn::new(opts).expect("connect over the socket")
}

/// `mariadb -S path -uroot -N -e sql`: (exit code, stdout, stderr).
fn cli_socket(path: &Path, sql: &str) -> (i32, String, String) {
    let out = Command::new("mariadb")
        .arg("-S")
        .arg(path)
        .args(["-uroot", "-N", "-B", "-e", sql])
        .stdin(Stdio::null())
        .output()
        .expect("run mariadb");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_mariadb_client_connects_over_the_socket_as_localhost() {
    if which("mariadb").is_none() {
        eprintln!("skipped: mariadb client not installed");
        return;
    }
    let b = Basalt::start();
    let sock = b.socket.display().to_string();
    let (code, out, err) = cli_socket(
        &b.socket,
        "select user(), @@socket; select host from information_schema.processlist where id = connection_id()",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, format!("root@localhost\t{sock}\nlocalhost\n"));
    let (code, out, err) = cli_socket(&b.socket, "status");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Localhost via UNIX socket"), "{out}");
}

#[test]
fn the_mysql_crate_connects_over_the_socket_and_prefers_it_on_loopback() {
    let b = Basalt::start();
    let mut c = over_socket(&b.socket);
    let (user, host): (String, String) = c
        .query_first(
            "select user(), host from information_schema.processlist where id = connection_id()",
        )
        .expect("query")
        .expect("row");
    assert_eq!(
        (user.as_str(), host.as_str()),
        ("root@localhost", "localhost")
    );
    c.query_drop("create database d").expect("create");
    c.query_drop("create table d.t (id int primary key)")
        .expect("create");
    c.query_drop("insert into d.t values (1), (2)")
        .expect("insert");
    // Over TCP with the crate's default prefer_socket, it moves to @@socket.
    let url = format!("mysql://root@127.0.0.1:{}/d", b.port);
    let mut tcp = Conn::new(Opts::from_url(&url).expect("url")).expect("connect");
    let host: String = tcp
        .query_first("select host from information_schema.processlist where id = connection_id()")
        .expect("query")
        .expect("row");
    assert_eq!(host, "localhost");
    let n: i64 = tcp
        .query_first("select count(*) from t")
        .expect("count")
        .expect("row");
    assert_eq!(n, 2);
}

/// Runs basaltd expecting it to refuse to start: (exit code, log).
fn refused(datadir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(basalt_tests::basaltd_path())
        .arg("--datadir")
        .arg(datadir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn basaltd");
    let mut child = out;
    let stderr = child.stderr.take().expect("stderr");
    let mut log = String::new();
    for line in BufReader::new(stderr).lines().map_while(Result::ok) {
        assert!(
            !line.contains("ready for connections"),
            "it started: {line}"
        );
        log.push_str(&line);
        log.push('\n');
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(Some(st)) = child.try_wait() {
            return (st.code().unwrap_or(-1), log);
        }
        assert!(Instant::now() < deadline, "basaltd did not exit: {log}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_socket_held_by_a_live_server_is_refused_a_stale_one_replaced_and_removed_at_stop() {
    let mut b = Basalt::start();
    let sock = b.socket.display().to_string();
    let other = tempfile::tempdir().expect("tempdir");
    let (code, log) = refused(
        &other.path().join("data"),
        &["--port", "0", "--socket", &sock],
    );
    assert_eq!(code, 1, "{log}");
    assert!(
        log.contains(&format!("another server is running on the socket {sock}")),
        "{log}"
    );
    // The first server still answers on its socket.
    let mut c = over_socket(&b.socket);
    c.query_drop("create database s").expect("create");
    drop(c);
    // kill -9 leaves the file; the restart replaces it.
    b.restart(true);
    assert!(
        b.log().contains("removing the stale socket file"),
        "{}",
        b.log()
    );
    over_socket(&b.socket).query_drop("use s").expect("use");
    // A clean stop removes it.
    assert_eq!(b.stop(), Some(0));
    assert!(!b.socket.exists(), "socket file left after a clean stop");
}

#[test]
fn a_named_socket_that_cannot_be_created_stops_the_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, log) = refused(
        &dir.path().join("data"),
        &["--port", "0", "--socket", "/proc/basalt-none/mysqld.sock"],
    );
    assert_eq!(code, 1, "{log}");
    assert!(
        log.contains("cannot listen on the Unix socket /proc/basalt-none/mysqld.sock"),
        "{log}"
    );
}

#[test]
fn skip_networking_serves_the_socket_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let b = Basalt::launch_bare(&dir.path().join("data"), &["--skip-networking"]);
    assert_eq!(b.port, 0, "{}", b.log());
    let mut c = over_socket(&b.socket);
    let (skip, port): (i64, i64) = c
        .query_first("select @@skip_networking, @@port")
        .expect("query")
        .expect("row");
    assert_eq!((skip, port), (1, 0));
    let log = b.log();
    let ready = log
        .lines()
        .find(|l| l.contains("ready for connections"))
        .expect("ready line");
    assert!(
        ready.contains("ready for connections on socket "),
        "no TCP address: {ready}"
    );
}

fn ipv6_loopback() -> bool {
    std::net::TcpListener::bind("[::1]:0").is_ok()
}

#[test]
fn ipv6_bind_addresses() {
    if !ipv6_loopback() {
        eprintln!("skipped: no IPv6 loopback");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let b = Basalt::launch_bare(
        &dir.path().join("data"),
        &["--port", "0", "--bind-address", "::1"],
    );
    let url = format!("mysql://root@[::1]:{}/?prefer_socket=false", b.port);
    let mut c = Conn::new(Opts::from_url(&url).expect("url")).expect("connect over IPv6");
    let (user, bind): (String, String) = c
        .query_first("select user(), @@bind_address")
        .expect("query")
        .expect("row");
    assert_eq!((user.as_str(), bind.as_str()), ("root@::1", "::1"));
    assert!(std::net::TcpStream::connect(("127.0.0.1", b.port)).is_err());
    drop(b);
    // `::` takes IPv4 clients too (dual stack); they are named by their IPv4 address.
    let b = Basalt::launch_bare(
        &dir.path().join("data"),
        &["--port", "0", "--bind-address", "::"],
    );
    for (host, expect) in [("127.0.0.1", "root@127.0.0.1"), ("[::1]", "root@::1")] {
        let url = format!("mysql://root@{host}:{}/?prefer_socket=false", b.port);
        let mut c = Conn::new(Opts::from_url(&url).expect("url")).expect("connect");
        let user: String = c.query_first("select user()").expect("query").expect("row");
        assert_eq!(user, expect);
    }
}
