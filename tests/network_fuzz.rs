//! Network-level fuzzing of `basaltd` (the fuzzer is `basalt_tests::netfuzz`): an
//! unprivileged account logs in over raw TCP and sends generated and mutated packets
//! of every command, malformed framing and mangled handshake responses, in batches.
//! After each batch another session, root's, checks that the server still answers
//! (the session opened at the start and a new one), that the committed rows of a
//! table the fuzzing account cannot touch are unchanged, that no thread panicked,
//! that the fuzzing connections are gone once their sockets closed, and that the
//! server's resident memory stays under a bound.
//!
//! The fuzzing account has every privilege on its own database and REPLICATION
//! SLAVE (so binlog dumps get past the privilege check), nothing else: KILL of
//! root's session, SHUTDOWN (statement and COM_SHUTDOWN), grants and the guarded
//! database must all be refused. Root has a password, so a fuzzed COM_CHANGE_USER
//! cannot become root.
//!
//! Reproduce or go longer with `BASALT_NETFUZZ_SEED` (printed at the start),
//! `BASALT_NETFUZZ_BATCHES`, `BASALT_NETFUZZ_PACKETS` (per batch) and
//! `BASALT_NETFUZZ_SECONDS` (the time bound of the fuzzing).

use basalt_tests::netfuzz::{Fuzzer, Stats, Target};
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts, OptsBuilder};
use std::time::{Duration, Instant};

const ROOT_PASSWORD: &str = "netfuzz-root";
const FUZZ_USER: &str = "fuzz";
const FUZZ_DB: &str = "fuzzdb";
/// Rows of `guard.kept`, committed before the fuzzing starts.
const KEPT_ROWS: i64 = 200;
/// What `SELECT ... INTO OUTFILE` would write if the FILE privilege were not checked.
const OUTFILE: &str = "/tmp/basalt-netfuzz-out";
/// `--buffer-pool-size`: the pool's frames are touched as pages are read, so they
/// count in full towards the memory bound below.
const POOL_MB: u64 = 32;
/// Allowed growth of the server's RSS over its size after the set-up, on top of the
/// buffer pool: the plan cache (up to 8,192 entries keyed by statement text, and
/// fuzzed texts are nearly all new), the connection thread cache (up to 64 idle
/// threads), the fuzzing database's rows and statistics, the binary log's buffers,
/// long data kept per statement (each parameter bounded by max_allowed_packet, 1 MiB
/// here) and what the allocator keeps after freeing. Measured: default runs peak
/// 30-50 MiB above the start; runs of 400,000 packets 65-95 MiB, still creeping up
/// slowly (as the fuzzing database grows, or a small leak: not settled). Keeping
/// 8 KiB or more per command (a read buffer, a statement's result) would pass the
/// bound within the default 20,000 packets; a leak of a few bytes per command
/// would not.
const RSS_SLACK_MB: u64 = 128;

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(
        v.parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a number")),
    )
}

fn root_opts(b: &Basalt, password: Option<&str>) -> Opts {
    let url = b.url();
    OptsBuilder::from_opts(Opts::from_url(&url).expect("url"))
        .pass(password)
        .read_timeout(Some(Duration::from_secs(30)))
        .write_timeout(Some(Duration::from_secs(30)))
        .into()
}

