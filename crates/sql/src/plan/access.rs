//! Access-path choice for one table of a query.
//!
//! Inputs are the conjuncts that may restrict the table, which columns the query
//! reads, the ORDER BY (when this table alone decides the order), a LIMIT hint, the
//! index hints and the table's in-memory statistics. No index page is read.
//!
//! For every candidate index the chooser derives the longest usable key prefix:
//! equalities (or an IN list on one column) on the leading columns, then a range
//! on the next one. Costs count index entries read, doubled for a secondary index
//! that must visit the clustered index; reading in index order avoids a sort and,
//! with a LIMIT, stops after about LIMIT entries. A primary-key equality on every
//! key column becomes a point lookup ([`Access::PkGet`]).
//!
//! FORCE INDEX leaves only the named indexes as candidates and makes a table scan
//! the last resort; USE INDEX restricts candidates; IGNORE INDEX removes them.

use super::{Access, ExplainInfo, RangeSpec};
use crate::expr::{CmpOp, Expr, Func};
use basalt_common::{Collation, IndexDef, IndexKind, TableDef};
use basalt_storage::TableStats;

/// Index hints of one table reference.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hints {
    /// FORCE INDEX names (empty: none).
    pub force: Vec<String>,
    /// USE INDEX names (`Some(empty)` = `USE INDEX ()`: no index).
    pub use_only: Option<Vec<String>>,
    pub ignore: Vec<String>,
}

impl Hints {
    fn allows(&self, idx: &IndexDef) -> bool {
        let named = |list: &[String]| list.iter().any(|n| n.eq_ignore_ascii_case(&idx.name));
        if !self.force.is_empty() {
            return named(&self.force);
        }
        if let Some(u) = &self.use_only {
            if !named(u) {
                return false;
            }
        }
        !named(&self.ignore)
    }
}

/// A conjunct as the chooser sees it: `column op value`.
#[derive(Clone, Debug)]
pub struct Sarg {
    /// Index of the conjunct in the level's list.
    pub conjunct: usize,
    /// Table column ordinal.
    pub column: usize,
    pub kind: SargKind,
}

#[derive(Clone, Debug)]
pub enum SargKind {
    Eq(Expr),
    IsNull,
    In(Vec<Expr>),
    Lower(Expr, bool),
    Upper(Expr, bool),
    Between(Expr, Expr),
    /// `col LIKE pattern`: a range over the pattern's literal prefix; the LIKE
    /// itself always stays in the residual filter.
    LikePrefix(Expr, Option<Expr>),
}

pub struct Input<'a> {
    pub def: &'a TableDef,
    pub stats: &'a TableStats,
    pub sargs: &'a [Sarg],
    /// Table columns the query reads.
    pub needed: &'a [usize],
    /// ORDER BY as (table column, descending), when this table alone decides it.
    pub order: Option<&'a [(usize, bool)]>,
    /// LIMIT + OFFSET when known.
    pub limit: Option<u64>,
    pub hints: &'a Hints,
    /// The value of a constant expression (literals, the plan cache's stripped
    /// literals, functions of them), when planning can know it.
    pub constant: &'a dyn Fn(&Expr) -> Option<basalt_common::Value>,
    /// The table's estimate of the share of an index's entries in a range on its
    /// first key part ([`basalt_storage::Table::range_fraction`]).
    pub range_fraction: &'a dyn Fn(u32, &basalt_storage::KeyRange) -> Option<f64>,
}

pub struct Choice {
    pub access: Access,
    /// Conjuncts the access path guarantees when key values convert exactly.
    pub consumed: Vec<usize>,
    pub order_satisfied: bool,
    pub est_rows: u64,
    /// The chooser's cost of one execution of the access (about index entries
    /// read), which the join-order search adds up.
    pub cost: f64,
    pub explain: ExplainInfo,
    /// The choice went by the values of parameters (a range's share of the
    /// table): a plan made with it holds for these values only.
    pub uses_values: bool,
    /// Some estimate came from the values (a histogram), even if the choice did
    /// not depend on them; a join order weighed with it may.
    pub values_estimated: bool,
}

