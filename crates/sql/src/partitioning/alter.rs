//! ALTER TABLE's partition clauses, bound against the table's partitioning:
//! - `PARTITION BY` and `REMOVE PARTITIONING` repartition the table (a copy
//!   whose rows are placed anew);
//! - `ADD PARTITION` of RANGE / LIST and `DROP PARTITION` change only the
//!   definition (no row moves; a dropped partition's rows are deleted after);
//! - `ADD PARTITION` of HASH / KEY, `COALESCE` and `REORGANIZE` copy;
//! - `TRUNCATE PARTITION` deletes the partitions' rows.
//!
//! Every other ALTER of a partitioned table keeps its partitioning, checked again
//! against the new columns and keys.

use super::spec::{self, part_def};
use crate::front::native::alter_partition::PartitionOp;
use crate::front::native::partition_clause::{parse_clause, parse_defs};
use crate::session::ctx::SessionCtx;
use basalt_common::partition::{PartitionDef, PartitionKind, PartitionSpec, PartitionValues};
use basalt_common::{MySqlError, TableDef};
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

fn err(code: u16, msg: &str) -> MySqlError {
    MySqlError::new(code, "HY000", msg)
}

/// What the partition clause of an ALTER TABLE does.
#[derive(Debug, Default)]
pub struct Change {
    /// Copy the table, placing every row anew.
    pub copy: bool,
    /// Partitions whose rows are deleted once the definition changed.
    pub clear: Vec<u32>,
}

fn not_partitioned() -> MySqlError {
    err(
        1505,
        "Partition management on a not partitioned table is not possible",
    )
}

/// Sets `new.partitioning` for the ALTER TABLE of a table defined by `old`.
pub fn apply(
    old: &TableDef,
    new: &mut TableDef,
    op: Option<&PartitionOp>,
    cx: &mut SessionCtx,
) -> R<Change> {
    let mut change = Change::default();
    let Some(op) = op else {
        if let Some(s) = &old.partitioning {
            recheck(s, new, cx)?;
        }
        return Ok(change);
    };
    if let PartitionOp::By(text) = op {
        let c = parse_clause(text)?;
        new.partitioning = Some(spec::bind(&c, new, cx)?);
        change.copy = true;
        return Ok(change);
    }
    if let PartitionOp::Unsupported(what) = op {
        return Err(MySqlError::not_supported(what));
    }
    let Some(mut s) = old.partitioning.clone() else {
        return Err(not_partitioned());
    };
    match op {
        PartitionOp::RemovePartitioning => {
            new.partitioning = None;
            change.copy = true;
            return Ok(change);
        }
        PartitionOp::Add { defs, count } => {
            change.copy = add(&mut s, defs.as_deref(), *count, new, cx)?
        }
        PartitionOp::Drop { names, if_exists } => {
            change.clear = drop(&mut s, names, *if_exists, cx)?
        }
        PartitionOp::Truncate(names) => change.clear = ids(&s, names.as_deref(), &old.name)?,
        PartitionOp::Coalesce(n) => {
            coalesce(&mut s, *n)?;
            change.copy = true;
        }
        PartitionOp::Reorganize { names, into } => {
            if let Some(into) = into {
                reorganize(&mut s, names, into, new, cx)?;
            }
            change.copy = true;
        }
        PartitionOp::By(_) | PartitionOp::Unsupported(_) => unreachable!("handled above"),
    }
    spec::validate(&s, new)?;
    new.partitioning = Some(s);
    Ok(change)
}

/// The partitioning still fits the new columns and keys.
fn recheck(s: &PartitionSpec, new: &mut TableDef, cx: &mut SessionCtx) -> R<()> {
    if s.expr.is_empty() {
        for c in &s.columns {
            if new.column_index(c).is_none() {
                return Err(MySqlError::bad_field(c, "partition function"));
            }
        }
    } else {
        super::bind_expr(&s.expr, &Arc::new(new.clone()), cx)?;
    }
    spec::validate(s, new)?;
    new.partitioning = Some(s.clone());
    Ok(())
}

fn fresh(s: &mut PartitionSpec, defs: Vec<PartitionDef>) -> Vec<PartitionDef> {
    defs.into_iter()
        .map(|mut d| {
            d.id = s.next_id;
            s.next_id += 1;
            d
        })
        .collect()
}

fn bound_defs(
    text: &str,
    s: &PartitionSpec,
    def: &TableDef,
    cx: &mut SessionCtx,
) -> R<Vec<PartitionDef>> {
    parse_defs(text)?
        .iter()
        .map(|d| part_def(0, d, s, def, cx))
        .collect()
}

