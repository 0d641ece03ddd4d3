//! Static typing helpers of the binder: result types of arithmetic, column flags
//! for result metadata, literal decoding.

use crate::expr::{BitOp, Expr};
use crate::ty::{Class, ExprType};
use crate::value::arith::ArithOp;
use basalt_common::Value;
use sqlparser::ast::BinaryOperator as B;

type Bound = (Expr, ExprType);

pub fn column_flags(def: &basalt_common::TableDef, ci: usize) -> u16 {
    use basalt_common::column::flags;
    use basalt_common::IndexKind;
    let col = &def.columns[ci];
    let mut f = 0;
    if !col.nullable {
        f |= flags::NOT_NULL;
    }
    if col.auto_increment {
        f |= flags::AUTO_INCREMENT;
    }
    if col.data_type.is_unsigned() {
        f |= flags::UNSIGNED;
    }
    if col.data_type.is_lob() {
        f |= flags::BLOB;
    }
    if matches!(
        col.data_type,
        basalt_common::DataType::Int { zerofill: true, .. }
    ) {
        f |= flags::ZEROFILL;
    }
    match &col.data_type {
        basalt_common::DataType::Enum { collation, .. } => f |= flags::ENUM | binsort(*collation),
        basalt_common::DataType::Set { collation, .. } => f |= flags::SET | binsort(*collation),
        basalt_common::DataType::Char { collation, .. }
        | basalt_common::DataType::VarChar { collation, .. }
        | basalt_common::DataType::Text { collation, .. } => f |= binsort(*collation),
        _ => {}
    }
    if col.data_type.collation().is_some_and(|c| c.is_binary())
        || matches!(
            col.data_type,
            basalt_common::DataType::Uuid | basalt_common::DataType::Inet6
        )
    {
        f |= flags::BINARY;
    }
    if col.default.is_none() && !col.nullable && !col.auto_increment {
        f |= flags::NO_DEFAULT_VALUE;
    }
    for idx in def.indexes.iter().filter(|i| !i.columns.is_empty()) {
        let pos = idx.columns.iter().position(|c| c.column == ci);
        let Some(pos) = pos else { continue };
        f |= 16384; // PART_KEY
        match idx.kind {
            IndexKind::Primary => f |= flags::PRI_KEY,
            IndexKind::Unique if idx.columns.len() == 1 => f |= flags::UNIQUE_KEY,
            _ if pos == 0 => f |= flags::MULTIPLE_KEY,
            _ => {}
        }
    }
    f
}

/// MariaDB marks a string column of a `_bin` collation BINARY as well.
fn binsort(c: basalt_common::Collation) -> u16 {
    if c.name().ends_with("_bin") {
        basalt_common::column::flags::BINARY
    } else {
        0
    }
}

pub fn bit(op: BitOp, x: Expr, y: Expr, nullable: bool) -> Bound {
    (
        Expr::Bit(op, x.boxed(), y.boxed()),
        ExprType::int(21).unsigned().nullable(nullable),
    )
}

/// Result type of arithmetic, MariaDB's rules.
pub fn arith_bound(op: ArithOp, x: Expr, y: Expr, tx: &ExprType, ty: &ExprType) -> Bound {
    let (tx, ty) = (&tx.numeric_view(), &ty.numeric_view());
    let nullable =
        tx.nullable || ty.nullable || matches!(op, ArithOp::Div | ArithOp::Mod | ArithOp::IntDiv);
    let exact = |t: &ExprType| matches!(t.class, Class::Int | Class::Decimal | Class::Null);
    let t = if op == ArithOp::IntDiv {
        int_div_type(tx, ty)
    } else if !exact(tx) || !exact(ty) {
        let mut d = ExprType::double();
        d.len = (tx.len.max(ty.len) + 1).clamp(22, 23);
        d
    } else if tx.class == Class::Decimal || ty.class == Class::Decimal || op == ArithOp::Div {
        let s1 = if tx.class == Class::Decimal {
            tx.decimals
        } else {
            0
        };
        let s2 = if ty.class == Class::Decimal {
            ty.decimals
        } else {
            0
        };
        let i1 = tx.precision().saturating_sub(s1 as u32);
        let i2 = ty.precision().saturating_sub(s2 as u32);
        match op {
            ArithOp::Mul => ExprType::decimal(i1 + i2 + (s1 + s2) as u32, (s1 + s2).min(30)),
            ArithOp::Div => {
                let s = (s1 + 4).min(30);
                ExprType::decimal(i1 + s2 as u32 + s as u32, s)
            }
            ArithOp::Mod => ExprType::decimal(i1.max(i2) + s1.max(s2) as u32, s1.max(s2)),
            _ => {
                let s = s1.max(s2);
                ExprType::decimal(i1.max(i2) + 1 + s as u32, s)
            }
        }
    } else {
        // MariaDB sizes integer results by precision up to DECIMAL's 65 digits
        // (`BIGINT * INT` is 30 long), though values stay 64-bit.
        let (p1, p2) = (tx.precision(), ty.precision());
        let p = match op {
            ArithOp::Mul => p1 + p2,
            ArithOp::Mod => p1.max(p2),
            _ => p1.max(p2) + 1,
        }
        .min(65);
        if tx.unsigned || ty.unsigned {
            ExprType::uint_p(p)
        } else {
            ExprType::int_p(p)
        }
    };
    (Expr::Arith(op, x.boxed(), y.boxed()), t.nullable(nullable))
}

