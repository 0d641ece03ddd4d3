//! A random query generator (RQG) for differential tests: random tables and rows
//! ([`schema`]), random queries over them as trees ([`ast`], [`gen`]) and the
//! one-step simplifications of a query that a shrinker tries ([`shrink`]).
//! Everything follows from a seed through [`Rng`].

pub mod ast;
pub mod avoided;
pub mod gen;
mod items;
pub mod schema;
pub mod shrink;
pub mod valid;
pub mod walk;

/// SplitMix64: small, fast and good enough for test inputs.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// The constructs [`Avoid`] can keep the generator away from.
pub mod avoidable {
    /// A HAVING condition on a GROUP BY key (rather than on an aggregate).
    pub const HAVING_ON_GROUP_KEY: &str = "HAVING on a GROUP BY key";
    /// Window functions.
    pub const WINDOW: &str = "window functions";
    /// A string column of a DISTINCT or grouped select or a set operation, at the
    /// top or in a derived table, or of an ordered query.
    pub const STRING_THROUGH_TEMP_TABLE: &str = "string output of DISTINCT / GROUP BY / set op";
    /// A NULL literal as a value: anywhere but as an operand of a comparison, IN,
    /// BETWEEN, IS NULL, LIKE or as a whole condition.
    pub const NULL_VALUE: &str = "NULL literal as a value";
    /// An aggregate whose argument has no column (`MAX(1)`, `MIN(NULL)`).
    pub const AGGREGATE_OF_LITERAL: &str = "aggregate of a literal";
    /// COALESCE / IFNULL with a literal argument other than an integer, and CASE /
    /// COALESCE / IFNULL of strings.
    pub const BRANCH_TYPES: &str = "CASE / COALESCE / IFNULL of strings";
    /// An integer and a DECIMAL compared (=, IN, BETWEEN ...).
    pub const INT_VS_DECIMAL: &str = "integer compared with a DECIMAL";
    /// `<=>` between two columns.
    pub const NULL_SAFE_EQUAL_COLUMNS: &str = "<=> of two columns";
    /// HAVING without GROUP BY in a select whose WHERE has a subquery.
    pub const HAVING_IMPLICIT_GROUP: &str = "HAVING without GROUP BY after a WHERE subquery";
    /// An IN list of NULLs only.
    pub const IN_LIST_OF_NULLS: &str = "IN (NULL, ...)";
    /// IN or EXISTS over a set operation with EXCEPT or INTERSECT.
    pub const IN_EXCEPT: &str = "IN / EXISTS (... EXCEPT / INTERSECT ...)";
    /// INTERSECT ALL / EXCEPT ALL as an operand of another set operation.
    pub const NESTED_ALL_SET_OP: &str = "nested INTERSECT ALL / EXCEPT ALL";
    /// Two derived tables of one FROM with a column name in common.
    pub const SAME_NAMED_DERIVED_COLUMNS: &str = "derived tables with the same column names";
    /// LIKE on a column of an enclosing query, in a subquery.
    pub const LIKE_ON_OUTER_COLUMN: &str = "LIKE on an outer column in a subquery";
    /// A subquery in a select list reading an outer column that a later item of
    /// that list is.
    pub const FORWARD_REFERENCE: &str = "outer column of a later item in a subquery";
    /// A set operation inside a set operation whose column is an integer there
    /// and a DECIMAL in the other operand.
    pub const NESTED_SET_INT_DECIMAL: &str = "nested set operation of integers and decimals";
    /// More than one window function in a select.
    pub const MULTIPLE_WINDOWS: &str = "several window functions in a select";
    /// MOD with a DECIMAL operand.
    pub const MOD_OF_DECIMAL: &str = "MOD of a DECIMAL";
    /// A quotient (a division or AVG) whose result is not a select item.
    pub const NESTED_DIVISION: &str = "quotient inside an expression";
    /// A column of a derived table that is not a column of its tables.
    pub const DERIVED_COMPUTED_COLUMN: &str = "computed column of a derived table";
    /// IN (a subquery of aggregates without GROUP BY), or with GROUP BY after a
    /// subquery or reading an outer column.
    pub const IN_AGGREGATE_SUBQUERY: &str = "IN (SELECT COUNT(*) ...)";
    /// An ordered select with a DISTINCT aggregate and MIN / MAX of an integer
    /// expression.
    pub const ORDERED_INT_MIN_MAX: &str =
        "ordered DISTINCT aggregate with MAX of an integer expression";
    /// LIKE in the WHERE of a GROUP BY select.
    pub const GROUPED_LIKE: &str = "LIKE in the WHERE of a GROUP BY";
}

/// Constructs the generator stays away from, each naming a difference from
/// MariaDB that is known and not fixed yet (the test lists them).
#[derive(Clone, Debug, Default)]
pub struct Avoid {
    pub names: Vec<&'static str>,
}

impl Avoid {
    pub fn has(&self, name: &str) -> bool {
        self.names.contains(&name)
    }
}
