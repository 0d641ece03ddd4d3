//! The part of SET of a system variable that lives in the session context:
//! the value's checks and normalisation, and storing a session value with
//! the state derived from it. The session adds what belongs to it (COMMIT for
//! autocommit, session tracking, the statement memo); a stored function or
//! trigger, which runs with the context only, lists the variables it changed
//! in [`SessionCtx::changed_vars`] for the session to finish after the
//! statement.

use super::ctx::SessionCtx;
use crate::sysvars::{self, VarDef};
use basalt_common::{Charset, Collation, MySqlError, Value};

type R<T> = Result<T, MySqlError>;

impl SessionCtx {
    /// `v` checked for `def` as SET checks it (read-only, scope of the
    /// packet variables, value, policy), normalised (optimizer_switch merged,
    /// engine names, ranges with MariaDB's warning).
    pub(crate) fn checked_sysvar(
        &mut self,
        def: &'static VarDef,
        v: Value,
        global: bool,
    ) -> R<Value> {
        if def.read_only {
            return Err(MySqlError::read_only_variable(def.name));
        }
        if !global && matches!(def.name, "max_allowed_packet" | "net_buffer_length") {
            return Err(super::vars::session_read_only(def.name));
        }
        if def.name == "event_scheduler" {
            super::event::check_scheduler_value(&v)?;
        }
        let v = sysvars::validate(def, v)?;
        let v = if def.name == "optimizer_switch" {
            self.optimizer_switch(&v, global)?
        } else {
            v
        };
        // While the binary log is off no event is written, and the format has
        // no effect, as in a MariaDB without log_bin (a session that set
        // STATEMENT before SET GLOBAL log_bin = ON is logged in ROW).
        let logless = def.name == "binlog_format" && !self.engine.binlog_on();
        if !logless {
            super::varpolicy::check(def, &v, &def.initial(&self.engine.config))?;
        }
        let v = match def.name {
            "default_storage_engine" | "storage_engine" => super::vars::storage_engine(&v)?,
            "default_tmp_storage_engine" if v != Value::Null => super::vars::storage_engine(&v)?,
            _ => v,
        };
        let v = self.within_range(def.name, v);
        if def.name == "log_slow_verbosity" {
            super::vars::slow_verbosity(&v)?;
        }
        Ok(v)
    }

    /// Stores a session value of `def` (and its alias), with the state
    /// derived from it.
    pub(crate) fn store_session_var(&mut self, def: &'static VarDef, v: Value) {
        if def.name == "insert_id" {
            let n = super::vars::unsigned(&v);
            self.insert_id = (n > 0).then_some(n);
        }
        if let Some(alias) = sysvars::alias_of(def.name) {
            self.vars.insert(alias, v.clone());
        }
        self.vars.insert(def.name, v.clone());
        self.sync_charsets(def.name, &v);
        self.refresh_derived();
    }

    /// SET of a session variable in a stored function or trigger. MariaDB
    /// runs a routine under its own sql_mode and the character sets it was
    /// created with and restores them when it returns: a change of those is
    /// checked and ends with the function.
    pub(crate) fn set_in_function(
        &mut self,
        def: &'static VarDef,
        v: Value,
        default: bool,
    ) -> R<()> {
        let v = match default {
            true => self
                .engine
                .globals
                .get(def.name)
                .unwrap_or_else(|| def.initial(&self.engine.config)),
            false => v,
        };
        match def.name {
            "last_insert_id" | "identity" => {
                self.last_insert_id = super::vars::unsigned(&v);
                return Ok(());
            }
            "timestamp" => {
                self.fixed_time = super::vars::fixed_time(&v)?;
                return Ok(());
            }
            "autocommit" => {
                return Err(MySqlError::new(
                    1445,
                    "HY000",
                    "Not allowed to set autocommit from a stored function or trigger",
                ))
            }
            _ => {}
        }
        let v = self.checked_sysvar(def, v, false)?;
        if RESTORED_ON_RETURN.contains(&def.name) {
            return Ok(());
        }
        self.store_session_var(def, v);
        self.changed_vars.push(def.name);
        Ok(())
    }

    /// `SET optimizer_switch = 'flag=on,...'`: the current value with the named
    /// flags changed.
    fn optimizer_switch(&self, v: &Value, global: bool) -> R<Value> {
        let current = if global {
            self.engine.globals.get("optimizer_switch")
        } else {
            self.vars.get("optimizer_switch").cloned()
        };
        let current = current.map(|c| c.display_lossy()).unwrap_or_default();
        crate::plan::switch::apply(&current, &v.display_lossy())
            .map(|s| Value::str(&s))
            .map_err(|part| MySqlError::wrong_value_for_var("optimizer_switch", &part))
    }

    /// A numeric value outside the variable's range becomes the nearest bound,
    /// with MariaDB's warning.
    fn within_range(&mut self, name: &str, v: Value) -> Value {
        let (min, max) = match name {
            "max_session_mem_used" => (crate::exec::mem::MIN_LIMIT, u64::MAX),
            "optimizer_search_depth" => (0, 62),
            "div_precision_increment" => (0, 38),
            "join_cache_level" => (0, 8),
            "rpl_semi_sync_master_timeout" => (0, u64::from(u32::MAX)),
            "thread_pool_size" => (1, 100_000),
            "thread_pool_max_threads" => (1, 65_536),
            "thread_pool_stall_limit" => (1, u64::from(u32::MAX)),
            "thread_pool_oversubscribe" => (1, 1000),
            "thread_pool_idle_timeout" => (1, u64::from(u32::MAX)),
            "extra_max_connections" => (1, 100_000),
            _ => return v,
        };
        match v {
            Value::UInt(u) if u < min || u > max => {
                self.warn(
                    super::ctx::Level::Warning,
                    basalt_common::error::code::ER_TRUNCATED_WRONG_VALUE,
                    format!("Truncated incorrect {name} value: '{u}'"),
                );
                Value::UInt(u.clamp(min, max))
            }
            other => other,
        }
    }

    /// A character set and its collation move together.
    fn sync_charsets(&mut self, name: &str, v: &Value) {
        const PAIRS: [(&str, &str); 3] = [
            ("character_set_connection", "collation_connection"),
            ("character_set_server", "collation_server"),
            ("character_set_database", "collation_database"),
        ];
        let text = v.display_lossy();
        for (charset, collation) in PAIRS {
            if name == charset {
                if let Some(cs) = Charset::from_name(&text) {
                    let default = cs.default_collation().name();
                    self.vars.insert(collation, Value::str(default));
                }
            } else if name == collation {
                if let Some(c) = Collation::from_name(&text) {
                    self.vars.insert(charset, Value::str(c.charset().name()));
                }
            }
        }
    }
}

/// What a routine's return restores (its creation context).
const RESTORED_ON_RETURN: &[&str] = &[
    "sql_mode",
    "character_set_client",
    "character_set_connection",
    "collation_connection",
    "character_set_database",
    "collation_database",
];
