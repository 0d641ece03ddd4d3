//! Test support: start `basaltd` (and, for differential tests, a real MariaDB) on
//! loopback with a temporary data directory and an ephemeral port, and stop it when
//! the handle drops.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

/// The workspace root (this crate lives in `<root>/tests`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}

fn profile() -> &'static str {
    if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    }
}

static BUILD: Once = Once::new();

/// Path of the `basaltd` binary, built with this test's profile on first use.
pub fn basaltd_path() -> PathBuf {
    BUILD.call_once(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(workspace_root()).args([
            "build",
            "-q",
            "-p",
            "basalt-server",
            "--bin",
            "basaltd",
        ]);
        if profile() == "release" {
            cmd.arg("--release");
        }
        let status = cmd.status().expect("run cargo build");
        assert!(status.success(), "building basaltd failed");
    });
    target_dir().join(profile()).join("basaltd")
}

/// A running `basaltd`, stopped (SIGTERM, then SIGKILL) when dropped.
pub struct Basalt {
    pub port: u16,
    pub datadir: PathBuf,
    /// The server's Unix socket, next to its data directory (never the default
    /// path, which stays free for a user's server).
    pub socket: PathBuf,
    _tmp: Option<tempfile::TempDir>,
    child: Option<Child>,
    log: Arc<Mutex<String>>,
    extra_args: Vec<String>,
}

impl Basalt {
    /// mysql_async options for a TLS connection as root that verifies the server
    /// against the CA the server generated in its data directory.
    pub fn tls_async_opts(&self) -> mysql_async::OptsBuilder {
        let ca = self.datadir.join("ca.pem");
        let ssl = mysql_async::SslOpts::default().with_root_certs(vec![ca.into()]);
        mysql_async::OptsBuilder::from_opts(mysql_async::Opts::from_url(&self.url()).expect("url"))
            .ssl_opts(Some(ssl))
    }

    /// A new connection as root over TCP.
    pub fn conn(&self) -> mysql::Conn {
        mysql::Conn::new(mysql::Opts::from_url(&self.url()).expect("url")).expect("connect")
    }

