//! CREATE / ALTER / DROP / RENAME USER, SET PASSWORD, GRANT and REVOKE, with
//! MariaDB 10.11's errors and notes. Each statement changes the accounts in one
//! durable step ([`super::AclStore::update`]) and is logged to the binary log as
//! DDL.

use super::R;
use crate::front::native::account::{AccountName, AccountStmt, Auth, GrantLevel, Secret, UserSpec};
use crate::result::QueryResult;
use crate::session::ctx::Level;
use crate::session::Session;
use basalt_acl::{Account, AclData, Plugin, Privs, TlsRequirement};
use basalt_common::MySqlError;

/// The plugin and authentication string `auth` sets.
fn credentials(auth: &Auth) -> R<(String, String)> {
    let native = |s: String| (Plugin::Native.name().to_string(), s);
    match auth {
        Auth::Password(p) => Ok(native(Plugin::Native.from_password(p))),
        Auth::Hash(h) => Plugin::Native.check_string(h).map(native),
        Auth::Plugin { name, secret } => {
            let plugin = Plugin::from_name(name).ok_or_else(|| {
                MySqlError::new(1524, "HY000", format!("Plugin '{name}' is not loaded"))
            })?;
            Ok((plugin.name().into(), auth_string(plugin, secret)?))
        }
    }
}

/// The authentication string `secret` gives an account of `plugin`.
fn auth_string(plugin: Plugin, secret: &Secret) -> R<String> {
    match secret {
        Secret::None => Ok(String::new()),
        Secret::Password(p) => Ok(plugin.from_password(p)),
        Secret::String(s) => plugin.check_string(s),
    }
}

/// An account a statement names, with the plugin and authentication string it
/// sets, if any.
type Spec = (AccountName, Option<(String, String)>);

fn failed(op: &str, names: &[AccountName]) -> MySqlError {
    let list: Vec<String> = names.iter().map(|(u, h)| format!("'{u}'@'{h}'")).collect();
    MySqlError::new(
        1396,
        "HY000",
        format!("Operation {op} failed for {}", list.join(",")),
    )
}

fn no_such_user() -> MySqlError {
    MySqlError::new(
        1133,
        "28000",
        "Can't find any matching row in the user table",
    )
}

impl Session {
    pub(crate) fn account_statement(&mut self, st: AccountStmt) -> R<QueryResult> {
        self.cx.check_read_only()?;
        self.implicit_commit()?;
        let r = match st {
            AccountStmt::CreateUser {
                or_replace,
                if_not_exists,
                users,
                options,
            } => {
                self.cx.require_global(Privs::CREATE_USER, "CREATE USER")?;
                self.create_users(or_replace, if_not_exists, &users, |a| {
                    apply_options(a, &options)
                })
            }
            AccountStmt::AlterUser {
                if_exists,
                users,
                options,
            } => self.alter_users(if_exists, &users, &options),
            AccountStmt::DropUser { if_exists, users } => {
                self.cx.require_global(Privs::CREATE_USER, "CREATE USER")?;
                self.drop_users(if_exists, &users)
            }
            AccountStmt::RenameUser(pairs) => {
                self.cx.require_global(Privs::CREATE_USER, "CREATE USER")?;
                self.rename_users(&pairs)
            }
            AccountStmt::SetPassword { user, secret } => self.set_password(user, &secret),
            AccountStmt::Grant {
                privs,
                level,
                users,
                grant_option,
                tls,
                limits,
            } => self.grant(privs, &level, &users, grant_option, (tls.as_ref(), limits)),
            AccountStmt::Revoke {
                privs,
                level,
                users,
            } => self.revoke(privs, &level, &users),
            AccountStmt::RevokeAll(users) => {
                self.cx.require_global(Privs::CREATE_USER, "CREATE USER")?;
                self.revoke_all(&users)
            }
        };
        if r.is_ok() {
            self.note_ddl();
        }
        r
    }