struct Candidate {
    /// The estimate came from the histogram, for the parameters' values.
    by_values: bool,
    idx: usize,
    range: RangeSpec,
    consumed: Vec<usize>,
    eq_len: usize,
    points: usize,
    has_range: bool,
    order: Option<bool>,
    covering: bool,
    est: f64,
    cost: f64,
}

pub fn choose(inp: &Input) -> Choice {
    let (mut choice, valued, forced_one) = choose_at(inp, None);
    choice.values_estimated = valued > 0;
    // The values decide the plan only when another share of the table could
    // change it. Costs grow with the one valued index's share, so the same
    // choice at both ends means the same choice for every value; with FORCE INDEX
    // and one candidate the values decide nothing.
    choice.uses_values = valued > 0
        && !forced_one
        && (valued > 1
            || [0.0, 1.0].iter().any(|&s| {
                let (other, _, _) = choose_at(inp, Some(s));
                other.access != choice.access || other.order_satisfied != choice.order_satisfied
            }));
    choice
}

/// The choice, with every histogram share replaced by `share` when given; also
/// how many candidates were estimated by their values, and whether FORCE INDEX
/// left a single candidate.
fn choose_at(inp: &Input, share: Option<f64>) -> (Choice, usize, bool) {
    let rows = inp.stats.rows.max(1) as f64;
    let mut best: Option<Candidate> = None;
    let forced = !inp.hints.force.is_empty();
    let mut weighed = 0;
    let mut valued = 0;
    for (i, idx) in inp.def.indexes.iter().enumerate() {
        if idx.columns.is_empty() || !inp.hints.allows(idx) {
            continue;
        }
        let c = candidate(inp, i, rows, share);
        valued += usize::from(c.by_values);
        let useful = c.eq_len > 0
            || c.has_range
            || c.points > 0
            || c.order.is_some()
            || (forced && c.covering);
        if !useful && !forced {
            continue;
        }
        weighed += 1;
        if best.as_ref().is_none_or(|b| c.cost < b.cost) {
            best = Some(c);
        }
    }
    let scan = full_scan(inp, rows);
    let choice = match best {
        Some(c) if c.cost <= scan.cost || forced => finish(inp, c),
        _ => match covering_scan(inp, rows) {
            Some(c) if scan.order.is_none() => finish(inp, c),
            _ => finish(inp, scan),
        },
    };
    (choice, valued, forced && weighed <= 1)
}

/// A full scan of the shortest secondary index that covers the query, which is
/// what MariaDB reads instead of the table when it can (and so the order rows
/// come out in when there is no ORDER BY).
fn covering_scan(inp: &Input, rows: f64) -> Option<Candidate> {
    if inp.order.is_some() {
        return None;
    }
    let best = inp
        .def
        .indexes
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, ix)| !ix.columns.is_empty() && inp.hints.allows(ix))
        .filter(|(i, ix)| {
            ix.columns.iter().all(|c| c.prefix_len.is_none())
                && inp
                    .needed
                    .iter()
                    .all(|c| extended_key(inp.def, *i).iter().any(|(k, _)| k == c))
        })
        .min_by_key(|(_, ix)| key_len(inp.def, ix, 0))?;
    Some(Candidate {
        by_values: false,
        idx: best.0,
        range: RangeSpec::All,
        consumed: Vec::new(),
        eq_len: 0,
        points: 0,
        has_range: false,
        order: None,
        covering: true,
        est: rows,
        cost: rows,
    })
}

fn full_scan(inp: &Input, rows: f64) -> Candidate {
    let order = if inp.def.has_hidden_pk() {
        None
    } else {
        order_direction(inp, 0, 0)
    };
    let est = rows;
    let cost = match (order, inp.limit) {
        (Some(_), Some(l)) => est.min(l as f64 * 1.5),
        (Some(_), None) => est,
        (None, _) if inp.order.is_some() => est * 1.5,
        (None, _) => est,
    };
    Candidate {
        by_values: false,
        idx: 0,
        range: RangeSpec::All,
        consumed: Vec::new(),
        eq_len: 0,
        points: 0,
        has_range: false,
        order,
        covering: true,
        est,
        cost: cost + 1.0,
    }
}

