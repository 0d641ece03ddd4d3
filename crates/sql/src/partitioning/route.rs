//! The router the storage asks where a row goes, as MariaDB places rows:
//! - RANGE: the first partition whose bound is above the value (NULL below all);
//! - LIST: the partition listing the value (NULL only where NULL is listed);
//! - HASH: `|value % n|` (NULL as the smallest BIGINT), LINEAR HASH by MariaDB's
//!   power-of-two mask;
//! - KEY: MariaDB's hash of the columns' stored bytes for integer columns
//!   (`my_hash_sort_bin`), Basalt's own of the collation key for other types.

use super::spec::tuple_cmp;
use super::{bind_expr, col_collation, function_columns};
use crate::engine::Engine;
use crate::expr::{EvalCtx, Expr};
use crate::session::ctx::SessionCtx;
use basalt_common::partition::*;
use basalt_common::{DataType, IntKind, TableDef, Value};
use basalt_storage::partition::{PartitionRouter, RouterFactory};
use basalt_storage::StorageError;
use parking_lot::Mutex;
use std::cmp::Ordering;
use std::ops::Bound;
use std::sync::{Arc, Weak};

type SR<T> = Result<T, StorageError>;

/// Makes routers; holds the engine weakly (the engine owns the storage, which
/// owns this).
pub struct Factory {
    pub engine: Weak<Engine>,
}

impl RouterFactory for Factory {
    fn router(&self, def: &TableDef) -> SR<Arc<dyn PartitionRouter>> {
        let engine = self
            .engine
            .upgrade()
            .ok_or_else(|| StorageError::Invalid("server stopping".into()))?;
        let spec = def
            .partitioning
            .clone()
            .ok_or_else(|| StorageError::Invalid("table is not partitioned".into()))?;
        let cols = function_columns(&spec, def);
        let def = Arc::new(def.clone());
        let mut cx = SessionCtx::new(engine, 0, "", "");
        let expr = match spec.expr.is_empty() {
            true => None,
            false => {
                let (e, _) = bind_expr(&spec.expr, &def, &cx)
                    .map_err(|e| StorageError::Invalid(e.message))?;
                Some(e)
            }
        };
        cx.mode.strict = false;
        Ok(Arc::new(Router {
            spec,
            def,
            cols,
            expr,
            cx: Mutex::new(vec![cx]),
        }))
    }
}

pub struct Router {
    spec: PartitionSpec,
    def: Arc<TableDef>,
    cols: Vec<usize>,
    expr: Option<Expr>,
    /// Contexts to evaluate the expression in (one per concurrent writer).
    cx: Mutex<Vec<SessionCtx>>,
}

impl Router {
    fn eval(&self, row: &[Value]) -> SR<Value> {
        let Some(e) = &self.expr else {
            return Ok(row[self.cols[0]].clone());
        };
        if let Expr::Column(c) = e {
            return Ok(row[*c].clone());
        }
        let mut cx = match self.cx.lock().pop() {
            Some(cx) => cx,
            None => {
                let first = self.cx.lock();
                let engine = first.first().map(|c| c.engine.clone());
                drop(first);
                match engine {
                    Some(e) => SessionCtx::new(e, 0, "", ""),
                    None => return Err(StorageError::Invalid("no evaluation context".into())),
                }
            }
        };
        let v = {
            let mut ctx = EvalCtx::new(&[], &mut cx);
            e.eval(row, &mut ctx)
        };
        cx.warnings.clear();
        self.cx.lock().push(cx);
        v.map_err(|e| StorageError::Invalid(e.message))
    }

    fn int_of(v: &Value) -> Option<i64> {
        match v {
            Value::Int(i) => Some(*i),
            Value::UInt(u) => Some(*u as i64),
            Value::Null => None,
            other => crate::value::to_num(other).0.to_i64(),
        }
    }

    fn hash_position(&self, row: &[Value]) -> SR<usize> {
        let n = self.spec.parts.len() as u64;
        let h: u64 = match self.spec.kind {
            PartitionKind::Hash => {
                let v = Self::int_of(&self.eval(row)?).unwrap_or(i64::MIN);
                (v % n as i64).unsigned_abs()
            }
            _ => key_hash(&self.def, &self.cols, row),
        };
        Ok(match self.spec.linear {
            true => linear(h, n),
            false => (h % n) as usize,
        })
    }

    fn range_position(&self, row: &[Value]) -> SR<Option<usize>> {
        let key = self.key(row)?;
        Ok(self.spec.parts.iter().position(|p| match &p.values {
            PartitionValues::LessThan(b) => {
                tuple_cmp(&key, b, &self.spec, &self.def) == Ordering::Less
            }
            _ => false,
        }))
    }

    fn list_position(&self, row: &[Value]) -> SR<Option<usize>> {
        let key = self.key(row)?;
        Ok(self.spec.parts.iter().position(|p| match &p.values {
            PartitionValues::In(list) => list
                .iter()
                .any(|t| tuple_cmp(&key, t, &self.spec, &self.def) == Ordering::Equal),
            _ => false,
        }))
    }

