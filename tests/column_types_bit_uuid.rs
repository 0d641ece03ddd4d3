//! BIT(n), UUID and INET6 columns over TCP: storage, conversions, errors, client
//! metadata, ordering and indexes, mariadb-dump round trip; and a differential run
//! against MariaDB (results, column types and flags, warnings, errors).

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::{cell, mariadb_cli, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};

fn conn(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).unwrap()).unwrap()
}

fn rows(c: &mut Conn, sql: &str) -> Vec<Vec<Option<String>>> {
    let r: Vec<mysql::Row> = c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    r.into_iter()
        .map(|row| row.unwrap().iter().map(cell).collect())
        .collect()
}

fn err(c: &mut Conn, sql: &str) -> (u16, String) {
    match c.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => (e.code, e.message),
        other => panic!("{sql}: expected an error, got {other:?}"),
    }
}

const SETUP: &[&str] = &[
    "CREATE DATABASE ty",
    "USE ty",
    "CREATE TABLE t (b BIT(5) DEFAULT b'1', u UUID, i INET6, b1 BIT)",
    "INSERT INTO t VALUES (b'101', '123e4567-e89b-12d3-a456-426655440000', '::1.2.3.4', 1), \
     (31, '123E4567E89B12D3A456426655440002', '::ffff:1.2.3.4', 0), \
     (b'11', '00000000-0000-0000-0000-000000000001', '2001:0db8:0:0:1:0:0:1', 1)",
    "INSERT INTO t (u) VALUES ('07083901-edd6-11f1-9776-02fc00000001'), \
     ('07083901-edd5-11f1-9776-02fc00000001'), ('17083901-edd5-11f1-9776-02fc00000001')",
    "CREATE TABLE k (id UUID NOT NULL PRIMARY KEY, ip INET6, KEY (ip), bb BIT(3), KEY (bb))",
    "INSERT INTO k SELECT u, i, b1 FROM t",
];

