//! Accounts and privileges end to end, through the protocol (the `mysql` crate):
//! passwords checked at login, grants at global, database and table level
//! enforced on every statement with MariaDB's errors, SHOW GRANTS as MariaDB
//! prints it, and accounts surviving a restart.

use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

fn root(b: &Basalt) -> Conn {
    Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect as root")
}

fn login(b: &Basalt, user: &str, password: &str) -> Result<Conn, (u16, String)> {
    let url = format!(
        "mysql://{user}:{password}@127.0.0.1:{}/?prefer_socket=false",
        b.port
    );
    Conn::new(Opts::from_url(&url).expect("url")).map_err(|e| match e {
        mysql::Error::MySqlError(e) => (e.code, e.message),
        e => panic!("login {user}: not a server error: {e:?}"),
    })
}

/// The error a refused login got.
fn refused(r: Result<Conn, (u16, String)>, what: &str) -> (u16, String) {
    match r {
        Err(e) => e,
        Ok(_) => panic!("{what}: the login succeeded"),
    }
}

fn ok(c: &mut Conn, sql: &str) {
    c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
}

fn error(c: &mut Conn, sql: &str) -> (u16, String) {
    match c.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => (e.code, e.message),
        Err(e) => panic!("{sql}: not a server error: {e:?}"),
        Ok(()) => panic!("{sql}: succeeded, expected an error"),
    }
}