    /// The account a spec names (CURRENT_USER: the session's).
    fn named(&self, spec: &UserSpec) -> AccountName {
        match &spec.name {
            Some(n) => n.clone(),
            None => self
                .cx
                .privs
                .account
                .clone()
                .unwrap_or_else(|| (self.cx.user.clone(), "%".into())),
        }
    }

    /// Each spec's account with the credentials it sets, if any.
    fn specs(&self, users: &[UserSpec]) -> R<Vec<Spec>> {
        users
            .iter()
            .map(|s| Ok((self.named(s), s.auth.as_ref().map(credentials).transpose()?)))
            .collect()
    }

    /// [`Session::specs`] for the grantees of GRANT / REVOKE: bare names may be
    /// roles.
    fn grantee_specs(&self, users: &[UserSpec]) -> R<Vec<Spec>> {
        let acl = self.cx.engine.acl.snapshot();
        users
            .iter()
            .map(|s| {
                let creds = s.auth.as_ref().map(credentials).transpose()?;
                Ok((self.grantee(s, &acl), creds))
            })
            .collect()
    }

    fn create_users(
        &mut self,
        or_replace: bool,
        if_not_exists: bool,
        users: &[UserSpec],
        options: impl Fn(&mut Account),
    ) -> R<QueryResult> {
        let specs = self.specs(users)?;
        let (failures, notes) = self.cx.engine.acl.update(|acl| {
            let (mut failures, mut notes) = (Vec::new(), Vec::new());
            for ((user, host), creds) in &specs {
                if acl.account(user, host).is_some() {
                    if if_not_exists {
                        notes.push(format!(
                            "Can't create user '{user}'@'{host}'; it already exists"
                        ));
                        continue;
                    }
                    if !or_replace {
                        failures.push((user.clone(), host.clone()));
                        continue;
                    }
                    acl.remove_account(user, host);
                }
                let mut a = Account::new(user, host);
                if let Some((plugin, auth)) = creds {
                    (a.plugin, a.auth) = (plugin.clone(), auth.clone());
                }
                options(&mut a);
                acl.accounts.push(a);
            }
            Ok((failures, notes))
        })?;
        for n in notes {
            self.cx.warn(Level::Note, 1973, n);
        }
        if !failures.is_empty() {
            return Err(failed("CREATE USER", &failures));
        }
        Ok(QueryResult::ok(0))
    }

    fn drop_users(&mut self, if_exists: bool, users: &[UserSpec]) -> R<QueryResult> {
        let names: Vec<AccountName> = users.iter().map(|s| self.named(s)).collect();
        let missing = self.cx.engine.acl.update(|acl| {
            Ok(names
                .iter()
                .filter(|(u, h)| !acl.remove_account(u, h))
                .cloned()
                .collect::<Vec<_>>())
        })?;
        if missing.is_empty() {
            return Ok(QueryResult::ok(0));
        }
        if if_exists {
            for (u, h) in missing {
                self.cx.warn(
                    Level::Note,
                    1974,
                    format!("Can't drop user '{u}'@'{h}'; it doesn't exist"),
                );
            }
            return Ok(QueryResult::ok(0));
        }
        Err(failed("DROP USER", &missing))
    }

    fn rename_users(&mut self, pairs: &[(UserSpec, UserSpec)]) -> R<QueryResult> {
        let pairs: Vec<(AccountName, AccountName)> = pairs
            .iter()
            .map(|(a, b)| (self.named(a), self.named(b)))
            .collect();
        let failures = self.cx.engine.acl.update(|acl| {
            let mut failures = Vec::new();
            for ((fu, fh), (tu, th)) in &pairs {
                if acl.account(fu, fh).is_none() || acl.account(tu, th).is_some() {
                    failures.push((fu.clone(), fh.clone()));
                    continue;
                }
                acl.rename_account((fu, fh), (tu, th));
            }
            Ok(failures)
        })?;
        if !failures.is_empty() {
            return Err(failed("RENAME USER", &failures));
        }
        Ok(QueryResult::ok(0))
    }

