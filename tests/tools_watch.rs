//! The monitoring tools operators run against every server, unchanged:
//! pt-table-checksum, pt-query-digest watching the process list,
//! `mariadb-admin extended-status` in its relative, repeating form, and
//! innotop's non-interactive modes.

use basalt_tests::client::{ok, root};
use basalt_tests::{which, Basalt};
use mysql::prelude::*;
use std::process::{Command, Stdio};

/// Runs `bin args`, returning (success, stdout, stderr).
fn run(bin: &std::path::Path, args: &[String]) -> (bool, String, String) {
    let out = Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", bin.display()));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn pt_table_checksum_checksums_every_chunk() {
    let Some(bin) = which("pt-table-checksum") else {
        eprintln!("pt-table-checksum not installed; skipping");
        return;
    };
    let b = Basalt::start();
    let mut c = root(&b);
    ok(&mut c, "create database ck");
    ok(
        &mut c,
        "create table ck.small (id int primary key, v varchar(20), k int, key (k))",
    );
    ok(
        &mut c,
        "insert into ck.small values (1, 'a', 1), (2, 'b', 2), (3, 'c', 3), (4, 'd', 4)",
    );
    ok(
        &mut c,
        "create table ck.big (id int primary key, v varchar(40), d datetime, n decimal(10, 2))",
    );
    let values: Vec<String> = (1..=3000)
        .map(|i| format!("({i}, 'row {i}', '2026-01-01 00:00:00' + interval {i} minute, {i}.25)"))
        .collect();
    ok(
        &mut c,
        &format!("insert into ck.big values {}", values.join(",")),
    );
    // Without a binary log the tool's SET binlog_format = 'STATEMENT' has no
    // effect, as on a MariaDB without log_bin.
    let dsn = format!("h=127.0.0.1,P={},u=root", b.port);
    let args: Vec<String> = [
        dsn.as_str(),
        "--databases",
        "ck",
        "--recursion-method=none",
        "--chunk-size=500",
        "--chunk-time=0",
    ]
    .map(String::from)
    .to_vec();
    let (success, out, err) = run(&bin, &args);
    assert!(success, "{out}\n{err}");
    let lines: Vec<&str> = out.lines().filter(|l| l.contains(" ck.")).collect();
    assert_eq!(lines.len(), 2, "{out}");
    for l in &lines {
        let f: Vec<&str> = l.split_whitespace().collect();
        // TS ERRORS DIFFS ROWS DIFF_ROWS CHUNKS SKIPPED TIME TABLE
        assert_eq!((f[1], f[2], f[6]), ("0", "0", "0"), "{l}");
    }
    let chunks: Vec<(String, u64, String, u64)> = c
        .query(
            "select tbl, count(*), group_concat(distinct this_crc = master_crc), sum(this_cnt) \
             from percona.checksums group by tbl order by tbl",
        )
        .unwrap();
    assert_eq!(chunks.len(), 2, "{chunks:?}");
    assert!(chunks[0].1 >= 6, "{chunks:?}");
    assert_eq!((chunks[0].2.as_str(), chunks[0].3), ("1", 3000));
    // The same checksum as MariaDB 10.11 gives for these four rows.
    let crc: String = c
        .query_first("select this_crc from percona.checksums where tbl = 'small'")
        .unwrap()
        .unwrap();
    assert_eq!(crc, "90b9dbbb");
}

#[test]
fn pt_query_digest_reads_the_process_list() {
    let Some(bin) = which("pt-query-digest") else {
        eprintln!("pt-query-digest not installed; skipping");
        return;
    };
    let b = Basalt::start();
    let url = b.url();
    let sleeper = std::thread::spawn(move || {
        let mut s = mysql::Conn::new(url.as_str()).unwrap();
        let _: Vec<(i64, String)> = s.query("select sleep(2), 'watched'").unwrap();
    });
    let dsn = format!("h=127.0.0.1,P={},u=root", b.port);
    let args: Vec<String> = [
        "--processlist",
        dsn.as_str(),
        "--run-time",
        "3",
        "--interval",
        "0.1",
    ]
    .map(String::from)
    .to_vec();
    let (success, out, err) = run(&bin, &args);
    sleeper.join().unwrap();
    assert!(success, "{out}\n{err}");
    assert!(out.contains("# Profile"), "{out}");
    assert!(out.contains("select sleep(2), 'watched'"), "{out}");
}

#[test]
fn mariadb_admin_extended_status_relative_and_repeated() {
    let Some(bin) = which("mariadb-admin") else {
        eprintln!("mariadb-admin not installed; skipping");
        return;
    };
    let b = Basalt::start();
    let args: Vec<String> = [
        "-h127.0.0.1".to_string(),
        format!("-P{}", b.port),
        "-uroot".into(),
        "extended-status".into(),
        "-r".into(),
        "-i".into(),
        "1".into(),
        "-c".into(),
        "2".into(),
    ]
    .to_vec();
    let (success, out, err) = run(&bin, &args);
    assert!(success, "{out}\n{err}");
    let uptimes: Vec<u64> = out
        .lines()
        .filter(|l| l.starts_with("| Uptime "))
        .filter_map(|l| l.split('|').nth(2)?.trim().parse().ok())
        .collect();
    // The first table is absolute, the second the difference (1 or 2 s).
    assert_eq!(uptimes.len(), 2, "{out}");
    assert!((1..=2).contains(&uptimes[1]), "{uptimes:?}");
    let questions: Vec<u64> = out
        .lines()
        .filter(|l| l.starts_with("| Questions "))
        .filter_map(|l| l.split('|').nth(2)?.trim().parse().ok())
        .collect();
    // Each round is one SHOW GLOBAL STATUS.
    assert_eq!(questions.len(), 2, "{out}");
    assert_eq!(questions[1], 1, "{out}");
}

/// innotop's modes that read the process list, command counters, lock waits,
/// open tables and table statistics print their tables without an error. (Its
/// modes that parse SHOW ENGINE INNODB STATUS's header stop at a Perl warning
/// on MariaDB 10.11 too: this innotop expects MySQL 5.x's timestamp there.)
#[test]
fn innotop_modes_print_without_errors() {
    let Some(bin) = which("innotop") else {
        eprintln!("innotop not installed; skipping");
        return;
    };
    let b = Basalt::start();
    let mut c = root(&b);
    ok(&mut c, "create database it");
    ok(&mut c, "create table it.t (a int primary key)");
    ok(&mut c, "insert into it.t values (1), (2)");
    let _: Vec<i64> = c.query("select a from it.t").unwrap();
    let port = b.port.to_string();
    let mode = |m: &str| {
        let args: Vec<String> =
            format!("-h 127.0.0.1 -P {port} -u root --nonint --count 1 -d 1 -m {m}")
                .split(' ')
                .map(String::from)
                .collect();
        let (success, out, err) = run(&bin, &args);
        assert!(success && err.trim().is_empty(), "-m {m}: {out}\n{err}");
        out
    };
    let commands = mode("C");
    assert!(commands.starts_with("name\tvalue\tpct"), "{commands}");
    assert!(commands.contains("\nCom_select\t"), "{commands}");
    assert!(mode("Q").starts_with("cmd\tmysql_thread_id\tstate\tuser"));
    assert!(mode("K").starts_with("waiting_thread\t"));
    assert!(mode("O").starts_with("db\ttbl\tnum_times_open"));
    let tables = mode("U");
    assert!(tables.contains("\nit\tt\t"), "{tables}");
}
