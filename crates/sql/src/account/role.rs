//! CREATE / DROP ROLE, GRANT and REVOKE of roles, SET ROLE and SET DEFAULT ROLE
//! with MariaDB 10.11's errors and notes. Changes are one durable step of the
//! accounts ([`super::AclStore::update`]) and go to the binary log as DDL; SET
//! ROLE changes only the session.

use super::R;
use crate::front::native::account::{AccountName, UserSpec};
use crate::front::native::role::{invalid_role, Admin, RoleStmt};
use crate::result::QueryResult;
use crate::session::ctx::Level;
use crate::session::Session;
use basalt_acl::{Account, AclData, Privs, PUBLIC};
use basalt_common::MySqlError;

/// How errors name a grantee: `'role'` or `'user'@'host'`.
fn shown(acl: &AclData, (u, h): &AccountName) -> String {
    match acl.role(u) {
        Some(_) if h.is_empty() => format!("'{u}'"),
        _ => format!("'{u}'@'{h}'"),
    }
}

fn no_such_user() -> MySqlError {
    MySqlError::new(
        1133,
        "28000",
        "Can't find any matching row in the user table",
    )
}

/// A role that exists and is not PUBLIC, or 1959.
fn existing_role(acl: &AclData, name: &str) -> R<()> {
    if name.eq_ignore_ascii_case(PUBLIC) {
        return Err(invalid_role(PUBLIC));
    }
    if acl.role(name).is_none() {
        return Err(invalid_role(name));
    }
    Ok(())
}

impl Session {
    pub(crate) fn role_statement(&mut self, st: RoleStmt) -> R<QueryResult> {
        if let RoleStmt::Set(role) = st {
            return self.set_role(role);
        }
        self.cx.check_read_only()?;
        self.implicit_commit()?;
        let r = match st {
            RoleStmt::Create {
                or_replace,
                if_not_exists,
                roles,
                admin,
            } => self.create_roles(or_replace, if_not_exists, &roles, &admin),
            RoleStmt::Drop { if_exists, roles } => self.drop_roles(if_exists, &roles),
            RoleStmt::Grant {
                roles,
                grantees,
                admin,
            } => self.grant_roles(&roles, &grantees, admin),
            RoleStmt::Revoke {
                roles,
                grantees,
                admin_only,
            } => self.revoke_roles(&roles, &grantees, admin_only),
            RoleStmt::SetDefault { role, user } => self.set_default_role(role, user),
            RoleStmt::Set(_) => unreachable!("handled above"),
        };
        if r.is_ok() {
            self.note_ddl();
        }
        r
    }

    /// The account or role a GRANT / REVOKE / SHOW GRANTS names: a bare name is
    /// the role of that name when there is one (PUBLIC always), else
    /// `name@'%'`; CURRENT_USER is the session's account.
    pub(crate) fn grantee(&self, spec: &UserSpec, acl: &AclData) -> AccountName {
        match &spec.name {
            Some((u, _)) if spec.bare && u.eq_ignore_ascii_case(PUBLIC) => {
                (PUBLIC.to_string(), String::new())
            }
            Some((u, _)) if spec.bare && acl.role(u).is_some() => (u.clone(), String::new()),
            Some(n) => n.clone(),
            None => self.session_account(),
        }
    }

    /// The session's account (an internal session: its user at `%`).
    fn session_account(&self) -> AccountName {
        self.cx
            .privs
            .account
            .clone()
            .unwrap_or_else(|| (self.cx.user.clone(), "%".into()))
    }

    /// Who WITH ADMIN names (`None`: nobody, for an internal session).
    fn first_admin(&self, admin: &Admin, acl: &AclData) -> R<Option<AccountName>> {
        Ok(match admin {
            Admin::CurrentUser => self.cx.privs.account.clone(),
            Admin::CurrentRole => match &self.cx.privs.role {
                Some(r) => Some((r.clone(), String::new())),
                None => return Err(invalid_role("NONE")),
            },
            Admin::Grantee(spec) => Some(self.grantee(spec, acl)),
        })
    }

