//! Clock and calendar helpers: the statement's current time, interval arithmetic.
//!
//! `now()` is UTC (the server's SYSTEM zone); sessions see it in their `time_zone`
//! through [`crate::session::ctx::SessionCtx::local`].

use basalt_common::{Date, DateTime};
use std::time::{SystemTime, UNIX_EPOCH};

/// The current time (UTC) with microseconds.
pub fn now() -> DateTime {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    DateTime::from_unix_seconds(d.as_secs() as i64, d.subsec_micros())
}

/// Truncates the fractional part to `fsp` digits.
pub fn truncate_fsp(mut dt: DateTime, fsp: u8) -> DateTime {
    let div = 10u32.pow(6 - fsp.min(6) as u32);
    dt.micro = dt.micro / div * div;
    dt
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Microsecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
    YearMonth,
    DayHour,
    DayMinute,
    DaySecond,
    DayMicrosecond,
    HourMinute,
    HourSecond,
    HourMicrosecond,
    MinuteSecond,
    MinuteMicrosecond,
    SecondMicrosecond,
}

impl Unit {
    pub fn from_name(s: &str) -> Option<Unit> {
        Some(match s.to_ascii_uppercase().as_str() {
            "MICROSECOND" => Unit::Microsecond,
            "SECOND" => Unit::Second,
            "MINUTE" => Unit::Minute,
            "HOUR" => Unit::Hour,
            "DAY" => Unit::Day,
            "WEEK" => Unit::Week,
            "MONTH" => Unit::Month,
            "QUARTER" => Unit::Quarter,
            "YEAR" => Unit::Year,
            _ => return None,
        })
    }

    /// A compound unit (`DAY_HOUR`, ...): INTERVAL and EXTRACT take these.
    pub fn compound(s: &str) -> Option<Unit> {
        Some(match s.to_ascii_uppercase().as_str() {
            "YEAR_MONTH" => Unit::YearMonth,
            "DAY_HOUR" => Unit::DayHour,
            "DAY_MINUTE" => Unit::DayMinute,
            "DAY_SECOND" => Unit::DaySecond,
            "DAY_MICROSECOND" => Unit::DayMicrosecond,
            "HOUR_MINUTE" => Unit::HourMinute,
            "HOUR_SECOND" => Unit::HourSecond,
            "HOUR_MICROSECOND" => Unit::HourMicrosecond,
            "MINUTE_SECOND" => Unit::MinuteSecond,
            "MINUTE_MICROSECOND" => Unit::MinuteMicrosecond,
            "SECOND_MICROSECOND" => Unit::SecondMicrosecond,
            _ => return None,
        })
    }

    /// Whether this is a compound unit (`DAY_HOUR`, ...).
    pub fn is_compound(self) -> bool {
        matches!(
            self,
            Unit::YearMonth
                | Unit::DayHour
                | Unit::DayMinute
                | Unit::DaySecond
                | Unit::DayMicrosecond
                | Unit::HourMinute
                | Unit::HourSecond
                | Unit::HourMicrosecond
                | Unit::MinuteSecond
                | Unit::MinuteMicrosecond
                | Unit::SecondMicrosecond
        )
    }

    /// Whether adding an interval of this unit to a DATE gives a DATETIME.
    pub fn has_time(self) -> bool {
        !matches!(
            self,
            Unit::Day | Unit::Week | Unit::Month | Unit::Quarter | Unit::Year | Unit::YearMonth
        )
    }

    /// Whether the unit's smallest part is microseconds.
    pub fn has_micros(self) -> bool {
        matches!(
            self,
            Unit::Microsecond
                | Unit::DayMicrosecond
                | Unit::HourMicrosecond
                | Unit::MinuteMicrosecond
                | Unit::SecondMicrosecond
        )
    }
}

/// `dt + INTERVAL n unit`; `None` when the result leaves the supported range.
pub fn add_interval(dt: DateTime, n: i64, unit: Unit) -> Option<DateTime> {
    let months = match unit {
        Unit::Month => Some(n),
        Unit::Quarter => n.checked_mul(3),
        Unit::Year => n.checked_mul(12),
        _ => None,
    };
    if let Some(m) = months {
        let total = dt.date.year as i64 * 12 + dt.date.month as i64 - 1 + m;
        let year = total.div_euclid(12);
        let month = (total.rem_euclid(12) + 1) as u8;
        if !(0..=9999).contains(&year) {
            return None;
        }
        let max_day = days_in_month(year as u16, month);
        let mut out = dt;
        out.date = Date::new(year as u16, month, dt.date.day.min(max_day));
        return Some(out);
    }
    let micros: i64 = match unit {
        Unit::Microsecond => n,
        Unit::Second => n.checked_mul(1_000_000)?,
        Unit::Minute => n.checked_mul(60_000_000)?,
        Unit::Hour => n.checked_mul(3_600_000_000)?,
        Unit::Day => n.checked_mul(86_400_000_000)?,
        Unit::Week => n.checked_mul(604_800_000_000)?,
        _ => 0,
    };
    let base = dt.unix_seconds().checked_mul(1_000_000)? + dt.micro as i64;
    let t = base.checked_add(micros)?;
    let out = DateTime::from_unix_seconds(t.div_euclid(1_000_000), t.rem_euclid(1_000_000) as u32);
    (out.date.year <= 9999).then_some(out)
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals() {
        let dt = DateTime::parse("2024-01-31 10:00:00").expect("dt");
        let m = add_interval(dt, 1, Unit::Month).expect("ok");
        assert_eq!(m.display(0).to_string(), "2024-02-29 10:00:00");
        let d = add_interval(dt, -31, Unit::Day).expect("ok");
        assert_eq!(d.display(0).to_string(), "2023-12-31 10:00:00");
        let s = add_interval(dt, 3600, Unit::Second).expect("ok");
        assert_eq!(s.display(0).to_string(), "2024-01-31 11:00:00");
    }
}
