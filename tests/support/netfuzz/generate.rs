//! Packet generators of the network fuzzer: a plausible packet for each command
//! (statement text from seeds, token soup or raw bytes; statement ids the server
//! handed out; parameter values of every binary type), and byte-level mutations.
//!
//! Never generated: CLIENT_LOCAL_FILES, CLIENT_SSL and CLIENT_COMPRESS in the
//! capabilities of a session the fuzzer keeps (their exchanges need a real client);
//! statements that wait on purpose (SLEEP, GET_LOCK with a timeout); character sets
//! whose digits are not ASCII for results (the marker row would not match).

use super::{Rng, Target};

/// Capability bits: PROTOCOL_41 and the ones a login without them cannot use are
/// always set, the rest at random; CONNECT_WITH_DB (0x8) is the caller's choice.
pub fn client_caps(rng: &mut Rng) -> u32 {
    const ALWAYS: u32 = 0x1 | 0x200 | 0x8000 | 0x80000 | 0x2000;
    const OPTIONAL: [u32; 13] = [
        0x2,        // FOUND_ROWS
        0x4,        // LONG_FLAG
        0x10,       // NO_SCHEMA
        0x40,       // ODBC
        0x100,      // IGNORE_SPACE
        0x400,      // INTERACTIVE
        0x1_0000,   // MULTI_STATEMENTS
        0x2_0000,   // MULTI_RESULTS
        0x4_0000,   // PS_MULTI_RESULTS
        0x10_0000,  // CONNECT_ATTRS
        0x20_0000,  // PLUGIN_AUTH_LENENC_CLIENT_DATA
        0x80_0000,  // SESSION_TRACK
        0x100_0000, // DEPRECATE_EOF
    ];
    OPTIONAL
        .iter()
        .filter(|_| rng.one_in(2))
        .fold(ALWAYS, |c, bit| c | bit)
}

/// A HandshakeResponse41 for the fuzzing account (empty password) under `caps`.
pub fn handshake_response(rng: &mut Rng, t: &Target, caps: u32) -> Vec<u8> {
    let mut p = caps.to_le_bytes().to_vec();
    p.extend_from_slice(&(16u32 << 20).to_le_bytes());
    p.push(*rng.pick(&[45u8, 33, 8, 63, 224]));
    p.extend_from_slice(&[0u8; 23]);
    p.extend_from_slice(t.user.as_bytes());
    p.push(0);
    p.push(0); // empty auth response (length 0 in either encoding)
    if caps & 0x8 != 0 {
        p.extend_from_slice(t.db.as_bytes());
        p.push(0);
    }
    p.extend_from_slice(b"mysql_native_password\0");
    if caps & 0x10_0000 != 0 {
        let mut attrs = Vec::new();
        for (k, v) in [("_client_name", "netfuzz"), ("_pid", "1")] {
            lenenc_str(&mut attrs, k.as_bytes());
            lenenc_str(&mut attrs, v.as_bytes());
        }
        lenenc_str(&mut p, &attrs);
    }
    p
}

