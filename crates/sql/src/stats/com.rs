//! Which `Com_*` counter a statement counts in, read from its first words as
//! MariaDB's parser sets `sql_command` (EXPLAIN SELECT counts as a SELECT,
//! DESCRIBE t as SHOW COLUMNS, ALTER VIEW as CREATE VIEW, ...).
//!
//! Only the leading words are looked at, so the cost does not grow with the
//! statement; an INSERT or REPLACE is told from INSERT ... SELECT by the first
//! of VALUES / SET / SELECT / WITH / TABLE after the table name.

use super::Stat::{self, *};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tok<'a> {
    Word(&'a str),
    Punct(u8),
    /// A quoted string or identifier.
    Quoted,
}

/// The statement's tokens, with whitespace and comments skipped.
#[derive(Clone)]
struct Toks<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl<'a> Toks<'a> {
    fn new(text: &'a str) -> Self {
        Toks {
            s: text.as_bytes(),
            text,
            i: 0,
        }
    }

    fn skip_space(&mut self) {
        let s = self.s;
        loop {
            while self.i < s.len() && s[self.i].is_ascii_whitespace() {
                self.i += 1;
            }
            let rest = s.get(self.i..).unwrap_or_default();
            if rest.starts_with(b"/*") {
                self.i = find(s, self.i + 2, b"*/").map_or(s.len(), |p| p + 2);
            } else if rest.starts_with(b"#")
                || (rest.starts_with(b"--") && rest.get(2).is_none_or(|c| c.is_ascii_whitespace()))
            {
                self.i = find(s, self.i, b"\n").map_or(s.len(), |p| p + 1);
            } else {
                return;
            }
        }
    }
}

fn find(s: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    s.get(from..)?
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|p| p + from)
}

impl<'a> Iterator for Toks<'a> {
    type Item = Tok<'a>;

    fn next(&mut self) -> Option<Tok<'a>> {
        self.skip_space();
        let s = self.s;
        let start = self.i;
        let c = *s.get(start)?;
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80 {
            while self.i < s.len() && {
                let c = s[self.i];
                c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
            } {
                self.i += 1;
            }
            return Some(Tok::Word(&self.text[start..self.i]));
        }
        self.i += 1;
        if matches!(c, b'\'' | b'"' | b'`') {
            while self.i < s.len() {
                let d = s[self.i];
                self.i += 1;
                if d == b'\\' && c != b'`' {
                    self.i += 1;
                } else if d == c {
                    if s.get(self.i) == Some(&c) {
                        self.i += 1;
                    } else {
                        break;
                    }
                }
            }
            // A backslash ending the text steps past it.
            self.i = self.i.min(s.len());
            return Some(Tok::Quoted);
        }
        Some(Tok::Punct(c))
    }
}

fn is(t: Option<Tok>, w: &str) -> bool {
    matches!(t, Some(Tok::Word(x)) if x.eq_ignore_ascii_case(w))
}

/// The next word, lowercased into `buf` (words longer than it are cut).
fn word<'b>(t: Option<Tok>, buf: &'b mut [u8; 24]) -> &'b str {
    let Some(Tok::Word(w)) = t else {
        return "";
    };
    let n = w.len().min(buf.len());
    buf[..n].copy_from_slice(&w.as_bytes()[..n]);
    buf[..n].make_ascii_lowercase();
    std::str::from_utf8(&buf[..n]).unwrap_or("")
}