/// Key columns of index `i` followed by the primary key columns it implies: the
/// order its entries are in, as (column, descending). A prefix key part (`KEY
/// (s(2))`) orders by the prefix only, so the list ends before it.
fn extended_key(def: &TableDef, i: usize) -> Vec<(usize, bool)> {
    let idx = &def.indexes[i];
    let mut cols: Vec<(usize, bool)> = Vec::with_capacity(idx.columns.len() + 1);
    for c in &idx.columns {
        if c.prefix_len.is_some() {
            return cols;
        }
        cols.push((c.column, c.descending));
    }
    if i != 0 {
        for c in &def.indexes[0].columns {
            if !cols.iter().any(|(x, _)| *x == c.column) {
                cols.push((c.column, c.descending));
            }
        }
    }
    cols
}

fn candidate(inp: &Input, i: usize, rows: f64, share: Option<f64>) -> Candidate {
    let idx = &inp.def.indexes[i];
    let (range, consumed, eq_len, points, has_range) = derive_range(inp, idx);
    let key = extended_key(inp.def, i);
    let covering = i == 0 || inp.needed.iter().all(|c| key.iter().any(|(k, _)| k == c));
    let distinct = |n: usize| -> f64 {
        inp.stats
            .indexes
            .iter()
            .find(|s| s.index_id == idx.id)
            .and_then(|s| s.distinct.get(n.saturating_sub(1)).copied())
            .filter(|d| *d > 0)
            .map_or(rows.sqrt().max(1.0), |d| d as f64)
    };
    let unique_hit = idx.is_unique() && eq_len == idx.columns.len();
    let mut est = if unique_hit {
        1.0
    } else if eq_len > 0 {
        (rows / distinct(eq_len)).max(1.0)
    } else if points > 0 {
        (rows / distinct(1)).max(1.0) * points as f64
    } else {
        rows
    };
    if points > 0 && eq_len == 0 {
        est = est.min(rows);
    }
    let mut by_values = false;
    if has_range {
        match histogram_share(inp, idx, &range, eq_len, points).map(|s| share.unwrap_or(s)) {
            Some(share) => {
                est = (rows * share).max(1.0);
                by_values = true;
            }
            None => est = (est * 0.5).max(1.0),
        }
    }
    let order = if points > 1 {
        None
    } else {
        order_direction(inp, i, eq_len)
    };
    let per_row = if covering { 1.0 } else { 2.0 };
    let mut read = est;
    if let (Some(_), Some(l)) = (order, inp.limit) {
        read = read.min(l as f64 * 1.5);
    }
    let mut cost = read * per_row;
    if inp.order.is_some() && order.is_none() {
        cost += est * 0.5;
    }
    if i == 0 && unique_hit {
        cost = 0.5;
    }
    Candidate {
        by_values,
        idx: i,
        range,
        consumed,
        eq_len,
        points,
        has_range,
        order,
        covering,
        est,
        cost,
    }
}

/// The share of index `idx`'s entries a range on its first key part holds, by
/// the table's histogram, when the bounds' values are known at planning.
fn histogram_share(
    inp: &Input,
    idx: &IndexDef,
    range: &RangeSpec,
    eq_len: usize,
    points: usize,
) -> Option<f64> {
    let RangeSpec::Prefix { eq, lower, upper } = range else {
        return None;
    };
    if eq_len > 0 || points > 0 || !eq.is_empty() {
        return None;
    }
    let bound = |b: &Option<(Expr, bool)>| match b {
        None => Some(None),
        Some((e, incl)) => (inp.constant)(e).map(|v| Some((v, *incl))),
    };
    let spec = super::range::EvalRange::Prefix {
        eq: Vec::new(),
        lower: bound(lower)?,
        upper: bound(upper)?,
    };
    let (ranges, _) = super::range::key_ranges(spec, idx, &inp.def.columns);
    let mut share = 0.0;
    for r in &ranges {
        share += (inp.range_fraction)(idx.id, r)?;
    }
    Some(share.min(1.0))
}

