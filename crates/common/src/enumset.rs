//! ENUM and SET members: matching text against a column's member list under its
//! collation, and the numbers they are stored as.
//!
//! An ENUM value is the 1-based position of its member (0 is the '' error value
//! that non-strict mode stores for an invalid one). A SET value is a bitmask, bit i
//! for member i; its text lists the members present in declaration order, joined by
//! ',' (so `'b,a'` and `'a,b,a'` are the same value). Both are held at run time as
//! [`Value::Enum`] (number and text), which is what the storage engine encodes (the
//! number) and decodes (rebuilding the text from the member list).

use crate::collation::Collation;
use crate::types::DataType;
use crate::value::Value;

/// Most members an ENUM may declare (MariaDB's limit).
pub const MAX_ENUM_MEMBERS: usize = 65_535;
/// Most members a SET may declare.
pub const MAX_SET_MEMBERS: usize = 64;

/// The 1-based position of `text` among `values` (members compare under `coll`,
/// trailing spaces ignored as MariaDB strips them from members).
pub fn enum_position(values: &[String], coll: Collation, text: &[u8]) -> Option<u64> {
    values
        .iter()
        .position(|m| coll.compare(m.as_bytes(), text).is_eq())
        .map(|i| i as u64 + 1)
}

/// The text of ENUM number `n` ('' for 0 or a number past the members).
pub fn enum_text(values: &[String], n: u64) -> Vec<u8> {
    match n.checked_sub(1).and_then(|i| values.get(i as usize)) {
        Some(m) => m.as_bytes().to_vec(),
        None => Vec::new(),
    }
}

/// The bitmask of a SET text: each comma-separated part looked up among `values`.
/// Returns the mask and whether every non-empty part named a member.
pub fn set_mask(values: &[String], coll: Collation, text: &[u8]) -> (u64, bool) {
    let mut mask = 0u64;
    let mut clean = true;
    if text.is_empty() {
        return (0, true);
    }
    for part in text.split(|&b| b == b',') {
        match enum_position(values, coll, part) {
            Some(p) => mask |= 1 << (p - 1),
            None => clean = false,
        }
    }
    (mask, clean)
}

/// The text of SET bitmask `mask`: its members in declaration order, ','-joined.
pub fn set_text(values: &[String], mask: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, m) in values.iter().enumerate().take(64) {
        if mask & (1 << i) != 0 {
            if !out.is_empty() {
                out.push(b',');
            }
            out.extend_from_slice(m.as_bytes());
        }
    }
    out
}

/// The mask of every member of a SET of `n` members.
pub fn set_full_mask(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// True when `new` is `old` (an ENUM or SET) with members added at the end: every
/// stored number keeps its meaning, so the rows need no conversion (MariaDB
/// changes such a column in place).
pub fn members_appended(old: &DataType, new: &DataType) -> bool {
    match (old, new) {
        (
            DataType::Enum {
                values: a,
                collation: ca,
            },
            DataType::Enum {
                values: b,
                collation: cb,
            },
        )
        | (
            DataType::Set {
                values: a,
                collation: ca,
            },
            DataType::Set {
                values: b,
                collation: cb,
            },
        ) => ca == cb && b.len() >= a.len() && b[..a.len()] == a[..],
        _ => false,
    }
}

/// The run-time value of number `n` of an ENUM or SET column of type `ty`.
pub fn value_of(ty: &DataType, n: u64) -> Value {
    match ty {
        DataType::Enum { values, .. } => Value::Enum(n, enum_text(values, n)),
        DataType::Set { values, .. } => Value::Enum(n, set_text(values, n)),
        _ => Value::UInt(n),
    }
}

/// The stored number of `v` for an ENUM or SET column of type `ty`: the number of a
/// [`Value::Enum`], a member looked up by text, or an integer taken as the number.
/// `None` when the value names no member.
pub fn number_of(ty: &DataType, v: &Value) -> Option<u64> {
    match (ty, v) {
        (_, Value::Enum(n, _)) => Some(*n),
        (DataType::Enum { values, collation }, Value::Bytes(b)) => {
            enum_position(values, *collation, b)
        }
        (DataType::Set { values, collation }, Value::Bytes(b)) => {
            let (mask, clean) = set_mask(values, *collation, b);
            clean.then_some(mask)
        }
        (_, Value::Int(i)) => u64::try_from(*i).ok(),
        (_, Value::UInt(u)) => Some(*u),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members() -> Vec<String> {
        vec!["a".into(), "b".into(), "C".into()]
    }

    #[test]
    fn enum_lookup_under_collation() {
        let ci = Collation::Utf8mb4GeneralCi;
        assert_eq!(enum_position(&members(), ci, b"c"), Some(3));
        assert_eq!(enum_position(&members(), Collation::Utf8mb4Bin, b"c"), None);
        assert_eq!(enum_text(&members(), 3), b"C");
        assert_eq!(enum_text(&members(), 0), b"");
    }

    #[test]
    fn set_normalises_order_and_duplicates() {
        let ci = Collation::Utf8mb4GeneralCi;
        let (mask, clean) = set_mask(&members(), ci, b"b,a,b");
        assert!(clean);
        assert_eq!(mask, 3);
        assert_eq!(set_text(&members(), mask), b"a,b");
        assert_eq!(set_mask(&members(), ci, b"a,q"), (1, false));
        assert_eq!(set_mask(&members(), ci, b""), (0, true));
    }
}
