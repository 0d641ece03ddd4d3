//! The binary-log workload and what every decoder must find in the log.
//!
//! [`Workload`] runs statements on the primary while keeping a model of the tables
//! it touches, so each committed INSERT / UPDATE / DELETE yields the [`Change`]s the
//! binary log must hold (one per row, in commit order); a rolled-back transaction
//! yields none. [`base_workload`] covers DDL (CREATE, ALTER ADD COLUMN), every column
//! type at both ends of its range and NULL, a multi-statement transaction and a
//! rolled-back one, in two parts so tests can cut the log between them.
//!
//! Values are kept in one canonical text form per [`Kind`]; each decoder's output is
//! brought to that form ([`canon_binlog_text`] for `mariadb-binlog --verbose`,
//! [`canon_json`] for the JSON lines of tests/binlog/*.{py,js}):
//! - integers, DECIMAL, YEAR: decimal text (`-128`, `18446744073709551615`, `1.500`);
//! - FLOAT/DOUBLE: Rust's `{}` of the f64 (values chosen exact in binary);
//! - text kinds, JSON: the string; binary kinds (BLOB, VARBINARY): lowercase hex;
//! - DATE `YYYY-MM-DD`; DATETIME/TIMESTAMP (UTC) `YYYY-MM-DD HH:MM:SS[.frac]` and TIME
//!   `[-]H:MM:SS[.frac]`, the fraction without trailing zeros;
//! - ENUM the label; SET the labels joined by `,`; BIT the number.

use mysql::prelude::*;
use mysql::Conn;

/// The database the workload writes.
pub const DB: &str = "bl";

/// How a column's values are written and decoded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Int { unsigned: bool },
    Decimal,
    Float,
    Text,
    Latin1,
    Bytes,
    Date,
    DateTime,
    Time,
    Year,
    Enum(&'static [&'static str]),
    Set(&'static [&'static str]),
    Bit,
    Json,
}

#[derive(Clone, Debug)]
pub struct Col {
    pub name: &'static str,
    pub sql: &'static str,
    pub kind: Kind,
}

const fn col(name: &'static str, sql: &'static str, kind: Kind) -> Col {
    Col { name, sql, kind }
}

const SIGNED: Kind = Kind::Int { unsigned: false };
const UNSIGNED: Kind = Kind::Int { unsigned: true };
const LETTERS: &[&str] = &["a", "b", "c"];
const XYZ: &[&str] = &["x", "y", "z"];

/// The all-types table (`id` first, the primary key).
pub fn types_cols() -> Vec<Col> {
    vec![
        col("id", "INT NOT NULL PRIMARY KEY", SIGNED),
        col("ti", "TINYINT", SIGNED),
        col("tu", "TINYINT UNSIGNED", UNSIGNED),
        col("si", "SMALLINT", SIGNED),
        col("mu", "MEDIUMINT UNSIGNED", UNSIGNED),
        col("bi", "BIGINT", SIGNED),
        col("bu", "BIGINT UNSIGNED", UNSIGNED),
        col("de", "DECIMAL(12,3)", Kind::Decimal),
        col("fl", "FLOAT", Kind::Float),
        col("dbl", "DOUBLE", Kind::Float),
        col("ch", "CHAR(5)", Kind::Text),
        col("vc", "VARCHAR(40)", Kind::Text),
        col("lt", "VARCHAR(10) CHARACTER SET latin1", Kind::Latin1),
        col("tx", "TEXT", Kind::Text),
        col("bl", "BLOB", Kind::Bytes),
        col("vb", "VARBINARY(16)", Kind::Bytes),
        col("dt", "DATE", Kind::Date),
        col("dtm", "DATETIME(3)", Kind::DateTime),
        col("ts", "TIMESTAMP(3) NULL DEFAULT NULL", Kind::DateTime),
        col("tm", "TIME", Kind::Time),
        col("yr", "YEAR", Kind::Year),
        col("en", "ENUM('a','b','c')", Kind::Enum(LETTERS)),
        col("st", "SET('x','y','z')", Kind::Set(XYZ)),
        col("bt", "BIT(12)", Kind::Bit),
        col("js", "JSON", Kind::Json),
    ]
}

