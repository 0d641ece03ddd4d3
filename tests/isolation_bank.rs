//! Whole-server isolation workloads over TCP, with many sessions at once:
//!
//! - a bank: concurrent transfers between accounts (locking reads, relative updates
//!   and, under snapshot isolation, absolute writes from consistent reads; both lock
//!   orders, so deadlocks happen), retried on 1213, 1205 and 1020, beside readers
//!   whose snapshot must always add up to the total and agree with the ledger of
//!   transfers it sees; at the end the ledger, the balances and the clients' counts
//!   of commits and deadlocks must agree with the server;
//! - a list-append history (Jepsen's Elle workload): random transactions of reads
//!   (by primary key, secondary index or range) and appends, recorded and checked
//!   offline by `isolation_checker.rs` for the anomalies the isolation level forbids.
//!
//! Each runs on the durable engine and on MEMORY, under REPEATABLE READ and READ
//! COMMITTED (and list-append under classic REPEATABLE READ, snapshot isolation
//! off); the `#[ignore]`d tests run the same against MariaDB (InnoDB only: MariaDB's
//! MEMORY engine locks whole tables). Loads are bounded in count and time.

#[path = "isolation_common.rs"]
mod common;

#[path = "isolation_checker.rs"]
mod checker;

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use checker::{History, Level, Op, Outcome, Txn};
use common::{connect, run};
use mysql::Conn;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// splitmix64: a small deterministic generator (seeded per session).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Errors after which a client retries the transaction: deadlock, lock wait timeout,
/// snapshot-isolation conflict.
const RETRYABLE: [u16; 3] = [1213, 1205, 1020];

fn must(conn: &mut Conn, sql: &str) -> Vec<Vec<String>> {
    run(conn, sql).unwrap_or_else(|e| panic!("{sql}: error {e}"))
}

fn int(rows: &[Vec<String>], what: &str) -> i64 {
    assert_eq!(rows.len(), 1, "{what}: {rows:?}");
    rows[0][0]
        .parse()
        .unwrap_or_else(|_| panic!("{what}: {rows:?}"))
}

fn global_status(conn: &mut Conn, name: &str) -> u64 {
    let rows = must(conn, &format!("SHOW GLOBAL STATUS LIKE '{name}'"));
    assert_eq!(rows.len(), 1, "{name}: {rows:?}");
    rows[0][1].parse().expect("a number")
}

// ---------------------------------------------------------------------------
// Bank transfers
// ---------------------------------------------------------------------------

/// How a transfer reads and writes the balances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `SELECT ... FOR UPDATE` of both, then absolute values: correct at any level,
    /// since a locking read sees the latest committed version.
    LockingRead,
    /// `UPDATE ... SET balance = balance - x`: correct at any level.
    Relative,
    /// Consistent reads of both, then absolute values: correct only under snapshot
    /// isolation (a write of a row changed since the snapshot fails with 1020);
    /// classic REPEATABLE READ and READ COMMITTED lose updates this way.
    SnapshotRead,
}

#[derive(Clone)]
struct Bank {
    /// Server URL (`mysql://root@host:port/`).
    url: String,
    engine: &'static str,
    /// Isolation level of the writers.
    isolation: &'static str,
    accounts: u64,
    initial: i64,
    writers: usize,
    transfers: usize,
    /// Accounts `0..hot` take half the transfers, so lock cycles form.
    hot: u64,
    /// Include [`Mode::SnapshotRead`] transfers.
    snapshot_writes: bool,
    seed: u64,
    cap: Duration,
}

#[derive(Debug, Default)]
struct BankResult {
    committed: u64,
    insufficient: u64,
    abandoned: u64,
    retries: BTreeMap<u16, u64>,
    snapshot_checks: u64,
    statement_checks: u64,
    deadlocks: u64,
}

impl Bank {
    fn new(url: String, engine: &'static str, isolation: &'static str, seed: u64) -> Bank {
        Bank {
            url,
            engine,
            isolation,
            accounts: 20,
            initial: 100,
            writers: 8,
            transfers: 40,
            hot: 3,
            snapshot_writes: false,
            seed,
            cap: Duration::from_secs(25),
        }
    }

    fn db_url(&self) -> String {
        basalt_tests::url_with_db(&self.url, "isol")
    }

    fn total(&self) -> i64 {
        self.accounts as i64 * self.initial
    }

