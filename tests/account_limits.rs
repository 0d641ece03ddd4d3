//! Per-account resource limits end to end: `WITH MAX_QUERIES_PER_HOUR`,
//! `MAX_UPDATES_PER_HOUR`, `MAX_CONNECTIONS_PER_HOUR`, `MAX_USER_CONNECTIONS` and
//! `MAX_STATEMENT_TIME` on CREATE / ALTER USER and GRANT, enforced with MariaDB's
//! errors (1226), shown as MariaDB prints them, reset by FLUSH USER_RESOURCES.

use basalt_tests::client::{error, lines, login, ok, root, value};
use basalt_tests::Basalt;
use mysql::prelude::*;

#[test]
fn limits_are_shown_and_stored_as_mariadb_shows_them() {
    let b = Basalt::start();
    let mut r = root(&b);
    ok(
        &mut r,
        "CREATE USER lim@'%' IDENTIFIED BY 'pw' WITH MAX_QUERIES_PER_HOUR 3 \
         MAX_UPDATES_PER_HOUR 2 MAX_CONNECTIONS_PER_HOUR 4 MAX_USER_CONNECTIONS 1 \
         MAX_STATEMENT_TIME 1.5",
    );
    let hash = "IDENTIFIED BY PASSWORD '*D821809F681A40A6E379B50D0463EFAE20BDD122'";
    let with = "MAX_QUERIES_PER_HOUR 3 MAX_UPDATES_PER_HOUR 2 MAX_CONNECTIONS_PER_HOUR 4 \
                MAX_USER_CONNECTIONS 1 MAX_STATEMENT_TIME 1.500000";
    assert_eq!(
        lines(&mut r, "SHOW CREATE USER lim@'%'"),
        [format!("CREATE USER `lim`@`%` {hash} WITH {with}")]
    );
    ok(
        &mut r,
        "GRANT SELECT ON *.* TO lim@'%' WITH GRANT OPTION MAX_QUERIES_PER_HOUR 0",
    );
    assert_eq!(
        lines(&mut r, "SHOW GRANTS FOR lim@'%'"),
        [format!(
            "GRANT SELECT ON *.* TO `lim`@`%` {hash} WITH GRANT OPTION {}",
            with.replace("MAX_QUERIES_PER_HOUR 3 ", "")
        )]
    );
    let row: (u64, u64, u64, i64, String) = r
        .query_first(
            "SELECT max_questions, max_updates, max_connections, max_user_connections, \
             max_statement_time FROM mysql.user WHERE user = 'lim'",
        )
        .expect("mysql.user")
        .expect("row");
    assert_eq!(row, (0, 2, 4, 1, "1.500000".into()));
    let e = error(&mut r, "ALTER USER lim@'%' WITH MAX_QUERIES_PER_HOUR -1");
    assert_eq!(e.0, 1064);
}

#[test]
fn connections_queries_and_updates_are_limited() {
    let b = Basalt::start();
    let mut r = root(&b);
    ok(&mut r, "CREATE DATABASE d");
    ok(&mut r, "CREATE TABLE d.t (a INT)");
    ok(
        &mut r,
        "CREATE USER lim@'%' IDENTIFIED BY 'pw' WITH MAX_USER_CONNECTIONS 1",
    );
    ok(&mut r, "GRANT ALL ON d.* TO lim@'%'");
    let first = login(&b, "lim", "pw").expect("first login");
    let e = login(&b, "lim", "pw").expect_err("a second connection at once");
    assert_eq!(
        e,
        (
            1226,
            "User 'lim' has exceeded the 'max_user_connections' resource (current value: 1)".into()
        )
    );
    drop(first);
    // The slot is given back when the session ends (on the server's thread).
    let mut u = retry_login(&b);
    drop(u);

    ok(
        &mut r,
        "ALTER USER lim@'%' WITH MAX_USER_CONNECTIONS 0 MAX_QUERIES_PER_HOUR 4 MAX_UPDATES_PER_HOUR 1",
    );
    u = retry_login(&b);
    ok(&mut u, "INSERT INTO d.t VALUES (1)");
    let e = error(&mut u, "INSERT INTO d.t VALUES (2)");
    assert_eq!(
        e.1,
        "User 'lim' has exceeded the 'max_updates_per_hour' resource (current value: 1)"
    );
    assert_eq!(
        value(&mut u, "SELECT COUNT(*) FROM d.t").as_deref(),
        Some("1")
    );
    let e = error(&mut u, "SELECT 1");
    assert_eq!(
        e,
        (
            1226,
            "User 'lim' has exceeded the 'max_queries_per_hour' resource (current value: 4)".into()
        )
    );
    // Prepared statements count too; FLUSH USER_RESOURCES starts the hour again.
    ok(&mut r, "FLUSH USER_RESOURCES");
    assert_eq!(value(&mut u, "SELECT 2").as_deref(), Some("2"));
    let n: Option<u64> = u.exec_first("SELECT ?", (5,)).expect("prepared");
    assert_eq!(n, Some(5));
    drop(u);

    ok(
        &mut r,
        "ALTER USER lim@'%' WITH MAX_QUERIES_PER_HOUR 0 MAX_UPDATES_PER_HOUR 0 \
         MAX_CONNECTIONS_PER_HOUR 1",
    );
    ok(&mut r, "FLUSH USER_RESOURCES");
    drop(retry_login(&b));
    let e = login(&b, "lim", "pw").expect_err("one connection an hour");
    assert_eq!(
        e.1,
        "User 'lim' has exceeded the 'max_connections_per_hour' resource (current value: 1)"
    );
    ok(
        &mut r,
        "ALTER USER lim@'%' WITH MAX_CONNECTIONS_PER_HOUR 0 MAX_USER_CONNECTIONS -1",
    );
    let e = login(&b, "lim", "pw").expect_err("no connection at all");
    assert_eq!(e.0, 1226);
}

#[test]
fn max_statement_time_of_the_account_is_the_sessions_default() {
    let b = Basalt::start();
    let mut r = root(&b);
    ok(
        &mut r,
        "CREATE USER slow@'%' IDENTIFIED BY 'pw' WITH MAX_STATEMENT_TIME 0.2",
    );
    let mut u = login(&b, "slow", "pw").expect("login");
    assert_eq!(
        value(&mut u, "SELECT @@max_statement_time").as_deref(),
        Some("0.200000")
    );
    assert_eq!(error(&mut u, "SELECT SLEEP(5)").0, 1969);
}

#[test]
fn max_user_connections_is_fixed_at_0_as_in_mariadb() {
    let b = Basalt::start();
    let mut r = root(&b);
    let e = error(&mut r, "SET GLOBAL max_user_connections = 5");
    assert_eq!(
        e,
        (
            1290,
            "The MariaDB server is running with the --max-user-connections=0 option so it \
             cannot execute this statement"
                .into()
        )
    );
    ok(&mut r, "SET GLOBAL max_user_connections = 0");
}

/// Logs in as `lim`, retrying while the previous session's slot is given back.
fn retry_login(b: &Basalt) -> mysql::Conn {
    for _ in 0..100 {
        match login(b, "lim", "pw") {
            Ok(c) => return c,
            Err((1226, _)) => std::thread::sleep(std::time::Duration::from_millis(20)),
            Err(e) => panic!("login: {e:?}"),
        }
    }
    panic!("the connection slot was not given back");
}
