//! Arithmetic with MySQL's result kinds: integers stay integers (unsigned when an
//! operand is unsigned) and fail with errno 1690 on overflow; DECIMAL when an operand
//! is DECIMAL or for `/` of exact numbers (with `div_precision_increment` more
//! digits); DOUBLE when an operand is a double or a string. Division by zero is
//! NULL (the caller adds the warning or, in strict DML, the error).

use super::{to_num, Num};
use basalt_common::{Decimal, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    IntDiv,
    Mod,
}

impl ArithOp {
    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::IntDiv => "DIV",
            ArithOp::Mod => "%",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithError {
    /// Integer out of range: `unsigned` selects BIGINT UNSIGNED in the message.
    IntOverflow {
        unsigned: bool,
    },
    DecimalOverflow,
    DoubleOverflow,
    DivisionByZero,
}

/// `a op b` for non-NULL operands. `bad_string` is called with each string operand
/// that is not entirely a number (for the truncation warning).
pub fn arith(
    op: ArithOp,
    a: &Value,
    b: &Value,
    div_increment: u8,
    bad_string: &mut dyn FnMut(&Value),
) -> Result<Value, ArithError> {
    let (x, cx) = to_num(a);
    let (y, cy) = to_num(b);
    if !cx {
        bad_string(a);
    }
    if !cy {
        bad_string(b);
    }
    let to_double = matches!(a, Value::Bytes(_)) || matches!(b, Value::Bytes(_));
    let (x, y) = if to_double {
        (Num::Dbl(x.to_f64()), Num::Dbl(y.to_f64()))
    } else {
        (x, y)
    };
    num_arith(op, x, y, div_increment).map(Num::into_value)
}

/// Arithmetic on numbers (see the module docs for result kinds).
pub fn num_arith(op: ArithOp, x: Num, y: Num, div_increment: u8) -> Result<Num, ArithError> {
    match (x, y) {
        (Num::Dbl(_), _) | (_, Num::Dbl(_)) => dbl(op, x.to_f64(), y.to_f64()),
        (Num::Dec(_), _) | (_, Num::Dec(_)) => {
            dec(op, x.to_decimal(), y.to_decimal(), div_increment)
        }
        _ if op == ArithOp::Div => dec(op, x.to_decimal(), y.to_decimal(), div_increment),
        _ => int(op, x, y),
    }
}

fn int(op: ArithOp, x: Num, y: Num) -> Result<Num, ArithError> {
    let unsigned = matches!(x, Num::UInt(_)) || matches!(y, Num::UInt(_));
    let a = x.to_i128().unwrap_or(0);
    let b = y.to_i128().unwrap_or(0);
    let r = match op {
        ArithOp::Add => a + b,
        ArithOp::Sub => a - b,
        ArithOp::Mul => a
            .checked_mul(b)
            .ok_or(ArithError::IntOverflow { unsigned })?,
        ArithOp::IntDiv | ArithOp::Div => {
            if b == 0 {
                return Err(ArithError::DivisionByZero);
            }
            a / b
        }
        ArithOp::Mod => {
            if b == 0 {
                return Err(ArithError::DivisionByZero);
            }
            a % b
        }
    };
    if unsigned {
        // MySQL keeps an unsigned result for unsigned operands; a negative signed
        // operand makes MOD / DIV results follow the signed rules.
        if r >= 0 && r <= u64::MAX as i128 {
            return Ok(Num::UInt(r as u64));
        }
        if matches!(op, ArithOp::Mod | ArithOp::IntDiv) && r >= i64::MIN as i128 {
            return Ok(Num::Int(r as i64));
        }
        return Err(ArithError::IntOverflow { unsigned: true });
    }
    i64::try_from(r)
        .map(Num::Int)
        .map_err(|_| ArithError::IntOverflow { unsigned: false })
}

fn dec(op: ArithOp, a: Decimal, b: Decimal, incr: u8) -> Result<Num, ArithError> {
    let r = match op {
        ArithOp::Add => a.checked_add(b),
        ArithOp::Sub => a.checked_sub(b),
        ArithOp::Mul => a.checked_mul(b),
        ArithOp::Div => {
            if b.is_zero() {
                return Err(ArithError::DivisionByZero);
            }
            a.checked_div(b, incr)
        }
        ArithOp::IntDiv => {
            if b.is_zero() {
                return Err(ArithError::DivisionByZero);
            }
            let q = a.checked_div(b, 0).and_then(|_| trunc_div(a, b));
            return q
                .map(Num::Int)
                .ok_or(ArithError::IntOverflow { unsigned: false });
        }
        ArithOp::Mod => {
            if b.is_zero() {
                return Err(ArithError::DivisionByZero);
            }
            dec_mod(a, b)
        }
    };
    r.map(Num::Dec).ok_or(ArithError::DecimalOverflow)
}

/// a / b truncated toward zero, as i64.
fn trunc_div(a: Decimal, b: Decimal) -> Option<i64> {
    let s = a.scale.max(b.scale);
    let x = a.rescale(s)?.mantissa;
    let y = b.rescale(s)?.mantissa;
    i64::try_from(x / y).ok()
}

fn dec_mod(a: Decimal, b: Decimal) -> Option<Decimal> {
    let s = a.scale.max(b.scale);
    let x = a.rescale(s)?.mantissa;
    let y = b.rescale(s)?.mantissa;
    Some(Decimal::new(x % y, s))
}

fn dbl(op: ArithOp, a: f64, b: f64) -> Result<Num, ArithError> {
    let r = match op {
        ArithOp::Add => a + b,
        ArithOp::Sub => a - b,
        ArithOp::Mul => a * b,
        ArithOp::Div => {
            if b == 0.0 {
                return Err(ArithError::DivisionByZero);
            }
            a / b
        }
        ArithOp::IntDiv => {
            if b == 0.0 {
                return Err(ArithError::DivisionByZero);
            }
            let q = (a / b).trunc();
            if q.abs() >= 9.2e18 {
                return Err(ArithError::IntOverflow { unsigned: false });
            }
            return Ok(Num::Int(q as i64));
        }
        ArithOp::Mod => {
            if b == 0.0 {
                return Err(ArithError::DivisionByZero);
            }
            a % b
        }
    };
    if r.is_finite() {
        Ok(Num::Dbl(r))
    } else {
        Err(ArithError::DoubleOverflow)
    }
}

/// Unary minus.
pub fn negate(v: &Value) -> Result<Value, ArithError> {
    Ok(match v {
        Value::Null => Value::Null,
        Value::Int(i) => match i.checked_neg() {
            Some(n) => Value::Int(n),
            None => Value::Decimal(-Decimal::from_i64(*i)),
        },
        Value::UInt(u) => {
            let n = -(*u as i128);
            match i64::try_from(n) {
                Ok(i) => Value::Int(i),
                Err(_) => Value::Decimal(Decimal::new(n, 0)),
            }
        }
        Value::Decimal(d) => Value::Decimal(-*d),
        Value::Double(d) => Value::Double(-d),
        Value::Bytes(_) => Value::Double(-to_num(v).0.to_f64()),
        other => num_arith(ArithOp::Sub, Num::Int(0), to_num(other).0, 4)?.into_value(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(op: ArithOp, a: Value, b: Value) -> Result<Value, ArithError> {
        arith(op, &a, &b, 4, &mut |_| {})
    }

    fn dec(s: &str) -> Value {
        Value::Decimal(Decimal::parse(s).expect("decimal"))
    }

    #[test]
    fn integer_ops() {
        assert_eq!(
            run(ArithOp::Add, Value::Int(2), Value::Int(3)),
            Ok(Value::Int(5))
        );
        assert_eq!(
            run(ArithOp::Add, Value::Int(i64::MAX), Value::Int(1)),
            Err(ArithError::IntOverflow { unsigned: false })
        );
        assert_eq!(
            run(ArithOp::Sub, Value::UInt(1), Value::Int(2)),
            Err(ArithError::IntOverflow { unsigned: true })
        );
        assert_eq!(
            run(ArithOp::IntDiv, Value::Int(7), Value::Int(2)),
            Ok(Value::Int(3))
        );
        assert_eq!(
            run(ArithOp::Mod, Value::Int(-7), Value::Int(2)),
            Ok(Value::Int(-1))
        );
        assert_eq!(
            run(ArithOp::Div, Value::Int(1), Value::Int(0)),
            Err(ArithError::DivisionByZero)
        );
    }

    #[test]
    fn division_is_decimal() {
        assert_eq!(
            run(ArithOp::Div, Value::Int(1), Value::Int(3)),
            Ok(dec("0.3333"))
        );
        assert_eq!(
            run(ArithOp::Div, dec("1.0"), Value::Int(3)),
            Ok(dec("0.33333"))
        );
        assert_eq!(run(ArithOp::Mul, dec("1.5"), Value::Int(2)), Ok(dec("3.0")));
    }

    #[test]
    fn strings_become_doubles() {
        let mut bad = 0;
        let r = arith(
            ArithOp::Add,
            &Value::str("1x"),
            &Value::Int(1),
            4,
            &mut |_| bad += 1,
        );
        assert_eq!(r, Ok(Value::Double(2.0)));
        assert_eq!(bad, 1);
    }
}
