//! `information_schema` rows of FOREIGN KEY constraints: REFERENTIAL_CONSTRAINTS
//! and the referencing rows of KEY_COLUMN_USAGE, in MariaDB's layout.

use crate::result::s;
use basalt_common::{ForeignKeyDef, Row, TableDef, Value};
use basalt_storage::Table;
use std::sync::Arc;

/// One KEY_COLUMN_USAGE row per child column, with the REFERENCED_* columns set.
pub fn key_column_usage(db: &str, table: &str, fk: &ForeignKeyDef) -> Vec<Row> {
    fk.columns
        .iter()
        .zip(&fk.parent_columns)
        .enumerate()
        .map(|(i, (c, p))| {
            vec![
                s("def"),
                s(db),
                s(&fk.name),
                s("def"),
                s(db),
                s(table),
                s(c),
                Value::UInt(i as u64 + 1),
                Value::UInt(i as u64 + 1),
                s(&fk.parent_schema),
                s(&fk.parent_table),
                s(p),
            ]
        })
        .collect()
}

/// The name of the parent index a constraint uses (what MariaDB reports as
/// UNIQUE_CONSTRAINT_NAME), when the parent exists.
fn parent_index(fk: &ForeignKeyDef, tables: &[(String, Arc<dyn Table>)]) -> Option<String> {
    let (_, t) = tables
        .iter()
        .find(|(d, t)| *d == fk.parent_schema && t.def().name == fk.parent_table)?;
    let def: Arc<TableDef> = t.def();
    let cols = crate::bind::foreign_key::ordinals(&fk.parent_columns, &def)?;
    def.indexes
        .iter()
        .find(|i| {
            i.columns.len() >= cols.len()
                && i.columns.iter().zip(&cols).all(|(k, c)| k.column == *c)
        })
        .map(|i| i.name.clone())
}

pub fn referential_constraints(tables: &[(String, Arc<dyn Table>)]) -> Vec<Row> {
    let mut rows = Vec::new();
    for (db, t) in tables {
        let def = t.def();
        for fk in &def.foreign_keys {
            rows.push(vec![
                s("def"),
                s(db),
                s(&fk.name),
                s("def"),
                s(&fk.parent_schema),
                parent_index(fk, tables).map_or(Value::Null, s),
                s("NONE"),
                s(fk.on_update.rule()),
                s(fk.on_delete.rule()),
                s(&def.name),
                s(&fk.parent_table),
            ]);
        }
    }
    rows
}
