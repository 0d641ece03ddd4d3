//! USER_STATISTICS and CLIENT_STATISTICS rows (see `stats::userstat`). As in
//! MariaDB, an account without PROCESS sees no rows. CPU_TIME and
//! BINLOG_BYTES_WRITTEN are not measured (0), nor are refused or lost
//! connections (DENIED_CONNECTIONS, LOST_CONNECTIONS are 0).

use crate::result::s;
use crate::session::ctx::SessionCtx;
use crate::stats::userstat::{commands, Kind};
use crate::stats::Stat;
use basalt_common::{Row, Value};

pub fn rows(cx: &SessionCtx, table: &str) -> Vec<Row> {
    if !cx.privs.has_process() {
        return Vec::new();
    }
    let kind = if table == "USER_STATISTICS" {
        Kind::User
    } else {
        Kind::Client
    };
    let int = |n: u64| Value::Int(n as i64);
    cx.engine
        .stats
        .account_rows(kind)
        .into_iter()
        .map(|(name, t)| {
            let (select, update, other) = commands(&t);
            vec![
                s(name),
                int(t.connections),
                int(t.concurrent),
                int(t.connected_secs),
                Value::Double(t.busy_us as f64 / 1e6),
                Value::Double(0.0),
                int(t.get(Stat::BytesReceived)),
                int(t.get(Stat::BytesSent)),
                int(0),
                int(t.get(Stat::RowsRead)),
                int(t.get(Stat::RowsSent)),
                int(t.get(Stat::HandlerDelete)),
                int(t.get(Stat::HandlerWrite)),
                int(t.get(Stat::HandlerUpdate)),
                int(select),
                int(update),
                int(other),
                int(t.get(Stat::HandlerCommit)),
                int(t.get(Stat::HandlerRollback)),
                int(0),
                int(0),
                int(t.get(Stat::AccessDeniedErrors)),
                int(t.get(Stat::EmptyQueries)),
                Value::UInt(t.ssl_connections),
                int(t.get(Stat::MaxStatementTimeExceeded)),
            ]
        })
        .collect()
}
