//! Rebuilding the indexes of a catalog written before Basalt compared strings with
//! MariaDB's collation weights (catalog format 1).
//!
//! Format 1 indexes hold sort keys of the old collations (case folding only, and
//! trailing spaces cut off instead of compared as padding). Read with today's
//! comparisons they would be out of order: lookups would miss rows and unique keys
//! would let accent variants in. So when a format 1 catalog is opened, after recovery
//! and before any session can use a table, every durable table with an index (primary
//! or secondary) over a non-binary CHAR / VARCHAR / TEXT column is rebuilt through
//! ALTER TABLE's table copy ([`super::alter`]) with the rows unchanged: the copy builds
//! every index with the new sort keys and checks uniqueness under the new comparison.
//! Only then is the catalog written in the current format.
//!
//! Safety: each copy goes into a new file that the catalog names only after it is
//! complete, so a crash during the upgrade leaves some tables rebuilt and the catalog
//! still at format 1 (those tables already have new keys, and rebuilding them again
//! at the next start is harmless). If two rows of a unique key become equal under the
//! new weights (say 'José' and 'Jose' under utf8mb4_general_ci), the copy fails, the
//! old table stays as it was, and the start fails with a message naming the table and
//! the key: nothing is dropped; the operator fixes the rows with the previous release
//! (or changes the column's collation) and starts again.

use super::{AlterSpec, Storage};
use crate::error::StorageError;
use basalt_common::{EngineKind, TableDef};

/// True when `def` has an index whose key holds a collation sort key of a string.
pub(crate) fn has_collated_index(def: &TableDef) -> bool {
    def.indexes.iter().any(|ix| {
        ix.column_ordinals().any(|c| {
            let ty = &def.columns[c].data_type;
            ty.is_string() && ty.collation().is_some_and(|coll| !coll.is_binary())
        })
    })
}

impl Storage {
    /// Rebuilds the tables a format 1 catalog holds with old sort keys (see the module
    /// docs); returns how many were rebuilt.
    pub(super) fn upgrade_collation_keys(&self) -> crate::api::Result<usize> {
        let mut todo: Vec<(String, String)> = {
            let cat = self.catalog.read();
            cat.tables
                .values()
                .flat_map(|m| m.values())
                .map(|e| e.core.def())
                .filter(|d| d.engine == EngineKind::Basalt && has_collated_index(d))
                .map(|d| (d.schema.clone(), d.name.clone()))
                .collect()
        };
        todo.sort();
        for (db, name) in &todo {
            let def = (*self.core(db, name)?.def()).clone();
            let spec = AlterSpec {
                def,
                copy: true,
                auto_increment: None,
                add_index: false,
                // The primary key's bytes change with the new sort keys.
                online: false,
                timeout: super::DDL_WAIT,
                duplicates: None,
            };
            let mut same = |row, _| Ok::<_, StorageError>(row);
            self.alter_table(db, name, spec, &mut same)
                .map_err(|e| match e {
                    StorageError::DuplicateKey { entry, key } => StorageError::Invalid(format!(
                        "cannot rebuild `{db}`.`{name}` for MariaDB collation order: \
                         duplicate entry '{entry}' for key '{key}' (values that the old \
                         case-only comparison kept apart are equal now); the table is \
                         unchanged; make the values distinct or change the column's \
                         collation with the previous release, then start again"
                    )),
                    other => other,
                })?;
            tracing::info!(table = %format!("{db}.{name}"), "rebuilt with MariaDB collation sort keys");
        }
        Ok(todo.len())
    }
}
