//! Hash aggregation. Groups are keyed by the collation-aware encoding of their
//! GROUP BY values and come out sorted by those values (MariaDB's GROUP BY
//! implies ORDER BY on the grouping columns). Without GROUP BY there is exactly
//! one group, even over no rows.
//!
//! Every group, DISTINCT key and GROUP_CONCAT piece is charged to the statement's
//! memory budget as it is added (errno 1290 past `max_session_mem_used`); a plain
//! GROUP_CONCAT stops growing once it holds `group_concat_max_len` bytes, since
//! the result is cut there anyway.

use super::mem::{row_bytes, MemBudget, HASH_ENTRY, VEC};
use super::scan::R;
use crate::expr::EvalCtx;
use crate::plan::{AggCall, AggFunc, AggPlan};
use crate::value::arith::{num_arith, ArithOp};
use crate::value::compare::{group_key, sort_cmp};
use crate::value::{to_bytes, to_num, Num};
use basalt_common::{Decimal, Row, Value};
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

/// Sets and maps keyed by group and DISTINCT keys: foldhash, seeded per process.
pub(crate) type KeySet = HashSet<Vec<u8>, foldhash::fast::RandomState>;
type KeyMap<V> = HashMap<Vec<u8>, V, foldhash::fast::RandomState>;

/// A key set whose keys are charged to the statement's memory budget (DISTINCT,
/// UNION).
#[derive(Default)]
pub(crate) struct Seen {
    set: KeySet,
}

impl Seen {
    /// Adds `key`; true when it was not there yet.
    pub fn first(&mut self, key: Vec<u8>, mem: &mut MemBudget) -> R<bool> {
        let n = key.capacity() + VEC + HASH_ENTRY;
        if !self.set.insert(key) {
            return Ok(false);
        }
        mem.charge(n)?;
        Ok(true)
    }
}

#[derive(Clone, Debug)]
pub(super) enum State {
    Count(i64),
    Sum {
        acc: Option<Num>,
    },
    Avg {
        acc: Option<Num>,
        n: i64,
    },
    Extreme(Option<Value>),
    First(Option<Value>, bool),
    Concat(Option<Vec<u8>>),
    /// GROUP_CONCAT with ORDER BY: (sort keys, text) per row.
    OrderedConcat(Vec<(Vec<Value>, Vec<u8>)>),
    Bits(u64),
    Moments {
        n: f64,
        mean: f64,
        m2: f64,
    },
}

struct Group {
    keys: Vec<Value>,
    states: Vec<State>,
    distinct: Vec<KeySet>,
}

pub struct Aggregator<'p> {
    plan: &'p AggPlan,
    groups: Vec<Group>,
    index: KeyMap<usize>,
    /// `group_concat_max_len`.
    max_concat: usize,
    /// Bytes charged for one new group besides its keys.
    group_bytes: usize,
    /// The current row's group values and encoded key (kept to spare two
    /// allocations per row).
    keys: Vec<Value>,
    enc: Vec<u8>,
}

pub(super) fn initial(c: &AggCall) -> State {
    match c.func {
        AggFunc::CountStar | AggFunc::Count => State::Count(0),
        AggFunc::Sum => State::Sum { acc: None },
        AggFunc::Avg => State::Avg { acc: None, n: 0 },
        AggFunc::Min | AggFunc::Max => State::Extreme(None),
        AggFunc::First => State::First(None, false),
        AggFunc::GroupConcat if !c.order.is_empty() => State::OrderedConcat(Vec::new()),
        AggFunc::GroupConcat => State::Concat(None),
        AggFunc::BitAnd => State::Bits(u64::MAX),
        AggFunc::BitOr | AggFunc::BitXor => State::Bits(0),
        AggFunc::StdDev | AggFunc::Variance | AggFunc::StdDevSamp | AggFunc::VarSamp => {
            State::Moments {
                n: 0.0,
                mean: 0.0,
                m2: 0.0,
            }
        }
    }
}

impl<'p> Aggregator<'p> {
    pub fn new(plan: &'p AggPlan, ctx: &EvalCtx) -> Self {
        let calls = plan.calls.len();
        Aggregator {
            plan,
            groups: Vec::new(),
            index: KeyMap::default(),
            max_concat: ctx
                .cx
                .var_u64("group_concat_max_len")
                .min(usize::MAX as u64) as usize,
            group_bytes: std::mem::size_of::<Group>()
                + calls * (std::mem::size_of::<State>() + std::mem::size_of::<KeySet>())
                + VEC
                + HASH_ENTRY
                + std::mem::size_of::<usize>(),
            keys: Vec::new(),
            enc: Vec::new(),
        }
    }

