//! An event's schedule: MariaDB's stored form of an `EVERY` interval
//! (`Event_parse_data::init_interval`), how SHOW CREATE EVENT prints it back
//! (`Events::reconstruct_interval_expression`), and when an event runs next.
//!
//! A recurring event's activations are `STARTS + k × interval` (k ≥ 0) up to
//! `ENDS`; month-based intervals step in the event's time zone, the others in
//! seconds.

use crate::value::temporal::{add_interval, Unit};
use crate::value::zone::Zone;
use basalt_common::MySqlError;
use basalt_storage::EventDef;

/// MariaDB's `EVEX_MAX_INTERVAL_VALUE`.
const MAX_INTERVAL: i64 = 1_000_000_000;

/// The interval units an event may repeat by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Year,
    Quarter,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    YearMonth,
    DayHour,
    DayMinute,
    DaySecond,
    HourMinute,
    HourSecond,
    MinuteSecond,
}

const NAMES: [(&str, Field); 15] = [
    ("YEAR", Field::Year),
    ("QUARTER", Field::Quarter),
    ("MONTH", Field::Month),
    ("WEEK", Field::Week),
    ("DAY", Field::Day),
    ("HOUR", Field::Hour),
    ("MINUTE", Field::Minute),
    ("SECOND", Field::Second),
    ("YEAR_MONTH", Field::YearMonth),
    ("DAY_HOUR", Field::DayHour),
    ("DAY_MINUTE", Field::DayMinute),
    ("DAY_SECOND", Field::DaySecond),
    ("HOUR_MINUTE", Field::HourMinute),
    ("HOUR_SECOND", Field::HourSecond),
    ("MINUTE_SECOND", Field::MinuteSecond),
];

/// The step between two activations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Months(i64),
    Seconds(i64),
}

impl Field {
    /// The unit named (upper case); 1235 for the microsecond units, which
    /// MariaDB's events do not take.
    pub fn from_name(name: &str) -> Result<Field, MySqlError> {
        if let Some((_, f)) = NAMES.iter().find(|(n, _)| *n == name) {
            return Ok(*f);
        }
        Err(MySqlError::not_supported("MICROSECOND"))
    }

    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(_, f)| *f == self)
            .map_or("SECOND", |(n, _)| n)
    }

    /// How many groups of digits a compound value has (1 for a single unit).
    fn parts(self) -> usize {
        match self {
            Field::YearMonth | Field::DayHour | Field::HourMinute | Field::MinuteSecond => 2,
            Field::DayMinute | Field::HourSecond => 3,
            Field::DaySecond => 4,
            _ => 1,
        }
    }

    fn step(self, value: i64) -> Step {
        match self {
            Field::Year => Step::Months(value * 12),
            Field::Quarter | Field::Month | Field::YearMonth => Step::Months(value),
            Field::Week | Field::Day => Step::Seconds(value * 86_400),
            Field::DayHour | Field::Hour => Step::Seconds(value * 3_600),
            Field::DayMinute | Field::HourMinute | Field::Minute => Step::Seconds(value * 60),
            _ => Step::Seconds(value),
        }
    }
}

fn too_big() -> MySqlError {
    MySqlError::new(1542, "HY000", "INTERVAL is either not positive or too big")
}

/// The stored value of `EVERY quantity field`: a single unit's quantity
/// (rounded; WEEK in days, QUARTER in months), a compound one's groups of
/// digits folded into its smallest part (`'1:30' HOUR_MINUTE` is 90). 1542
/// when it is not positive or over MariaDB's limit.
pub fn stored_interval(quantity: &str, field: Field) -> Result<i64, MySqlError> {
    let v = if field.parts() == 1 {
        let n: f64 = quantity
            .trim()
            .parse()
            .unwrap_or_else(|_| leading_number(quantity));
        let n = n.round();
        if !(n.is_finite() && n > 0.0 && n <= MAX_INTERVAL as f64 * 7.0) {
            return Err(too_big());
        }
        let n = n as i64;
        match field {
            Field::Week => n * 7,
            Field::Quarter => n * 3,
            _ => n,
        }
    } else {
        compound_value(quantity, field)?
    };
    if v <= 0 || v > MAX_INTERVAL {
        return Err(too_big());
    }
    Ok(v)
}

/// The number a string starts with, as MySQL reads `'12abc'` (0 for none).
fn leading_number(s: &str) -> f64 {
    let s = s.trim_start();
    let end = s
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && (c == '-' || c == '+'))))
        .map_or(s.len(), |(i, _)| i);
    s[..end].parse().unwrap_or(0.0)
}

