//! DATE, DATETIME/TIMESTAMP and TIME values, parsed and printed as MySQL does.
//!
//! Dates keep MySQL's zero parts (`0000-00-00`) because MySQL stores and returns them
//! in non-strict modes; validation of a calendar date is [`Date::is_valid`].

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

/// DATETIME and TIMESTAMP (TIMESTAMP is stored in the session time zone, which is
/// always UTC/SYSTEM in Basalt today).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
pub struct DateTime {
    pub date: Date,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub micro: u32,
}

/// TIME: a signed duration, -838:59:59 .. 838:59:59.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct Time {
    pub negative: bool,
    pub hours: u16,
    pub minute: u8,
    pub second: u8,
    pub micro: u32,
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        _ => 0,
    }
}

fn parse_fraction(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut digits: String = s.chars().take(6).collect();
    while digits.len() < 6 {
        digits.push('0');
    }
    digits.parse().ok()
}

fn write_fraction(f: &mut fmt::Formatter<'_>, micro: u32, fsp: u8) -> fmt::Result {
    if fsp == 0 {
        return Ok(());
    }
    let s = format!("{micro:06}");
    write!(f, ".{}", &s[..fsp.min(6) as usize])
}

impl Date {
    pub fn new(year: u16, month: u8, day: u8) -> Self {
        Date { year, month, day }
    }

    /// A real calendar date (zero dates are not).
    pub fn is_valid(&self) -> bool {
        self.year <= 9999
            && (1..=12).contains(&self.month)
            && self.day >= 1
            && self.day <= days_in_month(self.year, self.month)
    }

    pub fn is_zero(&self) -> bool {
        self.year == 0 && self.month == 0 && self.day == 0
    }

    /// Parses `YYYY-MM-DD` (also `YYYYMMDD` and other single-character separators).
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        let parts: Vec<&str> = s
            .split(|c: char| !c.is_ascii_digit())
            .filter(|p| !p.is_empty())
            .collect();
        let (y, m, d) = match parts.as_slice() {
            [y, m, d] => (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?),
            [all] if all.len() == 8 => (
                all[0..4].parse().ok()?,
                all[4..6].parse().ok()?,
                all[6..8].parse().ok()?,
            ),
            [all] if all.len() == 6 => {
                let yy: u16 = all[0..2].parse().ok()?;
                (
                    if yy < 70 { 2000 + yy } else { 1900 + yy },
                    all[2..4].parse().ok()?,
                    all[4..6].parse().ok()?,
                )
            }
            _ => return None,
        };
        let date = Date::new(y, m, d);
        (date.is_zero() || date.is_valid() || (m <= 12 && d <= 31)).then_some(date)
    }

    /// Day number as MySQL's TO_DAYS gives it (TO_DAYS('1970-01-01') = 719528).
    pub fn to_days(&self) -> i64 {
        // Days-from-civil (Howard Hinnant's algorithm), shifted to MySQL's epoch.
        let (m, d) = (self.month as i64, self.day as i64);
        let y = self.year as i64 - if m <= 2 { 1 } else { 0 };
        let era = y.div_euclid(400);
        let yoe = y.rem_euclid(400);
        let mp = (m + 9) % 12;
        let doy = (153 * mp + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468 + 719_528
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl DateTime {
    pub fn from_date(date: Date) -> Self {
        DateTime {
            date,
            ..Default::default()
        }
    }

    /// Parses `YYYY-MM-DD[ T]HH:MM:SS[.ffffff]` or a bare date.
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        let split = s.find([' ', 'T']);
        let (dpart, tpart) = match split {
            Some(p) => (&s[..p], s[p + 1..].trim()),
            None if s.len() == 14 && s.bytes().all(|b| b.is_ascii_digit()) => {
                let date = Date::parse(&s[..8])?;
                let t = &s[8..];
                return Some(DateTime {
                    date,
                    hour: t[0..2].parse().ok()?,
                    minute: t[2..4].parse().ok()?,
                    second: t[4..6].parse().ok()?,
                    micro: 0,
                })
                .filter(DateTime::time_valid);
            }
            None => (s, ""),
        };
        let date = Date::parse(dpart)?;
        if tpart.is_empty() {
            return Some(DateTime::from_date(date));
        }
        let (hms, frac) = match tpart.find('.') {
            Some(p) => (&tpart[..p], Some(&tpart[p + 1..])),
            None => (tpart, None),
        };
        let mut it = hms.split(':');
        let hour = it.next()?.parse().ok()?;
        let minute = it.next().map_or(Some(0), |x| x.parse().ok())?;
        let second = it.next().map_or(Some(0), |x| x.parse().ok())?;
        if it.next().is_some() {
            return None;
        }
        let micro = match frac {
            Some(fr) => parse_fraction(fr)?,
            None => 0,
        };
        Some(DateTime {
            date,
            hour,
            minute,
            second,
            micro,
        })
        .filter(DateTime::time_valid)
    }

    fn time_valid(&self) -> bool {
        self.hour < 24 && self.minute < 60 && self.second < 60
    }

    /// Formats with `fsp` fractional digits (0..=6).
    pub fn display(&self, fsp: u8) -> impl fmt::Display + '_ {
        DisplayDateTime(self, fsp)
    }

    /// Seconds since 1970-01-01 00:00:00 UTC (negative before).
    pub fn unix_seconds(&self) -> i64 {
        let days = self.date.to_days() - 719_528;
        days * 86400 + self.hour as i64 * 3600 + self.minute as i64 * 60 + self.second as i64
    }

    /// Inverse of [`DateTime::unix_seconds`].
    pub fn from_unix_seconds(secs: i64, micro: u32) -> Self {
        let days = secs.div_euclid(86400);
        let rem = secs.rem_euclid(86400);
        // Civil-from-days (Howard Hinnant's algorithm).
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
        let y = yoe + era * 400;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        let y = if m <= 2 { y + 1 } else { y };
        DateTime {
            date: Date::new(y as u16, m as u8, d as u8),
            hour: (rem / 3600) as u8,
            minute: (rem % 3600 / 60) as u8,
            second: (rem % 60) as u8,
            micro,
        }
    }
}

