//! Two- and three-session scenarios through the real server, one per rule of
//! concurrency control: what consistent reads see at each isolation level, what
//! locking reads and writes wait for, and how waits end (commit, timeout, deadlock,
//! NOWAIT, SKIP LOCKED, KILL). Each test starts its own server.

#[path = "isolation_common.rs"]
mod common;

use basalt_tests::Basalt;
use common::{Flavor, Session};
use std::time::{Duration, Instant};

fn sessions(b: &Basalt, n: usize) -> Vec<Session> {
    (0..n)
        .map(|_| Session::open(&b.url_db("test"), Flavor::Basalt))
        .collect()
}

fn rows(v: &[&[&str]]) -> Vec<Vec<String>> {
    v.iter()
        .map(|r| r.iter().map(|s| s.to_string()).collect())
        .collect()
}

fn setup(s: &mut Session, table: &str) {
    s.q(&format!("DROP TABLE IF EXISTS {table}"));
    s.q(&format!(
        "CREATE TABLE {table} (id INT PRIMARY KEY, v INT, k INT, KEY (k)) ENGINE=InnoDB"
    ));
    s.q(&format!(
        "INSERT INTO {table} VALUES (1, 10, 10), (2, 20, 20), (3, 30, 30)"
    ));
}

fn status(s: &mut Session, name: &str) -> u64 {
    let r = s.q(&format!("SHOW GLOBAL STATUS LIKE '{name}'"));
    r[0][1].parse().expect("number")
}

#[test]
fn repeatable_read_no_dirty_nonrepeatable_or_phantom_reads() {
    let b = Basalt::start();
    let mut s = sessions(&b, 3);
    setup(&mut s[0], "t");
    s[0].q("BEGIN");
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1"), "10");
    s[1].q("BEGIN");
    s[1].q("UPDATE t SET v = 11 WHERE id = 1");
    s[1].q("INSERT INTO t VALUES (4, 40, 15)");
    // No dirty read, and the read does not wait for the writer's lock.
    let started = Instant::now();
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1"), "10");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(s[0].val("SELECT COUNT(*) FROM t"), "3");
    s[1].q("COMMIT");
    // No non-repeatable read, no phantom (primary key and secondary index).
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1"), "10");
    assert_eq!(s[0].val("SELECT COUNT(*) FROM t"), "3");
    assert_eq!(
        s[0].q("SELECT id FROM t WHERE k BETWEEN 10 AND 20 ORDER BY k"),
        rows(&[&["1"], &["2"]])
    );
    // A third session sees the committed state.
    assert_eq!(s[2].val("SELECT COUNT(*) FROM t"), "4");
    s[0].q("COMMIT");
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1"), "11");
    assert_eq!(s[0].val("SELECT COUNT(*) FROM t"), "4");
}