    /// One transfer attempt: `Ok(true)` committed, `Ok(false)` refused for lack of
    /// funds (rolled back), `Err(errno)` failed (the caller rolls back).
    fn transfer(
        &self,
        c: &mut Conn,
        mode: Mode,
        (from, to): (u64, u64),
        amount: i64,
        id: u64,
    ) -> Result<bool, u16> {
        run(c, "START TRANSACTION")?;
        if mode != Mode::Relative {
            let lock = if mode == Mode::LockingRead {
                " FOR UPDATE"
            } else {
                ""
            };
            let balance = |c: &mut Conn, acct: u64| -> Result<i64, u16> {
                let rows = run(
                    c,
                    &format!("SELECT balance FROM acct WHERE id = {acct}{lock}"),
                )?;
                Ok(int(&rows, "balance"))
            };
            let bf = balance(c, from)?;
            let bt = balance(c, to)?;
            if bf < amount {
                run(c, "ROLLBACK")?;
                return Ok(false);
            }
            run(
                c,
                &format!(
                    "UPDATE acct SET balance = {} WHERE id = {from}",
                    bf - amount
                ),
            )?;
            run(
                c,
                &format!("UPDATE acct SET balance = {} WHERE id = {to}", bt + amount),
            )?;
        } else {
            run(
                c,
                &format!(
                    "UPDATE acct SET balance = balance - {amount} \
                     WHERE id = {from} AND balance >= {amount}"
                ),
            )?;
            if c.affected_rows() == 0 {
                run(c, "ROLLBACK")?;
                return Ok(false);
            }
            run(
                c,
                &format!("UPDATE acct SET balance = balance + {amount} WHERE id = {to}"),
            )?;
            assert_eq!(c.affected_rows(), 1, "credit of account {to}");
        }
        run(
            c,
            &format!("INSERT INTO ledger VALUES ({id}, {from}, {to}, {amount})"),
        )?;
        run(c, "COMMIT")?;
        Ok(true)
    }

    fn writer(&self, w: usize, deadline: Instant) -> Result<BankResult, String> {
        let mut c = connect(&self.db_url());
        must(
            &mut c,
            &format!("SET SESSION TRANSACTION ISOLATION LEVEL {}", self.isolation),
        );
        must(&mut c, "SET SESSION innodb_lock_wait_timeout = 3");
        let mut rng = Rng(self.seed * 1000 + w as u64);
        let mut res = BankResult::default();
        for i in 0..self.transfers {
            if Instant::now() > deadline {
                break;
            }
            let pick = |rng: &mut Rng| {
                if rng.below(2) == 0 {
                    let a = rng.below(self.hot);
                    (a, (a + 1 + rng.below(self.hot - 1)) % self.hot)
                } else {
                    let a = rng.below(self.accounts);
                    (a, (a + 1 + rng.below(self.accounts - 1)) % self.accounts)
                }
            };
            let accounts = pick(&mut rng);
            let amount = 1 + rng.below(60) as i64;
            let mode = match rng.below(if self.snapshot_writes { 3 } else { 2 }) {
                0 => Mode::LockingRead,
                1 => Mode::Relative,
                _ => Mode::SnapshotRead,
            };
            let id = (w as u64) * 1_000_000 + i as u64;
            loop {
                match self.transfer(&mut c, mode, accounts, amount, id) {
                    Ok(true) => {
                        res.committed += 1;
                        break;
                    }
                    Ok(false) => {
                        res.insufficient += 1;
                        break;
                    }
                    Err(e) if RETRYABLE.contains(&e) => {
                        *res.retries.entry(e).or_insert(0) += 1;
                        run(&mut c, "ROLLBACK").map_err(|e| format!("rollback: {e}"))?;
                        if Instant::now() > deadline {
                            res.abandoned += 1;
                            break;
                        }
                    }
                    Err(e) => {
                        return Err(format!(
                            "writer {w}: transfer {accounts:?} ({mode:?}) failed with {e}"
                        ))
                    }
                }
            }
        }
        Ok(res)
    }

