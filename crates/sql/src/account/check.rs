//! The privilege checks statements pass, with MariaDB's errors: 1142 / 1143 for a
//! table, 1044 for a database, 1227 for a global privilege.

use super::R;
use crate::plan::Need;
use crate::session::ctx::SessionCtx;
use basalt_acl::{Client, Privs};
use basalt_common::MySqlError;

impl SessionCtx {
    /// Refreshes the session's grants; true when no check can fail.
    fn unrestricted(&mut self) -> bool {
        if self.privs.account.is_none() {
            return true;
        }
        self.privs.refresh(&self.engine.acl);
        self.privs.unrestricted()
    }

    /// The host errors name the client by (`localhost` for the loopback).
    pub(crate) fn client_host(&self) -> String {
        Client::from_peer(&self.host).shown().to_string()
    }

    /// Every need of a plan, or the first one not met.
    pub fn check_needs(&mut self, needs: &[Need]) -> R<()> {
        // Refreshed even with no need: information_schema reads the grants.
        if self.unrestricted() || needs.is_empty() {
            return Ok(());
        }
        let changes = Privs::INSERT | Privs::UPDATE | Privs::DELETE;
        if needs.iter().any(|n| n.privs.intersects(changes)) {
            self.check_read_only()?;
        }
        for n in needs {
            let held = self.privs.grants().on_table(&n.db, &n.table);
            let missing = n.privs.without(held);
            if missing.is_empty() {
                continue;
            }
            // The statement's own privileges first, all of those missing named
            // (`INSERT, DELETE command denied`); then the SELECT it needs to read.
            let own = missing.without(Privs::SELECT);
            if !own.is_empty() {
                return Err(self.table_denied(&own.names().join(", "), &n.db, &n.table));
            }
            if let Some(c) = &n.column {
                return Err(MySqlError::new(
                    1143,
                    "42000",
                    format!(
                        "SELECT command denied to user '{}'@'{}' for column '{c}' in table '{}'",
                        self.user,
                        self.client_host(),
                        n.table
                    ),
                ));
            }
            return Err(self.table_denied("SELECT", &n.db, &n.table));
        }
        Ok(())
    }

    /// 1142 for `command` on `db.table`.
    pub fn table_denied(&self, command: &str, db: &str, table: &str) -> MySqlError {
        MySqlError::new(
            1142,
            "42000",
            format!(
                "{command} command denied to user '{}'@'{}' for table `{db}`.`{table}`",
                self.user,
                self.client_host()
            ),
        )
    }

    /// `privs` on a table (any of them when `any`), or 1142 naming `command`.
    pub fn require_table(&mut self, db: &str, table: &str, privs: Privs, command: &str) -> R<()> {
        if self.unrestricted() || crate::infoschema::is_schema(db) {
            return Ok(());
        }
        let held = self.privs.grants().on_table(db, table);
        if held.contains(privs) {
            return Ok(());
        }
        Err(self.table_denied(command, db, table))
    }

    /// Any privilege on a table (SHOW CREATE TABLE, DESCRIBE).
    pub fn require_any_on_table(&mut self, db: &str, table: &str, command: &str) -> R<()> {
        if self.unrestricted() || crate::infoschema::is_schema(db) {
            return Ok(());
        }
        if !self.privs.grants().any_on_table(db, table) {
            return Err(self.table_denied(command, db, table));
        }
        Ok(())
    }

    /// 1044 for the account on `db`.
    pub fn db_denied(&self, db: &str) -> MySqlError {
        let (user, host) = self.privs.account.clone().unwrap_or_default();
        MySqlError::new(
            1044,
            "42000",
            format!("Access denied for user '{user}'@'{host}' to database '{db}'"),
        )
    }

    /// `privs` on database `db`, or 1044.
    pub fn require_db(&mut self, db: &str, privs: Privs) -> R<()> {
        if self.unrestricted() || crate::infoschema::is_schema(db) {
            return Ok(());
        }
        if self.privs.grants().on_db(db).contains(privs) {
            return Ok(());
        }
        Err(self.db_denied(db))
    }

    /// Whether the session may see database `db` (USE, SHOW DATABASES).
    pub fn may_see_db(&mut self, db: &str) -> bool {
        if self.unrestricted() || crate::infoschema::is_schema(db) {
            return true;
        }
        let g = self.privs.grants();
        g.global.contains(Privs::SHOW_DB) || g.any_in_db(db)
    }

    /// Whether the session may see table `db.table` (SHOW TABLES).
    pub fn may_see_table(&mut self, db: &str, table: &str) -> bool {
        if self.unrestricted() || crate::infoschema::is_schema(db) {
            return true;
        }
        self.privs.grants().any_on_table(db, table)
    }

    /// Whether the account holds one of `any_of` globally.
    pub fn has_global(&mut self, any_of: Privs) -> bool {
        self.unrestricted() || self.privs.grants().global.intersects(any_of)
    }

    /// `read_only`: a change to anything but a temporary table (callers skip
    /// those) by an account without SUPER or READ ONLY ADMIN is 1290, checked
    /// before the statement's privileges as MariaDB does. Replication and internal
    /// sessions are not affected.
    pub fn check_read_only(&mut self) -> R<()> {
        let on = matches!(
            self.engine.global_variable("read_only"),
            Some(basalt_common::Value::Int(1) | basalt_common::Value::UInt(1))
        );
        if !on || self.has_global(Privs::SUPER | Privs::READ_ONLY_ADMIN) {
            return Ok(());
        }
        Err(MySqlError::option_prevents_statement("--read-only"))
    }

    /// One of `any_of` globally, or 1227 listing `names`.
    pub fn require_global(&mut self, any_of: Privs, names: &str) -> R<()> {
        if self.has_global(any_of) {
            return Ok(());
        }
        Err(MySqlError::new(
            1227,
            "42000",
            format!(
                "Access denied; you need (at least one of) the {names} privilege(s) for this operation"
            ),
        ))
    }
}
