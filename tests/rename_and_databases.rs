//! RENAME TABLE (several pairs, across databases, atomic, durable) and database
//! options (CREATE/ALTER DATABASE ... CHARACTER SET / COLLATE, SHOW CREATE
//! DATABASE, information_schema.SCHEMATA), with MariaDB's errors. Differential
//! (`--ignored`): the same statements on a real MariaDB answer the same.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

fn conn(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

fn err(c: &mut Conn, sql: &str) -> (u16, String) {
    match c.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => (e.code, e.message),
        other => panic!("{sql}: expected an error, got {other:?}"),
    }
}

fn tables(c: &mut Conn, db: &str) -> Vec<String> {
    c.query(format!("show tables from {db}"))
        .expect("show tables")
}

#[test]
fn rename_table_moves_renames_and_swaps_atomically_and_durably() {
    let mut b = Basalt::start();
    let mut c = conn(&b.url());
    for sql in [
        "create database r1",
        "create database r2",
        "create table r1.a (id int primary key, k int, key (k))",
        "insert into r1.a values (1, 10), (2, 20)",
        "create table r1.b (x varchar(5))",
        "insert into r1.b values ('bee')",
    ] {
        c.query_drop(sql).expect(sql);
    }
    // Across databases, with its rows and indexes.
    c.query_drop("rename table r1.a to r2.moved").expect("move");
    assert_eq!(tables(&mut c, "r1"), ["b"]);
    assert_eq!(tables(&mut c, "r2"), ["moved"]);
    let id: i64 = c
        .query_first("select id from r2.moved where k = 20")
        .expect("select")
        .expect("row");
    assert_eq!(id, 2);
    let (_, ddl): (String, String) = c
        .query_first("show create table r2.moved")
        .expect("show create")
        .expect("row");
    assert!(ddl.starts_with("CREATE TABLE `moved`"), "{ddl}");
    // A chain, and a swap through a temporary name.
    c.query_drop("rename table r2.moved to r2.tmp, r2.tmp to r1.a")
        .expect("chain");
    c.query_drop("rename table r1.a to r1.t, r1.b to r1.a, r1.t to r1.b")
        .expect("swap");
    let x: String = c
        .query_first("select x from r1.a")
        .expect("select")
        .expect("row");
    assert_eq!(x, "bee");
    // Errors leave every name as it was.
    assert_eq!(
        err(&mut c, "rename table r1.a to r1.c, r1.nosuch to r1.d"),
        (1146, "Table 'r1.nosuch' doesn't exist".into())
    );
    assert_eq!(
        err(&mut c, "rename table r1.a to r1.b"),
        (1050, "Table 'b' already exists".into())
    );
    assert_eq!(
        err(&mut c, "rename table r1.a to r1.a"),
        (1050, "Table 'a' already exists".into())
    );
    assert_eq!(
        err(&mut c, "rename table r1.a to nodb.x"),
        (
            1025,
            "Error on rename of './r1/a' to './nodb/x' (errno: 168 \"Unknown (generic) error from engine\")"
                .into()
        )
    );
    assert_eq!(
        err(&mut c, "rename table r1.a to information_schema.x").0,
        1044
    );
    assert_eq!(tables(&mut c, "r1"), ["a", "b"]);
    // Durable: after a clean stop and after kill -9.
    c.query_drop("rename table r1.b to r2.kept")
        .expect("rename");
    drop(c);
    for kill in [false, true] {
        b.restart(kill);
        let mut c = conn(&b.url());
        assert_eq!(tables(&mut c, "r1"), ["a"], "kill {kill}");
        assert_eq!(tables(&mut c, "r2"), ["kept"], "kill {kill}");
        let n: i64 = c
            .query_first("select count(*) from r2.kept where k >= 10")
            .expect("count")
            .expect("row");
        assert_eq!(n, 2, "kill {kill}");
    }
}

