//! The table, rows and parameters every driver test uses (the same in every
//! language), and the checks the Rust driver tests share.

use basalt_tests::Basalt;
use mysql::{Opts, OptsBuilder, Pool, PoolConstraints, PoolOpts, Value};

// ---------------------------------------------------------------------------
// The table and the rows every driver test uses (the same in every language).

pub const DDL: &str = "CREATE TABLE all_types (
  id INT NOT NULL PRIMARY KEY,
  ti TINYINT, tu TINYINT UNSIGNED,
  si SMALLINT, su SMALLINT UNSIGNED,
  mi MEDIUMINT, mu MEDIUMINT UNSIGNED,
  i INT, iu INT UNSIGNED,
  bi BIGINT, bu BIGINT UNSIGNED,
  de DECIMAL(20,6), f FLOAT, d DOUBLE,
  c CHAR(10), vc VARCHAR(100), tx TEXT, bl BLOB, vb VARBINARY(16),
  da DATE, dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP NULL, tm TIME, tm3 TIME(3),
  yr YEAR,
  UNIQUE KEY uk_vc (vc)
)";

pub const COLUMNS: [&str; 26] = [
    "id", "ti", "tu", "si", "su", "mi", "mu", "i", "iu", "bi", "bu", "de", "f", "d", "c", "vc",
    "tx", "bl", "vb", "da", "dt", "dt6", "ts", "tm", "tm3", "yr",
];

pub const VC: &str = "h\u{e9}llo w\u{f6}rld \u{2713} \u{1F600}";

pub const MIN_SQL: &str = "(1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, \
    -9223372036854775808, 0, -12345678901234.123456, -1.5, -2.5e-300, 'abc', \
    'h\u{e9}llo w\u{f6}rld \u{2713} \u{1F600}', REPEAT('t\u{fc}', 500), X'00010203FEFF', \
    X'00FF', '1000-01-01', '1000-01-01 00:00:00', '2024-02-29 23:59:59.123456', \
    '1970-01-02 00:00:01', '-838:59:59', '-00:00:01.500', 1901)";

/// One expected column value: how the text protocol shows it (`None`: NULL) and the
/// value the binary protocol decodes to.
#[derive(Clone, Debug)]
pub struct Want {
    pub text: Option<Vec<u8>>,
    pub bin: Value,
}

pub fn w(text: &str, bin: Value) -> Want {
    Want {
        text: Some(text.as_bytes().to_vec()),
        bin,
    }
}

pub fn wb(bytes: &[u8]) -> Want {
    Want {
        text: Some(bytes.to_vec()),
        bin: Value::Bytes(bytes.to_vec()),
    }
}

pub fn int(i: i64) -> Want {
    w(&i.to_string(), Value::Int(i))
}

pub fn null() -> Want {
    Want {
        text: None,
        bin: Value::NULL,
    }
}

pub fn all_bytes() -> Vec<u8> {
    (0..=255u8).collect()
}

pub fn min_row() -> Vec<Want> {
    vec![
        int(1),
        int(-128),
        int(0),
        int(-32768),
        int(0),
        int(-8388608),
        int(0),
        int(-2147483648),
        int(0),
        int(i64::MIN),
        int(0),
        wb(b"-12345678901234.123456"),
        w("-1.5", Value::Float(-1.5)),
        w("-2.5e-300", Value::Double(-2.5e-300)),
        wb(b"abc"),
        wb(VC.as_bytes()),
        wb("t\u{fc}".repeat(500).as_bytes()),
        wb(&[0, 1, 2, 3, 0xfe, 0xff]),
        wb(&[0, 0xff]),
        w("1000-01-01", Value::Date(1000, 1, 1, 0, 0, 0, 0)),
        w("1000-01-01 00:00:00", Value::Date(1000, 1, 1, 0, 0, 0, 0)),
        w(
            "2024-02-29 23:59:59.123456",
            Value::Date(2024, 2, 29, 23, 59, 59, 123456),
        ),
        w("1970-01-02 00:00:01", Value::Date(1970, 1, 2, 0, 0, 1, 0)),
        w("-838:59:59", Value::Time(true, 34, 22, 59, 59, 0)),
        w("-00:00:01.500", Value::Time(true, 0, 0, 0, 1, 500_000)),
        int(1901),
    ]
}