type Derived = (RangeSpec, Vec<usize>, usize, usize, bool);

fn derive_range(inp: &Input, idx: &IndexDef) -> Derived {
    let mut eq = Vec::new();
    let mut consumed = Vec::new();
    let mut points: Option<Vec<Expr>> = None;
    for kc in &idx.columns {
        if kc.prefix_len.is_some() {
            break;
        }
        let here: Vec<&Sarg> = inp.sargs.iter().filter(|s| s.column == kc.column).collect();
        if let Some(s) = here
            .iter()
            .find(|s| matches!(s.kind, SargKind::Eq(_) | SargKind::IsNull))
        {
            eq.push(match &s.kind {
                SargKind::Eq(e) => Some(e.clone()),
                _ => None,
            });
            consumed.push(s.conjunct);
            continue;
        }
        if eq.is_empty() && points.is_none() {
            if let Some(s) = here.iter().find(|s| matches!(s.kind, SargKind::In(_))) {
                if let SargKind::In(list) = &s.kind {
                    points = Some(list.clone());
                    consumed.push(s.conjunct);
                }
                break;
            }
        }
        let (lower, upper, used) = bounds(&here);
        let has_range = lower.is_some() || upper.is_some();
        consumed.extend(used);
        let n = eq.len();
        return (
            RangeSpec::Prefix { eq, lower, upper },
            consumed,
            n,
            0,
            has_range,
        );
    }
    if let Some(list) = points {
        let n = list.len();
        return (
            RangeSpec::Points(list.into_iter().map(|e| vec![e]).collect()),
            consumed,
            0,
            n,
            false,
        );
    }
    let n = eq.len();
    if n == 0 {
        return (RangeSpec::All, consumed, 0, 0, false);
    }
    (
        RangeSpec::Prefix {
            eq,
            lower: None,
            upper: None,
        },
        consumed,
        n,
        0,
        false,
    )
}

type BoundsOut = (Option<(Expr, bool)>, Option<(Expr, bool)>, Vec<usize>);

fn bounds(here: &[&Sarg]) -> BoundsOut {
    let mut lower = None;
    let mut upper = None;
    let mut used = Vec::new();
    for s in here {
        match &s.kind {
            SargKind::Lower(e, incl) if lower.is_none() => {
                lower = Some((e.clone(), *incl));
                used.push(s.conjunct);
            }
            SargKind::Upper(e, incl) if upper.is_none() => {
                upper = Some((e.clone(), *incl));
                used.push(s.conjunct);
            }
            SargKind::Between(a, b) if lower.is_none() && upper.is_none() => {
                lower = Some((a.clone(), true));
                upper = Some((b.clone(), true));
                used.push(s.conjunct);
            }
            SargKind::LikePrefix(p, esc) if lower.is_none() && upper.is_none() => {
                let mut args = vec![p.clone()];
                args.extend(esc.clone());
                lower = Some((Expr::Func(Func::LikeLow, args.clone()), true));
                upper = Some((Expr::Func(Func::LikeHigh, args), true));
            }
            _ => {}
        }
    }
    (lower, upper, used)
}

/// `Some(reverse)` when reading index `i` delivers the ORDER BY.
fn order_direction(inp: &Input, i: usize, eq_len: usize) -> Option<bool> {
    let order = inp.order?;
    if order.is_empty() {
        return None;
    }
    let key = extended_key(inp.def, i);
    let mut want = order.iter().peekable();
    let mut dir: Option<bool> = None;
    for (pos, (col, desc_col)) in key.iter().enumerate() {
        let Some((ocol, odesc)) = want.peek() else {
            break;
        };
        if ocol == col {
            let d = odesc ^ desc_col;
            if dir.is_some_and(|x| x != d) {
                return None;
            }
            dir = Some(d);
            want.next();
        } else if pos >= eq_len {
            return None;
        }
    }
    if want.peek().is_some() {
        return None;
    }
    dir
}

