//! The privilege matrix against MariaDB: for each set of grants, an account runs
//! the same statements on Basalt and on MariaDB (started by the test, with its
//! grant tables and without anonymous accounts), and the outcomes must agree:
//! the rows, or the error's code and message.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::{cell, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};

/// What the account is granted in each case (run as root).
const CASES: &[&[&str]] = &[
    &[],
    &["GRANT SELECT ON p.* TO m@'%'"],
    &["GRANT SELECT ON p.t TO m@'%'"],
    &["GRANT INSERT, UPDATE ON p.t TO m@'%'"],
    &["GRANT UPDATE ON p.t TO m@'%'"],
    &["GRANT DELETE ON p.t TO m@'%'"],
    &["GRANT ALL ON p.* TO m@'%'"],
    &["GRANT SELECT ON *.* TO m@'%'"],
    &["GRANT CREATE, DROP ON p.* TO m@'%'"],
    &[
        "GRANT ALTER, INDEX ON p.t TO m@'%'",
        "GRANT SELECT ON p.o TO m@'%'",
    ],
    &["GRANT SELECT ON p.v TO m@'%'"],
    &[
        "GRANT INSERT ON p.t TO m@'%'",
        "GRANT SELECT ON p.o TO m@'%'",
    ],
    &["GRANT SUPER ON *.* TO m@'%'"],
    &["GRANT CREATE USER ON *.* TO m@'%'"],
    &["GRANT SELECT ON `p%`.* TO m@'%'"],
    &["GRANT PROCESS ON *.* TO m@'%'"],
];

/// What the account tries in every case.
const STATEMENTS: &[&str] = &[
    "SELECT * FROM p.t ORDER BY a",
    "SELECT a FROM p.v ORDER BY a",
    "SELECT * FROM p.o",
    "INSERT INTO p.t VALUES (10, 10)",
    "UPDATE p.t SET b = 5",
    "UPDATE p.t SET b = 6 WHERE a = 1",
    "DELETE FROM p.t WHERE a = 2",
    "REPLACE INTO p.t VALUES (1, 9)",
    "INSERT INTO p.t VALUES (1, 1) ON DUPLICATE KEY UPDATE b = 3",
    "INSERT INTO p.t SELECT a + 100, a FROM p.o",
    "CREATE TABLE p.n (a INT)",
    "ALTER TABLE p.t ADD COLUMN c INT",
    "CREATE INDEX ib ON p.t (b)",
    "TRUNCATE TABLE p.o",
    "DROP TABLE p.o",
    "CREATE DATABASE q",
    "USE p",
    "SHOW TABLES FROM p",
    "SHOW DATABASES",
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'p' ORDER BY 1",
    "SELECT grantee, privilege_type, is_grantable FROM information_schema.user_privileges \
     WHERE grantee LIKE '%''m''%' ORDER BY 2",
    "SELECT * FROM information_schema.schema_privileges \
     WHERE grantee LIKE '%''m''%' ORDER BY privilege_type",
    "SELECT * FROM information_schema.table_privileges \
     WHERE grantee LIKE '%''m''%' ORDER BY table_name, privilege_type",
    "SET GLOBAL max_connections = 500",
    "SET GLOBAL sort_buffer_size = 262144",
    "SET GLOBAL read_only = 0",
    "CREATE USER z@'%'",
    "DROP USER z@'%'",
    "SHOW GRANTS FOR m@'%'",
    "SHOW GRANTS",
    "SHOW CREATE USER",
    "SELECT user, command FROM information_schema.processlist WHERE user = 'root'",
    "SHOW CREATE USER m@'%'",
    "SHOW CREATE USER z@'%'",
    "SELECT user, host, select_priv, insert_priv, super_priv, plugin FROM mysql.user \
     WHERE user = 'm'",
    "SELECT db, user, select_priv, insert_priv, drop_priv FROM mysql.db WHERE user = 'm'",
    "SELECT db, user, table_name, table_priv FROM mysql.tables_priv WHERE user = 'm'",
];

const SCHEMA: &[&str] = &[
    "DROP DATABASE IF EXISTS p",
    "DROP DATABASE IF EXISTS q",
    "DROP USER IF EXISTS m@'%', z@'%'",
    "SET GLOBAL max_connections = 2000",
    "CREATE DATABASE p",
    "CREATE TABLE p.t (a INT PRIMARY KEY, b INT)",
    "INSERT INTO p.t VALUES (1, 1), (2, 2)",
    "CREATE TABLE p.o (a INT PRIMARY KEY)",
    "INSERT INTO p.o VALUES (7)",
    "CREATE VIEW p.v AS SELECT a, b FROM p.t",
    "CREATE USER m@'%' IDENTIFIED BY 'pw'",
];

type Outcome = Result<Vec<Vec<Option<String>>>, (u16, String)>;

/// Databases one server has and the other not (MariaDB's installer makes
/// `performance_schema` and `sys`, Basalt's data directory `test`).
const OWN_SCHEMAS: &[&str] = &["performance_schema", "sys", "test"];

fn run(c: &mut Conn, sql: &str) -> Outcome {
    match c.query::<mysql::Row, _>(sql) {
        Ok(rows) => Ok(rows
            .iter()
            .map(|r| (0..r.len()).map(|i| cell(&r[i])).collect::<Vec<_>>())
            .filter(|r| {
                !(sql == "SHOW DATABASES" && OWN_SCHEMAS.contains(&r[0].as_deref().unwrap_or("")))
            })
            .collect()),
        Err(mysql::Error::MySqlError(e)) => Err((e.code, e.message)),
        Err(e) => panic!("{sql}: {e}"),
    }
}

fn as_root(c: &mut Conn, sqls: &[&str]) {
    for q in sqls {
        c.query_drop(q).unwrap_or_else(|e| panic!("{q}: {e}"));
    }
}

fn account(port: u16) -> Conn {
    let url = format!("mysql://m:pw@127.0.0.1:{port}/?prefer_socket=false");
    Conn::new(Opts::from_url(&url).expect("url")).expect("login as m")
}

#[test]
#[ignore = "needs mariadb-server (run by .ci/run)"]
fn privilege_matrix_matches_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&[]);
    let mut broot = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("basalt");
    let mut mroot = Conn::new(Opts::from_url(&m.url()).expect("url")).expect("mariadb");
    // The installer's anonymous accounts would match m from localhost first.
    let anonymous: Vec<String> = mroot
        .query("SELECT host FROM mysql.user WHERE user = ''")
        .expect("anonymous accounts");
    for h in anonymous {
        as_root(&mut mroot, &[&format!("DROP USER ''@'{h}'")]);
    }
    let mut diffs = Vec::new();
    for grants in CASES {
        as_root(&mut broot, SCHEMA);
        as_root(&mut mroot, SCHEMA);
        as_root(&mut broot, grants);
        as_root(&mut mroot, grants);
        let mut bc = account(b.port);
        let mut mc = account(m.port);
        for sql in STATEMENTS {
            let (x, y) = (run(&mut bc, sql), run(&mut mc, sql));
            if x != y {
                diffs.push(format!(
                    "grants {grants:?}\n  {sql}\n  basalt:  {x:?}\n  mariadb: {y:?}"
                ));
            }
        }
    }
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}
