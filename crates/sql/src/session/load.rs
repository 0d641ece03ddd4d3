//! `LOAD DATA [LOCAL] INFILE`: reads a delimited text file into a table with
//! INSERT's rules (defaults, conversions, AUTO_INCREMENT, CHECK constraints,
//! REPLACE / IGNORE for duplicate keys), as one statement of the session's
//! transaction.
//!
//! The file streams: a LOCAL file arrives from the client in packets, a server
//! file is read in 64 KiB chunks, and each record is inserted as soon as its line
//! is complete, so memory does not grow with the file. Server files are refused
//! unless they are inside `--secure-file-priv` (Basalt's default is none at all:
//! MariaDB's empty value, no restriction, is not offered). A relative name is
//! taken inside that directory.
//!
//! Each field goes to its column or user variable by the field list; SET
//! assignments are bound as an UPDATE's SET list over the table's row, in which
//! the loaded fields stand in their columns, and evaluated after the user
//! variables of the record are set. In strict mode without IGNORE or LOCAL, what
//! MariaDB reports as a warning on a record (too few or too many fields, NULL for
//! a NOT NULL column, a value that does not convert) ends the statement with
//! that error instead and nothing of it stays.

use super::ctx::Level;
use super::{Out, Session};
use crate::exec::insert::{implicit_default, RowInserter, SourceRow};
use crate::exec::textfile::{Field, Reader};
use crate::exec::Exec;
use crate::expr::Expr;
use crate::front::native::{LoadData, LoadTarget, OnDuplicate};
use crate::plan::{InsertPlan, InsertSource, Plan};
use crate::result::QueryResult;
use basalt_common::{charset, Charset, MySqlError, Value};
use sqlparser::ast::Statement;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

type R<T> = Result<T, MySqlError>;

/// Where a field of the file goes.
enum Slot {
    /// Position in the plan's column list.
    Column(usize),
    UserVar(String),
}

/// The bound statement.
struct Load {
    plan: InsertPlan,
    slots: Vec<Slot>,
    /// SET assignments: (position in the plan's column list, expression over
    /// the table's row).
    set: Vec<(usize, Expr)>,
    charset: Charset,
    ignore_lines: u64,
    /// Record-level problems are errors (strict mode, neither IGNORE nor LOCAL).
    strict: bool,
}

impl Session {
    pub(super) fn load_data(&mut self, d: LoadData, out: &mut Out<'_>) -> R<QueryResult> {
        if !d.local {
            // Checked before the table, as MariaDB does.
            secure_path(self.cx.engine.config.secure_file_priv.as_deref(), &d.file)?;
        } else if self.cx.engine.global_variable("local_infile") == Some(Value::Int(0)) {
            return Err(MySqlError::local_infile_disabled());
        }
        d.format.validate()?;
        let load = self.bind_load(&d)?;
        let plan = Plan::Insert(load.plan.clone());
        let entered = self.enter_plan(&plan)?;
        let source = if d.local {
            Source::Local(&d.file)
        } else {
            Source::File(secure_path(
                self.cx.engine.config.secure_file_priv.as_deref(),
                &d.file,
            )?)
        };
        let fmt = d.format.clone();
        let r = self.in_statement(&[], false, |ex| run(&load, fmt, source, out, ex));
        self.leave(entered);
        let o = r?;
        if o.last_insert_id != 0 {
            self.cx.last_insert_id = o.last_insert_id;
        }
        self.cx.row_count = o.affected as i64;
        let (deleted, skipped) = match load.plan.replace {
            true => (o.duplicates, 0),
            false => (0, o.duplicates),
        };
        Ok(QueryResult::Ok {
            affected_rows: o.affected,
            last_insert_id: o.last_insert_id,
            info: format!(
                "Records: {}  Deleted: {deleted}  Skipped: {skipped}  Warnings: {}",
                o.records,
                self.cx.statement_warnings()
            ),
            warnings: self.warning_count(),
        })
    }