/// One command packet's payload (command byte first).
pub fn command(rng: &mut Rng, t: &Target, own_id: u32, stmts: &[(u32, u16)]) -> Vec<u8> {
    // (weight, command byte); 0xff stands for "an unknown command byte".
    const WEIGHTS: [(usize, u8); 25] = [
        (30, 0x03), // QUERY
        (8, 0x16),  // STMT_PREPARE
        (14, 0x17), // STMT_EXECUTE
        (5, 0x18),  // STMT_SEND_LONG_DATA
        (4, 0x1c),  // STMT_FETCH
        (2, 0x1a),  // STMT_RESET
        (3, 0x19),  // STMT_CLOSE
        (3, 0x02),  // INIT_DB
        (3, 0x04),  // FIELD_LIST
        (3, 0x11),  // CHANGE_USER
        (2, 0x1b),  // SET_OPTION
        (2, 0x0e),  // PING
        (1, 0x09),  // STATISTICS
        (1, 0x0d),  // DEBUG
        (1, 0x07),  // REFRESH
        (3, 0x0c),  // PROCESS_KILL
        (2, 0x08),  // SHUTDOWN
        (1, 0x12),  // BINLOG_DUMP
        (1, 0x1e),  // BINLOG_DUMP_GTID
        (2, 0x15),  // REGISTER_SLAVE
        (2, 0x1f),  // RESET_CONNECTION
        (1, 0x01),  // QUIT
        (1, 0x00),  // SLEEP (a server-internal command)
        (3, 0xff),  // unknown
        (2, 0xfe),  // random bytes
    ];
    let total: usize = WEIGHTS.iter().map(|w| w.0).sum();
    let mut roll = rng.below(total);
    let code = WEIGHTS
        .iter()
        .find(|(w, _)| {
            if roll < *w {
                return true;
            }
            roll -= w;
            false
        })
        .map_or(0x03, |w| w.1);
    let mut p = vec![code];
    match code {
        0x03 | 0x16 => p.extend(sql(rng, t, own_id, code == 0x16)),
        0x17 => execute(rng, &mut p, stmts),
        0x18 => {
            p.extend(stmt_id(rng, stmts).to_le_bytes());
            let params = stmts.last().map_or(2, |s| s.1 as usize);
            let param = match rng.below(4) {
                0 => rng.next_u64() as u16,
                _ => rng.below(params + 2) as u16,
            };
            p.extend(param.to_le_bytes());
            let n = if rng.one_in(40) {
                256 << 10
            } else {
                rng.below(600)
            };
            p.extend(rng.bytes(n));
        }
        0x1c => {
            p.extend(stmt_id(rng, stmts).to_le_bytes());
            p.extend(interesting_u32(rng).to_le_bytes());
        }
        0x19 | 0x1a => p.extend(stmt_id(rng, stmts).to_le_bytes()),
        0x02 => p.extend(schema_name(rng, t)),
        0x04 => {
            p.extend(table_name(rng));
            if !rng.one_in(5) {
                p.push(0);
            }
            const WILDCARDS: [&[u8]; 5] = [b"", b"%", b"a%", b"_", b"\xff%"];
            p.extend_from_slice(WILDCARDS[rng.below(WILDCARDS.len())]);
        }
        0x11 => change_user(rng, &mut p, t),
        0x1b => {
            let v: u16 = *rng.pick(&[0, 1, 0, 1, 2, 0xffff]);
            p.extend(&v.to_le_bytes()[..if rng.one_in(8) { 1 } else { 2 }]);
        }
        0x07 => p.push(rng.next_u64() as u8),
        0x0c => {
            let id = match rng.below(6) {
                0 => own_id,
                1 | 2 => *rng.pick(&t.protected_ids),
                3 => own_id.wrapping_sub(1 + rng.below(3) as u32),
                _ => interesting_u32(rng),
            };
            p.extend(id.to_le_bytes());
        }
        0x08 if rng.one_in(2) => p.push(*rng.pick(&[0u8, 1, 2, 8, 16, 0xfe, 0xff])),
        0x12 => binlog_dump(rng, &mut p, t),
        0x15 => register_slave(rng, &mut p),
        0x1e => p.extend(rng.bytes_between(0, 64)),
        0xff => {
            p[0] = *rng.pick(&[0x05u8, 0x06, 0x0a, 0x0b, 0x0f, 0x10, 0x13, 0x14, 0x1d]);
            if rng.one_in(2) {
                p[0] = 0x20 + rng.below(0xe0) as u8;
            }
            p.extend(rng.bytes_between(0, 32));
        }
        0xfe => p = rng.bytes_between(0, 80),
        _ => {
            if rng.one_in(6) {
                p.extend(rng.bytes_between(1, 8));
            }
        }
    }
    p
}

/// A statement id: mostly one the server gave out, sometimes anything.
fn stmt_id(rng: &mut Rng, stmts: &[(u32, u16)]) -> u32 {
    match rng.below(10) {
        0 => interesting_u32(rng),
        1 => 0xffff_ffff, // MariaDB's "the last prepared statement"
        2 => rng.below(20) as u32,
        _ if !stmts.is_empty() => rng.pick(stmts).0,
        _ => 1 + rng.below(4) as u32,
    }
}

