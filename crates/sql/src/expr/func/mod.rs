//! Scalar functions: name lookup, result types, evaluation.
//!
//! Every function is a [`Func`] variant; [`lookup`] maps a (lower-case) SQL name to it
//! with its accepted argument counts, [`result_type`] gives the static type from the
//! argument types, and [`eval`] dispatches to the family modules.

mod clock;
mod clock_parse;
pub(crate) mod crypt;
mod gtid_wait;
pub mod json;
pub mod json_fn;
mod json_pretty;
mod json_search;
pub mod json_tree;
mod locale;
mod misc;
mod numeric;
pub mod regexp;
pub mod sequence;
mod sleep;
pub(crate) mod string;
mod text;
mod time;
mod tz;
pub mod units;
mod userlock;

pub use clock::ClockFn;
pub use text::TextFn;

use super::{EvalCtx, Expr, R};
use crate::ty::{aggregate, Class, ExprType};
use crate::value::temporal::Unit;
use basalt_common::{Collation, MySqlError, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrimSide {
    Both,
    Leading,
    Trailing,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trig {
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Cot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    // session information
    Database,
    User,
    CurrentUser,
    CurrentRole,
    ConnectionId,
    Version,
    LastInsertId,
    RowCount,
    FoundRows,
    // time
    Now,
    SysDate,
    CurDate,
    CurTime,
    UtcTime,
    UtcTimestamp,
    UtcDate,
    /// A TIMESTAMP column's value (stored in UTC) in the session's time zone: the
    /// binder wraps every reference to a TIMESTAMP column of a table in it.
    TimestampLocal,
    UnixTimestamp,
    FromUnixtime,
    DateOf,
    TimeOf,
    Year,
    Month,
    DayOfMonth,
    Hour,
    Minute,
    Second,
    DayOfWeek,
    DayOfYear,
    DateDiff,
    DateAdd(Unit),
    DateSub(Unit),
    DateFormat,
    // strings
    Concat,
    ConcatWs,
    Length,
    CharLength,
    Upper,
    Lower,
    Substring,
    Trim(TrimSide),
    Replace,
    Left,
    Right,
    Repeat,
    Reverse,
    Lpad,
    Rpad,
    Locate,
    Instr,
    Space,
    Ascii,
    Hex,
    Md5,
    Sha1,
    Sha2,
    Crc32,
    Strcmp,
    Field,
    /// Lower / upper key bound of `LIKE pattern` (internal: index ranges).
    LikeLow,
    LikeHigh,
    SubstringIndex,
    FindInSet,
    /// FIND_IN_SET(constant, set_column): the member's position in the SET's
    /// definition when the value holds it (MariaDB's shortcut for SET fields).
    FindInSetMember,
    Elt,
    Uuid,
    Format,
    Quote,
    Bin,
    Oct,
    ToDays,
    FromDays,
    Weekday,
    DayName,
    MonthName,
    LastDay,
    TimestampDiff,
    Trig(Trig),
    Log,
    Log2,
    Degrees,
    Radians,
    // control
    Coalesce,
    IfNull,
    /// NVL2(x, a, b): `a` when x is not NULL, else `b`.
    Nvl2,
    NullIf,
    If,
    Greatest,
    Least,
    IsNullFn,
    // numbers
    Abs,
    Round,
    Truncate,
    Floor,
    Ceil,
    Mod,
    Sign,
    Sqrt,
    Pow,
    Exp,
    Ln,
    Log10,
    Rand,
    Pi,
    /// `INTERVAL(N, N1, N2, ...)` (the front end names it `interval()`, see
    /// [`crate::front`]).
    Interval,
    // JSON
    JsonValid,
    // miscellaneous
    Sleep,
    ConvertTz,
    MasterGtidWait,
    /// The families in their own modules.
    Text(text::TextFn),
    Clock(clock::ClockFn),
    Misc(misc::MiscFn),
    Regexp(regexp::RegexpFn),
    Json(json_fn::JsonFn),
    Lock(userlock::LockFn),
    /// NEXTVAL / LASTVAL / SETVAL (arguments: database, name, ...).
    Seq(sequence::SeqFn),
    Crypt(crypt::CryptFn),
}

/// (function, min args, max args) for a lower-case SQL function name.
pub fn lookup(name: &str) -> Option<(Func, usize, usize)> {
    use Func::*;
    let many = usize::MAX;
    Some(match name {
        "database" | "schema" => (Database, 0, 0),
        "user" | "session_user" | "system_user" => (User, 0, 0),
        "current_user" => (CurrentUser, 0, 0),
        "current_role" => (CurrentRole, 0, 0),
        "connection_id" => (ConnectionId, 0, 0),
        "master_gtid_wait" => (MasterGtidWait, 1, 2),
        "version" => (Version, 0, 0),
        "last_insert_id" => (LastInsertId, 0, 1),
        "row_count" => (RowCount, 0, 0),
        "found_rows" => (FoundRows, 0, 0),
        "now" | "current_timestamp" | "localtime" | "localtimestamp" => (Now, 0, 1),
        "sysdate" => (SysDate, 0, 1),
        "curdate" | "current_date" => (CurDate, 0, 0),
        "curtime" | "current_time" => (CurTime, 0, 1),
        "utc_timestamp" => (UtcTimestamp, 0, 1),
        "utc_date" => (UtcDate, 0, 0),
        "utc_time" => (UtcTime, 0, 1),
        "unix_timestamp" => (UnixTimestamp, 0, 1),
        "from_unixtime" => (FromUnixtime, 1, 2),
        "date" => (DateOf, 1, 1),
        "time" => (TimeOf, 1, 1),
        "year" => (Year, 1, 1),
        "month" => (Month, 1, 1),
        "day" | "dayofmonth" => (DayOfMonth, 1, 1),
        "hour" => (Hour, 1, 1),
        "minute" => (Minute, 1, 1),
        "second" => (Second, 1, 1),
        "dayofweek" => (DayOfWeek, 1, 1),
        "dayofyear" => (DayOfYear, 1, 1),
        "datediff" => (DateDiff, 2, 2),
        "date_format" => (DateFormat, 2, 2),
        "concat" => (Concat, 1, many),
        "concat_ws" => (ConcatWs, 2, many),
        "length" | "octet_length" | "lengthb" => (Length, 1, 1),
        "char_length" | "character_length" => (CharLength, 1, 1),
        "upper" | "ucase" => (Upper, 1, 1),
        "lower" | "lcase" => (Lower, 1, 1),
        "substring" | "substr" | "mid" => (Substring, 2, 3),
        "trim" => (Trim(TrimSide::Both), 1, 1),
        "ltrim" => (Trim(TrimSide::Leading), 1, 1),
        "rtrim" => (Trim(TrimSide::Trailing), 1, 1),
        "replace" => (Replace, 3, 3),
        "left" => (Left, 2, 2),
        "right" => (Right, 2, 2),
        "repeat" => (Repeat, 2, 2),
        "reverse" => (Reverse, 1, 1),
        "lpad" => (Lpad, 2, 3),
        "rpad" => (Rpad, 2, 3),
        "locate" | "position" => (Locate, 2, 3),
        "instr" => (Instr, 2, 2),
        "space" => (Space, 1, 1),
        "ascii" => (Ascii, 1, 1),
        "hex" => (Hex, 1, 1),
        "md5" => (Md5, 1, 1),
        "sha1" | "sha" => (Sha1, 1, 1),
        "sha2" => (Sha2, 2, 2),
        "crc32" => (Crc32, 1, 2),
        "strcmp" => (Strcmp, 2, 2),
        "field" => (Field, 2, many),
        "interval()" => (Interval, 2, many),
        "substring_index" => (SubstringIndex, 3, 3),
        "find_in_set" => (FindInSet, 2, 2),
        "elt" => (Elt, 2, many),
        "uuid" => (Uuid, 0, 0),
        "format" => (Format, 2, 3),
        "quote" => (Quote, 1, 1),
        "bin" => (Bin, 1, 1),
        "oct" => (Oct, 1, 1),
        "to_days" => (ToDays, 1, 1),
        "from_days" => (FromDays, 1, 1),
        "weekday" => (Weekday, 1, 1),
        "dayname" => (DayName, 1, 1),
        "monthname" => (MonthName, 1, 1),
        "last_day" => (LastDay, 1, 1),
        "timestampdiff" => (TimestampDiff, 3, 3),
        "sin" => (Trig(self::Trig::Sin), 1, 1),
        "cos" => (Trig(self::Trig::Cos), 1, 1),
        "tan" => (Trig(self::Trig::Tan), 1, 1),
        "asin" => (Trig(self::Trig::Asin), 1, 1),
        "acos" => (Trig(self::Trig::Acos), 1, 1),
        "atan" => (Trig(self::Trig::Atan), 1, 2),
        "atan2" => (Trig(self::Trig::Atan), 2, 2),
        "cot" => (Trig(self::Trig::Cot), 1, 1),
        "log" => (Log, 1, 2),
        "log2" => (Log2, 1, 1),
        "degrees" => (Degrees, 1, 1),
        "radians" => (Radians, 1, 1),
        "coalesce" => (Coalesce, 1, many),
        "ifnull" | "nvl" => (IfNull, 2, 2),
        "nvl2" => (Nvl2, 3, 3),
        "nullif" => (NullIf, 2, 2),
        "if" => (If, 3, 3),
        "greatest" => (Greatest, 2, many),
        "least" => (Least, 2, many),
        "isnull" => (IsNullFn, 1, 1),
        "abs" => (Abs, 1, 1),
        "round" => (Round, 1, 2),
        "truncate" => (Truncate, 2, 2),
        "floor" => (Floor, 1, 1),
        "ceil" | "ceiling" => (Ceil, 1, 1),
        "mod" => (Mod, 2, 2),
        "sign" => (Sign, 1, 1),
        "sqrt" => (Sqrt, 1, 1),
        "pow" | "power" => (Pow, 2, 2),
        "exp" => (Exp, 1, 1),
        "ln" => (Ln, 1, 1),
        "log10" => (Log10, 1, 1),
        "rand" => (Rand, 0, 1),
        "pi" => (Pi, 0, 0),
        "json_valid" => (JsonValid, 1, 1),
        "sleep" => (Sleep, 1, 1),
        "convert_tz" => (ConvertTz, 3, 3),
        _ => return family_lookup(name),
    })
}

/// Names of the functions kept in family modules.
fn family_lookup(name: &str) -> Option<(Func, usize, usize)> {
    if let Some((f, lo, hi)) = text::lookup(name) {
        return Some((Func::Text(f), lo, hi));
    }
    if let Some((f, lo, hi)) = clock::lookup(name) {
        return Some((Func::Clock(f), lo, hi));
    }
    if let Some((f, lo, hi)) = misc::lookup(name) {
        return Some((Func::Misc(f), lo, hi));
    }
    if let Some((f, lo, hi)) = userlock::lookup(name) {
        return Some((Func::Lock(f), lo, hi));
    }
    if let Some((f, lo, hi)) = regexp::lookup(name) {
        return Some((Func::Regexp(f), lo, hi));
    }
    if let Some((f, lo, hi)) = json_fn::lookup(name) {
        return Some((Func::Json(f), lo, hi));
    }
    if let Some((f, lo, hi)) = crypt::lookup(name) {
        return Some((Func::Crypt(f), lo, hi));
    }
    Some(match name {
        "adddate" => (Func::DateAdd(Unit::Day), 2, 2),
        "subdate" => (Func::DateSub(Unit::Day), 2, 2),
        _ => return None,
    })
}

/// The variant of `f` for its arguments' static types (the case mode of a
/// regular expression follows the operands' collation).
pub fn refine(f: Func, args: &[ExprType], bound: &[Expr]) -> Func {
    match f {
        Func::Regexp(r) => Func::Regexp(regexp::refine(r, args)),
        Func::Text(t) => Func::Text(text::refine(t, args)),
        Func::Json(j) => Func::Json(json_fn::refine(j, bound)),
        Func::FindInSet
            if args[1].col_flags & basalt_common::column::flags::SET != 0
                && matches!(bound[0], Expr::Const(_) | Expr::Param(_)) =>
        {
            Func::FindInSetMember
        }
        _ => f,
    }
}

/// The constant a call folds into at bind time when its value depends only on
/// its arguments' static types (CHARSET(), COLLATION(), COERCIBILITY()).
pub fn bind_time_value(f: Func, args: &[ExprType]) -> Option<Value> {
    match f {
        Func::Text(t) => text::bind_time_value(t, args),
        _ => None,
    }
}

impl Func {
    /// False for functions whose value changes between calls in one statement (so a
    /// plan must not treat them as constants).
    pub fn is_deterministic_per_statement(self) -> bool {
        !matches!(
            self,
            Func::Rand
                | Func::SysDate
                | Func::LastInsertId
                | Func::Uuid
                | Func::Sleep
                | Func::MasterGtidWait
                | Func::Misc(misc::MiscFn::Benchmark | misc::MiscFn::UuidShort)
                | Func::Misc(misc::MiscFn::SysGuid | misc::MiscFn::RandomBytes)
                | Func::Lock(_)
                | Func::Seq(_)
        )
    }
}

/// `CHAR(n, ... USING cs)`.
pub fn char_using(cs: basalt_common::Charset) -> Func {
    Func::Text(text::TextFn::CharUsing(cs))
}

/// `EXTRACT(unit FROM x)`.
pub fn extract(unit: Unit) -> Func {
    Func::Clock(clock::ClockFn::Extract(unit))
}

/// Whether the result type of `f` depends on the values of constant arguments
/// (the binder then passes them to [`result_type_with`]).
pub fn uses_consts(f: Func) -> bool {
    matches!(
        f,
        Func::Clock(_)
            | Func::FromUnixtime
            | Func::UnixTimestamp
            | Func::Sha2
            | Func::Round
            | Func::Truncate
            | Func::Lpad
            | Func::Rpad
            | Func::Repeat
            | Func::Space
            | Func::Left
            | Func::Right
            | Func::ConvertTz
            | Func::Now
            | Func::SysDate
            | Func::CurTime
            | Func::UtcTimestamp
            | Func::UtcTime
    )
}

/// The name MariaDB's 1426 gives a clock function taking a precision (`NOW(7)`).
pub fn precision_name(f: Func) -> Option<&'static str> {
    Some(match f {
        Func::Now => "current_timestamp",
        Func::SysDate => "sysdate",
        Func::CurTime => "curtime",
        Func::UtcTimestamp => "utc_timestamp",
        Func::UtcTime => "utc_time",
        _ => return None,
    })
}

/// Static result type of `f(args)` given the values of its constant arguments.
pub fn result_type_with(f: Func, args: &[ExprType], consts: &[Option<Value>]) -> ExprType {
    match f {
        Func::Clock(c) => clock::result_type(c, args, consts),
        Func::FromUnixtime if args.len() == 2 => {
            clock::result_type(clock::ClockFn::FromUnixtimeFormat, args, consts)
        }
        Func::UnixTimestamp if !args.is_empty() => match consts.first() {
            // No fractional seconds in the argument: a BIGINT, as MariaDB types it.
            _ if matches!(args[0].class, Class::Date | Class::Int)
                || (matches!(args[0].class, Class::DateTime) && args[0].decimals == 0) =>
            {
                let mut t = ExprType::int(17).nullable(true);
                t.column_type = Some(basalt_common::ColumnType::LongLong);
                t
            }
            Some(Some(Value::Bytes(b))) if !b.contains(&b'.') => {
                let mut t = ExprType::int(17).nullable(true);
                t.column_type = Some(basalt_common::ColumnType::LongLong);
                t
            }
            _ => result_type(f, args),
        },
        // The clock's precision, as written.
        Func::Now | Func::SysDate | Func::CurTime | Func::UtcTimestamp | Func::UtcTime => {
            let mut t = result_type(f, args);
            if let Some(Some(v)) = consts.first() {
                t.decimals = crate::value::to_num(v).0.to_i64().unwrap_or(0).clamp(0, 6) as u8;
            }
            t
        }
        // A constant string's precision is the digits it has (MariaDB evaluates it).
        Func::ConvertTz => match consts.first() {
            Some(Some(Value::Bytes(b))) => {
                let s = String::from_utf8_lossy(b);
                let fsp = s.rsplit_once('.').map_or(0, |(_, f)| {
                    f.chars().take_while(char::is_ascii_digit).count().min(6)
                });
                ExprType::datetime(fsp as u8).nullable(true)
            }
            _ => result_type(f, args),
        },
        Func::Lpad | Func::Rpad | Func::Repeat | Func::Space | Func::Left | Func::Right => {
            let at = if f == Func::Space { 0 } else { 1 };
            let n = match consts.get(at).and_then(Option::as_ref) {
                Some(v) if !v.is_null() => crate::value::to_num(v).0.to_i64().unwrap_or(0),
                _ => return result_type(f, args),
            };
            let n = n.clamp(0, 16_777_216) as u32;
            let mut t = result_type(f, args);
            t.len = match f {
                Func::Repeat => args[0].len.saturating_mul(n),
                Func::Left | Func::Right => args[0].len.min(n),
                _ => n,
            };
            t
        }
        Func::Round | Func::Truncate if args[0].class == Class::Double => {
            let digits = consts
                .get(1)
                .and_then(Option::as_ref)
                .filter(|v| !v.is_null());
            match digits.map(|v| crate::value::to_num(v).0.to_i64().unwrap_or(0)) {
                Some(d) if d <= 30 => {
                    let mut t = ExprType::double().nullable(args.iter().any(|a| a.nullable));
                    t.decimals = d.max(0) as u8;
                    t.len = 17 + t.decimals as u32;
                    t
                }
                Some(_) => double23(),
                _ => result_type(f, args),
            }
        }
        Func::Round | Func::Truncate if args[0].class == Class::Decimal => {
            match consts.get(1).and_then(Option::as_ref) {
                Some(v) if !v.is_null() => {
                    let d = crate::value::to_num(v).0.to_i64().unwrap_or(0);
                    decimal_rounding_type(f == Func::Round, &args[0], d, args)
                }
                _ => result_type(f, args),
            }
        }
        Func::Sha2 => match consts.get(1) {
            Some(Some(v)) => {
                let bits = crate::value::to_num(v).0.to_i64().unwrap_or(-1);
                match bits {
                    0 | 256 => ExprType::string(64, Collation::Utf8mb3GeneralCi).nullable(true),
                    224 | 384 | 512 => {
                        ExprType::string(bits as u32 / 4, Collation::Utf8mb3GeneralCi)
                            .nullable(true)
                    }
                    _ => {
                        let mut t = ExprType::string(0, Collation::Binary).nullable(true);
                        t.decimals = 39;
                        t
                    }
                }
            }
            _ => result_type(f, args),
        },
        _ => result_type(f, args),
    }
}

/// Static result type of `f(args)`.
pub fn result_type(f: Func, args: &[ExprType]) -> ExprType {
    use Func::*;
    let any_null = args.iter().any(|a| a.nullable);
    let utf = Collation::Utf8mb3GeneralCi;
    // A NULL literal alone gives MariaDB's binary string type.
    let str_coll = match args.iter().find(|a| a.class == Class::String) {
        Some(a) => a.collation,
        None if args.first().is_some_and(|a| a.class == Class::Null) => Collation::Binary,
        None => Collation::Utf8mb4GeneralCi,
    };
    let arg_len = |i: usize| args.get(i).map_or(0, |a| a.len);
    match f {
        TimestampLocal => args[0].clone(),
        Database => ExprType::string(64, utf).nullable(true),
        User | CurrentUser | CurrentRole => ExprType::string(384, utf).nullable(true),
        Version => ExprType::string(26, utf),
        ConnectionId => ExprType::long(10).unsigned(),
        LastInsertId if !args.is_empty() => {
            let mut t = ExprType::bigint().unsigned();
            t.len = args[0].len;
            t.column_type = Some(basalt_common::ColumnType::LongLong);
            t
        }
        LastInsertId => ExprType::bigint().unsigned(),
        RowCount | FoundRows => ExprType::bigint(),
        Now | SysDate | UtcTimestamp => ExprType::datetime(0),
        CurDate | UtcDate => ExprType::date(),
        CurTime | UtcTime => ExprType::time(0),
        UnixTimestamp if args.is_empty() => ExprType::int(17).nullable(true),
        UnixTimestamp => ExprType::decimal(17, 6).nullable(true),
        FromUnixtime => ExprType::datetime(0).nullable(true),
        DateOf => ExprType::date().nullable(true),
        TimeOf => ExprType::time(0).nullable(true),
        Year | DayOfYear => ExprType::int(if f == Year { 4 } else { 3 }).nullable(true),
        Month | DayOfMonth | Hour | Minute | Second => ExprType::int(2).nullable(true),
        DayOfWeek | Weekday => ExprType::int(1).nullable(true),
        DateDiff => ExprType::int(8).nullable(true),
        ToDays => ExprType::int(6).nullable(true),
        DateAdd(u) | DateSub(u) => match args.first().map(|a| a.class) {
            Some(Class::Date) if !u.has_time() => ExprType::date().nullable(true),
            Some(Class::Date) => {
                ExprType::datetime(if u.has_micros() { 6 } else { 0 }).nullable(true)
            }
            // MariaDB: a string argument gives CHAR(19) text (26 with microseconds).
            Some(Class::String) => {
                let micros = u.has_micros();
                let len = if micros { 26 } else { 19 };
                let mut t = ExprType::string(len, Collation::Utf8mb4GeneralCi).nullable(true);
                t.column_type = Some(basalt_common::ColumnType::String);
                t.decimals = if micros { 6 } else { 0 };
                t
            }
            _ => {
                let fsp = args.first().map_or(0, |a| a.decimals.min(6));
                ExprType::datetime(if u.has_micros() { 6 } else { fsp }).nullable(true)
            }
        },
        DateFormat => {
            let mut t = ExprType::string(64, utf).nullable(true);
            t.decimals = 0;
            t
        }
        Concat => ExprType::string(args.iter().map(|a| a.len).sum(), str_coll).nullable(true),
        ConcatWs => {
            let parts: u32 = args[1..].iter().map(|a| a.len).sum();
            let seps = args[0].len * (args.len() as u32).saturating_sub(2);
            // Nullable when any argument is (MariaDB's Item_func::fix_fields).
            ExprType::string(parts + seps, str_coll).nullable(any_null)
        }
        LikeLow | LikeHigh => ExprType::string(arg_len(0) + 4, str_coll),
        SubstringIndex => ExprType::string(arg_len(0), str_coll).nullable(true),
        Elt => ExprType::string(
            args.iter().skip(1).map(|a| a.len).max().unwrap_or(0),
            str_coll,
        )
        .nullable(true),
        Uuid => ExprType::string(36, utf),
        Format => ExprType::string(arg_len(0) + 20, utf).nullable(true),
        Quote => ExprType::string(arg_len(0) * 2 + 2, str_coll).nullable(true),
        Bin | Oct => ExprType::string(65, utf).nullable(true),
        DayName | MonthName => {
            let mut t = ExprType::string(9, utf).nullable(true);
            t.decimals = 0;
            t
        }
        FromDays | LastDay => ExprType::date().nullable(true),
        FindInSet | FindInSetMember => ExprType::int(3).nullable(any_null),
        TimestampDiff => ExprType::bigint().nullable(true),
        Trig(_) | Log | Log2 | Degrees | Radians => double23(),
        Field => ExprType::int(3),
        Locate | Instr => ExprType::long(11).nullable(any_null),
        Strcmp => ExprType::int(2).nullable(any_null),
        Ascii => ExprType::int(3).nullable(any_null),
        Length | CharLength => ExprType::long(10).nullable(any_null),
        Crc32 => ExprType::long(10).unsigned().nullable(any_null),
        Upper | Lower | Reverse | Trim(_) => ExprType::string(arg_len(0), str_coll).nullable(true),
        Substring | Left | Right => ExprType::string(arg_len(0), str_coll).nullable(true),
        Replace | Repeat | Lpad | Rpad | Space => {
            ExprType::string(arg_len(0).max(1) * 4, str_coll).nullable(true)
        }
        Hex => {
            let bytes = match args[0].class {
                Class::String => arg_len(0) * args[0].collation.charset().max_len(),
                Class::Null => 0,
                // MariaDB sizes HEX of a BIT(n) by its display width.
                _ if args[0].column_type == Some(basalt_common::ColumnType::Bit) => arg_len(0),
                _ => 8,
            };
            let mut t = ExprType::string(bytes * 2, utf).nullable(any_null);
            t.decimals = 0;
            t
        }
        Md5 => ExprType::string(32, utf).nullable(any_null),
        Sha1 => ExprType::string(40, utf).nullable(any_null),
        Sha2 => ExprType::string(128, utf).nullable(true),
        Coalesce | Greatest | Least => {
            let mut t = args
                .iter()
                .skip(1)
                .fold(aggregate(&args[0], &ExprType::null()), |acc, a| {
                    aggregate(&acc, a)
                });
            t.nullable = if f == Coalesce {
                args.iter().all(|a| a.nullable)
            } else {
                any_null
            };
            t
        }
        IfNull => {
            let mut t = aggregate(&args[0], &args[1]);
            t.nullable = args[1].nullable;
            t
        }
        NullIf => args[0].clone().nullable(true),
        If => aggregate(&args[1], &args[2]),
        Nvl2 => aggregate(&args[1], &args[2]).nullable(any_null),
        IsNullFn => ExprType::int(1),
        Sign => ExprType::int(2).nullable(any_null),
        Abs => {
            let mut t = args[0].clone();
            t.origin = None;
            t.column_type = None;
            t.col_flags = 0;
            t.int_width = 0;
            // A function result counts a place for the sign unless unsigned.
            t.sign_char = !t.unsigned;
            if t.class == Class::String {
                ExprType::double().nullable(t.nullable)
            } else {
                t
            }
        }
        Round | Truncate | Floor | Ceil => rounding_type(f, args),
        Mod => {
            let mut t = aggregate(&args[0], &args[1]);
            // Sized by precision like the operator, not by the branch handler.
            t.column_type = None;
            t.nullable(true)
        }
        Sqrt | Pow | Exp | Ln | Log10 => double23(),
        Rand | Pi => ExprType::double(),
        Interval => ExprType::int(2),
        JsonValid => ExprType::int(1).nullable(any_null),
        // MariaDB: INT(1), nullable only when its argument is.
        Sleep => ExprType::int(1).nullable(any_null),
        // MariaDB: INT(2), nullable only when the list is.
        MasterGtidWait => ExprType::int(2).nullable(args[0].nullable),
        ConvertTz => ExprType::datetime(args[0].decimals.min(6)).nullable(true),
        Text(t) => text::result_type(t, args),
        Clock(c) => clock::result_type(c, args, &[]),
        Misc(m) => misc::result_type(m),
        Lock(l) => userlock::result_type(l),
        Seq(q) => sequence::result_type(q),
        Regexp(r) => regexp::result_type(r, args),
        Json(j) => json_fn::result_type(j, args),
        Crypt(c) => crypt::result_type(c, args),
    }
}

/// ROUND/TRUNCATE of a DECIMAL to a constant number of digits: the scale is the
/// digits asked for (at most the argument's), ROUND keeps a digit for the carry.
fn decimal_rounding_type(round: bool, a: &ExprType, digits: i64, args: &[ExprType]) -> ExprType {
    let scale = digits.clamp(0, a.decimals as i64) as u8;
    let ints = a.precision().saturating_sub(a.decimals as u32) + u32::from(round);
    let nullable = args.iter().any(|x| x.nullable);
    ExprType::decimal((ints + scale as u32).max(1), scale).nullable(nullable)
}

/// A DOUBLE result as MariaDB sizes most math functions (23 characters).
fn double23() -> ExprType {
    let mut t = ExprType::double().nullable(true);
    t.len = 23;
    t
}

fn rounding_type(f: Func, args: &[ExprType]) -> ExprType {
    let a = &args[0];
    let nullable = args.iter().any(|x| x.nullable);
    match a.class {
        Class::Int if a.unsigned => ExprType::int(a.len.max(1)).unsigned().nullable(nullable),
        Class::Int => ExprType::int(a.len.max(1)).nullable(nullable),
        Class::Decimal => {
            let scale = if matches!(f, Func::Floor | Func::Ceil) || args.len() < 2 {
                0
            } else {
                a.decimals
            };
            let ints = a.precision().saturating_sub(a.decimals as u32) + 1;
            if scale == 0 && ints < 19 && matches!(f, Func::Floor | Func::Ceil) {
                return ExprType::int(ints + 1).nullable(nullable);
            }
            ExprType::decimal(ints + scale as u32, scale).nullable(nullable)
        }
        // MariaDB: DOUBLE(17,0) for FLOOR/CEIL of a floating-point value.
        _ if matches!(f, Func::Floor | Func::Ceil) || args.len() < 2 => {
            let mut t = ExprType::double().nullable(nullable);
            t.len = 17;
            t.decimals = 0;
            t
        }
        _ => ExprType::double().nullable(nullable),
    }
}

/// Evaluates `f(args)` against `row`.
pub fn eval(f: Func, args: &[Expr], row: &[Value], ctx: &mut EvalCtx) -> R {
    use Func::*;
    match f {
        Coalesce => {
            for a in args {
                let v = a.eval(row, ctx)?;
                if !v.is_null() {
                    return Ok(v);
                }
            }
            Ok(Value::Null)
        }
        IfNull => {
            let v = args[0].eval(row, ctx)?;
            if v.is_null() {
                args[1].eval(row, ctx)
            } else {
                Ok(v)
            }
        }
        If => {
            if args[0].eval_bool(row, ctx)? == Some(true) {
                args[1].eval(row, ctx)
            } else {
                args[2].eval(row, ctx)
            }
        }
        Nvl2 => {
            if args[0].eval(row, ctx)?.is_null() {
                args[2].eval(row, ctx)
            } else {
                args[1].eval(row, ctx)
            }
        }
        Misc(misc::MiscFn::Benchmark) => misc::benchmark(args, row, ctx),
        TimestampLocal => Ok(match (args[0].eval(row, ctx)?, &ctx.cx.zone) {
            (Value::DateTime(d), Some(z)) if d.date.year != 0 => Value::DateTime(z.local_of(&d)),
            (v, _) => v,
        }),
        _ => {
            let vals = args
                .iter()
                .map(|a| a.eval(row, ctx))
                .collect::<Result<Vec<_>, _>>()?;
            eval_values(f, vals, ctx)
        }
    }
}

fn eval_values(f: Func, vals: Vec<Value>, ctx: &mut EvalCtx) -> R {
    use Func::*;
    match f {
        Database => Ok(ctx.cx.db.as_deref().map_or(Value::Null, Value::str)),
        User => Ok(Value::str(&format!("{}@{}", ctx.cx.user, ctx.cx.host))),
        CurrentUser => Ok(Value::str(&ctx.cx.privs.current_user(&ctx.cx.user))),
        CurrentRole => Ok(ctx.cx.privs.role.as_deref().map_or(Value::Null, Value::str)),
        ConnectionId => Ok(Value::UInt(ctx.cx.var_u64("pseudo_thread_id"))),
        Version => Ok(Value::str(&ctx.cx.engine.config.version)),
        LastInsertId => {
            if let Some(v) = vals.first() {
                let n = crate::value::to_num(v).0.to_i128().unwrap_or(0) as u64;
                ctx.cx.last_insert_id = n;
                return Ok(Value::UInt(n));
            }
            Ok(Value::UInt(ctx.cx.last_insert_id))
        }
        RowCount => Ok(Value::Int(ctx.cx.row_count)),
        Sleep => sleep::eval(&vals[0], ctx),
        MasterGtidWait => gtid_wait::eval(&vals, ctx),
        ConvertTz if vals.iter().any(Value::is_null) => Ok(Value::Null),
        ConvertTz => tz::eval(&vals, ctx),
        FoundRows => Ok(Value::Int(ctx.cx.found_rows as i64)),
        NullIf => {
            let eq = crate::value::compare::equal(&vals[0], &vals[1], Collation::Utf8mb4GeneralCi);
            Ok(if eq == Some(true) {
                Value::Null
            } else {
                vals[0].clone()
            })
        }
        IsNullFn => Ok(Value::Int(vals[0].is_null() as i64)),
        Greatest | Least => Ok(extreme(f == Greatest, vals)),
        JsonValid => Ok(json_valid(&vals[0], ctx)),
        FromUnixtime if vals.len() == 2 => {
            clock::eval(clock::ClockFn::FromUnixtimeFormat, vals, ctx)
        }
        ToDays | FromDays | Weekday | DayName | MonthName | LastDay | TimestampDiff => {
            time::eval(f, vals, ctx)
        }
        Trig(_) | Log | Log2 | Degrees | Radians => numeric::eval(f, vals, ctx),
        Now | SysDate | CurDate | CurTime | UtcTime | UtcTimestamp | UtcDate | UnixTimestamp
        | FromUnixtime | DateOf | TimeOf | Year | Month | DayOfMonth | Hour | Minute | Second
        | DayOfWeek | DayOfYear | DateDiff | DateAdd(_) | DateSub(_) | DateFormat => {
            time::eval(f, vals, ctx)
        }
        Abs | Round | Truncate | Floor | Ceil | Mod | Sign | Sqrt | Pow | Exp | Ln | Log10
        | Rand | Pi => numeric::eval(f, vals, ctx),
        Interval => Ok(Value::Int(numeric::interval(&vals, ctx))),
        Text(t) => text::eval(t, vals, ctx),
        Clock(c) => clock::eval(c, vals, ctx),
        Misc(m) => misc::eval(m, vals, ctx),
        Lock(l) => userlock::eval(l, vals, ctx),
        Regexp(r) => regexp::eval(r, vals, ctx),
        Json(j) => json_fn::eval(j, vals, ctx),
        Seq(q) => sequence::eval(q, vals, ctx),
        Crypt(c) => crypt::eval(c, vals, ctx),
        _ => string::eval(f, vals, ctx),
    }
}

/// `JSON_VALID(v)`: 1 or 0 (with MariaDB's note saying where the text breaks),
/// NULL for NULL.
fn json_valid(v: &Value, ctx: &mut EvalCtx) -> Value {
    if v.is_null() {
        return Value::Null;
    }
    let text = crate::value::to_bytes(v);
    match json::validate(&text) {
        Ok(()) => Value::Int(1),
        Err((e, pos)) => {
            let (code, msg) = e.note("json_valid", 1, pos);
            ctx.cx.note(code, msg);
            Value::Int(0)
        }
    }
}

fn extreme(greatest: bool, vals: Vec<Value>) -> Value {
    if vals.iter().any(Value::is_null) {
        return Value::Null;
    }
    let mut it = vals.into_iter();
    let mut best = it.next().unwrap_or(Value::Null);
    for v in it {
        let o = crate::value::compare::compare(&v, &best, Collation::Utf8mb4GeneralCi);
        let better = match o {
            Some(std::cmp::Ordering::Greater) => greatest,
            Some(std::cmp::Ordering::Less) => !greatest,
            _ => false,
        };
        if better {
            best = v;
        }
    }
    best
}

/// 1582 for an argument count that is within bounds but of the wrong shape
/// (JSON_OBJECT takes pairs; JSON_SET and friends a document and pairs).
/// Argument types a function refuses when the statement is bound (4079).
pub fn check_types(f: Func, args: &[ExprType]) -> Result<(), MySqlError> {
    match f {
        Func::Lock(l) => userlock::check_types(l, args),
        Func::MasterGtidWait => userlock::string_first(args, "master_gtid_wait"),
        _ => Ok(()),
    }
}

pub fn check_shape(f: Func, name: &str, n: usize) -> Result<(), MySqlError> {
    match f {
        Func::Json(j) if !json_fn::check_pairs(j, n) => {
            Err(MySqlError::wrong_paramcount_to_native_fct(name))
        }
        _ => Ok(()),
    }
}

/// Functions MariaDB's grammar spells out: a wrong argument count is a syntax
/// error (1064) there, not 1582.
const GRAMMAR_FUNCTIONS: &[&str] = &[
    "adddate",
    "ascii",
    "char",
    "charset",
    "curdate",
    "current_role",
    "current_user",
    "curtime",
    "date",
    "day",
    "hour",
    "if",
    "insert",
    "left",
    "minute",
    "mod",
    "month",
    "now",
    "replace",
    "repeat",
    "right",
    "second",
    "subdate",
    "time",
    "timestamp",
    "timestampadd",
    "timestampdiff",
    "truncate",
    "user",
    "utc_date",
    "utc_time",
    "utc_timestamp",
    "year",
];

/// 1582 for a wrong argument count (1064 for the functions of the grammar).
pub fn check_arity(name: &str, n: usize, min: usize, max: usize) -> Result<(), MySqlError> {
    if (n < min || n > max) && GRAMMAR_FUNCTIONS.contains(&name) {
        return Err(MySqlError::parse_error(if n > max { "," } else { ")" }, 1));
    }
    if n < min || n > max {
        return Err(MySqlError::wrong_paramcount_to_native_fct(name));
    }
    Ok(())
}