/// A compound value's groups of digits, right-aligned as MariaDB's
/// `get_interval_info` takes them (`'5' HOUR_MINUTE` is 5 minutes).
fn compound_value(text: &str, field: Field) -> Result<i64, MySqlError> {
    let t = text.trim_start();
    if t.starts_with('-') {
        return Err(too_big());
    }
    let groups: Vec<i64> = t
        .split(|c: char| !c.is_ascii_digit())
        .filter(|g| !g.is_empty())
        .map(|g| g.parse::<i64>().unwrap_or(i64::MAX / 4).min(i64::MAX / 4))
        .collect();
    let n = field.parts();
    if groups.len() > n {
        return Err(too_big());
    }
    let mut v = vec![0i64; n - groups.len()];
    v.extend(groups);
    let fold = |v: &[i64], radix: &[i64]| {
        v.iter().zip(radix).fold(0i64, |acc, (x, r)| {
            acc.saturating_mul(*r).saturating_add(*x)
        })
    };
    Ok(match field {
        Field::YearMonth => fold(&v, &[1, 12]),
        Field::DayHour => fold(&v, &[1, 24]),
        Field::HourMinute | Field::MinuteSecond => fold(&v, &[1, 60]),
        Field::DayMinute => fold(&v, &[1, 24, 60]),
        Field::HourSecond => fold(&v, &[1, 60, 60]),
        _ => fold(&v, &[1, 24, 60, 60]),
    })
}

/// The quantity as SHOW CREATE EVENT and information_schema print it: `5` for
/// `5 QUARTER`, `'1:30'` for `'1:30' HOUR_MINUTE`.
pub fn interval_text(value: i64, field: Field) -> String {
    let (d, h, m) = (86_400, 3_600, 60);
    match field {
        Field::Quarter => (value / 3).to_string(),
        Field::Week => (value / 7).to_string(),
        Field::YearMonth => format!("'{}-{}'", value / 12, value % 12),
        Field::DayHour => format!("'{} {}'", value / 24, value % 24),
        Field::HourMinute | Field::MinuteSecond => format!("'{}:{}'", value / 60, value % 60),
        Field::DayMinute => {
            let rest = value % (24 * 60);
            format!("'{} {}:{}'", value / (24 * 60), rest / 60, rest % 60)
        }
        Field::HourSecond => {
            let rest = value % h;
            format!("'{}:{}:{}'", value / h, rest / m, rest % m)
        }
        Field::DaySecond => {
            let rest = value % d;
            let rest2 = rest % h;
            format!("'{} {}:{}:{}'", value / d, rest / h, rest2 / m, rest2 % m)
        }
        _ => value.to_string(),
    }
}

/// The event's zone (its `time_zone` at CREATE; UTC when unknown).
pub fn zone_of(e: &EventDef) -> Zone {
    Zone::parse(&e.time_zone).unwrap_or(Zone::Fixed(0))
}

/// The first activation of `e` at or after `after` (seconds since the epoch),
/// or `None` when it has no more: a one-time event's single time, a
/// recurring one's `STARTS + k × interval` within ENDS.
pub fn activation_from(e: &EventDef, after: i64) -> Option<i64> {
    let (Some(value), Some(field)) = (e.interval_value, e.interval_field.as_deref()) else {
        return e.execute_at.filter(|t| *t >= after);
    };
    let field = Field::from_name(field).ok()?;
    let starts = e.starts?;
    let t = match field.step(value) {
        Step::Seconds(s) if s > 0 => {
            let k = if after <= starts {
                0
            } else {
                (after - starts + s - 1) / s
            };
            starts.checked_add(k.checked_mul(s)?)?
        }
        Step::Months(m) if m > 0 => month_activation(&zone_of(e), starts, m, after)?,
        _ => return None,
    };
    match e.ends {
        Some(end) if t > end => None,
        _ => Some(t),
    }
}

/// `STARTS + k × months` (in local time) for the least k reaching `after`.
fn month_activation(zone: &Zone, starts: i64, months: i64, after: i64) -> Option<i64> {
    let local_start = zone.local_time(starts, 0);
    let at = |k: i64| -> Option<i64> {
        let dt = add_interval(local_start, k.checked_mul(months)?, Unit::Month)?;
        zone.to_utc(&dt)
    };
    if after <= starts {
        return Some(starts);
    }
    let local_after = zone.local_time(after, 0);
    let diff = (i64::from(local_after.date.year) - i64::from(local_start.date.year)) * 12
        + i64::from(local_after.date.month)
        - i64::from(local_start.date.month);
    let mut k = (diff / months).max(0);
    loop {
        let t = at(k)?;
        if t >= after {
            return Some(t);
        }
        k += 1;
    }
}

