//! SQL column types and table definitions: what the catalog stores about a table.
//!
//! A [`TableDef`] is the contract between the SQL layer and the storage engines: column
//! ordinals in rows follow `columns`, and `indexes[0]` is the clustered key (the
//! PRIMARY KEY, or a hidden row id when the table declares none, see
//! [`TableDef::has_hidden_pk`]).

use crate::collation::{Charset, Collation};
use crate::value::Value;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum IntKind {
    Tiny,
    Small,
    Medium,
    Int,
    Big,
}

impl IntKind {
    pub fn bytes(self) -> u32 {
        match self {
            IntKind::Tiny => 1,
            IntKind::Small => 2,
            IntKind::Medium => 3,
            IntKind::Int => 4,
            IntKind::Big => 8,
        }
    }

    /// Inclusive range of the signed or unsigned type, as i128.
    pub fn range(self, unsigned: bool) -> (i128, i128) {
        let bits = self.bytes() * 8;
        if unsigned {
            (0, (1i128 << bits) - 1)
        } else {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        }
    }

    /// Display width MySQL shows in `SHOW CREATE TABLE` (`int(11)`).
    pub fn default_width(self, unsigned: bool) -> u32 {
        let w = match self {
            IntKind::Tiny => 4,
            IntKind::Small => 6,
            IntKind::Medium => 9,
            IntKind::Int => 11,
            IntKind::Big => 20,
        };
        if unsigned && self != IntKind::Big {
            w - 1
        } else {
            w
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            IntKind::Tiny => "tinyint",
            IntKind::Small => "smallint",
            IntKind::Medium => "mediumint",
            IntKind::Int => "int",
            IntKind::Big => "bigint",
        }
    }
}

/// Size class of TEXT and BLOB columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LobKind {
    Tiny,
    Normal,
    Medium,
    Long,
}

impl LobKind {
    pub fn max_len(self) -> u64 {
        match self {
            LobKind::Tiny => 255,
            LobKind::Normal => 65_535,
            LobKind::Medium => 16_777_215,
            LobKind::Long => 4_294_967_295,
        }
    }