pub fn max_row() -> Vec<Want> {
    vec![
        int(2),
        int(127),
        int(255),
        int(32767),
        int(65535),
        int(8388607),
        int(16777215),
        int(2147483647),
        int(4294967295),
        int(i64::MAX),
        w("18446744073709551615", Value::UInt(u64::MAX)),
        wb(b"99999999999999.999999"),
        w("3.25", Value::Float(3.25)),
        w("3.141592653589793", Value::Double(std::f64::consts::PI)),
        wb(b"xyz"),
        wb(b""),
        wb(b""),
        wb(&all_bytes()),
        wb(b""),
        w("9999-12-31", Value::Date(9999, 12, 31, 0, 0, 0, 0)),
        w(
            "9999-12-31 23:59:59",
            Value::Date(9999, 12, 31, 23, 59, 59, 0),
        ),
        w(
            "2001-02-03 04:05:06.000007",
            Value::Date(2001, 2, 3, 4, 5, 6, 7),
        ),
        w("2038-01-19 03:14:07", Value::Date(2038, 1, 19, 3, 14, 7, 0)),
        w("838:59:59", Value::Time(false, 34, 22, 59, 59, 0)),
        w("12:34:56.789", Value::Time(false, 0, 12, 34, 56, 789_000)),
        int(2155),
    ]
}

/// The parameters of the prepared INSERT of `max_row()`, as Rust values of each
/// column's natural type (the crates bind them as LONGLONG, FLOAT, DOUBLE, strings,
/// DATETIME and TIME).
pub fn max_params() -> Vec<Value> {
    vec![
        2i32.into(),
        127i8.into(),
        255u8.into(),
        32767i16.into(),
        65535u16.into(),
        8388607i32.into(),
        16777215u32.into(),
        i32::MAX.into(),
        u32::MAX.into(),
        i64::MAX.into(),
        u64::MAX.into(),
        // A DECIMAL from a string keeps all its digits (a double would round it).
        "99999999999999.999999".into(),
        3.25f32.into(),
        std::f64::consts::PI.into(),
        "xyz".into(),
        "".into(),
        "".into(),
        all_bytes().into(),
        Vec::<u8>::new().into(),
        Value::Date(9999, 12, 31, 0, 0, 0, 0),
        Value::Date(9999, 12, 31, 23, 59, 59, 0),
        Value::Date(2001, 2, 3, 4, 5, 6, 7),
        Value::Date(2038, 1, 19, 3, 14, 7, 0),
        Value::Time(false, 34, 22, 59, 59, 0),
        Value::Time(false, 0, 12, 34, 56, 789_000),
        2155u16.into(),
    ]
}

pub fn null_row(id: i64) -> Vec<Want> {
    let mut r = vec![null(); COLUMNS.len()];
    r[0] = int(id);
    r
}

pub fn all_rows() -> Vec<Vec<Want>> {
    vec![min_row(), max_row(), null_row(3), null_row(4)]
}

pub fn insert_sql() -> String {
    format!(
        "INSERT INTO all_types VALUES ({})",
        vec!["?"; COLUMNS.len()].join(", ")
    )
}

pub fn null_params(id: i64) -> Vec<Value> {
    let mut p = vec![Value::NULL; COLUMNS.len()];
    p[0] = id.into();
    p
}

/// Compares rows read back with the expected ones (`binary`: from a prepared
/// statement, else from a text query).
pub fn check_rows(what: &str, got: &[Vec<Value>], want: &[Vec<Want>], binary: bool) {
    assert_eq!(got.len(), want.len(), "{what}: row count: {got:?}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.len(), COLUMNS.len(), "{what}: column count");
        for (k, (gv, wv)) in g.iter().zip(w).enumerate() {
            let ok = if binary {
                *gv == wv.bin
            } else {
                match (&wv.text, gv) {
                    (None, Value::NULL) => true,
                    (Some(t), Value::Bytes(b)) if matches!(COLUMNS[k], "f" | "d") => {
                        parse_f64(b) == parse_f64(t)
                    }
                    (Some(t), Value::Bytes(b)) => b == t,
                    _ => false,
                }
            };
            assert!(
                ok,
                "{what}: row {:?} column {}: got {gv:?}, want {}",
                w[0].text.as_deref().map(String::from_utf8_lossy),
                COLUMNS[k],
                if binary {
                    format!("{:?}", wv.bin)
                } else {
                    format!("{:?}", wv.text.as_deref().map(String::from_utf8_lossy))
                }
            );
        }
    }
}

pub fn parse_f64(b: &[u8]) -> f64 {
    std::str::from_utf8(b)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(f64::NAN)
}

pub fn err_code(e: mysql::Error) -> u16 {
    match e {
        mysql::Error::MySqlError(e) => e.code,
        other => panic!("expected a server error, got {other:?}"),
    }
}

pub fn async_err_code(e: mysql_async::Error) -> u16 {
    match e {
        mysql_async::Error::Server(e) => e.code,
        other => panic!("expected a server error, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------
// Rust `mysql` (sync).

pub fn pool_of_one(b: &Basalt, db: Option<&str>) -> Pool {
    let opts = OptsBuilder::from_opts(Opts::from_url(&b.url()).expect("url"))
        .db_name(db)
        .pool_opts(
            PoolOpts::default()
                .with_constraints(PoolConstraints::new(1, 1).expect("constraints"))
                .with_reset_connection(true),
        );
    Pool::new(opts).expect("pool")
}
