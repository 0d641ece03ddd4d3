//! `--thread-handling=pool-of-threads`: the commands of every connection run on a
//! pool sized by `thread_pool_size`; statements that wait (SLEEP, row locks) or
//! run long do not starve the others; the `thread_pool_*` variables change the
//! pool at runtime; `--extra-port` lets an administrator in when the pool or
//! `max_connections` is exhausted; a storm of connections past `max_connections`
//! gets 1040 in either thread handling.

use basalt_tests::{eventually, free_port, global_status, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::time::Duration;

/// A heavy statement (a billion-row join count) that only KILL QUERY ends.
const HEAVY: &str = "select count(*) from d.n a, d.n b, d.n c where a.i + b.i + c.i = 7";

fn conn_on(port: u16) -> mysql::Result<Conn> {
    Conn::new(Opts::from_url(&format!(
        "mysql://root@127.0.0.1:{port}/?prefer_socket=false"
    ))?)
}

fn error_code(e: &mysql::Error) -> Option<u16> {
    match e {
        mysql::Error::MySqlError(m) => Some(m.code),
        _ => None,
    }
}

/// Runs `sql` on a connection of its own in a thread; its outcome comes back
/// through the handle (the error code on failure).
fn background(b: &Basalt, sql: &str) -> std::thread::JoinHandle<Result<(), Option<u16>>> {
    let mut c = b.conn();
    let sql = sql.to_string();
    std::thread::spawn(move || c.query_drop(sql).map_err(|e| error_code(&e)))
}

/// Whether a statement starting with `prefix` is running now.
fn running(admin: &mut Conn, prefix: &str) -> bool {
    let n: Option<u64> = admin
        .exec_first(
            "select count(*) from information_schema.processlist \
             where command = 'Query' and info like concat(?, '%')",
            (prefix,),
        )
        .expect("processlist");
    n == Some(1)
}

/// How many statements equal to `sql` are running.
fn running_count(c: &mut Conn, sql: &str) -> u64 {
    let n: Option<u64> = c
        .exec_first(
            "select count(*) from information_schema.processlist \
             where command = 'Query' and info = ?",
            (sql,),
        )
        .expect("processlist");
    n.unwrap_or(0)
}

/// KILL QUERY for every running statement starting with `prefix`.
fn kill_queries(admin: &mut Conn, prefix: &str) {
    let ids: Vec<u64> = admin
        .exec(
            "select id from information_schema.processlist \
             where command = 'Query' and info like concat(?, '%')",
            (prefix,),
        )
        .expect("processlist");
    for id in ids {
        admin.query_drop(format!("kill query {id}")).expect("kill");
    }
}

fn seed_numbers(c: &mut Conn) {
    c.query_drop("create database if not exists d").expect("db");
    c.query_drop("create table d.n (i int primary key)")
        .expect("table");
    c.query_drop(
        "insert into d.n with recursive s(i) as \
         (select 1 union all select i + 1 from s where i < 1000) select i from s",
    )
    .expect("rows");
}

#[test]
fn the_pool_serves_every_session_on_few_threads() {
    let b = Basalt::start_with(&["--thread-handling=pool-of-threads", "--thread-pool-size=2"]);
    let mut admin = b.conn();
    let (handling, size): (String, u64) = admin
        .query_first("select @@thread_handling, @@thread_pool_size")
        .expect("vars")
        .expect("row");
    assert_eq!((handling.as_str(), size), ("pool-of-threads", 2));
    admin.query_drop("create database d").expect("db");
    admin
        .query_drop("create table d.t (id int primary key, v int)")
        .expect("table");
    let mut clients: Vec<Conn> = (0..200).map(|_| b.conn()).collect();
    for (i, c) in clients.iter_mut().enumerate() {
        c.query_drop(format!("set @me = {i}")).expect("set");
        c.query_drop("begin").expect("begin");
        c.query_drop(format!("insert into d.t values ({i}, {i})"))
            .expect("insert");
    }
    // Between commands no connection holds a thread: the pool stays small.
    let os_threads = b.os_threads();
    assert!(os_threads < 60, "{os_threads} threads for 200 connections");
    let pool = global_status(&mut admin, "Threadpool_threads");
    assert!((1..=20).contains(&pool), "Threadpool_threads = {pool}");
    // Sessions (variables, open transactions) survive moving between threads,
    // also when eight clients work at once.
    let chunks: Vec<Vec<Conn>> = {
        let mut v: Vec<Vec<Conn>> = (0..8).map(|_| Vec::new()).collect();
        for (i, c) in clients.into_iter().enumerate() {
            v[i % 8].push(c);
        }
        v
    };
    let workers: Vec<_> = chunks
        .into_iter()
        .map(|mut chunk| {
            std::thread::spawn(move || {
                for c in &mut chunk {
                    let me: Option<u64> = c.query_first("select @me").expect("@me");
                    let me = me.expect("row");
                    c.query_drop(format!("update d.t set v = v + 1 where id = {me}"))
                        .expect("update");
                    c.query_drop("commit").expect("commit");
                }
                chunk.len()
            })
        })
        .collect();
    let served: usize = workers.into_iter().map(|w| w.join().expect("worker")).sum();
    assert_eq!(served, 200);
    let (rows, sum): (u64, u64) = admin
        .query_first("select count(*), sum(v) from d.t")
        .expect("sum")
        .expect("row");
    assert_eq!((rows, sum), (200, (0..200u64).map(|i| i + 1).sum()));
}

#[test]
fn waits_and_long_statements_do_not_starve_the_pool() {
    // One slot, one more after a wait: every blocked or long statement must let
    // the others through.
    let b = Basalt::start_with(&[
        "--thread-handling=pool-of-threads",
        "--thread-pool-size=1",
        "--thread-pool-oversubscribe=1",
        "--thread-pool-stall-limit=100",
    ]);
    let mut admin = b.conn();
    seed_numbers(&mut admin);
    admin
        .query_drop("create table d.t (id int primary key, v int)")
        .expect("table");
    admin
        .query_drop("insert into d.t values (1, 0)")
        .expect("row");

    // SLEEP and a row-lock wait are declared waits: the pool runs others meanwhile.
    let sleeper = background(&b, "select sleep(60)");
    let mut holder = b.conn();
    holder.query_drop("begin").expect("begin");
    holder
        .query_drop("update d.t set v = 1 where id = 1")
        .expect("lock");
    let waiter = background(&b, "update d.t set v = 2 where id = 1");
    assert!(eventually(Duration::from_secs(20), || running(
        &mut admin,
        "update d.t set v = 2"
    )));
    let mut other = b.conn();
    let one: Option<u64> = other.query_first("select 1").expect("select");
    assert_eq!(one, Some(1));
    assert!(running(&mut other, "select sleep(60)"), "still sleeping");
    holder.query_drop("commit").expect("commit");
    assert_eq!(waiter.join().expect("waiter"), Ok(()));
    kill_queries(&mut admin, "select sleep(60)");
    assert_eq!(sleeper.join().expect("sleeper"), Err(Some(1317)));

    // Two statements that never wait fill the running limit: the stall check
    // starts another thread for the queued commands.
    let heavy: Vec<_> = (0..2).map(|_| background(&b, HEAVY)).collect();
    assert!(eventually(Duration::from_secs(20), || running_count(
        &mut admin, HEAVY
    ) == 2));
    let mut late = b.conn();
    let v: Option<u64> = late.query_first("select v from d.t").expect("select");
    assert_eq!(v, Some(2));
    kill_queries(&mut late, HEAVY);
    for h in heavy {
        assert_eq!(h.join().expect("heavy"), Err(Some(1317)));
    }
}

/// `count` connection attempts at once on `port`: how many got 1040.
fn storm(port: u16, count: usize) -> usize {
    let attempts: Vec<_> = (0..count)
        .map(|_| std::thread::spawn(move || conn_on(port).map(drop).map_err(|e| error_code(&e))))
        .collect();
    attempts
        .into_iter()
        .map(|a| a.join().expect("attempt"))
        .filter(|r| *r == Err(Some(1040)))
        .count()
}

fn full_server_admits_the_extra_port(b: &Basalt, extra: u16) {
    let mut admin = b.conn();
    admin
        .query_drop("set global max_connections = 4")
        .expect("max");
    // Four, plus the one kept for root: the main port is full.
    let mut held: Vec<Conn> = (0..4).map(|_| b.conn()).collect();
    held.push(admin);
    assert_eq!(
        storm(b.port, 40),
        40,
        "10x max_connections attempts: 1040 each"
    );
    let mut x = conn_on(extra).expect("the extra port admits root");
    let (port, max): (u64, u64) = x
        .query_first("select @@extra_port, @@extra_max_connections")
        .expect("vars")
        .expect("row");
    assert_eq!((port, max), (u64::from(extra), 1));
    assert!(global_status(&mut x, "Threads_connected") >= 6);
    // One extra connection, plus the one kept for root.
    let second = conn_on(extra).expect("root's reserved extra connection");
    let third = conn_on(extra).map(drop).map_err(|e| error_code(&e));
    assert_eq!(third, Err(Some(1040)));
    x.query_drop("set global extra_max_connections = 2")
        .expect("set");
    let third = conn_on(extra).expect("room for one more");
    drop((second, third));
    for c in &mut held {
        c.query_drop("do 1")
            .expect("the held connections still work");
    }
}

#[test]
fn extra_port_and_1040_with_a_thread_per_connection() {
    let extra = free_port();
    let b = Basalt::start_with(&["--extra-port", &extra.to_string()]);
    full_server_admits_the_extra_port(&b, extra);
}

#[test]
fn extra_port_and_1040_with_the_pool() {
    let extra = free_port();
    let b = Basalt::start_with(&[
        "--thread-handling=pool-of-threads",
        "--thread-pool-size=1",
        "--thread-pool-oversubscribe=1",
        "--extra-port",
        &extra.to_string(),
    ]);
    full_server_admits_the_extra_port(&b, extra);
}

#[test]
fn pool_settings_apply_at_runtime_and_the_extra_port_bypasses_the_pool() {
    let extra = free_port();
    let b = Basalt::start_with(&[
        "--thread-handling=pool-of-threads",
        "--extra-port",
        &extra.to_string(),
    ]);
    let mut admin = b.conn();
    seed_numbers(&mut admin);
    let clients: Vec<Conn> = (0..3).map(|_| b.conn()).collect();
    for set in [
        "thread_pool_size = 1",
        "thread_pool_oversubscribe = 1",
        "thread_pool_max_threads = 2",
        "thread_pool_stall_limit = 600000",
        "thread_pool_idle_timeout = 1",
    ] {
        admin.query_drop(format!("set global {set}")).expect("set");
    }
    drop(admin);
    // The pool re-reads its settings every 100 ms.
    std::thread::sleep(Duration::from_millis(300));
    let mut x = conn_on(extra).expect("extra port");
    // Idle pool threads beyond the new limit leave after the new idle timeout.
    assert!(eventually(Duration::from_secs(20), || global_status(
        &mut x,
        "Threadpool_threads"
    ) <= 1));

    // Three sleepers: SLEEP is a declared wait, so each lets another thread
    // start, but the pool stops at thread_pool_max_threads.
    const SLEEP: &str = "select sleep(60)";
    let sleepers: Vec<_> = clients
        .into_iter()
        .map(|mut c| std::thread::spawn(move || c.query_drop(SLEEP).map_err(|e| error_code(&e))))
        .collect();
    assert!(eventually(Duration::from_secs(20), || running_count(
        &mut x, SLEEP
    ) == 2));
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        running_count(&mut x, SLEEP),
        2,
        "the third waits for a thread"
    );
    assert_eq!(global_status(&mut x, "Threadpool_threads"), 2);
    kill_queries(&mut x, SLEEP);
    assert!(eventually(Duration::from_secs(20), || running_count(
        &mut x, SLEEP
    ) == 1));
    kill_queries(&mut x, SLEEP);
    for s in sleepers {
        assert_eq!(s.join().expect("sleeper"), Err(Some(1317)));
    }

    // Two statements that never wait fill the running limit (1 x (1 + 1)); with a
    // stall limit of ten minutes, a new main-port connection waits for them,
    // while the extra port still serves.
    admin = conn_on(extra).expect("extra port");
    admin
        .query_drop("set global thread_pool_max_threads = 65536")
        .expect("set");
    let heavy: Vec<_> = (0..2).map(|_| background(&b, HEAVY)).collect();
    assert!(eventually(Duration::from_secs(20), || running_count(
        &mut x, HEAVY
    ) == 2));
    let main = std::thread::spawn({
        let port = b.port;
        move || conn_on(port).map(drop).map_err(|e| error_code(&e))
    });
    std::thread::sleep(Duration::from_millis(500));
    assert!(!main.is_finished(), "the handshake waits for the pool");
    let one: Option<u64> = admin.query_first("select 1").expect("extra port serves");
    assert_eq!(one, Some(1));
    kill_queries(&mut x, HEAVY);
    for h in heavy {
        assert_eq!(h.join().expect("heavy"), Err(Some(1317)));
    }
    assert_eq!(
        main.join().expect("main"),
        Ok(()),
        "served once the pool frees"
    );
}

