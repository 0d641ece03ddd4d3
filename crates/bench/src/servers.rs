//! The two servers under test: `basaltd` and MariaDB's `mariadbd`, each started on
//! loopback with a fresh temporary data directory and an ephemeral port, configured
//! comparably, and always stopped (SIGTERM, then SIGKILL) when the handle drops.

use crate::proc::{read_lossy, sigterm, tail_lines, which};
use std::fs::File;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Servers running now (pid, temporary directory), for clean-up on SIGINT/SIGTERM,
/// when no destructor runs.
static LIVE: Mutex<Vec<(u32, PathBuf)>> = Mutex::new(Vec::new());
static SIGNALLED: AtomicBool = AtomicBool::new(false);

fn register(pid: u32, dir: &Path) {
    if let Ok(mut live) = LIVE.lock() {
        live.push((pid, dir.to_path_buf()));
    }
}

fn unregister(pid: u32) {
    if let Ok(mut live) = LIVE.lock() {
        live.retain(|(p, _)| *p != pid);
    }
}

extern "C" fn on_signal(_: libc::c_int) {
    SIGNALLED.store(true, Ordering::SeqCst);
}

/// On SIGINT or SIGTERM: stop every server this process started (SIGTERM, then
/// SIGKILL after 5 s), delete their directories, exit with status 130.
pub fn install_signal_cleanup() {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
    std::thread::spawn(|| loop {
        std::thread::sleep(Duration::from_millis(100));
        if SIGNALLED.load(Ordering::SeqCst) {
            eprintln!("basalt-bench: interrupted; stopping servers");
            let live = LIVE.lock().map(|l| l.clone()).unwrap_or_default();
            for (pid, _) in &live {
                sigterm(*pid);
            }
            std::thread::sleep(Duration::from_secs(5));
            for (pid, dir) in &live {
                crate::proc::signal(*pid, libc::SIGKILL);
                let _ = std::fs::remove_dir_all(dir);
            }
            std::process::exit(130);
        }
    });
}

/// Which system a server (or a measurement) belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Basalt,
    MariaDb,
}

impl Kind {
    /// Both systems, in the order rounds run them.
    pub const BOTH: [Kind; 2] = [Kind::Basalt, Kind::MariaDb];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Basalt => "Basalt",
            Kind::MariaDb => "MariaDB",
        }
    }
}

/// Settings both servers get, so they compare: equal buffer pools, matched
/// durability (`innodb_flush_log_at_trx_commit`), equal connection limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Buffer pool size as both servers spell it, e.g. `512M`.
    pub buffer_pool: String,
    /// 1 = fsync at every commit, 2 = write at commit and fsync about once a second.
    pub flush: u8,
    pub max_connections: u32,
}

/// Where the server programs are.
#[derive(Clone, Debug)]
pub struct Binaries {
    pub basaltd: PathBuf,
    pub mariadbd: PathBuf,
    pub install_db: PathBuf,
}

impl Binaries {
    /// Resolves the binaries: `basaltd` from the flag or next to this program,
    /// MariaDB's from the flag or `PATH`.
    pub fn locate(basaltd: Option<PathBuf>, mariadbd: Option<PathBuf>) -> Result<Binaries, String> {
        let basaltd = match basaltd {
            Some(p) => p,
            None => default_basaltd()?,
        };
        if !basaltd.is_file() {
            return Err(format!(
                "basaltd not found at {} (build it: cargo build --release -p basalt-server, or pass --basaltd)",
                basaltd.display()
            ));
        }
        let mariadbd = mariadbd
            .or_else(|| which("mariadbd"))
            .ok_or("mariadbd not found (Debian package: mariadb-server; or pass --mariadbd)")?;
        let install_db = which("mariadb-install-db")
            .ok_or("mariadb-install-db not found (Debian package: mariadb-server)")?;
        Ok(Binaries {
            basaltd,
            mariadbd,
            install_db,
        })
    }
}