    fn alter_users(
        &mut self,
        if_exists: bool,
        users: &[UserSpec],
        options: &crate::front::native::account::UserOptions,
    ) -> R<QueryResult> {
        let own = |s: &UserSpec| s.name.is_none() || s.name == self.cx.privs.account;
        let others = !users.iter().all(own);
        let options_set = options.lock.is_some()
            || options.expire
            || options.tls.is_some()
            || !options.limits.is_empty();
        if others || options_set {
            self.cx.require_global(Privs::CREATE_USER, "CREATE USER")?;
        }
        let specs = self.specs(users)?;
        let missing = self.cx.engine.acl.update(|acl| {
            let mut missing = Vec::new();
            for ((user, host), creds) in &specs {
                let Some(a) = acl.account_mut(user, host) else {
                    missing.push((user.clone(), host.clone()));
                    continue;
                };
                if let Some((plugin, auth)) = creds {
                    (a.plugin, a.auth) = (plugin.clone(), auth.clone());
                    a.password_expired = false;
                }
                apply_options(a, options);
            }
            Ok(missing)
        })?;
        self.after_password_change(&specs);
        if missing.is_empty() {
            return Ok(QueryResult::ok(0));
        }
        if if_exists {
            for (u, h) in missing {
                self.cx.warn(
                    Level::Note,
                    1976,
                    format!("Can't alter user '{u}'@'{h}'; it doesn't exist"),
                );
            }
            return Ok(QueryResult::ok(0));
        }
        Err(failed("ALTER USER", &missing))
    }

    /// A session whose own expired password was changed may run statements again.
    fn after_password_change(&mut self, specs: &[Spec]) {
        let mine = specs
            .iter()
            .any(|(n, c)| c.is_some() && Some(n) == self.cx.privs.account.as_ref());
        if mine {
            self.cx.privs.password_expired = false;
        }
    }

    /// SET PASSWORD keeps the account's plugin (MariaDB computes an ed25519 key
    /// for an ed25519 account) and checks a string given as is against it.
    fn set_password(&mut self, user: Option<AccountName>, secret: &Secret) -> R<QueryResult> {
        let target = match user {
            Some(n) if Some(&n) != self.cx.privs.account.as_ref() => {
                if !self.cx.has_global(Privs::CREATE_USER) {
                    self.cx.require_db("mysql", Privs::UPDATE)?;
                }
                n
            }
            _ => self.named(&UserSpec {
                name: None,
                auth: None,
                bare: false,
            }),
        };
        let creds = self.cx.engine.acl.update(|acl| {
            let a = acl
                .account_mut(&target.0, &target.1)
                .ok_or_else(no_such_user)?;
            let plugin = Plugin::from_name(&a.plugin).unwrap_or(Plugin::Native);
            (a.plugin, a.auth) = (plugin.name().into(), auth_string(plugin, secret)?);
            a.password_expired = false;
            Ok((a.plugin.clone(), a.auth.clone()))
        })?;
        self.after_password_change(&[(target, Some(creds))]);
        Ok(QueryResult::ok(0))
    }
}

fn apply_options(a: &mut Account, o: &crate::front::native::account::UserOptions) {
    if let Some(tls) = &o.tls {
        a.tls = tls.clone();
    }
    o.limits.apply(&mut a.limits);
    if let Some(lock) = o.lock {
        a.locked = lock;
    }
    if o.expire {
        a.password_expired = true;
    }
}

/// A grant level with its database resolved.
pub(super) enum Target {
    Global,
    Db(String),
    Table(String, String),
}

impl Target {
    /// What the level allows, and the error for a privilege it does not.
    fn allowed(&self) -> (Privs, MySqlError) {
        match self {
            Target::Global => (Privs::ALL, MySqlError::internal("global")),
            Target::Db(_) => (
                Privs::DB_LEVEL,
                MySqlError::new(1221, "HY000", "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES"),
            ),
            Target::Table(..) => (
                Privs::TABLE_LEVEL,
                MySqlError::new(
                    1144,
                    "42000",
                    "Illegal GRANT/REVOKE command; please consult the manual to see which privileges can be used",
                ),
            ),
        }
    }
}

