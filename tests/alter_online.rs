//! ALTER TABLE copies that let writers go on (LOCK=NONE): writers insert, update,
//! delete and roll back while ADD INDEX, DROP COLUMN and MODIFY copy a table;
//! some of their transactions start and commit while the ALTER runs, and
//! afterwards the table holds exactly what they committed, with every index in
//! agreement (CHECK TABLE) and a new UNIQUE key enforced.

use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

const ROWS: i64 = 100_000;

fn conn(b: &Basalt) -> Conn {
    let mut c = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect");
    c.query_drop("create database if not exists a").expect("db");
    c.query_drop("use a").expect("use");
    c
}

/// What one writer committed: id -> v, for its own ids (id % 4 == w).
type Model = BTreeMap<i64, i64>;

/// Changes rows of its own share until `stop`; returns what it committed and how
/// many of its transactions began after `since` and committed before `stop` was
/// seen (those ran entirely while the ALTER ran).
fn writer(mut c: Conn, w: i64, stop: Arc<AtomicBool>, started: Arc<AtomicBool>) -> (Model, u32) {
    let mut model: Model = (0..ROWS).filter(|i| i % 4 == w).map(|i| (i, i)).collect();
    let mut during = 0u32;
    let mut n = 0i64;
    while !stop.load(Ordering::SeqCst) && n < 200_000 {
        n += 1;
        let inside = started.load(Ordering::SeqCst);
        let id = (n * 7919 % ROWS) / 4 * 4 + w;
        let fresh = ROWS + n * 4 + w;
        c.query_drop("begin").expect("begin");
        c.exec_drop("update t set v = v + 1 where id = ?", (id,))
            .expect("update");
        c.exec_drop(
            "insert into t (id, v, pad) values (?, ?, 'new')",
            (fresh, fresh),
        )
        .expect("insert");
        if n % 5 == 0 {
            c.exec_drop("delete from t where id = ?", (fresh,))
                .expect("delete");
        }
        if n % 7 == 0 {
            c.query_drop("rollback").expect("rollback");
            continue;
        }
        c.query_drop("commit").expect("commit");
        if let Some(v) = model.get_mut(&id) {
            *v += 1;
        }
        if n % 5 != 0 {
            model.insert(fresh, fresh);
        }
        if inside && !stop.load(Ordering::SeqCst) {
            during += 1;
        }
    }
    (model, during)
}

#[test]
fn writers_go_on_during_online_copies_and_lose_nothing() {
    let b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop(
        "create table t (id bigint primary key, v bigint, pad varchar(40), old int default 1)",
    )
    .expect("create");
    for from in (0..ROWS).step_by(10_000) {
        let values: Vec<String> = (from..from + 10_000)
            .map(|i| format!("({i},{i},repeat('x',30))"))
            .collect();
        c.query_drop(format!(
            "insert into t (id, v, pad) values {}",
            values.join(",")
        ))
        .expect("fill");
    }
    let alters = [
        "alter table t add key kv (v), lock=none",
        "alter table t drop column old, add unique key upad (id, pad), algorithm=inplace",
        "alter table t modify pad varchar(60) not null default '', lock=none",
    ];
    for q in alters {
        let stop = Arc::new(AtomicBool::new(false));
        let started = Arc::new(AtomicBool::new(false));
        let workers: Vec<_> = (0..4)
            .map(|w| {
                let wc = conn(&b);
                let (stop, started) = (stop.clone(), started.clone());
                std::thread::spawn(move || writer(wc, w, stop, started))
            })
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(200));
        started.store(true, Ordering::SeqCst);
        let t0 = Instant::now();
        c.query_drop(q).unwrap_or_else(|e| panic!("{q}: {e}"));
        let took = t0.elapsed();
        stop.store(true, Ordering::SeqCst);
        let mut model = Model::new();
        let mut during = 0;
        for h in workers {
            let (m, d) = h.join().expect("writer");
            model.extend(m);
            during += d;
        }
        eprintln!("{q}: {took:?}, {during} writer transactions committed during it");
        assert!(during > 0, "{q}: no writer transaction ran while it copied");
        let got: Vec<(i64, i64)> = c.query("select id, v from t order by id").expect("rows");
        let want: Vec<(i64, i64)> = model.into_iter().collect();
        assert_eq!(got.len(), want.len(), "row count after {q}");
        assert!(got == want, "rows differ after {q}");
        let check: Vec<(String, String, String, String)> = c.query("check table t").expect("check");
        assert_eq!(check.last().expect("a row").3, "OK", "{q}: {check:?}");
        let by_index: Option<i64> = c
            .query_first("select count(*) from t force index (kv) where v >= 0")
            .expect("count");
        assert_eq!(by_index, Some(got.len() as i64), "{q}");
        // The table is written again after the switch.
        c.query_drop("update t set v = v where id = 1")
            .expect("write");
        // Back to the starting rows for the next ALTER's writers.
        c.query_drop(format!("delete from t where id >= {ROWS}"))
            .expect("reset");
        c.query_drop("update t set v = id").expect("reset");
    }
    let dup = c.query_drop("insert into t (id, v, pad) values (1, 1, 'x')");
    assert!(matches!(dup, Err(mysql::Error::MySqlError(ref e)) if e.code == 1062));
}

