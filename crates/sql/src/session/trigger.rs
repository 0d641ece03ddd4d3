//! CREATE TRIGGER and DROP TRIGGER: the definition is checked as MariaDB
//! checks it at CREATE (its table, its name, its body compiled and bound with
//! the table's row: NEW / OLD that the event lacks, unknown columns, writes to
//! OLD or to NEW after the fact, statements a trigger may not run) and kept in
//! the catalog with the session settings it runs under.

use super::Session;
use crate::front::native::trigger::CreateTrigger;
use crate::front::native::view::Definer;
use crate::result::QueryResult;
use crate::sp::trigger::{Event, Timing};
use basalt_common::{MySqlError, TableDef, Value};
use basalt_storage::TriggerDef;
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// 1360.
pub fn no_such_trigger() -> MySqlError {
    MySqlError::new(1360, "HY000", "Trigger does not exist")
}

impl Session {
    pub(super) fn create_trigger(&mut self, c: CreateTrigger) -> R<QueryResult> {
        self.begin_create_program("TRIGGER", c.or_replace, c.if_not_exists)?;
        let table_db = match c.table_db.clone().or_else(|| c.db.clone()) {
            Some(d) => d,
            None => self.cx.db.clone().ok_or_else(MySqlError::no_db)?,
        };
        let table = self.trigger_table(&table_db, &c.table)?;
        let db =
            c.db.clone()
                .or_else(|| self.cx.db.clone())
                .unwrap_or_else(|| table_db.clone());
        if db != table_db {
            return Err(MySqlError::new(1435, "HY000", "Trigger in wrong schema"));
        }
        self.cx
            .require_table(&db, &c.table, basalt_acl::Privs::TRIGGER, "TRIGGER")?;
        let storage = self.cx.engine.storage.clone();
        if storage.trigger(&db, &c.name).is_some() && !c.or_replace {
            let e = MySqlError::new(
                1359,
                "HY000",
                format!("Trigger '{db}.{}' already exists", c.name),
            );
            if c.if_not_exists {
                self.cx.note(e.code, e.message);
                return Ok(self.ok_with_warnings());
            }
            return Err(e);
        }
        let def = self.trigger_def(&c, db, &table)?;
        let saved_db = self.cx.db.replace(def.schema.clone());
        let checked = self.check_trigger(&def, &table, c.body_line);
        self.cx.db = saved_db;
        checked?;
        storage
            .create_trigger(def, c.or_replace, &c.order)
            .map_err(MySqlError::from)?;
        self.ddl_to_log = true;
        Ok(QueryResult::ok(0))
    }

    /// The base table a trigger goes on: 1146 when missing, 1361 for a
    /// temporary table, 1347 for a view.
    fn trigger_table(&self, db: &str, name: &str) -> R<Arc<TableDef>> {
        if self.cx.temp.contains(db, name) {
            return Err(MySqlError::new(
                1361,
                "HY000",
                format!("Trigger's '{name}' is a view, temporary table or sequence"),
            ));
        }
        let storage = &self.cx.engine.storage;
        if storage.view(db, name).is_some() {
            return Err(MySqlError::new(
                1347,
                "HY000",
                format!("'{db}.{name}' is not of type 'BASE TABLE'"),
            ));
        }
        storage
            .table(db, name)
            .map(|t| t.def())
            .ok_or_else(|| MySqlError::no_such_table(db, name))
    }

    fn trigger_def(&self, c: &CreateTrigger, db: String, table: &TableDef) -> R<TriggerDef> {
        let (user, host) = match &c.definer {
            Some(Definer::Account { user, host }) => (user.clone(), host.clone()),
            _ => match &self.cx.privs.account {
                Some((u, h)) => (u.clone(), h.clone()),
                None => (self.cx.user.clone(), self.cx.host.clone()),
            },
        };
        let db_collation = self
            .cx
            .engine
            .storage
            .database_collation(&db)
            .map(|c| c.name().to_string())
            .unwrap_or_default();
        Ok(TriggerDef {
            schema: db,
            name: c.name.clone(),
            table: table.name.clone(),
            timing: c.timing.to_string(),
            event: c.event.to_string(),
            body: c.body.clone(),
            statement: c.statement.clone(),
            definer_user: user,
            definer_host: host,
            sql_mode: self.cx.var_text("sql_mode"),
            character_set_client: self.cx.var_text("character_set_client"),
            collation_connection: self.cx.var_text("collation_connection"),
            database_collation: db_collation,
            created: self.centiseconds_now(),
        })
    }

