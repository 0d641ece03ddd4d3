//! A parsed partition clause bound against the table's columns and keys into the
//! [`PartitionSpec`] the catalog keeps, with MariaDB 10.11's errors.

use super::{bind_expr, col_collation, printed};
use crate::front::native::partition_clause::{PartDefAst, PartitionClause, ValuesAst};
use crate::session::ctx::SessionCtx;
use crate::ty::Class;
use basalt_common::partition::*;
use basalt_common::{DataType, MySqlError, TableDef, Value};
use std::cmp::Ordering;
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

fn err(code: u16, msg: &str) -> MySqlError {
    MySqlError::new(code, "HY000", msg)
}

/// The most partitions a table may have (MariaDB's MAX_PARTITIONS).
pub const MAX_PARTITIONS: usize = 8192;

/// Binds `c` for a table defined by `def` (its columns and keys as they will be).
pub fn bind(c: &PartitionClause, def: &TableDef, cx: &mut SessionCtx) -> R<PartitionSpec> {
    let mut spec = PartitionSpec {
        kind: c.kind,
        linear: c.linear,
        columns_form: c.columns_form,
        expr: String::new(),
        columns: Vec::new(),
        key_algorithm: c.algorithm,
        listed: c.defs.is_some(),
        parts: Vec::new(),
        next_id: 0,
    };
    match &c.expr {
        Some(text) => {
            spec.expr = printed(text)?;
            check_function(&spec.expr, def, cx)?;
        }
        None => {
            for name in &c.columns {
                let Some(i) = def.column_index(name) else {
                    return Err(err(
                        1488,
                        "Field in list of fields for partition function not found in table",
                    ));
                };
                spec.columns.push(def.columns[i].name.clone());
            }
            if c.kind == PartitionKind::Key && spec.columns.is_empty() && def.has_hidden_pk() {
                return Err(err(
                    1488,
                    "Field in list of fields for partition function not found in table",
                ));
            }
        }
    }
    spec.parts = parts(c, &spec, def, cx)?;
    spec.next_id = spec.parts.len() as u32;
    validate(&spec, def)?;
    Ok(spec)
}

/// The partitions of the clause, with ids from 0.
fn parts(
    c: &PartitionClause,
    spec: &PartitionSpec,
    def: &TableDef,
    cx: &mut SessionCtx,
) -> R<Vec<PartitionDef>> {
    if c.count == Some(0) {
        return Err(err(
            1504,
            "Number of partitions = 0 is not an allowed value",
        ));
    }
    let Some(defs) = &c.defs else {
        return match c.kind {
            PartitionKind::Range => Err(err(
                1492,
                "For RANGE partitions each partition must be defined",
            )),
            PartitionKind::List => Err(err(
                1492,
                "For LIST partitions each partition must be defined",
            )),
            _ => {
                let n = c.count.unwrap_or(1) as usize;
                if n > MAX_PARTITIONS {
                    return Err(too_many());
                }
                Ok((0..n)
                    .map(|i| PartitionDef {
                        id: i as u32,
                        name: format!("p{i}"),
                        values: PartitionValues::None,
                        comment: String::new(),
                    })
                    .collect())
            }
        };
    };
    if c.count.is_some_and(|n| n as usize != defs.len()) {
        return Err(MySqlError::new(
            1064,
            "42000",
            "Wrong number of partitions defined, mismatch with previous setting",
        ));
    }
    if defs.len() > MAX_PARTITIONS {
        return Err(too_many());
    }
    defs.iter()
        .enumerate()
        .map(|(i, d)| part_def(i as u32, d, spec, def, cx))
        .collect()
}

fn too_many() -> MySqlError {
    err(
        1499,
        "Too many partitions (including subpartitions) were defined",
    )
}

/// One listed partition bound for `spec` (ids are given by the caller).
pub fn part_def(
    id: u32,
    d: &PartDefAst,
    spec: &PartitionSpec,
    def: &TableDef,
    cx: &mut SessionCtx,
) -> R<PartitionDef> {
    let kind = spec.kind;
    let values = match (&d.values, kind) {
        (ValuesAst::LessThan(_), PartitionKind::Range) | (ValuesAst::In(_), PartitionKind::List) => {
            values(&d.values, &d.name, spec, def, cx)?
        }
        (ValuesAst::None, PartitionKind::Hash | PartitionKind::Key) => PartitionValues::None,
        (ValuesAst::None, PartitionKind::Range) => {
            return Err(err(1479, "Syntax error: RANGE PARTITIONING requires definition of VALUES LESS THAN for each partition"))
        }
        (ValuesAst::None, PartitionKind::List) => {
            return Err(err(1479, "Syntax error: LIST PARTITIONING requires definition of VALUES IN for each partition"))
        }
        (ValuesAst::LessThan(_), _) => {
            return Err(err(1480, "Only RANGE PARTITIONING can use VALUES LESS THAN in partition definition"))
        }
        (ValuesAst::In(_), _) => {
            return Err(err(1480, "Only LIST PARTITIONING can use VALUES IN in partition definition"))
        }
    };
    Ok(PartitionDef {
        id,
        name: d.name.clone(),
        values,
        comment: d.comment.clone().unwrap_or_default(),
    })
}

