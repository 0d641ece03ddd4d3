//! Long and deeply nested statements through the protocol: each runs, or fails with
//! MariaDB's error (1436 stack overrun past MariaDB's depth, 1473 beyond 63 nested
//! selects, 1064 `memory exhausted` past its parser stack), and the server survives
//! (a second connection still works after each). String functions whose result would
//! exceed `max_allowed_packet` return NULL with warning 1301. The differential test
//! (ignored by default) runs the boundary cases on MariaDB too.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts, Value};

/// What a statement produced.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// The first column of the first row (as text), and the row count.
    Rows(Option<String>, usize),
    Affected,
    Error(u16, String),
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::NULL => None,
        Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Value::Int(i) => Some(i.to_string()),
        Value::UInt(u) => Some(u.to_string()),
        other => Some(format!("{other:?}")),
    }
}

fn run(c: &mut Conn, sql: &str) -> Outcome {
    let short: String = sql.chars().take(60).collect();
    match c.query_iter(sql) {
        Err(mysql::Error::MySqlError(e)) => Outcome::Error(e.code, e.message),
        Err(e) => panic!("{short}...: {e}"),
        Ok(mut result) => {
            let has_columns = !result.columns().as_ref().is_empty();
            let mut first = None;
            let mut n = 0;
            for row in result.by_ref() {
                match row {
                    Ok(r) => {
                        if n == 0 {
                            first = r.as_ref(0).and_then(text);
                        }
                        n += 1;
                    }
                    Err(mysql::Error::MySqlError(e)) => return Outcome::Error(e.code, e.message),
                    Err(e) => panic!("{short}...: {e}"),
                }
            }
            if has_columns {
                Outcome::Rows(first, n)
            } else {
                Outcome::Affected
            }
        }
    }
}

