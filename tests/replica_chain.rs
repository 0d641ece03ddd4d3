//! `log_slave_updates` switched on at runtime, and a chain primary -> Basalt ->
//! Basalt: the middle replica logs what it applies from then on with the
//! primary's GTIDs (domain-server-seq) and server id, so the last replica, which
//! follows the middle one, ends identical to the primary for everything written
//! after the switch, with `@@gtid_slave_pos` equal to the primary's
//! `@@gtid_binlog_pos`. What the middle applied before the switch is not in its
//! binary log; switching off again stops the logging at the next transaction.
//!
//! Also `slave_exec_mode` changed while the SQL thread runs (IDEMPOTENT passes
//! over a row the replica lacks (1032) or already has (1062), STRICT stops with
//! MariaDB's error), and `--slave-skip-errors`.

use basalt_tests::binlog::{
    assert_same_contents, connect, contents, slave_status_at, wait_caught_up_at,
    BasaltNode as Node, Primary, PrimaryKind,
};
use mysql::prelude::*;
use mysql::Conn;
use std::time::{Duration, Instant};

const CATCH_UP: Duration = Duration::from_secs(60);

/// Points `node` at the primary on `port` and starts replicating.
fn follow(node: &Node, port: u16) -> Conn {
    let mut c = node.conn();
    c.query_drop(format!(
        "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={port}, \
         MASTER_USER='root', MASTER_CONNECT_RETRY=1"
    ))
    .expect("CHANGE MASTER TO");
    c.query_drop("START SLAVE").expect("START SLAVE");
    c
}

fn text(c: &mut Conn, q: &str) -> String {
    c.query_first::<Option<String>, _>(q)
        .expect(q)
        .flatten()
        .unwrap_or_default()
}

