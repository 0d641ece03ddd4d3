//! SHOW statements, DESCRIBE and EXPLAIN: result sets built from the catalog,
//! variables and server hooks, in MariaDB's column layout.
//!
//! `LIKE 'pattern'` filters on the first column; `WHERE expr` is bound against the
//! result's column names and evaluated per row.

pub(crate) mod binlog;
mod checksum;
pub(crate) mod engine_status;
mod explain;
pub mod maintenance;
pub(crate) mod table;

pub use explain::{analyze, describe, describe_plan};

use crate::bind::{Binder, Scope};
use crate::expr::like;
use crate::expr::EvalCtx;
use crate::front::native::{Show, ShowFilter};
use crate::result::{int_col, opt_s, s, text_col, text_col_nn, QueryResult};
use crate::session::Session;
use crate::sysvars::{self, Kind};
use crate::ty::ExprType;
use basalt_common::{Charset, Collation, ColumnMeta, MySqlError, Row, Value};

type R<T> = Result<T, MySqlError>;

/// Applies a SHOW filter to rows whose columns are named `names`.
pub(crate) fn filter(
    session: &mut Session,
    rows: Vec<Row>,
    names: &[&str],
    f: &ShowFilter,
) -> R<Vec<Row>> {
    filter_like_on(session, rows, names, f, 0)
}

/// [`filter`] whose LIKE pattern matches column `like_col`.
fn filter_like_on(
    session: &mut Session,
    rows: Vec<Row>,
    names: &[&str],
    f: &ShowFilter,
    like_col: usize,
) -> R<Vec<Row>> {
    match f {
        ShowFilter::None => Ok(rows),
        ShowFilter::Like(p) => Ok(rows
            .into_iter()
            .filter(|r| {
                let v = crate::value::to_bytes(&r[like_col]);
                like::matches(&v, p.as_bytes(), Some(b'\\'), Collation::Utf8mb4GeneralCi)
            })
            .collect()),
        ShowFilter::Where(text) => {
            let ast = crate::front::parse::parse_expr(text)?;
            let mut scope = Scope::default();
            for (i, n) in names.iter().enumerate() {
                scope.named.push((
                    n.to_string(),
                    i,
                    ExprType::string(64, Collation::Utf8mb4GeneralCi).nullable(true),
                ));
            }
            let storage = session.cx.engine.storage.clone();
            let expr = {
                let mut b = Binder::new(&storage, &session.cx, text, None);
                b.clause = crate::bind::Clause::Where;
                b.expr(&ast, &scope, None)?.0
            };
            let mut ctx = EvalCtx::new(&[], &mut session.cx);
            let mut out = Vec::new();
            for r in rows {
                if expr.eval_bool(&r, &mut ctx)? == Some(true) {
                    out.push(r);
                }
            }
            Ok(out)
        }
    }
}

fn result(cols: Vec<ColumnMeta>, rows: Vec<Row>) -> R<QueryResult> {
    Ok(QueryResult::rows(cols, rows))
}

/// `SHOW GRANTS [FOR user@host | role | PUBLIC]`: the grants as MariaDB prints
/// them. Another account's or a role's (but PUBLIC's and the enabled role's)
/// need SELECT on the `mysql` database (1044); an account that does not exist
/// is 1141.
fn no_such_grant(user: &str, host: &str) -> MySqlError {
    MySqlError::new(
        1141,
        "42000",
        format!("There is no such grant defined for user '{user}' on host '{host}'"),
    )
}

/// SHOW GRANTS FOR CURRENT_ROLE: the enabled role's grants, or 1141 naming the
/// session's account when no role is enabled (as MariaDB).
fn show_current_role_grants(session: &mut Session) -> R<QueryResult> {
    let Some(role) = session.cx.privs.role.clone() else {
        let (u, h) = session
            .cx
            .privs
            .account
            .clone()
            .unwrap_or_else(|| (session.cx.user.clone(), "%".to_string()));
        return Err(no_such_grant(&u, &h));
    };
    let spec = crate::front::native::account::UserSpec {
        name: Some((role, String::new())),
        auth: None,
        bare: false,
    };
    show_grants(session, Some(spec))
}

