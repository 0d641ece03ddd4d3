//! Date and time functions. NOW() and friends return the statement's start time,
//! so they are constant within a statement (SYSDATE() reads the clock each call),
//! in the session's `time_zone` (the UTC_* ones in UTC).

use super::Func;
use crate::expr::cast::{to_calendar, to_datetime, to_time};
use crate::expr::{EvalCtx, R};
use crate::value::temporal::{add_interval, now, truncate_fsp, Unit};
use crate::value::{to_bytes, to_num};
use basalt_common::{DateTime, Decimal, Time, Value};

fn fsp_arg(vals: &[Value]) -> u8 {
    vals.first()
        .map_or(0, |v| to_num(v).0.to_i64().unwrap_or(0).clamp(0, 6) as u8)
}

pub fn eval(f: Func, vals: Vec<Value>, ctx: &mut EvalCtx) -> R {
    use Func::*;
    let utc = ctx.cx.stmt_time;
    match f {
        Now => Ok(Value::DateTime(truncate_fsp(
            ctx.cx.local(utc),
            fsp_arg(&vals),
        ))),
        UtcTimestamp => Ok(Value::DateTime(truncate_fsp(utc, fsp_arg(&vals)))),
        SysDate => Ok(Value::DateTime(truncate_fsp(
            ctx.cx.local(now()),
            fsp_arg(&vals),
        ))),
        CurDate => Ok(Value::Date(ctx.cx.local(utc).date)),
        UtcDate => Ok(Value::Date(utc.date)),
        CurTime | UtcTime => {
            let at = if f == UtcTime { utc } else { ctx.cx.local(utc) };
            let t = truncate_fsp(at, fsp_arg(&vals));
            Ok(Value::Time(Time {
                negative: false,
                hours: t.hour as u16,
                minute: t.minute,
                second: t.second,
                micro: t.micro,
            }))
        }
        UnixTimestamp if vals.is_empty() => Ok(Value::UInt(utc.unix_seconds().max(0) as u64)),
        _ if vals.iter().any(Value::is_null) => Ok(Value::Null),
        UnixTimestamp => Ok(unix_timestamp(&vals[0], ctx)),
        FromUnixtime => {
            let secs = to_num(&vals[0]).0.to_i64().unwrap_or(-1);
            Ok(if secs < 0 {
                Value::Null
            } else {
                Value::DateTime(ctx.cx.local(DateTime::from_unix_seconds(secs, 0)))
            })
        }
        DateOf => Ok(to_datetime(&vals[0], ctx).map_or(Value::Null, |d| Value::Date(d.date))),
        TimeOf => Ok(to_time(&vals[0], ctx).map_or(Value::Null, Value::Time)),
        Year | Month | DayOfMonth => Ok(date_part(f, &vals[0], ctx)),
        DayOfWeek | DayOfYear => Ok(match to_calendar(&vals[0], ctx, false) {
            Some(dt) => date_part(f, &Value::DateTime(dt), ctx),
            None => Value::Null,
        }),
        Hour | Minute | Second => Ok(time_part(f, &vals[0], ctx)),
        DateDiff => {
            let a = to_calendar(&vals[0], ctx, false);
            let b = to_calendar(&vals[1], ctx, false);
            Ok(match (a, b) {
                (Some(a), Some(b)) => Value::Int(a.date.to_days() - b.date.to_days()),
                _ => Value::Null,
            })
        }
        DateAdd(unit) | DateSub(unit) => {
            let Some(dt) = to_calendar(&vals[0], ctx, true) else {
                return Ok(Value::Null);
            };
            let sub = matches!(f, DateSub(_));
            let time_unit = unit.has_time();
            let (n, unit) = match interval_amount(unit, &vals[1], sub) {
                Some(x) => x,
                None => return Ok(Value::Null),
            };
            let date_only = match &vals[0] {
                Value::Date(_) => true,
                Value::Bytes(b) => crate::value::parse_datetime(b).is_some() && !b.contains(&b':'),
                _ => false,
            };
            let was_date = date_only && !time_unit;
            let as_text = matches!(vals[0], Value::Bytes(_));
            Ok(match add_interval(dt, n, unit) {
                Some(r) if was_date && as_text => Value::str(&r.date.to_string()),
                Some(r) if was_date => Value::Date(r.date),
                Some(r) if as_text => {
                    Value::str(&r.display(if r.micro > 0 { 6 } else { 0 }).to_string())
                }
                Some(r) => Value::DateTime(r),
                None => Value::Null,
            })
        }
        ToDays => {
            Ok(to_calendar(&vals[0], ctx, false)
                .map_or(Value::Null, |d| Value::Int(d.date.to_days())))
        }
        FromDays => {
            let n = to_num(&vals[0]).0.to_i64().unwrap_or(0);
            let dt = DateTime::from_unix_seconds((n - 719_528) * 86_400, 0);
            Ok(if n < 366 {
                Value::Date(Default::default())
            } else {
                Value::Date(dt.date)
            })
        }
        Weekday => Ok(to_calendar(&vals[0], ctx, false).map_or(Value::Null, |d| {
            Value::Int((d.date.to_days() + 5).rem_euclid(7))
        })),
        DayName => Ok(to_calendar(&vals[0], ctx, false).map_or(Value::Null, |d| {
            Value::str(DAYS[(d.date.to_days() + 5).rem_euclid(7) as usize])
        })),
        MonthName => Ok(to_datetime(&vals[0], ctx)
            .and_then(|d| MONTHS.get((d.date.month as usize).wrapping_sub(1)).copied())
            .map_or(Value::Null, Value::str)),
        // A zero day is allowed; a zero month is NULL.
        LastDay => Ok(to_datetime(&vals[0], ctx)
            .filter(|d| d.date.month != 0)
            .map_or(Value::Null, |d| {
                let first =
                    DateTime::from_date(basalt_common::Date::new(d.date.year, d.date.month, 1));
                add_interval(first, 1, crate::value::temporal::Unit::Month)
                    .and_then(|n| add_interval(n, -1, crate::value::temporal::Unit::Day))
                    .map_or(Value::Null, |l| Value::Date(l.date))
            })),
        TimestampDiff => {
            let unit = crate::value::temporal::Unit::from_name(&String::from_utf8_lossy(
                &to_bytes(&vals[0]),
            ));
            let (Some(unit), Some(a), Some(b)) = (
                unit,
                to_calendar(&vals[1], ctx, false),
                to_calendar(&vals[2], ctx, false),
            ) else {
                return Ok(Value::Null);
            };
            Ok(Value::Int(timestamp_diff(unit, a, b)))
        }
        DateFormat => {
            let Some(dt) = to_datetime(&vals[0], ctx) else {
                return Ok(Value::Null);
            };
            let fmt = String::from_utf8_lossy(&to_bytes(&vals[1])).into_owned();
            Ok(date_format(&dt, &fmt).map_or(Value::Null, |s| Value::str(&s)))
        }
        _ => Ok(Value::Null),
    }
}