fn run(c: &mut Conn, sql: &str) {
    c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// The guarded table's rows, as the checks compare them.
fn kept(c: &mut Conn) -> Result<Vec<(i64, String, i64)>, mysql::Error> {
    c.query("SELECT id, v, n FROM guard.kept ORDER BY id")
}

fn set_up(b: &Basalt) -> Conn {
    let mut c = Conn::new(root_opts(b, None)).expect("connect as root");
    run(&mut c, "CREATE DATABASE guard");
    run(
        &mut c,
        "CREATE TABLE guard.kept (id INT PRIMARY KEY, v VARCHAR(100), n BIGINT)",
    );
    let rows: Vec<String> = (0..KEPT_ROWS)
        .map(|i| {
            format!(
                "({i}, 'row {i} {}', {})",
                "x".repeat(i as usize % 50),
                i * i
            )
        })
        .collect();
    run(
        &mut c,
        &format!("INSERT INTO guard.kept VALUES {}", rows.join(",")),
    );
    run(&mut c, &format!("CREATE DATABASE {FUZZ_DB}"));
    run(
        &mut c,
        &format!(
            "CREATE TABLE {FUZZ_DB}.t1 (id INT AUTO_INCREMENT PRIMARY KEY, a INT, b VARCHAR(64), \
             c DOUBLE, d DATETIME, e BLOB, KEY (a))"
        ),
    );
    run(
        &mut c,
        &format!(
            "CREATE TABLE {FUZZ_DB}.t2 (k VARCHAR(32) PRIMARY KEY, v TEXT, n BIGINT UNSIGNED)"
        ),
    );
    for i in 0..30 {
        run(
            &mut c,
            &format!(
                "INSERT INTO {FUZZ_DB}.t1 (a, b, c, d, e) VALUES ({}, 'k{}', {i}.25, '2024-01-{:02} 10:00:00', x'0102')",
                i % 7,
                i % 10,
                1 + i % 28
            ),
        );
    }
    run(
        &mut c,
        &format!("INSERT INTO {FUZZ_DB}.t2 VALUES ('k1', 'one', 1), ('k2', 'two', 2)"),
    );
    run(&mut c, &format!("CREATE USER {FUZZ_USER}@'%'"));
    run(
        &mut c,
        &format!("GRANT ALL PRIVILEGES ON {FUZZ_DB}.* TO {FUZZ_USER}@'%'"),
    );
    run(
        &mut c,
        &format!("GRANT REPLICATION SLAVE ON *.* TO {FUZZ_USER}@'%'"),
    );
    // Statements and lock waits end in seconds, so a fuzzing step never waits long.
    run(&mut c, "SET GLOBAL max_statement_time = 2");
    run(&mut c, "SET GLOBAL lock_wait_timeout = 2");
    run(&mut c, "SET GLOBAL innodb_lock_wait_timeout = 2");
    let roots: Vec<String> = c
        .query("SELECT Host FROM mysql.user WHERE User = 'root'")
        .expect("root accounts");
    assert!(!roots.is_empty(), "no root account");
    for host in roots {
        run(
            &mut c,
            &format!("ALTER USER root@'{host}' IDENTIFIED BY '{ROOT_PASSWORD}'"),
        );
    }
    drop(c);
    Conn::new(root_opts(b, Some(ROOT_PASSWORD))).expect("root with its password")
}

/// The server's resident set in MiB (VmRSS of /proc/<pid>/status).
fn rss_mb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_else(|e| panic!("basaltd (pid {pid}) is gone: {e}"));
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS in /proc/<pid>/status");
    kb / 1024
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status")).is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("State:"))
            .is_some_and(|l| !l.contains('Z'))
    })
}

/// Fuzzing sessions still on the server, other than blocking binlog dumps (which,
/// as in MariaDB, notice a vanished replica only at their next write).
fn fuzz_sessions(c: &mut Conn) -> Result<Vec<(u64, String, String)>, mysql::Error> {
    c.query(format!(
        "SELECT ID, COMMAND, COALESCE(STATE, '') FROM information_schema.PROCESSLIST \
         WHERE USER = '{FUZZ_USER}' AND COMMAND <> 'Binlog Dump'"
    ))
}

struct Checker {
    expected: Vec<(i64, String, i64)>,
    rss_limit_mb: u64,
    rss_max_mb: u64,
    rss_last_mb: u64,
    seed: u64,
}