fn show_grants(
    session: &mut Session,
    spec: Option<crate::front::native::account::UserSpec>,
) -> R<QueryResult> {
    let current = session.cx.privs.account.clone();
    let acl = session.cx.engine.acl.snapshot();
    let (u, h) = match (&spec, &current) {
        (Some(s), _) => session.grantee(s, &acl),
        (None, Some(a)) => a.clone(),
        (None, None) => (session.cx.user.clone(), "%".to_string()),
    };
    // A role's grants need the privilege too, but PUBLIC's and the enabled
    // role's (not those of the roles granted to it), as in MariaDB.
    let free_role = h.is_empty()
        && (u == basalt_acl::PUBLIC || session.cx.privs.role.as_deref() == Some(u.as_str()));
    if current.as_ref() != Some(&(u.clone(), h.clone())) && !free_role {
        session.cx.require_db("mysql", basalt_acl::Privs::SELECT)?;
    }
    if h.is_empty() && (acl.role(&u).is_some() || u == basalt_acl::PUBLIC) {
        let lines = basalt_acl::show::role_grants(&acl, &u);
        return result(
            vec![text_col_nn(&format!("Grants for {u}"), 1024)],
            lines.into_iter().map(|l| vec![s(l)]).collect(),
        );
    }
    let lines = match acl.account(&u, &h) {
        Some(a) if spec.is_none() => own_grants(session, &acl, a),
        Some(a) => basalt_acl::show::account_grants(&acl, a),
        // An internal session's own account (embedded use): every right.
        None if current.is_none() && session.cx.user == u => vec![format!(
            "GRANT ALL PRIVILEGES ON *.* TO {} WITH GRANT OPTION",
            basalt_acl::show::account_name(&u, &h)
        )],
        None => return Err(no_such_grant(&u, &h)),
    };
    result(
        vec![text_col_nn(&format!("Grants for {u}@{h}"), 1024)],
        lines.into_iter().map(|l| vec![s(l)]).collect(),
    )
}

/// SHOW GRANTS for the session's own account: its grants, the enabled role's
/// (with the roles granted to it), PUBLIC's, then its default role.
fn own_grants(
    session: &Session,
    acl: &basalt_acl::AclData,
    a: &basalt_acl::Account,
) -> Vec<String> {
    use basalt_acl::show;
    let mut lines = show::role_lines(acl, a);
    lines.extend(show::grant_lines(acl, a));
    if let Some(r) = &session.cx.privs.role {
        lines.extend(show::role_grants(acl, r));
    }
    lines.extend(show::role_grants(acl, basalt_acl::PUBLIC));
    lines.extend(show::default_role_line(a));
    lines
}

/// `SHOW CREATE USER`: another account's needs SELECT on `mysql` (1044); one
/// that does not exist is 1133.
fn show_create_user(session: &mut Session, user: Option<(String, String)>) -> R<QueryResult> {
    let current = session.cx.privs.account.clone();
    let (u, h) = match user.or_else(|| current.clone()) {
        Some(a) => a,
        None => (session.cx.user.clone(), "%".to_string()),
    };
    if current.as_ref() != Some(&(u.clone(), h.clone())) {
        session.cx.require_db("mysql", basalt_acl::Privs::SELECT)?;
    }
    let acl = session.cx.engine.acl.snapshot();
    let Some(a) = acl.account(&u, &h) else {
        return Err(MySqlError::new(
            1133,
            "28000",
            "Can't find any matching row in the user table",
        ));
    };
    result(
        vec![text_col_nn(&format!("CREATE USER for {u}@{h}"), 1024)],
        vec![vec![s(basalt_acl::show::create_user(a))]],
    )
}

