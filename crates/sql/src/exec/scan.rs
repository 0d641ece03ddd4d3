//! Join levels as nested loops.
//!
//! For each level the access path is evaluated against the row built so far (key
//! values may come from earlier tables), rows are fetched from storage and placed in
//! the table's slot of the joined row, and the level's filter decides whether the
//! row matches. When every key value converted exactly, the filter without the
//! conjuncts the index guarantees (`residual`) is used. An outer level with no
//! match contributes one NULL row.

use super::analyze::LevelCount;
use super::hash_join::HashTable;
use super::{storage_err, Exec};
use crate::expr::{EvalCtx, Expr};
use crate::plan::range::{convert, key_ranges, stored_key, stored_range, Conv, EvalRange};
use crate::plan::{Access, Level, RangeSpec, SelectPlan};
use crate::stats::Stat;
use basalt_common::{EngineKind, MySqlError, Value};
use basalt_storage::{KeyRange, LockMode, RowHandle, ScanRequest};
use std::cell::RefCell;
use std::rc::Rc;

pub type R<T> = Result<T, MySqlError>;

/// Whether the driver should keep producing rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
}

/// Receives each joined row (and the handle of the last level's row).
pub type Sink<'s> = dyn FnMut(&[Value], Option<&RowHandle>, &mut EvalCtx) -> R<Flow> + 's;

/// Runs the join levels of `plan`, calling `sink` for every joined row that passes.
pub fn drive(plan: &SelectPlan, ex: &mut Exec, sink: &mut Sink) -> R<()> {
    drive_expecting(plan, ex, sink, None)
}

/// [`drive`] for statements that change rows of several tables: each table is
/// read with its own lock mode (`locks`, by table), and `handles` holds, while
/// `sink` runs, the handle of every table's current row (`None` for a
/// NULL-extended one).
pub fn drive_tracking(
    plan: &SelectPlan,
    ex: &mut Exec,
    locks: Vec<LockMode>,
    handles: Rc<RefCell<Vec<Option<RowHandle>>>>,
    sink: &mut Sink,
) -> R<()> {
    let st = JoinState {
        locks,
        handles: Some(handles),
        ..JoinState::default()
    };
    run_levels(plan, ex, sink, None, st)
}

/// Whether a single-table plan finds no row whatever the data: its constant
/// filter fails, or its key lookup compares a key column with NULL. MariaDB
/// notices these before reading (an impossible WHERE), and its UPDATE then sends
/// no info string.
pub fn finds_nothing(plan: &SelectPlan, ex: &mut Exec) -> R<bool> {
    if let Some(f) = &plan.const_filter {
        if f.eval_bool(&[], ex.ctx)? != Some(true) {
            return Ok(true);
        }
    }
    let [l] = plan.levels.as_slice() else {
        return Ok(false);
    };
    let row = vec![Value::Null; plan.row_width];
    match &l.access {
        Access::PkGet { key } => Ok(eval_all(key, &row, ex.ctx)?.iter().any(Value::is_null)),
        Access::Index {
            range: RangeSpec::Prefix { eq, .. },
            ..
        } => Ok(eval_eq(eq, &row, ex.ctx)?.is_none()),
        Access::Index { .. } => Ok(false),
    }
}

/// [`drive`], telling the index cursor of a single-table plan that the sink
/// expects to take about `rows` rows (a LIMIT), so storage reads no more up front.
pub fn drive_expecting(
    plan: &SelectPlan,
    ex: &mut Exec,
    sink: &mut Sink,
    rows: Option<u64>,
) -> R<()> {
    let hint = rows
        .filter(|_| plan.levels.len() == 1)
        .map(|n| n.min(usize::MAX as u64) as usize);
    run_levels(plan, ex, sink, hint, JoinState::default())
}

