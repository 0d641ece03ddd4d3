//! Roles end to end, through the protocol: CREATE / DROP ROLE, GRANT role TO,
//! SET ROLE and SET DEFAULT ROLE, privileges held through the enabled role and
//! the roles granted to it, PUBLIC, MariaDB's errors and notes, the role tables
//! of `mysql` and information_schema, and roles surviving a restart.

use basalt_tests::client::{error, lines, login, ok, root, value};
use basalt_tests::Basalt;
use mysql::prelude::*;

/// root makes database `d` with table `t`, roles `r` (SELECT on d.*) and `r2`
/// (INSERT on d.t, granted to `r`), and account `u` holding `r`.
fn setup(b: &Basalt) -> mysql::Conn {
    let mut r = root(b);
    for q in [
        "CREATE DATABASE d",
        "CREATE TABLE d.t (a INT PRIMARY KEY)",
        "INSERT INTO d.t VALUES (1)",
        "CREATE ROLE r",
        "CREATE ROLE r2",
        "GRANT SELECT ON d.* TO r",
        "GRANT INSERT ON d.t TO r2",
        "GRANT r2 TO r",
        "CREATE USER u@'%' IDENTIFIED BY 'pw'",
        "GRANT r TO u@'%'",
    ] {
        ok(&mut r, q);
    }
    r
}

#[test]
fn the_enabled_role_and_the_roles_granted_to_it_give_privileges() {
    let b = Basalt::start();
    let _root = setup(&b);
    let mut u = login(&b, "u", "pw").expect("login u");
    assert_eq!(value(&mut u, "SELECT CURRENT_ROLE()"), None);
    let denied = error(&mut u, "SELECT * FROM d.t");
    assert_eq!(denied.0, 1142, "{denied:?}");
    let stmt = u.prep("SELECT COUNT(*) FROM d.t").expect("prepare");

    ok(&mut u, "SET ROLE r");
    assert_eq!(value(&mut u, "SELECT CURRENT_ROLE()").as_deref(), Some("r"));
    assert_eq!(lines(&mut u, "SELECT a FROM d.t"), ["1"]);
    ok(&mut u, "INSERT INTO d.t VALUES (2)");
    let n: Option<u64> = u.exec_first(&stmt, ()).expect("execute with the role");
    assert_eq!(n, Some(2));
    assert_eq!(
        lines(
            &mut u,
            "SELECT role_name FROM information_schema.enabled_roles"
        ),
        ["r", "r2"]
    );
    let applicable: Vec<(String, String, String, Option<String>)> = u
        .query("SELECT * FROM information_schema.applicable_roles")
        .expect("applicable roles");
    assert_eq!(
        applicable,
        [
            ("u@%".into(), "r".into(), "NO".into(), Some("NO".into())),
            ("r".into(), "r2".into(), "NO".into(), None),
        ]
    );
    assert_eq!(
        lines(&mut u, "SHOW GRANTS"),
        [
            "GRANT `r` TO `u`@`%`",
            "GRANT USAGE ON *.* TO `u`@`%` IDENTIFIED BY PASSWORD '*D821809F681A40A6E379B50D0463EFAE20BDD122'",
            "GRANT `r2` TO `r`",
            "GRANT USAGE ON *.* TO `r`",
            "GRANT SELECT ON `d`.* TO `r`",
            "GRANT USAGE ON *.* TO `r2`",
            "GRANT INSERT ON `d`.`t` TO `r2`",
        ]
    );
    // A role granted only through another cannot be set.
    let e = error(&mut u, "SET ROLE r2");
    assert_eq!(
        e,
        (
            1959,
            "User `u`@`localhost` has not been granted role `r2`".into()
        )
    );

    ok(&mut u, "SET ROLE NONE");
    assert_eq!(value(&mut u, "SELECT CURRENT_ROLE()"), None);
    let e = u.exec_first::<u64, _, _>(&stmt, ()).expect_err("no role");
    assert!(e.to_string().contains("1142"), "{e}");
    let enabled: Vec<Option<String>> = u
        .query("SELECT role_name FROM information_schema.enabled_roles")
        .expect("enabled roles");
    assert_eq!(enabled, [None], "one NULL row");
}

