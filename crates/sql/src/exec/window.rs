//! The window stage of a SELECT: window functions over the rows after WHERE,
//! GROUP BY and HAVING, before the projection, DISTINCT, ORDER BY and LIMIT.
//!
//! 1. The input rows (joined rows passing HAVING when there is no GROUP BY, or the
//!    groups passing HAVING) are buffered, each with room for one value per window
//!    call after its `width` columns. The buffer is charged to the statement's
//!    memory budget (errno 1290 past `max_session_mem_used`, as every other
//!    operator that holds its input).
//! 2. For each distinct window specification the rows are ordered once by
//!    (PARTITION BY, ORDER BY) keys: the keys of every row, tagged with the row's
//!    position, go through [`sort_rows`] (stable, collation-aware), and the
//!    permutation is split into partitions and, within them, peer groups.
//!    Every call of that specification is then evaluated partition by partition
//!    ([`super::window_frame`]) and writes its value into its column.
//! 3. The rows are projected in the order of the last specification's sort,
//!    DISTINCT drops repeats, and ORDER BY (a [`super::sort::Sorter`], which
//!    spills past `sort_buffer_size`) / LIMIT apply as for any SELECT.
//!
//! Cost: one O(n log n) sort per distinct specification, and per call O(n) for
//! the ranking and offset functions and for aggregates over frames that only grow
//! (running aggregates) or slide with invertible aggregates (COUNT, SUM, AVG,
//! BIT_XOR: add the row entering, remove the row leaving) and for MIN / MAX
//! (a monotonic queue); other aggregates over frames whose start moves (BIT_AND,
//! BIT_OR, the variances) are recomputed per row, O(n * frame size). KILL QUERY and `max_statement_time`
//! are checked every few hundred rows.

use super::agg::Seen;
use super::mem::row_bytes;
use super::scan::{drive, Flow, R};
use super::select::{emit_sorted, project_into, row_key, sorter, Emit, Window};
use super::sort::sort_rows;
use super::Exec;
use crate::expr::EvalCtx;
use crate::plan::window::{WinSpec, WindowPlan};
use crate::plan::{SelectPlan, SortKey};
use crate::value::compare::sort_cmp;
use basalt_common::{Collation, Row, Value};
use std::cmp::Ordering;

/// Runs a SELECT with window functions, emitting its rows.
pub(super) fn run(
    plan: &SelectPlan,
    wp: &WindowPlan,
    ex: &mut Exec,
    mut win: Window,
    emit: &mut Emit,
) -> R<u64> {
    let mut rows = input_rows(plan, wp, ex)?;
    let mut order: Vec<usize> = (0..rows.len()).collect();
    for (si, spec) in wp.specs.iter().enumerate() {
        let (keys, bytes) = sorted(spec, &rows, ex)?;
        order = keys.iter().map(position).collect();
        let calls: Vec<usize> = (0..wp.calls.len())
            .filter(|&c| wp.calls[c].spec == si)
            .collect();
        for (a, b) in partitions(spec, &keys) {
            ex.check_interrupt()?;
            let part = Part {
                rows: &order[a..b],
                keys: &keys[a..b],
                range_key: spec.partition.len(),
                desc: spec.order.first().is_some_and(|o| o.1),
                peers: peer_groups(spec, &keys[a..b]),
            };
            for &ci in &calls {
                super::window_frame::evaluate(wp, ci, &mut rows, &part, ex)?;
            }
        }
        drop(keys);
        ex.ctx.mem.release(bytes);
    }
    output(plan, rows, &order, ex, &mut win, emit)
}

/// The input rows of the window stage, widened for the window values.
fn input_rows(plan: &SelectPlan, wp: &WindowPlan, ex: &mut Exec) -> R<Vec<Row>> {
    let width = wp.width + wp.calls.len();
    let mut rows: Vec<Row> = Vec::new();
    if plan.agg.is_some() {
        for mut g in super::select::groups(plan, ex)? {
            if let Some(h) = &plan.having {
                if h.eval_bool(&g, ex.ctx)? != Some(true) {
                    continue;
                }
            }
            g.resize(width, Value::Null);
            ex.ctx.mem.charge(wp.calls.len() * super::mem::VALUE)?;
            rows.push(g);
        }
        return Ok(rows);
    }
    let mut sink =
        |row: &[Value], _: Option<&basalt_storage::RowHandle>, ctx: &mut EvalCtx| -> R<Flow> {
            if let Some(h) = &plan.having {
                if h.eval_bool(row, ctx)? != Some(true) {
                    return Ok(Flow::Continue);
                }
            }
            let mut r = Vec::with_capacity(width);
            r.extend_from_slice(&row[..wp.width.min(row.len())]);
            r.resize(width, Value::Null);
            ctx.mem.charge(row_bytes(&r))?;
            rows.push(r);
            Ok(Flow::Continue)
        };
    drive(plan, ex, &mut sink)?;
    Ok(rows)
}

