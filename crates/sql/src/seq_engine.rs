//! MariaDB's SEQUENCE engine: a table named `seq_FROM_to_TO` or
//! `seq_FROM_to_TO_step_STEP` that does not exist in a database reads as the
//! numbers FROM, FROM + STEP, ... up to TO (or down to TO when FROM > TO), in one
//! column `seq BIGINT UNSIGNED NOT NULL PRIMARY KEY`. Nothing is stored: rows are
//! computed as a cursor reaches them, so `seq_1_to_1000000000` costs nothing until
//! read, and a key range or a primary-key lookup touches only the rows it selects.
//! Writes are MariaDB's 1031.
//!
//! A descending table (FROM > TO) has a descending primary key, so that a plain
//! scan reads it from FROM down as MariaDB's does, and ORDER BY reads it backwards.

use basalt_common::{
    Collation, ColumnDef, DataType, EngineKind, IndexColumn, IntKind, MySqlError, Row, TableDef,
    Value,
};
use basalt_storage::{
    Cursor, Fetched, IndexStats, KeyRange, LockMode, RowHandle, ScanRequest, StorageError, Table,
    TableStats, Txn, WaitPolicy,
};
use std::ops::Bound;
use std::sync::Arc;

/// The numbers of a sequence table: `lo + k * step` for `k` in `0..count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Numbers {
    lo: u64,
    step: u64,
    count: u128,
    descending: bool,
}

/// Reads a table name as MariaDB's engine does (`sscanf` of
/// `seq_%llu_to_%llu[_step_%llu]`, digits only, an overflowing number read as
/// the largest one): `None` when the name is not a sequence table's.
fn parse_name(name: &str) -> Option<(u64, u64, u64)> {
    let rest = name.strip_prefix("seq_")?;
    let (from, rest) = number(rest)?;
    let rest = rest.strip_prefix("_to_")?;
    let (to, rest) = number(rest)?;
    if rest.is_empty() {
        return Some((from, to, 1));
    }
    let (step, rest) = number(rest.strip_prefix("_step_")?)?;
    rest.is_empty().then_some((from, to, step))
}

fn number(s: &str) -> Option<(u64, &str)> {
    let end = s.bytes().take_while(u8::is_ascii_digit).count();
    if end == 0 {
        return None;
    }
    let n = s[..end].parse::<u64>().unwrap_or(u64::MAX);
    Some((n, &s[end..]))
}

/// The sequence table `db.name`, when `name` is one, with the database's default
/// collation `collation`: an error for a zero step (MariaDB's 1030 "Wrong create
/// options").
pub fn open(
    db: &str,
    name: &str,
    collation: Collation,
) -> Option<Result<Arc<dyn Table>, MySqlError>> {
    let (from, to, step) = parse_name(name)?;
    if step == 0 {
        return Some(Err(MySqlError::new(
            1030,
            "HY000",
            "Got error 140 \"Wrong create options\" from storage engine SEQUENCE",
        )));
    }
    let numbers = Numbers::new(from, to, step);
    let table: Arc<dyn Table> = Arc::new(SequenceTable {
        def: Arc::new(definition(db, name, numbers.descending, collation)),
        numbers,
    });
    Some(Ok(table))
}

/// SHOW CREATE TABLE of a sequence table, as MariaDB prints it (the key of a
/// descending one without its DESC).
pub fn create_table_text(def: &TableDef) -> String {
    format!(
        "CREATE TABLE `{}` (\n  `seq` bigint(20) unsigned NOT NULL,\n  PRIMARY KEY (`seq`)\n) \
         ENGINE=SEQUENCE DEFAULT CHARSET={} COLLATE={}",
        def.name,
        def.charset.name(),
        def.collation.name()
    )
}

fn definition(db: &str, name: &str, descending: bool, collation: Collation) -> TableDef {
    let mut seq = ColumnDef::new("seq", DataType::int(IntKind::Big, true));
    seq.nullable = false;
    let mut def = crate::infoschema::columns_def(db, name, vec![seq]);
    def.indexes[0].columns = vec![IndexColumn {
        column: 0,
        prefix_len: None,
        descending,
    }];
    def.engine = EngineKind::Sequence;
    def.charset = collation.charset();
    def.collation = collation;
    def
}

impl Numbers {
    /// FROM, FROM + STEP, ... up to TO, or down to TO when FROM > TO (`step` > 0).
    fn new(from: u64, to: u64, step: u64) -> Self {
        let (lo, hi) = (from.min(to), from.max(to));
        Numbers {
            lo,
            step,
            count: u128::from((hi - lo) / step) + 1,
            descending: from > to,
        }
    }

