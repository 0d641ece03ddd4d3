//! The accounts and grants: what `mysql.global_priv`, `mysql.db` and
//! `mysql.tables_priv` hold in MariaDB, as one document stored in the catalog.

use crate::auth::NATIVE;
use crate::host::{sort_key, wild_match, Client};
use crate::privs::Privs;
use crate::tls::TlsRequirement;
use serde::{Deserialize, Serialize};

/// One account (`'user'@'host'`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    pub user: String,
    pub host: String,
    /// `mysql_native_password` unless created with another (see [`crate::auth`]).
    pub plugin: String,
    /// The authentication string in the plugin's form ([`crate::auth`]); empty:
    /// no password.
    pub auth: String,
    /// Global privileges.
    pub privs: Privs,
    #[serde(default)]
    pub locked: bool,
    #[serde(default)]
    pub password_expired: bool,
    /// `REQUIRE ...`: what a login's TLS session must be.
    #[serde(default)]
    pub tls: TlsRequirement,
    /// A role (host `''`): holds privileges, cannot log in.
    #[serde(default)]
    pub is_role: bool,
    /// SET DEFAULT ROLE: the role a login enables (empty: none).
    #[serde(default)]
    pub default_role: String,
    /// `WITH MAX_...` resource limits.
    #[serde(default)]
    pub limits: crate::limits::Limits,
}

impl Account {
    pub fn new(user: &str, host: &str) -> Account {
        Account {
            user: user.to_string(),
            host: host.to_string(),
            plugin: NATIVE.to_string(),
            auth: String::new(),
            privs: Privs::NONE,
            locked: false,
            password_expired: false,
            tls: TlsRequirement::default(),
            is_role: false,
            default_role: String::new(),
            limits: crate::limits::Limits::default(),
        }
    }

    /// A role named `name`.
    pub fn role(name: &str) -> Account {
        Account {
            is_role: true,
            ..Account::new(name, "")
        }
    }

    pub fn is(&self, user: &str, host: &str) -> bool {
        self.user == user && self.host.eq_ignore_ascii_case(host)
    }
}

/// Privileges on a database (its name may hold wildcards, as in MariaDB).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DbGrant {
    pub user: String,
    pub host: String,
    pub db: String,
    pub privs: Privs,
}

/// Privileges on one table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableGrant {
    pub user: String,
    pub host: String,
    pub db: String,
    pub table: String,
    pub privs: Privs,
}

/// A role granted to an account or to another role (host `''`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoleGrant {
    pub user: String,
    pub host: String,
    pub role: String,
    /// WITH ADMIN OPTION: the grantee may grant and revoke the role.
    pub admin: bool,
}

/// Every account and grant.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AclData {
    pub accounts: Vec<Account>,
    pub dbs: Vec<DbGrant>,
    pub tables: Vec<TableGrant>,
    /// Roles granted to accounts and to roles (`mysql.roles_mapping`).
    #[serde(default)]
    pub roles: Vec<RoleGrant>,
}

impl AclData {
    /// A new server's accounts: `root` on the local host (socket and loopback
    /// addresses) with every privilege and no password, as
    /// `mariadb-install-db --auth-root-authentication-method=normal` leaves it.
    pub fn initial() -> AclData {
        let accounts = ["localhost", "127.0.0.1", "::1"]
            .iter()
            .map(|h| Account {
                privs: Privs::ALL,
                ..Account::new("root", h)
            })
            .collect();
        AclData {
            accounts,
            ..AclData::default()
        }
    }

    /// The document the catalog stores.
    pub fn to_doc(&self) -> Result<serde_json::Value, String> {
        serde_json::to_value(self).map_err(|e| e.to_string())
    }

    pub fn from_doc(doc: &serde_json::Value) -> Result<AclData, String> {
        AclData::deserialize(doc).map_err(|e| e.to_string())
    }

    pub fn account(&self, user: &str, host: &str) -> Option<&Account> {
        self.accounts.iter().find(|a| a.is(user, host))
    }

    pub fn account_mut(&mut self, user: &str, host: &str) -> Option<&mut Account> {
        self.accounts.iter_mut().find(|a| a.is(user, host))
    }

