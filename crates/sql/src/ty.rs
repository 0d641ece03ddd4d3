//! Static types of expressions: what a result column's metadata says, and which
//! comparison and arithmetic rules apply.
//!
//! Evaluation is dynamic (on [`basalt_common::Value`] variants); the static type only
//! decides result metadata (MariaDB's rules: an integer expression is LONG when it
//! needs fewer than 11 characters, LONGLONG otherwise; strings report `chars *
//! mbmaxlen` bytes) and the collation string comparisons use.

use basalt_common::column::{describe_type, flags};
use basalt_common::fixedbin::FixedBin;
use basalt_common::{Charset, Collation, ColumnDef, ColumnMeta, ColumnType, DataType, IntKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Null,
    Int,
    Decimal,
    Double,
    String,
    Date,
    DateTime,
    Time,
}

impl Class {
    pub fn is_numeric(self) -> bool {
        matches!(self, Class::Int | Class::Decimal | Class::Double)
    }

    pub fn is_temporal(self) -> bool {
        matches!(self, Class::Date | Class::DateTime | Class::Time)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExprType {
    pub class: Class,
    /// Display length in characters.
    pub len: u32,
    /// Scale (DECIMAL), fractional digits (temporal), 31 (floating point, unknown),
    /// 39 (strings from functions, MariaDB's NOT_FIXED_DEC).
    pub decimals: u8,
    pub nullable: bool,
    pub unsigned: bool,
    /// `len` counts a position for the sign (false for unsigned types and
    /// positive integer literals, which MariaDB sizes by their digits alone).
    pub sign_char: bool,
    pub collation: Collation,
    /// The exact protocol type when known (table columns), otherwise derived.
    pub column_type: Option<ColumnType>,
    /// The column this expression reads directly, for result metadata.
    pub origin: Option<Origin>,
    /// Extra column flags (key flags, AUTO_INCREMENT, ...) of a direct column reference.
    pub col_flags: u16,
    /// The declared display width of an integer column (`int(5)`), 0 for none: the
    /// length a direct reference reports; arithmetic sizes by the type's own `len`.
    pub int_width: u8,
    /// A UUID or INET6 value (a string of its canonical text, compared, sorted and
    /// grouped by its binary form).
    pub fixedbin: Option<FixedBin>,
    /// A `0x..` or `b'..'` literal: a binary string that is a number where one
    /// is wanted (MariaDB's hybrid literal; `X'..'` is a plain string).
    pub hex_number: bool,
}

/// Where a result column comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Origin {
    pub schema: String,
    pub table: String,
    pub org_table: String,
    pub org_name: String,
}

impl ExprType {
    /// The collation values of this type are grouped, deduplicated and sorted by:
    /// its own for strings, bytes (binary) otherwise.
    pub fn key_collation(&self) -> Collation {
        if self.class == Class::String {
            self.collation
        } else {
            Collation::Binary
        }
    }

    fn base(class: Class, len: u32) -> Self {
        ExprType {
            class,
            len,
            decimals: 0,
            nullable: false,
            unsigned: false,
            sign_char: matches!(class, Class::Int | Class::Decimal),
            collation: Collation::Binary,
            column_type: None,
            origin: None,
            col_flags: 0,
            int_width: 0,
            fixedbin: None,
            hex_number: false,
        }
    }

    pub fn null() -> Self {
        let mut t = Self::base(Class::Null, 0);
        t.nullable = true;
        t
    }

    pub fn int(len: u32) -> Self {
        Self::base(Class::Int, len)
    }

    pub fn bigint() -> Self {
        Self::base(Class::Int, 21)
    }

    /// An INT result of `len` characters whatever its length (MariaDB's
    /// `Item_long_func`: LENGTH, CRC32, CONNECTION_ID, ...).
    pub fn long(len: u32) -> Self {
        let mut t = Self::int(len);
        t.column_type = Some(ColumnType::Long);
        t
    }

    /// The type as a column of a temporary table holds it (a set operation's
    /// result read by another set operation): an integer takes its type's full
    /// display width (`INT` 11, `BIGINT` 20 or more), as MariaDB's field does.
    pub fn as_field(&self) -> ExprType {
        let mut t = self.clone();
        let Some(k) = self.int_kind() else { return t };
        let kind = [
            IntKind::Tiny,
            IntKind::Small,
            IntKind::Medium,
            IntKind::Int,
            IntKind::Big,
        ][k];
        // A BIGINT field is longer when what it holds is (`COUNT(*) + 0`: 22).
        t.len = match kind {
            IntKind::Big => kind.default_width(self.unsigned).max(self.len),
            _ => kind.default_width(self.unsigned),
        };
        t.sign_char = !self.unsigned;
        t.column_type = Some(INT_KINDS[k]);
        t
    }