    pub fn prefix(self) -> &'static str {
        match self {
            LobKind::Tiny => "tiny",
            LobKind::Normal => "",
            LobKind::Medium => "medium",
            LobKind::Long => "long",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DataType {
    Int {
        kind: IntKind,
        unsigned: bool,
        /// Display width (`int(5)`); 0 for the type's default.
        #[serde(default)]
        width: u8,
        /// ZEROFILL: values print padded with zeros to the width (implies unsigned).
        #[serde(default)]
        zerofill: bool,
    },
    Float,
    Double,
    Decimal {
        precision: u8,
        scale: u8,
    },
    /// CHAR(len) / BINARY(len) (collation Binary): `len` in characters.
    Char {
        len: u32,
        collation: Collation,
    },
    /// VARCHAR(len) / VARBINARY(len).
    VarChar {
        len: u32,
        collation: Collation,
    },
    /// TEXT family, or BLOB family when the collation is Binary.
    Text {
        kind: LobKind,
        collation: Collation,
    },
    Date,
    DateTime {
        fsp: u8,
    },
    Timestamp {
        fsp: u8,
    },
    Time {
        fsp: u8,
    },
    Year,
    /// ENUM('a','b',...): a value is stored as its 1-based position in `values`
    /// (0 for the '' error value), held at run time as [`Value::Enum`].
    Enum {
        values: Vec<String>,
        collation: Collation,
    },
    /// SET('a','b',...): a value is stored as a bitmask (bit i = `values[i]`), held at
    /// run time as [`Value::Enum`] with the members in declaration order.
    Set {
        values: Vec<String>,
        collation: Collation,
    },
    /// BIT(width), 1..=64: held at run time as [`Value::UInt`].
    Bit {
        width: u8,
    },
    /// UUID (MariaDB 10.7): 16 bytes in storage, held at run time as its canonical
    /// 36-character text.
    Uuid,
    /// INET6 (MariaDB 10.5): 16 bytes in storage, held at run time as its canonical
    /// text (`::1`, `::ffff:1.2.3.4`).
    Inet6,
}

impl DataType {
    pub fn is_integer(&self) -> bool {
        matches!(self, DataType::Int { .. } | DataType::Year)
    }

    pub fn is_numeric(&self) -> bool {
        matches!(
            self,
            DataType::Int { .. } | DataType::Float | DataType::Double | DataType::Decimal { .. }
        )
    }

    pub fn is_string(&self) -> bool {
        matches!(
            self,
            DataType::Char { .. } | DataType::VarChar { .. } | DataType::Text { .. }
        )
    }

    /// ENUM or SET.
    pub fn is_enum_or_set(&self) -> bool {
        matches!(self, DataType::Enum { .. } | DataType::Set { .. })
    }

    /// UUID or INET6: a fixed 16-byte binary type shown as text.
    pub fn is_fixed_binary(&self) -> bool {
        matches!(self, DataType::Uuid | DataType::Inet6)
    }

    pub fn is_lob(&self) -> bool {
        matches!(self, DataType::Text { .. })
    }

    pub fn is_temporal(&self) -> bool {
        matches!(
            self,
            DataType::Date
                | DataType::DateTime { .. }
                | DataType::Timestamp { .. }
                | DataType::Time { .. }
        )
    }

    pub fn collation(&self) -> Option<Collation> {
        match self {
            DataType::Char { collation, .. }
            | DataType::VarChar { collation, .. }
            | DataType::Text { collation, .. }
            | DataType::Enum { collation, .. }
            | DataType::Set { collation, .. } => Some(*collation),
            _ => None,
        }
    }

    pub fn is_unsigned(&self) -> bool {
        matches!(self, DataType::Int { unsigned: true, .. })
    }

    /// Fractional-second digits of temporal types.
    pub fn fsp(&self) -> u8 {
        match self {
            DataType::DateTime { fsp } | DataType::Timestamp { fsp } | DataType::Time { fsp } => {
                *fsp
            }
            _ => 0,
        }
    }

    /// Maximum length in characters for string types.
    pub fn char_len(&self) -> Option<u64> {
        match self {
            DataType::Char { len, .. } | DataType::VarChar { len, .. } => Some(*len as u64),
            DataType::Text { kind, collation } => {
                Some(kind.max_len() / collation.charset().max_len() as u64)
            }
            DataType::Enum { values, .. } => Some(
                values
                    .iter()
                    .map(|v| v.chars().count() as u64)
                    .max()
                    .unwrap_or(0),
            ),
            DataType::Set { values, .. } => Some(
                values.iter().map(|v| v.chars().count() as u64).sum::<u64>()
                    + values.len().saturating_sub(1) as u64,
            ),
            _ => None,
        }
    }

    /// An integer type of the default display width, without ZEROFILL.
    pub const fn int(kind: IntKind, unsigned: bool) -> DataType {
        DataType::Int {
            kind,
            unsigned,
            width: 0,
            zerofill: false,
        }
    }

    /// The display width of an integer type (declared, else the default); 0 for
    /// other types.
    pub fn display_width(&self) -> u32 {
        match self {
            DataType::Int { width, .. } if *width > 0 => *width as u32,
            DataType::Int { kind, unsigned, .. } => kind.default_width(*unsigned),
            _ => 0,
        }
    }

    /// Whether two types store values alike: equal but for what only affects
    /// display (an integer's width and ZEROFILL).
    /// Whether every value of this type is stored alike as a value of `wider`:
    /// the same storage, or a VARCHAR made longer in the same collation (rows
    /// keep their bytes, so ALTER changes the definition only).
    pub fn widens_in_place(&self, wider: &DataType) -> bool {
        match (self, wider) {
            (
                DataType::VarChar {
                    len: a,
                    collation: c,
                },
                DataType::VarChar {
                    len: b,
                    collation: d,
                },
            ) => c == d && b >= a,
            _ => self.same_storage(wider),
        }
    }

    pub fn same_storage(&self, other: &DataType) -> bool {
        match (self, other) {
            (
                DataType::Int {
                    kind: k1,
                    unsigned: u1,
                    ..
                },
                DataType::Int {
                    kind: k2,
                    unsigned: u2,
                    ..
                },
            ) => k1 == k2 && u1 == u2,
            _ => self == other,
        }
    }

    /// The column type as `SHOW CREATE TABLE` and `DESCRIBE` print it.
    pub fn sql_name(&self) -> String {
        match self {
            DataType::Int {
                kind,
                unsigned,
                zerofill,
                ..
            } => {
                let mut base = format!("{}({})", kind.name(), self.display_width());
                if *unsigned {
                    base.push_str(" unsigned");
                }
                if *zerofill {
                    base.push_str(" zerofill");
                }
                base
            }
            DataType::Float => "float".into(),
            DataType::Double => "double".into(),
            DataType::Decimal { precision, scale } => format!("decimal({precision},{scale})"),
            DataType::Char { len, collation } if collation.is_binary() => format!("binary({len})"),
            DataType::Char { len, .. } => format!("char({len})"),
            DataType::VarChar { len, collation } if collation.is_binary() => {
                format!("varbinary({len})")
            }
            DataType::VarChar { len, .. } => format!("varchar({len})"),
            DataType::Text { kind, collation } if collation.is_binary() => {
                format!("{}blob", kind.prefix())
            }
            DataType::Text { kind, .. } => format!("{}text", kind.prefix()),
            DataType::Date => "date".into(),
            DataType::DateTime { fsp: 0 } => "datetime".into(),
            DataType::DateTime { fsp } => format!("datetime({fsp})"),
            DataType::Timestamp { fsp: 0 } => "timestamp".into(),
            DataType::Timestamp { fsp } => format!("timestamp({fsp})"),
            DataType::Time { fsp: 0 } => "time".into(),
            DataType::Time { fsp } => format!("time({fsp})"),
            DataType::Year => "year(4)".into(),
            DataType::Enum { values, .. } => format!("enum({})", quoted_list(values)),
            DataType::Set { values, .. } => format!("set({})", quoted_list(values)),
            DataType::Bit { width } => format!("bit({width})"),
            DataType::Uuid => "uuid".into(),
            DataType::Inet6 => "inet6".into(),
        }
    }
}

/// `'a','b'` as MariaDB prints ENUM and SET members: quotes doubled, backslash
/// and control characters escaped (`\\`, `\n`, `\r`, `\0`, `\Z`).
fn quoted_list(values: &[String]) -> String {
    let mut out = String::new();
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('\'');
        for ch in v.chars() {
            match ch {
                '\'' => out.push_str("''"),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\0' => out.push_str("\\0"),
                '\x1a' => out.push_str("\\Z"),
                c => out.push(c),
            }
        }
        out.push('\'');
    }
    out
}

/// A column's DEFAULT clause.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum DefaultValue {
    /// A constant, already converted to the column's type (may be NULL).
    Literal(Value),
    /// `CURRENT_TIMESTAMP[(fsp)]` / `NOW()`.
    CurrentTimestamp,
    /// Any other expression (`DEFAULT (a + 1)`, `DEFAULT uuid()`), evaluated for
    /// each inserted row; the text is MariaDB's printed form, without the
    /// parentheses `SHOW CREATE TABLE` adds around some.
    Expr(String),
}

