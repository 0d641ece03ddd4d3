//! CREATE / ALTER / DROP EVENT with MariaDB's checks and their order: the body
//! compiles (1064; 1576 for CREATE EVENT inside it), the database and the
//! EVENT privilege (1046, 1044, 1049), the schedule (1525, 1542, 1543, 1235),
//! a time already past (note 1588 and nothing created, or note 1544 and the
//! event disabled; 1589 for ALTER), then the name (1537, 1539, 1551). The
//! event keeps the session's sql_mode, time zone and character sets, and the
//! scheduler is woken after each change.

use super::Session;
use crate::event::schedule::{self, Field};
use crate::front::native::event::{EventClauses, EventStmt, ScheduleText};
use crate::front::native::view::Definer;
use crate::result::QueryResult;
use crate::session::ctx::Level;
use basalt_acl::Privs;
use basalt_common::{MySqlError, Value};
use basalt_storage::EventDef;

type R<T> = Result<T, MySqlError>;

/// 1539.
pub fn unknown_event(name: &str) -> MySqlError {
    MySqlError::new(1539, "HY000", format!("Unknown event '{name}'"))
}

fn already_exists(name: &str) -> MySqlError {
    MySqlError::new(1537, "HY000", format!("Event '{name}' already exists"))
}

fn check_name(name: &str) -> R<()> {
    if name.is_empty() {
        return Err(MySqlError::new(1458, "42000", "Incorrect routine name ''"));
    }
    if name.chars().count() > 64 {
        return Err(MySqlError::new(
            1059,
            "42000",
            format!("Identifier name '{name}' is too long"),
        ));
    }
    Ok(())
}

/// An evaluated `ON SCHEDULE`, in seconds since the epoch.
struct Times {
    execute_at: Option<i64>,
    interval: Option<(i64, Field)>,
    starts: Option<i64>,
    ends: Option<i64>,
}

impl Times {
    /// Whether no activation is left at `now`.
    fn past(&self, now: i64) -> bool {
        match (self.execute_at, self.ends) {
            (Some(at), _) => at < now,
            (None, Some(end)) => end < now,
            _ => false,
        }
    }
}

impl Session {
    pub(super) fn event_statement(&mut self, st: EventStmt) -> R<QueryResult> {
        match st {
            EventStmt::Create {
                or_replace,
                if_not_exists,
                definer,
                db,
                name,
                clauses,
            } => {
                if or_replace && if_not_exists {
                    return Err(MySqlError::new(
                        1221,
                        "HY000",
                        "Incorrect usage of OR REPLACE and IF NOT EXISTS",
                    ));
                }
                self.implicit_commit()?;
                let head = (or_replace, if_not_exists, definer);
                self.create_event(head, db, &name, clauses)
            }
            EventStmt::Alter {
                definer,
                db,
                name,
                rename,
                clauses,
            } => {
                self.implicit_commit()?;
                self.alter_event(definer, db, &name, rename, clauses)
            }
            EventStmt::Drop {
                if_exists,
                db,
                name,
            } => {
                self.implicit_commit()?;
                self.drop_event(if_exists, db, &name)
            }
        }
    }

    /// The event's database (1046 without one), checked for the EVENT
    /// privilege (1044) and then for existence (1049).
    fn event_db(&mut self, db: Option<String>) -> R<String> {
        let db = match db {
            Some(d) => d,
            None => self.cx.db.clone().ok_or_else(MySqlError::no_db)?,
        };
        self.cx.require_db(&db, Privs::EVENT)?;
        if !self.cx.engine.storage.database_exists(&db) {
            return Err(MySqlError::bad_db(&db));
        }
        Ok(db)
    }

