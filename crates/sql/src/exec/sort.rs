//! ORDER BY: in-memory sorts, top-N heaps for small LIMITs, and external merge
//! sorts that spill to disk.
//!
//! A [`Sorter`] takes rows one at a time and hands them back ordered by its
//! [`SortKey`]s, stably (rows with equal keys keep their arrival order), as
//! [`sort_rows`] orders a vector:
//!
//! - With a LIMIT (`offset + limit` rows wanted, at most [`TOP_N_MAX`]) it keeps
//!   only the best rows seen so far in a max-heap ordered by (keys, arrival),
//!   so memory is bounded by the LIMIT, not the input.
//! - Otherwise rows are buffered up to `sort_buffer_size` bytes (estimated
//!   footprint, charged to the statement's [`MemBudget`]); a full buffer is sorted
//!   and written to a temporary file as a *run*, and its charge is released. At the
//!   end the runs are merged with a min-heap ordered by (keys, run number); runs
//!   are numbered in arrival order, so the merge is stable too. More than
//!   [`FAN_IN`] runs are first merged in groups into longer runs (multi-pass, as
//!   MariaDB's filesort merges MERGEBUFF runs at a time), which bounds open
//!   readers and their buffers.
//!
//! String keys under a non-binary collation are compared through sort keys
//! computed once per row while sorting a buffer; merges compare with
//! [`sort_cmp`] directly, which orders identically.

use super::mem::{row_bytes, MemBudget};
use super::spill::{RunReader, SpillFile};
use crate::plan::SortKey;
use crate::value::compare::sort_cmp;
use basalt_common::fixedbin;
use basalt_common::{MySqlError, Row, Value};
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::path::PathBuf;

type R<T> = Result<T, MySqlError>;

/// Most runs merged at once.
pub const FAN_IN: usize = 32;
/// Largest `offset + limit` served by a top-N heap.
pub const TOP_N_MAX: u64 = 10_000;
/// Read buffer per run while merging.
const MERGE_BUFFER: usize = 64 << 10;
/// The smallest sort buffer (MariaDB's minimum `sort_buffer_size` is 1K; a few
/// rows per run would only multiply merge passes).
const MIN_RUN_BYTES: usize = 64 << 10;

/// Compares two rows by `keys`.
pub fn cmp_rows(a: &[Value], b: &[Value], keys: &[SortKey]) -> Ordering {
    for k in keys {
        let o = key_cmp(k, &a[k.column], &b[k.column]);
        let o = if k.desc { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// Sorts rows by `keys` (stable). String columns under a non-binary collation are
/// compared through sort keys computed once per row: a collation comparison
/// works out the weights of both strings every time it is called.
pub fn sort_rows(rows: &mut Vec<Row>, keys: &[SortKey]) {
    if keys.is_empty() || rows.len() < 2 {
        return;
    }
    let keyed: Vec<bool> = keys.iter().map(|k| string_column(rows, k)).collect();
    if !keyed.contains(&true) {
        rows.sort_by(|a, b| cmp_rows(a, b, keys));
        return;
    }
    let mut dec: Vec<(Vec<Option<Vec<u8>>>, Row)> = rows
        .drain(..)
        .map(|r| (weights_of(&r, keys, &keyed), r))
        .collect();
    dec.sort_by(|(wa, a), (wb, b)| {
        for (i, k) in keys.iter().enumerate() {
            let o = if keyed[i] {
                wa[i].cmp(&wb[i])
            } else {
                key_cmp(k, &a[k.column], &b[k.column])
            };
            let o = if k.desc { o.reverse() } else { o };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    });
    rows.extend(dec.into_iter().map(|(_, r)| r));
}

/// A key column holding only strings (and NULLs) under a non-binary collation:
/// there the order of the collation's sort keys (NULL first) is `sort_cmp`'s.
/// One key's order of two values.
fn key_cmp(k: &SortKey, a: &Value, b: &Value) -> Ordering {
    match (k.fixed, a, b) {
        (Some(f), Value::Bytes(x), Value::Bytes(y)) => {
            let inet6 = f.is_inet6();
            fixedbin::sort_key(inet6, x).cmp(&fixedbin::sort_key(inet6, y))
        }
        _ => sort_cmp(a, b, k.coll),
    }
}

fn string_column(rows: &[Row], k: &SortKey) -> bool {
    (k.fixed.is_some() || !k.coll.is_binary())
        && rows
            .iter()
            .all(|r| matches!(r[k.column], Value::Bytes(_) | Value::Null))
}

/// The sort keys of the `keyed` columns of one row (`None` for NULL and for
/// columns compared as values).
fn weights_of(row: &[Value], keys: &[SortKey], keyed: &[bool]) -> Vec<Option<Vec<u8>>> {
    keys.iter()
        .zip(keyed)
        .map(|(k, &on)| match &row[k.column] {
            Value::Bytes(b) if on && k.fixed.is_some() => {
                let inet6 = k.fixed.is_some_and(|f| f.is_inet6());
                Some(fixedbin::sort_key(inet6, b).to_vec())
            }
            Value::Bytes(b) if on => {
                let mut w = Vec::with_capacity(3 * b.len());
                k.coll.sort_key(b, &mut w);
                Some(w)
            }
            _ => None,
        })
        .collect()
}

/// A row with its arrival number, ordered by (keys, arrival).
struct Ranked<'k> {
    row: Row,
    seq: u64,
    keys: &'k [SortKey],
}

impl Ord for Ranked<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_rows(&self.row, &other.row, self.keys).then(self.seq.cmp(&other.seq))
    }
}
impl PartialOrd for Ranked<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for Ranked<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Ranked<'_> {}

/// Runs written to one spill file.
struct Runs {
    file: SpillFile,
    bounds: Vec<(u64, u64)>,
    end: u64,
}

impl Runs {
    fn write(&mut self, rows: impl IntoIterator<Item = R<Row>>) -> R<()> {
        for r in rows {
            self.file.push(&r?)?;
        }
        let end = self.file.mark()?;
        self.bounds.push((self.end, end));
        self.end = end;
        Ok(())
    }
}

enum Mode<'k> {
    Buffer {
        rows: Vec<Row>,
        bytes: usize,
        run_limit: usize,
        runs: Option<Runs>,
    },
    TopN {
        heap: BinaryHeap<Ranked<'k>>,
        want: usize,
        bytes: usize,
    },
}