    /// The row's partitioning value(s) as bounds.
    fn key(&self, row: &[Value]) -> SR<Vec<PartitionBound>> {
        if self.spec.columns_form {
            return Ok(self
                .cols
                .iter()
                .map(|c| PartitionBound::Value(row[*c].clone()))
                .collect());
        }
        let v = self.eval(row)?;
        let v = match Self::int_of(&v) {
            Some(i) => Value::Int(i),
            None => Value::Null,
        };
        Ok(vec![PartitionBound::Value(v)])
    }

    fn no_partition(&self, row: &[Value]) -> StorageError {
        if self.spec.columns_form {
            return StorageError::NoPartitionForValue("from column_list".into());
        }
        let v = self.eval(row).ok().and_then(|v| Self::int_of(&v));
        StorageError::NoPartitionForValue(v.map_or("NULL".into(), |i| i.to_string()))
    }
}

impl PartitionRouter for Router {
    fn route(&self, row: &[Value]) -> SR<u32> {
        let pos = match self.spec.kind {
            PartitionKind::Hash | PartitionKind::Key => Some(self.hash_position(row)?),
            PartitionKind::Range => self.range_position(row)?,
            PartitionKind::List => self.list_position(row)?,
        };
        match pos {
            Some(i) => Ok(self.spec.parts[i].id),
            None => Err(self.no_partition(row)),
        }
    }

    fn columns(&self) -> &[usize] {
        &self.cols
    }

    fn prune_range(
        &self,
        column: usize,
        lower: Bound<&Value>,
        upper: Bound<&Value>,
    ) -> Option<Vec<u32>> {
        let plain =
            self.spec.columns_form || matches!(&self.expr, Some(Expr::Column(c)) if *c == column);
        if self.spec.kind != PartitionKind::Range || !plain || self.cols.first() != Some(&column) {
            return None;
        }
        let coll = col_collation(&self.def.columns[column]);
        let cmp = |a: &Value, b: &PartitionBound| match b {
            PartitionBound::MaxValue => Ordering::Less,
            PartitionBound::Value(b) if b.is_null() => Ordering::Greater,
            PartitionBound::Value(b) => {
                crate::value::compare::compare(a, b, coll).unwrap_or(Ordering::Less)
            }
        };
        let mut out = Vec::new();
        let mut below_lower = true;
        for p in &self.spec.parts {
            let PartitionValues::LessThan(b) = &p.values else {
                return None;
            };
            // Partition p holds values below b[0] (first column) and at or
            // above the previous bound.
            if below_lower {
                below_lower = match lower {
                    Bound::Unbounded => false,
                    Bound::Included(v) | Bound::Excluded(v) if v.is_null() => false,
                    Bound::Included(v) | Bound::Excluded(v) => cmp(v, &b[0]) != Ordering::Less,
                };
                if below_lower {
                    continue;
                }
            }
            out.push(p.id);
            let past = match upper {
                Bound::Unbounded => false,
                Bound::Included(v) | Bound::Excluded(v) => cmp(v, &b[0]) == Ordering::Less,
            };
            if past {
                break;
            }
        }
        Some(out)
    }
}

/// MariaDB's LINEAR placement: the hash under the smallest power-of-two mask
/// covering `n`, folded once when it lands past the last partition.
fn linear(h: u64, n: u64) -> usize {
    let mut mask = 1u64;
    while mask < n {
        mask <<= 1;
    }
    mask -= 1;
    let mut id = h & mask;
    if id >= n {
        id = h & (((mask + 1) >> 1) - 1);
    }
    id as usize
}

/// MariaDB's KEY hash (`my_hash_sort_bin` over each column's stored bytes,
/// NULL folding as `nr1 ^= (nr1 << 1) | 1`) for integer columns; other types hash
/// their collation key the same way.
fn key_hash(def: &TableDef, cols: &[usize], row: &[Value]) -> u64 {
    let (mut nr1, mut nr2) = (1u64, 4u64);
    for &c in cols {
        let v = &row[c];
        if v.is_null() {
            nr1 ^= (nr1 << 1) | 1;
            continue;
        }
        let bytes = stored_bytes(&def.columns[c].data_type, v).unwrap_or_else(|| {
            let mut k = Vec::new();
            crate::value::compare::group_key(v, col_collation(&def.columns[c]), &mut k);
            k
        });
        for b in bytes {
            nr1 ^= (((nr1 & 63).wrapping_add(nr2)).wrapping_mul(b as u64)).wrapping_add(nr1 << 8);
            nr2 = nr2.wrapping_add(3);
        }
    }
    nr1
}

/// An integer column's value as InnoDB stores it in MariaDB's record format
/// (little-endian, the type's width).
fn stored_bytes(ty: &DataType, v: &Value) -> Option<Vec<u8>> {
    let DataType::Int { kind, .. } = ty else {
        return None;
    };
    let i = match v {
        Value::Int(i) => *i as u64,
        Value::UInt(u) => *u,
        _ => return None,
    };
    let width = match kind {
        IntKind::Tiny => 1,
        IntKind::Small => 2,
        IntKind::Medium => 3,
        IntKind::Int => 4,
        IntKind::Big => 8,
    };
    Some(i.to_le_bytes()[..width].to_vec())
}
