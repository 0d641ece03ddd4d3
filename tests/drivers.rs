//! The drivers people use, end to end against basaltd: the Rust `mysql` and
//! `mysql_async` crates here, and PyMySQL, MySQL Connector/Python, MariaDB
//! Connector/J and node `mysql2` through the programs under `tests/drivers/`.
//!
//! Each driver connects (with its own start-up queries), runs DDL, text and prepared
//! queries with every SQL type Basalt has (integers signed and unsigned at both ends of
//! their range, DECIMAL, FLOAT/DOUBLE, CHAR/VARCHAR/TEXT/BLOB/VARBINARY,
//! DATE/DATETIME/TIMESTAMP/TIME with and without fractions, YEAR), NULLs, a
//! transaction committed and one rolled back, errors checked by errno (1062, 1146),
//! and goes on using the connection after each.
//!
//! A test whose runtime or driver is missing prints `skipped: ...` and returns;
//! `scripts/install-test-deps.sh` installs them all (CI runs it).

use basalt_tests::{workspace_root, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts, Value};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "drivers_data.rs"]
mod data;

use data::*;

#[test]
fn rust_mysql_sync() {
    let b = Basalt::start();
    let pool = pool_of_one(&b, None);
    let mut c = pool.get_conn().expect("pooled connection");

    // What the crate asks on its own (a NULL @@socket makes it panic); the URL's
    // prefer_socket=false keeps it on TCP although @@socket names the socket.
    let (packet, wait, socket): (u64, u64, String) = c
        .query_first("SELECT @@max_allowed_packet,@@wait_timeout,@@socket")
        .expect("q")
        .expect("row");
    assert!(packet >= 1024, "max_allowed_packet {packet}");
    assert!(wait > 0, "wait_timeout {wait}");
    assert_eq!(socket, b.socket.display().to_string());

    c.query_drop("CREATE DATABASE drv_mysql")
        .expect("create db");
    c.as_mut().select_db("drv_mysql").expect("COM_INIT_DB");
    c.query_drop(DDL).expect("create table");
    c.query_drop(format!("INSERT INTO all_types VALUES {MIN_SQL}"))
        .expect("text insert");
    assert_eq!(c.affected_rows(), 1);
    let ins = c.prep(insert_sql()).expect("prepare insert");
    assert_eq!(ins.num_params() as usize, COLUMNS.len());
    c.exec_drop(&ins, max_params()).expect("prepared insert");
    assert_eq!(c.affected_rows(), 1);
    c.exec_drop(&ins, null_params(3))
        .expect("prepared insert of NULLs");
    c.query_drop("INSERT INTO all_types (id) VALUES (4)")
        .expect("text insert of NULLs");

    let rows =
        |v: Vec<mysql::Row>| -> Vec<Vec<Value>> { v.into_iter().map(|r| r.unwrap()).collect() };
    let text = rows(
        c.query("SELECT * FROM all_types ORDER BY id")
            .expect("text select"),
    );
    check_rows("text select", &text, &all_rows(), false);
    let bin = rows(
        c.exec("SELECT * FROM all_types ORDER BY id", ())
            .expect("prepared select"),
    );
    check_rows("prepared select", &bin, &all_rows(), true);
    let by_id = c
        .prep("SELECT * FROM all_types WHERE id = ?")
        .expect("prep");
    for (k, want) in all_rows().into_iter().enumerate() {
        let got = rows(c.exec(&by_id, (k as i64 + 1,)).expect("by id"));
        check_rows("prepared select by id", &got, &[want], true);
    }
    // Each column compared with a bound parameter of the crate's own type.
    let params = max_params();
    for (k, name) in COLUMNS.iter().enumerate().skip(1) {
        let ids: Vec<i32> = c
            .exec(
                format!("SELECT id FROM all_types WHERE {name} = ?"),
                vec![params[k].clone()],
            )
            .expect("compare");
        assert_eq!(ids, vec![2], "WHERE {name} = {:?}", params[k]);
    }
    let nulls: Vec<i32> = c
        .exec(
            "SELECT id FROM all_types WHERE ti IS NULL AND ? IS NULL ORDER BY id",
            (Value::NULL,),
        )
        .expect("nulls");
    assert_eq!(nulls, vec![3, 4]);

    // Transactions through the crate's API: rollback, then commit.
    {
        let mut tx = c
            .start_transaction(mysql::TxOpts::default())
            .expect("begin");
        tx.exec_drop(
            "INSERT INTO all_types (id, vc) VALUES (?, ?)",
            (10, "rolled back"),
        )
        .expect("insert");
        tx.rollback().expect("rollback");
    }
    let n: i64 = c
        .query_first("SELECT COUNT(*) FROM all_types WHERE id = 10")
        .expect("q")
        .expect("row");
    assert_eq!(n, 0, "rolled-back row is visible");
    {
        let mut tx = c
            .start_transaction(mysql::TxOpts::default())
            .expect("begin");
        tx.exec_drop(
            "INSERT INTO all_types (id, vc) VALUES (?, ?)",
            (11, "committed"),
        )
        .expect("insert");
        tx.commit().expect("commit");
    }
    let vc: String = c
        .exec_first("SELECT vc FROM all_types WHERE id = ?", (11,))
        .expect("q")
        .expect("row");
    assert_eq!(vc, "committed");
    c.query_drop("DELETE FROM all_types WHERE id = 11")
        .expect("delete");

    // Errors, by errno; the connection goes on.
    assert_eq!(
        err_code(
            c.exec_drop("INSERT INTO all_types (id) VALUES (?)", (1,))
                .expect_err("dup")
        ),
        1062
    );
    assert_eq!(
        err_code(
            c.query_drop("INSERT INTO all_types (id, vc) VALUES (20, '')")
                .expect_err("dup unique")
        ),
        1062
    );
    assert_eq!(
        err_code(
            c.prep("SELECT * FROM nosuch WHERE a = ?")
                .expect_err("1146")
        ),
        1146
    );
    assert_eq!(
        err_code(c.query_drop("SELECT * FROM nosuch").expect_err("1146")),
        1146
    );
    let x: i64 = c
        .exec_first("SELECT ? + 1", (41,))
        .expect("q")
        .expect("row");
    assert_eq!(x, 42);
    c.as_mut().ping().expect("ping");

    // The pooled-connection reset (COM_RESET_CONNECTION when the connection goes
    // back to the pool): same connection, fresh session state.
    c.query_drop("SET @v = 5, SESSION sql_mode = 'ONLY_FULL_GROUP_BY', autocommit = 0")
        .expect("session state");
    c.query_drop("INSERT INTO all_types (id) VALUES (30)")
        .expect("insert in an implicit transaction");
    let id1 = c.connection_id();
    drop(c);
    let mut c = pool.get_conn().expect("pooled connection again");
    assert_eq!(
        c.connection_id(),
        id1,
        "the pool handed back another connection"
    );
    let (v, mode, ac, db): (Option<i64>, String, i64, Option<String>) = c
        .query_first("SELECT @v, @@sql_mode, @@autocommit, DATABASE()")
        .expect("q")
        .expect("row");
    assert_eq!(v, None, "user variable survived the reset");
    assert!(
        !mode.contains("ONLY_FULL_GROUP_BY"),
        "sql_mode survived: {mode}"
    );
    assert_eq!(ac, 1, "autocommit survived the reset");
    // COM_RESET_CONNECTION keeps the current database, like MySQL.
    assert_eq!(db.as_deref(), Some("drv_mysql"));
    let n: i64 = c
        .query_first("SELECT COUNT(*) FROM drv_mysql.all_types WHERE id = 30")
        .expect("q")
        .expect("row");
    assert_eq!(n, 0, "the reset must roll back the open transaction");
    c.query_drop("DROP DATABASE drv_mysql").expect("drop db");
}