    fn create_roles(
        &mut self,
        or_replace: bool,
        if_not_exists: bool,
        roles: &[String],
        admin: &Admin,
    ) -> R<QueryResult> {
        self.cx.require_global(Privs::CREATE_USER, "CREATE USER")?;
        let admin = self.first_admin(admin, &self.cx.engine.acl.snapshot())?;
        let (failures, notes) = self.cx.engine.acl.update(|acl| {
            let (mut failures, mut notes) = (Vec::new(), Vec::new());
            for r in roles {
                if acl.role(r).is_some() || acl.account(r, "").is_some() {
                    if if_not_exists {
                        notes.push(format!("Can't create role '{r}'; it already exists"));
                        continue;
                    }
                    if !or_replace || acl.role(r).is_none() {
                        failures.push(format!("'{r}'"));
                        continue;
                    }
                    acl.remove_role(r);
                }
                acl.accounts.push(Account::role(r));
                if let Some((u, h)) = &admin {
                    acl.grant_role((u, h), r, true);
                }
            }
            Ok((failures, notes))
        })?;
        for n in notes {
            self.cx.warn(Level::Note, 1975, n);
        }
        failed("CREATE ROLE", &failures)
    }

    fn drop_roles(&mut self, if_exists: bool, roles: &[String]) -> R<QueryResult> {
        self.cx.require_global(Privs::CREATE_USER, "CREATE USER")?;
        let missing = self.cx.engine.acl.update(|acl| {
            Ok(roles
                .iter()
                .filter(|r| r.eq_ignore_ascii_case(PUBLIC) || !acl.remove_role(r))
                .cloned()
                .collect::<Vec<_>>())
        })?;
        let public = |r: &String| r.eq_ignore_ascii_case(PUBLIC);
        if if_exists && !missing.iter().any(public) {
            for r in &missing {
                let note = format!("Can't drop role '{r}'; it doesn't exist");
                self.cx.warn(Level::Note, 1976, note);
            }
            return Ok(QueryResult::ok(0));
        }
        let names: Vec<String> = missing
            .iter()
            .map(|r| match public(r) {
                true => PUBLIC.to_string(),
                false => format!("'{r}'"),
            })
            .collect();
        failed("DROP ROLE", &names)
    }

    /// The session may grant and revoke `role`: its account, or its enabled
    /// role, holds it WITH ADMIN OPTION (1698 otherwise, whatever its global
    /// privileges, as MariaDB).
    fn may_administer(&self, acl: &AclData, role: &str) -> R<()> {
        let Some((u, h)) = &self.cx.privs.account else {
            return Ok(());
        };
        let admin = |who: (&str, &str)| acl.role_grant(who, role).is_some_and(|g| g.admin);
        let via_role = self
            .cx
            .privs
            .role
            .as_deref()
            .is_some_and(|r| acl.role_closure(r).iter().any(|r| admin((r, ""))));
        if admin((u, h)) || via_role {
            return Ok(());
        }
        Err(MySqlError::new(
            1698,
            "28000",
            format!("Access denied for user '{u}'@'{h}'"),
        ))
    }

    /// The accounts and roles a GRANT / REVOKE of `roles` names, once every role
    /// exists and the session administers each.
    fn role_targets(&self, roles: &[String], specs: &[UserSpec]) -> R<Vec<AccountName>> {
        let snapshot = self.cx.engine.acl.snapshot();
        for r in roles {
            existing_role(&snapshot, r)?;
            self.may_administer(&snapshot, r)?;
        }
        Ok(specs.iter().map(|s| self.grantee(s, &snapshot)).collect())
    }

