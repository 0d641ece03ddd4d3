//! Sequences as MariaDB 10.3+ has them: a sequence is a one-row table (columns
//! `next_not_cached_value` ... `cycle_count`, table option `SEQUENCE=1`) whose row
//! is the durable state, and an in-memory cache of values in front of it.
//!
//! Algorithm (MariaDB's `SEQUENCE::next_value`): the row stores `reserved_until`,
//! the first value not yet reserved. The cache is the range
//! `[next_free, reserved_until)`. NEXTVAL hands out `next_free` under the
//! sequence's mutex; when the cache is used up it reserves `cache` more values by
//! writing the new `reserved_until` in a transaction of its own and committing it
//! durably *before* the value is returned.
//!
//! Invariants:
//! - every value handed out is below the durable `reserved_until` (above, for a
//!   descending sequence), so after a crash the sequence restarts at or past
//!   every value given before: values may be skipped (at most the cache), never
//!   repeated;
//! - the reservation is not part of the caller's transaction: a rollback gives
//!   no values back, as in MariaDB;
//! - one mutex per sequence serialises NEXTVAL / SETVAL / ALTER, so concurrent
//!   sessions get distinct values. The fast path (a value from the cache) takes
//!   that mutex and touches no page.
//!
//! Binary log: a reservation (the row written by NEXTVAL past the cache, or by
//! SETVAL) is logged as MariaDB logs it, in the same transaction as the row: the
//! whole row as a WRITE_ROWS event of the sequence table, in a group of its own,
//! with the statement's text as ANNOTATE_ROWS (see `basalt_storage::binlog`). A
//! replica's row, and so its next value after a failover, follows the primary's.
//! CREATE and ALTER SEQUENCE log only their statement, as MariaDB does.
//!
//! The state is keyed by table id: a sequence dropped and created again under
//! the same name has a new id, so no stale cache survives it.

use basalt_common::{
    ColumnDef, DataType, EngineKind, IntKind, MySqlError, TableDef, TableId, Value,
};
use basalt_storage::binlog::{BinlogSession, Capture};
use basalt_storage::{KeyRange, LockMode, ScanRequest, Storage, Table, TxnOptions, WaitPolicy};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// The table option that marks a table as a sequence (what MariaDB's SHOW CREATE
/// TABLE prints).
pub const OPTION: &str = "SEQUENCE";

/// The column names, in the order of the row.
pub const COLUMNS: [&str; 8] = [
    "next_not_cached_value",
    "minimum_value",
    "maximum_value",
    "start_value",
    "increment",
    "cache_size",
    "cycle_option",
    "cycle_count",
];

/// A sequence's definition (what CREATE / ALTER SEQUENCE set).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeqDef {
    pub min: i64,
    pub max: i64,
    pub start: i64,
    pub increment: i64,
    pub cache: u64,
    pub cycle: bool,
}

/// The sequence's row: its definition, the first unreserved value and the round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stored {
    pub def: SeqDef,
    pub reserved_until: i64,
    pub round: i64,
}

impl Stored {
    pub fn to_row(self) -> Vec<Value> {
        let d = &self.def;
        vec![
            Value::Int(self.reserved_until),
            Value::Int(d.min),
            Value::Int(d.max),
            Value::Int(d.start),
            Value::Int(d.increment),
            Value::UInt(d.cache),
            Value::UInt(d.cycle as u64),
            Value::Int(self.round),
        ]
    }

    pub fn from_row(row: &[Value]) -> Option<Stored> {
        let int = |i: usize| match row.get(i)? {
            Value::Int(v) => Some(*v),
            Value::UInt(v) => i64::try_from(*v).ok(),
            _ => None,
        };
        Some(Stored {
            reserved_until: int(0)?,
            def: SeqDef {
                min: int(1)?,
                max: int(2)?,
                start: int(3)?,
                increment: int(4)?,
                cache: int(5)? as u64,
                cycle: int(6)? != 0,
            },
            round: int(7)?,
        })
    }
}

/// Whether `def` is a sequence table.
pub fn is_sequence(def: &TableDef) -> bool {
    def.options.iter().any(|(k, v)| k == OPTION && v == "1")
}

/// 1031 for INSERT / UPDATE / DELETE / TRUNCATE of a sequence table: its row
/// changes only through NEXTVAL, SETVAL and ALTER SEQUENCE.
pub fn check_writable(def: &TableDef) -> R<()> {
    if !is_sequence(def) {
        return Ok(());
    }
    Err(MySqlError::new(
        1031,
        "HY000",
        format!(
            "Storage engine SEQUENCE of the table `{}`.`{}` doesn't have this option",
            def.schema, def.name
        ),
    ))
}

