//! A Basalt replica following a primary (a Basalt one, and a MariaDB 10.11 one as
//! the reference primary) with `CHANGE MASTER TO ... ; START SLAVE`: from an empty
//! start through DDL, every column type, multi-statement and rolled-back
//! transactions, a 20,000-row transaction, a primary restart, a clean replica
//! restart (replication starts with the server) and `STOP SLAVE` / `START SLAVE`
//! with writes in between; then kill -9 of the replica under a write load, several
//! times, converging each time with no transaction lost or applied twice. After
//! each phase `@@gtid_slave_pos` must reach the primary's `@@gtid_binlog_pos`
//! (bounded wait) and every table must hold the same rows on both.

use basalt_tests::binlog::{
    assert_same_contents, connect, contents, slave_status_at, wait_caught_up_at, Primary,
    PrimaryKind,
};
use basalt_tests::binlog_workload::{base_workload, Workload, DB};
use basalt_tests::{free_port, mariadb, Basalt};
use mysql::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const CATCH_UP: Duration = Duration::from_secs(60);

/// A Basalt replica with its own data directory and server id 2.
struct Replica {
    server: Basalt,
    _dir: tempfile::TempDir,
}

impl Replica {
    fn start() -> Replica {
        let dir = tempfile::tempdir().expect("tempdir for the replica");
        let port = free_port().to_string();
        let args = [
            "--port",
            port.as_str(),
            "--bind-address",
            "127.0.0.1",
            "--server-id=2",
        ];
        let server = Basalt::launch_bare(&dir.path().join("data"), &args);
        Replica { server, _dir: dir }
    }

    fn url(&self) -> String {
        self.server.url()
    }

    fn follow(&self, primary: &Primary) {
        let mut c = connect(&self.url());
        c.query_drop(format!(
            "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={}, MASTER_USER='root', \
             MASTER_PASSWORD='', MASTER_CONNECT_RETRY=1",
            primary.port()
        ))
        .expect("CHANGE MASTER TO");
        c.query_drop("START SLAVE").expect("START SLAVE");
    }

    fn same(&self, what: &str, primary: &Primary) {
        wait_caught_up_at(&self.url(), primary, CATCH_UP);
        assert_same_contents(
            what,
            &contents(&primary.url(), DB),
            &contents(&self.url(), DB),
        );
    }
}

/// One transaction inserting `rows` rows into a new table `big`, 1,000 per statement.
fn big_transaction(c: &mut mysql::Conn, rows: usize) {
    c.query_drop(
        "CREATE TABLE big (id INT NOT NULL PRIMARY KEY, v VARCHAR(40) NOT NULL, d DOUBLE)",
    )
    .expect("create big");
    c.query_drop("BEGIN").expect("begin");
    for chunk in (0..rows).collect::<Vec<_>>().chunks(1000) {
        let values: Vec<String> = chunk
            .iter()
            .map(|i| format!("({i}, 'row {i} of the big transaction', {i}.25)"))
            .collect();
        c.query_drop(format!("INSERT INTO big VALUES {}", values.join(",")))
            .expect("insert into big");
    }
    c.query_drop("COMMIT").expect("commit big");
}

