//! Transactions through sessions: autocommit, explicit transactions, savepoints,
//! statement-level rollback, isolation between sessions, locking reads.

mod common;
use basalt_sql::status;
use common::*;

#[test]
fn failed_statement_leaves_no_rows() {
    let db = Db::new();
    let mut s = db.session();
    exec(&mut s, "create table t (a int primary key)");
    exec(&mut s, "insert into t values (5)");
    let e = err(&mut s, "insert into t values (1), (2), (5), (6)");
    assert_eq!(e.code, 1062);
    assert_eq!(e.message, "Duplicate entry '5' for key 'PRIMARY'");
    assert_eq!(one(&mut s, "select count(*) from t"), "1");
    exec(&mut s, "begin");
    exec(&mut s, "insert into t values (7)");
    assert_eq!(err(&mut s, "insert into t values (8), (7)").code, 1062);
    assert_eq!(
        rows(&mut s, "select a from t order by a"),
        vec![vec!["5"], vec!["7"]]
    );
    exec(&mut s, "commit");
    assert_eq!(one(&mut s, "select count(*) from t"), "2");
}

#[test]
fn rollback_and_visibility() {
    let db = Db::new();
    let mut s1 = db.session();
    let mut s2 = db.session();
    exec(&mut s1, "create table t (a int primary key, b int)");
    exec(&mut s1, "start transaction");
    assert_ne!(s1.status_flags() & status::IN_TRANS, 0);
    exec(&mut s1, "insert into t values (1, 1)");
    assert_eq!(one(&mut s2, "select count(*) from t"), "0");
    exec(&mut s1, "rollback");
    assert_eq!(s1.status_flags() & status::IN_TRANS, 0);
    assert_eq!(one(&mut s1, "select count(*) from t"), "0");
    exec(&mut s1, "begin");
    exec(&mut s1, "insert into t values (2, 2)");
    exec(&mut s1, "commit");
    assert_eq!(one(&mut s2, "select b from t where a = 2"), "2");
}

#[test]
fn savepoints() {
    let db = Db::new();
    let mut s = db.session();
    exec(&mut s, "create table t (a int primary key)");
    exec(&mut s, "begin");
    exec(&mut s, "insert into t values (1)");
    exec(&mut s, "savepoint sp1");
    exec(&mut s, "insert into t values (2)");
    exec(&mut s, "rollback to savepoint sp1");
    exec(&mut s, "insert into t values (3)");
    exec(&mut s, "release savepoint sp1");
    assert_eq!(err(&mut s, "rollback to sp1").code, 1305);
    exec(&mut s, "commit");
    assert_eq!(
        rows(&mut s, "select a from t order by a"),
        vec![vec!["1"], vec!["3"]]
    );
}

#[test]
fn autocommit_off_keeps_transaction_open() {
    let db = Db::new();
    let mut s1 = db.session();
    let mut s2 = db.session();
    exec(&mut s1, "create table t (a int primary key)");
    exec(&mut s1, "set autocommit = 0");
    exec(&mut s1, "insert into t values (1)");
    assert_ne!(s1.status_flags() & status::IN_TRANS, 0);
    assert_eq!(s1.status_flags() & status::AUTOCOMMIT, 0);
    assert_eq!(one(&mut s2, "select count(*) from t"), "0");
    exec(&mut s1, "set autocommit = 1");
    assert_eq!(one(&mut s2, "select count(*) from t"), "1");
}

#[test]
fn ddl_commits_implicitly() {
    let db = Db::new();
    let mut s1 = db.session();
    let mut s2 = db.session();
    exec(&mut s1, "create table t (a int primary key)");
    exec(&mut s1, "begin");
    exec(&mut s1, "insert into t values (1)");
    exec(&mut s1, "create table u (b int)");
    assert_eq!(one(&mut s2, "select count(*) from t"), "1");
}

#[test]
fn locking_read_nowait_conflicts() {
    let db = Db::new();
    let mut s1 = db.session();
    let mut s2 = db.session();
    exec(&mut s1, "create table t (a int primary key, b int)");
    exec(&mut s1, "insert into t values (1, 1)");
    exec(&mut s1, "begin");
    assert_eq!(one(&mut s1, "select b from t where a = 1 for update"), "1");
    let e = err(&mut s2, "select b from t where a = 1 for update nowait");
    assert_eq!(e.code, 1205);
    assert_eq!(one(&mut s2, "select b from t where a = 1"), "1");
    exec(&mut s1, "commit");
    assert_eq!(
        one(&mut s2, "select b from t where a = 1 lock in share mode"),
        "1"
    );
}

#[test]
fn consistent_snapshot() {
    let db = Db::new();
    let mut s1 = db.session();
    let mut s2 = db.session();
    exec(&mut s1, "create table t (a int primary key)");
    exec(&mut s1, "start transaction with consistent snapshot");
    exec(&mut s2, "insert into t values (1)");
    assert_eq!(one(&mut s1, "select count(*) from t"), "0");
    exec(&mut s1, "commit");
    assert_eq!(one(&mut s1, "select count(*) from t"), "1");
}
