//! MySQL comparison rules, decided by the operands' runtime kinds:
//! - two strings compare under the collation the binder chose;
//! - two exact numbers (integers, DECIMAL) compare exactly, any DOUBLE as doubles;
//! - a string against a number compares both as doubles;
//! - a temporal value against a string parses the string as that temporal type
//!   (falling back to comparing texts when it does not parse);
//! - DATE against DATETIME compares as DATETIME;
//! - an ENUM/SET value is a string against strings (and temporal values), its number
//!   against numbers; sorting (ORDER BY, index order) puts two of them in number
//!   order, i.e. declaration order.

use super::{parse_datetime, parse_time, temporal_to_num, to_bytes, to_f64, Num};
use basalt_common::{Collation, DateTime, Decimal, Value};
use std::cmp::Ordering;

/// Compares two values; `None` when either is NULL.
pub fn compare(a: &Value, b: &Value, coll: Collation) -> Option<Ordering> {
    use Value::*;
    Some(match (a, b) {
        (Null, _) | (_, Null) => return None,
        (Int(x), Int(y)) => x.cmp(y),
        (Bytes(x) | Enum(_, x), Bytes(y) | Enum(_, y)) => coll.compare(x, y),
        (Int(x), UInt(y)) => (*x as i128).cmp(&(*y as i128)),
        (UInt(x), Int(y)) => (*x as i128).cmp(&(*y as i128)),
        (UInt(x), UInt(y)) => x.cmp(y),
        (Double(_), _) | (_, Double(_)) => f64_cmp(to_f64(a), to_f64(b)),
        (Decimal(x), Decimal(y)) => x.cmp(y),
        (Decimal(x), Int(_) | UInt(_)) => x.cmp(&exact(b)?),
        (Int(_) | UInt(_), Decimal(y)) => exact(a)?.cmp(y),
        (Bytes(_), Int(_) | UInt(_) | Decimal(_)) | (Int(_) | UInt(_) | Decimal(_), Bytes(_)) => {
            f64_cmp(to_f64(a), to_f64(b))
        }
        (Enum(n, _), Int(_) | UInt(_) | Decimal(_)) => return compare(&UInt(*n), b, coll),
        (Int(_) | UInt(_) | Decimal(_), Enum(n, _)) => return compare(a, &UInt(*n), coll),
        (Date(x), Date(y)) => x.cmp(y),
        (Time(x), Time(y)) => x.cmp(y),
        (Date(_) | DateTime(_), Date(_) | DateTime(_)) => as_datetime(a)?.cmp(&as_datetime(b)?),
        (Date(_) | DateTime(_) | Time(_), Bytes(s) | Enum(_, s)) => {
            return temporal_vs_str(a, s, coll)
        }
        (Bytes(s) | Enum(_, s), Date(_) | DateTime(_) | Time(_)) => {
            return temporal_vs_str(b, s, coll).map(Ordering::reverse)
        }
        _ => f64_cmp(temporal_to_num(a).to_f64(), num_of(b).to_f64()),
    })
}

fn num_of(v: &Value) -> Num {
    super::to_num(v).0
}

fn exact(v: &Value) -> Option<Decimal> {
    match v {
        Value::Int(i) => Some(Decimal::from_i64(*i)),
        Value::UInt(u) | Value::Enum(u, _) => Some(Decimal::from_u64(*u)),
        Value::Decimal(d) => Some(*d),
        _ => None,
    }
}

fn f64_cmp(x: f64, y: f64) -> Ordering {
    x.partial_cmp(&y).unwrap_or(Ordering::Equal)
}

fn as_datetime(v: &Value) -> Option<DateTime> {
    match v {
        Value::Date(d) => Some(DateTime::from_date(*d)),
        Value::DateTime(dt) => Some(*dt),
        _ => None,
    }
}

fn temporal_vs_str(t: &Value, s: &[u8], coll: Collation) -> Option<Ordering> {
    match t {
        Value::Time(x) => match parse_time(s) {
            Some(y) => Some(x.cmp(&y)),
            None => Some(coll.compare(&to_bytes(t), s)),
        },
        _ => match parse_datetime(s) {
            Some(y) => Some(as_datetime(t)?.cmp(&y)),
            None => Some(coll.compare(&to_bytes(t), s)),
        },
    }
}

