//! The catalog side of ROW TYPE OF, TYPE OF and FOR loop records: a table's
//! columns, or a query's result columns typed as CREATE TABLE ... SELECT
//! would type them, bound with the program's variables declared so far.

use super::stored_fn::{FnBinder, TriggerRows};
use crate::session::ctx::SessionCtx;
use crate::sp::{Code, RowSource, RowTypes, SlotDef, SpScope};
use basalt_common::{Collation, MySqlError};
use basalt_storage::Storage;
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// Resolves row types for a program of database `db` compiled under
/// `sql_mode`, whose variables default to collation `coll`.
pub struct Catalog<'a> {
    pub storage: &'a Arc<Storage>,
    pub cx: &'a SessionCtx,
    pub db: String,
    pub sql_mode: String,
    pub coll: Collation,
    /// Slots whose definitions are given (a trigger's NEW and OLD columns).
    pub fixed: Vec<SlotDef>,
    /// A trigger's body: NEW / OLD in its queries.
    pub trigger: Option<TriggerRows>,
    /// Compiling at CREATE: errors wait until the declaration runs.
    pub creating: bool,
}

impl<'a> Catalog<'a> {
    pub fn new(
        storage: &'a Arc<Storage>,
        cx: &'a SessionCtx,
        (db, sql_mode): (&str, &str),
        coll: Collation,
    ) -> Self {
        Catalog {
            storage,
            cx,
            db: db.to_string(),
            sql_mode: sql_mode.to_string(),
            coll,
            fixed: Vec::new(),
            trigger: None,
            creating: false,
        }
    }

    /// The result columns of `query` as (name, type text).
    fn query_fields(&self, query: &Code, slots: &[(String, String)]) -> R<Vec<(String, String)>> {
        let mut defs = self.fixed.clone();
        for (name, ty) in slots.iter().skip(defs.len()) {
            defs.push(crate::sp::slot_def(name, ty, self.coll, self.cx)?);
        }
        let mut fb = FnBinder::new(
            self.storage,
            self.cx,
            (&self.db, &self.sql_mode),
            defs,
            (Vec::new(), Vec::new()),
        );
        fb.trigger = self.trigger.clone();
        let plan = fb.select(&query.text, &query.scope)?;
        let mut out: Vec<(String, String)> = Vec::with_capacity(plan.columns.len());
        for (c, t) in plan.columns.iter().zip(&plan.types) {
            if out.iter().any(|(n, _)| n.eq_ignore_ascii_case(&c.name)) {
                return Err(MySqlError::dup_fieldname(&c.name));
            }
            let mut col = super::from::derived_column(&c.name, t);
            if let Some(dt) = crate::session::source_column_type(self.cx, t) {
                col.data_type = dt;
            }
            out.push((c.name.clone(), crate::sp::type_text(&col.data_type)));
        }
        Ok(out)
    }

    /// `db`.`table`'s columns: a table's definitions, a view's result.
    fn table_fields(&self, db: &str, table: &str) -> R<Vec<(String, String)>> {
        if let Some(t) = self.cx.table(db, table) {
            return Ok(t
                .def()
                .columns
                .iter()
                .map(|c| (c.name.clone(), crate::sp::type_text(&c.data_type)))
                .collect());
        }
        let text = format!("SELECT * FROM {}.{}", quoted(db), quoted(table));
        self.query_fields(&plain(text), &[])
    }
}

impl RowTypes for Catalog<'_> {
    fn fields(
        &mut self,
        src: RowSource<'_>,
        slots: &[(String, String)],
    ) -> R<Vec<(String, String)>> {
        match src {
            RowSource::Query(q) => self.query_fields(q, slots),
            RowSource::Table(db, t) => {
                let db = db.map_or_else(|| self.db.clone(), str::to_string);
                self.table_fields(&db, t)
            }
            RowSource::Column(db, t, c) => {
                let db = db.map_or_else(|| self.db.clone(), str::to_string);
                let found = self
                    .table_fields(&db, t)?
                    .into_iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(c));
                found.map(|f| vec![f]).ok_or_else(|| {
                    MySqlError::new(1054, "42S22", format!("Unknown column '{c}' in '{t}'"))
                })
            }
        }
    }

    fn defer_errors(&self) -> bool {
        self.creating
    }
}

fn quoted(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

fn plain(text: String) -> Code {
    Code {
        text,
        scope: SpScope::new(Vec::new()),
    }
}