/// UNIX_TIMESTAMP(v): NULL for a date with a zero part (the zero date without a
/// warning).
fn unix_timestamp(v: &Value, ctx: &mut EvalCtx) -> Value {
    let zero = to_datetime(v, ctx).map(|d| d.date.is_zero());
    if zero != Some(false) {
        return Value::Null;
    }
    match to_calendar(v, ctx, false) {
        Some(d) => {
            let dt = ctx.cx.to_utc(d);
            if dt.micro == 0 {
                Value::Int(dt.unix_seconds().max(0))
            } else {
                let micros = dt.unix_seconds().max(0) as i128 * 1_000_000 + dt.micro as i128;
                Value::Decimal(Decimal::new(micros, 6))
            }
        }
        None => Value::Null,
    }
}

fn date_part(f: Func, v: &Value, ctx: &mut EvalCtx) -> Value {
    let Some(dt) = to_datetime(v, ctx) else {
        return Value::Null;
    };
    let d = dt.date;
    Value::Int(match f {
        Func::Year => d.year as i64,
        Func::Month => d.month as i64,
        Func::DayOfMonth => d.day as i64,
        Func::DayOfWeek => (d.to_days() + 6).rem_euclid(7) + 1,
        _ => d.to_days() - basalt_common::Date::new(d.year, 1, 1).to_days() + 1,
    })
}

