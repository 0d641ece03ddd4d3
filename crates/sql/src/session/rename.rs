//! RENAME TABLE a TO b [, c TO d ...] and ALTER DATABASE, with MariaDB's errors.
//!
//! The renames are checked in order against the names the earlier ones leave
//! (so chains and swaps through a temporary name work) and applied as one
//! catalog change: all of them or, on any error, none.

use super::Session;
use crate::result::QueryResult;
use basalt_common::{Charset, Collation, MySqlError};
use basalt_storage::StorageError;
use sqlparser::ast;

type R<T> = Result<T, MySqlError>;

impl Session {
    pub(super) fn rename_tables(&mut self, pairs: &[ast::RenameTable]) -> R<QueryResult> {
        self.implicit_commit()?;
        let mut names = Vec::with_capacity(pairs.len());
        for p in pairs {
            let from = crate::bind::ddl::qualified(&p.old_name, &self.cx)?;
            let to = crate::bind::ddl::qualified(&p.new_name, &self.cx)?;
            for (db, _) in [&from, &to] {
                if crate::infoschema::is_schema(db) {
                    return Err(MySqlError::new(
                        1044,
                        "42000",
                        format!(
                            "Access denied for user '{}'@'{}' to database '{db}'",
                            self.cx.user, self.cx.host
                        ),
                    ));
                }
            }
            names.push((from, to));
        }
        if let Some(r) = self.rename_temp(&names) {
            return r;
        }
        let storage = self.cx.engine.storage.clone();
        if let [(from, to)] = names.as_slice() {
            if storage.view(&from.0, &from.1).is_some() {
                return self.rename_view(from.clone(), to.clone());
            }
        }
        if names
            .iter()
            .any(|(from, to)| from.0 != to.0 && !storage.triggers_of(&from.0, &from.1).is_empty())
        {
            return Err(MySqlError::new(1435, "HY000", "Trigger in wrong schema"));
        }
        match storage.rename_tables(&names) {
            Ok(()) => Ok(QueryResult::ok(0)),
            // MariaDB names the files it could not move.
            Err(StorageError::NoSuchDatabase(db)) => {
                let (from, to) = names
                    .iter()
                    .find(|(_, to)| to.0 == db)
                    .expect("the missing database is a target's");
                Err(MySqlError::new(
                    1025,
                    "HY000",
                    format!(
                        "Error on rename of './{}/{}' to './{}/{}' (errno: 168 \"Unknown (generic) error from engine\")",
                        from.0, from.1, to.0, to.1
                    ),
                ))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// `ALTER {DATABASE|SCHEMA} [name] [DEFAULT] CHARACTER SET x [COLLATE y]`.
    pub(super) fn alter_database(
        &mut self,
        name: Option<String>,
        charset: Option<String>,
        collation: Option<String>,
    ) -> R<QueryResult> {
        self.implicit_commit()?;
        let name = match name {
            Some(n) => n,
            None => self.cx.db.clone().ok_or_else(MySqlError::no_db)?,
        };
        let cs = match &charset {
            Some(c) => {
                Some(Charset::from_name(c).ok_or_else(|| MySqlError::unknown_character_set(c))?)
            }
            None => None,
        };
        let coll = match (&collation, cs) {
            (Some(c), _) => {
                let coll =
                    Collation::from_name(c).ok_or_else(|| MySqlError::unknown_collation(c))?;
                if let Some(cs) = cs.filter(|cs| *cs != coll.charset()) {
                    return Err(MySqlError::collation_charset_mismatch(
                        coll.name(),
                        cs.name(),
                    ));
                }
                coll
            }
            (None, Some(cs)) => cs.default_collation(),
            (None, None) => return Err(MySqlError::parse_error("", 1)),
        };
        let storage = self.cx.engine.storage.clone();
        storage.alter_database(&name, coll).map_err(|e| match e {
            // MariaDB looks for the database's db.opt file.
            StorageError::NoSuchDatabase(db) => MySqlError::new(
                1,
                "HY000",
                format!("Can't create/write to file './{db}/db.opt' (Errcode: 2 \"No such file or directory\")"),
            ),
            other => other.into(),
        })?;
        if self.cx.db.as_deref() == Some(name.as_str()) {
            self.cx
                .vars
                .insert("collation_database", basalt_common::Value::str(coll.name()));
            self.cx.vars.insert(
                "character_set_database",
                basalt_common::Value::str(coll.charset().name()),
            );
        }
        Ok(QueryResult::ok(1))
    }
}
