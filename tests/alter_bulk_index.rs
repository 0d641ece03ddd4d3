//! ADD INDEX builds its tree bottom-up from sorted entries; with a sort budget small
//! enough to spill runs to `datadir/sort` (`BASALT_INDEX_SORT_BUFFER`, set for the
//! servers this test starts), the index agrees with the rows (CHECK TABLE), takes
//! inserts, updates and deletes, refuses a duplicate of a UNIQUE key, and leaves no
//! run files; a kill -9 in the middle of the build leaves the table as before and
//! no files behind once the server is up again.

use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Small enough that tens of thousands of rows spill several runs.
const BUDGET: &str = "65536";

fn start() -> Basalt {
    std::env::set_var("BASALT_INDEX_SORT_BUFFER", BUDGET);
    Basalt::start()
}

fn conn(b: &Basalt) -> Conn {
    let mut c = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect");
    c.query_drop("create database if not exists a").expect("db");
    c.query_drop("use a").expect("use");
    c
}

fn fill(c: &mut Conn, rows: i64) {
    c.query_drop("create table t (id int primary key, name varchar(40), n int)")
        .expect("create");
    for from in (0..rows).step_by(5000) {
        let values: Vec<String> = (from..(from + 5000).min(rows))
            .map(|i| format!("({i},'name {:07}',{})", (i * 7919) % 1_000_003, i % 10))
            .collect();
        c.query_drop(format!("insert into t values {}", values.join(",")))
            .expect("fill");
    }
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.map(|e| e.expect("entry").path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn check_ok(c: &mut Conn) {
    let check: Vec<(String, String, String, String)> = c.query("check table t").expect("check");
    assert_eq!(check.last().expect("a row").3, "OK", "{check:?}");
}

/// The ids in the order index `ix` gives, and in the order the rows give (with the
/// secondary indexes `all` ignored).
fn orders(c: &mut Conn, ix: &str, all: &str) -> (Vec<i64>, Vec<i64>) {
    let by_index: Vec<i64> = c
        .query(format!(
            "select id from t force index ({ix}) where name > '' order by name, id"
        ))
        .expect("by index");
    let by_rows: Vec<i64> = c
        .query(format!(
            "select id from t ignore index ({all}) where name > '' order by name, id"
        ))
        .expect("by rows");
    (by_index, by_rows)
}

fn err_code(c: &mut Conn, q: &str) -> u16 {
    match c.query_drop(q) {
        Err(mysql::Error::MySqlError(m)) => m.code,
        other => panic!("{q}: expected a server error, got {other:?}"),
    }
}

#[test]
fn a_spilled_build_agrees_with_the_rows_and_takes_dml() {
    let b = start();
    let mut c = conn(&b);
    let rows = 60_000;
    fill(&mut c, rows);
    c.query_drop("alter table t add key kn (name)")
        .expect("add key");
    let sort_dir = b.datadir.join("sort");
    assert_eq!(files(&sort_dir), Vec::<PathBuf>::new());
    let (by_index, by_rows) = orders(&mut c, "kn", "kn");
    assert_eq!(by_index.len(), rows as usize);
    assert_eq!(by_index, by_rows);
    check_ok(&mut c);

    c.query_drop("update t set name = 'name 0000000' where id = 59999")
        .expect("make a duplicate");
    assert_eq!(
        err_code(&mut c, "alter table t add unique key un (name)"),
        1062
    );
    assert_eq!(files(&sort_dir), Vec::<PathBuf>::new());
    c.query_drop("update t set name = null where id = 59999")
        .expect("undo the duplicate");
    c.query_drop("alter table t add unique key un (name)")
        .expect("add unique");
    check_ok(&mut c);

    c.query_drop(
        "insert into t select id + 100000, concat('new ', name), n from t where id % 4 = 0",
    )
    .expect("insert");
    c.query_drop("update t set name = concat(name, ' x') where id % 7 = 3")
        .expect("update");
    c.query_drop("delete from t where id % 5 = 1")
        .expect("delete");
    assert_eq!(
        err_code(&mut c, "insert into t values (500000, 'name 0015838', 0)"),
        1062
    );
    for ix in ["kn", "un"] {
        let (by_index, by_rows) = orders(&mut c, ix, "kn, un");
        assert_eq!(by_index, by_rows, "{ix}");
    }
    check_ok(&mut c);
}

#[test]
fn kill_during_a_build_leaves_the_table_and_no_files() {
    let mut b = start();
    let mut c = conn(&b);
    fill(&mut c, 150_000);
    let show = |c: &mut Conn| -> String {
        let row: Option<(String, String)> =
            c.query_first("show create table t").expect("show create");
        row.expect("a row").1
    };
    let before = show(&mut c);
    let tables_before = files(&b.datadir.join("tables"));
    let sort_dir = b.datadir.join("sort");
    let url = b.url();
    let alter = std::thread::spawn(move || {
        let mut c = Conn::new(Opts::from_url(&url).expect("url")).expect("connect");
        c.query_drop("alter table a.t add key kn (name)")
    });
    // The build is under way once it has spilled a run.
    let deadline = Instant::now() + Duration::from_secs(120);
    while files(&sort_dir).is_empty() {
        assert!(
            !alter.is_finished(),
            "the build ended before a run was seen"
        );
        assert!(Instant::now() < deadline, "no run file appeared");
        std::thread::sleep(Duration::from_millis(1));
    }
    b.kill9();
    assert!(
        alter.join().expect("alter thread").is_err(),
        "killed mid-build"
    );
    assert!(!files(&sort_dir).is_empty(), "the crash left runs behind");
    b.restart(false);
    let mut c = conn(&b);
    assert_eq!(
        files(&sort_dir),
        Vec::<PathBuf>::new(),
        "runs removed at start"
    );
    assert_eq!(files(&b.datadir.join("tables")), tables_before);
    assert_eq!(show(&mut c), before, "the table is as before");
    let n: Option<i64> = c.query_first("select count(*) from t").expect("count");
    assert_eq!(n, Some(150_000));
    check_ok(&mut c);
    c.query_drop("alter table t add key kn (name)")
        .expect("the build runs again");
    let (by_index, by_rows) = orders(&mut c, "kn", "kn");
    assert_eq!(by_index, by_rows);
    check_ok(&mut c);
}
