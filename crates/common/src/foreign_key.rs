//! FOREIGN KEY definitions as the catalog stores them with the child table.
//!
//! A constraint lives in the definition of the table that holds the referencing
//! (child) columns, as InnoDB's `SYS_FOREIGN` rows name the child. Columns are kept
//! by name, not ordinal, so ADD/DROP COLUMN elsewhere in either table leaves the
//! constraint pointing at the right columns; the parent is kept by database and
//! table name, which RENAME TABLE rewrites in every child.

use serde::{Deserialize, Serialize};

/// A referential action (`ON DELETE` / `ON UPDATE`). MariaDB 10.11 parses
/// `SET DEFAULT` but InnoDB stores it as RESTRICT; so does Basalt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum FkAction {
    #[default]
    Restrict,
    Cascade,
    SetNull,
    NoAction,
}

impl FkAction {
    /// The rule as `information_schema.REFERENTIAL_CONSTRAINTS` shows it.
    pub fn rule(self) -> &'static str {
        match self {
            FkAction::Restrict => "RESTRICT",
            FkAction::Cascade => "CASCADE",
            FkAction::SetNull => "SET NULL",
            FkAction::NoAction => "NO ACTION",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForeignKeyDef {
    /// Unique within the child's database (`t_ibfk_N` when not given).
    pub name: String,
    /// Child column names, in key order.
    pub columns: Vec<String>,
    pub parent_schema: String,
    pub parent_table: String,
    /// Parent column names, one per child column.
    pub parent_columns: Vec<String>,
    pub on_delete: FkAction,
    pub on_update: FkAction,
}

impl ForeignKeyDef {
    /// The constraint as SHOW CREATE TABLE prints it (after `CONSTRAINT `name` `),
    /// and as errors 1451 / 1452 quote it; `child_schema` decides whether the parent
    /// is qualified.
    pub fn clause(&self, child_schema: &str) -> String {
        let list = |v: &[String]| v.iter().map(|c| quote(c)).collect::<Vec<_>>().join(", ");
        let parent = if self.parent_schema == child_schema {
            quote(&self.parent_table)
        } else {
            format!(
                "{}.{}",
                quote(&self.parent_schema),
                quote(&self.parent_table)
            )
        };
        let mut s = format!(
            "FOREIGN KEY ({}) REFERENCES {} ({})",
            list(&self.columns),
            parent,
            list(&self.parent_columns)
        );
        if self.on_delete != FkAction::Restrict {
            s.push_str(" ON DELETE ");
            s.push_str(self.on_delete.rule());
        }
        if self.on_update != FkAction::Restrict {
            s.push_str(" ON UPDATE ");
            s.push_str(self.on_update.rule());
        }
        s
    }

    /// True when this key references `db`.`table`.
    pub fn references(&self, db: &str, table: &str) -> bool {
        self.parent_schema == db && self.parent_table == table
    }
}

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clause_as_mariadb_prints_it() {
        let fk = ForeignKeyDef {
            name: "fk1".into(),
            columns: vec!["a".into(), "b".into()],
            parent_schema: "d".into(),
            parent_table: "p".into(),
            parent_columns: vec!["x".into(), "y".into()],
            on_delete: FkAction::Cascade,
            on_update: FkAction::NoAction,
        };
        assert_eq!(
            fk.clause("d"),
            "FOREIGN KEY (`a`, `b`) REFERENCES `p` (`x`, `y`) ON DELETE CASCADE ON UPDATE NO ACTION"
        );
        assert!(fk.clause("e").contains("REFERENCES `d`.`p`"));
    }
}