pub fn run(session: &mut Session, show: Show) -> R<QueryResult> {
    match show {
        Show::Databases { filter: f } => {
            let mut names = session.cx.engine.storage.databases();
            names.push(crate::infoschema::SCHEMA.to_string());
            names.push(crate::perfschema::SCHEMA.to_string());
            names.push(crate::sysschema::SCHEMA.to_string());
            names.retain(|d| session.cx.may_see_db(d));
            names.sort();
            let rows: Vec<Row> = names.into_iter().map(|d| vec![s(d)]).collect();
            let rows = filter(session, rows, &["Database"], &f)?;
            let name = match &f {
                ShowFilter::Like(p) => format!("Database ({p})"),
                _ => "Database".to_string(),
            };
            result(vec![text_col_nn(&name, 64)], rows)
        }
        Show::Tables {
            full,
            db,
            filter: f,
        } => table::show_tables(session, full, db, f),
        Show::Columns {
            full,
            table,
            db,
            filter: f,
        } => table::show_columns(session, full, &table, db, f),
        Show::CreateTable { db, table } => table::show_create_table(session, db, &table),
        Show::CreateView { db, view } => table::show_create_view(session, db, &view),
        Show::CreateDatabase {
            name,
            if_not_exists,
        } => show_create_database(session, &name, if_not_exists),
        Show::CreateUser { user } => show_create_user(session, user),
        Show::Index {
            table,
            db,
            filter: f,
        } => table::show_index(session, &table, db, f),
        Show::TableStatus { db, filter: f } => table::show_table_status(session, db, f),
        Show::Variables { global, filter: f } => show_variables(session, global, f),
        Show::Status { global, filter: f } => show_status(session, global, f),
        Show::Warnings {
            errors_only,
            count_only,
            limit,
        } => show_warnings(session, errors_only, count_only, limit),
        Show::Engines => show_engines(),
        Show::Engine { name, what } => engine_status::show_engine(session, &name, &what),
        Show::Collation { filter: f } => show_collation(session, f),
        Show::Charset { filter: f } => show_charset(session, f),
        Show::Processlist { full } => show_processlist(session, full),
        Show::Grants {
            user,
            current_role: false,
        } => show_grants(session, user),
        Show::Grants {
            current_role: true, ..
        } => show_current_role_grants(session),
        Show::Plugins => {
            let cols = ["Name", "Status", "Type", "Library", "License"]
                .iter()
                .map(|n| text_col(n, 64))
                .collect();
            result(cols, crate::infoschema::plugins::show_rows())
        }
        Show::MasterStatus => binlog::master_status(session),
        Show::BinlogEvents(opts) => binlog::binlog_events(session, &opts),
        Show::SlaveHosts => binlog::slave_hosts(session),
        Show::SlaveStatus { all } => binlog::slave_status(session, all),
        Show::BinaryLogs => binlog::binary_logs(session),
        Show::Privileges | Show::OpenTables => result(vec![text_col("Name", 64)], Vec::new()),
        Show::Triggers { db, filter } => show_triggers(session, db, &filter),
        Show::CreateTrigger { db, name } => show_create_trigger(session, db, &name),
        Show::Events { db, filter } => show_events(session, db, &filter),
        Show::CreateEvent { db, name } => show_create_event(session, db, &name),
        Show::PackageStatus => empty(ROUTINE_STATUS_COLS),
        Show::ProcedureStatus(f) => routine_status(session, "PROCEDURE", &f),
        Show::FunctionStatus(f) => routine_status(session, "FUNCTION", &f),
        Show::CreateRoutine { kind, db, name } => show_create_routine(session, kind, db, &name),
    }
}

const TRIGGER_COLS: &[&str] = &[
    "Trigger",
    "Event",
    "Table",
    "Statement",
    "Timing",
    "Created",
    "sql_mode",
    "Definer",
    "character_set_client",
    "collation_connection",
    "Database Collation",
];
const EVENT_COLS: &[&str] = &[
    "Db",
    "Name",
    "Definer",
    "Time zone",
    "Type",
    "Execute at",
    "Interval value",
    "Interval field",
    "Starts",
    "Ends",
    "Status",
    "Originator",
    "character_set_client",
    "collation_connection",
    "Database Collation",
];
const ROUTINE_STATUS_COLS: &[&str] = &[
    "Db",
    "Name",
    "Type",
    "Definer",
    "Modified",
    "Created",
    "Security_type",
    "Comment",
    "character_set_client",
    "collation_connection",
    "Database Collation",
];

