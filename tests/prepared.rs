//! Prepared statements end to end: the binary protocol through the `mysql` crate and
//! through raw packets where the crate cannot express a request (cursors, long data,
//! parameter type codes, malformed commands), SQL-level PREPARE/EXECUTE, plan
//! invalidation by DDL, and the limits. Binary results are checked against the text
//! protocol answer to the same query, and (ignored tests, run where MariaDB is
//! installed) against MariaDB's binary answer.

use basalt_tests::{raw_login, send_packet, Basalt};
use mysql::consts::ColumnType;
use mysql::prelude::*;
use mysql::{Conn, Opts, Value};

fn connect_url(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

fn connect(b: &Basalt) -> Conn {
    connect_url(&b.url())
}

fn err_code(e: mysql::Error) -> u16 {
    match e {
        mysql::Error::MySqlError(e) => e.code,
        other => panic!("expected a server error, got {other:?}"),
    }
}

#[path = "prepared_compare.rs"]
mod compare;

use compare::*;

#[test]
fn binary_rows_match_text_for_every_type() {
    let b = Basalt::start();
    let mut c = connect(&b);
    all_types_table(&mut c);
    let (m, rows) = same_in_both(&mut c, "select * from alltypes order by id");
    assert_eq!(rows.len(), 5);
    let col = |name: &str| m.iter().position(|x| x.name == name).expect(name);
    // Column types as MySQL reports them.
    let ty = |name: &str| m[col(name)].column_type;
    assert_eq!(ty("ti"), ColumnType::MYSQL_TYPE_TINY);
    assert_eq!(ty("si"), ColumnType::MYSQL_TYPE_SHORT);
    assert_eq!(ty("mi"), ColumnType::MYSQL_TYPE_INT24);
    assert_eq!(ty("i"), ColumnType::MYSQL_TYPE_LONG);
    assert_eq!(ty("bi"), ColumnType::MYSQL_TYPE_LONGLONG);
    assert_eq!(ty("de"), ColumnType::MYSQL_TYPE_NEWDECIMAL);
    assert_eq!(ty("fl"), ColumnType::MYSQL_TYPE_FLOAT);
    assert_eq!(ty("do"), ColumnType::MYSQL_TYPE_DOUBLE);
    assert_eq!(ty("yr"), ColumnType::MYSQL_TYPE_YEAR);
    assert_eq!(ty("d"), ColumnType::MYSQL_TYPE_DATE);
    assert_eq!(ty("dt"), ColumnType::MYSQL_TYPE_DATETIME);
    assert_eq!(ty("ts"), ColumnType::MYSQL_TYPE_TIMESTAMP);
    assert_eq!(ty("tm"), ColumnType::MYSQL_TYPE_TIME);
    assert!(m[col("biu")].unsigned && !m[col("bi")].unsigned);
    assert!(m[col("bl")].binary && m[col("vb")].binary && !m[col("vc")].binary);
    // Extremes decoded as the right numbers.
    let r1 = &rows[0];
    let r2 = &rows[1];
    let int = |v: &Value| -> i128 {
        match v {
            Value::Int(i) => *i as i128,
            Value::UInt(u) => *u as i128,
            other => panic!("not an integer: {other:?}"),
        }
    };
    assert_eq!(int(&r1[col("ti")]), -128);
    assert_eq!(int(&r2[col("tiu")]), 255);
    assert_eq!(int(&r1[col("si")]), -32768);
    assert_eq!(int(&r2[col("siu")]), 65535);
    assert_eq!(int(&r1[col("mi")]), -8388608);
    assert_eq!(int(&r2[col("miu")]), 16777215);
    assert_eq!(int(&r1[col("i")]), -2147483648);
    assert_eq!(int(&r2[col("iu")]), 4294967295);
    assert_eq!(int(&r1[col("bi")]), i64::MIN as i128);
    assert_eq!(int(&r2[col("bi")]), i64::MAX as i128);
    assert_eq!(int(&r2[col("biu")]), u64::MAX as i128);
    assert_eq!(
        r2[col("bl")],
        Value::Bytes(vec![0, 0xff, 0x10, 0xfe, 0x7f, 0x80])
    );
    assert_eq!(r1[col("bn")], Value::Bytes(vec![0; 4]));
    assert_eq!(
        r2[col("dt6")],
        Value::Date(9999, 12, 31, 23, 59, 59, 999_999)
    );
    assert_eq!(r1[col("tm")], Value::Time(true, 34, 22, 59, 59, 0));
    assert_eq!(rows[3][col("tm6")], Value::Time(false, 4, 4, 0, 0, 500_000));
    assert_eq!(rows[4][col("tm6")], Value::Time(true, 1, 2, 0, 0, 1));
    assert_eq!(r2[col("dt")], Value::Date(9999, 12, 31, 23, 59, 59, 0));
    // Row 3 is all NULL but the key; rows 4 and 5 alternate.
    assert!(rows[2][1..].iter().all(|v| *v == Value::NULL));
    for (i, v) in rows[4].iter().enumerate().skip(1) {
        if i <= 11 {
            assert_eq!(*v == Value::NULL, i % 2 == 1, "row 5 column {i}");
        }
    }
}

#[test]
fn binary_expressions_match_text() {
    let b = Basalt::start();
    let mut c = connect(&b);
    all_types_table(&mut c);
    for sql in [
        "select 1, -1, 18446744073709551615, -9223372036854775808, 1.5, 1e300, null",
        "select null, 1, null, 'a', null, 2.25, null, null, 3, null, null",
        "select cast('-838:59:59' as time), cast('123:04:05.25' as time(2)), \
         cast('2024-01-02 03:04:05.5' as datetime(1)), cast('2024-01-02' as date)",
        "select concat('a', null), ifnull(null, 'b'), coalesce(null, 5), 3/4, 7 div 2",
        "select id, ti + 1, bi * 1, fl * 2, do / 2, de + 0, concat(vc, '!'), \
         date_add(d, interval 1 day), tm6 from alltypes order by id",
        "select count(*), sum(i), min(dt6), max(tm), avg(si) from alltypes",
        "select id, bl, length(bl), hex(vb) from alltypes where bl is not null order by id",
        "select * from alltypes where id in (2, 4) order by id desc",
    ] {
        same_in_both(&mut c, sql);
    }
}

#[test]
fn null_bitmap_starts_at_bit_two() {
    let b = Basalt::start();
    let mut s = raw_login(b.port);
    // 10 columns: the bitmap has (10 + 7 + 2) / 8 = 2 bytes; column 6 is bit 8.
    let p = prepare(&mut s, "select null, 1, 2, null, 3, 4, null, 5, null, null").expect("prepare");
    assert_eq!((p.params, p.columns), (0, 10));
    let Reply::Rows { cols, rows, .. } = execute(&mut s, p.id, 0, &[]) else {
        panic!("expected rows")
    };
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row[0], 0x00, "binary row header");
    // NULL columns 0, 3, 6, 8, 9 -> bits 2, 5, 8, 10, 11.
    assert_eq!(&row[1..3], &[0b0010_0100, 0b0000_1101]);
    // The five non-NULL integers follow, each as wide as its column type says.
    let mut pos = 3;
    let mut vals = Vec::new();
    for (i, c) in cols.iter().enumerate() {
        if [0, 3, 6, 8, 9].contains(&i) {
            continue;
        }
        let w = match c.column_type {
            T_LONG => 4,
            T_LONGLONG => 8,
            other => panic!("column {i}: type {other}"),
        };
        let mut b = [0u8; 8];
        b[..w].copy_from_slice(&row[pos..pos + w]);
        vals.push(i64::from_le_bytes(b));
        pos += w;
    }
    assert_eq!(pos, row.len(), "row length");
    assert_eq!(vals, [1, 2, 3, 4, 5]);
    // One column: bitmap of one byte, bit 2.
    let p = prepare(&mut s, "select null").expect("prepare");
    let Reply::Rows { rows, .. } = execute(&mut s, p.id, 0, &[]) else {
        panic!("expected rows")
    };
    assert_eq!(rows[0], [0x00, 0x04]);
}