    fn grant_roles(&mut self, roles: &[String], specs: &[UserSpec], admin: bool) -> R<QueryResult> {
        let grantees = self.role_targets(roles, specs)?;
        self.cx.engine.acl.update(|acl| {
            for g in &grantees {
                if acl.account(&g.0, &g.1).is_none() {
                    return Err(no_such_user());
                }
                for r in roles {
                    let cycle = g.1.is_empty() && acl.role_closure(r).contains(&g.0);
                    if cycle {
                        return Err(MySqlError::new(
                            1961,
                            "HY000",
                            format!("Cannot grant role '{r}' to: {}", shown(acl, g)),
                        ));
                    }
                    acl.grant_role((&g.0, &g.1), r, admin);
                }
            }
            Ok(())
        })?;
        Ok(QueryResult::ok(0))
    }

    fn revoke_roles(
        &mut self,
        roles: &[String],
        specs: &[UserSpec],
        admin_only: bool,
    ) -> R<QueryResult> {
        let grantees = self.role_targets(roles, specs)?;
        self.cx.engine.acl.update(|acl| {
            for g in &grantees {
                if acl.account(&g.0, &g.1).is_none() {
                    return Err(no_such_user());
                }
                for r in roles {
                    if !acl.revoke_role((&g.0, &g.1), r, admin_only) {
                        return Err(MySqlError::new(
                            1962,
                            "HY000",
                            format!("Cannot revoke role '{r}' from: {}", shown(acl, g)),
                        ));
                    }
                }
            }
            Ok(())
        })?;
        Ok(QueryResult::ok(0))
    }

    /// SET ROLE: a role granted to the session's account (1959 otherwise,
    /// naming the client when the role comes only through another role).
    fn set_role(&mut self, role: Option<String>) -> R<QueryResult> {
        if let (Some(r), Some((u, h))) = (&role, &self.cx.privs.account) {
            let acl = self.cx.engine.acl.snapshot();
            existing_role(&acl, r)?;
            if acl.role_grant((u, h), r).is_none() {
                let indirect = acl
                    .roles_of(u, h)
                    .any(|g| acl.role_closure(&g.role).contains(r));
                if !indirect {
                    return Err(invalid_role(r));
                }
                return Err(MySqlError::new(
                    1959,
                    "OP000",
                    format!(
                        "User `{}`@`{}` has not been granted role `{r}`",
                        self.cx.user,
                        self.cx.client_host()
                    ),
                ));
            }
        }
        self.cx.privs.set_role(role);
        self.cx.privs.refresh(&self.cx.engine.acl);
        Ok(QueryResult::ok(0))
    }

    /// SET DEFAULT ROLE [FOR account]: another account's needs UPDATE on
    /// `mysql`; the role must be granted to the account.
    fn set_default_role(
        &mut self,
        role: Option<String>,
        user: Option<AccountName>,
    ) -> R<QueryResult> {
        let target = match user {
            Some(n) if Some(&n) != self.cx.privs.account.as_ref() => {
                if !self.cx.has_global(Privs::CREATE_USER) {
                    self.cx.require_db("mysql", Privs::UPDATE)?;
                }
                n
            }
            _ => self.session_account(),
        };
        self.cx.engine.acl.update(|acl| {
            if let Some(r) = &role {
                existing_role(acl, r)?;
                if acl.account(&target.0, &target.1).is_some()
                    && acl.role_grant((&target.0, &target.1), r).is_none()
                {
                    return Err(MySqlError::new(
                        1959,
                        "OP000",
                        format!(
                            "User `{}`@`{}` has not been granted role `{r}`",
                            target.0, target.1
                        ),
                    ));
                }
            }
            let a = acl
                .account_mut(&target.0, &target.1)
                .ok_or_else(no_such_user)?;
            a.default_role = role.clone().unwrap_or_default();
            Ok(())
        })?;
        Ok(QueryResult::ok(0))
    }
}

/// OK, or 1396 `Operation <op> failed for <names>`.
fn failed(op: &str, names: &[String]) -> R<QueryResult> {
    if names.is_empty() {
        return Ok(QueryResult::ok(0));
    }
    Err(MySqlError::new(
        1396,
        "HY000",
        format!("Operation {op} failed for {}", names.join(",")),
    ))
}