fn values(
    v: &ValuesAst,
    name: &str,
    spec: &PartitionSpec,
    def: &TableDef,
    cx: &mut SessionCtx,
) -> R<PartitionValues> {
    let width = if spec.columns_form {
        spec.columns.len()
    } else {
        1
    };
    let tuple = |items: &[Option<String>], cx: &mut SessionCtx| -> R<Vec<PartitionBound>> {
        if items.len() != width {
            return Err(MySqlError::new(
                1064,
                "42000",
                "Inconsistency in usage of column lists for partitioning",
            ));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, t)| match t {
                None => Ok(PartitionBound::MaxValue),
                Some(t) => bound(t, i, name, spec, def, cx).map(PartitionBound::Value),
            })
            .collect()
    };
    Ok(match v {
        ValuesAst::None => PartitionValues::None,
        ValuesAst::LessThan(items) => PartitionValues::LessThan(tuple(items, cx)?),
        ValuesAst::In(list) => {
            let mut out = Vec::with_capacity(list.len());
            for t in list {
                let items: Vec<Option<String>> = t.iter().cloned().map(Some).collect();
                let b = tuple(&items, cx)?;
                if b.contains(&PartitionBound::MaxValue) {
                    return Err(MySqlError::parse_error("MAXVALUE", 1));
                }
                out.push(b);
            }
            // MariaDB keeps (and prints) a list sorted, NULL first.
            out.sort_by(|a, b| tuple_cmp(a, b, spec, def));
            PartitionValues::In(out)
        }
    })
}

/// A constant of VALUES: an integer for the expression forms, a value of the
/// column's type for the COLUMNS forms.
fn bound(
    text: &str,
    i: usize,
    name: &str,
    spec: &PartitionSpec,
    def: &TableDef,
    cx: &mut SessionCtx,
) -> R<Value> {
    let empty = Arc::new(TableDef {
        columns: Vec::new(),
        ..def.clone()
    });
    let (v, class) = super::eval_const(text, &empty, cx)?;
    if v.is_null() {
        return Ok(Value::Null);
    }
    if !spec.columns_form {
        return match (class, v) {
            (Class::Int, v @ (Value::Int(_) | Value::UInt(_))) => Ok(v),
            _ => Err(err(
                1697,
                &format!("VALUES value for partition '{name}' must have type INT"),
            )),
        };
    }
    let col = def
        .column_index(&spec.columns[i])
        .map(|c| &def.columns[c])
        .ok_or_else(|| {
            err(
                1488,
                "Field in list of fields for partition function not found in table",
            )
        })?;
    let numeric_col = matches!(
        col.data_type,
        DataType::Int { .. } | DataType::Decimal { .. }
    );
    if numeric_col != class.is_numeric() {
        return Err(err(1654, "Partition column values of incorrect type"));
    }
    let t = crate::exec::store::Target {
        db: &def.schema,
        table: &def.name,
        col,
        row: 1,
        strict: true,
    };
    crate::exec::store::store(v, &t, cx)
        .map_err(|_| err(1654, "Partition column values of incorrect type"))
}

/// The expression must read columns only through MariaDB's partitioning
/// functions and be an integer (1659 for a column of another type).
fn check_function(expr: &str, def: &TableDef, cx: &mut SessionCtx) -> R<()> {
    let def = Arc::new(def.clone());
    let (bound, ty) = bind_expr(expr, &def, cx).map_err(|e| match e.code {
        1054 => MySqlError::new(
            1054,
            "42S22",
            e.message
                .replace("'CHECK'", "'PARTITION BY'")
                .replace("'field list'", "'PARTITION BY'"),
        ),
        _ => e,
    })?;
    if let crate::expr::Expr::Column(c) = &bound {
        if !matches!(def.columns[*c].data_type, DataType::Int { .. }) {
            return Err(err(
                1659,
                &format!(
                    "Field '{}' is of a not allowed type for this type of partitioning",
                    def.columns[*c].name
                ),
            ));
        }
    }
    let mut constant = true;
    let mut allowed = true;
    bound.walk(&mut |x| match x {
        crate::expr::Expr::Column(_) => constant = false,
        crate::expr::Expr::Func(f, _) => allowed &= super::allowed_function(f),
        _ => {}
    });
    if constant {
        return Err(MySqlError::new(1064, "42000", "Constant, random or timezone-dependent expressions in (sub)partitioning function are not allowed"));
    }
    if !allowed {
        return Err(err(1564, "This partition function is not allowed"));
    }
    if ty.class != Class::Int {
        return Err(err(1491, "The PARTITION function returns the wrong type"));
    }
    Ok(())
}

