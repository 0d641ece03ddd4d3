//! The first vertical slice: DDL, INSERT, SELECT with WHERE / ORDER BY / LIMIT,
//! variables and SHOW.

mod common;
use common::*;

#[test]
fn create_insert_select() {
    let db = Db::new();
    let mut s = db.session();
    exec(
        &mut s,
        "create table foo (i int primary key auto_increment, j int, k int, l int) engine=innodb",
    );
    assert_eq!(
        affected(
            &mut s,
            "insert into foo values (null,0,0,0),(null,0,0,0),(null,0,0,0)"
        ),
        3
    );
    assert_eq!(s.last_insert_id(), 1);
    exec(&mut s, "insert into foo select null,0,0,0 from foo");
    assert_eq!(one(&mut s, "select count(*) from foo"), "6");
    exec(&mut s, "update foo set j=i, k=i");
    assert_eq!(
        rows(&mut s, "select j from foo where i = 2"),
        vec![vec!["2"]]
    );
    assert_eq!(
        rows(&mut s, "select j from foo where i >= 3 order by i limit 2"),
        vec![vec!["3"], vec!["4"]]
    );
    exec(&mut s, "create index xj on foo(j)");
    exec(&mut s, "create index xjk on foo(j,k)");
    assert_eq!(
        rows(&mut s, "select k from foo where j = 5"),
        vec![vec!["5"]]
    );
    assert_eq!(
        rows(&mut s, "select k from foo FORCE INDEX(`xj`) where j = 5"),
        vec![vec!["5"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "select k from foo FORCE INDEX(`xjk`) where j >= 4 order by j limit 10"
        ),
        vec![vec!["4"], vec!["5"], vec!["6"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "select j from foo FORCE INDEX(`PRIMARY`) where i = 6"
        ),
        vec![vec!["6"]]
    );
}

#[test]
fn variables_and_info() {
    let db = Db::new();
    let mut s = db.session();
    assert_eq!(one(&mut s, "select @@version_comment limit 1"), "Basalt");
    assert_eq!(one(&mut s, "select database()"), "test");
    assert_eq!(one(&mut s, "select @@socket"), "");
    assert_eq!(one(&mut s, "select @@autocommit"), "1");
    exec(&mut s, "set autocommit = 0");
    assert_eq!(one(&mut s, "select @@session.autocommit"), "0");
    exec(&mut s, "set names utf8mb4");
    assert_eq!(one(&mut s, "select @@character_set_client"), "utf8mb4");
    exec(&mut s, "set character_set_results = NULL");
    assert_eq!(one(&mut s, "select @@character_set_results"), "NULL");
}

#[test]
fn show_statements() {
    let db = Db::new();
    let mut s = db.session();
    exec(&mut s, "create database d1");
    let dbs = rows(&mut s, "show databases");
    assert!(dbs.contains(&vec!["d1".to_string()]), "{dbs:?}");
    exec(&mut s, "use d1");
    exec(&mut s, "create table t (a int)");
    assert_eq!(rows(&mut s, "show tables"), vec![vec!["t"]]);
}

#[test]
fn benchmark_queries_use_the_plan_cache() {
    let db = Db::new();
    let mut s = db.session();
    exec(
        &mut s,
        "create table foo (i int primary key auto_increment, j int, k int, l int)",
    );
    exec(
        &mut s,
        "insert into foo values (null,1,1,1),(null,2,2,2),(null,3,3,3)",
    );
    exec(&mut s, "create index xj on foo(j)");
    let queries = [
        "select j from foo where i = 1",
        "select j from foo FORCE INDEX(`PRIMARY`) where i = 1",
        "select k from foo where j = 1",
        "select k from foo FORCE INDEX(`xj`) where j = 1",
        "select j from foo where i >= 1 order by i limit 10",
        "select k from foo FORCE INDEX(`xj`) where j >= 1 order by j limit 10",
    ];
    for q in queries {
        // A text is memoized on its second sighting; the third skips the cache.
        rows(&mut s, q);
        rows(&mut s, q);
        let before = db.engine.plan_cache_stats();
        rows(&mut s, q);
        assert_eq!(
            db.engine.plan_cache_stats(),
            before,
            "{q}: a repeated text is memoized"
        );
        let other = q.replace("= 1", "= 2").replace(">= 1", ">= 2");
        rows(&mut s, &other);
        let after = db.engine.plan_cache_stats();
        assert_eq!(after.0, before.0 + 1, "{other} should hit the plan cache");
        assert_eq!(after.1, before.1, "{other} should not miss");
    }
}
