//! Statement text is bytes in the client's character set: string literals reach
//! BLOB, VARBINARY and BINARY columns byte for byte, text columns refuse bytes that
//! are no characters (MariaDB's 1366, an error or a warning by sql_mode), and a
//! latin1 client's bytes are stored as the characters they stand for. Checked over
//! a raw socket (exact bytes in COM_QUERY, COM_STMT_PREPARE, COM_STMT_EXECUTE,
//! COM_STMT_SEND_LONG_DATA and COM_INIT_DB), through PyMySQL, the `mariadb` client,
//! and dump round trips with mariadb-dump and mydumper/myloader; the differential
//! test compares every reply and warning with a real MariaDB.

#[path = "prepared_wire.rs"]
#[allow(dead_code)]
mod wire;

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::{raw_login, read_packet, send_packet, which, workspace_root, Basalt};
use std::io::Write;
use std::net::TcpStream;
use std::process::{Command, Stdio};
use wire::lenenc;

/// A reply to one command, comparable between servers.
#[derive(Debug, Clone, PartialEq)]
enum Reply {
    Ok {
        affected: u64,
        warnings: u16,
    },
    Err {
        code: u16,
        state: String,
        msg: String,
    },
    Rows(Vec<Vec<Option<Vec<u8>>>>),
}

/// (level, code, message) of a SHOW WARNINGS row.
type Warning = (String, String, String);

struct Raw(TcpStream);

impl Raw {
    fn login(port: u16) -> Raw {
        Raw(raw_login(port))
    }

    fn command(&mut self, cmd: u8, body: &[u8]) -> Reply {
        let mut p = vec![cmd];
        p.extend_from_slice(body);
        send_packet(&mut self.0, 0, &p);
        self.reply()
    }

    fn reply(&mut self) -> Reply {
        let first = read_packet(&mut self.0).expect("reply");
        match first[0] {
            0x00 => {
                let mut pos = 1;
                let affected = lenenc(&first, &mut pos);
                let _id = lenenc(&first, &mut pos);
                let warnings = u16::from_le_bytes([first[pos + 2], first[pos + 3]]);
                Reply::Ok { affected, warnings }
            }
            0xff => Reply::Err {
                code: u16::from_le_bytes([first[1], first[2]]),
                state: String::from_utf8_lossy(&first[4..9]).into_owned(),
                msg: String::from_utf8_lossy(&first[9..]).into_owned(),
            },
            _ => {
                let mut pos = 0;
                let n = lenenc(&first, &mut pos) as usize;
                let _ = wire::read_columns(&mut self.0, n);
                let (rows, _) = wire::read_rows(&mut self.0);
                Reply::Rows(rows.iter().map(|r| fields(r, n)).collect())
            }
        }
    }

    fn q(&mut self, sql: &[u8]) -> Reply {
        self.command(wire::COM_QUERY, sql)
    }

    fn ok(&mut self, sql: &[u8]) {
        let r = self.q(sql);
        assert!(
            matches!(r, Reply::Ok { .. }),
            "{}: {r:?}",
            String::from_utf8_lossy(sql)
        );
    }

    fn rows(&mut self, sql: &[u8]) -> Vec<Vec<Option<Vec<u8>>>> {
        match self.q(sql) {
            Reply::Rows(r) => r,
            other => panic!("{}: {other:?}", String::from_utf8_lossy(sql)),
        }
    }

    /// The single value of a one-row, one-column query, as text.
    fn one(&mut self, sql: &[u8]) -> String {
        let r = self.rows(sql);
        assert_eq!(r.len(), 1, "{}", String::from_utf8_lossy(sql));
        String::from_utf8_lossy(r[0][0].as_deref().unwrap_or(b"NULL")).into_owned()
    }

    /// (level, code, message) of SHOW WARNINGS.
    fn warnings(&mut self) -> Vec<Warning> {
        self.rows(b"SHOW WARNINGS")
            .into_iter()
            .map(|r| {
                let t =
                    |i: usize| String::from_utf8_lossy(r[i].as_deref().unwrap_or(b"")).into_owned();
                (t(0), t(1), t(2))
            })
            .collect()
    }
}

fn fields(r: &[u8], n: usize) -> Vec<Option<Vec<u8>>> {
    let mut pos = 0;
    (0..n)
        .map(|_| {
            if r[pos] == 0xfb {
                pos += 1;
                None
            } else {
                let len = lenenc(r, &mut pos) as usize;
                pos += len;
                Some(r[pos - len..pos].to_vec())
            }
        })
        .collect()
}