/// An enabled event starting at `starts` (recurring with `every`, or one-time
/// at `at`) for unit tests.
#[cfg(test)]
pub(crate) fn test_event(every: Option<(i64, &str)>, at: Option<i64>, starts: i64) -> EventDef {
    EventDef {
        schema: "d".into(),
        name: "e".into(),
        definer_user: "root".into(),
        definer_host: "localhost".into(),
        body: "SELECT 1".into(),
        execute_at: at,
        interval_value: every.map(|e| e.0),
        interval_field: every.map(|e| e.1.to_string()),
        starts: every.map(|_| starts),
        ends: None,
        time_zone: "SYSTEM".into(),
        preserve: false,
        status: "ENABLED".into(),
        comment: String::new(),
        sql_mode: String::new(),
        character_set_client: "utf8mb4".into(),
        collation_connection: "utf8mb4_general_ci".into(),
        database_collation: "utf8mb4_general_ci".into(),
        created: starts,
        last_altered: starts,
        last_executed: None,
        originator: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every(value: i64, field: &str, starts: i64, ends: Option<i64>) -> EventDef {
        EventDef {
            ends,
            ..test_event(Some((value, field)), None, starts)
        }
    }

    #[test]
    fn stored_values_and_their_text() {
        let cases = [
            ("1", Field::Hour, 1, "1"),
            ("'1:30'", Field::HourMinute, 90, "'1:30'"),
            ("2", Field::Week, 14, "2"),
            ("5", Field::Quarter, 15, "5"),
            ("'1 2'", Field::DayHour, 26, "'1 2'"),
            ("'1:2:3'", Field::HourSecond, 3723, "'1:2:3'"),
            ("'2-3'", Field::YearMonth, 27, "'2-3'"),
            ("'1 02:03:04'", Field::DaySecond, 93784, "'1 2:3:4'"),
            ("'5'", Field::HourMinute, 5, "'0:5'"),
            ("1.6", Field::Second, 2, "2"),
        ];
        for (q, f, v, text) in cases {
            let q = q.trim_matches('\'');
            assert_eq!(stored_interval(q, f).expect(q), v, "{q} {f:?}");
            assert_eq!(interval_text(v, f), text, "{q} {f:?}");
        }
        for (q, f) in [
            ("0", Field::Second),
            ("-1", Field::Hour),
            ("1000000001", Field::Second),
            ("-1:30", Field::HourMinute),
            ("1:2:3", Field::HourMinute),
        ] {
            assert_eq!(stored_interval(q, f).map_err(|e| e.code), Err(1542), "{q}");
        }
        assert_eq!(
            Field::from_name("MICROSECOND").map_err(|e| e.code),
            Err(1235)
        );
    }

    #[test]
    fn activations_follow_starts() {
        let e = every(10, "SECOND", 1000, Some(1035));
        assert_eq!(activation_from(&e, 0), Some(1000));
        assert_eq!(activation_from(&e, 1000), Some(1000));
        assert_eq!(activation_from(&e, 1001), Some(1010));
        assert_eq!(activation_from(&e, 1030), Some(1030));
        assert_eq!(activation_from(&e, 1031), None, "past ENDS");
        let mut once = every(1, "SECOND", 0, None);
        once.interval_value = None;
        once.interval_field = None;
        once.execute_at = Some(500);
        assert_eq!(activation_from(&once, 400), Some(500));
        assert_eq!(activation_from(&once, 501), None);
    }

    #[test]
    fn month_steps_keep_the_day_where_the_month_has_it() {
        // 2024-01-31 00:00:00 UTC
        let jan31 = 1_706_659_200;
        let e = every(1, "MONTH", jan31, None);
        let feb = activation_from(&e, jan31 + 1).expect("next");
        let z = Zone::Fixed(0);
        assert_eq!(
            z.local_time(feb, 0).display(0).to_string(),
            "2024-02-29 00:00:00"
        );
        let mar = activation_from(&e, feb + 1).expect("next");
        assert_eq!(
            z.local_time(mar, 0).display(0).to_string(),
            "2024-03-31 00:00:00"
        );
    }
}
