//! Compound temporal units: the values of `INTERVAL '1 2:30' DAY_MINUTE` (read as
//! MariaDB's `get_interval_info` reads them) and `EXTRACT(unit FROM x)`.

use crate::expr::EvalCtx;
use crate::value::temporal::Unit;
use crate::value::{num_to_datetime, parse_date, parse_datetime, parse_time, to_num};
use basalt_common::error::code;
use basalt_common::{Date, DateTime, Time, Value};

/// How many parts a compound unit's value has.
fn parts(unit: Unit) -> usize {
    match unit {
        Unit::YearMonth
        | Unit::DayHour
        | Unit::HourMinute
        | Unit::MinuteSecond
        | Unit::SecondMicrosecond => 2,
        Unit::DayMinute | Unit::HourSecond | Unit::MinuteMicrosecond => 3,
        Unit::DaySecond | Unit::HourMicrosecond => 4,
        Unit::DayMicrosecond => 5,
        _ => 1,
    }
}

/// An interval of a compound unit: months, or microseconds (signed).
#[derive(Debug, PartialEq, Eq)]
pub enum Span {
    Months(i64),
    Micros(i64),
}

/// The interval `text` of compound unit `unit` means; `None` when it has more
/// parts than the unit (MariaDB's NULL). Parts are runs of digits separated by
/// anything else; missing leading parts are zero; a leading `-` negates the
/// whole; the microsecond part is scaled to six digits.
pub fn compound_span(unit: Unit, text: &[u8]) -> Option<Span> {
    let n = parts(unit);
    let mut s = text;
    while let [c, rest @ ..] = s {
        if !c.is_ascii_whitespace() {
            break;
        }
        s = rest;
    }
    let neg = s.first() == Some(&b'-');
    let mut i = usize::from(neg);
    let skip = |i: &mut usize| {
        while *i < s.len() && !s[*i].is_ascii_digit() {
            *i += 1;
        }
    };
    skip(&mut i);
    let mut values = vec![0u64; n];
    let mut got = 0;
    let mut last_len = 0;
    while got < n {
        let start = i;
        let mut v: u64 = 0;
        while i < s.len() && s[i].is_ascii_digit() && i - start < 19 {
            v = v * 10 + u64::from(s[i] - b'0');
            i += 1;
        }
        last_len = i - start;
        values[got] = v;
        got += 1;
        skip(&mut i);
        if i == s.len() {
            break;
        }
    }
    if i != s.len() {
        return None;
    }
    // Fewer parts than the unit has: they are the rightmost ones.
    values.rotate_right(n - got);
    if unit.has_micros() && last_len > 0 {
        let micro = &mut values[n - 1];
        if last_len < 6 {
            *micro *= 10u64.pow(6 - last_len as u32);
        } else if last_len > 6 {
            *micro /= 10u64.pow(last_len as u32 - 6);
        }
    }
    let sign = if neg { -1 } else { 1 };
    let v = |k: usize| values[k] as i64;
    if unit == Unit::YearMonth {
        return Some(Span::Months(sign * (v(0) * 12 + v(1))));
    }
    // Day, hour, minute, second, microsecond, right-aligned to the unit's parts.
    let first = match unit {
        Unit::DayHour | Unit::DayMinute | Unit::DaySecond | Unit::DayMicrosecond => 0,
        Unit::HourMinute | Unit::HourSecond | Unit::HourMicrosecond => 1,
        Unit::MinuteSecond | Unit::MinuteMicrosecond => 2,
        _ => 3,
    };
    let mut full = [0i64; 5];
    for k in 0..n {
        full[first + k] = v(k);
    }
    let micros = (((full[0] * 24 + full[1]) * 60 + full[2]) * 60 + full[3])
        .checked_mul(1_000_000)?
        .checked_add(full[4])?;
    Some(Span::Micros(sign * micros))
}

/// A value EXTRACT reads: a date and time of day, or a TIME (hours past 24 count
/// as days; its sign applies to the result).
pub enum Source {
    DateTime(DateTime),
    Time(Time),
}

/// Whether a unit reads only the time of day (EXTRACT then reads a string as a
/// TIME first, as MariaDB does: `'03:04:05'` is a time for MINUTE, a date for YEAR).
fn time_of_day(unit: Unit) -> bool {
    matches!(
        unit,
        Unit::Hour
            | Unit::Minute
            | Unit::Second
            | Unit::Microsecond
            | Unit::HourMinute
            | Unit::HourSecond
            | Unit::HourMicrosecond
            | Unit::MinuteSecond
            | Unit::MinuteMicrosecond
            | Unit::SecondMicrosecond
    )
}

/// A string as EXTRACT of `unit` reads it.
fn source_of_text(b: &[u8], unit: Unit) -> Option<Source> {
    let as_time = || parse_time(b).map(Source::Time);
    let negative = b.iter().find(|c| !c.is_ascii_whitespace()) == Some(&b'-');
    if time_of_day(unit) || negative {
        return as_time().or_else(|| parse_datetime(b).map(Source::DateTime));
    }
    parse_datetime(b)
        .or_else(|| parse_date(b).map(DateTime::from_date))
        .map(Source::DateTime)
        .or_else(as_time)
}

