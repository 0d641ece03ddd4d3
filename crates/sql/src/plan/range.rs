//! Turning the values a query compares an index column with into key values of the
//! column's type, so that a key range selects exactly the rows the comparison
//! accepts (or, when the value does not convert exactly, a wider range that the
//! residual filter then narrows).

use crate::value::compare::sort_cmp;
use crate::value::{parse_date, parse_datetime, parse_time, to_num, Num};
use basalt_common::{Collation, ColumnDef, DataType, Decimal, IntKind, Value};
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
        DataType::Int { kind, unsigned } => int_key(v, *kind, *unsigned),
        DataType::Year => int_key(v, IntKind::Small, true),
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
        DataType::Time { .. } => match v {
            Value::Time(t) => Conv::Exact(Value::Time(*t)),
            Value::Bytes(b) => {
                parse_time(b).map_or(Conv::Unusable, |t| Conv::Exact(Value::Time(t)))
            }
            _ => Conv::Unusable,
        },
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

/// Evaluated form of a [`RangeSpec`].
pub enum EvalRange {
    Prefix {
        eq: Vec<Value>,
        lower: Option<(Value, bool)>,
        upper: Option<(Value, bool)>,
    },
    Points(Vec<Vec<Value>>),
    All,
}

/// Key ranges for the evaluated range; the flag is false when some value did not
/// convert exactly (the caller must then keep the full filter).
pub fn key_ranges(
    spec: EvalRange,
    cols: &[&ColumnDef],
    colls: &[Collation],
) -> (Vec<KeyRange>, bool) {
    match spec {
        EvalRange::All => (vec![KeyRange::all()], true),
        EvalRange::Points(points) => points_ranges(points, cols, colls),
        EvalRange::Prefix { eq, lower, upper } => prefix_range(eq, lower, upper, cols),
    }
}

fn points_ranges(
    points: Vec<Vec<Value>>,
    cols: &[&ColumnDef],
    colls: &[Collation],
) -> (Vec<KeyRange>, bool) {
    let mut exact = true;
    let mut keys: Vec<Vec<Value>> = Vec::with_capacity(points.len());
    'outer: for p in points {
        let mut key = Vec::with_capacity(p.len());
        for (v, col) in p.iter().zip(cols) {
            match convert(v, col) {
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
    let cmp = |a: &Vec<Value>, b: &Vec<Value>| {
        a.iter()
            .zip(b)
            .zip(colls)
            .map(|((x, y), c)| sort_cmp(x, y, *c))
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    };
    keys.sort_by(cmp);
    keys.dedup_by(|a, b| cmp(a, b) == Ordering::Equal);
    (keys.into_iter().map(KeyRange::eq).collect(), exact)
}

fn prefix_range(
    eq: Vec<Value>,
    lower: Option<(Value, bool)>,
    upper: Option<(Value, bool)>,
    cols: &[&ColumnDef],
) -> (Vec<KeyRange>, bool) {
    let mut exact = true;
    let mut prefix = Vec::with_capacity(eq.len() + 1);
    for (v, col) in eq.iter().zip(cols) {
        match convert(v, col) {
            Conv::Exact(Value::Null) if !v.is_null() => return (Vec::new(), true),
            Conv::Exact(k) => prefix.push(k),
            Conv::Between { .. } => return (Vec::new(), true),
            Conv::Unusable => {
                return (vec![prefix_only(prefix)], false);
            }
        }
    }
    let Some(col) = cols.get(eq.len()) else {
        return (vec![prefix_only(prefix)], exact);
    };
    let lo = match lower {
        None => Bound::Unbounded,
        Some((v, _)) if v.is_null() => return (Vec::new(), true),
        Some((v, incl)) => match convert(&v, col) {
            Conv::Exact(k) => with(&prefix, k, incl),
            Conv::Between { above: Some(a), .. } => with(&prefix, a, true),
            Conv::Between { above: None, .. } => return (Vec::new(), true),
            Conv::Unusable => {
                exact = false;
                Bound::Unbounded
            }
        },
    };
    let hi = match upper {
        None => Bound::Unbounded,
        Some((v, _)) if v.is_null() => return (Vec::new(), true),
        Some((v, incl)) => match convert(&v, col) {
            Conv::Exact(k) => with(&prefix, k, incl),
            Conv::Between { below: Some(b), .. } => with(&prefix, b, true),
            Conv::Between { below: None, .. } => return (Vec::new(), true),
            Conv::Unusable => {
                exact = false;
                Bound::Unbounded
            }
        },
    };
    let lo = match lo {
        Bound::Unbounded if !prefix.is_empty() => lower_after_nulls(&prefix, lower_is_set(&hi)),
        other => other,
    };
    let hi = match hi {
        Bound::Unbounded if !prefix.is_empty() => Bound::Included(prefix.clone()),
        other => other,
    };
    (
        vec![KeyRange {
            lower: lo,
            upper: hi,
        }],
        exact,
    )
}

fn lower_is_set(_: &Bound<Vec<Value>>) -> bool {
    true
}

/// Lower bound for `prefix` with the next column unbounded below: NULLs of the
/// next column sort first, and a comparison never accepts them, but they are
/// harmless (the residual filter drops them).
fn lower_after_nulls(prefix: &[Value], _: bool) -> Bound<Vec<Value>> {
    Bound::Included(prefix.to_vec())
}

fn with(prefix: &[Value], k: Value, incl: bool) -> Bound<Vec<Value>> {
    let mut v = prefix.to_vec();
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

    #[test]
    fn ranges() {
        let c = int_col();
        let cols = [&c];
        let (r, exact) = key_ranges(
            EvalRange::Prefix {
                eq: vec![],
                lower: Some((Value::Double(1.5), true)),
                upper: None,
            },
            &cols,
            &[Collation::Binary],
        );
        assert!(exact);
        assert_eq!(r[0].lower, Bound::Included(vec![Value::Int(2)]));
        let (r, _) = key_ranges(
            EvalRange::Prefix {
                eq: vec![Value::Double(1.5)],
                lower: None,
                upper: None,
            },
            &cols,
            &[Collation::Binary],
        );
        assert!(r.is_empty());
        let (r, _) = key_ranges(
            EvalRange::Points(vec![
                vec![Value::Int(3)],
                vec![Value::Int(1)],
                vec![Value::Int(3)],
            ]),
            &cols,
            &[Collation::Binary],
        );
        assert_eq!(r.len(), 2);
        assert_eq!(r[0], KeyRange::eq(vec![Value::Int(1)]));
    }
}
