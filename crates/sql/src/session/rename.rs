//! RENAME TABLE a TO b [, c TO d ...], with MariaDB's errors.
//!
//! The renames are checked in order against the names the earlier ones leave
//! (so chains and swaps through a temporary name work) and applied as one
//! catalog change: all of them or, on any error, none.

use super::Session;
use crate::result::QueryResult;
use basalt_common::MySqlError;
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
}
