//! Round trips: tables of every column type Basalt's encoder handles, written with
//! `EventWriter` (TABLE_MAP with FULL metadata, rows events in every image), decoded
//! back, compared with the values expected on the replica.

use super::*;
use crate::event::{EventWriter, GtidFlags, Query, RowChange, RowImage};
use basalt_common::{
    Collation, ColumnDef, DataType, Date, DateTime, Decimal, EngineKind, IndexColumn, IndexDef,
    IndexKind, IntKind, LobKind, Row, TableDef, Time, Value,
};

const L1: Collation = Collation::Latin1SwedishCi;
const U4: Collation = Collation::Utf8mb4GeneralCi;
const BIN: Collation = Collation::Binary;

fn table(name: &str, cols: Vec<(&str, DataType)>, pk: Option<usize>) -> TableDef {
    let mut columns: Vec<ColumnDef> = cols
        .into_iter()
        .map(|(n, t)| ColumnDef::new(n, t))
        .collect();
    let mut indexes = Vec::new();
    if let Some(c) = pk {
        columns[c].nullable = false;
        indexes.push(IndexDef {
            id: 0,
            name: "PRIMARY".into(),
            kind: IndexKind::Primary,
            columns: vec![IndexColumn {
                column: c,
                prefix_len: None,
                descending: false,
            }],
            comment: String::new(),
        });
    }
    TableDef {
        id: 1,
        schema: "db1".into(),
        name: name.into(),
        columns,
        indexes,
        engine: EngineKind::Basalt,
        charset: basalt_common::Charset::Latin1,
        collation: L1,
        comment: String::new(),
        auto_increment_start: 1,
        next_index_id: 1,
        checks: vec![],
        options: vec![],
        foreign_keys: vec![],
        partitioning: None,
    }
}

fn int(kind: IntKind, unsigned: bool) -> DataType {
    DataType::int(kind, unsigned)
}

