//! Turning the values a query compares an index column with into key ranges.
//!
//! Each comparison value is first converted to the key type of its column, so
//! that a key range selects exactly the rows the comparison accepts (or, when the
//! value does not convert exactly, a wider range that the residual filter then
//! narrows). The bounds of a query are in value order; a [`KeyRange`] is in the
//! index's key order, where a descending part runs from its largest value down
//! and puts its NULLs last. So for the ranged part of a descending key the value
//! bounds swap ends, and the end that stands for "no lower bound" in value order
//! (just past the NULLs) becomes the upper end of the key range.
//!
//! A comparison never accepts NULL, so a range on a key part always leaves that
//! part's NULLs out; only an `IS NULL` equality (a NULL in the equality prefix)
//! selects them.

use crate::value::compare::sort_cmp;
use crate::value::zone::Zone;
use crate::value::{parse_date, parse_datetime, parse_time, to_num, Num};
use basalt_common::{Collation, ColumnDef, DataType, Decimal, IndexDef, IntKind, Value};
use basalt_storage::KeyRange;
use std::cmp::Ordering;
use std::ops::Bound;

/// How a comparison value maps onto a column's key space.
#[derive(Clone, Debug, PartialEq)]
pub enum Conv {
    /// The value is exactly representable: compare keys with it.
    Exact(Value),
    /// Not representable; `below`/`above` are the nearest key values on each side
    /// (`None` when the value lies beyond the column's range on that side).
    Between {
        below: Option<Value>,
        above: Option<Value>,
    },
    /// The comparison does not follow the index order (e.g. a number against a
    /// string column): no range can be derived.
    Unusable,
}

/// Converts a comparison operand to the key type of `col`.
pub fn convert(v: &Value, col: &ColumnDef) -> Conv {
    if v.is_null() {
        return Conv::Exact(Value::Null);
    }
    match &col.data_type {
        DataType::Int { kind, unsigned, .. } => int_key(v, *kind, *unsigned),
        DataType::Year => int_key(v, IntKind::Small, true),
        DataType::Bit { .. } => match v {
            Value::Bytes(b) if b.len() <= 8 => Conv::Exact(Value::UInt(
                b.iter().fold(0u64, |acc, x| (acc << 8) | *x as u64),
            )),
            Value::Int(_) | Value::UInt(_) => int_key(v, IntKind::Big, true),
            _ => Conv::Unusable,
        },
        DataType::Uuid | DataType::Inet6 => match v {
            Value::Bytes(b) => {
                match basalt_common::fixedbin::canonical(col.data_type == DataType::Inet6, b) {
                    Some(s) => Conv::Exact(Value::Bytes(s.into_bytes())),
                    None => Conv::Unusable,
                }
            }
            _ => Conv::Unusable,
        },
        DataType::Decimal { scale, .. } => decimal_key(v, *scale),
        DataType::Float | DataType::Double => match v {
            Value::Bytes(_)
            | Value::Int(_)
            | Value::UInt(_)
            | Value::Decimal(_)
            | Value::Double(_) => Conv::Exact(Value::Double(to_num(v).0.to_f64())),
            _ => Conv::Unusable,
        },
        DataType::Char { .. } | DataType::VarChar { .. } | DataType::Text { .. } => match v {
            Value::Bytes(b) => Conv::Exact(Value::Bytes(b.clone())),
            _ => Conv::Unusable,
        },
        DataType::Date => match v {
            Value::Date(d) => Conv::Exact(Value::Date(*d)),
            Value::Bytes(b) => match (parse_datetime(b), parse_date(b)) {
                (Some(dt), _)
                    if dt.hour == 0 && dt.minute == 0 && dt.second == 0 && dt.micro == 0 =>
                {
                    Conv::Exact(Value::Date(dt.date))
                }
                (Some(dt), _) => Conv::Between {
                    below: Some(Value::Date(dt.date)),
                    above: None,
                },
                (None, Some(d)) => Conv::Exact(Value::Date(d)),
                _ => Conv::Unusable,
            },
            _ => Conv::Unusable,
        },
        DataType::DateTime { .. } | DataType::Timestamp { .. } => match v {
            Value::DateTime(dt) => Conv::Exact(Value::DateTime(*dt)),
            Value::Date(d) => Conv::Exact(Value::DateTime(basalt_common::DateTime::from_date(*d))),
            Value::Bytes(b) => {
                parse_datetime(b).map_or(Conv::Unusable, |dt| Conv::Exact(Value::DateTime(dt)))
            }
            _ => Conv::Unusable,
        },
        // Index order is number order: a number bounds it, a string (compared as
        // text) only matches a member exactly (see `convert_eq`).
        DataType::Enum { .. } | DataType::Set { .. } => match v {
            Value::Enum(n, _) => Conv::Exact(Value::UInt(*n)),
            Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) => {
                int_key(v, IntKind::Big, true)
            }
            _ => Conv::Unusable,
        },
        DataType::Time { .. } => match v {
            Value::Time(t) => Conv::Exact(Value::Time(*t)),
            Value::Bytes(b) => {
                parse_time(b).map_or(Conv::Unusable, |t| Conv::Exact(Value::Time(t)))
            }
            _ => Conv::Unusable,
        },
    }
}