#[test]
fn rename_waits_for_a_transaction_that_wrote_the_table() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    c.query_drop("create database w").expect("db");
    c.query_drop("create table w.t (id int primary key)")
        .expect("create");
    let mut writer = conn(&b.url());
    writer.query_drop("begin").expect("begin");
    writer
        .query_drop("insert into w.t values (1)")
        .expect("insert");
    let url = b.url();
    let renamer = std::thread::spawn(move || {
        let mut r = conn(&url);
        r.query_drop("rename table w.t to w.u")
    });
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        !renamer.is_finished(),
        "RENAME did not wait for the open transaction"
    );
    writer.query_drop("commit").expect("commit");
    renamer
        .join()
        .expect("thread")
        .expect("rename after commit");
    let n: i64 = c
        .query_first("select count(*) from w.u")
        .expect("count")
        .expect("row");
    assert_eq!(n, 1);
}

#[test]
fn database_character_sets_are_kept_shown_and_altered() {
    let mut b = Basalt::start();
    let mut c = conn(&b.url());
    c.query_drop("create database l character set latin1 collate latin1_bin")
        .expect("create");
    c.query_drop("create database u default charset = utf8mb3")
        .expect("create");
    let show = |c: &mut Conn, db: &str| -> String {
        let (_, text): (String, String) = c
            .query_first(format!("show create database {db}"))
            .expect("show create database")
            .expect("row");
        text
    };
    assert_eq!(
        show(&mut c, "l"),
        "CREATE DATABASE `l` /*!40100 DEFAULT CHARACTER SET latin1 COLLATE latin1_bin */"
    );
    assert_eq!(
        show(&mut c, "u"),
        "CREATE DATABASE `u` /*!40100 DEFAULT CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci */"
    );
    c.query_drop("alter database l character set utf8mb4")
        .expect("alter");
    assert_eq!(
        show(&mut c, "l"),
        "CREATE DATABASE `l` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci */"
    );
    c.query_drop("alter schema l default collate = 'utf8mb4_unicode_ci'")
        .expect("alter");
    // New tables take the database's default; SCHEMATA shows it.
    c.query_drop("create table l.t (s varchar(5))")
        .expect("create");
    let (_, ddl): (String, String) = c
        .query_first("show create table l.t")
        .expect("show")
        .expect("row");
    assert!(ddl.contains("COLLATE=utf8mb4_unicode_ci"), "{ddl}");
    let schemata: Vec<mysql::Row> = c
        .query("select * from information_schema.schemata where schema_name = 'l'")
        .expect("schemata");
    let cols: Vec<String> = schemata[0]
        .columns_ref()
        .iter()
        .map(|c| c.name_str().into_owned())
        .collect();
    assert_eq!(
        cols,
        [
            "CATALOG_NAME",
            "SCHEMA_NAME",
            "DEFAULT_CHARACTER_SET_NAME",
            "DEFAULT_COLLATION_NAME",
            "SQL_PATH",
            "SCHEMA_COMMENT"
        ]
    );
    let r: (String, String, String, String, Option<String>, String) = c
        .query_first("select * from information_schema.schemata where schema_name = 'l'")
        .expect("schemata")
        .expect("row");
    assert_eq!(
        r,
        (
            "def".into(),
            "l".into(),
            "utf8mb4".into(),
            "utf8mb4_unicode_ci".into(),
            None,
            String::new()
        )
    );
    // The current database's variables follow ALTER DATABASE without a name.
    c.query_drop("use u").expect("use");
    c.query_drop("alter database character set ascii")
        .expect("alter");
    let v: String = c
        .query_first("select @@collation_database")
        .expect("var")
        .expect("row");
    assert_eq!(v, "ascii_general_ci");
    // Errors.
    assert_eq!(
        err(
            &mut c,
            "alter database l character set latin1 collate utf8mb4_bin"
        ),
        (
            1253,
            "COLLATION 'utf8mb4_bin' is not valid for CHARACTER SET 'latin1'".into()
        )
    );
    assert_eq!(err(&mut c, "alter database l character set nosuch").0, 1115);
    assert_eq!(err(&mut c, "alter database l collate nosuch").0, 1273);
    assert_eq!(err(&mut c, "alter database nodb character set latin1").0, 1);
    assert_eq!(err(&mut c, "alter database l").0, 1064);
    c.query_drop("alter database l comment 'x'").unwrap();
    // Durable.
    drop(c);
    b.restart(true);
    let mut c = conn(&b.url());
    assert_eq!(
        show(&mut c, "l"),
        "CREATE DATABASE `l` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci */ COMMENT 'x'"
    );
}