/// SHOW PROCEDURE / FUNCTION STATUS (LIKE matches the name).
fn routine_status(session: &mut Session, kind: &str, f: &ShowFilter) -> R<QueryResult> {
    let rows = crate::infoschema::routines::status_rows(&session.cx, kind);
    let rows = filter_like_on(session, rows, ROUTINE_STATUS_COLS, f, 1)?;
    result(
        ROUTINE_STATUS_COLS
            .iter()
            .map(|c| text_col(c, 64))
            .collect(),
        rows,
    )
}

fn show_create_routine(
    session: &mut Session,
    kind: &str,
    db: Option<String>,
    name: &str,
) -> R<QueryResult> {
    let db = match db {
        Some(d) => d,
        None => session.cx.db.clone().ok_or_else(MySqlError::no_db)?,
    };
    let r = session
        .cx
        .engine
        .storage
        .routine(&db, kind, name)
        .filter(|r| session.cx.privs.sees_db(&r.schema))
        .ok_or_else(|| MySqlError::new(1305, "42000", format!("{kind} {name} does not exist")))?;
    let title = if kind == "FUNCTION" {
        "Function"
    } else {
        "Procedure"
    };
    let cols = vec![
        text_col_nn(title, 64),
        text_col_nn("sql_mode", 1024),
        text_col(&format!("Create {title}"), 1024),
        text_col_nn("character_set_client", 32),
        text_col_nn("collation_connection", 32),
        text_col_nn("Database Collation", 32),
    ];
    let row = vec![
        s(&r.name),
        s(&r.sql_mode),
        s(crate::infoschema::routines::create_statement(&r)),
        s(&r.character_set_client),
        s(&r.collation_connection),
        s(&r.database_collation),
    ];
    result(cols, vec![row])
}

/// The column of SHOW TRIGGERS / SHOW CREATE TRIGGER named `n`.
fn trigger_col(n: &str) -> ColumnMeta {
    match n {
        "Created" => crate::result::datetime_col(n, 2),
        "Statement" | "SQL Original Statement" => text_col_nn(n, 65535),
        "sql_mode" => text_col_nn(n, 8192),
        "Definer" => text_col_nn(n, 384),
        _ => text_col_nn(n, 64),
    }
}

/// SHOW TRIGGERS [FROM db] (LIKE matches the table name).
fn show_triggers(session: &mut Session, db: Option<String>, f: &ShowFilter) -> R<QueryResult> {
    let db = match db {
        Some(d) => d,
        None => session.cx.db.clone().ok_or_else(MySqlError::no_db)?,
    };
    if !session.cx.engine.storage.database_exists(&db) {
        return Err(MySqlError::bad_db(&db));
    }
    let rows = crate::infoschema::triggers::show_rows(&session.cx, &db);
    let rows = filter_like_on(session, rows, TRIGGER_COLS, f, 2)?;
    result(TRIGGER_COLS.iter().map(|c| trigger_col(c)).collect(), rows)
}

fn show_create_trigger(session: &mut Session, db: Option<String>, name: &str) -> R<QueryResult> {
    let db = match db {
        Some(d) => d,
        None => session.cx.db.clone().ok_or_else(MySqlError::no_db)?,
    };
    let t = session
        .cx
        .engine
        .storage
        .trigger(&db, name)
        .filter(|t| session.cx.privs.sees_db(&t.schema))
        .ok_or_else(crate::session::trigger::no_such_trigger)?;
    let names = [
        "Trigger",
        "sql_mode",
        "SQL Original Statement",
        "character_set_client",
        "collation_connection",
        "Database Collation",
        "Created",
    ];
    let row = vec![
        s(&t.name),
        s(&t.sql_mode),
        s(crate::infoschema::triggers::create_statement(&t)),
        s(&t.character_set_client),
        s(&t.collation_connection),
        s(&t.database_collation),
        crate::infoschema::triggers::created(&t),
    ];
    result(names.iter().map(|c| trigger_col(c)).collect(), vec![row])
}

