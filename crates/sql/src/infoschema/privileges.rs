//! USER_PRIVILEGES, SCHEMA_PRIVILEGES and TABLE_PRIVILEGES: one row per privilege
//! held, as MariaDB lists them. An account sees its own rows; with SELECT on the
//! `mysql` database, every account's.

use crate::result::s;
use crate::session::ctx::SessionCtx;
use basalt_acl::{AclData, Privs};
use basalt_common::Row;

/// The accounts whose rows the session sees, as `(user, host)`.
fn visible(cx: &SessionCtx, acl: &AclData) -> Vec<(String, String)> {
    let all = cx.privs.reads_all_grants();
    acl.accounts
        .iter()
        .map(|a| (a.user.clone(), a.host.clone()))
        .filter(|a| all || cx.privs.account.as_ref() == Some(a))
        .collect()
}

fn grantee((u, h): &(String, String)) -> String {
    format!("'{u}'@'{h}'")
}

fn grantable(p: Privs) -> &'static str {
    if p.contains(Privs::GRANT) {
        "YES"
    } else {
        "NO"
    }
}

pub fn user_privileges(cx: &SessionCtx) -> Vec<Row> {
    let acl = cx.engine.acl.snapshot();
    let mut rows = Vec::new();
    for who in visible(cx, &acl) {
        let privs = acl.account(&who.0, &who.1).map_or(Privs::NONE, |a| a.privs);
        let names = privs.names();
        let names = if names.is_empty() {
            vec!["USAGE"]
        } else {
            names
        };
        for n in names {
            rows.push(vec![s(grantee(&who)), s("def"), s(n), s(grantable(privs))]);
        }
    }
    rows
}

pub fn schema_privileges(cx: &SessionCtx) -> Vec<Row> {
    let acl = cx.engine.acl.snapshot();
    let who = visible(cx, &acl);
    let mut rows = Vec::new();
    for g in &acl.dbs {
        let key = (g.user.clone(), g.host.clone());
        if !who.contains(&key) {
            continue;
        }
        for n in g.privs.names() {
            rows.push(vec![
                s(grantee(&key)),
                s("def"),
                s(&g.db),
                s(n),
                s(grantable(g.privs)),
            ]);
        }
    }
    rows
}

pub fn table_privileges(cx: &SessionCtx) -> Vec<Row> {
    let acl = cx.engine.acl.snapshot();
    let who = visible(cx, &acl);
    let mut rows = Vec::new();
    for g in &acl.tables {
        let key = (g.user.clone(), g.host.clone());
        if !who.contains(&key) {
            continue;
        }
        for n in g.privs.names() {
            rows.push(vec![
                s(grantee(&key)),
                s("def"),
                s(&g.db),
                s(&g.table),
                s(n),
                s(grantable(g.privs)),
            ]);
        }
    }
    rows
}