    fn bind_load(&mut self, d: &LoadData) -> R<Load> {
        let db = match &d.db {
            Some(db) => db.clone(),
            None => self.cx.db.clone().ok_or_else(MySqlError::no_db)?,
        };
        let storage = self.cx.engine.storage.clone();
        let mut b = crate::bind::Binder::new(&storage, &self.cx, "", None);
        let table = b.open_table(&db, &d.table)?;
        let def = table.def();
        let targets: Vec<LoadTarget> = match &d.targets {
            Some(t) => t.clone(),
            None => def
                .columns
                .iter()
                .filter(|c| !c.invisible)
                .map(|c| LoadTarget::Column(c.name.clone()))
                .collect(),
        };
        let mut columns = Vec::new();
        let mut slots = Vec::new();
        for t in targets {
            slots.push(match t {
                LoadTarget::UserVar(v) => Slot::UserVar(v),
                LoadTarget::Column(name) => {
                    let ci = def
                        .column_index(&name)
                        .ok_or_else(|| MySqlError::bad_field(&name, "SELECT"))?;
                    Slot::Column(position(&mut columns, ci))
                }
            });
        }
        let tref = crate::plan::TableRef {
            table,
            def: def.clone(),
            alias: d.table.clone(),
            db: db.clone(),
            offset: 0,
            func: None,
        };
        let checks = b.bind_checks(&tref)?;
        let mut set = Vec::new();
        if let Some(text) = &d.set {
            let update = format!(
                "UPDATE `{}`.`{}` SET {text}",
                db.replace('`', "``"),
                d.table.replace('`', "``")
            );
            let stmt = self.parse(&update)?;
            let Statement::Update(u) = &stmt else {
                return Err(MySqlError::parse_error(text, 1));
            };
            let mut b = crate::bind::Binder::new(&storage, &self.cx, &update, None);
            for (ci, e) in b.update(u)?.set {
                set.push((position(&mut columns, ci), e));
            }
        }
        let local = d.local;
        let ignore = d.on_duplicate == OnDuplicate::Ignore
            || (local && d.on_duplicate == OnDuplicate::Error);
        let charset = match &d.charset {
            Some(name) => {
                Charset::from_name(name).ok_or_else(|| MySqlError::unknown_character_set(name))?
            }
            None => self.database_charset(),
        };
        Ok(Load {
            plan: InsertPlan {
                needs: Default::default(),
                table: tref,
                columns,
                source: InsertSource::Values(Vec::new()),
                on_dup: Vec::new(),
                ignore,
                replace: d.on_duplicate == OnDuplicate::Replace,
                subs: Default::default(),
                checks,
                returning: None,
            },
            slots,
            set,
            charset,
            ignore_lines: d.ignore_lines,
            strict: self.cx.mode.strict && !ignore,
        })
    }

    /// `character_set_database`: how a file without CHARACTER SET is read.
    fn database_charset(&self) -> Charset {
        match self.cx.vars.get("character_set_database") {
            Some(Value::Bytes(b)) => {
                Charset::from_name(&String::from_utf8_lossy(b)).unwrap_or(Charset::Utf8mb4)
            }
            _ => self.cx.engine.config.collation_server.charset(),
        }
    }
}

/// The position of column `ci` in `columns`, added at the end if absent.
fn position(columns: &mut Vec<usize>, ci: usize) -> usize {
    match columns.iter().position(|&c| c == ci) {
        Some(p) => p,
        None => {
            columns.push(ci);
            columns.len() - 1
        }
    }
}

/// The file a server-side LOAD DATA may read: inside `--secure-file-priv`.
fn secure_path(dir: Option<&Path>, name: &[u8]) -> R<PathBuf> {
    let dir = dir.ok_or_else(MySqlError::secure_file_priv)?;
    let name = String::from_utf8_lossy(name);
    let path = Path::new(&*name);
    let full = if path.is_absolute() {
        path.to_path_buf()
    } else {
        dir.join(path)
    };
    if !lexically_inside(&full, dir) {
        return Err(MySqlError::secure_file_priv());
    }
    let real = std::fs::canonicalize(&full)
        .map_err(|e| MySqlError::cant_get_stat(&full.display().to_string(), &e))?;
    if !real.starts_with(dir) {
        return Err(MySqlError::secure_file_priv());
    }
    Ok(real)
}

