//! SET: system variables, user variables, SET NAMES / CHARACTER SET.

use super::Session;
use crate::bind::{Binder, Scope};
use crate::front::native::{SetItem, SetTarget};
use crate::result::QueryResult;
use crate::sysvars::{self, Kind, Scope as VarScope};
use basalt_common::{Charset, Collation, MySqlError, Value};

type R<T> = Result<T, MySqlError>;

impl Session {
    /// Evaluates an expression that reads no table (SET values).
    pub(super) fn eval_standalone(&mut self, text: &str) -> R<Value> {
        self.eval_standalone_typed(text).map(|(v, _)| v)
    }

    /// [`Session::eval_standalone`] with the expression's fractional digits.
    fn eval_standalone_typed(&mut self, text: &str) -> R<(Value, u8)> {
        let ast = crate::front::parse::parse_expr(text)?;
        let storage = self.cx.engine.storage.clone();
        let (expr, ty) = {
            let mut b = Binder::new(&storage, &self.cx, text, None);
            b.expr(&ast, &Scope::default(), None)?
        };
        // SET @x = SLEEP(n) stops for KILL QUERY and max_statement_time too.
        Ok((self.eval_detached(&expr)?, ty.decimals))
    }

    pub(super) fn run_set(&mut self, items: Vec<SetItem>) -> R<QueryResult> {
        // Evaluate every value first, then assign (MySQL checks all before changing).
        let mut resolved = Vec::with_capacity(items.len());
        for it in items {
            let v = self.set_value(&it)?;
            resolved.push((it.target, v));
        }
        for (target, v) in resolved {
            match target {
                SetTarget::User(name) => {
                    self.cx.user_vars.insert(name, v.unwrap_or(Value::Null));
                }
                SetTarget::Sys { name, global, .. } => match v {
                    Some(v) => self.assign_sysvar(&name, v, global)?,
                    None => self.reset_sysvar(&name, global)?,
                },
            }
        }
        Ok(QueryResult::ok(0))
    }

    /// The value to assign; `None` for DEFAULT.
    pub(super) fn set_value(&mut self, it: &SetItem) -> R<Option<Value>> {
        if let SetTarget::Sys {
            name,
            global,
            scoped,
        } = &it.target
        {
            let def =
                sysvars::lookup(name).ok_or_else(|| MySqlError::unknown_system_variable(name))?;
            check_scope(def, *global, *scoped)?;
            if it.bare_word {
                let w = it.value.to_ascii_uppercase();
                return Ok(match w.as_str() {
                    "DEFAULT" => None,
                    "NULL" => Some(Value::Null),
                    "TRUE" => Some(Value::Int(1)),
                    "FALSE" => Some(Value::Int(0)),
                    _ => Some(Value::str(&it.value)),
                });
            }
            return Ok(Some(self.eval_standalone(&it.value)?));
        }
        let (v, fsp) = self.eval_standalone_typed(&it.value)?;
        Ok(Some(crate::value::user_var_value(v, fsp)))
    }

    pub(super) fn reset_sysvar(&mut self, name: &str, global: bool) -> R<()> {
        let def = sysvars::lookup(name).ok_or_else(|| MySqlError::unknown_system_variable(name))?;
        let v = if global {
            def.initial(&self.cx.engine.config)
        } else {
            self.cx
                .engine
                .globals
                .get(def.name)
                .unwrap_or_else(|| def.initial(&self.cx.engine.config))
        };
        self.assign_sysvar(def.name, v, global)
    }

    /// Assigns a system variable, with MariaDB's scope and value checks and the
    /// side effects some variables have.
    pub(super) fn assign_sysvar(&mut self, name: &str, v: Value, global: bool) -> R<()> {
        let def = sysvars::lookup(name).ok_or_else(|| MySqlError::unknown_system_variable(name))?;
        let def = sysvars::lookup(sysvars::canonical(def.name)).unwrap_or(def);
        check_scope(def, global, global)?;
        match def.name {
            "last_insert_id" | "identity" => {
                self.cx.last_insert_id = unsigned(&v);
                return Ok(());
            }
            "timestamp" => {
                self.cx.fixed_time = fixed_time(&v)?;
                return Ok(());
            }
            "gtid_slave_pos" => return self.set_gtid_slave_pos(&v.display_lossy()),
            n if n.starts_with("replicate_") => return self.set_replicate_rule(def.name, v),
            _ => {}
        }
        let v = self.cx.checked_sysvar(def, v, global)?;
        if def.name == "slow_query_log" && !global {
            self.slow_log_choice = Some(v == Value::Int(1));
        }
        if global {
            let v = self.event_scheduler_setting(def.name, v)?;
            let v = self.general_log_setting(def.name, v)?;
            let v = self.slow_log_setting(def.name, v)?;
            self.binlog_setting(def.name, &v)?;
            self.cx.engine.globals.set(def, v);
            if def.name == "sql_mode" || def.name == "autocommit" {
                self.cx.engine.plan_cache.clear();
            }
            return Ok(());
        }
        if def.name == "autocommit" && v == Value::Int(1) && !self.cx.autocommit {
            self.commit()?;
        }
        self.cx.store_session_var(def, v);
        self.memo.clear();
        self.track_variable(def.name);
        Ok(())
    }

