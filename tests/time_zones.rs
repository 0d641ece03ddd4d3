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