/// A quoted SQL string literal of arbitrary bytes, escaped as mariadb-dump does.
fn literal(b: &[u8]) -> Vec<u8> {
    let mut out = vec![b'\''];
    for &c in b {
        match c {
            0 => out.extend_from_slice(b"\\0"),
            b'\'' | b'\\' => out.extend_from_slice(&[b'\\', c]),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0x1a => out.extend_from_slice(b"\\Z"),
            _ => out.push(c),
        }
    }
    out.push(b'\'');
    out
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02X}")).collect()
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// The table every round trip fills: each byte value in a BLOB, a VARBINARY and a
/// BINARY column, plus a text column.
const BIN_DDL: &[u8] = b"CREATE TABLE bin (id INT PRIMARY KEY, b BLOB, vb VARBINARY(300), \
    bb BINARY(2), t TEXT)";

fn bin_row(i: usize) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let every: Vec<u8> = (0..=255u8).collect();
    let b = cat(&[&[i as u8; 3], &every[i..], &every[..i]]);
    (b, vec![i as u8, 255 - i as u8], vec![i as u8, 0])
}

/// Fills `bin` with raw string literals: single-row INSERTs, one multi-row INSERT
/// with rows of one shape, and one whose rows differ (the full-parse path).
fn fill_bin(c: &mut Raw) {
    c.ok(BIN_DDL);
    let row_sql = |i: usize, t: &[u8]| {
        let (b, vb, bb) = bin_row(i);
        cat(&[
            format!("({i}, ").as_bytes(),
            &literal(&b),
            b", ",
            &literal(&vb),
            b", ",
            &literal(&bb),
            b", ",
            t,
            b")",
        ])
    };
    for i in 0..64 {
        c.ok(&cat(&[
            b"INSERT INTO bin VALUES ",
            &row_sql(i, b"'\xc3\xa9'"),
        ]));
    }
    let same: Vec<Vec<u8>> = (64..160).map(|i| row_sql(i, b"'x'")).collect();
    c.ok(&cat(&[b"INSERT INTO bin VALUES ", &same.join(&b", "[..])]));
    let mixed: Vec<Vec<u8>> = (160..256)
        .map(|i| {
            row_sql(
                i,
                if i % 2 == 0 {
                    b"NULL"
                } else {
                    b"'\xe2\x82\xac'"
                },
            )
        })
        .collect();
    c.ok(&cat(&[b"INSERT INTO bin VALUES ", &mixed.join(&b", "[..])]));
}

/// Asserts that `bin` in database `db` holds exactly what [`fill_bin`] put there.
fn check_bin(c: &mut Raw, db: &str) {
    let rows = c.rows(format!("SELECT id, b, vb, bb, t FROM {db}.bin ORDER BY id").as_bytes());
    assert_eq!(rows.len(), 256, "{db}: row count");
    for (i, r) in rows.iter().enumerate() {
        let (b, vb, bb) = bin_row(i);
        assert_eq!(r[0].as_deref(), Some(i.to_string().as_bytes()));
        assert_eq!(r[1].as_deref(), Some(&b[..]), "{db}: BLOB of row {i}");
        assert_eq!(r[2].as_deref(), Some(&vb[..]), "{db}: VARBINARY of row {i}");
        assert_eq!(r[3].as_deref(), Some(&bb[..]), "{db}: BINARY of row {i}");
    }
}

#[test]
fn binary_literals_reach_binary_columns_exactly() {
    let b = Basalt::start();
    let mut c = Raw::login(b.port);
    c.ok(b"CREATE DATABASE x");
    c.ok(b"USE x");
    // The reported case.
    c.ok(b"CREATE TABLE bl (id INT PRIMARY KEY, b BLOB, n INT)");
    c.ok(b"SET NAMES binary");
    c.ok(b"insert into bl values (1, '\xff\xfex', 0)");
    assert_eq!(c.one(b"SELECT HEX(b) FROM bl WHERE id = 1"), "FFFE78");
    c.ok(b"SET NAMES utf8mb4");
    fill_bin(&mut c);
    check_bin(&mut c, "x");
    // Introducers and hex literals, in every statement shape.
    c.ok(b"UPDATE bin SET b = _binary'\xff\x00', vb = X'00FF' WHERE id = 1");
    c.ok(b"INSERT INTO bin (id, b) VALUES (300, _binary'\x80') ON DUPLICATE KEY UPDATE b = '\x81'");
    c.ok(b"INSERT INTO bin (id, b) VALUES (300, '\x82') ON DUPLICATE KEY UPDATE b = '\x83\xff'");
    c.ok(b"SET @v = '\xfe\xfd'");
    c.ok(b"INSERT INTO bin (id, b) VALUES (301, @v)");
    c.ok(b"INSERT INTO bin (id, b) VALUES (302, 'a\xff' 'b\xfe')");
    let got = c.rows(b"SELECT HEX(b), HEX(vb) FROM bin WHERE id IN (1, 300, 301, 302) ORDER BY id");
    let hexes: Vec<String> = got
        .iter()
        .map(|r| String::from_utf8_lossy(r[0].as_deref().unwrap_or(b"")).into_owned())
        .collect();
    assert_eq!(hexes, ["FF00", "83FF", "FEFD", "61FF62FE"]);
    assert_eq!(got[0][1].as_deref(), Some(&b"00FF"[..]));
    assert_eq!(c.one(b"SELECT HEX('\xff\xfe')"), "FFFE");
    assert_eq!(c.one(b"SELECT COUNT(*) FROM bin WHERE b = '\xff\x00'"), "1");
    // Text of other statements survives: a literal in a comment-heavy statement.
    c.ok(b"/* \xff */ INSERT INTO bin (id, b) VALUES /*!40000 (303, '\xf0\x28') */");
    assert_eq!(c.one(b"SELECT HEX(b) FROM bin WHERE id = 303"), "F028");
}