/// Row 1 of the all-types table: the extremes.
pub const TYPES_ROW1: &[&str] = &[
    "1",
    "-128",
    "255",
    "-32768",
    "16777215",
    "-9223372036854775808",
    "18446744073709551615",
    "-123456789.125",
    "1.5",
    "-2.25",
    "ab",
    "héllo ☃",
    "café",
    "it's \"q\" \\ x",
    "00ff27",
    "616263",
    "2024-02-29",
    "2024-01-02 03:04:05.678",
    "2023-11-14 22:13:20.5",
    "-838:59:59",
    "2155",
    "b",
    "x,z",
    "2561",
    "{\"a\": [1, 2]}",
];

/// Row 3: the other ends, empty strings and an empty set.
pub const TYPES_ROW3: &[&str] = &[
    "3",
    "127",
    "0",
    "32767",
    "0",
    "9223372036854775807",
    "0",
    "999999999.999",
    "-0.125",
    "12345.5",
    "",
    "",
    "",
    "line",
    "",
    "00",
    "1000-01-01",
    "9999-12-31 23:59:59.999",
    "1970-01-01 00:00:01",
    "838:59:59",
    "1901",
    "a",
    "",
    "0",
    "[]",
];

/// One row's canonical values in column order (`None` is NULL).
pub type Values = Vec<Option<String>>;

/// A row change as the binary log must record it.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub op: Op,
    pub table: String,
    /// The table's columns when the change was made.
    pub cols: Vec<Col>,
    pub before: Option<Values>,
    pub after: Option<Values>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Insert,
    Update,
    Delete,
}

impl PartialEq for Col {
    fn eq(&self, o: &Col) -> bool {
        self.name == o.name
    }
}

struct Table {
    name: String,
    cols: Vec<Col>,
    rows: Vec<Values>,
}

/// Runs statements on one connection and records the changes they must log.
pub struct Workload {
    pub conn: Conn,
    tables: Vec<Table>,
    /// Committed changes, in commit order.
    pub changes: Vec<Change>,
    /// The open transaction's changes and the tables as they were before it.
    txn: Option<(Vec<Change>, Vec<Vec<Values>>)>,
}

/// The SQL literal of a canonical value.
pub fn literal(kind: Kind, v: Option<&str>) -> String {
    let Some(v) = v else {
        return "NULL".into();
    };
    match kind {
        Kind::Int { .. } | Kind::Decimal | Kind::Float | Kind::Year | Kind::Bit => v.into(),
        Kind::Bytes => format!("X'{v}'"),
        _ => format!("'{}'", v.replace('\\', "\\\\").replace('\'', "''")),
    }
}

impl Workload {
    /// Uses database [`DB`] (created here) with the session time zone at UTC.
    pub fn new(mut conn: Conn) -> Workload {
        conn.query_drop(format!("CREATE DATABASE {DB}"))
            .expect("create database");
        conn.query_drop(format!("USE {DB}")).expect("use");
        conn.query_drop("SET time_zone = '+00:00'")
            .expect("time zone");
        Workload {
            conn,
            tables: Vec::new(),
            changes: Vec::new(),
            txn: None,
        }
    }

