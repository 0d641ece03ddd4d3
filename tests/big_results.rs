//! Big results and big statements through the protocol: rows stream to the client
//! while the query runs, a client that stops reading only holds up its own
//! statement (until `net_write_timeout`), KILL QUERY ends a streamed result, big
//! sorts spill to disk, and working memory past `max_session_mem_used` fails the
//! statement with errno 1290 — while the server's resident memory (VmRSS of the
//! basaltd process, sampled throughout) stays bounded.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "prepared_wire.rs"]
#[allow(dead_code)]
mod wire;

const MB: u64 = 1 << 20;

fn connect(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

fn err_code(e: &mysql::Error) -> Option<u16> {
    match e {
        mysql::Error::MySqlError(e) => Some(e.code),
        _ => None,
    }
}

/// VmRSS of a process, in bytes.
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .expect("VmRSS")
        * 1024
}

/// Samples a process's VmRSS every 10 ms and keeps the largest value.
struct RssWatch {
    stop: Arc<AtomicBool>,
    max: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RssWatch {
    fn start(pid: u32) -> RssWatch {
        let stop = Arc::new(AtomicBool::new(false));
        let max = Arc::new(AtomicU64::new(rss(pid)));
        let (s, m) = (stop.clone(), max.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                if let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
                    if let Some(v) = text
                        .lines()
                        .find_map(|l| l.strip_prefix("VmRSS:"))
                        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                    {
                        m.fetch_max(v * 1024, Ordering::Relaxed);
                    }
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        RssWatch {
            stop,
            max,
            thread: Some(thread),
        }
    }

    /// The largest VmRSS seen so far.
    fn max(&self) -> u64 {
        self.max.load(Ordering::Relaxed)
    }
}

impl Drop for RssWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Tables `a` and `b` of `n` rows each: `id` 0..n and `v` = 'v<id>'.
fn two_tables(c: &mut Conn, n: usize) {
    c.query_drop("create database if not exists big")
        .expect("create db");
    c.query_drop("use big").expect("use");
    for t in ["a", "b"] {
        c.query_drop(format!(
            "create table {t} (id int primary key, v varchar(20))"
        ))
        .expect("create table");
        for chunk in (0..n).collect::<Vec<_>>().chunks(5000) {
            let values: Vec<String> = chunk.iter().map(|i| format!("({i},'v{i}')")).collect();
            c.query_drop(format!("insert into {t} values {}", values.join(",")))
                .expect("insert");
        }
    }
}

fn server_with_tables(n: usize) -> (Basalt, Conn) {
    let b = Basalt::start();
    let mut c = connect(&b.url());
    two_tables(&mut c, n);
    (b, c)
}

/// Reads a whole result; the error that ended it, if any (`query_drop` would
/// not report an error that arrives after rows).
fn read_all(c: &mut Conn, sql: &str) -> Result<u64, mysql::Error> {
    let mut result = c.query_iter(sql)?;
    let mut n = 0;
    while let Some(set) = result.iter() {
        for r in set {
            r?;
            n += 1;
        }
    }
    Ok(n)
}

fn status(c: &mut Conn, name: &str) -> u64 {
    let row: Option<(String, String)> = c
        .query_first(format!("show global status like '{name}'"))
        .expect("status");
    row.and_then(|(_, v)| v.parse().ok()).unwrap_or(0)
}

#[test]
fn cross_product_streams_with_flat_memory_and_kill_query_ends_it() {
    let (b, mut admin) = server_with_tables(10_000);
    let pid = b.pid();
    let base = rss(pid);
    let watch = RssWatch::start(pid);
    let mut c = connect(&b.url_db("big"));
    let id = c.connection_id();
    let started = Instant::now();
    let mut result = c.query_iter("select * from a, b").expect("query");
    let mut rows = result.iter().expect("result set");
    let first = rows.next().expect("a first row").expect("row");
    // 100,000,000 rows: the first one arrives long before the last could exist.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "first row after {:?}",
        started.elapsed()
    );
    assert_eq!(first.len(), 4);
    // A slow reader: the server waits on the socket, its memory stays flat.
    for _ in 0..5 {
        for _ in 0..40_000 {
            rows.next().expect("row").expect("row ok");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(
        watch.max() < base + 64 * MB,
        "VmRSS grew from {} MB to {} MB while streaming",
        base / MB,
        watch.max() / MB
    );
    // Other sessions are not held up.
    let n: i64 = admin
        .query_first("select count(*) from a")
        .expect("q")
        .expect("row");
    assert_eq!(n, 10_000);
    admin
        .query_drop(format!("kill query {id}"))
        .expect("kill query");
    let mut ended = None;
    for r in rows.by_ref().take(5_000_000) {
        if let Err(e) = r {
            ended = Some(err_code(&e));
            break;
        }
    }
    assert_eq!(
        ended,
        Some(Some(1317)),
        "the streamed result ends with 1317"
    );
    drop(rows);
    drop(result);
    let n: i64 = c
        .query_first("select count(*) from b")
        .expect("session goes on")
        .expect("row");
    assert_eq!(n, 10_000);
    assert!(watch.max() < base + 64 * MB, "peak {} MB", watch.max() / MB);
}

#[test]
fn client_that_stops_reading_is_cut_off_after_net_write_timeout() {
    let (b, mut admin) = server_with_tables(10_000);
    let pid = b.pid();
    let base = rss(pid);
    let watch = RssWatch::start(pid);
    let aborted = status(&mut admin, "Aborted_clients");
    let mut c = connect(&b.url_db("big"));
    c.query_drop("set net_write_timeout = 1").expect("set");
    let mut result = c.query_iter("select * from a, b").expect("query");
    let mut rows = result.iter().expect("result set");
    rows.next().expect("a first row").expect("row");
    // Stop reading: the server blocks in write, then gives up after a second and
    // closes the connection (errno 1161 on its side).
    let deadline = Instant::now() + Duration::from_secs(20);
    while status(&mut admin, "Aborted_clients") == aborted {
        assert!(Instant::now() < deadline, "connection never cut off");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(watch.max() < base + 64 * MB, "peak {} MB", watch.max() / MB);
    // What was already in the socket buffers arrives, then the connection is gone.
    let mut n = 0u64;
    let mut failed = false;
    for r in rows.by_ref().take(20_000_000) {
        match r {
            Ok(_) => n += 1,
            Err(e) => {
                assert_ne!(err_code(&e), Some(0), "{e}");
                failed = true;
                break;
            }
        }
    }
    assert!(
        failed,
        "the result did not end with an error after {n} rows"
    );
    assert!(n < 99_000_000, "the whole product was sent");
    // The server is fine.
    let one: i64 = admin.query_first("select 1").expect("q").expect("row");
    assert_eq!(one, 1);
}

#[test]
fn big_sort_spills_to_disk_and_stays_in_order() {
    let (b, _admin) = server_with_tables(10_000);
    let pid = b.pid();
    let base = rss(pid);
    let watch = RssWatch::start(pid);
    let mut c = connect(&b.url_db("big"));
    // 1,000,000 rows sorted with a 256 KiB sort buffer: hundreds of runs on disk,
    // merged in passes.
    c.query_drop("set sort_buffer_size = 262144").expect("set");
    let mut result = c
        .query_iter("select a.v, b.id, a.id from a, b where b.id < 100 order by a.v desc, b.id")
        .expect("query");
    let mut prev: Option<(String, i64)> = None;
    let mut n = 0u64;
    for r in result.iter().expect("result set") {
        let row = r.expect("row");
        let (v, bid, aid): (String, i64, i64) = mysql::from_row(row);
        assert_eq!(v, format!("v{aid}"));
        if let Some((pv, pb)) = &prev {
            assert!(
                v < *pv || (v == *pv && bid > *pb),
                "row {n}: ({v}, {bid}) after ({pv}, {pb})"
            );
        }
        prev = Some((v, bid));
        n += 1;
    }
    drop(result);
    assert_eq!(n, 1_000_000);
    assert!(
        watch.max() < base + 96 * MB,
        "VmRSS grew from {} MB to {} MB during the sort",
        base / MB,
        watch.max() / MB
    );
    // ORDER BY with a small LIMIT keeps a top-N heap instead.
    let top: Vec<(String, i64)> = c
        .query("select a.v, b.id from a, b where b.id < 100 order by a.v desc, b.id limit 3")
        .expect("top");
    assert_eq!(
        top,
        vec![
            ("v9999".into(), 0),
            ("v9999".into(), 1),
            ("v9999".into(), 2)
        ]
    );
}

#[test]
fn working_memory_past_the_budget_is_1290() {
    let (b, _admin) = server_with_tables(10_000);
    let pid = b.pid();
    let base = rss(pid);
    let watch = RssWatch::start(pid);
    let mut c = connect(&b.url_db("big"));
    let default: u64 = c
        .query_first("select @@max_session_mem_used")
        .expect("q")
        .expect("row");
    assert!(default >= 64 * MB, "default budget {default}");
    c.query_drop("create table c (x int, y varchar(20))")
        .expect("create");
    c.query_drop("set max_session_mem_used = 32 * 1024 * 1024")
        .expect("set");
    let expect = "The MariaDB server is running with the --max-session-mem-used=33554432 \
                  option so it cannot execute this statement";
    for sql in [
        // hash GROUP BY of 3,000,000 groups
        "select a.id, b.id, count(*) from a, b where b.id < 300 group by a.id, b.id",
        // DISTINCT set
        "select distinct a.id, b.v from a, b where b.id < 300",
        // UNION DISTINCT set
        "select a.id, b.v from a, b where b.id < 300 union select b.id, a.v from a, b where b.id < 300",
        // materialised IN subquery
        "select count(*) from a where v in (select concat(a.v, b.v) from a, b where b.id < 300)",
        // derived table
        "select count(*) from (select a.id, b.v from a, b where b.id < 300) t",
        // GROUP_CONCAT ... ORDER BY buffer
        "select length(group_concat(a.v order by b.v)) from a, b where b.id < 300",
        // rows collected by INSERT ... SELECT
        "insert into c select a.id, b.v from a, b where b.id < 300",
    ] {
        match read_all(&mut c, sql) {
            Err(mysql::Error::MySqlError(e)) => {
                assert_eq!((e.code, e.state.as_str()), (1290, "HY000"), "{sql}");
                assert_eq!(e.message, expect, "{sql}");
            }
            other => panic!("{sql}: expected 1290, got {other:?}"),
        }
    }
    assert!(
        watch.max() < base + 128 * MB,
        "VmRSS grew from {} MB to {} MB",
        base / MB,
        watch.max() / MB
    );
    // Within the budget the same kinds of statement run.
    let n: i64 = c
        .query_first("select count(*) from (select a.id x, b.id y, count(*) n from a, b where b.id < 3 group by a.id, b.id) t")
        .expect("q")
        .expect("row");
    assert_eq!(n, 30_000);
    // MariaDB's minimum is 8192, with a warning.
    c.query_drop("set max_session_mem_used = 1").expect("set");
    let w: Vec<(String, u16, String)> = c.query("show warnings").expect("warnings");
    assert_eq!(
        w,
        vec![(
            "Warning".into(),
            1292,
            "Truncated incorrect max_session_mem_used value: '1'".into()
        )]
    );
    let v: u64 = c
        .query_first("select @@max_session_mem_used")
        .expect("q")
        .expect("row");
    assert_eq!(v, 8192);
    c.query_drop("set max_session_mem_used = default")
        .expect("reset");
    let v: u64 = c
        .query_first("select @@max_session_mem_used")
        .expect("q")
        .expect("row");
    assert_eq!(v, default);
}

#[test]
fn million_literal_in_list_is_refused_within_the_budget() {
    let (b, _admin) = server_with_tables(1_000);
    let pid = b.pid();
    let base = rss(pid);
    let watch = RssWatch::start(pid);
    let mut c = connect(&b.url_db("big"));
    let list: Vec<String> = (0..1_000_000).map(|i| i.to_string()).collect();
    let sql = format!("select count(*) from a where id in ({})", list.join(","));
    c.query_drop("set max_session_mem_used = 128 * 1024 * 1024")
        .expect("set");
    let e = c.query_drop(&sql).expect_err("over the budget");
    assert_eq!(err_code(&e), Some(1290), "{e}");
    assert!(
        watch.max() < base + 160 * MB,
        "VmRSS grew from {} MB to {} MB",
        base / MB,
        watch.max() / MB
    );
    // A prepared statement of that size is refused the same way.
    let e = c.prep(&sql).expect_err("prepare over the budget");
    assert_eq!(err_code(&e), Some(1290), "{e}");
    // A list that fits runs.
    let list: Vec<String> = (0..100_000).map(|i| (i * 7).to_string()).collect();
    let n: i64 = c
        .query_first(format!(
            "select count(*) from a where id in ({})",
            list.join(",")
        ))
        .expect("q")
        .expect("row");
    assert_eq!(n, 143);
}

#[test]
fn error_after_rows_ends_the_result_with_err() {
    let (b, _admin) = server_with_tables(10_000);
    let mut c = connect(&b.url_db("big"));
    // The scalar subquery finds two rows at a.id = 9000: 9,000 rows (far more than
    // one 16 KiB chunk) have gone out by then.
    let sql =
        "select a.id, a.v, (select b.id from b where b.id in (a.id, if(a.id = 9000, 1, a.id))) \
               from a order by a.id";
    let mut result = c.query_iter(sql).expect("query");
    let mut n = 0;
    let mut code = None;
    for r in result.iter().expect("result set") {
        match r {
            Ok(_) => n += 1,
            Err(e) => {
                code = err_code(&e);
                break;
            }
        }
    }
    drop(result);
    assert_eq!((n, code), (9000, Some(1242)));
    let one: i64 = c.query_first("select 1").expect("q").expect("row");
    assert_eq!(one, 1);
}

#[test]
fn multi_results_and_found_rows_with_streamed_results() {
    let (b, _admin) = server_with_tables(10_000);
    let opts = mysql::OptsBuilder::from_opts(Opts::from_url(&b.url_db("big")).expect("url"));
    let mut c = Conn::new(opts).expect("connect");
    // A result bigger than one chunk, then more statements in the same command.
    let mut result = c
        .query_iter("select id, v from a; select count(*) from b; select sql_calc_found_rows id from a order by v desc limit 5; select found_rows()")
        .expect("multi");
    let mut sets = Vec::new();
    while let Some(set) = result.iter() {
        let rows: Vec<mysql::Row> = set.map(|r| r.expect("row")).collect();
        sets.push(rows);
    }
    drop(result);
    assert_eq!(sets.len(), 4);
    assert_eq!(sets[0].len(), 10_000);
    assert_eq!(mysql::from_row::<i64>(sets[1][0].clone()), 10_000);
    let top: Vec<i64> = sets[2].iter().map(|r| mysql::from_row(r.clone())).collect();
    assert_eq!(top, vec![9999, 9998, 9997, 9996, 9995]);
    assert_eq!(mysql::from_row::<i64>(sets[3][0].clone()), 10_000);
    // FOUND_ROWS() of a streamed SELECT with LIMIT.
    let _: Vec<i64> = c
        .query("select sql_calc_found_rows id from a where id >= 100 limit 7")
        .expect("q");
    let found: i64 = c
        .query_first("select found_rows()")
        .expect("q")
        .expect("row");
    assert_eq!(found, 9_900);
    let _: Vec<i64> = c.query("select id from a limit 7").expect("q");
    let found: i64 = c
        .query_first("select found_rows()")
        .expect("q")
        .expect("row");
    assert_eq!(found, 7);
}

#[test]
fn prepared_results_stream_and_cursors_spill() {
    let (b, mut admin) = server_with_tables(10_000);
    let pid = b.pid();
    let base = rss(pid);
    let watch = RssWatch::start(pid);
    // Binary rows stream like text rows.
    let mut c = connect(&b.url_db("big"));
    let id = c.connection_id();
    let stmt = c
        .prep("select a.id, b.v from a, b where a.id < ?")
        .expect("prep");
    let mut result = c.exec_iter(&stmt, (5000,)).expect("exec");
    let mut rows = result.iter().expect("set");
    for _ in 0..200_000 {
        rows.next().expect("row").expect("row ok");
    }
    admin
        .query_drop(format!("kill query {id}"))
        .expect("kill query");
    let ended = rows
        .by_ref()
        .take(5_000_000)
        .find_map(|r| r.err())
        .map(|e| err_code(&e));
    assert_eq!(ended, Some(Some(1317)));
    drop(rows);
    drop(result);
    // A read-only cursor over 300,000 rows (about 60 MB in memory) keeps at most
    // 16 MB of them in memory and the rest in a temporary file.
    let mut s = basalt_tests::raw_login(b.port);
    wire::query_ok(&mut s, "use big");
    let sel = wire::prepare(
        &mut s,
        "select a.id, b.id, repeat('x', 100) from a, b where b.id < ? order by b.id, a.id",
    )
    .expect("prepare");
    let wire::Reply::Rows { status, .. } = wire::execute(&mut s, sel.id, 1, &[wire::p_long(30)])
    else {
        panic!("expected cursor metadata")
    };
    assert_ne!(status & wire::STATUS_CURSOR_EXISTS, 0);
    let mut next = 0i64;
    loop {
        let (rows, st) = wire::fetch(&mut s, sel.id, 50_000).expect("fetch");
        for r in &rows {
            // Binary row: header, 1-byte NULL bitmap, then a LONG and a LONG.
            let aid = i32::from_le_bytes(r[2..6].try_into().expect("a.id")) as i64;
            let bid = i32::from_le_bytes(r[6..10].try_into().expect("b.id")) as i64;
            assert_eq!(bid * 10_000 + aid, next);
            next += 1;
        }
        if st & wire::STATUS_LAST_ROW_SENT != 0 {
            break;
        }
    }
    assert_eq!(next, 300_000);
    assert!(
        watch.max() < base + 96 * MB,
        "VmRSS grew from {} MB to {} MB",
        base / MB,
        watch.max() / MB
    );
    wire::still_works(&mut s);
}

/// MariaDB sends the same rows before a mid-result error, and sorts a result far
/// bigger than its sort buffer into the same order.
#[test]
#[ignore = "needs mariadb-server; run by .ci/run"]
fn streamed_errors_and_spilled_sorts_match_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&["--innodb-flush-log-at-trx-commit=2"]);
    let mut outcomes = Vec::new();
    for url in [b.url(), m.url()] {
        let mut c = connect(&url);
        c.query_drop("create database big").expect("create db");
        c.query_drop("use big").expect("use");
        c.query_drop("create table a (id int primary key, v varchar(20))")
            .expect("create");
        let words = [
            "Apfel", "apfel", "Zebra", "zebra", "ECLAIR", "eclair", "ol", "Ol ",
        ];
        let values: Vec<String> = (0..20_000)
            .map(|i| format!("({i}, '{}{}')", words[i % words.len()], (i * 7919) % 1000))
            .collect();
        c.query_drop(format!("insert into a values {}", values.join(",")))
            .expect("insert");
        c.query_drop("set sort_buffer_size = 32768").expect("set");
        let sorted: Vec<(i64, String)> = c
            .query("select a.id, a.v from a order by a.v desc, a.id")
            .expect("sorted");
        let mut result = c
            .query_iter(
                "select a.id, repeat('x', 30), \
                 (select x.id from a x where x.id < 3000 and x.id in (a.id, if(a.id = 2500, 1, a.id))) \
                 from a where a.id < 3000 order by a.id",
            )
            .expect("query");
        let mut n = 0;
        let mut code = None;
        for r in result.iter().expect("set") {
            match r {
                Ok(_) => n += 1,
                Err(e) => {
                    code = err_code(&e);
                    break;
                }
            }
        }
        drop(result);
        outcomes.push((sorted, n, code));
    }
    assert_eq!(outcomes[0].1, 2500, "rows before the error");
    assert_eq!(outcomes[0].1, outcomes[1].1, "rows before the error");
    assert_eq!(outcomes[0].2, outcomes[1].2, "the error");
    assert_eq!(outcomes[0].0.len(), outcomes[1].0.len());
    if let Some(i) = (0..outcomes[0].0.len()).find(|&i| outcomes[0].0[i] != outcomes[1].0[i]) {
        panic!(
            "sorted rows differ at {i}: basalt {:?}, mariadb {:?}",
            &outcomes[0].0[i.saturating_sub(2)..i + 3],
            &outcomes[1].0[i.saturating_sub(2)..i + 3]
        );
    }
}
