//! One window call over one partition (rows in window order).
//!
//! Ranking functions read the peer groups; LAG / LEAD read the row `offset`
//! away in the partition. FIRST_VALUE, LAST_VALUE, NTH_VALUE and aggregates
//! read the frame of each row, `[start, end)` in partition positions:
//!
//! - ROWS: the current position moved by the offsets, clamped to the partition.
//! - RANGE: CURRENT ROW is the edge of the current row's peer group; `n
//!   PRECEDING` / `n FOLLOWING` is the first row whose (single, numeric) ORDER BY
//!   key reaches `key -/+ n` (`+/-` for a descending key), found by binary search
//!   (keys are sorted within the partition). A row whose key is NULL has the NULL
//!   peer group as the edge of every offset bound, as in MariaDB.
//!
//! Both edges never move backwards from one row to the next, so an aggregate
//! keeps one running state: rows entering at the end are added; rows leaving at
//! the start are removed when the aggregate can undo an addition (COUNT, SUM,
//! AVG, BIT_XOR), otherwise the state is rebuilt over the new frame. MIN and MAX
//! keep a monotonic queue of frame positions instead (each position enters and
//! leaves once: O(n) per partition whatever the frame).

use super::agg::{initial, result, update, State};
use super::scan::R;
use super::window::Part;
use super::Exec;
use crate::plan::window::{Frame, FrameBound, FrameUnits, WinCall, WinFunc, WindowPlan};
use crate::plan::{AggCall, AggFunc};
use crate::value::arith::{num_arith, ArithOp};
use crate::value::compare::sort_cmp;
use crate::value::{to_f64, to_num, Num};
use basalt_common::{Collation, Decimal, MySqlError, Row, Value};
use std::cmp::Ordering;

/// Computes call `ci` for every row of `part`, into its column of `rows`.
pub(super) fn evaluate(
    wp: &WindowPlan,
    ci: usize,
    rows: &mut [Row],
    part: &Part,
    ex: &mut Exec,
) -> R<()> {
    let call = &wp.calls[ci];
    let values = match &call.func {
        WinFunc::Agg(a) => {
            let vals = arg_values(a.arg.as_ref(), rows, part, ex)?;
            aggregate(call, a, &vals, part, ex)?
        }
        WinFunc::FirstValue | WinFunc::LastValue | WinFunc::NthValue => {
            let vals = arg_values(call.args.first(), rows, part, ex)?;
            framed_value(call, &vals, rows, part, ex)?
        }
        _ => ranking(call, rows, part, ex)?,
    };
    let col = wp.width + ci;
    for (j, v) in values.into_iter().enumerate() {
        rows[part.rows[j]][col] = v;
    }
    Ok(())
}

/// `e` over every row of the partition (1 for COUNT(*)).
fn arg_values(
    e: Option<&crate::expr::Expr>,
    rows: &[Row],
    part: &Part,
    ex: &mut Exec,
) -> R<Vec<Value>> {
    part.rows
        .iter()
        .map(|&r| match e {
            Some(e) => e.eval(&rows[r], ex.ctx),
            None => Ok(Value::Int(1)),
        })
        .collect()
}

/// A count argument (NTILE, LAG offset, NTH_VALUE): rounded to an integer;
/// None for NULL.
fn count_arg(v: &Value) -> Option<i64> {
    if v.is_null() {
        return None;
    }
    Some(to_f64(v).round().clamp(i64::MIN as f64, i64::MAX as f64) as i64)
}

fn ranking(call: &WinCall, rows: &[Row], part: &Part, ex: &mut Exec) -> R<Vec<Value>> {
    let n = part.rows.len();
    let p = &part.peers;
    let mut out = Vec::with_capacity(n);
    match &call.func {
        WinFunc::Lag { lead } => {
            let off = match call.args.get(1) {
                Some(e) => count_arg(&e.eval(&rows[part.rows[0]], ex.ctx)?),
                None => Some(1),
            };
            for j in 0..n {
                let target = off.and_then(|o| {
                    let t = if *lead { j as i64 + o } else { j as i64 - o };
                    (t >= 0 && (t as usize) < n).then_some(t as usize)
                });
                out.push(match target {
                    Some(t) => call.args[0].eval(&rows[part.rows[t]], ex.ctx)?,
                    None => Value::Null,
                });
            }
        }
        WinFunc::Ntile => {
            for j in 0..n {
                let k = match count_arg(&call.args[0].eval(&rows[part.rows[j]], ex.ctx)?) {
                    Some(k) if k > 0 => k as u64,
                    _ => {
                        return Err(MySqlError::new(
                            4024,
                            "HY000",
                            "Argument of NTILE must be greater than 0",
                        ))
                    }
                };
                out.push(Value::Int(ntile(j as u64, n as u64, k) as i64));
            }
        }
        f => {
            for j in 0..n {
                out.push(match f {
                    WinFunc::RowNumber => Value::Int(j as i64 + 1),
                    WinFunc::Rank => Value::Int(p.start[j] as i64 + 1),
                    WinFunc::DenseRank => Value::Int(p.group[j] as i64 + 1),
                    WinFunc::PercentRank if n > 1 => {
                        Value::Double(p.start[j] as f64 / (n - 1) as f64)
                    }
                    WinFunc::PercentRank => Value::Double(0.0),
                    _ => Value::Double(p.end[j] as f64 / n as f64),
                });
            }
        }
    }
    Ok(out)
}

