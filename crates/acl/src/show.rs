//! SHOW GRANTS and SHOW CREATE USER lines as MariaDB 10.11 prints them.

use crate::model::{Account, AclData, NATIVE};
use crate::privs::Privs;

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

/// Every line of SHOW GRANTS FOR the account: global, then database, then table
/// grants.
pub fn grant_lines(acl: &AclData, a: &Account) -> Vec<String> {
    let to = account_name(&a.user, &a.host);
    let mut lines = vec![format!(
        "GRANT {} ON *.* TO {to}{}{}",
        privilege_list(a.privs, Privs::ALL),
        identified(a),
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
        "CREATE USER {}{}",
        account_name(&a.user, &a.host),
        identified(a)
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
}
