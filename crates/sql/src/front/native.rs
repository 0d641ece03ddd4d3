//! Statements parsed here rather than by sqlparser: every SHOW, prepared-statement
//! commands, transaction control and `USE`. Their grammar is a fixed keyword
//! sequence, so a cursor over the lexer's tokens is enough.

use super::lexer::{unquote, TokKind, Token};
use super::parse::near_offset;
use basalt_common::MySqlError;
use basalt_storage::IsolationLevel;

pub mod account;
pub mod alter;
pub mod alter_partition;
pub mod binlog;
mod database;
pub use database::DbOptions;
pub mod diagnostics;
pub mod event;
mod exec_stmt;
mod explain;
mod into;
mod load;
mod maint;
pub mod partition_clause;
pub mod replica;
pub mod role;
pub mod routine;
pub mod sequence;
mod set;
mod show;
pub mod trigger;
mod unsupported;
pub mod view;
pub use explain::{ExplainFormat, ExplainOpts};
pub(super) use into::select_into;
pub use into::{IntoTarget, IntoVar, SelectInto};
pub use load::{LoadData, LoadTarget, OnDuplicate};
pub use maint::{MaintOp, Maintenance};
use set::set_native;
use show::show;
pub use show::{Show, ShowFilter};
pub use unsupported::dml_modifiers;

