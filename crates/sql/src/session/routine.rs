//! CREATE / ALTER / DROP PROCEDURE and the statements about routines: the
//! definition is checked (parsed and compiled, as MariaDB parses a body at
//! CREATE) and kept in the catalog with the session settings it runs under.

use super::{Out, Session};
use crate::front::native::routine::{Characteristics, CreateRoutine, RoutineStmt};
use crate::front::native::view::Definer;
use crate::result::QueryResult;
use basalt_common::{MySqlError, Value};
use basalt_storage::RoutineDef;

type R<T> = Result<T, MySqlError>;

impl Session {
    pub(super) fn routine_statement(
        &mut self,
        st: RoutineStmt,
        out: &mut Out<'_>,
    ) -> R<QueryResult> {
        match st {
            RoutineStmt::Create(c) => self.create_routine(*c),
            RoutineStmt::Alter {
                kind,
                db,
                name,
                chars,
            } => self.alter_routine(kind, db, &name, chars),
            RoutineStmt::Drop {
                kind,
                if_exists,
                db,
                name,
            } => self.drop_routine(kind, if_exists, db, &name),
            RoutineStmt::Call { db, name, args } => {
                let args = match self.call_markers.take() {
                    Some(m) => m.args(&args),
                    None => args.into_iter().map(super::call::CallArg::Text).collect(),
                };
                self.call(db, &name, &args, out)
            }
            RoutineStmt::Compound(text) => self.run_compound(&text, out),
            RoutineStmt::CreateTrigger(c) => self.create_trigger(*c),
            RoutineStmt::DropTrigger {
                if_exists,
                db,
                name,
            } => self.drop_trigger(if_exists, db, &name),
        }
    }

    fn routine_db(&self, db: Option<String>) -> R<String> {
        let db = match db {
            Some(d) => d,
            None => self.cx.db.clone().ok_or_else(MySqlError::no_db)?,
        };
        if !self.cx.engine.storage.database_exists(&db) {
            return Err(MySqlError::bad_db(&db));
        }
        Ok(db)
    }

    /// What CREATE PROCEDURE / FUNCTION / TRIGGER check first: not inside a
    /// program (1303), not OR REPLACE with IF NOT EXISTS (1221); then the
    /// implicit commit.
    pub(super) fn begin_create_program(
        &mut self,
        kind: &str,
        or_replace: bool,
        if_not_exists: bool,
    ) -> R<()> {
        if self.sp_depth > 0 {
            return Err(MySqlError::new(
                1303,
                "2F003",
                format!("Can't create a {kind} from within another stored routine"),
            ));
        }
        if or_replace && if_not_exists {
            return Err(MySqlError::new(
                1221,
                "HY000",
                "Incorrect usage of OR REPLACE and IF NOT EXISTS",
            ));
        }
        self.implicit_commit()
    }

    fn create_routine(&mut self, mut c: CreateRoutine) -> R<QueryResult> {
        self.begin_create_program(c.kind, c.or_replace, c.if_not_exists)?;
        let db = self.routine_db(c.db.clone())?;
        self.cx.require_db(&db, basalt_acl::Privs::CREATE_PROC)?;
        if c.name.len() > 64 || c.name.is_empty() || c.name.ends_with(' ') {
            return Err(MySqlError::new(
                1458,
                "42000",
                format!("Incorrect routine name '{}'", c.name),
            ));
        }
        let storage = self.cx.engine.storage.clone();
        if storage.routine(&db, c.kind, &c.name).is_some() && !c.or_replace {
            let e = MySqlError::new(
                1304,
                "42000",
                format!("{} {} already exists", c.kind, c.name),
            );
            if c.if_not_exists {
                self.cx.note(e.code, e.message);
                return Ok(self.ok_with_warnings());
            }
            return Err(e);
        }
        let function = c.kind == "FUNCTION";
        if function {
            self.check_binlog_safe(&c.chars)?;
        }
        let params = crate::sp::parse_params(&c.params, function)?;
        // The body must compile (in the routine's database, as it will run).
        let saved_db = self.cx.db.replace(db.clone());
        let checked = if function {
            self.check_function(&mut c, &params)
        } else {
            self.compile_program(None, &params, &c.body, Some(c.body_line))
                .map(|_| ())
        };
        self.cx.db = saved_db;
        checked?;
        let (user, host) = match &c.definer {
            Some(Definer::Account { user, host }) => (user.clone(), host.clone()),
            _ => (self.cx.user.clone(), self.routine_definer_host()),
        };
        let now = Value::DateTime(self.cx.local(self.cx.clock())).display_lossy();
        let now = now.split('.').next().unwrap_or_default().to_string();
        let db_collation = storage
            .database_collation(&db)
            .map(|c| c.name().to_string())
            .unwrap_or_default();
        let def = RoutineDef {
            schema: db,
            name: c.name.clone(),
            kind: c.kind.to_string(),
            params: c.params.clone(),
            returns: c.returns.clone(),
            body: c.body.clone(),
            deterministic: c.chars.deterministic.unwrap_or(false),
            data_access: c.chars.data_access.unwrap_or_else(|| "CONTAINS SQL".into()),
            security: c.chars.security.unwrap_or_else(|| "DEFINER".into()),
            comment: c.chars.comment.unwrap_or_default(),
            definer_user: user,
            definer_host: host,
            sql_mode: self.cx.var_text("sql_mode"),
            character_set_client: self.cx.var_text("character_set_client"),
            collation_connection: self.cx.var_text("collation_connection"),
            database_collation: db_collation,
            created: now.clone(),
            modified: now,
        };
        storage
            .create_routine(def, c.or_replace)
            .map_err(MySqlError::from)?;
        self.ddl_to_log = true;
        Ok(QueryResult::ok(0))
    }

