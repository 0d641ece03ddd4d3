//! SHOW statements: their grammar and the [`Show`] they parse to.

use super::{P, R};

#[derive(Debug, Clone, PartialEq)]
pub enum ShowFilter {
    None,
    Like(String),
    /// The text of the WHERE expression, parsed when the statement runs.
    Where(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Show {
    Databases {
        filter: ShowFilter,
    },
    Tables {
        full: bool,
        db: Option<String>,
        filter: ShowFilter,
    },
    Columns {
        full: bool,
        table: String,
        db: Option<String>,
        filter: ShowFilter,
    },
    CreateTable {
        db: Option<String>,
        table: String,
    },
    CreateView {
        db: Option<String>,
        view: String,
    },
    CreateDatabase {
        name: String,
        if_not_exists: bool,
    },
    /// SHOW CREATE USER (`None`: the current account).
    CreateUser {
        user: Option<(String, String)>,
    },
    Index {
        table: String,
        db: Option<String>,
        filter: ShowFilter,
    },
    Variables {
        global: bool,
        filter: ShowFilter,
    },
    Status {
        global: bool,
        filter: ShowFilter,
    },
    Warnings {
        errors_only: bool,
        count_only: bool,
        limit: Option<(u64, u64)>,
    },
    Engines,
    /// SHOW ENGINE name {STATUS | MUTEX | LOGS}: the engine's name as written
    /// (`ALL` for every engine) and the keyword, lower case.
    Engine {
        name: String,
        what: String,
    },
    Collation {
        filter: ShowFilter,
    },
    Charset {
        filter: ShowFilter,
    },
    TableStatus {
        db: Option<String>,
        filter: ShowFilter,
    },
    Processlist {
        full: bool,
    },
    /// `SHOW GRANTS [FOR user[@host] | role | PUBLIC | CURRENT_USER[()] |
    /// CURRENT_ROLE[()]]`: `None` for the current account.
    Grants {
        user: Option<super::account::UserSpec>,
        /// FOR CURRENT_ROLE: the session's enabled role.
        current_role: bool,
    },
    Plugins,
    Privileges,
    MasterStatus,
    /// `SHOW SLAVE STATUS`; `all` for `SHOW ALL SLAVES STATUS` (MariaDB's extra
    /// columns).
    SlaveStatus {
        all: bool,
    },
    BinaryLogs,
    BinlogEvents(super::binlog::BinlogEvents),
    /// `SHOW SLAVE HOSTS` / `SHOW REPLICA HOSTS`.
    SlaveHosts,
    OpenTables,
    /// SHOW TRIGGERS [FROM db] [LIKE 'table pattern' | WHERE ...].
    Triggers {
        db: Option<String>,
        filter: ShowFilter,
    },
    /// SHOW EVENTS [FROM db] [LIKE 'name pattern' | WHERE ...].
    Events {
        db: Option<String>,
        filter: ShowFilter,
    },
    CreateEvent {
        db: Option<String>,
        name: String,
    },
    CreateTrigger {
        db: Option<String>,
        name: String,
    },
    ProcedureStatus(ShowFilter),
    FunctionStatus(ShowFilter),
    /// SHOW CREATE PROCEDURE / FUNCTION.
    CreateRoutine {
        kind: &'static str,
        db: Option<String>,
        name: String,
    },
    /// `SHOW PACKAGE [BODY] STATUS` (Oracle-mode packages, MariaDB 10.3+).
    PackageStatus,
}

pub(super) fn show(p: &mut P) -> R<Show> {
    let full = p.kw("full");
    let global = if p.kw("global") {
        Some(true)
    } else if p.kw("session") || p.kw("local") {
        Some(false)
    } else {
        None
    };
    if p.kw("databases") || p.kw("schemas") {
        return Ok(Show::Databases {
            filter: p.filter()?,
        });
    }
    if p.kw("tables") {
        let db = p.source_db()?;
        return Ok(Show::Tables {
            full,
            db,
            filter: p.filter()?,
        });
    }
    if p.kw("columns") || p.kw("fields") {
        if !(p.kw("from") || p.kw("in")) {
            return Err(p.err());
        }
        let (mut db, table) = p.qualified()?;
        if let Some(d) = p.source_db()? {
            db = Some(d);
        }
        return Ok(Show::Columns {
            full,
            table,
            db,
            filter: p.filter()?,
        });
    }
    if p.kw("variables") {
        return Ok(Show::Variables {
            global: global == Some(true),
            filter: p.filter()?,
        });
    }
    if p.kw("status") {
        return Ok(Show::Status {
            global: global == Some(true),
            filter: p.filter()?,
        });
    }
    if p.kw("processlist") {
        p.end()?;
        return Ok(Show::Processlist { full });
    }
    if full || global.is_some() {
        return Err(p.err());
    }
    show_other(p)
}

fn show_other(p: &mut P) -> R<Show> {
    let simple = |p: &mut P, s: Show| -> R<Show> {
        p.end()?;
        Ok(s)
    };
    if p.kw("create") {
        return show_create(p);
    }
    if p.kw("index") || p.kw("indexes") || p.kw("keys") {
        if !(p.kw("from") || p.kw("in")) {
            return Err(p.err());
        }
        let (mut db, table) = p.qualified()?;
        if let Some(d) = p.source_db()? {
            db = Some(d);
        }
        return Ok(Show::Index {
            table,
            db,
            filter: p.filter()?,
        });
    }
    if p.kw("warnings") || p.kw("errors") {
        let errors_only = p.toks[p.pos - 1].is_kw(p.src, "errors");
        let limit = show_limit(p)?;
        p.end()?;
        return Ok(Show::Warnings {
            errors_only,
            count_only: false,
            limit,
        });
    }
    if p.kw("count") {
        if !(p.punct("(") && p.punct("*") && p.punct(")")) {
            return Err(p.err());
        }
        let errors_only = if p.kw("errors") {
            true
        } else {
            p.expect_kw("warnings")?;
            false
        };
        p.end()?;
        return Ok(Show::Warnings {
            errors_only,
            count_only: true,
            limit: None,
        });
    }
    if p.kw("storage") {
        p.expect_kw("engines")?;
        return simple(p, Show::Engines);
    }
    if p.kw("engines") {
        return simple(p, Show::Engines);
    }
    if p.kw("engine") {
        let name = p.ident()?;
        let what = ["status", "mutex", "logs"]
            .into_iter()
            .find(|w| p.kw(w))
            .ok_or_else(|| p.err())?;
        return simple(
            p,
            Show::Engine {
                name,
                what: what.to_string(),
            },
        );
    }
    if p.kw("collation") {
        return Ok(Show::Collation {
            filter: p.filter()?,
        });
    }
    if p.kw("charset") || (p.kw("character") && p.kw("set")) {
        return Ok(Show::Charset {
            filter: p.filter()?,
        });
    }
    if p.kw("table") {
        p.expect_kw("status")?;
        let db = p.source_db()?;
        return Ok(Show::TableStatus {
            db,
            filter: p.filter()?,
        });
    }
    show_misc(p)
}

fn show_misc(p: &mut P) -> R<Show> {
    let s = if p.kw("grants") {
        let (user, current_role) = grants_for(p)?;
        Show::Grants { user, current_role }
    } else if p.kw("plugins") {
        Show::Plugins
    } else if p.kw("privileges") {
        Show::Privileges
    } else if p.kw("binlog") && p.kw("events") {
        Show::BinlogEvents(super::binlog::show_events(p)?)
    } else if p.toks[p.pos - 1].is_kw(p.src, "binlog") || p.kw("master") {
        if p.kw("logs") {
            p.end()?;
            Show::BinaryLogs
        } else {
            p.expect_kw("status")?;
            Show::MasterStatus
        }
    } else if p.kw("slave") || p.kw("replica") {
        if p.kw("hosts") {
            p.end()?;
            return Ok(Show::SlaveHosts);
        }
        if p.peek()
            .is_some_and(|t| t.kind == super::super::lexer::TokKind::Str)
            && !p.string()?.is_empty()
        {
            return Err(basalt_common::MySqlError::not_supported(
                "multi-source replication",
            ));
        }
        p.expect_kw("status")?;
        p.end()?;
        Show::SlaveStatus { all: false }
    } else if p.kw("all") {
        if !p.kw("slaves") {
            p.expect_kw("replicas")?;
        }
        p.expect_kw("status")?;
        p.end()?;
        Show::SlaveStatus { all: true }
    } else if p.kw("binary") {
        p.expect_kw("logs")?;
        Show::BinaryLogs
    } else if p.kw("open") {
        p.expect_kw("tables")?;
        p.source_db()?;
        p.filter()?;
        Show::OpenTables
    } else if p.kw("triggers") {
        let db = p.source_db()?;
        Show::Triggers {
            db,
            filter: p.filter()?,
        }
    } else if p.kw("events") {
        let db = p.source_db()?;
        Show::Events {
            db,
            filter: p.filter()?,
        }
    } else if p.kw("package") {
        p.kw("body");
        p.expect_kw("status")?;
        p.filter()?;
        Show::PackageStatus
    } else if p.kw("procedure") || p.kw("function") {
        let f = p.toks[p.pos - 1].is_kw(p.src, "function");
        p.expect_kw("status")?;
        let filter = p.filter()?;
        if f {
            Show::FunctionStatus(filter)
        } else {
            Show::ProcedureStatus(filter)
        }
    } else {
        return Err(p.err());
    };
    p.end()?;
    Ok(s)
}

/// The grantee of `SHOW GRANTS FOR ...` (`None`: the current account). A bare
/// name is a role if one exists, else the account `name@'%'`, as MariaDB takes
/// it.
/// The FOR clause of SHOW GRANTS: the account or role named (`None` for the
/// session's own), and whether it is CURRENT_ROLE[()].
fn grants_for(p: &mut P) -> R<(Option<super::account::UserSpec>, bool)> {
    if !p.kw("for") {
        return Ok((None, false));
    }
    if p.kw("current_role") {
        if p.punct("(") && !p.punct(")") {
            return Err(p.err());
        }
        return Ok((None, true));
    }
    let spec = super::account::grantee(p)?;
    Ok((spec.name.is_some().then_some(spec), false))
}

pub(super) fn show_limit(p: &mut P) -> R<Option<(u64, u64)>> {
    if !p.kw("limit") {
        return Ok(None);
    }
    let a = p.uint()?;
    if p.punct(",") {
        let b = p.uint()?;
        return Ok(Some((a, b)));
    }
    if p.kw("offset") {
        let o = p.uint()?;
        return Ok(Some((o, a)));
    }
    Ok(Some((0, a)))
}

fn show_create(p: &mut P) -> R<Show> {
    if p.kw("table") {
        let (db, table) = p.qualified()?;
        p.end()?;
        return Ok(Show::CreateTable { db, table });
    }
    if p.kw("view") {
        let (db, view) = p.qualified()?;
        p.end()?;
        return Ok(Show::CreateView { db, view });
    }
    if p.kw("trigger") {
        let (db, name) = p.qualified()?;
        p.end()?;
        return Ok(Show::CreateTrigger { db, name });
    }
    if p.kw("event") {
        let (db, name) = p.qualified()?;
        p.end()?;
        return Ok(Show::CreateEvent { db, name });
    }
    if p.kw("procedure") || p.kw("function") {
        let kind = if p.toks[p.pos - 1].is_kw(p.src, "function") {
            "FUNCTION"
        } else {
            "PROCEDURE"
        };
        let (db, name) = p.qualified()?;
        p.end()?;
        return Ok(Show::CreateRoutine { kind, db, name });
    }
    if p.kw("user") {
        let user = if p.peek().is_none() {
            None
        } else if p.kw("current_user") {
            if p.punct("(") && !p.punct(")") {
                return Err(p.err());
            }
            None
        } else {
            Some(super::account::account_name(p)?)
        };
        p.end()?;
        return Ok(Show::CreateUser { user });
    }
    if p.kw("database") || p.kw("schema") {
        let if_not_exists = p.if_not_exists()?;
        let name = p.ident()?;
        p.end()?;
        return Ok(Show::CreateDatabase {
            name,
            if_not_exists,
        });
    }
    Err(p.err())
}
