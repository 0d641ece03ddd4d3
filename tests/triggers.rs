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

/// `mariadb-dump --databases tg` of a server on `port` (triggers are dumped by
/// default).
fn dump_tg(port: u16) -> String {
    basalt_tests::mariadb_dump(port, &["--databases", "tg"])
}

/// `mariadb-dump` output loads back, and the triggers fire.
#[test]
fn mariadb_dump_triggers_round_trip() {
    let b = Basalt::start();
    let mut c = b.conn();
    run(&mut c, SETUP);
    run(&mut c, &["insert into t (a) values (1), (2)"]);
    let text = dump_tg(b.port);
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

/// Basalt's dump of triggers loads into MariaDB, where they fire alike.
#[test]
#[ignore]
fn mariadb_dump_of_triggers_loads_into_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let mut c = b.conn();
    run(&mut c, SETUP);
    run(&mut c, &["insert into t (a) values (1), (2)"]);
    let text = dump_tg(b.port);
    let m = MariaDb::start(&[]);
    let (rc, _, err) = mariadb_cli(m.port, &[], &text);
    assert_eq!(rc, 0, "{err}");
    let mut mc = Conn::new(Opts::from_url(&m.url()).unwrap()).unwrap();
    for conn in [&mut c, &mut mc] {
        run(conn, &["use tg", "insert into t (a) values (3)"]);
    }
    let q = "select t.*, (select group_concat(msg order by n) from log) from t order by id";
    assert_eq!(rows(&mut mc, q).unwrap(), rows(&mut c, q).unwrap());
    let q = "select trigger_name, action_order, action_statement from information_schema.triggers order by 1";
    assert_eq!(rows(&mut mc, q).unwrap(), rows(&mut c, q).unwrap());
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

/// pt-online-schema-change alters a table while a client keeps changing it;
/// every change made in a transaction together with the same change to a
/// shadow table, the altered table ends up with exactly the shadow's rows.
#[test]
fn pt_online_schema_change_under_write_load() {
    let b = Basalt::start();
    let mut c = b.conn();
    run(
        &mut c,
        &[
            "create database osc",
            "use osc",
            "create table big (id int primary key, v int not null)",
            "create table shadow (id int primary key, v int not null)",
            "set max_recursive_iterations = 100000",
            "insert into big with recursive s(n) as (select 1 union all select n + 1 from s where n < 20000) select n, n from s",
            "insert into shadow select * from big",
        ],
    );
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let url = b.url_db("osc");
    let flag = stop.clone();
    let writer = std::thread::spawn(move || {
        let mut w = Conn::new(Opts::from_url(&url).unwrap()).unwrap();
        let (mut seed, mut done) = (12345u64, 0u32);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while !flag.load(std::sync::atomic::Ordering::Relaxed)
            && std::time::Instant::now() < deadline
        {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let id = (seed >> 33) % 25_000 + 1;
            let change = |t: &str| match (seed >> 20) % 3 {
                0 => format!("replace into {t} values ({id}, {})", seed % 1000),
                1 => format!("update {t} set v = v + 1 where id = {id}"),
                _ => format!("delete from {t} where id = {id}"),
            };
            let ok = w.query_drop("begin").is_ok()
                && w.query_drop(change("big")).is_ok()
                && w.query_drop(change("shadow")).is_ok();
            if ok && w.query_drop("commit").is_ok() {
                done += 1;
            } else {
                let _ = w.query_drop("rollback");
            }
        }
        done
    });
    std::thread::sleep(std::time::Duration::from_millis(300));
    let out = std::process::Command::new("pt-online-schema-change")
        .args([
            "--alter",
            "ADD COLUMN c int",
            "--execute",
            "--recursion-method=none",
        ])
        .args(["--chunk-size=1000", "--set-vars=lock_wait_timeout=10"])
        .arg(format!("h=127.0.0.1,P={},u=root,D=osc,t=big", b.port))
        .output()
        .expect("pt-online-schema-change");
    std::thread::sleep(std::time::Duration::from_millis(300));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let done = writer.join().unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(done > 0);
    let sum = "select count(*), sum(id), sum(v), bit_xor(crc32(concat(id, ':', v))) from ";
    let altered = rows(&mut c, &format!("{sum}big")).unwrap();
    let shadow = rows(&mut c, &format!("{sum}shadow")).unwrap();
    assert_eq!(altered, shadow, "after {done} changes");
    assert_eq!(
        col(&mut c, "select column_name from information_schema.columns where table_schema = 'osc' and table_name = 'big' order by ordinal_position"),
        ["id", "v", "c"]
    );
    assert_eq!(
        col(&mut c, "select count(*) from information_schema.triggers"),
        ["0"]
    );
}

/// A server killed while a statement fires triggers comes back with the
/// statement's rows and its triggers' rows both there or both gone.
#[test]
fn a_crash_during_a_triggering_statement() {
    let mut b = Basalt::start();
    let mut c = b.conn();
    let fill = |from: u32, to: u32| {
        format!(
            "insert into t with recursive s(n) as (select {from} union all select n + 1 \
             from s where n < {to}) select n, n from s"
        )
    };
    run(
        &mut c,
        &[
            "create database cr",
            "use cr",
            "create table t (id int primary key, v int)",
            "create table audit (id int primary key)",
            "create trigger t_ai after insert on t for each row insert into audit values (new.id)",
            "set max_recursive_iterations = 1000000",
            &fill(1, 1000),
        ],
    );
    let url = b.url_db("cr");
    let big = fill(1001, 400_000);
    let h = std::thread::spawn(move || {
        let mut c2 = Conn::new(Opts::from_url(&url).unwrap()).unwrap();
        c2.query_drop("set max_recursive_iterations = 1000000")
            .unwrap();
        let _ = c2.query_drop(&big);
    });
    std::thread::sleep(std::time::Duration::from_millis(800));
    b.restart(true);
    let _ = h.join();
    let mut c = Conn::new(Opts::from_url(&b.url_db("cr")).unwrap()).unwrap();
    let rows_t = col(&mut c, "select count(*) from t");
    assert_eq!(col(&mut c, "select count(*) from audit"), rows_t);
    assert!(rows_t == ["1000"] || rows_t == ["400000"], "{rows_t:?}");
    assert_eq!(
        col(
            &mut c,
            "select count(*) from t left join audit using (id) where audit.id is null"
        ),
        ["0"]
    );
    run(&mut c, &["insert into t values (0, 0)"]);
    assert_eq!(
        col(&mut c, "select count(*) from audit where id = 0"),
        ["1"]
    );
}

#[test]
#[ignore]
fn triggers_behave_as_on_mariadb() {
    let Some((_b, _m, mut bc, mut mc)) = mariadb::paired() else {
        return;
    };
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
    // Creation times differ between the servers.
    let diffs = mariadb::differences(&mut bc, &mut mc, &script, |sql, o| {
        if !sql.starts_with("show triggers") {
            return o;
        }
        o.map(|rows| {
            rows.into_iter()
                .map(|mut row| {
                    row[5] = None;
                    row
                })
                .collect()
        })
    });
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
