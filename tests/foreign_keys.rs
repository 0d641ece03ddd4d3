//! FOREIGN KEY constraints over TCP: CREATE TABLE (table- and column-level),
//! ALTER TABLE ADD/DROP FOREIGN KEY, InnoDB's definition errors, enforcement on
//! INSERT / UPDATE / DELETE / REPLACE / ON DUPLICATE KEY UPDATE (1451 / 1452,
//! CASCADE, SET NULL, the cascade depth limit, self-references, multi-column keys),
//! `foreign_key_checks=0`, DROP and RENAME of parents, persistence across a
//! restart, a parent delete waiting for a concurrent child insert, SQLAlchemy's
//! reflection, and a mariadb-dump round trip. Differential (`--ignored`): errors,
//! SHOW CREATE TABLE and information_schema rows against a real MariaDB.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::{cell, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::process::Command;
use std::time::{Duration, Instant};

fn conn(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

fn err(c: &mut Conn, sql: &str) -> (u16, String) {
    match c.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => (e.code, e.message),
        other => panic!("{sql}: expected an error, got {other:?}"),
    }
}

fn run(c: &mut Conn, stmts: &[&str]) {
    for s in stmts {
        c.query_drop(*s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
}

fn rows(c: &mut Conn, sql: &str) -> Vec<Vec<Option<String>>> {
    let got: Vec<mysql::Row> = c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    got.into_iter()
        .map(|r| r.unwrap().iter().map(cell).collect())
        .collect()
}

fn show_create(c: &mut Conn, t: &str) -> String {
    let row: (String, String) = c
        .query_first(format!("show create table {t}"))
        .expect("show create table")
        .expect("row");
    row.1
}

const SCHEMA: &[&str] = &[
    "create database fk",
    "use fk",
    "create table p (id int primary key, name varchar(10), unique key (name))",
    "create table c (id int primary key, pid int, constraint fk1 foreign key (pid) references p (id) on delete cascade on update set null)",
    "create table c2 (id int primary key, pid int references p (id))",
    "create table c3 (id int primary key, pid int, foreign key (pid) references p (id), foreign key (pid) references p (id) on delete restrict on update no action)",
    "create table c4 (a int, b varchar(10), key (b), foreign key fkname (b) references p (name) on delete set null)",
];

#[test]
fn definitions_show_create_table_and_errors() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    run(&mut c, SCHEMA);
    assert_eq!(
        show_create(&mut c, "c"),
        "CREATE TABLE `c` (\n  `id` int(11) NOT NULL,\n  `pid` int(11) DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  KEY `fk1` (`pid`),\n  CONSTRAINT `fk1` FOREIGN KEY (`pid`) REFERENCES `p` (`id`) ON DELETE CASCADE ON UPDATE SET NULL\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    let c2 = show_create(&mut c, "c2");
    assert!(c2.contains("  KEY `pid` (`pid`),\n  CONSTRAINT `c2_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `p` (`id`)\n)"), "{c2}");
    let c3 = show_create(&mut c, "c3");
    assert!(c3.contains("CONSTRAINT `c3_ibfk_2` FOREIGN KEY (`pid`) REFERENCES `p` (`id`) ON UPDATE NO ACTION\n"), "{c3}");
    assert!(show_create(&mut c, "c4").contains(
        "CONSTRAINT `fkname` FOREIGN KEY (`b`) REFERENCES `p` (`name`) ON DELETE SET NULL"
    ));
    let formed = |t: &str| {
        format!("Can't create table `fk`.`{t}` (errno: 150 \"Foreign key constraint is incorrectly formed\")")
    };
    for (sql, t) in [
        ("create table e1 (id int, pid int, foreign key (pid) references nosuch (id))", "e1"),
        ("create table e2 (id int, pid int, foreign key (pid) references p (nocol))", "e2"),
        ("create table e3 (id int, pid bigint, foreign key (pid) references p (id))", "e3"),
        ("create table e5 (id int, pid int not null, foreign key (pid) references p (id) on delete set null)", "e5"),
        ("create table e7 (id int, x int, foreign key (x) references p (name))", "e7"),
        ("create table e11 (id int, x int unsigned, foreign key (x) references p (id))", "e11"),
    ] {
        assert_eq!(err(&mut c, sql), (1005, formed(t)), "{sql}");
    }
    assert_eq!(
        err(
            &mut c,
            "create table e4 (id int, pid int, foreign key (nocol) references p (id))"
        ),
        (1072, "Key column 'nocol' doesn't exist in table".into())
    );
    assert_eq!(
        err(
            &mut c,
            "create table e6 (id int, pid int, foreign key (pid) references p (id, name))"
        )
        .0,
        1239
    );
    assert_eq!(
        err(
            &mut c,
            "create table e10 (id int, x int, constraint fk1 foreign key (x) references p (id))"
        ),
        (
            1005,
            "Can't create table `fk`.`e10` (errno: 121 \"Duplicate key on write or update\")"
                .into()
        )
    );
    // SET DEFAULT is stored as RESTRICT, as InnoDB does.
    run(&mut c, &["create table sd (id int, x int, foreign key (x) references p (id) on delete set default)"]);
    assert!(show_create(&mut c, "sd").ends_with(
        "REFERENCES `p` (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    ));
    // information_schema.
    let rc = rows(&mut c, "select constraint_name, unique_constraint_name, update_rule, delete_rule, table_name, referenced_table_name from information_schema.referential_constraints where constraint_schema = 'fk' order by 1");
    let v = |r: &[&str]| r.iter().map(|s| Some(s.to_string())).collect::<Vec<_>>();
    assert_eq!(
        rc[0],
        v(&["c2_ibfk_1", "PRIMARY", "RESTRICT", "RESTRICT", "c2", "p"])
    );
    assert_eq!(
        rc[3],
        v(&["fk1", "PRIMARY", "SET NULL", "CASCADE", "c", "p"])
    );
    assert_eq!(
        rc[4],
        v(&["fkname", "name", "RESTRICT", "SET NULL", "c4", "p"])
    );
    let kcu = rows(&mut c, "select column_name, ordinal_position, position_in_unique_constraint, referenced_table_schema, referenced_table_name, referenced_column_name from information_schema.key_column_usage where table_schema = 'fk' and constraint_name = 'fk1'");
    assert_eq!(kcu, vec![v(&["pid", "1", "1", "fk", "p", "id"])]);
    let tc = rows(&mut c, "select count(*) from information_schema.table_constraints where table_schema = 'fk' and constraint_type = 'FOREIGN KEY'");
    assert_eq!(tc, vec![v(&["6"])]);
}

#[test]
fn enforcement_restrict_cascade_set_null() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    run(&mut c, SCHEMA);
    let (code, msg) = err(&mut c, "insert into c values (1, 5)");
    assert_eq!(code, 1452);
    assert_eq!(msg, "Cannot add or update a child row: a foreign key constraint fails (`fk`.`c`, CONSTRAINT `fk1` FOREIGN KEY (`pid`) REFERENCES `p` (`id`) ON DELETE CASCADE ON UPDATE SET NULL)");
    run(
        &mut c,
        &[
            "insert into p values (1, 'a'), (2, 'b'), (3, 'c')",
            "insert into c values (1, 1), (2, 1), (3, 2), (4, null)",
            "insert into c3 values (1, 3)",
            "insert into c4 values (1, 'b')",
        ],
    );
    assert_eq!(err(&mut c, "delete from p where id = 3"), (1451, "Cannot delete or update a parent row: a foreign key constraint fails (`fk`.`c3`, CONSTRAINT `c3_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `p` (`id`))".into()));
    assert_eq!(err(&mut c, "update p set id = 30 where id = 3").0, 1451);
    assert_eq!(err(&mut c, "update c3 set pid = 9").0, 1452);
    // CASCADE delete, SET NULL on update and delete.
    run(
        &mut c,
        &[
            "delete from p where id = 1",
            "update p set id = 20 where id = 2",
            "delete from p where name = 'b'",
        ],
    );
    assert_eq!(
        rows(&mut c, "select id, pid from c order by id"),
        vec![vec![Some("3".into()), None], vec![Some("4".into()), None]]
    );
    assert_eq!(
        rows(&mut c, "select a, b from c4"),
        vec![vec![Some("1".into()), None]]
    );
    // REPLACE deletes the old parent row (RESTRICT child: 1451); ON DUPLICATE KEY UPDATE changes its key.
    assert_eq!(err(&mut c, "replace into p values (3, 'z')").0, 1451);
    assert_eq!(
        err(
            &mut c,
            "insert into p values (3, 'z') on duplicate key update id = 33"
        )
        .0,
        1451
    );
    assert_eq!(
        err(
            &mut c,
            "insert into c values (9, 1) on duplicate key update pid = 1"
        )
        .0,
        1452
    );
    // The statement's rows are undone with it.
    assert_eq!(
        err(&mut c, "insert into c values (10, 3), (11, 99)").0,
        1452
    );
    assert_eq!(
        rows(&mut c, "select count(*) from c"),
        vec![vec![Some("2".into())]]
    );
    // Multi-column keys; a NULL in any column means no check.
    run(&mut c, &[
        "create table pk2 (a int, b int, primary key (a, b))",
        "create table ck2 (id int primary key, a int, b int, foreign key (a, b) references pk2 (a, b) on update cascade)",
        "insert into pk2 values (1, 1)",
        "insert into ck2 values (1, 1, null), (2, null, 5), (3, 1, 1)",
        "update pk2 set b = 3",
    ]);
    assert_eq!(err(&mut c, "insert into ck2 values (4, 1, 2)").0, 1452);
    assert_eq!(
        rows(&mut c, "select b from ck2 where id = 3"),
        vec![vec![Some("3".into())]]
    );
    // foreign_key_checks=0 turns checks off.
    run(
        &mut c,
        &[
            "set foreign_key_checks = 0",
            "insert into c3 values (5, 77)",
            "delete from p where id = 3",
            "set foreign_key_checks = 1",
        ],
    );
    assert_eq!(err(&mut c, "update c3 set pid = 78 where id = 5").0, 1452);
}

#[test]
fn multi_table_update_and_delete_check_and_cascade() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    run(
        &mut c,
        &[
            "create database fm",
            "use fm",
            "create table p (id int primary key)",
            "create table c (id int primary key, pid int, foreign key (pid) references p (id) \
             on delete cascade on update cascade)",
            "create table o (id int primary key, pid int)",
            "insert into p values (1), (2), (3)",
            "insert into c values (10, 1), (20, 2), (30, 3)",
            "insert into o values (1, 1), (2, 2)",
            "delete p from p join o on o.pid = p.id",
        ],
    );
    let some = |v: &[&str]| v.iter().map(|x| Some(x.to_string())).collect::<Vec<_>>();
    assert_eq!(rows(&mut c, "select * from c"), [some(&["30", "3"])]);
    run(
        &mut c,
        &["update p join o on o.id = 1 set p.id = p.id + 10"],
    );
    assert_eq!(rows(&mut c, "select * from c"), [some(&["30", "13"])]);
    let (code, _) = err(&mut c, "update c join o on o.id = 1 set c.pid = 99");
    assert_eq!(code, 1452);
    assert_eq!(rows(&mut c, "select * from c"), [some(&["30", "13"])]);
}

#[test]
fn self_references_and_cascade_depth() {
    let b = Basalt::start();
    let mut c = conn(&b.url());
    run(&mut c, &[
        "create database fk", "use fk",
        "create table s (id int primary key, parent int, foreign key (parent) references s (id) on delete cascade)",
        "insert into s values (1, 1), (2, 1), (3, 2)",
        "delete from s where id = 1",
        "create table r (id int primary key, parent int, foreign key (parent) references r (id))",
        "insert into r values (1, 1)",
        "create table u (id int primary key, parent int, foreign key (parent) references u (id) on update cascade)",
        "insert into u values (1, 1)",
        "create table chain (id int primary key, parent int, foreign key (parent) references chain (id) on delete cascade)",
    ]);
    assert_eq!(
        rows(&mut c, "select count(*) from s"),
        vec![vec![Some("0".into())]]
    );
    assert_eq!(err(&mut c, "delete from r where id = 1").0, 1451);
    assert_eq!(err(&mut c, "update u set id = 5").0, 1451);
    let values: Vec<String> = (1..=18)
        .map(|i| {
            if i == 1 {
                "(1, null)".into()
            } else {
                format!("({i}, {})", i - 1)
            }
        })
        .collect();
    run(
        &mut c,
        &[&format!("insert into chain values {}", values.join(","))],
    );
    let (code, msg) = err(&mut c, "delete from chain where id = 3");
    assert_eq!((code, msg.as_str()), (1296, "Got error 193 '`fk`.`chain`, CONSTRAINT `chain_ibfk_1` FOREIGN KEY (`parent`) REFERENCES `chain` (`id`) ON DELETE CASCADE' from InnoDB"));
    assert_eq!(
        rows(&mut c, "select count(*) from chain"),
        vec![vec![Some("18".into())]]
    );
    run(&mut c, &["delete from chain where id = 4"]);
    assert_eq!(
        rows(&mut c, "select count(*) from chain"),
        vec![vec![Some("3".into())]]
    );
    run(&mut c, &["delete from chain"]);
    assert_eq!(
        rows(&mut c, "select count(*) from chain"),
        vec![vec![Some("0".into())]]
    );
}

#[test]
fn alter_drop_rename_and_restart() {
    let mut b = Basalt::start();
    let mut c = conn(&b.url());
    run(
        &mut c,
        &[
            "create database fk",
            "use fk",
            "create table p (id int primary key)",
            "insert into p values (1)",
            "create table a1 (id int primary key, x int, y int)",
            "insert into a1 values (1, 99, 1)",
        ],
    );
    assert_eq!(
        err(
            &mut c,
            "alter table a1 add foreign key (x) references p (id)"
        )
        .0,
        1452
    );
    assert_eq!(
        err(
            &mut c,
            "alter table a1 add foreign key (x) references nosuch (id)"
        )
        .0,
        1005
    );
    run(
        &mut c,
        &["alter table a1 add constraint ok1 foreign key (y) references p (id) on delete cascade"],
    );
    assert!(show_create(&mut c, "a1").contains("  KEY `ok1` (`y`),\n  CONSTRAINT `ok1` FOREIGN KEY (`y`) REFERENCES `p` (`id`) ON DELETE CASCADE\n"));
    assert_eq!(
        err(&mut c, "alter table a1 drop index ok1"),
        (
            1553,
            "Cannot drop index 'ok1': needed in a foreign key constraint".into()
        )
    );
    assert_eq!(
        err(&mut c, "alter table a1 drop foreign key nosuch"),
        (
            1091,
            "Can't DROP FOREIGN KEY `nosuch`; check that it exists".into()
        )
    );
    assert_eq!(
        err(&mut c, "drop table p"),
        (
            1451,
            "Cannot delete or update a parent row: a foreign key constraint fails".into()
        )
    );
    assert_eq!(err(&mut c, "drop index ok1 on a1").0, 1553);
    assert_eq!(err(&mut c, "alter table p change id pid int").0, 1235);
    run(
        &mut c,
        &["alter table p rename to p0", "rename table p0 to pp"],
    );
    assert!(show_create(&mut c, "a1").contains("REFERENCES `pp` (`id`)"));
    b.restart(false);
    let mut c = conn(&b.url_db("fk"));
    assert!(show_create(&mut c, "a1")
        .contains("CONSTRAINT `ok1` FOREIGN KEY (`y`) REFERENCES `pp` (`id`) ON DELETE CASCADE"));
    assert_eq!(err(&mut c, "insert into a1 values (2, null, 5)").0, 1452);
    run(&mut c, &["delete from pp"]);
    assert_eq!(
        rows(&mut c, "select count(*) from a1"),
        vec![vec![Some("0".into())]]
    );
    run(
        &mut c,
        &[
            "alter table a1 drop foreign key ok1",
            "insert into a1 values (2, null, 5)",
            "drop table pp",
        ],
    );
    assert!(!show_create(&mut c, "a1").contains("CONSTRAINT"));
    // Dumps create children before parents with checks off.
    run(
        &mut c,
        &[
            "set foreign_key_checks = 0",
            "create table m1 (id int primary key, x int, foreign key (x) references missing (id))",
            "insert into m1 values (1, 2)",
            "set foreign_key_checks = 1",
        ],
    );
    assert_eq!(err(&mut c, "insert into m1 values (2, 2)").0, 1452);
}

/// A child insert holds a shared lock on its parent row until it commits: the
/// parent's delete waits for it (here: times out), then sees the child (1451).
#[test]
fn parent_delete_waits_for_concurrent_child_insert() {
    let b = Basalt::start();
    let mut a = conn(&b.url());
    run(
        &mut a,
        &[
            "create database fk",
            "use fk",
            "create table p (id int primary key)",
            "create table c (id int primary key, pid int, foreign key (pid) references p (id))",
            "insert into p values (1), (2)",
            "begin",
            "insert into c values (1, 1)",
        ],
    );
    let mut d = conn(&b.url_db("fk"));
    run(&mut d, &["set innodb_lock_wait_timeout = 1"]);
    let t = Instant::now();
    assert_eq!(err(&mut d, "delete from p where id = 1").0, 1205);
    assert!(t.elapsed() >= Duration::from_millis(900));
    run(&mut d, &["delete from p where id = 2"]);
    run(&mut a, &["commit"]);
    assert_eq!(err(&mut d, "delete from p where id = 1").0, 1451);
    // The other way round: a parent deleted but not committed blocks the child insert.
    run(
        &mut d,
        &[
            "insert into p values (3)",
            "begin",
            "delete from p where id = 3",
        ],
    );
    run(&mut a, &["set innodb_lock_wait_timeout = 1"]);
    assert_eq!(err(&mut a, "insert into c values (2, 3)").0, 1205);
    run(&mut d, &["rollback"]);
    run(&mut a, &["insert into c values (2, 3)"]);
}

#[test]
fn sqlalchemy_reflects_foreign_keys() {
    let ok = Command::new("python3")
        .args(["-c", "import sqlalchemy, pymysql"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipped: python3 with SQLAlchemy and PyMySQL");
        return;
    }
    let b = Basalt::start();
    let mut c = conn(&b.url());
    run(&mut c, SCHEMA);
    let script = "import sys\nfrom sqlalchemy import create_engine, inspect\n\
        e = create_engine('mysql+pymysql://root@127.0.0.1:%s/fk' % sys.argv[1])\n\
        for fk in inspect(e).get_foreign_keys('c'): print(fk['name'], fk['constrained_columns'], fk['referred_table'], fk['referred_columns'], sorted(fk['options'].items()))\n";
    let out = Command::new("python3")
        .args(["-c", script, &b.port.to_string()])
        .output()
        .expect("python3");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.trim(),
        "fk1 ['pid'] p ['id'] [('ondelete', 'CASCADE'), ('onupdate', 'SET NULL')]",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn mariadb_dump_of_foreign_keys_reloads() {
    if basalt_tests::which("mariadb-dump").is_none() || basalt_tests::which("mariadb").is_none() {
        eprintln!("skipped: mariadb-dump");
        return;
    }
    let b = Basalt::start();
    let mut c = conn(&b.url());
    run(&mut c, SCHEMA);
    run(
        &mut c,
        &[
            "insert into p values (1, 'a')",
            "insert into c values (1, 1)",
            "insert into c4 values (1, 'a')",
            "insert into c3 values (1, 1)",
        ],
    );
    let out = Command::new("mariadb-dump")
        .args([
            "-h127.0.0.1",
            &format!("-P{}", b.port),
            "-uroot",
            "--databases",
            "fk",
        ])
        .output()
        .expect("mariadb-dump");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dump = String::from_utf8_lossy(&out.stdout).into_owned();
    let before: Vec<String> = ["c", "c3", "c4"]
        .iter()
        .map(|t| show_create(&mut c, t))
        .collect();
    run(&mut c, &["drop database fk"]);
    let (code, _, stderr) = basalt_tests::mariadb_cli(b.port, &[], &dump);
    assert_eq!(code, 0, "{stderr}");
    let mut c = conn(&b.url_db("fk"));
    let after: Vec<String> = ["c", "c3", "c4"]
        .iter()
        .map(|t| show_create(&mut c, t))
        .collect();
    assert_eq!(before, after);
    assert_eq!(err(&mut c, "delete from p").0, 1451);
}

/// The same statements on both servers: errors, SHOW CREATE TABLE and
/// information_schema rows alike.
#[test]
#[ignore]
fn differential_against_mariadb() {
    if !mariadb::available() {
        eprintln!("skipped: mariadb-server not installed");
        return;
    }
    let m = MariaDb::start(&[]);
    let b = Basalt::start();
    let script: &[&str] = &[
        "create database fk",
        "use fk",
        "create table p (id int primary key, name varchar(10), unique key (name)) default charset=utf8mb4",
        "create table c (id int primary key, pid int, constraint fk1 foreign key (pid) references p (id) on delete cascade on update set null) default charset=utf8mb4",
        "create table c2 (id int primary key, pid int references p (id)) default charset=utf8mb4",
        "create table c3 (id int primary key, pid int, foreign key (pid) references p (id), foreign key (pid) references p (id) on delete restrict on update no action) default charset=utf8mb4",
        "create table c4 (a int, b varchar(10), key (b), foreign key fkname (b) references p (name) on delete set null) default charset=utf8mb4",
        "create table e1 (id int, pid int, foreign key (pid) references nosuch (id))",
        "create table e2 (id int, pid int, foreign key (pid) references p (nocol))",
        "create table e3 (id int, pid bigint, foreign key (pid) references p (id))",
        "create table e4 (id int, pid int, foreign key (nocol) references p (id))",
        "create table e5 (id int, pid int not null, foreign key (pid) references p (id) on delete set null)",
        "create table e6 (id int, pid int, foreign key (pid) references p (id, name))",
        "create table e10 (id int, x int, constraint fk1 foreign key (x) references p (id))",
        "insert into c values (1, 5)",
        "insert into p values (1, 'a'), (2, 'b')",
        "insert into c values (1, 1), (2, 2)",
        "insert into c3 values (1, 2)",
        "delete from p where id = 2",
        "update p set id = 3 where id = 2",
        "delete from p where id = 1",
        "drop table p",
        "alter table c2 drop foreign key nosuch",
        "alter table c2 drop index pid",
        "create table s (id int primary key, parent int, foreign key (parent) references s (id)) default charset=utf8mb4",
        "insert into s values (1, 1)",
        "delete from s",
        "set foreign_key_checks = 0",
        "create table m1 (id int primary key, x int, foreign key (x) references missing (id)) default charset=utf8mb4",
        "set foreign_key_checks = 1",
        "insert into m1 values (1, 2)",
    ];
    let mut mc = conn(&format!(
        "mysql://root@127.0.0.1:{}/?prefer_socket=false",
        m.port
    ));
    let mut bc = conn(&b.url());
    for sql in script {
        let a = mc.query_drop(*sql).map_err(|e| e.to_string());
        let z = bc.query_drop(*sql).map_err(|e| e.to_string());
        assert_eq!(a, z, "{sql}");
    }
    for t in ["c", "c2", "c3", "c4", "m1", "s"] {
        assert_eq!(show_create(&mut mc, t), show_create(&mut bc, t), "{t}");
    }
    for q in [
        "select * from information_schema.referential_constraints where constraint_schema = 'fk' order by constraint_name",
        "select * from information_schema.key_column_usage where table_schema = 'fk' order by table_name, constraint_name, ordinal_position",
        "select * from information_schema.table_constraints where table_schema = 'fk' order by table_name, constraint_name",
        "select * from c order by id",
    ] {
        assert_eq!(rows(&mut mc, q), rows(&mut bc, q), "{q}");
    }
}
