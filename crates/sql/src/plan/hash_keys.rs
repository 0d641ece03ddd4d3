//! Hash-join keys: when a join level without a usable index can be joined by
//! hashing, and how its key values are encoded.
//!
//! A level qualifies when some of its conditions are equalities `t.a = u.b`
//! between a column of its own table and a column of a table joined before it,
//! and both columns' types make equality exact to hash: two integer columns
//! (any width or signedness: the key is the value as a 128-bit integer), or two
//! string columns whose collation is the comparison's own (the key is the
//! collation's sort key, so `'a' = 'A '` under a `_ci` collation hash alike).
//! Anything else (an integer against a string compares as numbers in MySQL,
//! decimals, dates, expressions) is left to the nested loop.
//!
//! Invariant: keys are only a pre-filter. Whenever the SQL equality holds, the
//! encoded keys are equal; the level's filter is still evaluated on every row a
//! probe returns, so rows whose keys collide are rejected there.

use crate::bind::levels::table_mask;
use crate::expr::{CmpOp, Expr};
use crate::plan::TableRef;
use basalt_common::{Collation, DataType, Value};

/// How one key part is encoded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KeyKind {
    Int,
    Str(Collation),
}

/// One equality the hash table is keyed on.
#[derive(Clone, Debug)]
pub struct HashKey {
    /// The column of the level's own table.
    pub inner: Expr,
    /// The column of an earlier table.
    pub outer: Expr,
    pub kind: KeyKind,
}

/// A level joined by a hash table built once from its table's rows.
#[derive(Clone, Debug)]
pub struct HashJoin {
    pub keys: Vec<HashKey>,
    /// Conditions on the level's table alone, checked while building.
    pub build_filter: Option<Expr>,
}

/// The encoding of one row's key.
#[derive(Debug, PartialEq)]
pub enum Encoded {
    /// A key part is NULL: the equality cannot hold.
    Null,
    Key(Vec<u8>),
    /// A value of an unexpected type: compare with every row.
    Unhashable,
}

fn key_kind(a: &DataType, b: &DataType, coll: Collation) -> Option<KeyKind> {
    match (a, b) {
        (DataType::Int { .. }, DataType::Int { .. }) => Some(KeyKind::Int),
        _ if a.collation() == Some(coll) && b.collation() == Some(coll) => Some(KeyKind::Str(coll)),
        _ => None,
    }
}

/// The column definition behind row position `c`, and its table's FROM index.
fn column(tables: &[TableRef], c: usize) -> Option<(usize, &DataType)> {
    let (i, t) = tables
        .iter()
        .enumerate()
        .find(|(_, t)| c >= t.offset && c < t.offset + t.width())?;
    Some((i, &t.def.columns[c - t.offset].data_type))
}

/// The hash keys among level conditions `conj` of table `table`, given the
/// tables `joined` before it; empty when none qualifies.
pub fn keys(conj: &[Expr], tables: &[TableRef], table: usize, joined: u64) -> Vec<HashKey> {
    let mut out = Vec::new();
    for c in conj {
        let Expr::Cmp(CmpOp::Eq, l, r, coll) = c else {
            continue;
        };
        let (Expr::Column(x), Expr::Column(y)) = (&**l, &**r) else {
            continue;
        };
        let (Some((tx, dx)), Some((ty, dy))) = (column(tables, *x), column(tables, *y)) else {
            continue;
        };
        let (inner, outer, other) = if tx == table {
            (l, r, ty)
        } else if ty == table {
            (r, l, tx)
        } else {
            continue;
        };
        if other == table || joined & (1 << other) == 0 {
            continue;
        }
        if let Some(kind) = key_kind(dx, dy, *coll) {
            out.push(HashKey {
                inner: (**inner).clone(),
                outer: (**outer).clone(),
                kind,
            });
        }
    }
    out
}

/// The conditions among `conj` that read only table `table`.
pub fn build_only(conj: &[Expr], tables: &[TableRef], table: usize) -> Vec<Expr> {
    conj.iter()
        .filter(|c| table_mask(c, tables) == Some(1 << table))
        .cloned()
        .collect()
}

/// Encodes the key values `vals` (one per key part of `keys`).
pub fn encode(keys: &[HashKey], vals: &[Value]) -> Encoded {
    let mut out = Vec::with_capacity(vals.len() * 17);
    for (k, v) in keys.iter().zip(vals) {
        match (k.kind, v) {
            (_, Value::Null) => return Encoded::Null,
            (KeyKind::Int, Value::Int(i)) => out.extend_from_slice(&(*i as i128).to_be_bytes()),
            (KeyKind::Int, Value::UInt(u)) => out.extend_from_slice(&(*u as i128).to_be_bytes()),
            (KeyKind::Str(coll), Value::Bytes(b)) => {
                let start = out.len();
                out.extend_from_slice(&[0; 4]);
                coll.sort_key(b, &mut out);
                let len = (out.len() - start - 4) as u32;
                out[start..start + 4].copy_from_slice(&len.to_be_bytes());
            }
            _ => return Encoded::Unhashable,
        }
    }
    Encoded::Key(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(kind: KeyKind) -> HashKey {
        HashKey {
            inner: Expr::Column(0),
            outer: Expr::Column(1),
            kind,
        }
    }

    #[test]
    fn equal_values_encode_alike() {
        let ints = [key(KeyKind::Int)];
        assert_eq!(
            encode(&ints, &[Value::Int(7)]),
            encode(&ints, &[Value::UInt(7)])
        );
        assert_ne!(
            encode(&ints, &[Value::Int(-1)]),
            encode(&ints, &[Value::UInt(u64::MAX)])
        );
        assert_eq!(encode(&ints, &[Value::Null]), Encoded::Null);
        assert_eq!(encode(&ints, &[Value::str("7")]), Encoded::Unhashable);
        let ci = [key(KeyKind::Str(Collation::Utf8mb4GeneralCi))];
        assert_eq!(
            encode(&ci, &[Value::str("a")]),
            encode(&ci, &[Value::str("A ")])
        );
        assert_ne!(
            encode(&ci, &[Value::str("a")]),
            encode(&ci, &[Value::str("b")])
        );
        let bin = [key(KeyKind::Str(Collation::Binary))];
        assert_ne!(
            encode(&bin, &[Value::str("a")]),
            encode(&bin, &[Value::str("A")])
        );
        // Two parts cannot run into each other.
        let two = [ci[0].clone(), ci[0].clone()];
        assert_ne!(
            encode(&two, &[Value::str("ab"), Value::str("c")]),
            encode(&two, &[Value::str("a"), Value::str("bc")])
        );
    }
}
