//! Collations against MariaDB: for every collation Basalt has, a table of tricky
//! strings (accents, case, ß, ligatures, trailing spaces and TABs, ignorable and
//! supplementary characters) is ordered, grouped, de-duplicated, joined on `=` and
//! `<`, looked up through its index, and weighed with WEIGHT_STRING on both servers;
//! a UNIQUE index must reject the same variants with 1062; and the SHOW COLLATION,
//! information_schema and variable rows of each collation must be MariaDB's.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts};

type Outcome = Result<Vec<Vec<Option<String>>>, (u16, String)>;

fn run(c: &mut Conn, sql: &str) -> Outcome {
    let mut result = match c.query_iter(sql) {
        Ok(r) => r,
        Err(mysql::Error::MySqlError(e)) => return Err((e.code, e.message)),
        Err(e) => panic!("{sql}: {e}"),
    };
    let mut rows = Vec::new();
    for row in result.by_ref() {
        match row {
            Ok(r) => rows.push(r.unwrap().iter().map(basalt_tests::cell).collect()),
            Err(mysql::Error::MySqlError(e)) => return Err((e.code, e.message)),
            Err(e) => panic!("{sql}: {e}"),
        }
    }
    Ok(rows)
}

const COLLATIONS: &[&str] = &[
    "utf8mb4_general_ci",
    "utf8mb4_bin",
    "utf8mb4_unicode_ci",
    "utf8mb4_unicode_520_ci",
    "utf8mb4_general_nopad_ci",
    "utf8mb4_nopad_bin",
    "utf8mb4_unicode_nopad_ci",
    "utf8mb4_unicode_520_nopad_ci",
    "utf8mb3_general_ci",
    "utf8mb3_bin",
    "utf8mb3_unicode_ci",
    "utf8mb3_unicode_520_ci",
    "utf8mb3_general_nopad_ci",
    "utf8mb3_nopad_bin",
    "utf8mb3_unicode_nopad_ci",
    "utf8mb3_unicode_520_nopad_ci",
    "latin1_swedish_ci",
    "latin1_german1_ci",
    "latin1_general_ci",
    "latin1_general_cs",
    "latin1_bin",
    "latin1_swedish_nopad_ci",
    "latin1_nopad_bin",
    "ascii_general_ci",
    "ascii_bin",
    "ascii_general_nopad_ci",
    "ascii_nopad_bin",
];

const STRINGS: &[&str] = &[
    "a", "A", "á", "Á", "à", "ä", "Ä", "å", "æ", "Æ", "b", "e", "é", "E", "ê", "ß", "s", "ss",
    "SS", "José", "Jose", "jose", "JOSE", "Éclair", "eclair", "strasse", "Straße", "ÿ", "y", "Ÿ",
    "ü", "u", "Ø", "o", "œ", "oe", "Œ", "€", "š", "Š", "a ", "a  ", "a\t", "", "  ", "😀", "😁",
    "𝒜", "\u{AD}", "a\u{AD}b", "ǅ", "Ǆ", "ı", "i", "I", "İ", "z", "Z", "Zoë", "zoe", "ŉ", "ﬁ",
    "fi", "ǲ", "Ω", "ω", "ŀ", "中", "丁", "한", "_", "-", "1", "½",
];

/// Whether `s` can be stored in character set `cs`.
fn fits(s: &str, cs: &str) -> bool {
    match cs {
        "utf8mb3" => s.chars().all(|c| (c as u32) <= 0xFFFF),
        "latin1" => s
            .chars()
            .all(|c| basalt_common::charset::latin1_byte(c as u32).is_some()),
        "ascii" => s.is_ascii(),
        _ => true,
    }
}

fn quote(s: &str) -> String {
    format!(
        "'{}'",
        s.replace('\\', "\\\\")
            .replace('\'', "''")
            .replace('\t', "\\t")
    )
}

