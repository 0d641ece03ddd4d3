//! Result-set column metadata, in the terms of the MySQL protocol.
//!
//! The SQL layer describes each result column with a [`ColumnMeta`]; the protocol layer
//! encodes it as a ColumnDefinition41 packet and uses `column_type` to encode values in
//! the binary row format.

use crate::collation::Collation;
use crate::types::{DataType, IntKind, LobKind};

/// `MYSQL_TYPE_*` codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ColumnType {
    Decimal = 0x00,
    Tiny = 0x01,
    Short = 0x02,
    Long = 0x03,
    Float = 0x04,
    Double = 0x05,
    Null = 0x06,
    Timestamp = 0x07,
    LongLong = 0x08,
    Int24 = 0x09,
    Date = 0x0a,
    Time = 0x0b,
    DateTime = 0x0c,
    Year = 0x0d,
    VarChar = 0x0f,
    Bit = 0x10,
    NewDecimal = 0xf6,
    Enum = 0xf7,
    Set = 0xf8,
    TinyBlob = 0xf9,
    MediumBlob = 0xfa,
    LongBlob = 0xfb,
    Blob = 0xfc,
    VarString = 0xfd,
    String = 0xfe,
    Geometry = 0xff,
}

impl ColumnType {
    pub fn from_u8(v: u8) -> Option<ColumnType> {
        use ColumnType::*;
        Some(match v {
            0x00 => Decimal,
            0x01 => Tiny,
            0x02 => Short,
            0x03 => Long,
            0x04 => Float,
            0x05 => Double,
            0x06 => Null,
            0x07 => Timestamp,
            0x08 => LongLong,
            0x09 => Int24,
            0x0a => Date,
            0x0b => Time,
            0x0c => DateTime,
            0x0d => Year,
            0x0f => VarChar,
            0x10 => Bit,
            0xf6 => NewDecimal,
            0xf7 => Enum,
            0xf8 => Set,
            0xf9 => TinyBlob,
            0xfa => MediumBlob,
            0xfb => LongBlob,
            0xfc => Blob,
            0xfd => VarString,
            0xfe => String,
            0xff => Geometry,
            _ => return None,
        })
    }
}

/// Column definition flags (`*_FLAG` in mysql_com.h).
pub mod flags {
    pub const NOT_NULL: u16 = 1;
    pub const PRI_KEY: u16 = 2;
    pub const UNIQUE_KEY: u16 = 4;
    pub const MULTIPLE_KEY: u16 = 8;
    pub const BLOB: u16 = 16;
    pub const UNSIGNED: u16 = 32;
    pub const ZEROFILL: u16 = 64;
    pub const BINARY: u16 = 128;
    pub const ENUM: u16 = 256;
    pub const AUTO_INCREMENT: u16 = 512;
    pub const TIMESTAMP: u16 = 1024;
    pub const SET: u16 = 2048;
    pub const NO_DEFAULT_VALUE: u16 = 4096;
    pub const ON_UPDATE_NOW: u16 = 8192;
    pub const NUM: u16 = 32768;
}

/// One column of a result set.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnMeta {
    pub schema: String,
    /// Table alias as written in the query (empty for expressions).
    pub table: String,
    pub org_table: String,
    /// Column alias / expression text as the client shows it.
    pub name: String,
    pub org_name: String,
    /// Collation id of the values (63 = binary for numbers).
    pub charset: u16,
    /// Maximum display length in bytes.
    pub length: u32,
    pub column_type: ColumnType,
    pub flags: u16,
    /// Digits after the point (DECIMAL), fractional seconds (temporal), 31 for
    /// floating point without a declared scale, 0 otherwise.
    pub decimals: u8,
    /// The character set text values are sent in, when it is not their internal
    /// UTF-8 (see `crate::charset`): latin1, ascii or utf8mb3 results, and latin1
    /// values under `character_set_results = binary`. `None`: sent as held.
    pub text_as: Option<crate::collation::Charset>,
}