    /// Consistent-read transactions under REPEATABLE READ: the sum, every balance
    /// read on its own, a scan, and the ledger, all from one snapshot, all agreeing.
    fn snapshot_reader(&self, done: &AtomicBool, deadline: Instant) -> Result<u64, String> {
        let mut c = connect(&self.db_url());
        must(
            &mut c,
            "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
        );
        let total = self.total();
        let mut checks = 0;
        let mut round = 0u64;
        while !done.load(Ordering::SeqCst) && Instant::now() < deadline {
            round += 1;
            let q = |c: &mut Conn, sql: &str| -> Result<Vec<Vec<String>>, String> {
                run(c, sql).map_err(|e| format!("snapshot reader: {sql}: error {e}"))
            };
            q(
                &mut c,
                if round.is_multiple_of(2) {
                    "START TRANSACTION WITH CONSISTENT SNAPSHOT"
                } else {
                    "START TRANSACTION READ ONLY"
                },
            )?;
            let first = q(&mut c, "SELECT SUM(balance), COUNT(*) FROM acct")?;
            let mut points = Vec::new();
            for a in 0..self.accounts {
                let rows = q(&mut c, &format!("SELECT balance FROM acct WHERE id = {a}"))?;
                points.push(int(&rows, "balance"));
            }
            let ledger = q(&mut c, "SELECT src, dst, amount FROM ledger")?;
            let scan = q(&mut c, "SELECT balance FROM acct ORDER BY id")?;
            let last = q(&mut c, "SELECT SUM(balance) FROM acct")?;
            q(&mut c, "COMMIT")?;

            let fail = |what: String| Err(format!("snapshot reader, round {round}: {what}"));
            if first[0] != [total.to_string(), self.accounts.to_string()] {
                return fail(format!("SUM, COUNT = {:?}, expected {total}", first[0]));
            }
            if points.iter().sum::<i64>() != total {
                return fail(format!("point reads {points:?} do not sum to {total}"));
            }
            let scanned: Vec<i64> = scan.iter().map(|r| r[0].parse().unwrap()).collect();
            if scanned != points {
                return fail(format!("scan {scanned:?} != point reads {points:?}"));
            }
            if int(&last, "sum") != total {
                return fail(format!("second SUM = {:?}", last));
            }
            let mut expected = vec![self.initial; self.accounts as usize];
            for r in &ledger {
                let (src, dst, amount): (usize, usize, i64) = (
                    r[0].parse().unwrap(),
                    r[1].parse().unwrap(),
                    r[2].parse().unwrap(),
                );
                expected[src] -= amount;
                expected[dst] += amount;
            }
            if expected != points {
                return fail(format!(
                    "balances {points:?} disagree with the {} transfers in the same snapshot ({expected:?})",
                    ledger.len()
                ));
            }
            checks += 1;
        }
        Ok(checks)
    }

    /// Single statements under READ COMMITTED (autocommit): each sees one snapshot.
    fn statement_reader(&self, done: &AtomicBool, deadline: Instant) -> Result<u64, String> {
        let mut c = connect(&self.db_url());
        must(
            &mut c,
            "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
        );
        let mut checks = 0;
        while !done.load(Ordering::SeqCst) && Instant::now() < deadline {
            let rows = run(&mut c, "SELECT SUM(balance) FROM acct")
                .map_err(|e| format!("statement reader: error {e}"))?;
            if int(&rows, "sum") != self.total() {
                return Err(format!("statement reader: SUM = {rows:?}"));
            }
            checks += 1;
            std::thread::sleep(Duration::from_millis(2));
        }
        Ok(checks)
    }