fn finish(inp: &Input, c: Candidate) -> Choice {
    let idx = &inp.def.indexes[c.idx];
    let unique_hit = idx.is_unique() && c.eq_len == idx.columns.len() && !idx.columns.is_empty();
    let reverse = c.order.unwrap_or(false);
    let access = match &c.range {
        RangeSpec::Prefix {
            eq,
            lower: None,
            upper: None,
        } if c.idx == 0 && unique_hit && idx.kind == IndexKind::Primary => Access::PkGet {
            key: eq
                .iter()
                .map(|e| e.clone().unwrap_or(Expr::Const(basalt_common::Value::Null)))
                .collect(),
        },
        _ => Access::Index {
            index_id: idx.id,
            range: c.range.clone(),
            reverse,
            covering: c.covering,
        },
    };
    let possible: Vec<String> = inp
        .def
        .indexes
        .iter()
        .filter(|ix| !ix.columns.is_empty() && inp.hints.allows(ix))
        .filter(|ix| {
            ix.columns
                .first()
                .is_some_and(|k| inp.sargs.iter().any(|s| s.column == k.column))
        })
        .map(|ix| ix.name.clone())
        .collect();
    let scan_all = matches!(c.range, RangeSpec::All);
    let access_type = if matches!(access, Access::PkGet { .. }) {
        "const"
    } else if unique_hit {
        "eq_ref"
    } else if c.eq_len > 0 && !c.has_range {
        "ref"
    } else if c.has_range || c.points > 0 {
        "range"
    } else if scan_all && (c.idx != 0 || c.order.is_some()) && (c.idx != 0 || inp.order.is_some()) {
        "index"
    } else {
        "ALL"
    };
    let key = (access_type != "ALL").then(|| idx.name.clone());
    let key_len = key.as_ref().map(|_| {
        key_len(
            inp.def,
            idx,
            c.eq_len + usize::from(c.has_range) + usize::from(c.points > 0),
        )
    });
    let est_rows = c.est.round().max(1.0) as u64;
    Choice {
        access,
        consumed: c.consumed,
        order_satisfied: c.order.is_some(),
        est_rows,
        cost: c.cost,
        explain: ExplainInfo {
            access_type,
            possible_keys: possible,
            key,
            key_len,
            using_where: false,
        },
        uses_values: false,
        values_estimated: false,
    }
}

/// MariaDB's key_len: bytes of the used key parts (+1 per nullable part, +2 for
/// variable-length strings).
fn key_len(def: &TableDef, idx: &IndexDef, parts: usize) -> u32 {
    let parts = if parts == 0 {
        idx.columns.len()
    } else {
        parts.min(idx.columns.len())
    };
    idx.columns[..parts]
        .iter()
        .map(|kc| column_key_len(def, kc.column))
        .sum()
}

/// The bytes column `c` takes in a key, as MariaDB's key_len counts them.
pub(crate) fn column_key_len(def: &TableDef, c: usize) -> u32 {
    let col = &def.columns[c];
    let (_, len, _) = basalt_common::column::describe_type(&col.data_type);
    let base = match &col.data_type {
        basalt_common::DataType::Int { kind, .. } => kind.bytes(),
        basalt_common::DataType::VarChar { len, collation } => {
            len * collation.charset().max_len() + 2
        }
        basalt_common::DataType::Char { len, collation } => len * collation.charset().max_len(),
        basalt_common::DataType::Date => 3,
        basalt_common::DataType::DateTime { .. } | basalt_common::DataType::Timestamp { .. } => 5,
        basalt_common::DataType::Double => 8,
        basalt_common::DataType::Float => 4,
        _ => len,
    };
    base + u32::from(col.nullable)
}