#[test]
fn the_default_role_is_enabled_at_login_and_survives_a_restart() {
    let mut b = Basalt::start();
    let mut r = setup(&b);
    let e = error(&mut r, "SET DEFAULT ROLE r2 FOR u@'%'");
    assert_eq!(
        e,
        (1959, "User `u`@`%` has not been granted role `r2`".into())
    );
    ok(&mut r, "SET DEFAULT ROLE r FOR u@'%'");
    drop(r);
    b.restart(true);
    let mut u = login(&b, "u", "pw").expect("login u");
    assert_eq!(value(&mut u, "SELECT CURRENT_ROLE()").as_deref(), Some("r"));
    assert_eq!(lines(&mut u, "SELECT a FROM d.t"), ["1"]);
    assert_eq!(
        lines(&mut u, "SHOW GRANTS FOR u@'%'")
            .last()
            .map(String::as_str),
        Some("SET DEFAULT ROLE `r` FOR `u`@`%`")
    );
    // The account may set its own default role, and clear it.
    ok(&mut u, "SET DEFAULT ROLE NONE");
    let mut r = root(&b);
    let mapping: Vec<(String, String, String, String)> = r
        .query("SELECT * FROM mysql.roles_mapping WHERE user <> 'root' ORDER BY 2, 3")
        .expect("roles_mapping");
    assert_eq!(
        mapping,
        [
            ("".into(), "r".into(), "r2".into(), "N".into()),
            ("%".into(), "u".into(), "r".into(), "N".into()),
        ]
    );
    let users: Vec<(String, String, String, String)> = r
        .query("SELECT user, host, is_role, default_role FROM mysql.user ORDER BY 1, 2")
        .expect("mysql.user");
    assert!(users.contains(&("r".into(), "".into(), "Y".into(), "".into())));
    assert!(users.contains(&("u".into(), "%".into(), "N".into(), "".into())));
    // A dropped default role is not enabled; the setting stays, as in MariaDB.
    ok(&mut r, "SET DEFAULT ROLE r FOR u@'%'");
    ok(&mut r, "DROP ROLE r");
    let mut u = login(&b, "u", "pw").expect("login u");
    assert_eq!(value(&mut u, "SELECT CURRENT_ROLE()"), None);
    assert_eq!(error(&mut u, "SELECT a FROM d.t").0, 1142);
}