fn follow_check(kind: PrimaryKind) {
    let mut primary = Primary::start(kind, 1);
    let mut replica = Replica::start();
    replica.follow(&primary);
    let mut w = Workload::new(primary.conn());
    base_workload(&mut w);
    replica.same("after the base workload", &primary);
    let st = slave_status_at(&replica.url());
    assert_eq!(st["Slave_IO_Running"], "Yes", "{st:?}");
    assert_eq!(st["Slave_SQL_Running"], "Yes", "{st:?}");
    assert_eq!(st["Using_Gtid"], "Slave_Pos", "{st:?}");
    assert_eq!(st["Master_Server_Id"], "1", "{st:?}");
    assert_eq!(st["Gtid_IO_Pos"], primary.gtid_binlog_pos(), "{st:?}");
    assert_eq!(st["Seconds_Behind_Master"], "0", "{st:?}");
    let (file, pos) = primary.master_status();
    assert_eq!(st["Master_Log_File"], file, "{st:?}");
    assert_eq!(st["Read_Master_Log_Pos"], pos.to_string(), "{st:?}");
    assert_eq!(st["Relay_Master_Log_File"], file, "{st:?}");
    assert_eq!(st["Exec_Master_Log_Pos"], pos.to_string(), "{st:?}");

    big_transaction(&mut w.conn, 20_000);
    replica.same("after a 20,000-row transaction", &primary);

    drop(w);
    primary.restart();
    let mut c = primary.conn();
    c.query_drop(format!("USE {DB}")).expect("use");
    c.query_drop("UPDATE big SET v = 'after the restart' WHERE id % 7 = 0")
        .expect("update after restart");
    c.query_drop("DELETE FROM big WHERE id >= 19000")
        .expect("delete after restart");
    c.query_drop("CREATE TABLE later (id INT PRIMARY KEY, t TEXT)")
        .expect("DDL after restart");
    c.query_drop("INSERT INTO later VALUES (1, 'one'), (2, NULL)")
        .expect("insert after restart");
    replica.same("after a primary restart", &primary);

    replica.server.restart(false);
    c.query_drop("INSERT INTO later VALUES (3, 'after the replica restarted')")
        .expect("insert after the replica restart");
    replica.same("after a clean replica restart", &primary);

    let mut r = connect(&replica.url());
    r.query_drop("STOP SLAVE").expect("STOP SLAVE");
    c.query_drop("UPDATE later SET t = 'while stopped' WHERE id = 1")
        .expect("update while stopped");
    c.query_drop("DROP TABLE big").expect("drop while stopped");
    r.query_drop("START SLAVE").expect("START SLAVE again");
    replica.same("after STOP SLAVE / START SLAVE", &primary);
}

#[test]
fn a_basalt_replica_follows_a_basalt_primary() {
    follow_check(PrimaryKind::Basalt);
}

#[test]
#[ignore = "needs mariadb-server"]
fn a_basalt_replica_follows_a_mariadb_primary() {
    if !mariadb::available() {
        eprintln!("skipped: mariadb-server not installed");
        return;
    }
    follow_check(PrimaryKind::MariaDb);
}

/// Writers on the primary (bounded) while the replica is killed and restarted.
fn writers(url: String, stop: Arc<AtomicBool>) -> Vec<std::thread::JoinHandle<usize>> {
    (0..2)
        .map(|w| {
            let (url, stop) = (url.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut c = connect(&url);
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) && n < 3000 {
                    c.query_drop("BEGIN").expect("begin");
                    c.query_drop(format!(
                        "INSERT INTO {DB}.stream (w, n, v) VALUES ({w}, {n}, 'w{w} n{n}')"
                    ))
                    .expect("writer insert");
                    c.query_drop(format!(
                        "UPDATE {DB}.counter SET total = total + 1 WHERE id = {w}"
                    ))
                    .expect("writer update");
                    c.query_drop("COMMIT").expect("commit");
                    n += 1;
                }
                n
            })
        })
        .collect()
}

#[test]
fn a_killed_replica_converges_with_nothing_lost_or_doubled() {
    let primary = Primary::start(PrimaryKind::Basalt, 1);
    let mut replica = Replica::start();
    let mut c = primary.conn();
    for q in [
        format!("CREATE DATABASE {DB}"),
        format!(
            "CREATE TABLE {DB}.stream (w INT NOT NULL, n INT NOT NULL, v VARCHAR(20), \
             PRIMARY KEY (w, n))"
        ),
        format!("CREATE TABLE {DB}.counter (id INT PRIMARY KEY, total INT NOT NULL)"),
        format!("INSERT INTO {DB}.counter VALUES (0, 0), (1, 0)"),
    ] {
        c.query_drop(q).expect("set-up");
    }
    replica.follow(&primary);
    let stop = Arc::new(AtomicBool::new(false));
    let handles = writers(primary.url(), stop.clone());
    for round in 0..4u64 {
        std::thread::sleep(Duration::from_millis(300 + 170 * round));
        replica.server.restart(true);
    }
    stop.store(true, Ordering::Relaxed);
    let written: usize = handles
        .into_iter()
        .map(|h| h.join().expect("writer thread"))
        .sum();
    assert!(written > 0, "the writers committed nothing");
    replica.same("after four kill -9 of the replica", &primary);
    let mut r = connect(&replica.url());
    let totals: Vec<(i64, i64)> = r
        .query(format!("SELECT id, total FROM {DB}.counter ORDER BY id"))
        .expect("counter totals");
    let sum: i64 = totals.iter().map(|t| t.1).sum();
    assert_eq!(
        sum as usize, written,
        "every transaction applied exactly once"
    );
}