impl Session {
    fn target(&self, level: &GrantLevel) -> R<Target> {
        let current = || self.cx.db.clone().ok_or_else(MySqlError::no_db);
        Ok(match level {
            GrantLevel::Global => Target::Global,
            GrantLevel::Db(db) => Target::Db(db.clone().map_or_else(current, Ok)?),
            GrantLevel::Table(db, t) => {
                let db = db.clone().map_or_else(current, Ok)?;
                let storage = &self.cx.engine.storage;
                if storage.table(&db, t).is_none() && storage.view(&db, t).is_none() {
                    return Err(MySqlError::no_such_table(&db, t));
                }
                Target::Table(db, t.clone())
            }
        })
    }

    /// The privileges a GRANT / REVOKE names at `target`, checked against what
    /// the level allows.
    fn level_privs(&self, privs: Option<Privs>, target: &Target) -> R<Privs> {
        let (allowed, err) = target.allowed();
        match privs {
            None => Ok(allowed.without(Privs::GRANT)),
            Some(p) if allowed.contains(p) => Ok(p),
            Some(_) => Err(err),
        }
    }

    /// The grantor holds GRANT OPTION and `privs` where it grants them.
    fn may_grant(&mut self, target: &Target, privs: Privs) -> R<()> {
        if self.cx.privs.account.is_none() {
            return Ok(());
        }
        self.cx.privs.refresh(&self.cx.engine.acl);
        let g = self.cx.privs.grants();
        let (held, denied) = match target {
            Target::Global => (g.global, None),
            Target::Db(db) => (g.on_db(db), Some(self.cx.db_denied(db))),
            Target::Table(db, t) => (
                g.on_table(db, t),
                Some(self.cx.table_denied("GRANT", db, t)),
            ),
        };
        if held.contains(privs | Privs::GRANT) {
            return Ok(());
        }
        Err(denied.unwrap_or_else(|| {
            let (u, h) = self.cx.privs.account.clone().unwrap_or_default();
            MySqlError::new(
                1045,
                "28000",
                format!("Access denied for user '{u}'@'{h}' (using password: YES)"),
            )
        }))
    }

    fn grant(
        &mut self,
        privs: Option<Privs>,
        level: &GrantLevel,
        users: &[UserSpec],
        grant_option: bool,
        (tls, limits): (Option<&TlsRequirement>, basalt_acl::LimitChanges),
    ) -> R<QueryResult> {
        let target = self.target(level)?;
        let mut privs = self.level_privs(privs, &target)?;
        if grant_option {
            privs |= Privs::GRANT;
        }
        self.may_grant(&target, privs.without(Privs::GRANT))?;
        let specs = self.grantee_specs(users)?;
        let creates = specs
            .iter()
            .any(|(n, c)| c.is_some() && !self.account_exists(n));
        if creates {
            self.cx.require_global(Privs::CREATE_USER, "CREATE USER")?;
        }
        if tls.is_some() || !limits.is_empty() {
            self.may_change_grantees(&specs)?;
        }
        self.cx.engine.acl.update(|acl| {
            for ((user, host), creds) in &specs {
                ensure_public(acl, (user, host));
                if acl.account(user, host).is_none() {
                    if creds.is_none() {
                        return Err(no_such_user());
                    }
                    acl.accounts.push(Account::new(user, host));
                }
                let a = acl.account_mut(user, host).expect("present or just made");
                if let Some((plugin, auth)) = creds {
                    (a.plugin, a.auth) = (plugin.clone(), auth.clone());
                }
                if let Some(tls) = tls {
                    a.tls = tls.clone();
                }
                limits.apply(&mut a.limits);
                add(acl, (user, host), &target, privs, false);
            }
            Ok(())
        })?;
        Ok(QueryResult::ok(0))
    }

    /// GRANT ... REQUIRE / WITH MAX_... changes the grantees' accounts: MariaDB asks for
    /// UPDATE on `mysql` once the first grantee is found (1133 if it is not and
    /// the statement does not create it).
    fn may_change_grantees(&mut self, specs: &[Spec]) -> R<()> {
        if let Some((name, None)) = specs.first() {
            if !self.account_exists(name) {
                return Err(no_such_user());
            }
        }
        self.cx.require_db("mysql", Privs::UPDATE)
    }