// ---------------------------------------------------------------------------
// Rust `mysql_async`.

#[test]
fn rust_mysql_async() {
    use mysql_async::prelude::*;
    let b = Basalt::start();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let opts = mysql_async::OptsBuilder::from_opts(
            mysql_async::Opts::from_url(&b.url()).expect("url"),
        )
        .pool_opts(
            mysql_async::PoolOpts::default()
                .with_constraints(mysql_async::PoolConstraints::new(1, 1).expect("constraints"))
                .with_reset_connection(true),
        );
        let pool = mysql_async::Pool::new(opts);
        let mut c = pool.get_conn().await.expect("connect");
        let (packet, wait, socket): (u64, u64, String) = c
            .query_first("SELECT @@max_allowed_packet,@@wait_timeout,@@socket")
            .await
            .expect("q")
            .expect("row");
        assert!(packet >= 1024 && wait > 0);
        assert_eq!(socket, b.socket.display().to_string());

        c.query_drop("CREATE DATABASE drv_mysql_async")
            .await
            .expect("db");
        c.query_drop("USE drv_mysql_async").await.expect("use");
        c.query_drop(DDL).await.expect("create table");
        c.query_drop(format!("INSERT INTO all_types VALUES {MIN_SQL}"))
            .await
            .expect("text insert");
        let ins = c.prep(insert_sql()).await.expect("prepare");
        c.exec_drop(&ins, max_params())
            .await
            .expect("prepared insert");
        c.exec_drop(&ins, null_params(3))
            .await
            .expect("prepared NULLs");
        c.query_drop("INSERT INTO all_types (id) VALUES (4)")
            .await
            .expect("text NULLs");
        let unwrap = |v: Vec<mysql_async::Row>| -> Vec<Vec<Value>> {
            v.into_iter().map(|r| r.unwrap()).collect()
        };
        let text: Vec<mysql_async::Row> = c
            .query("SELECT * FROM all_types ORDER BY id")
            .await
            .expect("text select");
        check_rows("text select", &unwrap(text), &all_rows(), false);
        let bin: Vec<mysql_async::Row> = c
            .exec("SELECT * FROM all_types ORDER BY id", ())
            .await
            .expect("prepared select");
        check_rows("prepared select", &unwrap(bin), &all_rows(), true);
        for (k, want) in all_rows().into_iter().enumerate() {
            let got: Vec<mysql_async::Row> = c
                .exec("SELECT * FROM all_types WHERE id = ?", (k as i64 + 1,))
                .await
                .expect("by id");
            check_rows("prepared select by id", &unwrap(got), &[want], true);
        }
        let params = max_params();
        for (k, name) in COLUMNS.iter().enumerate().skip(1) {
            let ids: Vec<i32> = c
                .exec(
                    format!("SELECT id FROM all_types WHERE {name} = ?"),
                    vec![params[k].clone()],
                )
                .await
                .expect("compare");
            assert_eq!(ids, vec![2], "WHERE {name} = {:?}", params[k]);
        }

        // Transactions: rollback, then commit.
        let mut tx = c
            .start_transaction(mysql_async::TxOpts::default())
            .await
            .expect("begin");
        tx.exec_drop("INSERT INTO all_types (id) VALUES (?)", (10,))
            .await
            .expect("insert");
        tx.rollback().await.expect("rollback");
        let n: Option<i64> = c
            .query_first("SELECT COUNT(*) FROM all_types WHERE id = 10")
            .await
            .expect("q");
        assert_eq!(n, Some(0));
        let mut tx = c
            .start_transaction(mysql_async::TxOpts::default())
            .await
            .expect("begin");
        tx.exec_drop("INSERT INTO all_types (id) VALUES (?)", (11,))
            .await
            .expect("insert");
        tx.commit().await.expect("commit");
        let n: Option<i64> = c
            .exec_first("SELECT COUNT(*) FROM all_types WHERE id = ?", (11,))
            .await
            .expect("q");
        assert_eq!(n, Some(1));

        // Errors.
        let e = c
            .exec_drop("INSERT INTO all_types (id) VALUES (?)", (1,))
            .await
            .expect_err("dup");
        assert_eq!(async_err_code(e), 1062);
        let e = c
            .query_drop("SELECT * FROM nosuch")
            .await
            .expect_err("missing");
        assert_eq!(async_err_code(e), 1146);
        let e = c
            .prep("SELECT * FROM nosuch WHERE a = ?")
            .await
            .expect_err("missing");
        assert_eq!(async_err_code(e), 1146);
        let x: Option<i64> = c.exec_first("SELECT ? + 1", (41,)).await.expect("q");
        assert_eq!(x, Some(42));
        c.ping().await.expect("ping");

        // COM_RESET_CONNECTION, explicitly and through the pool.
        c.query_drop("SET @v = 7").await.expect("set");
        assert!(
            c.reset().await.expect("reset"),
            "COM_RESET_CONNECTION not used"
        );
        let v: Option<Option<i64>> = c.query_first("SELECT @v").await.expect("q");
        assert_eq!(v, Some(None));
        c.query_drop("SET @v = 8, autocommit = 0")
            .await
            .expect("set");
        let id1 = c.id();
        drop(c);
        let mut c = pool.get_conn().await.expect("connection again");
        assert_eq!(c.id(), id1, "the pool handed back another connection");
        let (v, ac): (Option<i64>, i64) = c
            .query_first("SELECT @v, @@autocommit")
            .await
            .expect("q")
            .expect("row");
        assert_eq!(
            (v, ac),
            (None, 1),
            "session state survived the pool's reset"
        );
        c.query_drop("DROP DATABASE drv_mysql_async")
            .await
            .expect("drop");
        drop(c);
        pool.disconnect().await.expect("disconnect");
    });
}