/// The counter of a statement's text; `None` when its first word is no
/// statement MariaDB knows (it fails to parse and counts nowhere).
pub fn classify(text: &str) -> Option<Stat> {
    // The common case without the tokenizer: a statement that starts with
    // SELECT and a space right away.
    let b = text.as_bytes();
    if b.len() > 6 && b[6] == b' ' {
        // `| 0x20` lowercases a letter and turns no other byte into one.
        let w: [u8; 6] = std::array::from_fn(|i| b[i] | 0x20);
        if &w == b"select" {
            return Some(ComSelect);
        }
    }
    let mut t = Toks::new(text);
    let mut buf = [0u8; 24];
    let first = t.next();
    if first.is_none() {
        return Some(ComEmptyQuery);
    }
    if first == Some(Tok::Punct(b'(')) {
        return Some(ComSelect);
    }
    Some(match word(first, &mut buf) {
        "select" | "values" | "table" | "with" => ComSelect,
        "insert" => insert_kind(t, ComInsert, ComInsertSelect),
        "replace" => insert_kind(t, ComReplace, ComReplaceSelect),
        "update" => update_kind(t),
        "delete" => delete_kind(t),
        // SET STATEMENT ... FOR counts as the statement after FOR.
        "set" if is(t.clone().next(), "statement") => return None,
        "set" => ComSetOption,
        "show" => return show(t),
        "begin" => ComBegin,
        "start" => start(t),
        "stop" => match word(t.next(), &mut buf) {
            "all" => ComStopAllSlaves,
            _ => ComStopSlave,
        },
        "commit" => ComCommit,
        "rollback" => rollback(t),
        "savepoint" => ComSavepoint,
        "release" => ComReleaseSavepoint,
        "create" => return create(t),
        "alter" => return alter(t),
        "drop" => return drop(t),
        "rename" => match word(t.next(), &mut buf) {
            "user" => ComRenameUser,
            _ => ComRenameTable,
        },
        "truncate" => ComTruncate,
        "use" => ComChangeDb,
        "grant" => grant_kind(t, ComGrant, ComGrantRole),
        "revoke" => revoke(t),
        "lock" => match word(t.next(), &mut buf) {
            "tables" | "table" => ComLockTables,
            _ => return None,
        },
        "unlock" => ComUnlockTables,
        "flush" => ComFlush,
        "kill" => ComKill,
        "analyze" => match word(t.next(), &mut buf) {
            "table" | "tables" | "no_write_to_binlog" | "local" => ComAnalyze,
            _ => ComSelect,
        },
        "explain" | "describe" | "desc" => return explain(t),
        "check" => ComCheck,
        "checksum" => ComChecksum,
        "optimize" => ComOptimize,
        "repair" => ComRepair,
        "load" => match word(t.next(), &mut buf) {
            "index" => ComPreloadKeys,
            _ => ComLoad,
        },
        "do" => ComDo,
        "prepare" => ComPrepareSql,
        "execute" => match word(t.next(), &mut buf) {
            "immediate" => ComExecuteImmediate,
            _ => ComExecuteSql,
        },
        "deallocate" => ComDeallocSql,
        "call" => ComCallProcedure,
        "help" => ComHelp,
        "purge" => purge(t),
        "reset" => ComReset,
        "change" => ComChangeMaster,
        "shutdown" => ComShutdown,
        "install" => ComInstallPlugin,
        "uninstall" => ComUninstallPlugin,
        "xa" => return xa(t),
        "handler" => return handler(t),
        "signal" => ComSignal,
        "resignal" => ComResignal,
        "get" => ComGetDiagnostics,
        "binlog" => ComBinlog,
        "backup" => match word(t.next(), &mut buf) {
            "lock" | "unlock" => ComBackupLock,
            _ => ComBackup,
        },
        "cache" => ComAssignToKeycache,
        _ => return None,
    })
}

/// INSERT / REPLACE: plain, or fed by a query.
fn insert_kind(t: Toks, plain: Stat, select: Stat) -> Stat {
    for tok in t.take(200) {
        if let Tok::Word(w) = tok {
            for (k, s) in [
                ("values", plain),
                ("value", plain),
                ("set", plain),
                ("select", select),
                ("with", select),
                ("table", select),
            ] {
                if w.eq_ignore_ascii_case(k) {
                    return s;
                }
            }
        }
    }
    plain
}

/// UPDATE of one table, or of a join or table list.
fn update_kind(t: Toks) -> Stat {
    for tok in t.take(200) {
        match tok {
            Tok::Punct(b',') => return ComUpdateMulti,
            Tok::Word(w) if w.eq_ignore_ascii_case("join") => return ComUpdateMulti,
            Tok::Word(w) if w.eq_ignore_ascii_case("set") => return ComUpdate,
            _ => {}
        }
    }
    ComUpdate
}

/// DELETE FROM one table, or the multi-table forms (`DELETE t1 FROM ...`,
/// `DELETE FROM t1 USING ...`, joins, table lists).
fn delete_kind(mut t: Toks) -> Stat {
    loop {
        match t.next() {
            Some(Tok::Word(w))
                if ["low_priority", "quick", "ignore"]
                    .iter()
                    .any(|m| w.eq_ignore_ascii_case(m)) => {}
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("from") => break,
            _ => return ComDeleteMulti,
        }
    }
    for tok in t.take(200) {
        match tok {
            Tok::Punct(b',') => return ComDeleteMulti,
            Tok::Word(w) if w.eq_ignore_ascii_case("using") || w.eq_ignore_ascii_case("join") => {
                return ComDeleteMulti
            }
            Tok::Word(w)
                if w.eq_ignore_ascii_case("where")
                    || w.eq_ignore_ascii_case("order")
                    || w.eq_ignore_ascii_case("limit")
                    || w.eq_ignore_ascii_case("returning") =>
            {
                return ComDelete
            }
            _ => {}
        }
    }
    ComDelete
}

