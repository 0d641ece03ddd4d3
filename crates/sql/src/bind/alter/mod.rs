//! ALTER TABLE binding: the clauses applied, in order, to a working copy of the
//! table's definition, giving the new [`TableDef`], where each new column's values
//! come from, and whether the rows must be copied.
//!
//! Columns carry a stable id while clauses move, add and drop them (the old
//! ordinal for existing columns), and keys refer to columns by that id, so a key
//! follows its columns wherever they move; ids become ordinals at the end.
//!
//! Only renames, defaults, comments, AUTO_INCREMENT=, the recorded table options,
//! dropping CHECK constraints, a longer VARCHAR, ENUM / SET members appended and
//! adding columns at the end with one value for every existing row leave the
//! stored rows valid: those run in place
//! (ALGORITHM=INSTANT in MariaDB's terms). Everything else copies the table
//! (ALGORITHM=COPY); asking for INSTANT, NOCOPY or INPLACE then fails with 1845 and
//! LOCK=NONE with 1846, as MariaDB answers for its copy algorithm.

use super::ddl::{
    auto_index_name, check_auto_increment, check_ident, check_key, column_def, constraint_index,
    default_expr, engine_kind, implicit_prefixes, resolve_default, sort_keys,
};
use crate::front::native::alter::{AlterTable, Clause, Position};
use crate::session::ctx::SessionCtx;
use basalt_common::error::code;
use basalt_common::{CheckDef, ColumnDef, IndexColumn, IndexDef, IndexKind, MySqlError, TableDef};
use sqlparser::ast::{self, TableConstraint};

mod algorithm;
mod convert;

type R<T> = Result<T, MySqlError>;

/// The bound ALTER TABLE.
pub struct AlterPlan {
    pub def: TableDef,
    /// Per new column: the ordinal of the old column its values come from.
    pub sources: Vec<Option<usize>>,
    pub copy: bool,
    /// The copy may let writers go on (`AlterSpec::online`).
    pub online: bool,
    /// The only change is one added secondary index, built in place while
    /// writers go on (`AlterSpec::add_index`).
    pub add_index: bool,
    pub auto_increment: Option<u64>,
    /// New CHECK constraints, which every existing row must pass.
    pub new_checks: bool,
    /// New FOREIGN KEY constraints every existing row must satisfy
    /// (`foreign_key_checks` on).
    pub new_foreign_keys: Vec<basalt_common::ForeignKeyDef>,
    /// ALTER IGNORE: conversion errors are warnings, and rows clashing in a unique
    /// key are left out of the copy.
    pub ignore: bool,
    /// The statement reports the rows it copied ("Records: n"), as MariaDB does
    /// for its COPY algorithm: a column type changes, an added column is computed
    /// per row, or writers wait for the copy. Otherwise (what MariaDB does in
    /// place) it reports 0.
    pub counts_rows: bool,
    /// Partitions whose rows are deleted after the change (DROP / TRUNCATE
    /// PARTITION).
    pub clear_partitions: Vec<u32>,
}

struct WCol {
    def: ColumnDef,
    id: usize,
    src: Option<usize>,
}

struct Work<'a> {
    old: &'a TableDef,
    cols: Vec<WCol>,
    /// Keys with `IndexColumn::column` holding column ids.
    keys: Vec<IndexDef>,
    primary: Option<IndexDef>,
    def: TableDef,
    next_id: usize,
    copy: bool,
    auto_increment: Option<u64>,
    new_checks: bool,
    algorithm: Option<String>,
    lock: Option<String>,
    order_by: bool,
    /// A column's stored type changes (MariaDB cannot do that INPLACE).
    type_changed: bool,
    fk_added: Vec<super::foreign_key::FkSpec>,
    fk_dropped: Vec<String>,
    dropped_keys: Vec<String>,
    /// CONVERT TO CHARACTER SET's collation, applied to the columns at the end.
    convert: Option<basalt_common::Collation>,
    ignore: bool,
    /// A primary or unique key the table did not have (set by `finish`).
    unique_added: bool,
}

fn parse_create(body: &str) -> R<ast::CreateTable> {
    let sql = crate::front::column_words::respell(&format!("CREATE TABLE _t ({body})"));
    match crate::front::parse::parse_statement(&sql)? {
        ast::Statement::CreateTable(ct) => Ok(ct),
        _ => Err(MySqlError::parse_error(body, 1)),
    }
}