/// Writes a FORMAT_DESCRIPTION, a TABLE_MAP and the rows; decodes them all.
fn round_trip(
    def: &TableDef,
    image: RowImage,
    changes: &[RowChange<'_>],
    checksum: bool,
) -> (TableMap, Vec<RowEvent>) {
    let mut w = EventWriter::new(4, 1, checksum);
    w.format_description(1, "10.11.0-basalt");
    w.table_map(1, 77, def);
    w.rows(1, 77, def, image, changes, true);
    let bytes = w.into_bytes();
    let mut d = Decoder::new();
    let mut map = None;
    let mut rows = Vec::new();
    for ev in crate::event::EventReader::new(&bytes, 4) {
        let (_, ev) = ev.expect("whole event");
        match d.decode(ev).expect("decodes").1 {
            Event::TableMap(m) => map = Some(m),
            Event::Rows(r) => {
                assert_eq!(r.table_id, 77);
                rows.extend(r.rows);
            }
            Event::FormatDescription(fd) => assert_eq!(fd.checksum_alg, Some(u8::from(checksum))),
            other => panic!("unexpected event {other:?}"),
        }
    }
    assert_eq!(d.checksum(), Some(checksum));
    (map.expect("a TABLE_MAP"), rows)
}

fn dt(y: u16, mo: u8, d: u8, h: u8, mi: u8, s: u8, us: u32) -> DateTime {
    DateTime {
        date: Date {
            year: y,
            month: mo,
            day: d,
        },
        hour: h,
        minute: mi,
        second: s,
        micro: us,
    }
}

fn tm(negative: bool, hours: u16, minute: u8, second: u8, micro: u32) -> Time {
    Time {
        negative,
        hours,
        minute,
        second,
        micro,
    }
}

fn bytes(s: &[u8]) -> Option<ColValue> {
    Some(ColValue::Bytes(s.to_vec()))
}

fn full(values: Vec<ColValue>) -> Image {
    values.into_iter().map(Some).collect()
}

#[test]
fn integers_floats_decimals() {
    let def = table(
        "nums",
        vec![
            ("id", int(IntKind::Int, false)),
            ("t", int(IntKind::Tiny, false)),
            ("tu", int(IntKind::Tiny, true)),
            ("s", int(IntKind::Small, false)),
            ("su", int(IntKind::Small, true)),
            ("m", int(IntKind::Medium, false)),
            ("mu", int(IntKind::Medium, true)),
            ("iu", int(IntKind::Int, true)),
            ("b", int(IntKind::Big, false)),
            ("bu", int(IntKind::Big, true)),
            ("f", DataType::Float),
            ("d", DataType::Double),
            (
                "d1",
                DataType::Decimal {
                    precision: 10,
                    scale: 2,
                },
            ),
            (
                "d2",
                DataType::Decimal {
                    precision: 38,
                    scale: 10,
                },
            ),
            (
                "d3",
                DataType::Decimal {
                    precision: 5,
                    scale: 0,
                },
            ),
            (
                "d4",
                DataType::Decimal {
                    precision: 12,
                    scale: 12,
                },
            ),
            ("y", DataType::Year),
        ],
        Some(0),
    );
    let dec = |s: &str| Value::Decimal(Decimal::parse(s).expect("decimal"));
    let row: Row = vec![
        Value::Int(1),
        Value::Int(-128),
        Value::UInt(255),
        Value::Int(-32768),
        Value::UInt(65535),
        Value::Int(-8388608),
        Value::UInt(16777215),
        Value::UInt(4294967295),
        Value::Int(i64::MIN),
        Value::UInt(u64::MAX),
        Value::Double(1.5),
        Value::Double(-2.25e100),
        dec("-12345678.91"),
        dec("1234567890123456789012345678.0123456789"),
        dec("-99999"),
        dec("0.000000000001"),
        Value::Int(2155),
    ];
    let nulls: Row = (0..17)
        .map(|i| if i == 0 { Value::Int(2) } else { Value::Null })
        .collect();
    let changes = [RowChange::Insert(&row), RowChange::Insert(&nulls)];
    let (map, rows) = round_trip(&def, RowImage::Full, &changes, true);
    assert_eq!(map.schema, "db1");
    assert_eq!(map.table, "nums");
    assert_eq!(map.primary_key, vec![(0, 0)]);
    assert_eq!(map.columns[2].unsigned, Some(true));
    assert_eq!(map.columns[1].unsigned, Some(false));
    assert_eq!(
        map.columns[16].unsigned,
        Some(true),
        "YEAR counts as unsigned"
    );
    assert_eq!(map.columns[5].name.as_deref(), Some("m"));
    assert!(!map.columns[0].nullable && map.columns[1].nullable);
    let want = full(vec![
        ColValue::Int(1),
        ColValue::Int(-128),
        ColValue::UInt(255),
        ColValue::Int(-32768),
        ColValue::UInt(65535),
        ColValue::Int(-8388608),
        ColValue::UInt(16777215),
        ColValue::UInt(4294967295),
        ColValue::Int(i64::MIN),
        ColValue::UInt(u64::MAX),
        ColValue::Float(1.5),
        ColValue::Double(-2.25e100),
        ColValue::Decimal("-12345678.91".into()),
        ColValue::Decimal("1234567890123456789012345678.0123456789".into()),
        ColValue::Decimal("-99999".into()),
        ColValue::Decimal("0.000000000001".into()),
        ColValue::Year(2155),
    ]);
    let mut want_nulls = vec![Some(ColValue::Int(2))];
    want_nulls.extend((1..17).map(|_| Some(ColValue::Null)));
    assert_eq!(
        rows,
        vec![RowEvent::Insert(want), RowEvent::Insert(want_nulls)]
    );
}

#[test]
fn strings_and_blobs() {
    let def = table(
        "strs",
        vec![
            ("id", int(IntKind::Int, false)),
            (
                "c1",
                DataType::Char {
                    len: 10,
                    collation: L1,
                },
            ),
            (
                "c2",
                DataType::Char {
                    len: 100,
                    collation: U4,
                },
            ),
            (
                "v1",
                DataType::VarChar {
                    len: 20,
                    collation: L1,
                },
            ),
            (
                "v2",
                DataType::VarChar {
                    len: 300,
                    collation: U4,
                },
            ),
            (
                "t1",
                DataType::Text {
                    kind: LobKind::Normal,
                    collation: L1,
                },
            ),
            (
                "t2",
                DataType::Text {
                    kind: LobKind::Tiny,
                    collation: U4,
                },
            ),
            (
                "t3",
                DataType::Text {
                    kind: LobKind::Medium,
                    collation: U4,
                },
            ),
            (
                "lb",
                DataType::Text {
                    kind: LobKind::Long,
                    collation: BIN,
                },
            ),
            (
                "bn",
                DataType::Char {
                    len: 4,
                    collation: BIN,
                },
            ),
            (
                "vb",
                DataType::VarChar {
                    len: 10,
                    collation: BIN,
                },
            ),
        ],
        Some(0),
    );
    let long = "x".repeat(70_000);
    let row: Row = vec![
        Value::Int(1),
        Value::str("café  "),
        Value::str("héllo €"),
        Value::str("abc "),
        Value::str("x😀y"),
        Value::str("lé"),
        Value::str("tt"),
        Value::str(&long),
        Value::Bytes(vec![0, 0xff, 0]),
        Value::Bytes(vec![1, 2, 0, 0]),
        Value::Bytes(vec![0x0a, 0x0b, 0x0c]),
    ];
    let (map, rows) = round_trip(&def, RowImage::Full, &[RowChange::Insert(&row)], false);
    assert_eq!(map.columns[1].ty, ColumnType::String { max_len: 10 });
    assert_eq!(map.columns[2].ty, ColumnType::String { max_len: 400 });
    assert_eq!(map.columns[4].ty, ColumnType::VarChar { max_len: 1200 });
    assert_eq!(map.columns[1].collation, Some(L1.id()));
    assert_eq!(map.columns[2].collation, Some(U4.id()));
    assert_eq!(map.columns[8].collation, Some(BIN.id()));
    let want = vec![
        Some(ColValue::Int(1)),
        bytes(b"caf\xe9"),
        bytes("héllo €".as_bytes()),
        bytes(b"abc "),
        bytes("x😀y".as_bytes()),
        bytes(b"l\xe9"),
        bytes(b"tt"),
        bytes(long.as_bytes()),
        bytes(&[0, 0xff, 0]),
        bytes(&[1, 2]),
        bytes(&[0x0a, 0x0b, 0x0c]),
    ];
    assert_eq!(rows, vec![RowEvent::Insert(want)]);
}

fn temporal_table() -> TableDef {
    table(
        "times",
        vec![
            ("id", int(IntKind::Int, false)),
            ("d", DataType::Date),
            ("dt", DataType::DateTime { fsp: 0 }),
            ("dt3", DataType::DateTime { fsp: 3 }),
            ("dt6", DataType::DateTime { fsp: 6 }),
            ("ts", DataType::Timestamp { fsp: 0 }),
            ("ts2", DataType::Timestamp { fsp: 2 }),
            ("ts6", DataType::Timestamp { fsp: 6 }),
            ("t", DataType::Time { fsp: 0 }),
            ("t2", DataType::Time { fsp: 2 }),
            ("t4", DataType::Time { fsp: 4 }),
            ("t6", DataType::Time { fsp: 6 }),
        ],
        Some(0),
    )
}

#[test]
fn temporal_types_with_every_fraction_width() {
    let def = temporal_table();
    let stamp = dt(2021, 6, 1, 12, 0, 0, 250_000);
    let row: Row = vec![
        Value::Int(1),
        Value::Date(Date {
            year: 2024,
            month: 2,
            day: 29,
        }),
        Value::DateTime(dt(1999, 12, 31, 23, 59, 59, 0)),
        Value::DateTime(dt(1000, 1, 1, 0, 0, 0, 123_000)),
        Value::DateTime(dt(9999, 12, 31, 23, 59, 59, 999_999)),
        Value::DateTime(dt(1970, 1, 1, 0, 0, 1, 0)),
        Value::DateTime(stamp),
        Value::DateTime(dt(2038, 1, 19, 3, 14, 7, 999_999)),
        Value::Time(tm(true, 838, 59, 59, 0)),
        Value::Time(tm(true, 12, 34, 56, 780_000)),
        Value::Time(tm(true, 0, 0, 0, 500_000)),
        Value::Time(tm(false, 100, 1, 2, 3)),
    ];
    let (_, rows) = round_trip(&def, RowImage::Full, &[RowChange::Insert(&row)], true);
    let secs = |d: DateTime| d.unix_seconds() as u32;
    let want = full(vec![
        ColValue::Int(1),
        ColValue::Date(Date {
            year: 2024,
            month: 2,
            day: 29,
        }),
        ColValue::DateTime(dt(1999, 12, 31, 23, 59, 59, 0)),
        ColValue::DateTime(dt(1000, 1, 1, 0, 0, 0, 123_000)),
        ColValue::DateTime(dt(9999, 12, 31, 23, 59, 59, 999_999)),
        ColValue::Timestamp {
            seconds: 1,
            micro: 0,
        },
        ColValue::Timestamp {
            seconds: secs(stamp),
            micro: 250_000,
        },
        ColValue::Timestamp {
            seconds: 2_147_483_647,
            micro: 999_999,
        },
        ColValue::Time(tm(true, 838, 59, 59, 0)),
        ColValue::Time(tm(true, 12, 34, 56, 780_000)),
        ColValue::Time(tm(true, 0, 0, 0, 500_000)),
        ColValue::Time(tm(false, 100, 1, 2, 3)),
    ]);
    assert_eq!(rows, vec![RowEvent::Insert(want)]);
}

#[test]
fn negative_times_with_fractions_at_every_width() {
    let def = temporal_table();
    for micro in [10_000, 990_000, 100, 999_900, 1, 999_999] {
        let t = tm(true, 1, 2, 3, micro);
        let mut row: Row = vec![Value::Null; 12];
        row[0] = Value::Int(1);
        for v in &mut row[8..12] {
            *v = Value::Time(t);
        }
        let (_, rows) = round_trip(&def, RowImage::Full, &[RowChange::Insert(&row)], true);
        let RowEvent::Insert(img) = &rows[0] else {
            panic!("an insert");
        };
        for (c, fsp) in [(9, 2u32), (10, 4), (11, 6)] {
            let unit = 10u32.pow(6 - fsp);
            let kept = micro - micro % unit;
            let want = if kept == 0 {
                tm(true, 1, 2, 3, 0)
            } else {
                tm(true, 1, 2, 3, kept)
            };
            assert_eq!(
                img[c],
                Some(ColValue::Time(want)),
                "fsp {fsp} micro {micro}"
            );
        }
        assert_eq!(img[8], Some(ColValue::Time(tm(true, 1, 2, 3, 0))));
    }
}

#[test]
fn enum_set_bit_uuid_inet6() {
    let members = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let nine = members(&["a", "b", "c", "d", "e", "f", "g", "h", "i"]);
    let def = table(
        "misc",
        vec![
            ("id", int(IntKind::Int, false)),
            (
                "e",
                DataType::Enum {
                    values: members(&["a", "b", "c"]),
                    collation: L1,
                },
            ),
            (
                "st",
                DataType::Set {
                    values: members(&["x", "y", "z"]),
                    collation: U4,
                },
            ),
            (
                "big",
                DataType::Set {
                    values: nine,
                    collation: U4,
                },
            ),
            ("b5", DataType::Bit { width: 5 }),
            ("b64", DataType::Bit { width: 64 }),
            ("u", DataType::Uuid),
            ("ip", DataType::Inet6),
        ],
        Some(0),
    );
    let row: Row = vec![
        Value::Int(1),
        Value::Enum(2, b"b".to_vec()),
        Value::Enum(5, b"x,z".to_vec()),
        Value::Enum(0x1ff, b"a,b,c,d,e,f,g,h,i".to_vec()),
        Value::UInt(0b10101),
        Value::UInt(0x8000_0000_0000_0001),
        Value::str("123e4567-e89b-12d3-a456-426614174000"),
        Value::str("2001:db8::1"),
    ];
    let (map, rows) = round_trip(&def, RowImage::Full, &[RowChange::Insert(&row)], true);
    assert_eq!(map.columns[1].ty, ColumnType::Enum { pack_len: 1 });
    assert_eq!(map.columns[3].ty, ColumnType::Set { pack_len: 2 });
    assert_eq!(map.columns[4].ty, ColumnType::Bit { bits: 5 });
    assert_eq!(map.columns[5].ty, ColumnType::Bit { bits: 64 });
    assert_eq!(
        map.columns[1].members,
        Some(vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()])
    );
    assert_eq!(map.columns[2].members.as_ref().map(Vec::len), Some(3));
    assert_eq!(map.columns[1].collation, Some(L1.id()));
    assert_eq!(map.columns[2].collation, Some(U4.id()));
    let uuid = [
        0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40,
    ];
    let mut ip = vec![0x20, 0x01, 0x0d, 0xb8];
    ip.extend([0; 11]);
    ip.push(1);
    let want = vec![
        Some(ColValue::Int(1)),
        Some(ColValue::Enum(2)),
        Some(ColValue::Set(5)),
        Some(ColValue::Set(0x1ff)),
        Some(ColValue::Bit(0b10101)),
        Some(ColValue::Bit(0x8000_0000_0000_0001)),
        bytes(&uuid),
        bytes(&ip),
    ];
    assert_eq!(rows, vec![RowEvent::Insert(want)]);
}