impl Checker {
    /// Everything the fuzzing must not have changed; panics with the seed, the last
    /// packets sent and the server's log tail otherwise.
    fn check(&mut self, b: &Basalt, root: &mut Conn, fuzzer: &Fuzzer, batch: u64) {
        let fail = |what: String| -> ! {
            let log = b.log();
            let tail: Vec<&str> = log.lines().rev().take(40).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            panic!(
                "after batch {batch} (BASALT_NETFUZZ_SEED={}): {what}\nlast packets sent:\n{}\nserver log tail:\n{}",
                self.seed,
                fuzzer.recent_hex(),
                tail.join("\n")
            )
        };
        if !alive(b.pid()) {
            fail("basaltd is no longer running".into());
        }
        let log = b.log();
        let lines: Vec<&str> = log.lines().collect();
        if let Some(i) = lines.iter().position(|l| l.contains("panicked")) {
            let end = (i + 3).min(lines.len());
            fail(format!(
                "a server thread panicked:\n{}",
                lines[i..end].join("\n")
            ));
        }
        match root.query_first::<i64, _>("SELECT 1") {
            Ok(Some(1)) => {}
            other => fail(format!("root's session: SELECT 1 gave {other:?}")),
        }
        match kept(root) {
            Ok(rows) if rows == self.expected => {}
            Ok(rows) => fail(format!(
                "guard.kept changed: {} rows, first differing {:?}",
                rows.len(),
                rows.iter().zip(&self.expected).find(|(a, b)| a != b)
            )),
            Err(e) => fail(format!("guard.kept: {e}")),
        }
        match Conn::new(root_opts(b, Some(ROOT_PASSWORD))) {
            Ok(mut fresh) => match fresh.query_first::<i64, _>("SELECT 1") {
                Ok(Some(1)) => {}
                other => fail(format!("a new session: SELECT 1 gave {other:?}")),
            },
            Err(e) => fail(format!("a new session cannot log in: {e}")),
        }
        // The fuzzer closed its socket: its session must end (a statement still
        // running stops within max_statement_time).
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            match fuzz_sessions(root) {
                Ok(left) if left.is_empty() => break,
                Ok(left) if Instant::now() > deadline => fail(format!(
                    "fuzzing sessions left 15 s after closing: {left:?}"
                )),
                Ok(_) => std::thread::sleep(Duration::from_millis(50)),
                Err(e) => fail(format!("PROCESSLIST: {e}")),
            }
        }
        let rss = rss_mb(b.pid());
        self.rss_last_mb = rss;
        self.rss_max_mb = self.rss_max_mb.max(rss);
        if rss > self.rss_limit_mb {
            fail(format!(
                "server RSS {rss} MiB is over the bound of {} MiB",
                self.rss_limit_mb
            ));
        }
        if std::path::Path::new(OUTFILE).exists() {
            let _ = std::fs::remove_file(OUTFILE);
            fail(format!("the fuzzing account wrote {OUTFILE}"));
        }
    }
}

fn summary(s: &Stats, took: Duration) -> String {
    let commands: Vec<String> = s
        .commands
        .iter()
        .map(|(c, n)| format!("{c:02x}:{n}"))
        .collect();
    let mut errs: Vec<(&u16, &u64)> = s.err_codes.iter().collect();
    errs.sort_by(|a, b| b.1.cmp(a.1));
    let errs: Vec<String> = errs
        .iter()
        .take(10)
        .map(|(c, n)| format!("{c}:{n}"))
        .collect();
    format!(
        "{} packets in {} steps ({} in step, {} closed, {} out of step), {} responses \
         ({} OK, {} ERR; most common errors {}), {} logins ({} refused), \
         {} mangled handshakes, {:.1} s; per command byte: {}",
        s.packets_sent,
        s.steps,
        s.synced,
        s.closed,
        s.desyncs,
        s.responses,
        s.oks,
        s.errs,
        errs.join(" "),
        s.logins,
        s.login_failures,
        s.handshake_fuzz,
        took.as_secs_f64(),
        commands.join(" ")
    )
}