fn lines(c: &mut Conn, sql: &str) -> Vec<String> {
    c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

#[test]
fn passwords_are_checked_and_accounts_locked() {
    let b = Basalt::start();
    let mut r = root(&b);
    let hash: String = r
        .query_first("SELECT PASSWORD('pw')")
        .expect("q")
        .expect("row");
    assert_eq!(hash, "*D821809F681A40A6E379B50D0463EFAE20BDD122");
    ok(&mut r, "CREATE USER u@'%' IDENTIFIED BY 'pw'");
    let mut u = login(&b, "u", "pw").expect("right password");
    let who: (String, String) = u
        .query_first("SELECT CURRENT_USER(), USER()")
        .expect("q")
        .expect("row");
    assert_eq!(who.0, "u@%");
    let (code, msg) = refused(login(&b, "u", "bad"), "wrong password refused");
    assert_eq!(code, 1045, "{msg}");
    assert!(msg.starts_with("Access denied for user 'u'@"), "{msg}");
    assert_eq!(refused(login(&b, "nobody", ""), "unknown user").0, 1045);
    ok(&mut r, "ALTER USER u@'%' ACCOUNT LOCK");
    let (code, msg) = refused(login(&b, "u", "pw"), "locked");
    assert_eq!(
        (code, msg.as_str()),
        (4151, "Access denied, this account is locked")
    );
    ok(&mut r, "ALTER USER u@'%' ACCOUNT UNLOCK");
    ok(&mut r, "SET PASSWORD FOR u@'%' = PASSWORD('new')");
    assert_eq!(refused(login(&b, "u", "pw"), "old password").0, 1045);
    let mut u = login(&b, "u", "new").expect("new password");
    // A user changes its own password without any privilege.
    ok(&mut u, "SET PASSWORD = PASSWORD('mine')");
    login(&b, "u", "mine").expect("own password");
}

#[test]
fn grants_are_enforced_at_each_level() {
    let b = Basalt::start();
    let mut r = root(&b);
    ok(&mut r, "CREATE DATABASE p");
    ok(&mut r, "CREATE TABLE p.t (a INT PRIMARY KEY, b INT)");
    ok(&mut r, "CREATE TABLE p.other (a INT PRIMARY KEY)");
    ok(&mut r, "INSERT INTO p.t VALUES (1, 1)");
    ok(&mut r, "CREATE USER u@'%' IDENTIFIED BY 'pw'");
    let mut u = login(&b, "u", "pw").expect("login");
    let denied = |c: &mut Conn, sql: &str| error(c, sql);
    assert_eq!(
        denied(&mut u, "SELECT * FROM p.t"),
        (
            1142,
            "SELECT command denied to user 'u'@'localhost' for table `p`.`t`".into()
        )
    );
    assert_eq!(
        denied(&mut u, "USE p"),
        (
            1044,
            "Access denied for user 'u'@'%' to database 'p'".into()
        )
    );
    let dbs: Vec<String> = lines(&mut u, "SHOW DATABASES");
    assert_eq!(dbs, ["information_schema"]);

    ok(&mut r, "GRANT SELECT ON p.* TO u@'%'");
    ok(&mut r, "GRANT INSERT, UPDATE ON p.t TO u@'%'");
    assert_eq!(
        lines(&mut r, "SHOW GRANTS FOR u@'%'"),
        [
            "GRANT USAGE ON *.* TO `u`@`%` IDENTIFIED BY PASSWORD '*D821809F681A40A6E379B50D0463EFAE20BDD122'",
            "GRANT SELECT ON `p`.* TO `u`@`%`",
            "GRANT INSERT, UPDATE ON `p`.`t` TO `u`@`%`",
        ]
    );
    // The session sees new grants at its next statement.
    let n: Option<i64> = u.query_first("SELECT COUNT(*) FROM p.t").expect("select");
    assert_eq!(n, Some(1));
    ok(&mut u, "USE p");
    ok(&mut u, "INSERT INTO t VALUES (2, 2)");
    ok(&mut u, "UPDATE t SET b = b + 1 WHERE a = 2");
    assert_eq!(denied(&mut u, "INSERT INTO other VALUES (1)").0, 1142);
    assert_eq!(
        denied(&mut u, "DELETE FROM t WHERE a = 2"),
        (
            1142,
            "DELETE command denied to user 'u'@'localhost' for table `p`.`t`".into()
        )
    );
    assert_eq!(denied(&mut u, "DROP TABLE t").0, 1142);
    assert_eq!(denied(&mut u, "CREATE TABLE n (a INT)").0, 1142);
    assert_eq!(denied(&mut u, "ALTER TABLE t ADD c INT").0, 1142);
    assert_eq!(
        denied(&mut u, "SET GLOBAL max_connections = 10"),
        (
            1227,
            "Access denied; you need (at least one of) the SUPER, CONNECTION ADMIN privilege(s) for this operation"
                .into()
        )
    );
    assert_eq!(denied(&mut u, "CREATE USER x").0, 1227);
    assert_eq!(denied(&mut u, "GRANT SELECT ON p.* TO u@'%'").0, 1044);
    assert_eq!(denied(&mut u, "SHOW GRANTS FOR root@localhost").0, 1044);
    assert_eq!(lines(&mut u, "SHOW TABLES"), ["other", "t"]);

    // UPDATE without reading a column needs no SELECT; reading one does (1143).
    ok(&mut r, "CREATE USER w@'%'");
    ok(&mut r, "GRANT UPDATE ON p.t TO w@'%'");
    let mut w = login(&b, "w", "").expect("login w");
    ok(&mut w, "UPDATE p.t SET b = 7");
    assert_eq!(
        denied(&mut w, "UPDATE p.t SET b = 8 WHERE a = 1"),
        (
            1143,
            "SELECT command denied to user 'w'@'localhost' for column 'a' in table 't'".into()
        )
    );

    ok(&mut r, "REVOKE SELECT ON p.* FROM u@'%'");
    assert_eq!(denied(&mut u, "SELECT * FROM p.t").0, 1142);
    assert_eq!(
        denied(&mut r, "REVOKE SELECT ON p.* FROM u@'%'"),
        (
            1141,
            "There is no such grant defined for user 'u' on host '%'".into()
        )
    );
    ok(&mut r, "REVOKE ALL PRIVILEGES, GRANT OPTION FROM u@'%'");
    assert_eq!(lines(&mut r, "SHOW GRANTS FOR u@'%'").len(), 1);
}

#[test]
fn account_statements_give_mariadbs_errors_and_notes() {
    let b = Basalt::start();
    let mut r = root(&b);
    ok(&mut r, "CREATE USER a@localhost");
    assert_eq!(
        error(&mut r, "CREATE USER a@localhost"),
        (
            1396,
            "Operation CREATE USER failed for 'a'@'localhost'".into()
        )
    );
    ok(&mut r, "CREATE USER IF NOT EXISTS a@localhost");
    let w: Vec<(String, u32, String)> = r.query("SHOW WARNINGS").expect("warnings");
    assert_eq!(w[0].1, 1973);
    ok(
        &mut r,
        "CREATE OR REPLACE USER a@localhost IDENTIFIED BY 'x'",
    );
    assert_eq!(error(&mut r, "DROP USER b@localhost").0, 1396);
    ok(&mut r, "DROP USER IF EXISTS b@localhost");
    assert_eq!(error(&mut r, "GRANT SELECT ON *.* TO ghost").0, 1133);
    assert_eq!(
        error(&mut r, "GRANT SUPER ON test.* TO a@localhost").0,
        1221
    );
    assert_eq!(
        error(&mut r, "GRANT SELECT ON test.nope TO a@localhost").0,
        1146
    );
    assert_eq!(error(&mut r, "CREATE USER e IDENTIFIED VIA pam").0, 1524);
    assert_eq!(
        error(&mut r, "CREATE USER h IDENTIFIED BY PASSWORD 'nothex'").0,
        1372
    );
    assert_eq!(
        lines(&mut r, "SHOW CREATE USER a@localhost"),
        ["CREATE USER `a`@`localhost` IDENTIFIED BY PASSWORD '*B69027D44F6E5EDC07F1AEAD1477967B16F28227'"]
    );
    let row: (String, String, String) = r
        .query_first("SELECT user, host, password FROM mysql.user WHERE user = 'a'")
        .expect("mysql.user")
        .expect("a row");
    assert_eq!(row.2, "*B69027D44F6E5EDC07F1AEAD1477967B16F28227");
    assert_eq!(
        error(&mut r, "DELETE FROM mysql.user WHERE user = 'a'"),
        (1036, "Table 'user' is read only".into())
    );
    ok(&mut r, "RENAME USER a@localhost TO c@'%'");
    assert_eq!(lines(&mut r, "SHOW GRANTS FOR c@'%'").len(), 1);
    ok(&mut r, "DROP USER c@'%'");
}

#[test]
fn accounts_and_grants_survive_a_restart() {
    let mut b = Basalt::start();
    {
        let mut r = root(&b);
        ok(&mut r, "CREATE USER d@'%' IDENTIFIED BY 'pw'");
        ok(
            &mut r,
            "GRANT SELECT, INSERT ON test.* TO d@'%' WITH GRANT OPTION",
        );
    }
    b.restart(true);
    let mut r = root(&b);
    assert_eq!(
        lines(&mut r, "SHOW GRANTS FOR d@'%'"),
        [
            "GRANT USAGE ON *.* TO `d`@`%` IDENTIFIED BY PASSWORD '*D821809F681A40A6E379B50D0463EFAE20BDD122'",
            "GRANT SELECT, INSERT ON `test`.* TO `d`@`%` WITH GRANT OPTION",
        ]
    );
    login(&b, "d", "pw").expect("login after restart");
}

/// `read_only` as MariaDB 10.11 applies it (each answer checked against it):
/// changes by an account without SUPER / READ ONLY ADMIN are 1290, temporary
/// tables, reads and CHECK TABLE are not affected, and SUPER may still write.
#[test]
fn read_only_refuses_changes_of_accounts_without_super() {
    let b = Basalt::start();
    let mut r = root(&b);
    for sql in [
        "create database rodb",
        "create table rodb.t (a int primary key)",
        "create user ro@'%' identified by 'pw'",
        "grant all on rodb.* to ro@'%'",
        "grant create user, reload on *.* to ro@'%'",
        "create user su@'%' identified by 'pw'",
        "grant super on *.* to su@'%'",
        "grant all on rodb.* to su@'%'",
        "set global read_only = ON",
    ] {
        ok(&mut r, sql);
    }
    let mut c = login(&b, "ro", "pw").expect("ro logs in");
    ok(&mut c, "use rodb");
    for sql in [
        "insert into rodb.t values (1)",
        "update rodb.t set a = 2",
        "delete from rodb.t",
        "create table rodb.u (a int)",
        "create database rodb2",
        "alter database rodb character set utf8mb4",
        "truncate table rodb.t",
        "create view rodb.v as select 1",
        "analyze table rodb.t",
        "optimize table rodb.t",
        "create user zz@'%'",
        "drop table rodb.t",
        "lock tables t write",
    ] {
        let (code, msg) = error(&mut c, sql);
        assert_eq!(code, 1290, "{sql}: {msg}");
        assert!(msg.contains("--read-only"), "{msg}");
    }
    ok(&mut c, "select count(*) from rodb.t");
    ok(&mut c, "check table rodb.t");
    ok(&mut c, "lock tables t read");
    ok(&mut c, "unlock tables");
    ok(&mut c, "create temporary table rodb.tt (a int)");
    ok(&mut c, "insert into rodb.tt values (1)");
    ok(&mut c, "drop temporary table rodb.tt");
    let mut s = login(&b, "su", "pw").expect("su logs in");
    ok(&mut s, "insert into rodb.t values (7)");
    ok(&mut r, "set global read_only = OFF");
    ok(&mut c, "insert into rodb.t values (8)");
    assert_eq!(lines(&mut r, "select a from rodb.t order by a"), ["7", "8"]);
}

/// The protocol's own administration commands are checked as their statements
/// are: COM_SHUTDOWN needs SHUTDOWN (1227), COM_PROCESS_KILL of another user's
/// session needs SUPER or CONNECTION ADMIN (1095), as in MariaDB. Both were once
/// open to any account (found by tests/network_fuzz.rs).
#[test]
fn com_shutdown_and_com_process_kill_check_privileges() {
    use basalt_tests::{raw_login_as, read_packet, send_packet};
    let err = |p: &[u8]| -> (u16, String) {
        assert_eq!(p.first(), Some(&0xff), "an ERR packet: {p:?}");
        let msg = String::from_utf8_lossy(&p[9..]).into_owned();
        (u16::from_le_bytes([p[1], p[2]]), msg)
    };
    let mut b = Basalt::start();
    let mut r = root(&b);
    let root_id: u32 = r
        .query_first("SELECT CONNECTION_ID()")
        .expect("q")
        .expect("row");
    ok(&mut r, "CREATE USER plain@'%'");
    let mut s = raw_login_as(b.port, "plain");
    send_packet(&mut s, 0, &[0x08]);
    assert_eq!(
        err(&read_packet(&mut s).expect("reply")),
        (
            1227,
            "Access denied; you need (at least one of) the SHUTDOWN privilege(s) for this operation"
                .into()
        )
    );
    let mut kill = vec![0x0c];
    kill.extend_from_slice(&root_id.to_le_bytes());
    send_packet(&mut s, 0, &kill);
    assert_eq!(
        err(&read_packet(&mut s).expect("reply")),
        (1095, format!("You are not owner of thread {root_id}"))
    );
    // Both refusals leave the server and root's session as they were, and the
    // refused session goes on.
    assert_eq!(lines(&mut r, "SELECT 1"), ["1"]);
    send_packet(&mut s, 0, &[0x0e]);
    assert_eq!(read_packet(&mut s).expect("ping")[0], 0x00);
    // The user's own other session may be killed.
    let mut other = raw_login_as(b.port, "plain");
    send_packet(&mut other, 0, b"\x03SELECT CONNECTION_ID()");
    let mut other_id = 0u32;
    for p in std::iter::from_fn(|| read_packet(&mut other).ok()).take(5) {
        if p.len() > 1 && p[0] as usize == p.len() - 1 && p[1..].iter().all(u8::is_ascii_digit) {
            other_id = String::from_utf8_lossy(&p[1..]).parse().expect("id");
        }
    }
    assert_ne!(other_id, 0, "the other session's id");
    let mut kill = vec![0x0c];
    kill.extend_from_slice(&other_id.to_le_bytes());
    send_packet(&mut s, 0, &kill);
    assert_eq!(read_packet(&mut s).expect("reply")[0], 0x00, "OK");
    send_packet(&mut other, 0, &[0x0e]);
    assert!(
        read_packet(&mut other).is_err(),
        "the killed session is closed"
    );
    // With the privilege, COM_SHUTDOWN stops the server.
    ok(&mut r, "GRANT SHUTDOWN ON *.* TO plain@'%'");
    let mut s = raw_login_as(b.port, "plain");
    send_packet(&mut s, 0, &[0x08]);
    assert_eq!(read_packet(&mut s).expect("reply")[0], 0x00, "OK");
    assert_eq!(b.wait_exit(std::time::Duration::from_secs(60)), Some(0));
}