/// `basaltd` in the directory this program runs from (`target/release`).
fn default_basaltd() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let dir = exe.parent().ok_or("current_exe has no parent")?;
    // `cargo test` puts test binaries in target/<profile>/deps.
    let dir = if dir.ends_with("deps") {
        dir.parent().unwrap_or(dir)
    } else {
        dir
    };
    Ok(dir.join("basaltd"))
}

/// How to start a server: which binaries, where temporary directories go, and an
/// optional wrapper command (e.g. valgrind) put in front of the server program.
#[derive(Clone, Debug)]
pub struct Launch<'a> {
    pub bins: &'a Binaries,
    pub workdir: &'a Path,
    pub wrapper: &'a [String],
    /// Extra options for mariadbd only (e.g. what it needs under valgrind). A
    /// `--log-bin...` among them replaces the default `--skip-log-bin`.
    pub mariadb_extra: &'a [String],
    /// Extra options for basaltd only (e.g. `--log-bin`).
    pub basalt_extra: &'a [String],
    pub ready_timeout: Duration,
}

/// A running server. Dropping it stops the process and deletes its data directory.
pub struct Server {
    pub kind: Kind,
    pub port: u16,
    pub settings: Settings,
    child: Option<Child>,
    log_path: PathBuf,
    dir: tempfile::TempDir,
}

impl Server {
    /// Starts `kind` with `settings`; retries a few times (MariaDB's port is picked
    /// before it binds, so another process can take it first).
    pub fn start(kind: Kind, settings: &Settings, launch: &Launch<'_>) -> Result<Server, String> {
        let mut last = String::new();
        for _ in 0..3 {
            let attempt = match kind {
                Kind::Basalt => start_basalt(settings, launch),
                Kind::MariaDb => start_mariadb(settings, launch),
            };
            match attempt {
                Ok(s) => return Ok(s),
                Err(e) => last = e,
            }
        }
        Err(format!("{} did not start: {last}", kind.name()))
    }

    /// The server's process id while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// A scratch directory private to this server (command output, DDL files).
    pub fn scratch(&self) -> &Path {
        self.dir.path()
    }