/// What EXTRACT of `unit` reads from `v`: a string as a DATETIME, DATE or TIME
/// (see [`source_of_text`]); a number as a TIME unless it is long enough for a
/// DATETIME. NULL (with warning 1292 for what reads as neither) when there is
/// none.
pub fn source(v: &Value, unit: Unit, ctx: &mut EvalCtx) -> Option<Source> {
    let s = match v {
        Value::Null => return None,
        Value::DateTime(d) => Some(Source::DateTime(*d)),
        Value::Date(d) => Some(Source::DateTime(DateTime::from_date(*d))),
        Value::Time(t) => Some(Source::Time(*t)),
        Value::Bytes(b) => source_of_text(b, unit),
        other => to_num(other).0.to_i64().and_then(|n| {
            if n.unsigned_abs() >= 10_000_000_000 {
                num_to_datetime(n).map(Source::DateTime)
            } else {
                Time::parse(&n.to_string()).map(Source::Time)
            }
        }),
    };
    if s.is_none() {
        let text = String::from_utf8_lossy(&crate::value::to_bytes(v)).into_owned();
        ctx.warn(
            code::ER_TRUNCATED_WRONG_VALUE,
            format!("Incorrect datetime value: '{text}'"),
        );
    }
    s
}

/// `EXTRACT(unit FROM source)`.
pub fn extract(unit: Unit, src: &Source) -> i64 {
    let (date, day, hour, minute, second, micro, neg) = match src {
        Source::DateTime(d) => (
            d.date,
            d.date.day as i64,
            d.hour as i64,
            d.minute as i64,
            d.second as i64,
            d.micro as i64,
            false,
        ),
        Source::Time(t) => (
            Date::default(),
            t.hours as i64 / 24,
            t.hours as i64 % 24,
            t.minute as i64,
            t.second as i64,
            t.micro as i64,
            t.negative,
        ),
    };
    let dh = day * 100 + hour;
    let hm = hour * 100 + minute;
    let v = match unit {
        Unit::Year => date.year as i64,
        Unit::Quarter => (date.month as i64 + 2) / 3,
        Unit::Month => date.month as i64,
        Unit::Week => {
            let (week, _) = super::clock::calc_week(date, super::clock::week_mode(0));
            week as i64
        }
        Unit::Day => day,
        Unit::Hour => hour,
        Unit::Minute => minute,
        Unit::Second => second,
        Unit::Microsecond => micro,
        Unit::YearMonth => date.year as i64 * 100 + date.month as i64,
        Unit::DayHour => dh,
        Unit::DayMinute => dh * 100 + minute,
        Unit::DaySecond => (dh * 100 + minute) * 100 + second,
        Unit::DayMicrosecond => ((dh * 100 + minute) * 100 + second) * 1_000_000 + micro,
        Unit::HourMinute => hm,
        Unit::HourSecond => hm * 100 + second,
        Unit::HourMicrosecond => (hm * 100 + second) * 1_000_000 + micro,
        Unit::MinuteSecond => minute * 100 + second,
        Unit::MinuteMicrosecond => (minute * 100 + second) * 1_000_000 + micro,
        Unit::SecondMicrosecond => second * 1_000_000 + micro,
    };
    if neg {
        -v
    } else {
        v
    }
}

/// The display width of EXTRACT's result, by unit, as MariaDB reports it: the
/// day part takes 2 digits from a temporal argument, 7 from any other.
pub fn extract_len(unit: Unit, temporal_arg: bool) -> u32 {
    let day = if temporal_arg { 2 } else { 7 };
    match unit {
        Unit::Quarter => 1,
        Unit::Month | Unit::Week => 2,
        Unit::Hour | Unit::Minute | Unit::Second => 3,
        Unit::Year => 4,
        Unit::HourMinute | Unit::MinuteSecond => 5,
        Unit::YearMonth => 6,
        Unit::Microsecond | Unit::HourSecond => 7,
        Unit::SecondMicrosecond => 9,
        Unit::MinuteMicrosecond => 11,
        Unit::HourMicrosecond => 13,
        Unit::Day => day + 1,
        Unit::DayHour => day + 3,
        Unit::DayMinute => day + 5,
        Unit::DaySecond => day + 7,
        Unit::DayMicrosecond => day + 13,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans() {
        let h = 3_600_000_000i64;
        assert_eq!(
            compound_span(Unit::DayHour, b"1 2"),
            Some(Span::Micros(26 * h))
        );
        assert_eq!(
            compound_span(Unit::DayHour, b"-1 2"),
            Some(Span::Micros(-26 * h))
        );
        assert_eq!(
            compound_span(Unit::DayHour, b"2"),
            Some(Span::Micros(2 * h))
        );
        assert_eq!(compound_span(Unit::DayHour, b"1:2:3"), None);
        assert_eq!(compound_span(Unit::DayHour, b"x"), Some(Span::Micros(0)));
        assert_eq!(
            compound_span(Unit::SecondMicrosecond, b"1.5"),
            Some(Span::Micros(1_500_000))
        );
        assert_eq!(
            compound_span(Unit::YearMonth, b"1-2"),
            Some(Span::Months(14))
        );
        assert_eq!(
            compound_span(Unit::HourMinute, b"1.5"),
            Some(Span::Micros(h + 5 * 60_000_000))
        );
        assert_eq!(
            compound_span(Unit::DayMicrosecond, b"1 1:1:1.000002"),
            Some(Span::Micros(25 * h + 61_000_000 + 2))
        );
    }

    #[test]
    fn extracts() {
        let dt = DateTime::parse("2020-01-02 03:04:05.25").expect("dt");
        let src = Source::DateTime(dt);
        assert_eq!(extract(Unit::DayHour, &src), 203);
        assert_eq!(extract(Unit::DayMicrosecond, &src), 2_030_405_250_000);
        assert_eq!(extract(Unit::YearMonth, &src), 202_001);
        let t = Source::Time(Time::parse("-30:04:05").expect("t"));
        assert_eq!(extract(Unit::Hour, &t), -6);
        assert_eq!(extract(Unit::Day, &t), -1);
    }
}