    /// Sets up, runs writers and readers, checks the end state; panics on any
    /// violation.
    fn run(self) -> BankResult {
        let mut admin = connect(&self.url);
        must(&mut admin, "CREATE DATABASE IF NOT EXISTS isol");
        must(&mut admin, "USE isol");
        must(&mut admin, "DROP TABLE IF EXISTS acct, ledger");
        must(
            &mut admin,
            &format!(
                "CREATE TABLE acct (id INT PRIMARY KEY, balance INT NOT NULL) ENGINE={}",
                self.engine
            ),
        );
        must(
            &mut admin,
            &format!(
                "CREATE TABLE ledger (id BIGINT PRIMARY KEY, src INT NOT NULL, \
                 dst INT NOT NULL, amount INT NOT NULL) ENGINE={}",
                self.engine
            ),
        );
        let values: Vec<String> = (0..self.accounts)
            .map(|a| format!("({a}, {})", self.initial))
            .collect();
        must(
            &mut admin,
            &format!("INSERT INTO acct VALUES {}", values.join(", ")),
        );
        let deadlocks_before = global_status(&mut admin, "Innodb_deadlocks");

        let deadline = Instant::now() + self.cap;
        let done = Arc::new(AtomicBool::new(false));
        let this = Arc::new(self);
        let writers: Vec<_> = (0..this.writers)
            .map(|w| {
                let this = this.clone();
                std::thread::spawn(move || this.writer(w, deadline))
            })
            .collect();
        let snap = {
            let (this, done) = (this.clone(), done.clone());
            std::thread::spawn(move || this.snapshot_reader(&done, deadline))
        };
        let stmt = {
            let (this, done) = (this.clone(), done.clone());
            std::thread::spawn(move || this.statement_reader(&done, deadline))
        };
        let mut res = BankResult::default();
        let mut errors = Vec::new();
        for w in writers {
            match w.join().expect("writer thread") {
                Ok(r) => {
                    res.committed += r.committed;
                    res.insufficient += r.insufficient;
                    res.abandoned += r.abandoned;
                    for (e, n) in r.retries {
                        *res.retries.entry(e).or_insert(0) += n;
                    }
                }
                Err(e) => errors.push(e),
            }
        }
        done.store(true, Ordering::SeqCst);
        match snap.join().expect("reader thread") {
            Ok(n) => res.snapshot_checks = n,
            Err(e) => errors.push(e),
        }
        match stmt.join().expect("reader thread") {
            Ok(n) => res.statement_checks = n,
            Err(e) => errors.push(e),
        }
        let label = format!("{} writers under {}", this.engine, this.isolation);
        assert!(errors.is_empty(), "{label}: {errors:#?}");

        // The end state: the total, the ledger, every balance.
        assert_eq!(
            int(&must(&mut admin, "SELECT SUM(balance) FROM acct"), "sum"),
            this.total(),
            "{label}"
        );
        let ledger = must(&mut admin, "SELECT src, dst, amount FROM ledger");
        assert_eq!(
            ledger.len() as u64,
            res.committed,
            "{label}: transfers in the ledger vs committed as the clients counted"
        );
        let mut expected = vec![this.initial; this.accounts as usize];
        for r in &ledger {
            let (src, dst, amount): (usize, usize, i64) = (
                r[0].parse().unwrap(),
                r[1].parse().unwrap(),
                r[2].parse().unwrap(),
            );
            expected[src] -= amount;
            expected[dst] += amount;
        }
        let balances: Vec<i64> = must(&mut admin, "SELECT balance FROM acct ORDER BY id")
            .iter()
            .map(|r| r[0].parse().unwrap())
            .collect();
        assert_eq!(balances, expected, "{label}: balances vs ledger");
        assert!(balances.iter().all(|&b| b >= 0), "{label}: {balances:?}");

        res.deadlocks = global_status(&mut admin, "Innodb_deadlocks") - deadlocks_before;
        eprintln!("bank, {label}: {res:?}");
        assert!(res.committed > 0, "{label}: {res:?}");
        assert!(
            res.snapshot_checks > 0,
            "{label}: the reader never finished a round"
        );
        // Readers take no locks, so every deadlock the server counted is a writer's.
        assert_eq!(
            res.deadlocks,
            res.retries.get(&1213).copied().unwrap_or(0),
            "{label}: Innodb_deadlocks vs 1213 seen by the clients"
        );
        res
    }
}

/// Runs the bank under both writer isolation levels; deadlocks must have happened.
/// With `snapshot_isolation` (Basalt's default, not MariaDB 10.11's), REPEATABLE READ
/// writers also transfer from consistent reads, which is safe only because writing a
/// row changed since the snapshot fails with 1020, and such conflicts must have
/// happened.
fn bank_both_levels(url: &str, engine: &'static str, snapshot_isolation: bool) {
    let mut deadlocks = 0;
    for (i, isolation) in ["REPEATABLE READ", "READ COMMITTED"]
        .into_iter()
        .enumerate()
    {
        let mut bank = Bank::new(url.to_string(), engine, isolation, 11 + i as u64);
        bank.snapshot_writes = bank_snapshot_writes(snapshot_isolation, isolation);
        let res = bank.run();
        deadlocks += res.deadlocks;
        if bank_snapshot_writes(snapshot_isolation, isolation) {
            assert!(
                res.retries.get(&1020).copied().unwrap_or(0) > 0,
                "{engine}: transfers from stale snapshots never conflicted: {res:?}"
            );
        }
    }
    assert!(
        deadlocks > 0,
        "{engine}: transfers in both lock orders never deadlocked"
    );
}

fn bank_snapshot_writes(snapshot_isolation: bool, isolation: &str) -> bool {
    snapshot_isolation && isolation == "REPEATABLE READ"
}

