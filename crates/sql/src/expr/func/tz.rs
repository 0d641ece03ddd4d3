//! `CONVERT_TZ(dt, from_tz, to_tz)`: numeric offsets (`'+05:30'`, MariaDB's range
//! `-12:59` to `+13:00`), `SYSTEM` (the server's zone, UTC, as `NOW()` is) and
//! named zones of the IANA database (`'Europe/Berlin'`, `'UTC'`), looked up case
//! insensitively in the system's zoneinfo (`TZDIR`, `/usr/share/zoneinfo`) or,
//! where it has none, in the copy built into the server. An unknown zone gives
//! NULL, as in MariaDB. A local time a zone skips (a DST gap) or has twice (the
//! hour after the clocks go back) is taken as MariaDB's time-zone tables take it:
//! the moment of the jump for a skipped time, the earlier offset for the repeated
//! hour. A value outside
//! the TIMESTAMP range once moved to UTC is returned unchanged, as MariaDB does.

use crate::expr::cast::to_datetime;
use crate::expr::{EvalCtx, R};
use crate::value::to_bytes;
use crate::value::zone::Zone;
use basalt_common::Value;

/// Seconds since the epoch of TIMESTAMP's first and last values.
pub const TIMESTAMP_RANGE: std::ops::RangeInclusive<i64> = 1..=2_147_483_647;

pub fn eval(vals: &[Value], ctx: &mut EvalCtx) -> R {
    let Some(dt) = to_datetime(&vals[0], ctx) else {
        return Ok(Value::Null);
    };
    let (Some(from), Some(to)) = (zone(&vals[1]), zone(&vals[2])) else {
        return Ok(Value::Null);
    };
    let Some(utc) = from.to_utc(&dt) else {
        return Ok(Value::DateTime(dt));
    };
    if !TIMESTAMP_RANGE.contains(&utc) {
        return Ok(Value::DateTime(dt));
    }
    Ok(Value::DateTime(to.local_time(utc, dt.micro)))
}

/// The zone a CONVERT_TZ argument names; `None` for one Basalt cannot resolve.
fn zone(v: &Value) -> Option<Zone> {
    Zone::parse(&String::from_utf8_lossy(&to_bytes(v)))
}