#[test]
fn role_statements_give_mariadbs_errors_and_notes() {
    let b = Basalt::start();
    let mut r = setup(&b);
    let cases = [
        (
            "CREATE ROLE r",
            1396,
            "Operation CREATE ROLE failed for 'r'",
        ),
        (
            "CREATE ROLE none",
            1959,
            "Invalid role specification `NONE`",
        ),
        (
            "CREATE ROLE public",
            1959,
            "Invalid role specification `PUBLIC`",
        ),
        ("CREATE ROLE ''", 1959, "Invalid role specification ``"),
        (
            "DROP ROLE nope",
            1396,
            "Operation DROP ROLE failed for 'nope'",
        ),
        (
            "DROP ROLE public",
            1396,
            "Operation DROP ROLE failed for PUBLIC",
        ),
        (
            "DROP USER r",
            1396,
            "Operation DROP USER failed for 'r'@'%'",
        ),
        ("SET ROLE nope", 1959, "Invalid role specification `nope`"),
        (
            "GRANT nope TO u@'%'",
            1959,
            "Invalid role specification `nope`",
        ),
        (
            "GRANT r TO nobody@'%'",
            1133,
            "Can't find any matching row in the user table",
        ),
        ("GRANT r TO r2", 1961, "Cannot grant role 'r' to: 'r2'"),
        (
            "REVOKE r2 FROM u@'%'",
            1962,
            "Cannot revoke role 'r2' from: 'u'@'%'",
        ),
    ];
    for (sql, code, message) in cases {
        assert_eq!(error(&mut r, sql), (code, message.to_string()), "{sql}");
    }
    ok(&mut r, "CREATE ROLE IF NOT EXISTS r");
    ok(&mut r, "DROP ROLE IF EXISTS nope");
    let notes: Vec<(String, u16, String)> = r.query("SHOW WARNINGS").expect("warnings");
    assert_eq!(
        notes,
        [(
            "Note".into(),
            1976,
            "Can't drop role 'nope'; it doesn't exist".into()
        )]
    );
    // Only an administrator of a role may grant it, whatever else it holds.
    ok(&mut r, "CREATE USER a@'%' IDENTIFIED BY 'pw'");
    ok(&mut r, "CREATE OR REPLACE ROLE r3 WITH ADMIN a@'%'");
    let e = error(&mut r, "GRANT r3 TO u@'%'");
    assert_eq!(
        e,
        (1698, "Access denied for user 'root'@'localhost'".into())
    );
    let mut a = login(&b, "a", "pw").expect("login a");
    ok(&mut a, "GRANT r3 TO u@'%'");
    assert_eq!(error(&mut a, "CREATE ROLE r4").0, 1227);
    ok(&mut a, "REVOKE r3 FROM u@'%'");
    // root is no administrator of r3 either; a gives up its admin option.
    assert_eq!(
        error(&mut r, "REVOKE ADMIN OPTION FOR r3 FROM a@'%'").0,
        1698
    );
    ok(&mut a, "REVOKE ADMIN OPTION FOR r3 FROM a@'%'");
    assert_eq!(error(&mut a, "GRANT r3 TO u@'%'").0, 1698);
    assert_eq!(
        lines(&mut r, "SHOW GRANTS FOR a@'%'"),
        [
            "GRANT `r3` TO `a`@`%`",
            "GRANT USAGE ON *.* TO `a`@`%` IDENTIFIED BY PASSWORD '*D821809F681A40A6E379B50D0463EFAE20BDD122'",
        ]
    );
    // Roles' grants are not shown without SELECT on mysql, not even those of
    // a role the account administers (PUBLIC's and the enabled role's are).
    assert_eq!(error(&mut a, "SHOW GRANTS FOR r").0, 1044);
    assert_eq!(error(&mut a, "SHOW GRANTS FOR r3").0, 1044);
    assert!(lines(&mut a, "SHOW GRANTS FOR PUBLIC").is_empty());
}

#[test]
fn grants_to_public_apply_to_every_account() {
    let b = Basalt::start();
    let mut r = setup(&b);
    assert!(lines(&mut r, "SHOW GRANTS FOR PUBLIC").is_empty());
    ok(&mut r, "GRANT SELECT ON d.t TO PUBLIC");
    let mut u = login(&b, "u", "pw").expect("login u");
    assert_eq!(lines(&mut u, "SELECT a FROM d.t"), ["1"]);
    assert_eq!(
        lines(&mut r, "SHOW GRANTS FOR public"),
        ["GRANT SELECT ON `d`.`t` TO PUBLIC"]
    );
    assert_eq!(
        lines(&mut u, "SHOW GRANTS").last().map(String::as_str),
        Some("GRANT SELECT ON `d`.`t` TO PUBLIC")
    );
    ok(&mut r, "REVOKE SELECT ON d.t FROM PUBLIC");
    assert_eq!(error(&mut u, "SELECT a FROM d.t").0, 1142);
    assert_eq!(
        error(&mut r, "SET ROLE public"),
        (1959, "Invalid role specification `PUBLIC`".into())
    );
}