/// `x DIV y`: as many digits as the integer part of `x` (at most 21), unsigned
/// when either operand is (MariaDB's `Item_func_int_div`).
fn int_div_type(tx: &ExprType, ty: &ExprType) -> ExprType {
    let digits = match tx.class {
        Class::Int => tx.precision(),
        Class::Decimal => tx.precision().saturating_sub(tx.decimals as u32),
        _ => tx.len,
    };
    let t = ExprType::int(digits.clamp(1, 21));
    if tx.unsigned || ty.unsigned {
        t.unsigned()
    } else {
        t
    }
}

/// A hex or bit literal (`0x41`, `b'1000001'`) where a number is wanted: its
/// bytes as an unsigned big-endian integer (the last 8 when longer), as
/// MariaDB's hybrid literal gives it (`0x41 + 0` is 65). `None` for any other
/// expression.
pub fn hex_number(x: &Expr, t: &ExprType) -> Option<Bound> {
    let Expr::Const(Value::Bytes(b)) = x else {
        return None;
    };
    if !t.hex_number {
        return None;
    }
    let bytes = &b[b.len().saturating_sub(8)..];
    let n = bytes.iter().fold(0u64, |acc, &c| (acc << 8) | u64::from(c));
    // Sized by the largest value of as many bytes (0x41: 255, 3 digits).
    let max = u64::MAX >> (64 - 8 * bytes.len().max(1));
    let ty = ExprType::uint_p(max.to_string().len() as u32);
    Some((Expr::Const(Value::UInt(n)), ty))
}

/// The bytes of a hex literal's digits (an odd count has an implied leading 0:
/// `0x123` is `0x0123`); `None` if anything is not a hex digit. Works on bytes:
/// the digits of `x'...'` are whatever the client sent between the quotes.
pub fn decode_hex(h: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let b = h.as_bytes();
    let (lead, pairs) = b.split_at(b.len() % 2);
    let mut out = Vec::with_capacity(b.len().div_ceil(2));
    if let Some(&c) = lead.first() {
        out.push(digit(c)?);
    }
    for p in pairs.chunks(2) {
        out.push((digit(p[0])? << 4) | digit(p[1])?);
    }
    Some(out)
}

pub fn decode_bits(b: &str) -> Option<Vec<u8>> {
    if !b.bytes().all(|c| c == b'0' || c == b'1') {
        return None;
    }
    let n = u128::from_str_radix(if b.is_empty() { "0" } else { b }, 2).ok()?;
    let bytes = n.to_be_bytes();
    let len = b.len().div_ceil(8).max(1);
    Some(bytes[16 - len..].to_vec())
}

/// The hex and bit literals of an IN or BETWEEN that also has a number: numbers
/// (`0x41 IN (65, 66)` compares numbers, as MariaDB's aggregated comparison).
pub(super) fn hex_in_numeric_list(all: &mut [Bound]) {
    if !all.iter().any(|(_, t)| t.class.is_numeric()) {
        return;
    }
    for (b, t) in all.iter_mut() {
        if let Some((n, nt)) = hex_number(b, t) {
            (*b, *t) = (n, nt);
        }
    }
}

/// Whether the hex literal starting at `at` in `text` is written `0x..`.
pub(super) fn written_0x(text: &str, at: sqlparser::tokenizer::Location) -> bool {
    let Some(line) = text.split('\n').nth((at.line as usize).wrapping_sub(1)) else {
        return false;
    };
    let start: String = line
        .chars()
        .skip((at.column as usize).saturating_sub(1))
        .take(2)
        .collect();
    start.eq_ignore_ascii_case("0x")
}

/// Hex and bit literals as numbers where MariaDB reads them so: operands of
/// arithmetic and bit operators, and compared with a number.
pub(super) fn hex_operands(op: &B, x: Bound, y: Bound) -> (Bound, Bound) {
    let arithmetic = matches!(
        op,
        B::Plus
            | B::Minus
            | B::Multiply
            | B::Divide
            | B::Modulo
            | B::MyIntegerDivide
            | B::DuckIntegerDivide
            | B::BitwiseAnd
            | B::BitwiseOr
            | B::BitwiseXor
            | B::PGBitwiseShiftLeft
            | B::PGBitwiseShiftRight
    );
    let comparison = super::expr::is_comparison(op) || matches!(op, B::Spaceship);
    let as_number = |b: Bound, other: &ExprType| {
        if arithmetic || (comparison && other.class.is_numeric()) {
            if let Some(n) = hex_number(&b.0, &b.1) {
                return n;
            }
        }
        b
    };
    let (tx, ty) = (x.1.clone(), y.1.clone());
    (as_number(x, &ty), as_number(y, &tx))
}

#[cfg(test)]
mod tests {
    use super::decode_hex;

    #[test]
    fn hex_digits_decode_and_anything_else_is_refused() {
        assert_eq!(decode_hex("0aFf"), Some(vec![0x0a, 0xff]));
        assert_eq!(decode_hex("123"), Some(vec![0x01, 0x23]));
        assert_eq!(decode_hex(""), Some(vec![]));
        assert_eq!(decode_hex("0g"), None);
        assert_eq!(decode_hex("+f"), None);
        // Multi-byte characters among the digits (x'\u{e9}0' from a client) were
        // sliced mid-character and panicked the connection's thread.
        assert_eq!(decode_hex("\u{e9}0"), None);
        assert_eq!(decode_hex("0\u{e9}"), None);
        assert_eq!(decode_hex("\u{fffd}"), None);
        assert_eq!(decode_hex("a\u{1f600}"), None);
    }
}
