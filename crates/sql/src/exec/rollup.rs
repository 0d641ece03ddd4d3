//! GROUP BY ... WITH ROLLUP.
//!
//! With n GROUP BY expressions, n + 1 aggregations run over the same input in
//! one pass: level k groups by the first k expressions (level n is the plain
//! GROUP BY, level 0 the grand total). A level-k row holds NULL for the group
//! columns from k on, so the projection and HAVING, which read group columns
//! from the aggregate row, see MariaDB's NULL super-aggregate values.
//!
//! Order, as MariaDB returns it: rows sorted by the group values, where at each
//! position a rolled-up (NULL) column sorts after every real value, so each
//! super-aggregate row follows the rows it sums up and the grand total comes
//! last. An empty input gives no rows at all (no grand total either).

use super::agg::Aggregator;
use super::scan::{drive, Flow, R};
use super::Exec;
use crate::expr::EvalCtx;
use crate::plan::{AggPlan, SelectPlan};
use crate::value::compare::sort_cmp;
use basalt_common::{Row, Value};
use std::cmp::Ordering;

/// The aggregate rows (group values, then aggregates) of every level, in order.
pub fn groups(plan: &SelectPlan, agg: &AggPlan, ex: &mut Exec) -> R<Vec<Row>> {
    let n = agg.group_by.len();
    let levels: Vec<AggPlan> = (0..=n)
        .map(|k| AggPlan {
            group_by: agg.group_by[..k].to_vec(),
            group_colls: agg.group_colls[..k].to_vec(),
            calls: agg.calls.clone(),
            rollup: false,
        })
        .collect();
    let mut aggregators: Vec<Aggregator> =
        levels.iter().map(|p| Aggregator::new(p, ex.ctx)).collect();
    let mut any = false;
    let mut sink =
        |row: &[Value], _: Option<&basalt_storage::RowHandle>, ctx: &mut EvalCtx| -> R<Flow> {
            any = true;
            for a in aggregators.iter_mut() {
                a.add(row, ctx)?;
            }
            Ok(Flow::Continue)
        };
    drive(plan, ex, &mut sink)?;
    if !any {
        return Ok(Vec::new());
    }
    let mut rows: Vec<(usize, Row)> = Vec::new();
    for (k, a) in aggregators.into_iter().enumerate() {
        for mut r in a.finish(ex.ctx)? {
            let aggs = r.split_off(k);
            r.resize(n, Value::Null);
            r.extend(aggs);
            rows.push((k, r));
        }
    }
    let colls = &agg.group_colls;
    rows.sort_by(|(ka, a), (kb, b)| {
        for (i, c) in colls.iter().enumerate() {
            let o = match (i < *ka, i < *kb) {
                (true, true) => sort_cmp(&a[i], &b[i], *c),
                (true, false) => Ordering::Less,
                (false, true) => Ordering::Greater,
                (false, false) => Ordering::Equal,
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    });
    Ok(rows.into_iter().map(|(_, r)| r).collect())
}