fn interesting_u32(rng: &mut Rng) -> u32 {
    match rng.below(4) {
        0 => *rng.pick(&[
            0,
            1,
            2,
            0x7f,
            0xff,
            0xffff,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
        ]),
        1 => rng.below(100) as u32,
        _ => rng.next_u64() as u32,
    }
}

/// Binary parameter types (and a few codes that are none).
const TYPES: [u8; 28] = [
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0f, 0x10,
    0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff, 0x11,
];

/// COM_STMT_EXECUTE after the command byte.
fn execute(rng: &mut Rng, p: &mut Vec<u8>, stmts: &[(u32, u16)]) {
    let known = (!stmts.is_empty() && !rng.one_in(6)).then(|| *rng.pick(stmts));
    let (id, params) = match known {
        Some((id, n)) => (id, n as usize),
        None => (stmt_id(rng, stmts), rng.below(6)),
    };
    let params = if rng.one_in(10) {
        rng.below(params + 3)
    } else {
        params
    };
    p.extend(id.to_le_bytes());
    p.push(*rng.pick(&[0u8, 0, 0, 1, 1, 2, 4, 8, 0x80]));
    p.extend(
        if rng.one_in(10) {
            interesting_u32(rng)
        } else {
            1
        }
        .to_le_bytes(),
    );
    if params == 0 {
        return;
    }
    let mut bitmap = vec![0u8; params.div_ceil(8)];
    for (i, b) in bitmap.iter_mut().enumerate() {
        if rng.one_in(4) {
            *b = rng.next_u64() as u8;
        } else if rng.one_in(6) {
            *b = 1 << rng.below(8.min(params - i * 8));
        }
    }
    p.extend_from_slice(&bitmap);
    let send_types = !rng.one_in(8);
    p.push(u8::from(send_types));
    let types: Vec<u8> = (0..params).map(|_| *rng.pick(&TYPES)).collect();
    if send_types {
        for &ty in &types {
            p.push(ty);
            p.push(if rng.one_in(4) { 0x80 } else { 0 });
        }
    }
    for (i, &ty) in types.iter().enumerate() {
        if bitmap[i / 8] & (1 << (i % 8)) == 0 {
            value(rng, p, ty);
        }
    }
}

/// One binary-protocol value of type `ty`, usually well formed.
fn value(rng: &mut Rng, p: &mut Vec<u8>, ty: u8) {
    let int: u64 = match rng.below(3) {
        0 => *rng.pick(&[
            0,
            1,
            u64::MAX,
            i64::MAX as u64,
            i64::MIN as u64,
            1 << 31,
            255,
            128,
        ]),
        _ => rng.next_u64(),
    };
    match ty {
        0x01 => p.push(int as u8),
        0x02 | 0x0d => p.extend(&int.to_le_bytes()[..2]),
        0x03 | 0x09 => p.extend(&int.to_le_bytes()[..4]),
        0x04 => p.extend((*rng.pick(&[0.0f32, -1.5, f32::NAN, f32::INFINITY, 1e38])).to_le_bytes()),
        0x05 => {
            p.extend((*rng.pick(&[0.0f64, -0.0, 2.5e-308, f64::NAN, 1e308, -1e300])).to_le_bytes())
        }
        0x08 => p.extend(int.to_le_bytes()),
        0x06 => {}
        0x07 | 0x0a | 0x0c => {
            let len = *rng.pick(&[0usize, 4, 7, 11, 11, 7, 3, 12]);
            p.push(len as u8);
            let mut b = rng.bytes(len);
            if len >= 4 && rng.one_in(2) {
                b[..4].copy_from_slice(&[
                    0xe8,
                    0x07,
                    1 + rng.below(12) as u8,
                    1 + rng.below(28) as u8,
                ]);
            }
            p.extend(b);
        }
        0x0b => {
            let len = *rng.pick(&[0usize, 8, 12, 12, 5]);
            p.push(len as u8);
            p.extend(rng.bytes(len));
        }
        0xf6 | 0x00 => {
            let text = *rng.pick(&[
                &b"1.5"[..],
                b"-0.000001",
                b"99999999999999999999999999999999999999999999999999999999999999999",
                b"1e400",
                b"1E2000000000",
                b"-1e-2147483648",
                b"abc",
                b"",
                b"-",
                b".",
            ]);
            lenenc_str(p, text);
        }
        _ => {
            if rng.one_in(10) {
                // A length prefix promising more than follows.
                p.push(*rng.pick(&[0xfcu8, 0xfd, 0xfe, 0xfb, 0xff]));
                p.extend(rng.bytes_between(0, 9));
            } else {
                let n = if rng.one_in(30) {
                    70_000
                } else {
                    rng.below(300)
                };
                let data = rng.bytes(n);
                lenenc_str(p, &data);
            }
        }
    }
}