fn setup(c: &mut Conn) {
    for s in SETUP {
        c.query_drop(s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
}

fn s(v: &str) -> Option<String> {
    Some(v.to_string())
}

#[test]
fn bit_uuid_inet6_store_compare_order_and_index() {
    let srv = Basalt::start();
    let mut c = conn(&srv.url());
    setup(&mut c);
    assert_eq!(
        rows(
            &mut c,
            "SELECT b+0, HEX(b), BIN(b), b = b'101', b = 5 FROM t WHERE i IS NOT NULL ORDER BY b"
        ),
        vec![
            vec![s("3"), s("3"), s("11"), s("0"), s("0")],
            vec![s("5"), s("5"), s("101"), s("1"), s("1")],
            vec![s("31"), s("1F"), s("11111"), s("0"), s("0")],
        ]
    );
    assert_eq!(
        rows(&mut c, "SELECT i FROM t WHERE i IS NOT NULL ORDER BY i"),
        vec![
            vec![s("::1.2.3.4")],
            vec![s("::ffff:1.2.3.4")],
            vec![s("2001:db8::1:0:0:1")]
        ]
    );
    // MariaDB's UUID order: time-based UUIDs by their swapped time parts.
    let order: Vec<_> = rows(&mut c, "SELECT u FROM t ORDER BY u")
        .into_iter()
        .map(|r| r[0].clone().unwrap())
        .collect();
    let by_pk: Vec<_> = rows(&mut c, "SELECT id FROM k")
        .into_iter()
        .map(|r| r[0].clone().unwrap())
        .collect();
    // The primary key is in storage order (the swapped form, as InnoDB's); both
    // hold the same values.
    assert_eq!(by_pk.len(), order.len());
    assert_eq!(order[0], "00000000-0000-0000-0000-000000000001");
    assert_eq!(order[1], "07083901-edd5-11f1-9776-02fc00000001");
    assert_eq!(
        rows(
            &mut c,
            "SELECT id FROM k WHERE id = '123E4567E89B12D3A456426655440000'"
        ),
        vec![vec![s("123e4567-e89b-12d3-a456-426655440000")]]
    );
    assert_eq!(
        rows(&mut c, "SELECT count(*) FROM k WHERE bb = b'1'"),
        vec![vec![s("2")]]
    );
    assert_eq!(
        rows(&mut c, "SELECT CAST('::ffff:102:304' AS INET6), CAST('12345678123412341234123456789ABC' AS UUID), CAST('1.2.3.4' AS INET6)"),
        vec![vec![s("::ffff:1.2.3.4"), s("12345678-1234-1234-1234-123456789abc"), None]]
    );
    // Strict mode errors.
    assert_eq!(
        err(&mut c, "INSERT INTO t (b) VALUES (32)"),
        (1406, "Data too long for column 'b' at row 1".into())
    );
    assert_eq!(
        err(&mut c, "INSERT INTO t (u) VALUES ('{123e4567-e89b-12d3-a456-426655440000}')"),
        (1292, "Incorrect uuid value: '{123e4567-e89b-12d3-a456-426655440000}' for column `ty`.`t`.`u` at row 1".into())
    );
    assert_eq!(
        err(&mut c, "INSERT INTO t (i) VALUES ('1.2.3.4')"),
        (
            1292,
            "Incorrect inet6 value: '1.2.3.4' for column `ty`.`t`.`i` at row 1".into()
        )
    );
    assert_eq!(err(&mut c, "CREATE TABLE bad (c BIT(65))").0, 1439);
    assert_eq!(err(&mut c, "CREATE TABLE bad (c BIT(0))").0, 1439);
    // Non-strict: all ones / NULL with warnings.
    c.query_drop("SET sql_mode = ''").unwrap();
    c.query_drop("INSERT INTO t VALUES (-1, 'x', 'y', 2)")
        .unwrap();
    let w = rows(&mut c, "SHOW WARNINGS");
    assert_eq!(w.len(), 4, "{w:?}");
    assert_eq!(w[0][1], s("1264"));
    assert_eq!(
        rows(
            &mut c,
            "SELECT b+0, u, i, b1+0 FROM t WHERE b = 31 AND b1 = 1"
        ),
        vec![vec![s("31"), None, None, s("1")]]
    );
    let create = rows(&mut c, "SHOW CREATE TABLE t");
    assert!(create[0][1].as_deref().unwrap().contains("`b` bit(5) DEFAULT b'1',\n  `u` uuid DEFAULT NULL,\n  `i` inet6 DEFAULT NULL,\n  `b1` bit(1) DEFAULT NULL"), "{create:?}");
    assert_eq!(
        rows(&mut c, "SELECT column_type, numeric_precision, column_default FROM information_schema.columns WHERE table_schema='ty' AND table_name='t' ORDER BY ordinal_position"),
        vec![
            vec![s("bit(5)"), s("5"), s("b'1'")],
            vec![s("uuid"), None, s("NULL")],
            vec![s("inet6"), None, s("NULL")],
            vec![s("bit(1)"), s("1"), s("NULL")],
        ]
    );
}

#[test]
fn client_metadata_and_bit_wire_form() {
    let srv = Basalt::start();
    let mut c = conn(&srv.url());
    setup(&mut c);
    let mut r = c
        .query_iter("SELECT b, b1, u, i FROM t WHERE b = 5")
        .unwrap();
    let cols: Vec<(u8, u32, u16)> = r
        .columns()
        .as_ref()
        .iter()
        .map(|f| (f.column_type() as u8, f.column_length(), f.character_set()))
        .collect();
    assert_eq!(
        cols,
        vec![(16, 5, 63), (16, 1, 63), (254, 144, 45), (254, 156, 45)]
    );
    let row: mysql::Row = r.next().unwrap().unwrap();
    assert_eq!(row.as_ref(0), Some(&mysql::Value::Bytes(vec![5])));
    assert_eq!(row.as_ref(1), Some(&mysql::Value::Bytes(vec![1])));
}

#[test]
fn mariadb_dump_round_trip() {
    if basalt_tests::which("mariadb-dump").is_none() {
        return;
    }
    let srv = Basalt::start();
    let mut c = conn(&srv.url());
    setup(&mut c);
    let port = srv.port;
    let out = std::process::Command::new("mariadb-dump")
        .args([
            "-h127.0.0.1",
            "-uroot",
            "--skip-ssl",
            &format!("-P{port}"),
            "ty",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dump = String::from_utf8_lossy(&out.stdout).into_owned();
    c.query_drop("CREATE DATABASE ty2").unwrap();
    let (code, _, e) = mariadb_cli(port, &["ty2"], &dump);
    assert_eq!(code, 0, "{e}");
    for q in [
        "SELECT b+0, u, i, b1+0 FROM {} ORDER BY u",
        "SELECT id, ip, bb+0 FROM {}",
    ] {
        let t = if q.contains("id,") { "k" } else { "t" };
        assert_eq!(
            rows(&mut c, &q.replace("{}", &format!("ty.{t}"))),
            rows(&mut c, &q.replace("{}", &format!("ty2.{t}")))
        );
    }
}

const DIFF: &[&str] = &[
    "SELECT b, b1, u, i FROM t ORDER BY u",
    "SELECT b+0, HEX(b), BIN(b), b = b'101', b = 5, b = '5', b > b'100' FROM t ORDER BY b, u",
    "SELECT u, LENGTH(u), CONCAT(u, '!'), i, LENGTH(i) FROM t ORDER BY i, u",
    "SELECT id, ip, bb FROM k ORDER BY id",
    "SELECT ip FROM k WHERE ip > '::' ORDER BY ip",
    "SELECT CAST('::ffff:1.2.3.4' AS INET6), CAST('1:0:0:2:0:0:0:3' AS INET6), CAST('1234-5678-1234-1234-1234-1234-5678-9abc' AS UUID)",
    "SELECT CAST('1-2' AS UUID)",
    "SHOW CREATE TABLE t",
    "SHOW CREATE TABLE k",
    // information_schema's own column types (LONGTEXT lengths) are not compared.
    "~ SELECT column_name, column_type, data_type, numeric_precision, column_default FROM information_schema.columns WHERE table_schema = 'ty' ORDER BY table_name, ordinal_position",
    "INSERT INTO t (b) VALUES (32)",
    "INSERT INTO t (u) VALUES ('x')",
    "INSERT INTO t (i) VALUES ('1.2.3.4')",
    "SET sql_mode = ''",
    "INSERT INTO t VALUES (-1, 'x', 'y', 2)",
    "SELECT b+0, u, i, b1+0 FROM t ORDER BY b, u",
];

type Cols = Vec<(String, u8, u32, u16)>;
type Outcome = Result<(Cols, Vec<Vec<mysql::Value>>, Vec<Vec<Option<String>>>), (u16, String)>;

fn outcome(c: &mut Conn, sql: &str) -> Outcome {
    let (cols, data) = {
        let mut r = match c.query_iter(sql) {
            Ok(r) => r,
            Err(mysql::Error::MySqlError(e)) => return Err((e.code, e.message)),
            Err(e) => panic!("{sql}: {e}"),
        };
        let cols: Cols = r
            .columns()
            .as_ref()
            .iter()
            .map(|f| {
                (
                    f.name_str().into_owned(),
                    f.column_type() as u8,
                    f.column_length(),
                    f.flags().bits() & 0xB1,
                )
            })
            .collect();
        let data: Vec<Vec<mysql::Value>> = r.by_ref().map(|row| row.unwrap().unwrap()).collect();
        (cols, data)
    };
    let warnings = rows(c, "SHOW WARNINGS");
    Ok((cols, data, warnings))
}

#[test]
#[ignore = "needs mariadb-server"]
fn differential_against_mariadb() {
    if !mariadb::available() {
        return;
    }
    let m = MariaDb::start(&[]);
    let b = Basalt::start();
    let mut cm = conn(&m.url());
    let mut cb = conn(&b.url());
    setup(&mut cm);
    setup(&mut cb);
    for line in DIFF {
        let (sql, values_only) = match line.strip_prefix("~ ") {
            Some(sql) => (sql, true),
            None => (*line, false),
        };
        let (mut got, mut want) = (outcome(&mut cb, sql), outcome(&mut cm, sql));
        if values_only {
            for o in [&mut got, &mut want].into_iter().flatten() {
                o.0.clear();
            }
        }
        assert_eq!(got, want, "{sql}");
    }
}