#[test]
fn bank_transfers_durable_engine() {
    let b = Basalt::start();
    bank_both_levels(&b.url(), "InnoDB", true);
}

#[test]
fn bank_transfers_memory_engine() {
    let b = Basalt::start();
    bank_both_levels(&b.url(), "MEMORY", true);
}

#[test]
#[ignore = "needs MariaDB installed (CI runs ignored tests with it)"]
fn bank_transfers_mariadb() {
    assert!(mariadb::available(), "MariaDB is not installed");
    let m = MariaDb::start(&[]);
    bank_both_levels(&m.url(), "InnoDB", false);
}

// ---------------------------------------------------------------------------
// List-append histories
// ---------------------------------------------------------------------------

/// One statement of a list-append transaction.
enum Step {
    Append(u64),
    /// Keys `lo..=hi`; through the secondary index?
    Read((u64, u64), bool),
}

struct ListAppend {
    url: String,
    engine: &'static str,
    isolation: &'static str,
    sessions: usize,
    txns: usize,
    keys: u64,
    /// `innodb_snapshot_isolation` of the sessions (the server's default if None).
    snapshot_isolation: Option<bool>,
    seed: u64,
    cap: Duration,
}

impl ListAppend {
    fn new(url: String, engine: &'static str, isolation: &'static str, seed: u64) -> Self {
        ListAppend {
            url,
            engine,
            isolation,
            sessions: 6,
            txns: 60,
            keys: 8,
            snapshot_isolation: None,
            seed,
            cap: Duration::from_secs(20),
        }
    }

    fn table(&self) -> String {
        format!("la_{}", self.seed)
    }

    /// Reads keys `lo..=hi` in one statement, through the primary key or the
    /// secondary index on `s` (which always equals `k`); absent keys read as empty.
    fn read(
        c: &mut Conn,
        table: &str,
        (lo, hi): (u64, u64),
        secondary: bool,
    ) -> Result<Vec<Op>, u16> {
        let (col, hint) = if secondary {
            ("s", " FORCE INDEX (s)")
        } else {
            ("k", "")
        };
        let cond = if lo == hi {
            format!("{col} = {lo}")
        } else {
            format!("{col} BETWEEN {lo} AND {hi}")
        };
        let rows = run(c, &format!("SELECT k, v FROM {table}{hint} WHERE {cond}"))?;
        let mut found: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for r in &rows {
            let k: u64 = r[0].parse().expect("key");
            assert!(
                (lo..=hi).contains(&k) && found.insert(k, parse_list(&r[1])).is_none(),
                "{cond}: {rows:?}"
            );
        }
        Ok((lo..=hi)
            .map(|key| Op::Read {
                key,
                list: found.remove(&key).unwrap_or_default(),
            })
            .collect())
    }