// ---------------------------------------------------------------------------
// Other languages' drivers, through the programs under tests/drivers/.

fn drivers_dir() -> PathBuf {
    workspace_root().join("tests/drivers")
}

fn skip(why: &str) {
    eprintln!("skipped: {why} (bash scripts/install-test-deps.sh installs it)");
    println!("skipped: {why}");
}

/// Runs a driver program to completion (at most five minutes) and asserts that it
/// exited 0 and printed `OK <name>`; returns its standard output.
fn run_driver(mut cmd: Command, ok_line: &str) -> String {
    let shown = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {shown}: {e}"));
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + Duration::from_secs(300);
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break Some(st);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = out_t.join().unwrap_or_default();
    let stderr = err_t.join().unwrap_or_default();
    println!("{stdout}");
    let st = status.unwrap_or_else(|| panic!("{shown} timed out\n{stdout}\n{stderr}"));
    assert!(
        st.success() && stdout.lines().any(|l| l.starts_with(ok_line)),
        "{shown}: {st}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    stdout
}

fn python_has(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn python(script: &str, args: &[String]) -> Command {
    let mut cmd = Command::new("python3");
    cmd.current_dir(drivers_dir().join("python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .arg(script)
        .args(args);
    cmd
}

#[test]
fn pymysql() {
    if !python_has("pymysql") {
        return skip("python3 with PyMySQL");
    }
    let b = Basalt::start();
    run_driver(
        python("pymysql_driver.py", &[b.port.to_string()]),
        "OK pymysql",
    );
}

#[test]
fn mysql_connector_python_pure() {
    if !python_has("mysql.connector") {
        return skip("python3 with mysql-connector-python");
    }
    let b = Basalt::start();
    run_driver(
        python("connector_driver.py", &[b.port.to_string(), "pure".into()]),
        "OK mysql-connector-python (pure",
    );
}

/// The connector's default: its C extension when that loads on this machine, else
/// the pure-Python protocol (the program prints which).
#[test]
fn mysql_connector_python_default() {
    if !python_has("mysql.connector") {
        return skip("python3 with mysql-connector-python");
    }
    let b = Basalt::start();
    run_driver(
        python(
            "connector_driver.py",
            &[b.port.to_string(), "default".into()],
        ),
        "OK mysql-connector-python (default",
    );
}

fn connector_j_jar() -> Option<PathBuf> {
    let dir = Path::new("/usr/share/java");
    let plain = dir.join("mariadb-java-client.jar");
    if plain.is_file() {
        return Some(plain);
    }
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("mariadb-java-client") && n.ends_with(".jar"))
        })
}

#[test]
fn mariadb_connector_j() {
    let (Some(_), Some(_)) = (basalt_tests::which("java"), basalt_tests::which("javac")) else {
        return skip("a JDK (java and javac)");
    };
    let Some(jar) = connector_j_jar() else {
        return skip("MariaDB Connector/J (Debian libmariadb-java)");
    };
    let classes = tempfile::tempdir().expect("tempdir");
    let javac = Command::new("javac")
        .arg("-d")
        .arg(classes.path())
        .arg(drivers_dir().join("java/ConnectorJDriver.java"))
        .output()
        .expect("run javac");
    assert!(
        javac.status.success(),
        "javac: {}",
        String::from_utf8_lossy(&javac.stderr)
    );
    let b = Basalt::start();
    let mut cmd = Command::new("java");
    cmd.arg("-cp")
        .arg(format!("{}:{}", classes.path().display(), jar.display()))
        .arg("ConnectorJDriver")
        .arg(b.port.to_string());
    run_driver(cmd, "OK connector-j");
}

#[test]
fn node_mysql2() {
    if basalt_tests::which("node").is_none() {
        return skip("node");
    }
    let dir = drivers_dir().join("node");
    if !dir.join("node_modules/mysql2/package.json").is_file() {
        return skip("node mysql2 in tests/drivers/node/node_modules");
    }
    let b = Basalt::start();
    let mut cmd = Command::new("node");
    cmd.current_dir(&dir)
        .arg("mysql2_driver.js")
        .arg(b.port.to_string());
    run_driver(cmd, "OK mysql2");
}

// ---------------------------------------------------------------------------
// Regression tests for what the drivers found, and the connect-time statements of
// the drivers not run here (MySQL Connector/J's, MariaDB Connector/J 3's).

fn connect(b: &Basalt) -> Conn {
    Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect")
}

/// A string stored into a DECIMAL column keeps all its digits, through a text
/// statement and as a string parameter (node mysql2 binds every decimal so):
/// converting through a double turned 99999999999999.999999 into 1e14 and errno 1264.
#[test]
fn decimal_from_string_keeps_every_digit() {
    let b = Basalt::start();
    let mut c = connect(&b);
    c.query_drop("CREATE DATABASE d").expect("db");
    c.query_drop("CREATE TABLE d.t (id INT PRIMARY KEY, de DECIMAL(20,6), d2 DECIMAL(38,10))")
        .expect("table");
    c.query_drop(
        "INSERT INTO d.t VALUES (1, '99999999999999.999999', '-1234567890123456789012345678.0123456789')",
    )
    .expect("text insert");
    c.exec_drop(
        "INSERT INTO d.t VALUES (?, ?, ?)",
        (2, "-99999999999999.999999", "0.0000000001"),
    )
    .expect("prepared insert");
    c.exec_drop(
        "INSERT INTO d.t VALUES (?, ?, ?)",
        (3, " 12345678901234.1234565 ", "1e5"),
    )
    .expect("prepared insert: rounding and exponent");
    let rows: Vec<(i32, String, String)> = c
        .query("SELECT id, de, d2 FROM d.t ORDER BY id")
        .expect("select");
    assert_eq!(
        rows,
        vec![
            (
                1,
                "99999999999999.999999".into(),
                "-1234567890123456789012345678.0123456789".into()
            ),
            (2, "-99999999999999.999999".into(), "0.0000000001".into()),
            (
                3,
                "12345678901234.123457".into(),
                "100000.0000000000".into()
            ),
        ]
    );
    // Out of range is still out of range, and junk is still an error in strict mode.
    assert_eq!(
        err_code(
            c.query_drop("INSERT INTO d.t VALUES (4, '100000000000000', 0)")
                .expect_err("1264")
        ),
        1264
    );
    assert!(c
        .query_drop("INSERT INTO d.t VALUES (5, 'abc', 0)")
        .is_err());
}

/// What Connector/J (MySQL's 8.x and MariaDB's) and the other drivers ask at connect
/// time, answered with the right values and types.
#[test]
fn connect_time_statements() {
    let b = Basalt::start();
    let mut c = connect(&b);
    // MySQL Connector/J 8's start-up query, as it sends it.
    let sql =
        "/* mysql-connector-java-8.0.33 (Revision: 7d6b0800528b6b25c68b52dc10d6c1c8429c100c) */\
        SELECT  @@session.auto_increment_increment AS auto_increment_increment, \
        @@character_set_client AS character_set_client, \
        @@character_set_connection AS character_set_connection, \
        @@character_set_results AS character_set_results, \
        @@character_set_server AS character_set_server, @@collation_server AS collation_server, \
        @@collation_connection AS collation_connection, @@init_connect AS init_connect, \
        @@interactive_timeout AS interactive_timeout, @@license AS license, \
        @@lower_case_table_names AS lower_case_table_names, \
        @@max_allowed_packet AS max_allowed_packet, @@net_write_timeout AS net_write_timeout, \
        @@performance_schema AS performance_schema, @@query_cache_size AS query_cache_size, \
        @@query_cache_type AS query_cache_type, @@sql_mode AS sql_mode, \
        @@system_time_zone AS system_time_zone, @@time_zone AS time_zone, \
        @@transaction_isolation AS transaction_isolation, @@wait_timeout AS wait_timeout";
    let row: mysql::Row = c.query_first(sql).expect("connector/j query").expect("row");
    let names: Vec<String> = row
        .columns_ref()
        .iter()
        .map(|c| c.name_str().into_owned())
        .collect();
    assert_eq!(names[0], "auto_increment_increment");
    assert_eq!(names[20], "wait_timeout");
    let get = |name: &str| -> Value {
        let k = names.iter().position(|n| n == name).expect("column");
        row.as_ref(k).expect("value").clone()
    };
    let s = |name: &str| -> String { mysql::from_value::<String>(get(name)) };
    let n = |name: &str| -> i64 { mysql::from_value::<i64>(get(name)) };
    assert_eq!(n("auto_increment_increment"), 1);
    assert_eq!(s("character_set_client"), "utf8mb4");
    assert_eq!(s("character_set_server"), "utf8mb4");
    assert!(s("collation_server").starts_with("utf8mb4_"));
    assert_eq!(s("init_connect"), "");
    assert!(n("interactive_timeout") > 0);
    assert!(!s("license").is_empty());
    assert_eq!(n("lower_case_table_names"), 0);
    assert!(n("max_allowed_packet") >= 1024);
    assert!(n("net_write_timeout") > 0);
    // Basalt's default (MariaDB's is 0).
    assert_eq!(n("performance_schema"), 1);
    assert_eq!(n("query_cache_size"), 0);
    assert_eq!(s("query_cache_type"), "OFF");
    assert!(s("sql_mode").contains("STRICT_TRANS_TABLES"));
    assert!(!s("system_time_zone").is_empty());
    assert_eq!(s("time_zone"), "SYSTEM");
    assert_eq!(s("transaction_isolation"), "REPEATABLE-READ");
    assert!(n("wait_timeout") > 0);

    c.query_drop("SET NAMES utf8mb4").expect("SET NAMES");
    c.query_drop("SET character_set_results = NULL")
        .expect("character_set_results = NULL");
    let r: Option<String> = c
        .query_first("SELECT @@character_set_results")
        .expect("q")
        .expect("row");
    assert_eq!(r, None);
    // Rows still come back as they are stored (no conversion with NULL results).
    let v: String = c.query_first("SELECT 'h\u{e9}'").expect("q").expect("row");
    assert_eq!(v, "h\u{e9}");
    for sql in [
        "SELECT @@session.transaction_read_only",
        "SELECT @@session.tx_read_only",
        "SELECT @@transaction_read_only",
    ] {
        let ro: i64 = c.query_first(sql).expect(sql).expect("row");
        assert_eq!(ro, 0, "{sql}");
    }
    let iso: String = c
        .query_first("SELECT @@session.transaction_isolation")
        .expect("q")
        .expect("row");
    assert_eq!(iso, "REPEATABLE-READ");
    let iso: String = c
        .query_first("SELECT @@session.tx_isolation")
        .expect("q")
        .expect("row");
    assert_eq!(iso, "REPEATABLE-READ");
    // MariaDB Connector/J 3 and the mysql2/PyMySQL start-up queries.
    c.query_drop(
        "set autocommit=1, session_track_schema=1, \
         sql_mode = concat(@@sql_mode,',STRICT_TRANS_TABLES')",
    )
    .expect("MariaDB Connector/J 3's SET");
    let (pkt, wait): (u64, u64) = c
        .query_first("SELECT @@max_allowed_packet, @@wait_timeout")
        .expect("q")
        .expect("row");
    assert!(pkt >= 1024 && wait > 0);
    c.query_drop("SET SESSION TRANSACTION READ ONLY")
        .expect("read only");
    let ro: i64 = c
        .query_first("SELECT @@session.transaction_read_only")
        .expect("q")
        .expect("row");
    assert_eq!(ro, 1);
    c.query_drop("SET SESSION TRANSACTION READ WRITE")
        .expect("read write");
    let one: i64 = c.query_first("SELECT 1").expect("q").expect("row");
    assert_eq!(one, 1);
}

/// COM_RESET_CONNECTION on the wire: an OK, session state gone, connection kept.
#[test]
fn com_reset_connection_raw() {
    let b = Basalt::start();
    let mut s = basalt_tests::raw_login(b.port);
    let query = |s: &mut std::net::TcpStream, sql: &str| {
        let mut p = vec![0x03];
        p.extend_from_slice(sql.as_bytes());
        basalt_tests::send_packet(s, 0, &p);
        let mut packets = Vec::new();
        loop {
            let pkt = basalt_tests::read_packet(s).expect("reply");
            let first = pkt[0];
            let len = pkt.len();
            packets.push(pkt);
            // OK/ERR alone, or the EOF after the rows (two EOFs in all).
            let eofs = packets
                .iter()
                .filter(|p| p[0] == 0xfe && p.len() < 9)
                .count();
            if packets.len() == 1 && (first == 0x00 || first == 0xff) {
                break;
            }
            if first == 0xfe && len < 9 && eofs == 2 {
                break;
            }
        }
        packets
    };
    query(&mut s, "SET @v = 1");
    basalt_tests::send_packet(&mut s, 0, &[0x1f]);
    let ok = basalt_tests::read_packet(&mut s).expect("reset reply");
    assert_eq!(ok[0], 0x00, "COM_RESET_CONNECTION answered {ok:?}");
    let rows = query(&mut s, "SELECT @v IS NULL");
    // column count, column def, EOF, row, EOF: the row says 1.
    let row = &rows[3];
    assert_eq!(
        row.as_slice(),
        &[1, b'1'],
        "user variable survived: {rows:?}"
    );
}

/// A `?` in the select list takes the type of the value bound to it, as in MariaDB:
/// `SELECT ? + 1` with an integer is an integer (it was a DOUBLE, which the `mysql`
/// crate refuses to read as an i64), and the same statement executed again with a
/// double is a double.
#[test]
fn prepared_param_in_select_list_takes_the_bound_type() {
    let b = Basalt::start();
    let mut c = connect(&b);
    let one = |c: &mut Conn, sql: &str, p: Value| -> Value {
        let row: mysql::Row = c.exec_first(sql, vec![p]).expect(sql).expect("row");
        row.as_ref(0).expect("value").clone()
    };
    assert_eq!(one(&mut c, "SELECT ? + 1", 41i64.into()), Value::Int(42));
    assert_eq!(one(&mut c, "SELECT ?", 41i64.into()), Value::Int(41));
    assert_eq!(
        one(&mut c, "SELECT ?", "x".into()),
        Value::Bytes(b"x".to_vec())
    );
    assert_eq!(
        one(&mut c, "SELECT ? + 1", 1.5f64.into()),
        Value::Double(2.5)
    );
    assert_eq!(
        one(&mut c, "SELECT ? + 1.5", 41i64.into()),
        Value::Bytes(b"42.5".to_vec())
    );
    assert_eq!(one(&mut c, "SELECT ?", Value::NULL), Value::NULL);
    let stmt = c.prep("SELECT ? * 2 AS x, ? IS NULL").expect("prepare");
    let r: (i64, i64) = c.exec_first(&stmt, (21, 1)).expect("q").expect("row");
    assert_eq!(r, (42, 0));
    let r: (f64, i64) = c
        .exec_first(&stmt, (0.25, Value::NULL))
        .expect("q")
        .expect("row");
    assert_eq!(r, (0.5, 1));
    let r: (i64, i64) = c.exec_first(&stmt, (-4, 2)).expect("q").expect("row");
    assert_eq!(r, (-8, 0));
    // SQL PREPARE / EXECUTE goes the same way.
    c.query_drop("PREPARE s FROM 'SELECT ? + 1'")
        .expect("prepare");
    c.query_drop("SET @a = 9").expect("set");
    let v: i64 = c
        .query_first("EXECUTE s USING @a")
        .expect("execute")
        .expect("row");
    assert_eq!(v, 10);
}