#[test]
fn fuzzed_packets_of_every_command_hurt_only_their_own_connection() {
    let seed = env_u64("BASALT_NETFUZZ_SEED").unwrap_or_else(|| {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock after 1970");
        t.as_nanos() as u64 ^ u64::from(std::process::id())
    });
    let batches = env_u64("BASALT_NETFUZZ_BATCHES").unwrap_or(20);
    let per_batch = env_u64("BASALT_NETFUZZ_PACKETS").unwrap_or(1000);
    let seconds = env_u64("BASALT_NETFUZZ_SECONDS").unwrap_or(120);
    eprintln!(
        "network_fuzz: BASALT_NETFUZZ_SEED={seed}, {batches} batches of {per_batch} packets, at most {seconds} s"
    );

    let pool = format!("--buffer-pool-size={POOL_MB}M");
    let b = Basalt::start_with(&["--log-bin", "--max-allowed-packet=1M", &pool]);
    let mut root = set_up(&b);
    let root_id: u32 = root
        .query_first("SELECT CONNECTION_ID()")
        .expect("id")
        .expect("row");
    let status: mysql::Row = root
        .query_first("SHOW MASTER STATUS")
        .expect("SHOW MASTER STATUS")
        .expect("the binary log is on");
    let binlog_file: String = status.get(0).expect("File");
    let expected = kept(&mut root).expect("guard.kept");
    assert_eq!(expected.len(), KEPT_ROWS as usize);
    let start_rss = rss_mb(b.pid());
    let mut checker = Checker {
        expected,
        rss_limit_mb: start_rss + POOL_MB + RSS_SLACK_MB,
        rss_max_mb: start_rss,
        rss_last_mb: start_rss,
        seed,
    };
    let mut fuzzer = Fuzzer::new(
        seed,
        Target {
            port: b.port,
            user: FUZZ_USER.into(),
            db: FUZZ_DB.into(),
            protected_ids: vec![root_id],
            binlog_file,
            max_allowed_packet: 1 << 20,
        },
    );

    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let mut done = 0;
    for batch in 1..=batches {
        if Instant::now() >= deadline {
            break;
        }
        let ran = fuzzer.run(per_batch, deadline);
        fuzzer.disconnect();
        checker.check(&b, &mut root, &fuzzer, batch);
        if let Err(e) = ran {
            panic!("batch {batch} (BASALT_NETFUZZ_SEED={seed}): {e}");
        }
        done = batch;
        let s = &fuzzer.stats;
        eprintln!(
            "network_fuzz: batch {batch}: {} packets, {} steps in step, {} closed, {} out of step, \
             server RSS {} MiB, {:.1} s",
            s.packets_sent,
            s.synced,
            s.closed,
            s.desyncs,
            checker.rss_last_mb,
            started.elapsed().as_secs_f64()
        );
    }
    let took = started.elapsed();
    let s = fuzzer.stats.clone();
    eprintln!("network_fuzz: {}", summary(&s, took));
    eprintln!(
        "network_fuzz: {done} batches checked; server RSS {start_rss} MiB after set-up, at most {} MiB (bound {} MiB)",
        checker.rss_max_mb, checker.rss_limit_mb
    );

    // Not vacuous: most of the planned packets went out and were answered, the
    // fuzzer stayed in step with the server most of the time, and every command
    // was sent.
    let planned = batches * per_batch;
    assert!(
        s.packets_sent >= planned.min(2000),
        "only {} of {planned} packets sent",
        s.packets_sent
    );
    assert!(
        s.responses >= s.packets_sent / 2,
        "only {} responses to {} packets",
        s.responses,
        s.packets_sent
    );
    assert!(
        s.synced >= s.steps / 3,
        "in step after only {} of {} steps",
        s.synced,
        s.steps
    );
    assert!(s.logins > 0 && s.handshake_fuzz > 0);
    if s.packets_sent >= 2000 {
        for code in [
            0x00u8, 0x01, 0x02, 0x03, 0x04, 0x07, 0x08, 0x09, 0x0c, 0x0d, 0x0e, 0x11, 0x12, 0x15,
            0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1e, 0x1f,
        ] {
            assert!(
                s.commands.get(&code).copied().unwrap_or(0) > 0,
                "command {code:#04x} was never sent"
            );
        }
    }
    // The server still stops cleanly after all that.
    drop(root);
    let mut b = b;
    assert_eq!(b.stop(), Some(0), "basaltd's exit after the fuzzing");
}
