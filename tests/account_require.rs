//! Accounts' TLS requirements (`REQUIRE NONE | SSL | X509 | CIPHER / ISSUER /
//! SUBJECT`) through the protocol: CREATE / ALTER USER and GRANT set them,
//! SHOW GRANTS, SHOW CREATE USER, mysql.user and mysql.global_priv show them as
//! MariaDB 10.11 does, and they survive a restart. (Whether a login meets them
//! is tested in tls.rs.)

use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

const CIPHER: &str = "ECDHE-RSA-AES256-GCM-SHA384";

fn root(b: &Basalt) -> Conn {
    Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect as root")
}

fn login(b: &Basalt, user: &str, password: &str) -> Conn {
    let url = format!(
        "mysql://{user}:{password}@127.0.0.1:{}/?prefer_socket=false",
        b.port
    );
    Conn::new(Opts::from_url(&url).expect("url")).unwrap_or_else(|e| panic!("login {user}: {e}"))
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

fn one(c: &mut Conn, sql: &str) -> String {
    c.query_first(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .unwrap_or_else(|| panic!("{sql}: no row"))
}

/// mysql.user's ssl_type, ssl_cipher, x509_issuer and x509_subject.
fn user_columns(c: &mut Conn, user: &str) -> (String, String, String, String) {
    let sql = format!(
        "SELECT ssl_type, ssl_cipher, x509_issuer, x509_subject FROM mysql.user WHERE user = '{user}'"
    );
    c.query_first(&sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .unwrap_or_else(|| panic!("{sql}: no row"))
}

fn cols(t: &str, cipher: &str, issuer: &str, subject: &str) -> (String, String, String, String) {
    (t.into(), cipher.into(), issuer.into(), subject.into())
}

fn global_priv(c: &mut Conn, user: &str) -> String {
    one(
        c,
        &format!("SELECT priv FROM mysql.global_priv WHERE user = '{user}'"),
    )
}

#[test]
fn requirements_show_as_in_mariadb() {
    let b = Basalt::start();
    let mut r = root(&b);
    ok(&mut r, "CREATE USER a@'%' REQUIRE SSL");
    assert_eq!(
        lines(&mut r, "SHOW GRANTS FOR a@'%'"),
        ["GRANT USAGE ON *.* TO `a`@`%` REQUIRE SSL"]
    );
    assert_eq!(
        lines(&mut r, "SHOW CREATE USER a@'%'"),
        ["CREATE USER `a`@`%` REQUIRE SSL"]
    );
    assert_eq!(user_columns(&mut r, "a"), cols("ANY", "", "", ""));
    assert_eq!(
        global_priv(&mut r, "a"),
        r#"{"access":0,"plugin":"mysql_native_password","authentication_string":"","ssl_type":1,"ssl_cipher":"","x509_issuer":"","x509_subject":""}"#
    );
    ok(
        &mut r,
        &format!(
            "CREATE USER b@'%' REQUIRE ISSUER '/C=SE/CN=ca' AND SUBJECT '/C=SE/CN=b' AND CIPHER '{CIPHER}'"
        ),
    );
    let b_require = format!("REQUIRE ISSUER '/C=SE/CN=ca' SUBJECT '/C=SE/CN=b' CIPHER '{CIPHER}'");
    assert_eq!(
        lines(&mut r, "SHOW GRANTS FOR b@'%'"),
        [format!("GRANT USAGE ON *.* TO `b`@`%` {b_require}")]
    );
    assert_eq!(
        lines(&mut r, "SHOW CREATE USER b@'%'"),
        [format!("CREATE USER `b`@`%` {b_require}")]
    );
    assert_eq!(
        user_columns(&mut r, "b"),
        cols("SPECIFIED", CIPHER, "/C=SE/CN=ca", "/C=SE/CN=b")
    );
    assert_eq!(
        global_priv(&mut r, "b"),
        format!(
            r#"{{"access":0,"plugin":"mysql_native_password","authentication_string":"","ssl_type":3,"ssl_cipher":"{CIPHER}","x509_issuer":"/C=SE/CN=ca","x509_subject":"/C=SE/CN=b"}}"#
        )
    );
    // Options without AND, in any order, lower case; printed ISSUER, SUBJECT,
    // CIPHER, quotes doubled and backslashes escaped.
    ok(
        &mut r,
        r#"create user c@localhost identified by 'pw' require subject 'x\'y' cipher "c1" and issuer 'a\\b' account lock"#,
    );
    assert_eq!(
        lines(&mut r, "SHOW CREATE USER c@localhost"),
        ["CREATE USER `c`@`localhost` IDENTIFIED BY PASSWORD '*D821809F681A40A6E379B50D0463EFAE20BDD122' REQUIRE ISSUER 'a\\\\b' SUBJECT 'x''y' CIPHER 'c1' ACCOUNT LOCK"]
    );
    assert_eq!(
        user_columns(&mut r, "c"),
        cols("SPECIFIED", "c1", "a\\b", "x'y")
    );
    assert_eq!(
        global_priv(&mut r, "c"),
        r#"{"access":0,"plugin":"mysql_native_password","authentication_string":"*D821809F681A40A6E379B50D0463EFAE20BDD122","ssl_type":3,"ssl_cipher":"c1","x509_issuer":"a\\b","x509_subject":"x'y","account_locked":true}"#
    );
    // An account without a requirement: no TLS keys, empty columns.
    ok(&mut r, "CREATE USER n@'%'");
    assert_eq!(user_columns(&mut r, "n"), cols("", "", "", ""));
    assert_eq!(
        global_priv(&mut r, "n"),
        r#"{"access":0,"plugin":"mysql_native_password","authentication_string":""}"#
    );
    // information_schema.USER_PRIVILEGES does not show it.
    assert_eq!(
        one(
            &mut r,
            "SELECT privilege_type FROM information_schema.USER_PRIVILEGES WHERE grantee = '''b''@''%'''"
        ),
        "USAGE"
    );
}

#[test]
fn alter_user_and_grant_change_the_requirement() {
    let b = Basalt::start();
    let mut r = root(&b);
    ok(&mut r, "CREATE USER a@'%' REQUIRE SSL");
    ok(&mut r, "GRANT USAGE ON *.* TO a@'%' REQUIRE X509");
    assert_eq!(
        lines(&mut r, "SHOW GRANTS FOR a@'%'"),
        ["GRANT USAGE ON *.* TO `a`@`%` REQUIRE X509"]
    );
    assert_eq!(user_columns(&mut r, "a"), cols("X509", "", "", ""));
    // ALTER USER without REQUIRE keeps it.
    ok(&mut r, "ALTER USER a@'%' IDENTIFIED BY 'pw' ACCOUNT LOCK");
    assert_eq!(
        lines(&mut r, "SHOW CREATE USER a@'%'"),
        ["CREATE USER `a`@`%` IDENTIFIED BY PASSWORD '*D821809F681A40A6E379B50D0463EFAE20BDD122' REQUIRE X509 ACCOUNT LOCK"]
    );
    ok(&mut r, "ALTER USER a@'%' REQUIRE NONE ACCOUNT UNLOCK");
    assert_eq!(
        lines(&mut r, "SHOW CREATE USER a@'%'"),
        ["CREATE USER `a`@`%` IDENTIFIED BY PASSWORD '*D821809F681A40A6E379B50D0463EFAE20BDD122'"]
    );
    assert_eq!(user_columns(&mut r, "a"), cols("", "", "", ""));
    // GRANT's REQUIRE sets every grantee's; it comes before WITH GRANT OPTION.
    ok(&mut r, "CREATE USER g@'%'");
    ok(
        &mut r,
        "GRANT SELECT ON test.* TO a@'%', g@'%' REQUIRE SUBJECT '/CN=s' WITH GRANT OPTION",
    );
    assert_eq!(
        lines(&mut r, "SHOW GRANTS FOR a@'%'")[0],
        "GRANT USAGE ON *.* TO `a`@`%` IDENTIFIED BY PASSWORD '*D821809F681A40A6E379B50D0463EFAE20BDD122' REQUIRE SUBJECT '/CN=s'"
    );
    assert_eq!(
        lines(&mut r, "SHOW GRANTS FOR g@'%'")[0],
        "GRANT USAGE ON *.* TO `g`@`%` REQUIRE SUBJECT '/CN=s'"
    );
    ok(&mut r, "GRANT SELECT ON *.* TO g@'%' REQUIRE CIPHER 'x'");
    assert_eq!(
        lines(&mut r, "SHOW GRANTS FOR g@'%'"),
        [
            "GRANT SELECT ON *.* TO `g`@`%` REQUIRE CIPHER 'x'",
            "GRANT SELECT ON `test`.* TO `g`@`%` WITH GRANT OPTION",
        ]
    );
    // A GRANT without REQUIRE keeps it; GRANT ... REQUIRE NONE clears it.
    ok(&mut r, "GRANT INSERT ON test.* TO g@'%'");
    assert_eq!(user_columns(&mut r, "g"), cols("SPECIFIED", "x", "", ""));
    ok(&mut r, "GRANT USAGE ON *.* TO g@'%' REQUIRE NONE");
    assert_eq!(
        lines(&mut r, "SHOW GRANTS FOR g@'%'")[0],
        "GRANT SELECT ON *.* TO `g`@`%`"
    );
    // CREATE USER applies it to every account it names.
    ok(&mut r, "CREATE USER s1@'%', s2@'%' REQUIRE SSL");
    assert_eq!(user_columns(&mut r, "s2"), cols("ANY", "", "", ""));
}

#[test]
fn errors_and_privileges_as_in_mariadb() {
    let b = Basalt::start();
    let mut r = root(&b);
    for (sql, option) in [
        (
            "CREATE USER e@'%' REQUIRE CIPHER 'a' AND CIPHER 'b'",
            "CIPHER",
        ),
        ("CREATE USER e@'%' REQUIRE ISSUER 'a' ISSUER 'b'", "ISSUER"),
        (
            "CREATE USER e@'%' REQUIRE SUBJECT 'a' AND SUBJECT 'b'",
            "SUBJECT",
        ),
    ] {
        assert_eq!(
            error(&mut r, sql),
            (1225, format!("Option '{option}' used twice in statement")),
            "{sql}"
        );
    }
    for sql in [
        "CREATE USER e@'%' REQUIRE SSL AND X509",
        "CREATE USER e@'%' REQUIRE",
        "CREATE USER e@'%' REQUIRE AND CIPHER 'a'",
        "CREATE USER e@'%' ACCOUNT LOCK REQUIRE SSL",
        "GRANT SELECT ON test.* TO root@localhost WITH GRANT OPTION REQUIRE SSL",
    ] {
        assert_eq!(error(&mut r, sql).0, 1064, "{sql}");
    }
    assert_eq!(
        lines(&mut r, "SELECT user FROM mysql.user WHERE user = 'e'").len(),
        0
    );
    assert_eq!(
        error(&mut r, "GRANT USAGE ON *.* TO ghost@'%' REQUIRE SSL").0,
        1133
    );
    // GRANT ... REQUIRE needs UPDATE on `mysql` besides GRANT OPTION;
    // ALTER USER ... REQUIRE needs CREATE USER, even for one's own account.
    ok(&mut r, "CREATE USER x@'%' IDENTIFIED BY 'x'");
    ok(&mut r, "GRANT SELECT ON test.* TO x@'%' WITH GRANT OPTION");
    ok(&mut r, "CREATE USER y@'%'");
    let mut x = login(&b, "x", "x");
    assert_eq!(
        error(&mut x, "GRANT SELECT ON test.* TO y@'%' REQUIRE SSL"),
        (
            1044,
            "Access denied for user 'x'@'%' to database 'mysql'".into()
        )
    );
    assert_eq!(
        error(&mut x, "GRANT SELECT ON test.* TO ghost@'%' REQUIRE SSL").0,
        1133
    );
    ok(&mut x, "GRANT SELECT ON test.* TO y@'%'");
    assert_eq!(
        error(&mut x, "ALTER USER CURRENT_USER() REQUIRE SSL").0,
        1227
    );
    ok(&mut r, "GRANT UPDATE ON mysql.* TO x@'%'");
    ok(&mut x, "GRANT SELECT ON test.* TO y@'%' REQUIRE X509");
    assert_eq!(user_columns(&mut r, "y"), cols("X509", "", "", ""));
}

#[test]
fn requirements_survive_a_restart() {
    let mut b = Basalt::start();
    {
        let mut r = root(&b);
        ok(&mut r, "CREATE USER a@'%' REQUIRE X509");
        ok(
            &mut r,
            "CREATE USER b@'%' IDENTIFIED BY 'pw' REQUIRE ISSUER '/CN=ca' AND CIPHER 'c'",
        );
        ok(&mut r, "GRANT SELECT ON test.* TO b@'%'");
    }
    b.restart(true);
    let mut r = root(&b);
    assert_eq!(
        lines(&mut r, "SHOW CREATE USER a@'%'"),
        ["CREATE USER `a`@`%` REQUIRE X509"]
    );
    assert_eq!(
        lines(&mut r, "SHOW GRANTS FOR b@'%'"),
        [
            "GRANT USAGE ON *.* TO `b`@`%` IDENTIFIED BY PASSWORD '*D821809F681A40A6E379B50D0463EFAE20BDD122' REQUIRE ISSUER '/CN=ca' CIPHER 'c'",
            "GRANT SELECT ON `test`.* TO `b`@`%`",
        ]
    );
    assert_eq!(
        user_columns(&mut r, "b"),
        cols("SPECIFIED", "c", "/CN=ca", "")
    );
}
