//! Prepared statements: the binary-protocol API and SQL PREPARE / EXECUTE.

mod common;
use basalt_common::Value;
use basalt_sql::QueryResult;
use common::*;

#[test]
fn prepare_execute_with_params() {
    let db = Db::new();
    let mut s = db.session();
    exec(&mut s, "create table t (a int primary key, b varchar(10))");
    let ins = s.prepare("insert into t values (?, ?)").expect("prepare");
    assert_eq!(ins.params.len(), 2);
    assert!(ins.columns.is_empty());
    for i in 1..=3 {
        let r = s
            .execute_prepared(ins.id, &[Value::Int(i), Value::str(&format!("v{i}"))])
            .expect("insert");
        assert!(matches!(
            r,
            QueryResult::Ok {
                affected_rows: 1,
                ..
            }
        ));
    }
    let sel = s.prepare("select b from t where a = ?").expect("prepare");
    assert_eq!(sel.columns.len(), 1);
    assert_eq!(sel.columns[0].name, "b");
    match s
        .execute_prepared(sel.id, &[Value::Int(2)])
        .expect("select")
    {
        QueryResult::Rows { rows, .. } => assert_eq!(rows, vec![vec![Value::str("v2")]]),
        other => panic!("{other:?}"),
    }
    match s
        .execute_prepared(sel.id, &[Value::str("3")])
        .expect("select")
    {
        QueryResult::Rows { rows, .. } => assert_eq!(rows, vec![vec![Value::str("v3")]]),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        s.execute_prepared(sel.id, &[]).expect_err("arity").code,
        1210
    );
    s.close_prepared(sel.id);
    assert_eq!(
        s.execute_prepared(sel.id, &[Value::Int(1)])
            .expect_err("closed")
            .code,
        1243
    );
}

#[test]
fn sql_prepare_using_user_variables() {
    let db = Db::new();
    let mut s = db.session();
    exec(&mut s, "create table t (a int primary key, b int)");
    exec(&mut s, "insert into t values (1, 10), (2, 20), (3, 30)");
    exec(
        &mut s,
        "prepare st from 'select b from t where a >= ? order by a limit ?'",
    );
    exec(&mut s, "set @lo = 2, @n = 1");
    assert_eq!(rows(&mut s, "execute st using @lo, @n"), vec![vec!["20"]]);
    exec(&mut s, "set @n = 5");
    assert_eq!(
        rows(&mut s, "execute st using @lo, @n"),
        vec![vec!["20"], vec!["30"]]
    );
    exec(&mut s, "deallocate prepare st");
    assert_eq!(err(&mut s, "execute st using @lo, @n").code, 1243);
}

#[test]
fn plan_survives_ddl() {
    let db = Db::new();
    let mut s = db.session();
    exec(&mut s, "create table t (a int primary key, b int)");
    exec(&mut s, "insert into t values (1, 10)");
    let sel = s.prepare("select b from t where a = ?").expect("prepare");
    exec(&mut s, "create index ib on t (b)");
    exec(&mut s, "insert into t values (2, 20)");
    match s
        .execute_prepared(sel.id, &[Value::Int(2)])
        .expect("select")
    {
        QueryResult::Rows { rows, .. } => assert_eq!(rows, vec![vec![Value::Int(20)]]),
        other => panic!("{other:?}"),
    }
}