    /// The rank of this integer's MariaDB type handler in [`INT_KINDS`]: the
    /// column's own, else LONG up to 9 characters and LONGLONG beyond
    /// (`type_handler_long_or_longlong`); `None` for BIT, YEAR and non-integers.
    fn int_kind(&self) -> Option<usize> {
        if self.class != Class::Int {
            return None;
        }
        let ct = self.protocol_type();
        INT_KINDS.iter().position(|k| *k == ct)
    }

    pub fn unsigned(mut self) -> Self {
        self.unsigned = true;
        self.sign_char = false;
        self
    }

    /// A signed integer of `precision` digits (plus the sign position).
    pub fn int_p(precision: u32) -> Self {
        Self::int(precision.max(1) + 1)
    }

    /// An unsigned integer of `precision` digits.
    pub fn uint_p(precision: u32) -> Self {
        Self::int(precision.max(1)).unsigned()
    }

    pub fn nullable(mut self, n: bool) -> Self {
        self.nullable = n;
        self
    }

    pub fn decimal(precision: u32, scale: u8) -> Self {
        let mut t = Self::base(Class::Decimal, precision + u32::from(scale > 0) + 1);
        t.decimals = scale;
        t
    }

    pub fn double() -> Self {
        let mut t = Self::base(Class::Double, 22);
        t.decimals = 31;
        t
    }

    pub fn string(len: u32, collation: Collation) -> Self {
        let mut t = Self::base(Class::String, len);
        t.collation = collation;
        t.decimals = 39;
        t
    }

    /// A UUID or INET6 expression (as `CAST(x AS UUID)` gives).
    pub fn fixed(kind: FixedBin) -> Self {
        let mut t = Self::string(kind.text_len(), Collation::Latin1Bin);
        t.decimals = 0;
        t.fixedbin = Some(kind);
        t.column_type = Some(ColumnType::String);
        t.unsigned = true;
        t
    }

    pub fn date() -> Self {
        Self::base(Class::Date, 10)
    }

    pub fn datetime(fsp: u8) -> Self {
        let mut t = Self::base(
            Class::DateTime,
            19 + if fsp > 0 { fsp as u32 + 1 } else { 0 },
        );
        t.decimals = fsp;
        t
    }

    pub fn time(fsp: u8) -> Self {
        let mut t = Self::base(Class::Time, 10 + if fsp > 0 { fsp as u32 + 1 } else { 0 });
        t.decimals = fsp;
        t
    }

    /// Decimal precision implied by `len` (inverse of [`ExprType::decimal`]).
    pub fn precision(&self) -> u32 {
        match self.class {
            Class::Decimal => self.len.saturating_sub(1 + u32::from(self.decimals > 0)),
            Class::Int => self.len.saturating_sub(u32::from(self.sign_char)).max(1),
            _ => self.len,
        }
    }

    /// An ENUM or SET column (whose values are numbers in numeric context).
    pub fn is_enum_or_set(&self) -> bool {
        self.class == Class::String && self.col_flags & (flags::ENUM | flags::SET) != 0
    }

    /// The type as numeric context sees it: an ENUM or SET column is an integer of
    /// as many digits as its text has characters (MariaDB's `decimal_precision()`
    /// of a string field); every other type is itself.
    pub fn numeric_view(&self) -> ExprType {
        if self.is_enum_or_set() {
            ExprType::int_p(self.len).nullable(self.nullable)
        } else {
            self.clone()
        }
    }

    pub fn is_binary_string(&self) -> bool {
        self.class == Class::String && self.collation.is_binary()
    }

    /// The static type of a table column.
    pub fn of_column(col: &ColumnDef) -> Self {
        let dt = &col.data_type;
        let (ct, _, decimals) = describe_type(dt);
        let mut t = match dt {
            DataType::Int { unsigned, .. } => {
                let t = Self::base(Class::Int, 0);
                if *unsigned {
                    t.unsigned()
                } else {
                    t
                }
            }
            DataType::Year => Self::base(Class::Int, 4),
            DataType::Float | DataType::Double => Self::double(),
            DataType::Decimal { precision, scale } => Self::decimal(*precision as u32, *scale),
            DataType::Char { collation, .. }
            | DataType::VarChar { collation, .. }
            | DataType::Text { collation, .. }
            | DataType::Enum { collation, .. }
            | DataType::Set { collation, .. } => {
                let mut t = Self::string(0, *collation);
                t.decimals = 0;
                t
            }
            DataType::Date => Self::date(),
            DataType::DateTime { fsp } | DataType::Timestamp { fsp } => Self::datetime(*fsp),
            DataType::Time { fsp } => Self::time(*fsp),
            DataType::Bit { .. } => Self::base(Class::Int, 0).unsigned(),
            DataType::Uuid | DataType::Inet6 => {
                let mut t = Self::fixed(FixedBin::of(dt).expect("fixed binary type"));
                t.col_flags |= flags::BINARY;
                t
            }
        };
        t.len = column_chars(dt);
        if let DataType::Int {
            kind,
            unsigned,
            width,
            ..
        } = dt
        {
            t.len = kind.default_width(*unsigned);
            t.int_width = *width;
        }
        t.decimals = decimals;
        t.column_type = Some(ct);
        t.nullable = col.nullable;
        t
    }

