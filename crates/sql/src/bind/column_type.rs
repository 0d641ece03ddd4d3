//! SQL column types to [`DataType`]: integer display widths, lengths, precisions
//! and fractional seconds, ENUM / SET members, with MariaDB's errors.

use basalt_common::{Collation, DataType, IntKind, LobKind, MySqlError};
use sqlparser::ast::{self, DataType as D};

type R<T> = Result<T, MySqlError>;

pub(super) fn len_of(n: &Option<ast::CharacterLength>) -> Option<u64> {
    match n {
        Some(ast::CharacterLength::IntegerLength { length, .. }) => Some(*length),
        _ => None,
    }
}

/// An integer SQL type with its display width (1439 past 255; 0 is the default).
fn int_type(dt: &D, col: &str) -> R<Option<DataType>> {
    let (kind, unsigned, width) = match dt {
        D::TinyInt(w) => (IntKind::Tiny, false, *w),
        D::TinyIntUnsigned(w) => (IntKind::Tiny, true, *w),
        D::UTinyInt => (IntKind::Tiny, true, None),
        D::SmallInt(w) | D::Int2(w) => (IntKind::Small, false, *w),
        D::SmallIntUnsigned(w) | D::Int2Unsigned(w) => (IntKind::Small, true, *w),
        D::USmallInt => (IntKind::Small, true, None),
        D::MediumInt(w) => (IntKind::Medium, false, *w),
        D::MediumIntUnsigned(w) => (IntKind::Medium, true, *w),
        D::Int(w) | D::Integer(w) | D::Int4(w) => (IntKind::Int, false, *w),
        D::IntUnsigned(w) | D::IntegerUnsigned(w) | D::Int4Unsigned(w) => (IntKind::Int, true, *w),
        D::BigInt(w) | D::Int8(w) => (IntKind::Big, false, *w),
        D::BigIntUnsigned(w) | D::Int8Unsigned(w) => (IntKind::Big, true, *w),
        D::UBigInt => (IntKind::Big, true, None),
        _ => return Ok(None),
    };
    let width = width.unwrap_or(0);
    if width > 255 {
        return Err(MySqlError::new(
            1439,
            "42000",
            format!("Display width out of range for '{col}' (max = 255)"),
        ));
    }
    Ok(Some(DataType::Int {
        kind,
        unsigned,
        width: width as u8,
        zerofill: false,
    }))
}

