//! String literals with a character set introducer (`_latin1'é'`, `_binary x'ff'`)
//! and the literal markers of transcoded statement text.
//!
//! An introducer says which character set the literal's bytes are in; the value is
//! their internal form (see `basalt_common::charset`) with the set's default
//! collation. The bytes of a quoted string are those of the statement text (the
//! text is the client's own bytes whenever it was not transcoded); a hex string
//! with an introducer must be well formed in its set (MariaDB's 1300), a quoted
//! one need not (it is checked when it goes into a column).
//!
//! A literal marker (`` `_`X'..' ``, `` `_cs`X'..' ``, see
//! [`crate::front::transcode`]) carries internal bytes already converted, and is a
//! literal only in transcoded text; anywhere else it is the syntax error it is in
//! MySQL.

use super::expr::literal_type;
use super::Binder;
use crate::expr::Expr;
use crate::front::transcode::decode_hex;
use crate::ty::ExprType;
use basalt_common::charset;
use basalt_common::{Charset, MySqlError, Value};
use sqlparser::ast;

type R<T> = Result<T, MySqlError>;

impl Binder<'_> {
    /// Binds `prefix value` (sqlparser's `Expr::Prefixed`).
    pub(super) fn introduced(
        &mut self,
        prefix: &ast::Ident,
        value: &ast::Expr,
    ) -> R<(Expr, ExprType)> {
        let syntax = || MySqlError::parse_error(&value.to_string(), 1);
        let ast::Expr::Value(v) = value else {
            return Err(syntax());
        };
        let name = prefix.value.strip_prefix('_').unwrap_or(&prefix.value);
        if prefix.quote_style.is_some() {
            let (true, ast::Value::HexStringLiteral(h)) = (self.cx.transcoded, &v.value) else {
                return Err(MySqlError::parse_error(&format!("{prefix}{value}"), 1));
            };
            let coll = if name.is_empty() {
                self.cx.connection_collation
            } else {
                Charset::from_name(name)
                    .ok_or_else(syntax)?
                    .default_collation()
            };
            let val = Value::Bytes(decode_hex(h).ok_or_else(syntax)?);
            let t = literal_type(&val, coll);
            return Ok((Expr::Const(val), t));
        }
        let cs = Charset::from_name(name)
            .ok_or_else(|| MySqlError::bad_field(&prefix.value, self.clause.name()))?;
        let bytes = match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                s.as_bytes().to_vec()
            }
            ast::Value::HexStringLiteral(h) => {
                let b = super::typing::decode_hex(h).ok_or_else(syntax)?;
                check_well_formed(&b, cs)?;
                b
            }
            _ => return Err(syntax()),
        };
        let val = Value::Bytes(charset::to_internal(&bytes, cs).into_owned());
        let t = literal_type(&val, cs.default_collation());
        Ok((Expr::Const(val), t))
    }
}

/// MariaDB's 1300 for a hex literal whose introducer's set does not hold its
/// bytes: the hex digits of (at most three) bytes from the first bad one.
fn check_well_formed(b: &[u8], cs: Charset) -> R<()> {
    if charset::is_well_formed(b, cs) {
        return Ok(());
    }
    let start = charset::well_formed_len(b, cs);
    let hex: String = b[start..]
        .iter()
        .take(3)
        .map(|x| format!("{x:02X}"))
        .collect();
    Err(MySqlError::new(
        1300,
        "HY000",
        format!("Invalid {} character string: '{hex}'", cs.name()),
    ))
}

/// The column name MariaDB gives a string constant: its text, with bytes that are
/// not UTF-8 written as `\xHH`.
pub fn display_name(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len());
    for chunk in b.utf8_chunks() {
        out.push_str(chunk.valid());
        for x in chunk.invalid() {
            out.push_str(&format!("\\x{x:02X}"));
        }
    }
    out
}