fn start(mut t: Toks) -> Stat {
    let mut buf = [0u8; 24];
    match word(t.next(), &mut buf) {
        "transaction" => ComBegin,
        "all" => ComStartAllSlaves,
        _ => ComStartSlave,
    }
}

fn rollback(t: Toks) -> Stat {
    for tok in t.take(4) {
        if is(Some(tok), "to") {
            return ComRollbackToSavepoint;
        }
    }
    ComRollback
}

/// GRANT / REVOKE of privileges (with ON) or of roles (without).
fn grant_kind(t: Toks, privileges: Stat, roles: Stat) -> Stat {
    for tok in t.take(400) {
        if is(Some(tok), "on") {
            return privileges;
        }
    }
    roles
}

fn revoke(t: Toks) -> Stat {
    let mut probe = t.clone();
    if is(probe.next(), "all") {
        let next = probe.next();
        if next == Some(Tok::Punct(b','))
            || (is(next, "privileges") && probe.next() == Some(Tok::Punct(b',')))
        {
            return ComRevokeAll;
        }
    }
    grant_kind(t, ComRevoke, ComRevokeRole)
}

fn purge(t: Toks) -> Stat {
    for tok in t.take(4) {
        if is(Some(tok), "before") {
            return ComPurgeBeforeDate;
        }
    }
    ComPurge
}

fn explain(mut t: Toks) -> Option<Stat> {
    let mut probe = t.clone();
    let mut buf = [0u8; 24];
    Some(match word(probe.next(), &mut buf) {
        "" => return classify_rest(t),
        "select" | "insert" | "update" | "delete" | "replace" | "with" | "values" | "table" => {
            return classify_rest(t)
        }
        "extended" | "partitions" => {
            t.next();
            return classify_rest(t);
        }
        "format" => {
            t.next();
            t.next();
            t.next();
            return classify_rest(t);
        }
        "for" => ComShowExplain,
        _ => ComShowFields,
    })
}

/// Classifies the statement that starts at `t`'s position (after EXPLAIN).
fn classify_rest(t: Toks) -> Option<Stat> {
    match classify(&t.text[t.i..]) {
        Some(ComEmptyQuery) | None => None,
        s => s,
    }
}

fn xa(mut t: Toks) -> Option<Stat> {
    let mut buf = [0u8; 24];
    Some(match word(t.next(), &mut buf) {
        "start" | "begin" => ComXaStart,
        "end" => ComXaEnd,
        "prepare" => ComXaPrepare,
        "commit" => ComXaCommit,
        "rollback" => ComXaRollback,
        "recover" => ComXaRecover,
        _ => return None,
    })
}

fn handler(mut t: Toks) -> Option<Stat> {
    t.next();
    let mut buf = [0u8; 24];
    Some(match word(t.next(), &mut buf) {
        "open" => ComHaOpen,
        "read" => ComHaRead,
        "close" => ComHaClose,
        _ => return None,
    })
}

/// The object word of CREATE / ALTER, past their modifiers (OR REPLACE,
/// DEFINER = ..., ALGORITHM = ..., SQL SECURITY ..., ONLINE, IGNORE).
fn object<'b>(t: &mut Toks, buf: &'b mut [u8; 24]) -> &'b str {
    const OBJECTS: &[&str] = &[
        "table",
        "temporary",
        "index",
        "unique",
        "fulltext",
        "spatial",
        "database",
        "schema",
        "view",
        "user",
        "role",
        "sequence",
        "procedure",
        "function",
        "trigger",
        "event",
        "server",
        "package",
    ];
    for tok in t.by_ref().take(40) {
        if let Tok::Word(w) = tok {
            if OBJECTS.iter().any(|o| w.eq_ignore_ascii_case(o)) {
                return word(Some(tok), buf);
            }
        }
    }
    ""
}