    fn session(&self, s: usize, counter: &AtomicU64, deadline: Instant) -> Vec<Txn> {
        let table = self.table();
        let mut c = connect(&basalt_tests::url_with_db(&self.url, "isol"));
        must(
            &mut c,
            &format!("SET SESSION TRANSACTION ISOLATION LEVEL {}", self.isolation),
        );
        must(&mut c, "SET SESSION innodb_lock_wait_timeout = 2");
        if let Some(on) = self.snapshot_isolation {
            must(
                &mut c,
                &format!("SET SESSION innodb_snapshot_isolation = {}", u8::from(on)),
            );
        }
        let mut rng = Rng(self.seed * 7919 + s as u64);
        let mut history = Vec::new();
        for _ in 0..self.txns {
            if Instant::now() > deadline {
                break;
            }
            let pick = |rng: &mut Rng| {
                if rng.below(2) == 0 {
                    rng.below(3)
                } else {
                    rng.below(self.keys)
                }
            };
            // A quarter are read-only: several keys from one snapshot, read by one
            // statement (a range) or by several.
            let read_only = rng.below(4) == 0;
            let one_statement = read_only && rng.below(2) == 0;
            let (begin, plan): (&str, Vec<Step>) = if one_statement {
                let lo = pick(&mut rng).min(self.keys - 2);
                let hi = (lo + 1 + rng.below(3)).min(self.keys - 1);
                let range = Step::Read((lo, hi), rng.below(2) == 0);
                ("START TRANSACTION READ ONLY", vec![range])
            } else if read_only {
                let n = 2 + rng.below(3) as usize;
                let mut keys: Vec<u64> = Vec::new();
                while keys.len() < n {
                    let k = pick(&mut rng);
                    if !keys.contains(&k) {
                        keys.push(k);
                    }
                }
                let begin = if rng.below(2) == 0 {
                    "START TRANSACTION READ ONLY"
                } else {
                    "START TRANSACTION WITH CONSISTENT SNAPSHOT"
                };
                let plan = keys
                    .into_iter()
                    .map(|k| Step::Read((k, k), rng.below(2) == 0))
                    .collect();
                (begin, plan)
            } else {
                let n = 1 + rng.below(4);
                let plan = (0..n)
                    .map(|_| {
                        let k = pick(&mut rng);
                        if rng.below(2) == 0 {
                            Step::Append(k)
                        } else {
                            Step::Read((k, k), rng.below(2) == 0)
                        }
                    })
                    .collect();
                ("START TRANSACTION", plan)
            };
            must(&mut c, begin);
            let mut ops = Vec::new();
            let mut failed = None;
            for step in plan {
                let r = match step {
                    Step::Append(key) => {
                        let value = counter.fetch_add(1, Ordering::SeqCst);
                        ops.push(Op::Append { key, value });
                        run(
                            &mut c,
                            &format!(
                                "INSERT INTO {table} (k, s, v) VALUES ({key}, {key}, '{value}') \
                                 ON DUPLICATE KEY UPDATE v = CONCAT(v, ',{value}')"
                            ),
                        )
                        .map(|_| ())
                    }
                    Step::Read(keys, secondary) => {
                        Self::read(&mut c, &table, keys, secondary).map(|reads| ops.extend(reads))
                    }
                };
                if let Err(e) = r {
                    failed = Some(e);
                    break;
                }
            }
            let outcome = match failed {
                Some(e) => {
                    assert!(RETRYABLE.contains(&e), "session {s}: unexpected error {e}");
                    must(&mut c, "ROLLBACK");
                    Outcome::Aborted(e)
                }
                None => match run(&mut c, "COMMIT") {
                    Ok(_) => Outcome::Committed,
                    Err(2013) => Outcome::Unknown,
                    Err(e) => Outcome::Aborted(e),
                },
            };
            history.push(Txn {
                session: s,
                ops,
                outcome,
                one_statement,
            });
        }
        history
    }

    /// Runs the workload and returns the recorded history with the final state.
    fn run(&self) -> History {
        let table = self.table();
        let mut admin = connect(&self.url);
        must(&mut admin, "CREATE DATABASE IF NOT EXISTS isol");
        must(&mut admin, "USE isol");
        must(&mut admin, &format!("DROP TABLE IF EXISTS {table}"));
        must(
            &mut admin,
            &format!(
                "CREATE TABLE {table} (k INT PRIMARY KEY, s INT NOT NULL, v TEXT NOT NULL, \
                 KEY (s)) ENGINE={}",
                self.engine
            ),
        );
        let counter = AtomicU64::new(1);
        let deadline = Instant::now() + self.cap;
        let txns = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..self.sessions)
                .map(|s| {
                    let counter = &counter;
                    scope.spawn(move || self.session(s, counter, deadline))
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("session thread"))
                .collect()
        });
        let final_state = must(&mut admin, &format!("SELECT k, v FROM {table}"))
            .iter()
            .map(|r| (r[0].parse().unwrap(), parse_list(&r[1])))
            .collect();
        History { txns, final_state }
    }

    /// Runs and checks against `level`; returns the report for further checks.
    fn run_checked(&self, level: Level) -> checker::Report {
        let h = self.run();
        let report = checker::check(&h);
        let label = format!(
            "list-append {} under {}, seed {}",
            self.engine, self.isolation, self.seed
        );
        let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
        for t in &h.txns {
            *outcomes.entry(format!("{:?}", t.outcome)).or_insert(0) += 1;
        }
        eprintln!(
            "{label}: {} txns {outcomes:?}, edges {:?}, anomalies {:?}",
            h.txns.len(),
            report.edges,
            report.kinds()
        );
        let forbidden = report.forbidden(level);
        assert!(
            forbidden.is_empty(),
            "{label}: {} forbidden anomalies, first ones:\n{}",
            forbidden.len(),
            forbidden
                .iter()
                .take(10)
                .map(|a| format!("  {a}\n{}", show_txns(&h, &a.txns)))
                .collect::<String>()
        );
        // Snapshot conflicts exist only under REPEATABLE READ with the check on.
        if self.isolation != "REPEATABLE READ" || self.snapshot_isolation == Some(false) {
            assert!(
                !outcomes.contains_key("Aborted(1020)"),
                "{label}: 1020 without snapshot isolation: {outcomes:?}"
            );
        }
        // Not vacuous: transactions committed, reads saw others' appends, and the
        // graph has all three kinds of edge.
        assert!(
            outcomes.get("Committed").copied().unwrap_or(0) > h.txns.len() / 4,
            "{label}: {outcomes:?}"
        );
        for e in [checker::Edge::Ww, checker::Edge::Wr, checker::Edge::Rw] {
            assert!(
                report.edges.get(&e).copied().unwrap_or(0) > 0,
                "{label}: no {e:?} edges"
            );
        }
        assert!(
            h.txns.iter().any(|t| t.outcome == Outcome::Committed
                && t.ops.len() >= 2
                && t.ops.iter().all(|o| matches!(o, Op::Read { .. }))),
            "{label}: no read-only transaction committed"
        );
        report
    }
}

