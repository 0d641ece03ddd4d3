//! GET_LOCK, RELEASE_LOCK, RELEASE_ALL_LOCKS, IS_FREE_LOCK and IS_USED_LOCK over
//! the server's user-level locks ([`crate::userlock`]), with MariaDB 10.11's
//! values: a NULL or empty name gives NULL; a negative or NULL timeout gives NULL
//! with warning 1411; KILL QUERY and `max_statement_time` end a wait with NULL
//! (no error, as MariaDB); a wait that would deadlock fails with 1213. Names must
//! be strings: a number or a temporal argument is 4079 when the statement is
//! bound, as MariaDB checks parameter types.

use crate::expr::{EvalCtx, R};
use crate::ty::{Class, ExprType};
use crate::userlock::Acquire;
use crate::value::{str_to_f64, to_bytes, to_f64};
use basalt_common::{ColumnType, MySqlError, Value};
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockFn {
    GetLock,
    ReleaseLock,
    ReleaseAllLocks,
    IsFreeLock,
    IsUsedLock,
}

impl LockFn {
    fn name(self) -> &'static str {
        match self {
            LockFn::GetLock => "get_lock",
            LockFn::ReleaseLock => "release_lock",
            LockFn::ReleaseAllLocks => "release_all_locks",
            LockFn::IsFreeLock => "is_free_lock",
            LockFn::IsUsedLock => "is_used_lock",
        }
    }
}

pub fn lookup(name: &str) -> Option<(LockFn, usize, usize)> {
    use LockFn::*;
    Some(match name {
        "get_lock" => (GetLock, 2, 2),
        "release_lock" => (ReleaseLock, 1, 1),
        "release_all_locks" => (ReleaseAllLocks, 0, 0),
        "is_free_lock" => (IsFreeLock, 1, 1),
        "is_used_lock" => (IsUsedLock, 1, 1),
        _ => return None,
    })
}

pub fn result_type(f: LockFn) -> ExprType {
    match f {
        LockFn::ReleaseAllLocks => {
            // MariaDB sends it as INT (not BIGINT) despite the 11 digits.
            let mut t = ExprType::int(11).unsigned();
            t.column_type = Some(ColumnType::Long);
            t
        }
        LockFn::IsUsedLock => ExprType::long(10).nullable(true),
        _ => ExprType::int(1).nullable(true),
    }
}

/// 4079 for a lock name that is not a string (or NULL).
pub fn check_types(f: LockFn, args: &[ExprType]) -> Result<(), MySqlError> {
    string_first(args, f.name())
}

/// 4079 naming `function` when its first argument is neither a string nor NULL.
pub fn string_first(args: &[ExprType], function: &str) -> Result<(), MySqlError> {
    let Some(name) = args.first() else {
        return Ok(());
    };
    if matches!(name.class, Class::String | Class::Null) {
        return Ok(());
    }
    Err(MySqlError::new(
        4079,
        "HY000",
        format!(
            "Illegal parameter data type {} for operation '{function}'",
            type_name(name),
        ),
    ))
}

/// MariaDB's name of a non-string type in parameter-type errors.
fn type_name(t: &ExprType) -> &'static str {
    match t.protocol_type() {
        ColumnType::Tiny => "tinyint",
        ColumnType::Short => "smallint",
        ColumnType::Int24 => "mediumint",
        ColumnType::Long => "int",
        ColumnType::LongLong => "bigint",
        ColumnType::Float => "float",
        ColumnType::Double => "double",
        ColumnType::Decimal | ColumnType::NewDecimal => "decimal",
        ColumnType::Date => "date",
        ColumnType::Timestamp => "timestamp",
        ColumnType::DateTime => "datetime",
        ColumnType::Time => "time",
        ColumnType::Year => "year",
        ColumnType::Bit => "bit",
        _ => "varchar",
    }
}

pub fn eval(f: LockFn, vals: Vec<Value>, ctx: &mut EvalCtx) -> R {
    let engine = ctx.cx.engine.clone();
    let locks = &engine.user_locks;
    let conn = ctx.cx.conn_id;
    // A NULL or empty name names no lock.
    let name = || match vals.first() {
        None | Some(Value::Null) => None,
        Some(v) => Some(to_bytes(v)).filter(|n| !n.is_empty()),
    };
    let flag = |b: bool| Value::Int(b as i64);
    Ok(match f {
        LockFn::ReleaseAllLocks => Value::UInt(locks.release_all(conn)),
        _ => match name() {
            None => Value::Null,
            Some(n) if f == LockFn::GetLock => return get_lock(&n, &vals[1], ctx),
            Some(n) if f == LockFn::ReleaseLock => {
                locks.release(conn, &n).map_or(Value::Null, flag)
            }
            Some(n) if f == LockFn::IsFreeLock => flag(locks.owner(&n).is_none()),
            Some(n) => locks
                .owner(&n)
                .map_or(Value::Null, |c| Value::Int(c as i64)),
        },
    })
}

fn get_lock(name: &[u8], timeout_arg: &Value, ctx: &mut EvalCtx) -> R {
    let Some(timeout) = timeout(timeout_arg, ctx) else {
        return Ok(Value::Null);
    };
    let engine = ctx.cx.engine.clone();
    Ok(
        match engine
            .user_locks
            .acquire(ctx.cx.conn_id, name, timeout, ctx.interrupt)
        {
            Acquire::Granted => {
                ctx.cx.holds_user_locks = true;
                Value::Int(1)
            }
            Acquire::TimedOut => Value::Int(0),
            Acquire::Interrupted => Value::Null,
            Acquire::Deadlock => return Err(MySqlError::deadlock()),
        },
    )
}

/// The wait of GET_LOCK: None (NULL result, warning 1411) for a NULL or negative
/// timeout, Some(None) to wait without end (a year or more).
fn timeout(v: &Value, ctx: &mut EvalCtx) -> Option<Option<Duration>> {
    let secs = match v {
        Value::Null => f64::NAN,
        Value::Bytes(b) => {
            let (x, clean) = str_to_f64(b);
            if !clean {
                let text = String::from_utf8_lossy(b);
                ctx.cx
                    .warn_err(&MySqlError::truncated_wrong_value("DOUBLE", &text));
            }
            x
        }
        other => to_f64(other),
    };
    // MariaDB judges the whole seconds (-0.5 waits not at all, -1.5 is '-1').
    if secs.is_nan() || (secs as i64) < 0 {
        let shown = match v {
            Value::Null => "NULL".to_string(),
            _ => (secs as i64).to_string(),
        };
        ctx.warn(
            1411,
            format!("Incorrect timeout value: '{shown}' for function get_lock"),
        );
        return None;
    }
    let wait = Duration::try_from_secs_f64(secs.max(0.0)).ok();
    Some(wait.filter(|d| d.as_secs() < 31_536_000))
}
