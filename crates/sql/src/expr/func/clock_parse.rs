//! STR_TO_DATE(text, format): the inverse of DATE_FORMAT, as MariaDB's
//! `extract_date_time()` reads it.
//!
//! Blanks in the input are skipped before each format element and blanks in the
//! format are ignored; a literal format character must match the input; numeric
//! specifiers read up to their width in digits; month and day names match a
//! case-insensitive prefix. Text left over after the format is a warning (1292)
//! but the value stands; input that does not match is NULL with warning 1411. The
//! value is a DATE, TIME or DATETIME by which parts the format names, as the
//! result type says.

use crate::expr::{EvalCtx, R};
use crate::value::to_bytes;
use basalt_common::{Date, DateTime, Time, Value};

#[derive(Default)]
struct Parts {
    year: u32,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    micro: u32,
    pm: Option<bool>,
    yday: Option<u32>,
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
const DAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

fn number(s: &[u8], pos: &mut usize, width: usize) -> Option<u32> {
    let start = *pos;
    while *pos < s.len() && *pos - start < width && s[*pos].is_ascii_digit() {
        *pos += 1;
    }
    if *pos == start {
        return None;
    }
    std::str::from_utf8(&s[start..*pos]).ok()?.parse().ok()
}

/// Index of the name `s[pos..]` starts with (full name or its three-letter
/// abbreviation when `abbrev`).
fn name(s: &[u8], pos: &mut usize, names: &[&str], abbrev: bool) -> Option<u32> {
    let rest = String::from_utf8_lossy(&s[*pos..]).to_ascii_lowercase();
    for (i, n) in names.iter().enumerate() {
        let n = if abbrev { &n[..3] } else { n };
        if rest.starts_with(n) {
            *pos += n.len();
            return Some(i as u32);
        }
    }
    None
}

fn parse(s: &[u8], fmt: &[u8], p: &mut Parts) -> Option<usize> {
    let mut pos = 0;
    let mut f = 0;
    while f < fmt.len() {
        while pos < s.len() && s[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if pos >= s.len() {
            break;
        }
        let c = fmt[f];
        if c != b'%' || f + 1 >= fmt.len() {
            if !c.is_ascii_whitespace() {
                if s[pos] != c {
                    return None;
                }
                pos += 1;
            }
            f += 1;
            continue;
        }
        let spec = fmt[f + 1];
        f += 2;
        match spec {
            b'Y' => p.year = number(s, &mut pos, 4)?,
            b'y' => {
                let y = number(s, &mut pos, 2)?;
                p.year = if y < 70 { 2000 + y } else { 1900 + y };
            }
            b'm' | b'c' => p.month = number(s, &mut pos, 2)?,
            b'd' | b'e' => p.day = number(s, &mut pos, 2)?,
            b'D' => {
                p.day = number(s, &mut pos, 2)?;
                pos = (pos + 2).min(s.len());
            }
            b'H' | b'k' | b'h' | b'I' | b'l' => p.hour = number(s, &mut pos, 2)?,
            b'i' => p.minute = number(s, &mut pos, 2)?,
            b's' | b'S' => p.second = number(s, &mut pos, 2)?,
            b'f' => {
                let start = pos;
                let v = number(s, &mut pos, 6)?;
                p.micro = v * 10u32.pow(6 - (pos - start) as u32);
            }
            b'j' => p.yday = Some(number(s, &mut pos, 3)?),
            b'p' => {
                let rest = s[pos..].to_ascii_uppercase();
                p.pm = Some(match rest.get(..2) {
                    Some(b"AM") => false,
                    Some(b"PM") => true,
                    _ => return None,
                });
                pos += 2;
            }
            b'M' => p.month = name(s, &mut pos, &MONTHS, false)? + 1,
            b'b' => p.month = name(s, &mut pos, &MONTHS, true)? + 1,
            b'W' => {
                name(s, &mut pos, &DAYS, false)?;
            }
            b'a' => {
                name(s, &mut pos, &DAYS, true)?;
            }
            b'T' | b'r' => {
                p.hour = number(s, &mut pos, 2)?;
                expect(s, &mut pos, b':')?;
                p.minute = number(s, &mut pos, 2)?;
                expect(s, &mut pos, b':')?;
                p.second = number(s, &mut pos, 2)?;
                if spec == b'r' {
                    while pos < s.len() && s[pos] == b' ' {
                        pos += 1;
                    }
                    let rest = s[pos..].to_ascii_uppercase();
                    p.pm = Some(rest.starts_with(b"PM"));
                    pos = (pos + 2).min(s.len());
                }
            }
            b'%' => expect(s, &mut pos, b'%')?,
            _ => return None,
        }
    }
    Some(pos)
}

fn expect(s: &[u8], pos: &mut usize, c: u8) -> Option<()> {
    if s.get(*pos) == Some(&c) {
        *pos += 1;
        Some(())
    } else {
        None
    }
}

/// Which parts a format names: (date, time).
fn kinds(fmt: &[u8]) -> (bool, bool) {
    let t = super::clock::result_type(
        super::clock::ClockFn::StrToDate,
        &[],
        &[None, Some(Value::Bytes(fmt.to_vec()))],
    );
    match t.class {
        crate::ty::Class::Date => (true, false),
        crate::ty::Class::DateTime if t.decimals == 0 && !fmt.contains(&b'%') => (true, false),
        crate::ty::Class::Time => (false, true),
        _ => (true, true),
    }
}

pub fn str_to_date(text: &Value, fmt: &Value, ctx: &mut EvalCtx) -> R {
    let s = to_bytes(text);
    let f = to_bytes(fmt);
    let mut p = Parts::default();
    let Some(end) = parse(&s, &f, &mut p) else {
        ctx.warn(
            1411,
            format!(
                "Incorrect datetime value: '{}' for function str_to_date",
                String::from_utf8_lossy(&s)
            ),
        );
        return Ok(Value::Null);
    };
    let (date, time) = kinds(&f);
    let date = date || !time;
    if s[end..].iter().any(|c| !c.is_ascii_whitespace()) {
        let what = match (date, time) {
            (false, true) => "time",
            (true, false) => "date",
            _ => "datetime",
        };
        ctx.warn(
            basalt_common::error::code::ER_TRUNCATED_WRONG_VALUE,
            format!(
                "Truncated incorrect {what} value: '{}'",
                String::from_utf8_lossy(&s)
            ),
        );
    }
    match p.pm {
        Some(true) if p.hour < 12 => p.hour += 12,
        Some(false) if p.hour == 12 => p.hour = 0,
        _ => {}
    }
    if let Some(yd) = p.yday {
        let first = Date::new(p.year as u16, 1, 1).to_days();
        if let Some(d) = super::clock::date_from_days(first + yd as i64 - 1) {
            p.month = d.month as u32;
            p.day = d.day as u32;
        }
    }
    if p.month > 12 || p.day > 31 || p.minute > 59 || p.second > 59 || p.year > 9999 {
        ctx.warn(
            1411,
            format!(
                "Incorrect datetime value: '{}' for function str_to_date",
                String::from_utf8_lossy(&s)
            ),
        );
        return Ok(Value::Null);
    }
    let d = Date::new(p.year as u16, p.month as u8, p.day as u8);
    Ok(match (date, time) {
        (true, false) => Value::Date(d),
        (false, true) => Value::Time(Time {
            negative: false,
            hours: p.hour.min(838) as u16,
            minute: p.minute as u8,
            second: p.second as u8,
            micro: p.micro,
        }),
        _ => Value::DateTime(DateTime {
            date: d,
            hour: p.hour.min(23) as u8,
            minute: p.minute as u8,
            second: p.second as u8,
            micro: p.micro,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(s: &str, f: &str) -> Option<Parts> {
        let mut p = Parts::default();
        parse(s.as_bytes(), f.as_bytes(), &mut p).map(|_| p)
    }

    #[test]
    fn reads_mariadb_examples() {
        let p = run("01,5,2013", "%d,%m,%Y").expect("parses");
        assert_eq!((p.year, p.month, p.day), (2013, 5, 1));
        let p = run("May 1, 2013", "%M %d,%Y").expect("parses");
        assert_eq!((p.year, p.month, p.day), (2013, 5, 1));
        let p = run("a09:30:17", "a%h:%i:%s").expect("parses");
        assert_eq!((p.hour, p.minute, p.second), (9, 30, 17));
        assert!(run("x09", "a%h").is_none());
        let p = run("12.5", "%s.%f").expect("parses");
        assert_eq!(p.micro, 500_000);
    }
}