    /// `event_scheduler`: ON starts the scheduler, OFF stops it; DISABLED is
    /// only a start-up value (1231 here), and a server started with it refuses
    /// any change (1290).
    fn event_scheduler_setting(&mut self, name: &str, v: Value) -> R<Value> {
        if name != "event_scheduler" {
            return Ok(v);
        }
        let engine = self.cx.engine.clone();
        if engine.config.event_scheduler == "DISABLED" {
            return Err(MySqlError::new(
                1290,
                "HY000",
                "The MariaDB server is running with the --event-scheduler=DISABLED or --skip-grant-tables option so it cannot execute this statement",
            ));
        }
        // ORIGINAL: the value the server started with.
        let v = match v.display_lossy().as_str() {
            "ORIGINAL" => Value::str(&engine.config.event_scheduler),
            _ => v,
        };
        match v.display_lossy().as_str() {
            "ON" => engine.start_event_scheduler(),
            "OFF" => engine.stop_event_scheduler(),
            other => return Err(MySqlError::wrong_value_for_var(name, other)),
        }
        Ok(v)
    }

    /// `general_log`, `general_log_file`, `log_output`: validated, then applied to
    /// the log (which opens or closes its file) before the value is stored.
    fn general_log_setting(&mut self, name: &str, v: Value) -> R<Value> {
        if !matches!(name, "general_log" | "general_log_file" | "log_output") {
            return Ok(v);
        }
        let globals = &self.cx.engine.globals;
        let current = |n: &str| globals.get(n).unwrap_or(Value::Null);
        let v = if name == "log_output" {
            log_output(&v)?
        } else {
            v
        };
        let on = if name == "general_log" {
            v.clone()
        } else {
            current("general_log")
        };
        let file = if name == "general_log_file" {
            v.clone()
        } else {
            current("general_log_file")
        };
        let output = if name == "log_output" {
            v.clone()
        } else {
            current("log_output")
        };
        let out = crate::general_log::Outputs::parse(&output.display_lossy());
        let path = self.cx.engine.log_path(&file.display_lossy());
        self.cx
            .engine
            .general_log
            .configure(on == Value::Int(1), out, &path)
            .map_err(|e| {
                tracing::warn!("general log: cannot open {}: {e}", path.display());
                crate::general_log::bad_file(&file.display_lossy())
            })?;
        Ok(v)
    }

    /// `slow_query_log`, `slow_query_log_file`, `log_output`: applied to the
    /// slow log (which opens or closes its file) before the value is stored.
    fn slow_log_setting(&mut self, name: &str, v: Value) -> R<Value> {
        if !matches!(
            name,
            "slow_query_log" | "slow_query_log_file" | "log_output"
        ) {
            return Ok(v);
        }
        let globals = &self.cx.engine.globals;
        let pick = |n: &str| {
            if n == name {
                v.clone()
            } else {
                globals.get(n).unwrap_or(Value::Null)
            }
        };
        let (on, file, output) = (
            pick("slow_query_log"),
            pick("slow_query_log_file"),
            pick("log_output"),
        );
        let out = crate::general_log::Outputs::parse(&output.display_lossy());
        let path = self.cx.engine.log_path(&file.display_lossy());
        self.cx
            .engine
            .slow_log
            .configure(on == Value::Int(1), out, &path)
            .map_err(|e| {
                tracing::warn!("slow query log: cannot open {}: {e}", path.display());
                crate::slow_log::bad_file(&file.display_lossy())
            })?;
        Ok(v)
    }

    /// `SET NAMES cs [COLLATE c]`.
    pub(super) fn set_names(
        &mut self,
        charset: Option<String>,
        collation: Option<String>,
    ) -> R<QueryResult> {
        let cs_name = charset.unwrap_or_else(|| "utf8mb4".into());
        let cs = Charset::from_name(&cs_name)
            .ok_or_else(|| MySqlError::unknown_character_set(&cs_name))?;
        crate::sysvars::client_charset("character_set_client", cs)?;
        let coll = match collation {
            Some(c) => {
                let coll =
                    Collation::from_name(&c).ok_or_else(|| MySqlError::unknown_collation(&c))?;
                if coll.charset() != cs {
                    return Err(MySqlError::collation_charset_mismatch(
                        coll.name(),
                        cs.name(),
                    ));
                }
                coll
            }
            None => cs.default_collation(),
        };
        for var in [
            "character_set_client",
            "character_set_connection",
            "character_set_results",
        ] {
            self.cx.vars.insert(var, Value::str(cs.name()));
        }
        self.cx
            .vars
            .insert("collation_connection", Value::str(coll.name()));
        self.cx.refresh_derived();
        for name in [
            "character_set_client",
            "character_set_connection",
            "character_set_results",
            "collation_connection",
        ] {
            self.track_variable(name);
        }
        Ok(QueryResult::ok(0))
    }

