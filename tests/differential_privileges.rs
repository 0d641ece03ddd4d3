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
    // Roles: held but not enabled, enabled by default (with a role granted to
    // it), administered, and PUBLIC.
    &[
        "CREATE ROLE rr",
        "GRANT SELECT ON p.* TO rr",
        "GRANT rr TO m@'%'",
    ],
    &[
        "CREATE ROLE rr",
        "CREATE ROLE rr2",
        "GRANT SELECT ON p.t TO rr",
        "GRANT INSERT, DELETE ON p.t TO rr2",
        "GRANT rr2 TO rr",
        "GRANT rr TO m@'%'",
        "SET DEFAULT ROLE rr FOR m@'%'",
    ],
    &[
        "CREATE ROLE rr WITH ADMIN m@'%'",
        "GRANT CREATE ON p.* TO rr",
    ],
    &["GRANT SELECT ON p.o TO PUBLIC"],
];

/// What the account tries in every case.
const STATEMENTS: &[&str] = &[
    "SELECT * FROM p.t ORDER BY a",
    "SELECT a FROM p.v ORDER BY a",
    "SELECT * FROM p.o",
    // Missing tables and databases: 1142 without the privilege, else 1146.
    "SELECT * FROM p.nope",
    "SELECT * FROM nodb.t",
    "SELECT * FROM p.t, p.nope",
    "SELECT * FROM p.t WHERE a IN (SELECT a FROM p.nope)",
    "INSERT INTO p.nope VALUES (1)",
    "INSERT INTO p.t SELECT * FROM p.nope",
    "UPDATE p.nope SET a = 1",
    "DELETE FROM p.nope",
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
    "SELECT CURRENT_ROLE()",
    "SELECT * FROM information_schema.applicable_roles ORDER BY 1, 2",
    "SELECT * FROM information_schema.enabled_roles ORDER BY 1",
    "SHOW GRANTS FOR rr",
    "SHOW GRANTS FOR rr2",
    "GRANT rr TO m@'%'",
    "GRANT rr2 TO m@'%'",
    "SET ROLE rr",
    "SELECT CURRENT_ROLE()",
    "SELECT * FROM p.t ORDER BY a",
    "CREATE TABLE p.n2 (a INT)",
    "SHOW GRANTS FOR PUBLIC",
    "SHOW GRANTS",
    "SELECT * FROM information_schema.enabled_roles ORDER BY 1",
    "SET ROLE NONE",
    "SELECT * FROM p.t ORDER BY a",
    "SET DEFAULT ROLE NONE",
    "SET ROLE rr2",
    "CREATE ROLE rz",
    "DROP ROLE rr2",
];

const SCHEMA: &[&str] = &[
    "DROP DATABASE IF EXISTS p",
    "DROP DATABASE IF EXISTS q",
    "DROP USER IF EXISTS m@'%', z@'%'",
    "DROP ROLE IF EXISTS rr, rr2, rz",
    "GRANT USAGE ON *.* TO PUBLIC",
    "REVOKE ALL PRIVILEGES, GRANT OPTION FROM PUBLIC",
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

/// Role statements run as root, with their errors and what they leave in the
/// grant tables and SHOW GRANTS (root's own lines are not compared: MariaDB's
/// installer gives root more than Basalt's).
const ROLE_SCRIPT: &[&str] = &[
    "DROP ROLE IF EXISTS ra, rb, rc, rd",
    "DROP USER IF EXISTS u2@'%'",
    "CREATE ROLE ra",
    "CREATE ROLE rb, rc",
    "CREATE ROLE ra",
    "CREATE ROLE IF NOT EXISTS ra",
    "SHOW WARNINGS",
    "CREATE ROLE none",
    "CREATE ROLE public",
    "CREATE ROLE ''",
    "GRANT ra TO rb",
    "GRANT rb TO rc",
    "GRANT rc TO ra",
    "GRANT ra TO ra",
    "GRANT INSERT ON p.* TO ra",
    "GRANT SELECT ON p.t TO rb",
    "CREATE USER u2@'%' IDENTIFIED BY 'pw'",
    "GRANT rc TO u2@'%'",
    "GRANT nope TO u2@'%'",
    "GRANT ra TO nobody@'%'",
    "SHOW GRANTS FOR rc",
    "SHOW GRANTS FOR u2@'%'",
    "SHOW GRANTS FOR CURRENT_ROLE",
    "SET ROLE ra",
    "SHOW GRANTS FOR CURRENT_ROLE",
    "SHOW GRANTS FOR CURRENT_ROLE()",
    "SHOW GRANTS FOR CURRENT_ROLE(1)",
    "SET ROLE NONE",
    "SET DEFAULT ROLE ra FOR u2@'%'",
    "SET DEFAULT ROLE rc FOR u2@'%'",
    "SET DEFAULT ROLE nope FOR u2@'%'",
    "SHOW GRANTS FOR u2@'%'",
    "SELECT user, host, is_role, default_role FROM mysql.user WHERE user IN ('ra', 'u2') ORDER BY 1",
    "SELECT * FROM mysql.roles_mapping WHERE user <> 'root' ORDER BY 1, 2, 3",
    "SELECT * FROM mysql.db WHERE user IN ('ra', 'rb') ORDER BY user",
    "SELECT grantee, table_schema, privilege_type FROM information_schema.schema_privileges \
     WHERE grantee LIKE '''r%' ORDER BY 1, 3",
    "CREATE OR REPLACE ROLE ra WITH ADMIN u2@'%'",
    "SELECT * FROM mysql.roles_mapping WHERE user <> 'root' ORDER BY 1, 2, 3",
    "GRANT ra TO rb",
    "REVOKE ADMIN OPTION FOR ra FROM u2@'%'",
    "REVOKE rb FROM u2@'%'",
    "REVOKE rc FROM u2@'%'",
    "SHOW GRANTS FOR u2@'%'",
    "DROP ROLE nope",
    "DROP ROLE IF EXISTS nope",
    "SHOW WARNINGS",
    "DROP ROLE public",
    "DROP USER rb",
    "RENAME USER rc TO rz",
    "SET ROLE nope",
    "SET ROLE public",
    "GRANT SELECT ON p.o TO PUBLIC",
    "SHOW GRANTS FOR PUBLIC",
    "REVOKE SELECT ON p.o FROM PUBLIC",
    "SHOW GRANTS FOR PUBLIC",
    "SHOW GRANTS FOR 'rb'@'%'",
    "DROP ROLE rb, rc",
    "SHOW GRANTS FOR rc",
    "SELECT * FROM mysql.roles_mapping WHERE user <> 'root' ORDER BY 1, 2, 3",
    "DROP ROLE IF EXISTS ra",
    "DROP USER u2@'%'",
];

#[test]
#[ignore = "needs mariadb-server (run by .ci/run)"]
fn role_statements_match_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&[]);
    let mut broot = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("basalt");
    let mut mroot = Conn::new(Opts::from_url(&m.url()).expect("url")).expect("mariadb");
    as_root(&mut broot, SCHEMA);
    as_root(&mut mroot, SCHEMA);
    let mut diffs = Vec::new();
    for sql in ROLE_SCRIPT {
        let (x, y) = (run(&mut broot, sql), run(&mut mroot, sql));
        if x != y {
            diffs.push(format!("  {sql}\n  basalt:  {x:?}\n  mariadb: {y:?}"));
        }
    }
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}
