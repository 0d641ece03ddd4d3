//! SHOW GRANTS and SHOW CREATE USER lines as MariaDB 10.11 prints them.

use crate::auth::NATIVE;
use crate::model::{Account, AclData};
use crate::privs::Privs;
use crate::roles::PUBLIC;
use crate::tls::{c_str, TlsKind, TlsRequirement};

/// `name` in backquotes, inner backquotes doubled.
pub fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// `` `user`@`host` ``.
pub fn account_name(user: &str, host: &str) -> String {
    format!("{}@{}", quote(user), quote(host))
}

/// The privilege list of a GRANT line: `ALL PRIVILEGES` when `privs` is all of
/// `level`, `USAGE` when empty.
fn privilege_list(privs: Privs, level: Privs) -> String {
    let held = privs.without(Privs::GRANT);
    if held == level.without(Privs::GRANT) {
        return "ALL PRIVILEGES".into();
    }
    if held.is_empty() {
        return "USAGE".into();
    }
    held.names().join(", ")
}

fn with_grant(privs: Privs) -> &'static str {
    if privs.contains(Privs::GRANT) {
        " WITH GRANT OPTION"
    } else {
        ""
    }
}

/// ` WITH GRANT OPTION MAX_...` of the global GRANT line.
fn with_grant_and_limits(a: &Account) -> String {
    let limits = a.limits.clauses();
    match (a.privs.contains(Privs::GRANT), limits.is_empty()) {
        (true, _) => format!(" WITH GRANT OPTION{limits}"),
        (false, true) => String::new(),
        (false, false) => format!(" WITH{limits}"),
    }
}

/// ` IDENTIFIED BY PASSWORD '...'` / ` IDENTIFIED VIA plugin USING '...'`, or
/// nothing for an account without a password.
pub fn identified(a: &Account) -> String {
    if a.plugin == NATIVE {
        if a.auth.is_empty() {
            return String::new();
        }
        return format!(" IDENTIFIED BY PASSWORD '{}'", a.auth);
    }
    if a.auth.is_empty() {
        return format!(" IDENTIFIED VIA {}", a.plugin);
    }
    format!(" IDENTIFIED VIA {} USING '{}'", a.plugin, a.auth)
}

