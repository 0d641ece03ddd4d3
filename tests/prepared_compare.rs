//! Text vs binary comparison through the `mysql` crate: column metadata, cell by
//! cell value checks, and the table with a column of every type.

use mysql::consts::{ColumnFlags, ColumnType};
use mysql::prelude::*;
use mysql::{Column, Conn, Value};

// ---------------------------------------------------------------------------
// Text vs binary comparison through the mysql crate.

/// Column metadata that must agree between text and binary results.
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    pub name: String,
    pub column_type: ColumnType,
    pub unsigned: bool,
    pub binary: bool,
    pub decimals: u8,
}

pub fn meta(cols: &[Column]) -> Vec<Meta> {
    cols.iter()
        .map(|c| Meta {
            name: c.name_str().into_owned(),
            column_type: c.column_type(),
            unsigned: c.flags().contains(ColumnFlags::UNSIGNED_FLAG),
            binary: c.character_set() == 63,
            decimals: c.decimals(),
        })
        .collect()
}

pub type TextRows = Vec<Vec<Option<Vec<u8>>>>;

pub fn text_query(c: &mut Conn, sql: &str) -> (Vec<Meta>, TextRows) {
    let mut res = c.query_iter(sql).expect("text query");
    let cols = meta(res.columns().as_ref());
    let mut rows = Vec::new();
    for row in res.by_ref() {
        let row = row.expect("text row");
        let vals = (0..row.len())
            .map(|i| match row.as_ref(i).expect("value") {
                Value::NULL => None,
                Value::Bytes(b) => Some(b.clone()),
                other => panic!("text protocol gave {other:?}"),
            })
            .collect();
        rows.push(vals);
    }
    (cols, rows)
}

pub fn binary_query<P: Into<mysql::Params>>(
    c: &mut Conn,
    sql: &str,
    params: P,
) -> (Vec<Meta>, Vec<Vec<Value>>) {
    let stmt = c.prep(sql).expect("prepare");
    let mut res = c.exec_iter(&stmt, params).expect("execute");
    let cols = meta(res.columns().as_ref());
    let mut rows = Vec::new();
    for row in res.by_ref() {
        let row = row.expect("binary row");
        rows.push((0..row.len()).map(|i| row[i].clone()).collect());
    }
    drop(res);
    c.close(stmt).expect("close");
    (cols, rows)
}

pub fn two_digits(out: &mut String, v: u32) {
    out.push_str(&format!("{v:02}"));
}

pub fn fraction(out: &mut String, micro: u32, decimals: u8) {
    let d = decimals.min(6) as u32;
    if d > 0 {
        out.push_str(&format!(
            ".{:0width$}",
            micro / 10u32.pow(6 - d),
            width = d as usize
        ));
    }
}

/// Checks one binary value against the text protocol's bytes for the same cell.
pub fn check_cell(what: &str, m: &Meta, bin: &Value, text: &Option<Vec<u8>>) {
    let Some(text) = text else {
        assert_eq!(bin, &Value::NULL, "{what}: text NULL, binary {bin:?}");
        return;
    };
    let t = String::from_utf8_lossy(text).into_owned();
    match bin {
        Value::NULL => panic!("{what}: binary NULL, text {t:?}"),
        Value::Bytes(b) => assert_eq!(b, text, "{what}: bytes differ"),
        Value::Int(i) => assert_eq!(i.to_string(), t, "{what}"),
        Value::UInt(u) => assert_eq!(u.to_string(), t, "{what}"),
        Value::Float(f) => {
            assert_eq!(m.column_type, ColumnType::MYSQL_TYPE_FLOAT, "{what}");
            let parsed: f32 = t.parse().unwrap_or_else(|_| panic!("{what}: {t:?}"));
            assert_eq!(parsed.to_bits(), f.to_bits(), "{what}: {t} vs {f}");
        }
        Value::Double(d) => {
            let parsed: f64 = t.parse().unwrap_or_else(|_| panic!("{what}: {t:?}"));
            if m.decimals < 31 {
                // A declared scale prints fixed digits: compare at that scale.
                assert_eq!(
                    format!("{:.*}", m.decimals as usize, d),
                    t,
                    "{what}: {t} vs {d}"
                );
            } else {
                assert_eq!(parsed.to_bits(), d.to_bits(), "{what}: {t} vs {d}");
            }
        }
        Value::Date(y, mo, d, h, mi, s, us) => {
            let mut out = format!("{y:04}-{mo:02}-{d:02}");
            if m.column_type != ColumnType::MYSQL_TYPE_DATE {
                out.push(' ');
                two_digits(&mut out, *h as u32);
                out.push(':');
                two_digits(&mut out, *mi as u32);
                out.push(':');
                two_digits(&mut out, *s as u32);
                fraction(&mut out, *us, m.decimals);
            }
            assert_eq!(out, t, "{what}");
        }
        Value::Time(neg, days, h, mi, s, us) => {
            let mut out = String::new();
            if *neg {
                out.push('-');
            }
            two_digits(&mut out, days * 24 + *h as u32);
            out.push(':');
            two_digits(&mut out, *mi as u32);
            out.push(':');
            two_digits(&mut out, *s as u32);
            fraction(&mut out, *us, m.decimals);
            assert_eq!(out, t, "{what}");
        }
    }
}