#[test]
#[ignore]
fn differential_rename_and_database_options_match_mariadb() {
    if !mariadb::available() {
        eprintln!("skipped: MariaDB not installed");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&[]);
    let script = [
        "create database r1 character set latin1 collate latin1_bin",
        "create database r2",
        "create table r1.a (x int)",
        "create table r1.b (x int)",
        "show create database r1",
        "rename table r1.a to r2.a",
        "rename table r2.a to r2.c, r2.c to r1.a",
        "rename table r1.a to r1.z, r1.nosuch to r1.q",
        "rename table r1.a to r1.b",
        "rename table r1.a to nodb.x",
        "rename table r1.a to r1.t, r1.b to r1.a, r1.t to r1.b",
        "show tables from r1",
        "alter database r1 character set utf8mb3",
        "show create database r1",
        "alter database r1 collate utf8mb4_unicode_ci",
        "select * from information_schema.schemata where schema_name = 'r1'",
        "alter database r1 character set latin1 collate utf8mb4_bin",
        "alter database nodb character set latin1",
        "show create database if not exists r1",
    ];
    let run = |url: &str| -> Vec<String> {
        let mut c = conn(url);
        script
            .iter()
            .map(|sql| match c.query::<mysql::Row, _>(*sql) {
                Ok(rows) => format!(
                    "{sql}: {:?}",
                    rows.iter().map(|r| r.clone().unwrap()).collect::<Vec<_>>()
                ),
                Err(mysql::Error::MySqlError(e)) => format!("{sql}: {} {}", e.code, e.message),
                Err(e) => panic!("{sql}: {e}"),
            })
            .collect()
    };
    let ours = run(&b.url());
    let theirs = run(&m.url());
    for (o, t) in ours.iter().zip(&theirs) {
        assert_eq!(o, t);
    }
}

/// `CREATE OR REPLACE TABLE` (plain, LIKE, AS SELECT, TEMPORARY) replaces the
/// table of the name; with IF NOT EXISTS it is 1221, as in MariaDB.
#[test]
fn create_or_replace_table_replaces() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    c.query_drop("CREATE DATABASE r").expect("db");
    c.query_drop("USE r").expect("use");
    assert_eq!(
        err(&mut c, "CREATE OR REPLACE TABLE IF NOT EXISTS t (a INT)"),
        (
            1221,
            "Incorrect usage of OR REPLACE and IF NOT EXISTS".into()
        )
    );
    c.query_drop("CREATE TABLE t (a INT)").expect("t");
    c.query_drop("INSERT INTO t VALUES (1)").expect("row");
    c.query_drop("CREATE OR REPLACE TABLE t (b INT PRIMARY KEY)")
        .expect("replace");
    let cols: Vec<String> = c
        .query("SELECT column_name FROM information_schema.columns WHERE table_schema='r' AND table_name='t'")
        .expect("columns");
    assert_eq!(cols, vec!["b"]);
    let n: Option<i64> = c.query_first("SELECT COUNT(*) FROM t").expect("count");
    assert_eq!(n, Some(0), "the old rows went with the old table");
    c.query_drop("CREATE OR REPLACE TABLE u AS SELECT 5 AS c")
        .expect("new via select");
    c.query_drop("CREATE OR REPLACE TABLE u AS SELECT 6 AS c")
        .expect("replace via select");
    let v: Option<i64> = c.query_first("SELECT c FROM u").expect("u");
    assert_eq!(v, Some(6));
    c.query_drop("CREATE OR REPLACE TABLE u LIKE t")
        .expect("replace via like");
    let cols: Vec<String> = c
        .query("SELECT column_name FROM information_schema.columns WHERE table_schema='r' AND table_name='u'")
        .expect("columns");
    assert_eq!(cols, vec!["b"]);
    // An invalid new definition leaves the old table in place.
    assert_eq!(
        err(&mut c, "CREATE OR REPLACE TABLE u (x INT, x INT)").0,
        1060
    );
    c.query_drop("SELECT b FROM u").expect("u still there");
    c.query_drop("CREATE OR REPLACE TEMPORARY TABLE tt (a INT)")
        .expect("temp");
    c.query_drop("CREATE OR REPLACE TEMPORARY TABLE tt (z INT)")
        .expect("temp replaced");
    c.query_drop("SELECT z FROM tt")
        .expect("the new temporary table");
}
