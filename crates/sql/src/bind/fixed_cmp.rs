//! Comparison operands of BIT, UUID and INET6 columns, as MariaDB converts them:
//! a binary string (`b'101'`, `x'05'`) against a BIT is its big-endian number; a
//! string against a UUID or INET6 is read as one (so `u = 'ABCD...'` matches the
//! canonical text, and invalid text is NULL with warning 1292).

use crate::expr::cast::CastTarget;
use crate::expr::Expr;
use crate::ty::{Class, ExprType};
use basalt_common::ColumnType;

/// `(x, y)` with the side that needs it converted to the other's type.
pub fn adapt(x: Expr, tx: &ExprType, y: Expr, ty: &ExprType) -> (Expr, Expr) {
    let x2 = convert(x, tx, ty);
    let y2 = convert(y, ty, tx);
    (x2, y2)
}

fn convert(e: Expr, t: &ExprType, other: &ExprType) -> Expr {
    if let Some(k) = other.fixedbin {
        if t.class == Class::String && t.fixedbin.is_none() {
            return Expr::Cast(Box::new(e), CastTarget::Fixed(k));
        }
    }
    if other.column_type == Some(ColumnType::Bit) && t.is_binary_string() {
        return Expr::Cast(Box::new(e), CastTarget::BitNumber);
    }
    e
}
