//! `ALTER TABLE ... CONVERT TO CHARACTER SET cs [COLLATE c]`: every character
//! column (CHAR, VARCHAR, TEXT, ENUM, SET; not the binary string types) takes the
//! new collation, as MariaDB does:
//! - a TEXT column keeps the number of characters it can hold, so it may become a
//!   larger TEXT type (latin1 TEXT to utf8mb4 is MEDIUMTEXT);
//! - a VARCHAR whose characters no longer fit in 65,532 bytes is 1074 in strict
//!   mode, else a TEXT type with note 1246;
//! - to `binary`, CHAR / VARCHAR / TEXT become BINARY / VARBINARY / BLOB.
//!
//! The columns are converted after every other clause of the statement, so a
//! column a MODIFY of the same statement defines is converted too.

use crate::session::ctx::SessionCtx;
use basalt_common::types::LobKind;
use basalt_common::{Charset, Collation, ColumnDef, DataType, MySqlError};

type R<T> = Result<T, MySqlError>;

/// The collation CONVERT TO names: `charset` (None: DEFAULT, the session's
/// `collation_database`) and an optional COLLATE of that character set.
pub(super) fn target(
    charset: Option<&str>,
    collation: Option<&str>,
    cx: &SessionCtx,
) -> R<Collation> {
    let default = match charset {
        Some(n) => Charset::from_name(n)
            .ok_or_else(|| MySqlError::unknown_character_set(n))?
            .default_collation(),
        None => database_collation(cx),
    };
    let Some(c) = collation else {
        return Ok(default);
    };
    let coll = Collation::from_name(c).ok_or_else(|| MySqlError::unknown_collation(c))?;
    if coll.charset() != default.charset() {
        return Err(MySqlError::collation_charset_mismatch(
            coll.name(),
            default.charset().name(),
        ));
    }
    Ok(coll)
}

/// `@@collation_database`, which `CHARACTER SET DEFAULT` stands for.
fn database_collation(cx: &SessionCtx) -> Collation {
    match cx.vars.get("collation_database") {
        Some(basalt_common::Value::Bytes(b)) => Collation::from_name(&String::from_utf8_lossy(b))
            .unwrap_or(cx.engine.config.collation_server),
        _ => cx.engine.config.collation_server,
    }
}

/// `col` converted to collation `to`; `None` when it holds no characters or
/// already has that collation.
pub(super) fn column(col: &ColumnDef, to: Collation, cx: &mut SessionCtx) -> R<Option<DataType>> {
    let Some(from) = col.data_type.collation() else {
        return Ok(None);
    };
    // Binary strings (and ENUM / SET of the binary set) stay as they are.
    if from == to || from == Collation::Binary {
        return Ok(None);
    }
    let per_char = |c: Collation| u64::from(c.charset().max_len());
    let dt = match &col.data_type {
        DataType::Char { len, .. } => DataType::Char {
            len: *len,
            collation: to,
        },
        DataType::VarChar { len, .. } => {
            let bytes = u64::from(*len) * per_char(to);
            if bytes <= 65_532 {
                DataType::VarChar {
                    len: *len,
                    collation: to,
                }
            } else if cx.mode.strict {
                return Err(MySqlError::too_big_fieldlength(
                    &col.name,
                    65_532 / per_char(to),
                ));
            } else {
                cx.note(
                    1246,
                    format!("Converting column '{}' from VARCHAR to TEXT", col.name),
                );
                DataType::Text {
                    kind: lob_for(bytes),
                    collation: to,
                }
            }
        }
        DataType::Text { kind, .. } => {
            let chars = kind.max_len() / per_char(from);
            DataType::Text {
                kind: lob_for(chars * per_char(to)),
                collation: to,
            }
        }
        DataType::Enum { values, .. } => DataType::Enum {
            values: values.clone(),
            collation: to,
        },
        DataType::Set { values, .. } => DataType::Set {
            values: values.clone(),
            collation: to,
        },
        _ => return Ok(None),
    };
    Ok(Some(dt))
}

/// The smallest TEXT / BLOB type that holds `bytes`.
fn lob_for(bytes: u64) -> LobKind {
    [LobKind::Tiny, LobKind::Normal, LobKind::Medium]
        .into_iter()
        .find(|k| bytes <= k.max_len())
        .unwrap_or(LobKind::Long)
}