#[test]
fn prepared_statements_keep_bytes() {
    let b = Basalt::start();
    let mut c = Raw::login(b.port);
    c.ok(b"CREATE DATABASE x");
    c.ok(b"USE x");
    c.ok(b"CREATE TABLE p (id INT PRIMARY KEY, b BLOB, t TEXT)");
    // COM_STMT_PREPARE text with a binary literal.
    let mut s = raw_prepare(&mut c, b"INSERT INTO p (id, b) VALUES (?, '\xff\x01')");
    let r = wire::execute(&mut s, 1, 0, &[wire::p_long(1)]);
    assert!(matches!(r, wire::Reply::Ok { .. }), "{r:?}");
    // String parameters: bytes into a BLOB, 1366 into a TEXT (strict by default).
    let mut s = raw_prepare(&mut c, b"INSERT INTO p (id, b, t) VALUES (?, ?, ?)");
    let bad = [0xff, 0xfe, b'x'];
    let r = wire::execute(
        &mut s,
        2,
        0,
        &[
            wire::p_long(2),
            wire::p_str(wire::T_STRING, &bad),
            wire::p_str(wire::T_STRING, b"ok"),
        ],
    );
    assert!(matches!(r, wire::Reply::Ok { .. }), "{r:?}");
    let r = wire::execute(
        &mut s,
        2,
        0,
        &[
            wire::p_long(3),
            wire::p_null(),
            wire::p_str(wire::T_STRING, &bad),
        ],
    );
    let msg = wire::expect_err(r, 1366, "bad bytes into TEXT");
    assert_eq!(
        msg,
        "Incorrect string value: '\\xFF\\xFEx' for column `x`.`p`.`t` at row 1"
    );
    // Long data into a BLOB.
    wire::send_long_data(&mut s, 2, 1, &[0x00, 0x80]);
    wire::send_long_data(&mut s, 2, 1, &[0xff]);
    let r = wire::execute(
        &mut s,
        2,
        0,
        &[
            wire::p_long(4),
            wire::p_str(wire::T_BLOB, b""),
            wire::p_null(),
        ],
    );
    assert!(matches!(r, wire::Reply::Ok { .. }), "{r:?}");
    let rows = c.rows(b"SELECT id, HEX(b), t FROM p ORDER BY id");
    let got: Vec<Vec<Option<String>>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|v| v.as_ref().map(|b| String::from_utf8_lossy(b).into_owned()))
                .collect()
        })
        .collect();
    let s = |v: &str| Some(v.to_string());
    assert_eq!(
        got,
        vec![
            vec![s("1"), s("FF01"), None],
            vec![s("2"), s("FFFE78"), s("ok")],
            vec![s("4"), s("0080FF"), None],
        ]
    );
    // Rows of a statement prepared before SET NAMES latin1 come in latin1.
    c.ok("UPDATE p SET t = 'café' WHERE id = 2".as_bytes());
    let mut s = raw_prepare(&mut c, b"SELECT t FROM p WHERE id = ?");
    c.ok(b"SET NAMES latin1");
    let r = wire::execute(&mut s, 3, 0, &[wire::p_long(2)]);
    let wire::Reply::Rows { rows, .. } = r else {
        panic!("{r:?}")
    };
    assert!(rows[0].ends_with(b"\x04caf\xe9"), "{:?}", rows[0]);
}

/// COM_STMT_PREPARE of raw bytes on connection `c`'s socket (the statement id is
/// the connection's first or next one; `wire` helpers take the socket).
fn raw_prepare(c: &mut Raw, sql: &[u8]) -> TcpStream {
    let s = c.0.try_clone().expect("clone socket");
    let mut p = vec![wire::COM_STMT_PREPARE];
    p.extend_from_slice(sql);
    send_packet(&mut c.0, 0, &p);
    let ok = read_packet(&mut c.0).expect("prepare reply");
    assert_eq!(ok[0], 0, "prepare failed: {}", String::from_utf8_lossy(&ok));
    let params = u16::from_le_bytes([ok[7], ok[8]]) as usize;
    let columns = u16::from_le_bytes([ok[5], ok[6]]) as usize;
    for _ in 0..params {
        read_packet(&mut c.0).expect("param definition");
    }
    if params > 0 {
        read_packet(&mut c.0).expect("param EOF");
    }
    for _ in 0..columns {
        read_packet(&mut c.0).expect("column definition");
    }
    if columns > 0 {
        read_packet(&mut c.0).expect("column EOF");
    }
    s
}

