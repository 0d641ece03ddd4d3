//! More date and time functions: time arithmetic (ADDTIME, SUBTIME, TIMEDIFF,
//! TIMESTAMPADD, SEC_TO_TIME, TIME_TO_SEC), constructors (MAKEDATE, MAKETIME,
//! TIMESTAMP), calendar parts (WEEK, YEARWEEK, WEEKOFYEAR, QUARTER, MICROSECOND,
//! TO_SECONDS), periods (PERIOD_ADD, PERIOD_DIFF), STR_TO_DATE, TIME_FORMAT and
//! FROM_UNIXTIME(ts, format).
//!
//! Week numbers follow MariaDB's `calc_week()`: a mode's three bits say whether
//! weeks start on Monday, whether the week may belong to the neighbouring year,
//! and whether week 1 is the first week with a start day (rather than the first
//! with four or more days). TIME values are kept as signed microseconds and
//! clamped to MariaDB's range of ±838:59:59.999999.

use crate::expr::cast::{to_calendar, to_datetime, to_time};
use crate::expr::{EvalCtx, R};
use crate::ty::{Class, ExprType};
use crate::value::temporal::{add_interval, Unit};
use crate::value::{to_bytes, to_num};
use basalt_common::{Collation, ColumnType, Date, DateTime, Decimal, Time, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockFn {
    AddTime,
    SubTime,
    TimeDiff,
    TimestampAdd,
    MakeDate,
    MakeTime,
    PeriodAdd,
    PeriodDiff,
    Week,
    YearWeek,
    WeekOfYear,
    Quarter,
    Microsecond,
    SecToTime,
    TimeToSec,
    ToSeconds,
    Timestamp,
    StrToDate,
    TimeFormat,
    FromUnixtimeFormat,
    GetFormat,
    /// `EXTRACT(unit FROM x)` (bound from the front end's `` `extract()` `` call).
    Extract(Unit),
}

pub fn lookup(name: &str) -> Option<(ClockFn, usize, usize)> {
    use ClockFn::*;
    Some(match name {
        "addtime" => (AddTime, 2, 2),
        "subtime" => (SubTime, 2, 2),
        "timediff" => (TimeDiff, 2, 2),
        "timestampadd" => (TimestampAdd, 3, 3),
        "makedate" => (MakeDate, 2, 2),
        "maketime" => (MakeTime, 3, 3),
        "period_add" => (PeriodAdd, 2, 2),
        "period_diff" => (PeriodDiff, 2, 2),
        "week" => (Week, 1, 2),
        "yearweek" => (YearWeek, 1, 2),
        "weekofyear" => (WeekOfYear, 1, 1),
        "quarter" => (Quarter, 1, 1),
        "microsecond" => (Microsecond, 1, 1),
        "sec_to_time" => (SecToTime, 1, 1),
        "time_to_sec" => (TimeToSec, 1, 1),
        "to_seconds" => (ToSeconds, 1, 1),
        "timestamp" => (Timestamp, 1, 2),
        "str_to_date" => (StrToDate, 2, 2),
        "time_format" => (TimeFormat, 2, 2),
        "get_format" => (GetFormat, 2, 2),
        _ => return None,
    })
}

/// Fractional digits of an argument: its type's, or for a constant string the
/// digits it actually has (MariaDB evaluates constants for their precision).
fn fsp_of(t: &ExprType, c: Option<&Value>) -> u8 {
    match (t.class, c) {
        (Class::String, Some(Value::Bytes(b))) => {
            let s = String::from_utf8_lossy(b);
            s.rsplit_once('.')
                .map_or(0, |(_, f)| {
                    f.chars().take_while(char::is_ascii_digit).count()
                })
                .min(6) as u8
        }
        (Class::Int, _) | (Class::Date, _) | (Class::Null, _) => 0,
        (Class::Decimal, _) => t.decimals.min(6),
        _ => t.decimals.min(6),
    }
}

fn char_string(len: u32) -> ExprType {
    let mut t = ExprType::string(len, Collation::Utf8mb4GeneralCi).nullable(true);
    t.column_type = Some(ColumnType::String);
    t
}

/// Result type of `f(args)`; `consts` holds the values of constant arguments.
pub fn result_type(f: ClockFn, args: &[ExprType], consts: &[Option<Value>]) -> ExprType {
    use ClockFn::*;
    let fsp = |i: usize| {
        args.get(i)
            .map_or(0, |t| fsp_of(t, consts.get(i).and_then(Option::as_ref)))
    };
    let int = |n: u32| ExprType::int(n).nullable(true);
    match f {
        Extract(u) => {
            let temporal = matches!(args[0].class, Class::Date | Class::DateTime | Class::Time);
            // MariaDB sends EXTRACT as INT up to 10 characters.
            match super::units::extract_len(u, temporal) {
                n if n <= 10 => ExprType::long(n).nullable(true),
                n => int(n),
            }
        }
        AddTime | SubTime => match args[0].class {
            Class::DateTime | Class::Date => ExprType::datetime(fsp(0).max(fsp(1))).nullable(true),
            Class::Time => ExprType::time(fsp(0).max(fsp(1))).nullable(true),
            Class::Null => {
                let mut t = char_string(19);
                t.decimals = 0;
                t
            }
            _ => char_string(26),
        },
        TimeDiff => ExprType::time(fsp(0).max(fsp(1))).nullable(true),
        TimestampAdd => {
            let unit = consts.first().and_then(|c| c.as_ref()).and_then(unit_of);
            let time_unit = matches!(
                unit,
                Some(Unit::Hour | Unit::Minute | Unit::Second | Unit::Microsecond)
            );
            match args[2].class {
                Class::Date if !time_unit => ExprType::date().nullable(true),
                Class::Date | Class::DateTime => {
                    let micro = if unit == Some(Unit::Microsecond) {
                        6
                    } else {
                        0
                    };
                    ExprType::datetime(fsp(2).max(micro)).nullable(true)
                }
                _ => {
                    let mut t = char_string(19 + u32::from(fsp(2) > 0) + fsp(2) as u32);
                    t.decimals = fsp(2);
                    t
                }
            }
        }
        MakeDate => ExprType::date().nullable(true),
        MakeTime => ExprType::time(fsp(2)).nullable(true),
        SecToTime => ExprType::time(match args[0].class {
            Class::String => 6,
            _ => fsp(0),
        })
        .nullable(true),
        PeriodAdd | PeriodDiff => int(6),
        Week | WeekOfYear => int(2),
        YearWeek => int(6),
        Quarter => int(1),
        Microsecond => int(6),
        TimeToSec if fsp(0) > 0 => ExprType::decimal(17, fsp(0)).nullable(true),
        TimeToSec => {
            let mut t = int(17);
            t.column_type = Some(ColumnType::LongLong);
            t
        }
        ToSeconds => {
            let mut t = int(12);
            t.column_type = Some(ColumnType::LongLong);
            t
        }
        Timestamp => ExprType::datetime(fsp(0).max(fsp(1))).nullable(true),
        StrToDate => str_to_date_type(consts.get(1).and_then(Option::as_ref)),
        TimeFormat | FromUnixtimeFormat | GetFormat => {
            let mut t = ExprType::string(64, Collation::Utf8mb3GeneralCi).nullable(true);
            t.decimals = 0;
            t
        }
    }
}

/// STR_TO_DATE's type follows its (constant) format: DATE, TIME or DATETIME.
fn str_to_date_type(fmt: Option<&Value>) -> ExprType {
    let Some(Value::Bytes(f)) = fmt else {
        return ExprType::datetime(6).nullable(true);
    };
    let (mut date, mut time, mut frac) = (false, false, false);
    let mut it = f.iter();
    while let Some(&c) = it.next() {
        if c != b'%' {
            continue;
        }
        match it.next() {
            Some(b'f') => {
                time = true;
                frac = true
            }
            Some(b'H' | b'k' | b'h' | b'I' | b'l' | b'i' | b's' | b'S' | b'p' | b'r' | b'T') => {
                time = true
            }
            Some(b'%') | None => {}
            Some(_) => date = true,
        }
    }
    let fsp = if frac { 6 } else { 0 };
    match (date, time) {
        (_, false) => ExprType::date(),
        (false, true) => ExprType::time(fsp),
        _ => ExprType::datetime(fsp),
    }
    .nullable(true)
}

fn unit_of(v: &Value) -> Option<Unit> {
    Unit::from_name(&String::from_utf8_lossy(&to_bytes(v)))
}

fn int_arg(v: &Value) -> i64 {
    to_num(v).0.to_i64().unwrap_or(i64::MAX)
}

const MAX_TIME_MICROS: i64 = (838 * 3600 + 59 * 60 + 59) * 1_000_000 + 999_999;

/// A TIME from signed microseconds, clamped to MariaDB's range.
pub fn time_from_micros(us: i64) -> Time {
    let negative = us < 0;
    let a = us.unsigned_abs().min(MAX_TIME_MICROS as u64) as i64;
    let a = if a > 838 * 3_600_000_000 + 59 * 60_000_000 + 59_000_000 {
        (838 * 3600 + 59 * 60 + 59) * 1_000_000
    } else {
        a
    };
    let secs = a / 1_000_000;
    Time {
        negative: negative && a != 0,
        hours: (secs / 3600) as u16,
        minute: (secs / 60 % 60) as u8,
        second: (secs % 60) as u8,
        micro: (a % 1_000_000) as u32,
    }
}

fn micros_of(dt: &DateTime) -> i128 {
    (dt.date.to_days() as i128 * 86_400
        + dt.hour as i128 * 3600
        + dt.minute as i128 * 60
        + dt.second as i128)
        * 1_000_000
        + dt.micro as i128
}

fn datetime_from_micros(us: i128) -> Option<DateTime> {
    if us < 0 {
        return None;
    }
    let days = (us / 86_400_000_000) as i64;
    let rest = (us % 86_400_000_000) as i64;
    let date = date_from_days(days)?;
    let secs = rest / 1_000_000;
    Some(DateTime {
        date,
        hour: (secs / 3600) as u8,
        minute: (secs / 60 % 60) as u8,
        second: (secs % 60) as u8,
        micro: (rest % 1_000_000) as u32,
    })
}

/// The date of MariaDB's day number (TO_DAYS numbering); None beyond year 9999.
pub fn date_from_days(n: i64) -> Option<Date> {
    if !(366..=3_652_424).contains(&n) {
        return None;
    }
    let dt = DateTime::from_unix_seconds((n - 719_528) * 86_400, 0);
    Some(dt.date)
}

/// Whether a value is (or its text reads as) a date with a time, not a bare TIME.
fn has_date(v: &Value) -> bool {
    match v {
        Value::Date(_) | Value::DateTime(_) => true,
        Value::Bytes(b) => {
            let s = String::from_utf8_lossy(b);
            let t = s.trim();
            DateTime::parse(t).is_some()
                && (Time::parse(t).is_none() || (t.contains('-') && !t.starts_with('-')))
        }
        _ => false,
    }
}

fn text_time(t: &Time) -> Value {
    Value::str(&t.display(if t.micro > 0 { 6 } else { 0 }).to_string())
}

fn text_datetime(d: &DateTime) -> Value {
    Value::str(&d.display(if d.micro > 0 { 6 } else { 0 }).to_string())
}

pub fn eval(f: ClockFn, vals: Vec<Value>, ctx: &mut EvalCtx) -> R {
    use ClockFn::*;
    if vals.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    Ok(match f {
        Extract(u) => super::units::source(&vals[0], u, ctx)
            .map_or(Value::Null, |s| Value::Int(super::units::extract(u, &s))),
        AddTime | SubTime => add_time(&vals, f == SubTime, ctx),
        TimeDiff => time_diff(&vals, ctx),
        TimestampAdd => timestamp_add(&vals, ctx),
        MakeDate => {
            let (y, d) = (int_arg(&vals[0]), int_arg(&vals[1]));
            if d <= 0 || !(0..=9999).contains(&y) {
                return Ok(Value::Null);
            }
            let y = if y < 70 {
                y + 2000
            } else if y < 100 {
                y + 1900
            } else {
                y
            };
            let first = Date::new(y as u16, 1, 1).to_days();
            date_from_days(first + d - 1).map_or(Value::Null, Value::Date)
        }
        MakeTime => make_time(&vals, ctx),
        PeriodAdd => {
            let (p, n) = (int_arg(&vals[0]), int_arg(&vals[1]));
            if p == 0 {
                return Ok(Value::Int(0));
            }
            let m = period_to_months(p) + n;
            Value::Int(m / 12 * 100 + m % 12 + 1)
        }
        PeriodDiff => {
            Value::Int(period_to_months(int_arg(&vals[0])) - period_to_months(int_arg(&vals[1])))
        }
        Week | YearWeek | WeekOfYear => {
            let Some(dt) = to_calendar(&vals[0], ctx, false) else {
                return Ok(Value::Null);
            };
            let mode = match f {
                WeekOfYear => 3,
                _ => vals
                    .get(1)
                    .map_or_else(|| ctx.cx.var_u64("default_week_format") as i64, int_arg),
            };
            let mut wm = week_mode(mode as u32);
            if f == YearWeek {
                wm |= WEEK_YEAR;
            }
            let (week, year) = calc_week(dt.date, wm);
            Value::Int(if f == YearWeek {
                year as i64 * 100 + week as i64
            } else {
                week as i64
            })
        }
        Quarter => to_datetime(&vals[0], ctx)
            .map_or(Value::Null, |d| Value::Int((d.date.month as i64 + 2) / 3)),
        Microsecond => to_time(&vals[0], ctx).map_or(Value::Null, |t| Value::Int(t.micro as i64)),
        SecToTime => sec_to_time(&vals[0], ctx),
        TimeToSec => match to_time(&vals[0], ctx) {
            Some(t) if t.micro > 0 => Value::Decimal(Decimal::new(t.total_micros() as i128, 6)),
            Some(t) => Value::Int(t.total_micros() / 1_000_000),
            None => Value::Null,
        },
        ToSeconds => to_calendar(&vals[0], ctx, false).map_or(Value::Null, |d| {
            Value::Int(
                d.date.to_days() * 86_400
                    + d.hour as i64 * 3600
                    + d.minute as i64 * 60
                    + d.second as i64,
            )
        }),
        Timestamp => {
            let Some(dt) = to_datetime(&vals[0], ctx) else {
                return Ok(Value::Null);
            };
            match vals.get(1) {
                None => Value::DateTime(dt),
                Some(t) => match to_time(t, ctx) {
                    Some(t) => datetime_from_micros(micros_of(&dt) + t.total_micros() as i128)
                        .map_or(Value::Null, Value::DateTime),
                    None => Value::Null,
                },
            }
        }
        StrToDate => super::clock_parse::str_to_date(&vals[0], &vals[1], ctx)?,
        TimeFormat => match to_time(&vals[0], ctx) {
            Some(t) => Value::str(&time_format(
                &t,
                &String::from_utf8_lossy(&to_bytes(&vals[1])),
            )),
            None => Value::Null,
        },
        GetFormat => get_format(&vals[0], &vals[1]),
        FromUnixtimeFormat => {
            let secs = to_num(&vals[0]).0.to_i64().unwrap_or(-1);
            if secs < 0 {
                return Ok(Value::Null);
            }
            let dt = ctx.cx.local(DateTime::from_unix_seconds(secs, 0));
            let fmt = String::from_utf8_lossy(&to_bytes(&vals[1])).into_owned();
            super::time::date_format(&dt, &fmt).map_or(Value::Null, |s| Value::str(&s))
        }
    })
}

/// GET_FORMAT(DATE|TIME|DATETIME|TIMESTAMP, 'EUR'|'USA'|'JIS'|'ISO'|'INTERNAL').
fn get_format(kind: &Value, std: &Value) -> Value {
    let kind = String::from_utf8_lossy(&to_bytes(kind)).to_ascii_lowercase();
    let std = String::from_utf8_lossy(&to_bytes(std)).to_ascii_lowercase();
    let i = match std.as_str() {
        "usa" => 0,
        "jis" => 1,
        "iso" => 2,
        "eur" => 3,
        "internal" => 4,
        _ => return Value::Null,
    };
    let table: [&str; 5] = match kind.as_str() {
        "date" => ["%m.%d.%Y", "%Y-%m-%d", "%Y-%m-%d", "%d.%m.%Y", "%Y%m%d"],
        "datetime" | "timestamp" => [
            "%Y-%m-%d %H.%i.%s",
            "%Y-%m-%d %H:%i:%s",
            "%Y-%m-%d %H:%i:%s",
            "%Y-%m-%d %H.%i.%s",
            "%Y%m%d%H%i%s",
        ],
        "time" => ["%h:%i:%s %p", "%H:%i:%s", "%H:%i:%s", "%H.%i.%s", "%H%i%s"],
        _ => return Value::Null,
    };
    Value::str(table[i])
}

fn period_to_months(p: i64) -> i64 {
    if p == 0 {
        return 0;
    }
    let mut y = p / 100;
    if y < 70 {
        y += 2000;
    } else if y < 100 {
        y += 1900;
    }
    y * 12 + p % 100 - 1
}

fn add_time(vals: &[Value], sub: bool, ctx: &mut EvalCtx) -> Value {
    let Some(d) = to_time_strict(&vals[1], ctx) else {
        return Value::Null;
    };
    let delta = if sub {
        -d.total_micros()
    } else {
        d.total_micros()
    } as i128;
    if has_date(&vals[0]) {
        let Some(dt) = to_datetime(&vals[0], ctx) else {
            return Value::Null;
        };
        let r = datetime_from_micros(micros_of(&dt) + delta);
        return match (r, &vals[0]) {
            (Some(r), Value::Bytes(_)) => text_datetime(&r),
            (Some(r), _) => Value::DateTime(r),
            (None, _) => Value::Null,
        };
    }
    let Some(t) = to_time_strict(&vals[0], ctx) else {
        ctx.warn(
            basalt_common::error::code::ER_TRUNCATED_WRONG_VALUE,
            format!(
                "Incorrect time value: '{}'",
                String::from_utf8_lossy(&to_bytes(&vals[0]))
            ),
        );
        return Value::Null;
    };
    let r = time_from_micros((t.total_micros() as i128 + delta) as i64);
    match &vals[0] {
        Value::Bytes(_) => text_time(&r),
        _ => Value::Time(r),
    }
}

/// A TIME argument, None for a value that is a date with a time of day.
fn to_time_strict(v: &Value, ctx: &mut EvalCtx) -> Option<Time> {
    match v {
        Value::DateTime(_) | Value::Date(_) => None,
        Value::Bytes(b) if has_date(v) => {
            let _ = b;
            None
        }
        Value::Bytes(b) => Time::parse(&String::from_utf8_lossy(b)),
        _ => to_time(v, ctx),
    }
}

fn time_diff(vals: &[Value], ctx: &mut EvalCtx) -> Value {
    let (a, b) = (has_date(&vals[0]), has_date(&vals[1]));
    let us = if a && b {
        match (to_datetime(&vals[0], ctx), to_datetime(&vals[1], ctx)) {
            (Some(x), Some(y)) => micros_of(&x) - micros_of(&y),
            _ => return Value::Null,
        }
    } else if !a && !b {
        match (to_time_strict(&vals[0], ctx), to_time_strict(&vals[1], ctx)) {
            (Some(x), Some(y)) => (x.total_micros() - y.total_micros()) as i128,
            _ => return Value::Null,
        }
    } else {
        return Value::Null;
    };
    if us.unsigned_abs() > MAX_TIME_MICROS as u128 {
        let secs = us.unsigned_abs() / 1_000_000;
        let sign = if us < 0 { "-" } else { "" };
        ctx.warn(
            basalt_common::error::code::ER_TRUNCATED_WRONG_VALUE,
            format!(
                "Truncated incorrect time value: '{sign}{}:{:02}:{:02}'",
                secs / 3600,
                secs / 60 % 60,
                secs % 60
            ),
        );
    }
    Value::Time(time_from_micros(
        us.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
    ))
}

fn timestamp_add(vals: &[Value], ctx: &mut EvalCtx) -> Value {
    let Some(unit) = unit_of(&vals[0]) else {
        return Value::Null;
    };
    let Some(dt) = to_datetime(&vals[2], ctx) else {
        return Value::Null;
    };
    let n = int_arg(&vals[1]);
    let time_unit = matches!(
        unit,
        Unit::Hour | Unit::Minute | Unit::Second | Unit::Microsecond
    );
    match (add_interval(dt, n, unit), &vals[2]) {
        (Some(r), Value::Date(_)) if !time_unit => Value::Date(r.date),
        (Some(r), Value::Bytes(b)) if !time_unit && !b.contains(&b':') => {
            Value::str(&r.date.to_string())
        }
        (Some(r), Value::Bytes(_)) => text_datetime(&r),
        (Some(r), _) => Value::DateTime(r),
        (None, _) => Value::Null,
    }
}

fn make_time(vals: &[Value], ctx: &mut EvalCtx) -> Value {
    let h = int_arg(&vals[0]);
    let m = int_arg(&vals[1]);
    let s = to_num(&vals[2]).0.to_decimal();
    let secs = s.rescale(6).map_or(i128::MAX, |d| d.mantissa);
    if !(0..60).contains(&m) || !(0..60_000_000).contains(&secs) {
        if (60_000_000..).contains(&secs) {
            ctx.warn(
                basalt_common::error::code::ER_TRUNCATED_WRONG_VALUE,
                format!(
                    "Truncated incorrect seconds value: '{}'",
                    String::from_utf8_lossy(&to_bytes(&vals[2]))
                ),
            );
        }
        return Value::Null;
    }
    let us = (h.unsigned_abs() as i128 * 3600 + m as i128 * 60) * 1_000_000 + secs;
    let us = us.min(i64::MAX as i128) as i64;
    let t = time_from_micros(if h < 0 { -us } else { us });
    Value::Time(t)
}

fn sec_to_time(v: &Value, ctx: &mut EvalCtx) -> Value {
    let d = to_num(v).0.to_decimal();
    let us = d.rescale(6).map_or(i128::MAX, |x| x.mantissa);
    if us.unsigned_abs() > MAX_TIME_MICROS as u128 {
        ctx.warn(
            basalt_common::error::code::ER_TRUNCATED_WRONG_VALUE,
            format!(
                "Truncated incorrect seconds value: '{}'",
                String::from_utf8_lossy(&to_bytes(v))
            ),
        );
    }
    Value::Time(time_from_micros(
        us.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
    ))
}

pub const WEEK_MONDAY_FIRST: u32 = 1;
pub const WEEK_YEAR: u32 = 2;
pub const WEEK_FIRST_WEEKDAY: u32 = 4;

/// The `calc_week()` flags of a WEEK() mode.
pub fn week_mode(mode: u32) -> u32 {
    let mut m = mode & 7;
    if m & WEEK_MONDAY_FIRST == 0 {
        m ^= WEEK_FIRST_WEEKDAY;
    }
    m
}

fn days_in_year(y: i64) -> i64 {
    if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 {
        366
    } else {
        365
    }
}

/// MariaDB's `calc_week()`: (week, year the week belongs to).
pub fn calc_week(d: Date, flags: u32) -> (u32, u16) {
    let daynr = d.to_days();
    let mut first_daynr = Date::new(d.year, 1, 1).to_days();
    let monday_first = flags & WEEK_MONDAY_FIRST != 0;
    let mut week_year = flags & WEEK_YEAR != 0;
    let first_weekday = flags & WEEK_FIRST_WEEKDAY != 0;
    let mut weekday = (first_daynr + 5 + i64::from(!monday_first)).rem_euclid(7);
    let mut year = d.year as i64;
    let late_start = |wd: i64| (first_weekday && wd != 0) || (!first_weekday && wd >= 4);
    if d.month == 1 && (d.day as i64) <= 7 - weekday {
        if !week_year && late_start(weekday) {
            return (0, year as u16);
        }
        week_year = true;
        year -= 1;
        let days = days_in_year(year);
        first_daynr -= days;
        weekday = (weekday + 53 * 7 - days).rem_euclid(7);
    }
    let days = if late_start(weekday) {
        daynr - (first_daynr + (7 - weekday))
    } else {
        daynr - (first_daynr - weekday)
    };
    if week_year && days >= 52 * 7 {
        let wd = (weekday + days_in_year(year)).rem_euclid(7);
        if (!first_weekday && wd < 4) || (first_weekday && wd == 0) {
            return (1, (year + 1) as u16);
        }
    }
    ((days / 7 + 1) as u32, year as u16)
}

/// TIME_FORMAT: the hour, minute, second and fraction specifiers of DATE_FORMAT
/// on a TIME (hours beyond 23 kept); date specifiers give NULL-like zeros.
pub fn time_format(t: &Time, fmt: &str) -> String {
    let mut out = String::new();
    if t.negative {
        out.push('-');
    }
    let h = t.hours as u32;
    let h12 = if (h % 24).is_multiple_of(12) {
        12
    } else {
        (h % 24) % 12
    };
    let pm = h % 24 >= 12;
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(s) = chars.next() else { break };
        match s {
            'H' => out.push_str(&format!("{h:02}")),
            'k' => out.push_str(&h.to_string()),
            'h' | 'I' => out.push_str(&format!("{h12:02}")),
            'l' => out.push_str(&h12.to_string()),
            'i' => out.push_str(&format!("{:02}", t.minute)),
            's' | 'S' => out.push_str(&format!("{:02}", t.second)),
            'f' => out.push_str(&format!("{:06}", t.micro)),
            'p' => out.push_str(if pm { "PM" } else { "AM" }),
            'T' => out.push_str(&format!("{h:02}:{:02}:{:02}", t.minute, t.second)),
            'r' => out.push_str(&format!(
                "{h12:02}:{:02}:{:02} {}",
                t.minute,
                t.second,
                if pm { "PM" } else { "AM" }
            )),
            '%' => out.push('%'),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Date {
        Date::parse(s).expect("date")
    }

    #[test]
    fn weeks_match_mariadb() {
        assert_eq!(calc_week(d("2008-02-20"), week_mode(0)).0, 7);
        assert_eq!(calc_week(d("2008-02-20"), week_mode(1)).0, 8);
        assert_eq!(calc_week(d("2008-12-31"), week_mode(1)).0, 53);
        assert_eq!(calc_week(d("2008-01-01"), week_mode(2)).0, 52);
        assert_eq!(calc_week(d("2000-01-01"), week_mode(7)).0, 52);
        assert_eq!(
            calc_week(d("1987-01-01"), week_mode(0) | WEEK_YEAR),
            (52, 1986)
        );
        assert_eq!(
            calc_week(d("2008-12-31"), week_mode(1) | WEEK_YEAR),
            (1, 2009)
        );
    }

    #[test]
    fn time_clamps_to_range() {
        let t = time_from_micros(99_999_999 * 1_000_000);
        assert_eq!((t.hours, t.minute, t.second), (838, 59, 59));
        let t = time_from_micros(-2378 * 1_000_000);
        assert!(t.negative);
        assert_eq!((t.hours, t.minute, t.second), (0, 39, 38));
    }

    #[test]
    fn periods() {
        assert_eq!(period_to_months(200802) - period_to_months(200703), 11);
        let m = period_to_months(9901) + 13;
        assert_eq!(m / 12 * 100 + m % 12 + 1, 200002);
    }
}
