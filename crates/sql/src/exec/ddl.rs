//! Catalog changes. The session commits any open transaction before calling these
//! (MySQL's implicit commit); storage makes each change durable before returning.

use crate::bind::ddl::check_ident;
use crate::session::ctx::SessionCtx;
use basalt_common::error::code;
use basalt_common::{Collation, IndexDef, MySqlError, TableDef};
use basalt_storage::{Storage, StorageError};
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

pub fn create_database(
    s: &Storage,
    cx: &mut SessionCtx,
    name: &str,
    if_not_exists: bool,
    coll: Collation,
    comment: &str,
) -> R<u64> {
    check_ident(name, true)?;
    if s.database_exists(name) {
        if if_not_exists {
            cx.note(
                code::ER_DB_CREATE_EXISTS,
                format!("Can't create database '{name}'; database exists"),
            );
            return Ok(0);
        }
        return Err(MySqlError::db_create_exists(name));
    }
    s.create_database_with(name, coll, comment)
        .map_err(MySqlError::from)?;
    Ok(1)
}

pub fn drop_database(s: &Storage, cx: &mut SessionCtx, name: &str, if_exists: bool) -> R<u64> {
    if !s.database_exists(name) {
        if if_exists {
            cx.note(
                code::ER_DB_DROP_EXISTS,
                format!("Can't drop database '{name}'; database doesn't exist"),
            );
            return Ok(0);
        }
        return Err(MySqlError::db_drop_exists(name));
    }
    let n = s.drop_database(name).map_err(MySqlError::from)?;
    if cx.db.as_deref() == Some(name) {
        cx.db = None;
    }
    Ok(n as u64)
}

pub fn create_table(s: &Storage, cx: &mut SessionCtx, def: TableDef, if_not_exists: bool) -> R<()> {
    if !s.database_exists(&def.schema) {
        return Err(MySqlError::bad_db(&def.schema));
    }
    if s.table(&def.schema, &def.name).is_some() {
        if if_not_exists {
            cx.note(
                code::ER_TABLE_EXISTS_ERROR,
                format!("Table '{}' already exists", def.name),
            );
            return Ok(());
        }
        return Err(MySqlError::table_exists(&def.name));
    }
    match s.create_table(def) {
        Ok(_) => Ok(()),
        Err(StorageError::TableExists(t)) if if_not_exists => {
            cx.note(
                code::ER_TABLE_EXISTS_ERROR,
                format!("Table '{t}' already exists"),
            );
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

/// DROP TABLE of several tables: drops what exists, then reports the missing ones
/// (error 1051, or a note with IF EXISTS).
pub fn drop_tables(
    s: &Storage,
    cx: &mut SessionCtx,
    names: &[(String, String)],
    if_exists: bool,
) -> R<()> {
    if let Some((d, t)) = names.iter().find(|(d, t)| s.view(d, t).is_some()) {
        return Err(MySqlError::new(
            1965,
            "42S02",
            format!("'{d}.{t}' is a view"),
        ));
    }
    let missing: Vec<String> = names
        .iter()
        .filter(|(d, t)| s.table(d, t).is_none())
        .map(|(d, t)| format!("{d}.{t}"))
        .collect();
    if !missing.is_empty() && !if_exists {
        return Err(MySqlError::bad_table(&missing.join(",")));
    }
    crate::bind::foreign_key::check_drop(cx, names)?;
    for (d, t) in names {
        if s.table(d, t).is_some() {
            match s.drop_table(d, t) {
                Ok(()) | Err(StorageError::NoSuchTable { .. }) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
    if !missing.is_empty() {
        cx.note(
            code::ER_BAD_TABLE_ERROR,
            format!("Unknown table '{}'", missing.join(",")),
        );
    }
    Ok(())
}

pub fn truncate(s: &Storage, db: &str, name: &str) -> R<()> {
    match s.table(db, name) {
        None => return Err(MySqlError::no_such_table(db, name)),
        Some(t) => crate::sequence::check_writable(&t.def())?,
    }
    s.truncate_table(db, name).map_err(MySqlError::from)
}

pub fn create_index(s: &Arc<Storage>, db: &str, table: &str, idx: IndexDef) -> R<()> {
    s.create_index(db, table, idx).map_err(MySqlError::from)
}

pub fn drop_index(s: &Storage, db: &str, table: &str, index: &str) -> R<()> {
    let t = s
        .table(db, table)
        .ok_or_else(|| MySqlError::no_such_table(db, table))?;
    let def = t.def();
    let exists = def
        .indexes
        .iter()
        .any(|i| i.name.eq_ignore_ascii_case(index) && !i.columns.is_empty());
    if !exists {
        return Err(MySqlError::cant_drop_key(index));
    }
    let name = def
        .indexes
        .iter()
        .find(|i| i.name.eq_ignore_ascii_case(index))
        .map(|i| i.name.clone())
        .unwrap_or_else(|| index.to_string());
    crate::bind::foreign_key::check_index_drop(s, &def, &name)?;
    s.drop_index(db, table, &name).map_err(MySqlError::from)
}
