//! `@@optimizer_switch`, `join_cache_level` and `optimizer_search_depth`: MariaDB's
//! flags and defaults, partial changes, errors for unknown flags and values, and
//! the settings that change Basalt's plans (hash joins, how deep the join-order
//! search looks) changing them, in EXPLAIN and not in the rows.

use basalt_tests::mariadb::MariaDb;
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

fn connect(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

fn exec(c: &mut Conn, sql: &str) {
    c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
}

fn one(c: &mut Conn, sql: &str) -> String {
    let v: Option<Option<String>> = c.query_first(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    v.flatten().unwrap_or_default()
}

fn error(c: &mut Conn, sql: &str) -> (u16, String) {
    match c.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => (e.code, e.message),
        other => panic!("{sql}: expected an error, got {other:?}"),
    }
}

/// EXPLAIN's (table, type, Extra) per row.
fn explain(c: &mut Conn, sql: &str) -> Vec<(String, String, String)> {
    let rows: Vec<mysql::Row> = c.query(format!("EXPLAIN {sql}")).expect("explain");
    rows.into_iter()
        .map(|r| {
            let s = |name: &str| {
                r.get::<Option<String>, _>(name)
                    .flatten()
                    .unwrap_or_default()
            };
            (s("table"), s("type"), s("Extra"))
        })
        .collect()
}

fn hashed(plan: &[(String, String, String)]) -> bool {
    plan.iter().any(|p| p.2.contains("BNLH"))
}

fn setup(c: &mut Conn) {
    exec(c, "CREATE DATABASE o");
    exec(c, "USE o");
    exec(c, "CREATE TABLE a (id INT PRIMARY KEY, x INT)");
    exec(c, "CREATE TABLE b (id INT PRIMARY KEY, x INT)");
    let values: Vec<String> = (1..=50).map(|i| format!("({i}, {})", i % 7)).collect();
    exec(c, &format!("INSERT INTO a VALUES {}", values.join(",")));
    exec(c, &format!("INSERT INTO b VALUES {}", values.join(",")));
}

const JOIN: &str = "SELECT COUNT(*) FROM a JOIN b ON a.x = b.x";

#[test]
fn flags_change_as_mariadb_and_steer_the_plan() {
    let b = Basalt::start();
    let mut c = connect(&b.url());
    setup(&mut c);
    let default = one(&mut c, "SELECT @@optimizer_switch");
    assert!(
        default.starts_with("index_merge=on,index_merge_union=on,"),
        "{default}"
    );
    assert!(default.contains(",join_cache_hashed=on,") && default.contains(",mrr=off,"));

    exec(&mut c, "SET optimizer_switch = 'mrr=on, derived_merge=off'");
    let changed = one(&mut c, "SELECT @@optimizer_switch");
    assert_eq!(
        changed,
        default
            .replace("mrr=off,", "mrr=on,")
            .replace("derived_merge=on", "derived_merge=off")
    );
    assert_eq!(one(&mut c, "SELECT @@global.optimizer_switch"), default);
    exec(&mut c, "SET optimizer_switch = 'default'");
    assert_eq!(one(&mut c, "SELECT @@optimizer_switch"), default);

    let (code, msg) = error(&mut c, "SET optimizer_switch = 'no_such_flag=on'");
    assert_eq!(code, 1231);
    assert_eq!(
        msg,
        "Variable 'optimizer_switch' can't be set to the value of 'no_such_flag=on'"
    );
    assert_eq!(error(&mut c, "SET optimizer_switch = 'mrr=maybe'").0, 1231);
    assert_eq!(one(&mut c, "SELECT @@optimizer_switch"), default);

    // Hash joins: on by default, off with join_cache_hashed=off or level 0.
    let rows = one(&mut c, JOIN);
    assert!(hashed(&explain(&mut c, JOIN)));
    exec(&mut c, "SET optimizer_switch = 'join_cache_hashed=off'");
    assert!(!hashed(&explain(&mut c, JOIN)));
    assert_eq!(one(&mut c, JOIN), rows);
    exec(
        &mut c,
        "SET optimizer_switch = 'default', join_cache_level = 0",
    );
    assert!(!hashed(&explain(&mut c, JOIN)));
    assert_eq!(one(&mut c, JOIN), rows);
    exec(&mut c, "SET join_cache_level = 2");
    assert!(hashed(&explain(&mut c, JOIN)));

    // A new session starts from the global value.
    exec(
        &mut c,
        "SET GLOBAL optimizer_switch = 'join_cache_hashed=off'",
    );
    let mut d = connect(&b.url());
    exec(&mut d, "USE o");
    assert!(one(&mut d, "SELECT @@optimizer_switch").contains("join_cache_hashed=off"));
    assert!(!hashed(&explain(&mut d, JOIN)));
    exec(&mut c, "SET GLOBAL optimizer_switch = DEFAULT");
}

#[test]
fn search_depth_bounds_the_join_order_search() {
    let b = Basalt::start();
    let mut c = connect(&b.url());
    setup(&mut c);
    for t in ["c", "d", "e"] {
        exec(
            &mut c,
            &format!("CREATE TABLE {t} (id INT PRIMARY KEY, x INT)"),
        );
        exec(&mut c, &format!("INSERT INTO {t} SELECT id, x FROM a"));
    }
    let q = "SELECT CONCAT(COUNT(*), ',', SUM(e.id)) FROM a JOIN b ON b.id = a.id JOIN c ON c.id = b.x \
             JOIN d ON d.id = c.id JOIN e ON e.x = d.x WHERE a.x = 3";
    let expected = one(&mut c, q);
    for depth in [0, 1, 2, 3, 62] {
        exec(&mut c, &format!("SET optimizer_search_depth = {depth}"));
        assert_eq!(
            one(&mut c, "SELECT @@optimizer_search_depth"),
            depth.to_string()
        );
        assert_eq!(one(&mut c, q), expected, "depth {depth}");
        assert_eq!(explain(&mut c, q).len(), 5);
    }
    exec(&mut c, "SET optimizer_search_depth = 100");
    let w: Vec<mysql::Row> = c.query("SHOW WARNINGS").expect("warnings");
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].get::<u32, _>(1), Some(1292));
    assert_eq!(
        w[0].get::<String, _>(2).as_deref(),
        Some("Truncated incorrect optimizer_search_depth value: '100'")
    );
    assert_eq!(one(&mut c, "SELECT @@optimizer_search_depth"), "62");
    exec(&mut c, "SET join_cache_level = 9");
    assert_eq!(one(&mut c, "SELECT @@join_cache_level"), "8");
    // The variables MariaDB's own tests set to their defaults.
    exec(
        &mut c,
        "SET optimizer_use_condition_selectivity = 4, join_buffer_space_limit = 2097152, \
         join_buffer_size = 262144, optimizer_prune_level = 2",
    );
    assert_eq!(
        error(&mut c, "SET optimizer_use_condition_selectivity = 1").0,
        1235
    );
}