/// ADD PARTITION; returns whether rows move (HASH / KEY).
fn add(
    s: &mut PartitionSpec,
    defs: Option<&str>,
    count: Option<u64>,
    def: &TableDef,
    cx: &mut SessionCtx,
) -> R<bool> {
    let hashed = matches!(s.kind, PartitionKind::Hash | PartitionKind::Key);
    let new = match (defs, count) {
        (Some(text), _) => bound_defs(text, s, def, cx)?,
        (None, Some(0)) => {
            return Err(err(
                1504,
                "Number of partitions = 0 is not an allowed value",
            ))
        }
        (None, Some(n)) if hashed => {
            let at = s.parts.len();
            (at..at + n as usize)
                .map(|i| PartitionDef {
                    id: 0,
                    name: format!("p{i}"),
                    values: PartitionValues::None,
                    comment: String::new(),
                })
                .collect()
        }
        _ => return Err(MySqlError::parse_error("", 1)),
    };
    if s.parts.len() + new.len() > spec::MAX_PARTITIONS {
        return Err(err(
            1499,
            "Too many partitions (including subpartitions) were defined",
        ));
    }
    let new = fresh(s, new);
    s.parts.extend(new);
    Ok(hashed)
}

fn drop(
    s: &mut PartitionSpec,
    names: &[String],
    if_exists: bool,
    cx: &mut SessionCtx,
) -> R<Vec<u32>> {
    if !matches!(s.kind, PartitionKind::Range | PartitionKind::List) {
        return Err(err(
            1512,
            "DROP PARTITION can only be used on RANGE/LIST partitions",
        ));
    }
    let mut gone = Vec::new();
    for n in names {
        match s.by_name(n) {
            Some(p) => gone.push(p.id),
            None if if_exists => cx.note(1507, "Wrong partition name or partition list"),
            None => return Err(err(1507, "Wrong partition name or partition list")),
        }
    }
    if gone.len() >= s.parts.len() {
        return Err(err(
            1508,
            "Cannot remove all partitions, use DROP TABLE instead",
        ));
    }
    s.parts.retain(|p| !gone.contains(&p.id));
    Ok(gone)
}

fn ids(s: &PartitionSpec, names: Option<&[String]>, table: &str) -> R<Vec<u32>> {
    let Some(names) = names else {
        return Ok(s.parts.iter().map(|p| p.id).collect());
    };
    names
        .iter()
        .map(|n| {
            s.by_name(n)
                .map(|p| p.id)
                .ok_or_else(|| err(1735, &format!("Unknown partition '{n}' in table '{table}'")))
        })
        .collect()
}

fn coalesce(s: &mut PartitionSpec, n: u64) -> R<()> {
    if !matches!(s.kind, PartitionKind::Hash | PartitionKind::Key) {
        return Err(err(
            1509,
            "COALESCE PARTITION can only be used on HASH/KEY partitions",
        ));
    }
    if n == 0 {
        return Err(err(1515, "At least one partition must be coalesced"));
    }
    if n as usize >= s.parts.len() {
        return Err(err(
            1508,
            "Cannot remove all partitions, use DROP TABLE instead",
        ));
    }
    s.parts.truncate(s.parts.len() - n as usize);
    Ok(())
}

fn reorganize(
    s: &mut PartitionSpec,
    names: &[String],
    into: &str,
    def: &TableDef,
    cx: &mut SessionCtx,
) -> R<()> {
    let wrong = || err(1507, "Error in list of partitions to REORGANIZE");
    let mut at: Vec<usize> = Vec::new();
    for n in names {
        let i = s
            .parts
            .iter()
            .position(|p| p.name.eq_ignore_ascii_case(n))
            .ok_or_else(wrong)?;
        at.push(i);
    }
    at.sort_unstable();
    if at.windows(2).any(|w| w[1] != w[0] + 1) {
        return Err(err(
            1519,
            "When reorganizing a set of partitions they must be in consecutive order",
        ));
    }
    let new = bound_defs(into, s, def, cx)?;
    if s.kind == PartitionKind::Range {
        let last_old = &s.parts[*at.last().expect("names")].values;
        let last_new = &new.last().ok_or_else(wrong)?.values;
        let extends_last = *at.last().expect("names") + 1 == s.parts.len();
        if let (PartitionValues::LessThan(o), PartitionValues::LessThan(n)) = (last_old, last_new) {
            let ord = spec::tuple_cmp(n, o, s, def);
            if ord == std::cmp::Ordering::Less
                || (ord == std::cmp::Ordering::Greater && !extends_last)
            {
                return Err(err(1520, "Reorganize of range partitions cannot change total ranges except for last partition where it can extend the range"));
            }
        }
    }
    let new = fresh(s, new);
    let first = at[0];
    s.parts.splice(first..first + at.len(), new);
    Ok(())
}
