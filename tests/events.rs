//! Events over the wire: CREATE / ALTER / DROP EVENT with MariaDB's checks,
//! notes and errors; SHOW EVENTS, SHOW CREATE EVENT and
//! information_schema.EVENTS; the scheduler (`event_scheduler`) running
//! recurring and one-time events as their definer, in their database and
//! sql_mode, ending them as ON COMPLETION says; events and their runs kept
//! across a crash; the EVENT privilege; the `mariadb-dump --events` round
//! trip; and (ignored: needs mariadb-server) the same statements compared
//! with MariaDB 10.11.

use basalt_tests::mariadb::{self, differences, outcome};
use basalt_tests::{eventually, global_status, mariadb_cli, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::time::Duration;

fn code(c: &mut Conn, sql: &str) -> u16 {
    match c.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => e.code,
        other => panic!("{sql}: expected an error, got {other:?}"),
    }
}

fn col(c: &mut Conn, sql: &str) -> Vec<String> {
    outcome(c, sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .into_iter()
        .map(|r| r[0].clone().unwrap_or_default())
        .collect()
}

fn run(c: &mut Conn, script: &[&str]) {
    for sql in script {
        c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

fn warnings(c: &mut Conn) -> Vec<(String, u16)> {
    let w: Vec<(String, u16, String)> = c.query("show warnings").unwrap();
    w.into_iter().map(|(l, n, _)| (l, n)).collect()
}

fn count(c: &mut Conn, sql: &str) -> u64 {
    col(c, sql)[0].parse().unwrap()
}

/// The statements of the checks, shared with the MariaDB comparison: fixed
/// times so that both servers print the same.
const DDL: &[&str] = &[
    "create database ev character set utf8mb4",
    "use ev",
    "create table t (a int)",
    "create event e1 on schedule every 1 hour starts '2030-01-01 00:00:00' do insert into t values (1)",
    "create event e2 on schedule at '2031-06-01 12:00:00' on completion preserve disable comment 'c''x' do begin insert into t values (2); insert into t values (3); end",
    "create event e3 on schedule every '1:30' hour_minute starts '2030-01-01' ends '2031-01-01' do delete from t",
    "create event e4 on schedule every 2 week starts '2030-01-01' do select 1",
    "create event e5 on schedule every 5 quarter starts '2030-01-01' disable on slave do select 1",
    "create event e6 on schedule every '1 02:03:04' day_second starts '2030-01-01' do select 1",
    "create event e7 on schedule every '2-3' year_month starts '2030-01-01' do select 1",
    "create event e8 on schedule every 1.5 hour starts '2030-01-01' do select 1",
    "show create event e1",
    "show create event e2",
    "show create event e3",
    "show events",
    "show events like 'e1%'",
    "show events where `Interval field` = 'WEEK'",
    "select event_schema, event_name, definer, time_zone, event_body, event_definition, event_type, execute_at, interval_value, interval_field, sql_mode, starts, ends, status, on_completion, last_executed, event_comment, originator from information_schema.events order by event_name",
    "create event e1 on schedule every 1 hour do select 1",
    "create event if not exists e1 on schedule every 1 hour do select 1",
    "create or replace event if not exists e1 on schedule every 1 hour do select 1",
    "create event bad on schedule every 0 second do select 1",
    "create event bad on schedule every -1 hour do select 1",
    "create event bad on schedule every 1000000001 second do select 1",
    "create event bad on schedule every 1 microsecond do select 1",
    "create event bad on schedule every 1 second_microsecond do select 1",
    "create event bad on schedule every null hour do select 1",
    "create event bad on schedule every '0:0' hour_minute do select 1",
    "create event bad on schedule at 'garbage' do select 1",
    "create event bad on schedule at null do select 1",
    "create event bad on schedule every 1 hour starts null do select 1",
    "create event bad on schedule every 1 hour starts '2030-01-01' ends '2029-01-01' do select 1",
    "create event bad on schedule every 1 hour starts '2030-01-01' ends '2030-01-01' do select 1",
    "create event bad on schedule every 1 hour ends '2000-01-01' do select 1",
    "create event bad on schedule at '2000-01-01' do select 1",
    "create event e1 on schedule at '2000-01-01' do select 1",
    "create event old on schedule at '2000-01-01' on completion preserve do select 1",
    "create event old2 on schedule at '2000-01-01' on completion preserve disable do select 1",
    "create event old3 on schedule every 1 hour starts '2000-01-01' ends '2001-01-01' do select 1",
    "create event nodb.x on schedule every 1 hour do select 1",
    "create event bad on schedule every 1 hour do create event x on schedule every 1 hour do select 1",
    "create event bad on schedule every 1 hour do create procedure p() select 1",
    "create event `` on schedule every 1 hour do select 1",
    "create event aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa on schedule every 1 hour do select 1",
    "create event bad on schedule every 1 hour comment 'x' disable do select 1",
    "alter event e1 rename to e1",
    "alter event e1 rename to e2",
    "alter event nosuch disable",
    "alter event nosuch rename to e1",
    "alter event nodb.e1 disable",
    "alter event e1 on schedule at '2000-01-01'",
    "alter event e1 on schedule every 0 hour",
    "alter event e1 on schedule every 3 hour starts '2030-02-01' on completion preserve rename to e9 disable comment 'multi' do select 3",
    "show create event e9",
    "alter event e9 comment ''",
    "alter event e9 on schedule at '2000-01-01'",
    "select event_name, status, execute_at, starts, ends from information_schema.events where event_name = 'e9'",
    "alter event e3 on schedule every 2 hour starts '2030-03-01'",
    "show create event e3",
    "drop event nosuch",
    "drop event if exists nosuch",
    "drop event E4",
    "show create event e4",
    "show events",
    "set global event_scheduler = 2",
    "set global event_scheduler = 'foo'",
    "set event_scheduler = on",
    "select @@session.event_scheduler",
    "select @@event_scheduler",
];

#[test]
fn events_are_created_described_and_checked() {
    let b = Basalt::start();
    let mut c = b.conn();
    run(&mut c, &DDL[..4]);
    assert_eq!(warnings(&mut c), [("Warning".to_string(), 1105)]);
    run(&mut c, &DDL[4..11]);
    assert_eq!(
        col(&mut c, "show create event e1").len(),
        1,
        "one row per event"
    );
    let create = outcome(&mut c, "show create event e2").unwrap();
    assert_eq!(
        create[0][3].as_deref(),
        Some(
            "CREATE DEFINER=`root`@`localhost` EVENT `e2` ON SCHEDULE AT '2031-06-01 12:00:00' \
             ON COMPLETION PRESERVE DISABLE COMMENT 'c''x' DO begin insert into t values (2); \
             insert into t values (3); end"
        )
    );
    assert_eq!(create[0][2].as_deref(), Some("SYSTEM"));
    assert_eq!(
        col(
            &mut c,
            "select interval_value from information_schema.events order by event_name"
        ),
        ["1", "", "'1:30'", "2", "5", "'1 2:3:4'", "'2-3'", "2"]
    );
    assert_eq!(
        code(
            &mut c,
            "create event e1 on schedule every 1 hour do select 1"
        ),
        1537
    );
    assert_eq!(
        code(
            &mut c,
            "create event x on schedule every 0 second do select 1"
        ),
        1542
    );
    assert_eq!(
        code(
            &mut c,
            "create event x on schedule at 'garbage' do select 1"
        ),
        1525
    );
    assert_eq!(
        code(
            &mut c,
            "create event x on schedule every 1 hour ends '2000-01-01' do select 1"
        ),
        1543
    );
    assert_eq!(
        code(
            &mut c,
            "create event x on schedule every 1 microsecond do select 1"
        ),
        1235
    );
    run(
        &mut c,
        &["create event x on schedule at '2000-01-01' do select 1"],
    );
    assert_eq!(warnings(&mut c), [("Note".to_string(), 1588)]);
    assert_eq!(code(&mut c, "show create event x"), 1539);
    assert_eq!(
        code(
            &mut c,
            "create event x on schedule every 1 hour do create event y on schedule every 1 hour do select 1"
        ),
        1576
    );
    assert_eq!(
        code(&mut c, "create event x on schedule every 1 hour do selec 1"),
        1064
    );
    assert_eq!(code(&mut c, "alter event e1 rename to e1"), 1551);
    assert_eq!(
        code(&mut c, "alter event e1 on schedule at '2000-01-01'"),
        1589
    );
    assert_eq!(code(&mut c, "drop event nosuch"), 1539);
    assert_eq!(
        code(
            &mut c,
            "create event nodb.x on schedule every 1 hour do select 1"
        ),
        1049
    );
    assert_eq!(code(&mut c, "set event_scheduler = on"), 1229);
    run(&mut c, &["alter event e1 rename to e0", "drop event e0"]);
    assert_eq!(
        count(&mut c, "select count(*) from information_schema.events"),
        7
    );
    // Events go with their database.
    run(&mut c, &["drop database ev"]);
    assert_eq!(
        count(&mut c, "select count(*) from information_schema.events"),
        0
    );
    // Without a current database.
    assert_eq!(code(&mut c, "show events"), 1046);
    assert_eq!(code(&mut c, "drop event e1"), 1046);
}

/// The scheduler runs a recurring event every interval from its creation,
/// a one-time event once (then drops it, or disables it with PRESERVE), as
/// the definer in the event's database and sql_mode; a failing run goes to
/// the error log and the event keeps its schedule.
#[test]
fn the_scheduler_runs_events() {
    let b = Basalt::start();
    let mut c = b.conn();
    run(
        &mut c,
        &[
            "create database ev",
            "use ev",
            "create table t (a int)",
            "create table ctx (u varchar(100), cu varchar(100), db varchar(64), m varchar(200), tz varchar(20), ac int)",
            "set global event_scheduler = on",
            "create event r on schedule every 1 second do insert into t values (9)",
        ],
    );
    assert!(warnings(&mut c).is_empty(), "no 1105 with the scheduler on");
    run(
        &mut c,
        &[
            "set sql_mode = 'PIPES_AS_CONCAT'",
            "create event once on schedule at current_timestamp + interval 1 second do insert into ctx values (user(), current_user(), database(), 'a' || 'b', @@time_zone, @@autocommit)",
            "set sql_mode = default",
            "create event kept on schedule at current_timestamp on completion preserve do insert into t values (7)",
            "create event bad on schedule every 1 second do insert into nosuch values (1)",
            "create event bad2 on schedule at current_timestamp do begin\n  set @x = 1;\n  insert into nosuch2 values (1);\nend",
            "create event blk on schedule at current_timestamp do begin insert into t values (100); insert into t values (101); end",
        ],
    );
    let limit = Duration::from_secs(10);
    assert!(eventually(limit, || count(
        &mut c,
        "select count(*) from t where a = 9"
    ) >= 3));
    assert!(eventually(limit, || count(
        &mut c,
        "select count(*) from ctx"
    ) == 1));
    assert_eq!(
        outcome(&mut c, "select * from ctx").unwrap(),
        [[
            Some("event_scheduler@localhost".to_string()),
            Some("root@localhost".to_string()),
            Some("ev".to_string()),
            Some("ab".to_string()),
            Some("SYSTEM".to_string()),
            Some("1".to_string()),
        ]]
    );
    assert_eq!(
        col(&mut c, "select a from t where a > 9 order by a"),
        ["100", "101"]
    );
    assert_eq!(col(&mut c, "select count(*) from t where a = 7"), ["1"]);
    // The one-time events ended as ON COMPLETION says.
    assert_eq!(
        col(&mut c, "select concat(event_name, ' ', status, ' ', last_executed is not null) from information_schema.events order by event_name"),
        ["bad ENABLED 1", "kept DISABLED 1", "r ENABLED 1"]
    );
    assert!(eventually(limit, || b.log().contains(
        "Event Scheduler: [root@localhost][ev.bad] Table 'ev.nosuch' doesn't exist"
    )));
    // Then the line of the CREATE EVENT statement, as MariaDB notes it.
    assert!(eventually(limit, || b.log().contains(
        "Event Scheduler: [root@localhost][ev.bad] At line 1 in ev.bad"
    )));
    assert!(eventually(limit, || b.log().contains(
        "Event Scheduler: [root@localhost][ev.bad2] At line 3 in ev.bad2"
    )));
    assert!(global_status(&mut c, "Executed_events") >= 6);
    // The scheduler and a run going on are in the process list.
    assert_eq!(
        col(&mut c, "select concat(command, ' ', state) from information_schema.processlist where user = 'event_scheduler'"),
        ["Daemon Waiting for next activation"]
    );
    run(
        &mut c,
        &["create event slow on schedule at current_timestamp do select sleep(3)"],
    );
    assert!(eventually(limit, || {
        col(
        &mut c,
        "select count(*) from information_schema.processlist where command = 'Connect' and info = 'select sleep(3)' and db = 'ev'"
    ) == ["1"]
    }));
    // A disabled event stops; so does everything when the scheduler is off.
    run(&mut c, &["alter event r disable", "drop event bad"]);
    std::thread::sleep(Duration::from_millis(200));
    let before = count(&mut c, "select count(*) from t");
    std::thread::sleep(Duration::from_millis(2200));
    assert_eq!(count(&mut c, "select count(*) from t"), before);
    run(
        &mut c,
        &[
            "alter event r enable",
            "set global event_scheduler = off",
            "create event r2 on schedule every 1 second do insert into t values (9)",
        ],
    );
    assert_eq!(warnings(&mut c), [("Warning".to_string(), 1105)]);
    assert_eq!(
        col(
            &mut c,
            "select count(*) from information_schema.processlist where command = 'Daemon'"
        ),
        ["0"]
    );
    let before = count(&mut c, "select count(*) from t");
    std::thread::sleep(Duration::from_millis(2200));
    assert_eq!(count(&mut c, "select count(*) from t"), before);
}

/// KILL QUERY and KILL of an event run's process-list id stop its body (a
/// sleeping statement, an endless loop); the error log says why.
#[test]
fn kill_stops_an_event_run() {
    let b = Basalt::start();
    let mut c = b.conn();
    run(
        &mut c,
        &[
            "create database ek",
            "use ek",
            "set global event_scheduler = on",
            "create event nap on schedule at current_timestamp do select sleep(60)",
            "create event spin on schedule at current_timestamp do begin declare i int default 0; while 1 do set i = i + 1; end while; end",
        ],
    );
    let limit = Duration::from_secs(10);
    let id_of = |c: &mut Conn, info: &str| -> Option<String> {
        col(
            c,
            &format!("select id from information_schema.processlist where command = 'Connect' and db = 'ek' and info like '{info}%'"),
        )
        .pop()
    };
    let mut ids = (None, None);
    assert!(eventually(limit, || {
        ids = (id_of(&mut c, "select sleep"), id_of(&mut c, "begin"));
        ids.0.is_some() && ids.1.is_some()
    }));
    let (nap, spin) = (ids.0.unwrap(), ids.1.unwrap());
    run(
        &mut c,
        &[&format!("kill query {nap}"), &format!("kill {spin}")],
    );
    assert!(eventually(limit, || {
        col(
            &mut c,
            "select count(*) from information_schema.processlist where db = 'ek' and command = 'Connect'",
        ) == ["0"]
    }));
    for event in ["nap", "spin"] {
        let line = format!("[root@localhost][ek.{event}] Query execution was interrupted");
        assert!(eventually(limit, || b.log().contains(&line)), "{line}");
    }
    // Ids that are no event run nor connection stay unknown.
    assert_eq!(code(&mut c, "kill 999999"), 1094);
}

/// Threads of the server process whose name starts with `prefix`.
fn threads_named(b: &Basalt, prefix: &str) -> usize {
    let dir = format!("/proc/{}/task", b.pid());
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
                .filter(|name| name.starts_with(prefix))
                .count()
        })
        .unwrap_or(0)
}

/// Sessions switching the scheduler on and off at once leave exactly one
/// scheduler thread when the last switch is ON, none when it is OFF; a run
/// going on shows its time in the process list.
#[test]
fn concurrent_switches_leave_one_scheduler() {
    let b = Basalt::start();
    let url = b.url();
    let togglers: Vec<_> = (0..4)
        .map(|i| {
            let url = url.clone();
            std::thread::spawn(move || {
                let mut c = Conn::new(Opts::from_url(&url).unwrap()).unwrap();
                for n in 0..40 {
                    let v = if (n + i) % 2 == 0 { "on" } else { "off" };
                    c.query_drop(format!("set global event_scheduler = {v}"))
                        .unwrap();
                }
            })
        })
        .collect();
    for t in togglers {
        t.join().unwrap();
    }
    let mut c = b.conn();
    let limit = Duration::from_secs(10);
    for (v, threads) in [("on", 1), ("off", 0), ("on", 1)] {
        run(&mut c, &[&format!("set global event_scheduler = {v}")]);
        assert!(
            eventually(limit, || threads_named(&b, "basalt-event-sc") == threads),
            "{v}: {} scheduler threads",
            threads_named(&b, "basalt-event-sc")
        );
    }
    run(
        &mut c,
        &[
            "create database ev",
            "create event ev.slow on schedule at current_timestamp do select sleep(4)",
        ],
    );
    let q = "select time from information_schema.processlist where info = 'select sleep(4)'";
    assert!(eventually(limit, || col(&mut c, q)
        .first()
        .is_some_and(|t| t.parse::<u64>().unwrap() >= 2)));
}

/// Events and the record of their runs survive a crash; `--event-scheduler=ON`
/// starts the scheduler with the server and `DISABLED` keeps it off for good.
#[test]
fn events_survive_a_crash_and_the_scheduler_starts_with_the_server() {
    let mut b = Basalt::start_with(&["--event-scheduler=ON"]);
    let mut c = b.conn();
    assert_eq!(col(&mut c, "select @@event_scheduler"), ["ON"]);
    run(
        &mut c,
        &[
            "create database ev",
            "use ev",
            "create table t (a int)",
            "create event once on schedule at current_timestamp do insert into t values (1)",
            "create event later on schedule every 1 day starts '2030-01-01' do insert into t values (2)",
        ],
    );
    let limit = Duration::from_secs(10);
    assert!(eventually(limit, || count(
        &mut c,
        "select count(*) from t"
    ) == 1));
    b.restart(true);
    let mut c = Conn::new(Opts::from_url(&b.url_db("ev")).unwrap()).unwrap();
    // The one-time event ran once and is gone; the other is kept as it was.
    assert_eq!(
        col(&mut c, "select event_name from information_schema.events"),
        ["later"]
    );
    assert_eq!(col(&mut c, "select count(*) from t"), ["1"]);
    assert_eq!(col(&mut c, "select @@event_scheduler"), ["ON"]);
    run(
        &mut c,
        &["create event again on schedule every 1 second do insert into t values (3)"],
    );
    assert!(eventually(limit, || count(
        &mut c,
        "select count(*) from t where a = 3"
    ) >= 1));
    drop(c);
    drop(b);

    let b = Basalt::start_with(&["--event-scheduler=DISABLED"]);
    let mut c = b.conn();
    assert_eq!(col(&mut c, "select @@event_scheduler"), ["DISABLED"]);
    assert_eq!(code(&mut c, "set global event_scheduler = on"), 1290);
}

/// Event statements need the EVENT privilege on the database (1044); the
/// event runs with its definer's privileges.
#[test]
fn events_need_the_event_privilege_and_run_as_their_definer() {
    let b = Basalt::start_with(&["--event-scheduler=ON"]);
    let mut c = b.conn();
    run(
        &mut c,
        &[
            "create database ev",
            "create table ev.t (a int)",
            "create user u@'%'",
            "grant select on ev.* to u@'%'",
        ],
    );
    let url = format!("mysql://u@127.0.0.1:{}/ev", b.port);
    let mut u = Conn::new(Opts::from_url(&url).unwrap()).unwrap();
    assert_eq!(
        code(
            &mut u,
            "create event x on schedule every 1 hour do select 1"
        ),
        1044
    );
    assert_eq!(code(&mut u, "show events"), 1044);
    assert_eq!(
        count(&mut u, "select count(*) from information_schema.events"),
        0
    );
    assert_eq!(
        code(
            &mut u,
            "create definer = root@localhost event x on schedule every 1 hour do select 1"
        ),
        1044
    );
    run(&mut c, &["grant event on ev.* to u@'%'"]);
    let mut u = Conn::new(Opts::from_url(&url).unwrap()).unwrap();
    assert_eq!(
        code(
            &mut u,
            "create definer = root@localhost event x on schedule every 1 hour do select 1"
        ),
        1227
    );
    // u may not insert: its event fails in the error log.
    run(
        &mut u,
        &["create event ins on schedule at current_timestamp on completion preserve do insert into t values (1)"],
    );
    assert_eq!(
        col(&mut u, "select definer from information_schema.events"),
        ["u@%"]
    );
    assert!(eventually(Duration::from_secs(10), || b.log().contains(
        "Event Scheduler: [u@%][ev.ins] INSERT command denied"
    )));
    assert_eq!(col(&mut c, "select count(*) from ev.t"), ["0"]);
}

fn dump_ev(port: u16) -> String {
    basalt_tests::mariadb_dump(port, &["--events", "--databases", "ev"])
}

/// `mariadb-dump --events` output loads back into the same definitions.
#[test]
fn mariadb_dump_events_round_trip() {
    let b = Basalt::start();
    let mut c = b.conn();
    run(&mut c, &DDL[..11]);
    let q = "select event_name, definer, event_definition, execute_at, interval_value, interval_field, sql_mode, starts, ends, status, on_completion, event_comment from information_schema.events order by 1";
    let before = outcome(&mut c, q);
    let text = dump_ev(b.port);
    assert!(
        text.contains("/*!50106 CREATE*/ /*!50117 DEFINER=`root`@`localhost`*/ /*!50106 EVENT `e1` ON SCHEDULE EVERY 1 HOUR STARTS '2030-01-01 00:00:00'"),
        "{text}"
    );
    run(&mut c, &["drop database ev"]);
    let (rc, _, err) = mariadb_cli(b.port, &[], &text);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(outcome(&mut c, q), before);
}

#[test]
#[ignore]
fn events_behave_as_on_mariadb() {
    let Some((_b, _m, mut bc, mut mc)) = mariadb::paired() else {
        return;
    };
    let diffs = differences(&mut bc, &mut mc, DDL, |_, o| o);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    // What a run sees, on both servers.
    let script = [
        "create table ctx (u varchar(100), cu varchar(100), db varchar(64), m varchar(200), tz varchar(20), ac int, li int)",
        "set sql_mode = 'PIPES_AS_CONCAT'",
        "create event once on schedule at current_timestamp do insert into ctx values (user(), current_user(), database(), 'a' || 'b', @@time_zone, @@autocommit, last_insert_id())",
        "set sql_mode = default",
        "set global event_scheduler = on",
    ];
    let diffs = differences(&mut bc, &mut mc, &script, |_, o| o);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    for conn in [&mut bc, &mut mc] {
        assert!(eventually(Duration::from_secs(10), || count(
            conn,
            "select count(*) from ctx"
        ) == 1));
    }
    let after = [
        "select * from ctx",
        "select event_name from information_schema.events where event_name = 'once'",
        "set global event_scheduler = off",
    ];
    let diffs = differences(&mut bc, &mut mc, &after, |_, o| o);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// On a replica, an event the primary creates is SLAVESIDE_DISABLED: it runs
/// on the primary, whose changes arrive through the binary log, and never on
/// the replica itself.
#[test]
fn replicated_events_run_on_the_primary_only() {
    use basalt_tests::binlog::{connect, wait_caught_up_at, Primary, PrimaryKind};
    let primary = Primary::start(PrimaryKind::Basalt, 1);
    let dir = tempfile::tempdir().unwrap();
    let replica = Basalt::launch(
        &dir.path().join("data"),
        &["--server-id=2", "--event-scheduler=ON"],
    );
    let mut r = replica.conn();
    r.query_drop(format!(
        "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={}, MASTER_USER='root', \
         MASTER_PASSWORD='', MASTER_CONNECT_RETRY=1",
        primary.port()
    ))
    .unwrap();
    r.query_drop("START SLAVE").unwrap();
    let mut p = connect(&primary.url());
    run(
        &mut p,
        &[
            "create database ev",
            "create table ev.t (a int)",
            "create event ev.tick on schedule every 1 second do insert into ev.t values (1)",
            "set global event_scheduler = on",
        ],
    );
    let limit = Duration::from_secs(10);
    assert!(eventually(limit, || count(
        &mut p,
        "select count(*) from ev.t"
    ) >= 2));
    run(&mut p, &["set global event_scheduler = off"]);
    std::thread::sleep(Duration::from_millis(300));
    wait_caught_up_at(&replica.url(), &primary, Duration::from_secs(30));
    assert_eq!(
        col(&mut r, "select status from information_schema.events"),
        ["SLAVESIDE_DISABLED"]
    );
    let on_primary = count(&mut p, "select count(*) from ev.t");
    assert_eq!(count(&mut r, "select count(*) from ev.t"), on_primary);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(count(&mut r, "select count(*) from ev.t"), on_primary);
    r.query_drop("STOP SLAVE").unwrap();
}

/// kill -9 while a client creates and drops procedures, functions, triggers
/// and events: after the restart each object is there whole (it runs and
/// SHOW CREATE shows it) or not at all, and the server keeps its catalog.
#[test]
fn a_crash_during_stored_program_ddl_leaves_whole_objects() {
    let mut b = Basalt::start();
    let mut c = b.conn();
    run(&mut c, &["create database ev", "create table ev.t (a int)"]);
    let url = b.url_db("ev");
    let h = std::thread::spawn(move || {
        let mut c = Conn::new(Opts::from_url(&url).unwrap()).unwrap();
        for i in 0..100_000 {
            let stmts = [
                format!("create procedure p{i}() insert into t values ({i})"),
                format!("create function f{i}() returns int return {i}"),
                format!("create trigger tr{i} before insert on t for each row set @x = {i}"),
                format!("create event e{i} on schedule every 1 hour starts '2030-01-01' do insert into t values ({i})"),
                format!("drop trigger tr{i}"),
            ];
            for s in stmts {
                if c.query_drop(s).is_err() {
                    return;
                }
            }
        }
    });
    std::thread::sleep(Duration::from_millis(1500));
    b.restart(true);
    let _ = h.join();
    let mut c = Conn::new(Opts::from_url(&b.url_db("ev")).unwrap()).unwrap();
    let procs = col(
        &mut c,
        "select routine_name from information_schema.routines where routine_type = 'PROCEDURE'",
    );
    let funcs = count(
        &mut c,
        "select count(*) from information_schema.routines where routine_type = 'FUNCTION'",
    );
    let events = col(&mut c, "select event_name from information_schema.events");
    assert!(!procs.is_empty(), "some DDL ran before the crash");
    assert!(funcs as usize + 1 >= procs.len() && funcs as usize <= procs.len());
    assert!(events.len() + 1 >= funcs as usize && events.len() <= funcs as usize);
    for p in &procs {
        run(&mut c, &[&format!("call {p}()")]);
        assert_eq!(
            outcome(&mut c, &format!("show create procedure {p}"))
                .unwrap()
                .len(),
            1
        );
    }
    for e in &events {
        assert_eq!(
            outcome(&mut c, &format!("show create event {e}"))
                .unwrap()
                .len(),
            1
        );
    }
    assert!(count(&mut c, "select count(*) from information_schema.triggers") <= 1);
    assert_eq!(count(&mut c, "select count(*) from t"), procs.len() as u64);
}
