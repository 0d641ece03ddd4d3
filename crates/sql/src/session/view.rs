//! CREATE / ALTER / DROP VIEW, SHOW CREATE VIEW and RENAME TABLE of a view, with
//! MariaDB 10.11's errors: 1050 when the name is taken (a note under IF NOT
//! EXISTS), 1347 when ALTER / OR REPLACE / SHOW CREATE VIEW names a table, 4092
//! for DROP VIEW of something that is no view, 1368 for CHECK OPTION on a view
//! that cannot be updated, and the note 1449 for a definer account that does not
//! exist (the view is created all the same, as MariaDB does).

use super::Session;
use crate::front::native::view::{CreateView, Definer, ViewStmt};
use crate::result::QueryResult;
use basalt_common::MySqlError;
use basalt_storage::{StorageError, ViewDef};

type R<T> = Result<T, MySqlError>;

fn not_of_type(db: &str, name: &str, what: &str) -> MySqlError {
    MySqlError::new(
        1347,
        "HY000",
        format!("'{db}.{name}' is not of type '{what}'"),
    )
}

fn unknown_view(list: &str) -> MySqlError {
    MySqlError::new(4092, "42S02", format!("Unknown VIEW: '{list}'"))
}

impl Session {
    pub(super) fn view_statement(&mut self, s: ViewStmt) -> R<QueryResult> {
        self.implicit_commit()?;
        match s {
            ViewStmt::Create(c) => self.create_view(c),
            ViewStmt::Drop { if_exists, names } => self.drop_views(if_exists, names),
        }
    }

    fn create_view(&mut self, c: CreateView) -> R<QueryResult> {
        let storage = self.cx.engine.storage.clone();
        let db = match &c.db {
            Some(d) => d.clone(),
            None => self.cx.db.clone().ok_or_else(MySqlError::no_db)?,
        };
        if !storage.database_exists(&db) {
            return Err(MySqlError::bad_db(&db));
        }
        let old = storage.view(&db, &c.name);
        if storage.table(&db, &c.name).is_some() {
            if c.alter || c.or_replace {
                return Err(not_of_type(&db, &c.name, "VIEW"));
            }
            return self.name_taken(&c);
        }
        if c.alter && old.is_none() {
            return Err(MySqlError::no_such_table(&db, &c.name));
        }
        if old.is_some() && !c.alter && !c.or_replace {
            return self.name_taken(&c);
        }
        let analysis = {
            let mut b = crate::bind::Binder::new(&storage, &self.cx, &c.query, None);
            b.hidden_view = Some((db.clone(), c.name.clone()));
            b.analyze_view(&db, &c.query, &c.columns)?
        };
        let algorithm = c
            .algorithm
            .clone()
            .or_else(|| old_field(&old, |v| v.algorithm.clone()));
        let algorithm = algorithm.unwrap_or_else(|| "UNDEFINED".into());
        let updatable = analysis.mergeable && algorithm != "TEMPTABLE";
        if c.check_option != "NONE" && !updatable {
            return Err(MySqlError::new(
                1368,
                "HY000",
                format!("CHECK OPTION on non-updatable view `{db}`.`{}`", c.name),
            ));
        }
        let (user, host) = self.definer(&c, &old);
        let security = c
            .security
            .clone()
            .or_else(|| old_field(&old, |v| v.security.clone()))
            .unwrap_or_else(|| "DEFINER".into());
        let def = ViewDef {
            schema: db,
            name: c.name.clone(),
            body: analysis.body,
            definition: analysis.definition,
            columns: analysis.columns,
            algorithm,
            definer_user: user,
            definer_host: host,
            security,
            check_option: c.check_option.to_string(),
            updatable,
            character_set_client: self.cx.var_text("character_set_client"),
            collation_connection: self.cx.var_text("collation_connection"),
        };
        storage.create_view(def, true).map_err(MySqlError::from)?;
        Ok(QueryResult::ok(0))
    }

    fn name_taken(&mut self, c: &CreateView) -> R<QueryResult> {
        let e = MySqlError::table_exists(&c.name);
        if c.if_not_exists {
            self.cx.note(e.code, e.message);
            return Ok(QueryResult::ok(0));
        }
        Err(e)
    }