fn img_table() -> TableDef {
    table(
        "img",
        vec![
            ("id", int(IntKind::Int, false)),
            ("v", int(IntKind::Int, false)),
            (
                "bl",
                DataType::Text {
                    kind: LobKind::Normal,
                    collation: BIN,
                },
            ),
            (
                "w",
                DataType::VarChar {
                    len: 10,
                    collation: L1,
                },
            ),
        ],
        Some(0),
    )
}

#[test]
fn update_and_delete_in_full_noblob_and_minimal_images() {
    let def = img_table();
    let old: Row = vec![
        Value::Int(1),
        Value::Int(10),
        Value::str("blob"),
        Value::str("w1"),
    ];
    let new: Row = vec![
        Value::Int(1),
        Value::Int(11),
        Value::str("blob"),
        Value::str("w1"),
    ];
    let i = |v| Some(ColValue::Int(v));
    let w1 = bytes(b"w1");
    let blob = bytes(b"blob");
    let cases = [
        (
            RowImage::Full,
            vec![i(1), i(10), blob.clone(), w1.clone()],
            vec![i(1), i(11), blob.clone(), w1.clone()],
        ),
        (
            RowImage::NoBlob,
            vec![i(1), i(10), None, w1.clone()],
            vec![i(1), i(11), None, w1.clone()],
        ),
        (
            RowImage::Minimal,
            vec![i(1), None, None, None],
            vec![None, i(11), None, None],
        ),
    ];
    for (image, before, after) in cases {
        let upd = [RowChange::Update(&old, &new)];
        let (_, rows) = round_trip(&def, image, &upd, true);
        assert_eq!(
            rows,
            vec![RowEvent::Update {
                before: before.clone(),
                after
            }],
            "{image:?}"
        );
        let (_, rows) = round_trip(&def, image, &[RowChange::Delete(&old)], true);
        assert_eq!(rows, vec![RowEvent::Delete(before)], "{image:?}");
    }
}

