//! Triggers over the wire: BEFORE / AFTER INSERT / UPDATE / DELETE firing per
//! row with NEW and OLD (and SET NEW.col), through INSERT, REPLACE, ON
//! DUPLICATE KEY UPDATE, UPDATE, DELETE and multi-table statements, in the
//! statement's transaction; trigger order (FOLLOWS / PRECEDES); triggers kept
//! with their table through RENAME and restart, dropped with it; MariaDB's
//! errors; SHOW / information_schema; `mariadb-dump` round trip; the triggers
//! pt-online-schema-change installs; and (ignored: needs mariadb-server) the
//! same scripts compared with MariaDB.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::{mariadb_cli, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};

fn code(c: &mut Conn, sql: &str) -> u16 {
    match c.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => e.code,
        other => panic!("{sql}: expected an error, got {other:?}"),
    }
}

fn rows(c: &mut Conn, sql: &str) -> Result<Vec<Vec<Option<String>>>, u16> {
    match c.query::<mysql::Row, _>(sql) {
        Ok(rs) => Ok(rs
            .into_iter()
            .map(|r| r.unwrap().iter().map(basalt_tests::cell).collect())
            .collect()),
        Err(mysql::Error::MySqlError(e)) => Err(e.code),
        Err(e) => panic!("{sql}: {e}"),
    }
}

fn col(c: &mut Conn, sql: &str) -> Vec<String> {
    rows(c, sql)
        .unwrap()
        .into_iter()
        .map(|r| r[0].clone().unwrap_or_default())
        .collect()
}

