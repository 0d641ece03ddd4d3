//! Helpers for SQL tests: an engine over a temporary data directory.

#![allow(dead_code)]

use basalt_common::{MySqlError, Value};
use basalt_sql::{Engine, GlobalConfig, QueryResult, Session};
use basalt_storage::{Storage, StorageConfig};
use std::sync::Arc;

pub struct Db {
    pub engine: Arc<Engine>,
    _dir: tempfile::TempDir,
}

impl Db {
    pub fn new() -> Db {
        let dir = tempfile::tempdir().expect("tempdir");
        let storage = Storage::open(StorageConfig::new(dir.path())).expect("open storage");
        let engine = Engine::new(storage, GlobalConfig::default());
        Db { engine, _dir: dir }
    }

    pub fn session(&self) -> Session {
        let mut s = self.engine.new_session(1, "root", "localhost");
        s.use_database("test").expect("test database exists");
        s
    }
}

/// Runs one statement, panicking on error.
pub fn exec(s: &mut Session, sql: &str) -> QueryResult {
    let mut r = s.execute(sql);
    assert_eq!(r.len(), 1, "{sql}");
    match r.remove(0) {
        Ok(q) => q,
        Err(e) => panic!("{sql}: {e}"),
    }
}

/// Runs one statement expected to fail; returns the error.
pub fn err(s: &mut Session, sql: &str) -> MySqlError {
    let mut r = s.execute(sql);
    match r.pop() {
        Some(Err(e)) => e,
        other => panic!("{sql}: expected an error, got {other:?}"),
    }
}

/// Result rows rendered as text (NULL as "NULL").
pub fn rows(s: &mut Session, sql: &str) -> Vec<Vec<String>> {
    match exec(s, sql) {
        QueryResult::Rows { rows, .. } => rows
            .iter()
            .map(|r| r.iter().map(render).collect())
            .collect(),
        other => panic!("{sql}: expected rows, got {other:?}"),
    }
}

pub fn render(v: &Value) -> String {
    match v.to_text(6) {
        None => "NULL".into(),
        Some(b) => String::from_utf8_lossy(&b).into_owned(),
    }
}

/// The single value of a one-row, one-column result.
pub fn one(s: &mut Session, sql: &str) -> String {
    let r = rows(s, sql);
    assert_eq!(r.len(), 1, "{sql}: {r:?}");
    assert_eq!(r[0].len(), 1, "{sql}: {r:?}");
    r[0][0].clone()
}

pub fn affected(s: &mut Session, sql: &str) -> u64 {
    match exec(s, sql) {
        QueryResult::Ok { affected_rows, .. } => affected_rows,
        other => panic!("{sql}: expected OK, got {other:?}"),
    }
}
