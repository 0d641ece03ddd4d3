//! SELECT execution: drives the join levels, then projection, DISTINCT,
//! aggregation, HAVING, ORDER BY and LIMIT/OFFSET.
//!
//! Without aggregation or sorting the result streams: LIMIT stops the scan as soon
//! as enough rows passed (unless SQL_CALC_FOUND_ROWS needs the full count).

use super::agg::Aggregator;
use super::agg::KeySet;
use super::scan::{drive, drive_expecting, Flow, R};
use super::Exec;
use crate::expr::{EvalCtx, Expr};
use crate::plan::{SelectPlan, SortKey};
use crate::ty::ExprType;
use crate::value::compare::{group_key, sort_cmp};
use basalt_common::{Collation, Row, Value};
use std::cmp::Ordering;

/// The result rows (visible columns only) and the row count FOUND_ROWS() reports.
pub struct Output {
    pub rows: Vec<Row>,
    pub found: u64,
}

fn eval_count(e: Option<&Expr>, ctx: &mut EvalCtx) -> R<Option<u64>> {
    match e {
        None => Ok(None),
        Some(e) => {
            let v = e.eval(&[], ctx)?;
            Ok(Some(
                crate::value::to_num(&v)
                    .0
                    .to_i128()
                    .unwrap_or(0)
                    .clamp(0, u64::MAX as i128) as u64,
            ))
        }
    }
}

pub fn run(plan: &SelectPlan, ex: &mut Exec) -> R<Output> {
    if !plan.subs.is_empty() {
        super::sub::materialize(&plan.subs, ex)?;
    }
    let limit = eval_count(plan.limit.as_ref(), ex.ctx)?;
    let offset = eval_count(plan.offset.as_ref(), ex.ctx)?.unwrap_or(0);
    if !plan.union.is_empty() {
        return run_union(plan, ex, limit, offset);
    }
    if plan.agg.is_some() {
        return run_agg(plan, ex, limit, offset);
    }
    let streaming = plan.order.is_empty();
    let mut rows: Vec<Row> = Vec::new();
    let mut seen = KeySet::default();
    let mut passed = 0u64;
    let stop_at = limit.map(|l| l.saturating_add(offset));
    let calc = plan.calc_found_rows;
    let mut sink =
        |row: &[Value], _: Option<&basalt_storage::RowHandle>, ctx: &mut EvalCtx| -> R<Flow> {
            if let Some(h) = &plan.having {
                if h.eval_bool(row, ctx)? != Some(true) {
                    return Ok(Flow::Continue);
                }
            }
            let out = project(&plan.project, row, ctx)?;
            if plan.distinct && !seen.insert(row_key(&out[..plan.visible], &plan.types)) {
                return Ok(Flow::Continue);
            }
            passed += 1;
            if streaming {
                let keep = passed > offset && stop_at.is_none_or(|s| passed <= s);
                if keep {
                    rows.push(out);
                }
                if !calc && stop_at.is_some_and(|s| passed >= s) {
                    return Ok(Flow::Stop);
                }
            } else {
                rows.push(out);
            }
            Ok(Flow::Continue)
        };
    let expect = stop_at.filter(|_| streaming && !calc && !plan.distinct && plan.having.is_none());
    drive_expecting(plan, ex, &mut sink, expect)?;
    let found = passed;
    if !streaming {
        sort_rows(&mut rows, &plan.order);
        rows = window(rows, offset, limit);
    }
    for r in rows.iter_mut() {
        r.truncate(plan.visible);
    }
    let found = if calc { found } else { rows.len() as u64 };
    Ok(Output { rows, found })
}

fn project(exprs: &[Expr], row: &[Value], ctx: &mut EvalCtx) -> R<Row> {
    exprs.iter().map(|e| e.eval(row, ctx)).collect()
}