#[test]
fn read_committed_read_uncommitted_and_consistent_snapshot() {
    let b = Basalt::start();
    let mut s = sessions(&b, 2);
    setup(&mut s[0], "t");
    // READ COMMITTED: a fresh snapshot per statement, still no dirty reads.
    s[0].q("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
    assert_eq!(s[0].val("SELECT @@transaction_isolation"), "READ-COMMITTED");
    assert_eq!(s[0].val("SELECT @@tx_isolation"), "READ-COMMITTED");
    s[0].q("BEGIN");
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1"), "10");
    s[1].q("UPDATE t SET v = 11 WHERE id = 1");
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1"), "11");
    s[1].q("INSERT INTO t VALUES (4, 40, 40)");
    assert_eq!(s[0].val("SELECT COUNT(*) FROM t"), "4");
    s[1].q("BEGIN");
    s[1].q("UPDATE t SET v = 12 WHERE id = 1");
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1"), "11");
    s[0].q("COMMIT");
    // READ UNCOMMITTED sees the uncommitted change.
    s[0].q("SET SESSION transaction_isolation = 'READ-UNCOMMITTED'");
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1"), "12");
    s[1].q("ROLLBACK");
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1"), "11");
    // REPEATABLE READ: the snapshot is taken at the first read...
    s[0].q("SET SESSION tx_isolation = 'REPEATABLE-READ'");
    s[0].q("BEGIN");
    s[1].q("UPDATE t SET v = 13 WHERE id = 1");
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1"), "13");
    s[0].q("COMMIT");
    // ...or at START TRANSACTION WITH CONSISTENT SNAPSHOT.
    s[0].q("START TRANSACTION WITH CONSISTENT SNAPSHOT");
    s[1].q("UPDATE t SET v = 14 WHERE id = 1");
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1"), "13");
    s[0].q("COMMIT");
    // READ ONLY refuses writes; READ WRITE allows them.
    s[0].q("START TRANSACTION READ ONLY");
    assert_eq!(s[0].err("UPDATE t SET v = 0 WHERE id = 1"), 1792);
    s[0].q("COMMIT");
    s[0].q("START TRANSACTION READ WRITE");
    s[0].q("UPDATE t SET v = 15 WHERE id = 1");
    s[0].q("COMMIT");
    // GLOBAL sets the default of new sessions.
    s[0].q("SET GLOBAL TRANSACTION ISOLATION LEVEL SERIALIZABLE");
    let mut fresh = Session::open(&b.url_db("test"), Flavor::Basalt);
    assert_eq!(fresh.val("SELECT @@transaction_isolation"), "SERIALIZABLE");
    assert_eq!(
        s[1].val("SELECT @@transaction_isolation"),
        "REPEATABLE-READ"
    );
    s[0].q("SET GLOBAL TRANSACTION ISOLATION LEVEL REPEATABLE READ");
}

#[test]
fn serializable_reads_lock_and_stop_write_skew() {
    let b = Basalt::start();
    let mut s = sessions(&b, 2);
    s[0].q("CREATE TABLE oncall (id INT PRIMARY KEY, on_call INT)");
    s[0].q("INSERT INTO oncall VALUES (1, 1), (2, 1)");
    // REPEATABLE READ allows write skew, as InnoDB does.
    for x in &mut s {
        x.q("BEGIN");
        assert_eq!(x.val("SELECT COUNT(*) FROM oncall WHERE on_call = 1"), "2");
    }
    s[0].q("UPDATE oncall SET on_call = 0 WHERE id = 1");
    s[1].q("UPDATE oncall SET on_call = 0 WHERE id = 2");
    s[0].q("COMMIT");
    s[1].q("COMMIT");
    assert_eq!(s[0].val("SELECT SUM(on_call) FROM oncall"), "0");
    // SERIALIZABLE: plain reads take shared locks, so one of the two must lose.
    s[0].q("UPDATE oncall SET on_call = 1");
    for x in &mut s {
        x.q("SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE");
        x.q("BEGIN");
        assert_eq!(x.val("SELECT COUNT(*) FROM oncall WHERE on_call = 1"), "2");
    }
    s[0].send_blocked("UPDATE oncall SET on_call = 0 WHERE id = 1");
    assert_eq!(s[1].err("UPDATE oncall SET on_call = 0 WHERE id = 2"), 1213);
    s[0].wait().expect("the survivor's update");
    s[0].q("COMMIT");
    assert_eq!(s[1].val("SELECT SUM(on_call) FROM oncall"), "1");
}

#[test]
fn lost_updates_prevented_and_snapshot_isolation() {
    let b = Basalt::start();
    let mut s = sessions(&b, 3);
    setup(&mut s[0], "t");
    // Concurrent increments never lose one.
    let url = b.url_db("test");
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || {
                let mut c = common::connect(&url);
                for _ in 0..50 {
                    common::run(&mut c, "UPDATE t SET v = v + 1 WHERE id = 3").expect("incr");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("thread");
    }
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 3"), "230");
    // Snapshot isolation (default ON): writing a row changed after the snapshot
    // fails with 1020 and rolls the transaction back.
    assert_eq!(s[0].val("SELECT @@innodb_snapshot_isolation"), "1");
    s[0].q("BEGIN");
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1"), "10");
    s[0].q("UPDATE t SET v = 21 WHERE id = 2");
    s[1].q("UPDATE t SET v = v + 1 WHERE id = 1");
    assert_eq!(s[0].err("UPDATE t SET v = 10 + 5 WHERE id = 1"), 1020);
    assert_eq!(
        s[0].val("SELECT v FROM t WHERE id = 2"),
        "20",
        "rolled back"
    );
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1"), "11");
    // A locking read of such a row fails too, at once even while its writer is open.
    s[0].q("BEGIN");
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1"), "11");
    s[1].q("BEGIN");
    s[1].q("UPDATE t SET v = 12 WHERE id = 1");
    assert_eq!(s[0].err("SELECT v FROM t WHERE id = 1 FOR UPDATE"), 1020);
    s[1].q("COMMIT");
    // OFF: MySQL's classic behaviour, the read-modify-write loses an update...
    s[0].q("SET SESSION innodb_snapshot_isolation = OFF");
    s[0].q("BEGIN");
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1"), "12");
    s[1].q("UPDATE t SET v = v + 1 WHERE id = 1");
    s[0].q("UPDATE t SET v = 12 + 1 WHERE id = 1");
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1 FOR UPDATE"), "13");
    s[0].q("COMMIT");
    // ...unless the read is a locking read: the other writer waits.
    s[0].q("BEGIN");
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1 FOR UPDATE"), "13");
    s[1].send_blocked("UPDATE t SET v = v + 1 WHERE id = 1");
    s[0].q("UPDATE t SET v = 13 + 1 WHERE id = 1");
    s[0].q("COMMIT");
    s[1].wait().expect("update after the lock");
    assert_eq!(s[2].val("SELECT v FROM t WHERE id = 1"), "15");
}

#[test]
fn lock_wait_timeout_rolls_back_the_statement() {
    let b = Basalt::start();
    let mut s = sessions(&b, 2);
    setup(&mut s[0], "t");
    s[0].q("BEGIN");
    s[0].q("UPDATE t SET v = 100 WHERE id = 1");
    s[1].q("SET SESSION innodb_lock_wait_timeout = 1");
    s[1].q("BEGIN");
    s[1].q("UPDATE t SET v = 200 WHERE id = 2");
    let started = Instant::now();
    // A multi-row statement: its change of row 3 is undone with it.
    assert_eq!(s[1].err("UPDATE t SET v = v + 1 WHERE id IN (3, 1)"), 1205);
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(900), "{waited:?}");
    assert!(waited < Duration::from_secs(10), "{waited:?}");
    assert_eq!(s[1].val("SELECT v FROM t WHERE id = 3"), "30");
    // The transaction goes on (innodb_rollback_on_timeout is off).
    assert_eq!(s[1].val("SELECT v FROM t WHERE id = 2"), "200");
    s[1].q("COMMIT");
    s[0].q("COMMIT");
    assert_eq!(s[1].val("SELECT v FROM t WHERE id = 2"), "200");
    assert!(status(&mut s[0], "Innodb_row_lock_timeouts") >= 1);
    assert_eq!(s[0].val("SELECT @@innodb_rollback_on_timeout"), "0");
}

#[test]
fn rollback_on_timeout_rolls_back_the_transaction() {
    let b = Basalt::start_with(&["--innodb-rollback-on-timeout"]);
    let mut s = sessions(&b, 2);
    setup(&mut s[0], "t");
    assert_eq!(s[0].val("SELECT @@innodb_rollback_on_timeout"), "1");
    s[0].q("BEGIN");
    s[0].q("UPDATE t SET v = 100 WHERE id = 1");
    s[1].q("SET SESSION innodb_lock_wait_timeout = 1");
    s[1].q("BEGIN");
    s[1].q("UPDATE t SET v = 200 WHERE id = 2");
    assert_eq!(s[1].err("UPDATE t SET v = 0 WHERE id = 1"), 1205);
    assert_eq!(s[1].val("SELECT v FROM t WHERE id = 2"), "20");
    s[0].q("COMMIT");
}

#[test]
fn deadlocks_are_detected_at_once() {
    let b = Basalt::start();
    let mut s = sessions(&b, 3);
    setup(&mut s[0], "t");
    let before = status(&mut s[0], "Innodb_deadlocks");
    s[0].q("BEGIN");
    s[0].q("UPDATE t SET v = 11 WHERE id = 1");
    s[1].q("BEGIN");
    s[1].q("UPDATE t SET v = 21 WHERE id = 2");
    s[0].send_blocked("UPDATE t SET v = 12 WHERE id = 2");
    let started = Instant::now();
    assert_eq!(s[1].err("UPDATE t SET v = 22 WHERE id = 1"), 1213);
    assert!(started.elapsed() < Duration::from_secs(5));
    // The victim's transaction is rolled back, so the other goes on.
    s[0].wait().expect("survivor");
    s[0].q("COMMIT");
    assert_eq!(
        s[1].q("SELECT v FROM t WHERE id IN (1, 2) ORDER BY id"),
        rows(&[&["11"], &["12"]])
    );
    // A cycle through three sessions.
    for (i, x) in s.iter_mut().enumerate() {
        x.q("BEGIN");
        x.q(&format!("SELECT v FROM t WHERE id = {} FOR UPDATE", i + 1));
    }
    s[0].send_blocked("SELECT v FROM t WHERE id = 2 FOR UPDATE");
    s[1].send_blocked("SELECT v FROM t WHERE id = 3 FOR UPDATE");
    assert_eq!(s[2].err("SELECT v FROM t WHERE id = 1 FOR UPDATE"), 1213);
    assert_eq!(s[1].wait().expect("s1 gets 3"), rows(&[&["30"]]));
    s[1].q("COMMIT");
    assert_eq!(s[0].wait().expect("s0 gets 2"), rows(&[&["12"]]));
    s[0].q("COMMIT");
    assert_eq!(status(&mut s[0], "Innodb_deadlocks"), before + 2);
}

#[test]
fn nowait_skip_locked_and_shared_locks() {
    let b = Basalt::start();
    let mut s = sessions(&b, 3);
    setup(&mut s[0], "t");
    s[0].q("BEGIN");
    s[0].q("SELECT * FROM t WHERE id = 1 FOR UPDATE");
    s[1].q("BEGIN");
    let started = Instant::now();
    assert_eq!(
        s[1].err("SELECT * FROM t WHERE id = 1 FOR UPDATE NOWAIT"),
        1205
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(
        s[1].q("SELECT id FROM t ORDER BY id FOR UPDATE SKIP LOCKED"),
        rows(&[&["2"], &["3"]])
    );
    // A third session skips the rows of both.
    assert_eq!(
        s[2].q("SELECT id FROM t FOR UPDATE SKIP LOCKED"),
        Vec::<Vec<String>>::new()
    );
    s[1].q("COMMIT");
    s[0].q("COMMIT");
    // Shared locks: compatible with each other, not with exclusive ones.
    s[0].q("BEGIN");
    s[0].q("SELECT * FROM t WHERE id = 1 LOCK IN SHARE MODE");
    s[1].q("BEGIN");
    s[1].q("SELECT * FROM t WHERE id = 1 FOR SHARE");
    assert_eq!(
        s[2].err("SELECT * FROM t WHERE id = 1 FOR UPDATE NOWAIT"),
        1205
    );
    s[2].send_blocked("DELETE FROM t WHERE id = 1");
    s[0].q("COMMIT");
    assert!(
        s[2].poll_until_waiting().is_none(),
        "still waits for the second"
    );
    s[1].q("COMMIT");
    s[2].wait().expect("delete");
    assert_eq!(s[0].val("SELECT COUNT(*) FROM t"), "2");
}

#[test]
fn gap_locks_stop_phantom_inserts_under_repeatable_read() {
    let b = Basalt::start();
    let mut s = sessions(&b, 2);
    setup(&mut s[0], "t");
    s[0].q("INSERT INTO t VALUES (5, 50, 50)");
    s[0].q("BEGIN");
    assert_eq!(
        s[0].q("SELECT id FROM t FORCE INDEX (k) WHERE k BETWEEN 10 AND 20 FOR UPDATE"),
        rows(&[&["1"], &["2"]])
    );
    // Into the range, and into the gap up to the next entry (k = 30): waits.
    s[1].send_blocked("INSERT INTO t VALUES (6, 0, 15)");
    // The locking read sees no phantom.
    assert_eq!(
        s[0].val("SELECT COUNT(*) FROM t FORCE INDEX (k) WHERE k BETWEEN 10 AND 20 FOR UPDATE"),
        "2"
    );
    s[0].q("COMMIT");
    s[1].wait().expect("insert after commit");
    // Past the next entry the insert does not wait.
    s[0].q("BEGIN");
    s[0].q("SELECT id FROM t FORCE INDEX (k) WHERE k BETWEEN 10 AND 20 FOR UPDATE");
    s[1].q("INSERT INTO t VALUES (7, 0, 40)");
    s[1].send_blocked("INSERT INTO t VALUES (8, 0, 25)");
    s[0].q("COMMIT");
    s[1].wait().expect("insert");
    // READ COMMITTED takes no gap locks.
    s[0].q("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
    s[0].q("BEGIN");
    s[0].q("SELECT id FROM t FORCE INDEX (k) WHERE k BETWEEN 10 AND 20 FOR UPDATE");
    s[1].q("INSERT INTO t VALUES (9, 0, 16)");
    s[0].q("COMMIT");
    s[0].q("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    // A missing key: both sessions may lock its gap, then inserting deadlocks,
    // exactly as in InnoDB.
    s[0].q("BEGIN");
    s[1].q("BEGIN");
    assert!(s[0]
        .q("SELECT * FROM t WHERE id = 100 FOR UPDATE")
        .is_empty());
    assert!(s[1]
        .q("SELECT * FROM t WHERE id = 100 FOR UPDATE")
        .is_empty());
    s[0].send_blocked("INSERT INTO t VALUES (100, 0, 0)");
    assert_eq!(s[1].err("INSERT INTO t VALUES (100, 0, 0)"), 1213);
    s[0].wait().expect("insert");
    s[0].q("COMMIT");
    // UPDATE of a range locks the gaps too.
    s[0].q("BEGIN");
    s[0].q("UPDATE t SET v = v + 1 WHERE id > 50");
    s[1].send_blocked("INSERT INTO t VALUES (200, 0, 0)");
    s[0].q("ROLLBACK");
    s[1].wait().expect("insert");
}

#[test]
fn kill_ends_waiting_and_running_statements() {
    let b = Basalt::start();
    let mut s = sessions(&b, 3);
    setup(&mut s[0], "t");
    s[0].q("BEGIN");
    s[0].q("UPDATE t SET v = 11 WHERE id = 1");
    s[1].send_blocked("UPDATE t SET v = 12 WHERE id = 1");
    // The process list shows who waits, and on what.
    let list = s[2].q("SHOW FULL PROCESSLIST");
    let me = s[1].id.to_string();
    let row = list.iter().find(|r| r[0] == me).expect("waiter listed");
    assert_eq!(row[6], "Waiting for row lock", "{row:?}");
    assert_eq!(row[7], "UPDATE t SET v = 12 WHERE id = 1");
    let n = s[2].val(&format!(
        "SELECT COUNT(*) FROM information_schema.PROCESSLIST \
         WHERE ID = {me} AND STATE = 'Waiting for row lock'"
    ));
    assert_eq!(n, "1");
    assert!(status(&mut s[2], "Innodb_row_lock_current_waits") >= 1);
    s[2].q(&format!("KILL QUERY {me}"));
    assert_eq!(s[1].wait(), Err(1317));
    // The session goes on.
    assert_eq!(s[1].val("SELECT v FROM t WHERE id = 2"), "20");
    // KILL ends a waiting connection.
    s[1].send_blocked("UPDATE t SET v = 12 WHERE id = 1");
    s[2].q(&format!("KILL {me}"));
    let r = s[1].wait();
    assert!(matches!(r, Err(1927) | Err(2013) | Err(1317)), "{r:?}");
    s[0].q("COMMIT");
    // KILL QUERY ends a running statement.
    s[0].q("CREATE TABLE big (a INT PRIMARY KEY)");
    let values: Vec<String> = (0..300).map(|i| format!("({i})")).collect();
    s[0].q(&format!("INSERT INTO big VALUES {}", values.join(",")));
    let id = s[0].id;
    s[0].send("SELECT COUNT(*) FROM big x, big y, big z WHERE x.a + y.a + z.a = -1");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let n = s[2].val(&format!(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = {id} AND INFO LIKE 'SELECT COUNT%'"
        ));
        if n == "1" {
            break;
        }
        assert!(Instant::now() < deadline, "query never seen running");
        std::thread::sleep(Duration::from_millis(20));
    }
    s[2].q(&format!("KILL QUERY {id}"));
    assert_eq!(s[0].wait(), Err(1317));
}

#[test]
fn long_snapshot_holds_history_until_it_ends() {
    let b = Basalt::start();
    let mut s = sessions(&b, 2);
    setup(&mut s[0], "t");
    s[0].q("START TRANSACTION WITH CONSISTENT SNAPSHOT");
    for i in 0..200 {
        s[1].q(&format!("UPDATE t SET v = {i} WHERE id = 1"));
    }
    assert!(status(&mut s[1], "Innodb_history_list_length") >= 150);
    assert!(status(&mut s[1], "Basalt_undo_versions") >= 200);
    assert!(status(&mut s[1], "Basalt_undo_bytes") > 0);
    assert_eq!(s[0].val("SELECT v FROM t WHERE id = 1"), "10");
    s[0].q("COMMIT");
    let deadline = Instant::now() + Duration::from_secs(20);
    while status(&mut s[1], "Basalt_undo_versions") > 0 {
        assert!(Instant::now() < deadline, "history not purged");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(status(&mut s[1], "Innodb_history_list_length"), 0);
}

/// A prepared statement waiting for a lock shows its SQL text in the process list,
/// as MySQL shows it.
#[test]
fn process_list_shows_prepared_statement_text() {
    use mysql::prelude::Queryable;
    let b = Basalt::start();
    let mut s = sessions(&b, 2);
    setup(&mut s[0], "t");
    s[0].q("BEGIN");
    s[0].q("UPDATE t SET v = 11 WHERE id = 1");
    let url = b.url_db("test");
    let waiter = std::thread::spawn(move || {
        let mut c = common::connect(&url);
        c.exec_drop("UPDATE t SET v = ? WHERE id = ?", (13, 1))
            .expect("prepared update");
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let info = loop {
        let r = s[1].q("SELECT INFO FROM information_schema.PROCESSLIST \
             WHERE STATE = 'Waiting for row lock'");
        if let Some(row) = r.first() {
            break row[0].clone();
        }
        assert!(
            Instant::now() < deadline,
            "the prepared UPDATE never waited"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(info, "UPDATE t SET v = ? WHERE id = ?");
    s[0].q("COMMIT");
    waiter.join().expect("waiter");
    assert_eq!(s[1].val("SELECT v FROM t WHERE id = 1"), "13");
}
