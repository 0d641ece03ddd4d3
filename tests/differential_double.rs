//! Differential test of floating-point literals: 100,000 random DOUBLE and FLOAT
//! literals (positional and exponent forms, negative numbers, many digits, tiny and
//! huge magnitudes, subnormals, decimal values halfway between two FLOATs) are
//! inserted into DOUBLE and FLOAT columns of basaltd and MariaDB, then read back
//! through the text protocol (how values print) and the binary protocol (the stored
//! bits), and also selected as expressions (`literal + 0e0`, exponent literals).
//!
//! Literals are batched into multi-row INSERTs and wide SELECTs so the test runs in
//! seconds. It is seeded (`BASALT_DOUBLE_SEED=N` reruns a case); a failure names the
//! seed, the row's literal and both answers.

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::prelude::*;
use mysql::{Conn, Opts, Value};

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn digits(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b'0' + self.below(10) as u8))
            .collect()
    }
}

const LITERALS: usize = 100_000;
const ROWS_PER_INSERT: usize = 1000;
const COLUMNS_PER_SELECT: usize = 500;

/// One random literal text; `float_ok` says whether it lies within FLOAT's range.
fn literal(rng: &mut Rng) -> (String, bool) {
    let sign = if rng.below(3) == 0 { "-" } else { "" };
    let text = match rng.below(8) {
        // Positional, 1-25 significant digits, point anywhere.
        0..=2 => {
            let n = 1 + rng.below(25) as usize;
            let digits = rng.digits(n);
            let point = rng.below(n as u64 + 1) as usize;
            let (int, frac) = digits.split_at(point);
            let int = if int.is_empty() { "0" } else { int };
            if frac.is_empty() {
                int.to_string()
            } else {
                format!("{int}.{frac}")
            }
        }
        // Leading zeros after the point.
        3 => {
            let zeros = "0".repeat(rng.below(20) as usize);
            let n = 1 + rng.below(18) as usize;
            format!("0.{zeros}{}", rng.digits(n))
        }
        // Exponent form over the whole double range.
        4 | 5 => {
            let n = 1 + rng.below(20) as usize;
            let d = rng.digits(n);
            let exp = rng.below(616) as i64 - 308;
            let (a, b) = d.split_at(1);
            let a = if a == "0" { "1" } else { a };
            let e = if rng.below(2) == 0 { "e" } else { "E" };
            if b.is_empty() {
                format!("{a}{e}{exp}")
            } else {
                format!("{a}.{b}{e}{exp}")
            }
        }
        // Near a FLOAT rounding boundary: halfway between two adjacent floats,
        // nudged by a few units of the 20th digit.
        6 => {
            let x = f32::from_bits((rng.below(0x7F00_0000) as u32) | 1);
            let y = f32::from_bits(x.to_bits() + 1);
            let mid = (x as f64 + y as f64) / 2.0;
            let s = format!("{mid:.19e}");
            let (m, e) = s.split_once('e').expect("exponent form");
            let nudge = rng.below(3) as i64 - 1;
            let last = (m.as_bytes()[m.len() - 1] - b'0') as i64;
            let digit = (last + nudge).clamp(0, 9);
            format!("{}{digit}e{e}", &m[..m.len() - 1])
        }
        // Extremes: subnormals, the largest values, integers beyond 64 bits.
        _ => match rng.below(6) {
            0 => format!("{}e-{}", 1 + rng.below(9), 310 + rng.below(14)),
            1 => "1.7976931348623157e308".into(),
            2 => format!("3.40282{}e38", rng.digits(3)),
            3 => {
                let n = 20 + rng.below(30) as usize;
                rng.digits(n)
            }
            4 => format!("1.{}e-45", rng.digits(3)),
            _ => format!("{}e{}", rng.digits(17), rng.below(20)),
        },
    };
    let v: f64 = text.parse().expect("literal parses");
    (format!("{sign}{text}"), v.abs() <= f32::MAX as f64)
}

fn conn(url: &str) -> Conn {
    Conn::new(Opts::from_url(url).expect("url")).expect("connect")
}