/// The DISTINCT / UNION key of a row: equal for rows equal under each column's
/// collation (strings) or value (numbers).
fn row_key(vals: &[Value], types: &[ExprType]) -> Vec<u8> {
    let mut k = Vec::new();
    for (i, v) in vals.iter().enumerate() {
        let coll = types
            .get(i)
            .map_or(Collation::Binary, ExprType::key_collation);
        group_key(v, coll, &mut k);
    }
    k
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
                sort_cmp(&a[k.column], &b[k.column], k.coll)
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

fn cmp_rows(a: &[Value], b: &[Value], keys: &[SortKey]) -> Ordering {
    for k in keys {
        let o = sort_cmp(&a[k.column], &b[k.column], k.coll);
        let o = if k.desc { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// A key column holding only strings (and NULLs) under a non-binary collation:
/// there the order of the collation's sort keys (NULL first) is `sort_cmp`'s.
fn string_column(rows: &[Row], k: &SortKey) -> bool {
    !k.coll.is_binary()
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
            Value::Bytes(b) if on => {
                let mut w = Vec::with_capacity(3 * b.len());
                k.coll.sort_key(b, &mut w);
                Some(w)
            }
            _ => None,
        })
        .collect()
}

fn window(rows: Vec<Row>, offset: u64, limit: Option<u64>) -> Vec<Row> {
    let skip = offset.min(rows.len() as u64) as usize;
    let take = limit.map_or(usize::MAX, |l| l.min(usize::MAX as u64) as usize);
    rows.into_iter().skip(skip).take(take).collect()
}

fn run_agg(plan: &SelectPlan, ex: &mut Exec, limit: Option<u64>, offset: u64) -> R<Output> {
    let agg = plan
        .agg
        .as_ref()
        .ok_or_else(|| basalt_common::MySqlError::internal("no aggregate plan"))?;
    let mut aggregator = Aggregator::new(agg);
    let mut sink =
        |row: &[Value], _: Option<&basalt_storage::RowHandle>, ctx: &mut EvalCtx| -> R<Flow> {
            aggregator.add(row, ctx)?;
            Ok(Flow::Continue)
        };
    drive(plan, ex, &mut sink)?;
    let groups = aggregator.finish(ex.ctx)?;
    let mut rows = Vec::with_capacity(groups.len());
    let mut seen = KeySet::default();
    for g in groups {
        if let Some(h) = &plan.having {
            if h.eval_bool(&g, ex.ctx)? != Some(true) {
                continue;
            }
        }
        let out = project(&plan.project, &g, ex.ctx)?;
        if plan.distinct && !seen.insert(row_key(&out[..plan.visible], &plan.types)) {
            continue;
        }
        rows.push(out);
    }
    sort_rows(&mut rows, &plan.order);
    let found = rows.len() as u64;
    let mut rows = window(rows, offset, limit);
    for r in rows.iter_mut() {
        r.truncate(plan.visible);
    }
    let found = if plan.calc_found_rows {
        found
    } else {
        rows.len() as u64
    };
    Ok(Output { rows, found })
}

fn run_union(plan: &SelectPlan, ex: &mut Exec, limit: Option<u64>, offset: u64) -> R<Output> {
    let mut rows: Vec<Row> = Vec::new();
    for (i, (branch, all)) in plan.union.iter().enumerate() {
        let mut out = run(branch, ex)?.rows;
        for r in out.iter_mut() {
            for (v, t) in r.iter_mut().zip(&plan.types) {
                coerce(v, t);
            }
        }
        rows.extend(out);
        if i > 0 && !all {
            let mut seen = KeySet::default();
            rows.retain(|r| seen.insert(row_key(r, &plan.types)));
        }
    }
    sort_rows(&mut rows, &plan.order);
    let found = rows.len() as u64;
    let rows = window(rows, offset, limit);
    let found = if plan.calc_found_rows {
        found
    } else {
        rows.len() as u64
    };
    Ok(Output { rows, found })
}

/// Converts a branch value to the union's column type (strings stay strings,
/// numbers to the common numeric kind), as MariaDB does for UNION results.
fn coerce(v: &mut Value, t: &crate::ty::ExprType) {
    use crate::ty::Class;
    if v.is_null() {
        return;
    }
    match t.class {
        Class::String if !matches!(v, Value::Bytes(_)) => {
            *v = Value::Bytes(crate::value::to_bytes(v))
        }
        Class::Decimal if !matches!(v, Value::Decimal(_)) => {
            let d = crate::value::to_num(v).0.to_decimal();
            *v = Value::Decimal(d.rescale(t.decimals).unwrap_or(d));
        }
        Class::Decimal => {
            if let Value::Decimal(d) = v {
                *d = d.rescale(t.decimals).unwrap_or(*d);
            }
        }
        Class::Double if !matches!(v, Value::Double(_)) => {
            *v = Value::Double(crate::value::to_f64(v))
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(column: usize, desc: bool, coll: Collation) -> SortKey {
        SortKey { column, desc, coll }
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
}