#[test]
fn text_columns_refuse_bytes_that_are_no_characters() {
    let b = Basalt::start();
    let mut c = Raw::login(b.port);
    c.ok(b"CREATE DATABASE x");
    c.ok(b"USE x");
    c.ok(
        b"CREATE TABLE t (id INT PRIMARY KEY, t TEXT, v VARCHAR(10) CHARACTER SET latin1, \
        a VARCHAR(10) CHARACTER SET ascii, m VARCHAR(10) CHARACTER SET utf8mb3)",
    );
    c.ok(b"SET sql_mode = 'STRICT_TRANS_TABLES'");
    let r = c.q(b"INSERT INTO t (id, t) VALUES (1, 'a\xff\xfexyzzzzzzz')");
    assert_eq!(
        r,
        Reply::Err {
            code: 1366,
            state: "22007".into(),
            msg: "Incorrect string value: '\\xFF\\xFExyzz...' for column `x`.`t`.`t` at row 1"
                .into()
        }
    );
    c.ok(b"SET sql_mode = ''");
    c.ok(b"INSERT INTO t (id, t) VALUES (1, 'a\xff\xfex'), (2, 'ok')");
    assert_eq!(
        c.warnings(),
        [(
            "Warning".into(),
            "1366".into(),
            "Incorrect string value: '\\xFF\\xFEx' for column `x`.`t`.`t` at row 1".into()
        )]
    );
    c.ok("INSERT INTO t (id, v, a, m) VALUES (3, '€😀z', 'aéb', 'a😀b')".as_bytes());
    let w = c.warnings();
    assert_eq!(w.len(), 3, "{w:?}");
    assert_eq!(c.one(b"SELECT HEX(t) FROM t WHERE id = 1"), "613F3F78");
    assert_eq!(
        c.one(b"SELECT CONCAT_WS(',', v, a, m) FROM t WHERE id = 3"),
        "€?z,a?b,a?b"
    );
    // A binary string or hex literal is checked the same way.
    c.ok(b"SET sql_mode = 'STRICT_ALL_TABLES'");
    for lit in [&b"_binary'a\xff'"[..], b"x'61ff'"] {
        let r = c.q(&cat(&[b"UPDATE t SET t = ", lit, b" WHERE id = 2"]));
        assert!(
            matches!(&r, Reply::Err { code: 1366, msg, .. } if msg.starts_with("Incorrect string value: '\\xFF'")),
            "{r:?}"
        );
    }
    // Not a column: a quoted identifier that is no UTF-8 (1300), a bare one (1064).
    let r = c.q(b"SELECT 1 AS `a\xffb`");
    assert!(
        matches!(&r, Reply::Err { code: 1300, msg, .. } if msg == "Invalid utf8mb4 character string: 'a\\xFFb'"),
        "{r:?}"
    );
    let r = c.q(b"SELECT _utf8mb4 X'FF'");
    assert!(
        matches!(&r, Reply::Err { code: 1300, msg, .. } if msg == "Invalid utf8mb4 character string: 'FF'"),
        "{r:?}"
    );
    let r = c.q(b"SELECT `_`X'41'");
    assert!(matches!(r, Reply::Err { code: 1064, .. }), "{r:?}");
    // Characters other than hex digits between the quotes of x'...', multi-byte
    // ones too, and quoted names left unterminated at the end of a statement (both
    // once panicked the connection's thread): syntax errors, and the session goes
    // on.
    for sql in [
        "SELECT x'\u{e9}0'",
        "SELECT X'0\u{e9}'",
        "SELECT x'\u{fffd}'",
        "SELECT x'4g'",
        "USE `",
        "SET `\u{e9}",
        "SET @'\u{e9}",
        "SET @\"x\u{e9}",
    ] {
        let r = c.q(sql.as_bytes());
        assert!(matches!(r, Reply::Err { code: 1064, .. }), "{sql}: {r:?}");
    }
    assert_eq!(c.one(b"SELECT HEX(x'41')"), "41");
    // A literal marker is no literal in a client's own text, even when a transcoded
    // statement of the same text was planned before.
    assert_eq!(c.one(b"SELECT HEX(_binary'\xff')"), "FF");
    let r = c.q(b"SELECT HEX(`_binary`X'FF')");
    assert!(matches!(r, Reply::Err { code: 1064, .. }), "{r:?}");
    assert_eq!(
        c.one(b"SELECT HEX(CONVERT(_latin1 X'E9' USING utf8mb4))"),
        "C3A9"
    );
    assert_eq!(c.one(b"SELECT HEX(CONVERT(X'61FF' USING utf8mb4))"), "613F");
}