/// Extracts the sargable form of a conjunct on table columns `[offset, offset+width)`.
/// `available(e)` says whether `e` can be evaluated before this table's row is read.
pub fn sarg(
    conjunct: usize,
    e: &Expr,
    offset: usize,
    width: usize,
    def: &TableDef,
    available: &dyn Fn(&Expr) -> bool,
) -> Option<Sarg> {
    let col_of = |x: &Expr| {
        x.as_column()
            .filter(|c| *c >= offset && *c < offset + width)
            .map(|c| c - offset)
    };
    let compatible = |col: usize, coll: Collation| match def.columns[col].data_type.collation() {
        Some(c) => c == coll || coll == Collation::Binary && c.is_binary(),
        None => true,
    };
    let mk = |column, kind| {
        Some(Sarg {
            conjunct,
            column,
            kind,
        })
    };
    match e {
        Expr::Cmp(op, a, b, coll) => {
            let (col, other, op) = match (col_of(a), col_of(b)) {
                (Some(c), _) if available(b) => (c, b.as_ref().clone(), *op),
                (_, Some(c)) if available(a) => (c, a.as_ref().clone(), op.flip()),
                _ => return None,
            };
            if !compatible(col, *coll) {
                return None;
            }
            match op {
                CmpOp::Eq => mk(col, SargKind::Eq(other)),
                CmpOp::Gt => mk(col, SargKind::Lower(other, false)),
                CmpOp::Ge => mk(col, SargKind::Lower(other, true)),
                CmpOp::Lt => mk(col, SargKind::Upper(other, false)),
                CmpOp::Le => mk(col, SargKind::Upper(other, true)),
                CmpOp::Ne => None,
            }
        }
        Expr::IsNull(a, false) => mk(col_of(a)?, SargKind::IsNull),
        Expr::In {
            arg,
            list,
            negated: false,
            coll,
        } => {
            let col = col_of(arg)?;
            (compatible(col, *coll) && list.iter().all(available)).then_some(())?;
            mk(col, SargKind::In(list.clone()))
        }
        Expr::Like {
            arg,
            pattern,
            escape,
            negated: false,
            coll,
        } => {
            let col = col_of(arg)?;
            let esc_ok = escape.as_deref().is_none_or(available);
            (compatible(col, *coll) && available(pattern) && esc_ok).then_some(())?;
            def.columns[col]
                .data_type
                .collation()
                .filter(|c| !c.is_binary())?;
            mk(
                col,
                SargKind::LikePrefix(pattern.as_ref().clone(), escape.as_deref().cloned()),
            )
        }
        Expr::Between {
            arg,
            low,
            high,
            negated: false,
            coll,
        } => {
            let col = col_of(arg)?;
            (compatible(col, *coll) && available(low) && available(high)).then_some(())?;
            mk(
                col,
                SargKind::Between(low.as_ref().clone(), high.as_ref().clone()),
            )
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_common::{ColumnDef, DataType, IndexColumn, IntKind, Value};
    use basalt_storage::IndexStats;

    fn int() -> DataType {
        DataType::Int {
            kind: IntKind::Int,
            unsigned: false,
            width: 0,
            zerofill: false,
        }
    }

    fn index(id: u32, name: &str, kind: IndexKind, cols: &[usize]) -> IndexDef {
        IndexDef {
            id,
            name: name.into(),
            kind,
            columns: cols
                .iter()
                .map(|c| IndexColumn {
                    column: *c,
                    prefix_len: None,
                    descending: false,
                })
                .collect(),
            comment: String::new(),
        }
    }

    /// The seed benchmark's `foo (i pk, j, k, l)` with indexes xj(j), xjk(j,k).
    fn foo() -> (TableDef, TableStats) {
        let def = TableDef {
            id: 1,
            schema: "test".into(),
            name: "foo".into(),
            columns: ["i", "j", "k", "l"]
                .iter()
                .map(|n| ColumnDef::new(*n, int()))
                .collect(),
            indexes: vec![
                index(0, "PRIMARY", IndexKind::Primary, &[0]),
                index(1, "xj", IndexKind::NonUnique, &[1]),
                index(2, "xjk", IndexKind::NonUnique, &[1, 2]),
            ],
            engine: basalt_common::EngineKind::Basalt,
            charset: basalt_common::Charset::Utf8mb4,
            collation: Collation::Utf8mb4GeneralCi,
            comment: String::new(),
            auto_increment_start: 1,
            next_index_id: 3,
            checks: Vec::new(),
            options: Vec::new(),
            foreign_keys: Vec::new(),
            partitioning: None,
        };
        let stats = TableStats {
            rows: 64_000,
            indexes: vec![
                IndexStats {
                    index_id: 0,
                    distinct: vec![64_000],
                },
                IndexStats {
                    index_id: 1,
                    distinct: vec![64_000],
                },
                IndexStats {
                    index_id: 2,
                    distinct: vec![64_000, 64_000],
                },
            ],
            data_bytes: 0,
        };
        (def, stats)
    }

    fn eq(col: usize, v: i64) -> Sarg {
        Sarg {
            conjunct: 0,
            column: col,
            kind: SargKind::Eq(Expr::Const(Value::Int(v))),
        }
    }

    fn ge(col: usize, v: i64) -> Sarg {
        Sarg {
            conjunct: 0,
            column: col,
            kind: SargKind::Lower(Expr::Const(Value::Int(v)), true),
        }
    }

    fn pick(
        sargs: &[Sarg],
        needed: &[usize],
        order: Option<&[(usize, bool)]>,
        limit: Option<u64>,
        hints: &Hints,
    ) -> Choice {
        let (def, stats) = foo();
        choose(&Input {
            def: &def,
            stats: &stats,
            sargs,
            needed,
            order,
            limit,
            hints,
            constant: &|_| None,
            range_fraction: &|_, _| None,
        })
    }

    fn index_of(c: &Choice) -> Option<u32> {
        match &c.access {
            Access::Index { index_id, .. } => Some(*index_id),
            Access::PkGet { .. } => None,
        }
    }

    #[test]
    fn pk_equality_is_a_point_get() {
        let c = pick(&[eq(0, 100)], &[1], None, None, &Hints::default());
        assert!(matches!(c.access, Access::PkGet { .. }));
        assert_eq!(c.consumed, vec![0]);
        let forced = Hints {
            force: vec!["PRIMARY".into()],
            ..Hints::default()
        };
        let c = pick(&[eq(0, 100)], &[1], None, None, &forced);
        assert!(matches!(c.access, Access::PkGet { .. }));
    }

    #[test]
    fn covering_index_preferred_without_hints() {
        let c = pick(&[eq(1, 100)], &[2], None, None, &Hints::default());
        assert_eq!(index_of(&c), Some(2));
        assert!(matches!(c.access, Access::Index { covering: true, .. }));
    }

    #[test]
    fn force_index_is_honoured() {
        let forced = Hints {
            force: vec!["xj".into()],
            ..Hints::default()
        };
        let c = pick(&[eq(1, 100)], &[2], None, None, &forced);
        assert_eq!(index_of(&c), Some(1));
        assert!(matches!(
            c.access,
            Access::Index {
                covering: false,
                ..
            }
        ));
        let c = pick(&[], &[2], None, None, &forced);
        assert_eq!(index_of(&c), Some(1));
    }

    #[test]
    fn ignore_and_use_index_restrict_candidates() {
        let ignore = Hints {
            ignore: vec!["xjk".into()],
            ..Hints::default()
        };
        assert_eq!(
            index_of(&pick(&[eq(1, 100)], &[2], None, None, &ignore)),
            Some(1)
        );
        let use_only = Hints {
            use_only: Some(vec![]),
            ..Hints::default()
        };
        let c = pick(&[eq(1, 100)], &[2], None, None, &use_only);
        assert_eq!(index_of(&c), Some(0));
        assert_eq!(c.explain.access_type, "ALL");
    }

    #[test]
    fn order_by_limit_reads_the_index_in_order() {
        let order = [(0usize, false)];
        let c = pick(
            &[ge(0, 100)],
            &[1],
            Some(&order),
            Some(10),
            &Hints::default(),
        );
        assert_eq!(index_of(&c), Some(0));
        assert!(c.order_satisfied);
        assert!(matches!(c.access, Access::Index { reverse: false, .. }));
        let desc = [(0usize, true)];
        let c = pick(
            &[ge(0, 100)],
            &[1],
            Some(&desc),
            Some(10),
            &Hints::default(),
        );
        assert!(c.order_satisfied);
        assert!(matches!(c.access, Access::Index { reverse: true, .. }));
        let by_j = [(1usize, false)];
        let forced = Hints {
            force: vec!["xjk".into()],
            ..Hints::default()
        };
        let c = pick(&[ge(1, 100)], &[2], Some(&by_j), Some(10), &forced);
        assert_eq!(index_of(&c), Some(2));
        assert!(c.order_satisfied);
    }

    #[test]
    fn descending_and_prefix_parts_decide_order() {
        let (mut def, stats) = foo();
        def.indexes[1].columns[0].descending = true;
        let pick_on = |def: &TableDef, order: &[(usize, bool)]| {
            choose(&Input {
                def,
                stats: &stats,
                sargs: &[ge(1, 100)],
                needed: &[1],
                order: Some(order),
                limit: Some(10),
                hints: &Hints {
                    force: vec!["xj".into()],
                    ..Hints::default()
                },
                constant: &|_| None,
                range_fraction: &|_, _| None,
            })
        };
        // ORDER BY j DESC reads the descending index forwards, ORDER BY j backwards.
        let c = pick_on(&def, &[(1, true)]);
        assert!(c.order_satisfied);
        assert!(matches!(c.access, Access::Index { reverse: false, .. }));
        let c = pick_on(&def, &[(1, false)]);
        assert!(c.order_satisfied);
        assert!(matches!(c.access, Access::Index { reverse: true, .. }));
        // A prefix key part orders by the prefix only.
        def.indexes[1].columns[0].prefix_len = Some(2);
        assert!(!pick_on(&def, &[(1, false)]).order_satisfied);
    }

    #[test]
    fn unrestricted_query_scans_the_table() {
        let c = pick(&[], &[0, 1, 2, 3], None, None, &Hints::default());
        assert_eq!(index_of(&c), Some(0));
        assert_eq!(c.explain.access_type, "ALL");
    }

    fn pick_at_share(
        sargs: &[Sarg],
        needed: &[usize],
        order: Option<&[(usize, bool)]>,
        limit: Option<u64>,
        share: f64,
    ) -> Choice {
        let (def, stats) = foo();
        let constant = |e: &Expr| match e {
            Expr::Const(v) => Some(v.clone()),
            _ => None,
        };
        choose(&Input {
            def: &def,
            stats: &stats,
            sargs,
            needed,
            order,
            limit,
            hints: &Hints::default(),
            constant: &constant,
            range_fraction: &|_, _| Some(share),
        })
    }

    #[test]
    fn values_tie_the_plan_only_when_they_can_change_it() {
        // An ordered PK range with LIMIT reads the same way whatever its share.
        for share in [0.001, 0.5, 1.0] {
            let c = pick_at_share(&[ge(0, 100)], &[1], Some(&[(0, false)]), Some(10), share);
            assert_eq!(index_of(&c), Some(0));
            assert!(c.values_estimated);
            assert!(!c.uses_values, "share {share}");
            // sysbench's `id BETWEEN ? AND ?`: the primary key range at any share.
            let c = pick_at_share(&[ge(0, 100)], &[1], None, None, share);
            assert_eq!(index_of(&c), Some(0));
            assert!(!c.uses_values, "share {share}");
        }
        // A secondary index range without order: the share decides between the
        // index and a full scan.
        let narrow = pick_at_share(&[ge(1, 100)], &[3], None, None, 0.001);
        assert_ne!(narrow.explain.access_type, "ALL");
        assert!(narrow.uses_values);
        let wide = pick_at_share(&[ge(1, 100)], &[3], None, None, 1.0);
        assert_eq!(wide.explain.access_type, "ALL");
        assert!(wide.uses_values);
    }
}
