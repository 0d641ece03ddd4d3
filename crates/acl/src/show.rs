//! SHOW GRANTS and SHOW CREATE USER lines as MariaDB 10.11 prints them.

use crate::auth::NATIVE;
use crate::model::{Account, AclData};
use crate::privs::Privs;
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

/// Every line of SHOW GRANTS FOR the account: global, then database, then table
/// grants.
pub fn grant_lines(acl: &AclData, a: &Account) -> Vec<String> {
    let to = account_name(&a.user, &a.host);
    let mut lines = vec![format!(
        "GRANT {} ON *.* TO {to}{}{}{}",
        privilege_list(a.privs, Privs::ALL),
        identified(a),
        require(&a.tls),
        with_grant(a.privs)
    )];
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