    /// The time now as `YYYY-MM-DD hh:mm:ss.cc`.
    fn centiseconds_now(&self) -> String {
        let now = Value::DateTime(self.cx.local(self.cx.clock())).display_lossy();
        let (whole, frac) = now.split_once('.').unwrap_or((now.as_str(), ""));
        let cc: String = frac.chars().chain("00".chars()).take(2).collect();
        format!("{whole}.{cc}")
    }

    /// What MariaDB refuses in a trigger's body at CREATE.
    fn check_trigger(&mut self, def: &TriggerDef, table: &Arc<TableDef>, line0: u32) -> R<()> {
        let (event, timing) = crate::bind::trigger::kind(def);
        let params = crate::bind::trigger::row_params(table, event);
        let tree = crate::sp::parse::parse_body_checked(&def.body, line0)?;
        // Row types are resolved when the trigger binds (below).
        let program = crate::sp::compile::compile(&tree, &params, &mut crate::sp::NoCatalog)?;
        for (name, ty) in program.slot_types.iter().skip(params.len()) {
            self.slot_def(name, ty)?;
        }
        for i in &program.instrs {
            match i {
                crate::sp::Instr::Sql(code) => {
                    let rows = crate::bind::stored_fn::TriggerRows {
                        event,
                        before: timing == crate::sp::trigger::Timing::Before,
                    };
                    crate::bind::trigger::check_row_set(&rows, &code.text)?;
                    crate::bind::stored_fn::check_statement(&code.text).map_err(for_trigger)?;
                }
                crate::sp::Instr::Assign { slot, .. } if *slot < params.len() => {
                    check_row_write(event, timing, *slot, table.columns.len())?;
                }
                _ => {}
            }
        }
        let storage = self.cx.engine.storage.clone();
        let bound = crate::bind::trigger::bind_trigger(
            &storage,
            &self.cx,
            def,
            table,
            Vec::new(),
            Vec::new(),
        )?;
        for i in &bound.instrs {
            if let crate::sp::function::FInstr::Fail(e) = i {
                let row_error = e.code == 1363
                    || (e.code == 1054
                        && (e.message.ends_with("in 'NEW'") || e.message.ends_with("in 'OLD'")));
                if row_error {
                    return Err(e.clone());
                }
            }
        }
        Ok(())
    }

    pub(super) fn drop_trigger(
        &mut self,
        if_exists: bool,
        db: Option<String>,
        name: &str,
    ) -> R<QueryResult> {
        self.implicit_commit()?;
        let db = match db {
            Some(d) => d,
            None => self.cx.db.clone().ok_or_else(MySqlError::no_db)?,
        };
        let storage = self.cx.engine.storage.clone();
        let Some(t) = storage.trigger(&db, name) else {
            if !if_exists {
                return Err(no_such_trigger());
            }
            let e = no_such_trigger();
            self.cx.note(e.code, e.message);
            return Ok(self.ok_with_warnings());
        };
        self.cx
            .require_table(&db, &t.table, basalt_acl::Privs::TRIGGER, "TRIGGER")?;
        let dropped = storage.drop_trigger(&db, name).map_err(MySqlError::from)?;
        self.ddl_to_log = dropped;
        Ok(QueryResult::ok(0))
    }

    /// An OK reporting the statement's warning count.
    pub(super) fn ok_with_warnings(&self) -> QueryResult {
        QueryResult::Ok {
            affected_rows: 0,
            last_insert_id: 0,
            info: String::new(),
            warnings: self.warning_count(),
        }
    }
}

/// `SET NEW.col` / `SET OLD.col` compiled to an assignment of row slot `slot`:
/// OLD is read-only (1362), and so is NEW in an AFTER trigger.
fn check_row_write(event: Event, timing: Timing, slot: usize, width: usize) -> R<()> {
    let old = event == Event::Delete || (event == Event::Update && slot >= width);
    if old {
        return Err(MySqlError::new(
            1362,
            "HY000",
            "Updating of OLD row is not allowed in trigger",
        ));
    }
    if timing == Timing::After {
        return Err(MySqlError::new(
            1362,
            "HY000",
            "Updating of NEW row is not allowed in after trigger",
        ));
    }
    Ok(())
}

/// A function's 1415 says "from a trigger" for a trigger.
fn for_trigger(e: MySqlError) -> MySqlError {
    if e.code == 1415 {
        return MySqlError::new(
            1415,
            "0A000",
            "Not allowed to return a result set from a trigger",
        );
    }
    e
}
