//! Mutated statements never panic the front end: every rewrite keeps its edits
//! in order whatever the text (a panic here would close the client's connection
//! with no error).

use super::{analyze_with, split, Front, LitOpts};

/// Statements of every shape the front end rewrites.
const CORPUS: &[&str] = &[
    include_str!("../../../../tests/data/functions.sql"),
    include_str!("../../../../tests/data/json_table.sql"),
    include_str!("../../../../tests/data/partitions.sql"),
    include_str!("../../../../tests/data/seed-ddl.sql"),
    "UPDATE t1, t2 SET t1.a = !t2.b WHERE x || y; DELETE t1.*, t2.* FROM t1, t2 WHERE 0b101 MOD 2;
     SELECT a FROM t LOCK IN SHARE MODE; SELECT INTERVAL(1, 2, 3), DATE_ADD(d, INTERVAL '1:2' HOUR_MINUTE);
     SELECT EXTRACT(YEAR_MONTH FROM d), CHAR(65 USING utf8mb4), WEIGHT_STRING('a' AS CHAR(3));
     SELECT NEXT VALUE FOR s, PREVIOUS VALUE FOR s; ALTER TABLE t DROP KEY k, ADD c INT AS (a) PERSISTENT;
     CREATE TABLE t (a INT) ENGINE = InnoDB; UPDATE LOW_PRIORITY IGNORE t SET a = 1;
     DELETE QUICK FROM t1.* USING t1 JOIN t2; EXPLAIN UPDATE t1, t2 SET a = 1",
];

/// Fragments spliced into statements: the words and operators rewrites key on.
const PIECES: &[&str] = &[
    "!",
    ",",
    "(",
    ")",
    "'",
    "\"",
    "`",
    "||",
    "0b1",
    "0x1f",
    "INTERVAL",
    "INTERVAL(",
    "MOD",
    "LOCK IN SHARE MODE",
    "NEXT VALUE FOR",
    "EXTRACT(",
    "CHAR(",
    "USING",
    "WEIGHT_STRING(",
    "DROP KEY",
    "UPDATE ",
    "DELETE ",
    "IGNORE",
    "QUICK",
    ".*",
    "SET",
    "FROM",
    "USING",
    "?",
    ";",
    "/*!",
    "*/",
    "--",
    "#",
    "\\",
    "_latin1'x'",
    "N'",
    "@",
    "é",
    "\u{fffd}",
    " ",
    "AS",
    "PERSISTENT",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One random change: a fragment inserted, a range deleted, or a byte replaced.
fn mutate(rng: &mut Rng, s: &mut Vec<u8>) {
    let at = rng.below(s.len() + 1);
    match rng.below(3) {
        0 => {
            let piece = PIECES[rng.below(PIECES.len())].as_bytes();
            s.splice(at..at, piece.iter().copied());
        }
        1 => {
            let end = (at + rng.below(8)).min(s.len());
            s.drain(at..end);
        }
        _ if at < s.len() => s[at] = rng.next() as u8,
        _ => {}
    }
}

fn exercise(text: &str) {
    for (backslash, pipes) in [(true, false), (false, true)] {
        let opts = LitOpts {
            backslash,
            markers: false,
            pipes_as_concat: pipes,
        };
        if let Ok(Front::Cached(s)) = analyze_with(text, opts) {
            let _ = (s.original(), s.parse_text());
        }
    }
}

fn run(seed: u64, rounds: usize) {
    let statements: Vec<&str> = CORPUS
        .iter()
        .flat_map(|c| split(c).into_iter().map(|p| p.text))
        .collect();
    let mut rng = Rng(seed);
    for _ in 0..rounds {
        let mut s = statements[rng.below(statements.len())].as_bytes().to_vec();
        for _ in 0..=rng.below(4) {
            mutate(&mut rng, &mut s);
        }
        let text = String::from_utf8_lossy(&s);
        let caught = std::panic::catch_unwind(|| exercise(&text));
        assert!(caught.is_ok(), "the front end panicked on {text:?}");
    }
}

#[test]
fn mutated_statements_never_panic_the_front_end() {
    run(0x9e37_79b9_7f4a_7c15, 20_000);
}

/// A longer run with a seed from the environment (`BASALT_FRONT_SEED`).
#[test]
#[ignore = "long; run by hand with BASALT_FRONT_SEED"]
fn mutated_statements_long_run() {
    let seed = std::env::var("BASALT_FRONT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    run(seed, 2_000_000);
}
