//! CONVERT_TZ with named zones against MariaDB, whose time-zone tables the test
//! loads with `mariadb-tzinfo-to-sql` from the same system zoneinfo: ordinary
//! times, both sides of daylight-saving changes (the skipped and the repeated
//! hour), half-hour and 45-minute zones, numeric offsets mixed with names,
//! unknown zones and values outside the TIMESTAMP range.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

const ZONES: &[&str] = &[
    "Europe/Berlin",
    "America/New_York",
    "Asia/Kolkata",
    "Australia/Lord_Howe",
    "Asia/Kathmandu",
    "America/Sao_Paulo",
    "UTC",
];

fn load_zones(port: u16) {
    for z in ZONES {
        let file = format!("/usr/share/zoneinfo/{z}");
        let sql = std::process::Command::new("mariadb-tzinfo-to-sql")
            .args([&file, *z])
            .output()
            .expect("run mariadb-tzinfo-to-sql");
        assert!(
            sql.status.success(),
            "{}",
            String::from_utf8_lossy(&sql.stderr)
        );
        let (code, _, err) =
            basalt_tests::mariadb_cli(port, &["mysql"], &String::from_utf8_lossy(&sql.stdout));
        assert_eq!(code, 0, "{err}");
    }
}

fn queries() -> Vec<String> {
    let times = [
        "2024-01-15 12:00:00",
        "2024-07-15 12:34:56.789",
        "2024-03-31 01:59:59",
        "2024-03-31 02:30:00",
        "2024-03-31 03:00:00",
        "2024-10-27 02:30:00",
        "2024-10-27 03:00:00",
        "2024-03-10 02:30:00",
        "2024-11-03 01:30:00",
        "2024-04-07 01:45:00",
        "1975-06-01 00:00:00",
        "2037-12-31 23:59:59",
        "1969-12-31 23:59:59",
        "2100-01-01 00:00:00",
    ];
    let mut zones: Vec<&str> = ZONES.to_vec();
    zones.extend([
        "+05:30",
        "-08:00",
        "SYSTEM",
        "europe/berlin",
        "Mars/Olympus",
        "+14:00",
    ]);
    let mut out = Vec::new();
    for t in times {
        for from in &zones {
            let to_list = [
                "UTC",
                "Europe/Berlin",
                "Asia/Kathmandu",
                "+01:00",
                "America/New_York",
            ];
            let cols: Vec<String> = to_list
                .iter()
                .map(|to| format!("CONVERT_TZ('{t}', '{from}', '{to}')"))
                .collect();
            out.push(format!("SELECT {}", cols.join(", ")));
        }
    }
    out
}

fn rows(c: &mut Conn, q: &str) -> Vec<Vec<Option<String>>> {
    c.query_iter(q)
        .unwrap_or_else(|e| panic!("{q}: {e}"))
        .map(|r| {
            r.expect("row")
                .unwrap()
                .into_iter()
                .map(|v| basalt_tests::cell(&v))
                .collect()
        })
        .collect()
}

#[test]
#[ignore = "differential: needs mariadb-server"]
fn convert_tz_named_zones_match_mariadb() {
    if !mariadb::available() || basalt_tests::which("mariadb-tzinfo-to-sql").is_none() {
        eprintln!("skipping: mariadbd or mariadb-tzinfo-to-sql not installed");
        return;
    }
    if !std::path::Path::new("/usr/share/zoneinfo/Europe/Berlin").exists() {
        eprintln!("skipping: no system zoneinfo (tzdata)");
        return;
    }
    let mut maria = MariaDb::start(&[]);
    load_zones(maria.port);
    let basalt = Basalt::start();
    let mut m = Conn::new(Opts::from_url(&maria.url()).expect("url")).expect("connect MariaDB");
    let mut b = Conn::new(Opts::from_url(&basalt.url()).expect("url")).expect("connect Basalt");
    let mut diffs = Vec::new();
    let all = queries();
    for q in &all {
        let (want, got) = (rows(&mut m, q), rows(&mut b, q));
        if want != got {
            diffs.push(format!("{q}\n  MariaDB {want:?}\n  Basalt  {got:?}"));
        }
    }
    maria.stop();
    assert!(
        diffs.is_empty(),
        "{} of {} differ:\n{}",
        diffs.len(),
        all.len(),
        diffs.join("\n")
    );
}