#[test]
fn a_statement_split_over_several_rows_events() {
    let def = img_table();
    let rows: Vec<Row> = (0..1000)
        .map(|n| {
            vec![
                Value::Int(n),
                Value::Int(n * 2),
                Value::Null,
                Value::str("ww"),
            ]
        })
        .collect();
    let changes: Vec<RowChange<'_>> = rows.iter().map(RowChange::Insert).collect();
    let mut w = EventWriter::new(4, 1, true);
    w.format_description(1, "10.11.0-basalt");
    w.table_map(1, 5, &def);
    w.rows(1, 5, &def, RowImage::Full, &changes, true);
    let bytes = w.into_bytes();
    let mut d = Decoder::new();
    let mut got = Vec::new();
    let mut ends = Vec::new();
    for ev in crate::event::EventReader::new(&bytes, 4) {
        if let Event::Rows(r) = d.decode(ev.expect("event").1).expect("decodes").1 {
            ends.push(r.stmt_end());
            got.extend(r.rows);
        }
    }
    assert!(ends.len() > 1, "split into several events");
    assert_eq!(ends.iter().filter(|e| **e).count(), 1);
    assert_eq!(ends.last(), Some(&true));
    assert_eq!(got.len(), 1000);
    assert_eq!(
        got[999],
        RowEvent::Insert(vec![
            Some(ColValue::Int(999)),
            Some(ColValue::Int(1998)),
            Some(ColValue::Null),
            Some(ColValue::Bytes(b"ww".to_vec()))
        ])
    );
}