#[test]
fn latin1_client_bytes_are_latin1_characters() {
    let b = Basalt::start();
    let mut c = Raw::login(b.port);
    c.ok(b"CREATE DATABASE x");
    c.ok(b"USE x");
    c.ok(b"CREATE TABLE u (id INT PRIMARY KEY, t VARCHAR(300))");
    let high: Vec<u8> = (0x80..=0xffu8).collect();
    c.ok(b"SET NAMES latin1");
    c.ok(&cat(&[b"INSERT INTO u VALUES (1, ", &literal(&high), b")"]));
    c.ok(b"CREATE DATABASE caf\xe9");
    // What a latin1 client reads back is its own bytes.
    let r = c.rows(b"SELECT t FROM u");
    assert_eq!(r[0][0].as_deref(), Some(&high[..]));
    assert_eq!(
        c.command(0x02, b"caf\xe9"),
        Reply::Ok {
            affected: 0,
            warnings: 0
        }
    );
    c.ok(b"SET NAMES utf8mb4");
    // Stored as the characters of MariaDB's latin1 (cp1252, undefined bytes as C1).
    let cp1252_80_9f = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
        0x2039, 0x0152, 0x8D, 0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013,
        0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ];
    let want: String = high
        .iter()
        .map(|&b| {
            let cp = if b < 0xa0 {
                cp1252_80_9f[(b - 0x80) as usize]
            } else {
                b as u32
            };
            char::from_u32(cp).expect("scalar")
        })
        .collect();
    assert_eq!(c.one(b"SELECT HEX(t) FROM x.u"), hex(want.as_bytes()));
    assert_eq!(c.one(b"SELECT t FROM x.u"), want);
    assert_eq!(
        c.command(0x02, "café".as_bytes()),
        Reply::Ok {
            affected: 0,
            warnings: 0
        }
    );
}

/// Runs `mariadb --binary-mode` on database `db` with `input` on stdin.
fn mariadb_client(port: u16, db: &str, input: &[u8]) -> (bool, String) {
    mariadb_client_with(port, db, &[], input)
}

