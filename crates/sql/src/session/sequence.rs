//! CREATE / ALTER / DROP SEQUENCE and SHOW CREATE SEQUENCE with MariaDB 10.11's
//! defaults and errors: 4085 for options out of range, 1050 when the name is
//! taken (a note with IF NOT EXISTS), 4091 for an unknown sequence (a note with
//! IF EXISTS), 4089 / 4090 for a table that is no sequence.
//!
//! CREATE makes the one-row table and writes its row (`reserved_until` = START)
//! in a transaction of its own; a failed row write drops the table again. ALTER
//! keeps `reserved_until` (cached values are skipped, as MariaDB does) unless
//! RESTART moves it, resets the round, and drops the cache.

use super::Session;
use crate::front::native::sequence::{SeqOptions, SeqStmt};
use crate::result::{s, text_col_nn, QueryResult};
use crate::sequence::{self as seq, Handle, SeqDef, Stored};
use basalt_common::{EngineKind, MySqlError, TableDef};

type R<T> = Result<T, MySqlError>;

/// ER_UNKNOWN_SEQUENCES.
const UNKNOWN_SEQUENCES: u16 = 4091;

impl Session {
    pub(super) fn sequence_statement(&mut self, st: SeqStmt) -> R<QueryResult> {
        if !matches!(st, SeqStmt::ShowCreate { .. }) {
            self.implicit_commit()?;
        }
        match st {
            SeqStmt::Create {
                or_replace,
                if_not_exists,
                db,
                name,
                options,
            } => self.create_sequence(or_replace, if_not_exists, db, &name, &options),
            SeqStmt::Alter {
                if_exists,
                db,
                name,
                options,
            } => self.alter_sequence(if_exists, db, &name, &options),
            SeqStmt::Drop { if_exists, names } => self.drop_sequences(if_exists, names),
            SeqStmt::ShowCreate { db, name } => self.show_create_sequence(db, &name),
        }
    }

    fn seq_db(&self, db: Option<String>) -> R<String> {
        match db {
            Some(d) => Ok(d),
            None => self.cx.db.clone().ok_or_else(MySqlError::no_db),
        }
    }

    fn create_sequence(
        &mut self,
        or_replace: bool,
        if_not_exists: bool,
        db: Option<String>,
        name: &str,
        o: &SeqOptions,
    ) -> R<QueryResult> {
        let db = self.seq_db(db)?;
        let storage = self.cx.engine.storage.clone();
        if !storage.database_exists(&db) {
            return Err(MySqlError::bad_db(&db));
        }
        let def = create_def(o);
        if !seq::valid(&def) {
            return Err(seq::out_of_range(&db, name));
        }
        let engine = match &o.engine {
            Some(e) => crate::bind::ddl::engine_kind(e, name, &mut self.cx)?,
            None => EngineKind::Basalt,
        };
        if engine != EngineKind::Basalt {
            return Err(MySqlError::not_supported("sequences with ENGINE=MEMORY"));
        }
        if or_replace && storage.table(&db, name).is_some() {
            let id = storage.table(&db, name).map(|t| t.def().id);
            crate::exec::ddl::drop_tables(
                &storage,
                &mut self.cx,
                &[(db.clone(), name.to_string())],
                true,
            )?;
            if let Some(id) = id {
                self.cx.engine.sequences.forget(id);
            }
        }
        if storage.view(&db, name).is_some() {
            return Err(MySqlError::table_exists(name));
        }
        let tdef: TableDef = seq::table_def(&db, name, engine, o.comment.as_deref().unwrap_or(""));
        let existed = storage.table(&db, name).is_some();
        crate::exec::ddl::create_table(&storage, &mut self.cx, tdef, if_not_exists)?;
        if existed {
            return Ok(QueryResult::ok(0));
        }
        let h = Handle::open(&storage, &db, name, name)?;
        let stored = Stored {
            def,
            reserved_until: def.start,
            round: 0,
        };
        if let Err(e) = seq::write(&storage, &h, &stored) {
            let _ = storage.drop_table(&db, name);
            return Err(e);
        }
        Ok(QueryResult::ok(0))
    }

    fn alter_sequence(
        &mut self,
        if_exists: bool,
        db: Option<String>,
        name: &str,
        o: &SeqOptions,
    ) -> R<QueryResult> {
        let db = self.seq_db(db)?;
        let storage = self.cx.engine.storage.clone();
        if storage.table(&db, name).is_none() {
            if if_exists {
                self.cx
                    .note(UNKNOWN_SEQUENCES, unknown_text(&format!("{db}.{name}")));
                return Ok(QueryResult::ok(0));
            }
            return Err(seq::unknown(name));
        }
        let h = Handle::open(&storage, &db, name, name)?;
        let auto = self.auto_inc();
        let engine = self.cx.engine.clone();
        let cur = engine.sequences.current(&storage, &h, auto)?;
        let d = cur.def;
        let increment = o.increment.unwrap_or(d.increment);
        let def = SeqDef {
            increment,
            min: match o.min {
                Some(Some(v)) => v,
                Some(None) => default_min(increment),
                None => d.min,
            },
            max: match o.max {
                Some(Some(v)) => v,
                Some(None) => default_max(increment),
                None => d.max,
            },
            start: o.start.unwrap_or(d.start),
            cache: o.cache.unwrap_or(d.cache),
            cycle: o.cycle.unwrap_or(d.cycle),
        };
        let reserved_until = match o.restart {
            Some(Some(v)) => v,
            Some(None) => def.start,
            None => cur.reserved_until,
        };
        if !seq::valid(&def) {
            return Err(seq::out_of_range(&db, name));
        }
        let stored = Stored {
            def,
            reserved_until,
            round: 0,
        };
        engine.sequences.replace(&storage, &h, &stored)?;
        Ok(QueryResult::ok(0))
    }