/// Equality as `=` sees it (`None` for NULL operands).
pub fn equal(a: &Value, b: &Value, coll: Collation) -> Option<bool> {
    compare(a, b, coll).map(|o| o == Ordering::Equal)
}

/// Order for ORDER BY and index keys: NULL first, then [`compare`].
pub fn sort_cmp(a: &Value, b: &Value, coll: Collation) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => match (a, b) {
            (Value::Enum(x, _), Value::Enum(y, _)) => x.cmp(y),
            _ => compare(a, b, coll).unwrap_or(Ordering::Equal),
        },
    }
}

/// Appends a byte string that is equal for values GROUP BY / DISTINCT put in the
/// same group (numbers by value, strings by collation weight).
pub fn group_key(v: &Value, coll: Collation, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(0),
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => {
            out.push(1);
            let d = exact(v).unwrap_or(Decimal::ZERO);
            out.extend_from_slice(normalized_decimal(d).as_bytes());
            out.push(0);
        }
        Value::Double(d) => {
            out.push(1);
            match Decimal::from_f64(*d).filter(|x| x.to_f64() == *d) {
                Some(x) => out.extend_from_slice(normalized_decimal(x).as_bytes()),
                None => out.extend_from_slice(&d.to_bits().to_be_bytes()),
            }
            out.push(0);
        }
        Value::Bytes(b) | Value::Enum(_, b) => {
            out.push(2);
            let start = out.len();
            coll.sort_key(b, out);
            let len = (out.len() - start) as u32;
            out.extend_from_slice(&len.to_be_bytes());
        }
        other => {
            out.push(3);
            out.extend_from_slice(&to_bytes(other));
            out.push(0);
        }
    }
}

fn normalized_decimal(d: Decimal) -> String {
    let s = d.to_string();
    if s.contains('.') {
        let t = s.trim_end_matches('0').trim_end_matches('.');
        if t == "-0" {
            "0".into()
        } else {
            t.to_string()
        }
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_common::Date;

    fn d(s: &str) -> Value {
        Value::Decimal(Decimal::parse(s).expect("decimal"))
    }

    #[test]
    fn numbers() {
        let c = Collation::Binary;
        assert_eq!(
            compare(&Value::Int(1), &Value::UInt(1), c),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(&Value::Int(-1), &Value::UInt(u64::MAX), c),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare(&d("1.50"), &Value::Int(1), c),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&Value::Double(1.5), &d("1.5"), c),
            Some(Ordering::Equal)
        );
        assert_eq!(compare(&Value::Null, &Value::Int(1), c), None);
    }

    #[test]
    fn strings_and_mixed() {
        let ci = Collation::Utf8mb4GeneralCi;
        assert_eq!(
            compare(&Value::str("a"), &Value::str("A "), ci),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(&Value::str("10"), &Value::Int(9), ci),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&Value::str("abc"), &Value::Int(0), ci),
            Some(Ordering::Equal)
        );
    }

    #[test]
    fn temporal() {
        let c = Collation::Utf8mb4GeneralCi;
        let date = Value::Date(Date::new(2024, 1, 2));
        assert_eq!(
            compare(&date, &Value::str("2024-01-02"), c),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(&date, &Value::str("2024-01-02 00:00:01"), c),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare(&Value::str("2024-01-03"), &date, c),
            Some(Ordering::Greater)
        );
    }

    #[test]
    fn group_keys_match_equal_numbers() {
        let key = |v: &Value| {
            let mut k = Vec::new();
            group_key(v, Collation::Utf8mb4GeneralCi, &mut k);
            k
        };
        assert_eq!(key(&Value::Int(1)), key(&d("1.00")));
        assert_eq!(key(&Value::Int(1)), key(&Value::Double(1.0)));
        assert_eq!(key(&Value::str("a")), key(&Value::str("A")));
        assert_ne!(key(&Value::str("a")), key(&Value::str("b")));
    }
}
