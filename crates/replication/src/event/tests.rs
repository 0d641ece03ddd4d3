//! Unit tests of the codec beyond the golden file: errors, files without checksums,
//! the events the dump side makes, value encodings MariaDB documents, and a file
//! written from scratch that `mariadb-binlog --verbose` decodes as MariaDB's own.

use super::golden_tests::{statements, table, GOLDEN};
use super::reader::{body, fd_has_checksum};
use super::*;
use crate::dump::event::{fake_rotate, heartbeat, prepare_fd, ChecksumAlg};
use crate::gtid::Gtid;
use basalt_common::{DataType, Decimal, Value};

const VERSION: &str = "10.11.19-MariaDB-log";

fn gtid(seq: u64) -> Gtid {
    Gtid {
        domain: 0,
        server: 1,
        seq,
    }
}

/// FD, GTID list, checkpoint, then one transaction.
fn small_file(checksum: bool) -> EventWriter {
    let mut w = EventWriter::new(4, 1, checksum);
    w.format_description(100, VERSION);
    w.gtid_list(100, &[]);
    w.binlog_checkpoint(100, "basalt-bin.000001");
    w.gtid(101, gtid(1), GtidFlags::ddl());
    w.query(101, &Query::new("test", "create table t (a int)"));
    w.gtid(102, gtid(2), GtidFlags::transactional());
    w.xid(102, 7);
    w
}

/// The last events of the golden file: a MEMORY table's transaction ends with a
/// QUERY `COMMIT`.
#[test]
fn non_transactional_commit_matches_mariadb() {
    let evs = events(&GOLDEN[4..]);
    let (off, ev) = &evs[evs.len() - 2];
    let mut q = Query::commit("test");
    q.thread_id = 11;
    let mut w = EventWriter::new(*off, 1, true);
    w.query(parse_header(ev).expect("header").timestamp, &q);
    assert_eq!(w.bytes(), ev.as_slice());
}

fn events(bytes: &[u8]) -> Vec<(u64, Vec<u8>)> {
    EventReader::new(bytes, 4)
        .map(|e| e.map(|(o, b)| (o, b.to_vec())).expect("valid events"))
        .collect()
}

#[test]
fn positions_and_lengths_chain() {
    let w = small_file(true);
    let evs = events(w.bytes());
    assert_eq!(evs.len(), 7);
    let mut at = 4;
    for (off, ev) in &evs {
        let h = parse_header(ev).expect("header");
        assert_eq!(*off, at);
        assert_eq!(h.event_len as usize, ev.len());
        at += ev.len() as u64;
        assert_eq!(h.log_pos as u64, at);
    }
    assert_eq!(w.pos(), at);
    let (ty, info) = describe(&evs[4].1, true);
    assert_eq!(
        (ty.as_str(), info.as_str()),
        ("Query", "use `test`; create table t (a int)")
    );
    assert_eq!(describe(&evs[5].1, true).1, "BEGIN GTID 0-1-2");
    assert_eq!(describe(&evs[6].1, true).1, "COMMIT /* xid=7 */");
}

#[test]
fn bad_checksum_and_truncation_name_the_offset() {
    let w = small_file(true);
    let evs = events(w.bytes());
    let (xid_off, _) = evs[6];
    let mut bytes = w.bytes().to_vec();
    let i = (xid_off - 4) as usize + HEADER_LEN;
    bytes[i] ^= 1;
    let errs: Vec<_> = EventReader::new(&bytes, 4)
        .filter_map(|e| e.err())
        .collect();
    assert!(
        matches!(errs[..], [EventError::BadChecksum { offset, .. }] if offset == xid_off),
        "{errs:?}"
    );
    let cut = &w.bytes()[..w.bytes().len() - 3];
    let last = EventReader::new(cut, 4).last().expect("an item");
    assert!(matches!(last, Err(EventError::Truncated { offset, .. }) if offset == xid_off));
    let msg = last.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(msg.contains(&xid_off.to_string()), "{msg}");
}

#[test]
fn files_without_checksums() {
    let w = small_file(false);
    let evs = events(w.bytes());
    assert!(!fd_has_checksum(&evs[0].1));
    // The FORMAT_DESCRIPTION keeps its CRC; the others have none.
    assert_eq!(evs[0].1.len(), HEADER_LEN + 229 + CHECKSUM_LEN);
    assert_eq!(evs[6].1.len(), HEADER_LEN + 8);
    assert_eq!(describe(&evs[6].1, false).1, "COMMIT /* xid=7 */");
    assert_eq!(
        describe(&evs[0].1, false).1,
        format!("Server ver: {VERSION}, Binlog ver: 4")
    );
    let mut reader = EventReader::new(w.bytes(), 4);
    assert!(reader.all(|e| e.is_ok()));
}

