//! The real binary refuses to hide damage: a second server on a data directory in
//! use, a damaged table header, and a damaged record at the end of the log after
//! `kill -9` are each refused or reported, never served as lost or rolled-back rows.

use basalt_tests::{basaltd_path, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::io::{BufRead, BufReader};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn conn(b: &Basalt) -> Conn {
    Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect")
}

fn count(c: &mut Conn, table: &str) -> Result<i64, mysql::Error> {
    Ok(c.query_first(format!("select count(*) from {table}"))?
        .expect("a row"))
}

fn server_error(e: mysql::Error) -> (u16, String) {
    match e {
        mysql::Error::MySqlError(m) => (m.code, m.message),
        other => panic!("expected a server error, got {other}"),
    }
}

/// Runs `basaltd` on `datadir` expecting it to refuse to start: returns its exit
/// code and stderr. Panics if it becomes ready (it is killed first).
fn refused_start(datadir: &Path, args: &[&str]) -> (i32, String) {
    let mut child = Command::new(basaltd_path())
        .args(["--port", "0", "--bind-address", "127.0.0.1", "--datadir"])
        .arg(datadir)
        .arg("--socket")
        .arg(basalt_tests::socket_for(datadir))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn basaltd");
    let stderr = child.stderr.take().expect("piped stderr");
    let mut log = String::new();
    for line in BufReader::new(stderr).lines().map_while(Result::ok) {
        log.push_str(&line);
        log.push('\n');
        if line.contains("ready for connections") {
            let _ = child.kill();
            let _ = child.wait();
            panic!("basaltd started although it should have refused:\n{log}");
        }
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(Some(st)) = child.try_wait() {
            return (st.code().unwrap_or(-1), log);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("basaltd neither started nor exited:\n{log}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_second_server_on_a_locked_data_directory_refuses_to_start() {
    let mut b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create database x").expect("db");
    c.query_drop("create table x.t (id int primary key, v int)")
        .expect("create");
    c.query_drop("insert into x.t values (1, 1), (2, 2), (3, 3)")
        .expect("insert");
    let (code, log) = refused_start(&b.datadir, &[]);
    assert_eq!(code, 1, "{log}");
    assert!(
        log.contains("is in use by another server")
            && log.contains("basaltd.lock")
            && log.contains(&format!("(pid {})", b.pid())),
        "{log}"
    );
    // The first server was not disturbed, and its commits survive its restarts; a
    // kill -9 leaves no stale lock behind.
    c.query_drop("insert into x.t values (4, 4)")
        .expect("insert");
    drop(c);
    b.restart(false);
    assert_eq!(
        count(&mut conn(&b), "x.t").expect("count"),
        4,
        "{}",
        b.log()
    );
    b.restart(true);
    assert_eq!(count(&mut conn(&b), "x.t").expect("count"), 4);
}

fn flip_byte(path: &Path, offset: u64) {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .expect("open for damage");
    let mut b = [0u8];
    f.read_exact_at(&mut b, offset).expect("read");
    b[0] ^= 0x20;
    f.write_all_at(&b, offset).expect("write");
}

#[test]
fn a_damaged_newest_table_header_fails_the_table_with_1877() {
    let mut b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create database x").expect("db");
    // Table ids follow creation order: t's file is 1.bdt.
    c.query_drop("create table x.t (id int primary key, v int)")
        .expect("create");
    c.query_drop("create table x.u (id int primary key, v int)")
        .expect("create");
    c.query_drop("insert into x.t values (1, 1), (2, 2), (3, 3)")
        .expect("insert");
    c.query_drop("insert into x.u values (1, 1), (2, 2), (3, 3)")
        .expect("insert");
    drop(c);
    assert_eq!(b.stop(), Some(0));
    // Which of the two header copies is the newer (checkpoint sequence at byte 8)?
    let file = b.datadir.join("tables/1.bdt");
    let data = std::fs::read(&file).expect("table file");
    let seq = |slot: usize| {
        let at = slot * 16384 + 8;
        u64::from_le_bytes(data[at..at + 8].try_into().expect("8 bytes"))
    };
    let newer = if seq(1) > seq(0) { 1 } else { 0 };
    flip_byte(&file, newer * 16384 + 100);
    let b2 = Basalt::launch(&b.datadir, &[]);
    let mut c = conn(&b2);
    for sql in ["select count(*) from x.t", "insert into x.t values (1, 9)"] {
        let (code, msg) = server_error(c.query_drop(sql).expect_err(sql));
        assert_eq!(code, 1877, "{sql}: {msg}");
        assert!(
            msg.contains("1.bdt") && msg.contains(&format!("page {newer} ")),
            "{sql}: {msg}"
        );
    }
    assert_eq!(count(&mut c, "x.u").expect("other tables serve"), 3);
    let log = b2.log();
    assert!(
        log.contains("table unavailable") && log.contains("Restore the table from a backup"),
        "{log}"
    );
}

/// The sequence number of a log segment file and its frames (file offset, length),
/// walked from its first frame (none when its start holds no frame).
fn frames(path: &Path) -> (u64, Frames) {
    let f = std::fs::File::open(path).expect("segment");
    let mut head = vec![0u8; 4096];
    f.read_exact_at(&mut head, 0).expect("segment header");
    let seq = u64::from_le_bytes(head[16..24].try_into().expect("8 bytes"));
    let size = u64::from_le_bytes(head[24..32].try_into().expect("8 bytes"));
    let data = size - 4096;
    let mut body = vec![0u8; (8 << 20).min(data as usize)];
    f.read_exact_at(&mut body, 4096).expect("segment data");
    let mut out = Vec::new();
    let mut off = 0usize;
    while off + 32 <= body.len() {
        let lsn = u64::from_le_bytes(body[off + 8..off + 16].try_into().expect("8 bytes"));
        if lsn != seq * data + off as u64 {
            break;
        }
        let len = u32::from_le_bytes(body[off + 4..off + 8].try_into().expect("4 bytes"));
        let frame = (32 + len as usize).div_ceil(8) * 8;
        out.push((4096 + off as u64, frame as u64));
        if body[off + 24] == 0xFF {
            break;
        }
        off += frame;
    }
    (seq, out)
}

/// Frames of a log segment: (file offset, length) each.
type Frames = Vec<(u64, u64)>;

/// The segment file holding the end of the log, and its frames.
fn newest_segment(datadir: &Path) -> (PathBuf, Frames) {
    let mut best: Option<(u64, PathBuf, Frames)> = None;
    for e in std::fs::read_dir(datadir.join("log"))
        .expect("log dir")
        .flatten()
    {
        let path = e.path();
        if path.extension().is_none_or(|x| x != "seg") {
            continue;
        }
        let (seq, f) = frames(&path);
        if f.is_empty() {
            continue;
        }
        if best.as_ref().is_none_or(|(s, _, _)| seq > *s) {
            best = Some((seq, path, f));
        }
    }
    let (_, path, f) = best.expect("a segment with frames");
    (path, f)
}

/// 200 acknowledged single-row commits, then kill -9. Returns the server handle
/// (stopped) whose data directory holds the log.
fn acked_then_killed() -> Basalt {
    let mut b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create database x").expect("db");
    c.query_drop("create table x.t (id int primary key, v int)")
        .expect("create");
    for i in 0..200 {
        c.query_drop(format!("insert into x.t values ({i}, {i})"))
            .expect("insert");
    }
    b.kill9();
    b
}

#[test]
fn a_damaged_log_record_followed_by_valid_ones_refuses_to_start() {
    let b = acked_then_killed();
    let (seg, f) = newest_segment(&b.datadir);
    // The last insert is a CHANGE and a COMMIT record, both in the last 200 bytes of
    // the log. Damage the CHANGE: a valid COMMIT follows it.
    let (change, change_len) = f[f.len() - 2];
    let (commit, commit_len) = f[f.len() - 1];
    assert!(commit + commit_len - change <= 200, "{f:?}");
    flip_byte(&seg, change + change_len - 9);
    let (code, log) = refused_start(&b.datadir, &[]);
    assert_eq!(code, 1, "{log}");
    assert!(
        log.contains("valid records follow the damage (1 of them")
            && log.contains("--discard-damaged-log-tail"),
        "{log}"
    );
    // Refusing changed nothing: the same answer again. Then the operator accepts it.
    let (_, again) = refused_start(&b.datadir, &[]);
    assert!(
        again.contains("valid records follow the damage (1 of them"),
        "{again}"
    );
    let b2 = Basalt::launch(&b.datadir, &["--discard-damaged-log-tail"]);
    assert!(
        b2.log().contains("discarding them as configured"),
        "{}",
        b2.log()
    );
    assert_eq!(count(&mut conn(&b2), "x.t").expect("count"), 199);
}

#[test]
fn a_damaged_last_log_record_is_cut_and_reported() {
    let b = acked_then_killed();
    let (seg, f) = newest_segment(&b.datadir);
    let (commit, commit_len) = f[f.len() - 1];
    flip_byte(&seg, commit + commit_len - 2);
    let b2 = Basalt::launch(&b.datadir, &[]);
    let log = b2.log();
    assert!(
        log.contains("WARN")
            && log.contains("the log ends with a damaged record: discarding LSN")
            && log.contains("(1 record)"),
        "{log}"
    );
    assert_eq!(count(&mut conn(&b2), "x.t").expect("count"), 199);
}
