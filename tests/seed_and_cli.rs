//! The stock `mariadb` client and `mariadb-slap` against basaltd: start-up
//! statements, the interactive client (`\s`, `use`, table-name completion), the
//! seed benchmark's DDL and queries, and the seed post's own mysqlslap command.
//! Skipped (with a message) when the client tools are not installed.

use basalt_tests::{mariadb_cli, which, Basalt};
use std::process::Command;

fn have_client() -> bool {
    if which("mariadb").is_none() {
        eprintln!("mariadb client not installed; skipping");
        return false;
    }
    true
}

fn seed_ddl() -> String {
    basalt_tests::seed_ddl()
}

/// The seed queries (shared/bench/README.md) with the values they must return.
pub fn seed_queries() -> Vec<(String, String)> {
    let mut q = vec![
        (
            "select j from foo where i = 100".to_string(),
            "100".to_string(),
        ),
        (
            "select j from foo FORCE INDEX(`PRIMARY`) where i = 100".into(),
            "100".into(),
        ),
        ("select k from foo where j = 100".into(), "100".into()),
        (
            "select k from foo FORCE INDEX(`xj`) where j = 100".into(),
            "100".into(),
        ),
        (
            "select k from foo FORCE INDEX(`xjk`) where j = 100".into(),
            "100".into(),
        ),
    ];
    for n in [10, 100, 1000] {
        for (sql, _) in [
            (
                format!("select j from foo where i >= 100 order by i limit {n}"),
                (),
            ),
            (
                format!("select k from foo FORCE INDEX(`xj`) where j >= 100 order by j limit {n}"),
                (),
            ),
            (
                format!("select k from foo FORCE INDEX(`xjk`) where j >= 100 order by j limit {n}"),
                (),
            ),
        ] {
            q.push((sql, String::new()));
        }
    }
    q
}

#[test]
fn client_start_up_and_batch_mode() {
    if !have_client() {
        return;
    }
    let b = Basalt::start();
    let (code, out, err) = mariadb_cli(
        b.port,
        &[
            "-e",
            "select @@version_comment limit 1; SELECT DATABASE(); show databases",
        ],
        "",
    );
    assert_eq!(code, 0, "stderr: {err}");
    assert!(out.contains("@@version_comment\nBasalt\n"), "{out}");
    assert!(out.contains("DATABASE()\nNULL\n"), "{out}");
    assert!(out.contains("test\n"), "{out}");
    // An error in batch mode: errno, SQLSTATE and message on stderr, exit code 1.
    let (code, _, err) = mariadb_cli(b.port, &["test", "-e", "select * from nosuch"], "");
    assert_eq!(code, 1);
    assert!(err.contains("ERROR 1146 (42S02)"), "{err}");
    assert!(err.contains("Table 'test.nosuch' doesn't exist"), "{err}");
}

#[test]
fn interactive_client_status_use_and_completion() {
    if !have_client() || which("script").is_none() {
        eprintln!("mariadb or script(1) missing; skipping");
        return;
    }
    let b = Basalt::start();
    let (code, _, err) = mariadb_cli(
        b.port,
        &[
            "-e",
            "create database shop; create table shop.items (id int primary key, name varchar(10))",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    // script(1) gives the client a terminal, so it runs interactively: it reads the
    // table names for completion (COM_FIELD_LIST) on `use`.
    let input = "use shop\n\\s\nselect count(*) from items;\nexit\n";
    let out = Command::new("script")
        .args([
            "-qc",
            &format!("mariadb -h127.0.0.1 -P{} -uroot --skip-ssl", b.port),
            "/dev/null",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().expect("stdin").write_all(input.as_bytes())?;
            c.wait_with_output()
        })
        .expect("run interactive client");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Database changed"), "{text}");
    assert!(text.contains("Current database:\tshop"), "{text}");
    assert!(
        text.contains("Server version:\t\t10.11.99-MariaDB-Basalt"),
        "{text}"
    );
    assert!(text.contains("| count(*) |"), "{text}");
    assert!(!text.contains("ERROR"), "{text}");
}

#[test]
fn seed_ddl_and_queries_through_the_client() {
    if !have_client() {
        return;
    }
    let b = Basalt::start();
    let (code, _, err) = mariadb_cli(b.port, &["-e", "create database test1"], "");
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = mariadb_cli(b.port, &["test1"], &seed_ddl());
    assert_eq!(code, 0, "seed DDL failed: {err}");
    let (_, out, _) = mariadb_cli(
        b.port,
        &[
            "test1",
            "-N",
            "-e",
            "select count(*), min(i), sum(j = i), sum(k = i) from foo",
        ],
        "",
    );
    assert_eq!(out.trim(), "64000\t1\t64000\t64000");
    for (sql, expect) in seed_queries() {
        let (code, out, err) = mariadb_cli(b.port, &["test1", "-N", "-e", &sql], "");
        assert_eq!(code, 0, "{sql}: {err}");
        let lines: Vec<&str> = out.lines().collect();
        if !expect.is_empty() {
            assert_eq!(lines, vec![expect.as_str()], "{sql}");
            continue;
        }
        let limit: usize = sql
            .rsplit(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("limit");
        assert_eq!(lines.len(), limit, "{sql}");
        // Ids up to 1,000 are dense on every system; the first rows start at 100.
        assert_eq!(lines[0], "100", "{sql}");
        let nums: Vec<i64> = lines.iter().map(|l| l.parse().expect("number")).collect();
        assert!(nums.windows(2).all(|w| w[0] < w[1]), "{sql}: ascending");
    }
}

#[test]
fn seed_post_mysqlslap_command() {
    if which("mariadb-slap").is_none() {
        eprintln!("mariadb-slap not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let ddl = dir.path().join("ddl.sql");
    std::fs::write(&ddl, seed_ddl()).expect("write ddl");
    // Every seed query at 1, 4 and 32 clients in optimised builds; a sample in
    // debug builds, where the DDL that mysqlslap repeats for each run is slow.
    let all: Vec<(u32, String)> = seed_queries()
        .into_iter()
        .flat_map(|(q, _)| [1, 4, 32].map(|c| (c, q.clone())))
        .collect();
    let runs: Vec<(u32, String)> = if cfg!(debug_assertions) {
        all.into_iter().step_by(10).collect()
    } else {
        all
    };
    for (c, q) in &runs {
        let out = Command::new("mariadb-slap")
            .arg(format!("--concurrency={c}"))
            .args([
                "-h127.0.0.1",
                "-uroot",
                "--create-schema=test1",
                "--number-of-queries=320",
            ])
            .arg(format!("-P{}", b.port))
            .arg(format!("--create={}", ddl.display()))
            .arg(format!("--query={q}"))
            .output()
            .expect("run mariadb-slap");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{q} at {c}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.contains("Average number of seconds to run all queries"),
            "{text}"
        );
        assert!(
            text.contains(&format!("Number of clients running queries: {c}")),
            "{text}"
        );
    }
}
