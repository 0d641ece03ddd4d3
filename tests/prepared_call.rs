//! (Part of the stored_procedures test binary.) CALL as a prepared statement: the markers of `CALL p(?, ?)` are the
//! procedure's arguments, OUT and INOUT values come back over the binary
//! protocol as the OUT-parameter result set (SERVER_PS_OUT_PARAMS) after the
//! procedure's own result sets, and through SQL `EXECUTE ... USING @v` into
//! the user variables; and (ignored: needs mariadb-server) the same calls
//! compared with MariaDB 10.11, column metadata included.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts, Params, Value};

const SETUP: &[&str] = &[
    "create database pc character set utf8mb4",
    "use pc",
    "create procedure p(in a int, out b int, inout c bigint) begin set b = a * 2; set c = c + 1; select a, b, c; end",
    "create procedure q(out s varchar(10), out d decimal(5,2), out t datetime(3), out f double, out u int unsigned, out x text) begin set s = 'hé', d = 1.5, t = '2020-01-02 03:04:05.678', f = 2.5, u = 4000000000, x = null; end",
    "create procedure r(in a int) select a",
    "create procedure w() begin declare v varchar(5) default 'xY'; set @n = cast(v as signed); select v; select 2; end",
];

/// A column's metadata as the client sees it.
type Meta = (
    String,
    String,
    String,
    String,
    String,
    u32,
    u16,
    String,
    u16,
    u8,
);

/// One result set: its columns and its rows as text.
type Set = (Vec<Meta>, Vec<Vec<Option<String>>>);

fn meta(c: &mysql::Column) -> Meta {
    (
        c.schema_str().into(),
        c.table_str().into(),
        c.org_table_str().into(),
        c.name_str().into(),
        c.org_name_str().into(),
        c.column_length(),
        c.character_set(),
        format!("{:?}", c.column_type()),
        c.flags().bits(),
        c.decimals(),
    )
}

/// Every result set of a prepared execution, or the error code.
fn exec_sets(c: &mut Conn, sql: &str, params: Vec<Value>) -> Result<Vec<Set>, u16> {
    let stmt = c.prep(sql).map_err(code)?;
    let mut r = c
        .exec_iter(&stmt, Params::Positional(params))
        .map_err(code)?;
    let mut out = Vec::new();
    while let Some(set) = r.iter() {
        let cols: Vec<Meta> = set.columns().as_ref().iter().map(meta).collect();
        let mut rows = Vec::new();
        for row in set {
            rows.push(row.map_err(code)?.unwrap().iter().map(text).collect());
        }
        if !cols.is_empty() {
            out.push((cols, rows));
        }
    }
    Ok(out)
}

/// A binary-protocol value as the text protocol would show it.
fn text(v: &Value) -> Option<String> {
    Some(match v {
        Value::NULL => return None,
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Int(n) => n.to_string(),
        Value::UInt(n) => n.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Double(d) => d.to_string(),
        Value::Date(y, mo, d, h, mi, s, us) => {
            format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}.{us:06}")
        }
        Value::Time(neg, d, h, m, s, us) => {
            let sign = if *neg { "-" } else { "" };
            format!("{sign}{}:{m:02}:{s:02}.{us:06}", *d * 24 + u32::from(*h))
        }
    })
}

fn code(e: mysql::Error) -> u16 {
    match e {
        mysql::Error::MySqlError(e) => e.code,
        e => panic!("{e}"),
    }
}

