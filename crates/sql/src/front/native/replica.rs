//! Replica statements: `CHANGE MASTER [''] TO ...` (and MySQL 8's `CHANGE
//! REPLICATION SOURCE TO SOURCE_...`), `START|STOP {SLAVE|REPLICA} [IO_THREAD]
//! [, SQL_THREAD]`, `RESET {SLAVE|REPLICA} [ALL]`.
//!
//! MariaDB's grammar errors are kept: an unknown option, a quoted number or a
//! negative one is 1064 at that token. A named connection (multi-source) and the
//! options of features Basalt does not have are parsed and answered with 1235.

use super::super::lexer::TokKind;
use super::{Native, P, R};
use crate::replica::filter::Rule;

#[derive(Debug, Clone, PartialEq)]
pub enum ReplicaStmt {
    /// The options in statement order (a later one overrides an earlier one).
    Change(Vec<MasterOpt>),
    Start {
        threads: Threads,
        until: Option<Until>,
    },
    Stop {
        threads: Threads,
    },
    Reset {
        all: bool,
    },
    /// `CHANGE REPLICATION FILTER`: the lists named, in statement order.
    Filter(Vec<FilterRule>),
}

/// One `REPLICATE_x = (...)` of CHANGE REPLICATION FILTER.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterRule {
    pub rule: Rule,
    /// Database names, `db.table` names or `db%.t%` patterns.
    pub entries: Vec<String>,
    /// `REPLICATE_REWRITE_DB`'s (from, to) pairs.
    pub pairs: Option<Vec<(String, String)>>,
}

/// Which replica threads a START / STOP names (both when it names none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Threads {
    pub io: bool,
    pub sql: bool,
}

/// `START SLAVE UNTIL ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Until {
    /// `MASTER_LOG_FILE = 'f', MASTER_LOG_POS = n`: stop once executed past it.
    Master { file: String, pos: u64 },
    /// `MASTER_GTID_POS = 'list'`.
    Gtid(String),
    /// `RELAY_LOG_FILE = 'f', RELAY_LOG_POS = n` (there is no relay log: 1235).
    Relay,
}

/// `MASTER_USE_GTID`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UseGtid {
    No,
    SlavePos,
    CurrentPos,
}