/// The bucket (1-based) of row `j` of `n` among `k` buckets: the first `n % k`
/// buckets hold one row more.
fn ntile(j: u64, n: u64, k: u64) -> u64 {
    let q = n / k;
    let r = n % k;
    if j < r * (q + 1) {
        j / (q + 1) + 1
    } else {
        (j - r * (q + 1)) / q.max(1) + r + 1
    }
}

/// The frame `[start, end)` of row `j` (`end >= start`).
fn frame_of(f: &Frame, part: &Part, j: usize) -> (usize, usize) {
    let n = part.rows.len();
    let rows = f.units == FrameUnits::Rows;
    let off = |v: &Value| count_arg(v).unwrap_or(0).max(0) as usize;
    let start = match &f.start {
        FrameBound::UnboundedPreceding => 0,
        FrameBound::CurrentRow if rows => j,
        FrameBound::CurrentRow => part.peers.start[j],
        FrameBound::Preceding(v) if rows => j.saturating_sub(off(v)),
        FrameBound::Following(v) if rows => j.saturating_add(off(v)).min(n),
        FrameBound::Preceding(v) => range_edge(part, j, v, true, true),
        FrameBound::Following(v) => range_edge(part, j, v, false, true),
        FrameBound::UnboundedFollowing => n,
    };
    let end = match &f.end {
        FrameBound::UnboundedFollowing => n,
        FrameBound::CurrentRow if rows => j + 1,
        FrameBound::CurrentRow => part.peers.end[j],
        FrameBound::Preceding(v) if rows => (j + 1).saturating_sub(off(v)),
        FrameBound::Following(v) if rows => j.saturating_add(off(v)).saturating_add(1).min(n),
        FrameBound::Preceding(v) => range_edge(part, j, v, true, false),
        FrameBound::Following(v) => range_edge(part, j, v, false, false),
        FrameBound::UnboundedPreceding => 0,
    };
    (start, end.max(start))
}

/// A RANGE frame edge for row `j` with offset `off`: the first row at or past
/// `key -/+ off` (a start edge) or past it (an end edge).
fn range_edge(part: &Part, j: usize, off: &Value, preceding: bool, start: bool) -> usize {
    let key = &part.keys[j][part.range_key];
    if key.is_null() {
        return if start {
            part.peers.start[j]
        } else {
            part.peers.end[j]
        };
    }
    let op = if preceding != part.desc {
        ArithOp::Sub
    } else {
        ArithOp::Add
    };
    let (a, b) = (to_num(key).0, to_num(off).0);
    let target = num_arith(op, a, b, 4)
        .unwrap_or_else(|_| {
            let (x, y) = (a.to_f64(), b.to_f64());
            Num::Dbl(if op == ArithOp::Sub { x - y } else { x + y })
        })
        .into_value();
    let cmp = |k: &Row| {
        let o = sort_cmp(&k[part.range_key], &target, Collation::Binary);
        if part.desc {
            o.reverse()
        } else {
            o
        }
    };
    if start {
        part.keys.partition_point(|k| cmp(k) == Ordering::Less)
    } else {
        part.keys.partition_point(|k| cmp(k) != Ordering::Greater)
    }
}

fn framed_value(
    call: &WinCall,
    vals: &[Value],
    rows: &[Row],
    part: &Part,
    ex: &mut Exec,
) -> R<Vec<Value>> {
    let n = part.rows.len();
    let mut out = Vec::with_capacity(n);
    for j in 0..n {
        let (s, e) = frame_of(&call.frame, part, j);
        let pick = match call.func {
            WinFunc::FirstValue => (s < e).then_some(s),
            WinFunc::LastValue => (s < e).then(|| e - 1),
            _ => {
                let k = count_arg(&call.args[1].eval(&rows[part.rows[j]], ex.ctx)?);
                k.filter(|k| *k >= 1)
                    .and_then(|k| s.checked_add(k as usize - 1))
                    .filter(|p| *p < e)
            }
        };
        out.push(pick.map_or(Value::Null, |p| vals[p].clone()));
    }
    Ok(out)
}

/// An aggregate's running state over the current frame `[lo, hi)`.
struct Running<'c> {
    call: &'c AggCall,
    state: State,
    /// Non-NULL values in the frame (SUM and AVG are NULL without any).
    values: i64,
    lo: usize,
    hi: usize,
}

impl<'c> Running<'c> {
    fn new(call: &'c AggCall, at: usize) -> Self {
        Running {
            call,
            state: initial(call),
            values: 0,
            lo: at,
            hi: at,
        }
    }

    fn add(&mut self, v: &Value) {
        self.values += i64::from(!v.is_null());
        update(&mut self.state, self.call, v.clone(), usize::MAX);
    }