#[test]
fn pool_settings_are_global_variables() {
    let b = Basalt::start_with(&["--thread-handling=pool-of-threads"]);
    let mut c = b.conn();
    c.query_drop("set global thread_pool_size = 0")
        .expect("set");
    let size: Option<u64> = c.query_first("select @@thread_pool_size").expect("get");
    assert_eq!(size, Some(1), "raised to the minimum");
    let warnings: Vec<(String, u32, String)> = c.query("show warnings").expect("warnings");
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].1, 1292);
    c.query_drop("set global thread_pool_stall_limit = 50")
        .expect("set");
    let e = c
        .query_drop("set session thread_pool_size = 2")
        .expect_err("global only");
    assert_eq!(error_code(&e), Some(1229));
    let e = c
        .query_drop("set global thread_handling = 'one-thread-per-connection'")
        .expect_err("read-only");
    assert_eq!(error_code(&e), Some(1238));
    let e = c
        .query_drop("set global extra_port = 1")
        .expect_err("read-only");
    assert_eq!(error_code(&e), Some(1238));
    // The server keeps serving with its new settings.
    let one: Option<u64> = b.conn().query_first("select 1").expect("select");
    assert_eq!(one, Some(1));
}

#[test]
fn tls_connections_with_pipelined_commands_work_in_the_pool() {
    let b = Basalt::start_with(&["--thread-handling=pool-of-threads"]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        use mysql_async::prelude::Queryable as _;
        // Without a statement cache each exec ends with COM_STMT_CLOSE, which has
        // no response, so the next command follows it at once: both can arrive
        // in the TLS layer's buffer together, where polling the socket does not
        // see the second.
        let opts = b.tls_async_opts().stmt_cache_size(0);
        let mut c = mysql_async::Conn::new(opts)
            .await
            .expect("connect over TLS");
        for i in 0..200u64 {
            let v: Option<u64> = c
                .exec_first("select ? + 1", (i,))
                .await
                .expect("prepared over TLS");
            assert_eq!(v, Some(i + 1));
        }
        let cipher: Option<(String, String)> = c
            .query_first("show session status like 'Ssl_cipher'")
            .await
            .expect("status");
        assert!(!cipher.expect("row").1.is_empty(), "TLS");
        c.disconnect().await.expect("disconnect");
    });
}