/// The table definition of a new sequence `db.name`.
pub fn table_def(db: &str, name: &str, engine: EngineKind, comment: &str) -> TableDef {
    let int = |n: &str, kind: IntKind, unsigned: bool| {
        let mut c = ColumnDef::new(n, DataType::int(kind, unsigned));
        c.nullable = false;
        c
    };
    let mut columns: Vec<ColumnDef> = COLUMNS
        .iter()
        .map(|n| match *n {
            "cache_size" => int(n, IntKind::Big, true),
            "cycle_option" => int(n, IntKind::Tiny, true),
            _ => int(n, IntKind::Big, false),
        })
        .collect();
    columns[3].comment = "start value when sequences is created or value if RESTART is used".into();
    columns[4].comment = "increment value".into();
    columns[6].comment = "0 if no cycles are allowed, 1 if the sequence should begin a new cycle when maximum_value is passed".into();
    columns[7].comment = "How many cycles have been done".into();
    let mut def = crate::infoschema::columns_def(db, name, columns);
    def.engine = engine;
    def.charset = basalt_common::Charset::Latin1;
    def.collation = basalt_common::Collation::Latin1SwedishCi;
    def.comment = comment.to_string();
    def.options = vec![(OPTION.to_string(), "1".to_string())];
    def
}

/// MariaDB's `sequence_definition::check_and_adjust` validity test.
pub fn valid(d: &SeqDef) -> bool {
    let max_increment = if d.increment != 0 {
        d.increment.unsigned_abs() as i128
    } else {
        65535
    };
    d.max >= d.start
        && d.max > d.min
        && d.start >= d.min
        && d.max != i64::MAX
        && d.min != i64::MIN
        && (d.cache as i128) < (i64::MAX as i128 - max_increment) / max_increment
}

pub fn run_out(db: &str, name: &str) -> MySqlError {
    MySqlError::new(4084, "HY000", format!("Sequence '{db}.{name}' has run out"))
}

pub fn out_of_range(db: &str, name: &str) -> MySqlError {
    MySqlError::new(
        4085,
        "HY000",
        format!("Sequence '{db}.{name}' has out of range value for options"),
    )
}

pub fn unknown(list: &str) -> MySqlError {
    MySqlError::new(4091, "42S02", format!("Unknown SEQUENCE: '{list}'"))
}

pub fn not_sequence(db: &str, name: &str) -> MySqlError {
    MySqlError::new(4089, "42S02", format!("'{db}.{name}' is not a SEQUENCE"))
}

/// What a sequence table's definition or row cannot be read as.
fn corrupt(db: &str, name: &str) -> MySqlError {
    MySqlError::new(
        4086,
        "HY000",
        format!("Sequence '{db}.{name}' table structure is invalid (Wrong number of columns)"),
    )
}

/// The cached state of one sequence.
struct State {
    /// The name the state was read under: RENAME TABLE keeps the id, and MariaDB
    /// reads the row again under the new name (the cached values are skipped).
    name: (String, String),
    stored: Stored,
    next_free: i64,
    real_increment: i64,
    all_used: bool,
}

/// `auto_increment_increment` and `auto_increment_offset`, which a sequence with
/// INCREMENT 0 follows.
#[derive(Clone, Copy)]
pub struct AutoInc {
    pub increment: i64,
    pub offset: i64,
}

impl State {
    fn new(name: (String, String), stored: Stored, auto: AutoInc) -> State {
        let mut s = State {
            name,
            stored,
            next_free: stored.reserved_until,
            real_increment: 1,
            all_used: false,
        };
        s.adjust(stored.reserved_until, auto);
        s
    }

    /// MariaDB's `adjust_values`: `next_free` from `from`, aligned on the
    /// auto_increment series when INCREMENT is 0.
    fn adjust(&mut self, from: i64, auto: AutoInc) {
        self.next_free = from;
        self.real_increment = self.stored.def.increment;
        if self.real_increment != 0 {
            return;
        }
        self.real_increment = auto.increment.max(1);
        let offset = if self.real_increment != 1 {
            auto.offset
        } else {
            0
        };
        let ri = self.real_increment as i128;
        let off = (self.next_free as i128).rem_euclid(ri);
        let to_add = (ri + offset as i128 - off).rem_euclid(ri);
        let v = self.next_free as i128 + to_add;
        self.next_free = if v > self.stored.def.max as i128 {
            self.stored.def.max.saturating_add(1)
        } else {
            v as i64
        };
    }