#[test]
fn control_events() {
    let mut w = EventWriter::new(4, 7, true);
    w.format_description(5, "10.11.6-MariaDB-log");
    let gtid = crate::gtid::Gtid {
        domain: 3,
        server: 9,
        seq: 42,
    };
    let flags = GtidFlags {
        commit_id: Some(77),
        ..GtidFlags::transactional()
    };
    w.gtid(5, gtid, flags);
    let mut q = Query::new("shop", "CREATE TABLE t (a INT)");
    q.thread_id = 12;
    q.time_zone = Some("+01:00");
    q.hrnow = Some(123_456);
    q.xid = Some(99);
    q.auto_increment_increment = 2;
    w.query(5, &q);
    w.xid(5, 1234);
    w.gtid_list(5, &[gtid]);
    w.rotate(5, "mariadb-bin.000002", 4);
    let mut events = Vec::new();
    let mut d = Decoder::new();
    for ev in crate::event::EventReader::new(w.bytes(), 4) {
        events.push(d.decode(ev.expect("event").1).expect("decodes").1);
    }
    let hb = crate::dump::event::heartbeat(
        7,
        "mariadb-bin.000002",
        1000,
        crate::dump::event::ChecksumAlg::Crc32,
    );
    let (head, ev) = d.decode(&hb).expect("heartbeat decodes");
    assert_eq!(head.log_pos, 1000);
    assert_eq!(
        ev,
        Event::Heartbeat {
            file: "mariadb-bin.000002".into()
        }
    );
    let Event::FormatDescription(fd) = &events[0] else {
        panic!("FD first");
    };
    assert_eq!(fd.server_version, "10.11.6-MariaDB-log");
    assert_eq!(
        (fd.binlog_version, fd.header_len, fd.checksum_alg),
        (4, 19, Some(1))
    );
    assert_eq!(fd.post_header_lens.len(), 171);
    let Event::Gtid(g) = &events[1] else {
        panic!("GTID second");
    };
    assert_eq!((g.gtid, g.flags), (gtid, flags));
    let Event::Query(got) = &events[2] else {
        panic!("QUERY third");
    };
    assert_eq!(got.db, "shop");
    assert_eq!(got.sql, b"CREATE TABLE t (a INT)");
    assert_eq!(got.thread_id, 12);
    assert_eq!(got.time_zone.as_deref(), Some("+01:00"));
    assert_eq!(got.micros, Some(123_456));
    assert_eq!(got.xid, Some(99));
    assert_eq!(got.auto_increment, Some((2, 1)));
    assert_eq!(got.charset, Some((45, 45, 8)));
    assert_eq!(got.catalog.as_deref(), Some("std"));
    assert_eq!(got.sql_mode, Some(1_411_383_296));
    assert!(got.status_vars.is_empty());
    assert_eq!(events[3], Event::Xid(1234));
    assert_eq!(events[4], Event::GtidList(vec![gtid]));
    assert_eq!(
        events[5],
        Event::Rotate {
            file: "mariadb-bin.000002".into(),
            pos: 4
        }
    );
}

