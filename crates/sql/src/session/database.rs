//! CREATE [OR REPLACE] DATABASE and ALTER DATABASE: character set, collation and
//! comment, with MariaDB's errors.

use super::Session;
use crate::exec::ddl;
use crate::front::native::DbOptions;
use crate::result::QueryResult;
use basalt_common::{Charset, Collation, MySqlError, Value};
use basalt_storage::StorageError;

type R<T> = Result<T, MySqlError>;

/// The longest database comment MariaDB keeps, in characters.
const MAX_COMMENT: usize = 1024;

impl Session {
    pub(super) fn create_database(
        &mut self,
        or_replace: bool,
        if_not_exists: bool,
        name: &str,
        opts: DbOptions,
    ) -> R<QueryResult> {
        self.implicit_commit()?;
        let server = self.cx.var_text("collation_server");
        let coll = chosen_collation(&opts)?.unwrap_or_else(|| {
            Collation::from_name(&server).unwrap_or(Collation::Utf8mb4GeneralCi)
        });
        let comment = checked_comment(name, opts.comment.as_deref())?.unwrap_or("");
        let storage = self.cx.engine.storage.clone();
        if or_replace && storage.database_exists(name) {
            ddl::drop_database(&storage, &mut self.cx, name, true)?;
        }
        let n = ddl::create_database(&storage, &mut self.cx, name, if_not_exists, coll, comment)?;
        Ok(QueryResult::ok(n))
    }

    /// `ALTER {DATABASE|SCHEMA} [name] [DEFAULT] CHARACTER SET x [COLLATE y]
    /// [COMMENT 'z']`.
    pub(super) fn alter_database(
        &mut self,
        name: Option<String>,
        opts: DbOptions,
    ) -> R<QueryResult> {
        self.implicit_commit()?;
        let name = match name {
            Some(n) => n,
            None => self.cx.db.clone().ok_or_else(MySqlError::no_db)?,
        };
        let coll = chosen_collation(&opts)?;
        let comment = checked_comment(&name, opts.comment.as_deref())?;
        let storage = self.cx.engine.storage.clone();
        storage.alter_database(&name, coll, comment).map_err(|e| match e {
            // MariaDB looks for the database's db.opt file.
            StorageError::NoSuchDatabase(db) => MySqlError::new(
                1,
                "HY000",
                format!("Can't create/write to file './{db}/db.opt' (Errcode: 2 \"No such file or directory\")"),
            ),
            other => other.into(),
        })?;
        if let Some(coll) = coll.filter(|_| self.cx.db.as_deref() == Some(name.as_str())) {
            self.cx
                .vars
                .insert("collation_database", Value::str(coll.name()));
            self.cx
                .vars
                .insert("character_set_database", Value::str(coll.charset().name()));
        }
        Ok(QueryResult::ok(1))
    }
}

/// The collation the options name: COLLATE's (which must belong to the
/// CHARACTER SET given with it), else the character set's default.
fn chosen_collation(opts: &DbOptions) -> R<Option<Collation>> {
    let cs = match &opts.charset {
        Some(c) => Some(Charset::from_name(c).ok_or_else(|| MySqlError::unknown_character_set(c))?),
        None => None,
    };
    Ok(match (&opts.collation, cs) {
        (Some(c), _) => {
            let coll = Collation::from_name(c).ok_or_else(|| MySqlError::unknown_collation(c))?;
            if let Some(cs) = cs.filter(|cs| *cs != coll.charset()) {
                return Err(MySqlError::collation_charset_mismatch(
                    coll.name(),
                    cs.name(),
                ));
            }
            Some(coll)
        }
        (None, Some(cs)) => Some(cs.default_collation()),
        (None, None) => None,
    })
}

/// MariaDB's 4160 for a comment over [`MAX_COMMENT`] characters.
fn checked_comment<'a>(name: &str, comment: Option<&'a str>) -> R<Option<&'a str>> {
    match comment {
        Some(c) if c.chars().count() > MAX_COMMENT => Err(MySqlError::new(
            4160,
            "HY000",
            format!("Comment for database '{name}' is too long (max = {MAX_COMMENT})"),
        )),
        other => Ok(other),
    }
}