/// A comparison value for key part `col` as the keys hold it: for a TIMESTAMP
/// (stored in UTC) a local time of the session's `zone` moves to UTC; anything
/// else is unchanged.
pub fn stored_key(v: Value, col: &ColumnDef, zone: &Zone) -> Value {
    if !matches!(col.data_type, DataType::Timestamp { .. }) {
        return v;
    }
    match convert(&v, col) {
        Conv::Exact(Value::DateTime(d)) if d.date.year != 0 => {
            Value::DateTime(zone.to_utc_datetime(&d))
        }
        _ => v,
    }
}

/// [`EvalRange`] with its values as index `idx`'s keys hold them (see
/// [`stored_key`]).
pub fn stored_range(spec: EvalRange, idx: &IndexDef, cols: &[ColumnDef], zone: &Zone) -> EvalRange {
    let col = |i: usize| &cols[idx.columns[i].column];
    let keys = |vals: Vec<Value>| -> Vec<Value> {
        vals.into_iter()
            .enumerate()
            .map(|(i, v)| stored_key(v, col(i), zone))
            .collect()
    };
    match spec {
        EvalRange::Prefix { eq, lower, upper } => {
            let n = eq.len();
            let bound = |b: Option<(Value, bool)>| b.map(|(v, i)| (stored_key(v, col(n), zone), i));
            EvalRange::Prefix {
                eq: keys(eq),
                lower: bound(lower),
                upper: bound(upper),
            }
        }
        EvalRange::Points(p) => EvalRange::Points(p.into_iter().map(keys).collect()),
        other => other,
    }
}

/// As [`convert`], for an equality: a string equal to an ENUM member under the
/// column's collation is that member's number.
pub fn convert_eq(v: &Value, col: &ColumnDef) -> Conv {
    match (&col.data_type, v) {
        (DataType::Enum { values, collation }, Value::Bytes(b)) if !b.is_empty() => {
            match basalt_common::enumset::enum_position(values, *collation, b) {
                Some(n) => Conv::Exact(Value::UInt(n)),
                None => Conv::Unusable,
            }
        }
        _ => convert(v, col),
    }
}

fn int_key(v: &Value, kind: IntKind, unsigned: bool) -> Conv {
    if matches!(v, Value::Date(_) | Value::DateTime(_) | Value::Time(_)) {
        return Conv::Unusable;
    }
    let (lo, hi) = kind.range(unsigned);
    let make = |x: i128| {
        if unsigned {
            Value::UInt(x as u64)
        } else {
            Value::Int(x as i64)
        }
    };
    let n = to_num(v).0;
    let (floor, exact) = match n {
        Num::Int(i) => (i as i128, true),
        Num::UInt(u) => (u as i128, true),
        Num::Dec(d) => {
            let f = d.mantissa.div_euclid(10i128.pow(d.scale as u32));
            (f, Decimal::new(f, 0) == d)
        }
        Num::Dbl(d) => {
            if !d.is_finite() {
                return Conv::Unusable;
            }
            let f = d.floor();
            if f.abs() > 1e30 {
                return if d > 0.0 {
                    Conv::Between {
                        below: Some(make(hi)),
                        above: None,
                    }
                } else {
                    Conv::Between {
                        below: None,
                        above: Some(make(lo)),
                    }
                };
            }
            (f as i128, f == d)
        }
    };
    if exact && floor >= lo && floor <= hi {
        return Conv::Exact(make(floor));
    }
    let below = if floor < lo {
        None
    } else {
        Some(make(floor.min(hi)))
    };
    let above = if floor + 1 > hi {
        None
    } else {
        Some(make((floor + 1).max(lo)))
    };
    let below = if exact && floor > hi {
        Some(make(hi))
    } else {
        below
    };
    Conv::Between { below, above }
}

