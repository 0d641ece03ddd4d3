//! The replica statements' answers, as MariaDB 10.11 gives them: CHANGE MASTER's
//! option errors and notes, START / STOP SLAVE's notes, the errors for a replica
//! not configured or running, `@@gtid_slave_pos`, SHOW SLAVE STATUS before and
//! after configuration, RESET SLAVE [ALL], `master.info` kept across a restart;
//! a primary with the replica's own server id (1593), and a row the replica
//! already has (1062 in Last_SQL_Error, the applier stopped, resumed once the
//! conflict is gone).

use basalt_tests::binlog::{connect, slave_status_at, wait_caught_up_at, Primary, PrimaryKind};
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::Conn;
use std::time::{Duration, Instant};

fn code(r: Result<(), mysql::Error>) -> u16 {
    match r {
        Err(mysql::Error::MySqlError(e)) => e.code,
        other => panic!("expected a server error, got {other:?}"),
    }
}

fn warnings(c: &mut Conn) -> Vec<(String, u16, String)> {
    c.query("SHOW WARNINGS").expect("SHOW WARNINGS")
}

fn replica(server_id: u32) -> Basalt {
    let id = format!("--server-id={server_id}");
    Basalt::start_with(&[id.as_str()])
}

/// Waits until SHOW SLAVE STATUS's `key` is `want` (bounded).
fn wait_status(url: &str, key: &str, want: &str) -> std::collections::BTreeMap<String, String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let st = slave_status_at(url);
        if st.get(key).map(String::as_str) == Some(want) {
            return st;
        }
        assert!(
            Instant::now() < deadline,
            "{key} never became {want}: {st:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn statements_answer_as_mariadb() {
    let r = replica(2);
    let mut c = connect(&r.url());
    let none: Option<mysql::Row> = c.query_first("SHOW SLAVE STATUS").expect("status");
    assert!(none.is_none(), "no row before CHANGE MASTER");
    assert_eq!(code(c.query_drop("START SLAVE")), 1200);
    c.query_drop("STOP SLAVE").expect("stop when stopped");
    let w = warnings(&mut c);
    assert_eq!(w[0].1, 1255, "{w:?}");
    for (q, want) in [
        ("CHANGE MASTER TO MASTER_HOST=''", 1210),
        ("CHANGE MASTER TO MASTER_HEARTBEAT_PERIOD=5000000", 1624),
        ("CHANGE MASTER TO MASTER_DELAY=2147483648", 1729),
        ("CHANGE MASTER TO MASTER_USE_GTID=bogus", 1064),
        ("CHANGE MASTER TO MASTER_PORT='abc'", 1064),
        ("CHANGE MASTER TO MASTER_BOGUS=1", 1064),
        ("CHANGE MASTER TO MASTER_DELAY=-1", 1064),
        ("CHANGE MASTER 'other' TO MASTER_HOST='x'", 1235),
        ("CHANGE MASTER TO MASTER_SSL_CA='/x'", 1235),
        ("START SLAVE UNTIL MASTER_GTID_POS='0-1-5'", 1200),
        ("SET GLOBAL gtid_slave_pos = 'bogus'", 1941),
        ("SET SESSION gtid_slave_pos = ''", 1229),
    ] {
        assert_eq!(code(c.query_drop(q)), want, "{q}");
    }
    // Nothing was configured by the refused statements.
    let none: Option<mysql::Row> = c.query_first("SHOW SLAVE STATUS").expect("status");
    assert!(none.is_none());

    c.query_drop("SET GLOBAL gtid_slave_pos = '0-1-5,1-7-9'")
        .expect("set gtid_slave_pos");
    let pos: String = c
        .query_first("SELECT @@gtid_slave_pos")
        .expect("read")
        .expect("a value");
    assert_eq!(pos, "0-1-5,1-7-9");
    let rows: Vec<(u32, u32, u64)> = c
        .query("SELECT domain_id, server_id, seq_no FROM mysql.gtid_slave_pos ORDER BY 1")
        .expect("mysql.gtid_slave_pos");
    assert_eq!(rows, vec![(0, 1, 5), (1, 7, 9)]);

    // A new connection's heartbeat is half of slave_net_timeout.
    c.query_drop("SET GLOBAL slave_net_timeout = 10")
        .expect("slave_net_timeout");
    c.query_drop("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=1, MASTER_USER='repl'")
        .expect("change master");
    let all: mysql::Row = c
        .query_first("SHOW ALL SLAVES STATUS")
        .expect("all")
        .expect("a row");
    let period: String = all.get("Slave_heartbeat_period").expect("heartbeat column");
    assert_eq!(period, "5.000");
    c.query_drop("CHANGE MASTER TO MASTER_LOG_FILE='mariadb-bin.000002', MASTER_LOG_POS=2")
        .expect("file and position");
    let w = warnings(&mut c);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(
        w[0],
        (
            "Note".into(),
            4190,
            "CHANGE MASTER TO is implicitly changing the value of 'Using_Gtid' from \
             'Slave_Pos' to 'No'"
                .into()
        )
    );
    let st = slave_status_at(&r.url());
    assert_eq!(st["Master_Host"], "127.0.0.1");
    assert_eq!(st["Master_User"], "repl");
    assert_eq!(st["Master_Port"], "1");
    assert_eq!(st["Using_Gtid"], "No");
    assert_eq!(st["Master_Log_File"], "mariadb-bin.000002");
    assert_eq!(st["Read_Master_Log_Pos"], "4");
    assert_eq!(st["Slave_IO_Running"], "No");
    assert_eq!(st["Seconds_Behind_Master"], "");

    // Port 1 refuses: the I/O thread keeps retrying, the SQL thread runs.
    c.query_drop("CHANGE MASTER TO MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1")
        .expect("gtid again");
    c.query_drop("START SLAVE").expect("start");
    let st = wait_status(&r.url(), "Last_IO_Errno", "2003");
    assert_eq!(st["Slave_IO_Running"], "Connecting", "{st:?}");
    assert_eq!(st["Slave_SQL_Running"], "Yes", "{st:?}");
    assert!(
        st["Last_IO_Error"].starts_with(
            "error connecting to master 'repl@127.0.0.1:1' - retry-time: 1  maximum-retries: 100000  message: "
        ),
        "{st:?}"
    );
    c.query_drop("START SLAVE").expect("start when running");
    assert_eq!(warnings(&mut c)[0].1, 1254);
    assert_eq!(code(c.query_drop("CHANGE MASTER TO MASTER_PORT=2")), 1198);
    assert_eq!(code(c.query_drop("RESET SLAVE")), 1198);
    assert_eq!(code(c.query_drop("SET GLOBAL gtid_slave_pos = ''")), 1198);
    c.query_drop("STOP SLAVE IO_THREAD").expect("stop io");
    let st = slave_status_at(&r.url());
    assert_eq!(
        (
            st["Slave_IO_Running"].as_str(),
            st["Slave_SQL_Running"].as_str()
        ),
        ("No", "Yes")
    );
    c.query_drop("STOP SLAVE").expect("stop");
    let all: Option<mysql::Row> = c.query_first("SHOW ALL SLAVES STATUS").expect("all");
    let all = all.expect("a row");
    assert_eq!(all.columns_ref()[0].name_str(), "Connection_name");
    assert_eq!(all.columns_ref().len(), 62);

    // master.info survives a restart (replication starts with the server).
    drop(c);
    let mut r = r;
    r.restart(false);
    let st = slave_status_at(&r.url());
    assert_eq!(st["Master_Host"], "127.0.0.1");
    assert_eq!(st["Connect_Retry"], "1");
    let mut c = connect(&r.url());
    let pos: String = c
        .query_first("SELECT @@gtid_slave_pos")
        .expect("read")
        .expect("a value");
    assert_eq!(pos, "0-1-5,1-7-9", "gtid_slave_pos survives a restart");
    c.query_drop("STOP SLAVE").expect("stop after restart");
    c.query_drop("RESET SLAVE").expect("reset");
    let st = slave_status_at(&r.url());
    assert_eq!(
        st["Master_Host"], "127.0.0.1",
        "RESET SLAVE keeps the connection"
    );
    c.query_drop("RESET SLAVE ALL").expect("reset all");
    let none: Option<mysql::Row> = c.query_first("SHOW SLAVE STATUS").expect("status");
    assert!(none.is_none(), "RESET SLAVE ALL forgets the primary");
}