fn connect(url: &str) -> Conn {
    let mut c = Conn::new(Opts::from_url(url).unwrap()).unwrap();
    for s in SETUP {
        c.query_drop(s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
    c
}

fn connect_to(url: &str, db: &str) -> Conn {
    Conn::new(Opts::from_url(&basalt_tests::url_with_db(url, db)).unwrap()).unwrap()
}

fn s(v: &str) -> Option<String> {
    Some(v.to_string())
}

/// The prepared executions compared, with their parameters.
fn calls() -> Vec<(&'static str, Vec<Value>)> {
    let int = |v: i64| Value::Int(v);
    vec![
        ("call p(?, ?, ?)", vec![int(5), Value::NULL, int(10)]),
        ("call p(?, @x, ?)", vec![int(5), int(10)]),
        ("call p(1, ?, @y)", vec![int(7)]),
        ("call p(? + 1, ?, ?)", vec![int(1), Value::NULL, int(2)]),
        ("call p(?, 1, ?)", vec![int(1), int(2)]),
        ("call q(?, ?, ?, ?, ?, ?)", vec![Value::NULL; 6]),
        ("call r(?)", vec![int(1)]),
        ("call w()", vec![]),
        (
            "call p(?, ?, ?)",
            vec![Value::Bytes(b"12".to_vec()), Value::NULL, Value::NULL],
        ),
    ]
}

/// SQL-level PREPARE / EXECUTE ... USING: OUT markers write the variables.
/// (The statements that fail come last: Basalt's PREPARE starts a new
/// diagnostics list where MariaDB's keeps the previous one.)
const SQL_EXECUTE: &[&str] = &[
    "prepare s from 'call p(?, ?, ?)'",
    "set @a = 5, @b = 100, @c = 10",
    "execute s using @a, @b, @c",
    "select @a, @b, @c",
    "prepare s2 from 'call q(?, ?, ?, ?, ?, ?)'",
    "execute s2 using @s, @d, @t, @f, @u, @x",
    "select @s, @d, @t, @f, @u, @x",
    "prepare s3 from 'call p(? + 1, ?, ?)'",
    "set @c = 1",
    "execute s3 using 1, @b, @c",
    "select @b, @c",
    "execute s using 1, @b, 3",
    "execute s using @a, 7, @c",
    "select @b, @c",
];

#[test]
fn prepared_calls_return_out_parameters() {
    let b = Basalt::start();
    let mut c = connect(&b.url());
    let sets = exec_sets(
        &mut c,
        "call p(?, ?, ?)",
        vec![Value::Int(5), Value::NULL, Value::Int(10)],
    )
    .unwrap();
    assert_eq!(sets.len(), 2, "{sets:?}");
    assert_eq!(sets[0].1, [[s("5"), s("10"), s("11")]]);
    let (cols, rows) = &sets[1];
    assert_eq!(rows, &[[s("10"), s("11")]]);
    let names: Vec<_> = cols.iter().map(|m| (&m.0, &m.1, &m.3, &m.7)).collect();
    assert_eq!(
        format!("{names:?}"),
        r#"[("pc", "p", "b", "MYSQL_TYPE_LONG"), ("pc", "p", "c", "MYSQL_TYPE_LONGLONG")]"#
    );
    let sets = exec_sets(&mut c, "call q(?, ?, ?, ?, ?, ?)", vec![Value::NULL; 6]).unwrap();
    assert_eq!(
        sets[0].1,
        [[
            s("hé"),
            s("1.50"),
            s("2020-01-02 03:04:05.678000"),
            s("2.5"),
            s("4000000000"),
            None
        ]]
    );
    // A marker inside an expression is a value; a literal cannot take an OUT.
    assert_eq!(
        exec_sets(
            &mut c,
            "call p(?, 1, ?)",
            vec![Value::Int(1), Value::Int(2)]
        ),
        Err(1414)
    );
    // IN-only markers: no OUT set; the session goes on.
    assert_eq!(
        exec_sets(&mut c, "call r(?)", vec![Value::Int(3)])
            .unwrap()
            .len(),
        1
    );
    for sql in SQL_EXECUTE {
        let _ = c.query_drop(sql);
    }
    let v: Vec<(Option<String>, Option<String>)> = c.query("select @b, @c").unwrap();
    assert_eq!(v, [(s("4"), s("2"))]);
    let v: Vec<(Option<String>, Option<String>)> = c.query("select @s, @u").unwrap();
    assert_eq!(v, [(s("hé"), s("4000000000"))]);
}

#[test]
#[ignore]
fn prepared_calls_behave_as_on_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&[]);
    let mut bc = connect(&b.url());
    let mut mc = connect(&m.url());
    let mut diffs = Vec::new();
    for (sql, params) in calls() {
        let got = exec_sets(&mut bc, sql, params.clone());
        let want = exec_sets(&mut mc, sql, params);
        if got != want {
            diffs.push(format!("{sql}\n  basalt:  {got:?}\n  mariadb: {want:?}"));
        }
    }
    // The SQL-level statements on fresh sessions (a COM_STMT_EXECUTE starts
    // a new diagnostics list in Basalt even without tables).
    let (mut bc, mut mc) = (connect_to(&b.url(), "pc"), connect_to(&m.url(), "pc"));
    let diffs_sql = mariadb::differences(&mut bc, &mut mc, SQL_EXECUTE, |_, o| o);
    assert!(
        diffs.is_empty() && diffs_sql.is_empty(),
        "{}\n{diffs_sql:?}",
        diffs.join("\n")
    );
}