fn parse_list(s: &str) -> Vec<u64> {
    if s.is_empty() {
        return Vec::new();
    }
    s.split(',')
        .map(|x| {
            x.parse()
                .unwrap_or_else(|_| panic!("list element {x:?} in {s:?}"))
        })
        .collect()
}

fn show_txns(h: &History, txns: &[usize]) -> String {
    let mut out = String::new();
    let mut seen = Vec::new();
    for &t in txns {
        if seen.contains(&t) {
            continue;
        }
        seen.push(t);
        let txn = &h.txns[t];
        out.push_str(&format!(
            "    T{t} (session {}, {:?}): {:?}\n",
            txn.session, txn.outcome, txn.ops
        ));
    }
    out
}

/// `count` seeds from `first`, or `BASALT_LIST_APPEND_SEEDS` of them (for longer
/// local runs hunting rare anomalies).
fn seeds(first: u64, count: u64) -> std::ops::Range<u64> {
    let n = std::env::var("BASALT_LIST_APPEND_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(count);
    first * 1000..first * 1000 + n
}

#[test]
fn list_append_repeatable_read_durable_engine() {
    let b = Basalt::start();
    for seed in seeds(1, 3) {
        ListAppend::new(b.url(), "InnoDB", "REPEATABLE READ", seed)
            .run_checked(Level::SnapshotRepeatableRead);
    }
}

#[test]
fn list_append_repeatable_read_memory_engine() {
    let b = Basalt::start();
    for seed in seeds(2, 2) {
        ListAppend::new(b.url(), "MEMORY", "REPEATABLE READ", seed)
            .run_checked(Level::SnapshotRepeatableRead);
    }
}

#[test]
fn list_append_read_committed_both_engines() {
    let b = Basalt::start();
    ListAppend::new(b.url(), "InnoDB", "READ COMMITTED", 6).run_checked(Level::ReadCommitted);
    ListAppend::new(b.url(), "MEMORY", "READ COMMITTED", 7).run_checked(Level::ReadCommitted);
}

/// With `innodb_snapshot_isolation=OFF`, REPEATABLE READ is MySQL's classic one:
/// writes read the latest version, so lost updates and reads past the snapshot after
/// a write are allowed (the checker reports them), but everything READ COMMITTED
/// forbids must still hold.
#[test]
fn list_append_classic_repeatable_read() {
    let b = Basalt::start();
    let mut w = ListAppend::new(b.url(), "InnoDB", "REPEATABLE READ", 8);
    w.snapshot_isolation = Some(false);
    w.run_checked(Level::ReadCommitted);
}

/// MariaDB 10.11 has no `innodb_snapshot_isolation`: its REPEATABLE READ lets a
/// write read past the snapshot (lost updates, non-repeatable reads after a write),
/// so it is held to what both levels guarantee there; what else the checker finds is
/// printed.
#[test]
#[ignore = "needs MariaDB installed (CI runs ignored tests with it)"]
fn list_append_mariadb() {
    assert!(mariadb::available(), "MariaDB is not installed");
    let m = MariaDb::start(&[]);
    let mut admin = connect(&m.url());
    let snapshot =
        run(&mut admin, "SELECT @@innodb_snapshot_isolation").is_ok_and(|r| r[0][0] == "1");
    let rr = if snapshot {
        Level::SnapshotRepeatableRead
    } else {
        Level::ReadCommitted
    };
    for seed in 1..=2 {
        ListAppend::new(m.url(), "InnoDB", "REPEATABLE READ", seed).run_checked(rr);
    }
    ListAppend::new(m.url(), "InnoDB", "READ COMMITTED", 3).run_checked(Level::ReadCommitted);
}

/// Found by the list-append checker (G-single, a lost append): under REPEATABLE
/// READ with snapshot isolation, INSERT ... ON DUPLICATE KEY UPDATE that meets a row
/// committed after the transaction's snapshot must fail with 1020, not update it.
#[test]
fn upsert_of_a_row_inserted_after_the_snapshot_conflicts() {
    let b = Basalt::start();
    let mut s: Vec<common::Session> = (0..2)
        .map(|_| common::Session::open(&b.url_db("test"), common::Flavor::Basalt))
        .collect();
    for engine in ["InnoDB", "MEMORY"] {
        s[0].q("DROP TABLE IF EXISTS u");
        s[0].q(&format!(
            "CREATE TABLE u (k INT PRIMARY KEY, v TEXT NOT NULL) ENGINE={engine}"
        ));
        // The cause: a point read of a missing key did not start the snapshot, so
        // reading the key again showed a row inserted meanwhile (a phantom).
        s[0].q("BEGIN");
        assert!(s[0].q("SELECT v FROM u WHERE k = 9").is_empty());
        s[1].q("INSERT INTO u VALUES (9, '9')");
        assert!(
            s[0].q("SELECT v FROM u WHERE k = 9").is_empty(),
            "{engine}: phantom"
        );
        assert_eq!(s[0].val("SELECT COUNT(*) FROM u"), "0", "{engine}");
        s[0].q("COMMIT");
        // The other insert commits while the upsert waits for it.
        s[0].q("BEGIN");
        assert!(s[0].q("SELECT v FROM u WHERE k = 1").is_empty());
        s[1].q("BEGIN");
        s[1].q("INSERT INTO u VALUES (1, '2')");
        s[0].send_blocked(
            "INSERT INTO u VALUES (1, '1') ON DUPLICATE KEY UPDATE v = CONCAT(v, ',1')",
        );
        s[1].q("COMMIT");
        assert_eq!(s[0].wait(), Err(1020), "{engine}: upsert after a wait");
        s[0].q("ROLLBACK");
        // The other insert committed before the upsert started.
        s[0].q("BEGIN");
        assert!(s[0].q("SELECT v FROM u WHERE k = 3").is_empty());
        s[1].q("INSERT INTO u VALUES (3, '4')");
        assert_eq!(
            s[0].run("INSERT INTO u VALUES (3, '3') ON DUPLICATE KEY UPDATE v = CONCAT(v, ',3')"),
            Err(1020),
            "{engine}: upsert of a committed row"
        );
        s[0].q("ROLLBACK");
        assert_eq!(s[1].val("SELECT v FROM u WHERE k = 3"), "4");
    }
}

/// The regression above, side by side with MariaDB: reading a missing key starts the
/// snapshot, so a row inserted afterwards stays invisible to every later read.
#[test]
#[ignore = "needs MariaDB installed (CI runs ignored tests with it)"]
fn missing_key_read_starts_the_snapshot_like_mariadb() {
    assert!(mariadb::available(), "MariaDB is not installed");
    let setup = [
        "CREATE DATABASE IF NOT EXISTS test",
        "DROP TABLE IF EXISTS test.u",
        "CREATE TABLE test.u (k INT PRIMARY KEY, s INT NOT NULL, v INT, KEY (s)) ENGINE=InnoDB",
    ];
    let steps: &[common::Step] = &[
        (0, "BEGIN"),
        (0, "SELECT v FROM u WHERE k = 1"),
        (1, "INSERT INTO u VALUES (1, 1, 1)"),
        (0, "SELECT v FROM u WHERE k = 1"),
        (0, "SELECT v FROM u FORCE INDEX (s) WHERE s = 1"),
        (0, "SELECT COUNT(*) FROM u"),
        (0, "COMMIT"),
        (0, "SELECT v FROM u WHERE k = 1"),
    ];
    let b = Basalt::start();
    let ours = common::trace(&b.url(), common::Flavor::Basalt, 2, &setup, steps);
    let m = MariaDb::start(&[]);
    let theirs = common::trace(&m.url(), common::Flavor::MariaDb, 2, &setup, steps);
    assert_eq!(ours, theirs);
    assert!(ours[3].ends_with("-> []"), "{ours:#?}");
}