/// Collects rows and returns them sorted (see the module docs).
pub struct Sorter<'k> {
    keys: &'k [SortKey],
    dir: PathBuf,
    seq: u64,
    mode: Mode<'k>,
}

impl<'k> Sorter<'k> {
    /// `want`: rows the caller will take at most (`offset + limit`), if known;
    /// `run_limit`: `sort_buffer_size`; `dir`: where runs go.
    pub fn new(keys: &'k [SortKey], want: Option<u64>, run_limit: usize, dir: PathBuf) -> Self {
        let mode = match want {
            Some(n) if n <= TOP_N_MAX => Mode::TopN {
                heap: BinaryHeap::with_capacity(n as usize + 1),
                want: n as usize,
                bytes: 0,
            },
            _ => Mode::Buffer {
                rows: Vec::new(),
                bytes: 0,
                run_limit: run_limit.max(MIN_RUN_BYTES),
                runs: None,
            },
        };
        Sorter {
            keys,
            dir,
            seq: 0,
            mode,
        }
    }

    pub fn push(&mut self, row: Row, mem: &mut MemBudget) -> R<()> {
        self.seq += 1;
        let size = row_bytes(&row);
        match &mut self.mode {
            Mode::TopN { heap, want, bytes } => {
                if *want == 0 {
                    return Ok(());
                }
                let r = Ranked {
                    row,
                    seq: self.seq,
                    keys: self.keys,
                };
                if heap.len() == *want {
                    match heap.peek() {
                        Some(worst) if r < *worst => {}
                        _ => return Ok(()),
                    }
                    if let Some(out) = heap.pop() {
                        let n = row_bytes(&out.row);
                        mem.release(n);
                        *bytes -= n;
                    }
                }
                mem.charge(size)?;
                *bytes += size;
                heap.push(r);
                Ok(())
            }
            Mode::Buffer {
                rows,
                bytes,
                run_limit,
                runs,
            } => {
                mem.charge(size)?;
                *bytes += size;
                rows.push(row);
                if *bytes > *run_limit {
                    sort_rows(rows, self.keys);
                    let runs = match runs {
                        Some(r) => r,
                        None => runs.insert(Runs {
                            file: SpillFile::create(&self.dir)?,
                            bounds: Vec::new(),
                            end: 0,
                        }),
                    };
                    runs.write(rows.drain(..).map(Ok))?;
                    mem.release(*bytes);
                    *bytes = 0;
                }
                Ok(())
            }
        }
    }