/// A generated column's expression (`AS (expr) VIRTUAL | STORED`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Generated {
    /// MariaDB's printed form of the expression.
    pub expr: String,
    /// STORED / PERSISTENT; VIRTUAL otherwise. Basalt keeps both kinds' values in
    /// the row, recomputed on every write.
    pub stored: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ColumnDef {
    pub name: String,
    pub data_type: DataType,
    pub nullable: bool,
    /// `None`: no DEFAULT clause (implicitly NULL for nullable columns).
    pub default: Option<DefaultValue>,
    pub auto_increment: bool,
    pub on_update_current_timestamp: bool,
    pub comment: String,
    #[serde(default)]
    pub generated: Option<Generated>,
    /// Not part of `SELECT *` nor of an INSERT without a column list.
    #[serde(default)]
    pub invisible: bool,
    /// For a column ALTER TABLE added in place (without rewriting the rows): the
    /// value it has in rows stored before, which lack it. Fixed at the ALTER, so a
    /// later change of the DEFAULT does not change those rows; cleared when a table
    /// copy rewrites every row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absent: Option<Value>,
}

impl ColumnDef {
    pub fn new(name: impl Into<String>, data_type: DataType) -> Self {
        ColumnDef {
            name: name.into(),
            data_type,
            nullable: true,
            default: None,
            auto_increment: false,
            on_update_current_timestamp: false,
            comment: String::new(),
            generated: None,
            invisible: false,
            absent: None,
        }
    }
}