    /// A function's RETURNS type (kept as MariaDB prints it), variables and
    /// statements: a statement that
    /// would send rows is 1415, one that commits 1422, dynamic SQL 1336.
    fn check_function(&mut self, c: &mut CreateRoutine, params: &[crate::sp::ParamDef]) -> R<()> {
        let ret = self.slot_def(&c.name, &c.returns)?;
        c.returns = crate::sp::returns_text(&ret);
        let tree = crate::sp::parse::parse_body_checked(&c.body, c.body_line)?;
        let db = self.cx.db.clone().unwrap_or_default();
        let name = format!("{db}.{}", c.name);
        let program = {
            let mut catalog = self.catalog();
            catalog.creating = true;
            crate::sp::compile::compile_function(&tree, params, &name, &mut catalog)?
        };
        for (name, ty) in &program.slot_types {
            self.slot_def(name, ty)?;
        }
        for i in &program.instrs {
            if let crate::sp::Instr::Sql(code) = i {
                crate::bind::stored_fn::check_statement(&code.text)?;
            }
        }
        Ok(())
    }

    /// 1418: with binary logging on, a function must declare itself
    /// DETERMINISTIC, NO SQL or READS SQL DATA unless
    /// `log_bin_trust_function_creators` is set (MariaDB).
    fn check_binlog_safe(&self, chars: &Characteristics) -> R<()> {
        let safe = chars.deterministic == Some(true)
            || matches!(
                chars.data_access.as_deref(),
                Some("NO SQL") | Some("READS SQL DATA")
            );
        let trusted = matches!(
            self.cx
                .engine
                .globals
                .get("log_bin_trust_function_creators"),
            Some(Value::Int(1))
        );
        if safe || trusted || !self.cx.logs_to_binlog() {
            return Ok(());
        }
        Err(MySqlError::new(
            1418,
            "HY000",
            "This function has none of DETERMINISTIC, NO SQL, or READS SQL DATA in its declaration and binary logging is enabled (you *might* want to use the less safe log_bin_trust_function_creators variable)",
        ))
    }

    /// The host part of the current account as a definer records it.
    fn routine_definer_host(&self) -> String {
        match &self.cx.privs.account {
            Some((_, h)) => h.clone(),
            None => self.cx.host.clone(),
        }
    }

    fn alter_routine(
        &mut self,
        kind: &'static str,
        db: Option<String>,
        name: &str,
        chars: Characteristics,
    ) -> R<QueryResult> {
        self.implicit_commit()?;
        let db = self.routine_db(db)?;
        let storage = self.cx.engine.storage.clone();
        let old = storage
            .routine(&db, kind, name)
            .ok_or_else(|| super::call::does_not_exist(kind, &db, name))?;
        self.cx.require_db(&db, basalt_acl::Privs::ALTER_PROC)?;
        let mut def = (*old).clone();
        if let Some(d) = chars.deterministic {
            def.deterministic = d;
        }
        if let Some(a) = chars.data_access {
            def.data_access = a;
        }
        if let Some(s) = chars.security {
            def.security = s;
        }
        if let Some(c) = chars.comment {
            def.comment = c;
        }
        let now = Value::DateTime(self.cx.local(self.cx.clock())).display_lossy();
        def.modified = now.split('.').next().unwrap_or_default().to_string();
        storage
            .create_routine(def, true)
            .map_err(MySqlError::from)?;
        self.ddl_to_log = true;
        Ok(QueryResult::ok(0))
    }

    fn drop_routine(
        &mut self,
        kind: &'static str,
        if_exists: bool,
        db: Option<String>,
        name: &str,
    ) -> R<QueryResult> {
        if self.sp_depth > 0 {
            return Err(MySqlError::new(
                1357,
                "HY000",
                format!("Can't drop or alter a {kind} from within another stored routine"),
            ));
        }
        self.implicit_commit()?;
        let db = match db {
            Some(d) => d,
            None => self.cx.db.clone().ok_or_else(MySqlError::no_db)?,
        };
        let storage = self.cx.engine.storage.clone();
        if storage.routine(&db, kind, name).is_some() {
            self.cx.require_db(&db, basalt_acl::Privs::ALTER_PROC)?;
        }
        let dropped = storage
            .drop_routine(&db, kind, name)
            .map_err(MySqlError::from)?;
        if !dropped {
            let e = super::call::does_not_exist(kind, &db, name);
            if !if_exists {
                return Err(e);
            }
            self.cx.note(e.code, e.message);
        }
        self.ddl_to_log = dropped;
        Ok(self.ok_with_warnings())
    }
}
