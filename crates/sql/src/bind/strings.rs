//! String literals with a character set introducer (`_latin1'é'`, `_binary x'ff'`),
//! the literal markers of transcoded statement text, and binary strings converted
//! to latin1 text.
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
//!
//! A binary string converted to a string of an 8-bit or wide set (CONVERT ...
//! USING latin1 / ucs2, or a value stored into such a column) is its bytes read as
//! that set's characters, as in MariaDB; since strings are held as UTF-8 that is a
//! conversion ([`CastTarget::FromBinary`]), where into a UTF-8 set or ascii the
//! bytes are kept and checked. The other way, such a string into a binary column
//! or CAST AS BINARY is its bytes in its set ([`CastTarget::CharsetBytes`]).

use super::expr::literal_type;
use super::{Binder, Scope};
use crate::expr::func::TextFn;
use crate::expr::{CastTarget, Expr, Func};
use crate::front::transcode::decode_hex;
use crate::ty::{Class, ExprType};
use basalt_common::charset;
use basalt_common::{Charset, Collation, ColumnDef, MySqlError, Value};
use sqlparser::ast;

type R<T> = Result<T, MySqlError>;

impl Binder<'_> {
    /// Binds `prefix value` (sqlparser's `Expr::Prefixed`).
    pub(super) fn introduced(
        &mut self,
        prefix: &ast::Ident,
        value: &ast::Expr,
    ) -> R<(Expr, ExprType)> {
        let cx = self.cx;
        let (val, coll) = introduced_value(prefix, value, cx.transcoded, cx.connection_collation)
            .map_err(|e| match e {
            Unknown::Charset => MySqlError::bad_field(&prefix.value, self.clause.name()),
            Unknown::Error(e) => e,
        })?;
        let t = literal_type(&val, coll);
        Ok((Expr::Const(val), t))
    }
}

/// Why [`introduced_value`] has no value.
pub(crate) enum Unknown {
    /// The prefix names no character set: it is a column name.
    Charset,
    Error(MySqlError),
}

impl From<MySqlError> for Unknown {
    fn from(e: MySqlError) -> Self {
        Unknown::Error(e)
    }
}

/// The value and collation of `prefix value` (an introduced string or, in
/// `transcoded` text, a literal marker); `connection` is the collation of literals
/// without introducer.
pub(crate) fn introduced_value(
    prefix: &ast::Ident,
    value: &ast::Expr,
    transcoded: bool,
    connection: Collation,
) -> Result<(Value, Collation), Unknown> {
    let syntax = || MySqlError::parse_error(&value.to_string(), 1);
    let ast::Expr::Value(v) = value else {
        return Err(syntax().into());
    };
    let name = prefix.value.strip_prefix('_').unwrap_or(&prefix.value);
    if prefix.quote_style.is_some() {
        let (true, ast::Value::HexStringLiteral(h)) = (transcoded, &v.value) else {
            return Err(MySqlError::parse_error(&format!("{prefix}{value}"), 1).into());
        };
        let coll = if name.is_empty() {
            connection
        } else {
            Charset::from_name(name)
                .ok_or_else(syntax)?
                .default_collation()
        };
        return Ok((Value::Bytes(decode_hex(h).ok_or_else(syntax)?), coll));
    }
    let cs = Charset::from_name(name).ok_or(Unknown::Charset)?;
    let bytes = match &v.value {
        ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
            s.as_bytes().to_vec()
        }
        ast::Value::HexStringLiteral(h) => {
            let b = super::typing::decode_hex(h).ok_or_else(syntax)?;
            let b = charset::aligned(&b, cs).into_owned();
            check_well_formed(&b, cs)?;
            b
        }
        _ => return Err(syntax().into()),
    };
    let val = Value::Bytes(charset::to_internal(&bytes, cs).into_owned());
    Ok((val, cs.default_collation()))
}

impl Binder<'_> {
    /// Binds the value assigned to column `col` (INSERT, UPDATE ... SET, ON
    /// DUPLICATE KEY UPDATE).
    pub(super) fn column_value(
        &mut self,
        e: &ast::Expr,
        scope: &Scope,
        col: &ColumnDef,
    ) -> R<Expr> {
        let (x, t) = self.expr(e, scope, None)?;
        Ok(into_column(x, &t, col))
    }
}

/// `x` (of type `t`) as a value for column `col`: a binary string becomes latin1
/// text for a latin1 column (see the module docs).
impl Binder<'_> {
    /// The target of `CONVERT(x, type [CHARACTER SET cs])` or `CONVERT(x USING
    /// cs)`: a character set given with CHAR makes the result that set's string.
    pub(super) fn convert_target(
        &mut self,
        data_type: Option<&ast::DataType>,
        charset: Option<&ast::ObjectName>,
    ) -> R<CastTarget> {
        let charset = charset.map(|cs| {
            let name = super::object_parts(cs).join(".");
            Charset::from_name(&name).ok_or_else(|| MySqlError::unknown_character_set(&name))
        });
        Ok(match (data_type, charset.transpose()?) {
            (Some(dt), cs) => match (self.cast_target(dt)?, cs) {
                (CastTarget::Char(n, _), Some(c)) => CastTarget::Char(n, c.default_collation()),
                (target, _) => target,
            },
            (None, Some(c)) => CastTarget::Char(None, c.default_collation()),
            (None, None) => return Err(MySqlError::parse_error("CONVERT", 1)),
        })
    }

    /// `a SOUNDS LIKE b` (read as SIMILAR TO, see `front`): `SOUNDEX(a) =
    /// SOUNDEX(b)`.
    pub(super) fn sounds_like(
        &mut self,
        a: &ast::Expr,
        b: &ast::Expr,
        scope: &Scope,
        mut aggs: Option<&mut super::expr::AggCollector>,
    ) -> R<(Expr, ExprType)> {
        let soundex = Func::Text(crate::expr::func::TextFn::Soundex);
        let (x, tx) = self.call(soundex, &[a], scope, aggs.as_deref_mut())?;
        let (y, ty) = self.call(soundex, &[b], scope, aggs)?;
        let coll = super::expr::cmp_collation(&tx, &ty);
        // SOUNDEX is nullable in MariaDB, and so the comparison.
        let cmp = Expr::Cmp(crate::expr::CmpOp::Eq, x.boxed(), y.boxed(), coll);
        Ok((cmp, super::expr::bool_type(true)))
    }
}