    /// `v` plus one increment, clamped just past the range.
    fn step(&self, v: i64) -> i64 {
        let d = &self.stored.def;
        let n = v as i128 + self.real_increment as i128;
        if self.real_increment > 0 {
            n.min(d.max as i128 + 1) as i64
        } else {
            n.max(d.min as i128 - 1) as i64
        }
    }

    fn cached(&self, v: i64) -> bool {
        if self.real_increment > 0 {
            v < self.stored.reserved_until
        } else {
            v > self.stored.reserved_until
        }
    }
}

/// The sequences' cached states, shared by every session.
#[derive(Default)]
pub struct Sequences {
    map: Mutex<HashMap<TableId, Arc<Mutex<Option<State>>>>>,
}

/// A sequence table opened by name.
pub struct Handle {
    pub db: String,
    pub name: String,
    pub table: Arc<dyn Table>,
    /// How the reservations made through this handle are logged (none: not).
    pub log: Option<SeqLog>,
}

/// What a reservation's binlog group is written with: the session's settings
/// and the statement that made it.
#[derive(Clone, Debug)]
pub struct SeqLog {
    pub session: BinlogSession,
    pub sql: Arc<str>,
    pub db: Arc<str>,
    pub when: u32,
}

impl Handle {
    /// Opens `db.name`: 4091 when there is no such table (named as written),
    /// 4089 when it is no sequence.
    pub fn open(storage: &Storage, db: &str, name: &str, written: &str) -> R<Handle> {
        let table = storage.table(db, name).ok_or_else(|| unknown(written))?;
        if !is_sequence(&table.def()) {
            return Err(not_sequence(db, name));
        }
        Ok(Handle {
            db: db.to_string(),
            name: name.to_string(),
            table,
            log: None,
        })
    }

    /// The handle with its reservations logged as `log` says.
    pub fn logged(mut self, log: Option<SeqLog>) -> Handle {
        self.log = log;
        self
    }

    pub fn id(&self) -> TableId {
        self.table.def().id
    }
}

impl Sequences {
    fn slot(&self, id: TableId) -> Arc<Mutex<Option<State>>> {
        self.map.lock().entry(id).or_default().clone()
    }

    /// Forgets the cached state (after ALTER, DROP or a direct write of the row).
    pub fn forget(&self, id: TableId) {
        self.map.lock().remove(&id);
    }

    /// NEXTVAL: the next value, reserving a new range durably when the cache is
    /// used up.
    pub fn next(&self, storage: &Arc<Storage>, h: &Handle, auto: AutoInc) -> R<i64> {
        let slot = self.slot(h.id());
        let mut guard = slot.lock();
        let st = load(&mut guard, storage, h, auto)?;
        let mut second_round = false;
        loop {
            let res = st.next_free;
            st.next_free = st.step(res);
            if st.cached(res) {
                return Ok(res);
            }
            if st.all_used {
                return Err(run_out(&h.db, &h.name));
            }
            let d = st.stored.def;
            let original = st.stored.reserved_until;
            let ri = st.real_increment as i128;
            let add = if d.cache > 0 {
                ri * d.cache as i128
            } else {
                ri
            };
            let want = original as i128 + add;
            let out_of_values = if ri > 0 && want > d.max as i128 {
                st.stored.reserved_until = d.max.saturating_add(1);
                res >= st.stored.reserved_until
            } else if ri < 0 && want < d.min as i128 {
                st.stored.reserved_until = d.min.saturating_sub(1);
                res <= st.stored.reserved_until
            } else {
                st.stored.reserved_until = want as i64;
                false
            };
            if out_of_values {
                if !d.cycle || second_round {
                    st.all_used = true;
                    return Err(run_out(&h.db, &h.name));
                }
                st.stored.round += 1;
                st.stored.reserved_until = if ri > 0 { d.min } else { d.max };
                let from = st.stored.reserved_until;
                st.adjust(from, auto);
                second_round = true;
                continue;
            }
            if let Err(e) = write(storage, h, &st.stored) {
                st.stored.reserved_until = original;
                st.next_free = res;
                return Err(e);
            }
            return Ok(res);
        }
    }