/// [`mariadb_client`] with more options.
fn mariadb_client_with(port: u16, db: &str, extra: &[&str], input: &[u8]) -> (bool, String) {
    let mut child = Command::new("mariadb")
        .args(["-h127.0.0.1", "-uroot", "--skip-ssl", "--binary-mode"])
        .args(extra)
        .arg(format!("-P{port}"))
        .arg(db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mariadb");
    let mut stdin = child.stdin.take().expect("stdin");
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().expect("mariadb output");
    let _ = writer.join();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn skip(what: &str) {
    eprintln!("skipped: {what} not installed");
    println!("skipped: {what} not installed");
}

#[test]
fn mariadb_client_binary_mode_round_trip() {
    if which("mariadb").is_none() {
        return skip("mariadb client");
    }
    let b = Basalt::start();
    let mut c = Raw::login(b.port);
    c.ok(b"CREATE DATABASE x");
    let (ok, out) = mariadb_client(
        b.port,
        "x",
        b"CREATE TABLE bl (id INT PRIMARY KEY, b BLOB, n INT);\n\
          SET NAMES binary;\ninsert into bl values (1, '\xff\xfex', 0);\n\
          SET NAMES utf8mb4;\ninsert into bl values (2, '\x00\xc3\x28\\0\xa0\xa1', 1);\n\
          SELECT HEX(b) FROM bl ORDER BY id;\n",
    );
    assert!(ok, "{out}");
    assert!(out.contains("FFFE78\n00C32800A0A1\n"), "{out}");
    c.ok(b"USE x");
    assert_eq!(c.one(b"SELECT HEX(b) FROM bl WHERE id = 2"), "00C32800A0A1");
    // The character set of the client's handshake is the connection's.
    let (ok, out) = mariadb_client_with(
        b.port,
        "x",
        &["--default-character-set=latin1"],
        b"CREATE TABLE u (id INT PRIMARY KEY, t TEXT, b BLOB);\n\
          INSERT INTO u VALUES (1, 'caf\xe9 \x80', 'caf\xe9');\n\
          SELECT @@character_set_client, @@collation_connection, t FROM u;\n",
    );
    assert!(ok, "{out}");
    assert!(
        out.contains("latin1\tlatin1_swedish_ci\tcaf\u{FFFD} \u{FFFD}"),
        "{out}"
    );
    assert_eq!(c.one(b"SELECT t FROM u"), "café €");
    assert_eq!(c.one(b"SELECT HEX(b) FROM u"), "636166E9");
}

#[test]
fn mariadb_dump_round_trip_without_hex_blob() {
    if which("mariadb-dump").is_none() || which("mariadb").is_none() {
        return skip("mariadb-dump");
    }
    let b = Basalt::start();
    let mut c = Raw::login(b.port);
    c.ok(b"CREATE DATABASE src");
    c.ok(b"CREATE DATABASE dst");
    c.ok(b"USE src");
    fill_bin(&mut c);
    // The default dump.
    let out = Command::new("mariadb-dump")
        .args(["-h127.0.0.1", "-uroot", "--skip-ssl"])
        .arg(format!("-P{}", b.port))
        .arg("src")
        .output()
        .expect("run mariadb-dump");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dump = out.stdout;
    assert!(
        dump.windows(3).any(|w| w == b"\xfd\xfe\xff"),
        "the dump holds raw bytes, not hex"
    );
    let (ok, text) = mariadb_client(b.port, "dst", &dump);
    assert!(ok, "{text}");
    check_bin(&mut c, "dst");
    assert_eq!(
        c.one(
            b"SELECT COUNT(*) FROM src.bin s JOIN dst.bin d ON s.id = d.id \
            WHERE s.b = d.b AND s.vb = d.vb AND s.bb = d.bb AND s.t <=> d.t"
        ),
        "256"
    );
}

#[test]
fn mydumper_myloader_round_trip() {
    if which("mydumper").is_none() || which("myloader").is_none() {
        return skip("mydumper/myloader");
    }
    let b = Basalt::start();
    let mut c = Raw::login(b.port);
    c.ok(b"CREATE DATABASE src");
    c.ok(b"USE src");
    fill_bin(&mut c);
    c.ok(b"CREATE TABLE l1 (id INT PRIMARY KEY, l VARCHAR(200) CHARACTER SET latin1)");
    let high: Vec<u8> = (0x80..=0xffu8).collect();
    c.ok(b"SET NAMES latin1");
    c.ok(&cat(&[
        b"INSERT INTO l1 VALUES (1, ",
        &literal(&high[..100]),
        b")",
    ]));
    c.ok(b"SET NAMES utf8mb4");
    let dir = tempfile::tempdir().expect("tempdir");
    let port = b.port.to_string();
    let dump = dir.path().join("dump");
    let out = Command::new("mydumper")
        .args([
            "-h",
            "127.0.0.1",
            "-u",
            "root",
            "-P",
            &port,
            "-B",
            "src",
            "-o",
        ])
        .arg(&dump)
        .output()
        .expect("run mydumper");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new("myloader")
        .args([
            "-h",
            "127.0.0.1",
            "-u",
            "root",
            "-P",
            &port,
            "-B",
            "dst",
            "-d",
        ])
        .arg(&dump)
        .output()
        .expect("run myloader");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    check_bin(&mut c, "dst");
    // mydumper reads and writes under SET NAMES binary: latin1 text as its bytes.
    assert_eq!(
        c.one(b"SELECT COUNT(*) FROM src.l1 s JOIN dst.l1 d ON s.id = d.id WHERE s.l = d.l"),
        "1"
    );
    assert_eq!(c.one(b"SELECT HEX(l) FROM dst.l1"), hex(&high[..100]));
}

#[test]
fn pymysql_raw_bytes() {
    let has = Command::new("python3")
        .args(["-c", "import pymysql"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has {
        return skip("python3 with PyMySQL");
    }
    let b = Basalt::start();
    let out = Command::new("python3")
        .current_dir(workspace_root().join("tests/drivers/python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .args(["bytes_driver.py", &b.port.to_string()])
        .output()
        .expect("run bytes_driver.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("OK pymysql bytes"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Statements whose replies, warnings and stored bytes must be MariaDB's.
fn differential_script() -> Vec<Vec<u8>> {
    let mut s: Vec<Vec<u8>> = vec![
        b"CREATE TABLE t (id INT PRIMARY KEY, t TEXT, vc VARCHAR(5), c CHAR(3), \
          l VARCHAR(10) CHARACTER SET latin1, a VARCHAR(10) CHARACTER SET ascii, \
          m VARCHAR(10) CHARACTER SET utf8mb3, b BLOB, vb VARBINARY(10))"
            .to_vec(),
    ];
    let values: [&[u8]; 14] = [
        b"'a\xff\xfexyzzzzzzz'",
        b"'ab\xc3'",
        b"'\xe2\x82x'",
        b"'\xf0\x9f\x98x'",
        b"'\xed\xa0\x80x'",
        b"'\xc0\x80x'",
        b"'\xf4\x90\x80\x80x'",
        b"'\x80\x80x'",
        "'€😀z'".as_bytes(),
        "'aéb'".as_bytes(),
        b"_binary'a\xff'",
        b"x'61ff'",
        "'ok ✓'".as_bytes(),
        b"'toolong\xff'",
    ];
    for mode in ["STRICT_TRANS_TABLES", ""] {
        s.push(format!("SET sql_mode = '{mode}'").into_bytes());
        s.push(b"DELETE FROM t".to_vec());
        let mut id = 0;
        for col in ["t", "vc", "c", "l", "a", "m", "b", "vb"] {
            for v in values {
                // MariaDB copies a binary string's bytes into an ascii column
                // unchecked; Basalt holds ascii text as UTF-8 and refuses them.
                if col == "a" && (v.starts_with(b"_binary") || v.starts_with(b"x'")) {
                    continue;
                }
                id += 1;
                s.push(cat(&[
                    format!("INSERT INTO t (id, {col}) VALUES ({id}, ").as_bytes(),
                    v,
                    b")",
                ]));
            }
        }
        s.push(b"INSERT INTO t (id, t) VALUES (1000, 'ok'), (1001, 'x\xff'), (1002, 'y')".to_vec());
        s.push(b"UPDATE t SET vc = 'q\xfe' WHERE id = 1000".to_vec());
        s.push(b"INSERT INTO t (id, c, vc) VALUES (1003, 'ab   ', 'abcde   ')".to_vec());
        s.push(
            b"INSERT INTO t (id, t) VALUES (1000, 'z') ON DUPLICATE KEY UPDATE t = 'w\xfe'"
                .to_vec(),
        );
        s.push(
            b"INSERT INTO t (id, l, t, b) SELECT id + 2000, b, b, t FROM t \
              WHERE id IN (1, 1000, 1003)"
                .to_vec(),
        );
        s.push(
            b"SELECT id, HEX(t), HEX(vc), HEX(c), HEX(l), LENGTH(l), HEX(a), HEX(m), HEX(b), \
              HEX(vb) FROM t ORDER BY id"
                .to_vec(),
        );
    }
    // A latin1 client, and a binary one.
    s.push(b"DELETE FROM t".to_vec());
    s.push(b"SET NAMES latin1".to_vec());
    let high: Vec<u8> = (0x80..=0xffu8).collect();
    s.push(cat(&[
        b"INSERT INTO t (id, t, b) VALUES (1, ",
        &literal(&high),
        b", ",
        &literal(&high),
        b")",
    ]));
    s.push(b"SELECT t, b FROM t WHERE id = 1".to_vec());
    s.push(cat(&[
        b"INSERT INTO t (id, l, vb) VALUES (3, ",
        &literal(&high[96..106]),
        b", 'x')",
    ]));
    s.push(
        b"SELECT 'caf\xe9', HEX('caf\xe9'), LENGTH('\xe9'), HEX(_latin1'\xe9'), \
          HEX(_utf8mb4'\xc3\xa9')"
            .to_vec(),
    );
    s.push(b"SET NAMES binary".to_vec());
    s.push(b"INSERT INTO t (id, t, b) VALUES (2, '\xc3\xa9\xff', '\xff\xfex')".to_vec());
    // mydumper writes every table under SET NAMES binary: latin1 text as its bytes.
    s.push(b"INSERT INTO t (id, l, t) VALUES (4, 'caf\xe9 \x80', 'caf\xc3\xa9')".to_vec());
    // ... and reads them back as the columns' own bytes.
    s.push(b"SELECT id, l, t, b FROM t ORDER BY id".to_vec());
    s.push(b"SET NAMES utf8mb4".to_vec());
    s.push(b"SELECT id, HEX(t), t, HEX(b), l, HEX(l) FROM t ORDER BY id".to_vec());
    // (Warnings are sent in UTF-8 whatever character_set_results says.)
    s.push(
        b"SELECT l, HEX(l), LENGTH(l), CAST(l AS BINARY), HEX(CAST(l AS BINARY(2))) \
          FROM t WHERE id = 3"
            .to_vec(),
    );
    // Defaults.
    s.push(
        b"CREATE TABLE dd (id INT PRIMARY KEY, b VARBINARY(10) DEFAULT '\xff\xfe', \
          h VARBINARY(4) DEFAULT X'4142', t VARCHAR(10) DEFAULT _latin1'caf\xe9', \
          u VARCHAR(10) DEFAULT 'caf\xc3\xa9')"
            .to_vec(),
    );
    s.push(b"INSERT INTO dd (id) VALUES (1)".to_vec());
    s.push(b"SELECT HEX(b), HEX(h), t, u FROM dd".to_vec());
    // As dumps write around their rows (MariaDB notes that InnoDB ignores it).
    s.push(b"ALTER TABLE t DISABLE KEYS".to_vec());
    s.push(b"CREATE TABLE k (id INT PRIMARY KEY, v INT, KEY (v))".to_vec());
    s.push(b"ALTER TABLE k DISABLE KEYS".to_vec());
    s.push(b"CREATE TABLE km (id INT PRIMARY KEY, v INT, KEY (v)) ENGINE=MEMORY".to_vec());
    s.push(b"ALTER TABLE km DISABLE KEYS".to_vec());
    s.push(b"ALTER TABLE d.t ENABLE KEYS".to_vec());
    s.push(b"ALTER TABLE nosuch DISABLE KEYS".to_vec());
    // Expressions and names.
    for e in [
        &b"SELECT HEX('\xff'), HEX(_binary'\xfe'), HEX(_utf8mb4'\xc3\xa9')"[..],
        b"SELECT HEX(CONVERT(x'61ff' USING utf8mb4)), HEX(CONVERT('\xe2\x82\xac\xf0\x9f\x98\x80' USING latin1))",
        b"SELECT HEX(CONVERT(_latin1 x'e9' USING utf8mb4))",
        b"SELECT _utf8mb4 x'ff'",
        b"SELECT 1 AS `a\xffb`",
        b"SELECT 'a\xffb', _binary'c\xffd'",
    ] {
        s.push(e.to_vec());
    }
    s
}

#[test]
#[ignore = "needs mariadb-server"]
fn differential_string_bytes() {
    if !mariadb::available() {
        return skip("mariadb-server");
    }
    let m = MariaDb::start(&[]);
    let b = Basalt::start();
    let mut sides: Vec<Raw> = [m.port, b.port].iter().map(|&p| Raw::login(p)).collect();
    for c in &mut sides {
        c.ok(b"CREATE DATABASE d");
        c.ok(b"USE d");
        c.ok(b"CREATE TABLE w (a INT)");
    }
    for stmt in differential_script() {
        let shown = String::from_utf8_lossy(&stmt).into_owned();
        let got: Vec<(Reply, Vec<Warning>)> = sides
            .iter_mut()
            .map(|c| {
                // MariaDB keeps the last diagnostics across statements that use no
                // table and raise none; a statement on a table clears them on both.
                c.rows(b"SELECT a FROM w");
                let r = c.q(&stmt);
                (r, c.warnings())
            })
            .collect();
        assert_eq!(
            got[1], got[0],
            "Basalt (left) differs from MariaDB (right) for {shown}"
        );
    }
    differential_prepared(&mut sides);
}

/// String parameters of COM_STMT_EXECUTE and long data, into BLOB and TEXT, under
/// strict and non-strict sql_mode and a latin1 client.
fn differential_prepared(sides: &mut [Raw]) {
    let t = |ty: u8, v: &[u8]| wire::p_str(ty, v);
    // (statement to run, or parameters of an execute and long data for the BLOB)
    type Case<'a> = (&'a [u8], Vec<wire::Param>, Option<&'a [u8]>);
    let cases: Vec<Case> = vec![
        (b"SET sql_mode = 'STRICT_ALL_TABLES'", vec![], None),
        (
            b"",
            vec![
                wire::p_long(1),
                t(wire::T_STRING, b"\xff\xfe"),
                t(wire::T_STRING, b"ok"),
            ],
            None,
        ),
        (
            b"",
            vec![
                wire::p_long(2),
                wire::p_null(),
                t(wire::T_STRING, b"a\xffb"),
            ],
            None,
        ),
        (
            b"",
            vec![wire::p_long(3), wire::p_null(), t(wire::T_BLOB, b"a\xffb")],
            None,
        ),
        (
            b"",
            vec![wire::p_long(4), t(wire::T_BLOB, b""), wire::p_null()],
            Some(b"\x00\xff\x80"),
        ),
        (b"SET sql_mode = ''", vec![], None),
        (
            b"",
            vec![
                wire::p_long(5),
                wire::p_null(),
                t(wire::T_VAR_STRING, b"a\xffb"),
            ],
            None,
        ),
        (b"SET NAMES latin1", vec![], None),
        (
            b"",
            vec![
                wire::p_long(6),
                t(wire::T_STRING, b"\xe9"),
                t(wire::T_STRING, b"caf\xe9"),
            ],
            None,
        ),
        (
            b"",
            vec![
                // (A latin1 client's BLOB-typed parameter into a text column is
                // latin1 text in Basalt, bytes checked as UTF-8 in MariaDB.)
                wire::p_long(7),
                t(wire::T_BLOB, b"\xe9"),
                wire::p_null(),
            ],
            None,
        ),
        (b"SET NAMES utf8mb4", vec![], None),
    ];
    let mut ids = Vec::new();
    for c in sides.iter_mut() {
        c.ok(b"CREATE TABLE p (id INT PRIMARY KEY, b BLOB, t TEXT)");
        ids.push(raw_prepare(c, b"INSERT INTO p VALUES (?, ?, ?)"));
    }
    for (i, (sql, params, long)) in cases.iter().enumerate() {
        let mut got = Vec::new();
        for (c, s) in sides.iter_mut().zip(ids.iter_mut()) {
            if !sql.is_empty() {
                c.ok(sql);
                continue;
            }
            if let Some(data) = long {
                wire::send_long_data(s, 1, 1, data);
            }
            let r = format!("{:?}", wire::execute(s, 1, 0, params));
            got.push((r, c.warnings()));
        }
        if got.len() == 2 {
            assert_eq!(
                got[1], got[0],
                "prepared INSERT, case {i}: Basalt (left), MariaDB (right)"
            );
        }
    }
    let rows: Vec<_> = sides
        .iter_mut()
        .map(|c| c.rows(b"SELECT id, HEX(b), HEX(t) FROM p ORDER BY id"))
        .collect();
    assert_eq!(
        rows[1], rows[0],
        "prepared rows: Basalt (left), MariaDB (right)"
    );
}