#[test]
#[ignore = "needs mariadb-server"]
fn variables_read_as_in_mariadb() {
    let m = MariaDb::start(&[]);
    let b = Basalt::start();
    let mut mc = connect(&m.url());
    let mut bc = connect(&b.url());
    let read = "SELECT @@optimizer_switch, @@join_cache_level, @@optimizer_search_depth, \
                @@optimizer_use_condition_selectivity, @@join_buffer_space_limit, \
                @@optimizer_prune_level";
    let sets = [
        "SET optimizer_switch = 'default'",
        "SET optimizer_switch = 'mrr=on,index_merge=off'",
        "SET optimizer_switch = 'MRR=DEFAULT'",
        "SET optimizer_switch = 'default,semijoin=off'",
        "SET optimizer_switch = 'nope=on'",
        "SET optimizer_switch = 'semijoin=yes'",
        "SET optimizer_search_depth = 100",
        "SET optimizer_search_depth = 0",
        "SET join_cache_level = 20",
    ];
    for db in [&mut mc, &mut bc] {
        exec(db, "CREATE DATABASE o");
        exec(db, "CREATE TABLE o.w (a INT)");
    }
    for s in sets {
        // A statement that reads a table clears the warnings of the last one.
        for db in [&mut mc, &mut bc] {
            exec(db, "SELECT * FROM o.w");
        }
        let mr = mc.query_drop(s).map_err(|e| e.to_string());
        let br = bc.query_drop(s).map_err(|e| e.to_string());
        assert_eq!(br, mr, "{s}");
        let mw: Vec<mysql::Row> = mc.query("SHOW WARNINGS").expect("warnings");
        let bw: Vec<mysql::Row> = bc.query("SHOW WARNINGS").expect("warnings");
        let text = |w: Vec<mysql::Row>| -> Vec<String> {
            w.into_iter().map(|r| format!("{:?}", r.unwrap())).collect()
        };
        assert_eq!(text(bw), text(mw), "{s}");
        let mv: mysql::Row = mc.query_first(read).expect("read").expect("row");
        let bv: mysql::Row = bc.query_first(read).expect("read").expect("row");
        assert_eq!(
            format!("{:?}", bv.unwrap()),
            format!("{:?}", mv.unwrap()),
            "{s}"
        );
    }
}
