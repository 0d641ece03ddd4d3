//! A statement's memory budget (`max_session_mem_used`).
//!
//! Everything a statement keeps in memory in proportion to its input, rather than
//! a row at a time, is charged here as it grows: sort buffers and top-N heaps,
//! GROUP BY groups and their aggregate state, DISTINCT and UNION key sets,
//! materialised subqueries and derived tables, rows collected by INSERT ...
//! SELECT / UPDATE / DELETE, and the estimated size of a very long statement's
//! parse. A charge that takes the total past the limit fails the statement with
//! errno 1290 (`The MariaDB server is running with the --max-session-mem-used=N
//! option ...`), as MariaDB does when a session's memory passes
//! `max_session_mem_used`. Result rows are not charged: they stream to the client
//! as they are produced, and sorts spill to disk beyond `sort_buffer_size`.
//!
//! Sizes are estimates of the heap footprint (the `Value` cells, byte strings,
//! vector and hash-entry headers), cheap enough to compute per row. Invariant:
//! whoever charges a structure releases the same amount when it drops the
//! structure before the statement ends (a sort run written to disk, a correlated
//! subquery's rows); what lives until the end of the statement is released with
//! the budget itself.

use basalt_common::{MySqlError, Value};

/// The smallest limit MariaDB accepts for `max_session_mem_used`.
pub const MIN_LIMIT: u64 = 8192;

/// Bytes of one `Value` cell.
pub const VALUE: usize = std::mem::size_of::<Value>();
/// A `Vec` header.
pub const VEC: usize = std::mem::size_of::<Vec<u8>>();
/// Per-entry overhead of a hash set or map (control bytes, load factor slack).
pub const HASH_ENTRY: usize = 16;

/// Heap bytes of one value: its cell plus an owned byte string.
#[inline]
pub fn value_bytes(v: &Value) -> usize {
    match v {
        Value::Bytes(b) | Value::Enum(_, b) => VALUE + b.capacity(),
        _ => VALUE,
    }
}

/// Heap bytes of a row held in a `Vec<Row>`: its cells (by capacity), their byte
/// strings, and its slot in the holding vector twice over (a growing vector
/// reallocates to double size, holding old and new at once).
#[inline]
#[allow(clippy::ptr_arg)] // the capacity is what counts
pub fn row_bytes(row: &Vec<Value>) -> usize {
    let strings: usize = row
        .iter()
        .map(|v| match v {
            Value::Bytes(b) => b.capacity(),
            _ => 0,
        })
        .sum();
    2 * VEC + row.capacity() * VALUE + strings
}

/// The running total of one statement's charged memory against its limit.
#[derive(Clone, Debug)]
pub struct MemBudget {
    used: usize,
    peak: usize,
    limit: usize,
}

impl MemBudget {
    pub fn new(limit: u64) -> Self {
        MemBudget {
            used: 0,
            peak: 0,
            limit: limit.max(MIN_LIMIT).min(usize::MAX as u64) as usize,
        }
    }

    /// Adds `bytes`; errno 1290 when the total passes the limit (the bytes stay
    /// charged: the statement is failing and drops everything anyway).
    #[inline]
    pub fn charge(&mut self, bytes: usize) -> Result<(), MySqlError> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.peak {
            self.peak = self.used;
            if self.used > self.limit {
                return Err(exceeded(self.limit as u64));
            }
        }
        Ok(())
    }

    /// Gives back bytes charged earlier.
    #[inline]
    pub fn release(&mut self, bytes: usize) {
        self.used = self.used.saturating_sub(bytes);
    }

    #[cfg(test)]
    pub fn used(&self) -> usize {
        self.used
    }

    /// The most charged at any time.
    #[cfg(test)]
    pub fn peak(&self) -> usize {
        self.peak
    }

    #[cfg(test)]
    pub fn limit(&self) -> usize {
        self.limit
    }
}

/// Statements shorter than this are not estimated: their parse stays in the
/// tens of megabytes at most.
pub const ESTIMATE_ABOVE: usize = 64 << 10;

/// Bytes the parser, binder and plan of one list element take (a literal of an
/// IN list or VALUES row with its separator: tokens, AST node, bound expression,
/// range point), measured on sqlparser 0.64 with 1,000,000-element IN lists.
const PER_ELEMENT: usize = 720;

/// The memory a statement's parse and plan will take, estimated from its text
/// before parsing: list separators (commas and parentheses outside quotes and
/// comments) times the cost of an element, plus copies of the text itself.
pub fn statement_footprint(text: &[u8]) -> usize {
    let mut elements = 0usize;
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            q @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < text.len() && text[i] != q {
                    if text[i] == b'\\' && q != b'`' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'-' if text.get(i + 1) == Some(&b'-') => {
                while i < text.len() && text[i] != b'\n' {
                    i += 1;
                }
            }
            b'#' => {
                while i < text.len() && text[i] != b'\n' {
                    i += 1;
                }
            }
            b',' | b'(' | b')' => elements += 1,
            _ => {}
        }
        i += 1;
    }
    elements
        .saturating_mul(PER_ELEMENT)
        .saturating_add(4 * text.len())
}

/// Errno 1290 naming the option, as MariaDB words it.
pub fn exceeded(limit: u64) -> MySqlError {
    MySqlError::option_prevents_statement(&format!("--max-session-mem-used={limit}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charge_past_the_limit_is_1290() {
        let mut b = MemBudget::new(10_000);
        b.charge(6_000).expect("fits");
        b.release(1_000);
        b.charge(5_000).expect("exactly the limit fits");
        let e = b.charge(1).expect_err("over");
        assert_eq!(e.code, 1290);
        assert_eq!(
            e.message,
            "The MariaDB server is running with the --max-session-mem-used=10000 option so it cannot execute this statement"
        );
        assert_eq!(b.peak(), 10_001);
    }

    #[test]
    fn footprint_counts_list_elements_outside_quotes() {
        let list = format!("select 1 in ({})", vec!["1"; 1000].join(","));
        let n = statement_footprint(list.as_bytes());
        assert!(n >= 1000 * PER_ELEMENT, "{n}");
        let quoted = format!("select '{}'", ",".repeat(1000));
        assert!(statement_footprint(quoted.as_bytes()) < 10 * quoted.len());
        let escaped = "select 'a\\',(,(' -- ,,,\n, ";
        assert_eq!(
            statement_footprint(escaped.as_bytes()),
            PER_ELEMENT + 4 * escaped.len()
        );
    }

    #[test]
    fn limit_has_mariadbs_minimum() {
        assert_eq!(MemBudget::new(1).limit(), 8192);
    }

    #[test]
    fn sizes_count_byte_strings() {
        let mut row = Vec::with_capacity(4);
        row.push(Value::Int(1));
        row.push(Value::Bytes(Vec::with_capacity(100)));
        assert_eq!(row_bytes(&row), 2 * VEC + 4 * VALUE + 100);
    }
}