/// Runs `sql` through both protocols and checks they agree cell by cell; returns the
/// binary rows.
pub fn same_in_both(c: &mut Conn, sql: &str) -> (Vec<Meta>, Vec<Vec<Value>>) {
    let (tm, trows) = text_query(c, sql);
    let (bm, brows) = binary_query(c, sql, ());
    assert_eq!(tm, bm, "metadata of {sql}");
    assert_eq!(trows.len(), brows.len(), "row count of {sql}");
    for (r, (t, b)) in trows.iter().zip(&brows).enumerate() {
        assert_eq!(t.len(), b.len());
        for (i, (tv, bv)) in t.iter().zip(b).enumerate() {
            check_cell(
                &format!("{sql}: row {r} column {}", bm[i].name),
                &bm[i],
                bv,
                tv,
            );
        }
    }
    (bm, brows)
}

pub const ALL_TYPES_DDL: &str = "create table alltypes (
    id int primary key,
    ti tinyint, tiu tinyint unsigned, si smallint, siu smallint unsigned,
    mi mediumint, miu mediumint unsigned, i int, iu int unsigned,
    bi bigint, biu bigint unsigned,
    de decimal(30,6), de0 decimal(10,0), fl float, do double, yr year,
    ch char(10), vc varchar(50), tx text, bl blob, bn binary(4), vb varbinary(20),
    d date, dt datetime, dt6 datetime(6), ts timestamp(3) null default null,
    tm time, tm6 time(6)
)";

pub const ALL_TYPES_ROWS: &str = "insert into alltypes values
    (1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0,
     -9223372036854775808, 0,
     -123456789012345678.123456, -9999999999, -3.4e38, -1.7976931348623157e308, 1901,
     '', '', '', '', x'00000000', x'',
     '1000-01-01', '1000-01-01 00:00:00', '1000-01-01 00:00:00.000000',
     '1970-01-02 00:00:00.000', '-838:59:59', '-838:59:58.999999'),
    (2, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295,
     9223372036854775807, 18446744073709551615,
     123456789012345678.123456, 9999999999, 3.4e38, 1.7976931348623157e308, 2155,
     'abc', 'héllo wörld', repeat('t', 1000), x'00ff10fe7f80', x'01020304', x'00ff',
     '9999-12-31', '9999-12-31 23:59:59', '9999-12-31 23:59:59.999999',
     '2038-01-19 03:14:07.499', '838:59:59', '838:59:58.000001'),
    (3, null, null, null, null, null, null, null, null, null, null,
     null, null, null, null, null, null, null, null, null, null, null,
     null, null, null, null, null, null),
    (4, 0, 1, -1, 2, 0, 3, -1, 4, -1, 5,
     0.000001, 0, 0.1, 0.1, 2024,
     'x', null, 'line\\nbreak', null, null, x'41',
     '2024-02-29', '2024-02-29 12:34:56', '2024-02-29 12:34:56.000120',
     null, '-00:00:01', '100:00:00.5'),
    (5, null, 7, null, 8, null, 9, null, 10, null, 11,
     null, 1, null, 2.5, null,
     null, 'v', null, 'blob', null, null,
     null, '2001-02-03 04:05:06', null,
     '2001-02-03 04:05:06.789', null, '-26:00:00.000001')";

pub fn all_types_table(c: &mut Conn) {
    c.query_drop("create database if not exists p").expect("db");
    c.query_drop("use p").expect("use");
    c.query_drop("drop table if exists alltypes").expect("drop");
    c.query_drop(ALL_TYPES_DDL).expect("create");
    c.query_drop(ALL_TYPES_ROWS).expect("insert");
}