    fn drop_sequences(
        &mut self,
        if_exists: bool,
        names: Vec<(Option<String>, String)>,
    ) -> R<QueryResult> {
        let storage = self.cx.engine.storage.clone();
        let mut found = Vec::new();
        let mut missing = Vec::new();
        for (db, name) in names {
            let db = self.seq_db(db)?;
            match storage.table(&db, &name) {
                None => missing.push(format!("{db}.{name}")),
                Some(t) if !seq::is_sequence(&t.def()) => {
                    return Err(MySqlError::new(
                        4090,
                        "42S02",
                        format!("'{db}.{name}' is not a SEQUENCE"),
                    ))
                }
                Some(t) => found.push((db, name, t.def().id)),
            }
        }
        for (db, name, id) in &found {
            crate::exec::ddl::drop_tables(
                &storage,
                &mut self.cx,
                &[(db.clone(), name.clone())],
                true,
            )?;
            self.cx.engine.sequences.forget(*id);
        }
        if !missing.is_empty() {
            let list = missing.join(",");
            if !if_exists {
                return Err(seq::unknown(&list));
            }
            self.cx.note(UNKNOWN_SEQUENCES, unknown_text(&list));
        }
        Ok(QueryResult::ok(0))
    }

    fn show_create_sequence(&mut self, db: Option<String>, name: &str) -> R<QueryResult> {
        let db = self.seq_db(db)?;
        let storage = self.cx.engine.storage.clone();
        if storage.table(&db, name).is_none() {
            return Err(MySqlError::no_such_table(&db, name));
        }
        let h = Handle::open(&storage, &db, name, name)?;
        let stored = seq::read(&storage, &h)?;
        let text = create_statement(&h.table.def(), &stored.def);
        Ok(QueryResult::rows(
            vec![text_col_nn("Table", 64), text_col_nn("Create Table", 1024)],
            vec![vec![s(name), s(text)]],
        ))
    }

    /// The session's `auto_increment_increment` / `auto_increment_offset`.
    pub(crate) fn auto_inc(&self) -> seq::AutoInc {
        auto_inc(&self.cx)
    }
}

pub(crate) fn auto_inc(cx: &super::ctx::SessionCtx) -> seq::AutoInc {
    seq::AutoInc {
        increment: cx.var_u64("auto_increment_increment").max(1) as i64,
        offset: cx.var_u64("auto_increment_offset").max(1) as i64,
    }
}

fn unknown_text(list: &str) -> String {
    format!("Unknown SEQUENCE: '{list}'")
}

fn default_min(increment: i64) -> i64 {
    if increment < 0 {
        i64::MIN + 1
    } else {
        1
    }
}

fn default_max(increment: i64) -> i64 {
    if increment < 0 {
        -1
    } else {
        i64::MAX - 1
    }
}

/// The definition CREATE SEQUENCE gives: MariaDB's defaults for what the
/// statement leaves out (bounds by the increment's sign, START at the bound the
/// sequence starts from, CACHE 1000, NOCYCLE).
fn create_def(o: &SeqOptions) -> SeqDef {
    let increment = o.increment.unwrap_or(1);
    let min = o.min.flatten().unwrap_or_else(|| default_min(increment));
    let max = o.max.flatten().unwrap_or_else(|| default_max(increment));
    SeqDef {
        increment,
        min,
        max,
        start: o.start.unwrap_or(if increment < 0 { max } else { min }),
        cache: o.cache.unwrap_or(1000),
        cycle: o.cycle.unwrap_or(false),
    }
}

fn quote(n: &str) -> String {
    format!("`{}`", n.replace('`', "``"))
}

fn quote_str(v: &str) -> String {
    format!("'{}'", v.replace('\\', "\\\\").replace('\'', "''"))
}

/// `SHOW CREATE SEQUENCE`'s text.
pub fn create_statement(t: &TableDef, d: &SeqDef) -> String {
    let cache = if d.cache == 0 {
        "nocache".to_string()
    } else {
        format!("cache {}", d.cache)
    };
    let mut text = format!(
        "CREATE SEQUENCE {} start with {} minvalue {} maxvalue {} increment by {} {} {} ENGINE={}",
        quote(&t.name),
        d.start,
        d.min,
        d.max,
        d.increment,
        cache,
        if d.cycle { "cycle" } else { "nocycle" },
        t.engine.name()
    );
    if !t.comment.is_empty() {
        text.push_str(&format!(" COMMENT={}", quote_str(&t.comment)));
    }
    text
}

/// `SHOW CREATE TABLE` of a sequence, as MariaDB prints it.
pub fn create_table_text(t: &TableDef) -> String {
    let mut lines = Vec::with_capacity(t.columns.len());
    for c in &t.columns {
        let ty = match c.name.as_str() {
            "cache_size" => "bigint(21) unsigned",
            "cycle_option" => "tinyint(1) unsigned",
            _ => "bigint(21)",
        };
        let mut line = format!("  {} {ty} NOT NULL", quote(&c.name));
        if !c.comment.is_empty() {
            line.push_str(&format!(" COMMENT {}", quote_str(&c.comment)));
        }
        lines.push(line);
    }
    let mut text = format!(
        "CREATE TABLE {} (\n{}\n) ENGINE={} SEQUENCE=1",
        quote(&t.name),
        lines.join(",\n"),
        t.engine.name()
    );
    if !t.comment.is_empty() {
        text.push_str(&format!(" COMMENT={}", quote_str(&t.comment)));
    }
    text
}