    /// The definer account: the one written (note 1449 when it is not an account
    /// Basalt has), or the current user (kept from the old view by ALTER VIEW).
    fn definer(
        &mut self,
        c: &CreateView,
        old: &Option<std::sync::Arc<ViewDef>>,
    ) -> (String, String) {
        match &c.definer {
            Some(Definer::Account { user, host }) => {
                if user != &self.cx.user {
                    self.cx.note(
                        1449,
                        format!(
                            "The user specified as a definer ('{user}'@'{host}') does not exist"
                        ),
                    );
                }
                (user.clone(), host.clone())
            }
            Some(Definer::CurrentUser) => (self.cx.user.clone(), self.definer_host()),
            None => match old {
                Some(v) if c.alter => (v.definer_user.clone(), v.definer_host.clone()),
                _ => (self.cx.user.clone(), self.definer_host()),
            },
        }
    }

    /// The host part of the current account, as MariaDB records it for root.
    fn definer_host(&self) -> String {
        match self.cx.host.as_str() {
            "127.0.0.1" | "::1" | "" => "localhost".into(),
            h => h.into(),
        }
    }

    fn drop_views(
        &mut self,
        if_exists: bool,
        names: Vec<(Option<String>, String)>,
    ) -> R<QueryResult> {
        let storage = self.cx.engine.storage.clone();
        let mut found = Vec::new();
        let mut missing = Vec::new();
        for (d, n) in names {
            let db = match d {
                Some(d) => d,
                None => self.cx.db.clone().ok_or_else(MySqlError::no_db)?,
            };
            if storage.view(&db, &n).is_some() {
                found.push((db, n));
            } else {
                missing.push(format!("{db}.{n}"));
            }
        }
        if !missing.is_empty() && !if_exists {
            // MariaDB drops the views it found and reports the others.
            if !found.is_empty() {
                storage.drop_views(&found).map_err(MySqlError::from)?;
            }
            return Err(unknown_view(&missing.join(",")));
        }
        if !found.is_empty() {
            storage.drop_views(&found).map_err(MySqlError::from)?;
        }
        for m in missing {
            let e = unknown_view(&m);
            self.cx.note(e.code, e.message);
        }
        Ok(QueryResult::ok(0))
    }

    /// RENAME TABLE of a view (within its database, as MariaDB allows).
    pub(super) fn rename_view(
        &mut self,
        from: (String, String),
        to: (String, String),
    ) -> R<QueryResult> {
        if from.0 != to.0 {
            return Err(MySqlError::new(
                1450,
                "HY000",
                format!(
                    "Changing schema from '{}' to '{}' is not allowed",
                    from.0, to.0
                ),
            ));
        }
        let storage = self.cx.engine.storage.clone();
        match storage.rename_view((&from.0, &from.1), (&to.0, &to.1)) {
            Ok(()) => Ok(QueryResult::ok(0)),
            Err(StorageError::TableExists(t)) => Err(MySqlError::table_exists(&t)),
            Err(e) => Err(e.into()),
        }
    }
}

fn old_field(
    old: &Option<std::sync::Arc<ViewDef>>,
    f: impl Fn(&ViewDef) -> String,
) -> Option<String> {
    old.as_deref().map(f)
}

/// `SHOW CREATE VIEW`'s second column: the view's whole CREATE statement.
pub fn create_statement(v: &ViewDef) -> String {
    let check = match v.check_option.as_str() {
        "NONE" => String::new(),
        o => format!(" WITH {o} CHECK OPTION"),
    };
    format!(
        "CREATE ALGORITHM={} DEFINER=`{}`@`{}` SQL SECURITY {} VIEW `{}` AS {}{check}",
        v.algorithm,
        v.definer_user.replace('`', "``"),
        v.definer_host.replace('`', "``"),
        v.security,
        v.name.replace('`', "``"),
        v.body
    )
}

/// `SHOW CREATE VIEW db.name` (and SHOW CREATE TABLE of a view): 1347 for a
/// table, 1146 when nothing has the name.
pub fn show_create_view(
    s: &basalt_storage::Storage,
    db: &str,
    name: &str,
) -> R<std::sync::Arc<ViewDef>> {
    if let Some(v) = s.view(db, name) {
        return Ok(v);
    }
    if s.table(db, name).is_some() {
        return Err(not_of_type(db, name, "VIEW"));
    }
    Err(MySqlError::no_such_table(db, name))
}