/// Checks a whole specification against the table: names, bounds, lists,
/// keys.
pub fn validate(spec: &PartitionSpec, def: &TableDef) -> R<()> {
    for (i, p) in spec.parts.iter().enumerate() {
        if spec.parts[..i]
            .iter()
            .any(|q| q.name.eq_ignore_ascii_case(&p.name))
        {
            return Err(err(1517, &format!("Duplicate partition name {}", p.name)));
        }
    }
    match spec.kind {
        PartitionKind::Range => ranges_increase(spec, def)?,
        PartitionKind::List => lists_distinct(spec, def)?,
        _ => {}
    }
    if !def.foreign_keys.is_empty() {
        return Err(err(1506, "Partitioned tables do not support FOREIGN KEY"));
    }
    let cols = super::function_columns(spec, def);
    for ix in def
        .indexes
        .iter()
        .filter(|i| i.is_unique() && !i.columns.is_empty())
    {
        let covered = cols.iter().all(|c| {
            ix.columns
                .iter()
                .any(|k| k.column == *c && k.prefix_len.is_none())
        });
        if !covered {
            let what = if ix.kind == basalt_common::IndexKind::Primary {
                "PRIMARY KEY"
            } else {
                "UNIQUE INDEX"
            };
            return Err(err(
                1503,
                &format!("A {what} must include all columns in the table's partitioning function"),
            ));
        }
    }
    Ok(())
}

fn bound_cmp(a: &PartitionBound, b: &PartitionBound, coll: basalt_common::Collation) -> Ordering {
    match (a, b) {
        (PartitionBound::MaxValue, PartitionBound::MaxValue) => Ordering::Equal,
        (PartitionBound::MaxValue, _) => Ordering::Greater,
        (_, PartitionBound::MaxValue) => Ordering::Less,
        (PartitionBound::Value(x), PartitionBound::Value(y)) => match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => crate::value::compare::compare(x, y, coll).unwrap_or(Ordering::Equal),
        },
    }
}

/// Compares two tuples of bounds column by column.
pub fn tuple_cmp(
    a: &[PartitionBound],
    b: &[PartitionBound],
    spec: &PartitionSpec,
    def: &TableDef,
) -> Ordering {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let coll = spec
            .columns
            .get(i)
            .and_then(|n| def.column_index(n))
            .map_or(basalt_common::Collation::Binary, |c| {
                col_collation(&def.columns[c])
            });
        match bound_cmp(x, y, coll) {
            Ordering::Equal => continue,
            o => return o,
        }
    }
    Ordering::Equal
}

fn ranges_increase(spec: &PartitionSpec, def: &TableDef) -> R<()> {
    let n = spec.parts.len();
    let mut prev: Option<&Vec<PartitionBound>> = None;
    for (i, p) in spec.parts.iter().enumerate() {
        let PartitionValues::LessThan(b) = &p.values else {
            continue;
        };
        if !spec.columns_form && b[0] == PartitionBound::MaxValue && i + 1 < n {
            return Err(err(
                1481,
                "MAXVALUE can only be used in last partition definition",
            ));
        }
        if let Some(q) = prev {
            if tuple_cmp(q, b, spec, def) != Ordering::Less {
                return Err(err(
                    1493,
                    "VALUES LESS THAN value must be strictly increasing for each partition",
                ));
            }
        }
        prev = Some(b);
    }
    Ok(())
}

fn lists_distinct(spec: &PartitionSpec, def: &TableDef) -> R<()> {
    let mut seen: Vec<&Vec<PartitionBound>> = Vec::new();
    for p in &spec.parts {
        let PartitionValues::In(list) = &p.values else {
            continue;
        };
        for t in list {
            if seen
                .iter()
                .any(|s| tuple_cmp(s, t, spec, def) == Ordering::Equal)
            {
                return Err(err(
                    1495,
                    "Multiple definition of same constant in list partitioning",
                ));
            }
            seen.push(t);
        }
    }
    Ok(())
}
