//! Time zones: the session's `time_zone` and CONVERT_TZ's arguments.
//!
//! A zone is a numeric offset (`'+05:30'`, MariaDB's range `-12:59` to `+13:00`),
//! `SYSTEM` (the server's zone, which is UTC: `system_time_zone`) or a named zone
//! of the IANA database (`'Europe/Berlin'`, `'UTC'`), looked up case
//! insensitively in the system's zoneinfo (`TZDIR`, `/usr/share/zoneinfo`) or,
//! where it has none, in the copy built into the server.
//!
//! A local time a zone skips (a DST gap) or has twice (the hour after the clocks
//! go back) is taken as MariaDB's time-zone tables take it: the moment of the
//! jump for a skipped time, the earlier offset for the repeated hour.

use basalt_common::{DateTime, MySqlError};

/// A time zone.
#[derive(Clone, Debug)]
pub enum Zone {
    /// Seconds east of UTC.
    Fixed(i64),
    Named(jiff::tz::TimeZone),
}

impl Zone {
    /// The zone `text` names; `None` for one Basalt cannot resolve.
    pub fn parse(text: &str) -> Option<Zone> {
        let text = text.trim();
        if let Some(off) = offset(text) {
            return Some(Zone::Fixed(off));
        }
        if text.is_empty() || text.starts_with(['+', '-']) {
            return None;
        }
        jiff::tz::db().get(text).ok().map(Zone::Named)
    }

    /// Whether local time in this zone is always UTC (conversions are identity).
    pub fn is_utc(&self) -> bool {
        match self {
            Zone::Fixed(off) => *off == 0,
            Zone::Named(tz) => tz.to_fixed_offset().is_ok_and(|o| o.seconds() == 0),
        }
    }

    /// Seconds since the epoch of local time `dt` in this zone.
    pub fn to_utc(&self, dt: &DateTime) -> Option<i64> {
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

    /// Whether local time `dt` is one this zone skips (clocks moved forward).
    pub fn skips(&self, dt: &DateTime) -> bool {
        let Zone::Named(tz) = self else {
            return false;
        };
        let d = &dt.date;
        let civil = jiff::civil::DateTime::new(
            i16::try_from(d.year).unwrap_or(0),
            i8::try_from(d.month).unwrap_or(1),
            i8::try_from(d.day).unwrap_or(1),
            i8::try_from(dt.hour).unwrap_or(0),
            i8::try_from(dt.minute).unwrap_or(0),
            i8::try_from(dt.second).unwrap_or(0),
            0,
        );
        civil.is_ok_and(|c| {
            matches!(
                tz.to_ambiguous_timestamp(c).offset(),
                jiff::tz::AmbiguousOffset::Gap { .. }
            )
        })
    }

    /// Local time in this zone of `utc` seconds since the epoch.
    pub fn local_time(&self, utc: i64, micro: u32) -> DateTime {
        let off = match self {
            Zone::Fixed(off) => *off,
            Zone::Named(tz) => match jiff::Timestamp::from_second(utc) {
                Ok(ts) => i64::from(tz.to_offset(ts).seconds()),
                Err(_) => 0,
            },
        };
        DateTime::from_unix_seconds(utc + off, micro)
    }

    /// Local time in this zone of `utc`, a UTC wall-clock time (as TIMESTAMP
    /// values are stored).
    pub fn local_of(&self, utc: &DateTime) -> DateTime {
        self.local_time(utc.unix_seconds(), utc.micro)
    }

    /// The UTC wall-clock time of local time `dt` in this zone; `dt` unchanged
    /// where the zone cannot place it.
    pub fn to_utc_datetime(&self, dt: &DateTime) -> DateTime {
        match self.to_utc(dt) {
            Some(s) => DateTime::from_unix_seconds(s, dt.micro),
            None => *dt,
        }
    }
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

/// `time_zone` as MariaDB reads it back: `SYSTEM`, a numeric offset as
/// `+hh:mm`, a named zone as it was given; 1298 for a zone that is
/// none of these.
pub fn canonical_name(text: &str) -> Result<String, MySqlError> {
    let unknown = || {
        MySqlError::new(
            1298,
            "HY000",
            format!("Unknown or incorrect time zone: '{text}'"),
        )
    };
    let t = text.trim();
    if t.eq_ignore_ascii_case("SYSTEM") {
        return Ok("SYSTEM".into());
    }
    match Zone::parse(t).ok_or_else(unknown)? {
        Zone::Fixed(off) => {
            let sign = if off < 0 { '-' } else { '+' };
            let m = off.abs() / 60;
            Ok(format!("{sign}{:02}:{:02}", m / 60, m % 60))
        }
        Zone::Named(_) => Ok(t.to_string()),
    }
}

/// The session zone `time_zone` names: `None` when it is UTC (or `SYSTEM`, the
/// server running in UTC), so callers skip all conversion work.
pub fn session_zone(name: &str) -> Option<std::sync::Arc<Zone>> {
    Zone::parse(name)
        .filter(|z| !z.is_utc())
        .map(std::sync::Arc::new)
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

    #[test]
    fn names_as_mariadb_prints_them() {
        assert_eq!(canonical_name("+5:30").expect("ok"), "+05:30");
        assert_eq!(canonical_name("-0:00").expect("ok"), "+00:00");
        assert_eq!(canonical_name("-08:00").expect("ok"), "-08:00");
        assert_eq!(canonical_name("system").expect("ok"), "SYSTEM");
        assert_eq!(
            canonical_name("europe/berlin").expect("ok"),
            "europe/berlin"
        );
        assert_eq!(
            canonical_name("Mars/Olympus").map_err(|e| e.code),
            Err(1298)
        );
        assert_eq!(canonical_name("+14:00").map_err(|e| e.code), Err(1298));
        assert!(session_zone("UTC").is_none());
        assert!(session_zone("+00:00").is_none());
        assert!(session_zone("SYSTEM").is_none());
        assert!(session_zone("+02:00").is_some());
    }

    fn at(zone_name: &str, year: u16, month: u8, day: u8, hour: u8) -> DateTime {
        let z = Zone::parse(zone_name).expect("known zone");
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
        assert!(Zone::parse("Mars/Olympus").is_none());
    }
}