impl ColumnMeta {
    /// An expression column with no table.
    pub fn expr(name: impl Into<String>, column_type: ColumnType, length: u32) -> Self {
        let binary = !matches!(
            column_type,
            ColumnType::VarString | ColumnType::String | ColumnType::VarChar | ColumnType::Blob
        );
        ColumnMeta {
            schema: String::new(),
            table: String::new(),
            org_table: String::new(),
            name: name.into(),
            org_name: String::new(),
            charset: if binary {
                Collation::Binary.id()
            } else {
                Collation::Utf8mb4GeneralCi.id()
            },
            length,
            column_type,
            flags: if binary { flags::BINARY } else { 0 },
            // 31: floating point without a declared scale (printed shortest).
            decimals: if matches!(column_type, ColumnType::Float | ColumnType::Double) {
                31
            } else {
                0
            },
            text_as: None,
        }
    }

    /// A string-valued expression column (`SHOW` output, `@@version`).
    pub fn text(name: impl Into<String>, length: u32) -> Self {
        ColumnMeta::expr(name, ColumnType::VarString, length)
    }

    pub fn is_unsigned(&self) -> bool {
        self.flags & flags::UNSIGNED != 0
    }
}

/// Protocol type, display length (bytes) and decimals of a table column's SQL type.
pub fn describe_type(dt: &DataType) -> (ColumnType, u32, u8) {
    match dt {
        DataType::Int { kind, .. } => {
            let ct = match kind {
                IntKind::Tiny => ColumnType::Tiny,
                IntKind::Small => ColumnType::Short,
                IntKind::Medium => ColumnType::Int24,
                IntKind::Int => ColumnType::Long,
                IntKind::Big => ColumnType::LongLong,
            };
            (ct, dt.display_width(), 0)
        }
        DataType::Float => (ColumnType::Float, 12, 31),
        DataType::Double => (ColumnType::Double, 22, 31),
        DataType::Decimal { precision, scale } => {
            let len = *precision as u32 + if *scale > 0 { 1 } else { 0 } + 1;
            (ColumnType::NewDecimal, len, *scale)
        }
        DataType::Char { len, collation } => {
            (ColumnType::String, len * collation.charset().max_len(), 0)
        }
        DataType::VarChar { len, collation } => (
            ColumnType::VarString,
            len * collation.charset().max_len(),
            0,
        ),
        DataType::Text { kind, .. } => {
            let len = kind.max_len().min(u32::MAX as u64) as u32;
            let _ = LobKind::Normal;
            (ColumnType::Blob, len, 0)
        }
        DataType::Date => (ColumnType::Date, 10, 0),
        DataType::DateTime { fsp } => (
            ColumnType::DateTime,
            19 + if *fsp > 0 { *fsp as u32 + 1 } else { 0 },
            *fsp,
        ),
        DataType::Timestamp { fsp } => (
            ColumnType::Timestamp,
            19 + if *fsp > 0 { *fsp as u32 + 1 } else { 0 },
            *fsp,
        ),
        DataType::Time { fsp } => (
            ColumnType::Time,
            10 + if *fsp > 0 { *fsp as u32 + 1 } else { 0 },
            *fsp,
        ),
        DataType::Year => (ColumnType::Year, 4, 0),
        // MariaDB sends ENUM and SET columns as STRING (with ENUM_FLAG / SET_FLAG).
        DataType::Enum { collation, .. } | DataType::Set { collation, .. } => {
            let chars = dt.char_len().unwrap_or(0) as u32;
            (ColumnType::String, chars * collation.charset().max_len(), 0)
        }
        DataType::Bit { width } => (ColumnType::Bit, *width as u32, 0),
        // MariaDB sends UUID and INET6 as STRING of their text length in characters.
        DataType::Uuid => (ColumnType::String, 36, 0),
        DataType::Inet6 => (ColumnType::String, 39, 0),
    }
}
