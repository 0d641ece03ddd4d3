//! Role statements as MariaDB 10.11's grammar has them: CREATE [OR REPLACE]
//! ROLE [IF NOT EXISTS] ... [WITH ADMIN ...], DROP ROLE [IF EXISTS], GRANT role
//! TO ... [WITH ADMIN OPTION], REVOKE [ADMIN OPTION FOR] role FROM ..., SET ROLE
//! and SET DEFAULT ROLE.

use super::account::{AccountName, UserSpec};
use super::{Native, P, R};
use crate::front::lexer::TokKind;
use basalt_common::MySqlError;

/// Who CREATE ROLE ... WITH ADMIN makes the role's first administrator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admin {
    CurrentUser,
    CurrentRole,
    /// An account or (a bare name) a role.
    Grantee(UserSpec),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoleStmt {
    Create {
        or_replace: bool,
        if_not_exists: bool,
        roles: Vec<String>,
        admin: Admin,
    },
    Drop {
        if_exists: bool,
        roles: Vec<String>,
    },
    Grant {
        roles: Vec<String>,
        grantees: Vec<UserSpec>,
        admin: bool,
    },
    Revoke {
        roles: Vec<String>,
        grantees: Vec<UserSpec>,
        /// REVOKE ADMIN OPTION FOR: the grant stays.
        admin_only: bool,
    },
    /// SET ROLE name | NONE.
    Set(Option<String>),
    /// SET DEFAULT ROLE name | NONE [FOR account].
    SetDefault {
        role: Option<String>,
        user: Option<AccountName>,
    },
}

/// 1959 for a name that cannot be a role.
pub fn invalid_role(name: &str) -> MySqlError {
    MySqlError::new(
        1959,
        "OP000",
        format!("Invalid role specification `{name}`"),
    )
}

/// A role name: a word, a quoted identifier or a string.
fn role_name(p: &mut P) -> R<String> {
    match p.peek() {
        Some(t) if t.kind == TokKind::Str => Ok(String::from_utf8_lossy(&p.string()?).into_owned()),
        _ => p.ident(),
    }
}

/// A name CREATE ROLE may use: not empty, NONE or PUBLIC (1959).
fn new_role_name(p: &mut P) -> R<String> {
    let name = role_name(p)?;
    let reserved = ["none", "public"]
        .iter()
        .find(|k| name.eq_ignore_ascii_case(k));
    match reserved {
        Some(k) => Err(invalid_role(&k.to_ascii_uppercase())),
        None if name.is_empty() => Err(invalid_role("")),
        None => Ok(name),
    }
}

fn role_list(p: &mut P, one: fn(&mut P) -> R<String>) -> R<Vec<String>> {
    let mut out = vec![one(p)?];
    while p.punct(",") {
        out.push(one(p)?);
    }
    Ok(out)
}

/// CREATE [OR REPLACE] ROLE, after ROLE.
pub(super) fn create(p: &mut P, or_replace: bool) -> R<RoleStmt> {
    let if_not_exists = p.kw("if") && {
        p.expect_kw("not")?;
        p.expect_kw("exists")?;
        true
    };
    let roles = role_list(p, new_role_name)?;
    let admin = if p.kw("with") {
        p.expect_kw("admin")?;
        if p.kw("current_user") {
            Admin::CurrentUser
        } else if p.kw("current_role") {
            Admin::CurrentRole
        } else {
            Admin::Grantee(super::account::grantee(p)?)
        }
    } else {
        Admin::CurrentUser
    };
    Ok(RoleStmt::Create {
        or_replace,
        if_not_exists,
        roles,
        admin,
    })
}

/// DROP ROLE, after ROLE.
pub(super) fn drop(p: &mut P) -> R<RoleStmt> {
    let if_exists = p.kw("if") && {
        p.expect_kw("exists")?;
        true
    };
    Ok(RoleStmt::Drop {
        if_exists,
        roles: role_list(p, role_name)?,
    })
}

/// Whether the words at the cursor are a role list followed by `to` / `from`
/// (not a privilege list); the cursor does not move.
fn roles_ahead(p: &mut P, then: &str) -> bool {
    let start = p.pos;
    let ok = role_list(p, role_name).is_ok_and(|names| {
        let first = names[0].to_ascii_uppercase();
        let privilege = basalt_acl::Privs::from_name(&first).is_some()
            || ["ALL", "USAGE", "PROXY"].contains(&first.as_str());
        !privilege && p.peek().is_some_and(|t| t.is_kw(p.src, then))
    });
    p.pos = start;
    ok
}