    fn account_exists(&self, (u, h): &AccountName) -> bool {
        self.cx.engine.acl.snapshot().account(u, h).is_some()
    }

    fn revoke(
        &mut self,
        privs: Option<Privs>,
        level: &GrantLevel,
        users: &[UserSpec],
    ) -> R<QueryResult> {
        let target = self.target(level)?;
        let privs = self.level_privs(privs, &target)?;
        self.may_grant(&target, privs.without(Privs::GRANT))?;
        let names: Vec<AccountName> = self
            .grantee_specs(users)?
            .into_iter()
            .map(|s| s.0)
            .collect();
        self.cx.engine.acl.update(|acl| {
            for (user, host) in &names {
                public_exists(acl, (user, host))?;
                if acl.account(user, host).is_none() {
                    return Err(no_such_user());
                }
                if !add(acl, (user, host), &target, privs, true) {
                    return Err(no_grant(user, host, &target));
                }
            }
            Ok(())
        })?;
        Ok(QueryResult::ok(0))
    }

    fn revoke_all(&mut self, users: &[UserSpec]) -> R<QueryResult> {
        let names: Vec<AccountName> = self
            .grantee_specs(users)?
            .into_iter()
            .map(|s| s.0)
            .collect();
        let missing = self.cx.engine.acl.update(|acl| {
            let mut missing = Vec::new();
            for (user, host) in &names {
                public_exists(acl, (user, host))?;
                let Some(a) = acl.account_mut(user, host) else {
                    missing.push((user.clone(), host.clone()));
                    continue;
                };
                a.privs = Privs::NONE;
                let mine = |u: &str, h: &str| u == user && h.eq_ignore_ascii_case(host);
                acl.dbs.retain(|g| !mine(&g.user, &g.host));
                acl.tables.retain(|g| !mine(&g.user, &g.host));
                acl.roles.retain(|g| !mine(&g.user, &g.host));
            }
            Ok(missing)
        })?;
        if !missing.is_empty() {
            return Err(failed("REVOKE", &missing));
        }
        Ok(QueryResult::ok(0))
    }
}

fn is_public((user, host): (&str, &str)) -> bool {
    user == basalt_acl::PUBLIC && host.is_empty()
}

/// PUBLIC exists once something is granted to it.
fn ensure_public(acl: &mut AclData, grantee: (&str, &str)) {
    if is_public(grantee) && acl.role(grantee.0).is_none() {
        acl.accounts.push(Account::role(grantee.0));
    }
}

/// A REVOKE from PUBLIC before anything was granted to it is 1959, as MariaDB.
fn public_exists(acl: &AclData, grantee: (&str, &str)) -> R<()> {
    if is_public(grantee) && acl.role(grantee.0).is_none() {
        return Err(crate::front::native::role::invalid_role(grantee.0));
    }
    Ok(())
}

/// Grants (or, with `revoke`, takes away) `privs` at `target`; false when a
/// revoke finds no grant there.
fn add(acl: &mut AclData, acct: (&str, &str), target: &Target, privs: Privs, revoke: bool) -> bool {
    match target {
        Target::Global => {
            let a = acl.account_mut(acct.0, acct.1).expect("checked");
            a.privs = if revoke {
                a.privs.without(privs)
            } else {
                a.privs | privs
            };
            true
        }
        Target::Db(db) => acl.change_db(acct, db, privs, revoke),
        Target::Table(db, t) => acl.change_table(acct, db, t, privs, revoke),
    }
}

fn no_grant(user: &str, host: &str, target: &Target) -> MySqlError {
    match target {
        Target::Table(_, t) => MySqlError::new(
            1147,
            "42000",
            format!(
                "There is no such grant defined for user '{user}' on host '{host}' on table '{t}'"
            ),
        ),
        _ => MySqlError::new(
            1141,
            "42000",
            format!("There is no such grant defined for user '{user}' on host '{host}'"),
        ),
    }
}