    fn create_event(
        &mut self,
        (or_replace, if_not_exists, definer): (bool, bool, Option<Definer>),
        db: Option<String>,
        name: &str,
        c: EventClauses,
    ) -> R<QueryResult> {
        let body = c.body.clone().unwrap_or_default();
        check_name(name)?;
        let db = self.event_db(db)?;
        self.check_event_body(&db, &body, c.body_line)?;
        let schedule = c
            .schedule
            .as_ref()
            .ok_or_else(|| MySqlError::internal("CREATE EVENT without ON SCHEDULE"))?;
        let times = self.schedule_times(schedule, None)?;
        let now = self.statement_seconds();
        let preserve = c.preserve.unwrap_or(false);
        let mut status = c.status.unwrap_or("ENABLED");
        if times.past(now) {
            if !preserve {
                self.cx.note(
                    1588,
                    "Event execution time is in the past and ON COMPLETION NOT PRESERVE is set. The event was dropped immediately after creation",
                );
                return Ok(self.ok_with_warnings());
            }
            if c.status.is_none() {
                status = "DISABLED";
                self.cx.note(
                    1544,
                    "Event execution time is in the past. Event has been disabled",
                );
            }
        }
        let storage = self.cx.engine.storage.clone();
        if storage.event(&db, name).is_some() && !or_replace {
            if !if_not_exists {
                return Err(already_exists(name));
            }
            self.cx.note(1537, already_exists(name).message);
            self.warn_scheduler_off();
            return Ok(self.ok_with_warnings());
        }
        let (definer_user, definer_host) = self.event_definer(definer)?;
        let status = self.replica_side(status);
        let def = EventDef {
            schema: db.clone(),
            name: name.to_string(),
            definer_user,
            definer_host,
            body,
            execute_at: times.execute_at,
            interval_value: times.interval.map(|i| i.0),
            interval_field: times.interval.map(|i| i.1.name().to_string()),
            starts: times.starts,
            ends: times.ends,
            time_zone: self.cx.var_text("time_zone"),
            preserve,
            status: status.into(),
            comment: truncate_comment(c.comment.unwrap_or_default()),
            sql_mode: self.cx.var_text("sql_mode"),
            character_set_client: self.cx.var_text("character_set_client"),
            collation_connection: self.cx.var_text("collation_connection"),
            database_collation: storage
                .database_collation(&db)
                .map(|c| c.name().to_string())
                .unwrap_or_default(),
            created: now,
            last_altered: now,
            last_executed: None,
            originator: self.cx.engine.config.server_id,
        };
        storage
            .create_event(def, or_replace)
            .map_err(MySqlError::from)?;
        self.warn_scheduler_off();
        self.event_changed();
        Ok(self.ok_with_warnings())
    }

    fn alter_event(
        &mut self,
        definer: Option<Definer>,
        db: Option<String>,
        name: &str,
        rename: Option<(Option<String>, String)>,
        c: EventClauses,
    ) -> R<QueryResult> {
        check_name(name)?;
        let db = self.event_db(db)?;
        if let Some(body) = &c.body {
            self.check_event_body(&db, body, c.body_line)?;
        }
        let storage = self.cx.engine.storage.clone();
        let target = match rename {
            Some((to_db, to_name)) => {
                check_name(&to_name)?;
                let to_db = self.event_db(to_db)?;
                if to_db == db && to_name.eq_ignore_ascii_case(name) {
                    return Err(MySqlError::new(
                        1551,
                        "HY000",
                        "Same old and new event name",
                    ));
                }
                if storage.event(&to_db, &to_name).is_some() {
                    return Err(already_exists(&to_name));
                }
                Some((to_db, to_name))
            }
            None => None,
        };
        let old = storage
            .event(&db, name)
            .ok_or_else(|| unknown_event(name))?;
        let mut new = (*old).clone();
        let now = self.statement_seconds();
        new.preserve = c.preserve.unwrap_or(old.preserve);
        if let Some(s) = &c.schedule {
            let times = self.schedule_times(s, Some(&old))?;
            if times.past(now) {
                if !new.preserve {
                    return Err(MySqlError::new(
                        1589,
                        "HY000",
                        "Event execution time is in the past and ON COMPLETION NOT PRESERVE is set. The event was not changed. Specify a time in the future",
                    ));
                }
                if c.status.is_none() {
                    new.status = "DISABLED".into();
                    self.cx.note(
                        1544,
                        "Event execution time is in the past. Event has been disabled",
                    );
                }
            }
            new.execute_at = times.execute_at;
            new.interval_value = times.interval.map(|i| i.0);
            new.interval_field = times.interval.map(|i| i.1.name().to_string());
            new.starts = times.starts;
            new.ends = times.ends;
            new.time_zone = self.cx.var_text("time_zone");
        }
        if let Some(st) = c.status {
            new.status = self.replica_side(st).into();
        }
        if let Some(comment) = c.comment {
            new.comment = truncate_comment(comment);
        }
        if let Some(body) = c.body {
            new.body = body;
            new.sql_mode = self.cx.var_text("sql_mode");
        }
        (new.definer_user, new.definer_host) = self.event_definer(definer)?;
        if let Some((to_db, to_name)) = target {
            new.schema = to_db;
            new.name = to_name;
        }
        new.last_altered = now;
        storage
            .alter_event(&db, &old.name, new)
            .map_err(|e| match e {
                basalt_storage::StorageError::TableExists(n) => already_exists(&n),
                basalt_storage::StorageError::NoSuchTable { .. } => unknown_event(name),
                other => MySqlError::from(other),
            })?;
        self.event_changed();
        Ok(self.ok_with_warnings())
    }

