//! `CONVERT_TZ(dt, from_tz, to_tz)` for the zones Basalt knows: numeric offsets
//! (`'+05:30'`, MariaDB's range `-12:59` to `+13:00`) and `SYSTEM`, the server's
//! zone, which is UTC (as `NOW()` is). Named zones need MariaDB's time-zone tables,
//! which Basalt does not have, so they give NULL, as they do in a MariaDB whose
//! `mysql.time_zone*` tables are empty. A value that is outside the TIMESTAMP range
//! once moved to UTC is returned unchanged, as MariaDB does.

use crate::expr::cast::to_datetime;
use crate::expr::{EvalCtx, R};
use crate::value::to_bytes;
use basalt_common::{DateTime, Value};

/// Seconds since the epoch of TIMESTAMP's first and last values.
const TIMESTAMP_RANGE: std::ops::RangeInclusive<i64> = 1..=2_147_483_647;

pub fn eval(vals: &[Value], ctx: &mut EvalCtx) -> R {
    let Some(dt) = to_datetime(&vals[0], ctx) else {
        return Ok(Value::Null);
    };
    let (Some(from), Some(to)) = (offset(&vals[1]), offset(&vals[2])) else {
        return Ok(Value::Null);
    };
    let utc = dt.unix_seconds() - from;
    if !TIMESTAMP_RANGE.contains(&utc) {
        return Ok(Value::DateTime(dt));
    }
    Ok(Value::DateTime(DateTime::from_unix_seconds(
        utc + to,
        dt.micro,
    )))
}

/// The zone's offset from UTC in seconds; `None` for a zone Basalt cannot resolve.
fn offset(v: &Value) -> Option<i64> {
    let text = String::from_utf8_lossy(&to_bytes(v)).trim().to_string();
    if text.eq_ignore_ascii_case("SYSTEM") {
        return Some(0);
    }
    let (sign, rest) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => return None,
    };
    let (h, m) = rest.split_once(':')?;
    let digits = |s: &str| !s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(h) || m.len() != 2 || !digits(m) {
        return None;
    }
    let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    let minutes = sign * (h * 60 + m);
    (m < 60 && (-(12 * 60 + 59)..=13 * 60).contains(&minutes)).then_some(minutes * 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets() {
        assert_eq!(offset(&Value::str("+00:00")), Some(0));
        assert_eq!(offset(&Value::str("-02:30")), Some(-9000));
        assert_eq!(offset(&Value::str("+5:00")), Some(18000));
        assert_eq!(offset(&Value::str("system")), Some(0));
        assert_eq!(offset(&Value::str("+13:00")), Some(46800));
        assert_eq!(offset(&Value::str("+14:00")), None);
        assert_eq!(offset(&Value::str("-13:00")), None);
        assert_eq!(offset(&Value::str("UTC")), None);
        assert_eq!(offset(&Value::str("+1:5")), None);
    }
}