/// One key part of an index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexColumn {
    /// Ordinal into `TableDef::columns`.
    pub column: usize,
    /// Key prefix length in characters (`KEY (name(10))`).
    pub prefix_len: Option<u32>,
    pub descending: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum IndexKind {
    Primary,
    Unique,
    NonUnique,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexDef {
    /// Stable within the table; never reused after DROP INDEX.
    pub id: u32,
    /// `PRIMARY` for the primary key.
    pub name: String,
    pub kind: IndexKind,
    pub columns: Vec<IndexColumn>,
    pub comment: String,
}

impl IndexDef {
    pub fn is_unique(&self) -> bool {
        matches!(self.kind, IndexKind::Primary | IndexKind::Unique)
    }

    pub fn column_ordinals(&self) -> impl Iterator<Item = usize> + '_ {
        self.columns.iter().map(|c| c.column)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EngineKind {
    /// The durable transactional engine (`ENGINE=InnoDB` maps here).
    Basalt,
    /// In-memory tables; contents vanish at restart, as MySQL's MEMORY engine.
    Memory,
    /// MariaDB's SEQUENCE engine: computed `seq_FROM_to_TO` tables, never stored.
    Sequence,
}

impl EngineKind {
    /// The name `SHOW CREATE TABLE` and `information_schema` report.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Basalt => "InnoDB",
            EngineKind::Memory => "MEMORY",
            EngineKind::Sequence => "SEQUENCE",
        }
    }
}

/// Identifies a table for its whole life; never reused.
pub type TableId = u64;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableDef {
    pub id: TableId,
    pub schema: String,
    pub name: String,
    pub columns: Vec<ColumnDef>,
    /// `indexes[0]` is the clustered index: the PRIMARY KEY, or when the table has
    /// none, a hidden index on an internal row id (`IndexDef.columns` empty).
    pub indexes: Vec<IndexDef>,
    pub engine: EngineKind,
    pub charset: Charset,
    pub collation: Collation,
    pub comment: String,
    /// First AUTO_INCREMENT value (the `AUTO_INCREMENT=` table option).
    pub auto_increment_start: u64,
    /// Next id handed to a new index.
    pub next_index_id: u32,
    /// CHECK constraints, in the order MariaDB evaluates and shows them: column-level
    /// ones (in column order), then table-level ones.
    #[serde(default)]
    pub checks: Vec<CheckDef>,
    /// Table options MariaDB records for InnoDB without acting on them
    /// (`MAX_ROWS=`, `PACK_KEYS=`, `ROW_FORMAT=`, ...), as (upper-case name, value)
    /// in the order `SHOW CREATE TABLE` prints them.
    #[serde(default)]
    pub options: Vec<(String, String)>,
    /// FOREIGN KEY constraints of this (child) table, in creation order.
    #[serde(default)]
    pub foreign_keys: Vec<crate::ForeignKeyDef>,
    /// `PARTITION BY ...`; `None` for a table that is not partitioned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitioning: Option<crate::partition::PartitionSpec>,
}

/// A CHECK constraint. `expr` is the condition in MariaDB's printed form (what
/// `SHOW CREATE TABLE` and `information_schema.CHECK_CONSTRAINTS` show); it is
/// parsed and bound again when a statement that writes the table is planned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckDef {
    /// The constraint's name; a column-level check is named after its column.
    pub name: String,
    /// Written in a column definition (or implied by a JSON column).
    pub column_level: bool,
    pub expr: String,
}

impl TableDef {
    pub fn primary(&self) -> &IndexDef {
        &self.indexes[0]
    }

    /// True when the table declared no PRIMARY KEY and rows are keyed by a hidden row id.
    pub fn has_hidden_pk(&self) -> bool {
        self.indexes[0].columns.is_empty()
    }

    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    }

    pub fn index_by_name(&self, name: &str) -> Option<&IndexDef> {
        self.indexes
            .iter()
            .find(|i| i.name.eq_ignore_ascii_case(name) && !i.columns.is_empty())
    }

    pub fn index_by_id(&self, id: u32) -> Option<&IndexDef> {
        self.indexes.iter().find(|i| i.id == id)
    }

    /// Ordinal of the AUTO_INCREMENT column, if any.
    pub fn auto_increment_column(&self) -> Option<usize> {
        self.columns.iter().position(|c| c.auto_increment)
    }

    /// Fully-qualified name as errors print it.
    pub fn qualified_name(&self) -> String {
        format!("{}.{}", self.schema, self.name)
    }
}