fn time_part(f: Func, v: &Value, ctx: &mut EvalCtx) -> Value {
    let Some(t) = to_time(v, ctx) else {
        return Value::Null;
    };
    Value::Int(match f {
        Func::Hour => t.hours as i64,
        Func::Minute => t.minute as i64,
        _ => t.second as i64,
    })
}

/// TIMESTAMPDIFF(unit, a, b): whole units from `a` to `b`.
fn timestamp_diff(unit: crate::value::temporal::Unit, a: DateTime, b: DateTime) -> i64 {
    use crate::value::temporal::Unit as U;
    let micros = |d: DateTime| d.unix_seconds() as i128 * 1_000_000 + d.micro as i128;
    let diff = micros(b) - micros(a);
    let months = || {
        let m = (b.date.year as i64 * 12 + b.date.month as i64)
            - (a.date.year as i64 * 12 + a.date.month as i64);
        let rest_a = (
            a.date.day as i64,
            a.hour as i64,
            a.minute as i64,
            a.second as i64,
            a.micro as i64,
        );
        let rest_b = (
            b.date.day as i64,
            b.hour as i64,
            b.minute as i64,
            b.second as i64,
            b.micro as i64,
        );
        if m > 0 && rest_b < rest_a {
            m - 1
        } else if m < 0 && rest_b > rest_a {
            m + 1
        } else {
            m
        }
    };
    (match unit {
        U::Microsecond => diff,
        U::Second => diff / 1_000_000,
        U::Minute => diff / 60_000_000,
        U::Hour => diff / 3_600_000_000,
        U::Day => diff / 86_400_000_000,
        U::Week => diff / 604_800_000_000,
        U::Month => months() as i128,
        U::Quarter => (months() / 3) as i128,
        U::Year => (months() / 12) as i128,
        // TIMESTAMPDIFF's unit comes from `Unit::from_name`, never a compound one.
        _ => 0,
    }) as i64
}