fn err_code(c: &mut Conn, q: &str) -> u16 {
    match c.query_drop(q) {
        Err(mysql::Error::MySqlError(m)) => m.code,
        other => panic!("{q}: expected a server error, got {other:?}"),
    }
}

fn show(c: &mut Conn, t: &str) -> String {
    let row: Option<(String, String)> = c
        .query_first(format!("show create table {t}"))
        .expect("show create");
    row.expect("a row").1
}

#[test]
fn an_added_index_is_built_in_place_and_survives_kill() {
    let mut b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create table t (id int primary key, v int, w int)")
        .expect("create");
    let values: Vec<String> = (1..=2000)
        .map(|i| format!("({i},{},{i})", i % 100))
        .collect();
    c.query_drop(format!("insert into t values {}", values.join(",")))
        .expect("fill");
    c.query_drop("alter table t add column x int not null default 5")
        .expect("instant add");
    c.query_drop("alter table t add key kx (x, v), lock=none")
        .expect("add key");
    assert_eq!(c.affected_rows(), 0, "built in place, no rows copied");
    let n: Option<i64> = c
        .query_first("select count(*) from t force index (kx) where x = 5 and v = 7")
        .expect("count");
    assert_eq!(n, Some(20));
    let before = show(&mut c, "t");
    assert_eq!(
        err_code(&mut c, "alter table t add unique key uv (v)"),
        1062
    );
    assert_eq!(show(&mut c, "t"), before, "a failed build changes nothing");
    c.query_drop("alter table t add unique key uw (w), algorithm=inplace")
        .expect("add unique");
    assert_eq!(
        err_code(&mut c, "insert into t values (5000, 1, 7, 5)"),
        1062
    );
    c.query_drop("alter table t add key kw2 (w, v), auto_increment = 9000")
        .expect("add key with a table option");
    assert!(show(&mut c, "t").contains("KEY `kw2` (`w`,`v`)"));
    c.query_drop("create table h (a int, b int)")
        .expect("no pk");
    c.query_drop("insert into h values (1, 2), (3, 4), (5, 4)")
        .expect("fill h");
    c.query_drop("alter table h add key kb (b), lock=none")
        .expect("add key without a primary key");
    let want = show(&mut c, "t");
    drop(c);
    b.restart(true);
    let mut c = conn(&b);
    assert_eq!(show(&mut c, "t"), want, "after kill -9");
    for t in ["t", "h"] {
        let check: Vec<(String, String, String, String)> =
            c.query(format!("check table {t}")).expect("check");
        assert_eq!(check.last().expect("a row").3, "OK", "{t}: {check:?}");
    }
    let w: Option<i64> = c
        .query_first("select id from t force index (uw) where w = 1234")
        .expect("lookup");
    assert_eq!(w, Some(1234));
    let n: Option<i64> = c
        .query_first("select count(*) from h force index (kb) where b = 4")
        .expect("count");
    assert_eq!(n, Some(2));
}
