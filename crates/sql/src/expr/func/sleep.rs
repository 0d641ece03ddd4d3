//! `SLEEP(seconds)`: waits, returns 0, and stops early for KILL QUERY and for
//! `max_statement_time` (both set the statement's interrupt flag), failing the
//! statement as MariaDB does (errno 1317, which the session turns into 1969 when
//! the statement's deadline set the flag).
//!
//! The wait is cut into short slices so that an interrupt is seen within
//! [`SLICE`]; NULL, zero and negative durations return at once.

use crate::expr::{EvalCtx, R};
use crate::value::str_to_f64;
use basalt_common::{MySqlError, Value};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Longest uninterrupted sleep: how late an interrupt may be noticed.
const SLICE: Duration = Duration::from_millis(5);

pub fn eval(arg: &Value, ctx: &mut EvalCtx) -> R {
    let secs = match arg {
        Value::Null => return Ok(Value::Int(0)),
        Value::Bytes(b) => {
            let (x, clean) = str_to_f64(b);
            if !clean {
                let text = String::from_utf8_lossy(b);
                ctx.cx
                    .warn_err(&MySqlError::truncated_wrong_value("DOUBLE", &text));
            }
            x
        }
        other => crate::value::to_f64(other),
    };
    // NaN, zero and negative durations do not wait.
    if secs.is_nan() || secs <= 0.0 {
        return Ok(Value::Int(0));
    }
    let total = Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX);
    let end = Instant::now().checked_add(total);
    loop {
        if ctx.interrupt.is_some_and(|f| f.load(Ordering::Relaxed)) {
            return Err(MySqlError::query_interrupted());
        }
        let now = Instant::now();
        let left = match end {
            Some(e) if e <= now => return Ok(Value::Int(0)),
            Some(e) => e - now,
            None => SLICE,
        };
        basalt_common::wait::waiting(|| std::thread::sleep(left.min(SLICE)));
    }
}