    /// Result-set metadata for a column labelled `name`. `results` is the session's
    /// `character_set_results` (None when NULL).
    pub fn meta(&self, name: &str, results: Option<Charset>) -> ColumnMeta {
        let ct = self.protocol_type();
        let string_like = self.class == Class::String && !self.collation.is_binary();
        let (charset, mbmax) = if string_like {
            let target = results.unwrap_or(self.collation.charset());
            let coll = if self.collation.charset() == target {
                self.collation
            } else {
                target.default_collation()
            };
            (coll.id(), target.max_len())
        } else {
            (Collation::Binary.id(), 1)
        };
        let len = match self.int_width {
            w if w > 0 && self.origin.is_some() => w as u32,
            // LONGTEXT / LONGBLOB: MariaDB reports 2^32 - 1 bytes in any charset.
            _ if self.len >= u32::MAX / 4 => u32::MAX,
            _ => self.len,
        };
        let mut m = ColumnMeta::expr(name, ct, len.saturating_mul(mbmax));
        m.charset = charset;
        m.text_as = if string_like {
            text_as(self.collation.charset(), results)
        } else {
            None
        };
        m.decimals = self.decimals;
        m.flags = self.col_flags & !flags::NOT_NULL;
        let table_number = self.origin.is_some() && self.class.is_numeric();
        if !string_like && !table_number {
            m.flags |= flags::BINARY;
        }
        if !self.nullable {
            m.flags |= flags::NOT_NULL;
        }
        // MariaDB marks YEAR and TIMESTAMP columns UNSIGNED as well.
        if self.unsigned || matches!(ct, ColumnType::Year | ColumnType::Timestamp) {
            m.flags |= flags::UNSIGNED;
        }
        // ... and a YEAR column ZEROFILL.
        if ct == ColumnType::Year && self.origin.is_some() {
            m.flags |= flags::ZEROFILL;
        }
        if matches!(ct, ColumnType::Blob) {
            m.flags |= flags::BLOB;
        }
        if let Some(o) = &self.origin {
            m.schema = o.schema.clone();
            m.table = o.table.clone();
            m.org_table = o.org_table.clone();
            m.org_name = o.org_name.clone();
        }
        m
    }

