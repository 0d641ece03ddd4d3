//! `INSERT / REPLACE / DELETE ... RETURNING` through the protocol: rows, column
//! metadata and errors compared with a real MariaDB over the text and the binary
//! protocol (`#[ignore]`d: they need mariadb-server), checks that need no
//! MariaDB, and the ORMs that use RETURNING for every insert once the server says
//! it is MariaDB 10.5 or later: SQLAlchemy 2 and Django 5 (with its migrations).

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::{workspace_root, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts, Value};
use std::process::Command;

fn connect(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

/// A column as the client sees it: every field of ColumnDefinition41.
type ColumnInfo = (
    String,
    String,
    String,
    String,
    String,
    u8,
    u16,
    u32,
    u8,
    u16,
);

/// What a statement produced: the result set (columns and rows), the OK packet's
/// counts, or the error.
#[derive(Debug, PartialEq)]
enum Outcome {
    Rows(Vec<ColumnInfo>, Vec<Vec<Value>>),
    Ok { affected: u64, last_id: u64 },
    Err(u16, String),
}

fn columns(cols: &[mysql::Column]) -> Vec<ColumnInfo> {
    cols.iter()
        .map(|c| {
            (
                c.name_str().into_owned(),
                c.org_name_str().into_owned(),
                c.table_str().into_owned(),
                c.org_table_str().into_owned(),
                c.schema_str().into_owned(),
                c.column_type() as u8,
                // NUM_FLAG aside: Basalt sets it on every numeric column of every
                // result set, MariaDB 10.11 on none (not a RETURNING matter).
                c.flags().bits() & !0x8000,
                c.column_length(),
                c.decimals(),
                c.character_set(),
            )
        })
        .collect()
}

fn collect<P: mysql::prelude::Protocol>(
    r: Result<mysql::QueryResult<'_, '_, '_, P>, mysql::Error>,
) -> Outcome {
    let mut r = match r {
        Ok(r) => r,
        Err(mysql::Error::MySqlError(e)) => return Outcome::Err(e.code, e.message),
        Err(e) => panic!("{e}"),
    };
    let cols = columns(r.columns().as_ref());
    let (affected, last_id) = (r.affected_rows(), r.last_insert_id().unwrap_or(0));
    let mut rows = Vec::new();
    for row in r.by_ref() {
        match row {
            Ok(row) => rows.push(row.unwrap()),
            Err(mysql::Error::MySqlError(e)) => return Outcome::Err(e.code, e.message),
            Err(e) => panic!("{e}"),
        }
    }
    if cols.is_empty() {
        Outcome::Ok { affected, last_id }
    } else {
        Outcome::Rows(cols, rows)
    }
}

/// Runs `sql` through the text protocol.
fn text(c: &mut Conn, sql: &str) -> Outcome {
    collect(c.query_iter(sql))
}

/// Keeps only the column names of a result set.
fn loosen(o: Outcome) -> Outcome {
    match o {
        Outcome::Rows(cols, rows) => Outcome::Rows(
            cols.into_iter()
                .map(|c| {
                    (
                        c.0,
                        String::new(),
                        String::new(),
                        String::new(),
                        String::new(),
                        0,
                        0,
                        0,
                        0,
                        0,
                    )
                })
                .collect(),
            rows,
        ),
        other => other,
    }
}

/// Prepares and executes `sql` (binary protocol): the columns the prepare
/// announced, and the outcome (an error of the prepare or of the execution).
fn binary(c: &mut Conn, sql: &str) -> (Option<Vec<ColumnInfo>>, Outcome) {
    let stmt = match c.prep(sql) {
        Ok(s) => s,
        Err(mysql::Error::MySqlError(e)) => return (None, Outcome::Err(e.code, e.message)),
        Err(e) => panic!("{sql}: {e}"),
    };
    let announced = columns(&stmt.columns());
    let out = collect(c.exec_iter(&stmt, ()));
    let _ = c.close(stmt);
    (Some(announced), out)
}

const SETUP: &[&str] = &[
    "CREATE DATABASE ret",
    "USE ret",
    "CREATE TABLE t1 (id1 INT PRIMARY KEY AUTO_INCREMENT, val1 VARCHAR(1))",
    "CREATE TABLE t2 (id2 INT PRIMARY KEY AUTO_INCREMENT, val2 VARCHAR(1))",
    "CREATE TABLE dup (id INT PRIMARY KEY AUTO_INCREMENT, val VARCHAR(1), n INT NOT NULL DEFAULT 0, UNIQUE KEY (val))",
    "CREATE TABLE types (id BIGINT UNSIGNED PRIMARY KEY AUTO_INCREMENT, ti TINYINT, si SMALLINT UNSIGNED, \
     de DECIMAL(10,3), f FLOAT, d DOUBLE, c CHAR(4), vc VARCHAR(20) NOT NULL DEFAULT 'dflt', tx TEXT, \
     bl BLOB, vb VARBINARY(8), da DATE, dt DATETIME(6), ts TIMESTAMP NULL, tm TIME(3), yr YEAR)",
    "INSERT INTO t2 VALUES (1,'a'),(2,'b'),(3,'c')",
];

/// Statements compared on both servers, in order (each sees the effects of the
/// ones before).
const STATEMENTS: &[&str] = &[
    // One row, `*`, expressions, aliases, functions.
    "INSERT INTO t1 (id1, val1) VALUES (1, 'a')",
    "INSERT INTO t1 (id1, val1) VALUES (2, 'b') RETURNING *",
    "INSERT INTO t1 (id1, val1) VALUES (3, 'c') RETURNING id1+id1 AS total, val1, id1 && id1, id1 | id1, UPPER(val1)",
    "INSERT INTO t1 (val1) VALUES ('d') RETURNING id1, LAST_INSERT_ID()",
    "SELECT LAST_INSERT_ID(), ROW_COUNT()",
    "INSERT INTO t1 (id1, val1) VALUES (14, 'm') RETURNING t1.*",
    "INSERT INTO t1 (val1) VALUES ('e') RETURNING *, id1 AS again, 'lit', NULL, 1.5, id1 * 2",
    // Several rows, auto-increment values, SET form, INSERT ... SELECT.
    "INSERT INTO t1 (val1) VALUES ('f'), ('g'), ('h') RETURNING id1, val1",
    "SELECT LAST_INSERT_ID()",
    "INSERT INTO t1 SET val1 = 'i' RETURNING id1, CONCAT(val1, '!') AS shout",
    "INSERT INTO t2 SELECT id1 + 10, val1 FROM t1 WHERE id1 < 4 ORDER BY id1 RETURNING *",
    "INSERT INTO t2 (val2) SELECT val1 FROM t1 WHERE id1 = 14 RETURNING id2, val2",
    // Subqueries: uncorrelated, correlated with the new row.
    "~INSERT INTO t1 (id1, val1) VALUES (30, 'x') RETURNING (SELECT GROUP_CONCAT(val2) FROM t2 WHERE id2 = 1)",
    "~INSERT INTO t1 (id1, val1) VALUES (31, 'y'), (32, 'z') RETURNING id1, (SELECT val2 FROM t2 WHERE id2 = id1 - 30)",
    "INSERT INTO t1 (id1, val1) VALUES (33, 'w') RETURNING EXISTS (SELECT 1 FROM t2 WHERE id2 = 3)",
    // IGNORE, ON DUPLICATE KEY UPDATE, REPLACE.
    "INSERT IGNORE INTO t1 VALUES (1, 'q'), (40, 'r') RETURNING *",
    "~SHOW WARNINGS",
    "INSERT INTO dup (val) VALUES ('a'), ('b') RETURNING *",
    "INSERT INTO dup (val) VALUES ('a') ON DUPLICATE KEY UPDATE n = n + 1 RETURNING *",
    "INSERT INTO dup (val) VALUES ('a') ON DUPLICATE KEY UPDATE n = n RETURNING id, val, n",
    "INSERT INTO dup (val) VALUES ('c'), ('b') ON DUPLICATE KEY UPDATE n = 10 RETURNING id, val, n",
    "REPLACE INTO dup (id, val) VALUES (1, 'z') RETURNING *",
    "REPLACE INTO dup (val, n) VALUES ('z', 5), ('y', 6) RETURNING id, val, n",
    "SELECT * FROM dup ORDER BY id",
    // Types: every column type Basalt has, defaults and conversions applied.
    "INSERT INTO types (ti, si, de, f, d, c, tx, bl, vb, da, dt, ts, tm, yr) VALUES \
     (-5, 65000, 12.3456, 1.5, 2.25, 'ab', 'text', X'00FF', X'0102', '2024-02-29', \
     '2024-02-29 12:34:56.789012', '2001-02-03 04:05:06', '-12:34:56.5', 2024) RETURNING *",
    "INSERT INTO types (ti) VALUES (NULL) RETURNING id, ti, vc, dt, ts",
    "INSERT INTO types (de, d) VALUES ('7.5', '1e3') RETURNING de, d, de * 2, d / 4",
    // DELETE: WHERE, ORDER BY / LIMIT (RETURNING written after them), nothing matched.
    "DELETE FROM t1 WHERE id1 = 2 RETURNING *",
    "DELETE FROM t1 WHERE id1 > 30 ORDER BY id1 DESC LIMIT 2 RETURNING id1, val1",
    "DELETE FROM t1 WHERE id1 = 999 RETURNING id1",
    "DELETE FROM t1 WHERE id1 = 3 RETURNING id1, (SELECT COUNT(*) FROM t2)",
    "SELECT ROW_COUNT()",
    "DELETE FROM types WHERE ti IS NULL RETURNING id, vc",
    "SELECT id1, val1 FROM t1 ORDER BY id1",
    "SELECT id2, val2 FROM t2 ORDER BY id2",
    // Errors.
    "INSERT INTO t2 (id2, val2) VALUES (50, 'a') RETURNING id1",
    "INSERT INTO t2 (id2, val2) VALUES (51, 'b') RETURNING SUM(id2)",
    "INSERT INTO t2 (id2, val2) VALUES (52, 'c') RETURNING (SELECT id1 FROM t1)",
    "INSERT INTO t2 (id2, val2) VALUES (53, 'd') RETURNING (SELECT * FROM t1)",
    "INSERT INTO t2 (id2, val2) VALUES (54, 'f') RETURNING (SELECT id2 FROM t2)",
    "INSERT INTO t2 (id2, val2) VALUES (55, 'f') RETURNING (SELECT 1 UNION SELECT id2 FROM t2)",
    "INSERT INTO t2 (id2, val2) VALUES (56, 'f') RETURNING t1.*",
    "INSERT INTO t2 (id2, val2) VALUES (57, 'g') RETURNING id2, *",
    "INSERT INTO t2 SET id2 = 58, val2 = 'h' RETURNING COUNT(*)",
    "INSERT INTO t2 (id2, val2) SELECT 60, 'a' RETURNING MAX(id2)",
    "INSERT INTO dup (val) VALUES ('a') ON DUPLICATE KEY UPDATE n = 1 RETURNING nosuch",
    "DELETE FROM t1 WHERE id1 = 1 RETURNING c",
    "DELETE FROM t1 WHERE id1 = 1 RETURNING MAX(id1)",
    "UPDATE t1 SET val1 = 'u' WHERE id1 = 1 RETURNING id1",
    "DELETE t1 FROM t1 WHERE id1 = 1 RETURNING id1",
    "INSERT INTO t1 (id1, val1) VALUES (1, 'a') RETURNING id1",
    "SELECT id2 FROM t2 WHERE id2 >= 50 ORDER BY id2",
    // CONVERT_TZ with offsets, which Django's MySQL backend uses. Named zones are
    // compared in tests/time_zones.rs, against a MariaDB whose time-zone tables
    // are loaded (this one has none, so it answers NULL for them).
    "~SELECT CONVERT_TZ(CAST('2001-01-01 01:00:00.123456' AS DATETIME(6)), '+01:00', '-02:30'), \
     CONVERT_TZ(CAST('2001-01-01 01:00:00' AS DATETIME), '+00:00', '+13:00'), \
     CONVERT_TZ(CAST('2001-01-01 01:00:00' AS DATETIME), '+00:00', '+14:00'), \
     CONVERT_TZ(CAST('2001-01-01 01:00:00' AS DATETIME), '+0:00', '-12:59'), \
     CONVERT_TZ(CAST('1960-01-01 01:00:00' AS DATETIME), '+00:00', '+05:00'), \
     CONVERT_TZ(CAST('2038-01-19 03:14:08' AS DATETIME), '+00:00', '+01:00'), \
     CONVERT_TZ(NULL, '+00:00', '+01:00'), CONVERT_TZ(CAST('2001-01-01' AS DATE), 'SYSTEM', '+05:00'), \
     CONVERT_TZ('garbage', '+00:00', '+05:00')",
];

#[test]
#[ignore = "needs mariadb-server; run by .ci/run"]
fn returning_matches_mariadb_text_and_binary() {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&[]);
    let mut mismatches = Vec::new();
    for binary_protocol in [false, true] {
        let (mut bc, mut mc) = (connect(&b.url()), connect(&m.url()));
        for c in [&mut bc, &mut mc] {
            c.query_drop("DROP DATABASE IF EXISTS ret").expect("drop");
            for s in SETUP {
                c.query_drop(s).unwrap_or_else(|e| panic!("{s}: {e}"));
            }
        }
        for entry in STATEMENTS {
            // `~`: compare names and values only (the metadata of that expression
            // differs in a plain SELECT too; RETURNING is not the subject there).
            let (loose, sql) = match entry.strip_prefix('~') {
                Some(rest) => (true, rest),
                None => (false, *entry),
            };
            if binary_protocol && sql.starts_with("SHOW") {
                continue;
            }
            let (got, want) = if binary_protocol {
                let (announced, got) = binary(&mut bc, sql);
                // MariaDB 10.11 announces no columns for RETURNING at prepare time;
                // Basalt announces the ones the execution sends.
                if let (Some(a), Outcome::Rows(cols, _)) = (&announced, &got) {
                    assert_eq!(a, cols, "{sql}: prepare and execute disagree");
                }
                (got, binary(&mut mc, sql).1)
            } else {
                (text(&mut bc, sql), text(&mut mc, sql))
            };
            let (got, want) = if loose {
                (loosen(got), loosen(want))
            } else {
                (got, want)
            };
            if got != want {
                mismatches.push(format!(
                    "\n{} protocol: {sql}\nbasalt:  {got:?}\nmariadb: {want:?}",
                    if binary_protocol { "binary" } else { "text" }
                ));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn returning_rows_without_mariadb() {
    let b = Basalt::start();
    let mut c = connect(&b.url());
    for s in SETUP {
        c.query_drop(s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
    let rows: Vec<(i64, String)> = c
        .query("INSERT INTO t1 (val1) VALUES ('a'), ('b'), ('c') RETURNING id1, val1")
        .expect("insert returning");
    assert_eq!(
        rows,
        vec![(1, "a".into()), (2, "b".into()), (3, "c".into())]
    );
    let stmt = c
        .prep("INSERT INTO t1 (val1) VALUES (?) RETURNING id1, val1")
        .expect("prepare");
    assert_eq!(
        stmt.columns().len(),
        2,
        "COM_STMT_PREPARE announces the columns"
    );
    let rows: Vec<(i64, String)> = c.exec(&stmt, ("d",)).expect("execute");
    assert_eq!(rows, vec![(4, "d".into())]);
    let gone: Vec<(i64, String)> = c
        .query("DELETE FROM t1 WHERE id1 >= 3 ORDER BY id1 LIMIT 5 RETURNING id1, val1")
        .expect("delete returning");
    assert_eq!(gone, vec![(3, "c".into()), (4, "d".into())]);
    let left: i64 = c
        .query_first("SELECT COUNT(*) FROM t1")
        .expect("q")
        .expect("row");
    assert_eq!(left, 2);
    let e = c
        .query_drop("UPDATE t1 SET val1 = 'x' RETURNING id1")
        .expect_err("no UPDATE RETURNING in 10.11");
    match e {
        mysql::Error::MySqlError(e) => {
            assert_eq!(e.code, 1064);
            assert!(
                e.message.ends_with("near 'RETURNING id1' at line 1"),
                "{}",
                e.message
            );
        }
        other => panic!("{other:?}"),
    }
    let same: Vec<String> = c
        .query("SELECT val1 FROM t1 ORDER BY id1")
        .expect("unchanged");
    assert_eq!(same, vec!["a".to_string(), "b".to_string()]);
}

/// Runs a program of `tests/drivers/python` against a fresh server; it must end
/// with `ok_line`. Skipped (with a message) when `modules` cannot be imported.
fn python_program(script: &str, modules: &str, ok_line: &str) {
    let importable = Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .status()
        .is_ok_and(|s| s.success());
    if !importable {
        println!("skipped: python3 with {modules} is not installed");
        return;
    }
    let b = Basalt::start();
    let dir = workspace_root().join("tests/drivers/python");
    let out = Command::new("python3")
        .current_dir(&dir)
        .arg(dir.join(script))
        .arg(b.port.to_string())
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains(ok_line),
        "{script} failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
}

#[test]
fn sqlalchemy_orm_inserts_use_returning() {
    python_program(
        "sqlalchemy_returning.py",
        "sqlalchemy, pymysql",
        "OK sqlalchemy",
    );
}

#[test]
fn django_migrations_and_orm_inserts_use_returning() {
    python_program("django_returning.py", "django, pymysql", "OK django");
}
