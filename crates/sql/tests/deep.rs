//! Deep statements on a small thread stack: parsing, binding, evaluating and
//! dropping them grows the stack where they are deep, so the thread's own stack
//! size does not matter (the server's connection threads have Rust's default).

mod common;
use common::*;

/// Far less than a connection thread's stack.
const SMALL_STACK: usize = 512 << 10;

fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no panic, no overflow");
}

fn chain(op: &str, n: usize, term: &str) -> String {
    vec![term; n].join(op)
}

fn nest(open: &str, inner: &str, close: &str, n: usize) -> String {
    format!("{}{inner}{}", open.repeat(n), close.repeat(n))
}

fn one(s: &mut basalt_sql::Session, sql: &str) -> String {
    let r = rows(s, sql);
    r[0][0].clone()
}

#[test]
fn deep_statements_on_a_small_stack() {
    on_small_stack(|| {
        let db = Db::new();
        let mut s = db.session();
        exec(&mut s, "create table t (a int primary key, b int)");
        exec(&mut s, "insert into t values (1, 10), (2, 20), (3, 30)");
        assert_eq!(
            one(&mut s, &format!("select {}", chain("+", 593, "1"))),
            "593"
        );
        assert_eq!(
            err(&mut s, &format!("select {}", chain("+", 594, "1"))).code,
            1436
        );
        // Evaluated per row: the deepest sum MariaDB allows, and CASE.
        let sum = format!("select sum({}) from t", chain("+", 592, "a"));
        assert_eq!(one(&mut s, &sum), (6 * 592).to_string());
        let case = format!(
            "select {} from t where a = 2",
            nest("case when a > 0 then ", "b", " end", 550)
        );
        assert_eq!(one(&mut s, &case), "20");
        // AND inside OR inside AND ..., as deep as MariaDB allows (1,333 lists).
        let mut cond = "a = 2".to_string();
        for i in 0..1332 {
            cond = if i % 2 == 0 {
                format!("a > 0 and ({cond})")
            } else {
                format!("a = 9 or ({cond})")
            };
        }
        assert_eq!(one(&mut s, &format!("select b from t where {cond}")), "20");
        let ors = (0..20_000)
            .map(|i| format!("a = {i}"))
            .collect::<Vec<_>>()
            .join(" or ");
        assert_eq!(
            one(&mut s, &format!("select count(*) from t where {ors}")),
            "3"
        );
        assert_eq!(
            one(&mut s, &format!("select {}", nest("(", "7", ")", 10_000))),
            "7"
        );
        // Correlated subqueries nested, each level evaluated from the one outside.
        let corr = format!(
            "select {} from t where a = 1",
            nest("(select t.a + ", "0", ")", 40)
        );
        assert_eq!(one(&mut s, &corr), "40");
        let sub = format!("select {}", nest("(select ", "1", ")", 63));
        assert_eq!(one(&mut s, &sub), "1");
        let union = chain(" union all ", 2_000, "select 1");
        assert_eq!(rows(&mut s, &union).len(), 2_000);
        // Prepared: COM_STMT_PREPARE's limit, and execution with values.
        let p = s
            .prepare(&format!("select {}", chain("+", 590, "?")))
            .expect("590 parameters");
        let vals = vec![basalt_common::Value::Int(2); 590];
        match s.execute_prepared(p.id, &vals).expect("execute") {
            basalt_sql::QueryResult::Rows { rows, .. } => {
                assert_eq!(render(&rows[0][0]), "1180")
            }
            other => panic!("{other:?}"),
        }
        let e = s
            .prepare(&format!("select {}", chain("+", 591, "?")))
            .expect_err("591 parameters");
        assert_eq!(e.code, 1436);
    });
}