#[test]
fn an_artificial_rotate_before_any_format_description() {
    for checksum in [true, false] {
        use crate::dump::event::ChecksumAlg;
        let alg = if checksum {
            ChecksumAlg::Crc32
        } else {
            ChecksumAlg::Off
        };
        let ev = crate::dump::event::fake_rotate(1, "mariadb-bin.000007", 4, alg);
        let mut d = Decoder::new();
        let (_, got) = d.decode(&ev).expect("decodes");
        assert_eq!(
            got,
            Event::Rotate {
                file: "mariadb-bin.000007".into(),
                pos: 4
            }
        );
    }
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let def = img_table();
    let row: Row = vec![
        Value::Int(1),
        Value::Int(10),
        Value::str("blob"),
        Value::str("w1"),
    ];
    let mut w = EventWriter::new(4, 1, true);
    w.format_description(1, "10.11.0-basalt");
    w.table_map(1, 5, &def);
    w.rows(1, 5, &def, RowImage::Full, &[RowChange::Insert(&row)], true);
    let bytes = w.into_bytes();
    let events: Vec<&[u8]> = crate::event::EventReader::new(&bytes, 4)
        .map(|e| e.expect("event").1)
        .collect();
    // A rows event without its TABLE_MAP.
    let mut d = Decoder::with_checksum(true);
    assert_eq!(d.decode(events[2]), Err(DecodeError::NoTableMap(5)));
    // A flipped byte fails the CRC.
    let mut bad = events[1].to_vec();
    bad[25] ^= 1;
    assert!(matches!(
        d.decode(&bad),
        Err(DecodeError::Event(
            crate::event::EventError::BadChecksum { .. }
        ))
    ));
    // Every truncation of every body is an error (or, cut at a row boundary, fewer rows).
    d.decode(events[1]).expect("table map");
    for ev in &events[1..] {
        for cut in 19..ev.len() - 4 {
            let mut b = ev[..cut].to_vec();
            b[9..13].copy_from_slice(&((cut + 4) as u32).to_le_bytes());
            let sum = crate::event::writer::event_crc(&b);
            b.extend_from_slice(&sum.to_le_bytes());
            let _ = d.decode(&b);
        }
    }
}