    fn new_group(&self, keys: Vec<Value>) -> Group {
        Group {
            keys,
            states: self.plan.calls.iter().map(initial).collect(),
            distinct: self.plan.calls.iter().map(|_| KeySet::default()).collect(),
        }
    }

    pub fn add(&mut self, row: &[Value], ctx: &mut EvalCtx) -> R<()> {
        let gi = self.group_of(row, ctx)?;
        for (ci, call) in self.plan.calls.iter().enumerate() {
            let v = match &call.arg {
                Some(e) => e.eval(row, ctx)?,
                None => Value::Int(1),
            };
            let g = &mut self.groups[gi];
            if call.distinct && !v.is_null() {
                let mut k = Vec::new();
                group_key(&v, call.coll, &mut k);
                let n = k.capacity() + VEC + HASH_ENTRY;
                if !g.distinct[ci].insert(k) {
                    continue;
                }
                ctx.mem.charge(n)?;
            }
            if let State::OrderedConcat(list) = &mut g.states[ci] {
                if !v.is_null() {
                    let keys = call
                        .order
                        .iter()
                        .map(|(e, _, _)| e.eval(row, ctx))
                        .collect::<R<Vec<_>>>()?;
                    let text = to_bytes(&v);
                    ctx.mem.charge(row_bytes(&keys) + text.capacity() + VEC)?;
                    list.push((keys, text));
                }
                continue;
            }
            let grown = update(&mut g.states[ci], call, v, self.max_concat);
            if grown > 0 {
                ctx.mem.charge(grown)?;
            }
        }
        Ok(())
    }

    /// The index of the group `row` belongs to, made when new. Only a new group
    /// keeps the row's key values and a copy of its encoded key.
    fn group_of(&mut self, row: &[Value], ctx: &mut EvalCtx) -> R<usize> {
        self.enc.clear();
        self.keys.clear();
        for (e, coll) in self.plan.group_by.iter().zip(&self.plan.group_colls) {
            let v = e.eval(row, ctx)?;
            group_key(&v, *coll, &mut self.enc);
            self.keys.push(v);
        }
        if let Some(i) = self.index.get(&self.enc) {
            return Ok(*i);
        }
        let keys = std::mem::take(&mut self.keys);
        let enc = self.enc.clone();
        ctx.mem
            .charge(self.group_bytes + enc.capacity() + row_bytes(&keys))?;
        let g = self.new_group(keys);
        self.groups.push(g);
        self.index.insert(enc, self.groups.len() - 1);
        Ok(self.groups.len() - 1)
    }

    /// The output rows: group values followed by aggregate results, sorted by group.
    pub fn finish(mut self, ctx: &mut EvalCtx) -> R<Vec<Row>> {
        if self.groups.is_empty() && self.plan.group_by.is_empty() {
            let g = self.new_group(Vec::new());
            self.groups.push(g);
        }
        let colls = &self.plan.group_colls;
        self.groups.sort_by(|a, b| {
            for ((x, y), c) in a.keys.iter().zip(&b.keys).zip(colls) {
                let o = sort_cmp(x, y, *c);
                if o != Ordering::Equal {
                    return o;
                }
            }
            Ordering::Equal
        });
        let incr = ctx.cx.div_precision_increment;
        let max_concat = ctx.cx.var_u64("group_concat_max_len") as usize;
        let mut out = Vec::with_capacity(self.groups.len());
        for (n, g) in self.groups.into_iter().enumerate() {
            let mut row = g.keys;
            let mut cut = false;
            for (s, c) in g.states.into_iter().zip(&self.plan.calls) {
                row.push(result(s, c, incr, max_concat, &mut cut));
            }
            if cut {
                ctx.cx.warn(
                    crate::session::ctx::Level::Warning,
                    1260,
                    format!("Row {} was cut by GROUP_CONCAT()", n + 1),
                );
            }
            out.push(row);
        }
        Ok(out)
    }
}

/// Adds `v` to a SUM / AVG accumulator.
fn add_num(acc: &mut Option<Num>, v: &Value) {
    // DECIMAL values into a DECIMAL sum, the common case, add in place.
    if let (Some(Num::Dec(a)), Value::Decimal(d)) = (acc.as_mut(), v) {
        if let Some(sum) = a.checked_add(*d) {
            *a = sum;
            return;
        }
    }
    *acc = added(*acc, v);
}

fn added(acc: Option<Num>, v: &Value) -> Option<Num> {
    let n = match v {
        Value::Bytes(_) => Num::Dbl(to_num(v).0.to_f64()),
        other => to_num(other).0,
    };
    let n = match n {
        Num::Int(i) => Num::Dec(Decimal::from_i64(i)),
        Num::UInt(u) => Num::Dec(Decimal::from_u64(u)),
        other => other,
    };
    Some(match acc {
        None => n,
        Some(a) => {
            num_arith(ArithOp::Add, a, n, 4).unwrap_or_else(|_| Num::Dbl(a.to_f64() + n.to_f64()))
        }
    })
}

