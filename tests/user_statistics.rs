//! information_schema USER_STATISTICS and CLIENT_STATISTICS: logins, live
//! sessions, statements, rows and bytes per account and per client address,
//! ended sessions kept, PROCESS needed to see them, FLUSH of each table on its
//! own, and `userstat` always ON.

use basalt_tests::client::{error, login, ok, root};
use basalt_tests::Basalt;
use mysql::prelude::*;

type Row = (String, i64, i64, i64, i64, i64, i64, i64, i64, f64, i64);

const COLUMNS: &str = "total_connections, concurrent_connections, select_commands, \
    update_commands, rows_inserted, rows_sent, bytes_received, bytes_sent, busy_time, \
    commit_transactions";

fn user_row(c: &mut mysql::Conn, table: &str, key: &str, name: &str) -> Option<Row> {
    c.query_first(format!(
        "select {key}, {COLUMNS} from information_schema.{table} where {key} = '{name}'"
    ))
    .unwrap()
}

#[test]
fn statistics_per_user_and_client() {
    let b = Basalt::start();
    let mut c = root(&b);
    ok(&mut c, "create database us");
    ok(&mut c, "create table us.t (a int primary key)");
    ok(&mut c, "create user app identified by 'pw'");
    ok(&mut c, "grant select, insert on us.* to app");
    {
        let mut ended = login(&b, "app", "pw").expect("login");
        ok(&mut ended, "insert into us.t values (1), (2)");
        let _: Vec<i64> = ended.query("select a from us.t").unwrap();
    }
    let mut live = login(&b, "app", "pw").expect("login");
    let _: Vec<i64> = live.query("select a from us.t where a = 1").unwrap();

    let r = user_row(&mut c, "user_statistics", "user", "app").expect("a row for app");
    assert_eq!((r.1, r.2), (2, 1), "two logins, one still connected: {r:?}");
    // The mysql crate's client runs one SELECT at each login.
    assert_eq!(
        (r.3, r.4, r.5),
        (4, 1, 2),
        "selects, updates, rows inserted: {r:?}"
    );
    assert_eq!(r.6, 5, "rows sent (one row at each login): {r:?}");
    assert!(
        r.7 > 0 && r.8 > 0 && r.9 > 0.0,
        "bytes and busy time: {r:?}"
    );
    assert!(r.10 >= 1, "commits: {r:?}");
    let client = user_row(&mut c, "client_statistics", "client", "127.0.0.1").expect("client");
    assert!(
        client.1 >= 3,
        "root and app logged in from 127.0.0.1: {client:?}"
    );

    // Without PROCESS the tables are empty, as in MariaDB.
    let n: i64 = live
        .query_first("select count(*) from information_schema.user_statistics")
        .unwrap()
        .unwrap();
    assert_eq!(n, 0);

    // Each FLUSH starts its own table again; live sessions count from there.
    ok(&mut c, "flush user_statistics");
    assert_eq!(
        user_row(&mut c, "user_statistics", "user", "app").map(|r| r.3),
        Some(0)
    );
    let client = user_row(&mut c, "client_statistics", "client", "127.0.0.1").expect("client");
    assert!(
        client.3 >= 3,
        "client statistics were not flushed: {client:?}"
    );
    let _: Vec<i64> = live.query("select a from us.t").unwrap();
    let r = user_row(&mut c, "user_statistics", "user", "app").expect("row");
    assert_eq!((r.1, r.2, r.3), (0, 1, 1), "{r:?}");
    ok(&mut c, "flush client_statistics");
    let client = user_row(&mut c, "client_statistics", "client", "127.0.0.1").expect("client");
    assert!(client.3 <= 1, "{client:?}");
    let tables: i64 = c
        .query_first(
            "select count(*) from information_schema.table_statistics where table_schema = 'us'",
        )
        .unwrap()
        .unwrap();
    assert_eq!(tables, 1, "FLUSH USER_STATISTICS leaves TABLE_STATISTICS");

    let on: String = c.query_first("select @@global.userstat").unwrap().unwrap();
    assert_eq!(on, "1");
    assert_eq!(error(&mut c, "set global userstat = OFF").0, 1235);
}
