//! The Session API the server uses beyond `execute`: multi-statements, field lists,
//! warnings, status flags, found-rows, KILL through hooks.

mod common;
use basalt_common::{MySqlError, Value};
use basalt_sql::{status, ProcessInfo, QueryResult, ServerHooks};
use common::*;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

#[test]
fn multi_statements() {
    let db = Db::new();
    let mut s = db.session();
    let r = s.execute("select 1; select 2");
    assert_eq!(r.len(), 1);
    let e = r[0].as_ref().expect_err("off by default");
    assert_eq!(e.code, 1064);
    assert!(
        e.message.ends_with("near 'select 2' at line 1"),
        "{}",
        e.message
    );
    s.set_multi_statements(true);
    let r = s.execute("select 1; select x; select 3");
    assert_eq!(r.len(), 2);
    assert!(r[0].is_ok());
    assert_eq!(r[1].as_ref().expect_err("unknown column").code, 1054);
    assert_eq!(s.execute("select 1;").len(), 1);
    assert_eq!(
        s.execute("  ").pop().and_then(Result::err).map(|e| e.code),
        Some(1065)
    );
}

#[test]
fn field_list_and_use() {
    let db = Db::new();
    let mut s = db.session();
    exec(
        &mut s,
        "create table t (a int primary key, bee varchar(10), bat int)",
    );
    let cols = s.field_list("t", None).expect("field list");
    let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a", "bee", "bat"]);
    assert_eq!(cols[0].table, "t");
    let cols = s.field_list("t", Some("b%")).expect("field list");
    assert_eq!(cols.len(), 2);
    assert_eq!(s.field_list("nope", None).expect_err("missing").code, 1146);
    assert_eq!(s.use_database("nodb").expect_err("missing").code, 1049);
    assert_eq!(s.current_database(), Some("test"));
}

#[test]
fn warnings_and_flags() {
    let db = Db::new();
    let mut s = db.session();
    exec(&mut s, "drop table if exists nope");
    assert_eq!(s.warning_count(), 1);
    assert_eq!(
        rows(&mut s, "show warnings"),
        vec![vec![
            "Note".to_string(),
            "1051".into(),
            "Unknown table 'test.nope'".into()
        ]]
    );
    // A SELECT without tables keeps the list (MariaDB).
    assert_eq!(one(&mut s, "select @@warning_count"), "1");
    exec(&mut s, "create table t (a int, b int)");
    exec(&mut s, "insert into t values (1, 1), (2, 2)");
    rows(&mut s, "select * from t where b = 1");
    assert_ne!(s.status_flags() & status::NO_INDEX_USED, 0);
    assert_ne!(s.status_flags() & status::AUTOCOMMIT, 0);
    assert_eq!(err(&mut s, "select nope from t").code, 1054);
    assert_eq!(
        rows(&mut s, "show errors"),
        vec![vec![
            "Error".to_string(),
            "1054".into(),
            "Unknown column 'nope' in 'SELECT'".into()
        ]]
    );
}

#[test]
fn found_rows_flag() {
    let db = Db::new();
    let mut s = db.session();
    exec(&mut s, "create table t (a int primary key, b int)");
    exec(&mut s, "insert into t values (1, 1), (2, 2)");
    assert_eq!(affected(&mut s, "update t set b = 1"), 1);
    s.set_client_found_rows(true);
    assert_eq!(affected(&mut s, "update t set b = 1"), 2);
    match exec(&mut s, "update t set b = 3 where a = 1") {
        QueryResult::Ok { info, .. } => {
            assert_eq!(info, "Rows matched: 1  Changed: 1  Warnings: 0")
        }
        other => panic!("{other:?}"),
    }
}

#[derive(Default)]
struct Hooks {
    killed: Mutex<Vec<(u64, bool)>>,
    shutdowns: Mutex<Vec<u64>>,
}

impl ServerHooks for Hooks {
    fn processlist(&self) -> Vec<ProcessInfo> {
        vec![ProcessInfo {
            id: 7,
            user: "root".into(),
            host: "localhost".into(),
            command: "Sleep".into(),
            ..ProcessInfo::default()
        }]
    }
    fn kill(&self, id: u64, query_only: bool) -> Result<(), MySqlError> {
        if id != 7 {
            return Err(MySqlError::unknown_thread(id));
        }
        self.killed.lock().expect("lock").push((id, query_only));
        Ok(())
    }
    fn global_status(&self) -> Vec<(String, Value)> {
        vec![("Threads_connected".into(), Value::Int(1))]
    }
    fn shutdown(&self, by: u64) -> Result<(), MySqlError> {
        self.shutdowns.lock().expect("lock").push(by);
        Ok(())
    }
}

#[test]
fn kill_and_processlist_through_hooks() {
    let db = Db::new();
    let hooks = Arc::new(Hooks::default());
    db.engine.set_hooks(hooks.clone());
    let mut s = db.session();
    exec(&mut s, "kill query 7");
    exec(&mut s, "kill 7");
    assert_eq!(err(&mut s, "kill 8").code, 1094);
    assert_eq!(
        *hooks.killed.lock().expect("lock"),
        vec![(7, true), (7, false)]
    );
    exec(&mut s, "shutdown");
    exec(&mut s, "SHUTDOWN WAIT FOR ALL SLAVES");
    assert_eq!(err(&mut s, "shutdown wait").code, 1064);
    assert_eq!(hooks.shutdowns.lock().expect("lock").len(), 2);
    let pl = rows(&mut s, "show processlist");
    assert_eq!(pl[0][0], "7");
    assert_eq!(
        one(
            &mut s,
            "select count(*) from information_schema.processlist"
        ),
        "1"
    );
    let st = rows(&mut s, "show global status like 'Threads_connected'");
    assert_eq!(st, vec![vec!["Threads_connected".to_string(), "1".into()]]);
    let flag = s.interrupt_flag();
    flag.store(true, Ordering::Relaxed);
    exec(&mut s, "select 1");
    assert!(
        !flag.load(Ordering::Relaxed),
        "each statement starts uninterrupted"
    );
}

#[test]
fn ok_packet_insert_id() {
    let db = Db::new();
    let mut s = db.session();
    exec(
        &mut s,
        "create table t (id int auto_increment primary key, v int)",
    );
    let ok_id = |s: &mut basalt_sql::Session, sql: &str| match exec(s, sql) {
        QueryResult::Ok { last_insert_id, .. } => last_insert_id,
        other => panic!("{sql}: {other:?}"),
    };
    // Values checked against MariaDB 10.11's mysql_insert_id().
    assert_eq!(ok_id(&mut s, "insert into t(id,v) values (10,1)"), 10);
    assert_eq!(ok_id(&mut s, "insert into t(v) values (2)"), 11);
    assert_eq!(
        ok_id(&mut s, "insert into t(id,v) values (20,1),(null,2)"),
        21
    );
    assert_eq!(
        ok_id(&mut s, "insert into t(id,v) values (30,1),(31,2)"),
        31
    );
    assert_eq!(ok_id(&mut s, "update t set v=5 where id=10"), 0);
    assert_eq!(ok_id(&mut s, "insert into t(v) values (1),(2)"), 32);
    // LAST_INSERT_ID() follows generated values only.
    assert_eq!(rows(&mut s, "select last_insert_id()"), [["32"]]);
    exec(&mut s, "insert into t(id,v) values (40,1)");
    assert_eq!(rows(&mut s, "select last_insert_id()"), [["32"]]);
}