fn run_levels(
    plan: &SelectPlan,
    ex: &mut Exec,
    sink: &mut Sink,
    hint: Option<usize>,
    mut st: JoinState,
) -> R<()> {
    if let Some(f) = &plan.const_filter {
        if f.eval_bool(&[], ex.ctx)? != Some(true) {
            return Ok(());
        }
    }
    let mut row = vec![Value::Null; plan.row_width];
    if plan.levels.is_empty() {
        sink(&row, None, ex.ctx)?;
        return Ok(());
    }
    count_join(plan, ex.ctx.cx);
    if plan.levels.len() > 1 && plan.levels.iter().any(|l| l.hash.is_some()) {
        st.hashed = vec![Hashed::NotBuilt; plan.levels.len()];
    }
    let out = level(plan, 0, &mut row, ex, sink, hint, &mut st);
    for h in &st.hashed {
        if let Hashed::Built(t) = h {
            ex.ctx.mem.release(t.charged());
        }
    }
    out.map(|_| ())
}

/// What the levels keep across outer rows during one run: the hash tables of
/// hash-joined levels, built when first probed; for [`drive_tracking`], the lock
/// mode of each table and the handles of the current rows.
#[derive(Default)]
pub(super) struct JoinState {
    hashed: Vec<Hashed>,
    /// By table; empty: every table is read with the plan's lock mode.
    locks: Vec<LockMode>,
    /// By table: the handle of its row in the joined row being built.
    handles: Option<Rc<RefCell<Vec<Option<RowHandle>>>>>,
}

impl JoinState {
    fn lock(&self, plan: &SelectPlan, table: usize) -> LockMode {
        self.locks.get(table).copied().unwrap_or(plan.lock)
    }

    /// Records the handle of table `table`'s current row (tracking runs only).
    #[inline]
    fn track(&self, table: usize, handle: Option<&RowHandle>) {
        if let Some(h) = &self.handles {
            h.borrow_mut()[table] = handle.cloned();
        }
    }
}

#[derive(Clone)]
enum Hashed {
    NotBuilt,
    Built(Rc<HashTable>),
    /// The table did not fit in the memory budget: nested loop.
    Off,
}

fn passes(f: Option<&Expr>, row: &[Value], ctx: &mut EvalCtx) -> R<bool> {
    match f {
        None => Ok(true),
        Some(e) => Ok(e.eval_bool(row, ctx)? == Some(true)),
    }
}

fn level(
    plan: &SelectPlan,
    li: usize,
    row: &mut Vec<Value>,
    ex: &mut Exec,
    sink: &mut Sink,
    hint: Option<usize>,
    st: &mut JoinState,
) -> R<Flow> {
    let l = &plan.levels[li];
    if l.hash.is_some() && !matches!(st.hashed[li], Hashed::Off) {
        return hashed_level(plan, li, row, ex, sink, st);
    }
    nested_level(plan, li, row, ex, sink, hint, st)
}

/// A level as a nested loop: its access path run for the current outer row.
fn nested_level(
    plan: &SelectPlan,
    li: usize,
    row: &mut Vec<Value>,
    ex: &mut Exec,
    sink: &mut Sink,
    hint: Option<usize>,
    st: &mut JoinState,
) -> R<Flow> {
    if ex.ctx.analyze.is_some() {
        nested_loop::<true>(plan, li, row, ex, sink, hint, st)
    } else {
        nested_loop::<false>(plan, li, row, ex, sink, hint, st)
    }
}

