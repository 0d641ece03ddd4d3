//! Window functions over TCP: values of ranking, offset and framed aggregate
//! functions, the result column types, an error for a misplaced window, the
//! statement memory budget over a large window input, and max_statement_time
//! over a long window computation.

use basalt_tests::Basalt;
use mysql::consts::ColumnType;
use mysql::prelude::*;
use mysql::{Conn, Opts};

fn connect(b: &Basalt) -> Conn {
    let mut c = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect");
    c.query_drop("create database w").expect("db");
    c.query_drop("use w").expect("use");
    c.query_drop("create table t (id int primary key, g int, v int)")
        .expect("create");
    c.query_drop(
        "insert into t values (1,1,10),(2,1,20),(3,1,20),(4,1,null),(5,2,5),(6,2,7),(7,2,7)",
    )
    .expect("insert");
    c
}

#[test]
fn window_values_types_and_errors() {
    let b = Basalt::start();
    let mut c = connect(&b);
    type Row = (
        i32,
        i64,
        i64,
        i64,
        Option<i32>,
        Option<String>,
        Option<String>,
    );
    let rows: Vec<Row> = c
        .query(
            "select id, row_number() over (partition by g order by id), \
             rank() over (partition by g order by v), \
             dense_rank() over (partition by g order by v), \
             lag(v) over (partition by g order by id), \
             cast(sum(v) over (partition by g order by id rows between 1 preceding and 1 following) as char), \
             cast(avg(v) over (partition by g order by v range between 5 preceding and current row) as char) \
             from t order by id",
        )
        .expect("query");
    let want: Vec<Row> = vec![
        (1, 1, 2, 2, None, Some("30".into()), Some("10.0000".into())),
        (
            2,
            2,
            3,
            3,
            Some(10),
            Some("50".into()),
            Some("20.0000".into()),
        ),
        (
            3,
            3,
            3,
            3,
            Some(20),
            Some("40".into()),
            Some("20.0000".into()),
        ),
        (4, 4, 1, 1, Some(20), Some("20".into()), None),
        (5, 1, 1, 1, None, Some("12".into()), Some("5.0000".into())),
        (
            6,
            2,
            2,
            2,
            Some(5),
            Some("19".into()),
            Some("6.3333".into()),
        ),
        (
            7,
            3,
            2,
            2,
            Some(7),
            Some("14".into()),
            Some("6.3333".into()),
        ),
    ];
    assert_eq!(rows, want);

    let r = c
        .query_iter("select row_number() over (), percent_rank() over (order by v), lag(v) over (order by id), sum(v) over () from t")
        .expect("types");
    let types: Vec<ColumnType> = r
        .columns()
        .as_ref()
        .iter()
        .map(|c| c.column_type())
        .collect();
    drop(r);
    assert_eq!(
        types,
        [
            ColumnType::MYSQL_TYPE_LONGLONG,
            ColumnType::MYSQL_TYPE_DOUBLE,
            ColumnType::MYSQL_TYPE_LONG,
            ColumnType::MYSQL_TYPE_NEWDECIMAL
        ]
    );

    let ranked: Vec<(i64, i64)> = c
        .query("select g, sum(sum(v)) over (order by g) from t group by g")
        .expect("group");
    assert_eq!(ranked, [(1, 50), (2, 69)]);

    match c.query_drop("select id from t where row_number() over () > 1") {
        Err(mysql::Error::MySqlError(e)) => {
            assert_eq!((e.code, e.state.as_str()), (4015, "HY000"));
        }
        other => panic!("expected 4015, got {other:?}"),
    }
    match c.query_drop("select id from t window w as (), w as ()") {
        Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, 4010),
        other => panic!("expected 4010, got {other:?}"),
    }
    // The session goes on.
    let n: Option<i64> = c
        .query_first("select count(*) over () from t limit 1")
        .expect("after");
    assert_eq!(n, Some(7));
}

#[test]
fn window_input_is_charged_to_the_memory_budget() {
    let b = Basalt::start();
    let mut c = connect(&b);
    c.query_drop("set max_session_mem_used = 1024 * 1024")
        .expect("set");
    let big = "select row_number() over (order by a.id), repeat('x', 200) from t a, t b, t c, t d, t e, t f";
    match c.query_drop(big) {
        Err(mysql::Error::MySqlError(e)) => assert_eq!((e.code, e.state.as_str()), (1290, "HY000")),
        other => panic!("expected 1290, got {other:?}"),
    }
    c.query_drop("set max_session_mem_used = default")
        .expect("reset");
    c.query_drop("set max_statement_time = 0.2").expect("set");
    let slow = "select std(a.v) over (order by a.id, b.id, c.id, d.id, e.id rows between 5000 preceding and 5000 following) from t a, t b, t c, t d, t e";
    match c.query_drop(slow) {
        Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, 1969, "{e:?}"),
        other => panic!("expected 1969, got {other:?}"),
    }
    c.query_drop("set max_statement_time = 0").expect("reset");
    let n: Option<i64> = c
        .query_first("select count(*) over () from t a, t b limit 1")
        .expect("after");
    assert_eq!(n, Some(49));
}