    pub fn exec(&mut self, sql: &str) {
        self.conn
            .query_drop(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    pub fn create(&mut self, name: &str, cols: Vec<Col>) {
        let defs: Vec<String> = cols
            .iter()
            .map(|c| format!("`{}` {}", c.name, c.sql))
            .collect();
        self.exec(&format!(
            "CREATE TABLE `{name}` ({}) DEFAULT CHARSET=utf8mb4",
            defs.join(", ")
        ));
        self.tables.push(Table {
            name: name.into(),
            cols,
            rows: Vec::new(),
        });
    }

    /// `ALTER TABLE ... ADD COLUMN` (last); existing rows get NULL.
    pub fn add_column(&mut self, table: &str, c: Col) {
        self.exec(&format!(
            "ALTER TABLE `{table}` ADD COLUMN `{}` {}",
            c.name, c.sql
        ));
        let t = self.table(table);
        t.cols.push(c);
        for r in &mut t.rows {
            r.push(None);
        }
    }

    fn table(&mut self, name: &str) -> &mut Table {
        self.tables
            .iter_mut()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("no table {name} in the model"))
    }

    fn record(&mut self, c: Change) {
        match &mut self.txn {
            Some((pending, _)) => pending.push(c),
            None => self.changes.push(c),
        }
    }

    /// Inserts one row (all columns, canonical values).
    pub fn insert(&mut self, table: &str, row: &[Option<&str>]) {
        let t = self.table(table);
        assert_eq!(row.len(), t.cols.len(), "insert into {table}: column count");
        let lits: Vec<String> = t
            .cols
            .iter()
            .zip(row)
            .map(|(c, v)| literal(c.kind, *v))
            .collect();
        let row: Vec<Option<String>> = row.iter().map(|v| v.map(str::to_string)).collect();
        t.rows.push(row.clone());
        let cols = t.cols.clone();
        self.exec(&format!(
            "INSERT INTO `{table}` VALUES ({})",
            lits.join(",")
        ));
        self.record(Change {
            op: Op::Insert,
            table: table.into(),
            cols,
            before: None,
            after: Some(row),
        });
    }

    /// Updates the row whose first column is `id`, setting `sets` (column, value).
    pub fn update(&mut self, table: &str, id: &str, sets: &[(&str, Option<&str>)]) {
        let t = self.table(table);
        let i = t
            .rows
            .iter()
            .position(|r| r[0].as_deref() == Some(id))
            .unwrap_or_else(|| panic!("no row {id} in {table}"));
        let before = t.rows[i].clone();
        let mut assigns = Vec::new();
        for (name, v) in sets {
            let k = t
                .cols
                .iter()
                .position(|c| c.name == *name)
                .unwrap_or_else(|| panic!("no column {name}"));
            assigns.push(format!("`{name}` = {}", literal(t.cols[k].kind, *v)));
            t.rows[i][k] = v.map(str::to_string);
        }
        let after = t.rows[i].clone();
        let (cols, key) = (t.cols.clone(), t.cols[0].name);
        self.exec(&format!(
            "UPDATE `{table}` SET {} WHERE `{key}` = {id}",
            assigns.join(", ")
        ));
        self.record(Change {
            op: Op::Update,
            table: table.into(),
            cols,
            before: Some(before),
            after: Some(after),
        });
    }

    pub fn delete(&mut self, table: &str, id: &str) {
        let t = self.table(table);
        let i = t
            .rows
            .iter()
            .position(|r| r[0].as_deref() == Some(id))
            .unwrap_or_else(|| panic!("no row {id} in {table}"));
        let before = t.rows.remove(i);
        let (cols, key) = (t.cols.clone(), t.cols[0].name);
        self.exec(&format!("DELETE FROM `{table}` WHERE `{key}` = {id}"));
        self.record(Change {
            op: Op::Delete,
            table: table.into(),
            cols,
            before: Some(before),
            after: None,
        });
    }

    pub fn begin(&mut self) {
        self.exec("BEGIN");
        let saved = self.tables.iter().map(|t| t.rows.clone()).collect();
        self.txn = Some((Vec::new(), saved));
    }

    pub fn commit(&mut self) {
        self.exec("COMMIT");
        let (pending, _) = self.txn.take().expect("an open transaction");
        self.changes.extend(pending);
    }

    pub fn rollback(&mut self) {
        self.exec("ROLLBACK");
        let (_, saved) = self.txn.take().expect("an open transaction");
        for (t, rows) in self.tables.iter_mut().zip(saved) {
            t.rows = rows;
        }
    }
}

fn some(row: &[&'static str]) -> Vec<Option<&'static str>> {
    row.iter().map(|v| Some(*v)).collect()
}

/// Part A: the all-types table: CREATE, the extremes, a row of NULLs, updates and a
/// delete, each autocommitted.
pub fn part_a(w: &mut Workload) {
    w.create("types", types_cols());
    w.insert("types", &some(TYPES_ROW1));
    let mut nulls = vec![None; types_cols().len()];
    nulls[0] = Some("2");
    w.insert("types", &nulls);
    w.insert("types", &some(TYPES_ROW3));
    w.update(
        "types",
        "1",
        &[("vc", Some("new")), ("tm", Some("01:02:03"))],
    );
    w.update(
        "types",
        "3",
        &[
            ("bl", Some("ff")),
            ("st", Some("y")),
            ("en", Some("c")),
            ("bt", Some("1")),
            ("lt", None),
        ],
    );
    w.delete("types", "2");
}

/// Part B: a multi-statement transaction, a rolled-back one, ALTER TABLE and rows
/// with the new column.
pub fn part_b(w: &mut Workload) {
    w.create(
        "items",
        vec![
            col("id", "INT NOT NULL PRIMARY KEY", SIGNED),
            col("name", "VARCHAR(20) NOT NULL", Kind::Text),
            col("qty", "INT NOT NULL", SIGNED),
        ],
    );
    w.begin();
    for (id, name) in [("1", "bolt"), ("2", "nut"), ("3", "washer")] {
        w.insert("items", &[Some(id), Some(name), Some("10")]);
    }
    w.update("items", "2", &[("qty", Some("7"))]);
    w.delete("items", "3");
    w.update("types", "1", &[("de", Some("0.001"))]);
    w.commit();
    w.begin();
    w.insert("items", &[Some("100"), Some("ghost"), Some("1")]);
    w.update("items", "1", &[("qty", Some("-5"))]);
    w.delete("items", "2");
    w.rollback();
    w.add_column("items", col("note", "VARCHAR(20) NULL", Kind::Text));
    w.insert("items", &[Some("4"), Some("gear"), Some("3"), Some("ok")]);
    w.update("items", "1", &[("note", Some("first"))]);
}

/// The whole base workload.
pub fn base_workload(w: &mut Workload) {
    part_a(w);
    part_b(w);
}

/// A row change as a decoder reported it: values still in the decoder's form.
#[derive(Debug)]
pub struct Decoded<V> {
    pub op: Op,
    pub schema: String,
    pub table: String,
    /// Column names, when the decoder reports them.
    pub columns: Option<Vec<String>>,
    pub before: Option<Vec<V>>,
    pub after: Option<Vec<V>>,
}

/// Compares decoded changes of [`DB`] (others are skipped) with `want`, bringing each
/// value to canonical form with `canon`; panics at the first difference.
pub fn assert_changes<V: std::fmt::Debug>(
    what: &str,
    got: &[Decoded<V>],
    want: &[Change],
    canon: impl Fn(Kind, &V) -> Option<String>,
) {
    let got: Vec<&Decoded<V>> = got.iter().filter(|d| d.schema == DB).collect();
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ctx = format!("{what}: change {i} ({:?} on {})", w.op, w.table);
        assert_eq!((g.op, g.table.as_str()), (w.op, w.table.as_str()), "{ctx}");
        if let Some(names) = &g.columns {
            let want_names: Vec<&str> = w.cols.iter().map(|c| c.name).collect();
            assert_eq!(names, &want_names, "{ctx}: column names");
        }
        let image = |vals: &Option<Vec<V>>| -> Option<Vec<Option<String>>> {
            vals.as_ref().map(|vs| {
                assert_eq!(vs.len(), w.cols.len(), "{ctx}: column count");
                vs.iter()
                    .zip(&w.cols)
                    .map(|(v, c)| canon(c.kind, v))
                    .collect()
            })
        };
        assert_eq!(image(&g.before), w.before, "{ctx}: before image");
        assert_eq!(image(&g.after), w.after, "{ctx}: after image");
    }
    assert_eq!(got.len(), want.len(), "{what}: number of row changes");
}

/// Drops trailing zeros (and a bare point) of a fraction: `05.500` -> `05.5`.
pub fn trim_fraction(s: &str) -> String {
    match s.split_once('.') {
        Some((a, f)) => {
            let f = f.trim_end_matches('0');
            if f.is_empty() {
                a.to_string()
            } else {
                format!("{a}.{f}")
            }
        }
        None => s.to_string(),
    }
}

fn float_text(s: &str) -> String {
    let f: f64 = s.trim().parse().unwrap_or_else(|_| panic!("float {s:?}"));
    format!("{f}")
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn set_labels(labels: &[&str], mask: u64) -> String {
    let on: Vec<&str> = labels
        .iter()
        .enumerate()
        .filter(|(i, _)| mask >> i & 1 == 1)
        .map(|(_, l)| *l)
        .collect();
    on.join(",")
}

/// Civil date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `1700000000.500000` (seconds since the epoch) as UTC `2023-11-14 22:13:20.5`.
pub fn epoch_text(s: &str) -> String {
    let (secs, frac) = s.split_once('.').unwrap_or((s, ""));
    let secs: i64 = secs.parse().unwrap_or_else(|_| panic!("epoch {s:?}"));
    let (y, m, d) = civil(secs.div_euclid(86_400));
    let t = secs.rem_euclid(86_400);
    let text = format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{frac}",
        t / 3600,
        t / 60 % 60,
        t % 60
    );
    trim_fraction(&text)
}

/// Decodes `mariadb-binlog`'s quoting: the bytes between the outer quotes, with
/// `\xNN` escapes (it prints other bytes, quotes and backslashes included, as they are).
fn unquote(v: &[u8]) -> Vec<u8> {
    let inner = &v[1..v.len().saturating_sub(1).max(1)];
    let mut out = Vec::new();
    let mut i = 0;
    while i < inner.len() {
        let h = inner
            .get(i + 2..i + 4)
            .and_then(|h| std::str::from_utf8(h).ok());
        if inner[i] == b'\\' && inner.get(i + 1) == Some(&b'x') {
            if let Some(b) = h.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 4;
                continue;
            }
        }
        out.push(inner[i]);
        i += 1;
    }
    out
}

fn bits(v: &str) -> u64 {
    let b = v.trim_start_matches("b'").trim_end_matches('\'');
    u64::from_str_radix(b, 2).unwrap_or_else(|_| panic!("bit value {v:?}"))
}

/// A `mariadb-binlog --verbose` value (`@N=` stripped) in canonical form.
pub fn canon_binlog_text(kind: Kind, v: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(v).trim_end().to_string();
    if text == "NULL" {
        return None;
    }
    let quoted = || text.trim_matches('\'').to_string();
    Some(match kind {
        // Integers print signed, then the unsigned reading in parentheses when negative.
        Kind::Int { unsigned } => match (unsigned, text.split_once(" (")) {
            (true, Some((_, u))) => u.trim_end_matches(')').to_string(),
            (_, Some((s, _))) => s.to_string(),
            (_, None) => text,
        },
        Kind::Decimal | Kind::Year => text,
        Kind::Float => float_text(&text),
        Kind::Text | Kind::Json => String::from_utf8_lossy(&unquote(v.trim_ascii_end())).into(),
        Kind::Latin1 => unquote(v.trim_ascii_end())
            .iter()
            .map(|b| *b as char)
            .collect(),
        Kind::Bytes => hex(&unquote(v.trim_ascii_end())),
        Kind::Date => quoted().replace(':', "-"),
        Kind::DateTime if !text.starts_with('\'') => epoch_text(&text),
        Kind::DateTime | Kind::Time => trim_fraction(&quoted()),
        Kind::Enum(labels) => {
            let i: usize = text
                .parse()
                .unwrap_or_else(|_| panic!("enum index {text:?}"));
            labels[i - 1].to_string()
        }
        Kind::Set(labels) => set_labels(labels, bits(&text)),
        Kind::Bit => bits(&text).to_string(),
    })
}

/// Parses `mariadb-binlog --verbose --base64-output=decode-rows` output into row
/// changes: `### INSERT INTO `db`.`t``, `### UPDATE`, `### DELETE FROM`, then
/// `### WHERE` (before image) / `### SET` (after image) and `###   @N=value` lines.
pub fn parse_binlog_verbose(out: &[u8]) -> Vec<Decoded<Vec<u8>>> {
    let mut changes: Vec<Decoded<Vec<u8>>> = Vec::new();
    let mut in_after = false;
    for line in out.split(|b| *b == b'\n') {
        let Some(rest) = line.strip_prefix(b"### ") else {
            continue;
        };
        let text = String::from_utf8_lossy(rest);
        let header = [
            ("INSERT INTO ", Op::Insert),
            ("UPDATE ", Op::Update),
            ("DELETE FROM ", Op::Delete),
        ];
        if let Some((name, op)) = header
            .iter()
            .find_map(|(p, op)| text.strip_prefix(p).map(|n| (n.to_string(), *op)))
        {
            let parts: Vec<&str> = name.split('`').collect();
            assert!(parts.len() >= 4, "table name in {text:?}");
            changes.push(Decoded {
                op,
                schema: parts[1].into(),
                table: parts[3].into(),
                columns: None,
                before: None,
                after: None,
            });
            continue;
        }
        let cur = changes.last_mut().expect("a row header before its images");
        match text.trim() {
            "WHERE" => {
                in_after = false;
                cur.before = Some(Vec::new());
            }
            "SET" => {
                in_after = true;
                cur.after = Some(Vec::new());
            }
            _ => {
                let at = rest
                    .iter()
                    .position(|b| *b == b'=')
                    .unwrap_or_else(|| panic!("a column value in {text:?}"));
                let image = if in_after {
                    &mut cur.after
                } else {
                    &mut cur.before
                };
                image
                    .as_mut()
                    .expect("WHERE or SET before values")
                    .push(rest[at + 1..].to_vec());
            }
        }
    }
    changes
}

/// A JSON value from tests/binlog/pyrepl.py or zongji.js in canonical form.
pub fn canon_json(kind: Kind, v: &serde_json::Value) -> Option<String> {
    use serde_json::Value as J;
    let tagged = |tag: &str| v.get(tag).and_then(J::as_str).map(str::to_string);
    let s = match v {
        J::Null => return None,
        J::String(s) => s.clone(),
        J::Number(n) => n.to_string(),
        J::Array(a) => {
            let labels: Vec<&str> = a.iter().filter_map(J::as_str).collect();
            labels.join(",")
        }
        _ => String::new(),
    };
    Some(match kind {
        Kind::Float => float_text(&tagged("float").unwrap_or(s)),
        Kind::Bytes => tagged("hex").unwrap_or_else(|| hex(s.as_bytes())),
        Kind::Text | Kind::Latin1 | Kind::Json => match tagged("hex") {
            Some(h) => String::from_utf8_lossy(&unhex(&h)).into(),
            None => tagged("json").unwrap_or(s),
        },
        Kind::Date => tagged("date").map(|d| d[..10].to_string()).unwrap_or(s),
        Kind::DateTime => match tagged("date") {
            // JavaScript's ISO form: 2024-01-02T03:04:05.678Z
            Some(d) => trim_fraction(&d.replace('T', " ").replace('Z', "")),
            None => trim_fraction(&s),
        },
        Kind::Time => trim_fraction(&s),
        Kind::Bit => match tagged("hex") {
            Some(h) => unhex(&h)
                .iter()
                .fold(0u64, |a, b| a << 8 | u64::from(*b))
                .to_string(),
            None if s.chars().all(|c| c == '0' || c == '1') && s.len() > 1 => {
                u64::from_str_radix(&s, 2).expect("bit string").to_string()
            }
            None => s,
        },
        _ => s,
    })
}

fn unhex(h: &str) -> Vec<u8> {
    (0..h.len() / 2)
        .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).expect("hex digits"))
        .collect()
}