/// [`nested_level`]; `TRACK`: ANALYZE is counting what the level reads.
fn nested_loop<const TRACK: bool>(
    plan: &SelectPlan,
    li: usize,
    row: &mut Vec<Value>,
    ex: &mut Exec,
    sink: &mut Sink,
    hint: Option<usize>,
    st: &mut JoinState,
) -> R<Flow> {
    let l = &plan.levels[li];
    let t = &plan.tables[l.table];
    let last = li + 1 == plan.levels.len();
    let single = plan.levels.len() == 1 && t.width() == row.len();
    let mut source = open(plan, l, row, ex, st.lock(plan, l.table))?;
    if let Rows::Ranges { expect, .. } = &mut source.rows {
        *expect = hint;
    }
    let filter = if source.exact {
        l.residual.as_ref()
    } else {
        l.filter.as_ref()
    };
    let mut matched = false;
    let mut fetched = source.rows;
    let mut n = 0u32;
    let mut count = LevelCount::<TRACK>::default();
    loop {
        n = n.wrapping_add(1);
        if n.is_multiple_of(256) {
            ex.check_interrupt()?;
        }
        count.start_read();
        let next = fetched.next(ex)?;
        count.end_read();
        let Some(mut f) = next else {
            break;
        };
        count.row();
        if single {
            std::mem::swap(row, &mut f.row);
        } else {
            row[t.offset..t.offset + t.width()].clone_from_slice(&f.row);
        }
        if !passes(filter, row, ex.ctx)? {
            continue;
        }
        matched = true;
        if !passes(l.post_filter.as_ref(), row, ex.ctx)? {
            continue;
        }
        count.pass();
        st.track(l.table, Some(&f.handle));
        let flow = if last {
            sink(row, Some(&f.handle), ex.ctx)?
        } else {
            level(plan, li + 1, row, ex, sink, None, st)?
        };
        if flow == Flow::Stop {
            fetched.note_reads(&t.def, ex);
            record(ex, l, count);
            return Ok(Flow::Stop);
        }
    }
    fetched.note_reads(&t.def, ex);
    record(ex, l, count);
    if l.outer && !matched {
        return unmatched(plan, li, row, ex, sink, st, matched);
    }
    Ok(Flow::Continue)
}

/// Counts one run of a join in `Select_scan` (its first table is read whole),
/// `Select_range` (by a range of keys) and `Select_full_join` (a later table
/// is read whole for the rows before it), as MariaDB counts its joins.
fn count_join(plan: &SelectPlan, cx: &crate::session::ctx::SessionCtx) {
    let whole = |l: &Level| {
        l.hash.is_some()
            || matches!(
                l.access,
                Access::Index {
                    range: RangeSpec::All,
                    ..
                }
            )
    };
    let c = &cx.stats.counters;
    let first = &plan.levels[0];
    c.set_ranged_read(!whole(first));
    if whole(first) {
        c.bump(Stat::SelectScan);
    } else if let Access::Index { range, .. } = &first.access {
        let ranged = match range {
            RangeSpec::Prefix { lower, upper, .. } => lower.is_some() || upper.is_some(),
            RangeSpec::Points(p) => p.len() > 1,
            RangeSpec::All => false,
        };
        if ranged {
            c.bump(Stat::SelectRange);
        }
    }
    if plan.levels[1..].iter().any(whole) {
        c.bump(Stat::SelectFullJoin);
    }
}

/// Hands one entry's counts to the ANALYZE tracker, when there is one.
#[inline(always)]
fn record<const TRACK: bool>(ex: &Exec, l: &Level, count: LevelCount<TRACK>) {
    if TRACK {
        if let Some(t) = &ex.ctx.analyze {
            t.record(l, count.rows, count.passed, count.time);
        }
    }
}

/// A candidate row of level `li`, already in place in `row`: checks `filter`
/// (which decides a match) and the post-filter, then goes on to the next level
/// or the sink.
#[allow(clippy::too_many_arguments)]
fn pass_on(
    plan: &SelectPlan,
    li: usize,
    row: &mut Vec<Value>,
    ex: &mut Exec,
    sink: &mut Sink,
    st: &mut JoinState,
    filter: Option<&Expr>,
    handle: &RowHandle,
    matched: &mut bool,
    count: &mut LevelCount<true>,
) -> R<Flow> {
    let l = &plan.levels[li];
    if !passes(filter, row, ex.ctx)? {
        return Ok(Flow::Continue);
    }
    *matched = true;
    if !passes(l.post_filter.as_ref(), row, ex.ctx)? {
        return Ok(Flow::Continue);
    }
    count.pass();
    st.track(l.table, Some(handle));
    if li + 1 == plan.levels.len() {
        sink(row, Some(handle), ex.ctx)
    } else {
        level(plan, li + 1, row, ex, sink, None, st)
    }
}

