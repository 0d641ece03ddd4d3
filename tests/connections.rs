//! Idle connections leave their threads: a connection whose client is silent for
//! `basalt_idle_connection_park_ms` is parked (no thread, no I/O buffers) and
//! carries on with its whole session when the client speaks again; KILL and
//! `wait_timeout` still reach it, and a packet that arrives slowly is not cut.

use basalt_tests::{
    eventually, global_status as status, raw_login, read_packet, send_packet, Basalt,
};
use mysql::prelude::*;
use mysql::Conn;
use std::time::Duration;

#[test]
fn idle_connections_leave_their_threads_and_keep_their_sessions() {
    let b = Basalt::start();
    let mut admin = b.conn();
    admin.query_drop("create database d").expect("db");
    admin
        .query_drop("create table d.t (id int primary key, v int)")
        .expect("table");
    let mut clients: Vec<Conn> = (0..120).map(|_| b.conn()).collect();
    for (i, c) in clients.iter_mut().enumerate() {
        c.query_drop(format!("set @me = {i}")).expect("set");
        c.query_drop("create temporary table d.tmp (x int)")
            .expect("temp");
        c.query_drop(format!("insert into d.tmp values ({i})"))
            .expect("tmp row");
        c.query_drop("begin").expect("begin");
        c.query_drop(format!("insert into d.t values ({i}, {i})"))
            .expect("insert");
    }
    assert!(
        eventually(Duration::from_secs(10), || status(
            &mut admin,
            "Basalt_parked_connections"
        ) >= 120),
        "the idle clients are parked"
    );
    let n = b.os_threads();
    assert!(n < 100, "120 idle clients do not hold 120 threads ({n})");
    // Uncommitted rows stay invisible, and each session has what it had.
    let seen: u64 = admin
        .query_first("select count(*) from d.t")
        .expect("count")
        .expect("row");
    assert_eq!(seen, 0);
    for (i, c) in clients.iter_mut().enumerate() {
        let me: u64 = c.query_first("select @me").expect("var").expect("row");
        assert_eq!(me, i as u64);
        let x: u64 = c
            .query_first("select x from d.tmp")
            .expect("tmp")
            .expect("row");
        assert_eq!(x, i as u64);
        let in_trx: u64 = c
            .query_first("select @@in_transaction")
            .expect("trx")
            .expect("row");
        assert_eq!(in_trx, 1, "the transaction survived parking");
        c.query_drop("commit").expect("commit");
    }
    let seen: u64 = admin
        .query_first("select count(*) from d.t")
        .expect("count")
        .expect("row");
    assert_eq!(seen, 120);
    // Prepared statements survive too.
    let c = &mut clients[0];
    let stmt = c.prep("select v from d.t where id = ?").expect("prepare");
    std::thread::sleep(Duration::from_millis(400));
    let v: Option<u64> = c.exec_first(&stmt, (7,)).expect("execute");
    assert_eq!(v, Some(7));
}

#[test]
fn kill_and_wait_timeout_reach_parked_connections() {
    let b = Basalt::start();
    let mut admin = b.conn();
    let mut victim = b.conn();
    let id: u64 = victim
        .query_first("select connection_id()")
        .expect("id")
        .expect("row");
    assert!(eventually(Duration::from_secs(5), || status(
        &mut admin,
        "Basalt_parked_connections"
    ) >= 1));
    admin.query_drop(format!("kill {id}")).expect("kill");
    assert!(
        victim.query_drop("select 1").is_err(),
        "killed while parked"
    );
    let listed = |admin: &mut Conn, id: u64| -> bool {
        let ids: Vec<u64> = admin
            .query("select id from information_schema.processlist")
            .expect("processlist");
        ids.contains(&id)
    };
    assert!(eventually(Duration::from_secs(5), || !listed(
        &mut admin, id
    )));

    let aborted = status(&mut admin, "Aborted_clients");
    let mut sleepy = b.conn();
    sleepy.query_drop("set wait_timeout = 1").expect("set");
    let id: u64 = sleepy
        .query_first("select connection_id()")
        .expect("id")
        .expect("row");
    assert!(
        eventually(Duration::from_secs(5), || !listed(&mut admin, id)),
        "closed after wait_timeout while parked"
    );
    assert!(sleepy.query_drop("select 1").is_err());
    assert_eq!(status(&mut admin, "Aborted_clients"), aborted + 1);
    // A longer wait_timeout is kept while parked.
    let mut patient = b.conn();
    patient.query_drop("set wait_timeout = 3").expect("set");
    std::thread::sleep(Duration::from_millis(1500));
    patient.query_drop("select 1").expect("still connected");
}