    fn value(&self, k: u128) -> u64 {
        self.lo + (k as u64) * self.step
    }

    /// The position of `v` when it is one of the numbers.
    fn position(&self, v: u64) -> Option<u128> {
        let off = v.checked_sub(self.lo)?;
        let k = u128::from(off / self.step);
        (off % self.step == 0 && k < self.count).then_some(k)
    }

    /// The positions `first..end` whose values lie in the value interval
    /// `[min, max]` (inclusive, already clipped to u64).
    fn positions(&self, min: u64, max: u64) -> (u128, u128) {
        if min > max || max < self.lo {
            return (0, 0);
        }
        let first = u128::from(min.saturating_sub(self.lo)).div_ceil(u128::from(self.step));
        let last = u128::from((max - self.lo) / self.step).min(self.count - 1);
        if first > last {
            (0, 0)
        } else {
            (first, last + 1)
        }
    }

    /// `range` (in key order: from the largest value down for a descending key)
    /// as positions.
    fn range(&self, range: &KeyRange) -> (u128, u128) {
        let (low, high) = if self.descending {
            (&range.upper, &range.lower)
        } else {
            (&range.lower, &range.upper)
        };
        let min = match low {
            Bound::Unbounded => Some(0),
            Bound::Included(k) => key(k).map(|v| v.max(0)),
            Bound::Excluded(k) => key(k).map(|v| v + 1),
        };
        let max = match high {
            Bound::Unbounded => Some(i128::from(u64::MAX)),
            Bound::Included(k) => key(k),
            Bound::Excluded(k) => key(k).map(|v| v - 1),
        };
        match (min, max) {
            (Some(min), Some(max)) if min <= max && max >= 0 && min <= i128::from(u64::MAX) => {
                let clip = |v: i128| v.clamp(0, i128::from(u64::MAX)) as u64;
                self.positions(clip(min), clip(max))
            }
            _ => (0, 0),
        }
    }
}

/// A key bound's value (NULL sorts first: the whole column is above it).
fn key(k: &[Value]) -> Option<i128> {
    match k.first() {
        None | Some(Value::Null) => Some(-1),
        Some(Value::UInt(u)) => Some(i128::from(*u)),
        Some(Value::Int(i)) => Some(i128::from(*i)),
        Some(_) => None,
    }
}

pub struct SequenceTable {
    def: Arc<TableDef>,
    numbers: Numbers,
}

impl SequenceTable {
    fn refused(&self) -> StorageError {
        StorageError::EngineLacksOption {
            engine: "SEQUENCE".into(),
            table: format!("`{}`.`{}`", self.def.schema, self.def.name),
        }
    }

    fn fetched(v: u64) -> Fetched {
        Fetched {
            handle: RowHandle(v.to_be_bytes().to_vec()),
            row: vec![Value::UInt(v)],
        }
    }

    fn lookup(&self, pk: &[Value]) -> Option<Fetched> {
        let v = match pk.first()? {
            Value::UInt(u) => *u,
            Value::Int(i) => u64::try_from(*i).ok()?,
            _ => return None,
        };
        self.numbers.position(v).map(|_| Self::fetched(v))
    }
}

impl Table for SequenceTable {
    fn def(&self) -> Arc<TableDef> {
        self.def.clone()
    }

    fn stats(&self) -> TableStats {
        let rows = u64::try_from(self.numbers.count).unwrap_or(u64::MAX);
        TableStats {
            rows,
            indexes: vec![IndexStats {
                index_id: 0,
                distinct: vec![rows],
            }],
            data_bytes: 0,
        }
    }

    fn range_fraction(&self, _index_id: u32, range: &KeyRange) -> Option<f64> {
        let (first, end) = self.numbers.range(range);
        Some((end - first) as f64 / self.numbers.count as f64)
    }

    fn insert(&self, _txn: &mut Txn, _row: Row) -> basalt_storage::Result<RowHandle> {
        Err(self.refused())
    }

    fn get(
        &self,
        _txn: &mut Txn,
        pk: &[Value],
        _lock: LockMode,
        _wait: WaitPolicy,
    ) -> basalt_storage::Result<Option<Fetched>> {
        Ok(self.lookup(pk))
    }