    /// `SET CHARACTER SET cs`.
    pub(super) fn set_charset(&mut self, charset: Option<String>) -> R<QueryResult> {
        let cs_name = charset.unwrap_or_else(|| "utf8mb4".into());
        let cs = Charset::from_name(&cs_name)
            .ok_or_else(|| MySqlError::unknown_character_set(&cs_name))?;
        crate::sysvars::client_charset("character_set_client", cs)?;
        self.cx
            .vars
            .insert("character_set_client", Value::str(cs.name()));
        self.cx
            .vars
            .insert("character_set_results", Value::str(cs.name()));
        let db_cs = self.cx.var_text("character_set_database");
        let db_coll = self.cx.var_text("collation_database");
        self.cx
            .vars
            .insert("character_set_connection", Value::str(&db_cs));
        self.cx
            .vars
            .insert("collation_connection", Value::str(&db_coll));
        self.cx.refresh_derived();
        Ok(QueryResult::ok(0))
    }
}

/// A `log_output` value in canonical form: MariaDB's SET of `NONE`, `FILE`,
/// `TABLE`, members in that order (a number is the members' bitmask); NONE,
/// when present, wins (nothing is written).
fn log_output(v: &Value) -> R<Value> {
    use crate::general_log::{canonical_output, output_members};
    let canonical = match v {
        Value::Int(n) => output_members(*n as usize),
        Value::UInt(n) => output_members(*n as usize),
        Value::Bytes(_) => canonical_output(&v.display_lossy()),
        _ => None,
    };
    canonical
        .map(|c| Value::str(&c))
        .ok_or_else(|| MySqlError::wrong_value_for_var("log_output", &v.display_lossy()))
}

/// A `default_storage_engine` value under its canonical name (1286 for an engine
/// MariaDB does not know).
pub(super) fn storage_engine(v: &Value) -> R<Value> {
    let name = v.display_lossy();
    let canonical = match name.to_ascii_lowercase().as_str() {
        "innodb" => "InnoDB",
        "memory" | "heap" => "MEMORY",
        "myisam" => "MyISAM",
        "aria" => "Aria",
        _ => return Err(MySqlError::unknown_storage_engine(&name)),
    };
    Ok(Value::str(canonical))
}

pub(super) fn unsigned(v: &Value) -> u64 {
    crate::value::to_num(v).0.to_i128().unwrap_or(0).max(0) as u64
}

/// `SET timestamp = t` (seconds since the epoch, with microseconds): `None` (the
/// clock again) for 0 or DEFAULT.
pub(super) fn fixed_time(v: &Value) -> R<Option<basalt_common::DateTime>> {
    let secs = crate::value::to_f64(v);
    if !(0.0..=2_147_483_647.999_999).contains(&secs) {
        return Err(MySqlError::wrong_value_for_var(
            "timestamp",
            &v.display_lossy(),
        ));
    }
    if secs == 0.0 {
        return Ok(None);
    }
    let whole = secs.trunc();
    let micro = ((secs - whole) * 1e6).round().min(999_999.0) as u32;
    Ok(Some(basalt_common::DateTime::from_unix_seconds(
        whole as i64,
        micro,
    )))
}

/// 1621: the session value is read-only (MariaDB: max_allowed_packet,
/// net_buffer_length).
pub(super) fn session_read_only(name: &str) -> MySqlError {
    MySqlError::new(
        1621,
        "HY000",
        format!("SESSION variable '{name}' is read-only. Use SET GLOBAL to assign the value"),
    )
}

pub(crate) fn check_scope(def: &sysvars::VarDef, global: bool, scoped: bool) -> R<()> {
    if global && def.scope == VarScope::Session {
        return Err(MySqlError::session_only_variable(def.name));
    }
    if !global && def.scope == VarScope::Global {
        if def.read_only {
            return Err(MySqlError::read_only_variable(def.name));
        }
        return Err(MySqlError::global_only_variable(def.name));
    }
    let _ = scoped;
    if def.kind == Kind::Dynamic
        && !matches!(
            def.name,
            "last_insert_id" | "identity" | "timestamp" | "gtid_slave_pos"
        )
    {
        return Err(MySqlError::read_only_variable(def.name));
    }
    Ok(())
}

/// `log_slow_verbosity`: empty or `query_plan`; MariaDB's other parts
/// (`innodb`, `explain`, `engine`, `warnings`, `full`) are not written (1235).
pub(super) fn slow_verbosity(v: &Value) -> R<()> {
    let text = v.display_lossy();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if !part.eq_ignore_ascii_case("query_plan") {
            return Err(MySqlError::not_supported(&format!(
                "log_slow_verbosity={part}"
            )));
        }
    }
    Ok(())
}