fn create(mut t: Toks) -> Option<Stat> {
    let mut buf = [0u8; 24];
    Some(match object(&mut t, &mut buf) {
        "table" => ComCreateTable,
        "temporary" => ComCreateTemporaryTable,
        "index" | "unique" | "fulltext" | "spatial" => ComCreateIndex,
        "database" | "schema" => ComCreateDb,
        "view" => ComCreateView,
        "user" => ComCreateUser,
        "role" => ComCreateRole,
        "sequence" => ComCreateSequence,
        "procedure" => ComCreateProcedure,
        "function" => ComCreateFunction,
        "trigger" => ComCreateTrigger,
        "event" => ComCreateEvent,
        "server" => ComCreateServer,
        "package" => match word(t.next(), &mut [0u8; 24]) {
            "body" => ComCreatePackageBody,
            _ => ComCreatePackage,
        },
        _ => return None,
    })
}

fn alter(mut t: Toks) -> Option<Stat> {
    let mut buf = [0u8; 24];
    Some(match object(&mut t, &mut buf) {
        "table" => ComAlterTable,
        "database" | "schema" => {
            let mut rest = t.clone();
            if rest.any(|w| is(Some(w), "upgrade")) {
                ComAlterDbUpgrade
            } else {
                ComAlterDb
            }
        }
        "view" => ComCreateView,
        "user" => ComAlterUser,
        "sequence" => ComAlterSequence,
        "procedure" => ComAlterProcedure,
        "function" => ComAlterFunction,
        "event" => ComAlterEvent,
        "server" => ComAlterServer,
        _ => return None,
    })
}

fn drop(mut t: Toks) -> Option<Stat> {
    let mut buf = [0u8; 24];
    Some(match word(t.next(), &mut buf) {
        "table" | "tables" => ComDropTable,
        "temporary" => ComDropTemporaryTable,
        "index" => ComDropIndex,
        "database" | "schema" => ComDropDb,
        "view" => ComDropView,
        "user" => ComDropUser,
        "role" => ComDropRole,
        "sequence" => ComDropSequence,
        "procedure" => ComDropProcedure,
        "function" => ComDropFunction,
        "trigger" => ComDropTrigger,
        "event" => ComDropEvent,
        "server" => ComDropServer,
        "prepare" => ComDeallocSql,
        "package" => match word(t.next(), &mut [0u8; 24]) {
            "body" => ComDropPackageBody,
            _ => ComDropPackage,
        },
        _ => return None,
    })
}