/// SQL type to column type.
pub fn data_type(dt: &D, coll: Collation, col: &str) -> R<DataType> {
    let max_chars = |c: Collation| 65_532 / c.charset().max_len() as u64;
    if let Some(t) = int_type(dt, col)? {
        return Ok(t);
    }
    Ok(match dt {
        D::Zerofill(inner) => match int_type(inner, col)? {
            Some(DataType::Int { kind, width, .. }) => DataType::Int {
                kind,
                unsigned: true,
                width,
                zerofill: true,
            },
            _ => return Err(MySqlError::not_supported(&format!("column type {dt}"))),
        },
        D::Bool | D::Boolean => DataType::Int {
            kind: IntKind::Tiny,
            unsigned: false,
            width: 1,
            zerofill: false,
        },
        D::Decimal(i) | D::Numeric(i) | D::Dec(i) | D::DecimalUnsigned(i) | D::DecUnsigned(i) => {
            decimal(i, col)?
        }
        D::Float(ast::ExactNumberInfo::Precision(p)) if *p > 24 => DataType::Double,
        D::Float(_) | D::FloatUnsigned(_) | D::Float4 => DataType::Float,
        D::Double(_)
        | D::DoubleUnsigned(_)
        | D::DoublePrecision
        | D::DoublePrecisionUnsigned
        | D::Real
        | D::Float8 => DataType::Double,
        D::Char(n) | D::Character(n) => {
            let len = len_of(n).unwrap_or(1);
            if len > 255 {
                return Err(MySqlError::too_big_fieldlength(col, 255));
            }
            DataType::Char {
                len: len as u32,
                collation: coll,
            }
        }
        D::Varchar(n) | D::CharacterVarying(n) | D::CharVarying(n) | D::Nvarchar(n) => {
            let len = len_of(n).ok_or_else(|| MySqlError::parse_error(")", 1))?;
            if len > max_chars(coll) {
                return Err(MySqlError::too_big_fieldlength(col, max_chars(coll)));
            }
            DataType::VarChar {
                len: len as u32,
                collation: coll,
            }
        }
        D::Binary(n) => DataType::Char {
            len: n.unwrap_or(1).min(255) as u32,
            collation: Collation::Binary,
        },
        D::Varbinary(n) => {
            let len = match n {
                Some(ast::BinaryLength::IntegerLength { length }) => *length,
                _ => return Err(MySqlError::parse_error(")", 1)),
            };
            if len > 65_532 {
                return Err(MySqlError::too_big_fieldlength(col, 65_532));
            }
            DataType::VarChar {
                len: len as u32,
                collation: Collation::Binary,
            }
        }
        D::Text => DataType::Text {
            kind: LobKind::Normal,
            collation: coll,
        },
        D::TinyText => DataType::Text {
            kind: LobKind::Tiny,
            collation: coll,
        },
        D::MediumText => DataType::Text {
            kind: LobKind::Medium,
            collation: coll,
        },
        D::LongText => DataType::Text {
            kind: LobKind::Long,
            collation: coll,
        },
        // MariaDB's JSON: LONGTEXT in utf8mb4_bin with an implicit
        // CHECK (json_valid(col)) (see `check::collect`).
        D::JSON => DataType::Text {
            kind: LobKind::Long,
            collation: Collation::Utf8mb4Bin,
        },
        D::Blob(None) => DataType::Text {
            kind: LobKind::Normal,
            collation: Collation::Binary,
        },
        D::Blob(Some(n)) => DataType::Text {
            kind: lob_for(*n, 1),
            collation: Collation::Binary,
        },
        D::Custom(name, args) if custom_is(name, "text") && args.len() == 1 => {
            let ast::TypeModifier::Number(n, false) = &args[0] else {
                return Err(syntax_near(dt));
            };
            let n: u64 = n.parse().map_err(|_| syntax_near(dt))?;
            DataType::Text {
                kind: lob_for(n, coll.charset().max_len() as u64),
                collation: coll,
            }
        }
        D::TinyBlob => DataType::Text {
            kind: LobKind::Tiny,
            collation: Collation::Binary,
        },
        D::MediumBlob => DataType::Text {
            kind: LobKind::Medium,
            collation: Collation::Binary,
        },
        D::LongBlob => DataType::Text {
            kind: LobKind::Long,
            collation: Collation::Binary,
        },
        D::Enum(members, None) => {
            let names = members
                .iter()
                .map(|m| match m {
                    ast::EnumMember::Name(n) => Ok(n.clone()),
                    ast::EnumMember::NamedValue(..) => Err(syntax_near(dt)),
                })
                .collect::<R<Vec<_>>>()?;
            DataType::Enum {
                values: super::enums::members(names, coll, col, false)?,
                collation: coll,
            }
        }
        D::Set(members) => DataType::Set {
            values: super::enums::members(members.clone(), coll, col, true)?,
            collation: coll,
        },
        D::Date => DataType::Date,
        D::Datetime(p) => DataType::DateTime { fsp: fsp(*p, col)? },
        D::Timestamp(p, _) => DataType::Timestamp { fsp: fsp(*p, col)? },
        D::Time(p, _) => DataType::Time { fsp: fsp(*p, col)? },
        D::Custom(name, _)
            if super::object_parts(name)
                .join(".")
                .eq_ignore_ascii_case("year") =>
        {
            DataType::Year
        }
        D::Bit(w) => match w.unwrap_or(1) {
            w @ 1..=64 => DataType::Bit { width: w as u8 },
            _ => {
                return Err(MySqlError::new(
                    1439,
                    "42000",
                    format!("Display width out of range for '{col}' (max = 64)"),
                ))
            }
        },
        D::Uuid => DataType::Uuid,
        D::Custom(name, args) if args.is_empty() && custom_is(name, "uuid") => DataType::Uuid,
        D::Custom(name, args) if args.is_empty() && custom_is(name, "inet6") => DataType::Inet6,
        D::Custom(name, args) if args.is_empty() => {
            return Err(MySqlError::new(
                4161,
                "HY000",
                format!("Unknown data type: '{name}'"),
            ))
        }
        other => return Err(MySqlError::not_supported(&format!("column type {other}"))),
    })
}

/// The smallest TEXT / BLOB type that holds `n` characters of `octets` bytes each
/// (MariaDB's reading of `TEXT(n)` and `BLOB(n)`).
fn lob_for(n: u64, octets: u64) -> LobKind {
    match n.saturating_mul(octets) {
        0..=255 => LobKind::Tiny,
        256..=65_535 => LobKind::Normal,
        65_536..=16_777_215 => LobKind::Medium,
        _ => LobKind::Long,
    }
}

fn custom_is(name: &ast::ObjectName, what: &str) -> bool {
    super::object_parts(name)
        .join(".")
        .eq_ignore_ascii_case(what)
}

fn syntax_near(dt: &D) -> MySqlError {
    MySqlError::parse_error(&dt.to_string(), 1)
}

fn fsp(p: Option<u64>, col: &str) -> R<u8> {
    match p {
        None => Ok(0),
        Some(x) if x <= 6 => Ok(x as u8),
        Some(x) => Err(MySqlError::new(
            1426,
            "42000",
            format!("Too big precision {x} specified for '{col}'. Maximum is 6"),
        )),
    }
}

fn decimal(i: &ast::ExactNumberInfo, col: &str) -> R<DataType> {
    let (p, s) = match i {
        ast::ExactNumberInfo::None => (10, 0),
        ast::ExactNumberInfo::Precision(p) => (*p, 0),
        ast::ExactNumberInfo::PrecisionAndScale(p, s) => (*p, (*s).max(0) as u64),
    };
    if p > basalt_common::decimal::MAX_PRECISION as u64 {
        return Err(MySqlError::new(
            1426,
            "42000",
            format!(
                "Too big precision specified for '{col}'. Maximum is {}",
                basalt_common::decimal::MAX_PRECISION
            ),
        ));
    }
    if s > basalt_common::decimal::MAX_SCALE as u64 {
        return Err(MySqlError::too_big_scale(
            s as u32,
            col,
            basalt_common::decimal::MAX_SCALE,
        ));
    }
    if s > p {
        return Err(MySqlError::m_bigger_than_d(col));
    }
    Ok(DataType::Decimal {
        precision: p.max(1) as u8,
        scale: s as u8,
    })
}