/// After the rows of level `li`: an outer level with no match contributes one
/// NULL row.
fn unmatched(
    plan: &SelectPlan,
    li: usize,
    row: &mut Vec<Value>,
    ex: &mut Exec,
    sink: &mut Sink,
    st: &mut JoinState,
    matched: bool,
) -> R<Flow> {
    let l = &plan.levels[li];
    let t = &plan.tables[l.table];
    if l.outer && !matched {
        for v in &mut row[t.offset..t.offset + t.width()] {
            *v = Value::Null;
        }
        if passes(l.post_filter.as_ref(), row, ex.ctx)? {
            st.track(l.table, None);
            return if li + 1 == plan.levels.len() {
                sink(row, None, ex.ctx)
            } else {
                level(plan, li + 1, row, ex, sink, None, st)
            };
        }
    }
    Ok(Flow::Continue)
}

/// A hash-joined level: the table's rows are read once into a hash table on
/// the join key; each outer row probes it.
#[inline(never)]
fn hashed_level(
    plan: &SelectPlan,
    li: usize,
    row: &mut Vec<Value>,
    ex: &mut Exec,
    sink: &mut Sink,
    st: &mut JoinState,
) -> R<Flow> {
    let l = &plan.levels[li];
    let t = &plan.tables[l.table];
    let table = match &st.hashed[li] {
        Hashed::Built(h) => h.clone(),
        _ => {
            let source = open(plan, l, row, ex, st.lock(plan, l.table))?;
            let Some(h) = HashTable::build(l, t, source.rows, row, ex)? else {
                st.hashed[li] = Hashed::Off;
                return nested_level(plan, li, row, ex, sink, None, st);
            };
            let h = Rc::new(h);
            st.hashed[li] = Hashed::Built(h.clone());
            h
        }
    };
    let mut n = 0u32;
    // A hash-joined level counts always (two additions per probed row): the
    // hashing costs far more.
    let mut count = LevelCount::<true>::default();
    let mut matched = false;
    for f in table.probe(l, row, ex)? {
        n = n.wrapping_add(1);
        if n.is_multiple_of(256) {
            ex.check_interrupt()?;
        }
        count.row();
        row[t.offset..t.offset + t.width()].clone_from_slice(&f.row);
        let filter = l.filter.as_ref();
        let flow = pass_on(
            plan,
            li,
            row,
            ex,
            sink,
            st,
            filter,
            &f.handle,
            &mut matched,
            &mut count,
        )?;
        if flow == Flow::Stop {
            record(ex, l, count);
            return Ok(Flow::Stop);
        }
    }
    record(ex, l, count);
    unmatched(plan, li, row, ex, sink, st, matched)
}

/// The rows of one level's access, for the current outer row.
struct Source {
    rows: Rows,
    /// Key values converted exactly: the residual filter suffices.
    exact: bool,
}

pub(super) enum Rows {
    Empty,
    One(Option<basalt_storage::Fetched>),
    /// Rows computed for the current outer row (a JSON_TABLE).
    Many(std::vec::IntoIter<basalt_storage::Fetched>),
    Ranges {
        table: std::sync::Arc<dyn basalt_storage::Table>,
        base: ScanRequest,
        ranges: std::vec::IntoIter<KeyRange>,
        cursor: Option<Box<dyn basalt_storage::Cursor>>,
        /// Rows the caller expects to take (see [`drive_expecting`]).
        expect: Option<usize>,
        /// The status counters its reads count in.
        reads: Reads,
        /// Rows read so far not yet noted for INDEX_STATISTICS.
        read: u64,
    },
}

/// The `Handler_*` counters a scan counts in, as MariaDB's handler calls do: a
/// table scan reads with `rnd_next`; an index scan starts each range with a key
/// read (`read_key`, or `read_first` / `read_last` for a whole index) and goes
/// on with `read_next` / `read_prev`. Every row also counts in `Rows_read`, and
/// in `Innodb_rows_read` for a durable table.
#[derive(Clone, Copy)]
pub(super) struct Reads {
    start: Option<Stat>,
    row: Stat,
    durable: bool,
}

impl Reads {
    fn table_scan(def: &basalt_common::TableDef) -> Reads {
        Reads {
            start: None,
            row: Stat::HandlerReadRndNext,
            durable: def.engine == EngineKind::Basalt,
        }
    }