/// Folds one value into an aggregate state; returns the bytes the state grew by
/// (GROUP_CONCAT text, a first value).
pub(super) fn update(s: &mut State, call: &AggCall, v: Value, max_concat: usize) -> usize {
    if v.is_null() && !matches!(s, State::First(..)) {
        return 0;
    }
    match s {
        State::Count(n) => *n += 1,
        State::Sum { acc } => add_num(acc, &v),
        State::Avg { acc, n } => {
            add_num(acc, &v);
            *n += 1;
        }
        State::Extreme(cur) => {
            // MIN/MAX of an ENUM/SET compare (and give) the text.
            let v = match v {
                Value::Enum(_, b) => Value::Bytes(b),
                v => v,
            };
            let replace = match cur {
                None => true,
                Some(c) => {
                    let o = sort_cmp(&v, c, call.coll);
                    if call.func == AggFunc::Min {
                        o == Ordering::Less
                    } else {
                        o == Ordering::Greater
                    }
                }
            };
            if replace {
                *cur = Some(v);
            }
        }
        State::First(cur, set) => {
            if !*set {
                let n = super::mem::value_bytes(&v);
                *cur = Some(v);
                *set = true;
                return n;
            }
        }
        State::OrderedConcat(_) => {}
        State::Concat(acc) => {
            let b = to_bytes(&v);
            match acc {
                None => {
                    let n = b.len();
                    *acc = Some(b);
                    return n;
                }
                // The result is cut at max_concat bytes: what lies beyond is never
                // shown.
                Some(a) if a.len() > max_concat => {}
                Some(a) => {
                    let before = a.len();
                    a.extend_from_slice(&call.separator);
                    a.extend_from_slice(&b);
                    return a.len() - before;
                }
            }
        }
        State::Bits(bits) => {
            let x = to_num(&v).0.to_i128().unwrap_or(0) as u64;
            *bits = match call.func {
                AggFunc::BitAnd => *bits & x,
                AggFunc::BitOr => *bits | x,
                _ => *bits ^ x,
            };
        }
        State::Moments { n, mean, m2 } => {
            let x = to_num(&v).0.to_f64();
            *n += 1.0;
            let d = x - *mean;
            *mean += d / *n;
            *m2 += d * (x - *mean);
        }
    }
    0
}

pub(super) fn result(
    s: State,
    call: &AggCall,
    incr: u8,
    max_concat: usize,
    cut: &mut bool,
) -> Value {
    match s {
        State::Count(n) => Value::Int(n),
        State::Sum { acc } => acc.map_or(Value::Null, Num::into_value),
        State::Avg { acc, n } => match acc {
            None => Value::Null,
            Some(Num::Dec(d)) => d
                .checked_div(Decimal::from_i64(n), incr)
                .map_or(Value::Null, Value::Decimal),
            Some(other) => Value::Double(other.to_f64() / n as f64),
        },
        State::Extreme(v) => v.unwrap_or(Value::Null),
        State::First(v, _) => v.unwrap_or(Value::Null),
        State::OrderedConcat(mut list) => {
            if list.is_empty() {
                return Value::Null;
            }
            list.sort_by(|a, b| {
                for ((x, y), (_, desc, coll)) in a.0.iter().zip(&b.0).zip(&call.order) {
                    let o = sort_cmp(x, y, *coll);
                    let o = if *desc { o.reverse() } else { o };
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                Ordering::Equal
            });
            let mut out = Vec::new();
            for (i, (_, b)) in list.into_iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(&call.separator);
                }
                out.extend_from_slice(&b);
            }
            *cut |= out.len() > max_concat.max(1);
            out.truncate(max_concat.max(1));
            Value::Bytes(out)
        }
        State::Concat(v) => v.map_or(Value::Null, |mut b| {
            *cut |= b.len() > max_concat.max(1);
            b.truncate(max_concat.max(1));
            Value::Bytes(b)
        }),
        State::Bits(b) => Value::UInt(b),
        State::Moments { n, m2, .. } => {
            let sample = matches!(call.func, AggFunc::StdDevSamp | AggFunc::VarSamp);
            if n == 0.0 || (sample && n < 2.0) {
                return Value::Null;
            }
            let var = if sample { m2 / (n - 1.0) } else { m2 / n };
            Value::Double(
                if matches!(call.func, AggFunc::StdDev | AggFunc::StdDevSamp) {
                    var.sqrt()
                } else {
                    var
                },
            )
        }
    }
}