fn change_user(rng: &mut Rng, p: &mut Vec<u8>, t: &Target) {
    let user: &[u8] = match rng.below(5) {
        0 => b"root",
        1 => b"",
        2 => b"nosuchuser",
        _ => t.user.as_bytes(),
    };
    p.extend_from_slice(user);
    p.push(0);
    let auth_len = *rng.pick(&[0usize, 0, 20, 32, 255]);
    p.push(auth_len as u8);
    // Sometimes fewer bytes than the length says.
    let sent = auth_len.min(if rng.one_in(5) { 3 } else { 255 });
    p.extend(rng.bytes(sent));
    p.extend(schema_name(rng, t));
    p.push(0);
    if rng.one_in(4) {
        return;
    }
    p.extend(rng.pick(&[45u16, 33, 8, 63, 0, 0xffff]).to_le_bytes());
    const PLUGINS: [&[u8]; 5] = [
        b"mysql_native_password",
        b"caching_sha2_password",
        b"",
        b"mysql_clear_password",
        b"\xff\xfe",
    ];
    let plugin = PLUGINS[rng.below(PLUGINS.len())];
    p.extend_from_slice(plugin);
    p.push(0);
    if rng.one_in(2) {
        let mut attrs = Vec::new();
        lenenc_str(&mut attrs, b"_client_name");
        lenenc_str(&mut attrs, &rng.bytes_between(0, 40));
        let mut total = attrs.len();
        if rng.one_in(4) {
            total += rng.below(300);
        }
        lenenc_int(p, total as u64);
        p.extend(attrs);
    }
}

fn binlog_dump(rng: &mut Rng, p: &mut Vec<u8>, t: &Target) {
    p.extend((*rng.pick(&[4u32, 4, 0, 1, 120, 0xffff_ffff])).to_le_bytes());
    // BINLOG_DUMP_NON_BLOCK mostly: a blocking dump waits for the next event.
    let flags: u16 = if rng.one_in(10) {
        rng.next_u64() as u16 | 1
    } else {
        1
    };
    p.extend(flags.to_le_bytes());
    p.extend((1000 + rng.below(1000) as u32).to_le_bytes());
    match rng.below(4) {
        0 => p.extend(rng.bytes_between(0, 20)),
        1 => p.extend_from_slice(b"../../etc/passwd"),
        _ => p.extend_from_slice(t.binlog_file.as_bytes()),
    }
}

fn register_slave(rng: &mut Rng, p: &mut Vec<u8>) {
    p.extend((rng.next_u64() as u32).to_le_bytes());
    for _ in 0..3 {
        let n = rng.below(20);
        let claimed = if rng.one_in(6) { 255 } else { n };
        p.push(claimed as u8);
        p.extend(rng.bytes(n));
    }
    p.extend((rng.next_u64() as u16).to_le_bytes());
    p.extend(0u32.to_le_bytes());
    p.extend(interesting_u32(rng).to_le_bytes());
}

fn schema_name(rng: &mut Rng, t: &Target) -> Vec<u8> {
    match rng.below(9) {
        0 => b"guard".to_vec(),
        1 => b"mysql".to_vec(),
        2 => b"information_schema".to_vec(),
        3 => b"nosuchdb".to_vec(),
        4 => Vec::new(),
        5 => rng.bytes_between(0, 70),
        6 => vec![b'd'; 300],
        _ => t.db.as_bytes().to_vec(),
    }
}