impl UseGtid {
    pub fn name(self) -> &'static str {
        match self {
            UseGtid::No => "No",
            UseGtid::SlavePos => "Slave_Pos",
            UseGtid::CurrentPos => "Current_Pos",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum MasterOpt {
    Host(String),
    Port(u64),
    User(String),
    Password(String),
    UseGtid(UseGtid),
    LogFile(String),
    LogPos(u64),
    ConnectRetry(u64),
    /// Seconds, as written (`MASTER_HEARTBEAT_PERIOD = 0.5`).
    HeartbeatPeriod(f64),
    Delay(u64),
    /// `MASTER_SSL = 0|1`.
    Ssl(bool),
    IgnoreServerIds(Vec<u64>),
    /// An option of a feature Basalt does not have (1235 naming it).
    Unsupported(&'static str),
}

/// After `CHANGE`.
pub(super) fn change(p: &mut P) -> R<Native> {
    let mysql8 = if p.kw("replication") {
        if p.kw("filter") {
            return filter(p);
        }
        p.expect_kw("source")?;
        true
    } else {
        p.expect_kw("master")?;
        false
    };
    if !mysql8 && p.peek().is_some_and(|t| t.kind == TokKind::Str) && !p.string()?.is_empty() {
        return Ok(Native::Unsupported("multi-source replication"));
    }
    p.expect_kw("to")?;
    let mut opts = Vec::new();
    loop {
        opts.push(option(p, mysql8)?);
        if !p.punct(",") {
            break;
        }
    }
    p.end()?;
    if let Some(MasterOpt::Unsupported(what)) =
        opts.iter().find(|o| matches!(o, MasterOpt::Unsupported(_)))
    {
        return Ok(Native::Unsupported(what));
    }
    Ok(Native::Replica(ReplicaStmt::Change(opts)))
}

fn text(p: &mut P) -> R<String> {
    Ok(String::from_utf8_lossy(&p.string()?).into_owned())
}

fn option(p: &mut P, mysql8: bool) -> R<MasterOpt> {
    let word = p.ident()?.to_ascii_lowercase();
    let name = match (mysql8, word.strip_prefix("source_")) {
        (true, Some(rest)) => rest.to_string(),
        (false, _) => match word.strip_prefix("master_") {
            Some(rest) => rest.to_string(),
            None => word.clone(),
        },
        _ => word.clone(),
    };
    let prefixed = word != name;
    if !prefixed
        && !matches!(
            name.as_str(),
            "ignore_server_ids" | "do_domain_ids" | "ignore_domain_ids"
        )
    {
        p.pos -= 1;
        return Err(p.err());
    }
    if !p.punct("=") {
        return Err(p.err());
    }
    Ok(match name.as_str() {
        "host" => MasterOpt::Host(text(p)?),
        "port" => MasterOpt::Port(p.uint()?),
        "user" => MasterOpt::User(text(p)?),
        "password" => MasterOpt::Password(text(p)?),
        "log_file" => MasterOpt::LogFile(text(p)?),
        "log_pos" => MasterOpt::LogPos(p.uint()?),
        "connect_retry" => MasterOpt::ConnectRetry(p.uint()?),
        "delay" => MasterOpt::Delay(p.uint()?),
        "heartbeat_period" => MasterOpt::HeartbeatPeriod(seconds(p)?),
        "use_gtid" => MasterOpt::UseGtid(use_gtid(p)?),
        "ssl" => MasterOpt::Ssl(p.uint()? != 0),
        "ignore_server_ids" => MasterOpt::IgnoreServerIds(id_list(p)?),
        "do_domain_ids" | "ignore_domain_ids" => {
            id_list(p)?;
            MasterOpt::Unsupported("replication domain filters (DO_DOMAIN_IDS / IGNORE_DOMAIN_IDS)")
        }
        "ssl_ca" | "ssl_capath" | "ssl_cert" | "ssl_cipher" | "ssl_key" | "ssl_crl"
        | "ssl_crlpath" => {
            text(p)?;
            MasterOpt::Unsupported("MASTER_SSL (TLS connections to the primary)")
        }
        "ssl_verify_server_cert" => {
            p.uint()?;
            MasterOpt::Unsupported("MASTER_SSL (TLS connections to the primary)")
        }
        "relay_log_file" | "relay_log_pos" => {
            p.pos += 1;
            MasterOpt::Unsupported("RELAY_LOG_FILE / RELAY_LOG_POS (Basalt keeps no relay log)")
        }
        _ => {
            p.pos -= 2;
            return Err(p.err());
        }
    })
}

/// A non-negative number of seconds with an optional fraction.
fn seconds(p: &mut P) -> R<f64> {
    let t = p.peek().ok_or_else(|| p.err())?;
    if !matches!(t.kind, TokKind::Num(_)) {
        return Err(p.err());
    }
    let v = t.text(p.src).parse().map_err(|_| p.err())?;
    p.pos += 1;
    Ok(v)
}

fn use_gtid(p: &mut P) -> R<UseGtid> {
    Ok(if p.kw("no") {
        UseGtid::No
    } else if p.kw("slave_pos") {
        UseGtid::SlavePos
    } else if p.kw("current_pos") {
        UseGtid::CurrentPos
    } else {
        return Err(p.err());
    })
}

/// `(n, m, ...)`, possibly empty.
fn id_list(p: &mut P) -> R<Vec<u64>> {
    if !p.punct("(") {
        return Err(p.err());
    }
    let mut ids = Vec::new();
    if p.punct(")") {
        return Ok(ids);
    }
    loop {
        ids.push(p.uint()?);
        if p.punct(")") {
            return Ok(ids);
        }
        if !p.punct(",") {
            return Err(p.err());
        }
    }
}

/// After `START` / `STOP` / `RESET`, when the next word is SLAVE or REPLICA; `None`
/// otherwise (START TRANSACTION, RESET MASTER, ...).
pub(super) fn statement(p: &mut P, first: &str) -> R<Option<Native>> {
    if !(p.kw("slave") || p.kw("replica")) {
        return Ok(None);
    }
    if p.peek().is_some_and(|t| t.kind == TokKind::Str) && !p.string()?.is_empty() {
        return Ok(Some(Native::Unsupported("multi-source replication")));
    }
    let stmt = match first {
        "reset" => {
            let all = p.kw("all");
            ReplicaStmt::Reset { all }
        }
        "start" => {
            let threads = threads(p)?;
            let until = if p.kw("until") { Some(until(p)?) } else { None };
            ReplicaStmt::Start { threads, until }
        }
        _ => ReplicaStmt::Stop {
            threads: threads(p)?,
        },
    };
    p.end()?;
    Ok(Some(Native::Replica(stmt)))
}

fn threads(p: &mut P) -> R<Threads> {
    let mut t = Threads {
        io: false,
        sql: false,
    };
    loop {
        if p.kw("io_thread") {
            t.io = true;
        } else if p.kw("sql_thread") {
            t.sql = true;
        } else {
            break;
        }
        if !p.punct(",") {
            break;
        }
    }
    if !t.io && !t.sql {
        t = Threads {
            io: true,
            sql: true,
        };
    }
    Ok(t)
}

fn until(p: &mut P) -> R<Until> {
    let word = p.ident()?.to_ascii_lowercase();
    if !p.punct("=") {
        return Err(p.err());
    }
    match word.as_str() {
        "master_gtid_pos" => Ok(Until::Gtid(text(p)?)),
        "master_log_file" => {
            let file = text(p)?;
            if !p.punct(",") || !p.kw("master_log_pos") || !p.punct("=") {
                return Err(p.err());
            }
            Ok(Until::Master {
                file,
                pos: p.uint()?,
            })
        }
        "relay_log_file" => {
            text(p)?;
            if !p.punct(",") || !p.kw("relay_log_pos") || !p.punct("=") {
                return Err(p.err());
            }
            p.uint()?;
            Ok(Until::Relay)
        }
        _ => {
            p.pos -= 2;
            Err(p.err())
        }
    }
}

/// After `CHANGE REPLICATION FILTER` (MySQL 8's syntax).
fn filter(p: &mut P) -> R<Native> {
    let mut rules = Vec::new();
    loop {
        let word = p.ident()?.to_ascii_lowercase();
        let Some(rule) = Rule::from_variable(&word) else {
            p.pos -= 1;
            return Err(p.err());
        };
        if !p.punct("=") {
            return Err(p.err());
        }
        rules.push(filter_value(p, rule)?);
        if !p.punct(",") {
            break;
        }
    }
    if p.kw("for") {
        p.expect_kw("channel")?;
        if !p.string()?.is_empty() {
            return Ok(Native::Unsupported("multi-source replication"));
        }
    }
    p.end()?;
    let wild = |r: &&FilterRule| matches!(r.rule, Rule::WildDoTable | Rule::WildIgnoreTable);
    if rules
        .iter()
        .filter(wild)
        .flat_map(|r| &r.entries)
        .any(|e| !e.contains('.'))
    {
        return Err(bad_wild_pattern());
    }
    Ok(Native::Replica(ReplicaStmt::Filter(rules)))
}

/// 3045 `ER_INVALID_RPL_WILD_TABLE_FILTER_PATTERN`.
fn bad_wild_pattern() -> basalt_common::MySqlError {
    basalt_common::MySqlError::new(
        3045,
        "HY000",
        "Supplied filter list contains a value which is not in the required format \
         'db_pattern.table_pattern'",
    )
}

/// `(item, ...)`, possibly empty, of the form `rule` takes.
fn filter_value(p: &mut P, rule: Rule) -> R<FilterRule> {
    if !p.punct("(") {
        return Err(p.err());
    }
    let mut out = FilterRule {
        rule,
        entries: Vec::new(),
        pairs: (rule == Rule::RewriteDb).then(Vec::new),
    };
    if p.punct(")") {
        return Ok(out);
    }
    loop {
        match rule {
            Rule::DoDb | Rule::IgnoreDb => out.entries.push(p.ident()?),
            Rule::DoTable | Rule::IgnoreTable => {
                let db = p.ident()?;
                if !p.punct(".") {
                    return Err(p.err());
                }
                out.entries.push(format!("{db}.{}", p.ident()?));
            }
            Rule::WildDoTable | Rule::WildIgnoreTable => out.entries.push(text(p)?),
            Rule::RewriteDb => {
                if !p.punct("(") {
                    return Err(p.err());
                }
                let from = p.ident()?;
                if !p.punct(",") {
                    return Err(p.err());
                }
                let to = p.ident()?;
                if !p.punct(")") {
                    return Err(p.err());
                }
                out.pairs.get_or_insert_with(Vec::new).push((from, to));
            }
        }
        if p.punct(")") {
            return Ok(out);
        }
        if !p.punct(",") {
            return Err(p.err());
        }
    }
}