    fn index(def: &basalt_common::TableDef, whole: bool, reverse: bool) -> Reads {
        Reads {
            start: Some(match (whole, reverse) {
                (false, _) => Stat::HandlerReadKey,
                (true, false) => Stat::HandlerReadFirst,
                (true, true) => Stat::HandlerReadLast,
            }),
            row: if reverse {
                Stat::HandlerReadPrev
            } else {
                Stat::HandlerReadNext
            },
            durable: def.engine == EngineKind::Basalt,
        }
    }
}

/// Counts one row read from a table.
#[inline]
pub(super) fn count_row(cx: &crate::session::ctx::SessionCtx, durable: bool) {
    let c = &cx.stats.counters;
    c.bump(Stat::RowsRead);
    if durable {
        c.bump(Stat::InnodbRowsRead);
    }
}

impl Rows {
    /// Notes the rows read so far for TABLE_STATISTICS / INDEX_STATISTICS.
    pub(super) fn note_reads(
        &mut self,
        def: &std::sync::Arc<basalt_common::TableDef>,
        ex: &mut Exec,
    ) {
        if let Rows::Ranges { base, read, .. } = self {
            if *read > 0 {
                ex.ctx.cx.notes.read(def, base.index_id, *read);
                *read = 0;
            }
        }
    }

    pub(super) fn next(&mut self, ex: &mut Exec) -> R<Option<basalt_storage::Fetched>> {
        match self {
            Rows::Empty => Ok(None),
            Rows::One(f) => Ok(f.take()),
            Rows::Many(it) => Ok(it.next()),
            Rows::Ranges {
                table,
                base,
                ranges,
                cursor,
                expect,
                reads,
                read,
            } => loop {
                if let Some(c) = cursor {
                    match c.next(ex.txn()?).map_err(storage_err)? {
                        Some(f) => {
                            *read += 1;
                            let cx = &*ex.ctx.cx;
                            cx.stats.counters.bump(reads.row);
                            count_row(cx, reads.durable);
                            return Ok(Some(f));
                        }
                        None => {
                            // A table scan's last rnd_next call finds the end.
                            if reads.start.is_none() {
                                ex.ctx.cx.stats.counters.bump(reads.row);
                            }
                            *cursor = None
                        }
                    }
                }
                let Some(r) = ranges.next() else {
                    return Ok(None);
                };
                if let Some(s) = reads.start {
                    ex.ctx.cx.stats.counters.bump(s);
                }
                let mut req = base.clone();
                req.range = r;
                let mut c = table.scan(ex.txn()?, req).map_err(storage_err)?;
                if let Some(n) = expect.take() {
                    c.expect_rows(n);
                }
                *cursor = Some(c);
            },
        }
    }
}

fn eval_all(list: &[Expr], row: &[Value], ctx: &mut EvalCtx) -> R<Vec<Value>> {
    list.iter().map(|e| e.eval(row, ctx)).collect()
}

/// The values of an equality prefix (`IS NULL` parts as NULL), or `None` when an
/// equality compares with NULL and so matches nothing.
fn eval_eq(list: &[Option<Expr>], row: &[Value], ctx: &mut EvalCtx) -> R<Option<Vec<Value>>> {
    let mut out = Vec::with_capacity(list.len());
    for e in list {
        match e {
            None => out.push(Value::Null),
            Some(e) => match e.eval(row, ctx)? {
                Value::Null => return Ok(None),
                v => out.push(v),
            },
        }
    }
    Ok(Some(out))
}

