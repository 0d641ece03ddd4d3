//! The partitions a table access reads (EXPLAIN's `partitions` column and the
//! JSON plan's `partitions` list): those left after pruning by constant key
//! values and after `t PARTITION (...)`.

use crate::expr::Expr;
use crate::plan::{Access, Level, RangeSpec, TableRef};
use basalt_common::Value;
use basalt_storage::KeyRange;

/// The names of the partitions `l` reads of `t`; `None` for a table that is not
/// partitioned.
pub fn read_by(t: &TableRef, l: &Level) -> Option<Vec<String>> {
    let spec = t.def.partitioning.as_ref()?;
    let (index_id, range) = match &l.access {
        Access::PkGet { key } => (t.def.indexes[0].id, constants(key).map(KeyRange::eq)),
        Access::Index {
            index_id,
            range:
                RangeSpec::Prefix {
                    eq,
                    lower: None,
                    upper: None,
                },
            ..
        } => {
            let vals: Option<Vec<Expr>> = eq.iter().cloned().collect();
            (
                *index_id,
                vals.as_deref().and_then(constants).map(KeyRange::eq),
            )
        }
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

fn constants(exprs: &[Expr]) -> Option<Vec<Value>> {
    exprs
        .iter()
        .map(|e| match e {
            Expr::Const(v) => Some(v.clone()),
            _ => None,
        })
        .collect()
}