fn connect(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

fn setup(c: &mut Conn) {
    for s in [
        "create database if not exists d",
        "use d",
        "create table t (a int primary key, b int, s varchar(100))",
        "insert into t values (1, 1, 'x'), (2, 2, 'y'), (3, 3, 'z')",
    ] {
        c.query_drop(s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
}

fn chain(op: &str, n: usize, term: &str) -> String {
    vec![term; n].join(op)
}

fn plus(n: usize) -> String {
    format!("select {}", chain("+", n, "1"))
}

fn or_list(n: usize) -> String {
    (0..n)
        .map(|i| format!("a={i}"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// `n` aliases of `t` joined by `sep`.
fn tables(sep: &str, n: usize) -> String {
    let t: Vec<String> = (0..n).map(|i| format!("t t{i}")).collect();
    t.join(sep)
}

fn nest(open: &str, inner: &str, close: &str, n: usize) -> String {
    format!("{}{inner}{}", open.repeat(n), close.repeat(n))
}

/// The 1436 message for the first item that does not fit, `used` bytes in.
fn overrun(used: u32) -> String {
    format!(
        "Thread stack overrun:  {used} bytes used of a 299008 byte stack, and 32000 bytes \
         needed. Consider increasing the thread_stack system variable."
    )
}

/// Expected outcome of a case.
enum Want {
    Value(&'static str),
    Rows(usize),
    Ok,
    Err(u16),
    /// 1436 with exactly this message.
    Overrun(String),
}

fn cases() -> Vec<(String, Want)> {
    use Want::*;
    let sub = |n| format!("select {}", nest("(select ", "1", ")", n));
    let derived = |n| {
        format!(
            "select count(*) from {} y",
            nest("(select * from ", "t", " x)", n)
        )
    };
    vec![
        // Operator chains: MariaDB runs 593 terms and fails at 594.
        (plus(540), Value("540")),
        (plus(593), Value("593")),
        (plus(594), Overrun(overrun(267_064))),
        (plus(100_000), Err(1436)),
        (
            format!("select a from t where {} > 0", chain("+", 593, "a")),
            Rows(3),
        ),
        (
            format!("select a from t where {} > 0", chain("+", 594, "a")),
            Err(1436),
        ),
        (
            format!("select a from t order by {}", chain("+", 593, "a")),
            Rows(3),
        ),
        (
            format!("select count(*) from t group by {}", chain("+", 594, "a")),
            Err(1436),
        ),
        // AND / OR lists are one item, however long.
        (
            format!("select count(*) from t where {}", or_list(1000)),
            Value("3"),
        ),
        (
            format!("select count(*) from t where {}", or_list(100_000)),
            Value("3"),
        ),
        (
            format!(
                "select count(*) from t where {}",
                chain(" and ", 50_000, "a > 0")
            ),
            Value("3"),
        ),
        (
            format!(
                "select count(*) from t where {}",
                nest("a > 0 and (", "a < 9", ")", 10_000)
            ),
            Value("3"),
        ),
        (
            format!("explain select * from t where {}", or_list(100_000)),
            Rows(1),
        ),
        (
            format!("select coalesce({}) from t", or_list(50_000)),
            Rows(3),
        ),
        (
            format!(
                "select count(*) from t join t u on {}",
                or_list(20_000).replace("a=", "t.a=")
            ),
            Value("9"),
        ),
        (
            format!("select a from t where a in ({})", chain(",", 100_000, "2")),
            Rows(1),
        ),
        // Parentheses, unary chains: no depth.
        (
            format!("select {}", nest("(", "1", ")", 10_000)),
            Value("1"),
        ),
        (
            format!("select {}", nest("(", "1", ")", 31_991)),
            Value("1"),
        ),
        (format!("select {}", nest("(", "1", ")", 40_000)), Err(1064)),
        (format!("select {}1", "- ".repeat(20_001)), Value("-1")),
        (format!("select {}a from t", "not ".repeat(20_000)), Rows(3)),
        // Nested function calls: string functions take more stack in MariaDB.
        (
            format!("select length({})", nest("concat(", "'a'", ",'b')", 550)),
            Value("551"),
        ),
        (
            format!("select {}", nest("concat(", "'a'", ",'b')", 552)),
            Overrun(overrun(267_016)),
        ),
        (
            format!("select {}", nest("abs(", "1", ")", 592)),
            Value("1"),
        ),
        (format!("select {}", nest("abs(", "1", ")", 593)), Err(1436)),
        (
            format!("select {}", nest("abs(", "1", ")", 5_000)),
            Err(1436),
        ),
        (
            format!("select {}", nest("abs(", "1", ")", 50_000)),
            Err(1064),
        ),
        (
            format!(
                "select {} from t",
                nest("case when a=1 then ", "1", " end", 600)
            ),
            Err(1436),
        ),
        // Subqueries and derived tables: 63 levels.
        (sub(63), Value("1")),
        (sub(64), Err(1473)),
        (sub(5_000), Err(1473)),
        (derived(63), Value("3")),
        (derived(64), Err(1473)),
        (
            format!("select ({}) + 1", nest("(", "select 1", ")", 5_000)),
            Value("2"),
        ),
        (chain(" union all ", 5_000, "select 1"), Rows(5_000)),
        // Data changes.
        (
            format!("update t set b = {} where a = 1", chain("+", 594, "b")),
            Ok,
        ),
        (
            format!("update t set b = {} where a = 1", chain("+", 595, "b")),
            Err(1436),
        ),
        (
            format!("delete from t where a = {}", chain("+", 590, "1000")),
            Ok,
        ),
        (
            format!("delete from t where a = {}", chain("+", 591, "1000")),
            Err(1436),
        ),
        (
            format!(
                "create table t2 as select a from t where {}",
                or_list(50_000)
            ),
            Ok,
        ),
        // Joins: 61 tables at most (the parser recursed once per JOIN).
        (
            format!("select count(*) from {} where 0", tables(", ", 61)),
            Value("0"),
        ),
        (
            format!("select count(*) from {} where 0", tables(", ", 62)),
            Err(1116),
        ),
        (
            format!("select 1 from {} where 0", tables(" join ", 62)),
            Err(1116),
        ),
        (
            format!("select 1 from {} where 0", tables(" join ", 5_000)),
            Err(1116),
        ),
        // A FROM clause nested past what the parser can take.
        (
            format!("select * from {}", nest("(", "t", ")", 600)),
            Err(1064),
        ),
    ]
}

fn check(c: &mut Conn, sql: &str, want: &Want) {
    let short: String = sql.chars().take(70).collect();
    let got = run(c, sql);
    match (want, &got) {
        (Want::Value(v), Outcome::Rows(Some(first), _)) if first == v => {}
        (Want::Rows(n), Outcome::Rows(_, m)) if n == m => {}
        (Want::Ok, Outcome::Affected | Outcome::Rows(..)) => {}
        (Want::Err(code), Outcome::Error(got, _)) if got == code => {}
        (Want::Overrun(msg), Outcome::Error(1436, m)) if m == msg => {}
        _ => panic!("{short}...: got {got:?}"),
    }
}

/// The server is still up: a fresh connection runs a query.
fn alive(url: &str) {
    let mut c = connect(url);
    assert_eq!(
        c.query_first::<i64, _>("select 1").expect("select 1"),
        Some(1)
    );
}

#[test]
fn deep_statements_run_or_fail_with_mariadbs_errors() {
    let b = Basalt::start();
    let mut c = connect(&b.url());
    setup(&mut c);
    for (sql, want) in cases() {
        check(&mut c, &sql, &want);
        alive(&b.url());
    }
}

#[test]
fn deep_prepared_statements() {
    let b = Basalt::start();
    let mut c = connect(&b.url());
    setup(&mut c);
    let qmarks = |n| format!("select {}", chain("+", n, "?"));
    // SQL PREPARE: MariaDB prepares 587 terms and fails at 588.
    for (n, want) in [
        (587, Want::Ok),
        (588, Want::Err(1436)),
        (1000, Want::Err(1436)),
    ] {
        check(&mut c, &format!("prepare s from '{}'", qmarks(n)), &want);
        alive(&b.url());
    }
    check(&mut c, "set @one = 1", &Want::Ok);
    check(&mut c, "prepare s from 'select ?+?'", &Want::Ok);
    check(&mut c, "execute s using @one, @one", &Want::Value("2"));
    // COM_STMT_PREPARE: 590 terms, not 591.
    let stmt = c.prep(qmarks(590)).expect("prepare 590 terms");
    let sum: Option<i64> = c.exec_first(&stmt, vec![1i64; 590]).expect("execute");
    assert_eq!(sum, Some(590));
    for n in [591, 1000] {
        match c.prep(qmarks(n)) {
            Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, 1436, "{n} terms"),
            other => panic!("{n} terms: {other:?}"),
        }
        alive(&b.url());
    }
    let long = format!("select count(*) from t where {} or a = ?", or_list(50_000));
    let n: Option<i64> = c.exec_first(long.as_str(), (2,)).expect("long OR");
    assert_eq!(n, Some(3));
    alive(&b.url());
}

fn warnings(c: &mut Conn) -> Vec<(u16, String)> {
    c.query_map("show warnings", |(_, code, msg): (String, u16, String)| {
        (code, msg)
    })
    .expect("show warnings")
}

fn packet_cases() -> Vec<(&'static str, &'static str)> {
    vec![
        ("select repeat('a', 16777217) is null", "repeat"),
        (
            "select concat(repeat('a', 10000000), repeat('b', 10000000)) is null",
            "concat",
        ),
        (
            "select concat_ws(',', repeat('a', 10000000), repeat('b', 10000000)) is null",
            "concat_ws",
        ),
        ("select lpad('a', 16777217, 'x') is null", "lpad"),
        ("select rpad('a', 16777217, 'xy') is null", "rpad"),
        ("select space(16777217) is null", "space"),
        (
            "select replace(repeat('a', 1000), 'a', repeat('b', 20000)) is null",
            "replace",
        ),
        ("select repeat('ab', 100000000000) is null", "repeat"),
    ]
}

#[test]
fn string_results_over_max_allowed_packet_are_null_with_a_warning() {
    let b = Basalt::start();
    let mut c = connect(&b.url());
    for (sql, func) in packet_cases() {
        assert_eq!(c.query_first::<i64, _>(sql).expect(sql), Some(1), "{sql}");
        let msg =
            format!("Result of {func}() was larger than max_allowed_packet (16777216) - truncated");
        assert_eq!(warnings(&mut c), vec![(1301, msg)], "{sql}");
    }
    let len: Option<i64> = c
        // Reading a table clears the previous statement's warnings (MariaDB).
        .query_first("select length(repeat('a', 16777216)) from (select 1) t")
        .expect("at the limit");
    assert_eq!(len, Some(16_777_216));
    assert!(warnings(&mut c).is_empty());
    // A new session takes the global value.
    c.query_drop("set global max_allowed_packet = 1048576")
        .expect("set global");
    let mut small = connect(&b.url());
    let r: Option<Option<String>> = small
        .query_first("select repeat('a', 1048577)")
        .expect("repeat");
    assert_eq!(r, Some(None));
    let msg = "Result of repeat() was larger than max_allowed_packet (1048576) - truncated";
    assert_eq!(warnings(&mut small), vec![(1301, msg.to_string())]);
}

#[test]
#[ignore = "needs mariadb-server; run by .ci/run"]
fn deep_statements_match_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&[]);
    let mut cb = connect(&b.url());
    let mut cm = connect(&m.url());
    setup(&mut cb);
    setup(&mut cm);
    // MariaDB takes FROM parentheses of any depth (Basalt's parser refuses them).
    let skip = |sql: &str| sql.starts_with("select * from (");
    for (sql, _) in cases().into_iter().filter(|(s, _)| !skip(s)) {
        let short: String = sql.chars().take(70).collect();
        let (x, y) = (run(&mut cb, &sql), run(&mut cm, &sql));
        match (&x, &y) {
            // 1436 reports MariaDB's real stack use, which Basalt's virtual stack
            // matches exactly only for the chains the other test checks.
            (Outcome::Error(a, ma), Outcome::Error(b, mb)) => {
                assert_eq!(a, b, "{short}...");
                if *a == 1473 {
                    assert_eq!(ma, mb, "{short}...");
                }
            }
            // Other 10.11 patch releases use a few hundred bytes more or less stack
            // per statement, which moves the boundary by a term or two.
            (Outcome::Error(1436, _), _) | (_, Outcome::Error(1436, _))
                if !mariadb::is_reference() => {}
            _ => assert_eq!(x, y, "{short}..."),
        }
    }
    for (sql, _) in packet_cases() {
        assert_eq!(run(&mut cb, sql), run(&mut cm, sql), "{sql}");
        assert_eq!(warnings(&mut cb), warnings(&mut cm), "{sql}");
    }
}