fn event_col(n: &str) -> ColumnMeta {
    match n {
        "Execute at" | "Starts" | "Ends" => crate::result::datetime_col(n, 0),
        "Originator" => crate::result::int_col(n, 10, false),
        "Interval value" => text_col(n, 256),
        "Interval field" => text_col(n, 18),
        "Definer" => text_col_nn(n, 384),
        "Type" => text_col_nn(n, 9),
        "Status" => text_col_nn(n, 18),
        "character_set_client" => text_col_nn(n, 32),
        _ => text_col_nn(n, 64),
    }
}

/// The event's database (the current one when not named; 1046 without one),
/// which the session must hold EVENT on (1044).
fn events_db(session: &mut Session, db: Option<String>) -> R<String> {
    let db = match db {
        Some(d) => d,
        None => session.cx.db.clone().ok_or_else(MySqlError::no_db)?,
    };
    session.cx.require_db(&db, basalt_acl::Privs::EVENT)?;
    Ok(db)
}

/// SHOW EVENTS [FROM db] (LIKE matches the event name).
fn show_events(session: &mut Session, db: Option<String>, f: &ShowFilter) -> R<QueryResult> {
    let db = events_db(session, db)?;
    let rows = crate::infoschema::events::show_rows(&session.cx, &db);
    let rows = filter_like_on(session, rows, EVENT_COLS, f, 1)?;
    result(EVENT_COLS.iter().map(|c| event_col(c)).collect(), rows)
}

fn show_create_event(session: &mut Session, db: Option<String>, name: &str) -> R<QueryResult> {
    let db = events_db(session, db)?;
    let e = session
        .cx
        .engine
        .storage
        .event(&db, name)
        .ok_or_else(|| crate::session::event::unknown_event(name))?;
    let names = [
        "Event",
        "sql_mode",
        "time_zone",
        "Create Event",
        "character_set_client",
        "collation_connection",
        "Database Collation",
    ];
    let row = vec![
        s(&e.name),
        s(&e.sql_mode),
        s(&e.time_zone),
        s(crate::infoschema::events::create_statement(&e)),
        s(&e.character_set_client),
        s(&e.collation_connection),
        s(&e.database_collation),
    ];
    let cols = names
        .iter()
        .map(|c| match *c {
            "sql_mode" => text_col_nn(c, 8192),
            "Create Event" => text_col_nn(c, 65535),
            "character_set_client" => text_col_nn(c, 32),
            _ => text_col_nn(c, 64),
        })
        .collect();
    result(cols, vec![row])
}

fn empty(cols: &[&str]) -> R<QueryResult> {
    result(cols.iter().map(|c| text_col(c, 64)).collect(), Vec::new())
}

fn show_create_database(session: &mut Session, name: &str, if_not_exists: bool) -> R<QueryResult> {
    let coll = session
        .cx
        .engine
        .storage
        .database_collation(name)
        .ok_or_else(|| MySqlError::bad_db(name))?;
    let text = format!(
        "CREATE DATABASE {}`{name}` /*!40100 DEFAULT CHARACTER SET {} COLLATE {} */",
        if if_not_exists {
            "/*!32312 IF NOT EXISTS*/ "
        } else {
            ""
        },
        coll.charset().name(),
        coll.name()
    );
    let comment = session.cx.engine.storage.database_comment(name);
    let text = match comment.filter(|c| !c.is_empty()) {
        Some(c) => format!("{text} COMMENT {}", table::quote_str(&c)),
        None => text,
    };
    result(
        vec![
            text_col_nn("Database", 64),
            text_col_nn("Create Database", 1024),
        ],
        vec![vec![s(name), s(text)]],
    )
}

/// A variable's value as SHOW VARIABLES prints it.
pub(crate) fn var_text(kind: Kind, v: &Value) -> String {
    match (kind, v) {
        (_, Value::Null) => String::new(),
        (Kind::Bool, Value::Int(i)) => if *i != 0 { "ON" } else { "OFF" }.into(),
        (Kind::Double, Value::Double(d)) => format!("{d:.6}"),
        (_, other) => other.display_lossy(),
    }
}

