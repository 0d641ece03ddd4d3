//! Join levels as nested loops.
//!
//! For each level the access path is evaluated against the row built so far (key
//! values may come from earlier tables), rows are fetched from storage and placed in
//! the table's slot of the joined row, and the level's filter decides whether the
//! row matches. When every key value converted exactly, the filter without the
//! conjuncts the index guarantees (`residual`) is used. An outer level with no
//! match contributes one NULL row.

use super::{storage_err, Exec};
use crate::expr::{EvalCtx, Expr};
use crate::plan::range::{convert, key_ranges, Conv, EvalRange};
use crate::plan::{Access, Level, RangeSpec, SelectPlan};
use basalt_common::{MySqlError, Value};
use basalt_storage::{KeyRange, LockMode, RowHandle, ScanRequest};

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

/// [`drive`], telling the index cursor of a single-table plan that the sink
/// expects to take about `rows` rows (a LIMIT), so storage reads no more up front.
pub fn drive_expecting(
    plan: &SelectPlan,
    ex: &mut Exec,
    sink: &mut Sink,
    rows: Option<u64>,
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
    let hint = rows
        .filter(|_| plan.levels.len() == 1)
        .map(|n| n.min(usize::MAX as u64) as usize);
    level(plan, 0, &mut row, ex, sink, hint).map(|_| ())
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
) -> R<Flow> {
    let l = &plan.levels[li];
    let t = &plan.tables[l.table];
    let last = li + 1 == plan.levels.len();
    let single = plan.levels.len() == 1 && t.width() == row.len();
    let mut source = open(plan, l, row, ex)?;
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
    loop {
        n = n.wrapping_add(1);
        if n.is_multiple_of(256) {
            ex.check_interrupt()?;
        }
        let Some(mut f) = fetched.next(ex)? else {
            break;
        };
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
        let flow = if last {
            sink(row, Some(&f.handle), ex.ctx)?
        } else {
            level(plan, li + 1, row, ex, sink, None)?
        };
        if flow == Flow::Stop {
            return Ok(Flow::Stop);
        }
    }
    if l.outer && !matched {
        for v in &mut row[t.offset..t.offset + t.width()] {
            *v = Value::Null;
        }
        if passes(l.post_filter.as_ref(), row, ex.ctx)? {
            return if last {
                sink(row, None, ex.ctx)
            } else {
                level(plan, li + 1, row, ex, sink, None)
            };
        }
    }
    Ok(Flow::Continue)
}

/// The rows of one level's access, for the current outer row.
struct Source {
    rows: Rows,
    /// Key values converted exactly: the residual filter suffices.
    exact: bool,
}

enum Rows {
    Empty,
    One(Option<basalt_storage::Fetched>),
    Ranges {
        table: std::sync::Arc<dyn basalt_storage::Table>,
        base: ScanRequest,
        ranges: std::vec::IntoIter<KeyRange>,
        cursor: Option<Box<dyn basalt_storage::Cursor>>,
        /// Rows the caller expects to take (see [`drive_expecting`]).
        expect: Option<usize>,
    },
}

impl Rows {
    fn next(&mut self, ex: &mut Exec) -> R<Option<basalt_storage::Fetched>> {
        match self {
            Rows::Empty => Ok(None),
            Rows::One(f) => Ok(f.take()),
            Rows::Ranges {
                table,
                base,
                ranges,
                cursor,
                expect,
            } => loop {
                if let Some(c) = cursor {
                    match c.next(ex.txn()?).map_err(storage_err)? {
                        Some(f) => return Ok(Some(f)),
                        None => *cursor = None,
                    }
                }
                let Some(r) = ranges.next() else {
                    return Ok(None);
                };
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

fn open(plan: &SelectPlan, l: &Level, row: &[Value], ex: &mut Exec) -> R<Source> {
    let t = &plan.tables[l.table];
    let def = &t.def;
    match &l.access {
        Access::PkGet { key } => {
            let vals = eval_all(key, row, ex.ctx)?;
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
                    Conv::Unusable => return full_scan(plan, l, ex),
                }
            }
            let txn = ex.txn()?;
            let got = if plan.lock == LockMode::Consistent {
                t.table.get_columns(txn, &pk, &l.columns)
            } else {
                t.table.get(txn, &pk, plan.lock, plan.wait)
            };
            Ok(Source {
                rows: Rows::One(got.map_err(storage_err)?),
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
                lock: plan.lock,
                wait: plan.wait,
            };
            Ok(Source {
                rows: Rows::Ranges {
                    table: t.table.clone(),
                    base,
                    ranges: ranges.into_iter(),
                    cursor: None,
                    expect: None,
                },
                exact,
            })
        }
    }
}

fn full_scan(plan: &SelectPlan, l: &Level, _ex: &mut Exec) -> R<Source> {
    let t = &plan.tables[l.table];
    let base = ScanRequest {
        index_id: t.def.indexes[0].id,
        range: KeyRange::all(),
        reverse: false,
        columns: (0..t.def.columns.len()).collect(),
        lock: plan.lock,
        wait: plan.wait,
    };
    Ok(Source {
        rows: Rows::Ranges {
            table: t.table.clone(),
            base,
            ranges: vec![KeyRange::all()].into_iter(),
            cursor: None,
            expect: None,
        },
        exact: false,
    })
}
