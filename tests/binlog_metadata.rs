//! `binlog_row_metadata` NO_LOG / MINIMAL / FULL: the TABLE_MAP events Basalt writes
//! equal MariaDB 10.11's byte for byte (but for the table id) at each level, for a
//! table with numeric, character, ENUM/SET columns and a primary key.

use basalt_tests::binlog::{Primary, PrimaryKind};
use mysql::prelude::*;
use std::path::Path;

const TABLE_MAP: u8 = 19;
const HEADER_LEN: usize = 19;
const CRC_LEN: usize = 4;
/// Table id at the start of a TABLE_MAP body.
const TABLE_ID_LEN: usize = 6;

/// The bodies (after the table id, before the CRC) of the TABLE_MAP events of `file`.
fn table_maps(file: &Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(file).expect("read binlog file");
    let mut out = Vec::new();
    let mut at = 4;
    while at + HEADER_LEN <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at + 9..at + 13].try_into().expect("4 bytes")) as usize;
        assert!(
            len >= HEADER_LEN && at + len <= bytes.len(),
            "event at {at}"
        );
        if bytes[at + 4] == TABLE_MAP {
            out.push(bytes[at + HEADER_LEN + TABLE_ID_LEN..at + len - CRC_LEN].to_vec());
        }
        at += len;
    }
    out
}

/// The TABLE_MAP bodies one insert per level logs, on a primary of `kind`.
fn maps_at_each_level(kind: PrimaryKind) -> Vec<(String, Vec<Vec<u8>>)> {
    let p = Primary::start(kind, 1);
    let mut c = p.conn();
    c.query_drop("create database if not exists m").expect("db");
    c.query_drop(
        "create table m.t (id int unsigned not null primary key, a tinyint, \
         b varchar(20) character set latin1, c text, d enum('x','y') character set utf8mb4, \
         e set('p','q','r'), f decimal(6,2), g double, h char(3) \
         character set utf8mb4 collate utf8mb4_bin, i year)",
    )
    .expect("create");
    let mut out = Vec::new();
    for (n, level) in ["NO_LOG", "MINIMAL", "FULL"].into_iter().enumerate() {
        c.query_drop(format!("set global binlog_row_metadata = {level}"))
            .expect("set binlog_row_metadata");
        c.query_drop("flush binary logs").expect("flush");
        c.query_drop(format!(
            "insert into m.t values ({n}, -1, 'l', 't', 'y', 'p,r', 1.5, 2.5, 'abc', 2024)"
        ))
        .expect("insert");
        let last = p.binlog_files().pop().expect("a binlog file");
        out.push((level.to_string(), table_maps(&last)));
    }
    out
}

#[test]
#[ignore = "needs mariadb-server"]
fn table_map_metadata_levels_match_mariadb() {
    let mariadb = maps_at_each_level(PrimaryKind::MariaDb);
    let basalt = maps_at_each_level(PrimaryKind::Basalt);
    for ((level, m), (_, b)) in mariadb.iter().zip(&basalt) {
        assert_eq!(m.len(), 1, "{level}: one TABLE_MAP in MariaDB's file");
        assert_eq!(b, m, "{level}: TABLE_MAP bodies differ");
    }
    assert!(
        basalt[0].1[0].len() < basalt[1].1[0].len() && basalt[1].1[0].len() < basalt[2].1[0].len(),
        "each level adds metadata"
    );
}