pub(crate) fn into_column(x: Expr, t: &ExprType, col: &ColumnDef) -> Expr {
    use basalt_common::DataType as D;
    let numeric = matches!(
        col.data_type,
        D::Int { .. } | D::Decimal { .. } | D::Float | D::Double | D::Year
    );
    if let Some((n, _)) = super::typing::hex_number(&x, t).filter(|_| numeric) {
        // A hex or bit literal stored in a number column is its integer value.
        return n;
    }
    match column_conversion(t, col) {
        Some(c) => Expr::Cast(x.boxed(), c),
        None => x,
    }
}

/// The conversion a value of type `t` needs to be stored in column `col`, if any:
/// binary strings into columns of a set held re-encoded (8-bit and wide sets),
/// strings of such a set into binary columns.
pub(crate) fn column_conversion(t: &ExprType, col: &ColumnDef) -> Option<CastTarget> {
    match col.data_type.collation()? {
        c if !c.charset().is_internal_bytes() && t.is_binary_string() => {
            Some(CastTarget::FromBinary(None, c))
        }
        Collation::Binary => encoded_string(t).map(|cs| CastTarget::CharsetBytes(None, cs)),
        _ => None,
    }
}

/// A fractional DATETIME / TIME converted to a string has its type's digits
/// (MariaDB's `2020-01-01 10:00:00.500` for DATETIME(3)): for CAST / CONVERT to a
/// string and the arguments of [`TEXT_OF_ARGS`].
pub(super) fn temporal_text(x: Expr, t: &ExprType) -> Expr {
    if matches!(t.class, Class::DateTime | Class::Time) && t.decimals > 0 {
        Expr::Cast(x.boxed(), CastTarget::TemporalText(t.decimals))
    } else {
        x
    }
}

/// [`temporal_text`] for a CAST / CONVERT to a string.
pub(super) fn text_cast(x: Expr, t: &ExprType, target: &CastTarget) -> Expr {
    match target {
        CastTarget::Char(..) => temporal_text(x, t),
        _ => x,
    }
}

/// `TIMESTAMP'...'` / `TIME'...'`: the literal's fractional digits are its
/// precision, as MariaDB types it.
pub(super) fn literal_fsp(target: CastTarget, literal: &Expr) -> CastTarget {
    let Expr::Const(Value::Bytes(b)) = literal else {
        return target;
    };
    let digits = b.iter().rposition(|&c| c == b'.').map_or(0, |dot| {
        b[dot + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
            .min(6) as u8
    });
    match target {
        CastTarget::DateTime(_) => CastTarget::DateTime(digits),
        CastTarget::Time(_) => CastTarget::Time(digits),
        other => other,
    }
}

/// Functions that read their arguments as text.
const TEXT_OF_ARGS: [Func; 4] = [Func::Concat, Func::ConcatWs, Func::Length, Func::CharLength];

/// [`temporal_text`] for the arguments of a function in [`TEXT_OF_ARGS`].
pub(super) fn temporal_args(f: Func, args: &mut [Expr], types: &[ExprType]) {
    if !TEXT_OF_ARGS.contains(&f) {
        return;
    }
    for (a, t) in args.iter_mut().zip(types) {
        let x = std::mem::replace(a, Expr::Const(Value::Null));
        *a = temporal_text(x, t);
    }
}

/// Functions of a string's bytes (HEX, LENGTH, OCTET_LENGTH, BIT_LENGTH, ASCII, ORD) see the
/// bytes of the string's own set (a latin1 `é` is one byte, a ucs2 `a` two).
pub(super) fn byte_args(f: Func, args: &mut [Expr], types: &[ExprType]) {
    let of_bytes = matches!(
        f,
        Func::Hex | Func::Length | Func::Ascii | Func::Text(TextFn::BitLength | TextFn::Ord)
    );
    if !of_bytes {
        return;
    }
    if let (Some(a), Some(cs)) = (args.first_mut(), types.first().and_then(encoded_string)) {
        let x = std::mem::replace(a, Expr::Const(Value::Null));
        *a = Expr::Cast(x.boxed(), CastTarget::CharsetBytes(None, cs));
    }
}

/// The set of a string of type `t` whose bytes differ from its internal UTF-8
/// (latin1, the other 8-bit sets, ucs2 / utf16 / utf32).
fn encoded_string(t: &ExprType) -> Option<Charset> {
    let cs = t.collation.charset();
    (t.class == Class::String && !cs.is_internal_bytes()).then_some(cs)
}

/// The target of CAST / CONVERT of a value of type `source` (see the module docs).
pub(super) fn cast_from(target: CastTarget, source: &ExprType) -> CastTarget {
    match target {
        CastTarget::Char(n, c) if !c.charset().is_internal_bytes() && source.is_binary_string() => {
            CastTarget::FromBinary(n, c)
        }
        CastTarget::Char(n, Collation::Binary) => match encoded_string(source) {
            Some(cs) => CastTarget::CharsetBytes(n, cs),
            None => target,
        },
        other => other,
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
        basalt_common::error::code::ER_INVALID_CHARACTER_STRING,
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