fn run(c: &mut Conn, script: &[&str]) {
    for sql in script {
        c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

const SETUP: &[&str] = &[
    "create database tg character set utf8mb4",
    "use tg",
    "create table t (id int auto_increment primary key, a int not null, b varchar(10) default 'x', g int as (a * 2) stored)",
    "create table log (n int auto_increment primary key, msg varchar(200))",
    "create trigger t_bi before insert on t for each row
       begin
         insert into log (msg) values (concat_ws(' ', 'bi', new.id, new.a, new.g));
         if new.a < 0 then
           signal sqlstate '45000' set message_text = 'negative a';
         end if;
         set new.b = concat(new.b, '!');
       end",
    "create trigger t_ai after insert on t for each row
       insert into log (msg) values (concat_ws(' ', 'ai', new.id, new.a, new.b, new.g))",
    "create trigger t_bu before update on t for each row
       begin
         set new.a = new.a + 100;
         insert into log (msg) values (concat_ws(' ', 'bu', old.a, new.a, new.g));
       end",
    "create trigger t_au after update on t for each row
       insert into log (msg) values (concat_ws(' ', 'au', old.a, new.a, new.g))",
    "create trigger t_bd before delete on t for each row
       insert into log (msg) values (concat_ws(' ', 'bd', old.id))",
    "create trigger t_ad after delete on t for each row
       insert into log (msg) values (concat_ws(' ', 'ad', old.id))",
];

#[test]
fn triggers_fire_per_row() {
    let b = Basalt::start();
    let mut c = b.conn();
    run(&mut c, SETUP);
    run(
        &mut c,
        &[
            "insert into t (a) values (1), (2)",
            "insert into t (id, a) values (1, 5) on duplicate key update a = 7",
            "replace into t (id, a) values (2, 9)",
            "update t set a = a where id = 1",
            "delete from t where id = 1",
        ],
    );
    assert_eq!(
        col(&mut c, "select msg from log order by n"),
        [
            "bi 0 1 2",
            "ai 1 1 x! 2",
            "bi 0 2 4",
            "ai 2 2 x! 4",
            // ODKU: BEFORE INSERT, then the update's triggers.
            "bi 1 5 10",
            "bu 1 107 14",
            "au 1 107 214",
            // REPLACE: the clashing row is deleted, then inserted.
            "bi 2 9 18",
            "bd 2",
            "ad 2",
            "ai 2 9 x! 18",
            // An UPDATE that changes nothing still fires both.
            "bu 107 207 214",
            "au 107 207 414",
            "bd 1",
            "ad 1",
        ]
    );
    assert_eq!(
        rows(&mut c, "select id, a, b, g from t").unwrap(),
        vec![vec![
            Some("2".into()),
            Some("9".into()),
            Some("x!".into()),
            Some("18".into())
        ]]
    );
    // Multi-table statements fire the targets' triggers; cascades do not.
    run(
        &mut c,
        &[
            "truncate log",
            "create table k (id int primary key)",
            "insert into k values (2)",
            "update t join k using (id) set t.a = 1",
            "delete t from t join k using (id)",
        ],
    );
    assert_eq!(
        col(&mut c, "select msg from log order by n"),
        ["bu 9 101 2", "au 9 101 202", "bd 2", "ad 2"]
    );
}

#[test]
fn trigger_errors_fail_the_statement_and_keep_the_transaction() {
    let b = Basalt::start();
    let mut c = b.conn();
    run(&mut c, SETUP);
    // The second row's SIGNAL undoes the statement, first row and logs too.
    assert_eq!(code(&mut c, "insert into t (a) values (1), (-1)"), 1644);
    assert_eq!(col(&mut c, "select count(*) from t"), ["0"]);
    assert_eq!(col(&mut c, "select count(*) from log"), ["0"]);
    run(&mut c, &["begin", "insert into t (a) values (3)"]);
    assert_eq!(code(&mut c, "insert into t (a) values (-3)"), 1644);
    run(&mut c, &["commit"]);
    assert_eq!(col(&mut c, "select a from t"), ["3"]);
    assert_eq!(col(&mut c, "select count(*) from log"), ["2"]);
    // NULL left in a NOT NULL column: 1048 in strict mode.
    run(
        &mut c,
        &["create trigger t_nul before update on t for each row follows t_bu set new.a = null"],
    );
    assert_eq!(code(&mut c, "update t set a = 4"), 1048);
    // A trigger may not change the table its statement changes (1442).
    run(
        &mut c,
        &["create trigger log_bi before insert on log for each row insert into t (a) values (1)"],
    );
    assert_eq!(code(&mut c, "insert into t (a) values (5)"), 1442);
    assert_eq!(col(&mut c, "select a from t"), ["3"]);
}

#[test]
fn trigger_definitions_are_checked() {
    let b = Basalt::start();
    let mut c = b.conn();
    run(&mut c, SETUP);
    run(
        &mut c,
        &[
            "create temporary table tmp (a int)",
            "create view v as select * from t",
        ],
    );
    for (sql, want) in [
        (
            "create trigger x before delete on t for each row set @a = new.a",
            1363,
        ),
        (
            "create trigger x before insert on t for each row set @a = old.a",
            1363,
        ),
        (
            "create trigger x before update on t for each row set old.a = 1",
            1362,
        ),
        (
            "create trigger x after update on t for each row set new.a = 1",
            1362,
        ),
        (
            "create trigger x before update on t for each row set new.zz = 1",
            1054,
        ),
        (
            "create trigger x before update on t for each row set @a = new.zz",
            1054,
        ),
        (
            "create trigger x before update on nosuch for each row set @a = 1",
            1146,
        ),
        (
            "create trigger x before update on tmp for each row set @a = 1",
            1361,
        ),
        (
            "create trigger x before update on v for each row set @a = 1",
            1347,
        ),
        (
            "create trigger t_bi before insert on t for each row set @a = 1",
            1359,
        ),
        (
            "create trigger x before insert on t for each row follows nosuch set @a = 1",
            4031,
        ),
        (
            "create trigger x before insert on t for each row select 1",
            1415,
        ),
        (
            "create trigger x before insert on t for each row commit",
            1422,
        ),
        (
            "create trigger x before insert on t for each row return 1",
            1313,
        ),
        (
            "create or replace trigger if not exists x before insert on t for each row set @a = 1",
            1221,
        ),
        ("drop trigger nosuch", 1360),
    ] {
        assert_eq!(code(&mut c, sql), want, "{sql}");
    }
    run(
        &mut c,
        &[
            "create trigger if not exists t_bi before insert on t for each row set @a = 1",
            "drop trigger if exists nosuch",
        ],
    );
}

#[test]
fn triggers_are_described_ordered_and_kept_with_their_table() {
    let mut b = Basalt::start();
    let mut c = b.conn();
    run(&mut c, SETUP);
    run(
        &mut c,
        &[
            "create trigger t_bi0 before insert on t for each row precedes t_bi set @x = 1",
            "create trigger t_bi2 before insert on t for each row follows t_bi set @y = 2",
        ],
    );
    let order = "select trigger_name, action_order from information_schema.triggers
                 where trigger_schema = 'tg' and event_manipulation = 'INSERT'
                 order by action_timing desc, action_order";
    let want = vec![
        vec![Some("t_bi0".into()), Some("1".into())],
        vec![Some("t_bi".into()), Some("2".into())],
        vec![Some("t_bi2".into()), Some("3".into())],
        vec![Some("t_ai".into()), Some("1".into())],
    ];
    assert_eq!(rows(&mut c, order).unwrap(), want);
    assert_eq!(
        col(&mut c, "show triggers"),
        ["t_bi0", "t_bi", "t_bi2", "t_ai", "t_bu", "t_au", "t_bd", "t_ad"]
    );
    let create = rows(&mut c, "show create trigger t_bi2").unwrap();
    let text = create[0][2].clone().unwrap();
    assert!(text.starts_with("CREATE DEFINER=`root`@`"), "{text}");
    assert!(
        text.ends_with("` trigger t_bi2 before insert on t for each row follows t_bi set @y = 2"),
        "{text}"
    );
    // Restart: still there, still firing.
    b.restart(false);
    let mut c = Conn::new(Opts::from_url(&b.url_db("tg")).unwrap()).unwrap();
    run(&mut c, &["insert into t (a) values (1)"]);
    assert_eq!(col(&mut c, "select @x + @y"), ["3"]);
    // RENAME moves them (not to another database: 1435); DROP TABLE drops them.
    run(&mut c, &["create database other", "rename table t to t2"]);
    assert_eq!(code(&mut c, "rename table t2 to other.t2"), 1435);
    assert_eq!(
        col(&mut c, "select distinct event_object_table from information_schema.triggers where trigger_schema = 'tg'"),
        ["t2"]
    );
    run(&mut c, &["insert into t2 (a) values (2)", "drop table t2"]);
    assert_eq!(
        col(&mut c, "select count(*) from information_schema.triggers"),
        ["0"]
    );
    assert_eq!(code(&mut c, "show create trigger t_bi"), 1360);
}

/// `mariadb-dump` (triggers are on by default) loads back, and the triggers fire.
#[test]
fn mariadb_dump_triggers_round_trip() {
    let b = Basalt::start();
    let mut c = b.conn();
    run(&mut c, SETUP);
    run(&mut c, &["insert into t (a) values (1), (2)"]);
    let dump = std::process::Command::new("mariadb-dump")
        .args(["-h127.0.0.1", "-uroot", "--skip-ssl", "--databases", "tg"])
        .arg(format!("-P{}", b.port))
        .output()
        .expect("mariadb-dump");
    assert!(
        dump.status.success(),
        "{}",
        String::from_utf8_lossy(&dump.stderr)
    );
    let text = String::from_utf8(dump.stdout).unwrap();
    assert!(
        text.contains("/*!50003 trigger t_ai after insert on t"),
        "{text}"
    );
    run(&mut c, &["drop database tg"]);
    let (rc, _, err) = mariadb_cli(b.port, &[], &text);
    assert_eq!(rc, 0, "{err}");
    let mut c = Conn::new(Opts::from_url(&b.url_db("tg")).unwrap()).unwrap();
    // Loading the rows fired nothing (the dump creates triggers after them).
    assert_eq!(col(&mut c, "select count(*) from log"), ["4"]);
    run(&mut c, &["insert into t (a) values (3)"]);
    assert_eq!(col(&mut c, "select count(*) from log"), ["6"]);
    assert_eq!(col(&mut c, "select b from t where a = 3"), ["x!"]);
}

/// The triggers pt-online-schema-change installs keep its copy in step with
/// the table while it copies, and go away with the old table after the swap.
#[test]
fn online_schema_change_triggers() {
    let b = Basalt::start();
    let mut c = b.conn();
    run(
        &mut c,
        &[
            "create database osc",
            "use osc",
            "create table big (id int primary key auto_increment, v varchar(20))",
            "insert into big (v) with recursive s(n) as (select 1 union all select n + 1 from s where n < 500) select concat('v', n) from s",
            "create table _big_new like big",
            "alter table _big_new add column c int",
            "CREATE TRIGGER `pt_osc_osc_big_del` AFTER DELETE ON `osc`.`big` FOR EACH ROW BEGIN DECLARE CONTINUE HANDLER FOR 1146 begin end; DELETE IGNORE FROM `osc`.`_big_new` WHERE `osc`.`_big_new`.`id` <=> OLD.`id`; END",
            "CREATE TRIGGER `pt_osc_osc_big_upd` AFTER UPDATE ON `osc`.`big` FOR EACH ROW BEGIN DECLARE CONTINUE HANDLER FOR 1146 begin end; DELETE IGNORE FROM `osc`.`_big_new` WHERE !(OLD.`id` <=> NEW.`id`) AND `osc`.`_big_new`.`id` <=> OLD.`id`; REPLACE INTO `osc`.`_big_new` (`id`, `v`) VALUES (NEW.`id`, NEW.`v`); END",
            "CREATE TRIGGER `pt_osc_osc_big_ins` AFTER INSERT ON `osc`.`big` FOR EACH ROW BEGIN DECLARE CONTINUE HANDLER FOR 1146 begin end; REPLACE INTO `osc`.`_big_new` (`id`, `v`) VALUES (NEW.`id`, NEW.`v`);END",
            "insert low_priority ignore into `osc`.`_big_new` (`id`, `v`) select `id`, `v` from `osc`.`big` where id <= 250 lock in share mode",
            "insert into big (v) values ('new1')",
            "update big set v = 'changed' where id = 5",
            "update big set id = 5000 where id = 6",
            "delete from big where id = 7",
            "insert low_priority ignore into `osc`.`_big_new` (`id`, `v`) select `id`, `v` from `osc`.`big` where id > 250 lock in share mode",
        ],
    );
    let sum = "select count(*), sum(id), sum(crc32(v)) from ";
    let old = rows(&mut c, &format!("{sum}big")).unwrap();
    assert_eq!(rows(&mut c, &format!("{sum}_big_new")).unwrap(), old);
    run(
        &mut c,
        &[
            "rename table big to _big_old, _big_new to big",
            "drop table _big_old",
        ],
    );
    assert_eq!(
        col(&mut c, "select count(*) from information_schema.triggers"),
        ["0"]
    );
    assert_eq!(rows(&mut c, &format!("{sum}big")).unwrap(), old);
}

#[test]
#[ignore]
fn triggers_behave_as_on_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&[]);
    let mut bc = Conn::new(Opts::from_url(&b.url()).unwrap()).unwrap();
    let mut mc = Conn::new(Opts::from_url(&m.url()).unwrap()).unwrap();
    let script: Vec<&str> = SETUP
        .iter()
        .copied()
        .chain([
            "insert into t (a) values (1), (2)",
            "insert into t (a) values (3), (-1)",
            "insert into t (id, a) values (1, 5) on duplicate key update a = 7",
            "replace into t (id, a) values (2, 9)",
            "update t set a = a",
            "delete from t where id = 1",
            "select * from t",
            "select * from log",
            "select trigger_name, event_manipulation, event_object_table, action_order, action_statement, action_timing, sql_mode, definer from information_schema.triggers order by 1",
            "show triggers",
            "show triggers like 't'",
            "show triggers where `Timing` = 'AFTER'",
            "create trigger x1 before delete on t for each row set @a = new.a",
            "create trigger x3 before update on t for each row set old.a = 1",
            "create trigger x4 after update on t for each row set new.a = 1",
            "create trigger x5 before update on t for each row set new.zz = 1",
            "create trigger x6 before update on t for each row set @a = new.zz",
            "create trigger t_bi before insert on t for each row set @a = 1",
            "create trigger if not exists t_bi before insert on t for each row set @a = 1",
            "create trigger x10 before insert on t for each row follows nosuch set @a = 1",
            "create trigger x11 before insert on t for each row precedes t_bi set @b = 1",
            "select trigger_name, action_order from information_schema.triggers order by 1",
            "drop trigger nosuch",
            "drop trigger if exists nosuch",
            "create trigger x12 before insert on t for each row select 1",
            "create trigger x13 before insert on t for each row commit",
            "create trigger x14 before insert on log for each row insert into t (a) values (1)",
            "insert into t (a) values (3)",
            "drop trigger x14",
            "create trigger t_bu2 before update on t for each row set new.a = 'abc'",
            "update t set a = 3",
            "drop trigger t_bu2",
            "set sql_mode = ''",
            "create trigger t_bu3 before update on t for each row set new.a = null",
            "update t set a = 4",
            "select * from t",
            "set sql_mode = default",
            "update t set a = 4",
            "drop trigger t_bu3",
            "create table k (id int primary key)",
            "insert into k values (2)",
            "update t join k using (id) set t.a = 1",
            "delete t from t join k using (id)",
            "select * from log",
            "create database other",
            "rename table t to other.t",
            "rename table t to t4",
            "show triggers",
            "drop table t4",
            "show triggers",
            "select !(1 <=> 2), !0, ! 1, !1 = 0, !!5, 2 - !0",
        ])
        .collect();
    let mut diffs = Vec::new();
    for sql in script {
        let rb = rows(&mut bc, sql);
        let rm = rows(&mut mc, sql);
        let wb: Vec<(String, u16, String)> = bc.query("show warnings").unwrap();
        let wm: Vec<(String, u16, String)> = mc.query("show warnings").unwrap();
        // MariaDB adds where in a routine an error happened (Note 4094).
        let wm: Vec<_> = wm.into_iter().filter(|w| w.1 != 4094).collect();
        // Creation times differ between the servers.
        let show = sql.starts_with("show triggers");
        let strip = |r: Result<Vec<Vec<Option<String>>>, u16>| {
            r.map(|rows| {
                rows.into_iter()
                    .map(|mut row| {
                        if show {
                            row[5] = None;
                        }
                        row
                    })
                    .collect::<Vec<_>>()
            })
        };
        let (rb, rm) = (strip(rb), strip(rm));
        if rb != rm || wb != wm {
            diffs.push(format!(
                "{sql}\n basalt:  {rb:?} {wb:?}\n mariadb: {rm:?} {wm:?}"
            ));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
