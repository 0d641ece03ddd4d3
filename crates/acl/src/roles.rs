//! Roles as MariaDB 10.11 has them: a role is an account with host `''` that
//! cannot log in. Roles are granted to accounts and to other roles
//! (`mysql.roles_mapping`); a session enables one (SET ROLE, or the account's
//! default role at login) and then holds its privileges and those of every role
//! granted to it, transitively. The grants of `PUBLIC` apply to every account.

use crate::model::{Account, AclData, Grants, RoleGrant};

/// The role whose grants every account holds.
pub const PUBLIC: &str = "PUBLIC";

impl AclData {
    /// The role `name`, if it exists.
    pub fn role(&self, name: &str) -> Option<&Account> {
        self.accounts.iter().find(|a| a.is_role && a.user == name)
    }

    /// The roles granted directly to `user`@`host` (a role: host `''`).
    pub fn roles_of<'a>(
        &'a self,
        user: &'a str,
        host: &'a str,
    ) -> impl Iterator<Item = &'a RoleGrant> + 'a {
        self.roles
            .iter()
            .filter(move |g| g.user == user && g.host.eq_ignore_ascii_case(host))
    }

    /// The grant of `role` to `user`@`host`, if there is one.
    pub fn role_grant(&self, (user, host): (&str, &str), role: &str) -> Option<&RoleGrant> {
        self.roles
            .iter()
            .find(|g| g.user == user && g.host.eq_ignore_ascii_case(host) && g.role == role)
    }

    /// `role` and every role granted to it, transitively: breadth first, each
    /// once; empty when `role` does not exist.
    pub fn role_closure(&self, role: &str) -> Vec<String> {
        if self.role(role).is_none() {
            return Vec::new();
        }
        let mut out = vec![role.to_string()];
        let mut i = 0;
        while i < out.len() {
            let next: Vec<String> = self
                .roles_of(&out[i], "")
                .map(|g| g.role.clone())
                .filter(|r| self.role(r).is_some())
                .collect();
            for r in next {
                if !out.contains(&r) {
                    out.push(r);
                }
            }
            i += 1;
        }
        out
    }

    /// Grants `role` to `user`@`host` (adds the admin option when `admin`).
    pub fn grant_role(&mut self, (user, host): (&str, &str), role: &str, admin: bool) {
        let found = self
            .roles
            .iter_mut()
            .find(|g| g.user == user && g.host.eq_ignore_ascii_case(host) && g.role == role);
        match found {
            Some(g) => g.admin |= admin,
            None => self.roles.push(RoleGrant {
                user: user.to_string(),
                host: host.to_string(),
                role: role.to_string(),
                admin,
            }),
        }
    }

    /// Revokes `role` from `user`@`host`, or only its admin option; false when
    /// it was not granted.
    pub fn revoke_role(
        &mut self,
        (user, host): (&str, &str),
        role: &str,
        admin_only: bool,
    ) -> bool {
        let pos = self
            .roles
            .iter()
            .position(|g| g.user == user && g.host.eq_ignore_ascii_case(host) && g.role == role);
        match (pos, admin_only) {
            (None, _) => false,
            (Some(i), true) => {
                self.roles[i].admin = false;
                true
            }
            (Some(i), false) => {
                self.roles.remove(i);
                true
            }
        }
    }

    /// Drops role `name` with its grants and every grant of it.
    pub fn remove_role(&mut self, name: &str) -> bool {
        if self.role(name).is_none() {
            return false;
        }
        self.accounts.retain(|a| !(a.is_role && a.user == name));
        let own = |u: &str, h: &str| u == name && h.is_empty();
        self.dbs.retain(|g| !own(&g.user, &g.host));
        self.tables.retain(|g| !own(&g.user, &g.host));
        self.roles
            .retain(|g| !own(&g.user, &g.host) && g.role != name);
        true
    }

    /// What a session of `user`@`host` with `role` enabled may do: the account's
    /// grants, the role's and those of the roles granted to it, and PUBLIC's.
    pub fn effective_grants(&self, user: &str, host: &str, role: Option<&str>) -> Grants {
        let mut g = self.grants_of(user, host);
        for r in role.map(|r| self.role_closure(r)).unwrap_or_default() {
            g.merge(self.grants_of(&r, ""));
        }
        if self.role(PUBLIC).is_some() {
            let mut public = self.grants_of(PUBLIC, "");
            g.public_tables = std::mem::take(&mut public.tables);
            g.merge(public);
        }
        g
    }
}

impl Grants {
    /// Adds `other`'s privileges to these.
    pub fn merge(&mut self, other: Grants) {
        self.global |= other.global;
        self.dbs.extend(other.dbs);
        self.tables.extend(other.tables);
        self.public_tables.extend(other.public_tables);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privs::Privs;

    fn acl() -> AclData {
        let mut acl = AclData::default();
        acl.accounts.push(Account::new("u", "%"));
        for r in ["ra", "rb", "rc"] {
            acl.accounts.push(Account::role(r));
        }
        acl.grant_role(("rb", ""), "ra", false);
        acl.grant_role(("rc", ""), "rb", false);
        acl.grant_role(("u", "%"), "rc", true);
        acl.change_db(("ra", ""), "d", Privs::SELECT, false);
        acl
    }

    #[test]
    fn a_role_brings_the_roles_granted_to_it() {
        let acl = acl();
        assert_eq!(acl.role_closure("rc"), ["rc", "rb", "ra"]);
        assert_eq!(acl.role_closure("nope"), Vec::<String>::new());
        assert_eq!(acl.effective_grants("u", "%", None).on_db("d"), Privs::NONE);
        assert_eq!(
            acl.effective_grants("u", "%", Some("rc")).on_db("d"),
            Privs::SELECT
        );
        assert!(acl.role_grant(("u", "%"), "rc").is_some_and(|g| g.admin));
    }

    #[test]
    fn roles_cannot_log_in_and_drop_with_their_grants() {
        let mut acl = acl();
        let any = crate::host::Client::from_peer("10.0.0.1");
        assert!(acl.login_account("ra", &any).is_none());
        assert!(acl.remove_role("ra"));
        assert!(acl.dbs.is_empty());
        assert!(acl.role_grant(("rb", ""), "ra").is_none());
        assert!(!acl.remove_role("ra"));
    }

    #[test]
    fn public_applies_to_everyone() {
        let mut acl = acl();
        acl.accounts.push(Account::role(PUBLIC));
        acl.change_db((PUBLIC, ""), "p", Privs::INSERT, false);
        acl.change_table((PUBLIC, ""), "q", "t", Privs::SELECT, false);
        let g = acl.effective_grants("u", "%", None);
        assert_eq!(g.on_db("p"), Privs::INSERT);
        assert_eq!(g.on_table("q", "t"), Privs::SELECT);
        // A table grant to PUBLIC does not show its database.
        assert!(g.any_in_db("p") && !g.any_in_db("q"));
    }

    #[test]
    fn revoking_the_admin_option_keeps_the_role() {
        let mut acl = acl();
        assert!(acl.revoke_role(("u", "%"), "rc", true));
        assert!(acl.role_grant(("u", "%"), "rc").is_some_and(|g| !g.admin));
        assert!(acl.revoke_role(("u", "%"), "rc", false));
        assert!(!acl.revoke_role(("u", "%"), "rc", false));
    }
}
