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
use basalt_common::{DateTime, Value};

/// Seconds since the epoch of TIMESTAMP's first and last values.
const TIMESTAMP_RANGE: std::ops::RangeInclusive<i64> = 1..=2_147_483_647;

/// A time zone CONVERT_TZ can use.
enum Zone {
    /// Seconds east of UTC.
    Fixed(i64),
    Named(jiff::tz::TimeZone),
}

impl Zone {
    /// Seconds since the epoch of local time `dt` in this zone.
    fn to_utc(&self, dt: &DateTime) -> Option<i64> {
        match self {
            Zone::Fixed(off) => Some(dt.unix_seconds() - off),
            Zone::Named(tz) => {
                let d = &dt.date;
                let civil = jiff::civil::DateTime::new(
                    i16::try_from(d.year).ok()?,
                    i8::try_from(d.month).ok()?,
                    i8::try_from(d.day).ok()?,
                    i8::try_from(dt.hour).ok()?,
                    i8::try_from(dt.minute).ok()?,
                    i8::try_from(dt.second).ok()?,
                    0,
                )
                .ok()?;
                let amb = tz.to_ambiguous_timestamp(civil);
                let gap = matches!(amb.offset(), jiff::tz::AmbiguousOffset::Gap { .. });
                let ts = amb.compatible().ok()?;
                if gap {
                    // A skipped local time is the moment the clocks jumped.
                    if let Some(t) = tz.preceding(ts).next() {
                        return Some(t.timestamp().as_second());
                    }
                }
                Some(ts.as_second())
            }
        }
    }

    /// Local time in this zone of `utc` seconds since the epoch.
    fn local_time(&self, utc: i64, micro: u32) -> DateTime {
        let off = match self {
            Zone::Fixed(off) => *off,
            Zone::Named(tz) => match jiff::Timestamp::from_second(utc) {
                Ok(ts) => i64::from(tz.to_offset(ts).seconds()),
                Err(_) => 0,
            },
        };
        DateTime::from_unix_seconds(utc + off, micro)
    }
}

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
    let text = String::from_utf8_lossy(&to_bytes(v)).trim().to_string();
    if let Some(off) = offset(&text) {
        return Some(Zone::Fixed(off));
    }
    if text.is_empty() || text.starts_with(['+', '-']) {
        return None;
    }
    jiff::tz::db().get(&text).ok().map(Zone::Named)
}

/// A numeric offset (or SYSTEM) in seconds east of UTC.
fn offset(text: &str) -> Option<i64> {
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
        assert_eq!(offset("+00:00"), Some(0));
        assert_eq!(offset("-02:30"), Some(-9000));
        assert_eq!(offset("+5:00"), Some(18000));
        assert_eq!(offset("system"), Some(0));
        assert_eq!(offset("+13:00"), Some(46800));
        assert_eq!(offset("+14:00"), None);
        assert_eq!(offset("-13:00"), None);
        assert_eq!(offset("UTC"), None);
        assert_eq!(offset("+1:5"), None);
    }

    fn at(zone_name: &str, year: u16, month: u8, day: u8, hour: u8) -> DateTime {
        let z = zone(&Value::str(zone_name)).expect("known zone");
        let utc = DateTime {
            date: basalt_common::Date { year, month, day },
            hour,
            minute: 0,
            second: 0,
            micro: 0,
        };
        z.local_time(utc.unix_seconds(), 0)
    }

    #[test]
    fn named_zones_follow_daylight_saving() {
        // 2024-01-15 12:00 UTC is 13:00 in Berlin (CET), 2024-07-15 12:00 UTC is 14:00 (CEST).
        assert_eq!(at("Europe/Berlin", 2024, 1, 15, 12).hour, 13);
        assert_eq!(at("europe/berlin", 2024, 7, 15, 12).hour, 14);
        assert_eq!(at("UTC", 2024, 7, 15, 12).hour, 12);
        assert_eq!(at("America/New_York", 2024, 7, 15, 12).hour, 8);
        assert!(zone(&Value::str("Mars/Olympus")).is_none());
    }
}