fn show(mut t: Toks) -> Option<Stat> {
    let mut buf = [0u8; 24];
    let mut w = word(t.next(), &mut buf).to_string();
    // Scope and detail words before the object.
    while matches!(
        w.as_str(),
        "global" | "session" | "local" | "full" | "all" | "extended"
    ) {
        w = word(t.next(), &mut buf).to_string();
    }
    let mut b2 = [0u8; 24];
    Some(match w.as_str() {
        "status" => ComShowStatus,
        "variables" => ComShowVariables,
        "databases" | "schemas" => ComShowDatabases,
        "tables" => ComShowTables,
        "columns" | "fields" => ComShowFields,
        "index" | "indexes" | "keys" => ComShowKeys,
        "create" => match word(t.next(), &mut b2) {
            "table" | "view" | "sequence" => ComShowCreateTable,
            "database" | "schema" => ComShowCreateDb,
            "user" => ComShowCreateUser,
            "procedure" => ComShowCreateProc,
            "function" => ComShowCreateFunc,
            "trigger" => ComShowCreateTrigger,
            "event" => ComShowCreateEvent,
            "package" => match word(t.next(), &mut [0u8; 24]) {
                "body" => ComShowCreatePackageBody,
                _ => ComShowCreatePackage,
            },
            _ => return None,
        },
        "processlist" => ComShowProcesslist,
        "grants" => ComShowGrants,
        "warnings" => ComShowWarnings,
        "errors" => ComShowErrors,
        "count" => {
            let mut rest = t.clone();
            if rest.any(|x| is(Some(x), "errors")) {
                ComShowErrors
            } else {
                ComShowWarnings
            }
        }
        "engine" => {
            t.next();
            match word(t.next(), &mut b2) {
                "mutex" => ComShowEngineMutex,
                "logs" => ComShowEngineLogs,
                _ => ComShowEngineStatus,
            }
        }
        "engines" | "storage" => ComShowStorageEngines,
        "charset" | "character" => ComShowCharsets,
        "collation" => ComShowCollations,
        "table" => ComShowTableStatus,
        "open" => ComShowOpenTables,
        "plugins" => ComShowPlugins,
        "privileges" => ComShowPrivileges,
        "procedure" => ComShowProcedureStatus,
        "function" => ComShowFunctionStatus,
        "package" => match word(t.next(), &mut b2) {
            "body" => ComShowPackageBodyStatus,
            _ => ComShowPackageStatus,
        },
        "triggers" => ComShowTriggers,
        "events" => ComShowEvents,
        "master" | "binlog" => match word(t.next(), &mut b2) {
            "logs" => ComShowBinlogs,
            "events" => ComShowBinlogEvents,
            _ => ComShowBinlogStatus,
        },
        "binary" => ComShowBinlogs,
        "relaylog" => ComShowRelaylogEvents,
        "slave" | "replica" => match word(t.next(), &mut b2) {
            "hosts" => ComShowSlaveHosts,
            _ => ComShowSlaveStatus,
        },
        "slaves" | "replicas" => ComShowSlaveStatus,
        "profile" => ComShowProfile,
        "profiles" => ComShowProfiles,
        "explain" => ComShowExplain,
        "analyze" => ComShowAnalyze,
        "authors" => ComShowAuthors,
        "contributors" => ComShowContributors,
        "" => return None,
        _ => ComShowGeneric,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_ending_in_an_escape_is_classified_without_a_panic() {
        for t in [
            "select 'a\\",
            "SE ECT 'x\\",
            "select \"\\",
            "insert into t values ('\\",
        ] {
            let _ = classify(t);
        }
    }

    #[test]
    fn statements_count_where_mariadb_counts_them() {
        let cases: &[(&str, Stat)] = &[
            ("select 1", ComSelect),
            ("  /* c */ SELECT 1", ComSelect),
            ("(select 1) union (select 2)", ComSelect),
            ("with a as (select 1) select * from a", ComSelect),
            ("explain select 1", ComSelect),
            ("explain format=json select 1", ComSelect),
            ("describe t", ComShowFields),
            ("insert into t values (1)", ComInsert),
            ("insert into t (a, `values`) select 1, 2", ComInsertSelect),
            ("insert t set a = 1", ComInsert),
            ("replace into t select * from u", ComReplaceSelect),
            ("update t set a = 1", ComUpdate),
            ("update t join u on t.a = u.a set t.b = 1", ComUpdateMulti),
            ("update t, u set t.b = 1", ComUpdateMulti),
            ("delete from t where a = 1", ComDelete),
            ("delete t from t join u", ComDeleteMulti),
            ("delete from t using t, u", ComDeleteMulti),
            ("set @a = 1", ComSetOption),
            ("SET NAMES utf8mb4", ComSetOption),
            ("show global status like 'x'", ComShowStatus),
            ("show full processlist", ComShowProcesslist),
            ("show create table t", ComShowCreateTable),
            ("show master status", ComShowBinlogStatus),
            ("show binary logs", ComShowBinlogs),
            ("show engine innodb status", ComShowEngineStatus),
            ("show count(*) warnings", ComShowWarnings),
            ("start transaction", ComBegin),
            ("begin", ComBegin),
            ("rollback to savepoint a", ComRollbackToSavepoint),
            ("rollback", ComRollback),
            ("create table t (a int)", ComCreateTable),
            ("create temporary table t (a int)", ComCreateTemporaryTable),
            ("create or replace view v as select 1", ComCreateView),
            (
                "create algorithm=merge definer=`root`@`localhost` sql security definer view v as select 1",
                ComCreateView,
            ),
            ("create unique index i on t (a)", ComCreateIndex),
            ("alter table t add column b int", ComAlterTable),
            ("alter online table t add column b int", ComAlterTable),
            ("alter view v as select 1", ComCreateView),
            ("drop table if exists t", ComDropTable),
            ("drop temporary table t", ComDropTemporaryTable),
            ("grant select on *.* to u", ComGrant),
            ("grant r to u", ComGrantRole),
            ("revoke all privileges, grant option from u", ComRevokeAll),
            ("revoke select on *.* from u", ComRevoke),
            ("revoke r from u", ComRevokeRole),
            ("lock tables t read", ComLockTables),
            ("analyze table t", ComAnalyze),
            ("analyze select 1", ComSelect),
            ("purge binary logs before now()", ComPurgeBeforeDate),
            ("purge binary logs to 'x'", ComPurge),
            ("xa start 'x'", ComXaStart),
            ("", ComEmptyQuery),
            ("-- only a comment\n", ComEmptyQuery),
        ];
        for (text, want) in cases {
            assert_eq!(classify(text), Some(*want), "{text}");
        }
        assert_eq!(classify("selec 1"), None);
        assert_eq!(
            classify("set statement sort_buffer_size=1 for select 1"),
            None
        );
    }
}