#[derive(Debug, Clone, PartialEq)]
pub enum PrepareSource {
    Text(Vec<u8>),
    UserVar(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxScope {
    /// `SET TRANSACTION`: only the next transaction.
    Next,
    Session,
    Global,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Native {
    Show(Show),
    GetDiagnostics(diagnostics::GetDiagnostics),
    /// Stored procedures and functions, CALL, anonymous compound statements.
    Routine(routine::RoutineStmt),
    /// CREATE / ALTER / DROP EVENT.
    Event(event::EventStmt),
    /// RESET MASTER, PURGE BINARY LOGS.
    Binlog(binlog::BinlogStmt),
    /// CHANGE MASTER, START / STOP / RESET SLAVE.
    Replica(replica::ReplicaStmt),
    Prepare {
        name: String,
        source: PrepareSource,
    },
    Execute {
        name: String,
        using: Vec<UsingArg>,
    },
    Deallocate {
        name: String,
    },
    /// `EXECUTE IMMEDIATE expr [USING ...]`: the expression's text, evaluated
    /// to the statement to prepare, run and drop.
    ExecuteImmediate {
        source: String,
        using: Vec<UsingArg>,
    },
    /// `KILL [HARD | SOFT] [CONNECTION | QUERY] expr`: the id expression's text.
    Kill {
        query_only: bool,
        id: String,
    },
    Begin {
        read_only: Option<bool>,
        consistent_snapshot: bool,
    },
    /// `COMMIT [WORK] [AND [NO] CHAIN] [[NO] RELEASE]`: `None` where the statement
    /// does not say (`completion_type` decides).
    Commit {
        chain: Option<bool>,
        release: Option<bool>,
    },
    Rollback {
        chain: Option<bool>,
        release: Option<bool>,
    },
    SetTransaction {
        scope: TxScope,
        isolation: Option<IsolationLevel>,
        read_only: Option<bool>,
    },
    /// `SET CHARACTER SET x` / `SET CHARSET x`; `None` for DEFAULT.
    SetCharset(Option<String>),
    /// `SET NAMES x [COLLATE y] [, a = v ...]`; charset `None` for DEFAULT;
    /// `then` the assignments that follow in the same SET.
    SetNames {
        charset: Option<String>,
        collation: Option<String>,
        then: Vec<SetItem>,
    },
    /// `SET a = x, @b = y, GLOBAL c = z ...`.
    Set(Vec<SetItem>),
    /// `SET STATEMENT a = x [, b = y ...] FOR statement`: session variables set
    /// for one statement (`body`, the text after FOR; empty when nothing follows).
    SetStatement {
        items: Vec<SetItem>,
        body: String,
    },
    Use(String),
    /// `SHUTDOWN [WAIT FOR ALL {REPLICAS|SLAVES}]`.
    Shutdown,
    /// EXPLAIN / ANALYZE of the statement `body`.
    Explain {
        opts: ExplainOpts,
        body: String,
    },
    /// `ALTER TABLE t {DISABLE|ENABLE} KEYS` (as dumps write around their rows).
    AlterKeys {
        db: Option<String>,
        table: String,
        disable: bool,
    },
    /// CHECK / CHECKSUM / OPTIMIZE / REPAIR / ANALYZE TABLE.
    Maintenance(Maintenance),
    /// `FLUSH {TABLE|INDEX|USER|CLIENT}_STATISTICS | SSL [, STATUS ...]`: the
    /// statistics named (TABLE, INDEX, USER, CLIENT in that order) start again;
    /// SSL loads the TLS certificate, key and CA files again.
    FlushStatistics {
        status: bool,
        statistics: [bool; 4],
        ssl: bool,
    },
    /// `CREATE [OR REPLACE] {DATABASE|SCHEMA} [IF NOT EXISTS] name [options]`.
    CreateDatabase {
        or_replace: bool,
        if_not_exists: bool,
        name: String,
        opts: DbOptions,
    },
    /// `ALTER {DATABASE|SCHEMA} [name] [DEFAULT] CHARACTER SET x / COLLATE y /
    /// COMMENT 'z'`.
    AlterDatabase {
        name: Option<String>,
        opts: DbOptions,
    },
    /// Any other `ALTER TABLE`.
    AlterTable(alter::AlterTable),
    /// CREATE / ALTER / DROP VIEW.
    View(view::ViewStmt),
    /// `LOAD DATA [LOCAL] INFILE`.
    LoadData(Box<LoadData>),
    /// A query with an INTO clause.
    SelectInto(Box<SelectInto>),
    /// `DO expr [, expr ...]`: the expressions' text, evaluated and discarded.
    Do(String),
    /// CREATE / ALTER / DROP SEQUENCE, SHOW CREATE SEQUENCE.
    Sequence(sequence::SeqStmt),
    /// A statement refused with 1235 naming this feature.
    Unsupported(&'static str),
    /// CREATE / ALTER / DROP / RENAME USER, SET PASSWORD, GRANT, REVOKE.
    Account(account::AccountStmt),
    /// CREATE / DROP ROLE, GRANT / REVOKE role, SET [DEFAULT] ROLE.
    Role(role::RoleStmt),
}

/// One value of `EXECUTE ... USING`.
#[derive(Debug, Clone, PartialEq)]
pub enum UsingArg {
    /// `@name` (lower-cased).
    Var(String),
    /// A number or NULL.
    Value(basalt_common::Value),
    /// A string literal as written (quotes included), unquoted by the session
    /// under its sql_mode.
    Str(String),
    /// Any other expression's text, evaluated when the statement runs.
    Expr(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetTarget {
    User(String),
    /// `global`: GLOBAL / `@@global.`; `scoped`: any explicit scope was written.
    Sys {
        name: String,
        global: bool,
        scoped: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetItem {
    pub target: SetTarget,
    /// The value's text, parsed as an expression when the statement runs.
    pub value: String,
    /// The value is a single bare word (`ON`, `utf8mb4`, `DEFAULT`).
    pub bare_word: bool,
}

struct P<'a> {
    src: &'a str,
    toks: &'a [Token],
    pos: usize,
    /// Literal markers are literals (transcoded text, see [`super::transcode`]).
    markers: bool,
}

type R<T> = Result<T, MySqlError>;

impl<'a> P<'a> {
    fn peek(&self) -> Option<&'a Token> {
        self.toks.get(self.pos)
    }

    fn kw(&mut self, k: &str) -> bool {
        if self.peek().is_some_and(|t| t.is_kw(self.src, k)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn punct(&mut self, p: &str) -> bool {
        if self
            .peek()
            .is_some_and(|t| t.kind == TokKind::Punct && t.text(self.src) == p)
        {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn err(&self) -> MySqlError {
        near_offset(self.src, self.peek().map_or(self.src.len(), |t| t.start))
    }

    fn expect_kw(&mut self, k: &str) -> R<()> {
        if self.kw(k) {
            Ok(())
        } else {
            Err(self.err())
        }
    }

    fn ident(&mut self) -> R<String> {
        let t = self.peek().ok_or_else(|| self.err())?;
        let s = match t.kind {
            TokKind::Word => t.text(self.src).to_string(),
            TokKind::QuotedIdent => match quoted_ident(t.text(self.src)) {
                Some(name) => name,
                None => return Err(self.err()),
            },
            _ => return Err(self.err()),
        };
        self.pos += 1;
        Ok(s)
    }

    /// `name` or `db.name`, returned as (db, name).
    fn qualified(&mut self) -> R<(Option<String>, String)> {
        let first = self.ident()?;
        if self.punct(".") {
            let second = self.ident()?;
            Ok((Some(first), second))
        } else {
            Ok((None, first))
        }
    }

    fn string(&mut self) -> R<Vec<u8>> {
        let t = self.peek().ok_or_else(|| self.err())?;
        if t.kind != TokKind::Str {
            return Err(self.err());
        }
        self.pos += 1;
        Ok(unquote(t.text(self.src), true))
    }

    /// The bytes of a literal marker without introducer at the cursor.
    fn marker(&mut self) -> Option<Vec<u8>> {
        if !self.markers {
            return None;
        }
        match super::transcode::marker_at(self.src, self.toks, self.pos)? {
            (None, bytes) => {
                self.pos += 2;
                Some(bytes)
            }
            (Some(_), _) => None,
        }
    }

    /// An optional `IF NOT EXISTS`.
    fn if_not_exists(&mut self) -> R<bool> {
        if !self.kw("if") {
            return Ok(false);
        }
        self.expect_kw("not")?;
        self.expect_kw("exists")?;
        Ok(true)
    }

    fn uint(&mut self) -> R<u64> {
        let t = self.peek().ok_or_else(|| self.err())?;
        let v = t.text(self.src).parse().map_err(|_| self.err())?;
        self.pos += 1;
        Ok(v)
    }

    fn end(&self) -> R<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.err()),
        }
    }

    fn source_db(&mut self) -> R<Option<String>> {
        if self.kw("from") || self.kw("in") {
            Ok(Some(self.ident()?))
        } else {
            Ok(None)
        }
    }

    fn filter(&mut self) -> R<ShowFilter> {
        if self.kw("like") {
            let pat = self.string()?;
            self.end()?;
            return Ok(ShowFilter::Like(String::from_utf8_lossy(&pat).into_owned()));
        }
        if self.kw("where") {
            let start = self.peek().map_or(self.src.len(), |t| t.start);
            self.pos = self.toks.len();
            return Ok(ShowFilter::Where(self.src[start..].to_string()));
        }
        self.end()?;
        Ok(ShowFilter::None)
    }
}

/// Parses `text` if it is one of the native statements; `Ok(None)` otherwise.
#[inline]
pub fn parse_native(src: &str, toks: &[Token], markers: bool) -> R<Option<Native>> {
    let mut p = P {
        src,
        toks,
        pos: 1,
        markers,
    };
    let first = &toks[0];
    let is = |k: &str| first.is_kw(src, k);
    // No native statement starts with SELECT, the most frequent first word.
    if is("select") {
        return Ok(None);
    }
    if super::compound::starts_compound(src, toks) && !is("create") {
        return Ok(Some(Native::Routine(routine::RoutineStmt::Compound(
            src.to_string(),
        ))));
    }
    let n = if is("show") {
        match sequence::sequence_statement(&mut p, "show")? {
            Some(n) => n,
            None => Native::Show(show(&mut p)?),
        }
    } else if is("prepare") {
        prepare(&mut p)?
    } else if is("execute") {
        exec_stmt::execute(&mut p)?
    } else if is("kill") {
        exec_stmt::kill(&mut p)?
    } else if is("deallocate")
        || (is("drop") && toks.get(1).is_some_and(|t| t.is_kw(src, "prepare")))
    {
        p.expect_kw("prepare")?;
        let name = p.ident()?;
        p.end()?;
        Native::Deallocate { name }
    } else if is("begin") {
        p.kw("work");
        p.end()?;
        Native::Begin {
            read_only: None,
            consistent_snapshot: false,
        }
    } else if is("start") || is("stop") {
        let first = first.text(src).to_ascii_lowercase();
        match replica::statement(&mut p, &first)? {
            Some(n) => n,
            None if first == "start" => start_transaction(&mut p)?,
            None => return Ok(None),
        }
    } else if is("change") {
        replica::change(&mut p)?
    } else if is("commit") || is("rollback") {
        let to_at = |k: usize| toks.get(k).is_some_and(|t| t.is_kw(src, "to"));
        if to_at(1) || (toks.get(1).is_some_and(|t| t.is_kw(src, "work")) && to_at(2)) {
            return Ok(None);
        }
        let (chain, release) = completion(&mut p)?;
        if is("commit") {
            Native::Commit { chain, release }
        } else {
            Native::Rollback { chain, release }
        }
    } else if is("set") && toks.get(1).is_some_and(|t| t.is_kw(src, "password")) {
        match account::statement(&mut p, "set")? {
            Some(n) => n,
            None => return Ok(None),
        }
    } else if is("set")
        && (toks.get(1).is_some_and(|t| t.is_kw(src, "role"))
            || (toks.get(1).is_some_and(|t| t.is_kw(src, "default"))
                && toks.get(2).is_some_and(|t| t.is_kw(src, "role"))))
    {
        p.pos = 1;
        role::set(&mut p)?
    } else if is("set") {
        match set_native(&mut p)? {
            Some(n) => n,
            None => return Ok(None),
        }
    } else if is("get")
        && toks.get(1).is_some_and(|t| {
            ["diagnostics", "current", "stacked"]
                .iter()
                .any(|k| t.is_kw(src, k))
        })
    {
        diagnostics::get(&mut p)?
    } else if is("use") {
        let db = p.ident()?;
        p.end()?;
        Native::Use(db)
    } else if let Some(n) = is("create")
        .then(|| database::create_database(&mut p))
        .transpose()?
        .flatten()
    {
        n
    } else if let Some(n) = match ["create", "alter", "drop", "call"]
        .into_iter()
        .find(|k| is(k))
    {
        Some(k) => match event::statement(&mut p, k)? {
            Some(n) => Some(n),
            None => routine::statement(&mut p, k)?,
        },
        None => None,
    } {
        n
    } else if let Some(n) = match ["create", "alter", "drop", "rename", "grant", "revoke"]
        .into_iter()
        .find(|k| is(k))
    {
        Some(k) => account::statement(&mut p, k)?,
        None => None,
    } {
        n
    } else if let Some(n) = match ["create", "alter", "drop"].into_iter().find(|k| is(k)) {
        Some(k) => match sequence::sequence_statement(&mut p, k)? {
            Some(n) => Some(n),
            None => view::view_statement(&mut p, k)?,
        },
        None => None,
    } {
        n
    } else if is("alter")
        && toks
            .get(1)
            .is_some_and(|t| t.is_kw(src, "database") || t.is_kw(src, "schema"))
    {
        database::alter_database(&mut p)?
    } else if is("alter") {
        match alter_keys(&mut p)? {
            Some(n) => n,
            None => {
                p.pos = 1;
                match alter::alter_table(&mut p)? {
                    Some(a) => Native::AlterTable(a),
                    None => return Ok(None),
                }
            }
        }
    } else if is("explain") || is("describe") || is("desc") {
        match explain::explain(&mut p)? {
            Some(n) => n,
            None => return Ok(None),
        }
    } else if is("do") {
        let rest = toks.get(1).ok_or_else(|| p.err())?;
        Native::Do(src[rest.start..].to_string())
    } else if is("shutdown") {
        if p.kw("wait") {
            p.expect_kw("for")?;
            p.expect_kw("all")?;
            if !p.kw("replicas") {
                p.expect_kw("slaves")?;
            }
        }
        p.end()?;
        Native::Shutdown
    } else if is("load") {
        load::load(&mut p)?
    } else if is("reset") || is("purge") {
        let first = first.text(src).to_ascii_lowercase();
        if let Some(n) = replica::statement(&mut p, &first)? {
            return Ok(Some(n));
        }
        match binlog::statement(&mut p, &first)? {
            Some(n) => n,
            None => return Ok(None),
        }
    } else if !maint::may_start(first.text(src)) {
        return Ok(None);
    } else if is("flush") {
        match maint::flush_statistics(&mut p)? {
            Some(n) => n,
            None => return Ok(None),
        }
    } else if let Some(k) = ["check", "checksum", "optimize", "repair", "analyze"]
        .into_iter()
        .find(|k| is(k))
    {
        match maint::maintenance(&mut p, k)? {
            Some(n) => n,
            None if k == "analyze" => {
                p.pos = 1;
                match explain::analyze(&mut p)? {
                    Some(n) => n,
                    None => return Ok(None),
                }
            }
            None => return Ok(None),
        }
    } else {
        return Ok(None);
    };
    Ok(Some(n))
}

/// `ALTER TABLE name {DISABLE|ENABLE} KEYS`; `None` for any other ALTER.
fn alter_keys(p: &mut P) -> R<Option<Native>> {
    if !p.kw("table") {
        return Ok(None);
    }
    let Ok((db, table)) = p.qualified() else {
        return Ok(None);
    };
    let disable = if p.kw("disable") {
        true
    } else if p.kw("enable") {
        false
    } else {
        return Ok(None);
    };
    p.expect_kw("keys")?;
    p.end()?;
    Ok(Some(Native::AlterKeys { db, table, disable }))
}

fn completion(p: &mut P) -> R<(Option<bool>, Option<bool>)> {
    p.kw("work");
    let mut chain = None;
    if p.kw("and") {
        let no = p.kw("no");
        p.expect_kw("chain")?;
        chain = Some(!no);
    }
    let mut release = None;
    if p.kw("no") {
        p.expect_kw("release")?;
        release = Some(false);
    } else if p.kw("release") {
        release = Some(true);
    }
    if chain == Some(true) && release == Some(true) {
        return Err(p.err());
    }
    p.end()?;
    Ok((chain, release))
}

fn start_transaction(p: &mut P) -> R<Native> {
    p.expect_kw("transaction")?;
    let mut read_only = None;
    let mut consistent_snapshot = false;
    loop {
        if p.kw("read") {
            if p.kw("only") {
                read_only = Some(true);
            } else {
                p.expect_kw("write")?;
                read_only = Some(false);
            }
        } else if p.kw("with") {
            p.expect_kw("consistent")?;
            p.expect_kw("snapshot")?;
            consistent_snapshot = true;
        } else {
            break;
        }
        if !p.punct(",") {
            break;
        }
    }
    p.end()?;
    Ok(Native::Begin {
        read_only,
        consistent_snapshot,
    })
}

fn prepare(p: &mut P) -> R<Native> {
    let name = p.ident()?;
    p.expect_kw("from")?;
    if let Some(bytes) = p.marker() {
        p.end()?;
        let source = PrepareSource::Text(bytes);
        return Ok(Native::Prepare { name, source });
    }
    let t = p.peek().ok_or_else(|| p.err())?;
    let source = match t.kind {
        TokKind::Str => PrepareSource::Text(p.string()?),
        TokKind::Var => {
            p.pos += 1;
            PrepareSource::UserVar(user_var_name(t.text(p.src)))
        }
        _ => return Err(p.err()),
    };
    p.end()?;
    Ok(Native::Prepare { name, source })
}

/// The name of a user variable token (`@x`, `@'x'`, `` @`x` ``), lowercased as MySQL
/// compares them case-insensitively.
/// The name in a `` `quoted identifier` `` token (doubled backquotes stand for
/// one); `None` when it has no closing backquote (the lexer ends an unterminated
/// one at the end of the text).
fn quoted_ident(text: &str) -> Option<String> {
    let mut chars = text.strip_prefix('`')?.chars().peekable();
    let mut name = String::new();
    while let Some(c) = chars.next() {
        if c != '`' {
            name.push(c);
        } else if chars.next_if_eq(&'`').is_some() {
            name.push('`');
        } else {
            return chars.peek().is_none().then_some(name);
        }
    }
    None
}

pub fn user_var_name(tok: &str) -> String {
    let body = &tok[1..];
    let body = match body.chars().next() {
        // Unterminated (the lexer ends it at the end of the text): what follows the
        // opening quote.
        Some(q @ ('\'' | '"' | '`')) => body
            .strip_prefix(q)
            .and_then(|s| s.strip_suffix(q))
            .unwrap_or(&body[1..]),
        _ => body,
    };
    body.to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    fn native(s: &str) -> Option<Native> {
        let l = lex(s);
        parse_native(s, &l.tokens, false).expect("parses")
    }

    /// Unterminated quoted names at the end of a statement once sliced the text
    /// mid-character or backwards and panicked the connection's thread.
    #[test]
    fn unterminated_quotes_are_errors_not_panics() {
        for s in [
            "USE `",
            "USE `abc",
            "SET `",
            "SET `\u{e9}",
            "ALTER TABLE `",
            "USE `a``",
        ] {
            let l = lex(s);
            assert!(parse_native(s, &l.tokens, false).is_err(), "{s}");
        }
        assert_eq!(native("USE ``"), Some(Native::Use(String::new())));
        assert_eq!(native("USE `a``b`"), Some(Native::Use("a`b".into())));
        assert_eq!(user_var_name("@'\u{e9}"), "\u{e9}");
        assert_eq!(user_var_name("@\"\u{e9}\""), "\u{e9}");
        assert_eq!(user_var_name("@'"), "");
        assert_eq!(user_var_name("@`A`"), "a");
        for s in ["SET @'\u{e9}", "SET @\"\u{e9}", "SET @`x\u{fffd}"] {
            let l = lex(s);
            let _ = parse_native(s, &l.tokens, false);
        }
    }

    #[test]
    fn alter_table_keys() {
        let l = |s: &str| super::super::lexer::lex(s);
        let s = "ALTER TABLE d.t DISABLE KEYS";
        assert_eq!(
            parse_native(s, &l(s).tokens, false).expect("parses"),
            Some(Native::AlterKeys {
                db: Some("d".into()),
                table: "t".into(),
                disable: true
            })
        );
        let s = "alter table `t` enable keys";
        assert!(matches!(
            parse_native(s, &l(s).tokens, false),
            Ok(Some(Native::AlterKeys { disable: false, .. }))
        ));
        let s = "ALTER TABLE t ADD COLUMN c INT";
        assert!(matches!(
            parse_native(s, &l(s).tokens, false),
            Ok(Some(Native::AlterTable(_)))
        ));
        let s = "ALTER SEQUENCE s RESTART";
        assert!(matches!(
            parse_native(s, &l(s).tokens, false),
            Ok(Some(Native::Sequence(_)))
        ));
        let s = "ALTER TABLE t DISABLE KEYS x";
        assert!(parse_native(s, &l(s).tokens, false).is_err());
    }

    #[test]
    fn shows() {
        assert_eq!(
            native("SHOW FULL TABLES FROM `db` LIKE 'a%'"),
            Some(Native::Show(Show::Tables {
                full: true,
                db: Some("db".into()),
                filter: ShowFilter::Like("a%".into())
            }))
        );
        assert_eq!(
            native("show columns from d.t where Field = 'a'"),
            Some(Native::Show(Show::Columns {
                full: false,
                table: "t".into(),
                db: Some("d".into()),
                filter: ShowFilter::Where("Field = 'a'".into())
            }))
        );
        assert_eq!(
            native("show global variables like 'max%'"),
            Some(Native::Show(Show::Variables {
                global: true,
                filter: ShowFilter::Like("max%".into())
            }))
        );
        assert_eq!(
            native("show warnings limit 1, 2"),
            Some(Native::Show(Show::Warnings {
                errors_only: false,
                count_only: false,
                limit: Some((1, 2))
            }))
        );
    }

    #[test]
    fn transactions() {
        assert_eq!(
            native("start transaction with consistent snapshot, read only"),
            Some(Native::Begin {
                read_only: Some(true),
                consistent_snapshot: true
            })
        );
        assert_eq!(native("rollback to savepoint a"), None);
        assert_eq!(
            native("commit work"),
            Some(Native::Commit {
                chain: None,
                release: None
            })
        );
        assert_eq!(
            native("rollback and no chain release"),
            Some(Native::Rollback {
                chain: Some(false),
                release: Some(true)
            })
        );
        assert_eq!(
            native("set global transaction isolation level read committed"),
            Some(Native::SetTransaction {
                scope: TxScope::Global,
                isolation: Some(IsolationLevel::ReadCommitted),
                read_only: None
            })
        );
        assert_eq!(
            native("set autocommit = 1, @@session.sql_mode = concat('a', 'b'), @x := 5, global max_connections=100"),
            Some(Native::Set(vec![
                SetItem { target: SetTarget::Sys { name: "autocommit".into(), global: false, scoped: false }, value: "1".into(), bare_word: false },
                SetItem { target: SetTarget::Sys { name: "sql_mode".into(), global: false, scoped: true }, value: "concat('a', 'b')".into(), bare_word: false },
                SetItem { target: SetTarget::User("x".into()), value: "5".into(), bare_word: false },
                SetItem { target: SetTarget::Sys { name: "max_connections".into(), global: true, scoped: true }, value: "100".into(), bare_word: false },
            ]))
        );
        assert_eq!(
            native("set names utf8mb4 collate 'utf8mb4_bin'"),
            Some(Native::SetNames {
                charset: Some("utf8mb4".into()),
                collation: Some("utf8mb4_bin".into()),
                then: Vec::new(),
            })
        );
        assert_eq!(
            native("set names utf8, @x = 1"),
            Some(Native::SetNames {
                charset: Some("utf8".into()),
                collation: None,
                then: vec![SetItem {
                    target: SetTarget::User("x".into()),
                    value: "1".into(),
                    bare_word: false
                }],
            })
        );
    }

    #[test]
    fn prepared() {
        assert_eq!(
            native("prepare s1 from 'select ?'"),
            Some(Native::Prepare {
                name: "s1".into(),
                source: PrepareSource::Text(b"select ?".to_vec())
            })
        );
        assert_eq!(
            native("execute s1 using @a, @B"),
            Some(Native::Execute {
                name: "s1".into(),
                using: vec![UsingArg::Var("a".into()), UsingArg::Var("b".into())]
            })
        );
        assert_eq!(
            native("execute s1 using 2, -3, 'x', NULL, @v, -1.5"),
            Some(Native::Execute {
                name: "s1".into(),
                using: vec![
                    UsingArg::Value(basalt_common::Value::Int(2)),
                    UsingArg::Value(basalt_common::Value::Int(-3)),
                    UsingArg::Str("'x'".into()),
                    UsingArg::Value(basalt_common::Value::Null),
                    UsingArg::Var("v".into()),
                    UsingArg::Value(basalt_common::Value::Decimal(
                        basalt_common::Decimal::parse("-1.5").expect("decimal")
                    )),
                ]
            })
        );
        assert_eq!(
            native("execute s1 using 1+1, @@x, - 'a', @v"),
            Some(Native::Execute {
                name: "s1".into(),
                using: vec![
                    UsingArg::Expr("1+1".into()),
                    UsingArg::Expr("@@x".into()),
                    UsingArg::Expr("- 'a'".into()),
                    UsingArg::Var("v".into()),
                ]
            })
        );
        for bad in [
            "execute s1 using",
            "execute s1 using 1,",
            "execute s1 using (1",
        ] {
            let l = lex(bad);
            assert!(parse_native(bad, &l.tokens, false).is_err(), "{bad}");
        }
        assert_eq!(
            native("drop prepare s1"),
            Some(Native::Deallocate { name: "s1".into() })
        );
    }

    #[test]
    fn errors_quote_offending_token() {
        let s = "show tablez";
        let l = lex(s);
        let e = parse_native(s, &l.tokens, false).expect_err("bad");
        assert!(
            e.message.ends_with("near 'tablez' at line 1"),
            "{}",
            e.message
        );
    }
}