    /// Counts this sort in the status counters: `Sort_rows`, one of
    /// `Sort_range` / `Sort_scan` (`ranged`: its input was read by key ranges),
    /// `Sort_priority_queue_sorts` for a top-N heap, and `Sort_merge_passes`
    /// for the merges of runs spilled to disk.
    pub fn count(&self, c: &crate::stats::Counters, ranged: bool) {
        use crate::stats::Stat;
        c.bump(if ranged {
            Stat::SortRange
        } else {
            Stat::SortScan
        });
        // Rows the sort gives back, as MariaDB counts them.
        let rows = match &self.mode {
            Mode::TopN { want, .. } => self.seq.min(*want as u64),
            Mode::Buffer { .. } => self.seq,
        };
        c.add(Stat::SortRows, rows);
        match &self.mode {
            Mode::TopN { .. } => c.bump(Stat::SortPriorityQueueSorts),
            Mode::Buffer {
                runs: Some(runs),
                rows,
                ..
            } => {
                let mut n = runs.bounds.len() + usize::from(!rows.is_empty());
                let mut passes = 1;
                while n > FAN_IN {
                    n = n.div_ceil(FAN_IN);
                    passes += 1;
                }
                c.add(Stat::SortMergePasses, passes);
            }
            Mode::Buffer { .. } => {}
        }
    }

    /// Whether rows went to disk.
    #[cfg(test)]
    pub fn spilled(&self) -> bool {
        matches!(&self.mode, Mode::Buffer { runs: Some(_), .. })
    }

    /// The rows in order.
    pub fn finish(self) -> R<Sorted<'k>> {
        let keys = self.keys;
        match self.mode {
            Mode::TopN { heap, .. } => {
                let rows: Vec<Row> = heap.into_sorted_vec().into_iter().map(|r| r.row).collect();
                Ok(Sorted::Mem(rows.into_iter()))
            }
            Mode::Buffer {
                mut rows,
                runs: None,
                ..
            } => {
                sort_rows(&mut rows, keys);
                Ok(Sorted::Mem(rows.into_iter()))
            }
            Mode::Buffer {
                mut rows,
                runs: Some(mut runs),
                ..
            } => {
                if !rows.is_empty() {
                    sort_rows(&mut rows, keys);
                    runs.write(rows.drain(..).map(Ok))?;
                }
                while runs.bounds.len() > FAN_IN {
                    runs = merge_pass(runs, keys, &self.dir)?;
                }
                Ok(Sorted::Merge(Merger::new(&runs.file, &runs.bounds, keys)?))
            }
        }
    }
}

/// Merges groups of [`FAN_IN`] runs into one run each, in a new file.
fn merge_pass(runs: Runs, keys: &[SortKey], dir: &std::path::Path) -> R<Runs> {
    let mut out = Runs {
        file: SpillFile::create(dir)?,
        bounds: Vec::new(),
        end: 0,
    };
    for group in runs.bounds.chunks(FAN_IN) {
        let mut m = Merger::new(&runs.file, group, keys)?;
        out.write(std::iter::from_fn(|| m.next_row().transpose()))?;
    }
    Ok(out)
}

/// The head row of one run in the merge heap (a min-heap by keys, then run).
struct Head<'k> {
    row: Row,
    run: usize,
    keys: &'k [SortKey],
}

impl Ord for Head<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_rows(&other.row, &self.row, self.keys).then(other.run.cmp(&self.run))
    }
}
impl PartialOrd for Head<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for Head<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Head<'_> {}

/// A k-way merge of sorted runs.
pub struct Merger<'k> {
    keys: &'k [SortKey],
    readers: Vec<RunReader>,
    heap: BinaryHeap<Head<'k>>,
}

impl<'k> Merger<'k> {
    fn new(file: &SpillFile, bounds: &[(u64, u64)], keys: &'k [SortKey]) -> R<Self> {
        let mut readers: Vec<RunReader> = bounds
            .iter()
            .map(|&(s, e)| file.reader(s, e, MERGE_BUFFER))
            .collect();
        let mut heap = BinaryHeap::with_capacity(readers.len());
        for (run, r) in readers.iter_mut().enumerate() {
            if let Some(row) = r.next_row()? {
                heap.push(Head { row, run, keys });
            }
        }
        Ok(Merger {
            keys,
            readers,
            heap,
        })
    }

    fn next_row(&mut self) -> R<Option<Row>> {
        let Some(Head { row, run, .. }) = self.heap.pop() else {
            return Ok(None);
        };
        if let Some(next) = self.readers[run].next_row()? {
            self.heap.push(Head {
                row: next,
                run,
                keys: self.keys,
            });
        }
        Ok(Some(row))
    }
}

/// Sorted rows, from memory or merged from runs on disk.
pub enum Sorted<'k> {
    Mem(std::vec::IntoIter<Row>),
    Merge(Merger<'k>),
}

