//! Semi-synchronous replication with a MariaDB 10.11 replica started with
//! `--rpl-semi-sync-slave-enabled=ON`: while it follows, the primary's
//! `Rpl_semi_sync_master_status` is ON, `..._clients` is 1 and every commit is
//! acknowledged (`yes_tx`); with the replica stopped a commit waits
//! `rpl_semi_sync_master_timeout` (500 ms here), the status switches OFF and
//! commits count in `no_tx` without waiting; after START SLAVE the replica catches
//! up and the status is ON again; with `rpl_semi_sync_master_wait_point=AFTER_COMMIT`
//! commits are acknowledged as well, and with `rpl_semi_sync_master_wait_no_slave=OFF`
//! a commit with no replica connected does not wait and the status stays ON.
//!
//! The same check runs against a MariaDB primary (the oracle) and a Basalt primary.
//! Every wait is bounded.

use basalt_tests::binlog::{
    assert_same_contents, connect, contents, follow, wait_caught_up, Primary, PrimaryKind,
};
use basalt_tests::mariadb::{self, MariaDb};
use mysql::prelude::*;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

const DB: &str = "semi";
const TIMEOUT_MS: u64 = 500;
const BOUND: Duration = Duration::from_secs(30);

/// The primary's `Rpl_semi_sync_master_*` status, without the prefix.
fn status(c: &mut mysql::Conn) -> BTreeMap<String, String> {
    let rows: Vec<(String, String)> = c
        .query("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_%'")
        .expect("SHOW GLOBAL STATUS");
    rows.into_iter()
        .map(|(k, v)| (k.trim_start_matches("Rpl_semi_sync_master_").to_string(), v))
        .collect()
}

fn counter(c: &mut mysql::Conn, name: &str) -> u64 {
    let st = status(c);
    st.get(name)
        .unwrap_or_else(|| panic!("status {name} missing: {st:?}"))
        .parse()
        .expect("a number")
}