#[path = "prepared_wire.rs"]
mod wire;

use wire::*;

// ---------------------------------------------------------------------------
// Parameters.

#[test]
fn parameters_as_drivers_bind_them() {
    let b = Basalt::start();
    let mut s = raw_setup(&b);
    query_ok(
        &mut s,
        "create table params (id int primary key, i int, bu bigint unsigned, c char(20), \
         v varchar(20), d double, dt datetime(6), n int, bl blob)",
    );
    let ins = prepare(
        &mut s,
        "insert into params values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .expect("prepare insert");
    assert_eq!((ins.params, ins.columns), (9, 0));
    let mut dt = vec![11u8];
    dt.extend_from_slice(&2024u16.to_le_bytes());
    dt.extend_from_slice(&[2, 29, 13, 14, 15]);
    dt.extend_from_slice(&123_456u32.to_le_bytes());
    let params = [
        p_long(1),
        p_long(-2_000_000_000),
        p_ulonglong(u64::MAX),
        p_str(T_STRING, b"sysbench-char"),
        p_str(T_VAR_STRING, "vär".as_bytes()),
        p_double(-2.5e-3),
        Param {
            ty: T_DATETIME,
            flag: 0,
            value: Some(dt),
        },
        p_null(),
        p_str(T_BLOB, &[0, 1, 0xff]),
    ];
    let r = execute(&mut s, ins.id, 0, &params);
    assert!(matches!(r, Reply::Ok { affected: 1, .. }), "{r:?}");
    // Re-execute without re-binding types (new-params-bound = 0), as drivers do.
    let again = [
        p_long(2),
        p_long(7),
        p_ulonglong(1),
        p_str(T_STRING, b""),
        p_null(),
        p_double(1e100),
        p_null(),
        // Bound as MYSQL_TYPE_NULL by the first execute: stays NULL without a rebind.
        p_null(),
        p_null(),
    ];
    send_packet(&mut s, 0, &execute_payload(ins.id, 0, &again, false));
    let r = read_reply(&mut s);
    assert!(matches!(r, Reply::Ok { affected: 1, .. }), "{r:?}");
    assert_eq!(
        query_rows(
            &mut s,
            "select id, i, bu, c, v, d, dt, n, hex(bl) from params order by id"
        ),
        vec![
            [
                "1",
                "-2000000000",
                "18446744073709551615",
                "sysbench-char",
                "vär",
                "-0.0025",
                "2024-02-29 13:14:15.123456",
                "",
                "0001FF"
            ]
            .iter()
            .map(|v| (!v.is_empty()).then(|| v.to_string()))
            .collect::<Vec<_>>(),
            vec![
                Some("2".into()),
                Some("7".into()),
                Some("1".into()),
                Some("".into()),
                None,
                Some("1e100".into()),
                None,
                None,
                None
            ],
        ]
    );
    // Parameters in expressions and WHERE, unsigned and signed.
    let sel = prepare(&mut s, "select id from params where bu = ? and i > ?").expect("prep");
    let Reply::Rows { rows, .. } = execute(
        &mut s,
        sel.id,
        0,
        &[p_ulonglong(u64::MAX), p_long(-2_100_000_000)],
    ) else {
        panic!("rows")
    };
    // id is INT: 4 bytes.
    assert_eq!(rows.len(), 1);
    assert_eq!(&rows[0][2..6], &1i32.to_le_bytes());
    let sel = prepare(&mut s, "select cast(? as signed)").expect("prep");
    for (p, want) in [
        (p_longlong(-5), Some(-5i64)),
        (p_long(i32::MIN), Some(i32::MIN as i64)),
        (p_str(T_STRING, b"42"), Some(42)),
        (p_str(T_VAR_STRING, b"-7"), Some(-7)),
        (p_double(3.0), Some(3)),
        (p_null(), None),
    ] {
        let Reply::Rows { cols, rows, .. } = execute(&mut s, sel.id, 0, &[p]) else {
            panic!("rows")
        };
        // INT or BIGINT, by the argument's width, as MariaDB types CAST.
        let got = match cols[0].column_type {
            T_LONGLONG => row_i64(&rows[0]),
            T_LONG => (rows[0][1] & 0x04 == 0)
                .then(|| i32::from_le_bytes(rows[0][2..6].try_into().expect("4 bytes")) as i64),
            other => panic!("cast as signed: type {other}"),
        };
        assert_eq!(got, want);
    }
    still_works(&mut s);
}

#[test]
fn parameters_through_the_mysql_crate() {
    let b = Basalt::start();
    let mut c = connect(&b);
    c.query_drop("create database p").expect("db");
    c.query_drop("use p").expect("use");
    c.query_drop(
        "create table t (id bigint unsigned primary key, s varchar(40), f double, \
         d datetime(6), t time(6), b blob)",
    )
    .expect("create");
    let ins = c
        .prep("insert into t values (?, ?, ?, ?, ?, ?)")
        .expect("prep");
    c.exec_drop(
        &ins,
        (
            u64::MAX,
            "ünïcode",
            0.1f64,
            Value::Date(2020, 1, 2, 3, 4, 5, 6),
            Value::Time(true, 2, 3, 4, 5, 7),
            vec![0u8, 255, 0],
        ),
    )
    .expect("insert 1");
    c.exec_drop(
        &ins,
        (
            1u64,
            Value::NULL,
            Value::NULL,
            Value::NULL,
            Value::NULL,
            Value::NULL,
        ),
    )
    .expect("insert 2");
    let (m, rows) = same_in_both(&mut c, "select * from t order by id");
    assert_eq!(m[0].column_type, ColumnType::MYSQL_TYPE_LONGLONG);
    // (the crate decodes an unsigned BIGINT that fits in i64 as Int)
    assert_eq!(rows[0][0], Value::Int(1));
    assert!(rows[0][1..].iter().all(|v| *v == Value::NULL));
    assert_eq!(rows[1][0], Value::UInt(u64::MAX));
    assert_eq!(rows[1][1], Value::Bytes("ünïcode".as_bytes().to_vec()));
    assert_eq!(rows[1][2], Value::Double(0.1));
    assert_eq!(rows[1][3], Value::Date(2020, 1, 2, 3, 4, 5, 6));
    assert_eq!(rows[1][4], Value::Time(true, 2, 3, 4, 5, 7));
    assert_eq!(rows[1][5], Value::Bytes(vec![0, 255, 0]));
    // Parameters in WHERE, with every Rust type the crate binds.
    let got: Vec<u64> = c
        .exec(
            "select id from t where id = ? or s = ? or f = ? or id = ? order by id",
            (1i32, "ünïcode", 0.1f32 as f64, -1i64),
        )
        .expect("select");
    assert_eq!(got, [1, u64::MAX]);
    let v: Option<(i64, String, Option<i64>)> = c
        .exec_first("select ? * 2, concat(?, 'x'), ?", (21i64, "y", Value::NULL))
        .expect("expr");
    assert_eq!(v, Some((42, "yx".to_string(), None)));
}

#[test]
fn long_data_reset_and_close() {
    let b = Basalt::start();
    let mut s = raw_setup(&b);
    query_ok(
        &mut s,
        "create table ld (id int primary key, b longblob, t text)",
    );
    let ins = prepare(&mut s, "insert into ld values (?, ?, ?)").expect("prepare");
    // Parameter 1 in three chunks, parameter 2 in one: 300 KB in all.
    let chunk: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    for _ in 0..3 {
        send_long_data(&mut s, ins.id, 1, &chunk);
    }
    send_long_data(&mut s, ins.id, 2, "long text ".repeat(10).as_bytes());
    // Long-data parameters are bound with their type and no value in the packet.
    let params = [
        p_long(1),
        Param {
            ty: T_BLOB,
            flag: 0,
            value: Some(Vec::new()),
        },
        Param {
            ty: T_STRING,
            flag: 0,
            value: Some(Vec::new()),
        },
    ];
    let r = execute(&mut s, ins.id, 0, &params);
    assert!(matches!(r, Reply::Ok { affected: 1, .. }), "{r:?}");
    let want_hash = query_rows(&mut s, "select md5(repeat(b, 1)) from ld where id = 1");
    assert_eq!(
        query_rows(&mut s, "select length(b), length(t), left(t, 10) from ld"),
        [[
            Some("300000".to_string()),
            Some("100".to_string()),
            Some("long text ".to_string())
        ]]
    );
    assert_eq!(want_hash.len(), 1);
    // Long data is consumed by the execute: the next one sends values inline.
    let r = execute(
        &mut s,
        ins.id,
        0,
        &[p_long(2), p_str(T_BLOB, b"inline"), p_str(T_STRING, b"x")],
    );
    assert!(matches!(r, Reply::Ok { affected: 1, .. }), "{r:?}");
    // COM_STMT_RESET drops long data sent so far.
    send_long_data(&mut s, ins.id, 1, b"forgotten");
    assert!(matches!(stmt_reset(&mut s, ins.id), Reply::Ok { .. }));
    let r = execute(
        &mut s,
        ins.id,
        0,
        &[p_long(3), p_str(T_BLOB, b"kept"), p_null()],
    );
    assert!(matches!(r, Reply::Ok { affected: 1, .. }), "{r:?}");
    assert_eq!(
        query_rows(&mut s, "select id, b, t from ld where id > 1 order by id"),
        [
            [Some("2".into()), Some("inline".into()), Some("x".into())],
            [Some("3".into()), Some("kept".into()), None]
        ]
    );
    // Long data for a parameter the statement does not have: the next execute fails.
    send_long_data(&mut s, ins.id, 7, b"nowhere");
    expect_err(
        execute(&mut s, ins.id, 0, &[p_long(4), p_null(), p_null()]),
        1210,
        "long data for parameter 7",
    );
    // ... and only that one.
    let r = execute(&mut s, ins.id, 0, &[p_long(4), p_null(), p_null()]);
    assert!(matches!(r, Reply::Ok { .. }), "{r:?}");
    // Reset of an unknown statement is 1243.
    expect_err(stmt_reset(&mut s, 999), 1243, "reset unknown");
    // COM_STMT_CLOSE has no reply; the statement is gone afterwards.
    stmt_close(&mut s, ins.id);
    expect_err(
        execute(&mut s, ins.id, 0, &[p_long(5), p_null(), p_null()]),
        1243,
        "execute after close",
    );
    // Long data to a closed statement is ignored silently.
    send_long_data(&mut s, ins.id, 0, b"ignored");
    still_works(&mut s);
    assert_eq!(
        query_rows(&mut s, "select count(*) from ld"),
        [[Some("4".into())]]
    );
}

// ---------------------------------------------------------------------------
// Cursors.

#[test]
fn read_only_cursor_fetches_in_chunks() {
    let b = Basalt::start();
    let mut s = raw_setup(&b);
    query_ok(
        &mut s,
        "create table cur (id bigint primary key, v varchar(10))",
    );
    let values: Vec<String> = (1..=10).map(|i| format!("({i}, 'v{i}')")).collect();
    query_ok(
        &mut s,
        &format!("insert into cur values {}", values.join(",")),
    );
    let sel = prepare(&mut s, "select id from cur where id > ? order by id").expect("prepare");
    // Cursor of 7 rows (id 4..10).
    let Reply::Rows { cols, rows, status } = execute(&mut s, sel.id, 1, &[p_long(3)]) else {
        panic!("expected metadata")
    };
    assert_eq!(cols.len(), 1);
    assert_eq!(cols[0].column_type, T_LONGLONG);
    assert!(rows.is_empty(), "rows wait for COM_STMT_FETCH");
    assert_ne!(status & STATUS_CURSOR_EXISTS, 0);
    // Another statement runs while the cursor is open.
    still_works(&mut s);
    let (rows, st) = fetch(&mut s, sel.id, 3).expect("fetch 1");
    assert_eq!(
        rows.iter().map(|r| row_i64(r)).collect::<Vec<_>>(),
        [Some(4), Some(5), Some(6)]
    );
    assert_ne!(st & STATUS_CURSOR_EXISTS, 0);
    assert_eq!(st & STATUS_LAST_ROW_SENT, 0);
    let (rows, st) = fetch(&mut s, sel.id, 3).expect("fetch 2");
    assert_eq!(
        rows.iter().map(|r| row_i64(r)).collect::<Vec<_>>(),
        [Some(7), Some(8), Some(9)]
    );
    assert_ne!(st & STATUS_CURSOR_EXISTS, 0);
    let (rows, st) = fetch(&mut s, sel.id, 3).expect("fetch 3");
    assert_eq!(
        rows.iter().map(|r| row_i64(r)).collect::<Vec<_>>(),
        [Some(10)]
    );
    assert_ne!(st & STATUS_LAST_ROW_SENT, 0, "last row flag");
    let (code, _) = fetch(&mut s, sel.id, 3).expect_err("fetch after the end");
    assert_eq!(code, 1421);
    // Exactly divisible: the last row goes out with the chunk that takes it.
    let Reply::Rows { .. } = execute(&mut s, sel.id, 1, &[p_long(6)]) else {
        panic!("metadata")
    };
    let (rows, st) = fetch(&mut s, sel.id, 2).expect("fetch");
    assert_eq!(rows.len(), 2);
    assert_eq!(st & STATUS_LAST_ROW_SENT, 0);
    let (rows, st) = fetch(&mut s, sel.id, 2).expect("fetch");
    assert_eq!(rows.len(), 2);
    let (rows, st) = if st & STATUS_LAST_ROW_SENT == 0 {
        fetch(&mut s, sel.id, 2).expect("fetch")
    } else {
        (rows, st)
    };
    assert_ne!(st & STATUS_LAST_ROW_SENT, 0);
    let _ = rows;
    assert_eq!(fetch(&mut s, sel.id, 1).expect_err("done").0, 1421);
    // Empty result: metadata with a cursor, then a fetch gives the last-row flag.
    let Reply::Rows { .. } = execute(&mut s, sel.id, 1, &[p_long(100)]) else {
        panic!("metadata")
    };
    match fetch(&mut s, sel.id, 5) {
        Ok((rows, st)) => {
            assert!(rows.is_empty());
            assert_ne!(st & STATUS_LAST_ROW_SENT, 0);
        }
        Err((code, _)) => assert_eq!(code, 1421),
    }
    // Two statements with independent cursors; a string column.
    let sv = prepare(&mut s, "select v from cur order by id").expect("prepare");
    let Reply::Rows { .. } = execute(&mut s, sel.id, 1, &[p_long(0)]) else {
        panic!("metadata")
    };
    let Reply::Rows { .. } = execute(&mut s, sv.id, 1, &[]) else {
        panic!("metadata")
    };
    let (a, _) = fetch(&mut s, sel.id, 1).expect("fetch a");
    let (bv, _) = fetch(&mut s, sv.id, 2).expect("fetch b");
    let (a2, _) = fetch(&mut s, sel.id, 1).expect("fetch a2");
    assert_eq!(row_i64(&a[0]), Some(1));
    assert_eq!(row_i64(&a2[0]), Some(2));
    assert_eq!(
        bv.iter().map(|r| row_bytes(r)).collect::<Vec<_>>(),
        [Some(b"v1".to_vec()), Some(b"v2".to_vec())]
    );
    // Reset closes the cursor.
    assert!(matches!(stmt_reset(&mut s, sv.id), Reply::Ok { .. }));
    assert_eq!(fetch(&mut s, sv.id, 1).expect_err("after reset").0, 1421);
    // A statement without a cursor: fetch is 1421; an unknown id 1243.
    let Reply::Rows { rows, .. } = execute(&mut s, sel.id, 0, &[p_long(8)]) else {
        panic!("rows")
    };
    assert_eq!(rows.len(), 2);
    assert_eq!(fetch(&mut s, sel.id, 1).expect_err("no cursor").0, 1421);
    assert_eq!(fetch(&mut s, 4242, 1).expect_err("unknown").0, 1243);
    // A cursor on a statement without rows is just an OK.
    let upd = prepare(&mut s, "update cur set v = 'w' where id = ?").expect("prepare");
    assert!(matches!(
        execute(&mut s, upd.id, 1, &[p_long(1)]),
        Reply::Ok { affected: 1, .. }
    ));
    still_works(&mut s);
}

// ---------------------------------------------------------------------------
// Transactions, invalidation, SQL-level PREPARE.

#[test]
fn transactions_through_prepared_statements() {
    let b = Basalt::start();
    let mut c = connect(&b);
    c.query_drop("create database p").expect("db");
    c.query_drop("use p").expect("use");
    c.query_drop("create table acct (id int primary key, bal int not null)")
        .expect("create");
    c.query_drop("insert into acct values (1, 100), (2, 100)")
        .expect("insert");
    let mut other = connect_url(&b.url_db("p"));
    let begin = c.prep("begin").expect("prep begin");
    let commit = c.prep("commit").expect("prep commit");
    let rollback = c.prep("rollback").expect("prep rollback");
    let upd = c
        .prep("update acct set bal = bal + ? where id = ?")
        .expect("prep update");
    let sum = "select sum(bal) from acct";
    c.exec_drop(&begin, ()).expect("begin");
    c.exec_drop(&upd, (-30, 1)).expect("debit");
    c.exec_drop(&upd, (30, 2)).expect("credit");
    let seen: Vec<(i32, i32)> = other
        .query("select id, bal from acct order by id")
        .expect("other");
    assert_eq!(seen, [(1, 100), (2, 100)], "uncommitted changes invisible");
    c.exec_drop(&commit, ()).expect("commit");
    let seen: Vec<(i32, i32)> = other
        .query("select id, bal from acct order by id")
        .expect("other");
    assert_eq!(seen, [(1, 70), (2, 130)]);
    c.exec_drop(&begin, ()).expect("begin 2");
    c.exec_drop(&upd, (1000, 1)).expect("update");
    let mine: Option<i64> = c.exec_first(sum, ()).expect("sum");
    assert_eq!(mine, Some(1200));
    c.exec_drop(&rollback, ()).expect("rollback");
    let after: Option<i64> = c.exec_first(sum, ()).expect("sum");
    assert_eq!(after, Some(200));
    // START TRANSACTION and SAVEPOINT prepared as well.
    let start = c.prep("start transaction").expect("prep start");
    c.exec_drop(&start, ()).expect("start");
    c.exec_drop(&upd, (1, 1)).expect("update");
    c.exec_drop("savepoint sp1", ()).expect("savepoint");
    c.exec_drop(&upd, (1, 1)).expect("update");
    c.exec_drop("rollback to savepoint sp1", ())
        .expect("rollback to");
    c.exec_drop(&commit, ()).expect("commit");
    let bal: Option<i32> = other
        .query_first("select bal from acct where id = 1")
        .expect("bal");
    assert_eq!(bal, Some(71));
}

#[test]
fn ddl_invalidates_prepared_statements() {
    let b = Basalt::start();
    let mut c = connect(&b);
    c.query_drop("create database p").expect("db");
    c.query_drop("use p").expect("use");
    c.query_drop("create table inv (id int primary key, k int, v varchar(10))")
        .expect("create");
    c.query_drop("insert into inv values (1, 10, 'a'), (2, 20, 'b'), (3, 10, 'c')")
        .expect("insert");
    let by_k = c
        .prep("select id from inv where k = ? order by id")
        .expect("prep");
    let star = c.prep("select * from inv where id = ?").expect("prep star");
    let ins = c
        .prep("insert into inv (id, k, v) values (?, ?, ?)")
        .expect("prep ins");
    let ids = |c: &mut Conn| -> Vec<i32> { c.exec(&by_k, (10,)).expect("by k") };
    assert_eq!(ids(&mut c), [1, 3]);
    // CREATE INDEX: the plan may change, the answer may not.
    c.query_drop("create index k_idx on inv (k)")
        .expect("create index");
    assert_eq!(ids(&mut c), [1, 3]);
    c.exec_drop(&ins, (4, 10, "d")).expect("insert after index");
    assert_eq!(ids(&mut c), [1, 3, 4]);
    let via_index: Vec<i32> = c
        .query("select id from inv force index (k_idx) where k = 10 order by id")
        .expect("index");
    assert_eq!(via_index, [1, 3, 4]);
    // ALTER TABLE ADD INDEX / DROP INDEX.
    c.query_drop("alter table inv add index kv (k, v)")
        .expect("alter add index");
    c.exec_drop(&ins, (5, 20, "e")).expect("insert after alter");
    assert_eq!(ids(&mut c), [1, 3, 4]);
    c.query_drop("alter table inv drop index kv")
        .expect("alter drop index");
    assert_eq!(ids(&mut c), [1, 3, 4]);
    // DROP TABLE + CREATE TABLE with a different layout and contents.
    c.query_drop("drop table inv").expect("drop");
    let e = c.exec::<i32, _, _>(&by_k, (10,)).expect_err("table gone");
    assert_eq!(err_code(e), 1146);
    c.query_drop("create table inv (v varchar(10), k bigint, id int primary key, key(k))")
        .expect("recreate");
    c.query_drop("insert into inv values ('x', 10, 9), ('y', 11, 8)")
        .expect("insert");
    assert_eq!(ids(&mut c), [9]);
    c.exec_drop(&ins, (7, 10, "z"))
        .expect("insert into new table");
    assert_eq!(ids(&mut c), [7, 9]);
    let row: Vec<(String, i64, i32)> = c.exec(&star, (7,)).expect("star after recreate");
    assert_eq!(row, [("z".to_string(), 10, 7)]);
    // SELECT * follows a new layout: one more column.
    c.query_drop("drop table inv").expect("drop");
    c.query_drop("create table inv (id int primary key, k int, v varchar(10), w int default 7)")
        .expect("recreate wider");
    c.query_drop("insert into inv (id, k, v) values (1, 10, 'a')")
        .expect("insert");
    let row: Vec<mysql::Row> = c.exec(&star, (1,)).expect("star after recreate");
    assert_eq!(row[0].len(), 4);
    assert_eq!(row[0].get::<i32, _>(3), Some(7));
    // A column the statement uses is gone: an error, and back when it returns.
    c.query_drop("drop table inv").expect("drop");
    c.query_drop("create table inv (id int primary key, v varchar(10))")
        .expect("recreate without k");
    let e = c.exec::<i32, _, _>(&by_k, (10,)).expect_err("column gone");
    assert_eq!(err_code(e), 1054);
    c.query_drop("drop table inv").expect("drop");
    c.query_drop("create table inv (id int primary key, v varchar(10), k int)")
        .expect("recreate with k");
    c.query_drop("insert into inv values (8, 'q', 10)")
        .expect("insert");
    assert_eq!(ids(&mut c), [8]);
    // TRUNCATE.
    c.query_drop("truncate table inv").expect("truncate");
    assert_eq!(ids(&mut c), Vec::<i32>::new());
}

#[test]
fn prepared_reads_of_information_schema_see_the_server_now() {
    let b = Basalt::start();
    let mut c = connect(&b);
    let q = "select id, command from information_schema.processlist order by id";
    let first: Vec<(u64, String)> = c.exec(q, ()).expect("processlist");
    assert_eq!(first.len(), 1);
    assert_eq!(
        first[0].1, "Execute",
        "MariaDB's command for COM_STMT_EXECUTE"
    );
    let mut other = connect(&b);
    other.query_drop("do 1").expect("other");
    // The same prepared statement (the crate caches it) sees the new connection.
    let second: Vec<(u64, String)> = c.exec(q, ()).expect("processlist");
    assert_eq!(second.len(), 2, "{second:?}");
    let users = "select count(*) from mysql.user where user = ?";
    let n: Option<u64> = c.exec_first(users, ("app",)).expect("users");
    assert_eq!(n, Some(0));
    c.query_drop("create user app@'%'").expect("create user");
    let n: Option<u64> = c.exec_first(users, ("app",)).expect("users");
    assert_eq!(n, Some(1));
}

#[test]
fn sql_prepare_execute_deallocate() {
    let b = Basalt::start();
    let mut c = connect(&b);
    c.query_drop("create database p").expect("db");
    c.query_drop("use p").expect("use");
    c.query_drop("create table s (id int primary key, v varchar(10))")
        .expect("create");
    c.query_drop("prepare ins from 'insert into s values (?, ?)'")
        .expect("prepare");
    c.query_drop("set @i = 1, @v = 'one'").expect("set");
    c.query_drop("execute ins using @i, @v").expect("execute");
    c.query_drop("set @i = 2, @v = null").expect("set");
    c.query_drop("execute ins using @i, @v").expect("execute");
    assert_eq!(c.affected_rows(), 1);
    c.query_drop("set @q = 'select id, v from s where id >= ? order by id'")
        .expect("set");
    c.query_drop("prepare sel from @q")
        .expect("prepare from var");
    c.query_drop("set @lo = 1").expect("set");
    let rows: Vec<(i32, Option<String>)> = c.query("execute sel using @lo").expect("exec");
    assert_eq!(rows, [(1, Some("one".into())), (2, None)]);
    // Wrong argument count: 1210.
    assert_eq!(
        err_code(c.query_drop("execute ins using @i").expect_err("too few")),
        1210
    );
    // Re-PREPARE under the same name replaces the statement.
    c.query_drop("prepare sel from 'select count(*) from s'")
        .expect("re-prepare");
    let n: Option<i64> = c.query_first("execute sel").expect("count");
    assert_eq!(n, Some(2));
    // Statements without parameters, and transactions.
    c.query_drop("prepare b from 'begin'")
        .expect("prepare begin");
    c.query_drop("prepare r from 'rollback'")
        .expect("prepare rollback");
    c.query_drop("execute b").expect("begin");
    c.query_drop("set @i = 3, @v = 'three'").expect("set");
    c.query_drop("execute ins using @i, @v").expect("insert");
    c.query_drop("execute r").expect("rollback");
    let n: Option<i64> = c.query_first("execute sel").expect("count");
    assert_eq!(n, Some(2));
    c.query_drop("deallocate prepare ins").expect("deallocate");
    c.query_drop("drop prepare sel").expect("drop prepare");
    assert_eq!(
        err_code(c.query_drop("execute ins using @i, @v").expect_err("gone")),
        1243
    );
    assert_eq!(
        err_code(c.query_drop("deallocate prepare ins").expect_err("twice")),
        1243
    );
    // A syntax error inside PREPARE is reported at PREPARE.
    assert_eq!(
        err_code(
            c.query_drop("prepare bad from 'selec 1'")
                .expect_err("syntax")
        ),
        1064
    );
    let one: Option<i32> = c.query_first("select 1").expect("works");
    assert_eq!(one, Some(1));
}

// ---------------------------------------------------------------------------
// Bad input.

#[path = "prepared_bad_input.rs"]
mod bad_input;

// ---------------------------------------------------------------------------
// MariaDB as the oracle (run with --ignored where MariaDB is installed).

#[test]
#[ignore = "needs MariaDB (mariadbd, mariadb-install-db)"]
fn binary_rows_match_mariadb() {
    use basalt_tests::mariadb::{self, MariaDb};
    if !mariadb::available() {
        println!("skipped: MariaDB is not installed");
        return;
    }
    let maria = MariaDb::start(&[]);
    let b = Basalt::start();
    let mut mc = connect_url(&maria.url());
    let mut bc = connect(&b);
    for c in [&mut mc, &mut bc] {
        c.query_drop("set time_zone = '+00:00'").expect("tz");
        all_types_table(c);
    }
    for sql in [
        "select * from alltypes order by id",
        "select null, 1, null, 'a', null, 2.25, null, null, 3, null, null",
        "select cast('-838:59:59' as time), cast('123:04:05.25' as time(2)), \
         cast('2024-01-02 03:04:05.5' as datetime(1)), cast('2024-01-02' as date)",
        "select id, bl, hex(vb), tm6, dt6 from alltypes order by id",
    ] {
        let (mm, mrows) = binary_query(&mut mc, sql, ());
        let (bm, brows) = binary_query(&mut bc, sql, ());
        let types = |m: &[Meta]| {
            m.iter()
                .map(|x| (x.name.clone(), x.column_type, x.unsigned, x.binary))
                .collect::<Vec<_>>()
        };
        assert_eq!(types(&bm), types(&mm), "metadata of {sql}");
        assert_eq!(brows, mrows, "binary rows of {sql}");
        // Text rows agree too.
        let (_, mt) = text_query(&mut mc, sql);
        let (_, bt) = text_query(&mut bc, sql);
        assert_eq!(bt, mt, "text rows of {sql}");
    }
}