/// A v1 rows event rewritten as MySQL's v2 (type + 7, extra-data length after the
/// flags, here with 3 bytes of extra data), CRC recomputed.
fn as_v2(v1: &[u8]) -> Vec<u8> {
    let n = v1.len() - 4;
    let mut b = v1[..19 + 8].to_vec();
    b[4] += 7;
    b.extend_from_slice(&5u16.to_le_bytes());
    b.extend_from_slice(&[1, 2, 3]);
    b.extend_from_slice(&v1[19 + 8..n]);
    let len = (b.len() + 4) as u32;
    b[9..13].copy_from_slice(&len.to_le_bytes());
    let sum = crate::event::writer::event_crc(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    b
}

#[test]
fn mysql_v2_rows_events() {
    let def = img_table();
    let old: Row = vec![Value::Int(1), Value::Int(10), Value::Null, Value::str("w1")];
    let new: Row = vec![Value::Int(1), Value::Int(11), Value::Null, Value::str("w2")];
    let mut w = EventWriter::new(4, 1, true);
    w.format_description(1, "8.0.36");
    w.table_map(1, 5, &def);
    w.rows(
        1,
        5,
        &def,
        RowImage::Full,
        &[RowChange::Insert(&old)],
        false,
    );
    w.rows(
        1,
        5,
        &def,
        RowImage::Full,
        &[RowChange::Update(&old, &new)],
        false,
    );
    w.rows(1, 5, &def, RowImage::Full, &[RowChange::Delete(&new)], true);
    let file = w.into_bytes();
    let mut d = Decoder::new();
    let mut kinds = Vec::new();
    for ev in crate::event::EventReader::new(&file, 4) {
        let ev = ev.expect("event").1;
        let ev = if rows_kind(ev[4]).is_some() {
            as_v2(ev)
        } else {
            ev.to_vec()
        };
        if let (head, Event::Rows(r)) = d.decode(&ev).expect("decodes") {
            assert!(head.type_code >= 30);
            kinds.push((r.kind, r.rows.len(), r.stmt_end()));
            if r.kind == RowsKind::Update {
                let RowEvent::Update { after, .. } = &r.rows[0] else {
                    panic!("an update row");
                };
                assert_eq!(after[3], bytes(b"w2"));
            }
        }
    }
    assert_eq!(
        kinds,
        vec![
            (RowsKind::Write, 1, false),
            (RowsKind::Update, 1, false),
            (RowsKind::Delete, 1, true)
        ]
    );
}

#[test]
fn mysql_json_and_geometry_columns() {
    // MySQL's JSON (0xf5) and GEOMETRY (0xff): a blob-like length of the metadata's
    // width, then the bytes (binary JSON / SRID + WKB), passed through as bytes.
    for (t, kind) in [(0xf5, BlobKind::Json), (0xff, BlobKind::Geometry)] {
        assert_eq!(value::meta_len(t), 1);
        let ty = value::column_type(t, &[4]).expect("type");
        assert_eq!(ty, ColumnType::Blob { len_bytes: 4, kind });
        let raw = [3, 0, 0, 0, 0xaa, 0xbb, 0xcc];
        let mut c = value::Cursor::new(&raw);
        assert_eq!(
            value::unpack(&ty, false, &mut c).expect("value"),
            ColValue::Bytes(vec![0xaa, 0xbb, 0xcc])
        );
    }
    assert_eq!(
        value::column_type(0xff, &[9]),
        Err(DecodeError::BadMetadata("blob length bytes"))
    );
    assert_eq!(
        value::column_type(0x20, &[]),
        Err(DecodeError::UnknownColumnType(0x20))
    );
}