    /// The account a login as `user` from `client` uses: the first match in
    /// MariaDB's order (most specific host, then a named user before `''`;
    /// the one created first among equals).
    pub fn login_account(&self, user: &str, client: &Client) -> Option<&Account> {
        self.accounts
            .iter()
            .filter(|a| !a.is_role && (a.user.is_empty() || a.user == user))
            .filter(|a| client.matches(&a.host))
            .min_by_key(|a| std::cmp::Reverse(sort_key(&a.host, &a.user)))
    }

    /// Removes the account and every grant it holds.
    pub fn remove_account(&mut self, user: &str, host: &str) -> bool {
        let before = self.accounts.len();
        self.accounts.retain(|a| !a.is(user, host));
        self.dbs
            .retain(|g| !(g.user == user && g.host.eq_ignore_ascii_case(host)));
        self.tables
            .retain(|g| !(g.user == user && g.host.eq_ignore_ascii_case(host)));
        self.roles
            .retain(|g| !(g.user == user && g.host.eq_ignore_ascii_case(host)));
        self.accounts.len() != before
    }

    /// Renames an account with its grants.
    pub fn rename_account(&mut self, from: (&str, &str), to: (&str, &str)) {
        let same = |u: &str, h: &str| u == from.0 && h.eq_ignore_ascii_case(from.1);
        for a in self.accounts.iter_mut().filter(|a| same(&a.user, &a.host)) {
            (a.user, a.host) = (to.0.to_string(), to.1.to_string());
        }
        for g in self.dbs.iter_mut().filter(|g| same(&g.user, &g.host)) {
            (g.user, g.host) = (to.0.to_string(), to.1.to_string());
        }
        for g in self.tables.iter_mut().filter(|g| same(&g.user, &g.host)) {
            (g.user, g.host) = (to.0.to_string(), to.1.to_string());
        }
        for g in self.roles.iter_mut().filter(|g| same(&g.user, &g.host)) {
            (g.user, g.host) = (to.0.to_string(), to.1.to_string());
        }
    }

    /// Adds `privs` on a database; with `revoke`, takes them away (false when the
    /// account held no grant there).
    pub fn change_db(&mut self, acct: (&str, &str), db: &str, privs: Privs, revoke: bool) -> bool {
        let pos = self
            .dbs
            .iter()
            .position(|g| g.user == acct.0 && g.host.eq_ignore_ascii_case(acct.1) && g.db == db);
        match (pos, revoke) {
            (Some(i), false) => self.dbs[i].privs |= privs,
            (None, false) => self.dbs.push(DbGrant {
                user: acct.0.to_string(),
                host: acct.1.to_string(),
                db: db.to_string(),
                privs,
            }),
            (Some(i), true) => {
                self.dbs[i].privs = self.dbs[i].privs.without(privs);
                if self.dbs[i].privs.is_empty() {
                    self.dbs.remove(i);
                }
            }
            (None, true) => return false,
        }
        true
    }

    /// [`AclData::change_db`] for a table.
    pub fn change_table(
        &mut self,
        acct: (&str, &str),
        db: &str,
        table: &str,
        privs: Privs,
        revoke: bool,
    ) -> bool {
        let pos = self.tables.iter().position(|g| {
            g.user == acct.0
                && g.host.eq_ignore_ascii_case(acct.1)
                && g.db == db
                && g.table == table
        });
        match (pos, revoke) {
            (Some(i), false) => self.tables[i].privs |= privs,
            (None, false) => self.tables.push(TableGrant {
                user: acct.0.to_string(),
                host: acct.1.to_string(),
                db: db.to_string(),
                table: table.to_string(),
                privs,
            }),
            (Some(i), true) => {
                self.tables[i].privs = self.tables[i].privs.without(privs);
                if self.tables[i].privs.is_empty() {
                    self.tables.remove(i);
                }
            }
            (None, true) => return false,
        }
        true
    }

    /// Drops every grant of a table (DROP TABLE does this in MariaDB too).
    pub fn forget_table(&mut self, db: &str, table: &str) -> bool {
        let before = self.tables.len();
        self.tables.retain(|g| !(g.db == db && g.table == table));
        before != self.tables.len()
    }