fn decimal_key(v: &Value, scale: u8) -> Conv {
    if matches!(v, Value::Date(_) | Value::DateTime(_) | Value::Time(_)) {
        return Conv::Unusable;
    }
    let d = to_num(v).0.to_decimal();
    match d.rescale(scale) {
        Some(r) if r == d => Conv::Exact(Value::Decimal(r)),
        Some(_) => {
            let f = 10i128.pow((d.scale - scale) as u32);
            let below = d.mantissa.div_euclid(f);
            Conv::Between {
                below: Some(Value::Decimal(Decimal::new(below, scale))),
                above: Some(Value::Decimal(Decimal::new(below + 1, scale))),
            }
        }
        None => Conv::Unusable,
    }
}

/// Evaluated form of a [`RangeSpec`](super::RangeSpec).
pub enum EvalRange {
    /// Equalities on the leading key parts (`Value::Null` only for `IS NULL`), then
    /// optional bounds on the next part, in value order (`lower` is the smaller).
    Prefix {
        eq: Vec<Value>,
        lower: Option<(Value, bool)>,
        upper: Option<(Value, bool)>,
    },
    Points(Vec<Vec<Value>>),
    All,
    /// Nothing can match (an equality with a NULL value).
    Empty,
}

/// Key ranges of index `idx` (in its key order, see [`KeyRange`]) for the evaluated
/// range; the flag is false when some value did not convert exactly (the caller
/// must then keep the full filter).
///
/// Invariants: a range on a key part never includes that part's NULLs (no
/// comparison accepts NULL); for a descending part the value-order bounds are
/// swapped, since its key order is the reverse of value order with NULLs last.
pub fn key_ranges(spec: EvalRange, idx: &IndexDef, columns: &[ColumnDef]) -> (Vec<KeyRange>, bool) {
    match spec {
        EvalRange::All => (vec![KeyRange::all()], true),
        EvalRange::Empty => (Vec::new(), true),
        EvalRange::Points(points) => points_ranges(points, idx, columns),
        EvalRange::Prefix { eq, lower, upper } => prefix_range(eq, lower, upper, idx, columns),
    }
}

fn points_ranges(
    points: Vec<Vec<Value>>,
    idx: &IndexDef,
    columns: &[ColumnDef],
) -> (Vec<KeyRange>, bool) {
    let mut exact = true;
    let mut keys: Vec<Vec<Value>> = Vec::with_capacity(points.len());
    'outer: for p in points {
        let mut key = Vec::with_capacity(p.len());
        for (v, part) in p.iter().zip(&idx.columns) {
            match convert_eq(v, &columns[part.column]) {
                Conv::Exact(Value::Null) => continue 'outer,
                Conv::Exact(k) => key.push(k),
                Conv::Between { .. } => {
                    exact = false;
                    continue 'outer;
                }
                Conv::Unusable => return (vec![KeyRange::all()], false),
            }
        }
        keys.push(key);
    }
    // Key order: each part by its collation, reversed for descending parts.
    let cmp = |a: &Vec<Value>, b: &Vec<Value>| {
        a.iter()
            .zip(b)
            .zip(&idx.columns)
            .map(|((x, y), part)| {
                let col = &columns[part.column];
                let coll = col.data_type.collation().unwrap_or(Collation::Binary);
                let o = sort_cmp(x, y, coll);
                if part.descending {
                    o.reverse()
                } else {
                    o
                }
            })
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    };
    keys.sort_by(cmp);
    keys.dedup_by(|a, b| cmp(a, b) == Ordering::Equal);
    (keys.into_iter().map(KeyRange::eq).collect(), exact)
}

/// A bound of the ranged key part in value order: `None` is unbounded.
type ValueBound = Option<(Value, bool)>;

/// What a comparison value on the ranged part gives as a value-order bound.
enum Side {
    Bound(ValueBound),
    /// The comparison accepts no value at all.
    Nothing,
}

fn lower_side(v: Option<(Value, bool)>, col: &ColumnDef, exact: &mut bool) -> Side {
    let Some((v, incl)) = v else {
        return Side::Bound(None);
    };
    if v.is_null() {
        return Side::Nothing;
    }
    match convert(&v, col) {
        Conv::Exact(k) => Side::Bound(Some((k, incl))),
        Conv::Between { above: Some(a), .. } => Side::Bound(Some((a, true))),
        Conv::Between { above: None, .. } => Side::Nothing,
        Conv::Unusable => {
            *exact = false;
            Side::Bound(None)
        }
    }
}

