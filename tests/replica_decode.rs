//! The replica's lowest layers against real primaries: `basalt_replication::replica`'s
//! client connects to a MariaDB 10.11 primary and to a Basalt primary as a replica
//! would (a user with a password, the I/O thread's preparation queries,
//! COM_REGISTER_SLAVE, COM_BINLOG_DUMP by file/position and by GTID), and its decoder
//! turns the stream into rows that must equal what was inserted, updated and deleted
//! in a table with a column of every type; heartbeats arrive when the primary is idle,
//! an unknown file is error 1236. On MariaDB also with `binlog_row_metadata=MINIMAL`
//! and `NO_LOG`, and with JSON and GEOMETRY columns.

use basalt_common::{Date, DateTime, Time};
use basalt_replication::replica::client::{ConnectOptions, DumpRequest, EventStream, PrimaryConn};
use basalt_replication::replica::decode::{ColValue, Decoder, Event, Image, RowEvent, TableMap};
use basalt_tests::binlog::{Primary, PrimaryKind};
use basalt_tests::mariadb;
use mysql::prelude::*;
use std::time::{Duration, Instant};

const REPLICA_ID: u32 = 77;

const CREATE: &str = "CREATE TABLE rd.allt (id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED,
  si SMALLINT, mi MEDIUMINT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, f FLOAT, d DOUBLE,
  dc DECIMAL(20,6), c CHAR(5) CHARACTER SET latin1, vc VARCHAR(300) CHARACTER SET utf8mb4,
  tx TEXT CHARACTER SET utf8mb4, bl BLOB, bn BINARY(3), vb VARBINARY(8), dt DATE,
  dtm DATETIME(6), ts TIMESTAMP(3) NULL, tm TIME(2), y YEAR,
  e ENUM('red','green','blue') CHARACTER SET latin1, st SET('a','b','c','d') CHARACTER SET latin1,
  bt BIT(10), u UUID, ip INET6)";

const ROW1: &str = "(1, -5, 250, -300, 16000000, -9000000000, 18000000000000000000, 1.5, -2.25e100,
  -1234.5678, 'ab', 'héllo wörld', 'some text', x'00ff10', x'0102', x'ab', '2024-02-29',
  '2001-02-03 04:05:06.789012', '2021-06-01 12:00:00.125', '-12:34:56.78', 1999, 'green', 'a,c',
  b'1010101010', '123e4567-e89b-12d3-a456-426614174000', '2001:db8::1')";

const COLUMNS: usize = 26;

fn b(s: &[u8]) -> Option<ColValue> {
    Some(ColValue::Bytes(s.to_vec()))
}

fn row1() -> Image {
    let uuid = [
        0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40,
    ];
    let mut ip = vec![0x20, 0x01, 0x0d, 0xb8];
    ip.extend([0; 11]);
    ip.push(1);
    let v = |x| Some(x);
    vec![
        v(ColValue::Int(1)),
        v(ColValue::Int(-5)),
        v(ColValue::UInt(250)),
        v(ColValue::Int(-300)),
        v(ColValue::UInt(16_000_000)),
        v(ColValue::Int(-9_000_000_000)),
        v(ColValue::UInt(18_000_000_000_000_000_000)),
        v(ColValue::Float(1.5)),
        v(ColValue::Double(-2.25e100)),
        v(ColValue::Decimal("-1234.567800".into())),
        b(b"ab"),
        b("héllo wörld".as_bytes()),
        b(b"some text"),
        b(&[0, 0xff, 0x10]),
        b(&[1, 2]),
        b(&[0xab]),
        v(ColValue::Date(Date {
            year: 2024,
            month: 2,
            day: 29,
        })),
        v(ColValue::DateTime(DateTime {
            date: Date {
                year: 2001,
                month: 2,
                day: 3,
            },
            hour: 4,
            minute: 5,
            second: 6,
            micro: 789_012,
        })),
        v(ColValue::Timestamp {
            seconds: 1_622_548_800,
            micro: 125_000,
        }),
        v(ColValue::Time(Time {
            negative: true,
            hours: 12,
            minute: 34,
            second: 56,
            micro: 780_000,
        })),
        v(ColValue::Year(1999)),
        v(ColValue::Enum(2)),
        v(ColValue::Set(0b101)),
        v(ColValue::Bit(0b10_1010_1010)),
        b(&uuid),
        b(&ip),
    ]
}