fn show_variables(session: &mut Session, global: bool, f: ShowFilter) -> R<QueryResult> {
    let mut rows = Vec::new();
    for def in sysvars::all() {
        if global && def.scope == sysvars::Scope::Session {
            continue;
        }
        let v = session.cx.sysvar(def, global);
        rows.push(vec![s(def.name), s(var_text(def.kind, &v))]);
    }
    let rows = filter(session, rows, &["Variable_name", "Value"], &f)?;
    result(
        vec![text_col_nn("Variable_name", 64), text_col_nn("Value", 2048)],
        rows,
    )
}

fn show_status(session: &mut Session, global: bool, f: ShowFilter) -> R<QueryResult> {
    let mut pairs = status_pairs(&session.cx, global);
    let (version, cipher) = session.tls();
    pairs.push(("Ssl_cipher".into(), cipher.to_string()));
    pairs.push(("Ssl_version".into(), version.to_string()));
    pairs.push((
        "Prepared_stmt_count".into(),
        session.prepared_count().to_string(),
    ));
    sort_status(&mut pairs);
    let rows = pairs.into_iter().map(|(k, v)| vec![s(k), s(v)]).collect();
    let rows = filter(session, rows, &["Variable_name", "Value"], &f)?;
    result(
        vec![text_col_nn("Variable_name", 64), text_col_nn("Value", 2048)],
        rows,
    )
}

/// SHOW STATUS's rows before the session's own (TLS, prepared statements):
/// the server's, the engine's, and the status counters, summed over every
/// session for GLOBAL, this session's otherwise.
/// The global status rows whose values are numbers, by name.
pub(crate) fn status_numbers(
    cx: &crate::session::ctx::SessionCtx,
) -> std::collections::HashMap<String, u64> {
    status_pairs(cx, true)
        .into_iter()
        .filter_map(|(k, v)| Some((k, v.parse().ok()?)))
        .collect()
}

/// Every process-list entry by connection id.
pub(crate) fn processes_by_id(
    cx: &crate::session::ctx::SessionCtx,
) -> std::collections::HashMap<u64, crate::engine::ProcessInfo> {
    cx.engine
        .processlist()
        .into_iter()
        .map(|p| (p.id, p))
        .collect()
}

pub(crate) fn status_pairs(
    cx: &crate::session::ctx::SessionCtx,
    global: bool,
) -> Vec<(String, String)> {
    use crate::stats::ALL;
    let mut pairs = cx.engine.metrics_status();
    if !global {
        let own = &cx.stats.counters;
        for &stat in ALL.iter().filter(|s| !s.global_only()) {
            let key = stat.name().to_ascii_lowercase();
            if let Ok(i) = pairs.binary_search_by_key(&key, |p| p.0.to_ascii_lowercase()) {
                pairs[i].1 = own.get(stat).to_string();
            }
        }
    }
    pairs
}

/// SHOW STATUS order: by name, ignoring case; the first of a repeated name.
pub(crate) fn sort_status(pairs: &mut Vec<(String, String)>) {
    pairs.sort_by_key(|a| a.0.to_ascii_lowercase());
    pairs.dedup_by(|a, b| a.0 == b.0);
}

fn show_warnings(
    session: &mut Session,
    errors_only: bool,
    count_only: bool,
    limit: Option<(u64, u64)>,
) -> R<QueryResult> {
    use crate::session::ctx::Level;
    if count_only {
        let n = if errors_only {
            session.cx.error_total
        } else {
            session.cx.warning_total
        };
        let name = if errors_only {
            "@@session.error_count"
        } else {
            "@@session.warning_count"
        };
        return result(
            vec![int_col(name, 21, true)],
            vec![vec![Value::UInt(n as u64)]],
        );
    }
    let (skip, take) = limit.unwrap_or((0, u64::MAX));
    let rows: Vec<Row> = session
        .cx
        .warnings
        .iter()
        .filter(|w| !errors_only || w.level == Level::Error)
        .skip(skip as usize)
        .take(take.min(usize::MAX as u64) as usize)
        .map(|w| vec![s(w.level.name()), Value::UInt(w.code as u64), s(&w.message)])
        .collect();
    let mut code = int_col("Code", 4, true);
    code.column_type = basalt_common::ColumnType::Long;
    code.flags |= basalt_common::column::flags::NOT_NULL;
    result(
        vec![text_col_nn("Level", 7), code, text_col_nn("Message", 512)],
        rows,
    )
}