    /// What `acct` may do: its global privileges, and its grants by database and
    /// table.
    pub fn grants_of(&self, user: &str, host: &str) -> Grants {
        let mine = |u: &str, h: &str| u == user && h.eq_ignore_ascii_case(host);
        Grants {
            global: self.account(user, host).map_or(Privs::NONE, |a| a.privs),
            dbs: self
                .dbs
                .iter()
                .filter(|g| mine(&g.user, &g.host))
                .map(|g| (g.db.clone(), g.privs))
                .collect(),
            tables: self
                .tables
                .iter()
                .filter(|g| mine(&g.user, &g.host))
                .map(|g| ((g.db.clone(), g.table.clone()), g.privs))
                .collect(),
            public_tables: Vec::new(),
        }
    }
}

/// One account's privileges, as checked on every statement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Grants {
    pub global: Privs,
    /// Database name (maybe with wildcards) and its privileges.
    pub dbs: Vec<(String, Privs)>,
    pub tables: Vec<((String, String), Privs)>,
    /// PUBLIC's table grants: they apply to their tables but do not make the
    /// database visible (USE, SHOW DATABASES), as in MariaDB.
    pub public_tables: Vec<((String, String), Privs)>,
}

impl Grants {
    /// The privileges held on database `db` (global ones included).
    pub fn on_db(&self, db: &str) -> Privs {
        self.dbs
            .iter()
            .filter(|(pat, _)| pat == db || wild_match(db, pat))
            .fold(self.global, |acc, (_, p)| acc | *p)
    }

    /// Whether any privilege that applies to tables is held on `db.table`.
    pub fn any_on_table(&self, db: &str, table: &str) -> bool {
        !(self.on_table(db, table) & Privs::TABLE_LEVEL)
            .without(Privs::GRANT)
            .is_empty()
    }

    /// The privileges held on `db.table` (global and database ones included).
    pub fn on_table(&self, db: &str, table: &str) -> Privs {
        self.tables
            .iter()
            .chain(&self.public_tables)
            .filter(|((d, t), _)| d == db && t == table)
            .fold(self.on_db(db), |acc, (_, p)| acc | *p)
    }

    /// Whether any privilege is held on `db` or on one of its tables (what `USE`
    /// and SHOW DATABASES ask).
    pub fn any_in_db(&self, db: &str) -> bool {
        !(self.on_db(db) & Privs::DB_LEVEL)
            .without(Privs::GRANT)
            .is_empty()
            || self
                .tables
                .iter()
                .any(|((d, _), p)| d == db && !p.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logins_take_the_most_specific_account() {
        let mut acl = AclData::initial();
        acl.accounts.push(Account::new("u", "%"));
        acl.accounts.push(Account::new("", "localhost"));
        let local = Client::from_peer("127.0.0.1");
        // MariaDB's classic: the anonymous localhost account wins over u@%.
        assert_eq!(
            acl.login_account("u", &local)
                .expect("anonymous account")
                .user,
            ""
        );
        assert_eq!(
            acl.login_account("root", &local)
                .expect("root account")
                .host,
            "localhost"
        );
        let far = Client::from_peer("10.0.0.1");
        assert_eq!(acl.login_account("u", &far).expect("u@%").host, "%");
        assert!(acl.login_account("root", &far).is_none());
    }

    #[test]
    fn grants_add_up_by_level() {
        let mut acl = AclData::default();
        acl.accounts.push(Account::new("u", "%"));
        acl.change_db(("u", "%"), "d%", Privs::SELECT, false);
        acl.change_table(("u", "%"), "db", "t", Privs::INSERT, false);
        let g = acl.grants_of("u", "%");
        assert_eq!(g.on_table("db", "t"), Privs::SELECT | Privs::INSERT);
        assert_eq!(g.on_table("x", "t"), Privs::NONE);
        assert!(g.any_in_db("db") && !g.any_in_db("x"));
        assert!(acl.change_table(("u", "%"), "db", "t", Privs::INSERT, true));
        assert!(acl.tables.is_empty());
        assert!(!acl.change_table(("u", "%"), "db", "t", Privs::INSERT, true));
        assert!(acl.remove_account("u", "%") && acl.dbs.is_empty());
    }
}