/// The rows' keys (partition keys, order keys, position) ordered by the
/// specification (ties keep input order), and the bytes charged for them.
fn sorted(spec: &WinSpec, rows: &[Row], ex: &mut Exec) -> R<(Vec<Row>, usize)> {
    let nkeys = spec.partition.len() + spec.order.len();
    let mut keys: Vec<SortKey> = Vec::with_capacity(nkeys);
    for (i, (_, coll)) in spec.partition.iter().enumerate() {
        keys.push(SortKey {
            column: i,
            desc: false,
            coll: *coll,
            fixed: None,
        });
    }
    for (i, (_, desc, coll)) in spec.order.iter().enumerate() {
        keys.push(SortKey {
            column: spec.partition.len() + i,
            desc: *desc,
            coll: *coll,
            fixed: None,
        });
    }
    let mut keyed: Vec<Row> = Vec::with_capacity(rows.len());
    let mut bytes = 0;
    for (pos, r) in rows.iter().enumerate() {
        if pos % 256 == 255 {
            ex.check_interrupt()?;
        }
        let mut k = Vec::with_capacity(nkeys + 1);
        for (e, _) in &spec.partition {
            k.push(e.eval(r, ex.ctx)?);
        }
        for (e, _, _) in &spec.order {
            k.push(e.eval(r, ex.ctx)?);
        }
        k.push(Value::UInt(pos as u64));
        let n = row_bytes(&k);
        ex.ctx.mem.charge(n)?;
        bytes += n;
        keyed.push(k);
    }
    sort_rows(&mut keyed, &keys);
    Ok((keyed, bytes))
}

/// The input position a key row was made from.
fn position(k: &Row) -> usize {
    match k.last() {
        Some(Value::UInt(p)) => *p as usize,
        _ => 0,
    }
}

/// Whether two key rows agree on columns `cols` (under each one's collation).
fn same(a: &[Value], b: &[Value], cols: std::ops::Range<usize>, colls: &[Collation]) -> bool {
    cols.zip(colls)
        .all(|(i, c)| sort_cmp(&a[i], &b[i], *c) == Ordering::Equal)
}

/// The partitions as ranges of the sorted order.
fn partitions(spec: &WinSpec, keys: &[Row]) -> Vec<(usize, usize)> {
    let np = spec.partition.len();
    let colls: Vec<Collation> = spec.partition.iter().map(|(_, c)| *c).collect();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=keys.len() {
        if i == keys.len() || !same(&keys[i - 1], &keys[i], 0..np, &colls) {
            out.push((start, i));
            start = i;
        }
    }
    out
}

/// One partition in sorted order.
pub(super) struct Part<'k> {
    /// Input positions of its rows.
    pub rows: &'k [usize],
    /// Their key rows; column `range_key` is the first ORDER BY key.
    pub keys: &'k [Row],
    pub range_key: usize,
    /// The first ORDER BY key is descending.
    pub desc: bool,
    pub peers: Peers,
}

/// For each row of a partition, the range of its peers (rows equal on every
/// ORDER BY key; without ORDER BY the whole partition), relative to the
/// partition's start.
pub(super) struct Peers {
    pub start: Vec<usize>,
    pub end: Vec<usize>,
    /// Number of the peer group (0-based), for DENSE_RANK.
    pub group: Vec<usize>,
}

fn peer_groups(spec: &WinSpec, keys: &[Row]) -> Peers {
    let np = spec.partition.len();
    let cols = np..np + spec.order.len();
    let colls: Vec<Collation> = spec.order.iter().map(|(_, _, c)| *c).collect();
    let n = keys.len();
    let mut p = Peers {
        start: vec![0; n],
        end: vec![0; n],
        group: vec![0; n],
    };
    let mut first = 0;
    let mut g = 0;
    for i in 1..=n {
        if i == n || !same(&keys[i - 1], &keys[i], cols.clone(), &colls) {
            for j in first..i {
                p.start[j] = first;
                p.end[j] = i;
                p.group[j] = g;
            }
            first = i;
            g += 1;
        }
    }
    p
}

/// Projection, DISTINCT, ORDER BY and LIMIT over the rows with their window
/// values.
fn output(
    plan: &SelectPlan,
    rows: Vec<Row>,
    order: &[usize],
    ex: &mut Exec,
    win: &mut Window,
    emit: &mut Emit,
) -> R<u64> {
    let mut seen = Seen::default();
    let mut total = 0u64;
    let mut sorter = (!plan.order.is_empty()).then(|| sorter(plan, ex.ctx, win));
    for (n, &pos) in order.iter().enumerate() {
        if n % 256 == 255 {
            ex.check_interrupt()?;
        }
        let mut out = Row::new();
        project_into(&plan.project, &rows[pos], &mut out, ex.ctx)?;
        if plan.distinct
            && !seen.first(row_key(&out[..plan.visible], &plan.types), &mut ex.ctx.mem)?
        {
            continue;
        }
        total += 1;
        match &mut sorter {
            Some(s) => s.push(out, &mut ex.ctx.mem)?,
            None if win.closed() => {}
            None => {
                if win.offer(&mut out, ex.ctx, emit)? == Flow::Stop && !plan.calc_found_rows {
                    return Ok(win.sent);
                }
            }
        }
    }
    drop(rows);
    if let Some(s) = sorter {
        emit_sorted(s, win, ex, emit)?;
    }
    Ok(if plan.calc_found_rows {
        total
    } else {
        win.sent
    })
}