#[test]
fn same_server_id_and_conflicting_rows_stop_the_threads() {
    let primary = Primary::start(PrimaryKind::Basalt, 1);
    let same = replica(1);
    let mut c = connect(&same.url());
    c.query_drop(format!(
        "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={}, MASTER_USER='root'",
        primary.port()
    ))
    .expect("change master");
    c.query_drop("START SLAVE").expect("start");
    let st = wait_status(&same.url(), "Last_IO_Errno", "1593");
    assert_eq!(st["Slave_IO_Running"], "No", "{st:?}");
    assert!(
        st["Last_IO_Error"].contains("equal MariaDB server ids"),
        "{st:?}"
    );

    let r = replica(2);
    let mut p = primary.conn();
    p.query_drop("CREATE DATABASE d").expect("create database");
    p.query_drop("CREATE TABLE d.t (id INT PRIMARY KEY, v INT)")
        .expect("create table");
    let mut c = connect(&r.url());
    c.query_drop(format!(
        "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={}, MASTER_USER='root'",
        primary.port()
    ))
    .expect("change master");
    c.query_drop("START SLAVE").expect("start");
    wait_caught_up_at(&r.url(), &primary, Duration::from_secs(30));
    c.query_drop("INSERT INTO d.t VALUES (1, 100)")
        .expect("a row only the replica has");
    p.query_drop("INSERT INTO d.t VALUES (1, 1), (2, 2)")
        .expect("primary insert");
    let st = wait_status(&r.url(), "Last_SQL_Errno", "1062");
    assert_eq!(st["Slave_SQL_Running"], "No", "{st:?}");
    assert_eq!(st["Slave_IO_Running"], "Yes", "{st:?}");
    let (file, _) = primary.master_status();
    assert!(
        st["Last_SQL_Error"].starts_with(&format!(
            "Could not execute Write_rows_v1 event on table d.t; Duplicate entry '1' for key \
             'PRIMARY', Error_code: 1062; handler error HA_ERR_FOUND_DUPP_KEY; the event's \
             master log {file}, end_log_pos "
        )),
        "{st:?}"
    );
    assert_eq!(st["Last_Errno"], "1062");
    let rows: Vec<(i32, i32)> = c.query("SELECT id, v FROM d.t ORDER BY id").expect("rows");
    assert_eq!(rows, vec![(1, 100)], "the failed transaction left nothing");
    c.query_drop("DELETE FROM d.t")
        .expect("remove the conflict");
    c.query_drop("START SLAVE").expect("restart the SQL thread");
    wait_caught_up_at(&r.url(), &primary, Duration::from_secs(30));
    let rows: Vec<(i32, i32)> = c.query("SELECT id, v FROM d.t ORDER BY id").expect("rows");
    assert_eq!(rows, vec![(1, 1), (2, 2)]);
    let st = slave_status_at(&r.url());
    assert_eq!(
        st["Last_SQL_Errno"], "0",
        "START SLAVE clears the error: {st:?}"
    );
}