/// Parses the JSON lines tests/binlog/pyrepl.py and zongji.js print.
pub fn parse_json_lines(out: &str) -> Vec<Decoded<serde_json::Value>> {
    out.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("JSON line {l:?}: {e}"));
            let text = |k: &str| v[k].as_str().unwrap_or_default().to_string();
            let op = match text("kind").as_str() {
                "insert" => Op::Insert,
                "update" => Op::Update,
                "delete" => Op::Delete,
                other => panic!("kind {other:?} in {l}"),
            };
            let image = |k: &str| v[k].as_array().cloned();
            let columns = v["columns"].as_array().map(|a| {
                a.iter()
                    .map(|c| c.as_str().unwrap_or_default().to_string())
                    .collect()
            });
            Decoded {
                op,
                schema: text("schema"),
                table: text("table"),
                columns,
                before: image("before"),
                after: image("after"),
            }
        })
        .collect()
}

/// Runs the base workload on a `kind` primary, then a CDC client script
/// (`program script PORT COUNT`, printing one JSON line per row change), and checks
/// its lines against the workload's changes.
pub fn check_cdc_client(kind: crate::binlog::PrimaryKind, program: &str, script: &str, what: &str) {
    let primary = crate::binlog::Primary::start(kind, 1);
    let mut w = Workload::new(primary.conn());
    base_workload(&mut w);
    let mut cmd = std::process::Command::new(program);
    cmd.arg(crate::workspace_root().join(script))
        .arg(primary.port().to_string())
        .arg(w.changes.len().to_string())
        .env("TZ", "UTC");
    let (code, out, err) = crate::binlog::run_bounded(&mut cmd, std::time::Duration::from_secs(60));
    let out = String::from_utf8(out).expect("JSON lines are UTF-8");
    assert_eq!(code, 0, "{script} failed: {err}\n{out}");
    let got = parse_json_lines(&out);
    assert_changes(what, &got, &w.changes, canon_json);
}