fn cant_drop(what: &str, name: &str) -> MySqlError {
    MySqlError::new(
        code::ER_CANT_DROP_FIELD_OR_KEY,
        "42000",
        format!("Can't DROP {what} `{name}`; check that it exists"),
    )
}

/// Binds `stmt` against the table's current definition `old`.
pub fn bind(old: &TableDef, stmt: &AlterTable, cx: &mut SessionCtx) -> R<AlterPlan> {
    let mut w = Work::new(old);
    w.ignore = stmt.ignore;
    // Without an ALGORITHM= clause, @@alter_algorithm.
    let default = cx.var_text("alter_algorithm").to_ascii_uppercase();
    w.algorithm = (!default.is_empty() && default != "DEFAULT").then_some(default);
    for c in &stmt.clauses {
        w.apply(c, cx)?;
    }
    if let Some(to) = w.convert {
        w.convert_columns(to, cx)?;
    }
    if w.order_by {
        // Rows are clustered on the primary key, as in InnoDB: MariaDB's warning.
        if w.primary.is_none() {
            return Err(MySqlError::not_supported(
                "ALTER TABLE ... ORDER BY on a table without a primary key",
            ));
        }
        cx.warn(
            crate::session::ctx::Level::Warning,
            1105,
            format!(
                "ORDER BY ignored as there is a user-defined clustered index in the table '{}'",
                old.name
            ),
        );
    }
    let mut plan = w.finish(cx)?;
    let change =
        crate::partitioning::alter::apply(old, &mut plan.def, stmt.partition.as_ref(), cx)?;
    if change.copy {
        plan.copy = true;
        plan.online = false;
        plan.add_index = false;
        plan.counts_rows = true;
    }
    plan.clear_partitions = change.clear;
    Ok(plan)
}