    /// The server process's OS thread count.
    pub fn os_threads(&self) -> usize {
        let s = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).expect("proc");
        s.lines()
            .find_map(|l| l.strip_prefix("Threads:"))
            .and_then(|v| v.trim().parse().ok())
            .expect("Threads line")
    }

    /// Starts a server on a fresh temporary data directory.
    pub fn start() -> Basalt {
        Basalt::start_with(&[])
    }

    pub fn start_with(args: &[&str]) -> Basalt {
        let tmp = tempfile::tempdir().expect("tempdir");
        let datadir = tmp.path().join("data");
        let mut b = Basalt::launch(&datadir, args);
        b._tmp = Some(tmp);
        b
    }

    /// Starts a server on an existing data directory (restart after a crash).
    pub fn launch(datadir: &Path, args: &[&str]) -> Basalt {
        let mut all = vec!["--port", "0", "--bind-address", "127.0.0.1"];
        all.extend_from_slice(args);
        Basalt::launch_bare(datadir, &all)
    }

    /// Starts a server on `datadir` with only `args` (and its own socket unless
    /// `args` name one): for tests of the listening options. `port` is 0 when it
    /// listens on no TCP port.
    pub fn launch_bare(datadir: &Path, args: &[&str]) -> Basalt {
        let socket = match args.iter().position(|a| *a == "--socket") {
            Some(i) => PathBuf::from(args[i + 1]),
            None => socket_for(datadir),
        };
        let mut cmd = Command::new(basaltd_path());
        cmd.arg("--datadir").arg(datadir);
        if !args.contains(&"--socket") {
            cmd.arg("--socket").arg(&socket);
        }
        cmd.args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn basaltd");
        let stderr = child.stderr.take().expect("piped stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let port = wait_ready(stderr, log.clone(), &mut child);
        Basalt {
            port,
            socket,
            datadir: datadir.to_path_buf(),
            _tmp: None,
            child: Some(child),
            log,
            extra_args: args.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// A TCP URL for the `mysql` / `mysql_async` crates. `prefer_socket=false`:
    /// those crates would otherwise move a loopback connection to `@@socket`.
    pub fn url(&self) -> String {
        self.url_db("")
    }

    pub fn url_db(&self, db: &str) -> String {
        format!(
            "mysql://root@127.0.0.1:{}/{db}?prefer_socket=false",
            self.port
        )
    }

    /// Everything the server logged so far.
    pub fn log(&self) -> String {
        self.log.lock().expect("log lock").clone()
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    /// SIGKILL: the process dies at once, with whatever it had in flight.
    pub fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// SIGTERM and wait for a clean exit; returns the exit status code.
    pub fn stop(&mut self) -> Option<i32> {
        let mut c = self.child.take()?;
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(c.id() as i32, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(Some(st)) = c.try_wait() {
                return st.code();
            }
            if Instant::now() > deadline {
                let _ = c.kill();
                let _ = c.wait();
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the server to exit by itself (after `SHUTDOWN`); returns its exit
    /// code, or `None` if it is still running after `limit` (it is then killed).
    pub fn wait_exit(&mut self, limit: Duration) -> Option<i32> {
        let mut c = self.child.take()?;
        let deadline = Instant::now() + limit;
        loop {
            if let Ok(Some(st)) = c.try_wait() {
                return st.code();
            }
            if Instant::now() > deadline {
                let _ = c.kill();
                let _ = c.wait();
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops (or kills) and starts again on the same data directory.
    pub fn restart(&mut self, kill: bool) {
        if kill {
            self.kill9();
        } else {
            self.stop();
        }
        let args: Vec<&str> = self.extra_args.iter().map(|s| s.as_str()).collect();
        let fresh = Basalt::launch_bare(&self.datadir.clone(), &args);
        self.port = fresh.port;
        self.log = fresh.log.clone();
        let mut fresh = fresh;
        self.child = fresh.child.take();
    }
}

impl Drop for Basalt {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The Unix socket of a server on `datadir`: `<datadir>.sock`.
pub fn socket_for(datadir: &Path) -> PathBuf {
    let mut s = datadir.as_os_str().to_owned();
    s.push(".sock");
    PathBuf::from(s)
}

/// `url` (as [`Basalt::url`] gives it) with the database `db`.
pub fn url_with_db(url: &str, db: &str) -> String {
    match url.split_once('?') {
        Some((base, query)) => format!("{base}{db}?{query}"),
        None => format!("{url}{db}"),
    }
}

fn wait_ready(
    stderr: impl Read + Send + 'static,
    log: Arc<Mutex<String>>,
    child: &mut Child,
) -> u16 {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut sent = false;
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            log.lock().expect("log lock").push_str(&line);
            log.lock().expect("log lock").push('\n');
            if !sent {
                if let Some(port) = parse_ready(&line) {
                    let _ = tx.send(port);
                    sent = true;
                }
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Ok(port) = rx.recv_timeout(Duration::from_millis(50)) {
            return port;
        }
        if let Ok(Some(st)) = child.try_wait() {
            panic!("basaltd exited during start-up: {st}");
        }
        assert!(Instant::now() < deadline, "basaltd did not become ready");
    }
}

fn parse_ready(line: &str) -> Option<u16> {
    let rest = line.split("ready for connections on ").nth(1)?;
    if rest.starts_with("socket ") {
        return Some(0);
    }
    let addr = rest.split_whitespace().next()?;
    addr.rsplit(':').next()?.parse().ok()
}

/// A numeric global status variable.
pub fn global_status(c: &mut mysql::Conn, name: &str) -> u64 {
    use mysql::prelude::Queryable;
    let row: Option<(String, u64)> = c
        .query_first(format!("show global status like '{name}'"))
        .expect("status");
    row.expect("status variable").1
}

/// Polls `f` every 50 ms until it holds or `limit` passes; its last answer.
pub fn eventually(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    f()
}

/// A free loopback port (for servers that cannot pick one themselves).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("bind an ephemeral port")
}

pub fn which(bin: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(bin))
        .find(|p| p.is_file())
}

/// `mariadb-dump` of the server on `port` with `args` (root over TCP); its
/// output, panicking with its errors when it fails.
pub fn mariadb_dump(port: u16, args: &[&str]) -> String {
    let dump = Command::new("mariadb-dump")
        .args(["-h127.0.0.1", "-uroot", "--skip-ssl"])
        .arg(format!("-P{port}"))
        .args(args)
        .output()
        .expect("mariadb-dump");
    assert!(
        dump.status.success(),
        "{}",
        String::from_utf8_lossy(&dump.stderr)
    );
    String::from_utf8(dump.stdout).expect("utf-8 dump")
}

/// Runs the `mariadb` command-line client against `port` with `args`, feeding
/// `stdin`; returns (exit code, stdout, stderr).
pub fn mariadb_cli(port: u16, args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new("mariadb")
        .args(["-h127.0.0.1", "-uroot", "--skip-ssl"])
        .arg(format!("-P{port}"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mariadb client");
    let mut input = child.stdin.take().expect("stdin");
    let data = stdin.to_string();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(data.as_bytes());
    });
    let out = child.wait_with_output().expect("mariadb client output");
    let _ = writer.join();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Sends one protocol packet with sequence id `seq`.
pub fn send_packet(s: &mut std::net::TcpStream, seq: u8, payload: &[u8]) {
    let len = payload.len() as u32;
    let mut p = vec![len as u8, (len >> 8) as u8, (len >> 16) as u8, seq];
    p.extend_from_slice(payload);
    s.write_all(&p).expect("send packet");
}

/// Reads one protocol packet's payload.
pub fn read_packet(s: &mut std::net::TcpStream) -> std::io::Result<Vec<u8>> {
    let mut h = [0u8; 4];
    s.read_exact(&mut h)?;
    let len = h[0] as usize | (h[1] as usize) << 8 | (h[2] as usize) << 16;
    let mut body = vec![0u8; len];
    s.read_exact(&mut body)?;
    Ok(body)
}

/// A raw socket logged in as root (no password), for tests that misbehave on
/// purpose (vanishing mid-result, malformed commands).
pub fn raw_login(port: u16) -> std::net::TcpStream {
    raw_login_as(port, "root")
}

/// A raw socket logged in as `user`, an account without a password.
pub fn raw_login_as(port: u16, user: &str) -> std::net::TcpStream {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let _greeting = read_packet(&mut s).expect("greeting");
    // PROTOCOL_41 | LONG_PASSWORD | SECURE_CONNECTION | PLUGIN_AUTH
    let caps: u32 = 0x200 | 0x1 | 0x8000 | 0x80000;
    let mut p = Vec::new();
    p.extend_from_slice(&caps.to_le_bytes());
    p.extend_from_slice(&(16u32 << 20).to_le_bytes());
    p.push(45);
    p.extend_from_slice(&[0u8; 23]);
    p.extend_from_slice(user.as_bytes());
    p.push(0);
    p.push(0);
    p.extend_from_slice(b"mysql_native_password\0");
    send_packet(&mut s, 1, &p);
    let ok = read_packet(&mut s).expect("login reply");
    assert_eq!(ok.first(), Some(&0u8), "login OK");
    s
}

/// The seed benchmark's set-up (a copy of shared/bench/seed-ddl.sql).
pub fn seed_ddl() -> String {
    std::fs::read_to_string(workspace_root().join("tests/data/seed-ddl.sql")).expect("seed DDL")
}

pub mod binlog;
pub mod binlog_workload;
pub mod client;
pub mod mariadb;
pub mod netfuzz;
pub mod rqg;
pub mod script;

/// A result value as the tests compare it: NULL as `None`, bytes as (lossy) text,
/// anything else in its debug form.
pub fn cell(v: &mysql::Value) -> Option<String> {
    match v {
        mysql::Value::NULL => None,
        mysql::Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
        other => Some(format!("{other:?}")),
    }
}

/// GET `path` from an HTTP server on 127.0.0.1:`port`; the body.
pub fn http_get(port: u16, path: &str) -> Option<String> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    out.split_once("\r\n\r\n").map(|(_, body)| body.to_string())
}

/// A child process (a tool or a server the test started by hand) killed when
/// the test ends, however it ends.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs Prometheus' mysqld_exporter (at `bin`) against a server on
/// 127.0.0.1:`db_port` as root with `--collect.NAME` for each of `collectors`,
/// scrapes `/metrics` once and stops it: the page and the exporter's log.
pub fn scrape_with_exporter(bin: &Path, db_port: u16, collectors: &[&str]) -> (String, String) {
    let port = free_port();
    let mut cmd = Command::new(bin);
    cmd.env(
        "DATA_SOURCE_NAME",
        format!("root@tcp(127.0.0.1:{db_port})/"),
    )
    .arg(format!("--web.listen-address=127.0.0.1:{port}"));
    for name in collectors {
        cmd.arg(format!("--collect.{name}"));
    }
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mysqld_exporter");
    let mut exporter = KillOnDrop(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    let metrics = loop {
        if let Some(body) = http_get(port, "/metrics") {
            break body;
        }
        assert!(Instant::now() < deadline, "mysqld_exporter did not answer");
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = exporter.0.kill();
    let mut log = String::new();
    if let Some(mut e) = exporter.0.stderr.take() {
        let _ = e.read_to_string(&mut log);
    }
    (metrics, log)
}