/// Whether `path`, with `.` and `..` resolved by their text, lies in `dir`.
pub(super) fn lexically_inside(path: &Path, dir: &Path) -> bool {
    let mut parts: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                if parts.len() <= 1 {
                    return false;
                }
                parts.pop();
            }
            Component::CurDir => {}
            c => parts.push(c),
        }
    }
    parts.iter().collect::<PathBuf>().starts_with(dir)
}

enum Source<'a> {
    Local(&'a [u8]),
    File(PathBuf),
}

fn read_source(
    source: Source<'_>,
    out: &mut Out<'_>,
    each: &mut dyn FnMut(&[u8]) -> R<()>,
) -> R<()> {
    match source {
        Source::Local(name) => out.local_infile(name, each),
        Source::File(path) => {
            let shown = path.display().to_string();
            let mut f =
                std::fs::File::open(&path).map_err(|e| MySqlError::file_not_found(&shown, &e))?;
            let mut buf = vec![0u8; 64 << 10];
            loop {
                let n = f.read(&mut buf).map_err(|e| {
                    MySqlError::new(
                        1024,
                        "HY000",
                        format!("Error reading file '{shown}' (errno: {e})"),
                    )
                })?;
                if n == 0 {
                    return Ok(());
                }
                each(&buf[..n])?;
            }
        }
    }
}

fn run(
    load: &Load,
    fmt: crate::exec::textfile::Format,
    source: Source<'_>,
    out: &mut Out<'_>,
    ex: &mut Exec,
) -> R<crate::exec::insert::InsertOutcome> {
    let mut reader = Reader::new(fmt);
    let mut rows = RowInserter::new(0, true, ex);
    let mut skip = load.ignore_lines;
    let mut drain = |reader: &mut Reader, ex: &mut Exec, rows: &mut RowInserter| -> R<()> {
        while let Some(record) = reader.next_record() {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            ex.check_interrupt()?;
            let row_no = rows.next_row_no();
            let (src, shape) = source_row(load, record, row_no, ex)?;
            rows.push(&load.plan, src, ex)?;
            shape.report(load, row_no, ex)?;
        }
        Ok(())
    };
    // A file in ucs2 / utf16 / utf32 is read as the UTF-8 of its characters (the
    // separators are characters of the file's set too), cut between characters.
    let wide = load.charset.is_wide().then_some(load.charset);
    let mut carry = Vec::new();
    read_source(source, out, &mut |chunk| {
        match wide {
            Some(cs) => {
                carry.extend_from_slice(chunk);
                let n = charset::whole_prefix(&carry, cs);
                reader.feed(&charset::to_internal(&carry[..n], cs));
                carry.drain(..n);
            }
            None => reader.feed(chunk),
        }
        drain(&mut reader, ex, &mut rows)
    })?;
    if let Some(cs) = wide.filter(|_| !carry.is_empty()) {
        reader.feed(&charset::to_internal(&carry, cs));
    }
    reader.finish();
    drain(&mut reader, ex, &mut rows)?;
    Ok(rows.out)
}

/// A record reported by the rules of the statement: an error in strict mode, a
/// warning otherwise.
fn complain(load: &Load, ex: &mut Exec, code: u16, message: String) -> R<()> {
    if load.strict {
        let state = if code == 1263 { "22004" } else { "01000" };
        return Err(MySqlError::new(code, state, message));
    }
    ex.ctx.cx.warn(Level::Warning, code, message);
    Ok(())
}

/// What a record lacked or had too much of, reported after its row is stored
/// (MariaDB reports these after the row's conversion warnings).
struct Shape {
    missing: usize,
    extra: bool,
}

impl Shape {
    fn report(&self, load: &Load, row_no: u64, ex: &mut Exec) -> R<()> {
        for _ in 0..self.missing {
            let m = format!("Row {row_no} doesn't contain data for all columns");
            complain(load, ex, 1261, m)?;
        }
        if self.extra {
            let m = format!(
                "Row {row_no} was truncated; it contained more data than there were input columns"
            );
            complain(load, ex, 1262, m)?;
        }
        Ok(())
    }
}