fn statements(i: usize, coll: &str) -> Vec<String> {
    let cs = coll.split('_').next().expect("charset");
    let strings: Vec<&str> = STRINGS.iter().copied().filter(|s| fits(s, cs)).collect();
    let t = format!("t{i}");
    let u = format!("u{i}");
    let values: Vec<String> = strings
        .iter()
        .enumerate()
        .map(|(id, s)| format!("({id}, {})", quote(s)))
        .collect();
    let mut v = vec![
        format!("create table {t} (id int primary key, s varchar(20) character set {cs} collate {coll}, key(s))"),
        format!("insert into {t} values {}", values.join(",")),
        format!("select id, hex(s) from {t} order by s, id"),
        format!("select id from {t} order by s desc, id"),
        format!("select count(*), min(id) from {t} group by s order by min(id)"),
        format!("select count(distinct s) from {t}"),
        format!("select a.id, b.id from {t} a join {t} b on a.s = b.s where a.id < b.id order by 1, 2"),
        format!("select a.id, b.id from {t} a join {t} b on a.s < b.s order by 1, 2"),
        format!("select id, hex(weight_string(s)), hex(weight_string(s as char(3))), hex(weight_string(s as binary(4))) from {t} order by id"),
        format!("create table {u} (s varchar(20) character set {cs} collate {coll}, unique key(s))"),
    ];
    for probe in [
        "jose", "JOSE", "eclair", "a", "a ", "strasse", "ss", "oe", "y", "u", "s", "i",
    ] {
        v.push(format!(
            "select id from {t} force index(s) where s = {} order by id",
            quote(probe)
        ));
        v.push(format!(
            "select id from {t} force index(s) where s < {} order by id",
            quote(probe)
        ));
    }
    for pair in [
        ("José", "Jose"),
        ("a", "a "),
        ("a", "A"),
        ("ss", "ß"),
        ("Straße", "strasse"),
        ("é", "e"),
    ] {
        if fits(pair.0, cs) && fits(pair.1, cs) {
            v.push(format!("delete from {u}"));
            v.push(format!("insert into {u} values ({})", quote(pair.0)));
            v.push(format!("insert into {u} values ({})", quote(pair.1)));
            v.push(format!(
                "select hex(s) from {u} where s = {}",
                quote(pair.1)
            ));
        }
    }
    v.extend([
        format!("show collation like '{coll}'"),
        format!("select * from information_schema.collations where collation_name = '{coll}'"),
        format!("select * from information_schema.collation_character_set_applicability where collation_name = '{coll}'"),
        format!("set collation_connection = {coll}"),
        "select @@collation_connection".to_string(),
        "set names utf8mb4".to_string(),
        format!("select hex(weight_string(convert('aß Éz ' using {cs}) collate {coll}))"),
        format!("select hex(weight_string(convert('Éz' using {cs}) collate {coll} as char(5)))"),
        format!("select convert('José' using {cs}) collate {coll} = 'jose', convert('a' using {cs}) collate {coll} = 'a '"),
    ]);
    v
}

#[test]
#[ignore]
fn collations_behave_as_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&["--innodb-flush-log-at-trx-commit=2"]);
    let mut basalt = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("basalt");
    let mut maria = Conn::new(Opts::from_url(&m.url()).expect("url")).expect("mariadb");
    for c in [&mut basalt, &mut maria] {
        c.query_drop("create database co").expect("db");
        c.query_drop("use co").expect("use");
        c.query_drop("set names utf8mb4").expect("names");
    }
    let mut diffs = Vec::new();
    let mut total = 0;
    let mut all: Vec<String> = vec![
        "show character set where charset in ('utf8mb4', 'utf8mb3', 'latin1', 'ascii', 'binary')"
            .to_string(),
        "select hex(weight_string('abc' as char(2))), hex(weight_string(12)), hex(weight_string(null)), hex(weight_string(_binary'ab' as char(3)))".to_string(),
        "select weight_string('a' as char(1)) = weight_string('A' as char(1))".to_string(),
        "select hex(weight_string('Ab' as char(3))), 'é' like 'e', hex(weight_string('ßa' collate utf8mb4_unicode_520_ci as binary(5)))".to_string(),
        "select 'José' like 'jos%', 'ß' like 's' collate utf8mb4_unicode_ci, 'Straße' like '%SS%' collate utf8mb4_general_ci".to_string(),
        "set @@collation_server = utf8_unicode_520_ci".to_string(),
        "select @@collation_server".to_string(),
        "select 'x' collate utf8mb4_nopad_bin = 'x '".to_string(),
        "select 'x' collate utf8mb4_unicode_nopad_ci < 'x '".to_string(),
        "select 'x' collate latin1_swedish_ci".to_string(),
        "select 'x' collate no_such_collation".to_string(),
    ];
    for (i, coll) in COLLATIONS.iter().enumerate() {
        all.extend(statements(i, coll));
    }
    for sql in &all {
        total += 1;
        let mut x = run(&mut basalt, sql);
        let mut y = run(&mut maria, sql);
        // SHOW CHARACTER SET lists in each server's internal order.
        if sql.starts_with("show character set") {
            for r in [&mut x, &mut y].into_iter().flatten() {
                r.sort();
            }
        }
        if x != y {
            diffs.push(format!("{sql}\n  basalt:  {x:?}\n  mariadb: {y:?}"));
        }
    }
    assert!(
        diffs.is_empty(),
        "{} of {total} statements differ:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}