    fn get_columns(
        &self,
        _txn: &mut Txn,
        pk: &[Value],
        _columns: &[usize],
    ) -> basalt_storage::Result<Option<Fetched>> {
        Ok(self.lookup(pk))
    }

    fn scan(&self, _txn: &mut Txn, req: ScanRequest) -> basalt_storage::Result<Box<dyn Cursor>> {
        let cursor = SequenceCursor::new(self.numbers, &req.range, req.reverse);
        Ok(Box::new(cursor))
    }

    fn update(
        &self,
        _txn: &mut Txn,
        _h: &RowHandle,
        _old: &Row,
        _new: Row,
    ) -> basalt_storage::Result<RowHandle> {
        Err(self.refused())
    }

    fn delete(&self, _txn: &mut Txn, _h: &RowHandle, _old: &Row) -> basalt_storage::Result<()> {
        Err(self.refused())
    }

    fn reserve_auto_increment(&self, _count: u64) -> basalt_storage::Result<u64> {
        Err(self.refused())
    }

    fn observe_auto_increment(&self, _value: u64) {}

    fn peek_auto_increment(&self) -> u64 {
        1
    }
}

/// The positions `first..end` not read yet, taken from the front (upwards) or
/// the back (downwards).
struct SequenceCursor {
    numbers: Numbers,
    first: u128,
    end: u128,
    downwards: bool,
}

impl SequenceCursor {
    fn new(numbers: Numbers, range: &KeyRange, reverse: bool) -> Self {
        let (first, end) = numbers.range(range);
        SequenceCursor {
            numbers,
            first,
            end,
            // Key order is descending values for a descending key.
            downwards: numbers.descending != reverse,
        }
    }

    /// The next number, if any is left.
    fn step(&mut self) -> Option<u64> {
        if self.first >= self.end {
            return None;
        }
        let k = if self.downwards {
            self.end -= 1;
            self.end
        } else {
            self.first += 1;
            self.first - 1
        };
        Some(self.numbers.value(k))
    }
}

impl Cursor for SequenceCursor {
    fn next(&mut self, txn: &mut Txn) -> basalt_storage::Result<Option<Fetched>> {
        txn.check_interrupt()?;
        Ok(self.step().map(SequenceTable::fetched))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(name: &str, range: KeyRange, reverse: bool) -> Vec<u64> {
        let (from, to, step) = parse_name(name).expect("name");
        let mut c = SequenceCursor::new(Numbers::new(from, to, step), &range, reverse);
        std::iter::from_fn(|| c.step()).collect()
    }

    fn between(lo: u64, hi: u64) -> KeyRange {
        KeyRange {
            lower: Bound::Included(vec![Value::UInt(lo)]),
            upper: Bound::Included(vec![Value::UInt(hi)]),
        }
    }

    #[test]
    fn names_read_as_mariadb_reads_them() {
        assert_eq!(parse_name("seq_1_to_10"), Some((1, 10, 1)));
        assert_eq!(parse_name("seq_01_to_3_step_2"), Some((1, 3, 2)));
        assert_eq!(
            parse_name("seq_1_to_18446744073709551616"),
            Some((1, u64::MAX, 1))
        );
        for bad in [
            "seq_1_to_3x",
            "seq_a_to_3",
            "seq_1_to_3_step_",
            "Seq_1_to_3",
            "seq_-1_to_3",
        ] {
            assert_eq!(parse_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn scans_and_ranges() {
        let all = KeyRange::all();
        assert_eq!(values("seq_1_to_5", all.clone(), false), [1, 2, 3, 4, 5]);
        assert_eq!(values("seq_5_to_1_step_2", all.clone(), false), [5, 3, 1]);
        assert_eq!(values("seq_6_to_1_step_2", all.clone(), true), [1, 3, 5]);
        assert_eq!(values("seq_1_to_10_step_3", between(2, 7), false), [4, 7]);
        assert_eq!(values("seq_1_to_10_step_20", all.clone(), false), [1]);
        // A descending key's range runs from its larger value down.
        assert_eq!(values("seq_9_to_1", between(6, 3), false), [6, 5, 4, 3]);
        let above = KeyRange {
            lower: Bound::Excluded(vec![Value::UInt(u64::MAX - 1)]),
            upper: Bound::Unbounded,
        };
        let top = "seq_18446744073709551610_to_18446744073709551615";
        assert_eq!(values(top, above, false), [u64::MAX]);
        assert!(values("seq_1_to_3", between(5, 9), false).is_empty());
    }
}