#[test]
fn exec_modes_overwrite_or_stop() {
    let primary = Primary::start(PrimaryKind::Basalt, 1);
    let r = replica(2);
    let mut p = primary.conn();
    p.query_drop("CREATE DATABASE d").expect("create database");
    p.query_drop("CREATE TABLE d.t (id INT PRIMARY KEY, v INT)")
        .expect("primary table");
    let mut c = connect(&r.url());
    c.query_drop("CREATE DATABASE d").expect("replica database");
    c.query_drop("CREATE TABLE d.t (x TEXT)")
        .expect("replica table");
    c.query_drop(format!(
        "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={}, MASTER_USER='root'",
        primary.port()
    ))
    .expect("change master");
    // slave_ddl_exec_mode=STRICT: the primary's CREATE DATABASE d fails here.
    c.query_drop("SET GLOBAL slave_ddl_exec_mode = STRICT")
        .expect("strict ddl");
    c.query_drop("START SLAVE").expect("start");
    let st = wait_status(&r.url(), "Last_SQL_Errno", "1007");
    assert_eq!(
        st["Last_SQL_Error"],
        "Error 'Can't create database 'd'; database exists' on query. Default database: ''. \
         Query: 'CREATE DATABASE d'",
        "{st:?}"
    );
    c.query_drop("STOP SLAVE").expect("stop");
    // IDEMPOTENT (MariaDB's default): CREATE DATABASE gets IF NOT EXISTS and
    // CREATE TABLE replaces the replica's table.
    c.query_drop("SET GLOBAL slave_ddl_exec_mode = IDEMPOTENT")
        .expect("idempotent ddl");
    c.query_drop("START SLAVE").expect("start");
    wait_caught_up_at(&r.url(), &primary, Duration::from_secs(30));
    let cols: Vec<String> = c
        .query(
            "SELECT column_name FROM information_schema.columns \
             WHERE table_schema='d' AND table_name='t' ORDER BY ordinal_position",
        )
        .expect("columns");
    assert_eq!(
        cols,
        vec!["id", "v"],
        "CREATE TABLE replaced the replica's table"
    );

    // slave_exec_mode=IDEMPOTENT: a row already there is overwritten, a missing
    // one passed over.
    c.query_drop("SET GLOBAL slave_exec_mode = IDEMPOTENT")
        .expect("idempotent");
    c.query_drop("STOP SLAVE").expect("stop");
    c.query_drop("START SLAVE")
        .expect("start with the new mode");
    c.query_drop("INSERT INTO d.t VALUES (1, 100)")
        .expect("replica-only row");
    p.query_drop("INSERT INTO d.t VALUES (1, 1), (2, 2)")
        .expect("primary rows");
    wait_caught_up_at(&r.url(), &primary, Duration::from_secs(30));
    c.query_drop("DELETE FROM d.t WHERE id = 2")
        .expect("replica loses a row");
    p.query_drop("DELETE FROM d.t WHERE id = 2")
        .expect("primary delete");
    p.query_drop("INSERT INTO d.t VALUES (3, 3)")
        .expect("primary insert");
    wait_caught_up_at(&r.url(), &primary, Duration::from_secs(30));
    let rows: Vec<(i32, i32)> = c.query("SELECT id, v FROM d.t ORDER BY id").expect("rows");
    assert_eq!(rows, vec![(1, 1), (3, 3)]);
}

