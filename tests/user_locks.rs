//! GET_LOCK and friends across connections over TCP: a waiter gets the lock when
//! its holder releases it, a wait times out with 0, the request that would close a
//! cycle of waiters fails with 1213 and the session goes on, KILL QUERY and
//! `max_statement_time` end a wait with NULL (as MariaDB 10.11), and a
//! connection's locks go when it disconnects or resets. Single-session values,
//! warnings and errors are compared with MariaDB in `tests/data/functions.sql`.

use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::time::{Duration, Instant};

fn conn(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

fn one(c: &mut Conn, sql: &str) -> Option<i64> {
    c.query_first::<Option<i64>, _>(sql)
        .expect(sql)
        .expect("a row")
}

fn id(c: &mut Conn) -> i64 {
    one(c, "select connection_id()").expect("id")
}

/// Waits until `sql` on `c` answers `want` (disconnects are handled
/// asynchronously by the server).
fn eventually(c: &mut Conn, sql: &str, want: Option<i64>) {
    let end = Instant::now() + Duration::from_secs(10);
    while one(c, sql) != want {
        assert!(Instant::now() < end, "{sql} never gave {want:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Until connection `who` is waiting in a GET_LOCK.
fn wait_for_waiter(c: &mut Conn, who: i64) {
    let sql = format!(
        "select count(*) from information_schema.processlist where id = {who} and info like 'select get_lock%'"
    );
    eventually(c, &sql, Some(1));
    // The statement is running; give it a moment to reach the wait itself.
    std::thread::sleep(Duration::from_millis(50));
}

#[test]
fn a_waiter_is_granted_on_release_and_times_out_otherwise() {
    let s = Basalt::start();
    let mut a = conn(&s.url());
    let mut b = conn(&s.url());
    assert_eq!(one(&mut a, "select get_lock('k', 0)"), Some(1));
    let a_id = id(&mut a);
    assert_eq!(one(&mut b, "select is_used_lock('k')"), Some(a_id));
    assert_eq!(one(&mut b, "select is_free_lock('k')"), Some(0));
    assert_eq!(one(&mut b, "select release_lock('k')"), Some(0));
    let t0 = Instant::now();
    assert_eq!(one(&mut b, "select get_lock('k', 0.3)"), Some(0));
    assert!(t0.elapsed() >= Duration::from_millis(250));
    let b_id = id(&mut b);
    let url = s.url();
    let waiter = std::thread::spawn(move || {
        let t0 = Instant::now();
        let got = one(&mut b, "select get_lock('k', 30)");
        (got, t0.elapsed(), b)
    });
    wait_for_waiter(&mut a, b_id);
    assert_eq!(one(&mut a, "select release_lock('k')"), Some(1));
    let (got, waited, mut b) = waiter.join().expect("waiter");
    assert_eq!(got, Some(1));
    assert!(waited < Duration::from_secs(20), "{waited:?}");
    let mut c = conn(&url);
    assert_eq!(one(&mut c, "select is_used_lock('k')"), Some(b_id));
    assert_eq!(one(&mut b, "select release_all_locks()"), Some(1));
}

#[test]
fn the_request_closing_a_cycle_is_a_deadlock_and_the_session_goes_on() {
    let s = Basalt::start();
    let mut a = conn(&s.url());
    let mut b = conn(&s.url());
    assert_eq!(one(&mut a, "select get_lock('x', 0)"), Some(1));
    assert_eq!(one(&mut b, "select get_lock('y', 0)"), Some(1));
    let b_id = id(&mut b);
    let waiter = std::thread::spawn(move || one(&mut b, "select get_lock('x', 30)"));
    wait_for_waiter(&mut a, b_id);
    match a.query_drop("select get_lock('y', 30)") {
        Err(mysql::Error::MySqlError(e)) => {
            assert_eq!(e.code, 1213);
            assert_eq!(e.state, "40001");
            assert_eq!(
                e.message,
                "Deadlock found when trying to get lock; try restarting transaction"
            );
        }
        other => panic!("expected 1213, got {other:?}"),
    }
    assert_eq!(one(&mut a, "select release_all_locks()"), Some(1));
    assert_eq!(waiter.join().expect("waiter"), Some(1));
}

#[test]
fn kill_query_and_max_statement_time_end_a_wait_with_null() {
    let s = Basalt::start();
    let mut a = conn(&s.url());
    let mut b = conn(&s.url());
    assert_eq!(one(&mut a, "select get_lock('k', 0)"), Some(1));
    let b_id = id(&mut b);
    let waiter = std::thread::spawn(move || {
        let got = one(&mut b, "select get_lock('k', 60)");
        (got, b)
    });
    wait_for_waiter(&mut a, b_id);
    a.query_drop(format!("kill query {b_id}")).expect("kill");
    let (got, mut b) = waiter.join().expect("waiter");
    assert_eq!(got, None);
    let warnings: Vec<(String, u16, String)> = b.query("show warnings").expect("warnings");
    assert!(warnings.is_empty(), "{warnings:?}");
    b.query_drop("set max_statement_time = 0.2").expect("set");
    let t0 = Instant::now();
    assert_eq!(one(&mut b, "select get_lock('k', 60)"), None);
    assert!(t0.elapsed() < Duration::from_secs(30));
    assert_eq!(one(&mut b, "select is_used_lock('k')"), Some(id(&mut a)));
}

#[test]
fn locks_go_with_disconnect_and_reset_connection() {
    let s = Basalt::start();
    let mut watcher = conn(&s.url());
    {
        let mut a = conn(&s.url());
        assert_eq!(
            one(&mut a, "select get_lock('d', 0) + get_lock('d', 0)"),
            Some(2)
        );
    }
    eventually(&mut watcher, "select is_free_lock('d')", Some(1));
    let mut b = conn(&s.url());
    assert_eq!(one(&mut b, "select get_lock('r', 0)"), Some(1));
    b.reset().expect("COM_RESET_CONNECTION");
    assert_eq!(one(&mut watcher, "select is_free_lock('r')"), Some(1));
    // COMMIT and ROLLBACK do not release them.
    b.query_drop("begin").expect("begin");
    assert_eq!(one(&mut b, "select get_lock('t', 0)"), Some(1));
    b.query_drop("rollback").expect("rollback");
    assert_eq!(one(&mut watcher, "select is_free_lock('t')"), Some(0));
}