/// A column the record has no field for: NULL when that is the column's default,
/// the current time for a NOT NULL TIMESTAMP, else the type's zero value (MariaDB
/// resets the field rather than applying its default).
fn missing_value(col: &basalt_common::ColumnDef, ex: &mut Exec) -> Value {
    if col.nullable && col.default.is_none() {
        return Value::Null;
    }
    if !col.nullable && matches!(col.data_type, basalt_common::DataType::Timestamp { .. }) {
        let now = crate::value::temporal::truncate_fsp(ex.ctx.cx.stmt_time, col.data_type.fsp());
        return Value::DateTime(now);
    }
    implicit_default(col)
}

/// One record as the plan's row: fields into their columns and user variables,
/// then the SET assignments.
fn source_row(
    load: &Load,
    mut record: Vec<Field>,
    row_no: u64,
    ex: &mut Exec,
) -> R<(SourceRow, Shape)> {
    let def = &load.plan.table.def;
    let shape = Shape {
        missing: load.slots.len().saturating_sub(record.len()),
        extra: record.len() > load.slots.len(),
    };
    record.truncate(load.slots.len());
    let mut src: SourceRow = vec![None; load.plan.columns.len()];
    let mut fields = record.into_iter();
    for slot in &load.slots {
        let field = fields.next();
        match slot {
            Slot::UserVar(name) => {
                let v = field.flatten().map_or(Value::Null, Value::Bytes);
                ex.ctx.cx.user_vars.insert(name.clone(), v);
            }
            Slot::Column(p) => {
                let col = &def.columns[load.plan.columns[*p]];
                src[*p] = Some(match field {
                    None => missing_value(col, ex),
                    Some(None) if !col.nullable && !col.auto_increment => {
                        let m = format!(
                            "Column set to default value; NULL supplied to NOT NULL column '{}' at row {row_no}",
                            col.name
                        );
                        complain(load, ex, 1263, m)?;
                        implicit_default(col)
                    }
                    Some(None) => Value::Null,
                    Some(Some(bytes)) => Value::Bytes(in_column_charset(bytes, col, load.charset)),
                });
            }
        }
    }
    if !load.set.is_empty() {
        let mut row = vec![Value::Null; def.columns.len()];
        for (p, v) in src.iter().enumerate() {
            if let Some(v) = v {
                row[load.plan.columns[p]] = v.clone();
            }
        }
        for (p, e) in &load.set {
            src[*p] = Some(e.eval(&row, ex.ctx)?);
        }
    }
    Ok((src, shape))
}

/// A field's bytes, read in the file's character set, as the column holds text
/// (a wide set's file was read as UTF-8 already).
fn in_column_charset(bytes: Vec<u8>, col: &basalt_common::ColumnDef, cs: Charset) -> Vec<u8> {
    let cs = if cs.is_wide() { Charset::Utf8mb4 } else { cs };
    match col.data_type.collation() {
        Some(c) if !c.is_binary() => match charset::to_internal(&bytes, cs) {
            std::borrow::Cow::Borrowed(_) => bytes,
            std::borrow::Cow::Owned(o) => o,
        },
        _ => bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_must_stay_inside_the_directory() {
        let dir = Path::new("/srv/load");
        assert!(lexically_inside(Path::new("/srv/load/a.csv"), dir));
        assert!(lexically_inside(Path::new("/srv/load/x/../a.csv"), dir));
        assert!(!lexically_inside(Path::new("/srv/load/../etc/passwd"), dir));
        assert!(!lexically_inside(Path::new("/srv/loader/a.csv"), dir));
        assert!(!lexically_inside(Path::new("/etc/passwd"), dir));
        assert_eq!(
            secure_path(None, b"/srv/load/a.csv")
                .expect_err("no directory")
                .code,
            1290
        );
        assert_eq!(
            secure_path(Some(dir), b"../../etc/passwd")
                .expect_err("outside")
                .code,
            1290
        );
    }
}