impl Sorted<'_> {
    pub fn next_row(&mut self) -> R<Option<Row>> {
        match self {
            Sorted::Mem(it) => Ok(it.next()),
            Sorted::Merge(m) => m.next_row(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_common::Collation;

    fn key(column: usize, desc: bool, coll: Collation) -> SortKey {
        SortKey {
            column,
            desc,
            coll,
            fixed: None,
        }
    }

    #[test]
    fn sort_keys_agree_with_collation_order() {
        let ci = Collation::Utf8mb4GeneralCi;
        let words = ["b", "A", "a ", "Ä", "ab", "", "B"];
        let mut rows: Vec<Row> = words
            .iter()
            .enumerate()
            .map(|(i, w)| vec![Value::str(w), Value::Int(i as i64)])
            .collect();
        rows.push(vec![Value::Null, Value::Int(99)]);
        let mut expected = rows.clone();
        let keys = [key(0, false, ci), key(1, true, Collation::Binary)];
        expected.sort_by(|a, b| cmp_rows(a, b, &keys));
        sort_rows(&mut rows, &keys);
        assert_eq!(rows, expected);
        assert_eq!(rows[0][0], Value::Null);
        let desc = [key(0, true, ci)];
        let mut expected = rows.clone();
        expected.sort_by(|a, b| cmp_rows(a, b, &desc));
        sort_rows(&mut rows, &desc);
        assert_eq!(rows, expected);
    }

    #[test]
    fn mixed_kinds_keep_value_comparison() {
        let ci = Collation::Utf8mb4GeneralCi;
        let mut rows: Vec<Row> = vec![
            vec![Value::str("10")],
            vec![Value::Int(9)],
            vec![Value::str("2")],
        ];
        let keys = [key(0, false, ci)];
        let mut expected = rows.clone();
        expected.sort_by(|a, b| cmp_rows(a, b, &keys));
        sort_rows(&mut rows, &keys);
        assert_eq!(rows, expected);
    }

    /// Rows whose first column repeats (so stability shows) and whose second
    /// column is the arrival number.
    fn input(n: i64) -> Vec<Row> {
        (0..n)
            .map(|i| {
                vec![
                    Value::str(&format!("k{:03}", (i * 7919) % 97)),
                    Value::Int(i),
                ]
            })
            .collect()
    }

    fn drain(mut s: Sorted<'_>) -> Vec<Row> {
        let mut out = Vec::new();
        while let Some(r) = s.next_row().expect("next") {
            out.push(r);
        }
        out
    }

    #[test]
    fn external_sort_matches_in_memory_sort_and_is_stable() {
        let dir = tempfile::tempdir().expect("tempdir");
        let keys = [key(0, true, Collation::Utf8mb4GeneralCi)];
        let rows = input(20_000);
        let mut expected = rows.clone();
        expected.sort_by(|a, b| cmp_rows(a, b, &keys));
        let mut mem = MemBudget::new(1 << 30);
        // A tiny run limit: hundreds of runs, so merge passes happen too.
        let mut s = Sorter::new(&keys, None, 1, dir.path().to_path_buf());
        for r in rows {
            s.push(r, &mut mem).expect("push");
        }
        assert!(s.spilled());
        assert!(mem.used() <= MIN_RUN_BYTES + 200, "runs released");
        assert_eq!(drain(s.finish().expect("finish")), expected);
    }

    #[test]
    fn top_n_keeps_the_first_rows_of_the_stable_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let keys = [key(0, false, Collation::Utf8mb4GeneralCi)];
        let rows = input(5_000);
        let mut expected = rows.clone();
        expected.sort_by(|a, b| cmp_rows(a, b, &keys));
        for want in [0u64, 1, 10, 777] {
            let mut mem = MemBudget::new(1 << 30);
            let mut s = Sorter::new(&keys, Some(want), 1, dir.path().to_path_buf());
            for r in rows.clone() {
                s.push(r, &mut mem).expect("push");
            }
            assert!(!s.spilled());
            assert_eq!(
                drain(s.finish().expect("finish")),
                expected[..want as usize].to_vec()
            );
        }
    }

    #[test]
    fn buffered_rows_count_against_the_budget() {
        let dir = tempfile::tempdir().expect("tempdir");
        let keys = [key(0, false, Collation::Binary)];
        let mut mem = MemBudget::new(8192);
        let mut s = Sorter::new(&keys, Some(5000), 1 << 30, dir.path().to_path_buf());
        let e = (0..5000)
            .try_for_each(|i| s.push(vec![Value::Int(i)], &mut mem))
            .expect_err("over the budget");
        assert_eq!(e.code, 1290);
    }
}