fn show_engines() -> R<QueryResult> {
    let cols = vec![
        text_col_nn("Engine", 64),
        text_col_nn("Support", 8),
        text_col_nn("Comment", 160),
        text_col("Transactions", 3),
        text_col("XA", 3),
        text_col("Savepoints", 3),
    ];
    let rows = vec![
        vec![
            s("MEMORY"),
            s("YES"),
            s("Hash based, stored in memory, useful for temporary tables"),
            s("NO"),
            s("NO"),
            s("NO"),
        ],
        vec![
            s("InnoDB"),
            s("DEFAULT"),
            s("Supports transactions, row-level locking, foreign keys and encryption for tables"),
            s("YES"),
            s("YES"),
            s("YES"),
        ],
        vec![
            s("SEQUENCE"),
            s("YES"),
            s("Generated tables filled with sequential values"),
            s("YES"),
            s("NO"),
            s("YES"),
        ],
    ];
    result(cols, rows)
}

fn show_collation(session: &mut Session, f: ShowFilter) -> R<QueryResult> {
    // MariaDB's order: by character set (as SHOW CHARACTER SET lists them), then id.
    let mut all = Collation::all().to_vec();
    all.sort_by_key(|c| (c.charset().default_collation().id(), c.id()));
    let rows: Vec<Row> = all
        .iter()
        .map(|c| {
            vec![
                s(c.name()),
                s(c.charset().name()),
                Value::Int(c.id() as i64),
                s(if c.is_default() { "Yes" } else { "" }),
                s("Yes"),
                Value::Int(c.sortlen() as i64),
            ]
        })
        .collect();
    let names = [
        "Collation",
        "Charset",
        "Id",
        "Default",
        "Compiled",
        "Sortlen",
    ];
    let rows = filter(session, rows, &names, &f)?;
    let cols = vec![
        text_col_nn("Collation", 64),
        text_col("Charset", 32),
        int_col("Id", 11, false),
        text_col("Default", 3),
        text_col_nn("Compiled", 3),
        int_col("Sortlen", 3, false),
    ];
    result(cols, rows)
}

fn show_charset(session: &mut Session, f: ShowFilter) -> R<QueryResult> {
    // MariaDB lists the sets in the order of their default collations' ids.
    let mut sets = Charset::all().to_vec();
    sets.sort_by_key(|c| c.default_collation().id());
    let rows = sets
        .iter()
        .map(|c| {
            vec![
                s(c.name()),
                s(c.description()),
                s(c.default_collation().name()),
                Value::Int(c.max_len() as i64),
            ]
        })
        .collect();
    let names = ["Charset", "Description", "Default collation", "Maxlen"];
    let rows = filter(session, rows, &names, &f)?;
    let cols = vec![
        text_col_nn("Charset", 32),
        text_col_nn("Description", 60),
        text_col_nn("Default collation", 64),
        int_col("Maxlen", 3, false),
    ];
    result(cols, rows)
}

fn show_processlist(session: &mut Session, full: bool) -> R<QueryResult> {
    let list = session.cx.engine.processlist();
    session.cx.privs.refresh(&session.cx.engine.acl);
    let rows = list
        .into_iter()
        .filter(|p| session.cx.privs.sees_thread(&session.cx.user, &p.user))
        .map(|p| {
            let info = p.info.map(|i| {
                if full {
                    i
                } else {
                    i.chars().take(100).collect()
                }
            });
            vec![
                Value::Int(p.id as i64),
                s(p.user),
                s(p.host),
                opt_s(p.db),
                s(p.command),
                Value::Int(p.time as i64),
                s(p.state),
                opt_s(info),
                s("0.000"),
            ]
        })
        .collect();
    let cols = vec![
        int_col("Id", 21, false),
        text_col_nn("User", 128),
        text_col_nn("Host", 64),
        text_col("db", 64),
        text_col_nn("Command", 16),
        int_col("Time", 7, false),
        text_col("State", 30),
        text_col("Info", 100),
        text_col_nn("Progress", 7),
    ];
    result(cols, rows)
}