/// GRANT role[, role] TO grantees [WITH ADMIN OPTION], if that is what follows
/// GRANT.
pub(super) fn grant(p: &mut P) -> R<Option<RoleStmt>> {
    if !roles_ahead(p, "to") {
        return Ok(None);
    }
    let roles = role_list(p, role_name)?;
    p.expect_kw("to")?;
    let grantees = super::account::grantees(p)?;
    let admin = p.kw("with") && {
        p.expect_kw("admin")?;
        p.expect_kw("option")?;
        true
    };
    Ok(Some(RoleStmt::Grant {
        roles,
        grantees,
        admin,
    }))
}

/// REVOKE [ADMIN OPTION FOR] role[, role] FROM grantees, if that is what
/// follows REVOKE.
pub(super) fn revoke(p: &mut P) -> R<Option<RoleStmt>> {
    let start = p.pos;
    let admin_only = p.kw("admin") && p.kw("option") && p.kw("for");
    if !admin_only {
        p.pos = start;
    }
    if !roles_ahead(p, "from") {
        p.pos = start;
        return Ok(None);
    }
    let roles = role_list(p, role_name)?;
    p.expect_kw("from")?;
    Ok(Some(RoleStmt::Revoke {
        roles,
        grantees: super::account::grantees(p)?,
        admin_only,
    }))
}

/// SET ROLE ... / SET DEFAULT ROLE ..., the cursor after SET.
pub(super) fn set(p: &mut P) -> R<Native> {
    let default = p.kw("default");
    p.expect_kw("role")?;
    let role = if p.kw("none") {
        None
    } else {
        Some(role_name(p)?)
    };
    let stmt = if default {
        let user = if p.kw("for") {
            Some(super::account::account_name(p)?)
        } else {
            None
        };
        RoleStmt::SetDefault { role, user }
    } else {
        RoleStmt::Set(role)
    };
    p.end()?;
    Ok(Native::Role(stmt))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::lexer::lex;

    fn parse(s: &str) -> R<Option<Native>> {
        let toks = lex(s).tokens;
        super::super::parse_native(s, &toks, false)
    }

    fn stmt(s: &str) -> RoleStmt {
        match parse(s) {
            Ok(Some(Native::Role(r))) => r,
            other => panic!("{s}: {other:?}"),
        }
    }

    fn spec(u: &str, h: Option<&str>) -> UserSpec {
        UserSpec {
            name: Some((u.into(), h.unwrap_or("%").into())),
            auth: None,
            bare: h.is_none(),
        }
    }

    #[test]
    fn role_statements_parse() {
        assert_eq!(
            stmt("create or replace role if not exists r1, 'r 2' with admin u@h"),
            RoleStmt::Create {
                or_replace: true,
                if_not_exists: true,
                roles: vec!["r1".into(), "r 2".into()],
                admin: Admin::Grantee(spec("u", Some("h"))),
            }
        );
        assert_eq!(
            stmt("GRANT r1 TO u@'%', r2 WITH ADMIN OPTION"),
            RoleStmt::Grant {
                roles: vec!["r1".into()],
                grantees: vec![spec("u", Some("%")), spec("r2", None)],
                admin: true,
            }
        );
        assert_eq!(
            stmt("revoke admin option for r1 from u"),
            RoleStmt::Revoke {
                roles: vec!["r1".into()],
                grantees: vec![spec("u", None)],
                admin_only: true,
            }
        );
        assert_eq!(stmt("set role none"), RoleStmt::Set(None));
        assert_eq!(
            stmt("SET DEFAULT ROLE r FOR u@localhost"),
            RoleStmt::SetDefault {
                role: Some("r".into()),
                user: Some(("u".into(), "localhost".into())),
            }
        );
        assert_eq!(
            stmt("drop role if exists a, b"),
            RoleStmt::Drop {
                if_exists: true,
                roles: vec!["a".into(), "b".into()],
            }
        );
    }

    #[test]
    fn reserved_names_and_privilege_lists() {
        let e = parse("create role none").expect_err("NONE");
        assert_eq!(
            (e.code, e.message.as_str()),
            (1959, "Invalid role specification `NONE`")
        );
        assert_eq!(parse("create role public").expect_err("PUBLIC").code, 1959);
        assert_eq!(parse("create role ''").expect_err("empty").code, 1959);
        // A privilege list is not a role list.
        assert!(matches!(
            parse("grant select on *.* to r"),
            Ok(Some(Native::Account(_)))
        ));
        assert!(matches!(
            parse("revoke insert on t from r"),
            Ok(Some(Native::Account(_)))
        ));
    }
}