fn row2() -> Image {
    let mut r = vec![Some(ColValue::Null); COLUMNS];
    r[0] = Some(ColValue::Int(2));
    r
}

/// The rows events the workload must produce for `rd.allt`, in order.
fn expected_allt() -> Vec<RowEvent> {
    let mut after = row1();
    after[1] = Some(ColValue::Int(7));
    after[11] = b(b"x");
    vec![
        RowEvent::Insert(row1()),
        RowEvent::Insert(row2()),
        RowEvent::Update {
            before: row1(),
            after,
        },
        RowEvent::Delete(row2()),
    ]
}

/// The replication account: on MariaDB a user with a password (the native-password
/// answer is checked), on Basalt root without one (its only account so far).
fn account(kind: PrimaryKind) -> (&'static str, &'static str) {
    match kind {
        PrimaryKind::MariaDb => ("repl", "r3pl-pw"),
        PrimaryKind::Basalt => ("root", ""),
    }
}

fn write_workload(primary: &Primary) {
    let mut c = primary.conn();
    if primary.kind == PrimaryKind::MariaDb {
        for sql in [
            "CREATE USER repl@'%' IDENTIFIED BY 'r3pl-pw'",
            "GRANT REPLICATION SLAVE ON *.* TO repl@'%'",
        ] {
            c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
    }
    for sql in [
        "SET time_zone = '+00:00'",
        "CREATE DATABASE rd",
        CREATE,
        &format!("INSERT INTO rd.allt VALUES {ROW1}"),
        "INSERT INTO rd.allt (id) VALUES (2)",
        "UPDATE rd.allt SET ti = 7, vc = 'x' WHERE id = 1",
        "DELETE FROM rd.allt WHERE id = 2",
    ] {
        c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

/// MariaDB only: tables written under MINIMAL and NO_LOG metadata, and JSON and
/// GEOMETRY columns.
fn write_mariadb_extras(primary: &Primary) {
    let mut c = primary.conn();
    for sql in [
        "CREATE TABLE rd.more (id INT PRIMARY KEY, j JSON, g GEOMETRY)",
        "INSERT INTO rd.more VALUES (1, '{\"k\": [1, 2]}', ST_GeomFromText('POINT(1 2)'))",
        "SET GLOBAL binlog_row_metadata = MINIMAL",
    ] {
        c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    // The setting is read when a TABLE_MAP is written: new sessions see it.
    let mut c = primary.conn();
    for sql in [
        "CREATE TABLE rd.mini (a TINYINT UNSIGNED PRIMARY KEY, b VARCHAR(5))",
        "INSERT INTO rd.mini VALUES (255, 'x')",
        "SET GLOBAL binlog_row_metadata = NO_LOG",
    ] {
        c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let mut c = primary.conn();
    for sql in [
        "CREATE TABLE rd.nolog (a TINYINT UNSIGNED PRIMARY KEY, b VARCHAR(5))",
        "INSERT INTO rd.nolog VALUES (255, 'y')",
        "SET GLOBAL binlog_row_metadata = FULL",
    ] {
        c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

fn connect(primary: &Primary) -> PrimaryConn {
    let (user, password) = account(primary.kind);
    let mut o = ConnectOptions::new("127.0.0.1", primary.port(), user, password);
    o.read_timeout = Some(Duration::from_secs(10));
    let mut c = PrimaryConn::connect(&o).expect("connect as a replica");
    let facts = c
        .prepare_replica(Duration::from_millis(500))
        .expect("the I/O thread's preparation");
    assert_eq!(facts.server_id, Some(1));
    assert_eq!(facts.gtid_domain_id, Some(0));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    let clock = facts.unix_time.expect("UNIX_TIMESTAMP()");
    assert!(
        clock.abs_diff(now) < 60,
        "primary clock {clock}, ours {now}"
    );
    c.register_slave(REPLICA_ID, "127.0.0.1", 3307)
        .expect("COM_REGISTER_SLAVE");
    c
}

/// What one dump delivered.
#[derive(Default)]
struct Seen {
    maps: Vec<TableMap>,
    rows: Vec<(String, RowEvent)>,
    heartbeats: usize,
    gtids: Vec<u64>,
}

/// Reads and decodes until the transaction with GTID sequence `last` committed and a
/// heartbeat arrived after it (bounded).
fn read_until(stream: &mut EventStream, last: u64) -> Seen {
    let mut d = Decoder::new();
    let mut seen = Seen::default();
    let mut in_last = false;
    let mut done = false;
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let ev = stream
            .next_event()
            .expect("an event")
            .expect("a blocking dump does not end");
        let (_, ev) = d.decode(&ev).expect("the event decodes");
        match ev {
            Event::Gtid(g) => {
                seen.gtids.push(g.gtid.seq);
                in_last = g.gtid.seq == last;
                done |= in_last && g.flags.standalone;
            }
            Event::Xid(_) => done |= in_last,
            Event::Query(q) if q.sql == b"COMMIT" => done |= in_last,
            Event::TableMap(m) => seen.maps.push(m),
            Event::Rows(r) => {
                let m = d.table(r.table_id).expect("the rows' TABLE_MAP");
                let name = format!("{}.{}", m.schema, m.table);
                seen.rows
                    .extend(r.rows.into_iter().map(|row| (name.clone(), row)));
            }
            Event::Heartbeat { .. } if done => {
                seen.heartbeats += 1;
                return seen;
            }
            _ => {}
        }
    }
    panic!("no heartbeat after GTID seq {last} within the deadline");
}

fn rows_of(seen: &Seen, table: &str) -> Vec<RowEvent> {
    seen.rows
        .iter()
        .filter(|(t, _)| t == table)
        .map(|(_, r)| r.clone())
        .collect()
}

fn last_seq(primary: &Primary) -> u64 {
    let pos = primary.gtid_binlog_pos();
    pos.rsplit('-')
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("gtid_binlog_pos {pos:?}"))
}

fn check_allt(seen: &Seen) {
    assert_eq!(rows_of(seen, "rd.allt"), expected_allt());
    let map = seen
        .maps
        .iter()
        .find(|m| m.table == "allt")
        .expect("allt's TABLE_MAP");
    assert_eq!(map.columns.len(), COLUMNS);
    assert_eq!(map.columns[11].name.as_deref(), Some("vc"));
    assert_eq!(map.columns[11].collation, Some(45));
    assert_eq!(map.columns[10].collation, Some(8));
    assert_eq!(map.primary_key, vec![(0, 0)]);
    assert!(seen.heartbeats > 0);
}

fn check_mariadb_extras(seen: &Seen) {
    let more = rows_of(seen, "rd.more");
    let RowEvent::Insert(r) = &more[0] else {
        panic!("rd.more insert: {more:?}");
    };
    assert_eq!(r[1], b(b"{\"k\": [1, 2]}"), "JSON is LONGTEXT in MariaDB");
    let Some(ColValue::Bytes(g)) = &r[2] else {
        panic!("geometry bytes: {:?}", r[2]);
    };
    // SRID 0, then WKB: little-endian, type 1 (POINT), x = 1.0, y = 2.0.
    assert_eq!(g[..9], [0, 0, 0, 0, 1, 1, 0, 0, 0]);
    assert_eq!(g[9..17], 1.0f64.to_le_bytes());
    assert_eq!(g[17..25], 2.0f64.to_le_bytes());
    // MINIMAL: signedness but no names.
    let mini = seen.maps.iter().find(|m| m.table == "mini").expect("mini");
    assert_eq!(mini.columns[0].name, None);
    assert_eq!(mini.columns[0].unsigned, Some(true));
    assert_eq!(
        rows_of(seen, "rd.mini"),
        vec![RowEvent::Insert(vec![Some(ColValue::UInt(255)), b(b"x")])]
    );
    // NO_LOG: nothing optional; an unsigned column decodes as signed.
    let nolog = seen
        .maps
        .iter()
        .find(|m| m.table == "nolog")
        .expect("nolog");
    assert_eq!(nolog.columns[0].unsigned, None);
    assert_eq!(
        rows_of(seen, "rd.nolog"),
        vec![RowEvent::Insert(vec![Some(ColValue::Int(-1)), b(b"y")])]
    );
}

fn run(kind: PrimaryKind) {
    if !mariadb::available() {
        eprintln!("skipped: mariadb-server not installed");
        return;
    }
    let primary = Primary::start(kind, 1);
    write_workload(&primary);
    if kind == PrimaryKind::MariaDb {
        write_mariadb_extras(&primary);
    }
    let last = last_seq(&primary);
    let first_file = primary
        .binlog_names()
        .first()
        .cloned()
        .expect("a binlog file");

    // By file and position.
    let req = DumpRequest {
        server_id: REPLICA_ID,
        file: first_file,
        pos: 4,
        flags: 0,
    };
    let mut stream = connect(&primary).dump(&req).expect("COM_BINLOG_DUMP");
    let seen = read_until(&mut stream, last);
    check_allt(&seen);
    if kind == PrimaryKind::MariaDb {
        check_mariadb_extras(&seen);
    }
    // COM_REGISTER_SLAVE made the replica known while it dumps.
    let hosts: Vec<mysql::Row> = primary
        .conn()
        .query("SHOW SLAVE HOSTS")
        .expect("SHOW SLAVE HOSTS");
    let ids: Vec<Option<String>> = hosts
        .iter()
        .map(|r| r.as_ref(0).and_then(basalt_tests::cell))
        .collect();
    assert!(ids.contains(&Some(REPLICA_ID.to_string())), "{ids:?}");
    drop(stream);

    // By GTID, from the empty state (the beginning of the log).
    let mut stream = connect(&primary)
        .dump_gtid(REPLICA_ID + 1, "", true, 0)
        .expect("GTID dump");
    let seen = read_until(&mut stream, last);
    check_allt(&seen);
    assert_eq!(seen.gtids, (1..=last).collect::<Vec<_>>());
    drop(stream);

    // By GTID from the middle: only what follows.
    let state = format!("0-1-{}", last - 1);
    let mut stream = connect(&primary)
        .dump_gtid(REPLICA_ID + 2, &state, true, 0)
        .expect("GTID dump from the middle");
    let seen = read_until(&mut stream, last);
    assert_eq!(seen.gtids, vec![last]);
    drop(stream);

    // An unknown file: 1236, not worth retrying.
    let req = DumpRequest {
        server_id: REPLICA_ID + 3,
        file: "no-such-bin.000042".into(),
        pos: 4,
        flags: 0,
    };
    let mut stream = connect(&primary).dump(&req).expect("COM_BINLOG_DUMP");
    let err = loop {
        match stream.next_event() {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("EOF instead of an error"),
            Err(e) => break e,
        }
    };
    assert_eq!(err.errno(), Some(1236), "{err}");
    assert!(!err.is_retriable());
}

#[test]
#[ignore = "needs mariadb-server"]
fn decode_a_mariadb_primary() {
    run(PrimaryKind::MariaDb);
}

#[test]
#[ignore = "needs mariadb-server"]
fn decode_a_basalt_primary() {
    run(PrimaryKind::Basalt);
}
