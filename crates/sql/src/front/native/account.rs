//! Account statements as MariaDB's grammar has them: CREATE / ALTER / DROP /
//! RENAME USER, SET PASSWORD, GRANT and REVOKE (global, database and table
//! level), with the TLS an account requires (`REQUIRE NONE | SSL | X509 |
//! CIPHER / ISSUER / SUBJECT`) on CREATE USER, ALTER USER and GRANT, and
//! MySQL's `IDENTIFIED WITH plugin BY 'pw'` besides MariaDB's `USING
//! PASSWORD('pw')`. Role statements are parsed in [`super::role`]; resource
//! limits (`WITH MAX_...`) on CREATE / ALTER USER and GRANT. Column and routine
//! privileges, PROXY and several plugins (`VIA a OR b`) are refused with 1235
//! until they exist.

use super::{Native, P, R};
use crate::front::lexer::{unquote, TokKind};
use basalt_acl::{LimitChanges, Privs, TlsKind, TlsRequirement};

/// `'user'@'host'`: the host is `%` when left out.
pub type AccountName = (String, String);

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    /// IDENTIFIED BY 'password': `mysql_native_password`.
    Password(Vec<u8>),
    /// IDENTIFIED BY PASSWORD 'hash': `mysql_native_password`.
    Hash(String),
    /// IDENTIFIED VIA | WITH plugin [USING | AS ...]; the name in lower case.
    Plugin { name: String, secret: Secret },
}