#[test]
fn a_slow_packet_is_not_cut_by_the_park_delay() {
    let b = Basalt::start();
    let mut admin = b.conn();
    admin
        .query_drop("set global basalt_idle_connection_park_ms = 1")
        .expect("set");
    let mut s = raw_login(b.port);
    let mut payload = vec![0x03];
    payload.extend_from_slice(b"select 'slowly sent'");
    let mut framed = (payload.len() as u32).to_le_bytes()[..3].to_vec();
    framed.push(0);
    framed.extend_from_slice(&payload);
    for piece in framed.chunks(3) {
        std::io::Write::write_all(&mut s, piece).expect("write");
        std::thread::sleep(Duration::from_millis(30));
    }
    let first = read_packet(&mut s).expect("reply");
    assert_eq!(first, [1], "one column: the query arrived whole");
    // Drain the result, then the connection still answers.
    while read_packet(&mut s).expect("row")[0] != 0xfe {}
    while read_packet(&mut s).expect("row")[0] != 0xfe {}
    send_packet(&mut s, 0, b"\x03select 2");
    assert_eq!(read_packet(&mut s).expect("reply"), [1]);
}

#[test]
fn the_park_delay_is_a_global_setting() {
    let b = Basalt::start();
    let mut admin = b.conn();
    let v: u64 = admin
        .query_first("select @@basalt_idle_connection_park_ms")
        .expect("var")
        .expect("row");
    assert_eq!(v, 5);
    let e = admin
        .query_drop("set session basalt_idle_connection_park_ms = 5")
        .expect_err("global only");
    assert!(e.to_string().contains("1229"), "{e}");
    admin
        .query_drop("set global basalt_idle_connection_park_ms = 3600000")
        .expect("set");
    let before = b.os_threads();
    let mut kept: Vec<Conn> = (0..20).map(|_| b.conn()).collect();
    for c in &mut kept {
        c.query_drop("select 1").expect("query");
    }
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(status(&mut admin, "Basalt_parked_connections"), 0);
    assert!(b.os_threads() >= before + 20, "each keeps its thread");
}

#[test]
fn a_tls_connection_parks_and_resumes() {
    let b = Basalt::start();
    let mut admin = b.conn();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        use mysql_async::prelude::Queryable as _;
        let mut c = mysql_async::Conn::new(b.tls_async_opts())
            .await
            .expect("connect over TLS");
        c.query_drop("set @kept = 'over tls'").await.expect("set");
        assert!(eventually(Duration::from_secs(5), || status(
            &mut admin,
            "Basalt_parked_connections"
        ) >= 1));
        let v: Option<String> = c.query_first("select @kept").await.expect("resumed");
        assert_eq!(v.as_deref(), Some("over tls"));
        let big: Option<String> = c
            .query_first("select repeat('x', 300000)")
            .await
            .expect("large result after parking");
        assert_eq!(big.map(|s| s.len()), Some(300_000));
        let cipher: Option<(String, String)> = c
            .query_first("show session status like 'Ssl_cipher'")
            .await
            .expect("status");
        assert!(!cipher.expect("row").1.is_empty(), "still TLS");
        c.disconnect().await.expect("disconnect");
    });
}