fn table_name(rng: &mut Rng) -> Vec<u8> {
    match rng.below(6) {
        0 => b"nosuch".to_vec(),
        1 => rng.bytes_between(0, 70),
        2 => b"t2".to_vec(),
        3 => b"../kept".to_vec(),
        _ => b"t1".to_vec(),
    }
}

/// COM_STMT_PREPARE of a statement with parameters, as it is.
pub fn clean_prepare(rng: &mut Rng, t: &Target, own_id: u32) -> Vec<u8> {
    let mut p = vec![0x16];
    p.extend(expand(rng, t, own_id, PREPARE_SEEDS));
    p
}

/// A seed from `list` with its placeholders filled in.
fn expand(rng: &mut Rng, t: &Target, own_id: u32, list: &[&str]) -> Vec<u8> {
    let other = *rng.pick(&t.protected_ids);
    rng.pick(list)
        .replace("{self}", &own_id.to_string())
        .replace("{other}", &other.to_string())
        .replace("{db}", &t.db)
        .into_bytes()
}

/// Statement text: a seed as it is (mostly: statements that run reach further),
/// a mutated seed, a few seeds as one multi-statement, token soup, or raw bytes.
/// COM_STMT_PREPARE mostly gets statements with parameters.
fn sql(rng: &mut Rng, t: &Target, own_id: u32, prepare: bool) -> Vec<u8> {
    let seed = |rng: &mut Rng, with_params: bool| {
        let list = if with_params {
            PREPARE_SEEDS
        } else {
            SQL_SEEDS
        };
        expand(rng, t, own_id, list)
    };
    let roll = rng.below(20);
    if prepare && roll < 14 {
        return seed(rng, true);
    }
    match roll {
        0..=8 => seed(rng, false),
        9..=12 => {
            let mut s = seed(rng, false);
            mutate_text(rng, &mut s);
            s
        }
        13..=16 => {
            let mut s = seed(rng, false);
            for _ in 0..1 + rng.below(3) {
                s.push(b';');
                s.extend(seed(rng, false));
            }
            s
        }
        17 | 18 => token_soup(rng),
        _ => rng.bytes_between(0, 120),
    }
}

const CREATE_T1: &str = "CREATE TABLE IF NOT EXISTS t1 (id INT AUTO_INCREMENT PRIMARY KEY, \
     a INT, b VARCHAR(64), c DOUBLE, d DATETIME, e BLOB, KEY (a))";
const CREATE_T2: &str =
    "CREATE TABLE IF NOT EXISTS t2 (k VARCHAR(32) PRIMARY KEY, v TEXT, n BIGINT UNSIGNED)";

/// The fuzzing database and its tables, after a fuzzed statement dropped it.
pub fn restore_db(t: &Target) -> Vec<String> {
    vec![
        format!("CREATE DATABASE IF NOT EXISTS {}", t.db),
        format!("USE {}", t.db),
        CREATE_T1.to_string(),
        CREATE_T2.to_string(),
    ]
}