/// Waits (bounded) until status `name` is `want`.
fn wait_status(c: &mut mysql::Conn, name: &str, want: &str) {
    let deadline = Instant::now() + BOUND;
    loop {
        let st = status(c);
        if st.get(name).map(String::as_str) == Some(want) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "status {name} did not become {want} within {BOUND:?}: {st:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs `sql` and returns how long it took.
fn timed(c: &mut mysql::Conn, sql: &str) -> Duration {
    let t = Instant::now();
    c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    t.elapsed()
}

fn semisync_check(kind: PrimaryKind) {
    if !mariadb::available() {
        eprintln!("skipped: mariadb-server not installed");
        return;
    }
    let primary = Primary::start(kind, 1);
    let mut c = primary.conn();
    let vars: Vec<(String, String)> = c
        .query("SHOW VARIABLES LIKE 'rpl_semi_sync_master_%'")
        .expect("SHOW VARIABLES");
    let names: Vec<&str> = vars.iter().map(|(k, _)| k.as_str()).collect();
    for v in ["enabled", "timeout", "wait_no_slave", "wait_point"] {
        assert!(
            names.contains(&format!("rpl_semi_sync_master_{v}").as_str()),
            "{vars:?}"
        );
    }
    assert_eq!(
        status(&mut c).get("status").map(String::as_str),
        Some("OFF")
    );
    c.query_drop("SET GLOBAL rpl_semi_sync_master_enabled = ON")
        .expect("enable semi-sync");
    // A generous timeout while the replica connects and acknowledges.
    c.query_drop("SET GLOBAL rpl_semi_sync_master_timeout = 10000")
        .expect("timeout");
    wait_status(&mut c, "status", "ON");

    let replica = MariaDb::start(&[
        "--server-id=2",
        "--skip-slave-start",
        "--rpl-semi-sync-slave-enabled=ON",
    ]);
    follow(&replica, primary.port());
    wait_status(&mut c, "clients", "1");

    let yes = counter(&mut c, "yes_tx");
    c.query_drop(format!("CREATE DATABASE {DB}")).expect("db");
    c.query_drop(format!(
        "CREATE TABLE {DB}.t (id INT PRIMARY KEY, v VARCHAR(20))"
    ))
    .expect("table");
    for i in 0..5 {
        c.query_drop(format!("INSERT INTO {DB}.t VALUES ({i}, 'acked')"))
            .expect("insert");
    }
    let st = status(&mut c);
    assert_eq!(st["status"], "ON", "{st:?}");
    assert_eq!(
        counter(&mut c, "yes_tx"),
        yes + 7,
        "every commit acknowledged: {st:?}"
    );
    assert_eq!(st["no_tx"], "0", "{st:?}");

    // The replica goes: a commit waits the timeout, then semi-sync is off.
    c.query_drop(format!(
        "SET GLOBAL rpl_semi_sync_master_timeout = {TIMEOUT_MS}"
    ))
    .expect("timeout");
    let mut r = connect(&replica.url());
    r.query_drop("STOP SLAVE").expect("STOP SLAVE");
    wait_status(&mut c, "clients", "0");
    let no = counter(&mut c, "no_tx");
    let waited = timed(
        &mut c,
        &format!("INSERT INTO {DB}.t VALUES (10, 'timed out')"),
    );
    assert!(
        waited >= Duration::from_millis(TIMEOUT_MS * 9 / 10) && waited < BOUND,
        "the commit waited {waited:?}"
    );
    let st = status(&mut c);
    eprintln!("{kind:?}: a commit without a replica waited {waited:?}; then {st:?}");
    assert_eq!(st["status"], "OFF", "{st:?}");
    assert_eq!(counter(&mut c, "no_tx"), no + 1, "{st:?}");
    let quick = timed(&mut c, &format!("INSERT INTO {DB}.t VALUES (11, 'async')"));
    assert!(
        quick < Duration::from_millis(TIMEOUT_MS / 2),
        "off: no wait ({quick:?})"
    );
    assert_eq!(counter(&mut c, "no_tx"), no + 2);

    // Back: the replica catches up and semi-sync switches on again.
    r.query_drop("START SLAVE").expect("START SLAVE");
    wait_status(&mut c, "status", "ON");
    let yes = counter(&mut c, "yes_tx");
    c.query_drop(format!("INSERT INTO {DB}.t VALUES (12, 'acked again')"))
        .expect("insert");
    assert_eq!(counter(&mut c, "yes_tx"), yes + 1, "{:?}", status(&mut c));
    // AFTER_COMMIT waits for the acknowledgement too.
    c.query_drop("SET GLOBAL rpl_semi_sync_master_wait_point = AFTER_COMMIT")
        .expect("wait point");
    c.query_drop(format!("INSERT INTO {DB}.t VALUES (13, 'after commit')"))
        .expect("insert");
    assert_eq!(counter(&mut c, "yes_tx"), yes + 2, "{:?}", status(&mut c));
    let st = status(&mut c);
    eprintln!("{kind:?}: caught up again {st:?}");
    assert_eq!(st["status"], "ON");
    wait_caught_up(&replica, &primary, BOUND);
    assert_same_contents(
        "after semi-sync",
        &contents(&primary.url(), DB),
        &contents(&replica.url(), DB),
    );

    // rpl_semi_sync_master_wait_no_slave=OFF: with no semi-sync replica connected
    // a commit does not wait, and the status stays ON.
    c.query_drop("SET GLOBAL rpl_semi_sync_master_wait_no_slave = OFF")
        .expect("wait_no_slave");
    r.query_drop("STOP SLAVE").expect("STOP SLAVE");
    wait_status(&mut c, "clients", "0");
    let no = counter(&mut c, "no_tx");
    let quick = timed(
        &mut c,
        &format!("INSERT INTO {DB}.t VALUES (14, 'no replica')"),
    );
    assert!(
        quick < Duration::from_millis(TIMEOUT_MS / 2),
        "no wait ({quick:?})"
    );
    let st = status(&mut c);
    assert_eq!(
        (st["status"].as_str(), counter(&mut c, "no_tx")),
        ("ON", no + 1),
        "{st:?}"
    );
}

#[test]
#[ignore = "needs mariadb-server"]
fn semisync_with_a_mariadb_primary() {
    semisync_check(PrimaryKind::MariaDb);
}

#[test]
#[ignore = "needs mariadb-server"]
fn semisync_with_a_basalt_primary() {
    semisync_check(PrimaryKind::Basalt);
}

/// Runs `sql` on a connection of its own in a thread: (its connection id, the
/// thread, which returns whether the statement succeeded and how long it took).
fn in_thread(url: String, sql: String) -> (u64, std::thread::JoinHandle<(bool, Duration)>) {
    let mut c = connect(&url);
    let id: u64 = c
        .query_first("SELECT CONNECTION_ID()")
        .expect("connection id")
        .expect("a value");
    let t = std::thread::spawn(move || {
        let start = Instant::now();
        let ok = c.query_drop(&sql).is_ok();
        (ok, start.elapsed())
    });
    (id, t)
}

/// Waits (bounded) until connection `id` runs a statement starting with `prefix`.
fn wait_running(c: &mut mysql::Conn, id: u64, prefix: &str) {
    let deadline = Instant::now() + BOUND;
    loop {
        let info: Option<Option<String>> = c
            .query_first(format!(
                "SELECT info FROM information_schema.processlist WHERE id = {id}"
            ))
            .expect("processlist");
        if info.flatten().is_some_and(|i| i.starts_with(prefix)) {
            return;
        }
        assert!(Instant::now() < deadline, "{id} never ran {prefix}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A commit waiting for an ACK that never comes (the semi-sync replica stopped,
/// `wait_no_slave` ON, a long timeout) ends its wait when its session is killed:
/// after KILL QUERY the client gets OK, after KILL it loses the connection; the
/// row is committed either way, the commit counts in `no_tx`, the status stays ON.
fn kill_check(kind: PrimaryKind) {
    if !mariadb::available() {
        eprintln!("skipped: mariadb-server not installed");
        return;
    }
    let primary = Primary::start(kind, 1);
    let mut c = primary.conn();
    c.query_drop("SET GLOBAL rpl_semi_sync_master_enabled = ON")
        .expect("enable semi-sync");
    c.query_drop("SET GLOBAL rpl_semi_sync_master_timeout = 60000")
        .expect("timeout");
    let replica = MariaDb::start(&[
        "--server-id=2",
        "--skip-slave-start",
        "--rpl-semi-sync-slave-enabled=ON",
    ]);
    follow(&replica, primary.port());
    wait_status(&mut c, "clients", "1");
    c.query_drop(format!("CREATE DATABASE {DB}")).expect("db");
    c.query_drop(format!("CREATE TABLE {DB}.k (id INT PRIMARY KEY)"))
        .expect("table");
    let mut r = connect(&replica.url());
    r.query_drop("STOP SLAVE").expect("STOP SLAVE");
    wait_status(&mut c, "clients", "0");

    for (id, kill, client_ok) in [(1, "KILL QUERY", true), (2, "KILL", false)] {
        let no = counter(&mut c, "no_tx");
        let insert = format!("INSERT INTO {DB}.k VALUES ({id})");
        let (conn, t) = in_thread(primary.url(), insert);
        wait_running(&mut c, conn, "INSERT INTO");
        std::thread::sleep(Duration::from_millis(300));
        c.query_drop(format!("{kill} {conn}")).expect("kill");
        let (ok, took) = t.join().expect("the inserting thread");
        eprintln!("{kind:?}: {kill} during the wait: ok {ok} after {took:?}");
        assert_eq!(ok, client_ok, "{kind:?}: what the client of {kill} sees");
        assert!(took < Duration::from_secs(20), "{kill}: waited {took:?}");
        let n: Option<u64> = c
            .query_first(format!("SELECT COUNT(*) FROM {DB}.k WHERE id = {id}"))
            .expect("count");
        assert_eq!(n, Some(1), "{kind:?}: the commit of {kill} stands");
        // A killed connection's client is gone at once; its wait ends just after.
        wait_status(&mut c, "no_tx", &(no + 1).to_string());
        wait_status(&mut c, "wait_sessions", "0");
        let st = status(&mut c);
        assert_eq!(st["status"], "ON", "{kind:?}: {st:?}");
    }
    // A DDL statement's wait ends the same way.
    let no = counter(&mut c, "no_tx");
    let (conn, t) = in_thread(primary.url(), format!("CREATE TABLE {DB}.d (a INT)"));
    wait_running(&mut c, conn, "CREATE TABLE");
    std::thread::sleep(Duration::from_millis(300));
    c.query_drop(format!("KILL QUERY {conn}")).expect("kill");
    let (ok, took) = t.join().expect("the DDL's thread");
    eprintln!("{kind:?}: KILL QUERY during a DDL's wait: ok {ok} after {took:?}");
    assert!(ok, "{kind:?}: the DDL's client gets OK");
    assert!(took < Duration::from_secs(20), "DDL: waited {took:?}");
    let n: Option<u64> = c
        .query_first(format!(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '{DB}' \
             AND table_name = 'd'"
        ))
        .expect("count");
    assert_eq!(n, Some(1), "{kind:?}: the DDL stands");
    wait_status(&mut c, "no_tx", &(no + 1).to_string());
}

#[test]
#[ignore = "needs mariadb-server"]
fn kill_ends_a_semisync_wait_with_a_mariadb_primary() {
    kill_check(PrimaryKind::MariaDb);
}

#[test]
#[ignore = "needs mariadb-server"]
fn kill_ends_a_semisync_wait_with_a_basalt_primary() {
    kill_check(PrimaryKind::Basalt);
}