    fn drop_event(&mut self, if_exists: bool, db: Option<String>, name: &str) -> R<QueryResult> {
        check_name(name)?;
        let db = match db {
            Some(d) => d,
            None => self.cx.db.clone().ok_or_else(MySqlError::no_db)?,
        };
        self.cx.require_db(&db, Privs::EVENT)?;
        let storage = self.cx.engine.storage.clone();
        if !storage.drop_event(&db, name).map_err(MySqlError::from)? {
            if !if_exists {
                return Err(unknown_event(name));
            }
            self.cx.note(1305, format!("Event {name} does not exist"));
            return Ok(self.ok_with_warnings());
        }
        self.event_changed();
        Ok(QueryResult::ok(0))
    }

    /// An enabled event that replication creates runs on the primary only.
    fn replica_side(&self, status: &'static str) -> &'static str {
        if self.cx.replica_applier && status == "ENABLED" {
            "SLAVESIDE_DISABLED"
        } else {
            status
        }
    }

    /// After a change: the statement goes to the binary log, the scheduler
    /// looks again.
    fn event_changed(&mut self) {
        self.ddl_to_log = true;
        self.cx.engine.events.wake();
    }

    /// Warning 1105 when the scheduler is off (MariaDB's CREATE gives it).
    fn warn_scheduler_off(&mut self) {
        if !self.cx.engine.events.is_on() {
            self.cx.warn(
                Level::Warning,
                1105,
                "Event scheduler is switched off, use SET GLOBAL event_scheduler=ON to enable it.",
            );
        }
    }

    /// The time the statement started, whole seconds since the epoch.
    fn statement_seconds(&self) -> i64 {
        self.cx.clock().unix_seconds()
    }

    /// The definer: the one written (another account's needs SUPER or SET
    /// USER: 1227; note 1449 when the account does not exist), else the
    /// current account.
    fn event_definer(&mut self, definer: Option<Definer>) -> R<(String, String)> {
        let current = match &self.cx.privs.account {
            Some((u, h)) => (u.clone(), h.clone()),
            None => (self.cx.user.clone(), self.cx.host.clone()),
        };
        let Some(Definer::Account { user, host }) = definer else {
            return Ok(current);
        };
        if (user.as_str(), host.as_str()) != (current.0.as_str(), current.1.as_str()) {
            self.cx
                .require_global(Privs::SUPER | Privs::SET_USER, "SUPER, SET USER")?;
        }
        let exists = self
            .cx
            .engine
            .acl
            .snapshot()
            .account(&user, &host)
            .is_some();
        if !exists {
            self.cx.note(
                1449,
                format!("The user specified as a definer ('{user}'@'{host}') does not exist"),
            );
        }
        Ok((user, host))
    }

    /// The body compiles as a program in the event's database; CREATE EVENT
    /// inside it is 1576.
    fn check_event_body(&mut self, db: &str, body: &str, line0: u32) -> R<()> {
        let saved = self.cx.db.replace(db.to_string());
        let compiled = self.compile_program(None, &[], body, Some(line0));
        self.cx.db = saved;
        let compiled = compiled?;
        for i in &compiled.program.instrs {
            if let crate::sp::Instr::Sql(code) = i {
                creates_program(&code.text)?;
            }
        }
        Ok(())
    }

    /// Evaluates `ON SCHEDULE` in the session's time zone. ALTER passes the
    /// old event: an EVERY without ENDS keeps its ENDS.
    fn schedule_times(&mut self, s: &ScheduleText, old: Option<&EventDef>) -> R<Times> {
        match s {
            ScheduleText::At(at) => Ok(Times {
                execute_at: Some(self.schedule_time(at, "AT")?),
                interval: None,
                starts: None,
                ends: None,
            }),
            ScheduleText::Every {
                quantity,
                unit,
                starts,
                ends,
            } => {
                let field = Field::from_name(unit)?;
                let q = self.eval_standalone(quantity)?;
                if q == Value::Null {
                    return Err(incorrect("INTERVAL", "NULL"));
                }
                let value = schedule::stored_interval(&q.display_lossy(), field)?;
                let starts = match starts {
                    Some(t) => self.schedule_time(t, "STARTS")?,
                    None => self.statement_seconds(),
                };
                let ends = match ends {
                    Some(t) => Some(self.schedule_time(t, "ENDS").map_err(|_| ends_error())?),
                    None => old.and_then(|o| o.ends.filter(|_| o.interval_value.is_some())),
                };
                if ends.is_some_and(|e| e <= starts) {
                    return Err(ends_error());
                }
                Ok(Times {
                    execute_at: None,
                    interval: Some((value, field)),
                    starts: Some(starts),
                    ends,
                })
            }
        }
    }

    /// A schedule time: the expression as a DATETIME in the session's time
    /// zone, fractions dropped; 1525 naming the clause when it is none.
    fn schedule_time(&mut self, text: &str, clause: &str) -> R<i64> {
        let v = self.eval_standalone(&format!("CAST(({text}) AS DATETIME)"))?;
        let Value::DateTime(local) = v else {
            let raw = self.eval_standalone(text).unwrap_or(Value::Null);
            let shown = match raw {
                Value::Null => "NULL".to_string(),
                other => other.display_lossy(),
            };
            return Err(incorrect(clause, &shown));
        };
        if local.date.year == 0 {
            return Err(incorrect(clause, &local.display(0).to_string()));
        }
        Ok(self.cx.to_utc(local).unix_seconds())
    }

    /// Puts this session in the shoes of event `e`'s run: the definer's
    /// privileges (1449 when the account is gone), its database, sql_mode,
    /// time zone and character sets.
    pub(crate) fn enter_event(&mut self, e: &EventDef) -> R<()> {
        let acl = &self.cx.engine.acl;
        if acl
            .snapshot()
            .account(&e.definer_user, &e.definer_host)
            .is_none()
        {
            return Err(MySqlError::new(
                1449,
                "HY000",
                format!(
                    "The user specified as a definer ('{}'@'{}') does not exist",
                    e.definer_user, e.definer_host
                ),
            ));
        }
        let mut privs = crate::account::SessionPrivs::for_account(&e.definer_user, &e.definer_host);
        privs.refresh(acl);
        self.cx.privs = privs;
        self.cx.db = Some(e.schema.clone());
        for (name, value) in [
            ("sql_mode", &e.sql_mode),
            ("time_zone", &e.time_zone),
            ("character_set_client", &e.character_set_client),
            ("collation_connection", &e.collation_connection),
        ] {
            self.cx.vars.insert(name, Value::str(value));
        }
        self.cx.refresh_derived();
        Ok(())
    }
}

/// `SET GLOBAL event_scheduler`: DISABLED (or 2) is a start-up value only;
/// MariaDB names the value as written (1231).
pub(super) fn check_scheduler_value(v: &Value) -> R<()> {
    let disabled = match v {
        Value::Int(2) | Value::UInt(2) => true,
        Value::Bytes(b) => b.eq_ignore_ascii_case(b"DISABLED"),
        _ => false,
    };
    if disabled {
        return Err(MySqlError::wrong_value_for_var(
            "event_scheduler",
            &v.display_lossy(),
        ));
    }
    Ok(())
}

fn incorrect(clause: &str, value: &str) -> MySqlError {
    MySqlError::new(
        1525,
        "HY000",
        format!("Incorrect {clause} value: '{value}'"),
    )
}

fn ends_error() -> MySqlError {
    MySqlError::new(1543, "HY000", "ENDS is either invalid or before STARTS")
}

/// MariaDB keeps the first 64 characters of an event's comment.
fn truncate_comment(c: String) -> String {
    match c.char_indices().nth(64) {
        Some((i, _)) => c[..i].to_string(),
        None => c,
    }
}

/// CREATE EVENT in an event's body is 1576; CREATE PROCEDURE / FUNCTION /
/// TRIGGER 1303, as in any stored program.
fn creates_program(text: &str) -> R<()> {
    use crate::front::native::routine::RoutineStmt;
    use crate::front::native::Native;
    let l = crate::front::lexer::lex(text);
    let kind = match crate::front::native::parse_native(text, &l.tokens, false) {
        Ok(Some(Native::Event(EventStmt::Create { .. }))) => {
            return Err(MySqlError::new(
                1576,
                "HY000",
                "Recursion of EVENT DDL statements is forbidden when body is present",
            ))
        }
        Ok(Some(Native::Routine(RoutineStmt::Create(c)))) => c.kind,
        Ok(Some(Native::Routine(RoutineStmt::CreateTrigger(_)))) => "TRIGGER",
        _ => return Ok(()),
    };
    Err(MySqlError::new(
        1303,
        "2F003",
        format!("Can't create a {kind} from within another stored routine"),
    ))
}
