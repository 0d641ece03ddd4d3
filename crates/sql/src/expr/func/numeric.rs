//! Numeric functions. Exact arguments give exact results (ROUND of a DECIMAL is a
//! DECIMAL, rounded half away from zero); doubles stay doubles.

use super::Func;
use crate::expr::{arith_error, EvalCtx, R};
use crate::value::arith::{num_arith, ArithError, ArithOp};
use crate::value::{str_to_f64, to_f64, to_num, Num};
use basalt_common::{Decimal, Value};

pub fn eval(f: Func, vals: Vec<Value>, ctx: &mut EvalCtx) -> R {
    use Func::*;
    match f {
        Rand => Ok(Value::Double(match vals.first() {
            Some(seed) if !seed.is_null() => seeded(to_num(seed).0.to_i64().unwrap_or(0)),
            _ => ctx.cx.next_rand(),
        })),
        Pi => Ok(Value::Double(std::f64::consts::PI)),
        _ if vals.iter().any(Value::is_null) => Ok(Value::Null),
        Abs => Ok(match to_num(&vals[0]).0 {
            Num::Int(i) => i
                .checked_abs()
                .map_or(Value::Decimal(-Decimal::from_i64(i)), Value::Int),
            Num::UInt(u) => Value::UInt(u),
            Num::Dec(d) => Value::Decimal(if d.mantissa < 0 { -d } else { d }),
            Num::Dbl(d) => Value::Double(d.abs()),
        }),
        Sign => {
            let x = to_f64(&vals[0]);
            Ok(Value::Int(if x > 0.0 {
                1
            } else if x < 0.0 {
                -1
            } else {
                0
            }))
        }
        Round | Truncate => {
            let digits = vals.get(1).map_or(0, |v| to_num(v).0.to_i64().unwrap_or(0));
            Ok(round(to_num(&vals[0]).0, digits, f == Truncate))
        }
        Floor | Ceil => Ok(floor_ceil(to_num(&vals[0]).0, f == Ceil)),
        Mod => {
            let (a, b) = (to_num(&vals[0]).0, to_num(&vals[1]).0);
            match num_arith(ArithOp::Mod, a, b, 4) {
                Ok(n) => Ok(n.into_value()),
                Err(ArithError::DivisionByZero) => Ok(Value::Null),
                Err(e) => Err(arith_error(e, "%", &vals[0], &vals[1])),
            }
        }
        Sqrt => Ok(real(to_f64(&vals[0]).sqrt())),
        Trig(t) => {
            use super::Trig as T;
            let x = to_f64(&vals[0]);
            Ok(real(match t {
                T::Sin => x.sin(),
                T::Cos => x.cos(),
                T::Tan => x.tan(),
                T::Asin => x.asin(),
                T::Acos => x.acos(),
                T::Atan if vals.len() == 2 => x.atan2(to_f64(&vals[1])),
                T::Atan => x.atan(),
                T::Cot => 1.0 / x.tan(),
            }))
        }
        Log if vals.len() == 2 => {
            let (b, x) = (to_f64(&vals[0]), to_f64(&vals[1]));
            Ok(if b <= 0.0 || b == 1.0 || x <= 0.0 {
                return ctx.division_by_zero();
            } else {
                Value::Double(x.ln() / b.ln())
            })
        }
        Log => log_of(to_f64(&vals[0]), f64::ln, ctx),
        Log2 => log_of(to_f64(&vals[0]), f64::log2, ctx),
        Degrees => Ok(Value::Double(to_f64(&vals[0]).to_degrees())),
        Radians => Ok(Value::Double(to_f64(&vals[0]).to_radians())),
        Pow => Ok(real(to_f64(&vals[0]).powf(to_f64(&vals[1])))),
        Exp => Ok(real(to_f64(&vals[0]).exp())),
        Ln => log_of(to_f64(&vals[0]), f64::ln, ctx),
        Log10 => log_of(to_f64(&vals[0]), f64::log10, ctx),
        _ => Ok(Value::Null),
    }
}

fn real(x: f64) -> Value {
    if x.is_finite() {
        Value::Double(x)
    } else {
        Value::Null
    }
}

/// A logarithm; MariaDB answers a non-positive argument with NULL and the
/// division-by-zero warning.
fn log_of(x: f64, f: fn(f64) -> f64, ctx: &mut EvalCtx) -> R {
    if x <= 0.0 {
        return ctx.division_by_zero();
    }
    Ok(Value::Double(f(x)))
}

fn seeded(seed: i64) -> f64 {
    // MySQL's RAND(N) generator (my_rnd with seeds derived from N).
    let max = 0x3FFF_FFFFu64;
    let s1 = ((seed as u64).wrapping_mul(0x10001).wrapping_add(55_555_555)) % max;
    let s2 = ((seed as u64).wrapping_mul(0x1000_0001)) % max;
    let s1 = (s1 * 3 + s2) % max;
    s1 as f64 / max as f64
}

