//! Small helpers the end-to-end tests share for talking to a server through the
//! `mysql` crate: log in as root or as an account, run a statement expecting
//! success or an error, read one text column.

use crate::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

/// A server error as (errno, message).
pub type ServerError = (u16, String);

/// root over TCP.
pub fn root(b: &Basalt) -> Conn {
    Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect as root")
}

/// `user` with `password` over TCP; a refused login gives the server's error.
pub fn login(b: &Basalt, user: &str, password: &str) -> Result<Conn, ServerError> {
    let url = format!(
        "mysql://{user}:{password}@127.0.0.1:{}/?prefer_socket=false",
        b.port
    );
    Conn::new(Opts::from_url(&url).expect("url")).map_err(|e| match e {
        mysql::Error::MySqlError(e) => (e.code, e.message),
        e => panic!("login {user}: not a server error: {e:?}"),
    })
}

/// Runs `sql`, which must succeed.
pub fn ok(c: &mut Conn, sql: &str) {
    c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// Runs `sql`, which must fail with a server error.
pub fn error(c: &mut Conn, sql: &str) -> ServerError {
    match c.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => (e.code, e.message),
        Err(e) => panic!("{sql}: not a server error: {e:?}"),
        Ok(()) => panic!("{sql}: succeeded, expected an error"),
    }
}

/// The first column of every row of `sql`, as text.
pub fn lines(c: &mut Conn, sql: &str) -> Vec<String> {
    c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The first column of the first row of `sql`; `None` for NULL.
pub fn value(c: &mut Conn, sql: &str) -> Option<String> {
    let row: Option<mysql::Row> = c.query_first(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    crate::cell(&row.expect("a row")[0])
}