/// Waits until `@@gtid_slave_pos` at `url` is `want` (bounded).
fn wait_pos(url: &str, want: &str) {
    let mut c = connect(url);
    let deadline = Instant::now() + CATCH_UP;
    loop {
        let got = text(&mut c, "SELECT @@gtid_slave_pos");
        if got == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{url} at {got}, not {want}: {:?}",
            slave_status_at(url)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_chain_through_a_replica_logging_at_runtime() {
    let primary = Primary::start(PrimaryKind::Basalt, 1);
    let middle = Node::start(2, &["--log-bin"]);
    let last = Node::start(3, &["--log-slave-updates"]);
    let mut p = primary.conn();
    let mut m = follow(&middle, primary.port());
    assert_eq!(text(&mut m, "SELECT @@log_slave_updates"), "0");
    p.query_drop("CREATE DATABASE early").expect("early db");
    p.query_drop("CREATE TABLE early.t (id INT PRIMARY KEY)")
        .expect("early table");
    p.query_drop("INSERT INTO early.t VALUES (1)")
        .expect("early row");
    wait_caught_up_at(&middle.url(), &primary, CATCH_UP);
    assert_eq!(
        text(&mut m, "SELECT @@gtid_binlog_pos"),
        "",
        "nothing logged yet"
    );

    m.query_drop("SET GLOBAL log_slave_updates = ON")
        .expect("switch on while running");
    assert_eq!(text(&mut m, "SELECT @@log_replica_updates"), "1");
    p.query_drop("CREATE DATABASE chain").expect("db");
    p.query_drop("CREATE TABLE chain.t (id INT PRIMARY KEY, v VARCHAR(30), n INT)")
        .expect("table");
    for i in 0..200 {
        p.query_drop(format!(
            "INSERT INTO chain.t VALUES ({i}, 'row {i}', {i}); \
             UPDATE chain.t SET n = n + 1 WHERE id = {}",
            i / 2
        ))
        .expect("write");
    }
    p.query_drop("BEGIN; DELETE FROM chain.t WHERE id % 5 = 0; INSERT INTO chain.t VALUES (1000, 'big', 0); COMMIT")
        .expect("multi-statement transaction");
    wait_caught_up_at(&middle.url(), &primary, CATCH_UP);
    let primary_pos = primary.gtid_binlog_pos();
    assert_eq!(
        text(&mut m, "SELECT @@gtid_binlog_pos"),
        primary_pos,
        "the middle logged the primary's GTIDs"
    );
    let server_ids: Vec<u32> = m
        .query("SHOW BINLOG EVENTS")
        .expect("events")
        .into_iter()
        .map(|row: mysql::Row| row.get::<u32, _>("Server_id").expect("Server_id"))
        .collect();
    assert!(
        server_ids.contains(&1),
        "events carry the primary's server id"
    );
    assert!(!server_ids.contains(&3));

    let mut l = follow(&last, middle.server.port);
    assert_eq!(
        text(&mut l, "SELECT @@log_slave_updates"),
        "1",
        "set at start"
    );
    wait_pos(&last.url(), &primary_pos);
    assert_same_contents(
        "the last replica",
        &contents(&primary.url(), "chain"),
        &contents(&last.url(), "chain"),
    );
    let dbs: Vec<String> = l.query("SHOW DATABASES").expect("databases");
    assert!(
        !dbs.contains(&"early".to_string()),
        "applied before the switch"
    );

    m.query_drop("SET GLOBAL log_slave_updates = OFF")
        .expect("off");
    p.query_drop("INSERT INTO chain.t VALUES (2000, 'not relayed', 0)")
        .expect("write after off");
    wait_caught_up_at(&middle.url(), &primary, CATCH_UP);
    assert_eq!(
        text(&mut m, "SELECT @@gtid_binlog_pos"),
        primary_pos,
        "no longer logged"
    );
    assert_eq!(
        l.query_first::<u64, _>("SELECT COUNT(*) FROM chain.t WHERE id = 2000")
            .expect("count"),
        Some(0)
    );
}

#[test]
fn exec_mode_switches_while_running_and_skip_errors() {
    let primary = Primary::start(PrimaryKind::Basalt, 1);
    let strict = Node::start(2, &[]);
    let skipping = Node::start(4, &["--slave-skip-errors=1062,1032"]);
    let mut p = primary.conn();
    p.query_drop("CREATE DATABASE d").expect("db");
    p.query_drop("CREATE TABLE d.t (id INT PRIMARY KEY, v INT)")
        .expect("table");
    let mut r = follow(&strict, primary.port());
    let mut s = follow(&skipping, primary.port());
    assert_eq!(text(&mut s, "SELECT @@slave_skip_errors"), "1032,1062");
    wait_caught_up_at(&strict.url(), &primary, CATCH_UP);
    wait_caught_up_at(&skipping.url(), &primary, CATCH_UP);
    for c in [&mut r, &mut s] {
        c.query_drop("INSERT INTO d.t VALUES (1, 100), (5, 500)")
            .expect("replica-only rows");
    }

    // IDEMPOTENT set while the SQL thread runs: from the next transaction.
    r.query_drop("SET GLOBAL slave_exec_mode = IDEMPOTENT")
        .expect("idempotent");
    p.query_drop("INSERT INTO d.t VALUES (1, 1), (2, 2)")
        .expect("dup");
    p.query_drop("UPDATE d.t SET v = 33 WHERE id = 2")
        .expect("update");
    p.query_drop("INSERT INTO d.t VALUES (3, 3)")
        .expect("row 3");
    wait_caught_up_at(&strict.url(), &primary, CATCH_UP);
    wait_caught_up_at(&skipping.url(), &primary, CATCH_UP);
    r.query_drop("DELETE FROM d.t WHERE id = 3")
        .expect("replica loses 3");
    s.query_drop("DELETE FROM d.t WHERE id = 3")
        .expect("replica loses 3");
    p.query_drop("UPDATE d.t SET v = 4 WHERE id = 3")
        .expect("1032 on the replicas");
    p.query_drop("INSERT INTO d.t VALUES (6, 6)")
        .expect("row 6");
    wait_caught_up_at(&strict.url(), &primary, CATCH_UP);
    wait_caught_up_at(&skipping.url(), &primary, CATCH_UP);
    let rows = |c: &mut Conn| -> Vec<(i64, i64)> {
        c.query("SELECT id, v FROM d.t ORDER BY id").expect("rows")
    };
    // IDEMPOTENT: the primary's row 1 overwrote the replica's.
    assert_eq!(rows(&mut r), vec![(1, 1), (2, 33), (5, 500), (6, 6)]);
    // slave_skip_errors: the duplicate event was passed over whole (its first
    // row failed), so neither 1 nor 2 changed and the UPDATE of 2 found nothing.
    assert_eq!(rows(&mut s), vec![(1, 100), (5, 500), (6, 6)]);

    // Back to STRICT while running: the next duplicate stops the thread.
    r.query_drop("SET GLOBAL slave_exec_mode = STRICT")
        .expect("strict");
    p.query_drop("INSERT INTO d.t VALUES (5, 5)")
        .expect("dup 5");
    let deadline = Instant::now() + CATCH_UP;
    let st = loop {
        let st = slave_status_at(&strict.url());
        if st["Slave_SQL_Running"] == "No" {
            break st;
        }
        assert!(Instant::now() < deadline, "STRICT never stopped: {st:?}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(st["Last_SQL_Errno"], "1062", "{st:?}");
    assert!(
        st["Last_SQL_Error"].starts_with(
            "Could not execute Write_rows_v1 event on table d.t; Duplicate entry '5' for key \
             'PRIMARY', Error_code: 1062; handler error HA_ERR_FOUND_DUPP_KEY;"
        ),
        "{st:?}"
    );
    wait_caught_up_at(&skipping.url(), &primary, CATCH_UP);
    assert_eq!(rows(&mut s), vec![(1, 100), (5, 500), (6, 6)]);
}