    /// SETVAL(s, value, is_used, round): `None` when (round, value) is behind
    /// the sequence's position (MariaDB then returns NULL).
    pub fn set(
        &self,
        storage: &Arc<Storage>,
        h: &Handle,
        auto: AutoInc,
        value: i64,
        is_used: bool,
        round: i64,
    ) -> R<Option<i64>> {
        let slot = self.slot(h.id());
        let mut guard = slot.lock();
        let st = load(&mut guard, storage, h, auto)?;
        let next = if is_used { st.step(value) } else { value };
        let mut must_store = false;
        if st.stored.round > round {
            return Ok(None);
        }
        if st.stored.round == round {
            let behind = if st.real_increment > 0 {
                next < st.next_free
            } else {
                next > st.next_free
            };
            if behind {
                return Ok(None);
            }
            if next == st.next_free {
                return Ok(Some(value));
            }
        } else if !st.stored.def.cycle {
            return Err(run_out(&h.db, &h.name));
        } else {
            must_store = true;
        }
        let saved = (st.stored, st.next_free, st.all_used);
        st.stored.round = round;
        st.adjust(next, auto);
        st.all_used = false;
        let past = if st.real_increment > 0 {
            st.next_free > st.stored.reserved_until
        } else {
            st.next_free < st.stored.reserved_until
        };
        if past || must_store {
            st.stored.reserved_until = st.next_free;
            if let Err(e) = write(storage, h, &st.stored) {
                (st.stored, st.next_free, st.all_used) = saved;
                return Err(e);
            }
        }
        Ok(Some(value))
    }

    /// The state ALTER SEQUENCE starts from: the stored row with the cached
    /// position (MariaDB keeps `reserved_until`, so cached values are skipped).
    pub fn current(&self, storage: &Arc<Storage>, h: &Handle, auto: AutoInc) -> R<Stored> {
        let slot = self.slot(h.id());
        let mut guard = slot.lock();
        Ok(load(&mut guard, storage, h, auto)?.stored)
    }

    /// Writes a new row (ALTER SEQUENCE) and drops the cache, under the
    /// sequence's mutex so that no NEXTVAL interleaves.
    pub fn replace(&self, storage: &Arc<Storage>, h: &Handle, stored: &Stored) -> R<()> {
        let slot = self.slot(h.id());
        let mut guard = slot.lock();
        write(storage, h, stored)?;
        *guard = None;
        Ok(())
    }
}

/// The cached state, read from the row on first use.
fn load<'a>(
    slot: &'a mut Option<State>,
    storage: &Arc<Storage>,
    h: &Handle,
    auto: AutoInc,
) -> R<&'a mut State> {
    let renamed = slot
        .as_ref()
        .is_some_and(|s| s.name.0 != h.db || s.name.1 != h.name);
    if slot.is_none() || renamed {
        let stored = read(storage, h)?;
        *slot = Some(State::new((h.db.clone(), h.name.clone()), stored, auto));
    }
    slot.as_mut().ok_or_else(|| corrupt(&h.db, &h.name))
}

fn scan_all(table: &Arc<dyn Table>, lock: LockMode) -> ScanRequest {
    let def = table.def();
    ScanRequest {
        index_id: def.indexes[0].id,
        range: KeyRange::all(),
        reverse: false,
        columns: (0..def.columns.len()).collect(),
        lock,
        wait: WaitPolicy::Wait,
    }
}

/// Reads the sequence's row (latest committed) in a transaction of its own.
pub fn read(storage: &Arc<Storage>, h: &Handle) -> R<Stored> {
    let mut txn = storage.begin(TxnOptions::default());
    let mut cur = h
        .table
        .scan(&mut txn, scan_all(&h.table, LockMode::Shared))?;
    let row = cur.next(&mut txn)?;
    drop(cur);
    txn.commit()?;
    row.and_then(|f| Stored::from_row(&f.row))
        .ok_or_else(|| corrupt(&h.db, &h.name))
}

/// Replaces (or first inserts) the sequence's row and commits durably, in a
/// transaction of its own: the caller's transaction has no part in it. The row
/// goes to the binary log with it when the handle says so.
pub fn write(storage: &Arc<Storage>, h: &Handle, stored: &Stored) -> R<()> {
    let mut txn = storage.begin(TxnOptions::default());
    if let Some(log) = &h.log {
        txn.set_capture(Capture::for_sequence(log.session.clone()));
        txn.capture_statement(log.sql.clone(), log.db.clone(), log.when);
    }
    let r = (|| -> R<()> {
        let mut cur = h
            .table
            .scan(&mut txn, scan_all(&h.table, LockMode::Exclusive))?;
        let old = cur.next(&mut txn)?;
        drop(cur);
        match old {
            Some(f) => {
                h.table
                    .update(&mut txn, &f.handle, &f.row, stored.to_row())?;
            }
            None => {
                h.table.insert(&mut txn, stored.to_row())?;
            }
        }
        Ok(())
    })();
    match r {
        Ok(()) => txn.commit().map_err(MySqlError::from),
        Err(e) => {
            let _ = txn.rollback();
            Err(e)
        }
    }
}
