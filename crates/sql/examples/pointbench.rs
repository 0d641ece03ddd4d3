//! Per-query CPU of the SQL layer on the seed benchmark's table: builds `foo`
//! (64,000 rows) with the seed DDL, then times the seed queries through
//! `Session::execute` in one thread. Usage: `pointbench [iterations]`.

use basalt_sql::{Engine, GlobalConfig, QueryResult};
use basalt_storage::{Storage, StorageConfig};
use std::time::Instant;

fn run(s: &mut basalt_sql::Session, sql: &str) -> usize {
    match s.execute(sql).pop() {
        Some(Ok(QueryResult::Rows { rows, .. })) => rows.len(),
        Some(Ok(_)) => 0,
        Some(Err(e)) => panic!("{sql}: {e}"),
        None => 0,
    }
}

fn main() {
    let iters: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cfg = StorageConfig::new(dir.path());
    cfg.flush_log_at_trx_commit = 2;
    let storage = Storage::open(cfg).expect("open storage");
    let engine = Engine::new(storage, GlobalConfig::default());
    let mut s = engine.new_session(1, "root", "localhost");
    s.use_database("test").expect("test db");
    let ddl = std::fs::read_to_string("/work/shared/bench/seed-ddl.sql").expect("seed ddl");
    let t = Instant::now();
    for line in ddl.lines().filter(|l| !l.trim().is_empty()) {
        run(&mut s, line);
    }
    println!("seed ddl: {:?}", t.elapsed());
    let queries = [
        "select j from foo where i = 100",
        "select j from foo FORCE INDEX(`PRIMARY`) where i = 100",
        "select k from foo where j = 100",
        "select k from foo FORCE INDEX(`xj`) where j = 100",
        "select k from foo FORCE INDEX(`xjk`) where j = 100",
        "select j from foo where i >= 100 order by i limit 10",
        "select k from foo FORCE INDEX(`xj`) where j >= 100 order by j limit 10",
        "select k from foo FORCE INDEX(`xjk`) where j >= 100 order by j limit 10",
        "select j from foo where i >= 100 order by i limit 100",
        "select j from foo where i >= 100 order by i limit 1000",
    ];
    let only = std::env::var("POINTBENCH_ONLY").ok();
    for q in queries {
        if only.as_ref().is_some_and(|o| !q.contains(o.as_str())) {
            continue;
        }
        let n = if q.contains("limit 1000") {
            iters / 20
        } else {
            iters
        };
        let mut rows = 0;
        let t = Instant::now();
        for _ in 0..n {
            rows += run(&mut s, q);
        }
        let per = t.elapsed().as_secs_f64() * 1e6 / n as f64;
        println!("{per:8.2} us/query  {:6} rows  {q}", rows / n.max(1));
    }
}