struct DisplayDateTime<'a>(&'a DateTime, u8);

impl fmt::Display for DisplayDateTime<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dt = self.0;
        write!(
            f,
            "{} {:02}:{:02}:{:02}",
            dt.date, dt.hour, dt.minute, dt.second
        )?;
        write_fraction(f, dt.micro, self.1)
    }
}

impl Time {
    /// Parses `[-][D ]HH:MM:SS[.ffffff]`, `HH:MM`, or `HHMMSS`.
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        let (negative, s) = match s.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, s),
        };
        let (days, s) = match s.find(' ') {
            Some(p) => (s[..p].parse::<u16>().ok()?, &s[p + 1..]),
            None => (0, s),
        };
        let (hms, frac) = match s.find('.') {
            Some(p) => (&s[..p], Some(&s[p + 1..])),
            None => (s, None),
        };
        let (h, m, sec): (u16, u8, u8) = if hms.contains(':') {
            let mut it = hms.split(':');
            let h = it.next()?.parse().ok()?;
            let m = it.next()?.parse().ok()?;
            let sec = it.next().map_or(Some(0), |x| x.parse().ok())?;
            (h, m, sec)
        } else {
            let n: u32 = hms.parse().ok()?;
            ((n / 10000) as u16, (n / 100 % 100) as u8, (n % 100) as u8)
        };
        if m >= 60 || sec >= 60 {
            return None;
        }
        let micro = match frac {
            Some(fr) => parse_fraction(fr)?,
            None => 0,
        };
        let hours = days.checked_mul(24)?.checked_add(h)?;
        Some(Time {
            negative,
            hours: hours.min(838),
            minute: if hours > 838 { 59 } else { m },
            second: if hours > 838 { 59 } else { sec },
            micro: if hours > 838 { 0 } else { micro },
        })
    }

    pub fn display(&self, fsp: u8) -> impl fmt::Display + '_ {
        DisplayTime(self, fsp)
    }

    /// Signed total microseconds.
    pub fn total_micros(&self) -> i64 {
        let v = ((self.hours as i64 * 60 + self.minute as i64) * 60 + self.second as i64)
            * 1_000_000
            + self.micro as i64;
        if self.negative {
            -v
        } else {
            v
        }
    }
}

impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Time {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.total_micros().cmp(&other.total_micros())
    }
}

struct DisplayTime<'a>(&'a Time, u8);

impl fmt::Display for DisplayTime<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.0;
        if t.negative && t.total_micros() != 0 {
            f.write_str("-")?;
        }
        write!(f, "{:02}:{:02}:{:02}", t.hours, t.minute, t.second)?;
        write_fraction(f, t.micro, self.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        let d = Date::parse("2024-02-29").expect("leap day");
        assert!(d.is_valid());
        assert_eq!(d.to_string(), "2024-02-29");
        assert!(!Date::new(2023, 2, 29).is_valid());
        assert_eq!(Date::parse("20240102"), Some(Date::new(2024, 1, 2)));
        assert!(Date::parse("2024-13-01").is_none());
        assert!(Date::parse("hello").is_none());
    }

    #[test]
    fn datetimes() {
        let dt = DateTime::parse("2024-01-02 03:04:05.5").expect("datetime");
        assert_eq!(dt.display(0).to_string(), "2024-01-02 03:04:05");
        assert_eq!(dt.display(3).to_string(), "2024-01-02 03:04:05.500");
        assert!(DateTime::parse("2024-01-02 25:00:00").is_none());
        let back = DateTime::from_unix_seconds(dt.unix_seconds(), 0);
        assert_eq!(back.display(0).to_string(), "2024-01-02 03:04:05");
        assert_eq!(
            DateTime::from_unix_seconds(0, 0).display(0).to_string(),
            "1970-01-01 00:00:00"
        );
    }

    #[test]
    fn times() {
        let t = Time::parse("-12:34:56.1").expect("time");
        assert_eq!(t.display(1).to_string(), "-12:34:56.1");
        assert_eq!(Time::parse("1 01:00:00").map(|t| t.hours), Some(25));
        assert_eq!(
            Time::parse("900:00:00")
                .map(|t| t.display(0).to_string())
                .as_deref(),
            Some("838:59:59")
        );
        assert!(Time::parse("12:61:00").is_none());
    }
}