/// ROUND / TRUNCATE to `digits` after the point (negative: before it).
pub fn round(n: Num, digits: i64, truncate: bool) -> Value {
    match n {
        Num::Int(_) | Num::UInt(_) if digits >= 0 => n.into_value(),
        Num::Int(_) | Num::UInt(_) | Num::Dec(_) => {
            let d = n.to_decimal();
            let r = round_decimal(d, digits, truncate);
            match n {
                Num::Int(_) => r.trunc_i64().map_or(Value::Decimal(r), Value::Int),
                Num::UInt(_) => r
                    .trunc_i64()
                    .map_or(Value::Decimal(r), |i| Value::UInt(i as u64)),
                _ => Value::Decimal(r),
            }
        }
        Num::Dbl(x) => {
            // MariaDB's my_double_round: scale by a power of ten (dividing for
            // negative digits), rint() (halves to even) or truncate, scale back.
            let d = digits.clamp(-308, 308) as i32;
            let f = 10f64.powi(d.abs());
            let scaled = if d < 0 { x / f } else { x * f };
            if !scaled.is_finite() {
                return Value::Double(if d < 0 { 0.0 } else { x });
            }
            let r = if truncate {
                scaled.trunc()
            } else {
                scaled.round_ties_even()
            };
            Value::Double(if d < 0 { r * f } else { r / f })
        }
    }
}

fn round_decimal(d: Decimal, digits: i64, truncate: bool) -> Decimal {
    let digits = digits.clamp(-38, 30);
    if digits >= 0 {
        let s = digits as u8;
        if s >= d.scale {
            return d;
        }
        if truncate {
            let f = 10i128.pow((d.scale - s) as u32);
            return Decimal::new(d.mantissa / f, s);
        }
        return d.rescale(s).unwrap_or(d);
    }
    let int = d.rescale(0).map_or(d.mantissa, |x| {
        if truncate {
            d.mantissa / 10i128.pow(d.scale as u32)
        } else {
            x.mantissa
        }
    });
    let f = 10i128.pow((-digits) as u32);
    let q = int / f;
    let r = int % f;
    let q = if !truncate && r.abs() * 2 >= f {
        q + int.signum()
    } else {
        q
    };
    Decimal::new(q.saturating_mul(f), 0)
}

fn floor_ceil(n: Num, ceil: bool) -> Value {
    match n {
        Num::Int(_) | Num::UInt(_) => n.into_value(),
        Num::Dec(d) => {
            let f = 10i128.pow(d.scale as u32);
            let q = d.mantissa.div_euclid(f);
            let q = if ceil && d.mantissa.rem_euclid(f) != 0 {
                q + 1
            } else {
                q
            };
            i64::try_from(q).map_or(Value::Decimal(Decimal::new(q, 0)), Value::Int)
        }
        Num::Dbl(x) => Value::Double(if ceil { x.ceil() } else { x.floor() }),
    }
}

/// `INTERVAL(N, N1, N2, ...)`: how many of N1, N2, ... (ascending) are at most N,
/// counting up to the first one above N; -1 for a NULL N. NULLs in the list count
/// as passed, as in MariaDB. Integers and decimals compare exactly; anything else
/// as doubles (a string with junk warns 1292).
pub fn interval(vals: &[Value], ctx: &mut EvalCtx) -> i64 {
    if vals[0].is_null() {
        return -1;
    }
    let exact = vals.iter().all(|v| {
        matches!(
            v,
            Value::Null | Value::Int(_) | Value::UInt(_) | Value::Decimal(_)
        )
    });
    let n = if exact { 0.0 } else { as_real(&vals[0], ctx) };
    for (i, v) in vals.iter().enumerate().skip(1) {
        if v.is_null() {
            continue;
        }
        let above = if exact {
            crate::value::compare::compare(v, &vals[0], basalt_common::Collation::Binary)
                == Some(std::cmp::Ordering::Greater)
        } else {
            as_real(v, ctx) > n
        };
        if above {
            return i as i64 - 1;
        }
    }
    vals.len() as i64 - 1
}

fn as_real(v: &Value, ctx: &mut EvalCtx) -> f64 {
    match v {
        Value::Bytes(b) => {
            let (x, clean) = str_to_f64(b);
            if !clean {
                let text = String::from_utf8_lossy(b);
                ctx.cx
                    .warn_err(&basalt_common::MySqlError::truncated_wrong_value(
                        "DOUBLE", &text,
                    ));
            }
            x
        }
        other => to_f64(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Num {
        Num::Dec(Decimal::parse(s).expect("decimal"))
    }

    #[test]
    fn rounding() {
        assert_eq!(
            round(dec("1.5"), 0, false),
            Value::Decimal(Decimal::parse("2").expect("d"))
        );
        assert_eq!(
            round(dec("-1.5"), 0, false),
            Value::Decimal(Decimal::parse("-2").expect("d"))
        );
        assert_eq!(round(dec("1.2345"), 2, true).display_lossy(), "1.23");
        assert_eq!(round(Num::Int(1234), -2, false), Value::Int(1200));
        assert_eq!(round(Num::Dbl(2.5), 0, false), Value::Double(2.0));
        assert_eq!(round(Num::Dbl(3.5), 0, false), Value::Double(4.0));
    }

    #[test]
    fn floors() {
        assert_eq!(floor_ceil(dec("1.5"), false), Value::Int(1));
        assert_eq!(floor_ceil(dec("-1.5"), false), Value::Int(-2));
        assert_eq!(floor_ceil(dec("1.1"), true), Value::Int(2));
    }
}