fn open(plan: &SelectPlan, l: &Level, row: &[Value], ex: &mut Exec, lock: LockMode) -> R<Source> {
    let t = &plan.tables[l.table];
    let def = &t.def;
    if let Some(f) = &t.func {
        let rows = super::json_table::rows(f, def, row, ex)?;
        return Ok(Source {
            rows: Rows::Many(rows.into_iter()),
            exact: false,
        });
    }
    match &l.access {
        Access::PkGet { key } => {
            let mut vals = eval_all(key, row, ex.ctx)?;
            if let Some(z) = &ex.ctx.cx.zone {
                for (v, kc) in vals.iter_mut().zip(&def.indexes[0].columns) {
                    *v = stored_key(std::mem::take(v), &def.columns[kc.column], z);
                }
            }
            let mut pk = Vec::with_capacity(vals.len());
            for (v, kc) in vals.iter().zip(&def.indexes[0].columns) {
                match convert(v, &def.columns[kc.column]) {
                    Conv::Exact(Value::Null) => {
                        return Ok(Source {
                            rows: Rows::Empty,
                            exact: true,
                        })
                    }
                    Conv::Exact(k) => pk.push(k),
                    Conv::Between { .. } => {
                        return Ok(Source {
                            rows: Rows::Empty,
                            exact: true,
                        })
                    }
                    Conv::Unusable => return full_scan(plan, l, lock),
                }
            }
            let txn = ex.txn()?;
            let got = if lock == LockMode::Consistent {
                t.table.get_columns(txn, &pk, &l.columns)
            } else {
                t.table.get(txn, &pk, lock, plan.wait)
            };
            let got = got.map_err(storage_err)?;
            let cx = &*ex.ctx.cx;
            cx.stats.counters.bump(Stat::HandlerReadKey);
            if got.is_some() {
                count_row(cx, def.engine == EngineKind::Basalt);
                ex.ctx.cx.notes.read(&t.def, def.indexes[0].id, 1);
            }
            Ok(Source {
                rows: Rows::One(got),
                exact: true,
            })
        }
        Access::Index {
            index_id,
            range,
            reverse,
            covering,
        } => {
            let idx = def
                .index_by_id(*index_id)
                .ok_or_else(|| MySqlError::internal("index vanished"))?;
            let spec = match range {
                RangeSpec::All => EvalRange::All,
                RangeSpec::Points(p) => EvalRange::Points(
                    p.iter()
                        .map(|k| eval_all(k, row, ex.ctx))
                        .collect::<R<_>>()?,
                ),
                RangeSpec::Prefix { eq, lower, upper } => match eval_eq(eq, row, ex.ctx)? {
                    None => EvalRange::Empty,
                    Some(eq) => EvalRange::Prefix {
                        eq,
                        lower: match lower {
                            Some((e, i)) => Some((e.eval(row, ex.ctx)?, *i)),
                            None => None,
                        },
                        upper: match upper {
                            Some((e, i)) => Some((e.eval(row, ex.ctx)?, *i)),
                            None => None,
                        },
                    },
                },
            };
            let spec = match &ex.ctx.cx.zone {
                Some(z) => stored_range(spec, idx, &def.columns, z),
                None => spec,
            };
            let whole = matches!(spec, EvalRange::All);
            let (mut ranges, exact) = key_ranges(spec, idx, &def.columns);
            if *reverse {
                ranges.reverse();
            }
            let _ = covering;
            let columns = l.columns.clone();
            let base = ScanRequest {
                index_id: *index_id,
                range: KeyRange::all(),
                reverse: *reverse,
                columns,
                lock,
                wait: plan.wait,
            };
            Ok(Source {
                rows: Rows::Ranges {
                    table: t.table.clone(),
                    base,
                    ranges: ranges.into_iter(),
                    cursor: None,
                    expect: None,
                    read: 0,
                    // A whole primary key read forward is the table scan.
                    reads: if whole && !*reverse && *index_id == def.indexes[0].id {
                        Reads::table_scan(def)
                    } else {
                        Reads::index(def, whole, *reverse)
                    },
                },
                exact,
            })
        }
    }
}

fn full_scan(plan: &SelectPlan, l: &Level, lock: LockMode) -> R<Source> {
    let t = &plan.tables[l.table];
    let base = ScanRequest {
        index_id: t.def.indexes[0].id,
        range: KeyRange::all(),
        reverse: false,
        columns: (0..t.def.columns.len()).collect(),
        lock,
        wait: plan.wait,
    };
    Ok(Source {
        rows: Rows::Ranges {
            table: t.table.clone(),
            base,
            ranges: vec![KeyRange::all()].into_iter(),
            cursor: None,
            expect: None,
            reads: Reads::table_scan(&t.def),
            read: 0,
        },
        exact: false,
    })
}