    /// True while the process has not exited.
    pub fn alive(&mut self) -> bool {
        match self.child.as_mut() {
            Some(c) => matches!(c.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// The last lines of the server's log, for error reports.
    pub fn log_tail(&self, n: usize) -> String {
        tail_lines(&read_lossy(&self.log_path), n)
    }

    /// Client options for the `mysql` crate: TCP to 127.0.0.1 only (never the
    /// unix socket, which MariaDB would offer), root without a password.
    pub fn opts(&self, db: Option<&str>) -> mysql::Opts {
        mysql::OptsBuilder::new()
            .ip_or_hostname(Some("127.0.0.1"))
            .tcp_port(self.port)
            .user(Some("root"))
            .db_name(db)
            .prefer_socket(false)
            .tcp_connect_timeout(Some(Duration::from_secs(20)))
            .read_timeout(Some(Duration::from_secs(300)))
            .write_timeout(Some(Duration::from_secs(300)))
            .into()
    }

    /// SIGTERM, wait up to 60 s, then SIGKILL.
    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        unregister(child.id());
        sigterm(child.id());
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn temp_dir(workdir: &Path, prefix: &str) -> Result<tempfile::TempDir, String> {
    std::fs::create_dir_all(workdir).map_err(|e| format!("create {}: {e}", workdir.display()))?;
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(workdir)
        .map_err(|e| format!("temporary directory in {}: {e}", workdir.display()))
}

/// The program and its leading arguments: the wrapper (if any), then `program`.
fn command(wrapper: &[String], program: &Path) -> Command {
    match wrapper.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(program);
            c
        }
        None => Command::new(program),
    }
}

fn start_basalt(settings: &Settings, launch: &Launch<'_>) -> Result<Server, String> {
    let dir = temp_dir(launch.workdir, "basalt-bench-basalt-")?;
    let log_path = dir.path().join("basaltd.log");
    let log = File::create(&log_path).map_err(|e| format!("log file: {e}"))?;
    let mut cmd = command(launch.wrapper, &launch.bins.basaltd);
    cmd.arg("--port")
        .arg("0")
        .arg("--bind-address")
        .arg("127.0.0.1")
        .arg("--datadir")
        .arg(dir.path().join("data"))
        // Its own socket: the default path stays free for a user's server.
        .arg("--socket")
        .arg(dir.path().join("basaltd.sock"))
        .arg("--buffer-pool-size")
        .arg(&settings.buffer_pool)
        .arg("--flush-log-at-trx-commit")
        .arg(settings.flush.to_string())
        .arg("--max-connections")
        .arg(settings.max_connections.to_string())
        .args(launch.basalt_extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log);
    let child = cmd
        .spawn()
        .map_err(|e| format!("spawn {}: {e}", launch.bins.basaltd.display()))?;
    register(child.id(), dir.path());
    let mut server = Server {
        kind: Kind::Basalt,
        port: 0,
        settings: settings.clone(),
        child: Some(child),
        log_path,
        dir,
    };
    server.port = wait_basalt_ready(&mut server, launch.ready_timeout)?;
    Ok(server)
}

/// Polls basaltd's log for its `ready for connections on 127.0.0.1:PORT` line.
fn wait_basalt_ready(server: &mut Server, limit: Duration) -> Result<u16, String> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(port) = read_lossy(&server.log_path).lines().find_map(parse_ready) {
            return Ok(port);
        }
        if !server.alive() {
            return Err(format!(
                "basaltd exited during start-up: {}",
                server.log_tail(5)
            ));
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "basaltd not ready after {limit:?}: {}",
                server.log_tail(5)
            ));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// The port in basaltd's readiness line.
pub fn parse_ready(line: &str) -> Option<u16> {
    let rest = line.split("ready for connections on ").nth(1)?;
    let addr = rest.split_whitespace().next()?;
    addr.rsplit(':').next()?.parse().ok()
}

/// MariaDB's options: the seed post's configuration plus matched buffer pool,
/// durability, connection limit and isolation semantics: REPEATABLE READ with
/// `innodb_snapshot_isolation=ON` (Basalt's default and MariaDB's since 11.6; 10.11
/// defaults to OFF, where writes of rows changed since the snapshot silently
/// overwrite instead of failing with 1020, so the two would run different
/// transactions).
pub fn mariadb_args(settings: &Settings) -> Vec<String> {
    vec![
        "--performance-schema=0".into(),
        "--loose-innodb-snapshot-isolation=ON".into(),
        format!("--innodb-buffer-pool-size={}", settings.buffer_pool),
        format!("--innodb-flush-log-at-trx-commit={}", settings.flush),
        "--innodb-doublewrite=0".into(),
        "--innodb-flush-method=O_DIRECT".into(),
        "--query-cache-size=0".into(),
        "--skip-log-bin".into(),
        format!("--max-connections={}", settings.max_connections),
    ]
}

/// `base` followed by `extra`, without `--skip-log-bin` when `extra` turns the
/// binary log on (MariaDB would otherwise see both and the order would decide).
pub fn with_extra(base: Vec<String>, extra: &[String]) -> Vec<String> {
    let log_bin = extra.iter().any(|a| a.starts_with("--log-bin"));
    base.into_iter()
        .filter(|a| !(log_bin && a == "--skip-log-bin"))
        .chain(extra.iter().cloned())
        .collect()
}

fn start_mariadb(settings: &Settings, launch: &Launch<'_>) -> Result<Server, String> {
    let dir = temp_dir(launch.workdir, "basalt-bench-mariadb-")?;
    let data = dir.path().join("data");
    install_mariadb(launch.bins, &data)?;
    let port = free_port()?;
    let log_path = dir.path().join("mariadbd.err");
    let mut cmd = command(launch.wrapper, &launch.bins.mariadbd);
    cmd.arg("--no-defaults")
        .arg(format!("--datadir={}", data.display()))
        .arg(format!("--port={port}"))
        .arg("--bind-address=127.0.0.1")
        .arg(format!(
            "--socket={}",
            dir.path().join("mysqld.sock").display()
        ))
        .arg(format!(
            "--pid-file={}",
            dir.path().join("mysqld.pid").display()
        ))
        .arg(format!("--log-error={}", log_path.display()))
        .args(with_extra(mariadb_args(settings), launch.mariadb_extra));
    if running_as_root() {
        cmd.arg("--user=root");
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let child = cmd
        .spawn()
        .map_err(|e| format!("spawn {}: {e}", launch.bins.mariadbd.display()))?;
    register(child.id(), dir.path());
    let mut server = Server {
        kind: Kind::MariaDb,
        port,
        settings: settings.clone(),
        child: Some(child),
        log_path,
        dir,
    };
    wait_mariadb_ready(&mut server, launch.ready_timeout)?;
    Ok(server)
}

fn install_mariadb(bins: &Binaries, data: &Path) -> Result<(), String> {
    let mut cmd = Command::new(&bins.install_db);
    cmd.arg("--no-defaults")
        .arg(format!("--datadir={}", data.display()))
        .arg("--auth-root-authentication-method=normal")
        .arg("--skip-test-db");
    if running_as_root() {
        cmd.arg("--user=root");
    }
    let out = cmd
        .output()
        .map_err(|e| format!("run mariadb-install-db: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "mariadb-install-db failed: {}",
            tail_lines(&String::from_utf8_lossy(&out.stderr), 5)
        ));
    }
    Ok(())
}

/// Waits until MariaDB answers a query (accepting connections is not enough).
fn wait_mariadb_ready(server: &mut Server, limit: Duration) -> Result<(), String> {
    let deadline = Instant::now() + limit;
    loop {
        if !server.alive() {
            return Err(format!(
                "mariadbd exited during start-up: {}",
                server.log_tail(5)
            ));
        }
        if let Ok(mut conn) = mysql::Conn::new(server.opts(None)) {
            use mysql::prelude::Queryable;
            if conn.query_drop("select 1").is_ok() {
                return Ok(());
            }
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "mariadbd not ready after {limit:?}: {}",
                server.log_tail(5)
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn running_as_root() -> bool {
    // SAFETY: geteuid(2) cannot fail and has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A loopback port that was free a moment ago.
fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("bind an ephemeral port: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ready_line() {
        let line = "2026-11-29T22:00:00Z INFO basaltd 0.1.0 ready for connections on 127.0.0.1:40111 (datadir /tmp/x)";
        assert_eq!(parse_ready(line), Some(40111));
        assert_eq!(parse_ready("starting"), None);
    }

    #[test]
    fn mariadb_gets_seed_settings() {
        let s = Settings {
            buffer_pool: "512M".into(),
            flush: 2,
            max_connections: 20000,
        };
        let args = mariadb_args(&s).join(" ");
        for want in [
            "--performance-schema=0",
            "--loose-innodb-snapshot-isolation=ON",
            "--innodb-buffer-pool-size=512M",
            "--innodb-flush-log-at-trx-commit=2",
            "--innodb-doublewrite=0",
            "--innodb-flush-method=O_DIRECT",
            "--query-cache-size=0",
            "--skip-log-bin",
            "--max-connections=20000",
        ] {
            assert!(args.contains(want), "{want} missing from {args}");
        }
    }

    #[test]
    fn log_bin_replaces_skip_log_bin() {
        let base = vec!["--a".to_string(), "--skip-log-bin".to_string()];
        let on = with_extra(base.clone(), &["--log-bin=mariadb-bin".to_string()]);
        assert_eq!(on, ["--a", "--log-bin=mariadb-bin"]);
        let other = with_extra(base, &["--b".to_string()]);
        assert_eq!(other, ["--a", "--skip-log-bin", "--b"]);
    }

    #[test]
    fn wrapper_goes_first() {
        let w = vec!["valgrind".to_string(), "--tool=callgrind".to_string()];
        let c = command(&w, Path::new("/bin/basaltd"));
        assert_eq!(c.get_program(), "valgrind");
        let args: Vec<_> = c.get_args().collect();
        assert_eq!(args, ["--tool=callgrind", "/bin/basaltd"]);
    }
}
