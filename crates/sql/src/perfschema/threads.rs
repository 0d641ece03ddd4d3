//! Threads, connections per account, user and host, and the status and
//! variables tables.

use super::rows::RowBuilder;
use crate::session::ctx::SessionCtx;
use crate::stats::userstat::Kind;
use basalt_common::{Row, TableDef};
use std::collections::BTreeMap;

pub(super) fn build(name: &str, def: &TableDef, cx: &SessionCtx) -> Option<Vec<Row>> {
    Some(match name {
        "threads" => threads(def, cx),
        "accounts" | "users" | "hosts" => connections(name, def, cx),
        "global_status" | "session_status" => {
            let mut pairs = crate::show::status_pairs(cx, name == "global_status");
            crate::show::sort_status(&mut pairs);
            pairs
                .iter()
                .map(|(k, v)| {
                    RowBuilder::new(def)
                        .s("VARIABLE_NAME", k)
                        .s("VARIABLE_VALUE", v)
                        .done()
                })
                .collect()
        }
        _ => return None,
    })
}

fn threads(def: &TableDef, cx: &SessionCtx) -> Vec<Row> {
    cx.engine
        .processlist()
        .into_iter()
        .filter(|p| cx.privs.sees_thread(&cx.user, &p.user))
        .map(|p| {
            RowBuilder::new(def)
                .n("THREAD_ID", p.id)
                .s("NAME", "thread/sql/one_connection")
                .s("TYPE", "FOREGROUND")
                .n("PROCESSLIST_ID", p.id)
                .s("PROCESSLIST_USER", &p.user)
                .s("PROCESSLIST_HOST", host_only(&p.host))
                .opt("PROCESSLIST_DB", p.db.as_deref())
                .s("PROCESSLIST_COMMAND", &p.command)
                .n("PROCESSLIST_TIME", p.time)
                .s("PROCESSLIST_STATE", &p.state)
                .opt("PROCESSLIST_INFO", p.info.as_deref())
                .s("INSTRUMENTED", "YES")
                .s("HISTORY", "YES")
                .done()
        })
        .collect()
}

/// `host:port` from the process list without the port.
fn host_only(h: &str) -> &str {
    match h.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => h,
    }
}

/// CURRENT_CONNECTIONS from the process list, TOTAL_CONNECTIONS from the
/// user and client statistics (every login since start or FLUSH).
fn connections(name: &str, def: &TableDef, cx: &SessionCtx) -> Vec<Row> {
    let mut current: BTreeMap<(String, String), u64> = BTreeMap::new();
    for p in cx.engine.processlist() {
        let host = host_only(&p.host).to_string();
        let key = match name {
            "users" => (p.user, String::new()),
            "hosts" => (String::new(), host),
            _ => (p.user, host),
        };
        *current.entry(key).or_default() += 1;
    }
    let totals = match name {
        "hosts" => cx.engine.stats.account_rows(Kind::Client),
        _ => cx.engine.stats.account_rows(Kind::User),
    };
    let total_of = |(u, h): &(String, String)| {
        let k = if name == "hosts" { h } else { u };
        totals.get(k).map_or(0, |t| t.connections)
    };
    let mut keys: Vec<(String, String)> = current.keys().cloned().collect();
    if name != "accounts" {
        for k in totals.keys() {
            keys.push(match name {
                "hosts" => (String::new(), k.clone()),
                _ => (k.clone(), String::new()),
            });
        }
    }
    keys.sort();
    keys.dedup();
    keys.iter()
        .map(|k| {
            let now = current.get(k).copied().unwrap_or(0);
            let mut b = RowBuilder::new(def);
            if name != "hosts" {
                b.s("USER", &k.0);
            }
            if name != "users" {
                b.s("HOST", &k.1);
            }
            b.n("CURRENT_CONNECTIONS", now)
                .n("TOTAL_CONNECTIONS", total_of(k).max(now));
            b.done()
        })
        .collect()
}