/// A requirement string in single quotes as MariaDB prints it: backslash,
/// quote, newline and carriage return escaped, the rest as is, up to a NUL.
fn tls_string(s: &str) -> String {
    let mut out = String::from("'");
    for ch in c_str(s).chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("''"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// ` REQUIRE SSL` / ` REQUIRE X509` / ` REQUIRE ISSUER '..' SUBJECT '..'
/// CIPHER '..'` (the parts given, in that order), or nothing for `NONE`.
pub fn require(t: &TlsRequirement) -> String {
    match t.kind {
        TlsKind::None => String::new(),
        TlsKind::Ssl => " REQUIRE SSL".into(),
        TlsKind::X509 => " REQUIRE X509".into(),
        TlsKind::Specified => {
            let parts: Vec<String> = [
                ("ISSUER", &t.issuer),
                ("SUBJECT", &t.subject),
                ("CIPHER", &t.cipher),
            ]
            .iter()
            .filter(|(_, v)| !c_str(v).is_empty())
            .map(|(k, v)| format!("{k} {}", tls_string(v)))
            .collect();
            format!(" REQUIRE {}", parts.join(" "))
        }
    }
}

/// How GRANT lines name a grantee: `` `user`@`host` ``, `` `role` ``, `PUBLIC`.
pub fn grantee(a: &Account) -> String {
    match (a.is_role, a.user.as_str()) {
        (true, PUBLIC) => PUBLIC.into(),
        (true, name) => quote(name),
        (false, _) => account_name(&a.user, &a.host),
    }
}

/// `GRANT `role` TO grantee [WITH ADMIN OPTION]` for each role granted to `a`.
pub fn role_lines(acl: &AclData, a: &Account) -> Vec<String> {
    let to = grantee(a);
    acl.roles_of(&a.user, &a.host)
        .map(|g| {
            let admin = if g.admin { " WITH ADMIN OPTION" } else { "" };
            format!("GRANT {} TO {to}{admin}", quote(&g.role))
        })
        .collect()
}

/// SHOW GRANTS FOR an account: the roles granted to it, its privileges, then
/// its default role.
pub fn account_grants(acl: &AclData, a: &Account) -> Vec<String> {
    let mut lines = role_lines(acl, a);
    lines.extend(grant_lines(acl, a));
    lines.extend(default_role_line(a));
    lines
}

/// `SET DEFAULT ROLE ...` when the account has one.
pub fn default_role_line(a: &Account) -> Option<String> {
    (!a.default_role.is_empty()).then(|| {
        format!(
            "SET DEFAULT ROLE {} FOR {}",
            quote(&a.default_role),
            grantee(a)
        )
    })
}

/// SHOW GRANTS FOR a role: for the role and each role granted to it
/// (transitively), the roles granted to it and its privileges.
pub fn role_grants(acl: &AclData, role: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for r in acl.role_closure(role) {
        if let Some(a) = acl.role(&r) {
            lines.extend(role_lines(acl, a));
            lines.extend(grant_lines(acl, a));
        }
    }
    lines
}

/// Every line of SHOW GRANTS FOR the account: global, then database, then table
/// grants. PUBLIC has no USAGE line.
pub fn grant_lines(acl: &AclData, a: &Account) -> Vec<String> {
    let to = grantee(a);
    let mut lines = Vec::new();
    if !(a.is_role && a.user == PUBLIC && a.privs.is_empty()) {
        lines.push(format!(
            "GRANT {} ON *.* TO {to}{}{}{}",
            privilege_list(a.privs, Privs::ALL),
            identified(a),
            require(&a.tls),
            with_grant_and_limits(a)
        ));
    }
    let mine = |u: &str, h: &str| u == a.user && h.eq_ignore_ascii_case(&a.host);
    let mut dbs: Vec<_> = acl.dbs.iter().filter(|g| mine(&g.user, &g.host)).collect();
    dbs.sort_by(|x, y| x.db.cmp(&y.db));
    for g in dbs {
        lines.push(format!(
            "GRANT {} ON {}.* TO {to}{}",
            privilege_list(g.privs, Privs::DB_LEVEL),
            quote(&g.db),
            with_grant(g.privs)
        ));
    }
    let mut tables: Vec<_> = acl
        .tables
        .iter()
        .filter(|g| mine(&g.user, &g.host))
        .collect();
    tables.sort_by(|x, y| (&x.db, &x.table).cmp(&(&y.db, &y.table)));
    for g in tables {
        lines.push(format!(
            "GRANT {} ON {}.{} TO {to}{}",
            privilege_list(g.privs, Privs::TABLE_LEVEL),
            quote(&g.db),
            quote(&g.table),
            with_grant(g.privs)
        ));
    }
    lines
}

/// SHOW CREATE USER's statement.
pub fn create_user(a: &Account) -> String {
    let mut s = format!(
        "CREATE USER {}{}{}",
        account_name(&a.user, &a.host),
        identified(a),
        require(&a.tls)
    );
    if a.limits.any() {
        s.push_str(&format!(" WITH{}", a.limits.clauses()));
    }
    if a.locked {
        s.push_str(" ACCOUNT LOCK");
    }
    if a.password_expired {
        s.push_str(" PASSWORD EXPIRE");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_lines_as_mariadb_prints_them() {
        let mut acl = AclData::default();
        let mut u = Account::new("u", "%");
        u.default_role = "rb".into();
        acl.accounts
            .extend([u.clone(), Account::role("ra"), Account::role("rb")]);
        acl.grant_role(("rb", ""), "ra", false);
        acl.grant_role(("u", "%"), "rb", true);
        acl.change_db(("ra", ""), "d", Privs::SELECT, false);
        assert_eq!(
            account_grants(&acl, &u),
            [
                "GRANT `rb` TO `u`@`%` WITH ADMIN OPTION",
                "GRANT USAGE ON *.* TO `u`@`%`",
                "SET DEFAULT ROLE `rb` FOR `u`@`%`",
            ]
        );
        assert_eq!(
            role_grants(&acl, "rb"),
            [
                "GRANT `ra` TO `rb`",
                "GRANT USAGE ON *.* TO `rb`",
                "GRANT USAGE ON *.* TO `ra`",
                "GRANT SELECT ON `d`.* TO `ra`",
            ]
        );
        acl.accounts.push(Account::role(PUBLIC));
        assert!(role_grants(&acl, PUBLIC).is_empty());
        acl.change_db((PUBLIC, ""), "d", Privs::INSERT, false);
        assert_eq!(
            role_grants(&acl, PUBLIC),
            ["GRANT INSERT ON `d`.* TO PUBLIC"]
        );
    }

    #[test]
    fn lines_as_mariadb_prints_them() {
        let mut acl = AclData::default();
        let mut a = Account::new("v", "%");
        a.privs = Privs::ALL.without(Privs::GRANT);
        acl.accounts.push(a.clone());
        acl.change_db(("v", "%"), "p", Privs::DB_LEVEL, false);
        acl.change_table(("v", "%"), "p", "t", Privs::INSERT | Privs::UPDATE, false);
        assert_eq!(
            grant_lines(&acl, &a),
            [
                "GRANT ALL PRIVILEGES ON *.* TO `v`@`%`",
                "GRANT ALL PRIVILEGES ON `p`.* TO `v`@`%` WITH GRANT OPTION",
                "GRANT INSERT, UPDATE ON `p`.`t` TO `v`@`%`",
            ]
        );
        a.privs = Privs::NONE;
        a.auth = "*B69027D44F6E5EDC07F1AEAD1477967B16F28227".into();
        a.locked = true;
        a.password_expired = true;
        assert_eq!(
            create_user(&a),
            "CREATE USER `v`@`%` IDENTIFIED BY PASSWORD '*B69027D44F6E5EDC07F1AEAD1477967B16F28227' ACCOUNT LOCK PASSWORD EXPIRE"
        );
    }

    fn tls(kind: TlsKind, cipher: &str, issuer: &str, subject: &str) -> TlsRequirement {
        TlsRequirement {
            kind,
            cipher: cipher.into(),
            issuer: issuer.into(),
            subject: subject.into(),
        }
    }

    #[test]
    fn require_clauses_as_mariadb_prints_them() {
        let mut a = Account::new("b", "%");
        a.tls = tls(TlsKind::Ssl, "", "", "");
        assert_eq!(
            grant_lines(&AclData::default(), &a),
            ["GRANT USAGE ON *.* TO `b`@`%` REQUIRE SSL"]
        );
        assert_eq!(create_user(&a), "CREATE USER `b`@`%` REQUIRE SSL");
        a.tls = tls(
            TlsKind::Specified,
            "ECDHE-RSA-AES256-GCM-SHA384",
            "/C=SE/CN=ca",
            "/C=SE/CN=b",
        );
        a.privs = Privs::SELECT | Privs::GRANT;
        a.auth = "*B69027D44F6E5EDC07F1AEAD1477967B16F28227".into();
        assert_eq!(
            grant_lines(&AclData::default(), &a),
            ["GRANT SELECT ON *.* TO `b`@`%` IDENTIFIED BY PASSWORD '*B69027D44F6E5EDC07F1AEAD1477967B16F28227' REQUIRE ISSUER '/C=SE/CN=ca' SUBJECT '/C=SE/CN=b' CIPHER 'ECDHE-RSA-AES256-GCM-SHA384' WITH GRANT OPTION"]
        );
        a.tls = tls(TlsKind::X509, "", "", "");
        a.locked = true;
        assert_eq!(
            create_user(&a),
            "CREATE USER `b`@`%` IDENTIFIED BY PASSWORD '*B69027D44F6E5EDC07F1AEAD1477967B16F28227' REQUIRE X509 ACCOUNT LOCK"
        );
        // Only the parts given; quotes doubled, backslashes and line ends
        // escaped, the rest as is, up to a NUL.
        let t = tls(TlsKind::Specified, "", "a\\b\"c", "x'y\n\r\tz\0w");
        assert_eq!(
            require(&t),
            " REQUIRE ISSUER 'a\\\\b\"c' SUBJECT 'x''y\\n\\r\tz'"
        );
        assert_eq!(
            require(&tls(TlsKind::Specified, "c", "", "")),
            " REQUIRE CIPHER 'c'"
        );
        assert_eq!(require(&tls(TlsKind::Specified, "", "", "")), " REQUIRE ");
        assert_eq!(require(&TlsRequirement::default()), "");
    }
}
