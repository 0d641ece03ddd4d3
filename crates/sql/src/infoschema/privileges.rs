//! USER_PRIVILEGES, SCHEMA_PRIVILEGES and TABLE_PRIVILEGES: one row per privilege
//! held, as MariaDB lists them. An account sees its own rows; with SELECT on the
//! `mysql` database, every account's. APPLICABLE_ROLES and ENABLED_ROLES: the
//! session's roles.

use crate::result::{opt_s, s};
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

/// Whose grants count for `who`: itself, and for a role every role granted to
/// it (MariaDB lists a role's inherited privileges as its own).
fn sources(acl: &AclData, (u, h): &(String, String)) -> Vec<(String, String)> {
    if h.is_empty() && acl.role(u).is_some() {
        return acl
            .role_closure(u)
            .into_iter()
            .map(|r| (r, String::new()))
            .collect();
    }
    vec![(u.clone(), h.clone())]
}

/// `(key, privileges)` of `grants` held by `who`, merged by key in first-seen
/// order.
fn held<'a, T: 'a, K: PartialEq>(
    acl: &AclData,
    who: &(String, String),
    grants: impl Iterator<Item = &'a T> + Clone,
    key: impl Fn(&T) -> Option<(&str, &str, K, Privs)>,
) -> Vec<(K, Privs)> {
    let mut out: Vec<(K, Privs)> = Vec::new();
    for (u, h) in sources(acl, who) {
        for g in grants.clone() {
            let Some((gu, gh, k, p)) = key(g) else {
                continue;
            };
            if gu != u || !gh.eq_ignore_ascii_case(&h) {
                continue;
            }
            match out.iter_mut().find(|(x, _)| *x == k) {
                Some((_, q)) => *q |= p,
                None => out.push((k, p)),
            }
        }
    }
    out
}

pub fn user_privileges(cx: &SessionCtx) -> Vec<Row> {
    let acl = cx.engine.acl.snapshot();
    let mut rows = Vec::new();
    for who in visible(cx, &acl) {
        let privs = sources(&acl, &who)
            .iter()
            .filter_map(|(u, h)| acl.account(u, h))
            .fold(Privs::NONE, |p, a| p | a.privs);
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
    let mut rows = Vec::new();
    for who in visible(cx, &acl) {
        let dbs = held(&acl, &who, acl.dbs.iter(), |g| {
            Some((g.user.as_str(), g.host.as_str(), g.db.clone(), g.privs))
        });
        for (db, privs) in dbs {
            for n in privs.names() {
                rows.push(vec![
                    s(grantee(&who)),
                    s("def"),
                    s(&db),
                    s(n),
                    s(grantable(privs)),
                ]);
            }
        }
    }
    rows
}

pub fn table_privileges(cx: &SessionCtx) -> Vec<Row> {
    let acl = cx.engine.acl.snapshot();
    let mut rows = Vec::new();
    for who in visible(cx, &acl) {
        let tables = held(&acl, &who, acl.tables.iter(), |g| {
            let key = (g.db.clone(), g.table.clone());
            Some((g.user.as_str(), g.host.as_str(), key, g.privs))
        });
        for ((db, table), privs) in tables {
            for n in privs.names() {
                rows.push(vec![
                    s(grantee(&who)),
                    s("def"),
                    s(&db),
                    s(&table),
                    s(n),
                    s(grantable(privs)),
                ]);
            }
        }
    }
    rows
}

/// The roles granted to the session's account and, depth first, those granted
/// to them (each role's grants listed once), as MariaDB lists them.
pub fn applicable_roles(cx: &SessionCtx) -> Vec<Row> {
    let Some((user, host)) = &cx.privs.account else {
        return Vec::new();
    };
    let acl = cx.engine.acl.snapshot();
    let default = acl.account(user, host).map(|a| a.default_role.clone());
    let mut rows = Vec::new();
    let mut seen = Vec::new();
    for g in acl.roles_of(user, host) {
        let is_default = default.as_deref() == Some(g.role.as_str());
        rows.push(vec![
            s(format!("{user}@{host}")),
            s(&g.role),
            s(yes_no(g.admin)),
            s(yes_no(is_default)),
        ]);
        role_rows(&acl, &g.role, &mut seen, &mut rows);
    }
    rows
}

/// The rows of the roles granted to `role`, then theirs, each role once.
fn role_rows(acl: &AclData, role: &str, seen: &mut Vec<String>, rows: &mut Vec<Row>) {
    if seen.iter().any(|r| r == role) {
        return;
    }
    seen.push(role.to_string());
    let granted: Vec<(String, bool)> = acl
        .roles_of(role, "")
        .map(|g| (g.role.clone(), g.admin))
        .collect();
    for (r, admin) in granted {
        rows.push(vec![s(role), s(&r), s(yes_no(admin)), opt_s(None::<&str>)]);
        role_rows(acl, &r, seen, rows);
    }
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "YES"
    } else {
        "NO"
    }
}

/// The enabled role and the roles granted to it; one NULL row without one.
pub fn enabled_roles(cx: &SessionCtx) -> Vec<Row> {
    let Some(role) = &cx.privs.role else {
        return vec![vec![opt_s(None::<&str>)]];
    };
    cx.engine
        .acl
        .snapshot()
        .role_closure(role)
        .into_iter()
        .map(|r| vec![s(r)])
        .collect()
}
