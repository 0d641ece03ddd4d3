//! The partitions a table access reads (EXPLAIN's `partitions` column and the
//! JSON plan's `partitions` list): those left after pruning by constant key
//! values and after `t PARTITION (...)`.

use crate::expr::Expr;
use crate::plan::{Access, Level, RangeSpec, TableRef};
use basalt_common::Value;
use basalt_storage::KeyRange;
use std::ops::Bound;

/// The names of the partitions `l` reads of `t`; `None` for a table that is not
/// partitioned.
pub fn read_by(t: &TableRef, l: &Level) -> Option<Vec<String>> {
    let spec = t.def.partitioning.as_ref()?;
    let (index_id, range) = match &l.access {
        Access::PkGet { key } => (t.def.indexes[0].id, constants(key).map(KeyRange::eq)),
        Access::Index {
            index_id,
            range: RangeSpec::Prefix { eq, lower, upper },
            ..
        } => (*index_id, prefix_range(eq, lower.as_ref(), upper.as_ref())),
        Access::Index { index_id, .. } => (*index_id, None),
    };
    let ids = t
        .table
        .partitions_read(index_id, &range.unwrap_or_else(KeyRange::all))?;
    Some(
        ids.iter()
            .filter_map(|id| spec.part(*id).map(|p| p.name.clone()))
            .collect(),
    )
}

/// The key range of a prefix access whose values are all constants.
fn prefix_range(
    eq: &[Option<Expr>],
    lower: Option<&(Expr, bool)>,
    upper: Option<&(Expr, bool)>,
) -> Option<KeyRange> {
    let eq: Vec<Expr> = eq.iter().cloned().collect::<Option<_>>()?;
    let eq = constants(&eq)?;
    let side = |b: Option<&(Expr, bool)>| -> Option<Bound<Vec<Value>>> {
        Some(match b {
            None if eq.is_empty() => Bound::Unbounded,
            None => Bound::Included(eq.clone()),
            Some((e, incl)) => {
                let mut v = eq.clone();
                v.extend(constants(std::slice::from_ref(e))?);
                match incl {
                    true => Bound::Included(v),
                    false => Bound::Excluded(v),
                }
            }
        })
    };
    Some(KeyRange {
        lower: side(lower)?,
        upper: side(upper)?,
    })
}

fn constants(exprs: &[Expr]) -> Option<Vec<Value>> {
    exprs
        .iter()
        .map(|e| match e {
            Expr::Const(v) => Some(v.clone()),
            _ => None,
        })
        .collect()
}
