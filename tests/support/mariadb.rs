//! A real MariaDB server (Debian's `mariadb-server`) for differential tests: its own
//! data directory, an ephemeral loopback port, no grant tables beyond root without a
//! password, stopped when dropped.

use super::{free_port, which};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct MariaDb {
    pub port: u16,
    _dir: tempfile::TempDir,
    child: Option<Child>,
    /// The `extra` options it was started with (for [`MariaDb::restart`]).
    extra: Vec<String>,
}

/// The MariaDB release whose behaviour Basalt reproduces and the differential tests
/// compare strictly: Debian 12's current `mariadb-server`.
pub const REFERENCE_VERSION: (u32, u32, u32) = (10, 11, 19);

/// The installed `mariadbd`'s version (`mariadbd --version`), read once.
pub fn installed_version() -> Option<(u32, u32, u32)> {
    static VERSION: std::sync::OnceLock<Option<(u32, u32, u32)>> = std::sync::OnceLock::new();
    *VERSION.get_or_init(|| {
        let out = Command::new(find_mariadbd()?)
            .arg("--version")
            .output()
            .ok()?;
        parse_version(&String::from_utf8_lossy(&out.stdout))
    })
}

/// `mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for ...` -> (10, 11, 19).
fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let ver = text.split_whitespace().skip_while(|w| *w != "Ver").nth(1)?;
    let mut parts = ver.split(['.', '-']).map(|p| p.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

/// True when the installed MariaDB is the reference release. Other 10.11 patch
/// releases answer a few things differently (column lengths of GREATEST and
/// JSON_ARRAYAGG, JSON_VALID's notes, the column named in ALTER's conversion
/// warnings, negative zero in FLOAT columns, thread stack use); the differential
/// tests compare those strictly only against the reference release.
pub fn is_reference() -> bool {
    installed_version() == Some(REFERENCE_VERSION)
}

/// True when `mariadbd` and `mariadb-install-db` are installed.
pub fn available() -> bool {
    find_mariadbd().is_some() && which("mariadb-install-db").is_some()
}

fn find_mariadbd() -> Option<PathBuf> {
    which("mariadbd").or_else(|| {
        let p = PathBuf::from("/usr/sbin/mariadbd");
        p.is_file().then_some(p)
    })
}

/// A Basalt and a MariaDB started for a differential test, with a
/// connection to each; None (and a note) without mariadb-server.
pub fn paired() -> Option<(crate::Basalt, MariaDb, mysql::Conn, mysql::Conn)> {
    if !available() {
        eprintln!("mariadb-server not installed; skipping");
        return None;
    }
    let b = crate::Basalt::start();
    let m = MariaDb::start(&[]);
    let url = |u: String| mysql::Opts::from_url(&u).unwrap();
    let bc = mysql::Conn::new(url(b.url())).unwrap();
    let mc = mysql::Conn::new(url(m.url())).unwrap();
    Some((b, m, bc, mc))
}

impl MariaDb {
    /// Installs a fresh data directory and starts MariaDB with the seed benchmark's
    /// settings (`shared/bench/README.md`), plus `extra` options.
    pub fn start(extra: &[&str]) -> MariaDb {
        for _ in 0..3 {
            if let Some(m) = MariaDb::try_start(extra) {
                return m;
            }
        }
        panic!("MariaDB did not start");
    }

    fn try_start(extra: &[&str]) -> Option<MariaDb> {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = dir.path().join("data");
        // A temporary directory of its own: concurrent installs sharing /tmp trip over
        // each other's temporary tables.
        let tmp = dir.path().join("tmp");
        std::fs::create_dir_all(&tmp).expect("tmpdir");
        let out = Command::new("mariadb-install-db")
            .arg("--no-defaults")
            .arg(format!("--datadir={}", data.display()))
            .arg(format!("--tmpdir={}", tmp.display()))
            .arg("--auth-root-authentication-method=normal")
            .arg("--skip-test-db")
            .arg("--user=root")
            .output()
            .expect("run mariadb-install-db");
        if !out.status.success() {
            eprintln!(
                "mariadb-install-db failed (retrying): {}",
                String::from_utf8_lossy(&out.stderr)
            );
            return None;
        }
        let port = free_port();
        let child = spawn(dir.path(), port, extra);
        let mut m = MariaDb {
            port,
            _dir: dir,
            child: Some(child),
            extra: extra.iter().map(|a| a.to_string()).collect(),
        };
        if m.wait_ready() {
            return Some(m);
        }
        m.stop();
        None
    }

    fn wait_ready(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Some(c) = self.child.as_mut() {
                if let Ok(Some(_)) = c.try_wait() {
                    return false;
                }
            }
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                // Wait until it answers queries, not just accepts.
                let (code, _, _) = super::mariadb_cli(self.port, &["-e", "select 1"], "");
                if code == 0 {
                    return true;
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }

    /// Starts MariaDB as a binary-logging primary: `--log-bin=mariadb-bin` (files
    /// `mariadb-bin.NNNNNN` in [`MariaDb::datadir`]), `--server-id=server_id`, row
    /// format with full row metadata (CDC clients need the column names), plus
    /// `extra`.
    pub fn start_binlog(server_id: u32, extra: &[&str]) -> MariaDb {
        let id = format!("--server-id={server_id}");
        let mut all = vec![
            "--log-bin=mariadb-bin",
            id.as_str(),
            "--binlog-format=ROW",
            "--binlog-row-metadata=FULL",
        ];
        all.extend_from_slice(extra);
        MariaDb::start(&all)
    }

    /// The server's data directory.
    pub fn datadir(&self) -> PathBuf {
        self._dir.path().join("data")
    }

    /// Its Unix socket.
    pub fn socket(&self) -> PathBuf {
        self._dir.path().join("mysqld.sock")
    }

    /// Stops the server (SIGTERM, a clean shutdown) and starts it again on the same
    /// data directory, port and options; panics if it does not come back.
    pub fn restart(&mut self) {
        self.stop();
        let owned = self.extra.clone();
        let extra: Vec<&str> = owned.iter().map(|a| a.as_str()).collect();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            self.child = Some(spawn(self._dir.path(), self.port, &extra));
            if self.wait_ready() {
                return;
            }
            self.stop();
            // The port may still be held by the old process's socket for a moment.
            assert!(Instant::now() < deadline, "MariaDB did not restart");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    pub fn url(&self) -> String {
        format!("mysql://root@127.0.0.1:{}/", self.port)
    }

    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            // SAFETY: kill(2) on our own child's pid.
            unsafe {
                libc::kill(c.id() as i32, libc::SIGTERM);
            }
            let deadline = Instant::now() + Duration::from_secs(30);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = c.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Spawns `mariadbd` on `<dir>/data` with the seed benchmark's settings plus `extra`.
fn spawn(dir: &Path, port: u16, extra: &[&str]) -> Child {
    let mariadbd = find_mariadbd().expect("mariadbd installed");
    Command::new(&mariadbd)
        .arg("--no-defaults")
        .arg(format!("--datadir={}", dir.join("data").display()))
        .arg(format!("--tmpdir={}", dir.join("tmp").display()))
        .arg(format!("--port={port}"))
        .arg("--bind-address=127.0.0.1")
        .arg(format!("--socket={}", dir.join("mysqld.sock").display()))
        .arg(format!("--pid-file={}", dir.join("mysqld.pid").display()))
        .arg("--user=root")
        .args([
            "--performance-schema=0",
            "--skip-log-bin",
            "--innodb-doublewrite=0",
            "--query-cache-size=0",
            "--max-connections=2000",
            "--character-set-server=utf8mb4",
            "--collation-server=utf8mb4_general_ci",
        ])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn mariadbd")
}

/// One statement's outcome as a client sees it: its rows (cells as text) or
/// its error code.
pub type Outcome = Result<Vec<Vec<Option<String>>>, u16>;

/// Runs `sql` and returns its [`Outcome`] (panics on a transport error).
pub fn outcome(c: &mut mysql::Conn, sql: &str) -> Outcome {
    use mysql::prelude::Queryable;
    match c.query::<mysql::Row, _>(sql) {
        Ok(rs) => Ok(rs
            .into_iter()
            .map(|r| r.unwrap().iter().map(super::cell).collect())
            .collect()),
        Err(mysql::Error::MySqlError(e)) => Err(e.code),
        Err(e) => panic!("{sql}: {e}"),
    }
}

/// Runs each statement of `script` on Basalt's connection and on MariaDB's
/// and lists the statements whose outcome or SHOW WARNINGS differ;
/// `mask` blanks what may differ between the servers (creation times).
pub fn differences(
    basalt: &mut mysql::Conn,
    mariadb: &mut mysql::Conn,
    script: &[&str],
    mask: impl Fn(&str, Outcome) -> Outcome,
) -> Vec<String> {
    differences_by(basalt, mariadb, script, |c, sql| mask(sql, outcome(c, sql)))
}

/// [`differences`] with the outcome `run` takes of each statement (all of a
/// CALL's result sets, for instance).
pub fn differences_by<T: PartialEq + std::fmt::Debug>(
    basalt: &mut mysql::Conn,
    mariadb: &mut mysql::Conn,
    script: &[&str],
    run: impl Fn(&mut mysql::Conn, &str) -> T,
) -> Vec<String> {
    use mysql::prelude::Queryable;
    let mut diffs = Vec::new();
    for sql in script {
        let rb = run(basalt, sql);
        let rm = run(mariadb, sql);
        let wb: Vec<(String, u16, String)> = basalt.query("show warnings").unwrap();
        let wm: Vec<(String, u16, String)> = mariadb.query("show warnings").unwrap();
        if rb != rm || wb != wm {
            diffs.push(format!(
                "{sql}\n basalt:  {rb:?} {wb:?}\n mariadb: {rm:?} {wm:?}"
            ));
        }
    }
    diffs
}