    /// Undoes `add(v)`; false when this aggregate cannot.
    fn remove(&mut self, v: &Value) -> bool {
        if v.is_null() {
            return invertible(self.call.func);
        }
        let done = match &mut self.state {
            State::Count(n) => {
                *n -= 1;
                true
            }
            State::Sum { acc } | State::Avg { acc, .. } => {
                *acc = acc.map(|a| subtract(a, v));
                true
            }
            State::Bits(b) if self.call.func == AggFunc::BitXor => {
                *b ^= to_num(v).0.to_i128().unwrap_or(0) as u64;
                true
            }
            _ => false,
        };
        if let State::Avg { n, .. } = &mut self.state {
            *n -= 1;
        }
        self.values -= 1;
        done
    }

    fn value(&self, incr: u8) -> Value {
        let empty = matches!(self.state, State::Sum { .. } | State::Avg { .. }) && self.values == 0;
        if empty {
            return Value::Null;
        }
        result(self.state.clone(), self.call, incr, usize::MAX, &mut false)
    }
}

fn invertible(f: AggFunc) -> bool {
    matches!(
        f,
        AggFunc::CountStar | AggFunc::Count | AggFunc::Sum | AggFunc::Avg | AggFunc::BitXor
    )
}

/// `acc - v`, with `v` read as SUM reads it (integers as decimals, strings as
/// doubles).
fn subtract(acc: Num, v: &Value) -> Num {
    let n = match v {
        Value::Bytes(_) => Num::Dbl(to_num(v).0.to_f64()),
        other => match to_num(other).0 {
            Num::Int(i) => Num::Dec(Decimal::from_i64(i)),
            Num::UInt(u) => Num::Dec(Decimal::from_u64(u)),
            o => o,
        },
    };
    num_arith(ArithOp::Sub, acc, n, 4).unwrap_or_else(|_| Num::Dbl(acc.to_f64() - n.to_f64()))
}

fn aggregate(
    call: &WinCall,
    agg: &AggCall,
    vals: &[Value],
    part: &Part,
    ex: &mut Exec,
) -> R<Vec<Value>> {
    if matches!(agg.func, AggFunc::Min | AggFunc::Max) {
        return Ok(extreme(call, agg, vals, part));
    }
    let n = part.rows.len();
    let incr = ex.ctx.cx.div_precision_increment;
    let inv = invertible(agg.func);
    let mut run = Running::new(agg, 0);
    let mut out = Vec::with_capacity(n);
    let mut work = 0usize;
    for j in 0..n {
        let (s, e) = frame_of(&call.frame, part, j);
        let slide = s >= run.lo && s <= run.hi && e >= run.hi && (s == run.lo || inv);
        let mut rebuilt = !slide;
        if slide {
            for v in &vals[run.hi..e] {
                run.add(v);
            }
            for v in &vals[run.lo..s] {
                if !run.remove(v) {
                    rebuilt = true;
                    break;
                }
            }
        }
        if rebuilt {
            run = Running::new(agg, s);
            for v in &vals[s..e] {
                run.add(v);
            }
            work += e - s;
            if work > 4096 {
                work = 0;
                ex.check_interrupt()?;
            }
        }
        run.lo = s;
        run.hi = e;
        out.push(run.value(incr));
    }
    Ok(out)
}

/// MIN / MAX over every row's frame with a monotonic queue: the queue holds
/// positions of the frame whose values strictly improve from back to front, so
/// the front is the frame's extreme (the first of equal extremes, as a scan of
/// the frame finds it).
fn extreme(call: &WinCall, agg: &AggCall, vals: &[Value], part: &Part) -> Vec<Value> {
    let n = part.rows.len();
    let want = if agg.func == AggFunc::Min {
        Ordering::Less
    } else {
        Ordering::Greater
    };
    let mut queue: std::collections::VecDeque<usize> = std::collections::VecDeque::new();
    let mut hi = 0;
    let mut out = Vec::with_capacity(n);
    for j in 0..n {
        let (s, e) = frame_of(&call.frame, part, j);
        hi = hi.max(s);
        while hi < e {
            let v = &vals[hi];
            if !v.is_null() {
                while queue
                    .back()
                    .is_some_and(|&b| sort_cmp(v, &vals[b], agg.coll) == want)
                {
                    queue.pop_back();
                }
                queue.push_back(hi);
            }
            hi += 1;
        }
        while queue.front().is_some_and(|&f| f < s) {
            queue.pop_front();
        }
        out.push(match queue.front() {
            Some(&f) if f < e => vals[f].clone(),
            _ => Value::Null,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::ntile;

    #[test]
    fn ntile_gives_the_first_buckets_one_row_more() {
        let buckets = |n, k| (0..n).map(|j| ntile(j, n, k)).collect::<Vec<_>>();
        assert_eq!(buckets(5, 3), [1, 1, 2, 2, 3]);
        assert_eq!(buckets(6, 3), [1, 1, 2, 2, 3, 3]);
        assert_eq!(buckets(3, 5), [1, 2, 3]);
        assert_eq!(buckets(7, 1), [1; 7]);
    }
}