/// What a plugin is given: nothing, a password (`USING PASSWORD('pw')`, or
/// MySQL's `WITH plugin BY 'pw'`), or its authentication string as is
/// (`USING | AS 'string'`). SET PASSWORD's value, for the account's plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Secret {
    None,
    Password(Vec<u8>),
    String(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserSpec {
    /// `None`: CURRENT_USER.
    pub name: Option<AccountName>,
    pub auth: Option<Auth>,
    /// Named without `@host`: a role of that name if there is one, else the
    /// account `name@'%'`.
    pub bare: bool,
}

/// REQUIRE, ACCOUNT LOCK / UNLOCK and PASSWORD EXPIRE.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserOptions {
    /// `None`: no REQUIRE clause (ALTER USER keeps the account's).
    pub tls: Option<TlsRequirement>,
    /// `WITH MAX_...`.
    pub limits: LimitChanges,
    pub lock: Option<bool>,
    pub expire: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrantLevel {
    Global,
    /// `db.*`; `None`: `*` (the current database).
    Db(Option<String>),
    /// `[db.]table`.
    Table(Option<String>, String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccountStmt {
    CreateUser {
        or_replace: bool,
        if_not_exists: bool,
        users: Vec<UserSpec>,
        options: UserOptions,
    },
    AlterUser {
        if_exists: bool,
        users: Vec<UserSpec>,
        options: UserOptions,
    },
    DropUser {
        if_exists: bool,
        users: Vec<UserSpec>,
    },
    RenameUser(Vec<(UserSpec, UserSpec)>),
    /// The value is for the account's plugin.
    SetPassword {
        user: Option<AccountName>,
        secret: Secret,
    },
    Grant {
        /// `ALL [PRIVILEGES]` is `None`: all the level allows.
        privs: Option<Privs>,
        level: GrantLevel,
        users: Vec<UserSpec>,
        grant_option: bool,
        /// REQUIRE: sets every grantee's requirement.
        tls: Option<TlsRequirement>,
        /// `WITH MAX_...`: sets every grantee's limits.
        limits: LimitChanges,
    },
    Revoke {
        privs: Option<Privs>,
        level: GrantLevel,
        users: Vec<UserSpec>,
    },
    /// REVOKE ALL PRIVILEGES, GRANT OPTION FROM ...
    RevokeAll(Vec<UserSpec>),
}

/// The account statement `first` starts, if it is one Basalt parses.
pub(super) fn statement(p: &mut P, first: &str) -> R<Option<Native>> {
    let start = p.pos;
    let r = parse_statement(p, first);
    if matches!(r, Ok(None)) {
        p.pos = start;
    }
    r
}

fn parse_statement(p: &mut P, first: &str) -> R<Option<Native>> {
    let stmt = match first {
        "create" => {
            let or_replace = p.kw("or") && {
                p.expect_kw("replace")?;
                true
            };
            if p.kw("role") {
                let r = super::role::create(p, or_replace)?;
                return role_statement(p, r);
            }
            if !p.kw("user") {
                return Ok(None);
            }
            let if_not_exists = p.kw("if") && {
                p.expect_kw("not")?;
                p.expect_kw("exists")?;
                true
            };
            let users = user_specs(p)?;
            AccountStmt::CreateUser {
                or_replace,
                if_not_exists,
                users,
                options: options(p)?,
            }
        }
        "alter" => {
            if !p.kw("user") {
                return Ok(None);
            }
            let if_exists = if_exists(p)?;
            let users = user_specs(p)?;
            AccountStmt::AlterUser {
                if_exists,
                users,
                options: options(p)?,
            }
        }
        "drop" => {
            if p.kw("role") {
                let r = super::role::drop(p)?;
                return role_statement(p, r);
            }
            if !p.kw("user") {
                return Ok(None);
            }
            let if_exists = if_exists(p)?;
            AccountStmt::DropUser {
                if_exists,
                users: names(p)?,
            }
        }
        "rename" => {
            if !p.kw("user") {
                return Ok(None);
            }
            let mut pairs = Vec::new();
            loop {
                let from = user(p)?;
                p.expect_kw("to")?;
                pairs.push((from, user(p)?));
                if !p.punct(",") {
                    break;
                }
            }
            AccountStmt::RenameUser(pairs)
        }
        "set" => {
            if !p.kw("password") {
                return Ok(None);
            }
            let user = if p.kw("for") {
                Some(account_name(p)?)
            } else {
                None
            };
            if !p.punct("=") {
                return Err(p.err());
            }
            AccountStmt::SetPassword {
                user,
                secret: password_value(p)?,
            }
        }
        "grant" => return grant(p),
        "revoke" => return revoke(p),
        _ => return Ok(None),
    };
    p.end()?;
    Ok(Some(Native::Account(stmt)))
}

fn role_statement(p: &mut P, stmt: super::role::RoleStmt) -> R<Option<Native>> {
    p.end()?;
    Ok(Some(Native::Role(stmt)))
}

fn if_exists(p: &mut P) -> R<bool> {
    Ok(p.kw("if") && {
        p.expect_kw("exists")?;
        true
    })
}

/// A user name or host: a word, a quoted identifier or a string.
fn name_part(p: &mut P) -> R<String> {
    match p.peek() {
        Some(t) if t.kind == TokKind::Str => Ok(String::from_utf8_lossy(&p.string()?).into_owned()),
        _ => p.ident(),
    }
}

/// `user[@host]`, the host `%` when left out.
pub(super) fn account_name(p: &mut P) -> R<AccountName> {
    let (user, host) = account_name_as_written(p)?;
    Ok((user, host.unwrap_or_else(|| "%".to_string())))
}

/// `user[@host]`; `None` when no host is written.
fn account_name_as_written(p: &mut P) -> R<(String, Option<String>)> {
    let user = name_part(p)?;
    let host = match p.peek() {
        Some(t) if t.kind == TokKind::Var && !t.text(p.src).starts_with("@@") => {
            p.pos += 1;
            let body = &t.text(p.src)[1..];
            match body.as_bytes().first() {
                Some(b'\'' | b'"' | b'`') => {
                    String::from_utf8_lossy(&unquote(body, true)).into_owned()
                }
                _ => body.to_string(),
            }
        }
        _ => return Ok((user, None)),
    };
    Ok((user, Some(host)))
}

/// An account or CURRENT_USER[()].
fn user(p: &mut P) -> R<UserSpec> {
    if p.kw("current_user") {
        if p.punct("(") && !p.punct(")") {
            return Err(p.err());
        }
        return Ok(UserSpec {
            name: None,
            auth: None,
            bare: false,
        });
    }
    let (user, host) = account_name_as_written(p)?;
    Ok(UserSpec {
        bare: host.is_none(),
        name: Some((user, host.unwrap_or_else(|| "%".to_string()))),
        auth: None,
    })
}

/// An account, a role or CURRENT_USER, as GRANT and REVOKE name grantees
/// (PUBLIC is the role of that name).
pub(super) fn grantee(p: &mut P) -> R<UserSpec> {
    user(p)
}

/// A list of [`grantee`]s.
pub(super) fn grantees(p: &mut P) -> R<Vec<UserSpec>> {
    names(p)
}

fn names(p: &mut P) -> R<Vec<UserSpec>> {
    let mut out = vec![user(p)?];
    while p.punct(",") {
        out.push(user(p)?);
    }
    Ok(out)
}

fn user_specs(p: &mut P) -> R<Vec<UserSpec>> {
    let mut out = Vec::new();
    loop {
        let mut spec = user(p)?;
        if p.kw("identified") {
            spec.auth = Some(identified(p)?);
        }
        out.push(spec);
        if !p.punct(",") {
            return Ok(out);
        }
    }
}

/// What follows IDENTIFIED.
fn identified(p: &mut P) -> R<Auth> {
    if p.kw("by") {
        if p.kw("password") {
            return Ok(Auth::Hash(
                String::from_utf8_lossy(&p.string()?).into_owned(),
            ));
        }
        return Ok(Auth::Password(p.string()?));
    }
    if !(p.kw("via") || p.kw("with")) {
        return Err(p.err());
    }
    let name = name_part(p)?.to_ascii_lowercase();
    let secret = if p.kw("using") || p.kw("as") {
        if p.kw("password") {
            Secret::Password(p_paren_string(p)?)
        } else {
            Secret::String(String::from_utf8_lossy(&p.string()?).into_owned())
        }
    } else if p.kw("by") {
        Secret::Password(p.string()?)
    } else {
        Secret::None
    };
    if p.kw("or") {
        return Err(unsupported(
            "several authentication plugins (IDENTIFIED VIA ... OR ...)",
        ));
    }
    Ok(Auth::Plugin { name, secret })
}

/// `('text')`.
fn p_paren_string(p: &mut P) -> R<Vec<u8>> {
    if !p.punct("(") {
        return Err(p.err());
    }
    let s = p.string()?;
    if !p.punct(")") {
        return Err(p.err());
    }
    Ok(s)
}

/// SET PASSWORD's value: PASSWORD('text') or an authentication string.
fn password_value(p: &mut P) -> R<Secret> {
    if p.kw("password") {
        return p_paren_string(p).map(Secret::Password);
    }
    if p.kw("old_password") {
        return Err(p.err());
    }
    Ok(Secret::String(
        String::from_utf8_lossy(&p.string()?).into_owned(),
    ))
}

/// What follows the accounts of CREATE / ALTER USER, in MariaDB's order:
/// `[REQUIRE ...] [WITH resource limits] [ACCOUNT LOCK | PASSWORD EXPIRE ...]`.
fn options(p: &mut P) -> R<UserOptions> {
    let mut o = UserOptions {
        tls: require(p)?,
        ..UserOptions::default()
    };
    if p.kw("with") {
        if !limit(p, &mut o.limits)? {
            return Err(p.err());
        }
        while limit(p, &mut o.limits)? {}
    }
    loop {
        if p.kw("account") {
            o.lock = Some(if p.kw("lock") {
                true
            } else {
                p.expect_kw("unlock")?;
                false
            });
        } else if p.kw("password") {
            p.expect_kw("expire")?;
            let kinds = ["default", "never", "interval"];
            if p.peek()
                .is_some_and(|t| kinds.iter().any(|k| t.is_kw(p.src, k)))
            {
                return Err(unsupported("PASSWORD EXPIRE DEFAULT / NEVER / INTERVAL"));
            }
            o.expire = true;
        } else {
            return Ok(o);
        }
    }
}

/// `REQUIRE {NONE | SSL | X509 | tls_option [[AND] tls_option] ...}`, where
/// `tls_option` is `CIPHER | ISSUER | SUBJECT 'string'`, each at most once
/// (1225); `None` without REQUIRE.
fn require(p: &mut P) -> R<Option<TlsRequirement>> {
    if !p.kw("require") {
        return Ok(None);
    }
    let kind = if p.kw("none") {
        TlsKind::None
    } else if p.kw("ssl") {
        TlsKind::Ssl
    } else if p.kw("x509") {
        TlsKind::X509
    } else {
        return tls_options(p).map(Some);
    };
    Ok(Some(TlsRequirement {
        kind,
        ..TlsRequirement::default()
    }))
}

const TLS_OPTIONS: [&str; 3] = ["cipher", "issuer", "subject"];

/// The CIPHER / ISSUER / SUBJECT list of a REQUIRE clause.
fn tls_options(p: &mut P) -> R<TlsRequirement> {
    let mut t = TlsRequirement {
        kind: TlsKind::Specified,
        ..TlsRequirement::default()
    };
    let mut seen = [false; 3];
    loop {
        let Some(i) = TLS_OPTIONS.iter().position(|k| p.kw(k)) else {
            return Err(p.err());
        };
        let value = String::from_utf8_lossy(&p.string()?).into_owned();
        if std::mem::replace(&mut seen[i], true) {
            let name = TLS_OPTIONS[i].to_ascii_uppercase();
            return Err(basalt_common::MySqlError::new(
                1225,
                "HY000",
                format!("Option '{name}' used twice in statement"),
            ));
        }
        match i {
            0 => t.cipher = value,
            1 => t.issuer = value,
            _ => t.subject = value,
        }
        let next = |p: &P| {
            p.peek()
                .is_some_and(|tok| TLS_OPTIONS.iter().any(|k| tok.is_kw(p.src, k)))
        };
        if !p.kw("and") && !next(p) {
            return Ok(t);
        }
    }
}

fn unsupported(what: &str) -> basalt_common::MySqlError {
    basalt_common::MySqlError::not_supported(what)
}

/// The privilege list up to ON: `None` for ALL [PRIVILEGES].
fn privilege_list(p: &mut P) -> R<Option<Privs>> {
    if p.kw("all") {
        p.kw("privileges");
        return Ok(None);
    }
    let mut privs = Privs::NONE;
    loop {
        let start = p.pos;
        let mut words = Vec::new();
        while let Some(t) = p.peek() {
            if t.kind != TokKind::Word || t.is_kw(p.src, "on") || t.is_kw(p.src, "to") {
                break;
            }
            words.push(t.text(p.src).to_ascii_uppercase());
            p.pos += 1;
        }
        if p.peek().is_some_and(|t| t.text(p.src) == "(") {
            return Err(unsupported("column-level privileges"));
        }
        let name = words.join(" ");
        if name == "USAGE" {
        } else if let Some(bit) = Privs::from_name(&name) {
            privs |= bit;
        } else {
            // The error points at the unknown word; the cursor stays after it,
            // where ON tells a privilege list from a role name.
            let end = p.pos;
            p.pos = start;
            let e = p.err();
            p.pos = end;
            return Err(e);
        }
        if !p.punct(",") {
            return Ok(Some(privs));
        }
    }
}

fn level(p: &mut P) -> R<GrantLevel> {
    if p.kw("procedure") || p.kw("function") || p.kw("package") {
        return Err(unsupported("routine-level privileges"));
    }
    p.kw("table");
    if p.punct("*") {
        if p.punct(".") {
            if !p.punct("*") {
                return Err(p.err());
            }
            return Ok(GrantLevel::Global);
        }
        return Ok(GrantLevel::Db(None));
    }
    let first = p.ident()?;
    if !p.punct(".") {
        return Ok(GrantLevel::Table(None, first));
    }
    if p.punct("*") {
        return Ok(GrantLevel::Db(Some(first)));
    }
    Ok(GrantLevel::Table(Some(first), p.ident()?))
}

/// `privilege_list ON level`.
fn privileges_on(p: &mut P) -> R<(Option<Privs>, GrantLevel)> {
    let privs = privilege_list(p);
    if let Err(e) = &privs {
        if e.code == 1235 {
            return Err(e.clone());
        }
    }
    if !p.kw("on") {
        return Err(p.err());
    }
    Ok((privs?, level(p)?))
}

fn grant(p: &mut P) -> R<Option<Native>> {
    if p.kw("proxy") {
        return Err(unsupported("PROXY privileges"));
    }
    if let Some(r) = super::role::grant(p)? {
        return role_statement(p, r);
    }
    let (privs, level) = privileges_on(p)?;
    p.expect_kw("to")?;
    let users = user_specs(p)?;
    let tls = require(p)?;
    let mut grant_option = false;
    let mut limits = LimitChanges::default();
    if p.kw("with") {
        loop {
            if p.kw("grant") {
                p.expect_kw("option")?;
                grant_option = true;
            } else if !limit(p, &mut limits)? {
                break;
            }
        }
    }
    p.end()?;
    Ok(Some(Native::Account(AccountStmt::Grant {
        privs,
        level,
        users,
        grant_option,
        tls,
        limits,
    })))
}

/// One `MAX_... n` resource limit, if one follows; a later one of the same
/// kind wins, as in MariaDB.
fn limit(p: &mut P, l: &mut LimitChanges) -> R<bool> {
    if p.kw("max_queries_per_hour") {
        l.questions = Some(p.uint()?);
    } else if p.kw("max_updates_per_hour") {
        l.updates = Some(p.uint()?);
    } else if p.kw("max_connections_per_hour") {
        l.connections = Some(p.uint()?);
    } else if p.kw("max_user_connections") {
        let negative = p.punct("-");
        let n = i64::try_from(p.uint()?).map_err(|_| p.err())?;
        l.user_connections = Some(if negative { -n } else { n });
    } else if p.kw("max_statement_time") {
        let t = p.peek().ok_or_else(|| p.err())?;
        let v: f64 = match t.kind {
            TokKind::Num(_) => t.text(p.src).parse().map_err(|_| p.err())?,
            _ => return Err(p.err()),
        };
        p.pos += 1;
        l.statement_time = Some(v);
    } else {
        return Ok(false);
    }
    Ok(true)
}

fn revoke(p: &mut P) -> R<Option<Native>> {
    if p.kw("proxy") {
        return Err(unsupported("PROXY privileges"));
    }
    if let Some(r) = super::role::revoke(p)? {
        return role_statement(p, r);
    }
    let start = p.pos;
    if p.kw("all") {
        p.kw("privileges");
        if p.punct(",") {
            p.expect_kw("grant")?;
            p.expect_kw("option")?;
            p.expect_kw("from")?;
            let users = names(p)?;
            p.end()?;
            return Ok(Some(Native::Account(AccountStmt::RevokeAll(users))));
        }
        p.pos = start;
    }
    let (privs, level) = privileges_on(p)?;
    p.expect_kw("from")?;
    let users = names(p)?;
    p.end()?;
    Ok(Some(Native::Account(AccountStmt::Revoke {
        privs,
        level,
        users,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::lexer::lex;

    fn parse(s: &str) -> R<Option<Native>> {
        let toks = lex(s).tokens;
        super::super::parse_native(s, &toks, false)
    }

    fn stmt(s: &str) -> AccountStmt {
        match parse(s) {
            Ok(Some(Native::Account(a))) => a,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn statements() {
        let u = |n: &str, h: &str| Some((n.to_string(), h.to_string()));
        match stmt("CREATE USER IF NOT EXISTS 'a'@'%' IDENTIFIED BY 'pw', b@localhost ACCOUNT LOCK")
        {
            AccountStmt::CreateUser {
                if_not_exists: true,
                users,
                options,
                ..
            } => {
                assert_eq!(users[0].name, u("a", "%"));
                assert_eq!(users[0].auth, Some(Auth::Password(b"pw".to_vec())));
                assert_eq!(users[1].name, u("b", "localhost"));
                assert_eq!(options.lock, Some(true));
            }
            other => panic!("{other:?}"),
        }
        match stmt("grant select, insert, create temporary tables on d.* to u with grant option") {
            AccountStmt::Grant {
                privs: Some(p),
                level: GrantLevel::Db(Some(d)),
                grant_option: true,
                ..
            } => {
                assert_eq!(d, "d");
                assert_eq!(p, Privs::SELECT | Privs::INSERT | Privs::CREATE_TMP);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            stmt("REVOKE ALL PRIVILEGES, GRANT OPTION FROM u@'%'"),
            AccountStmt::RevokeAll(_)
        ));
        assert!(matches!(
            stmt("revoke all on t from u"),
            AccountStmt::Revoke {
                privs: None,
                level: GrantLevel::Table(None, _),
                ..
            }
        ));
        assert!(matches!(
            stmt("set password for u@'%' = password('x')"),
            AccountStmt::SetPassword { .. }
        ));
        assert!(matches!(parse("grant r to u"), Ok(Some(Native::Role(_)))));
        assert_eq!(parse("grant select (a) on t to u").unwrap_err().code, 1235);
        assert_eq!(parse("grant selec on t to u").unwrap_err().code, 1064);
    }

    fn auth(s: &str) -> Auth {
        match stmt(s) {
            AccountStmt::CreateUser { users, .. } | AccountStmt::AlterUser { users, .. } => {
                users[0].auth.clone().expect("IDENTIFIED")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn plugins_and_their_secrets() {
        let via = |name: &str, secret: Secret| Auth::Plugin {
            name: name.into(),
            secret,
        };
        assert_eq!(
            auth("create user u identified via ED25519 using password('pw')"),
            via("ed25519", Secret::Password(b"pw".to_vec()))
        );
        assert_eq!(
            auth("alter user u identified with ed25519 as 'key'"),
            via("ed25519", Secret::String("key".into()))
        );
        assert_eq!(
            auth("create user u identified with caching_sha2_password by 'pw'"),
            via("caching_sha2_password", Secret::Password(b"pw".to_vec()))
        );
        assert_eq!(
            auth("create user u identified via pam"),
            via("pam", Secret::None)
        );
        assert_eq!(
            auth("create user u identified by password '*AB'"),
            Auth::Hash("*AB".into())
        );
        assert!(matches!(
            stmt("set password = 'key'"),
            AccountStmt::SetPassword {
                user: None,
                secret: Secret::String(_)
            }
        ));
        let or = "create user u identified via ed25519 or mysql_native_password";
        assert_eq!(parse(or).unwrap_err().code, 1235);
    }

    fn tls(kind: TlsKind, cipher: &str, issuer: &str, subject: &str) -> TlsRequirement {
        TlsRequirement {
            kind,
            cipher: cipher.into(),
            issuer: issuer.into(),
            subject: subject.into(),
        }
    }

    fn user_tls(s: &str) -> Option<TlsRequirement> {
        match stmt(s) {
            AccountStmt::CreateUser { options, .. } | AccountStmt::AlterUser { options, .. } => {
                options.tls
            }
            AccountStmt::Grant { tls, .. } => tls,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn require_clauses() {
        use TlsKind::*;
        assert_eq!(user_tls("create user a"), Option::None);
        assert_eq!(
            user_tls("create user a require none"),
            Some(tls(None, "", "", ""))
        );
        assert_eq!(
            user_tls("CREATE USER a REQUIRE SSL"),
            Some(tls(Ssl, "", "", ""))
        );
        assert_eq!(
            user_tls("alter user a require x509"),
            Some(tls(X509, "", "", ""))
        );
        let all = Some(tls(Specified, "c", "i", "s"));
        assert_eq!(
            user_tls("create user a require issuer 'i' and subject 's' and cipher 'c'"),
            all
        );
        // AND between the options may be left out, in any order.
        assert_eq!(
            user_tls("create user a require subject 's' cipher \"c\" AND issuer 'i'"),
            all
        );
        assert_eq!(
            user_tls("create user a require cipher ''"),
            Some(tls(Specified, "", "", ""))
        );
        // REQUIRE comes before the lock and expiry options, and applies to
        // every account named.
        match stmt("create user a, b identified by 'x' require ssl account lock password expire") {
            AccountStmt::CreateUser { users, options, .. } => {
                assert_eq!(users.len(), 2);
                assert_eq!(options.tls, Some(tls(Ssl, "", "", "")));
                assert!(options.lock == Some(true) && options.expire);
            }
            other => panic!("{other:?}"),
        }
        match stmt("grant select on d.* to u, v require subject 's' with grant option") {
            AccountStmt::Grant {
                users,
                tls: t,
                grant_option: true,
                ..
            } => {
                assert_eq!(users.len(), 2);
                assert_eq!(t, Some(tls(Specified, "", "", "s")));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            user_tls("grant usage on *.* to u require none"),
            Some(tls(None, "", "", ""))
        );
    }

    #[test]
    fn require_errors_as_mariadb() {
        for (sql, code) in [
            ("create user a require cipher 'a' and cipher 'b'", 1225),
            ("create user a require issuer 'a' issuer 'b'", 1225),
            ("alter user a require subject 'a' and subject 'b'", 1225),
            (
                "grant usage on *.* to a require cipher '' and cipher ''",
                1225,
            ),
            ("create user a require", 1064),
            ("create user a require ssl and x509", 1064),
            ("create user a require ssl x509", 1064),
            ("create user a require cipher 'a' and", 1064),
            ("create user a require and cipher 'a'", 1064),
            ("create user a require subject 'a' and and issuer 'b'", 1064),
            ("create user a require cipher 'a' ssl", 1064),
            ("create user a require cipher 'a' 'b'", 1064),
            ("create user a require cipher x'41'", 1064),
            ("create user a require cipher _utf8'x'", 1064),
            ("create user a account lock require ssl", 1064),
            ("create user a password expire require ssl", 1064),
            ("alter user a require ssl require x509", 1064),
            (
                "grant select on d.* to u with grant option require x509",
                1064,
            ),
            ("revoke select on d.* from u require ssl", 1064),
            (
                "create user a require ssl with max_queries_per_hour -1",
                1064,
            ),
        ] {
            assert_eq!(parse(sql).map(|_| ()).unwrap_err().code, code, "{sql}");
        }
        assert_eq!(
            parse("create user a require cipher 'a' and cipher 'b'")
                .unwrap_err()
                .message,
            "Option 'CIPHER' used twice in statement"
        );
    }
}