#[test]
fn in_use_flag_is_outside_the_checksum() {
    let mut w = EventWriter::new(4, 1, true);
    w.format_description_with(5, VERSION, 5, true);
    let mut file = BINLOG_MAGIC.to_vec();
    file.extend_from_slice(w.bytes());
    assert_eq!(file[FD_FLAGS_OFFSET as usize], flags::BINLOG_IN_USE as u8);
    file[FD_FLAGS_OFFSET as usize] = 0;
    assert!(EventReader::new(&file[4..], 4).all(|e| e.is_ok()));
}

#[test]
fn heartbeat_and_fake_rotate() {
    let hb = heartbeat(9, "basalt-bin.000003", 1234, ChecksumAlg::Crc32);
    let h = parse_header(&hb).expect("header");
    assert_eq!(
        (h.timestamp, h.type_code, h.server_id),
        (0, types::HEARTBEAT, 9)
    );
    assert_eq!((h.log_pos, h.event_len as usize), (1234, hb.len()));
    assert_eq!(body(&hb, true), b"basalt-bin.000003");
    assert!(EventReader::with_checksum(&hb, 0, true).all(|e| e.is_ok()));
    let hb = heartbeat(9, "f", 4, ChecksumAlg::Off);
    assert_eq!(hb.len(), HEADER_LEN + 1);

    let fr = fake_rotate(9, "basalt-bin.000002", 4, ChecksumAlg::Crc32);
    let h = parse_header(&fr).expect("header");
    assert_eq!((h.log_pos, h.flags), (0, flags::ARTIFICIAL));
    assert_eq!(
        decode_rotate(&fr, true),
        Some(("basalt-bin.000002".into(), 4))
    );
    assert_eq!(describe(&fr, true).1, "basalt-bin.000002;pos=4");
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Events a MariaDB 10.11 primary sent a COM_BINLOG_DUMP from mariadb-bin.000002:389
/// with `@master_binlog_checksum='CRC32'` and a heartbeat period.
#[test]
fn dump_side_events_as_mariadb_sends_them() {
    let name = "mariadb-bin.000002";
    assert_eq!(
        fake_rotate(1, name, 389, ChecksumAlg::Crc32),
        unhex(concat!(
            "0000000004010000003100000000000000200085010000000000006d61726961",
            "64622d62696e2e303030303032769329dd"
        ))
    );
    assert_eq!(
        heartbeat(1, name, 389, ChecksumAlg::Crc32),
        unhex(concat!(
            "000000001b01000000290000008501000000006d6172696164622d62696e2e30",
            "3030303032607c95fc"
        ))
    );
    // The file's FORMAT_DESCRIPTION (in use), and as the dump sent it.
    let mut w = EventWriter::new(4, 1, true);
    w.format_description_with(0x6b0f_7c29, "10.11.19-MariaDB-0+deb12u1-log", 0, true);
    let mut sent = w.bytes().to_vec();
    prepare_fd(&mut sent, ChecksumAlg::Crc32, true, false);
    assert_eq!(&w.bytes()[13..19], [0, 1, 0, 0, 1, 0]);
    assert_eq!(&sent[13..19], [0; 6]);
    assert_eq!(&sent[sent.len() - 4..], [0xeb, 0x90, 0xbd, 0x14]);
    assert!(EventReader::new(&sent, 4).all(|e| e.is_ok()));
}

#[test]
fn gtid_flags_and_commit_id() {
    let mut w = EventWriter::new(4, 1, true);
    let fl = GtidFlags {
        commit_id: Some(77),
        waited: true,
        ..GtidFlags::transactional()
    };
    w.gtid(
        3,
        Gtid {
            domain: 2,
            server: 5,
            seq: 9,
        },
        fl,
    );
    let ev = w.bytes();
    assert_eq!(parse_header(ev).map(|h| h.server_id), Some(5));
    assert_eq!(body(ev, true).len(), 21);
    let (g, f) = decode_gtid(ev).expect("gtid");
    assert_eq!((g.to_string(), f), ("2-5-9".to_string(), fl));
    assert_eq!(describe(ev, true).1, "BEGIN GTID 2-5-9 cid=77");
    assert_eq!(GtidFlags::ddl().bits(), 0x29);
    assert_eq!(GtidFlags::transactional().bits(), 0x0c);
    assert_eq!(GtidFlags::non_transactional().bits(), 0x08);
}

#[test]
fn gtid_list_round_trip() {
    let list = [
        gtid(5),
        Gtid {
            domain: 1,
            server: 2,
            seq: 3,
        },
    ];
    let mut w = EventWriter::new(4, 1, true);
    w.gtid_list(0, &list);
    assert_eq!(decode_gtid_list(w.bytes(), true), Some(list.to_vec()));
    assert_eq!(describe(w.bytes(), true).1, "[0-1-5,1-2-3]");
}

/// One value's bytes in a rows event of a one-column NOT NULL table.
fn packed(dt: DataType, v: Value) -> Vec<u8> {
    let def = table("t", vec![("c", dt)], &[(0, None)]);
    let row = vec![v];
    let mut w = EventWriter::new(4, 1, false);
    w.rows(0, 1, &def, RowImage::Full, &[RowChange::Insert(&row)], true);
    // table id 6, flags 2, width 1, bitmap 1, NULL bitmap 1.
    w.bytes()[HEADER_LEN + 11..].to_vec()
}

#[test]
fn decimals_as_mysql_documents_them() {
    let d = |s: &str| Value::Decimal(Decimal::parse(s).expect("decimal"));
    let t = DataType::Decimal {
        precision: 14,
        scale: 4,
    };
    assert_eq!(
        packed(t.clone(), d("1234567890.1234")),
        [0x81, 0x0D, 0xFB, 0x38, 0xD2, 0x04, 0xD2]
    );
    assert_eq!(
        packed(t, d("-1234567890.1234")),
        [0x7E, 0xF2, 0x04, 0xC7, 0x2D, 0xFB, 0x2D]
    );
    let t = DataType::Decimal {
        precision: 5,
        scale: 2,
    };
    assert_eq!(packed(t, d("1.5")), packed_decimal_5_2_of_150());
}

/// 1.50 in DECIMAL(5,2): 3 integer digits (2 bytes) = 1, 2 fraction digits (1 byte) = 50.
fn packed_decimal_5_2_of_150() -> Vec<u8> {
    vec![0x80, 0x01, 50]
}

#[test]
fn long_strings_fold_their_length_into_the_type() {
    let def = table(
        "t",
        vec![(
            "c",
            DataType::Char {
                len: 100,
                collation: basalt_common::Collation::Utf8mb4GeneralCi,
            },
        )],
        &[],
    );
    let mut w = EventWriter::new(4, 1, false);
    w.table_map(0, 1, &def);
    let b = body(w.bytes(), false);
    // ... count 1, type 0xfe, metadata length 2, 0xfe ^ 0x10, 400 & 0xff.
    let at = b.windows(4).position(|x| x == [1, 0xfe, 2, 0xee]);
    assert!(at.is_some(), "{b:02x?}");
    assert_eq!(b[at.unwrap_or(0) + 4], 0x90);
}

#[test]
fn split_rows_carry_stmt_end_only_on_the_last() {
    let stmts = statements();
    let big = &stmts[22];
    let mut w = EventWriter::new(4, 1, true);
    w.rows(0, 5, &big.def, big.image, &big.changes(), false);
    let evs = events(w.bytes());
    assert_eq!(evs.len(), 4);
    assert!(evs
        .iter()
        .all(|(_, e)| describe(e, true).1 == "table_id: 5"));
    let mut w = EventWriter::new(4, 1, true);
    w.rows(0, 5, &big.def, big.image, &big.changes(), true);
    let infos: Vec<String> = events(w.bytes())
        .iter()
        .map(|(_, e)| describe(e, true).1)
        .collect();
    assert_eq!(infos[3], "table_id: 5 flags: STMT_END_F");
    assert_eq!(infos[2], "table_id: 5");
}

/// Every statement of the golden workload, written from scratch with other table ids
/// and timestamps: `mariadb-binlog --verbose` prints the same rows for it as for
/// MariaDB's own file.
#[test]
#[ignore = "needs mariadb-client"]
fn mariadb_binlog_decodes_what_we_write() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut w = EventWriter::new(4, 1, true);
    w.format_description(1_700_000_000, VERSION);
    w.gtid_list(1_700_000_000, &[]);
    w.binlog_checkpoint(1_700_000_000, "basalt-bin.000001");
    for (k, s) in statements().iter().enumerate() {
        let ts = 1_700_000_001 + k as u32;
        w.gtid(ts, gtid(k as u64 + 1), GtidFlags::transactional());
        w.annotate_rows(ts, "-- statement");
        let id = 100 + k as u64;
        w.table_map(ts, id, &s.def);
        w.rows(ts, id, &s.def, s.image, &s.changes(), true);
        w.xid(ts, 1000 + k as u64);
    }
    w.rotate(1_800_000_000, "basalt-bin.000002", 4);
    let mut file = BINLOG_MAGIC.to_vec();
    file.extend_from_slice(w.bytes());
    let ours = dir.path().join("basalt-bin.000001");
    let golden = dir.path().join("golden.000001");
    std::fs::write(&ours, &file).expect("write ours");
    std::fs::write(&golden, GOLDEN).expect("write golden");
    let rows_of = |p: &std::path::Path| -> Vec<String> {
        let out = std::process::Command::new("mariadb-binlog")
            .args(["--base64-output=decode-rows", "-vv"])
            .arg(p)
            .output()
            .expect("mariadb-binlog runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.starts_with("###"))
            .map(str::to_string)
            .collect()
    };
    let mine = rows_of(&ours);
    assert!(mine.iter().any(|l| l == "### INSERT INTO `test`.`ints`"));
    assert!(mine.iter().any(|l| l.starts_with("###   @2=-128")));
    assert_eq!(mine, rows_of(&golden));
}