/// Statements on the fuzzing database, and ones the account is not allowed.
const SQL_SEEDS: &[&str] = &[
    "SELECT * FROM t1 ORDER BY id LIMIT 20",
    "SELECT a, COUNT(*), SUM(c), GROUP_CONCAT(b) FROM t1 GROUP BY a WITH ROLLUP",
    "SELECT t1.id, t2.v FROM t1 LEFT JOIN t2 ON t2.k = t1.b WHERE t1.a BETWEEN -5 AND 50",
    "SELECT id, ROW_NUMBER() OVER (PARTITION BY a ORDER BY id), LAG(c) OVER (ORDER BY id) FROM t1",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 50) SELECT SUM(n) FROM r",
    "SELECT * FROM t1 WHERE b IN (SELECT k FROM t2) OR a = (SELECT MAX(a) FROM t1)",
    "SELECT JSON_EXTRACT('{\"a\": [1, 2, {\"b\": null}]}', '$.a[2].b'), JSON_OBJECT('k', 1.5e300)",
    "SELECT * FROM JSON_TABLE('[1, 2, 3]', '$[*]' COLUMNS (x INT PATH '$')) AS j",
    "SELECT CAST('2024-02-30 25:61:61' AS DATETIME), CAST(-1 AS UNSIGNED), CAST('x' AS DECIMAL(65,30))",
    "SELECT CONVERT(_latin1 x'ff' USING utf8mb4), HEX(_binary 'abc'), CHAR(0xff, 0x00 USING utf8mb4)",
    "SELECT REPEAT('ab', 5000), LPAD('x', 300, 'yz'), SUBSTRING('hello', -3, 2), REVERSE(NULL)",
    "SELECT 18446744073709551615 + 1, -9223372036854775808 - 1, 1 / 0, 10 DIV 0, MOD(5, 0)",
    "SELECT CAST('1e2000000000' AS DECIMAL(30,2)), CAST('-1e-2147483648' AS DECIMAL), 1e308 * 10",
    "SELECT 'a' REGEXP '(((a)))*b?', 'abc' LIKE '%b%' ESCAPE '|', SOUNDEX('Robert')",
    "SELECT DATE_ADD('9999-12-31', INTERVAL 1 DAY), STR_TO_DATE('31/12/2024', '%d/%m/%Y')",
    "SELECT GREATEST(1, 'a', NULL), COALESCE(NULL, 2), IF(a > 3, b, c) FROM t1 LIMIT 5",
    "SELECT @@version, @@sql_mode, @@max_allowed_packet, CONNECTION_ID(), USER(), DATABASE()",
    "INSERT INTO t1 (a, b, c, d, e) VALUES (1, 'x', 1.5, NOW(), x'00ff'), (NULL, NULL, NULL, NULL, NULL)",
    "INSERT INTO t1 (a, b) SELECT a + 1, CONCAT(b, 'y') FROM t1 ORDER BY id LIMIT 3",
    "INSERT INTO t2 VALUES ('k1', 'v', 1) ON DUPLICATE KEY UPDATE n = n + 1",
    "REPLACE INTO t2 (k, v, n) VALUES ('k2', REPEAT('z', 200), 18446744073709551615)",
    "UPDATE t1 SET a = a + 1, b = LEFT(CONCAT(b, 'u'), 60) WHERE id % 3 = 0 ORDER BY id LIMIT 5",
    "DELETE FROM t1 WHERE id > 40 ORDER BY id DESC LIMIT 2",
    "DELETE FROM t2 WHERE k LIKE 'k%' LIMIT 1 RETURNING k",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "SAVEPOINT s1",
    "ROLLBACK TO SAVEPOINT s1",
    "START TRANSACTION READ ONLY",
    "SET autocommit = 0",
    "SET autocommit = 1",
    "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
    "SET sql_mode = 'ANSI_QUOTES,NO_BACKSLASH_ESCAPES'",
    "SET sql_mode = DEFAULT",
    "SET NAMES latin1",
    "SET NAMES utf8mb4 COLLATE utf8mb4_bin",
    "SET @v = REPEAT('q', 1000), @w = 1.5, @x = NULL",
    "SET SESSION max_statement_time = 1",
    "SET STATEMENT max_statement_time = 1 FOR SELECT COUNT(*) FROM t1 a, t1 b",
    "PREPARE p1 FROM 'SELECT ? + 1'",
    "EXECUTE p1 USING @w",
    "DEALLOCATE PREPARE p1",
    "EXPLAIN SELECT * FROM t1 WHERE a = 3",
    "ANALYZE FORMAT=JSON SELECT * FROM t1 JOIN t2",
    "SHOW TABLES",
    "SHOW CREATE TABLE t1",
    "SHOW FULL PROCESSLIST",
    "SHOW GRANTS",
    "SHOW VARIABLES LIKE 'max%'",
    "SHOW STATUS LIKE 'Threads%'",
    "SHOW WARNINGS",
    "SHOW BINLOG EVENTS LIMIT 5",
    "SELECT * FROM information_schema.TABLES WHERE TABLE_SCHEMA = '{db}'",
    "DESCRIBE t2",
    CREATE_T1,
    CREATE_T2,
    "CREATE TABLE IF NOT EXISTS t3 (x DECIMAL(30,10), y ENUM('a','b'), z SET('p','q'), w BIT(5), u JSON)",
    "CREATE TEMPORARY TABLE tmp1 AS SELECT * FROM t1 LIMIT 5",
    "CREATE OR REPLACE VIEW v1 AS SELECT a, b FROM t1 WHERE a > 2",
    "SELECT * FROM v1",
    "ALTER TABLE t3 ADD COLUMN extra INT DEFAULT 7",
    "ALTER TABLE t1 ADD INDEX ib (b)",
    "DROP TABLE IF EXISTS t3",
    "DROP VIEW IF EXISTS v1",
    "TRUNCATE TABLE t2",
    "LOCK TABLES t1 READ",
    "UNLOCK TABLES",
    "DO RELEASE_ALL_LOCKS()",
    "USE {db}",
    "USE guard",
    "SELECT * FROM guard.kept",
    "UPDATE guard.kept SET v = 'fuzzed'",
    "DROP DATABASE guard",
    "DROP DATABASE {db}",
    "CREATE DATABASE IF NOT EXISTS {db}",
    "KILL {other}",
    "KILL QUERY {other}",
    "KILL {self}",
    "SHUTDOWN",
    "SET GLOBAL max_connections = 1",
    "SET GLOBAL read_only = ON",
    "FLUSH TABLES",
    "GRANT ALL ON *.* TO CURRENT_USER()",
    "CREATE USER evil@'%'",
    "ALTER USER root@localhost IDENTIFIED BY ''",
    "SELECT * FROM mysql.user",
    "SELECT 1 INTO OUTFILE '/tmp/basalt-netfuzz-out'",
    "LOAD DATA LOCAL INFILE '/etc/hostname' INTO TABLE t2",
    "HANDLER t1 OPEN",
    "XA START 'x'",
    "RESET MASTER",
    "STOP SLAVE",
];

