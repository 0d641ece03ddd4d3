//! `MASTER_GTID_WAIT(gtid_list [, timeout])` as MariaDB 10.11 has it: waits until
//! the replica's `@@gtid_slave_pos` reaches the list in each of its domains
//! ([`crate::replica::Replica::wait_for_gtids`]); 0 when it did, -1 when the
//! timeout (seconds, fractions allowed) passed first. A NULL list gives NULL at
//! once, an empty one 0; a list that does not parse is 1941; a NULL or negative
//! timeout waits without end. KILL QUERY and `max_statement_time` fail the
//! statement (1317, which the session turns into 1969 for the deadline).

use crate::expr::{EvalCtx, R};
use crate::replica::GtidWait;
use crate::value::{str_to_f64, to_bytes, to_f64};
use basalt_common::{MySqlError, Value};
use basalt_replication::gtid::GtidList;
use std::time::Duration;

pub fn eval(vals: &[Value], ctx: &mut EvalCtx) -> R {
    let list = match vals.first() {
        None | Some(Value::Null) => return Ok(Value::Null),
        Some(v) => to_bytes(v),
    };
    let target = std::str::from_utf8(&list)
        .ok()
        .and_then(GtidList::parse)
        .ok_or_else(|| MySqlError::new(1941, "HY000", "Could not parse GTID list"))?;
    let timeout = match vals.get(1) {
        None => None,
        Some(v) => timeout(v, ctx),
    };
    let engine = ctx.cx.engine.clone();
    Ok(
        match engine
            .replica()
            .wait_for_gtids(&target, timeout, ctx.interrupt)
        {
            GtidWait::Reached => Value::Int(0),
            GtidWait::TimedOut => Value::Int(-1),
            GtidWait::Interrupted => return Err(MySqlError::query_interrupted()),
        },
    )
}

/// The wait: None for NULL, a negative number or a year or more (no end).
fn timeout(v: &Value, ctx: &mut EvalCtx) -> Option<Duration> {
    let secs = match v {
        Value::Null => return None,
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
    if secs.is_nan() || secs < 0.0 {
        return None;
    }
    Duration::try_from_secs_f64(secs)
        .ok()
        .filter(|d| d.as_secs() < 31_536_000)
}