/// MASTER_GTID_WAIT: 0 once `@@gtid_slave_pos` reaches the list (the rows are
/// visible when it returns), -1 after its timeout, NULL for a NULL list, 1941 for
/// a list that does not parse, 4079 for a number, and KILL QUERY ends a wait with
/// 1317, as MariaDB 10.11.
#[test]
fn master_gtid_wait_follows_the_applied_position() {
    let primary = Primary::start(PrimaryKind::Basalt, 1);
    let r = replica(2);
    let mut c = connect(&r.url());
    let one = |c: &mut Conn, q: &str| -> Option<i64> {
        c.query_first::<Option<i64>, _>(q).expect(q).expect("a row")
    };
    assert_eq!(one(&mut c, "SELECT master_gtid_wait('', 0)"), Some(0));
    assert_eq!(one(&mut c, "SELECT master_gtid_wait(NULL)"), None);
    assert_eq!(
        one(&mut c, "SELECT master_gtid_wait('0-1-1', 0.2)"),
        Some(-1)
    );
    assert_eq!(code(c.query_drop("SELECT master_gtid_wait('1-2')")), 1941);
    assert_eq!(code(c.query_drop("SELECT master_gtid_wait(5, 0)")), 4079);
    assert_eq!(
        one(&mut c, "SELECT master_gtid_wait('0-1-1', 'abc')"),
        Some(-1)
    );
    let w = warnings(&mut c);
    assert_eq!(w[0].1, 1292, "{w:?}");

    let mut p = primary.conn();
    p.query_drop("CREATE DATABASE d").expect("create database");
    p.query_drop("CREATE TABLE d.t (id INT PRIMARY KEY)")
        .expect("create table");
    let seq: u64 = primary
        .gtid_binlog_pos()
        .rsplit('-')
        .next()
        .and_then(|s| s.parse().ok())
        .expect("a sequence number");
    let target = format!("0-1-{}", seq + 5);
    let url = r.url();
    let waiter = std::thread::spawn(move || {
        let mut c = connect(&url);
        let got: Option<i64> = c
            .query_first(format!("SELECT master_gtid_wait('{target}', 60)"))
            .expect("wait");
        let rows: Option<u64> = c.query_first("SELECT COUNT(*) FROM d.t").expect("count");
        (got, rows)
    });
    c.query_drop(format!(
        "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={}, MASTER_USER='root'",
        primary.port()
    ))
    .expect("change master");
    c.query_drop("START SLAVE").expect("start");
    for i in 0..5 {
        p.query_drop(format!("INSERT INTO d.t VALUES ({i})"))
            .expect("insert");
    }
    assert_eq!(waiter.join().expect("waiter"), (Some(0), Some(5)));
    assert_eq!(
        one(&mut c, "SELECT master_gtid_wait('0-1-1,5-1-1', 0.1)"),
        Some(-1)
    );

    let url = r.url();
    let killed = std::thread::spawn(move || {
        let mut c = connect(&url);
        code(c.query_drop("SELECT master_gtid_wait('0-1-999999')"))
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let id = loop {
        let ids: Vec<(u64, Option<String>)> = c
            .query("SELECT id, info FROM information_schema.processlist")
            .expect("processlist");
        let waiting = ids
            .into_iter()
            .find(|(_, info)| info.as_deref().is_some_and(|i| i.contains("999999')")));
        if let Some((id, _)) = waiting {
            break id;
        }
        assert!(Instant::now() < deadline, "the wait never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    c.query_drop(format!("KILL QUERY {id}"))
        .expect("kill query");
    assert_eq!(killed.join().expect("killed waiter"), 1317);
}

/// START SLAVE UNTIL, as MariaDB 10.11: a file position stops the SQL thread
/// before the first transaction at or past it (the I/O thread goes on); a GTID
/// position stops both threads after the transaction that reaches it; the
/// condition shows in SHOW SLAVE STATUS; the next START SLAVE goes on from there;
/// MariaDB's notes and errors for the combinations it refuses.
#[test]
fn start_slave_until_stops_where_asked() {
    let primary = Primary::start(PrimaryKind::Basalt, 1);
    let mut p = primary.conn();
    p.query_drop("CREATE DATABASE d").expect("create database");
    p.query_drop("CREATE TABLE d.t (id INT PRIMARY KEY)")
        .expect("create table");
    let mut marks = Vec::new();
    for i in 1..=10 {
        p.query_drop(format!("INSERT INTO d.t VALUES ({i})"))
            .expect("insert");
        marks.push((primary.master_status(), primary.gtid_binlog_pos()));
    }
    let r = replica(2);
    let mut c = connect(&r.url());
    c.query_drop(format!(
        "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={}, MASTER_USER='root', \
         MASTER_CONNECT_RETRY=1",
        primary.port()
    ))
    .expect("change master");
    let count = |c: &mut Conn| -> u64 {
        c.query_first("SELECT COUNT(*) FROM d.t")
            .expect("count")
            .unwrap_or(0)
    };

    c.query_drop("START SLAVE IO_THREAD UNTIL MASTER_LOG_FILE='x.000001', MASTER_LOG_POS=4")
        .expect("io only");
    assert_eq!(warnings(&mut c)[0].1, 1279);
    c.query_drop("STOP SLAVE").expect("stop");
    let sql_only = "START SLAVE SQL_THREAD UNTIL MASTER_GTID_POS = '0-1-3'";
    assert_eq!(code(c.query_drop(sql_only)), 1277);

    let ((file, pos), _) = &marks[4];
    c.query_drop(format!(
        "START SLAVE UNTIL MASTER_LOG_FILE='{file}', MASTER_LOG_POS={pos}"
    ))
    .expect("until a file position");
    assert_eq!(warnings(&mut c)[0].1, 1278);
    let st = wait_status(&r.url(), "Slave_SQL_Running", "No");
    assert_eq!(count(&mut c), 5, "{st:?}");
    assert_eq!(st["Slave_IO_Running"], "Yes");
    assert_eq!(st["Last_SQL_Errno"], "0");
    assert_eq!(
        (
            &st["Until_Condition"],
            &st["Until_Log_File"],
            &st["Until_Log_Pos"]
        ),
        (&"Master".to_string(), file, &pos.to_string())
    );

    c.query_drop("STOP SLAVE").expect("stop");
    let (_, gtid8) = &marks[7];
    c.query_drop(format!("START SLAVE UNTIL MASTER_GTID_POS = '{gtid8}'"))
        .expect("until a GTID position");
    let st = wait_status(&r.url(), "Slave_SQL_Running", "No");
    let st = if st["Slave_IO_Running"] == "No" {
        st
    } else {
        wait_status(&r.url(), "Slave_IO_Running", "No")
    };
    assert_eq!(count(&mut c), 8, "{st:?}");
    assert_eq!(st["Until_Condition"], "Gtid");
    let pos: String = c
        .query_first("SELECT @@gtid_slave_pos")
        .expect("pos")
        .expect("a row");
    assert_eq!(&pos, gtid8);

    c.query_drop("START SLAVE")
        .expect("start without a condition");
    wait_caught_up_at(&r.url(), &primary, Duration::from_secs(30));
    assert_eq!(count(&mut c), 10);
    assert_eq!(slave_status_at(&r.url())["Until_Condition"], "None");
    c.query_drop("STOP SLAVE").expect("stop");
    c.query_drop("CHANGE MASTER TO MASTER_USE_GTID = no")
        .expect("file positions");
    assert_eq!(
        code(c.query_drop("START SLAVE UNTIL MASTER_GTID_POS = '0-1-3'")),
        1949
    );
    let relay = "START SLAVE UNTIL RELAY_LOG_FILE = 'r.000001', RELAY_LOG_POS = 4";
    assert_eq!(code(c.query_drop(relay)), 1235);
}