/// Statements with parameters for COM_STMT_PREPARE.
const PREPARE_SEEDS: &[&str] = &[
    "SELECT ?",
    "SELECT ? + ?, CONCAT(?, 'x'), ? IS NULL",
    "INSERT INTO t1 (a, b, c, d, e) VALUES (?, ?, ?, ?, ?)",
    "UPDATE t1 SET b = ? WHERE id = ?",
    "SELECT * FROM t1 WHERE a > ? ORDER BY id LIMIT 10",
    "SELECT id, b FROM t1 WHERE b LIKE ?",
    "DELETE FROM t2 WHERE k = ?",
    "REPLACE INTO t2 VALUES (?, ?, ?)",
    "SELECT * FROM t1",
    "SELECT CAST(? AS DATETIME), CAST(? AS DECIMAL(10,3)), CAST(? AS SIGNED), CAST(? AS TIME)",
    "SELECT ? FROM t1 a JOIN t2 b ON a.b = b.k",
    "SET @x = ?",
    "DO ?",
    "SELECT * FROM t1 WHERE id IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "SELECT JSON_EXTRACT(?, ?)",
    "CALL nosuch(?)",
];

/// Whole tokens of MySQL's grammar, strung together at random.
fn token_soup(rng: &mut Rng) -> Vec<u8> {
    const TOKENS: &[&str] = &[
        "SELECT",
        "FROM",
        "WHERE",
        "t1",
        "t2",
        "a",
        "b",
        "id",
        "(",
        ")",
        ",",
        "*",
        "+",
        "-",
        "/",
        "=",
        "<=>",
        "AND",
        "OR",
        "NOT",
        "NULL",
        "1",
        "0",
        "-1",
        "1e308",
        "'x'",
        "''",
        "x'ff'",
        "b'101'",
        "@v",
        "@@sql_mode",
        "?",
        "JOIN",
        "ON",
        "GROUP BY",
        "ORDER BY",
        "LIMIT",
        "UNION",
        "INSERT INTO",
        "VALUES",
        "UPDATE",
        "SET",
        "DELETE",
        "CASE",
        "WHEN",
        "THEN",
        "END",
        "CAST(",
        "AS",
        "CHAR",
        "SIGNED",
        "OVER",
        "PARTITION BY",
        "WITH",
        "IN",
        "EXISTS",
        "LIKE",
        "REGEXP",
        "BETWEEN",
        "INTERVAL",
        "DAY",
        ";",
        "`",
        "\"",
        "/*",
        "*/",
        "#",
        "-- ",
        "\\",
        "COLLATE",
        "utf8mb4_bin",
        "_latin1",
        "N'x'",
        "DISTINCT",
        "HAVING",
        "RETURNING",
        "FOR UPDATE",
        "LOCK IN SHARE MODE",
        "JSON_TABLE(",
        "COLUMNS",
        "PATH",
        "18446744073709551616",
        "9.99999999999999999999e-400",
        "CREATE",
        "TABLE",
        "INDEX",
    ];
    let n = 1 + rng.below(25);
    let mut out = Vec::new();
    for i in 0..n {
        if i > 0 && !rng.one_in(8) {
            out.push(b' ');
        }
        out.extend_from_slice(rng.pick(TOKENS).as_bytes());
    }
    out
}