/// The amount and unit `add_interval` adds for `INTERVAL v unit` (negated for
/// DATE_SUB): a compound unit's value read into months or microseconds (None
/// when it does not read, MariaDB's NULL).
fn interval_amount(unit: Unit, v: &Value, sub: bool) -> Option<(i64, Unit)> {
    let (n, unit) = if unit.is_compound() {
        match super::units::compound_span(unit, &to_bytes(v))? {
            super::units::Span::Months(m) => (m, Unit::Month),
            super::units::Span::Micros(u) => (u, Unit::Microsecond),
        }
    } else {
        (to_num(v).0.to_i64().unwrap_or(0), unit)
    };
    Some((if sub { -n } else { n }, unit))
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// DATE_FORMAT with the common specifiers.
/// DATE_FORMAT's text; None (NULL) when a specifier needs a part the date lacks
/// (a month name of month 0, a week day or day of year of a date without one).
pub fn date_format(dt: &DateTime, fmt: &str) -> Option<String> {
    let d = dt.date;
    let no_day = d.month == 0 && d.year == 0;
    let weekday = (d.to_days() + 5).rem_euclid(7) as usize;
    let mut out = String::new();
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(s) = chars.next() else { break };
        let h12 = if dt.hour.is_multiple_of(12) {
            12
        } else {
            dt.hour % 12
        };
        match s {
            'Y' => out.push_str(&format!("{:04}", d.year)),
            'y' => out.push_str(&format!("{:02}", d.year % 100)),
            'm' => out.push_str(&format!("{:02}", d.month)),
            'c' => out.push_str(&d.month.to_string()),
            'd' => out.push_str(&format!("{:02}", d.day)),
            'e' => out.push_str(&d.day.to_string()),
            'H' => out.push_str(&format!("{:02}", dt.hour)),
            'k' => out.push_str(&dt.hour.to_string()),
            'h' | 'I' => out.push_str(&format!("{h12:02}")),
            'l' => out.push_str(&h12.to_string()),
            'i' => out.push_str(&format!("{:02}", dt.minute)),
            's' | 'S' => out.push_str(&format!("{:02}", dt.second)),
            'f' => out.push_str(&format!("{:06}", dt.micro)),
            'p' => out.push_str(if dt.hour < 12 { "AM" } else { "PM" }),
            'M' => out.push_str(MONTHS.get((d.month as usize).wrapping_sub(1))?),
            'b' => out.push_str(&MONTHS.get((d.month as usize).wrapping_sub(1))?[..3]),
            'W' | 'a' | 'w' if no_day => return None,
            'W' => out.push_str(DAYS[weekday]),
            'a' => out.push_str(&DAYS[weekday][..3]),
            'j' if d.month == 0 || d.year == 0 => return None,
            'j' => out.push_str(&format!(
                "{:03}",
                d.to_days() - basalt_common::Date::new(d.year, 1, 1).to_days() + 1
            )),
            'T' => out.push_str(&format!("{:02}:{:02}:{:02}", dt.hour, dt.minute, dt.second)),
            'D' => out.push_str(&format!("{}{}", d.day, ordinal_suffix(d.day))),
            'w' => out.push_str(&((d.to_days() + 6).rem_euclid(7)).to_string()),
            'U' | 'u' | 'V' | 'v' | 'X' | 'x' => out.push_str(&week_spec(s, d)),
            'r' => out.push_str(&format!(
                "{h12:02}:{:02}:{:02} {}",
                dt.minute,
                dt.second,
                if dt.hour < 12 { "AM" } else { "PM" }
            )),
            '%' => out.push('%'),
            other => out.push(other),
        }
    }
    Some(out)
}

fn ordinal_suffix(day: u8) -> &'static str {
    match (day % 10, day / 10 % 10) {
        (_, 1) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    }
}

/// DATE_FORMAT's week specifiers: %U %u week numbers of modes 0 and 1, %V %v
/// those of modes 2 and 3, %X %x the years %V and %v belong to.
fn week_spec(spec: char, d: basalt_common::Date) -> String {
    use super::clock::{calc_week, WEEK_FIRST_WEEKDAY, WEEK_MONDAY_FIRST, WEEK_YEAR};
    let flags = match spec {
        'U' => WEEK_FIRST_WEEKDAY,
        'u' => WEEK_MONDAY_FIRST,
        'V' | 'X' => WEEK_YEAR | WEEK_FIRST_WEEKDAY,
        _ => WEEK_MONDAY_FIRST | WEEK_YEAR,
    };
    let (week, year) = calc_week(d, flags);
    match spec {
        'X' | 'x' => format!("{year:04}"),
        _ => format!("{week:02}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        let dt = DateTime::parse("2024-03-05 14:07:09").expect("dt");
        let f = |fmt| date_format(&dt, fmt).expect("formats");
        assert_eq!(f("%Y-%m-%d %H:%i:%s"), "2024-03-05 14:07:09");
        assert_eq!(f("%W %M %e %p"), "Tuesday March 5 PM");
        let zero_in_date = DateTime::from_date(basalt_common::Date::new(2012, 0, 0));
        assert_eq!(
            date_format(&zero_in_date, "%Y %W"),
            Some("2012 Wednesday".into())
        );
        assert_eq!(date_format(&zero_in_date, "%M"), None);
        assert_eq!(date_format(&DateTime::default(), "%w"), None);
    }
}