    pub fn protocol_type(&self) -> ColumnType {
        if let Some(ct) = self.column_type {
            return ct;
        }
        match self.class {
            Class::Null => ColumnType::Null,
            Class::Int if self.len <= 9 => ColumnType::Long,
            Class::Int => ColumnType::LongLong,
            Class::Decimal => ColumnType::NewDecimal,
            Class::Double => ColumnType::Double,
            Class::String if self.len > 65_535 => ColumnType::Blob,
            Class::String => ColumnType::VarString,
            Class::Date => ColumnType::Date,
            Class::DateTime => ColumnType::DateTime,
            Class::Time => ColumnType::Time,
        }
    }
}

/// Display length in characters of a column type.
fn column_chars(dt: &DataType) -> u32 {
    match dt {
        DataType::Char { len, .. } | DataType::VarChar { len, .. } => *len,
        DataType::Enum { .. } | DataType::Set { .. } => dt.char_len().unwrap_or(0) as u32,
        DataType::Text { kind, .. } => kind.max_len().min(u32::MAX as u64 / 4) as u32,
        other => describe_type(other).1,
    }
}

/// The type of `a op b` for two branches that must agree (IF, CASE, COALESCE,
/// UNION): MariaDB's type aggregation, simplified.
pub fn aggregate(a: &ExprType, b: &ExprType) -> ExprType {
    use Class::*;
    let nullable = a.nullable || b.nullable;
    let mut t = match (a.class, b.class) {
        (Null, Int) => int_aggregate(b, b),
        (Int, Null) => int_aggregate(a, a),
        (Null, _) => b.clone(),
        (_, Null) => a.clone(),
        (Int, Int) => int_aggregate(a, b),
        (x, y) if x == y && x != Decimal => {
            let mut t = a.clone();
            t.len = a.len.max(b.len);
            t.decimals = a.decimals.max(b.decimals);
            t.unsigned = a.unsigned && b.unsigned;
            t
        }
        (Int | Decimal, Int | Decimal) => {
            let scale = a.decimals.max(b.decimals);
            let ints = int_digits(a).max(int_digits(b));
            ExprType::decimal(ints + scale as u32, scale)
        }
        (x, y) if x.is_numeric() && y.is_numeric() => ExprType::double(),
        (x, y) if x.is_temporal() && y.is_temporal() => {
            ExprType::datetime(a.decimals.max(b.decimals))
        }
        _ => {
            let coll = if a.class == String {
                a.collation
            } else {
                b.collation
            };
            let coll = if a.is_binary_string() || b.is_binary_string() {
                Collation::Binary
            } else if a.class == String || b.class == String {
                coll
            } else {
                Collation::Utf8mb4GeneralCi
            };
            ExprType::string(a.len.max(b.len), coll)
        }
    };
    t.origin = None;
    if t.class != Int {
        t.column_type = None;
    }
    t.col_flags = 0;
    t.int_width = 0;
    t.nullable = nullable;
    t
}

/// MariaDB's integer type handlers, narrowest first.
const INT_KINDS: [ColumnType; 5] = [
    ColumnType::Tiny,
    ColumnType::Short,
    ColumnType::Int24,
    ColumnType::Long,
    ColumnType::LongLong,
];

/// Two integer branches: the wider type handler, sized by the larger precision;
/// signed with unsigned is DECIMAL, as MariaDB aggregates them.
fn int_aggregate(a: &ExprType, b: &ExprType) -> ExprType {
    let p = a.precision().max(b.precision());
    if a.unsigned != b.unsigned {
        return ExprType::decimal(p, 0);
    }
    let mut t = if a.unsigned {
        ExprType::uint_p(p)
    } else {
        ExprType::int_p(p)
    };
    if let (Some(x), Some(y)) = (a.int_kind(), b.int_kind()) {
        t.column_type = Some(INT_KINDS[x.max(y)]);
    }
    t
}

fn int_digits(t: &ExprType) -> u32 {
    match t.class {
        Class::Decimal => t.precision().saturating_sub(t.decimals as u32),
        _ => t.precision(),
    }
}

/// The character set a text value of set `own` is sent in under results set
/// `results` (None: NULL, no conversion), if that is not its internal UTF-8: the
/// results set, or with binary / NULL results the value's own set (MariaDB sends
/// a latin1 column's bytes then).
fn text_as(own: Charset, results: Option<Charset>) -> Option<Charset> {
    let wire = match results {
        None | Some(Charset::Binary) => own,
        Some(cs) => cs,
    };
    (!matches!(wire, Charset::Utf8mb4 | Charset::Binary)).then_some(wire)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_expression_is_long_until_ten_chars() {
        assert_eq!(ExprType::int(1).protocol_type(), ColumnType::Long);
        assert_eq!(ExprType::int(9).protocol_type(), ColumnType::Long);
        assert_eq!(ExprType::int(10).protocol_type(), ColumnType::LongLong);
        assert_eq!(ExprType::long(10).protocol_type(), ColumnType::Long);
    }

    #[test]
    fn integer_branches_keep_the_wider_handler() {
        let mut tiny = ExprType::int(4);
        tiny.column_type = Some(ColumnType::Tiny);
        let t = aggregate(&tiny, &tiny);
        assert_eq!((t.protocol_type(), t.len), (ColumnType::Tiny, 4));
        let mut long = ExprType::int(11);
        long.column_type = Some(ColumnType::Long);
        let t = aggregate(&tiny, &long);
        assert_eq!((t.protocol_type(), t.len), (ColumnType::Long, 11));
        let t = aggregate(&long, &ExprType::int(10).unsigned());
        assert_eq!((t.class, t.len), (Class::Decimal, 11));
        let t = aggregate(&ExprType::null(), &ExprType::int(1));
        assert_eq!((t.protocol_type(), t.len), (ColumnType::Long, 2));
    }

    #[test]
    fn decimal_length() {
        let t = ExprType::decimal(2, 1);
        assert_eq!(t.len, 4);
        assert_eq!(t.precision(), 2);
        let m = t.meta("1.5", Some(Charset::Utf8mb4));
        assert_eq!(m.column_type, ColumnType::NewDecimal);
        assert_eq!(m.flags & flags::NOT_NULL, flags::NOT_NULL);
    }

    #[test]
    fn string_meta_uses_result_charset() {
        let t = ExprType::string(3, Collation::Utf8mb4GeneralCi);
        let m = t.meta("x", Some(Charset::Utf8mb3));
        assert_eq!(m.charset, 33);
        assert_eq!(m.length, 9);
        let m = t.meta("x", Some(Charset::Utf8mb4));
        assert_eq!(m.charset, 45);
        assert_eq!(m.length, 12);
    }
}