/// Text-level changes that keep most of a statement's shape.
fn mutate_text(rng: &mut Rng, s: &mut Vec<u8>) {
    const SPLICE: &[&str] = &[
        "0",
        "-1",
        "NULL",
        "''",
        "18446744073709551616",
        "1e309",
        "'\\'",
        "(",
        ")",
        ",",
        "*",
        "x'00'",
        "/*!50000 1*/",
        "\u{fffd}",
        "\0",
        "99999999999999999999999999999999999999",
    ];
    for _ in 0..1 + rng.below(3) {
        if s.is_empty() {
            s.extend_from_slice(rng.pick(SPLICE).as_bytes());
            continue;
        }
        let at = rng.below(s.len());
        match rng.below(5) {
            0 => {
                let end = (at + 1 + rng.below(8)).min(s.len());
                s.drain(at..end);
            }
            1 => {
                let t = rng.pick(SPLICE).as_bytes().to_vec();
                s.splice(at..at, t);
            }
            2 => {
                let end = (at + 1 + rng.below(16)).min(s.len());
                let chunk = s[at..end].to_vec();
                s.splice(at..at, chunk);
            }
            3 => s.truncate(at),
            _ => s[at] = *rng.pick(b"'\"`()\\;,.0 9%_\xff\xc3"),
        }
    }
}

/// Byte-level mutations of a whole payload (the command byte included, rarely).
pub fn mutate(rng: &mut Rng, p: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(3) {
        let at = if p.len() > 1 && !rng.one_in(20) {
            1 + rng.below(p.len() - 1)
        } else {
            rng.below(p.len().max(1))
        };
        match rng.below(7) {
            0 if !p.is_empty() => p[at] ^= 1 << rng.below(8),
            1 if !p.is_empty() => {
                p[at] = *rng.pick(&[0u8, 0xff, 0xfb, 0xfc, 0xfd, 0xfe, 0x7f, 0x80])
            }
            2 => p.truncate(at.max(usize::from(!rng.one_in(10)))),
            3 => {
                let b = rng.bytes_between(1, 8);
                let at = at.min(p.len());
                p.splice(at..at, b);
            }
            4 => p.extend(rng.bytes_between(1, 64)),
            5 if p.len() >= at + 4 => {
                let v = interesting_u32(rng).to_le_bytes();
                p[at..at + 4].copy_from_slice(&v);
            }
            _ => {
                if let Some(b) = p.get_mut(at) {
                    *b = b.wrapping_add(1 + rng.below(3) as u8);
                }
            }
        }
    }
}

fn lenenc_int(out: &mut Vec<u8>, n: u64) {
    if n < 251 {
        out.push(n as u8);
    } else if n < 1 << 16 {
        out.push(0xfc);
        out.extend_from_slice(&(n as u16).to_le_bytes());
    } else if n < 1 << 24 {
        out.push(0xfd);
        out.extend_from_slice(&(n as u32).to_le_bytes()[..3]);
    } else {
        out.push(0xfe);
        out.extend_from_slice(&n.to_le_bytes());
    }
}

fn lenenc_str(out: &mut Vec<u8>, s: &[u8]) {
    lenenc_int(out, s.len() as u64);
    out.extend_from_slice(s);
}