fn upper_side(v: Option<(Value, bool)>, col: &ColumnDef, exact: &mut bool) -> Side {
    let Some((v, incl)) = v else {
        return Side::Bound(None);
    };
    if v.is_null() {
        return Side::Nothing;
    }
    match convert(&v, col) {
        Conv::Exact(k) => Side::Bound(Some((k, incl))),
        Conv::Between { below: Some(b), .. } => Side::Bound(Some((b, true))),
        Conv::Between { below: None, .. } => Side::Nothing,
        Conv::Unusable => {
            *exact = false;
            Side::Bound(None)
        }
    }
}

fn prefix_range(
    eq: Vec<Value>,
    lower: Option<(Value, bool)>,
    upper: Option<(Value, bool)>,
    idx: &IndexDef,
    columns: &[ColumnDef],
) -> (Vec<KeyRange>, bool) {
    let mut exact = true;
    let mut prefix = Vec::with_capacity(eq.len() + 1);
    for (v, part) in eq.iter().zip(&idx.columns) {
        match convert_eq(v, &columns[part.column]) {
            Conv::Exact(k) => prefix.push(k),
            Conv::Between { .. } => return (Vec::new(), true),
            Conv::Unusable => return (vec![prefix_only(prefix)], false),
        }
    }
    let part = match idx.columns.get(eq.len()) {
        Some(part) if lower.is_some() || upper.is_some() => part,
        _ => return (vec![prefix_only(prefix)], exact),
    };
    let col = &columns[part.column];
    let Side::Bound(lo) = lower_side(lower, col, &mut exact) else {
        return (Vec::new(), true);
    };
    let Side::Bound(hi) = upper_side(upper, col, &mut exact) else {
        return (Vec::new(), true);
    };
    // The part is compared with something, so its NULLs never match: without a
    // lower bound the range starts just past NULL.
    let (lo_v, lo_incl) = lo.unwrap_or((Value::Null, false));
    let low_end = with(&prefix, lo_v, lo_incl);
    let high_end = match hi {
        Some((k, incl)) => with(&prefix, k, incl),
        None => prefix_end(&prefix),
    };
    let (lower, upper) = if part.descending {
        (high_end, low_end)
    } else {
        (low_end, high_end)
    };
    (vec![KeyRange { lower, upper }], exact)
}

/// Every key starting with `prefix` (the whole index for an empty prefix), as one
/// bound: it serves as either end.
fn prefix_end(prefix: &[Value]) -> Bound<Vec<Value>> {
    if prefix.is_empty() {
        Bound::Unbounded
    } else {
        Bound::Included(prefix.to_vec())
    }
}

fn with(prefix: &[Value], k: Value, incl: bool) -> Bound<Vec<Value>> {
    let mut v = Vec::with_capacity(prefix.len() + 1);
    v.extend_from_slice(prefix);
    v.push(k);
    if incl {
        Bound::Included(v)
    } else {
        Bound::Excluded(v)
    }
}