/// Django runs this when it connects with time zones on.
#[test]
fn convert_tz_utc_to_utc_and_a_named_zone() {
    let basalt = Basalt::start();
    let mut c = Conn::new(Opts::from_url(&basalt.url()).expect("url")).expect("connect");
    let r: Option<String> = c
        .query_first("SELECT CONVERT_TZ('2001-01-01 01:00:00', 'UTC', 'UTC')")
        .expect("query");
    assert_eq!(r.as_deref(), Some("2001-01-01 01:00:00"));
    let r: Option<String> = c
        .query_first("SELECT CONVERT_TZ('2024-07-01 12:00:00', 'UTC', 'Asia/Tokyo')")
        .expect("query");
    assert_eq!(r.as_deref(), Some("2024-07-01 21:00:00"));
    let r: Option<Option<String>> = c
        .query_first("SELECT CONVERT_TZ('2024-07-01 12:00:00', 'UTC', 'No/Such_Zone')")
        .expect("query");
    assert_eq!(r, Some(None));
}

/// Statements run in order on both servers; each one's result (rows, or the
/// error code) is compared.
fn session_zone_script() -> Vec<String> {
    let mut out: Vec<String> = [
        "CREATE DATABASE tzd",
        "USE tzd",
        "CREATE TABLE t (id INT PRIMARY KEY, ts TIMESTAMP NULL, dt DATETIME, KEY (ts))",
        "SELECT @@time_zone, @@session.time_zone",
        "SET time_zone = 'Mars/Olympus'",
        "SET time_zone = '+14:00'",
        "SET time_zone = '-13:00'",
        "SET time_zone = '+5:30'",
        "SELECT @@time_zone, @@session.time_zone",
        "SET @@time_zone = 'europe/berlin'",
        "SELECT @@time_zone",
        "SET SESSION time_zone = 'UTC'",
        "SELECT @@time_zone",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let writes = [
        ("+02:00", 1, "2024-07-01 12:00:00"),
        ("-08:00", 2, "2024-01-15 23:30:00"),
        ("Europe/Berlin", 3, "2024-03-31 02:30:00"),
        ("Europe/Berlin", 4, "2024-10-27 02:30:00"),
        ("Europe/Berlin", 5, "2024-06-01 00:00:00.5"),
        ("America/New_York", 6, "2024-11-03 01:30:00"),
        ("Asia/Kathmandu", 7, "2030-05-05 05:05:05"),
        ("UTC", 8, "1999-12-31 23:59:59"),
    ];
    for (zone, id, t) in writes {
        out.push(format!("SET time_zone = '{zone}'"));
        out.push(format!("INSERT INTO t VALUES ({id}, '{t}', '{t}')"));
    }
    out.push("SET time_zone = '+02:00'".into());
    out.push("UPDATE t SET ts = ts + INTERVAL 1 HOUR WHERE id = 8".into());
    for zone in [
        "UTC",
        "+02:00",
        "America/New_York",
        "Europe/Berlin",
        "+05:30",
    ] {
        out.push(format!("SET time_zone = '{zone}'"));
        out.push(
            "SELECT id, ts, dt, UNIX_TIMESTAMP(ts), CAST(ts AS CHAR) FROM t ORDER BY id".into(),
        );
        out.push("SELECT id FROM t WHERE ts >= '2024-06-01 00:00:00' ORDER BY id".into());
        out.push("SELECT id FROM t FORCE INDEX (ts) WHERE ts BETWEEN '2024-01-01' AND '2024-07-01 12:00:00' ORDER BY id".into());
        out.push("SELECT id FROM t WHERE ts = '2024-07-01 12:00:00'".into());
        out.push("SELECT FROM_UNIXTIME(1700000000), UNIX_TIMESTAMP('2024-07-01 12:00:00'), FROM_UNIXTIME(1700000000, '%Y %H:%i')".into());
        out.push("SELECT HOUR(ts), DATE(ts) FROM t WHERE id = 1".into());
    }
    out
}

fn outcome(c: &mut Conn, q: &str) -> Result<Vec<Vec<Option<String>>>, u16> {
    match c.query_iter(q) {
        Ok(r) => Ok(r
            .map(|r| {
                r.expect("row")
                    .unwrap()
                    .into_iter()
                    .map(|v| basalt_tests::cell(&v))
                    .collect()
            })
            .collect()),
        Err(mysql::Error::MySqlError(e)) => Err(e.code),
        Err(e) => panic!("{q}: {e}"),
    }
}

#[test]
#[ignore = "differential: needs mariadb-server"]
fn session_time_zone_matches_mariadb() {
    if !mariadb::available() || basalt_tests::which("mariadb-tzinfo-to-sql").is_none() {
        eprintln!("skipping: mariadbd or mariadb-tzinfo-to-sql not installed");
        return;
    }
    let mut maria = MariaDb::start(&[]);
    load_zones(maria.port);
    let basalt = Basalt::start();
    let mut m = Conn::new(Opts::from_url(&maria.url()).expect("url")).expect("connect MariaDB");
    let mut b = Conn::new(Opts::from_url(&basalt.url()).expect("url")).expect("connect Basalt");
    let mut diffs = Vec::new();
    for q in session_zone_script() {
        let (want, got) = (outcome(&mut m, &q), outcome(&mut b, &q));
        if want != got {
            diffs.push(format!("{q}\n  MariaDB {want:?}\n  Basalt  {got:?}"));
        }
    }
    maria.stop();
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

fn one(c: &mut Conn, q: &str) -> String {
    let r: Option<Option<String>> = c.query_first(q).unwrap_or_else(|e| panic!("{q}: {e}"));
    r.flatten().unwrap_or_else(|| "NULL".into())
}

fn ids(c: &mut Conn, q: &str) -> Vec<i64> {
    c.query(q).unwrap_or_else(|e| panic!("{q}: {e}"))
}

/// TIMESTAMP values are kept in UTC: written under one zone, read under others,
/// after a restart too, through the text and the binary protocol; a TIMESTAMP key
/// is searched in the session zone; DATETIME is never converted.
#[test]
fn timestamp_columns_follow_the_session_time_zone() {
    let mut basalt = Basalt::start();
    let mut c = Conn::new(Opts::from_url(&basalt.url()).expect("url")).expect("connect");
    c.query_drop("CREATE DATABASE z").expect("db");
    c.query_drop("USE z").expect("use");
    c.query_drop("CREATE TABLE t (id INT PRIMARY KEY, ts TIMESTAMP NULL, dt DATETIME, KEY (ts))")
        .expect("create");
    c.query_drop("SET time_zone = '+02:00'").expect("set");
    c.query_drop("INSERT INTO t VALUES (1, '2024-07-01 12:00:00', '2024-07-01 12:00:00'), (2, '2024-01-01 01:00:00', '2024-01-01 01:00:00')")
        .expect("insert");
    let check = |c: &mut Conn| {
        c.query_drop("SET time_zone = 'UTC'").expect("utc");
        assert_eq!(
            one(c, "SELECT ts FROM t WHERE id = 1"),
            "2024-07-01 10:00:00"
        );
        assert_eq!(
            one(c, "SELECT dt FROM t WHERE id = 1"),
            "2024-07-01 12:00:00"
        );
        assert_eq!(ids(c, "SELECT id FROM t WHERE ts < '2024-01-01'"), vec![2]);
        c.query_drop("SET time_zone = 'America/New_York'")
            .expect("ny");
        assert_eq!(
            one(c, "SELECT ts FROM t WHERE id = 1"),
            "2024-07-01 06:00:00"
        );
        assert_eq!(
            one(c, "SELECT ts FROM t WHERE id = 2"),
            "2023-12-31 18:00:00"
        );
        assert_eq!(
            ids(
                c,
                "SELECT id FROM t FORCE INDEX (ts) WHERE ts >= '2024-07-01 06:00:00'"
            ),
            vec![1]
        );
        assert_eq!(
            ids(
                c,
                "SELECT id FROM t FORCE INDEX (ts) WHERE ts > '2024-07-01 06:00:00'"
            ),
            Vec::<i64>::new()
        );
        assert_eq!(
            ids(c, "SELECT id FROM t WHERE ts = '2023-12-31 18:00:00'"),
            vec![2]
        );
        let got: Vec<(i64, mysql::Value)> = c
            .exec(
                "SELECT id, ts FROM t WHERE ts >= ? ORDER BY id",
                ("2023-12-31 18:00:00",),
            )
            .expect("prepared");
        assert_eq!(
            got,
            vec![
                (1, mysql::Value::Date(2024, 7, 1, 6, 0, 0, 0)),
                (2, mysql::Value::Date(2023, 12, 31, 18, 0, 0, 0))
            ]
        );
    };
    check(&mut c);
    drop(c);
    basalt.restart(false);
    let mut c = Conn::new(Opts::from_url(&basalt.url_db("z")).expect("url")).expect("reconnect");
    check(&mut c);
    // NOW() and CURRENT_TIMESTAMP defaults in the session zone; UTC_* not.
    c.query_drop("SET time_zone = '+05:30'").expect("set");
    assert_eq!(
        one(&mut c, "SELECT TIMEDIFF(NOW(), UTC_TIMESTAMP())"),
        "05:30:00"
    );
    assert_eq!(
        one(&mut c, "SELECT FROM_UNIXTIME(0)"),
        "1970-01-01 05:30:00"
    );
    assert_eq!(
        one(&mut c, "SELECT UNIX_TIMESTAMP('1970-01-01 05:30:01')"),
        "1"
    );
    c.query_drop("CREATE TABLE d (id INT, ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, dt DATETIME DEFAULT CURRENT_TIMESTAMP)")
        .expect("create");
    c.query_drop("INSERT INTO d (id) VALUES (1)")
        .expect("insert");
    assert_eq!(one(&mut c, "SELECT TIMEDIFF(ts, dt) FROM d"), "00:00:00");
    c.query_drop("SET time_zone = '+00:00'").expect("set");
    assert_eq!(one(&mut c, "SELECT TIMEDIFF(ts, dt) FROM d"), "-05:30:00");
    // Errors, and the value read back as MariaDB prints it.
    let code = |r: mysql::Result<()>| match r {
        Err(mysql::Error::MySqlError(e)) => e.code,
        other => panic!("expected an error, got {other:?}"),
    };
    assert_eq!(code(c.query_drop("SET time_zone = 'No/Such_Zone'")), 1298);
    assert_eq!(code(c.query_drop("SET time_zone = '+13:01'")), 1298);
    c.query_drop("SET time_zone = '-8:00'").expect("set");
    assert_eq!(one(&mut c, "SELECT @@session.time_zone"), "-08:00");
    c.query_drop("SET GLOBAL time_zone = 'europe/berlin'")
        .expect("set global");
    let mut fresh = Conn::new(Opts::from_url(&basalt.url()).expect("url")).expect("connect");
    assert_eq!(one(&mut fresh, "SELECT @@time_zone"), "europe/berlin");
    assert_eq!(one(&mut fresh, "SELECT @@system_time_zone"), "UTC");
}

#[test]
fn default_time_zone_flag_sets_the_global_zone() {
    let basalt = Basalt::start_with(&["--default-time-zone", "+03:00"]);
    let mut c = Conn::new(Opts::from_url(&basalt.url()).expect("url")).expect("connect");
    assert_eq!(one(&mut c, "SELECT @@global.time_zone"), "+03:00");
    assert_eq!(one(&mut c, "SELECT @@time_zone"), "+03:00");
    assert_eq!(
        one(&mut c, "SELECT TIMEDIFF(NOW(), UTC_TIMESTAMP())"),
        "03:00:00"
    );
}