impl<'a> Work<'a> {
    fn new(old: &'a TableDef) -> Self {
        let cols = old
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| WCol {
                def: c.clone(),
                id: i,
                src: Some(i),
            })
            .collect();
        let primary = (!old.has_hidden_pk()).then(|| old.indexes[0].clone());
        Work {
            old,
            cols,
            keys: old.indexes[1..].to_vec(),
            primary,
            def: old.clone(),
            next_id: old.columns.len(),
            copy: false,
            auto_increment: None,
            new_checks: false,
            algorithm: None,
            lock: None,
            order_by: false,
            type_changed: false,
            fk_added: Vec::new(),
            fk_dropped: Vec::new(),
            dropped_keys: Vec::new(),
            convert: None,
            ignore: false,
            unique_added: false,
        }
    }

    fn pos(&self, name: &str) -> Option<usize> {
        self.cols
            .iter()
            .position(|c| c.def.name.eq_ignore_ascii_case(name))
    }

    fn unknown(&self, name: &str) -> MySqlError {
        MySqlError::bad_field(name, &self.old.name)
    }

    fn apply(&mut self, c: &Clause, cx: &mut SessionCtx) -> R<()> {
        match c {
            Clause::AddColumn {
                def,
                position,
                if_not_exists,
            } => self.add_column(def, position.as_ref(), *if_not_exists, cx),
            Clause::DropColumn { name, if_exists } => self.drop_column(name, *if_exists, cx),
            Clause::Change {
                old,
                def,
                position,
                if_exists,
            } => self.change(old.as_deref(), def, position.as_ref(), *if_exists, cx),
            Clause::RenameColumn { old, new } => self.rename_column(old, new),
            Clause::Default { column, expr } => self.set_default(column, expr.as_deref(), cx),
            Clause::AddConstraint { def, if_not_exists } => {
                self.add_constraint(def, *if_not_exists, cx)
            }
            Clause::DropIndex { name, if_exists } => self.drop_index(name, *if_exists, cx),
            Clause::DropPrimaryKey => {
                if self.primary.take().is_none() {
                    return Err(cant_drop("INDEX", "PRIMARY"));
                }
                self.copy = true;
                Ok(())
            }
            Clause::DropConstraint { name, if_exists } => {
                if self.has_foreign_key(name) {
                    self.fk_dropped.push(name.clone());
                    return Ok(());
                }
                self.drop_constraint(name, *if_exists, cx)
            }
            Clause::DropForeignKey { name, if_exists } => {
                if self.has_foreign_key(name) {
                    self.fk_dropped.push(name.clone());
                } else if *if_exists {
                    let e = super::foreign_key::cant_drop(name);
                    cx.note(e.code, e.message);
                } else {
                    return Err(super::foreign_key::cant_drop(name));
                }
                Ok(())
            }
            Clause::RenameIndex { old, new } => self.rename_index(old, new),
            Clause::RenameTable { db, name } => {
                check_ident(name, false)?;
                if let Some(d) = db {
                    self.def.schema = d.clone();
                }
                self.def.name = name.clone();
                Ok(())
            }
            Clause::Option { key, value } => self.option(key, value, cx),
            Clause::Algorithm(a) => {
                if !["DEFAULT", "INSTANT", "NOCOPY", "INPLACE", "COPY"].contains(&a.as_str()) {
                    return Err(MySqlError::parse_error(a, 1));
                }
                // ALGORITHM=DEFAULT: the server's choice, whatever @@alter_algorithm says.
                self.algorithm = (a != "DEFAULT").then(|| a.clone());
                Ok(())
            }
            Clause::Lock(l) => {
                if !["DEFAULT", "NONE", "SHARED", "EXCLUSIVE"].contains(&l.as_str()) {
                    return Err(MySqlError::parse_error(l, 1));
                }
                self.lock = Some(l.clone());
                Ok(())
            }
            Clause::Force => {
                self.copy = true;
                Ok(())
            }
            Clause::OrderBy => {
                self.order_by = true;
                self.copy = true;
                Ok(())
            }
            Clause::ConvertTo { charset, collation } => {
                let to = convert::target(charset.as_deref(), collation.as_deref(), cx)?;
                self.def.charset = to.charset();
                self.def.collation = to;
                self.convert = Some(to);
                Ok(())
            }
            Clause::Unsupported(what) => Err(MySqlError::not_supported(what)),
        }
    }

    /// True when the table has a foreign key `name` not yet dropped.
    fn has_foreign_key(&self, name: &str) -> bool {
        self.old
            .foreign_keys
            .iter()
            .any(|k| k.name.eq_ignore_ascii_case(name))
            && !self.fk_dropped.iter().any(|d| d.eq_ignore_ascii_case(name))
    }

    /// Parses a column definition; returns it with the keys it declares inline
    /// and its column-level CHECK.
    fn parse_column(
        &self,
        text: &str,
        cx: &mut SessionCtx,
    ) -> R<(ColumnDef, Vec<IndexKind>, Option<CheckDef>)> {
        let ct = parse_create(text)?;
        let [c] = ct.columns.as_slice() else {
            return Err(MySqlError::parse_error(text, 1));
        };
        if !super::foreign_key::specs_of_create(&ct)?.is_empty() {
            return Err(MySqlError::not_supported(
                "REFERENCES in an ALTER TABLE column definition",
            ));
        }
        let (mut col, keys, note) = column_def(c, self.def.collation, cx)?;
        if let Some(n) = note {
            cx.warn(crate::session::ctx::Level::Note, 1246, n);
        }
        resolve_default(&mut col, &self.def.schema, &self.def.name, cx)?;
        let check = super::check::collect(&ct, std::slice::from_ref(&col))?
            .into_iter()
            .next();
        Ok((col, keys, check))
    }

    fn place(&mut self, col: WCol, position: Option<&Position>) -> R<()> {
        let at = match position {
            None => self.cols.len(),
            Some(Position::First) => 0,
            Some(Position::After(c)) => self.pos(c).ok_or_else(|| self.unknown(c))? + 1,
        };
        self.cols.insert(at, col);
        Ok(())
    }

    fn inline_keys(&mut self, id: usize, kinds: Vec<IndexKind>) -> R<()> {
        for kind in kinds {
            let key = IndexDef {
                id: 0,
                name: String::new(),
                kind,
                columns: vec![IndexColumn {
                    column: id,
                    prefix_len: None,
                    descending: false,
                }],
                comment: String::new(),
            };
            self.add_key(key, false, &mut None)?;
            self.copy = true;
        }
        Ok(())
    }

    fn add_column(
        &mut self,
        text: &str,
        position: Option<&Position>,
        if_not_exists: bool,
        cx: &mut SessionCtx,
    ) -> R<()> {
        let (col, keys, check) = self.parse_column(text, cx)?;
        if self.pos(&col.name).is_some() {
            if if_not_exists {
                cx.note(
                    code::ER_DUP_FIELDNAME,
                    format!("Duplicate column name '{}'", col.name),
                );
                return Ok(());
            }
            return Err(MySqlError::dup_fieldname(&col.name));
        }
        let id = self.next_id;
        self.next_id += 1;
        self.place(
            WCol {
                def: col,
                id,
                src: None,
            },
            position,
        )?;
        self.inline_keys(id, keys)?;
        if let Some(chk) = check {
            self.def.checks.push(chk);
            self.new_checks = true;
        }
        Ok(())
    }

    fn drop_column(&mut self, name: &str, if_exists: bool, cx: &mut SessionCtx) -> R<()> {
        // DROP clauses name what the table had before the statement (MariaDB).
        let found = self
            .pos(name)
            .filter(|_| self.old.column_index(name).is_some());
        let Some(at) = found else {
            if if_exists {
                let e = cant_drop("COLUMN", name);
                cx.note(e.code, e.message);
                return Ok(());
            }
            return Err(cant_drop("COLUMN", name));
        };
        let col = self.cols.remove(at);
        let keep = |k: &mut IndexDef| {
            k.columns.retain(|c| c.column != col.id);
            !k.columns.is_empty()
        };
        self.keys.retain_mut(keep);
        if let Some(p) = self.primary.as_mut() {
            if !keep(p) {
                self.primary = None;
            }
        }
        self.def
            .checks
            .retain(|c| !(c.column_level && c.name.eq_ignore_ascii_case(&col.def.name)));
        self.copy = true;
        Ok(())
    }

    fn change(
        &mut self,
        old: Option<&str>,
        text: &str,
        position: Option<&Position>,
        if_exists: bool,
        cx: &mut SessionCtx,
    ) -> R<()> {
        let (col, keys, check) = self.parse_column(text, cx)?;
        let name = old.unwrap_or(&col.name).to_string();
        let Some(at) = self.pos(&name) else {
            if if_exists {
                let e = self.unknown(&name);
                cx.note(e.code, e.message);
                return Ok(());
            }
            return Err(self.unknown(&name));
        };
        if let Some(other) = self.pos(&col.name) {
            if other != at {
                return Err(MySqlError::dup_fieldname(&col.name));
            }
        }
        let prev = self.cols.remove(at);
        let same_type = prev.def.data_type.widens_in_place(&col.data_type)
            || basalt_common::enumset::members_appended(&prev.def.data_type, &col.data_type);
        let stored_same = same_type
            && prev.def.nullable == col.nullable
            && prev.def.auto_increment == col.auto_increment;
        if !stored_same || position.is_some() {
            self.copy = true;
        }
        self.type_changed |= !same_type;
        // The new definition replaces the column's CHECK too (MariaDB does not
        // verify the rows against one given here).
        self.def
            .checks
            .retain(|c| !(c.column_level && c.name.eq_ignore_ascii_case(&prev.def.name)));
        let id = prev.id;
        let w = WCol {
            def: col,
            id,
            src: prev.src,
        };
        match position {
            None => self.cols.insert(at, w),
            Some(p) => self.place(w, Some(p))?,
        }
        self.inline_keys(id, keys)?;
        if let Some(chk) = check {
            self.def.checks.push(chk);
        }
        Ok(())
    }

    /// CONVERT TO CHARACTER SET: every character column to collation `to`.
    fn convert_columns(&mut self, to: basalt_common::Collation, cx: &mut SessionCtx) -> R<()> {
        for w in self.cols.iter_mut() {
            if let Some(dt) = convert::column(&w.def, to, cx)? {
                self.type_changed |= !w.def.data_type.same_storage(&dt);
                self.copy = true;
                w.def.data_type = dt;
            }
        }
        Ok(())
    }

    fn rename_column(&mut self, old: &str, new: &str) -> R<()> {
        let at = self.pos(old).ok_or_else(|| self.unknown(old))?;
        if self.pos(new).is_some_and(|o| o != at) {
            return Err(MySqlError::dup_fieldname(new));
        }
        let prev = std::mem::replace(&mut self.cols[at].def.name, new.to_string());
        for c in self.def.checks.iter_mut() {
            if c.column_level && c.name.eq_ignore_ascii_case(&prev) {
                c.name = new.to_string();
            }
        }
        Ok(())
    }

    fn set_default(&mut self, column: &str, expr: Option<&str>, cx: &mut SessionCtx) -> R<()> {
        let at = self.pos(column).ok_or_else(|| self.unknown(column))?;
        let (db, table) = (self.def.schema.clone(), self.def.name.clone());
        let col = &mut self.cols[at].def;
        col.default = match expr {
            None => None,
            Some(text) => {
                let e = crate::front::parse::parse_expr(text)?;
                Some(default_expr(&e, &col.name, cx)?)
            }
        };
        resolve_default(col, &db, &table, cx)
    }

    /// The working columns as definitions, for binding keys by name.
    fn column_defs(&self) -> Vec<ColumnDef> {
        self.cols.iter().map(|c| c.def.clone()).collect()
    }

    fn add_constraint(&mut self, text: &str, if_not_exists: bool, cx: &mut SessionCtx) -> R<()> {
        let ct = parse_create(&format!("_c int, {text}"))?;
        let [tc] = ct.constraints.as_slice() else {
            return Err(MySqlError::parse_error(text, 1));
        };
        if let TableConstraint::Check(_) = tc {
            return self.add_check(&ct);
        }
        if let TableConstraint::ForeignKey(fk) = tc {
            self.fk_added.push(super::foreign_key::spec(fk, None)?);
            return Ok(());
        }
        let defs = self.column_defs();
        let Some(mut key) = constraint_index(tc, &defs)? else {
            return Ok(());
        };
        for kc in key.columns.iter_mut() {
            kc.column = self.cols[kc.column].id;
        }
        let mut note = if_not_exists.then_some(None);
        self.add_key(key, if_not_exists, &mut note)?;
        if let Some(Some(e)) = note {
            cx.note(e.code, e.message);
        } else {
            self.copy = true;
        }
        Ok(())
    }

    fn add_check(&mut self, ct: &ast::CreateTable) -> R<()> {
        let mut got = super::check::collect(ct, &[])?;
        for c in got.iter_mut() {
            let taken =
                |n: &str, all: &[CheckDef]| all.iter().any(|d| d.name.eq_ignore_ascii_case(n));
            if taken(&c.name, &self.def.checks) {
                if !c.name.starts_with("CONSTRAINT_") {
                    return Err(MySqlError::new(
                        1826,
                        "HY000",
                        format!("Duplicate CHECK constraint name '{}'", c.name),
                    ));
                }
                c.name = (1..)
                    .map(|i| format!("CONSTRAINT_{i}"))
                    .find(|n| !taken(n, &self.def.checks))
                    .unwrap_or_default();
            }
            self.def.checks.push(c.clone());
        }
        self.new_checks = true;
        self.copy = true;
        Ok(())
    }

    /// Adds a key (columns by id). A duplicate name is 1061, or with IF NOT EXISTS
    /// the note put in `note` and nothing added.
    fn add_key(
        &mut self,
        mut key: IndexDef,
        if_not_exists: bool,
        note: &mut Option<Option<MySqlError>>,
    ) -> R<()> {
        if key.kind == IndexKind::Primary {
            if self.primary.is_some() {
                return Err(MySqlError::multiple_pri_key());
            }
            key.name = "PRIMARY".into();
            for kc in &key.columns {
                if let Some(c) = self.cols.iter_mut().find(|c| c.id == kc.column) {
                    c.def.nullable = false;
                }
            }
            self.primary = Some(key);
            return Ok(());
        }
        let first = self
            .cols
            .iter()
            .find(|c| c.id == key.columns[0].column)
            .map(|c| c.def.name.clone())
            .unwrap_or_default();
        let mut all = self.keys.clone();
        all.extend(self.primary.clone());
        if key.name.is_empty() {
            key.name = auto_index_name(&first, &all);
        } else if all.iter().any(|k| k.name.eq_ignore_ascii_case(&key.name))
            || key.name.eq_ignore_ascii_case("PRIMARY")
        {
            let e = MySqlError::dup_keyname(&key.name);
            if if_not_exists {
                *note = Some(Some(e));
                return Ok(());
            }
            return Err(e);
        }
        self.keys.push(key);
        Ok(())
    }

    fn drop_index(&mut self, name: &str, if_exists: bool, cx: &mut SessionCtx) -> R<()> {
        if name.eq_ignore_ascii_case("PRIMARY") {
            return self.apply(&Clause::DropPrimaryKey, cx);
        }
        let had = self.old.index_by_name(name).is_some();
        match self
            .keys
            .iter()
            .position(|k| had && k.name.eq_ignore_ascii_case(name))
        {
            Some(at) => {
                // The changed key list decides whether this copies (see
                // `only_keys_dropped`).
                self.dropped_keys.push(self.keys.remove(at).name);
                Ok(())
            }
            None if if_exists => {
                let e = cant_drop("INDEX", name);
                cx.note(e.code, e.message);
                Ok(())
            }
            None => Err(cant_drop("INDEX", name)),
        }
    }

    fn drop_constraint(&mut self, name: &str, if_exists: bool, cx: &mut SessionCtx) -> R<()> {
        let had = |n: &str| {
            self.old
                .checks
                .iter()
                .any(|c| c.name.eq_ignore_ascii_case(n))
                || self.old.index_by_name(n).is_some()
        };
        if !had(name) {
            if if_exists {
                let e = cant_drop("CONSTRAINT", name);
                cx.note(e.code, e.message);
                return Ok(());
            }
            return Err(cant_drop("CONSTRAINT", name));
        }
        let check = self
            .def
            .checks
            .iter()
            .position(|c| !c.column_level && c.name.eq_ignore_ascii_case(name));
        if let Some(at) = check {
            self.def.checks.remove(at);
            return Ok(());
        }
        let unique = self
            .keys
            .iter()
            .position(|k| k.kind == IndexKind::Unique && k.name.eq_ignore_ascii_case(name));
        match unique {
            Some(at) => {
                self.keys.remove(at);
                Ok(())
            }
            None if if_exists => {
                let e = cant_drop("CONSTRAINT", name);
                cx.note(e.code, e.message);
                Ok(())
            }
            None => Err(cant_drop("CONSTRAINT", name)),
        }
    }

    fn rename_index(&mut self, old: &str, new: &str) -> R<()> {
        let bad = |n: &str| MySqlError::new(1280, "42000", format!("Incorrect index name '{n}'"));
        if old.eq_ignore_ascii_case("PRIMARY") {
            return Err(bad(old));
        }
        if new.eq_ignore_ascii_case("PRIMARY") {
            return Err(bad(new));
        }
        let at = self
            .keys
            .iter()
            .position(|k| k.name.eq_ignore_ascii_case(old))
            .ok_or_else(|| {
                MySqlError::new(
                    1176,
                    "42000",
                    format!("Key '{old}' doesn't exist in table '{}'", self.old.name),
                )
            })?;
        let clash = self
            .keys
            .iter()
            .enumerate()
            .any(|(i, k)| i != at && k.name.eq_ignore_ascii_case(new));
        if clash {
            return Err(MySqlError::dup_keyname(new));
        }
        self.keys[at].name = new.to_string();
        Ok(())
    }

    fn option(&mut self, key: &str, value: &str, cx: &mut SessionCtx) -> R<()> {
        match key {
            "ENGINE" => {
                self.def.engine = engine_kind(value, &self.old.name, cx)?;
                self.copy = true;
            }
            "COMMENT" => self.def.comment = value.to_string(),
            "AUTO_INCREMENT" => {
                let n = value
                    .parse::<u64>()
                    .map_err(|_| MySqlError::parse_error(value, 1))?;
                self.auto_increment = Some(n.max(1));
            }
            "CHARSET" | "CHARACTER SET" => {
                let cs = basalt_common::Charset::from_name(value)
                    .ok_or_else(|| MySqlError::unknown_character_set(value))?;
                self.def.charset = cs;
                self.def.collation = cs.default_collation();
            }
            "COLLATE" => {
                let c = basalt_common::Collation::from_name(value)
                    .ok_or_else(|| MySqlError::unknown_collation(value))?;
                self.def.charset = c.charset();
                self.def.collation = c;
            }
            _ => {
                let table = (self.old.schema.as_str(), self.old.name.as_str());
                super::options::table_option(key, value, &mut self.def.options, cx, table)?;
                super::options::sort(&mut self.def.options);
            }
        }
        Ok(())
    }

    fn finish(mut self, cx: &mut SessionCtx) -> R<AlterPlan> {
        if self.cols.is_empty() {
            return Err(MySqlError::new(
                1090,
                "42000",
                "You can't delete all columns with ALTER TABLE; use DROP TABLE instead",
            ));
        }
        let ordinal = |cols: &[WCol], id: usize| {
            cols.iter()
                .position(|c| c.id == id)
                .expect("keys refer to working columns")
        };
        let mut columns: Vec<ColumnDef> = self.cols.iter().map(|c| c.def.clone()).collect();
        let mut keys = std::mem::take(&mut self.keys);
        // Without a primary key the rows are clustered on a hidden row id (the
        // stored one when the table had none before).
        let hidden = IndexDef {
            columns: Vec::new(),
            ..self.old.indexes[0].clone()
        };
        let mut primary = self.primary.take().unwrap_or(hidden);
        // Keys still name columns by id here, which is the old ordinal for a
        // column the table had.
        let known = |k: &IndexDef| {
            (self.old.indexes.iter()).any(|o| o.kind == k.kind && o.columns == k.columns)
        };
        self.unique_added = (keys.iter().chain([&primary]))
            .any(|k| k.is_unique() && !k.columns.is_empty() && !known(k));
        for k in keys.iter_mut().chain(std::iter::once(&mut primary)) {
            for kc in k.columns.iter_mut() {
                kc.column = ordinal(&self.cols, kc.column);
            }
        }
        for kc in &primary.columns {
            columns[kc.column].nullable = false;
        }
        // Each added key as MariaDB takes it: its parts cut to the longest a key
        // part may be, then compared with the keys before it.
        for i in 0..keys.len() {
            if keys[i].id == 0 {
                implicit_prefixes(&mut keys[i], &columns, cx);
                super::ddl::note_duplicate(&keys[i], &keys[..i], cx);
            }
        }
        let new_foreign_keys = self.foreign_keys(cx, &columns, &primary, &mut keys)?;
        sort_keys(&mut keys, &columns);
        let mut indexes = vec![primary];
        indexes.extend(keys);
        for idx in indexes.iter_mut().filter(|i| !i.columns.is_empty()) {
            implicit_prefixes(idx, &columns, cx);
            check_key(idx, &columns)?;
        }
        check_auto_increment(&columns, &indexes)?;
        // Column-level checks in column order, then table-level ones (MariaDB's order).
        let col_pos = |c: &CheckDef| {
            columns
                .iter()
                .position(|d| d.name.eq_ignore_ascii_case(&c.name))
        };
        let mut checks = std::mem::take(&mut self.def.checks);
        checks.sort_by_key(|c| {
            if c.column_level { col_pos(c) } else { None }.map_or(usize::MAX, |p| p)
        });
        let sources = self.cols.iter().map(|c| c.src).collect();
        let copy_for_rows = self.copy;
        if self.indexes_changed(&indexes) {
            self.copy = true;
        }
        self.added_in_place(&mut columns);
        // An added column whose value each row computes (MariaDB copies for it).
        let computed = (self.cols.iter()).any(|c| c.src.is_none() && fixed_value(&c.def).is_none());
        // ALTER IGNORE leaves out rows that a new unique key or a converted value
        // makes clash, which only a copy with writers held out can do.
        let ignoring = self.ignore && (self.unique_added || self.type_changed);
        let concurrent = self.copy
            && !ignoring
            && new_foreign_keys.is_empty()
            && !matches!(self.lock.as_deref(), Some("SHARED" | "EXCLUSIVE"))
            && self.algorithm.as_deref() != Some("COPY");
        let online = concurrent && self.same_primary_key(&columns, &indexes[0]);
        self.def.columns = columns;
        self.def.indexes = indexes;
        self.def.checks = checks;
        if !copy_for_rows && self.copy && self.only_keys_dropped() {
            self.check_drop_algorithm()?;
            self.copy = false;
        }
        let add_index = concurrent
            && !self.new_checks
            && self.auto_increment.is_none()
            && self.only_an_index_added();
        self.check_algorithm(online || add_index)?;
        Ok(AlterPlan {
            def: self.def,
            sources,
            copy: self.copy,
            online,
            add_index,
            auto_increment: self.auto_increment,
            new_checks: self.new_checks,
            new_foreign_keys,
            ignore: self.ignore,
            counts_rows: self.copy && (self.type_changed || computed || !(online || add_index)),
            clear_partitions: Vec::new(),
        })
    }

    /// Sets the constraints of the new definition (see
    /// [`super::foreign_key::alter_keys`]); returns the added ones that existing
    /// rows must satisfy. Adding one with checks on copies the table, as MariaDB's
    /// ALGORITHM=COPY does.
    fn foreign_keys(
        &mut self,
        cx: &SessionCtx,
        columns: &[ColumnDef],
        primary: &IndexDef,
        keys: &mut Vec<IndexDef>,
    ) -> R<Vec<basalt_common::ForeignKeyDef>> {
        let referenced = cx
            .engine
            .storage
            .foreign_keys()
            .is_some_and(|i| !i.children(&self.old.schema, &self.old.name).is_empty());
        if self.old.foreign_keys.is_empty() && self.fk_added.is_empty() && !referenced {
            return Ok(Vec::new());
        }
        let renamed = (0..self.old.columns.len())
            .map(|i| {
                self.cols
                    .iter()
                    .find(|c| c.src == Some(i))
                    .map(|c| c.def.name.clone())
            })
            .collect();
        let a = super::foreign_key::AlterKeys {
            old: self.old,
            renamed,
            dropped: &self.fk_dropped,
            dropped_keys: &self.dropped_keys,
            added: &self.fk_added,
        };
        let all = super::foreign_key::alter_keys(
            cx,
            &a,
            (&self.def.schema, &self.def.name),
            columns,
            primary,
            keys,
        )?;
        let added =
            all.len() - (self.old.foreign_keys.len() - self.fk_dropped.len()).min(all.len());
        let fresh: Vec<_> = all[all.len() - added..].to_vec();
        self.def.foreign_keys = all;
        if !fresh.is_empty() && cx.var_bool("foreign_key_checks") {
            self.copy = true;
            return Ok(fresh);
        }
        Ok(Vec::new())
    }

    /// Decides whether the added columns need a copy of the table. Columns added
    /// after all existing ones, each with the same value in every existing row (a
    /// literal default, NULL, or the type's implicit default), need none: rows
    /// stored before read that value for them (`ColumnDef::absent`), so ADD COLUMN
    /// takes the time of a catalog write whatever the table's size (MariaDB's
    /// ALGORITHM=INSTANT). A copy rewrites every row, after which no column needs
    /// an absent value.
    fn added_in_place(&mut self, columns: &mut [ColumnDef]) {
        let first_new = self.cols.iter().position(|c| c.src.is_none());
        let at_end = first_new.is_none_or(|f| self.cols[f..].iter().all(|c| c.src.is_none()));
        let fixed = self
            .cols
            .iter()
            .filter(|c| c.src.is_none())
            .all(|c| fixed_value(&c.def).is_some());
        if !at_end || !fixed || (first_new.is_some() && self.new_checks) {
            self.copy = true;
        }
        for (col, w) in columns.iter_mut().zip(&self.cols) {
            col.absent = match w.src {
                _ if self.copy => None,
                None => fixed_value(&w.def),
                Some(j) => self.old.columns[j].absent.clone(),
            };
        }
    }
}

/// The value an added column has in every existing row, when one value serves
/// them all: not for DEFAULT expressions, CURRENT_TIMESTAMP, AUTO_INCREMENT or
/// generated columns (a copy computes those per row).
fn fixed_value(col: &ColumnDef) -> Option<basalt_common::Value> {
    if col.auto_increment || col.generated.is_some() {
        return None;
    }
    match &col.default {
        Some(basalt_common::DefaultValue::Literal(v)) => Some(v.clone()),
        Some(_) => None,
        None if col.nullable => Some(basalt_common::Value::Null),
        None => Some(crate::exec::insert::implicit_default(col)),
    }
}