fn prefix_only(prefix: Vec<Value>) -> KeyRange {
    if prefix.is_empty() {
        KeyRange::all()
    } else {
        KeyRange::eq(prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int_col() -> ColumnDef {
        ColumnDef::new(
            "i",
            DataType::Int {
                kind: IntKind::Int,
                unsigned: false,
                width: 0,
                zerofill: false,
            },
        )
    }

    #[test]
    fn int_conversion() {
        let c = int_col();
        assert_eq!(convert(&Value::Int(5), &c), Conv::Exact(Value::Int(5)));
        assert_eq!(convert(&Value::str("5"), &c), Conv::Exact(Value::Int(5)));
        assert_eq!(
            convert(&Value::Double(1.5), &c),
            Conv::Between {
                below: Some(Value::Int(1)),
                above: Some(Value::Int(2))
            }
        );
        assert_eq!(
            convert(&Value::Int(1i64 << 40), &c),
            Conv::Between {
                below: Some(Value::Int(i32::MAX as i64)),
                above: None
            }
        );
    }

    fn index(desc: &[bool]) -> IndexDef {
        IndexDef {
            id: 1,
            name: "k".into(),
            kind: basalt_common::IndexKind::NonUnique,
            columns: desc
                .iter()
                .enumerate()
                .map(|(i, d)| basalt_common::IndexColumn {
                    column: i,
                    prefix_len: None,
                    descending: *d,
                })
                .collect(),
            comment: String::new(),
        }
    }

    fn prefix(eq: Vec<Value>, lower: Option<(i64, bool)>, upper: Option<(i64, bool)>) -> EvalRange {
        EvalRange::Prefix {
            eq,
            lower: lower.map(|(v, i)| (Value::Int(v), i)),
            upper: upper.map(|(v, i)| (Value::Int(v), i)),
        }
    }

    #[test]
    fn ranges() {
        let cols = [int_col()];
        let asc = index(&[false]);
        let (r, exact) = key_ranges(
            EvalRange::Prefix {
                eq: vec![],
                lower: Some((Value::Double(1.5), true)),
                upper: None,
            },
            &asc,
            &cols,
        );
        assert!(exact);
        assert_eq!(r[0].lower, Bound::Included(vec![Value::Int(2)]));
        assert_eq!(r[0].upper, Bound::Unbounded);
        let (r, _) = key_ranges(
            EvalRange::Prefix {
                eq: vec![Value::Double(1.5)],
                lower: None,
                upper: None,
            },
            &asc,
            &cols,
        );
        assert!(r.is_empty());
        let (r, _) = key_ranges(
            EvalRange::Points(vec![
                vec![Value::Int(3)],
                vec![Value::Int(1)],
                vec![Value::Int(3)],
            ]),
            &asc,
            &cols,
        );
        assert_eq!(r.len(), 2);
        assert_eq!(r[0], KeyRange::eq(vec![Value::Int(1)]));
    }

    #[test]
    fn an_upper_bound_alone_leaves_nulls_out() {
        let cols = [int_col(), int_col()];
        let (r, exact) = key_ranges(
            prefix(vec![], None, Some((5, false))),
            &index(&[false]),
            &cols,
        );
        assert!(exact);
        assert_eq!(r[0].lower, Bound::Excluded(vec![Value::Null]));
        assert_eq!(r[0].upper, Bound::Excluded(vec![Value::Int(5)]));
        let (r, _) = key_ranges(
            prefix(vec![Value::Int(1)], None, Some((5, true))),
            &index(&[false, false]),
            &cols,
        );
        assert_eq!(
            r[0].lower,
            Bound::Excluded(vec![Value::Int(1), Value::Null])
        );
        assert_eq!(
            r[0].upper,
            Bound::Included(vec![Value::Int(1), Value::Int(5)])
        );
    }

    #[test]
    fn descending_parts_swap_the_bounds() {
        let cols = [int_col(), int_col()];
        let desc = index(&[true]);
        // col > 309: key order runs from the largest value down to 309 (excluded).
        let (r, _) = key_ranges(prefix(vec![], Some((309, false)), None), &desc, &cols);
        assert_eq!(r[0].lower, Bound::Unbounded);
        assert_eq!(r[0].upper, Bound::Excluded(vec![Value::Int(309)]));
        // col < 309: from 309 (excluded) to just before the NULLs at the end.
        let (r, _) = key_ranges(prefix(vec![], None, Some((309, false))), &desc, &cols);
        assert_eq!(r[0].lower, Bound::Excluded(vec![Value::Int(309)]));
        assert_eq!(r[0].upper, Bound::Excluded(vec![Value::Null]));
        // BETWEEN 9 AND 2 stays empty: its key range starts after it ends.
        let (r, _) = key_ranges(
            prefix(vec![], Some((9, true)), Some((2, true))),
            &desc,
            &cols,
        );
        assert_eq!(r[0].lower, Bound::Included(vec![Value::Int(2)]));
        assert_eq!(r[0].upper, Bound::Included(vec![Value::Int(9)]));
        // An ascending prefix, then a descending ranged part.
        let (r, _) = key_ranges(
            prefix(vec![Value::Int(7)], Some((1, true)), None),
            &index(&[false, true]),
            &cols,
        );
        assert_eq!(r[0].lower, Bound::Included(vec![Value::Int(7)]));
        assert_eq!(
            r[0].upper,
            Bound::Included(vec![Value::Int(7), Value::Int(1)])
        );
    }

    #[test]
    fn points_follow_key_order() {
        let cols = [int_col()];
        let pts = || EvalRange::Points(vec![vec![Value::Int(1)], vec![Value::Int(3)]]);
        let (r, _) = key_ranges(pts(), &index(&[true]), &cols);
        assert_eq!(r[0], KeyRange::eq(vec![Value::Int(3)]));
        let (r, _) = key_ranges(pts(), &index(&[false]), &cols);
        assert_eq!(r[0], KeyRange::eq(vec![Value::Int(1)]));
        assert!(key_ranges(EvalRange::Empty, &index(&[false]), &cols)
            .0
            .is_empty());
    }
}