fn text(v: &Value) -> String {
    match v {
        Value::NULL => "NULL".into(),
        Value::Bytes(b) if b == b"-0" && !mariadb::is_reference() => "0".into(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        other => format!("{other:?}"),
    }
}

/// Zero for negative zero unless the oracle is the reference MariaDB release: some
/// 10.11 patch releases keep the sign of a FLOAT that underflows to zero.
fn zero_sign<T: PartialEq + Default + Copy>(x: T) -> T {
    if x == T::default() && !mariadb::is_reference() {
        T::default()
    } else {
        x
    }
}

/// Bits of a binary-protocol value (FLOAT as its f32 bits).
fn bits(v: &Value) -> String {
    match v {
        Value::Double(d) => {
            let d = zero_sign(*d);
            format!("double {:016x} ({d:e})", d.to_bits())
        }
        Value::Float(f) => {
            let f = zero_sign(*f);
            format!("float {:08x} ({f:e})", f.to_bits())
        }
        other => format!("{other:?}"),
    }
}

struct Pair {
    b: Conn,
    m: Conn,
    seed: u64,
}

impl Pair {
    fn both(&mut self, sql: &str) {
        for c in [&mut self.b, &mut self.m] {
            c.query_drop(sql)
                .unwrap_or_else(|e| panic!("seed {}: {e}\n{}", self.seed, &sql[..200]));
        }
    }

    fn rows(&mut self, sql: &str) -> (Vec<mysql::Row>, Vec<mysql::Row>) {
        let run = |c: &mut Conn| {
            c.query::<mysql::Row, _>(sql)
                .unwrap_or_else(|e| panic!("{e}: {}", &sql[..sql.len().min(200)]))
        };
        (run(&mut self.b), run(&mut self.m))
    }
}

fn case(p: &mut Pair, seed: u64) {
    let mut rng = Rng(seed);
    let lits: Vec<(String, bool)> = (0..LITERALS).map(|_| literal(&mut rng)).collect();
    p.both("drop table if exists t");
    p.both("create table t (id int primary key, d double, f float)");
    for (chunk_no, chunk) in lits.chunks(ROWS_PER_INSERT).enumerate() {
        let values: Vec<String> = chunk
            .iter()
            .enumerate()
            .map(|(i, (lit, float_ok))| {
                let id = chunk_no * ROWS_PER_INSERT + i;
                // Every 16th value is sent as a string, which converts at run time.
                let d = if id % 16 == 5 {
                    format!("'{lit}'")
                } else {
                    lit.clone()
                };
                let f = if *float_ok { d.as_str() } else { "NULL" };
                format!("({id},{d},{f})")
            })
            .collect();
        p.both(&format!("insert into t values {}", values.join(",")));
    }
    let describe = |id: usize| format!("seed {seed}, row {id}, literal {}", lits[id].0);
    // Text protocol: printed values of the stored DOUBLE and FLOAT, and of the
    // FLOAT widened to DOUBLE (which prints every stored bit).
    let (b, m) = p.rows("select id, d, f, f + 0e0 from t order by id");
    assert_eq!(b.len(), m.len(), "seed {seed}: row counts");
    for (rb, rm) in b.iter().zip(&m) {
        let (vb, vm): (Vec<String>, Vec<String>) = (
            rb.clone().unwrap().iter().map(text).collect(),
            rm.clone().unwrap().iter().map(text).collect(),
        );
        let id: usize = vm[0].parse().expect("id");
        assert_eq!(vb, vm, "{} (id, d, f, f + 0e0)", describe(id));
    }
    // Binary protocol: the stored bits.
    let sql = "select id, d, f from t where id between ? and ? order by id";
    let run = |c: &mut Conn| -> Vec<mysql::Row> {
        c.exec(sql, (0, LITERALS as i64)).expect("binary select")
    };
    let (b, m) = (run(&mut p.b), run(&mut p.m));
    for (rb, rm) in b.iter().zip(&m) {
        let (vb, vm): (Vec<String>, Vec<String>) = (
            rb.clone().unwrap().iter().map(bits).collect(),
            rm.clone().unwrap().iter().map(bits).collect(),
        );
        let id: usize = rm.get::<i64, _>(0).expect("id") as usize;
        assert_eq!(vb, vm, "{} (binary protocol)", describe(id));
    }
    // Expressions: each literal converted to DOUBLE (`+ 0e0`), and exponent
    // literals as they are, in wide SELECTs.
    for (n, chunk) in lits.chunks(COLUMNS_PER_SELECT).enumerate() {
        let items: Vec<String> = chunk
            .iter()
            .map(|(lit, _)| {
                if lit.contains(['e', 'E']) {
                    lit.clone()
                } else {
                    format!("{lit} + 0e0")
                }
            })
            .collect();
        let (b, m) = p.rows(&format!("select {}", items.join(", ")));
        let (vb, vm): (Vec<String>, Vec<String>) = (
            b[0].clone().unwrap().iter().map(text).collect(),
            m[0].clone().unwrap().iter().map(text).collect(),
        );
        for (i, (x, y)) in vb.iter().zip(&vm).enumerate() {
            assert_eq!(
                x,
                y,
                "{} (as an expression)",
                describe(n * COLUMNS_PER_SELECT + i)
            );
        }
    }
}

#[test]
#[ignore = "needs mariadb-server; run by .ci/run"]
fn double_and_float_literals_match_mariadb() {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let basalt = Basalt::start();
    let maria = MariaDb::start(&["--innodb-flush-log-at-trx-commit=2"]);
    let seed = match std::env::var("BASALT_DOUBLE_SEED") {
        Ok(s) => s.parse().expect("BASALT_DOUBLE_SEED is a number"),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock after 1970")
            .as_nanos() as u64,
    };
    eprintln!("differential_double: seed {seed}");
    let mut p = Pair {
        b: conn(&basalt.url()),
        m: conn(&maria.url()),
        seed,
    };
    p.both("create database dbl");
    p.both("use dbl");
    case(&mut p, seed);
}
